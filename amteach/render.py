"""HTML views of a game for notebooks: the board as a ring of 40 spaces, and a players table.

Plain HTML and CSS, no widget imports: `Game._repr_html_` uses it and so can the classroom app.
Role colours, labels and shapes come from `amteach.style`. All of amteach's HTML is built
here: `html_text` fills a template and escapes every value it is given; the board, redrawn
after every decision, escapes each text with the same `escape` in f-strings.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from .style import ROLE_COLOURS, ROLE_LABELS, ROLE_PLURALS, ROLE_SHAPES

if TYPE_CHECKING:
    from .engine.game import Game

CITY_COLOURS = {
    "New Orleans": "#8b5a2b",
    "Los Angeles": "#e58bbf",
    "Chicago": "#f08a24",
    "Philadelphia": "#d62839",
    "Boston": "#f4c542",
    "Washington": "#7d5ba6",
    "San Francisco": "#6c757d",
    "New York": "#222222",
}


def html_text(template: str, *values: object, **named: object) -> Markup:
    """HTML from a template we wrote and values that may come from a person or a file
    (player names, file names, messages): every value is escaped, so `<img ...>` in a name
    shows as text, except values that are already `Markup` (HTML built here) and numbers.
    `html_text("<b>{}</b> to decide", name)`. All of amteach's HTML is built this way.

    (`Markup(template).format` does the same, several times slower: the board is redrawn
    after every decision.)"""
    return Markup(
        template.format(*map(_escaped, values), **{k: _escaped(v) for k, v in named.items()})
    )


def _escaped(value: object) -> object:
    if isinstance(value, Markup) or (
        isinstance(value, int | float) and not isinstance(value, bool)
    ):
        return value
    return escape(value)


def html_join(parts: Iterable[object], separator: str = "") -> Markup:
    """Pieces of HTML joined; a piece that is plain text is escaped."""
    return Markup(separator).join(parts)


def chart_text(text: object) -> str:
    """A label for a plotly chart: plotly reads some HTML tags in labels, so text from a
    person or a file is escaped (plotly shows `&lt;` as `<`)."""
    return str(html_text("{}", text))


def grid_cell(index: int) -> tuple[int, int]:
    """(row, column) of a space on an 11 x 11 grid, START at the bottom right, play clockwise."""
    if index <= 10:
        return 10, 10 - index
    if index <= 20:
        return 10 - (index - 10), 0
    if index <= 30:
        return 0, index - 20
    return index - 30, 10


def pawn_html(game: Game, player: int) -> Markup:
    role = game.roles[player]
    name = game.names[player]
    held = game.held[player] >= 0
    label = escape(
        f"{name}, {ROLE_LABELS[role]}" + (f", held in {game.hold_name(player)}" if held else "")
    )
    radius = "50%" if role == 0 else "2px"
    ring = "outline:2px dashed #b00020;outline-offset:1px;" if held else ""
    return Markup(
        f'<span class="am-pawn" title="{label}" aria-label="{label}" '
        f'style="background:{ROLE_COLOURS[role]};border-radius:{radius};{ring}">'
        f"{escape(name[:1].upper())}</span>"
    )


def short_name(game: Game, index: int) -> str:
    """A name that fits a board cell: the long corner and card names are shortened."""
    board, sp = game.board, game.board.spaces[index]
    if sp.kind == "card":
        return "Card"
    if index == board.hold_space:
        return "Prison / Price War"
    if index == board.go_to_hold_space:
        return "Go to Prison / Price War"
    if index == board.foundation_space:
        return "Foundation"
    return sp.name


def _space_html(game: Game, index: int) -> str:
    # the board is redrawn after every decision: f-strings, with every text escaped
    sp = game.board.spaces[index]
    row, col = grid_cell(index)
    band = ""
    if sp.kind == "street":
        colour = CITY_COLOURS.get(sp.city, "#999")
        band = f'<div class="am-band" style="background:{colour}" title="{escape(sp.city)}"></div>'
    marks = []
    owner = game.owner[index]
    if owner >= 0:
        role, colour, name = (
            game.roles[owner],
            ROLE_COLOURS[game.roles[owner]],
            escape(game.names[owner]),
        )
        marks.append(
            f'<span class="am-owner" style="border-color:{colour};color:{colour}" '
            f'title="owned by {name} ({ROLE_LABELS[role]})">{ROLE_SHAPES[role]} {name}</span>'
        )
        if game.apartment[index]:
            marks.append('<span class="am-build" title="apartment">apartment</span>')
        elif game.houses[index]:
            count = game.houses[index]
            marks.append(f'<span class="am-build" title="{count} houses">{"⌂" * count}</span>')
        if game.mortgaged[index]:
            marks.append('<span class="am-mortgaged" title="mortgaged">mortgaged</span>')
    elif sp.is_title:
        marks.append(f'<span class="am-price">${sp.price}</span>')
    pawns = "".join(
        pawn_html(game, p)
        for p in game.players
        if not game.bankrupt[p] and game.position[p] == index
    )
    return (
        f'<div class="am-space" style="grid-row:{row + 1};grid-column:{col + 1}" '
        f'data-space="{index}">{band}<div class="am-name" title="{escape(sp.name)}">'
        f"{escape(short_name(game, index))}</div>{''.join(marks)}"
        f'<div class="am-pawns">{pawns}</div></div>'
    )


STYLE = """
<style>
.am-wrap{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#111;display:flex;gap:12px;flex-wrap:wrap;align-items:flex-start}
.am-board{display:grid;grid-template-columns:repeat(11,minmax(0,1fr));grid-template-rows:repeat(11,minmax(40px,auto));
  gap:2px;width:min(100%,600px);background:#d9e4d2;padding:4px;border-radius:6px}
.am-space{background:#fff;border:1px solid #999;font-size:10.5px;line-height:1.15;padding:1px 2px;overflow:hidden;position:relative;
  hyphens:auto;overflow-wrap:anywhere}
.am-band{height:6px;margin:-1px -2px 2px -2px}
.am-name{font-weight:600}
.am-owner{display:inline-block;border:1px solid;border-radius:3px;padding:0 2px;margin-top:1px;font-weight:600}
.am-build{display:block;color:#8a4b00}
.am-mortgaged{display:block;color:#b00020;text-decoration:line-through}
.am-price{display:block;color:#555}
.am-pawn{display:inline-flex;align-items:center;justify-content:center;width:16px;height:16px;color:#fff;
  font-size:11px;font-weight:700;margin:1px}
.am-centre{grid-row:2/11;grid-column:2/11;display:flex;flex-direction:column;align-items:center;justify-content:center;
  font-size:13px;text-align:center;gap:6px}
.am-title{font-size:22px;font-weight:700;letter-spacing:1px}
.am-players{border-collapse:collapse;font-size:13px}
.am-players th,.am-players td{border-bottom:1px solid #ccc;padding:3px 8px;text-align:right}
.am-players th:first-child,.am-players td:first-child,.am-players td:nth-child(2){text-align:left}
</style>
"""


def players_table_html(game: Game) -> Markup:
    rows = []
    for p in game.players:
        role = game.roles[p]
        status = (
            "bankrupt"
            if game.bankrupt[p]
            else (f"in {game.hold_name(p)}" if game.held[p] >= 0 else "")
        )
        titles = ", ".join(game.board.spaces[s].name for s in game.titles_of(p)) or "none"
        rows.append(
            html_text(
                "<tr><td>{pawn} {name}</td>"
                '<td style="color:{colour}">{shape} {label}</td>'
                "<td>${cash}</td><td>${worth}</td><td>${wealth}</td>"
                '<td style="text-align:left">{titles}</td><td>{status}</td></tr>',
                pawn=pawn_html(game, p),
                name=game.names[p],
                colour=ROLE_COLOURS[role],
                shape=ROLE_SHAPES[role],
                label=ROLE_LABELS[role],
                cash=game.cash[p],
                worth=game.net_worth(p),
                wealth=game.rule25_wealth(p),
                titles=titles,
                status=status,
            )
        )
    return html_text(
        '<table class="am-players"><thead><tr><th>Player</th><th>Role</th><th>Cash</th>'
        "<th>Net worth</th><th>Rule-25 wealth</th><th>Titles</th><th>Status</th></tr></thead>"
        "<tbody>{}</tbody></table>",
        html_join(rows),
    )


def role_legend(plural: bool = False, bold: bool = False) -> Markup:
    """Each role's shape and name in its colour, e.g. "● Competitors ■ Monopolists"."""
    return Markup(" &nbsp; ").join(
        html_text(
            '<span style="color:{};{}">{} {}</span>',
            ROLE_COLOURS[r],
            "font-weight:600" if bold else "",
            ROLE_SHAPES[r],
            (ROLE_PLURALS if plural else ROLE_LABELS)[r],
        )
        for r in (0, 1)
    )


def board_html(game: Game, with_players: bool = True) -> Markup:
    """The whole board with pawns, owners, buildings and mortgages, and the players table."""
    if game.over:
        status = "Game over"
        if game.winner is not None:
            status += f": {game.names[game.winner]} wins"
    else:
        status = f"Round {game.round}: {game.names[game.actor]} to decide"
    return html_text(
        '{style}<div class="am-wrap"><div class="am-board" lang="en" role="img" '
        'aria-label="Anti-Monopoly board">{spaces}<div class="am-centre">'
        '<div class="am-title">ANTI-MONOPOLY</div><div>{status}</div><div>{legend}</div>'
        "<div>Treasury supply: {houses} houses, {apartments} apartments</div></div></div>"
        "{side}</div>",
        style=Markup(STYLE),
        spaces=Markup("".join(_space_html(game, i) for i in range(len(game.board.spaces)))),
        status=status,
        legend=role_legend(),
        houses=game.supply_houses,
        apartments=game.supply_apartments,
        side=players_table_html(game) if with_players else "",
    )


def qr_code_html(text: str, scale: int = 6) -> Markup:
    """`text` (a join link) as a QR code in inline SVG, for phones to scan off a projector.
    segno draws the code as paths only, so no text from `text` reaches the HTML."""
    import segno

    return Markup(segno.make(text, error="m").svg_inline(scale=scale, dark="#111", light="#fff"))
