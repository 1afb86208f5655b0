"""The class's debrief on the projector (issue 37): every seat of every table against a bot in
the same seat with the same dice, the income-tax choices against the cheaper option, what the
final accounting decided at each table, and the key moments of the games, each of which the
board can show as it stood then (the table's log replayed up to that decision).

The figures come from `amteach.rooms.debrief` (the engine's events); this module only draws
them. The Class tab holds one `DebriefPanel` (ui/class_tab.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets
from markupsafe import Markup

from ..render import board_html, html_join, html_text
from ..rooms import Refused, RoomsUnavailable, RoomTable, unavailable_reply
from ..rooms.debrief import (
    BANKRUPTCY,
    Moment,
    TableDebrief,
    accounting_decided,
    accounting_sentence,
    board_at,
    class_frame,
    kept_debrief,
    moment_sentence,
    money,
)
from ..session import Reply
from ..style import ROLE_COLOURS, ROLE_LABELS, ROLE_SHAPES
from .download import DownloadButton
from .widgets import Messages, button

STYLE = (
    "<style>.am-debrief-class{font-size:17px;line-height:1.4;max-width:1240px}"
    ".am-debrief-class table{border-collapse:collapse;margin:6px 0}"
    ".am-debrief-class td,.am-debrief-class th{border:1px solid #ccc;padding:3px 8px;"
    "text-align:right;vertical-align:top}"
    ".am-debrief-class th[scope=row],.am-debrief-class td.am-debrief-left{text-align:left}"
    ".am-debrief-class .am-role{white-space:nowrap}"
    ".am-debrief-class caption{text-align:left;font-weight:700;padding:4px 0}"
    ".am-debrief-class .am-bot{font-size:15px;color:#444;white-space:nowrap}</style>"
)


def _role(role: int) -> Markup:
    return html_text(
        "<span class='am-role' style='color:{};font-weight:600'>{} {}</span>",
        ROLE_COLOURS[role],
        ROLE_SHAPES[role],
        ROLE_LABELS[role],
    )


def _beside(mine: int, bot: int) -> Markup:
    return html_text("{} <span class='am-bot'>(bot {})</span>", money(mine), money(bot))


def holds_under(debriefs: Sequence[TableDebrief]) -> str:
    """What the class's figures hold under: tables, finished games, rounds, rules, ending."""
    rounds = sorted({d.round for d in debriefs})
    span = f"round {rounds[0]}" if len(rounds) == 1 else f"rounds {rounds[0]} to {rounds[-1]}"
    finished = sum(d.over for d in debriefs)
    sets = sorted({d.rules for d in debriefs})
    rules = f"rule set: {sets[0]}" if len(sets) == 1 else f"rule sets: {'; '.join(sets)}"
    endings = ", ".join(sorted({d.ending for d in debriefs}))
    tables = "table" if len(debriefs) == 1 else f"{len(debriefs)} tables"
    games = "game" if finished == 1 else "games"
    return (
        f"These figures hold for this class's {tables} only ({finished} {games} finished; "
        f"they reached {span}; {rules}; ending {endings})."
    )


def summary_html(debriefs: Sequence[TableDebrief]) -> Markup:
    """Students against bots in the same seats, by role; the tax choices; what the accounting
    decided at each table; every seat's figures."""
    frame = class_frame(debriefs)
    students = frame[frame["player"] == "student"]
    by_role = []
    for role, label in enumerate(ROLE_LABELS):
        part = students[students["role"] == label.lower()]
        if not len(part):
            continue
        by_role.append(
            html_text(
                "<tr><th scope='row'>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                _role(role),
                len(part),
                _beside(int(part["rent_paid"].sum()), int(part["bot_rent_paid"].sum())),
                _beside(int(part["rent_earned"].sum()), int(part["bot_rent_earned"].sum())),
                _beside(int(part["final_cash"].sum()), int(part["bot_final_cash"].sum())),
            )
        )
    against = (
        html_text(
            "<table><caption>Students against a bot in the same seat, with the same dice "
            "(totals over the students' seats)</caption><thead><tr><th scope='col'>Role</th>"
            "<th scope='col'>Seats</th><th scope='col'>Rent paid</th>"
            "<th scope='col'>Rent earned</th><th scope='col'>Cash at the end</th></tr></thead>"
            "<tbody>{}</tbody></table><p>Each bot replayed the table from its own seed: the "
            "same dice stream and cards. Once one choice differs, the dice fall on other "
            "moments and the rest of the game differs too, so this compares whole games, not "
            "one choice.</p>",
            html_join(by_role),
        )
        if by_role
        else html_text("<p>No student played a seat, so there is nothing to compare.</p>")
    )
    taxes = []
    for who, part in (("Students", students), ("Bots", frame[frame["player"] == "bot"])):
        choices = int(part["tax_choices"].sum())
        if choices:
            taxes.append(
                html_text(
                    "<li>{} chose the cheaper income tax {} of {} times and paid {} above the "
                    "cheaper option in all.</li>",
                    who,
                    int(part["tax_cheaper"].sum()),
                    choices,
                    money(int(part["tax_above_cheaper"].sum())),
                )
            )
    if not taxes:
        taxes.append(html_text("<li>Nobody landed on Income Tax.</li>"))
    decided = []
    changed = finished = 0
    for debrief in debriefs:
        names = [s.name for s in debrief.seats]
        if debrief.accounting is not None:
            finished += 1
            changed += accounting_decided(debrief)
        decided.append(
            html_text(
                "<li><b>Table {}</b> ({} round{}, rules: {}): {}</li>",
                debrief.table + 1,
                debrief.round,
                "" if debrief.round == 1 else "s",
                debrief.rules,
                accounting_sentence(debrief, names),
            )
        )
    seats = html_join(
        html_text(
            "<tr><th scope='row'>{table}</th><td class='am-debrief-left'>{name}</td>"
            "<td class='am-debrief-left'>{role}</td><td class='am-debrief-left'>{player}</td>"
            "<td>{cheaper} of {taxes} ({above} above)</td><td>{paid}</td><td>{earned}</td>"
            "<td>{cash}</td><td>{built}</td><td>{mortgages}</td></tr>",
            table=debrief.table + 1,
            name=s.name,
            role=_role(s.role),
            player="student" if s.student else "bot",
            cheaper=s.cheaper_choices,
            taxes=len(s.taxes),
            above=money(s.above_cheaper),
            paid=_beside(s.play.rent_paid, s.bot.rent_paid),
            earned=_beside(s.play.rent_earned, s.bot.rent_earned),
            cash=_beside(s.play.final_cash, s.bot.final_cash),
            built=s.houses_built + s.apartments_built,
            mortgages=s.mortgages,
        )
        for debrief in debriefs
        for s in debrief.seats
    )
    return html_text(
        "{style}<div class='am-debrief-class'><p><b>{under}</b></p>{against}"
        "<h4>Income tax against the cheaper option</h4><ul>{taxes}</ul>"
        "<h4>What the final accounting decided</h4><p>The accounting decided the winner (it "
        "changed the leader, or broke a tie) at {changed} of {finished} tables that reached "
        "it.</p><ul>{decided}</ul>"
        "<table><caption>Every seat (in brackets: the bot in the same seat, same dice)"
        "</caption><thead><tr><th scope='col'>Table</th><th scope='col'>Name</th>"
        "<th scope='col'>Role</th><th scope='col'>Played by</th>"
        "<th scope='col'>Cheaper income tax</th><th scope='col'>Rent paid</th>"
        "<th scope='col'>Rent earned</th><th scope='col'>Cash at the end</th>"
        "<th scope='col'>Buildings built</th><th scope='col'>Mortgages</th></tr></thead>"
        "<tbody>{seats}</tbody></table></div>",
        style=Markup(STYLE),
        under=holds_under(debriefs),
        against=against,
        taxes=html_join(taxes),
        changed=changed,
        finished=finished,
        decided=html_join(decided),
        seats=seats,
    )


class DebriefPanel:
    """A button that draws the class's debrief, its key moments, and the board at a moment."""

    def __init__(
        self,
        tables: Callable[[], Sequence[RoomTable]],
        check: Callable[[], None] = lambda: None,
    ) -> None:
        """`tables()`: the class's tables now; `check()` raises unless this page holds the
        class's instructor key (the download asks it first, as the Class tab's do)."""
        self.tables = tables
        self.check = check
        self.messages = Messages()
        self.show_button = button("Show the class's debrief", lambda _: self.show())
        self.summary = widgets.HTML()
        self.moments = widgets.VBox()
        self.board = widgets.HTML()
        self.board.add_class("am-debrief-board")
        self.debriefs: list[TableDebrief] = []
        self.widget = widgets.VBox(
            [
                widgets.HTML("<h3>The class's debrief</h3>"),
                widgets.HBox(
                    [
                        self.show_button,
                        DownloadButton(
                            "amteach-class-debrief.csv",
                            self.csv,
                            description="Debrief (CSV)",
                            mime="text/csv",
                        ),
                    ]
                ),
                self.messages.widget,
                self.summary,
                self.moments,
                self.board,
            ]
        )
        self.widget.add_class("am-debrief-panel")

    def show(self) -> bool:
        tables = list(self.tables())
        if not tables:
            return self.messages.show(Reply(False, "The games have not started yet.", "warning"))
        try:
            self.debriefs = [kept_debrief(table) for table in tables]
        except RoomsUnavailable as err:
            return self.messages.show(unavailable_reply(err))
        self.summary.value = summary_html(self.debriefs)
        self.moments.children = self.moment_rows()
        self.board.value = ""
        return self.messages.show(Reply(True))

    def csv(self) -> str:
        """The class's debrief, one row per seat (`class_frame`), as CSV a spreadsheet opens
        safely (no cell starts a formula)."""
        from ..rooms import spreadsheet_safe

        self.check()
        tables = list(self.tables())
        if not tables:
            raise Refused("The games have not started yet.")
        return spreadsheet_safe(class_frame([kept_debrief(t) for t in tables])).to_csv(index=False)

    def moment_rows(self) -> list[Any]:
        rows: list[Any] = [widgets.HTML("<h4>Key moments</h4>")]
        for index, debrief in enumerate(self.debriefs):
            names = [s.name for s in debrief.seats]
            for moment in debrief.moments:
                label = widgets.HTML(
                    html_text(
                        "<span style='font-size:17px'><b>Table {}</b>: {}</span>",
                        debrief.table + 1,
                        moment_sentence(moment, names),
                    )
                )
                show = button(
                    "Show on the board",
                    lambda _, i=index, m=moment: self.show_moment(i, m),
                    tooltip=f"Table {debrief.table + 1} after decision {moment.decision}",
                )
                rows.append(
                    widgets.HBox(
                        [label, show],
                        layout=widgets.Layout(align_items="center", flex_flow="row wrap"),
                    )
                )
        if len(rows) == 1:
            rows.append(
                widgets.HTML(
                    "<p style='font-size:17px'>No rent was paid and nobody went bankrupt.</p>"
                )
            )
        return rows

    def show_moment(self, index: int, moment: Moment) -> bool:
        """Draw the board of the debrief's `index`th table just after the moment's decision."""
        tables = list(self.tables())
        if not 0 <= index < len(self.debriefs) or index >= len(tables):
            return self.messages.show(Reply(False, "Show the debrief again first.", "warning"))
        debrief = self.debriefs[index]
        game = board_at(tables[index].game, moment.decision)
        what = "a bankruptcy" if moment.kind == BANKRUPTCY else "the largest rent"
        self.board.value = html_text(
            "<style>.am-debrief-board .am-board{{--am-board-max-height:calc(100vh - 140px)}}"
            "</style><h4>Table {} just after decision {} (round {}): {}</h4>"
            "<p style='font-size:17px'>{}</p>{}",
            debrief.table + 1,
            moment.decision,
            moment.round,
            what,
            moment.text,
            board_html(game),
        )
        return self.messages.show(
            Reply(True, f"The board of table {debrief.table + 1} at decision {moment.decision}.")
        )


__all__ = ["DebriefPanel", "holds_under", "summary_html"]
