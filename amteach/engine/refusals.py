"""Why a choice is refused: the one place where the engine's legality is written.

`Game.check`, `Game.is_legal`, `Game.targets` and the legal-choice lists all ask these
functions, which read a game and never change it. Each refusal is (message, rule): the
sentence a player reads, and the rule or decision it comes from (`IllegalChoice.rule`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .board import MONOPOLIST
from .choices import TAX_OPTIONS, TITLE_CHOICES, Choice, Trade
from .errors import quoted
from .terms import Phase

if TYPE_CHECKING:
    from .game import Game

OVER = Phase.OVER
FINAL_ADJUST = Phase.FINAL_ADJUST

# the kinds of choice each phase allows, before the state is looked at
PHASE_KINDS: dict[Phase, tuple[str, ...]] = {
    Phase.PRE_ROLL: (
        "roll",
        "pay_fine",
        "build",
        "sell_building",
        "mortgage",
        "redeem",
        "trade",
        "end_game",
    ),
    Phase.POST_ROLL: (
        "build",
        "sell_building",
        "mortgage",
        "redeem",
        "trade",
        "end_turn",
        "end_game",
    ),
    Phase.BUY: ("buy", "decline", "sell_building", "mortgage"),
    Phase.INCOME_TAX: ("income_tax",),
    Phase.RAISE: ("sell_building", "mortgage"),
    Phase.TRADE_ANSWER: ("accept", "reject"),
    Phase.FINAL_ADJUST: ("build", "sell_building", "mortgage", "redeem", "end_turn"),
    Phase.OVER: (),
}

# the rules a refusal names (IllegalChoice.rule)
R_TURN = "turn order"
R_BUY = "rule 9 (buying)"
R_BUILD = "rule 11 (building)"
R_MONOPOLY = "rule 10 and decision 5 (monopolized city)"
R_SUPPLY = "building supply (decisions: 35 houses, 15 apartments)"
R_MORTGAGE = "rule 12 and decision 7 (mortgages)"
R_SELL = "rule 13 and decision 6 (selling buildings)"
R_TRADE = "rule 23 and decision 8 (trading)"
R_BORROW = "rule 26 (no borrowing)"
R_HOLD = "decision 3 (Prison and Price War)"
R_TAX = "decision 1 (income tax)"
R_TWO_HOUR = "decision 12 (two-hour game)"


def why_not(game: Game, choice: Choice) -> tuple[str, str] | None:
    """None if legal, else (message, rule). Reads the state; never changes it."""
    kind = choice.kind
    phase = game.phase
    if phase == OVER:
        return "the game is over", R_TURN
    if kind not in PHASE_KINDS[phase]:
        if phase == FINAL_ADJUST and kind == "trade":
            return (
                "no trades between players in the final accounting: players deal only with the Treasury",
                R_TWO_HOUR,
            )
        allowed = ", ".join(game.legal_kinds()) or "none"
        return (
            f"{game.names[game.actor]} cannot {kind.replace('_', ' ')} now ({phase.replace('_', ' ')}); "
            f"legal now: {allowed}",
            R_TURN,
        )
    p = game.actor
    cash = game.cash[p]
    rules = game.rules
    if kind == "roll":
        return None
    if kind == "pay_fine":
        if not game.is_held(p):
            return f"{game.names[p]} is not held in Prison or Price War", R_HOLD
        if cash < rules.fine:
            return f"the fine is ${rules.fine} but {game.names[p]} has ${cash}", R_BORROW
        return None
    if kind == "buy":
        price = game.board.spaces[game.pending_buy].price
        if cash < price:
            return (
                f"{game.board.spaces[game.pending_buy].name} costs ${price} but {game.names[p]} has ${cash}",
                R_BORROW,
            )
        return None
    if kind in ("decline", "accept", "reject"):
        return None
    if kind == "end_turn":
        return None
    if kind == "end_game":
        if game.game_type != "two-hour":
            return "only the two-hour game ends when time is up", R_TWO_HOUR
        return None
    if kind == "income_tax":
        if choice.arg not in TAX_OPTIONS:
            return f"income tax is paid 'flat' or 'percent', not {quoted(choice.arg)}", R_TAX
        return None
    if kind in TITLE_CHOICES:
        return why_not_title(game, kind, choice.arg)
    if kind == "trade":
        return why_not_trade(game, choice.arg)
    return (
        f"unknown choice {quoted(kind)}",
        R_TURN,
    )  # pragma: no cover - kinds come from PHASE_KINDS


def why_not_title(game: Game, kind: str, space: Any) -> tuple[str, str] | None:
    p = game.actor
    if not isinstance(space, int) or not 0 <= space < len(game.board.spaces):
        return f"{kind.replace('_', ' ')} needs a title, not {quoted(space)}", R_TURN
    sp = game.board.spaces[space]
    name = game.names[p]
    if game.owner[space] != p:
        return f"{name} does not own {sp.name}", R_BUILD if kind == "build" else R_MORTGAGE
    rules = game.rules
    cash = game.cash[p]
    role = game.roles[p]
    if kind == "build":
        if sp.kind != "street":
            return f"buildings go on streets only, and {sp.name} is not a street", R_BUILD
        if game.mortgaged[space]:
            return f"{sp.name} is mortgaged; redeem it before building", R_MORTGAGE
        if role == MONOPOLIST and not game.is_monopolized(p, sp.city):
            have = game.monopoly_count(p, sp.city)
            return (
                f"a Monopolist builds only in a monopolized city; {name} owns {have} unmortgaged "
                f"{sp.city} street{'s' if have != 1 else ''} and needs {rules.monopoly_streets}",
                R_MONOPOLY,
            )
        if game.apartment[space]:
            return f"{sp.name} already has an apartment, the most it can hold", R_BUILD
        if game.houses[space] >= rules.max_houses(role):
            if not rules.unlimited_supply and game.supply_apartments <= 0:
                return "the Treasury has no apartments left", R_SUPPLY
        elif not rules.unlimited_supply and game.supply_houses <= 0:
            return "the Treasury has no houses left", R_SUPPLY
        if cash < sp.house_cost:
            return (
                f"building on {sp.name} costs ${sp.house_cost} but {name} has ${cash}",
                R_BORROW,
            )
        return None
    if kind == "sell_building":
        if not (game.houses[space] or game.apartment[space]):
            return f"{sp.name} has no buildings to sell", R_SELL
        return None
    if kind == "mortgage":
        if game.mortgaged[space]:
            return f"{sp.name} is already mortgaged", R_MORTGAGE
        if game.houses[space] or game.apartment[space]:
            return f"sell the buildings on {sp.name} before mortgaging it", R_MORTGAGE
        if (
            role == MONOPOLIST
            and sp.kind == "street"
            and breaks_built_monopoly(game, p, sp.city, {space})
        ):
            return (
                f"mortgaging {sp.name} would break {name}'s monopoly of {sp.city} while buildings stand there",
                R_MONOPOLY,
            )
        return None
    # redeem
    if not game.mortgaged[space]:
        return f"{sp.name} is not mortgaged", R_MORTGAGE
    if cash < game.redeem_values[space]:
        return (
            f"redeeming {sp.name} costs ${game.redeem_values[space]} but {name} has ${cash}",
            R_BORROW,
        )
    return None


def why_not_trade(game: Game, trade: Any) -> tuple[str, str] | None:
    if not isinstance(trade, Trade):
        return "a trade needs a partner, titles and cash", R_TRADE
    whole = (int,)
    if (
        isinstance(trade.other, bool)
        or not isinstance(trade.other, whole)
        or isinstance(trade.pay, bool)
        or not isinstance(trade.pay, whole)
        or not all(
            isinstance(s, whole) and not isinstance(s, bool) for s in (*trade.give, *trade.get)
        )
    ):
        return "a Trade holds a seat number, space numbers and a whole-dollar payment", R_TRADE
    p, q = game.actor, trade.other
    if not (0 <= q < len(game.names)) or q == p or game.bankrupt[q]:
        return "a trade needs another player still in the game", R_TRADE
    if not trade.give and not trade.get:
        return "a trade must include at least one title; cash alone would be a loan", R_BORROW
    if len(set(trade.give)) != len(trade.give) or len(set(trade.get)) != len(trade.get):
        return "a title is listed twice", R_TRADE
    for side, titles in ((p, trade.give), (q, trade.get)):
        for s in titles:
            if not (0 <= s < len(game.board.spaces)) or game.owner[s] != side:
                label = game.board.spaces[s].name if 0 <= s < len(game.board.spaces) else str(s)
                return f"{game.names[side]} does not own {label}", R_TRADE
            if game.houses[s] or game.apartment[s]:
                return (
                    f"{game.board.spaces[s].name} has buildings; only bare streets are traded",
                    R_TRADE,
                )
        if game.roles[side] == MONOPOLIST:
            for city in {
                game.board.spaces[s].city for s in titles if game.board.spaces[s].kind == "street"
            }:
                if breaks_built_monopoly(game, side, city, set(titles)):
                    return (
                        f"the trade would break {game.names[side]}'s monopoly of {city} while buildings stand there",
                        R_MONOPOLY,
                    )
    if trade.pay > 0 and game.cash[p] < trade.pay:
        return f"{game.names[p]} has only ${game.cash[p]} to pay ${trade.pay}", R_BORROW
    if trade.pay < 0 and game.cash[q] < -trade.pay:
        return f"{game.names[q]} has only ${game.cash[q]} to pay ${-trade.pay}", R_BORROW
    return None


def breaks_built_monopoly(game: Game, player: int, city: str, leaving: set[int]) -> bool:
    """Would losing `leaving` take a monopolist's built-up city below a monopoly?"""
    streets = game.board.cities[city]
    if not any(game.owner[s] == player and (game.houses[s] or game.apartment[s]) for s in streets):
        return False
    keep = sum(
        1 for s in streets if game.owner[s] == player and not game.mortgaged[s] and s not in leaving
    )
    return keep < game.rules.monopoly_streets
