"""Tests only: change a `Game`'s state in place, for a position no scenario (`Setup`) can set
up: a seat turned mid-turn, a title handed over between two questions, a broken invariant.

`Game` reads its state (the rules core's `State`) read-only; this is the one supported way for
a test to write it. Each field is written as it is, and no other follows it (the Treasury does
not balance a change of cash, the supply does not give the houses)."""

from __future__ import annotations

from typing import Any


def poke(game: Any, **fields: Any) -> None:
    """`name=value` for a number of the game (`actor=0`, `current=0`), or `name={index:
    value}` for a seat's or a space's field (`cash={0: 100}`, `owner={3: 1, 1: -1}`)."""
    state = game._state
    for name, value in fields.items():
        if isinstance(value, dict):
            for index, item in value.items():
                state.poke(name, index, int(item))
        else:
            setattr(state, name, value)
