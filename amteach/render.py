"""HTML views of a game for notebooks: the board as a ring of 40 spaces, and a players table.

Plain HTML and CSS, no widget imports: a notebook shows a `Game` as its board (`show_games_as_boards`,
which `import amteach` calls) and the classroom app draws it too.
Role colours, labels and shapes come from `amteach.style`. All of amteach's HTML is built
here: `html_text` fills a template and escapes every value it is given; the board, redrawn
after every decision, escapes each text with the same `escape` in f-strings.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from .engine.events import HOLD_NAMES
from .style import (
    HIGHLIGHT_COLOUR,
    PAWN_CLIPS,
    PAWN_FILLS,
    ROLE_COLOURS,
    ROLE_LABELS,
    ROLE_PLURALS,
    ROLE_SHAPES,
    pawn_initials,
    pawn_shapes,
)

if TYPE_CHECKING:
    from .engine.game import Game

# Each city's colour bar, 3:1 or more against the white of its space (WCAG 1.4.11; a test
# checks): Los Angeles pink, Chicago orange and Boston gold are deeper than a printed board's.
CITY_COLOURS = {
    "New Orleans": "#8b5a2b",
    "Los Angeles": "#dc5fa6",
    "Chicago": "#d96c00",
    "Philadelphia": "#d62839",
    "Boston": "#b08600",
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


# Deliberate short forms. The companies are always "Co." on the board (a side column's cell
# holds one line of name); the others only on a board too narrow for the full names (below
# about 1,150 px, where 14 px names no longer fit a cell): the board switches to them by a
# container query, so a name is never cut in the middle of a word.
BOARD_NAMES = {
    "U.S. Electric Company": "U.S. Electric Co.",
    "U.S. Gas Company": "U.S. Gas Co.",
    "U.S. Bus Company": "U.S. Bus Co.",
    "U.S. Trucking Company": "U.S. Trucking Co.",
}
SHORT_NAMES = {
    "Competitor or Monopolist": "Comp. or Mono.",
    "Sightseeing Tour / Price War / Prison": "Prison / Price War",
    "Go to Prison / Go to Price War": "Go to Prison / Price War",
    "Anti-Monopoly Foundation": "Foundation",
    "Pennsylvania Ave.": "Penn. Ave.",
    "Constitution Ave.": "Const. Ave.",
    "Georgetown": "G'town",
    "Hollywood Blvd.": "Hollyw'd Blvd.",
    "Harvard Square": "Harvard Sq.",
    "Union Square": "Union Sq.",
    "Fisherman's Wharf": "Fisherm. Wharf",
    "French Quarter": "French Qtr.",
}


def pawn_html(game: Game, player: int, to_move: bool = False) -> Markup:
    """A player's pawn: its initials on a shape of its own at this table (`style.pawn_shapes`),
    solid in a Competitor's colour or hatched in a Monopolist's; a dashed red ring while held,
    a gold ring for the player to move."""
    role = game.roles[player]
    name = game.names[player]
    held = game.is_held(player)
    label = escape(
        f"{name}, {ROLE_LABELS[role]}"
        + (f", held in {HOLD_NAMES[game.roles[player]]}" if held else "")
        + (", to move" if to_move else "")
    )
    shape = pawn_shapes(game.roles)[player]
    ring = "outline:2px dashed #b00020;outline-offset:1px;" if held else ""
    moving = " am-to-move" if to_move else ""
    return Markup(
        f'<span class="am-pawn{moving} am-shape-{shape}" data-shape="{shape}" title="{label}" '
        f'aria-label="{label}" style="--am-fill:{PAWN_FILLS[role]};'
        f'--am-clip:{PAWN_CLIPS[shape]};{ring}">{escape(pawn_initials(game.names)[player])}</span>'
    )


def board_side(index: int) -> str:
    """Which side of the ring a space is on: "corner", "bottom", "left", "top" or "right"."""
    if index % 10 == 0:
        return "corner"
    return ("bottom", "left", "top", "right")[index // 10]


def _money(amount: int) -> str:
    return f"${amount:,}"


KIND_WORDS = {"street": "street", "transport": "transport company", "utility": "utility"}


def space_words(game: Game, index: int, mover: int = -1) -> str:
    """A space in one sentence for a screen reader, in play order: its number and name, what
    it is, its price or its owner with one landing's rent (the engine's), buildings, a
    mortgage, and the pawns on it ("12 of 40: Rush St., a Chicago street. Owned by Ben,
    Monopolist: rent $28. Here: Ana, Competitor, to move.")."""
    sp = game.board.spaces[index]
    words = [f"{index + 1} of {len(game.board.spaces)}: {sp.name}"]
    if sp.kind == "street":
        words[0] += f", a {sp.city} street."
    elif sp.kind in KIND_WORDS:
        words[0] += f", a {KIND_WORDS[sp.kind]}."
    else:
        words[0] += "."
    owner = game.owner[index]
    if owner >= 0:
        owned = f"Owned by {game.names[owner]}, {ROLE_LABELS[game.roles[owner]]}"
        if game.mortgaged[index]:
            owned += ": mortgaged, no rent."
        elif sp.kind == "utility":
            owned += "."
        else:
            rent, basis, _ = game.rent_for(index)
            held = " (the owner is held: no rent)" if basis == "prison" else ""
            owned += f": rent {_money(rent)}{held}."
        words.append(owned)
        if game.apartment[index]:
            words.append("An apartment.")
        elif game.houses[index]:
            count = game.houses[index]
            words.append("A house." if count == 1 else f"{count} houses.")
    elif sp.is_title:
        words.append(f"For sale: {_money(sp.price)}.")
    here = [
        f"{game.names[p]}, {ROLE_LABELS[game.roles[p]]}"
        + (f", held in {HOLD_NAMES[game.roles[p]]}" if game.is_held(p) else "")
        + (", to move" if p == mover else "")
        for p in range(len(game.names))
        if not game.bankrupt[p] and game.position[p] == index
    ]
    if here:
        words.append("Here: " + "; ".join(here) + ".")
    return " ".join(words)


def _space_html(game: Game, index: int, mover: int) -> str:
    # the board is redrawn after every decision: f-strings, with every text escaped. For a
    # screen reader each space is a list item read as one sentence (`space_words`, in a
    # visually hidden span); what the eye reads (band, name, marks, pawns) is hidden from it,
    # so nothing is said twice.
    sp = game.board.spaces[index]
    row, col = grid_cell(index)
    side = board_side(index)
    band = ""
    if sp.kind == "street":
        colour = CITY_COLOURS.get(sp.city, "#999")
        band = (
            f'<div class="am-band" aria-hidden="true" style="background:{colour}" '
            f'title="{escape(sp.city)}"></div>'
        )
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
            f'title="owned by {name} ({ROLE_LABELS[role]})">{ROLE_SHAPES[role]}\u00a0{name}</span>'
        )
        if game.apartment[index]:
            marks.append('<span class="am-apt" title="an apartment">apt.</span>')
        elif game.houses[index]:
            count = game.houses[index]
            houses = "a house" if count == 1 else f"{count} houses"
            marks.append(
                f'<span class="am-build" title="{houses}"><span class="am-house">⌂</span>'
                f"{count}</span>"
            )
        if game.mortgaged[index]:
            marks.append('<span class="am-mortgaged" title="mortgaged">mortgaged</span>')
    elif sp.is_title:
        marks.append(f'<span class="am-price">{_money(sp.price)}</span>')
    on_space = [
        p for p in range(len(game.names)) if not game.bankrupt[p] and game.position[p] == index
    ]
    pawns = "".join(pawn_html(game, p, p == mover) for p in on_space)
    shown = BOARD_NAMES.get(sp.name, sp.name)
    short = SHORT_NAMES.get(sp.name)
    if short:
        label = (
            f'<span class="am-long">{escape(shown)}</span>'
            f'<span class="am-short" aria-hidden="true">{escape(short)}</span>'
        )
    else:
        label = escape(shown)
    mortgaged = " am-is-mortgaged" if owner >= 0 and game.mortgaged[index] else ""
    if side == "corner":
        mortgaged += f" am-corner-{index}"
    current = ' aria-current="location"' if mover in on_space else ""
    return (
        f'<div class="am-space am-{side}{mortgaged}" role="listitem"{current} style="grid-row:'
        f'{row + 1};grid-column:{col + 1}" data-space="{index}">'
        f'<span class="am-sr-only">{escape(space_words(game, index, mover))}</span>'
        f'{band}<div class="am-name" aria-hidden="true" title="{escape(sp.name)}">{label}</div>'
        f'<div class="am-marks" aria-hidden="true">{"".join(marks)}</div>'
        f'<div class="am-pawns" aria-hidden="true">{pawns}</div></div>'
    )


# A pawn's shape is drawn behind its initials (clip-path of the box, so the shadow follows the
# shape, not the box); white initials with a dark edge read on the hatched fill and past the
# tip of a triangle.
PAWN_STYLE = """
<style>
.am-pawn{isolation:isolate;box-shadow:none;border-radius:50%;filter:drop-shadow(0 1px 1.5px rgba(0,0,0,.55));
  text-shadow:0 0 2px #000,0 0 1px #000;letter-spacing:-0.5px;line-height:1}
.am-pawn::before{content:"";position:absolute;inset:0;z-index:-1;background:var(--am-fill);clip-path:var(--am-clip)}
</style>
"""

# Pawns: on a side space they stand just inside the ring, beside their space (the cell holds its
# name and marks); on a corner, inside the corner's own space, along its bottom edge from the
# side nearer the board's middle (beside the corner they stood by the next spaces' pawns and
# hid under them, issue 39). A later pawn overlaps the one before by less than a third (on a
# corner, which has room, by less than a sixth), so every initial shows.
# The ring: corner columns 1.45 times and corner rows 1.5 times as deep as a cell is wide or
# tall, so the board is wider than tall and the names fit; the app lays its decision panel
# over the centre (amteach/ui/app.py), which starts where the corners end.
CORNER_WIDTH, CORNER_HEIGHT = 1.45, 1.5
HOLE_LEFT = round(100 * CORNER_WIDTH / (9 + 2 * CORNER_WIDTH), 2)  # % of the board's width
HOLE_TOP = round(100 * CORNER_HEIGHT / (9 + 2 * CORNER_HEIGHT), 2)  # % of its height

STYLE = (
    """
<style>
.am-wrap{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#111;display:flex;flex-direction:column;gap:12px;
  line-height:1.15;white-space:normal}
.am-board-box{container:am-board/inline-size;width:100%;min-width:0}
.am-board{--am-font:clamp(11px,1.15cqw,26px);--am-pawn:max(28px,calc(var(--am-font)*2));
  display:grid;grid-template-columns:@CW@fr repeat(9,minmax(0,1fr)) @CW@fr;
  grid-template-rows:@CH@fr repeat(9,minmax(0,1fr)) @CH@fr;gap:2px;width:100%;aspect-ratio:3/2;
  max-height:var(--am-board-max-height,none);box-sizing:border-box;background:#d9e4d2;padding:3px;border-radius:6px;
  font-size:var(--am-font);line-height:1.15}
.am-space{background:#fff;border:1px solid #888;padding:2px;position:relative;min-width:0;min-height:0;
  overflow-wrap:normal;word-break:normal;hyphens:manual;display:flex;flex-direction:column}
.am-space.am-is-mortgaged{background:repeating-linear-gradient(135deg,#fff 0 6px,#e4e4e4 6px 12px)}
.am-band{flex:0 0 auto;height:max(6px,0.45em);margin:-2px -2px 2px -2px}
.am-left .am-band,.am-right .am-band{position:absolute;top:0;bottom:0;width:max(6px,0.45em);height:auto;margin:0}
.am-left .am-band{right:0}.am-right .am-band{left:0}
.am-left{padding-right:calc(max(6px,0.45em) + 2px)}.am-right{padding-left:calc(max(6px,0.45em) + 2px)}
.am-name{overflow:hidden;flex:0 0 auto}
.am-short{display:none}
@container am-board (max-width:1150px){.am-board.am-fit .am-long{display:none}.am-board.am-fit .am-short{display:inline}}
.am-marks{display:flex;flex-wrap:nowrap;gap:0 0.25em;align-items:center;margin-top:auto;min-width:0}
.am-marks>*{flex:0 0 auto}.am-marks>.am-owner{flex:0 1 auto;min-width:0}
.am-owner{display:inline-block;border:1px solid;border-radius:3px;padding:0 2px;font-weight:700;
  max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;background:#fff}
.am-build{color:#8a4b00;font-weight:800;white-space:nowrap}
.am-house{font-size:1.25em;line-height:1}
.am-apt{background:#8a4b00;color:#fff;font-weight:800;border-radius:3px;padding:0 2px}
.am-mortgaged{color:#b00020;font-weight:700}
.am-price{color:#333}
.am-pawns{position:absolute;display:flex;z-index:2;pointer-events:auto}
.am-bottom .am-pawns{bottom:calc(100% + 3px);left:0;right:0;justify-content:center}
.am-top .am-pawns{top:calc(100% + 3px);left:0;right:0;justify-content:center}
.am-left .am-pawns{left:calc(100% + 3px);top:50%;transform:translateY(-50%)}
.am-right .am-pawns{right:calc(100% + 3px);top:50%;transform:translateY(-50%);flex-direction:row-reverse}
.am-corner .am-pawns{flex-wrap:wrap-reverse;left:2px;right:2px;bottom:2px;max-width:none;align-items:flex-end}
.am-corner-0 .am-pawns,.am-corner-30 .am-pawns{justify-content:flex-start;padding-left:calc(var(--am-pawn)*0.15)}
.am-corner-10 .am-pawns,.am-corner-20 .am-pawns{flex-direction:row-reverse;justify-content:flex-start;
  padding-right:calc(var(--am-pawn)*0.15)}
.am-pawn{display:inline-flex;align-items:center;justify-content:center;flex:0 0 auto;width:var(--am-pawn,16px);height:var(--am-pawn,16px);
  color:#fff;font-size:calc(var(--am-pawn,16px)*0.6);font-weight:800;margin:1px;box-shadow:0 1px 3px rgba(0,0,0,.45);position:relative}
.am-pawns .am-pawn+.am-pawn{margin-left:calc(var(--am-pawn)*-0.3)}
.am-right .am-pawns .am-pawn+.am-pawn{margin-left:1px;margin-right:calc(var(--am-pawn)*-0.3)}
.am-corner .am-pawns .am-pawn+.am-pawn{margin-left:calc(var(--am-pawn)*-0.15)}
.am-corner-10 .am-pawns .am-pawn+.am-pawn,.am-corner-20 .am-pawns .am-pawn+.am-pawn{margin-left:1px;margin-right:calc(var(--am-pawn)*-0.15)}
.am-pawn.am-to-move{box-shadow:0 0 0 3px #fff,0 0 0 6px @HIGHLIGHT@;z-index:3}
.am-centre{grid-row:2/11;grid-column:2/11;display:flex;flex-direction:column;align-items:center;justify-content:center;
  text-align:center;gap:6px;padding:calc(var(--am-pawn) + 8px)}
.am-title{font-size:1.6em;font-weight:700;letter-spacing:1px}
.am-centre-legend{background:#fff;border-radius:4px;padding:1px 6px}
.am-players{border-collapse:collapse;font-size:14px}
.am-players th,.am-players td{border-bottom:1px solid #ccc;padding:3px 8px;text-align:right}
.am-players th:first-child,.am-players td:first-child,.am-players td:nth-child(2){text-align:left;white-space:nowrap}
.am-info{display:inline-block;width:1.1em;height:1.1em;line-height:1.1em;border-radius:50%;border:1px solid currentColor;text-align:center;font-size:0.8em;font-weight:700;cursor:help}
.am-players .am-pawn{--am-pawn:20px}
.am-players tr.am-to-move td{background:#fff4dc}
.am-cards{display:flex;flex-direction:column;gap:4px;font-size:var(--am-ui-font,16px);line-height:1.25}
.am-card{background:#fff;border:1px solid #bbb;border-left:6px solid #bbb;border-radius:6px;padding:3px 8px;
  display:grid;grid-template-columns:auto 1fr auto;column-gap:8px;align-items:center;line-height:1.2}
.am-card.am-to-move{border-color:@HIGHLIGHT@;border-left-color:@HIGHLIGHT@;background:#fff8e6;box-shadow:0 0 0 2px @HIGHLIGHT@}
.am-card .am-pawn{--am-pawn:max(28px,1.6em);grid-row:1/3}
.am-card-name{font-weight:700;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.am-card-cash{font-weight:800;text-align:right;white-space:nowrap}
.am-card-more{grid-column:2/4;font-size:max(14px,0.8em);color:#333;display:flex;flex-wrap:wrap;gap:0 0.8em}
.am-card-titles{grid-column:1/4;font-size:max(14px,0.75em);color:#333;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
.am-card-status{color:#b00020;font-weight:700}
.am-note{font-size:max(14px,0.75em);color:#444}
.am-card-list{display:flex;flex-direction:column;gap:4px}
@container am-board (max-width:700px){
  .am-board-box .am-board{display:flex;flex-direction:column;aspect-ratio:auto;max-height:none;font-size:16px}
  .am-board .am-space{flex-direction:row;align-items:center;gap:0 0.5em;padding:2px 4px;min-height:calc(var(--am-pawn) + 4px)}
  .am-board .am-band,.am-board .am-left .am-band,.am-board .am-right .am-band{position:static;flex:0 0 auto;width:10px;height:auto;
    align-self:stretch;margin:-2px 0 -2px -4px}
  .am-board .am-name{flex:1 1 auto;white-space:normal}
  .am-board.am-fit .am-long{display:inline}.am-board.am-fit .am-short{display:none}
  .am-board .am-marks{margin-top:0}
  .am-board .am-pawns,.am-board .am-corner .am-pawns{position:static;transform:none;flex-direction:row;max-width:none}
  .am-board .am-centre{display:none}
}
.am-sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);
  white-space:nowrap;border:0}
</style>
""".replace("@CW@", str(CORNER_WIDTH))
    .replace("@CH@", str(CORNER_HEIGHT))
    .replace("@HIGHLIGHT@", HIGHLIGHT_COLOUR)
) + PAWN_STYLE

GAME_B_SCORE = "Game B score"
GAME_B_SHORT = "Game B score: cash + one landing's rent on each unmortgaged title."
GAME_B_EXPLAINED = (
    "Game B score: cash plus the rent that every unmortgaged title would collect on one "
    "landing now. In Game B, once one role is out, the player with the highest score wins."
)


def _status(game: Game, player: int) -> str:
    if game.bankrupt[player]:
        return "bankrupt"
    return f"in {HOLD_NAMES[game.roles[player]]}" if game.is_held(player) else ""


def _mover(game: Game) -> int:
    return -1 if game.over else game.actor


def players_table_html(game: Game) -> Markup:
    """Every player in a table row: role, cash, net worth, Game B score, titles, status."""
    mover = _mover(game)
    rows = []
    for p in range(len(game.names)):
        role = game.roles[p]
        titles = ", ".join(game.board.spaces[s].name for s in game.titles_of(p)) or "none"
        rows.append(
            html_text(
                '<tr class="{moving}"><td>{pawn} {name}</td>'
                '<td style="color:{colour}">{shape} {label}</td>'
                "<td>{cash}</td><td>{worth}</td><td>{wealth}</td>"
                '<td style="text-align:left">{titles}</td><td>{status}</td></tr>',
                moving="am-to-move" if p == mover else "",
                pawn=pawn_html(game, p, p == mover),
                name=game.names[p],
                colour=ROLE_COLOURS[role],
                shape=ROLE_SHAPES[role],
                label=ROLE_LABELS[role],
                cash=_money(game.cash[p]),
                worth=_money(game.wealth(p)["net_worth"]),
                wealth=_money(game.rule25_wealth(p)),
                titles=titles,
                status=_status(game, p),
            )
        )
    return html_text(
        '<table class="am-players"><thead><tr><th>Player</th><th>Role</th><th>Cash</th>'
        '<th>Net worth</th><th title="{}">{} <span class="am-info">?</span></th><th>Titles</th><th>Status</th></tr></thead>'
        "<tbody>{}</tbody></table>",
        GAME_B_EXPLAINED,
        GAME_B_SCORE,
        html_join(rows),
    )


def players_panel_html(game: Game) -> Markup:
    """The players as cards, for beside the board: pawn, name, role, cash (large), net worth,
    Game B score (explained once underneath), titles and status; the player to move is
    highlighted as on the board. Then the Treasury's supply of buildings."""
    mover = _mover(game)
    cards = []
    for p in range(len(game.names)):
        role = game.roles[p]
        titles = [game.board.spaces[s].name for s in game.titles_of(p)]
        listed = ", ".join(titles)
        cards.append(
            html_text(
                '<div class="am-card{moving}" role="listitem" style="border-left-color:{colour}" '
                'data-player="{seat}">'
                "{pawn}"
                '<div class="am-card-name">{name} <span style="color:{colour};font-weight:600">'
                "{shape}\u00a0{label}</span>{status}</div>"
                '<div class="am-card-cash" title="cash">{cash}</div>'
                '<div class="am-card-more"><span>net worth {worth}</span>'
                '<span title="{explained}">{score_name} {score}</span></div>'
                '<div class="am-card-titles" title="{listed}">{titles}</div></div>',
                moving=" am-to-move" if p == mover else "",
                colour=ROLE_COLOURS[role],
                seat=p,
                pawn=pawn_html(game, p, p == mover),
                name=game.names[p],
                shape=ROLE_SHAPES[role],
                label=ROLE_LABELS[role],
                status=html_text(' <span class="am-card-status">{}</span>', _status(game, p))
                if _status(game, p)
                else "",
                cash=_money(game.cash[p]),
                worth=_money(game.wealth(p)["net_worth"]),
                explained=GAME_B_EXPLAINED,
                score_name=GAME_B_SCORE,
                score=_money(game.rule25_wealth(p)),
                listed=listed,
                titles=(
                    f"{len(titles)} title{'s' if len(titles) != 1 else ''}: {listed}"
                    if titles
                    else "no titles"
                ),
            )
        )
    return html_text(
        '<div class="am-cards"><div class="am-card-list" role="list" aria-label="Players">{}</div>'
        '<div class="am-note" title="{}">{}</div>'
        '<div class="am-note">Treasury supply: {} houses, {} apartments</div></div>',
        html_join(cards),
        GAME_B_EXPLAINED,
        GAME_B_SHORT,
        game.state.supply_houses,
        game.state.supply_apartments,
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


BOARD_LABEL = "The board: 40 spaces in play order, from START"


def board_html(
    game: Game, with_players: bool = True, centre: bool = True, fit: bool = True
) -> Markup:
    """The whole board with pawns, owners, buildings and mortgages, and the players table.

    The board fills the width it is given, and its type grows with it. `centre=False` leaves
    the middle empty for a panel laid over it (the classroom app's decisions and players);
    `fit=True` switches to the short names of `SHORT_NAMES` on a narrow board, so a name is
    never cut. The player to move has a gold ring.

    For a screen reader the board is a list of its 40 spaces in play order, each read as one
    sentence (`space_words`); the space of the player to move is the current location. The
    centre repeats what the page says elsewhere, so it is read once, after the list."""
    mover = _mover(game)
    middle = after = ""
    if centre:
        if game.over:
            status = "Game over"
            if game.winner is not None:
                status += f": {game.names[game.winner]} wins"
        else:
            status = f"Round {game.round}: {game.names[game.actor]} to decide"
        middle = html_text(
            '<div class="am-centre" aria-hidden="true"><div class="am-title">ANTI-MONOPOLY</div>'
            "<div>{status}</div>"
            '<div class="am-centre-legend">{legend}</div>'
            "<div>Treasury supply: {houses} houses, {apartments} apartments</div></div>",
            status=status,
            legend=role_legend(),
            houses=game.state.supply_houses,
            apartments=game.state.supply_apartments,
        )
        after = html_text(
            '<p class="am-sr-only">{}. Treasury supply: {} houses, {} apartments.</p>',
            status,
            game.state.supply_houses,
            game.state.supply_apartments,
        )
    return html_text(
        '{style}<div class="am-wrap"><div class="am-board-box"><div class="am-board{fit}" '
        'lang="en" role="list" aria-label="{label}">{spaces}{middle}</div>{after}</div>'
        "{side}</div>",
        style=Markup(STYLE),
        label=BOARD_LABEL,
        after=after,
        fit=" am-fit" if fit else "",
        spaces=Markup("".join(_space_html(game, i, mover) for i in range(len(game.board.spaces)))),
        middle=middle,
        side=players_table_html(game) if with_players else "",
    )


def qr_code_html(text: str, scale: int = 6) -> Markup:
    """`text` (a join link) as a QR code in inline SVG, for phones to scan off a projector.
    segno draws the code as paths only, so no text from `text` reaches the HTML."""
    import segno

    return Markup(segno.make(text, error="m").svg_inline(scale=scale, dark="#111", light="#fff"))


# -- the phone view of class play ----------------------------------------------------------------
# At 390 px the ring's type would be 11 px, so a phone shows the game as lists instead: the
# spaces a throw can reach from the student's pawn (who owns them, what is built, who stands
# there) and every player with where they stand. Type of 16 px and more; names wrap between
# words (or inside a word too long for the line), never cut, never past the right edge.
# the choices that have a panel of their own (a title to pick first)
TITLE_ACTIONS = ("build", "sell_building", "mortgage", "redeem")
# what the player to move is deciding, in words (by the engine's phase)
PHASE_WORDS = {
    "pre_roll": "before the throw",
    "post_roll": "after the throw",
    "buy": "buy or not",
    "income_tax": "income tax",
    "raise": "raise money to pay a debt",
    "trade_answer": "answer a trade offer",
    "final_adjust": "the final accounting",
}
REACH = 12  # the most one throw of two dice moves a pawn

PHONE_STYLE = (
    """
<style>
.am-phone{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#111;font-size:17px;line-height:1.3;
  display:flex;flex-direction:column;gap:6px;min-width:0;max-width:100%;overflow-wrap:break-word;white-space:normal}
.am-phone h2{font-size:18px;margin:8px 0 2px;font-weight:700}
.am-phone ul{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:3px}
.am-phone li{display:grid;align-items:center;column-gap:8px;background:#fff;border:1px solid #bbb;border-radius:6px;
  padding:4px 6px;min-width:0}
.am-phone .am-pawn{--am-pawn:34px;display:inline-flex;align-items:center;justify-content:center;flex:0 0 auto;
  width:var(--am-pawn);height:var(--am-pawn);color:#fff;font-size:16px;font-weight:800;margin:1px;position:relative}
.am-ph-space{grid-template-columns:max-content 6px minmax(0,1fr) auto}
.am-ph-space.am-ph-here{border:2px solid @HIGHLIGHT@;background:#fff8e6}
.am-ph-steps{font-weight:700;color:#333;text-align:right;grid-row:1/3;min-width:2.2em;white-space:nowrap}
.am-ph-band{align-self:stretch;border-radius:2px;background:transparent;min-height:1.3em}
.am-ph-space .am-ph-band{grid-row:1/3}
.am-ph-name{min-width:0}
.am-ph-what{display:flex;flex-wrap:wrap;gap:0 8px;min-width:0}
.am-ph-space .am-ph-what{grid-column:3/5}
.am-ph-what:empty{display:none}
.am-ph-pawns{grid-row:1;grid-column:4/5;display:flex;flex-wrap:wrap;justify-content:flex-end;max-width:120px}
.am-ph-owner{font-weight:700}
.am-ph-price{color:#333}
.am-ph-mortgaged{color:#b00020;font-weight:700}
.am-ph-build{color:#8a4b00;font-weight:700}
.am-ph-player{grid-template-columns:auto minmax(0,1fr) auto}
.am-ph-player .am-pawn{grid-row:1/3}
.am-ph-player.am-to-move{border:2px solid @HIGHLIGHT@;background:#fff8e6}
.am-ph-who{grid-column:2/4;min-width:0}
.am-ph-cash{grid-column:3/4;grid-row:2;align-self:start;font-weight:800;text-align:right;white-space:nowrap}
.am-ph-where{grid-column:2/3;grid-row:2;min-width:0}
.am-ph-held{color:#b00020;font-weight:700}
.am-ph-mine{font-size:17px}
.am-ph-mine .am-ph-big{font-size:22px;font-weight:800}
.am-ph-titles li{grid-template-columns:6px minmax(0,1fr) auto}
</style>
""".replace("@HIGHLIGHT@", HIGHLIGHT_COLOUR)
    + PAWN_STYLE
)


def _city_colour(game: Game, index: int) -> str:
    space = game.board.spaces[index]
    return CITY_COLOURS.get(space.city, "#999") if space.kind == "street" else "transparent"


def _holding(game: Game, index: int) -> list[Markup]:
    """What is on a title: its owner (their role's shape and name), buildings, a mortgage; or
    its price while the Treasury holds it."""
    space = game.board.spaces[index]
    owner = game.owner[index]
    if owner < 0:
        if space.is_title:
            return [html_text('<span class="am-ph-price">{} for sale</span>', _money(space.price))]
        return []
    role = game.roles[owner]
    marks = [
        html_text(
            '<span class="am-ph-owner" style="color:{}">{}\u00a0{}\'s</span>',
            ROLE_COLOURS[role],
            ROLE_SHAPES[role],
            game.names[owner],
        )
    ]
    if game.apartment[index]:
        marks.append(html_text('<span class="am-ph-build">an apartment</span>'))
    elif game.houses[index]:
        count = game.houses[index]
        marks.append(
            html_text(
                '<span class="am-ph-build">{}</span>',
                "a house" if count == 1 else f"{count} houses",
            )
        )
    if game.mortgaged[index]:
        marks.append(html_text('<span class="am-ph-mortgaged">mortgaged</span>'))
    return marks


def phone_reach_html(game: Game, seat: int) -> Markup:
    """The spaces from `seat`'s pawn to as far as one throw can take it, in order of play: each
    with its name, how many steps away, who owns it (and what is built) or its price, and the
    pawns on it."""
    spaces = len(game.board.spaces)
    start = game.position[seat]
    mover = _mover(game)
    rows = []
    for steps in range(REACH + 1):
        index = (start + steps) % spaces
        pawns = [
            pawn_html(game, p, p == mover)
            for p in range(len(game.names))
            if not game.bankrupt[p] and game.position[p] == index
        ]
        rows.append(
            html_text(
                '<li class="am-ph-space{here}" data-space="{index}">'
                '<span class="am-ph-steps">{steps}</span>'
                '<span class="am-ph-band" style="background:{band}"></span>'
                '<span class="am-ph-name">{name}</span><span class="am-ph-pawns">{pawns}</span>'
                '<span class="am-ph-what">{what}</span></li>',
                here=" am-ph-here" if steps == 0 else "",
                index=index,
                steps="here" if steps == 0 else f"+{steps}",
                band=_city_colour(game, index),
                name=game.board.spaces[index].name,
                pawns=html_join(pawns),
                what=html_join(_holding(game, index), " "),
            )
        )
    return html_text(
        '<section class="am-ph-reach" aria-label="Around your pawn"><h2>Around your pawn</h2>'
        '<ul aria-label="The spaces one throw can reach">{}</ul></section>',
        html_join(rows),
    )


def phone_players_html(game: Game, seat: int | None = None) -> Markup:
    """Every player: pawn, name, role, cash, where they stand (and whose that space is), how
    many titles, held or bankrupt. The player to move is highlighted; `seat` is "you"."""
    mover = _mover(game)
    rows = []
    for p in range(len(game.names)):
        role = game.roles[p]
        where = game.position[p]
        owner = game.owner[where]
        if game.bankrupt[p]:
            place = html_text('<span class="am-ph-held">bankrupt</span>')
        else:
            whose = ""
            if owner >= 0:
                whose = " (yours)" if owner == seat else f" ({game.names[owner]}'s)"
            place = html_text("on {}{}", game.board.spaces[where].name, whose)
            if game.is_held(p):
                place = html_text(
                    '{} <span class="am-ph-held">held in {}</span>',
                    place,
                    HOLD_NAMES[game.roles[p]],
                )
        count = len(game.titles_of(p))
        rows.append(
            html_text(
                '<li class="am-ph-player{moving}" data-player="{p}">{pawn}'
                '<span class="am-ph-who"><b>{name}</b>{you} '
                '<span style="color:{colour};font-weight:600">{shape}\u00a0{label}</span></span>'
                '<span class="am-ph-cash">{cash}</span>'
                '<span class="am-ph-where">{place} · {titles}</span></li>',
                moving=" am-to-move" if p == mover else "",
                p=p,
                pawn=pawn_html(game, p, p == mover),
                name=game.names[p],
                you=" (you)" if p == seat else "",
                colour=ROLE_COLOURS[role],
                shape=ROLE_SHAPES[role],
                label=ROLE_LABELS[role],
                cash=_money(game.cash[p]),
                place=place,
                titles="no titles" if not count else f"{count} title{'s' if count > 1 else ''}",
            )
        )
    return html_text(
        '<section class="am-ph-players" aria-label="Players"><h2>Players</h2><ul>{}</ul></section>',
        html_join(rows),
    )


def phone_mine_html(game: Game, seat: int) -> Markup:
    """A student's own cash and titles, each title with its city's colour, buildings and
    mortgage."""
    titles = [
        html_text(
            '<li><span class="am-ph-band" style="background:{}"></span><span>{}</span>'
            '<span class="am-ph-what">{}</span></li>',
            _city_colour(game, index),
            game.board.spaces[index].name,
            html_join(_holding(game, index)[1:], " "),
        )
        for index in game.titles_of(seat)
    ]
    listed = (
        html_text('<ul class="am-ph-titles">{}</ul>', html_join(titles))
        if titles
        else html_text("<div>No titles yet.</div>")
    )
    return html_text(
        '{style}<section class="am-phone am-ph-mine" aria-label="Your cash and titles">'
        '<h2>Your cash and titles</h2><div>Cash <span class="am-ph-big">{cash}</span> · '
        "net worth {worth}</div>{listed}</section>",
        style=Markup(PHONE_STYLE),
        cash=_money(game.cash[seat]),
        worth=_money(game.wealth(seat)["net_worth"]),
        listed=listed,
    )


def phone_html(*parts: Markup) -> Markup:
    """Parts of the phone view (`phone_reach_html`, `phone_players_html`) with their style."""
    return html_text('{}<div class="am-phone">{}</div>', Markup(PHONE_STYLE), html_join(parts))


def show_games_as_boards() -> bool:
    """In a running IPython kernel, display a `Game` as its board (IPython's HTML formatter for
    the type), so the engine draws nothing and imports nothing above itself. `import amteach`
    calls this. False when no IPython shell is running (a script, a batch worker)."""
    ipython = sys.modules.get("IPython")  # not imported: no shell runs (and none is loaded)
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return False
    from .engine.game import Game

    shell.display_formatter.formatters["text/html"].for_type(Game, board_html)
    return True
