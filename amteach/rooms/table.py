"""A table of a room: a `Session` whose decisions come from the room's shared log.

`RoomTable.apply`, the one way a decision enters a session, writes the decision to the log
first and applies it only once the log has taken it: the engine checks it (legal, and the
seat is the one to act), the database checks that it is the next decision (a unique key on
table and number) and that the seat is still the student's. Every other device of the table
reads the log (`sync`) and applies what it has not seen, so they all show the same game.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import replace
from typing import Any

from ..engine.errors import IllegalChoice, SaveError
from ..engine.game import Game
from ..session import HUMAN, SEATS, Reply, Session
from .room import BOT, LOBBY, PLAYING, STUDENT, TIMER, Refused, RoomInfo, Rooms, Seat, SeatRow
from .store import RoomsUnavailable, Taken

FIRST = "Another device made that decision first; here is the game as it is now."


def unavailable_reply(err: RoomsUnavailable) -> Reply:
    return Reply(
        False,
        "The class database cannot be reached, so nothing was changed and nothing is lost. "
        f"Try again in a moment. ({err})",
        "error",
    )


def seen(rows: list[SeatRow]) -> list[tuple[Any, ...]]:
    """What a screen shows of the seats: who sits there, who plays, and who is here (a page's
    check-in alone changes nothing on screen)."""
    return [(row.name, row.role, row.playing, row.roll, row.present()) for row in rows]


class RoomTable(Session):
    """Table `table` of room `code`, seen from one device. `seat` is the student's seat on a
    student's device (None for the instructor's, who decides for no seat)."""

    def __init__(self, rooms: Rooms, code: str, table: int, seat: Seat | None = None) -> None:
        self.rooms, self.code, self.table_no, self.student = rooms, code, table, seat
        self.info: RoomInfo = rooms.info(code)
        if self.info.status == LOBBY:
            raise Refused("The game has not started yet: wait for your teacher to start it.")
        settings = self.info.settings
        self.seat_rows = rooms.seats(code, table)
        self.made_by = STUDENT  # who this device's decisions are from (TIMER: time is up)
        self.last_decision_at = time.monotonic()
        super().__init__(
            [(s.label, s.role or "competitor", self._controller(s)) for s in self.seat_rows],
            seed=settings.table_seed(table),
            rules=settings.rules(table),
            game=settings.ending,
            files_on_disk=False,
        )
        self.sync()

    @staticmethod
    def _controller(row: SeatRow) -> str:
        return row.bot if row.playing == BOT else HUMAN

    @property
    def seat(self) -> int | None:
        return None if self.student is None else self.student.seat

    @property
    def playing(self) -> bool:
        return self.info.status == PLAYING

    @property
    def time_up(self) -> bool:
        """A two-hour game whose time is up, not yet over (the accounting is coming)."""
        timed = self.info.settings.ending == "two-hour"
        return timed and self.info.seconds_left() == 0 and not self.game.over

    # -- following the log ------------------------------------------------------------------------
    def sync(self) -> bool:
        """Read what changed in the room (status, seats, new decisions) and show it; True if
        anything did. Raises RoomsUnavailable when the database cannot be reached."""
        info = self.rooms.info(self.code)
        rows = self.rooms.seats(self.code, self.table_no)
        new = self.rooms.decisions(self.code, self.table_no, after=len(self.game.decisions))
        changed = info != self.info
        self.info = info
        with self.grouped():
            if [s.label for s in rows] != list(self.game.names):
                self._rename([s.label for s in rows])
                changed = True
            if seen(rows) != seen(self.seat_rows):
                changed = True
            self.seat_rows = rows
            if changed:
                for row in rows:
                    if self.controller(row.seat) != self._controller(row):
                        self.set_controller(row.seat, self._controller(row))
            changed |= self._replay(new)
            if changed and not new:
                self._changed(SEATS)
        return changed

    def _replay(self, new: list[tuple[int, Any, int, str]]) -> bool:
        """Apply decisions read from the log, in order; True if any was."""
        applied = False
        for number, choice, seat, _by in new:
            if number != len(self.game.decisions) + 1:
                break  # a gap cannot happen (numbers are taken in order); read again later
            try:
                Session.apply(self, self.game.parse_choice(choice), seat)
            except IllegalChoice as err:
                raise SaveError(
                    f"decision {number} of table {self.table_no + 1} cannot be replayed: {err}",
                    f"room {self.code}",
                ) from None
            self.last_decision_at = time.monotonic()
            applied = True
        return applied

    def catch_up(self) -> bool:
        """Read and apply only the decisions this table has not seen (news that named this
        table: a decision appended); True if any."""
        new = self.rooms.decisions(self.code, self.table_no, after=len(self.game.decisions))
        if not new:
            return False
        with self.grouped():
            return self._replay(new)

    def sync_with(self, info: RoomInfo, rows: list[SeatRow], decisions: int) -> bool:
        """Catch up, given what a server read once for the whole room (its status, this
        table's seats and its count of decisions): only what differs is read again."""
        if info != self.info or seen(rows) != seen(self.seat_rows):
            return self.sync()
        if decisions > len(self.game.decisions):
            return self.catch_up()
        return False

    def _rename(self, names: list[str]) -> None:
        """A student took a bot's seat: the same game, replayed with the new names (the log
        holds seats, never names)."""
        setup = self.game.setup
        players = tuple(
            replace(player, name=name) for player, name in zip(setup.players, names, strict=True)
        )
        game = Game.replay(replace(setup, players=players), list(self.game.decisions))
        self.table = [(name, role) for name, (_, role) in zip(names, self.table, strict=True)]
        self.replace_game(game)

    # -- deciding ---------------------------------------------------------------------------------
    def apply(self, choice: Any, seat: int | None = None) -> None:
        """Write the decision to the log, then apply it. IllegalChoice: the rules forbid it
        (nothing written). Taken: another device wrote this decision first. Refused: the room
        is paused or the seat is not this device's. RoomsUnavailable: nothing was written."""
        game = self.game
        parsed = game.check(choice)
        actor = game.actor
        if seat is not None and seat != actor:
            game.apply(parsed, player=seat)  # the engine names the rule (turn order)
        made_by = BOT if actor in self.bots else self.made_by
        self.rooms.append(
            self.code,
            self.table_no,
            len(game.decisions) + 1,
            actor,
            parsed.to_json(),
            made_by,
            student_key=self.student.key if self.student is not None else None,
        )
        super().apply(parsed, seat)
        self.last_decision_at = time.monotonic()

    def decide(self, choice: Any, moment: int | None = None) -> Reply:
        """A student's choice for their own seat, checked by the engine and the log."""
        game = self.game
        if self.student is None:
            return Reply(False, "Only the student at that seat decides for it.", "warning")
        try:
            kind = game.parse_choice(choice).kind
        except IllegalChoice as err:
            return Reply(False, f"That is not allowed now: {err.reason} ({err.rule}).", "warning")
        if kind == "end_game":
            return Reply(False, "The teacher's timer ends the game for every table.", "warning")
        if self.seat is not None and not game.over:
            if self.controller(self.seat) != HUMAN:
                return Reply(
                    False,
                    "A bot is playing your seat now. Press 'Take my seat back' to play again.",
                    "warning",
                )
            if game.actor != self.seat:
                return Reply(
                    False,
                    f"It is {game.names[game.actor]}'s turn; your choices come back on your turn.",
                    "warning",
                )
        return self._guarded(lambda: Session.decide(self, choice, moment))

    def end_game(self) -> Reply:
        """Time is up: the two-hour game's final accounting starts at this table."""
        game = self.game
        if game.over or game.phase == "final_adjust":
            return Reply(True)
        if not game.is_legal("end_game"):
            return Reply(False, f"The accounting starts when {game.names[game.actor]} has chosen.")
        return self._guarded(self._time_is_up)

    def _time_is_up(self) -> Reply:
        self.made_by = TIMER
        try:
            with self.grouped():
                self.apply("end_game")
        finally:
            self.made_by = STUDENT
        return Reply(True)

    def drive(self, delay: float | None = None) -> bool:
        """If a bot is to move and has waited `delay` seconds (the room's bot delay) since the
        last decision, let it decide. Returns True if a decision was added. Any device may
        drive a table: if two do at once, the log takes one decision and the other is a no-op."""
        if not self.playing or not self.bot_to_move:
            return False
        wait = self.info.settings.bot_delay if delay is None else delay
        if time.monotonic() - self.last_decision_at < wait:
            return False
        reply = self._guarded(self.step)
        return reply.ok

    def _guarded(self, action: Any) -> Reply:
        try:
            return action()
        except Taken:
            self._resync()
            return Reply(False, FIRST, "warning")
        except Refused as err:
            self._resync()
            return Reply(False, str(err), "warning")
        except RoomsUnavailable as err:
            return unavailable_reply(err)

    def _resync(self) -> None:
        with contextlib.suppress(RoomsUnavailable):
            self.sync()

    # -- what a screen shows ------------------------------------------------------------------------
    def row(self, seat: int) -> SeatRow:
        return self.seat_rows[seat]

    def seat_status(self, seat: int) -> str:
        """ "student", "bot", or "bot (student away)"."""
        row = self.seat_rows[seat]
        if row.playing == STUDENT:
            return "student" if row.present() else "student (away)"
        return "bot (student away)" if row.name is not None else "bot"
