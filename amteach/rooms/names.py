"""Students' names in a room: what a name may hold, and when two names are too alike.

A name is shown on every device of a table and on the projector, so it must be what it looks
like: NFKC-normalised, no control, format (bidi, zero-width) or invisible characters (U+3164
HANGUL FILLER looks like nothing at all), at least one letter or digit, and at most
`MAX_NAME` characters. It is written in the scripts people write names in today (see
`SCRIPTS`): a name of 24 cuneiform signs, which draw several times wider and taller than
letters, is refused, and so are a few signs that draw as wide as a word (`WIDE_SIGNS`) and
more than `MAX_MARKS` accents stacked on one letter. Two names clash when they look alike:
"Ana", "ANA" and "Аna" (with a Cyrillic A) have the same *skeleton*, in the sense of
Unicode's confusables (UTS #39), here from the `confusable_homoglyphs` package's table.
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


# The scripts a name may be written in: the scripts Unicode recommends for identifiers
# (UAX #31, table 5) and those in limited but living use (table 7), with Common (digits,
# punctuation, emoji) and Inherited (accents). Historic scripts (table 4: Cuneiform,
# Egyptian hieroglyphs, Linear B, Runic, ...) are not a class's names, and many draw huge.
SCRIPTS = frozenset(
    (
        *("COMMON", "INHERITED", "LATIN", "GREEK", "CYRILLIC", "ARMENIAN", "GEORGIAN"),
        *("HEBREW", "ARABIC", "SYRIAC", "THAANA", "NKO", "ETHIOPIC", "TIFINAGH", "ADLAM"),
        *("DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI", "ORIYA", "TAMIL", "TELUGU"),
        *("KANNADA", "MALAYALAM", "SINHALA", "OL_CHIKI", "MEETEI_MAYEK", "SYLOTI_NAGRI"),
        *("SAURASHTRA", "CHAKMA", "NEWA", "LEPCHA", "LIMBU", "THAI", "LAO", "TIBETAN"),
        *("MYANMAR", "KHMER", "TAI_LE", "NEW_TAI_LUE", "TAI_THAM", "TAI_VIET", "CHAM"),
        *("KAYAH_LI", "JAVANESE", "BALINESE", "SUNDANESE", "BATAK", "HANIFI_ROHINGYA"),
        *("MONGOLIAN", "HAN", "HIRAGANA", "KATAKANA", "BOPOMOFO", "HANGUL", "YI", "LISU"),
        *("MIAO", "NYIAKENG_PUACHUE_HMONG", "WANCHO", "VAI", "BAMUM", "OSAGE", "CHEROKEE"),
        *("CANADIAN_ABORIGINAL", "MANDAIC"),
    )
)
# signs of those scripts that draw as wide as a word on their own (U+FDFD, the Bismillah
# ligature; the two- and three-em dashes)
WIDE_SIGNS = frozenset((0xFDFD, 0x2E3A, 0x2E3B))
# accents (combining marks) in a row: two is ordinary (Vietnamese, Devanagari), a stack of
# dozens draws over the lines around it
MAX_MARKS = 4


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


def script(char: str) -> str:
    """The Unicode script of a character ("LATIN", "CUNEIFORM"), from the
    `confusable_homoglyphs` package's table; "Unknown" for a character it does not know."""
    from confusable_homoglyphs import categories

    return categories.aliases_categories(char)[0]


def _refuse_scripts(text: str) -> None:
    marks = 0
    for char in text:
        if ord(char) in WIDE_SIGNS:
            raise Refused(
                f"That name has a sign that draws as wide as a word (U+{ord(char):04X}); "
                "please type your name with ordinary letters."
            )
        if ord(char) < 0x80:
            marks = 0
            continue
        found = script(char)
        if found not in SCRIPTS:
            shown = f"the {found.replace('_', ' ').title()}" if found != "Unknown" else "an"
            raise Refused(
                f"That name uses {shown} script (U+{ord(char):04X}), which a class's "
                "names are not written in; please type your name in the letters you "
                "usually write it in."
            )
        marks = marks + 1 if unicodedata.category(char).startswith("M") else 0
        if marks > MAX_MARKS:
            raise Refused(
                f"That name stacks more than {MAX_MARKS} accents on one letter; please "
                "type your name as you usually write it."
            )


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
    _refuse_scripts(text)
    if is_bot_name(text):
        raise Refused("Names like 'Bot 2' are kept for the bots; please use your own name.")
    return text


@functools.cache
def _bot_heads() -> frozenset[str]:
    """Every skeleton "Bot" has, however it is capitalised ("BOT" shapes to "B0T": the
    capital O is confusable with zero, the small o is not)."""
    forms = {a + b + c for a in "Bb" for b in "Oo" for c in "Tt"}
    return frozenset(_squeeze(s) for form in forms for s in skeletons(form))


def _squeeze(form: str) -> str:
    """A skeleton with everything but letters and digits left out ("b0t - 3" -> "b0t3")."""
    return "".join(c for c in form if unicodedata.category(c)[0] in "LN")


def is_bot_name(text: str) -> bool:
    """True for "Bot 3" and anything that looks like it: "Вot 3" (a Cyrillic В), "B0t 3"
    (a zero), "BOT3", "Bot-3", "Bot ３" (full-width): a look-alike of "Bot", then digits or
    look-alikes of digits, with any spaces or punctuation between."""
    heads = _bot_heads()
    for form in skeletons(text):
        squeezed = _squeeze(form)
        for head in heads:
            number = squeezed[len(head) :]
            if squeezed.startswith(head) and number and all(c in "0123456789" for c in number):
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


# -- a student's ID or email, for the gradebook (issue 37) ---------------------------------------
MAX_STUDENT_ID = 64
STUDENT_ID_FIELD = "Student ID or email"
# what an ID may hold besides letters and digits (no spaces: a gradebook's IDs have none)
ID_PUNCTUATION = frozenset("-._/:")
# what the part of an email before the @ may hold besides letters and digits (RFC 5322's
# atom characters less the quote; a spreadsheet's formula signs are refused at the start)
EMAIL_PUNCTUATION = frozenset(".!#$%&'*+/=?^_`{|}~-")


def _letter_or_digit(char: str) -> bool:
    return unicodedata.category(char)[0] in "LN"


def looks_like_email(text: str) -> bool:
    """Name@place.domain: one @, a local part, and a domain of dotted labels."""
    local, at, domain = text.partition("@")
    if not at or not local or "@" in domain:
        return False
    if not all(_letter_or_digit(c) or c in EMAIL_PUNCTUATION for c in local):
        return False
    labels = domain.split(".")
    return len(labels) >= 2 and all(
        label
        and all(_letter_or_digit(c) or c == "-" for c in label)
        and not label.startswith("-")
        and not label.endswith("-")
        for label in labels
    )


def clean_student_id(value: Any) -> str:
    """A student's ID or email as kept for the gradebook: trimmed, NFC, at most
    MAX_STUDENT_ID characters, no control, format or invisible character, starting with a
    letter or digit (so no spreadsheet reads it as a formula), and either an email
    (name@school.edu) or an ID of letters, digits and - . _ / : with no spaces. Refused,
    with one sentence naming the field, otherwise."""
    field_name = STUDENT_ID_FIELD
    if value is not None and not isinstance(value, str):
        raise Refused(f"{field_name}: the page sent something that is not text.")
    raw = value or ""
    if len(raw) > 4 * MAX_STUDENT_ID:  # never normalise a page of text
        raise Refused(f"{field_name}: please use at most {MAX_STUDENT_ID} characters.")
    text = unicodedata.normalize("NFC", raw).strip()
    if not text:
        raise Refused(f"{field_name}: type your student ID or school email first.")
    for char in text:
        if unicodedata.category(char).startswith("C") or ord(char) in INVISIBLE:
            raise Refused(
                f"{field_name}: it has a character that cannot be seen or shown "
                f"(U+{ord(char):04X}); type it with ordinary letters and digits."
            )
    if len(text) > MAX_STUDENT_ID:
        raise Refused(f"{field_name}: please use at most {MAX_STUDENT_ID} characters.")
    if any(unicodedata.category(c)[0] == "Z" for c in text):
        raise Refused(f"{field_name}: type it without spaces.")
    if not _letter_or_digit(text[0]):
        raise Refused(f"{field_name}: it starts with a letter or a digit.")
    if "@" in text:
        if not looks_like_email(text):
            raise Refused(f"{field_name}: that is not an email address (name@school.edu).")
        return text
    if not all(_letter_or_digit(c) or c in ID_PUNCTUATION for c in text):
        bad = next(c for c in text if not (_letter_or_digit(c) or c in ID_PUNCTUATION))
        raise Refused(f"{field_name}: an ID holds letters, digits and - . _ / : only, not {bad!r}.")
    return text


def student_id_key(text: str) -> str:
    """The form two IDs are compared in (one ID, one seat): NFKC, case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()
