"""Reading and writing the files users hand us: scenarios (YAML) and saved games (JSON).

Everything that can go wrong becomes one InputError naming the file and the field, and a
save is written to a temporary file first so a failed write never damages an existing one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from .engine.errors import InputError, SaveError, ScenarioError
from .engine.game import Game
from .engine.scenario import load_scenario, play_script


def _read_text(path: str | os.PathLike[str], error: type[InputError]) -> str:
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error("file not found", str(p)) from None
    except IsADirectoryError:
        raise error("is a folder, not a file", str(p)) from None
    except UnicodeDecodeError:
        raise error("is not a text file (UTF-8)", str(p)) from None
    except OSError as err:
        raise error(f"cannot be read: {err.strerror}", str(p)) from None


def read_yaml(path: str | os.PathLike[str], error: type[InputError] = ScenarioError) -> Any:
    text = _read_text(path, error)
    try:
        return yaml.safe_load(text)
    except yaml.reader.ReaderError as err:
        # a character YAML never allows (a NUL byte, most control characters)
        line = text.count("\n", 0, err.position) + 1
        column = err.position - text.rfind("\n", 0, err.position)
        raise error(
            f"not valid YAML: it contains a character YAML does not allow ({_character(err)})",
            str(path),
            f"line {line}, column {column}",
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or "the YAML parser could not read it"
        raise error(f"not valid YAML: {problem}", str(path), where) from None
    except RecursionError:
        raise error(
            "not readable: lists or mappings are nested too deeply (hundreds of levels)",
            str(path),
        ) from None


def _character(err: yaml.reader.ReaderError) -> str:
    code = err.character if isinstance(err.character, int) else ord(err.character)
    return "a NUL byte" if code == 0 else f"the control character U+{code:04X}"


def read_json(path: str | os.PathLike[str], error: type[InputError] = SaveError) -> Any:
    text = _read_text(path, error)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise error(
            f"not valid JSON: {err.msg}", str(path), f"line {err.lineno}, column {err.colno}"
        ) from None
    except RecursionError:
        raise error(
            "not readable: lists or mappings are nested too deeply (hundreds of levels)",
            str(path),
        ) from None


def load_scenario_file(path: str | os.PathLike[str], play: bool = True) -> Game:
    """The game a scenario file sets up, with its script played (unless play=False)."""
    source = str(path)
    game, script = load_scenario(read_yaml(path), source)
    return play_script(game, script, source) if play else game


def save_game(game: Game, path: str | os.PathLike[str]) -> Path:
    """Write the game as JSON (set-up, seed, decisions). Replaces the file atomically."""
    target = Path(path)
    text = json.dumps(game.to_save(), indent=1)
    fd, tmp = tempfile.mkstemp(prefix=".amteach-", suffix=".json", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def load_game(path: str | os.PathLike[str]) -> Game:
    """A saved game, rebuilt by replaying its decisions."""
    return Game.from_save(read_json(path), str(path))
