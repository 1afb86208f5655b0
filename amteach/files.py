"""Reading and writing the files users hand us: scenarios (YAML) and saved games (JSON).

Everything that can go wrong becomes one InputError naming the file and the field, and a
save is written to a temporary file first so a failed write never damages an existing one.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from itertools import accumulate
from pathlib import Path
from typing import Any

import yaml

from .engine import rule_input
from .engine.errors import InputError, SaveError, ScenarioError
from .engine.game import Game
from .engine.scenario import load_scenario, play_script

# Limits on what a person hands us, checked before anything is parsed (docs/dashboard.md, "What
# a visitor can and cannot do"). A save holds the set-up and the decisions: a long game's is
# about 50 kB. A scenario is a few kB.
MAX_SAVE_BYTES = 2_000_000
MAX_SCENARIO_BYTES = 200_000
# lists or mappings inside one another: a save nests four levels, a scenario five
MAX_NESTING = rule_input.MAX_NESTING

# a JSON string (its brackets do not count), and the brackets that open and close nesting
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NON_BRACKETS = re.compile(r"[^\[\]{}]+")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _read_text(path: str | os.PathLike[str], error: type[InputError], max_bytes: int) -> str:
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > max_bytes:
            raise error(_too_large(size, max_bytes), str(p))
        with p.open("rb") as handle:
            content = handle.read(max_bytes + 1)  # the file may have grown since
    except FileNotFoundError:
        raise error("file not found", str(p)) from None
    except IsADirectoryError:
        raise error("is a folder, not a file", str(p)) from None
    except OSError as err:
        raise error(f"cannot be read: {err.strerror}", str(p)) from None
    return _decoded(content, str(p), error, max_bytes)


def _too_large(size: int, max_bytes: int) -> str:
    return f"is {size / 1e6:.1f} MB; a file here is at most {max_bytes / 1e6:g} MB"


def _decoded(content: bytes, source: str, error: type[InputError], max_bytes: int) -> str:
    if len(content) > max_bytes:
        raise error(_too_large(len(content), max_bytes), source)
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        raise error("is not a text file (UTF-8)", source) from None


def json_nesting(text: str) -> int:
    """How deeply the lists and objects of JSON `text` nest, counted without parsing it (so a
    file nested thousands of levels deep is refused before the parser recurses into it)."""
    brackets = _NON_BRACKETS.sub("", _JSON_STRING.sub("", text))
    return max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0)


def parse_json(text: str, source: str, error: type[InputError] = SaveError) -> Any:
    """JSON text as Python values; anything wrong (too deep, malformed, a number too long)
    raises one `error` naming `source` and, for malformed JSON, the line and column."""
    if json_nesting(text) > MAX_NESTING:
        raise error(
            f"not readable: lists or objects are nested too deeply (more than {MAX_NESTING} levels)",
            source,
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise error(
            f"not valid JSON: {err.msg}", source, f"line {err.lineno}, column {err.colno}"
        ) from None
    except (ValueError, RecursionError):  # e.g. an integer of more than 4,300 digits
        raise error(
            "not readable: it holds a number or a value too large to read", source
        ) from None


def parse_upload(content: bytes, source: str = "uploaded file") -> Any:
    """The JSON inside an uploaded save file: size, encoding and nesting are checked before it
    is parsed; an InputError says what is wrong."""
    return parse_json(_decoded(content, source, SaveError, MAX_SAVE_BYTES), source)


def parse_yaml(text: str, source: str, error: type[InputError] = ScenarioError) -> Any:
    """YAML text as Python values, read without anchors or aliases and at most MAX_NESTING
    deep (engine/rule_input.py); anything wrong raises one `error` naming `source`."""
    try:
        return rule_input.read_plain_yaml(text)
    except yaml.reader.ReaderError as err:
        # a character YAML never allows (a NUL byte, most control characters)
        line = text.count("\n", 0, err.position) + 1
        column = err.position - text.rfind("\n", 0, err.position)
        raise error(
            f"not valid YAML: it contains a character YAML does not allow ({_character(err)})",
            source,
            f"line {line}, column {column}",
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or "the YAML parser could not read it"
        kind = "not readable" if isinstance(err, rule_input.RefusedYaml) else "not valid YAML"
        raise error(f"{kind}: {problem}", source, where) from None
    except (ValueError, RecursionError):  # e.g. an integer of more than 4,300 digits
        raise error("not readable: it holds a value too large to read", source) from None


def read_yaml(path: str | os.PathLike[str], error: type[InputError] = ScenarioError) -> Any:
    return parse_yaml(_read_text(path, error, MAX_SCENARIO_BYTES), str(path), error)


def _character(err: yaml.reader.ReaderError) -> str:
    code = err.character if isinstance(err.character, int) else ord(err.character)
    return "a NUL byte" if code == 0 else f"the control character U+{code:04X}"


def read_json(path: str | os.PathLike[str], error: type[InputError] = SaveError) -> Any:
    return parse_json(_read_text(path, error, MAX_SAVE_BYTES), str(path), error)


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
