"""What a student's phone shows of their seat, as escaped HTML fragments the server sends over
the phone's websocket (`hub.py`): whose turn it is, the student's own legal choices with their
stakes, the build and trade forms while they may use them, what just happened, their cash and
titles, the spaces around their pawn and every player. Each part is drawn by the engine's
reads and `render`'s phone views; nothing here applies or recomputes a rule.

Every button carries its choice as JSON (`data-choice`) and the decision number it was drawn
for (`data-at`), so a stale press is refused by the server, never guessed at by the page.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from markupsafe import Markup

from ..engine.choices import Choice
from ..engine.game import Game
from ..render import (
    PHASE_WORDS,
    PHONE_STYLE,
    TITLE_ACTIONS,
    html_join,
    html_text,
    phone_html,
    phone_mine_html,
    phone_players_html,
    phone_reach_html,
)
from ..session import HUMAN, choice_label
from ..style import ROLE_COLOURS, ROLE_LABELS, ROLE_SHAPES
from .questions import KEEP_OPEN, Question
from .room import ENDED, PAUSED, PLAYING, RoomSettings, SeatRow
from .rule_sets import LINE_HEAD
from .table import RoomTable

# the parts of a seat's view, in the order the page shows them
PARTS = (
    "status",
    "rules",
    "question",
    "debrief",
    "choices",
    "away",
    "manage",
    "trade",
    "happened",
    "mine",
    "board",
    "players",
)
# lines of "What happened" a phone shows (newest first)
HAPPENED_LINES = 12


def role_badge(role: int) -> Markup:
    """A role in words, with its pawn's shape and colour (never the colour alone)."""
    return html_text(
        '<span style="color:{};font-weight:600">{} {}</span>',
        ROLE_COLOURS[role],
        ROLE_SHAPES[role],
        ROLE_LABELS[role],
    )


def clock(seconds: float | None) -> str:
    """Seconds as m:ss ("" for no timer)."""
    if seconds is None:
        return ""
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}:{rest:02d}"


def status_line(table: RoomTable, seat: int) -> tuple[Markup, str]:
    """What the moment is for `seat`, in plain words, and its background's kind."""
    game, info = table.game, table.info
    final = game.phase == "final_adjust"
    if game.over:
        if game.winner is None:
            return html_text("<b>Game over.</b> Nobody won."), "wait"
        if game.winner == seat:
            return html_text("<b>Game over.</b> You won!"), "wait"
        return html_text("<b>Game over.</b> {} won.", game.names[game.winner]), "wait"
    if info.status == ENDED:
        return html_text("<b>The class has ended.</b> Nothing more can be played."), "wait"
    if info.status == PAUSED:
        return html_text(
            "<b>Paused</b> by your teacher: your choices come back when the game goes on."
        ), "note"
    if table.time_up and not final:  # every device says so at once, whoever is to choose
        return html_text(
            "<b>Time is up.</b> The final accounting starts after {} choice.",
            "your" if game.actor == seat else f"{game.names[game.actor]}'s",
        ), "note"
    if table.controller(seat) != HUMAN:
        return html_text("A bot is playing your seat while you are away."), "note"
    head = html_text("<b>Time is up:</b> the final accounting. ") if final else ""
    if game.actor == seat:
        if final:
            return html_text(
                "{}<b>Your turn</b>: sell, mortgage or build if you wish, then press Done "
                "adjusting.",
                head,
            ), "mine"
        words = PHASE_WORDS.get(game.phase, "your choice")
        return html_text("<b>Your turn</b>, {}: choose below.", words), "mine"
    return html_text("{}{}'s turn.", head, game.names[game.actor]), "wait"


def status_html(table: RoomTable, seat: int) -> Markup:
    """The seat's status line. Its `data-at` is the table's decision count (not shown): every
    decision changes the part, so a device (or benchmarks/bench_load.py) can tell which moment
    of the game it shows."""
    game, info = table.game, table.info
    left = info.seconds_left()
    final = game.over or game.phase == "final_adjust"
    timer = f" · time left {clock(left)}" if left is not None and not final else ""
    text, kind = status_line(table, seat)
    return html_text(
        '<div class="am-status am-status-{kind}" data-at="{at}">Table {table} · <b>{name}</b> '
        "{badge} · round {round}{timer}<br>{text}</div>",
        kind=kind,
        at=len(game.decisions),
        table=table.table_no + 1,
        name=game.names[seat],
        badge=role_badge(game.roles[seat]),
        round=game.round,
        timer=timer,
        text=text,
    )


def rules_html(settings: RoomSettings | None, table: int) -> Markup:
    """The table's rules in one plain line ("Rules at your table: equal keep shares — ..."),
    so a student knows which rule set (treatment) their table plays."""
    if settings is None:
        return Markup("")
    return html_text(
        '<p class="am-rules"><b>{}</b>{}</p>',
        LINE_HEAD.strip(),
        " " + settings.rule_set(table).line,
    )


def choice_button(game: Game, choice: Choice, label: str | None = None) -> Markup:
    return html_text(
        '<button type="button" class="am-choice" data-choice="{}" data-at="{}">{}</button>',
        json.dumps(choice.to_json(), separators=(",", ":")),
        len(game.decisions),
        label or choice_label(game, choice),
    )


def may_decide(table: RoomTable, seat: int) -> bool:
    """The student may choose now: their turn, their seat played by them, the table playing."""
    game = table.game
    return (
        game.pending is not None
        and not game.over
        and game.actor == seat
        and table.controller(seat) == HUMAN
        and table.info.status == PLAYING
    )


def choices_html(table: RoomTable, legal: list[Choice]) -> Markup:
    game = table.game
    buttons = [
        choice_button(game, choice)
        for choice in legal
        if choice.kind not in TITLE_ACTIONS and choice.kind not in ("end_game", "trade")
    ]
    if not buttons:
        return Markup("")
    return html_text(
        '<div class="am-choices" role="group" aria-label="Your choices">{}</div>',
        html_join(buttons),
    )


def manage_html(table: RoomTable, seat: int, legal: list[Choice]) -> Markup:
    """Build, sell, mortgage or redeem: each of the student's titles with the actions the rules
    allow on it now, each button saying what it costs or returns."""
    game = table.game
    actions = [choice for choice in legal if choice.kind in TITLE_ACTIONS]
    if not actions:
        return Markup("")
    by_title: dict[int, list[Choice]] = {}
    for choice in actions:
        by_title.setdefault(choice.arg, []).append(choice)
    rows = [
        html_text(
            '<li><span class="am-title-name">{}</span><span class="am-title-actions">{}</span></li>',
            game.board.spaces[space].name,
            html_join(choice_button(game, choice) for choice in by_title[space]),
        )
        for space in game.titles_of(seat)
        if space in by_title
    ]
    return html_text(
        '<details class="am-panel am-manage"><summary>Build, sell or mortgage</summary>'
        "<ul>{}</ul></details>",
        html_join(rows),
    )


def bare_titles(game: Game, player: int) -> list[int]:
    """A player's titles without buildings: what a trade may move."""
    return [s for s in game.titles_of(player) if not game.houses[s] and not game.apartment[s]]


def title_boxes(game: Game, spaces: Iterable[int], name: str, owner: int) -> Markup:
    boxes = [
        html_text(
            '<label><input type="checkbox" name="{name}" value="{space}" data-owner="{owner}"> '
            "{title}{mortgaged}</label>",
            name=name,
            space=space,
            owner=owner,
            title=game.board.spaces[space].name,
            mortgaged=" (mortgaged)" if game.mortgaged[space] else "",
        )
        for space in spaces
    ]
    return html_join(boxes) if boxes else html_text("<span>no titles without buildings</span>")


def trade_html(table: RoomTable, seat: int, legal: list[Choice]) -> Markup:
    """A trade offer: the partner, the titles to give and to get, and the cash to pay."""
    game = table.game
    # legal_choices leaves trades out (they are open-ended): the moment's legal kinds say
    if not legal or "trade" not in game.legal().kinds:
        return Markup("")
    others = [p for p in range(len(game.names)) if not game.bankrupt[p] and p != seat]
    partners = html_join(
        html_text('<option value="{}">{}</option>', p, game.names[p]) for p in others
    )
    gets = html_join(
        html_text(
            '<fieldset class="am-get" data-partner="{p}"{hidden}><legend>Get from {name}</legend>'
            "{boxes}</fieldset>",
            p=p,
            hidden=Markup(" hidden") if i else Markup(""),
            name=game.names[p],
            boxes=title_boxes(game, bare_titles(game, p), "get", p),
        )
        for i, p in enumerate(others)
    )
    return html_text(
        '<details class="am-panel am-trade"><summary>Propose a trade</summary>'
        '<form class="am-trade-form" data-at="{at}">'
        '<label>With <select name="with">{partners}</select></label>'
        '<label>Pay $ <input type="number" name="pay" value="0" step="1" '
        'aria-describedby="am-pay-help"></label>'
        '<span id="am-pay-help" class="am-help">a negative amount: cash you receive</span>'
        "<fieldset><legend>Give</legend>{give}</fieldset>{gets}"
        '<button type="submit" class="am-propose">Propose trade</button></form></details>',
        at=len(game.decisions),
        partners=partners,
        give=title_boxes(game, bare_titles(game, seat), "give", seat),
        gets=gets,
    )


def away_html(table: RoomTable, seat: int) -> Markup:
    if table.controller(seat) == HUMAN or table.game.over:
        return Markup("")
    return Markup(
        '<button type="button" class="am-take-back" data-action="take_back">Take my seat back'
        "</button>"
    )


def happened_html(lines: list[str]) -> Markup:
    if not lines:
        return Markup("")
    return html_text(
        '<h2 class="am-heading">What happened (newest first)</h2><ol class="am-happened">{}</ol>',
        html_join(html_text("<li>{}</li>", line) for line in lines[:HAPPENED_LINES]),
    )


def question_html(question: Question | None, mine: int | float | None) -> Markup:
    """The question the teacher asked the room (the `question` part): a form while it is
    open, with the seat's own answer if it gave one; the question and the answer, locked,
    once it is closed; nothing before any question. The hub adds it to every view."""
    if question is None:
        return Markup("")
    head = html_text(
        '<h2 class="am-heading" id="am-q-head">{} from your teacher</h2>', question.label
    )
    given = question.show(mine) if mine is not None else None
    if question.closed_at is not None:
        return html_text(
            '<section class="am-question am-question-closed" aria-labelledby="am-q-head">{}'
            "<p>{}</p><p><b>This question is closed.</b> {}</p></section>",
            head,
            question.text,
            f"Your answer: {given}." if given is not None else "You did not answer it.",
        )
    if question.kind == "choice":
        options = html_join(
            html_text(
                '<label class="am-q-option"><input type="radio" name="answer" id="am-q-opt-{i}" '
                'value="{i}"{checked}> {label}</label>',
                i=i,
                checked=Markup(" checked") if mine == i else Markup(""),
                label=label,
            )
            for i, label in enumerate(question.options)
        )
        body = html_text("<fieldset><legend>{}</legend>{}</fieldset>", question.text, options)
    else:
        body = html_text(
            '<label for="am-q-number">{text}</label><input type="number" id="am-q-number" '
            'name="answer" min="{low}" max="{high}" step="any" inputmode="decimal" '
            'value="{value}" aria-describedby="am-q-help" required>'
            '<span id="am-q-help" class="am-help">Type {words}.</span>',
            text=question.text,
            low=f"{question.low:.10g}",
            high=f"{question.high:.10g}",
            value=f"{mine:.10g}" if mine is not None else "",
            words=question.bounds_words(),
        )
    return html_text(
        '<section class="am-question" aria-labelledby="am-q-head">{head}'
        '<form class="am-question-form" data-question="{number}" data-kind="{kind}">{body}'
        '<button type="submit" id="am-q-send">Send my answer</button></form>'
        '<p class="am-question-mine" id="am-q-mine">{mine}</p></section>',
        head=head,
        number=question.number,
        kind=question.kind,
        body=body,
        mine=f"Your answer: {given} ({KEEP_OPEN})"
        if given is not None
        else "You have not answered yet.",
    )


def without_style(fragment: Markup) -> str:
    """A phone view without its style sheet: the light page has it once, in its head."""
    return str(fragment).replace(PHONE_STYLE, "")


def seat_view(table: RoomTable, seat: int, lines: list[str]) -> dict[str, str]:
    """Every part of `seat`'s view now, as HTML (PARTS, in order)."""
    game = table.game
    legal = game.legal_choices() if may_decide(table, seat) else []
    return {
        "status": str(status_html(table, seat)),
        "rules": str(rules_html(table.info.settings, table.table_no)),
        "question": "",  # the room's, not the table's: the hub adds it (`Hub.question_part`)
        "choices": str(choices_html(table, legal)),
        "away": str(away_html(table, seat)),
        "manage": str(manage_html(table, seat, legal)),
        "trade": str(trade_html(table, seat, legal)),
        "happened": str(happened_html(lines)),
        "mine": without_style(phone_mine_html(game, seat)),
        # in .am-phone, as phone_html puts them: the phone style sheet is written for it
        "board": without_style(phone_html(phone_reach_html(game, seat))),
        "players": without_style(phone_html(phone_players_html(game, seat))),
    }


def lobby_view(
    rows: list[SeatRow], table: int, status: str, settings: RoomSettings | None = None
) -> dict[str, str]:
    """The view of a seat before the games start: the table, who sits there and (given the
    room's settings) the table's rules."""
    names = html_join(html_text("<li>{}</li>", row.label) for row in rows)
    if status == ENDED:
        text = html_text("<b>The class has ended.</b> Nothing more can be played.")
    else:
        text = html_text(
            "You sit at <b>table {}</b>. Waiting for your teacher to start the games.", table + 1
        )
    view = dict.fromkeys(PARTS, "")
    view["rules"] = str(rules_html(settings, table))
    view["status"] = str(
        html_text(
            '<div class="am-status am-status-wait">{}<h2 class="am-heading">At your table</h2>'
            '<ul class="am-lobby">{}</ul></div>',
            text,
            names,
        )
    )
    return view
