"""Returns on titles, by role: what a title costs, what it earns, and how long it takes to pay.

For every title (street, transport company, utility), for each owner role and each building
level, `title_returns` reports the price, one landing's rent, the expected rent per opponent
throw and the payback in rounds for 2 to 6 players. Nothing here knows a rent or a price: each
level is a real position set up in the engine (a `Game` whose owner holds the titles and
buildings), and the rent, the cost of the buildings and whether a city is monopolized are
the engine's answers. The landing odds come from `amteach.analysis.landing`.

**Holdings.** Some rents need more than one title. A Monopolist charges the monopoly rent, and
may build, only in a monopolized city (rule 10, decision 5); a Monopolist's fares and utility
multipliers grow with the number of companies owned (rules 19 and 20). Each row therefore
describes a *holding*: the titles the owner holds for that rent, named in the ``holding``
column. For a Monopolist's city rows the holding is this street plus the cheapest other
streets of the city the engine needs to call the city monopolized (one more street under the
default rules; the extra streets stay bare, since buildings may stand on any street of a
monopolized city, decision 6). For "2 owned" (and more) companies the holding adds the
cheapest other companies of the same kind. The holding's cost (``invested``) includes every
title in it, and its income includes the rent every title in it earns: buying a city or a
line of companies is one investment, and its payback needs both its whole cost and its whole
income.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..engine.board import COMPETITOR, MONOPOLIST, ROLES, Board, standard_board
from ..engine.errors import InputError, ScenarioError
from ..engine.game import Game, PlayerSetup, Setup, TitleSetup
from ..engine.rules import RuleSet
from ..style import ROLE_COLOURS, ROLE_LABELS, ROLE_SYMBOLS, chart_layout
from .landing import DICE, POLICIES, landing_odds

# the issue asks for paybacks at every table size decision 13 allows
PLAYER_COUNTS = (2, 3, 4, 5, 6)
TITLE_ONLY = "title only"
MONOPOLIZED = "monopolized city"
APARTMENT = "apartment"
FULL_BUILD = "full build"

COLUMNS = (
    "space",
    "name",
    "kind",
    "city",
    "price",
    "owner_role",
    "level",
    "level_order",
    "full_build",
    "holding",
    "invested",
    "rent",
    "holding_rent",
    "lander_role",
    "landing_per_throw",
    "expected_rent_per_throw",
    "holding_rent_per_throw",
    "players",
    "opponent_competitors",
    "opponent_monopolists",
    "rent_per_round",
    "payback_rounds",
)

# marker variants of the role's shape: open = bare title, x = monopolized city, filled = full
_LEVEL_MARKERS = {TITLE_ONLY: "-open", MONOPOLIZED: "-x-open", FULL_BUILD: ""}
# payback ticks on the log axis: round numbers a student reads at a glance
_ROUND_TICKS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)


@dataclass(frozen=True)
class _Level:
    """One row before the player counts: a title held at one level, as the engine prices it."""

    space: int
    owner: int
    level: str
    level_order: int
    holding: tuple[int, ...]
    invested: int
    rents: dict[int, float]  # rent of one landing on each title of the holding


def _dice_mean() -> int | float:
    """The expected total of two dice, from the dice themselves (7 for two six-sided dice)."""
    mean = Fraction(sum(a + b for a, b in DICE), len(DICE))
    return int(mean) if mean.denominator == 1 else float(mean)


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise InputError(
            f"policy must be one of {', '.join(POLICIES)}, not {policy!r}", field="policy"
        )


def _position(
    owner: int, held: dict[int, tuple[int, bool]], rules: RuleSet, board: Board
) -> Game | None:
    """A game in which seat 0 (of role `owner`) holds the titles in `held` (space -> (houses,
    apartment)) and seat 1 is an opponent of the other role; None if the engine refuses it
    (a Monopolist may only build in a monopolized city, decision 5)."""
    titles = tuple(
        TitleSetup(space, houses=houses, apartment=apartment)
        for space, (houses, apartment) in sorted(held.items())
    )
    setup = Setup(
        players=(
            PlayerSetup("owner", owner, titles=titles),
            PlayerSetup("opponent", 1 - owner),
        ),
        # the supply limits how many buildings stand on the board, not what they earn
        rules=rules.replace(building_supply="unlimited"),
        seed=0,
    )
    try:
        return Game(setup, board)
    except ScenarioError:
        return None


def _priced(
    space: int, owner: int, level: str, order: int, game: Game, dice: int | float
) -> _Level:
    holding = tuple(game.titles_of(0))
    invested = sum(game.board.spaces[s].price + game.building(s).paid for s in holding)
    rents = {s: game.rent_for(s, dice)[0] for s in holding}
    return _Level(space, owner, level, order, holding, invested, rents)


def _cheapest_others(space: int, group: Sequence[int], board: Board) -> list[int]:
    """The other titles of a city or a kind of company, cheapest first (then in board order)."""
    return sorted((s for s in group if s != space), key=lambda s: (board.spaces[s].price, s))


def _street_levels(
    space: int, owner: int, rules: RuleSet, board: Board, dice: int | float, apartment_order: int
) -> list[_Level]:
    """Title only, then (for a Monopolist) the monopolized city, then each house and the
    apartment, as far as the engine lets this owner build."""
    sp = board.spaces[space]
    levels = []
    bare = _position(owner, {space: (0, False)}, rules, board)
    assert bare is not None  # a bare title is always a legal holding
    levels.append(_priced(space, owner, TITLE_ONLY, 0, bare, dice))
    held: dict[int, tuple[int, bool]] = {space: (0, False)}
    game = bare
    if owner == MONOPOLIST:
        # add the cheapest other streets until the engine calls the city monopolized
        for other in _cheapest_others(space, board.cities[sp.city], board):
            if game.is_monopolized(0, sp.city):
                break
            held[other] = (0, False)
            game = _position(owner, held, rules, board)
            assert game is not None
        if not game.is_monopolized(0, sp.city):
            return levels  # this city can never be monopolized under these rules
        levels.append(_priced(space, owner, MONOPOLIZED, 1, game, dice))
    houses = 0
    while game.building(space).next == "house":
        houses += 1
        held[space] = (houses, False)
        built = _position(owner, held, rules, board)
        if built is None:
            return levels
        game = built
        label = f"{houses} house" + ("s" if houses > 1 else "")
        levels.append(_priced(space, owner, label, 1 + houses, game, dice))
    held[space] = (0, True)
    built = _position(owner, held, rules, board)
    if built is not None:
        levels.append(_priced(space, owner, APARTMENT, apartment_order, built, dice))
    return levels


def _company_levels(
    space: int, owner: int, rules: RuleSet, board: Board, dice: int | float
) -> list[_Level]:
    """This transport company or utility alone, then with 1, 2, ... more of its kind."""
    group = board.transports if board.spaces[space].kind == "transport" else board.utilities
    held = [space]
    levels = []
    for extra in [None, *_cheapest_others(space, group, board)]:
        if extra is not None:
            held.append(extra)
        game = _position(owner, dict.fromkeys(held, (0, False)), rules, board)
        assert game is not None
        count = len(held)
        label = TITLE_ONLY if count == 1 else f"{count} owned"
        levels.append(_priced(space, owner, label, count - 1, game, dice))
    return levels


def _role_splits(players: int, owner: int, rules: RuleSet, board: Board) -> list[tuple[int, int]]:
    """The opponents (competitors, monopolists) the owner can face at a table of `players`,
    one pair per seating of roles the engine accepts (decision 13)."""
    splits = []
    for competitors in range(players + 1):
        roles = [COMPETITOR] * competitors + [MONOPOLIST] * (players - competitors)
        if owner not in roles:
            continue
        seats = tuple(PlayerSetup(f"P{i}", role) for i, role in enumerate(roles))
        try:
            Game(Setup(players=seats, rules=rules, seed=0), board)
        except ScenarioError:
            continue
        opponents = [competitors, players - competitors]
        opponents[owner] -= 1
        splits.append((opponents[0], opponents[1]))
    return splits


def title_returns(
    rules: RuleSet | str | None = None, board: Board | None = None, policy: str = "pay"
) -> pd.DataFrame:
    """Price, rent and payback of every title, for each owner role and building level.

    One row per title, owner role, level and number of players (2 to 6). Columns:

    - ``space``, ``name``, ``kind`` (street, transport, utility), ``city`` (streets only),
      ``price``: the title, from the board.
    - ``owner_role``: "competitor" or "monopolist".
    - ``level``: "title only"; for a Monopolist's street, "monopolized city" (the street bare,
      with the other street(s) the monopoly needs); "1 house" ... up to the role's maximum;
      "apartment". For transport companies and utilities, "title only", then "2 owned", ...
      ``level_order`` sorts the levels the same way for both roles (the apartment always
      comes last); ``full_build`` marks each title's highest level (the apartment, or every
      company of the kind owned).
    - ``holding``: the titles held for this rent (see the module's notes); ``invested``: what
      the holding costs, the price of every title in it plus the buildings at this level. For
      a Monopolist's city rows the other streets' prices *are* included.
    - ``rent``: one landing's rent on this title, from the engine. A utility's rent uses the
      expected total of two dice (7). That is a close estimate: the throws that reach a
      utility are not quite average throws.
    - ``holding_rent``: one landing's rent on each title of the holding, added up (for a
      Monopolist's "monopolized city" row of Rush St.: $28 on Rush St. and $28 on State St.).
      It sits beside ``invested``, which also counts every title held: a row that shows the
      holding's cost beside one title's rent would make the payback look wrong.
    - ``lander_role``: the other role; ``landing_per_throw``: that opponent's expected landings
      on this title per throw (landing odds with the Prison / Price War `policy`, "pay" or
      "doubles"); ``expected_rent_per_throw`` = landing_per_throw x rent.
    - ``holding_rent_per_throw``: the same for the whole holding (the sum over its titles).
    - ``players``: 2 to 6. ``opponent_competitors`` and ``opponent_monopolists``: how many
      opponents of each role the owner faces when roles are split as decision 13 requires.
      Both roles pay rent, each with its own landing odds and throws per turn. With an odd
      number of players either role may have the extra seat; both seatings count as equally
      likely, so these are averages (3 players: a Competitor faces 0.5 Competitors and 1.5
      Monopolists).
    - ``rent_per_round``: the holding's expected rent in one round (every opponent takes one
      turn): the sum over the opponents of throws per turn x the holding's rent per throw.
    - ``payback_rounds`` = invested / rent_per_round: the rounds until the rent has repaid
      the holding's cost (infinite if it earns nothing).

    Simplifications, stated for students: the owner is never held in Prison (a Monopolist in
    Prison collects no rent, decision 3, so a Monopolist's real payback is a little longer);
    every opponent stays in the game; and income tax on what the title adds is ignored.
    """
    rules = RuleSet.coerce(rules)
    board = standard_board() if board is None else board
    _check_policy(policy)
    dice = _dice_mean()
    odds = {role: landing_odds(role, policy, rules, board) for role in (COMPETITOR, MONOPOLIST)}
    apartment_order = 2 + max(rules.max_houses(role) for role in (COMPETITOR, MONOPOLIST))

    levels: list[_Level] = []
    for space in board.titles:
        for owner in (COMPETITOR, MONOPOLIST):
            if board.spaces[space].kind == "street":
                levels += _street_levels(space, owner, rules, board, dice, apartment_order)
            else:
                levels += _company_levels(space, owner, rules, board, dice)
    top = {}
    for level in levels:
        key = (level.space, level.owner)
        top[key] = max(top.get(key, -1), level.level_order)
    splits = {
        (n, owner): _role_splits(n, owner, rules, board)
        for n in PLAYER_COUNTS
        for owner in (COMPETITOR, MONOPOLIST)
    }

    rows = []
    for level in levels:
        sp = board.spaces[level.space]
        lander = 1 - level.owner
        rent = level.rents[level.space]
        landing = float(odds[lander].arrivals[level.space])
        per_throw = {
            role: sum(float(odds[role].arrivals[s]) * r for s, r in level.rents.items())
            for role in (COMPETITOR, MONOPOLIST)
        }
        base = {
            "space": sp.index,
            "name": sp.name,
            "kind": sp.kind,
            "city": sp.city or None,
            "price": sp.price,
            "owner_role": ROLES[level.owner],
            "level": level.level,
            "level_order": level.level_order,
            "full_build": level.level_order == top[(level.space, level.owner)],
            "holding": " + ".join(board.spaces[s].name for s in level.holding),
            "invested": level.invested,
            "rent": rent,
            "holding_rent": sum(level.rents.values()),
            "lander_role": ROLES[lander],
            "landing_per_throw": landing,
            "expected_rent_per_throw": landing * rent,
            "holding_rent_per_throw": per_throw[lander],
        }
        for n in PLAYER_COUNTS:
            seatings = splits[(n, level.owner)]
            opponents = [sum(s[role] for s in seatings) / len(seatings) for role in (0, 1)]
            per_round = sum(
                opponents[role] * odds[role].throws_per_turn * per_throw[role]
                for role in (COMPETITOR, MONOPOLIST)
            )
            rows.append(
                {
                    **base,
                    "players": n,
                    "opponent_competitors": opponents[COMPETITOR],
                    "opponent_monopolists": opponents[MONOPOLIST],
                    "rent_per_round": per_round,
                    "payback_rounds": level.invested / per_round if per_round > 0 else math.inf,
                }
            )
    return pd.DataFrame(rows, columns=list(COLUMNS))


# -- the chart and its reading ------------------------------------------------------------------


def _check_frame(frame: Any, needed: Sequence[str] = COLUMNS) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise InputError(
            f"frame must be the DataFrame title_returns() returns, not {type(frame).__name__}",
            field="frame",
        )
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise InputError(
            f"frame lacks the column(s) {', '.join(missing)}; pass what title_returns() returns",
            field="frame",
        )


def _owner_roles(owner_role: str | None) -> list[int]:
    if owner_role is None:
        return [COMPETITOR, MONOPOLIST]
    text = str(owner_role).strip().lower()
    if text not in ROLES:
        raise InputError(
            f"owner_role must be 'competitor', 'monopolist' or None (both), not {owner_role!r}",
            field="owner_role",
        )
    return [ROLES.index(text)]


def _at_players(frame: pd.DataFrame, players: int) -> pd.DataFrame:
    counts = sorted(int(n) for n in frame["players"].unique())
    if isinstance(players, bool) or players not in counts:
        raise InputError(
            f"players must be one of {', '.join(map(str, counts))}, not {players!r}",
            field="players",
        )
    return frame[frame["players"] == players]


def _pick_level(rows: pd.DataFrame, level: str) -> pd.DataFrame:
    """Rows of one level; "full build" picks each title's highest level."""
    return rows[rows["full_build"]] if level == FULL_BUILD else rows[rows["level"] == level]


def _level_name(level: str) -> str:
    if level == FULL_BUILD:
        return "full build (apartment, or every company of the kind)"
    return level


def returns_figure(
    frame: pd.DataFrame,
    players: int = 4,
    owner_role: str | None = None,
    levels: Sequence[str] = (TITLE_ONLY, MONOPOLIZED, FULL_BUILD),
) -> go.Figure:
    """Rounds until each title pays for itself, at a few levels, for one or both owner roles.

    Titles run along the bottom in board order; the height is the payback in rounds (a log
    scale, so 10, 100 and 1,000 rounds are equal steps). Competitors are green circles,
    Monopolists blue squares; an open marker is the bare title, a crossed one the
    monopolized city, a filled one the full build. `levels` takes any of the frame's level
    names, or "full build" for each title's highest level.
    """

    _check_frame(frame)
    roles = _owner_roles(owner_role)
    rows = _at_players(frame, players)
    order = rows.drop_duplicates("space").sort_values("space")["name"].tolist()
    figure = go.Figure()
    for role in roles:
        mine = rows[rows["owner_role"] == ROLES[role]]
        for level in levels:
            chosen = _pick_level(mine, level).sort_values("space")
            if chosen.empty:
                continue
            suffix = _LEVEL_MARKERS.get(level, "-dot")
            figure.add_scatter(
                x=chosen["name"],
                y=chosen["payback_rounds"],
                mode="markers",
                name=f"{ROLE_LABELS[role]}: {_level_name(level)}",
                legendgroup=ROLES[role],
                marker={
                    "symbol": ROLE_SYMBOLS[role] + suffix,
                    "size": 10,
                    "color": ROLE_COLOURS[role],
                    "line": {"width": 1.5, "color": ROLE_COLOURS[role]},
                },
                customdata=np.stack(
                    [
                        chosen["level"],
                        chosen["holding"],
                        chosen["invested"],
                        chosen["rent_per_round"],
                    ],
                    axis=-1,
                ),
                hovertemplate=(
                    f"{ROLE_LABELS[role]} owner, %{{customdata[0]}}<br>"
                    "holding: %{customdata[1]}<br>cost $%{customdata[2]:,}<br>"
                    "rent about $%{customdata[3]:.1f} a round<br>"
                    "pays back in %{y:.0f} rounds<extra></extra>"
                ),
            )
    who = ROLE_LABELS[roles[0]] if len(roles) == 1 else "Competitor and Monopolist"
    figure.update_layout(
        chart_layout(
            f"Rounds until a title pays for itself: {who} owners, {players} players",
            height=580,
            xaxis={
                "title": {"text": "title (in board order)", "standoff": 10},
                "categoryorder": "array",
                "automargin": True,
            },
            yaxis={
                "title": {"text": "rounds to pay back its cost (log scale)"},
                "type": "log",
                "tickvals": list(_ROUND_TICKS),
                "tickformat": ",d",
            },
            legend={"yref": "paper", "y": 1.02, "yanchor": "bottom"},
            margin={"t": 140, "b": 40},
        )
    )
    figure.update_xaxes(categoryarray=order, tickangle=-45)
    return figure


def _fastest(rows: pd.DataFrame) -> pd.Series:
    """The row with the shortest payback (ties: the lower level, then board order)."""
    return rows.sort_values(["payback_rounds", "level_order", "space"]).iloc[0]


def _describe(row: pd.Series) -> str:
    """A holding in words: "Wall St. on its own", "an apartment on Wall St. (with Fifth
    Ave.)", "3 transport companies (U.S. Railroad + ...)"."""
    others = [name for name in row["holding"].split(" + ") if name != row["name"]]
    level = row["level"]
    if row["kind"] != "street":
        if level == TITLE_ONLY:
            return f"{row['name']} on its own"
        count = len(others) + 1
        kind = "transport companies" if row["kind"] == "transport" else "utilities"
        return f"{count} {kind} ({row['holding']})"
    if level == TITLE_ONLY:
        return f"{row['name']} on its own"
    with_others = f" (with {' and '.join(others)})" if others else ""
    if level == MONOPOLIZED:
        return f"{row['city']} monopolized ({row['holding']}), without buildings"
    article = "an " if level == APARTMENT else ""
    return f"{article}{level} on {row['name']}{with_others}"


def reading_returns(frame: pd.DataFrame, players: int = 4, owner_role: str | None = None) -> str:
    """One sentence per owner role: the quickest payback at this table size, and the holding
    that gives it, with the numbers read from the frame."""
    _check_frame(frame)
    roles = _owner_roles(owner_role)
    rows = _at_players(frame, players)
    sentences = []
    for role in roles:
        best = _fastest(rows[rows["owner_role"] == ROLES[role]])
        sentences.append(
            f"With {players} players, a {ROLE_LABELS[role]}'s quickest return is "
            f"{_describe(best)}: it costs ${best['invested']:,} and brings in about "
            f"${best['rent_per_round']:.2f} of rent a round, so it pays for itself in "
            f"{best['payback_rounds']:.0f} rounds."
        )
    return " ".join(sentences)
