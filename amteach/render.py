"""HTML views of a game for notebooks: the board as a ring of 40 spaces, and a players table.

Plain HTML and CSS, no widget imports: `Game._repr_html_` uses it and so can the classroom app.
Role colours follow the pawns (Competitors green, Monopolists blue) and always come with a
label and a shape (circle for Competitors, square for Monopolists).
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine.game import Game

ROLE_COLOURS = ("#1b7f3b", "#1f4fb4")  # Competitor green, Monopolist blue
ROLE_SHAPES = ("●", "■")
ROLE_SYMBOLS = ("circle", "square")  # the same shapes as plotly marker symbols
ROLE_LABELS = ("Competitor", "Monopolist")
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


def grid_cell(index: int) -> tuple[int, int]:
    """(row, column) of a space on an 11 x 11 grid, START at the bottom right, play clockwise."""
    if index <= 10:
        return 10, 10 - index
    if index <= 20:
        return 10 - (index - 10), 0
    if index <= 30:
        return 0, index - 20
    return index - 30, 10


def pawn_html(game: Game, player: int) -> str:
    role = game.roles[player]
    name = game.names[player]
    radius = "50%" if role == 0 else "2px"
    held = game.held[player] >= 0
    label = f"{name}, {ROLE_LABELS[role]}" + (f", held in {game.hold_name(player)}" if held else "")
    ring = "outline:2px dashed #b00020;outline-offset:1px;" if held else ""
    return (
        f'<span class="am-pawn" title="{escape(label)}" aria-label="{escape(label)}" '
        f'style="background:{ROLE_COLOURS[role]};border-radius:{radius};{ring}">{escape(name[:1].upper())}</span>'
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
    sp = game.board.spaces[index]
    row, col = grid_cell(index)
    band = ""
    if sp.kind == "street":
        band = f'<div class="am-band" style="background:{CITY_COLOURS.get(sp.city, "#999")}" title="{escape(sp.city)}"></div>'
    marks = []
    owner = game.owner[index]
    if owner >= 0:
        role = game.roles[owner]
        marks.append(
            f'<span class="am-owner" style="border-color:{ROLE_COLOURS[role]};color:{ROLE_COLOURS[role]}" '
            f'title="owned by {escape(game.names[owner])} ({ROLE_LABELS[role]})">'
            f"{ROLE_SHAPES[role]} {escape(game.names[owner])}</span>"
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
        f'<div class="am-space" style="grid-row:{row + 1};grid-column:{col + 1}" data-space="{index}">'
        f'{band}<div class="am-name" title="{escape(sp.name)}">{escape(short_name(game, index))}</div>{"".join(marks)}<div class="am-pawns">{pawns}</div></div>'
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


def players_table_html(game: Game) -> str:
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
            "<tr>"
            f"<td>{pawn_html(game, p)} {escape(game.names[p])}</td>"
            f'<td style="color:{ROLE_COLOURS[role]}">{ROLE_SHAPES[role]} {ROLE_LABELS[role]}</td>'
            f"<td>${game.cash[p]}</td><td>${game.net_worth(p)}</td><td>${game.rule25_wealth(p)}</td>"
            f'<td style="text-align:left">{escape(titles)}</td><td>{status}</td>'
            "</tr>"
        )
    return (
        '<table class="am-players"><thead><tr><th>Player</th><th>Role</th><th>Cash</th><th>Net worth</th>'
        "<th>Rule-25 wealth</th><th>Titles</th><th>Status</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def board_html(game: Game, with_players: bool = True) -> str:
    """The whole board with pawns, owners, buildings and mortgages, and the players table."""
    spaces = "".join(_space_html(game, i) for i in range(len(game.board.spaces)))
    if game.over:
        status = "Game over"
        if game.winner is not None:
            status += f": {escape(game.names[game.winner])} wins"
    else:
        status = f"Round {game.round}: {escape(game.names[game.actor])} to decide"
    legend = " &nbsp; ".join(
        f'<span style="color:{ROLE_COLOURS[r]}">{ROLE_SHAPES[r]} {ROLE_LABELS[r]}</span>'
        for r in (0, 1)
    )
    supply = f"Treasury supply: {game.supply_houses} houses, {game.supply_apartments} apartments"
    centre = f'<div class="am-centre"><div class="am-title">ANTI-MONOPOLY</div><div>{status}</div><div>{legend}</div><div>{supply}</div></div>'
    board = f'<div class="am-board" lang="en" role="img" aria-label="Anti-Monopoly board">{spaces}{centre}</div>'
    side = players_table_html(game) if with_players else ""
    return f'{STYLE}<div class="am-wrap">{board}{side}</div>'
