"""The instructor's *Class* tab: open a room for the class (tables, seats, roles, rules,
ending), show its code and join link big with a QR code for the projector, start, pause and
end the games, hand a seat to a bot, watch every table in a live grid, and see the class's
own results beside the bots' batch. Downloads give the class's games as `simulate`'s frames.
"""

from __future__ import annotations

import time
from typing import Any

import ipywidgets as widgets

from ..engine.rules import preset_names
from ..render import html_join, html_text, qr_code_html
from ..rooms import (
    BOT,
    ENDING_LABELS,
    STUDENT,
    Follower,
    Refused,
    RoomInfo,
    Rooms,
    RoomSettings,
    RoomsUnavailable,
    RoomTable,
    class_archive,
    class_result,
    decisions_frame,
    open_rooms,
    unavailable_reply,
)
from ..session import Reply
from ..style import ROLE_COLOURS, ROLE_LABELS, ROLE_SHAPES
from .batch import INVESTOR_SEATS, BatchPanel, chart_widgets
from .download import DownloadButton
from .live import Ticker, join_link
from .play_panels import Messages, button
from .student import clock

ROLE_MODE_LABELS = (
    ("alternating: Competitor, Monopolist, ...", "alternating"),
    ("at random", "random"),
    ("by the dice, as in the rules", "dice"),
)
ABSENT_CHOICES = (("1 minute", 60), ("2 minutes", 120), ("5 minutes", 300), ("10 minutes", 600))
# results are redrawn at most this often while games go on (seconds)
RESULTS_EVERY = 15.0


def class_charts(result: Any) -> list[Any]:
    """The class's own results: wealth by role round by round, rents paid and received by role,
    and the income-tax choices by role."""
    from ..analysis import outcomes, taxes

    charts: list[Any] = [outcomes.wealth_by_role_figure(result), outcomes.rent_flows_figure(result)]
    if len(result.taxes):
        summary = taxes.tax_choice_summary(result)
        charts.append((taxes.tax_choice_figure(summary), taxes.reading_tax_choice(summary)))
    return charts


def class_beside_bots(class_games: Any, bots: Any) -> list[Any]:
    """The class's win rate by role with its interval, beside the bots' batch."""
    from ..analysis import fairness

    return [
        (
            fairness.win_rates_side_by_side({"Your class": class_games, "Bots": bots}),
            fairness.reading_class_and_bots(class_games, bots),
        )
    ]


class ClassTab:
    """The instructor's controls and views for one room at a time."""

    def __init__(self, rooms: Rooms | None = None) -> None:
        w = widgets
        self._rooms = rooms
        self.code: str | None = None
        self.tables: list[RoomTable] = []
        self.follower: Follower | None = None
        self.messages = Messages()
        # -- opening a class
        self.table_count = w.IntSlider(value=6, min=1, max=20, description="Tables")
        self.seat_count = w.Dropdown(options=[2, 3, 4, 5, 6], value=4, description="Seats each")
        self.role_mode = w.Dropdown(
            options=ROLE_MODE_LABELS, value="alternating", description="Roles"
        )
        self.preset = w.Dropdown(options=preset_names(), value="default", description="Rules")
        self.ending = w.Dropdown(
            options=[(label, key) for key, label in ENDING_LABELS.items()],
            value="two-hour",
            description="Ending",
        )
        self.minutes = w.BoundedIntText(value=30, min=1, max=240, description="Minutes")
        self.round_cap = w.BoundedIntText(value=40, min=5, max=1000, description="Round cap")
        self.absent = w.Dropdown(options=ABSENT_CHOICES, value=120, description="Bot after")
        self.pin = w.Password(description="PIN", placeholder="optional, 4+ characters")
        self.open_button = button("Open the class", lambda _: self.open_class())
        self.open_button.button_style = "primary"
        self.ending.observe(lambda _: self._show_ending_fields(), names="value")
        self._show_ending_fields()
        self.back_code = w.Text(description="Room", placeholder="its code")
        self.back_pin = w.Password(description="PIN", placeholder="if it has one")
        self.back_button = button("Open its controls", lambda _: self.reopen())
        self.form = w.VBox(
            [
                w.HTML(
                    "<p>Open a class: every student plays their own seat from their own "
                    "phone or laptop; bots play the empty seats.</p>"
                ),
                w.HBox([self.table_count, self.seat_count], layout=w.Layout(flex_flow="row wrap")),
                w.HBox([self.role_mode, self.preset], layout=w.Layout(flex_flow="row wrap")),
                w.HBox(
                    [self.ending, self.minutes, self.round_cap],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                w.HBox([self.absent, self.pin], layout=w.Layout(flex_flow="row wrap")),
                self.open_button,
                w.HTML("<p style='margin-top:14px'>Or go back to a class you opened:</p>"),
                w.HBox(
                    [self.back_code, self.back_pin, self.back_button],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
            ]
        )
        # -- running it
        self.banner = w.HTML()
        self.timer = w.HTML()
        self.start_button = button("Start the games", lambda _: self.start())
        self.start_button.button_style = "success"
        self.pause_button = button("Pause all", lambda _: self.pause())
        self.resume_button = button("Resume all", lambda _: self.resume())
        self.end_button = button("Time is up: end the game", lambda _: self.end())
        self.close_button = button("Close the class", lambda _: self.close_class())
        self.seat_picker = w.Dropdown(description="Seat", layout=w.Layout(width="340px"))
        self.to_bot = button("A bot plays this seat", lambda _: self.hand_seat(BOT))
        self.to_student = button("Give it back to the student", lambda _: self.hand_seat(STUDENT))
        self.grid = w.HTML()
        self.grid.add_class("am-class-grid")
        self.results = w.VBox()
        self.results_button = button("Show the class's results", lambda _: self.show_results())
        self.downloads = w.HBox(
            [
                DownloadButton(
                    "amteach-class-csv.zip",
                    lambda: self.archive("csv"),
                    description="Data (CSV)",
                    mime="application/zip",
                ),
                DownloadButton(
                    "amteach-class-parquet.zip",
                    lambda: self.archive("parquet"),
                    description="Data (Parquet)",
                    mime="application/zip",
                ),
            ]
        )
        self.bots = BatchPanel(
            "<p>The class beside the bots: the <i>Who wins</i> batch (investor bots, two of each "
            "role) under the class's rules, stopped at the round the class's games reached "
            "(the middle game's) and settled there by the final accounting, next to the "
            "class's finished games.</p>",
            self._beside_bots,
            default_games=200,
            seats=INVESTOR_SEATS,
            run=self._bots_to_class_round,
            rules=False,
        )
        self.running = w.VBox(
            [
                self.banner,
                w.HBox(
                    [
                        self.start_button,
                        self.pause_button,
                        self.resume_button,
                        self.end_button,
                        self.close_button,
                        self.timer,
                    ],
                    layout=w.Layout(flex_flow="row wrap", align_items="center"),
                ),
                self.grid,
                w.HBox(
                    [self.seat_picker, self.to_bot, self.to_student],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                w.HTML("<h3>The class's own results</h3>"),
                w.HBox([self.results_button, self.downloads]),
                self.results,
                self.bots.widget,
            ],
            layout=w.Layout(display="none"),
        )
        self.widget = w.VBox([self.form, self.messages.widget, self.running])
        self.widget.add_class("am-class")
        self._results_at = 0.0
        self._rounds_shown: tuple[int, ...] = ()
        self.ticker = Ticker(self.tick)

    @property
    def rooms(self) -> Rooms:
        if self._rooms is None:
            self._rooms = open_rooms()
        return self._rooms

    def answer(self, reply: Reply) -> bool:
        return self.messages.show(reply)

    def _show_ending_fields(self) -> None:
        timed = self.ending.value == "two-hour"
        self.minutes.layout.display = "flex" if timed else "none"
        self.round_cap.layout.display = "none" if timed else "flex"

    def _safely(self, action: Any) -> bool:
        try:
            action()
        except Refused as err:
            return self.answer(Reply(False, str(err), "warning"))
        except RoomsUnavailable as err:
            return self.answer(unavailable_reply(err))
        except Exception as err:  # InputError from the settings: one line naming the field
            return self.answer(Reply(False, f"Could not do that: {err}", "warning"))
        self.refresh()
        return True

    # -- opening -----------------------------------------------------------------------------------
    def open_class(self) -> bool:
        """Open a room with the settings chosen; shows its code, link and QR code."""

        def create() -> None:
            settings = RoomSettings(
                tables=int(self.table_count.value),
                seats=int(self.seat_count.value),
                roles=self.role_mode.value,
                preset=self.preset.value,
                ending=self.ending.value,
                minutes=int(self.minutes.value),
                round_cap=int(self.round_cap.value),
                absent_after=int(self.absent.value),
                seed=int(time.time_ns() % 2**31),
            )
            self.follow(self.rooms.create(settings, self.pin.value or None))
            self.pin.value = ""

        return self._safely(create)

    def reopen(self) -> bool:
        """The controls of a room opened before (on this or another page): its code and PIN."""

        def again() -> None:
            self.rooms.check_pin(self.back_code.value, self.back_pin.value)
            self.follow(self.rooms.info(self.back_code.value).code)
            self.back_pin.value = ""

        return self._safely(again)

    def follow(self, code: str) -> None:
        if self.follower is not None:
            self.follower.stop()
        self.code = code
        self.tables = []
        self.follower = Follower(self.rooms, code, self.tables, wake=self.ticker.wake, tend=True)
        info = self.rooms.info(code)
        link = join_link(code)
        self.banner.value = html_text(
            "<div style='display:flex;gap:24px;align-items:center;flex-wrap:wrap'>"
            "<div>{}</div><div><div style='font-size:22px'>Join at</div>"
            "<div class='am-join-link' style='font-size:30px;font-weight:700;word-break:break-all'>{}</div>"
            "<div style='font-size:22px;margin-top:8px'>Room code</div>"
            "<div class='am-room-code' style='font-size:64px;font-weight:800;letter-spacing:6px'>{}</div>"
            "<div>{} · {} seats each · {} · roles {} · rules {}</div></div></div>",
            qr_code_html(link) if link.startswith("http") else "",
            link,
            code,
            f"{info.settings.tables} table" + ("s" if info.settings.tables > 1 else ""),
            info.settings.seats,
            ENDING_LABELS[info.settings.ending],
            info.settings.roles,
            info.settings.preset,
        )
        self.form.layout.display = "none"
        self.running.layout.display = "flex"
        self.answer(Reply(True, f"Room {code} is open. Students join with the link or the code."))

    # -- the instructor's controls ------------------------------------------------------------------
    def start(self) -> bool:
        return self._safely(lambda: self.rooms.start(self.code))

    def pause(self) -> bool:
        return self._safely(lambda: self.rooms.pause(self.code))

    def resume(self) -> bool:
        return self._safely(lambda: self.rooms.resume(self.code))

    def end(self) -> bool:
        """Time is up for every table: each starts the two-hour game's final accounting at its
        next turn."""
        return self._safely(lambda: self.rooms.time_is_up(self.code))

    def close_class(self) -> bool:
        return self._safely(lambda: self.rooms.close(self.code))

    def hand_seat(self, playing: str) -> bool:
        if self.seat_picker.value is None:
            return self.answer(Reply(False, "Choose a seat first.", "warning"))
        table, seat = self.seat_picker.value
        return self._safely(lambda: self.rooms.set_playing(self.code, table, seat, playing))

    # -- following the room ---------------------------------------------------------------------------
    def tick(self) -> None:
        follower = self.follower
        if follower is None or self.code is None:
            return
        if not self.tables and follower.news.is_set():
            try:
                info = self.rooms.info(self.code)
                if info.status != "lobby":
                    self.tables.extend(
                        RoomTable(self.rooms, self.code, t) for t in range(info.settings.tables)
                    )
            except RoomsUnavailable:
                pass
        news = follower.news.is_set()
        changed = follower.tick()
        if follower.error:
            self.answer(
                Reply(
                    False,
                    "The class database cannot be reached; every table is safe and goes on "
                    f"when it answers. ({follower.error})",
                    "error",
                )
            )
        if news or changed:
            self.refresh()
        else:
            self.refresh_timer()
        rounds = tuple(t.game.round for t in self.tables)
        due = time.monotonic() - self._results_at >= RESULTS_EVERY
        if self.results.children and rounds != self._rounds_shown and due:
            self.show_results()

    def info(self) -> RoomInfo | None:
        if self.tables:
            return self.tables[0].info
        return self.rooms.info(self.code) if self.code else None

    def refresh(self) -> None:
        if self.code is None:
            return
        try:
            info = self.info()
            rows = self.rooms.seats(self.code) if not self.tables else None
        except RoomsUnavailable as err:
            self.answer(unavailable_reply(err))
            return
        lobby = info.status == "lobby"
        self.start_button.layout.display = "flex" if lobby else "none"
        self.pause_button.layout.display = "flex" if info.status == "playing" else "none"
        self.resume_button.layout.display = "flex" if info.status == "paused" else "none"
        timed = info.settings.ending == "two-hour"
        self.end_button.layout.display = "flex" if timed and not lobby else "none"
        self.grid.value = self.grid_html(info, rows)
        seats = [
            (f"Table {row.table + 1} · {row.label}", (row.table, row.seat))
            for row in (rows or [r for t in self.tables for r in t.seat_rows])
        ]
        if seats != [tuple(option) for option in self.seat_picker.options]:
            chosen = self.seat_picker.value
            self.seat_picker.options = seats
            if chosen in [value for _, value in seats]:
                self.seat_picker.value = chosen
        self.refresh_timer()

    def refresh_timer(self) -> None:
        info = self.tables[0].info if self.tables else None
        left = info.seconds_left() if info is not None else None
        self.timer.value = (
            html_text(
                "<span style='font-size:22px;margin-left:12px'>Time left <b>{}</b></span>",
                clock(left),
            )
            if left is not None
            else ""
        )

    def grid_html(self, info: RoomInfo, lobby_rows: Any = None) -> Any:
        """Every table: its round, whose turn it is, and each player's role, cash and who plays
        the seat (a student, or a bot)."""
        if lobby_rows is not None:
            joined = [r for r in lobby_rows if r.name]
            names = html_join(
                (html_text("{} (table {})", r.name, r.table + 1) for r in joined), ", "
            )
            return html_text(
                "<p style='font-size:18px'><b>{}</b> of {} seats have a student: {}</p>",
                len(joined),
                len(lobby_rows),
                names if joined else "nobody yet",
            )
        head = "Paused. " if info.status == "paused" else ""
        rows = []
        for table in self.tables:
            game = table.game
            if game.over:
                turn = html_text(
                    "game over: {} wins",
                    "nobody" if game.winner is None else game.names[game.winner],
                )
            else:
                turn = html_text("{} to decide", game.names[game.actor])
            cells = []
            for seat in game.players:
                role = game.roles[seat]
                status = table.seat_status(seat)
                cells.append(
                    html_text(
                        "<td style='{}'><span style='color:{}'>{} {}</span> {}<br>"
                        "<b>${}</b> <small>{}</small></td>",
                        "background:#e3f4e7" if not game.over and game.actor == seat else "",
                        ROLE_COLOURS[role],
                        ROLE_SHAPES[role],
                        ROLE_LABELS[role],
                        game.names[seat],
                        game.cash[seat],
                        "bankrupt" if game.bankrupt[seat] else status,
                    )
                )
            rows.append(
                html_text(
                    "<tr><th>Table {}</th><td>round {}<br><small>decision {}</small></td>"
                    "<td>{}</td>{}</tr>",
                    table.table_no + 1,
                    game.round,
                    len(game.decisions),
                    turn,
                    html_join(cells),
                )
            )
        return html_text(
            "<style>.am-class-grid table{{border-collapse:collapse;font-size:16px}}"
            ".am-class-grid td,.am-class-grid th{{border:1px solid #ccc;padding:4px 8px;"
            "vertical-align:top;text-align:left}}</style>{}<table>{}</table>",
            head,
            html_join(rows),
        )

    # -- results ------------------------------------------------------------------------------------
    def result(self) -> Any:
        return class_result(self.tables)

    def show_results(self) -> bool:
        if not self.tables:
            return self.answer(Reply(False, "The games have not started yet.", "warning"))
        self._results_at = time.monotonic()
        self._rounds_shown = tuple(t.game.round for t in self.tables)
        self.results.children = chart_widgets(class_charts(self.result()))
        return True

    def _bots_to_class_round(self, games: int, _preset: str, seed: int, on_chunk: Any) -> Any:
        """The bots' batch under the class's rules, stopped at the round the class reached: a
        win rate depends on where play stops (issue 23)."""
        from ..analysis.fairness import game_round
        from ..sim import simulate

        result = self.result()
        if not len(result.games):
            raise Refused("no table has finished its game yet")
        return simulate(
            games=games,
            seats=self.bots.seats,
            rules=result.meta["rules"],
            seed=seed,
            round_cap=game_round(result),
            progress=False,
            on_chunk=on_chunk,
        )

    def _beside_bots(self, bots: Any) -> list[Any]:
        result = self.result()
        if not len(result.games):
            raise Refused("no table has finished its game yet")
        return class_beside_bots(result, bots)

    def archive(self, file_format: str) -> bytes:
        result = self.result()
        return class_archive(
            result, decisions_frame(self.rooms, self.code, self.tables), file_format
        )
