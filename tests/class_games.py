"""Whole class games for the sections and gradebook tests (tests/test_sections.py,
tests/test_gradebook.py): rooms whose students and bots play to the end, without a server."""

from __future__ import annotations

from amteach.bots import make_strategy
from amteach.rooms import Rooms, RoomSettings, RoomTable, new_key

SHORT = {"seats": 3, "ending": "A", "round_cap": 5, "bot_delay": 0}


def play_class(
    rooms: Rooms,
    names: list[str],
    tables: int = 1,
    seed: int = 4,
    ids: list[str | None] | None = None,
    finish: bool = True,
    steps: int = 5000,
) -> tuple[str, str]:
    """Open a room (asking for student IDs when `ids` is given), seat `names`, and play: the
    students' seats by an investor bot's choices made through their own devices, the rest
    by the room's bots. Returns (code, instructor key)."""
    key = new_key()
    settings = RoomSettings(**SHORT, tables=tables, seed=seed, ask_student_id=ids is not None)
    code = rooms.create(settings, key=key)
    seats = [
        rooms.join(code, name, student_id=None if ids is None else ids[i])
        for i, name in enumerate(names)
    ]
    rooms.start(code)
    held = [RoomTable(rooms, code, t) for t in range(tables)]
    mine = [RoomTable(rooms, code, s.table, s) for s in seats]
    brain = make_strategy("investor", seed=seed)
    for _ in range(steps):
        if all(t.game.over for t in held):
            break
        for t in held:
            t.drive(0)
        for m in mine:
            m.sync()
            if not m.game.over and m.game.actor == m.student.seat:
                m.decide(brain.choose(m.game, m.game.legal()))
        for t in held:
            t.sync()
        if not finish and sum(len(t.game.decisions) for t in held) > 40:
            break
    if finish:
        assert all(t.game.over for t in held)
    return code, key
