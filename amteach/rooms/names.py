"""Students' names in a room: what a name may hold, and when two names are too alike.

A name is shown on every device of a table and on the projector, so it must be what it looks
like: NFKC-normalised, no control, format (bidi, zero-width) or invisible characters (U+3164
HANGUL FILLER looks like nothing at all), at least one letter or digit, and at most
`MAX_NAME` characters. Two names clash when they look alike: "Ana", "ANA" and "Аna" (with a
Cyrillic A) have the same *skeleton*, in the sense of Unicode's confusables (UTS #39), here
from the `confusable_homoglyphs` package's table.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

from ..engine.errors import AmteachError
from ..engine.setup import MAX_PLAYER_NAME

MAX_NAME = MAX_PLAYER_NAME  # the engine's limit: a save holds the same names

# Characters Unicode calls default-ignorable (DerivedCoreProperties.txt) that are letters or
# symbols by category, so the category test below does not catch them: fillers and blanks
# that draw nothing. Format characters (Cf: bidi controls, zero-width joiners) are caught by
# category.
INVISIBLE = frozenset(
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800),
        *(0x3164, 0xFFA0, *range(0xFE00, 0xFE10), *range(0x1D173, 0x1D17B)),
        *range(0xE0100, 0xE01F0),
    ]
)


class Refused(AmteachError):
    """A polite no: the sentence says why, for the person who asked."""


def _refuse_characters(text: str) -> None:
    for char in text:
        category = unicodedata.category(char)
        if category.startswith("C") or ord(char) in INVISIBLE:
            where = f"U+{ord(char):04X}"
            raise Refused(
                f"That name has a character that cannot be seen or shown ({where}); "
                "please type your name with ordinary letters."
            )
        if category in ("Zl", "Zp"):
            raise Refused("Please type your name on one line.")


def clean_name(name: Any) -> str:
    """A student's name as shown (NFKC, single spaces), or Refused saying what is wrong."""
    raw = str(name if name is not None else "")
    if len(raw) > 4 * MAX_NAME:  # never normalise a page of text
        raise Refused(f"Please use a shorter name (at most {MAX_NAME} letters).")
    text = unicodedata.normalize("NFKC", raw)
    _refuse_characters(text.replace(" ", "").replace("\t", ""))
    text = " ".join(text.split())
    if not text:
        raise Refused("Type your name first.")
    if len(text) > MAX_NAME:
        raise Refused(f"Please use a shorter name (at most {MAX_NAME} letters).")
    if not any(unicodedata.category(c)[0] in "LN" for c in text):
        raise Refused("A name needs at least one letter or digit.")
    if is_bot_name(text):
        raise Refused("Names like 'Bot 2' are kept for the bots; please use your own name.")
    return text


def is_bot_name(text: str) -> bool:
    """True for "Bot 3" and anything that looks like it ("Вot 3" with a Cyrillic В)."""
    bot = skeleton("bot")
    for form in skeletons(text):
        head, _, number = form.rpartition(" ")
        if head == bot and number.isdigit():
            return True
    return False


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> the one character its group is written as (the group's
    lowest code point): groups joined through any pair the table lists as alike."""
    from confusable_homoglyphs import confusables

    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.get(char, char) != char:
            char = parent[char]
        return char

    for char, alikes in confusables.confusables_data.items():
        if len(char) != 1:
            continue
        for alike in alikes:
            other = alike["c"].replace("\u200e", "")  # the table marks RTL forms with LRM
            if len(other) == 1:
                a, b = root(char), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {char: root(char) for char in parent}


def _shape(text: str) -> str:
    table = _prototypes()
    return "".join(table.get(c, c) for c in text)


def skeleton(name: str) -> str:
    """The form two names are compared in: NFKC, case-folded, each look-alike character
    replaced by its group's prototype, spaces collapsed. Names with one skeleton look alike."""
    return " ".join(_shape(unicodedata.normalize("NFKC", name).casefold()).split())


def skeletons(name: str) -> set[str]:
    """The skeleton, and the skeleton of the name with its look-alike capitals replaced
    first (a Cyrillic "В" is confusable with "B", while its small "в" is not with "b")."""
    text = unicodedata.normalize("NFKC", name)
    return {skeleton(text), " ".join(_shape(_shape(text).casefold()).split())}


def look_alike(a: str, b: str) -> bool:
    """The two names could be taken for each other on a screen."""
    return bool(skeletons(a) & skeletons(b))


def same_name(a: str, b: str) -> bool:
    """The same name typed differently (case, spacing, width): not merely alike."""
    fold = lambda s: " ".join(unicodedata.normalize("NFKC", s).casefold().split())  # noqa: E731
    return fold(a) == fold(b)
