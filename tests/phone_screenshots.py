"""The phone screenshots of docs/classroom.md (docs/img/phone-*.png): the game that
tests/test_phone.py plays on a 390x844 phone, kept for the docs.

    .venv/bin/python tests/phone_screenshots.py"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from test_phone import play_a_game_on_a_phone

IMG = Path(__file__).resolve().parents[1] / "docs" / "img"

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        errors = play_a_game_on_a_phone(IMG, Path(folder), student="Ben")
    for kept_by_the_test_only in IMG.glob("phone-panel-*.png"):
        kept_by_the_test_only.unlink()
    for error in errors:
        print("console error:", error, file=sys.stderr)
    sys.exit(1 if errors else 0)
