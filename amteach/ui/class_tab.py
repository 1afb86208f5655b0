"""The instructor's *Class* tab: open a room for the class (tables, seats, roles, rules,
ending), show its code and join link big with a QR code for the projector, start, pause and
end the games, hand a seat to a bot, watch every table in a live grid, and see the class's
own results beside the bots' batch. Downloads give the class's games as `simulate`'s frames.

Opening a class makes its instructor key; this page holds it (and keeps it in the browser,
ui/keeper.py). Every control and download checks the key first, so a visitor who knows only
the room code (every student does) reaches nothing. Wrong keys and PINs are throttled per
page (rooms/limits.py), and so are the classes a page opens. Room-level controls (issue 36):
lock joining, clear every unplayed seat or one table's seats, move a seat to a new device
with a one-time code, replace the instructor link.
"""

from __future__ import annotations

import os
import time
from typing import Any

import ipywidgets as widgets

from ..engine.rules import preset_names
from ..render import html_join, html_text, qr_code_html
from ..rooms import (
    BOT,
    ENDING_LABELS,
    SERVER_DRIVES_ENV,
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
from ..rooms.limits import (
    KEY_TRIES,
    KEY_WINDOW_SECONDS,
    OPEN_WINDOW_SECONDS,
    PAGE_OPENS,
    Window,
)
from ..rooms.phone_view import clock
from ..rooms.room import ENDED, MOVE_CODE_MINUTES, clean_code, new_key
from ..rooms.treatments import MAX_BOT_GAMES
from ..session import Reply
from ..style import ROLE_COLOURS, ROLE_LABELS, ROLE_SHAPES
from .batch import BatchPanel, chart_widgets, class_accounting_html
from .class_debrief import DebriefPanel
from .class_exports import ExportsPanel
from .class_questions import QuestionsPanel
from .class_treatments import ClassTreatments
from .download import DownloadButton
from .keeper import (
    INSTRUCTOR_SPACE,
    BrowserMemory,
    SecretLink,
    instructor_link,
    parse_instructor_link,
)
from .live import Ticker, join_link, page_address
from .widgets import Messages, button

ROLE_MODE_LABELS = (
    ("alternating: Competitor, Monopolist, ...", "alternating"),
    ("at random", "random"),
    ("by the dice, as in the rules", "dice"),
)
ABSENT_CHOICES = (("1 minute", 60), ("2 minutes", 120), ("5 minutes", 300), ("10 minutes", 600))
LOCKED_LINE = "<p style='font-size:18px'><b>Joining is locked:</b> no new student can join.</p>"
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


def move_link(link: str, move: str) -> str:
    """A join link that also carries a move code (`&move=...`), for a new device to scan."""
    return f"{link}&move={move}"


def looks_like_code(text: str) -> bool:
    """A room code as the database keeps them (what a browser hands back is checked)."""
    try:
        return clean_code(text) == text
    except Refused:
        return False


class ClassTab:
    """The instructor's controls and views for one room at a time."""

    def __init__(self, rooms: Rooms | None = None) -> None:
        w = widgets
        self._rooms = rooms
        self.code: str | None = None
        self.key: str | None = None  # the instructor key of the class this page runs
        self.guesses = Window(KEY_TRIES, KEY_WINDOW_SECONDS)  # this page's wrong keys/PINs
        self.opens = Window(PAGE_OPENS, OPEN_WINDOW_SECONDS)  # classes this page opened
        self.kept: dict[str, str] = {}  # code -> key of the classes this browser opened
        self.memory = BrowserMemory(INSTRUCTOR_SPACE, self._stored, read_fragment=True)
        self.secret = SecretLink(
            label="Your instructor link opens this class's controls on any computer. Keep it "
            "private (never project it); this browser remembers it too."
        )
        self.tables: list[RoomTable] = []
        self.follower: Follower | None = None
        self.messages = Messages()
        # -- opening a class
        self.table_count = w.IntSlider(value=6, min=1, max=60, description="Tables")
        self.seat_count = w.Dropdown(options=[2, 3, 4, 5, 6], value=4, description="Seats each")
        self.role_mode = w.Dropdown(
            options=ROLE_MODE_LABELS, value="alternating", description="Roles"
        )
        self.preset = w.Dropdown(options=preset_names(), value="default", description="Rules")
        self.treatments = ClassTreatments(self)  # rule sets per table (class_treatments.py)
        self.ending = w.Dropdown(
            options=[(label, key) for key, label in ENDING_LABELS.items()],
            value="two-hour",
            description="Ending",
        )
        self.minutes = w.BoundedIntText(value=30, min=1, max=240, description="Minutes")
        self.round_cap = w.BoundedIntText(value=40, min=5, max=1000, description="Round cap")
        self.absent = w.Dropdown(options=ABSENT_CHOICES, value=120, description="Bot after")
        self.pin = w.Password(description="PIN", placeholder="optional, 4+ characters")
        # the gradebook matches students by an ID or email (ui/class_exports.py)
        self.ask_id = w.Checkbox(
            value=False, description="Ask for a student ID at join", indent=False
        )
        self.open_button = button("Open the class", lambda _: self.open_class())
        self.open_button.button_style = "primary"
        self.ending.observe(lambda _: self._show_ending_fields(), names="value")
        self._show_ending_fields()
        self.back_link = w.Password(
            description="Link or key",
            placeholder="paste your instructor link",
            layout=w.Layout(width="420px"),
        )
        self.back_code = w.Text(description="Room", placeholder="its code")
        self.back_pin = w.Password(description="PIN", placeholder="if it has one")
        self.back_button = button("Open its controls", lambda _: self.reopen())
        self.remembered = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.form = w.VBox(
            [
                w.HTML(
                    "<p>Open a class: every student plays their own seat from their own "
                    "phone or laptop; bots play the empty seats.</p>"
                ),
                w.HBox([self.table_count, self.seat_count], layout=w.Layout(flex_flow="row wrap")),
                w.HBox([self.role_mode, self.preset], layout=w.Layout(flex_flow="row wrap")),
                self.treatments.choice,
                w.HBox(
                    [self.ending, self.minutes, self.round_cap],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                w.HBox([self.absent, self.pin, self.ask_id], layout=w.Layout(flex_flow="row wrap")),
                self.open_button,
                w.HTML(
                    "<p style='margin-top:14px'>Or go back to a class you opened: paste its "
                    "instructor link (the room code alone does not open it).</p>"
                ),
                self.remembered,
                w.HBox(
                    [self.back_link, self.back_code, self.back_pin, self.back_button],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.memory,
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
        self.reopen_button = button("Reopen the class", lambda _: self.reopen_class())
        self.question = w.HTML()
        self.yes_button = button("Yes", lambda _: self.confirmed())
        self.yes_button.button_style = "danger"
        self.no_button = button("No, go back", lambda _: self.ask(None))
        self.confirm = w.HBox(
            [self.question, self.yes_button, self.no_button],
            layout=w.Layout(display="none", flex_flow="row wrap", align_items="center"),
        )
        self.confirm.add_class("am-confirm")
        self._pending: Any = None  # what Yes does
        self.seat_picker = w.Dropdown(description="Seat", layout=w.Layout(width="340px"))
        self.to_bot = button("A bot plays this seat", lambda _: self.hand_seat(BOT))
        self.to_student = button("Give it back to the student", lambda _: self.hand_seat(STUDENT))
        self.remove_button = button("Remove the student", lambda _: self.remove_student())
        self.move_button = button("Move to a new device", lambda _: self.move_student())
        # room-level controls: joining, clearing seats, the move code, the instructor link
        self.lock_button = button("Lock joining", lambda _: self.toggle_joining())
        self.clear_unplayed_button = button("Clear unplayed seats", lambda _: self.clear_unplayed())
        self.table_picker = w.Dropdown(description="Table", layout=w.Layout(width="200px"))
        self.clear_table_button = button("Clear this table", lambda _: self.clear_table())
        self.move_code = w.HTML()
        self.move_code.add_class("am-move-code")
        self.hide_move_button = button("Hide the move code", lambda _: self.hide_move_code())
        self.move_box = w.VBox(
            [self.move_code, self.hide_move_button], layout=w.Layout(display="none")
        )
        self.replace_button = button("Replace the instructor link", lambda _: self.replace_link())
        self.replace_pin = w.Password(
            description="PIN", placeholder="this class's PIN", layout=w.Layout(display="none")
        )
        self.grid = w.HTML()
        self.grid.add_class("am-class-grid")
        self.results = w.VBox()
        self.results_button = button("Show the class's results", lambda _: self.show_results())
        self.downloads = w.HBox()  # made once the page holds a class's key (see `follow`)
        self._download_buttons = lambda: (
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
        self.exports = ExportsPanel(self)  # several sections, decisions, the gradebook
        self.bots = BatchPanel(
            "<p>The class beside the bots: at each finished table, bots take the table's seats "
            "(its roles, the class's bot) and play the <b>Games</b> slider's games under that "
            "table's rules, each stopped at the round that table reached and settled there by "
            "the final accounting, as the table was. Their games, pooled, stand next to the "
            "class's finished games.</p>",
            self._beside_bots,
            default_games=200,
            run=self._bots_at_each_table,
            max_games=MAX_BOT_GAMES,
            rules=False,
        )
        self.bots.games.description = "Games each"
        self.bots.games.tooltip = "bot games at each finished table"
        self.debrief = DebriefPanel(lambda: self.tables, self._check_key)  # issue 37
        # predictions and exit tickets on the phones (issue 37): ui/class_questions.py
        self.phone_questions = QuestionsPanel(self)
        self.running = w.VBox(
            [
                self.banner,
                self.secret,
                w.HBox(
                    [
                        self.start_button,
                        self.pause_button,
                        self.resume_button,
                        self.end_button,
                        self.close_button,
                        self.reopen_button,
                        self.timer,
                    ],
                    layout=w.Layout(flex_flow="row wrap", align_items="center"),
                ),
                self.confirm,
                self.grid,
                w.HBox(
                    [
                        self.seat_picker,
                        self.to_bot,
                        self.to_student,
                        self.remove_button,
                        self.move_button,
                    ],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.move_box,
                w.HBox(
                    [
                        self.lock_button,
                        self.clear_unplayed_button,
                        self.table_picker,
                        self.clear_table_button,
                    ],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                w.HBox(
                    [self.replace_button, self.replace_pin],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.phone_questions.widget,
                w.HTML("<h3>The class's own results</h3>"),
                w.HBox([self.results_button, self.downloads]),
                self.results,
                self.treatments.results,
                self.bots.widget,
                self.exports.widget,
                self.debrief.widget,
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
        """Open a room with the settings chosen; shows its code, link and QR code, and the
        instructor link (once, hidden until asked) that opens its controls elsewhere. A page
        opens at most PAGE_OPENS classes an hour (the database has limits of its own)."""

        def create() -> None:
            self.opens.check(
                f"This page has opened {PAGE_OPENS} classes in the last hour, as many as it "
                "may; go back to one of them with its instructor link."
            )
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
                **self.treatments.settings(),
                ask_student_id=bool(self.ask_id.value),
            )
            key = new_key()
            code = self.rooms.create(settings, self.pin.value or None, key=key)
            self.opens.add()
            self.pin.value = ""
            self.follow(code, key)
            self.secret.text = instructor_link(code, key, page_address())

        return self._safely(create)

    def reopen(self) -> bool:
        """The controls of a room opened before (on this or another page): its instructor
        link (or key and code), and its PIN if it has one."""
        code, key = parse_instructor_link(self.back_link.value)
        return self.go_back(code or self.back_code.value, key, self.back_pin.value)

    def go_back(self, code: Any, key: Any, pin: Any = None) -> bool:
        """Open the controls of room `code` with its key (and PIN). Wrong tries count against
        this page only: after KEY_TRIES in a minute it waits, while every other page,
        the instructor's among them, goes on as before."""
        try:
            self.guesses.check("Too many wrong tries from this page.")
            try:
                info = self.rooms.check_instructor(str(code or ""), key, pin)
            except Refused:
                self.guesses.add()
                raise
        except Refused as err:
            return self.answer(Reply(False, str(err), "warning"))
        except RoomsUnavailable as err:
            return self.answer(unavailable_reply(err))
        self.back_pin.value = self.back_link.value = ""
        self.follow(info.code, str(key).strip())
        self.refresh()
        return True

    def _stored(self, items: dict[str, str], fragment: dict[str, str]) -> None:
        """The browser's kept keys (and an instructor link's, just opened) arrived: offer to
        go back to each class; open the linked one at once."""
        self.kept = {code: key for code, key in items.items() if looks_like_code(code)}
        code, key = fragment.get("code"), fragment.get("key")
        if code and key:
            self.kept[code] = key
            if self.key is None and self.go_back(code, key, self.back_pin.value):
                self.memory.remember(self.code or code, key)
            else:  # a PIN is needed too: the link is filled in; type the PIN
                self.back_link.value = instructor_link(code, key, "")
        self.show_remembered()

    def show_remembered(self) -> None:
        choices = []
        for code, key in list(self.kept.items())[-5:]:
            choice = button(
                f"Go back to class {code}",
                lambda _, code=code, key=key: self.go_back(code, key, self.back_pin.value),
            )
            choices.append(choice)
        self.remembered.children = choices

    def follow(self, code: str, key: str) -> None:
        if self.follower is not None:
            self.follower.stop()
        self.code = code
        self.key = key
        self.kept[code] = key
        self.memory.remember(code, key)
        self.tables = []
        self.hide_move_code()
        self.follower = Follower(
            self.rooms,
            code,
            self.tables,
            wake=self.ticker.wake,
            tend=True,
            drive=os.environ.get(SERVER_DRIVES_ENV) != "1",
        )
        self._draw_banner()
        self.secret.text = ""
        for old in self.downloads.children:
            old.close()
        self.downloads.children = self._download_buttons()
        self.exports.follow()
        self.form.layout.display = "none"
        self.running.layout.display = "flex"
        self.answer(Reply(True, f"Room {code} is open. Students join with the link or the code."))

    def address_known(self) -> None:
        """The page's address has arrived (a preheated kernel learns it after the page is
        served): an open room's banner is drawn again, now with its full link and QR code."""
        if self.code:
            self._draw_banner()

    def _draw_banner(self) -> None:
        code = self.code
        info = self.rooms.info(code)
        link = join_link(code)
        # explicit line heights: the HTML widget's own line box is 28 px tall, which big type
        # would overflow onto the lines around it
        self.banner.value = html_text(
            "<div class='am-class-head' style='display:flex;gap:24px;align-items:center;"
            "flex-wrap:wrap;line-height:1.2'>"
            "<div class='am-qr'>{}</div><div style='min-width:0;flex:1 1 420px'>"
            "<div style='font-size:22px;line-height:1.2'>Join at</div>"
            "<div class='am-join-link' style='font-size:30px;line-height:1.2;font-weight:700;"
            "overflow-wrap:anywhere'>{}</div>"
            "<div class='am-room-code-label' style='font-size:22px;line-height:1.2;"
            "margin-top:8px'>Room code</div>"
            "<div class='am-room-code' style='font-size:64px;line-height:1.1;font-weight:800;"
            "letter-spacing:6px'>{}</div>"
            "<div class='am-room-settings' style='font-size:16px;line-height:1.3'>"
            "{} · {} seats each · {} · roles {} · rules {}</div></div></div>",
            qr_code_html(link) if link.startswith("http") else "",
            link,
            code,
            f"{info.settings.tables} table" + ("s" if info.settings.tables > 1 else ""),
            info.settings.seats,
            ENDING_LABELS[info.settings.ending],
            info.settings.roles,
            self.treatments.rules_words(info.settings),
        )

    # -- the instructor's controls ------------------------------------------------------------------
    def _control(self, action: Any) -> bool:
        """Run an instructor's action, once the page's key still opens the class."""

        def checked() -> None:
            self._check_key()
            action()

        return self._safely(checked)

    def _check_key(self) -> None:
        if self.code is None or self.key is None:
            raise Refused("Open a class (or go back to one with its instructor link) first.")
        self.rooms.check_instructor(self.code, self.key, with_pin=False)

    def start(self) -> bool:
        return self._control(lambda: self.rooms.start(self.code))

    def pause(self) -> bool:
        return self._control(lambda: self.rooms.pause(self.code))

    def resume(self) -> bool:
        return self._control(lambda: self.rooms.resume(self.code))

    def ask(self, question: str | None, yes: str = "Yes", action: Any = None) -> bool:
        """Ask before an action that every student feels (None: put the question away)."""
        self._pending = action
        self.question.value = html_text("<b style='font-size:18px'>{}</b>", question or "")
        self.yes_button.description = yes
        self.confirm.layout.display = "flex" if question else "none"
        return question is not None

    def confirmed(self) -> bool:
        action, self._pending = self._pending, None
        self.ask(None)
        return action() if action is not None else False

    def end(self, confirmed: bool = False) -> bool:
        """Time is up for every table: each starts the two-hour game's final accounting at its
        next turn. Asks first."""
        if not confirmed:
            return self.ask(
                "End the game at every table now? Each table starts its final accounting.",
                "Yes, time is up",
                lambda: self.end(confirmed=True),
            )
        return self._control(lambda: self.rooms.time_is_up(self.code))

    def close_class(self, confirmed: bool = False) -> bool:
        """Close the class: nobody can join or decide any more (it can be reopened). Asks."""
        if not confirmed:
            return self.ask(
                "Close the class for everyone? Nobody can join or play until you reopen it.",
                "Yes, close the class",
                lambda: self.close_class(confirmed=True),
            )
        return self._control(lambda: self.rooms.close(self.code))

    def reopen_class(self) -> bool:
        return self._control(lambda: self.rooms.reopen(self.code))

    def _picked(self) -> tuple[int, int] | None:
        if self.seat_picker.value is None:
            self.answer(Reply(False, "Choose a seat first.", "warning"))
            return None
        return self.seat_picker.value

    def hand_seat(self, playing: str) -> bool:
        if (picked := self._picked()) is None:
            return False
        table, seat = picked
        return self._control(lambda: self.rooms.set_playing(self.code, table, seat, playing))

    def remove_student(self, confirmed: bool = False) -> bool:
        """Free the chosen seat: its student is out, a bot plays it until someone joins."""
        if (picked := self._picked()) is None:
            return False
        table, seat = picked
        if not confirmed:
            return self.ask(
                f"Remove the student at table {table + 1}, seat {seat + 1}? The seat becomes "
                "free; a bot plays it until someone joins.",
                "Yes, remove",
                lambda: self.remove_student(confirmed=True),
            )
        return self._control(lambda: self.rooms.remove(self.code, table, seat))

    def move_student(self) -> bool:
        """The chosen seat's student moves to a new device: a one-time code, shown big here
        to read out (with a QR code of the join link), gives the seat to the device that
        types it, within MOVE_CODE_MINUTES; their old device can no longer play it, and no
        typed name takes it."""
        if (picked := self._picked()) is None:
            return False
        table, seat = picked

        def move() -> None:
            name = next((r.label for r in self.rooms.seats(self.code, table) if r.seat == seat), "")
            self.show_move_code(self.rooms.move_seat(self.code, table, seat), name, table)
            self.answer(
                Reply(
                    True,
                    f"{name}'s seat waits for their new device: on it they open the join page "
                    f"and type the code instead of their name. It works once, for "
                    f"{MOVE_CODE_MINUTES} minutes. A bot plays the seat meanwhile.",
                )
            )

        return self._control(move)

    def show_move_code(self, move: str, name: str, table: int) -> None:
        """The move code, big enough to read out, and a QR code of the join link with it."""
        link = move_link(join_link(self.code), move)
        self.move_code.value = html_text(
            "<div style='display:flex;gap:24px;align-items:center;flex-wrap:wrap;"
            "line-height:1.2;margin:8px 0'><div class='am-qr'>{}</div><div>"
            "<div style='font-size:20px;line-height:1.2'>Move code for {} (table {})</div>"
            "<div class='am-move-digits' style='font-size:64px;line-height:1.1;font-weight:800;"
            "letter-spacing:8px'>{}</div>"
            "<div style='font-size:16px;line-height:1.3'>On the new device: open the join page "
            "(or scan this), then type the code as the name. It works once, for {} minutes."
            "</div></div></div>",
            qr_code_html(link, scale=4) if link.startswith("http") else "",
            name,
            table + 1,
            f"{move[:3]} {move[3:]}",
            MOVE_CODE_MINUTES,
        )
        self.move_box.layout.display = "flex"

    def hide_move_code(self) -> None:
        self.move_code.value = ""
        self.move_box.layout.display = "none"

    def toggle_joining(self) -> bool:
        """Lock joining (new names are refused; reloads and moved seats still get in), or
        unlock it."""
        locked = False

        def toggle() -> None:
            nonlocal locked
            locked = not self.rooms.info(self.code).joining_locked
            self.rooms.lock_joining(self.code, locked)
            self.answer(
                Reply(
                    True,
                    "Joining is locked: no new student can join. Students with a seat still "
                    "come back to it, and a move code still works."
                    if locked
                    else "Joining is open again.",
                )
            )

        done = self._control(toggle)
        if done:  # the tables' copy of the room hears of it at their next news
            self.lock_button.description = "Unlock joining" if locked else "Lock joining"
        return done

    def clear_unplayed(self, confirmed: bool = False) -> bool:
        """Free every student seat that has not played yet (before the games start: every
        student seat), in one step: a script's hoarded seats, or a class that started over.
        Asks first."""
        if not confirmed:
            return self.ask(
                "Clear every seat whose student has not made a decision yet? Those students "
                "are out; bots play the seats until someone joins.",
                "Yes, clear them",
                lambda: self.clear_unplayed(confirmed=True),
            )

        def clear() -> None:
            count = self.rooms.clear_unplayed(self.code)
            self.answer(Reply(True, f"Cleared {count} unplayed seat{'s' * (count != 1)}."))

        return self._control(clear)

    def clear_table(self, confirmed: bool = False) -> bool:
        """Free every student seat of the chosen table in one step. Asks first."""
        table = self.table_picker.value
        if table is None:
            return self.answer(Reply(False, "Choose a table first.", "warning"))
        if not confirmed:
            return self.ask(
                f"Clear every student's seat at table {table + 1}? Those students are out; "
                "bots play the seats until someone joins.",
                "Yes, clear the table",
                lambda: self.clear_table(confirmed=True),
            )

        def clear() -> None:
            count = self.rooms.clear_table(self.code, table)
            self.answer(
                Reply(True, f"Cleared {count} seat{'s' * (count != 1)} at table {table + 1}.")
            )

        return self._control(clear)

    def replace_link(self, confirmed: bool = False) -> bool:
        """A new instructor link for this class; the old one (and every page that holds it)
        stops opening the controls at once. Asks first; a class with a PIN needs it too
        (wrong PINs count against this page, as when going back to a class)."""
        if not confirmed:
            return self.ask(
                "Replace the instructor link? The old link stops working at once, on every "
                "computer; this page shows the new one.",
                "Yes, replace it",
                lambda: self.replace_link(confirmed=True),
            )

        def replace() -> None:
            self.guesses.check("Too many wrong tries from this page.")
            try:
                key = self.rooms.replace_key(self.code, self.key, self.replace_pin.value or None)
            except Refused:
                self.guesses.add()
                raise
            finally:
                self.replace_pin.value = ""
            self.key = key
            self.kept[self.code] = key
            self.memory.remember(self.code, key)
            self.secret.text = instructor_link(self.code, key, page_address())
            self.answer(
                Reply(
                    True,
                    "The instructor link is replaced: the old one opens nothing any more. "
                    "Copy the new one below and keep it private.",
                )
            )

        return self._control(replace)

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
        lobby, closed = info.status == "lobby", info.status == ENDED
        self.start_button.layout.display = "flex" if lobby else "none"
        self.pause_button.layout.display = "flex" if info.status == "playing" else "none"
        self.resume_button.layout.display = "flex" if info.status == "paused" else "none"
        timed = info.settings.ending == "two-hour"
        running = not lobby and not closed and info.seconds_left() != 0
        self.end_button.layout.display = "flex" if timed and running else "none"
        self.close_button.layout.display = "none" if closed else "flex"
        self.reopen_button.layout.display = "flex" if closed else "none"
        self.lock_button.description = "Unlock joining" if info.joining_locked else "Lock joining"
        self.replace_pin.layout.display = "flex" if info.has_pin else "none"
        tables = [(f"Table {t + 1}", t) for t in range(info.settings.tables)]
        if tables != [tuple(option) for option in self.table_picker.options]:
            self.table_picker.options = tables
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
                "<p style='font-size:18px'><b>{}</b> of {} seats have a student: {}</p>{}",
                len(joined),
                len(lobby_rows),
                names if joined else "nobody yet",
                html_text(LOCKED_LINE) if info.joining_locked else "",
            )
        head = {"paused": "Paused. ", ENDED: "The class is closed. "}.get(info.status, "")
        head += "Joining is locked. " if info.joining_locked else ""
        if info.settings.ending == "two-hour" and info.seconds_left() == 0:
            head += "Time is up: each table does its final accounting. "
        head = html_text("<p class='am-class-state' style='font-size:20px'><b>{}</b></p>", head)
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
            for seat in range(len(game.names)):
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
                    "{}<td>{}</td>{}</tr>",
                    table.table_no + 1,
                    game.round,
                    len(game.decisions),
                    self.treatments.table_cell(table),
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
        result = self.result()
        # what decided the class's games (issue 37), above the charts
        decided = widgets.HTML(class_accounting_html(result))
        self.results.children = [decided, *chart_widgets(class_charts(result))]
        return True

    def _bots_at_each_table(self, games: int, _preset: str, seed: int, on_chunk: Any) -> Any:
        """Bots at each finished table, under its rules, stopped at the round it reached (a win
        rate depends on where play stops: issues 23 and 39), pooled (`bots_beside_class`)."""
        from ..rooms.treatments import bots_beside_class, table_outcomes

        outcomes = table_outcomes(self.tables)
        if not any(o.finished for o in outcomes):
            raise Refused("no table has finished its game yet")
        if len(self.tables[0].info.settings.rule_sets()) > 1:  # one bar per role, one rule set
            raise Refused("the tables play several rule sets: see The rule sets compared above")
        try:  # Cancel stops between two tables (on_chunk raises), with one line
            return bots_beside_class(outcomes, games, seed, on_chunk)
        except KeyboardInterrupt:
            raise Refused("cancelled before every table's bots had played") from None

    def _beside_bots(self, bots: Any) -> list[Any]:
        result = self.result()
        if not len(result.games):
            raise Refused("no table has finished its game yet")
        return class_beside_bots(result, bots)

    def archive(self, file_format: str) -> bytes:
        """The class's data for a download: only for the page that holds the class's key."""
        self._check_key()
        result = self.result()
        return class_archive(
            result, decisions_frame(self.rooms, self.code, self.tables), file_format
        )
