"""Why a choice is refused: the one place where the engine's legality is written.

`Game.check`, `Game.is_legal`, `Game.targets` and the legal-choice lists all ask these
functions, which read a game and never change it. Each refusal is (message, rule): the
sentence a player reads, and the rule or decision it comes from (`IllegalChoice.rule`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from .builds import rules_core
from .choices import TAX_OPTIONS, TITLE_CHOICES, Choice, Trade
from .errors import quoted
from .terms import Phase

if TYPE_CHECKING:
    from .game import Game

# the refusal codes the rules core's legality functions return
core = rules_core()


class RulesAnswers(Protocol):
    """The rules core's legality codes for the game being judged (`core.REFUSALS`; 0 when
    allowed): the game hands these over, so that the words here never reach into its state."""

    def pay_fine(self) -> int: ...
    def buy(self) -> int: ...
    def end_game(self) -> int: ...
    def title(self, kind: str, space: int) -> int: ...
    def trade(self, trade: Trade) -> int: ...
    def kinds(self) -> list[str]: ...


OVER = Phase.OVER
FINAL_ADJUST = Phase.FINAL_ADJUST

# the kinds of choice each phase allows, before the state is looked at: the rules core's
PHASE_KINDS: dict[Phase, tuple[str, ...]] = core.PHASE_KINDS

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


def why_not(game: Game, choice: Choice, answers: RulesAnswers) -> tuple[str, str] | None:
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
        allowed = ", ".join(answers.kinds()) or "none"
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
        code = core.REFUSALS[answers.pay_fine()]
        if code == "not_held":
            return f"{game.names[p]} is not held in Prison or Price War", R_HOLD
        if code == "short_of_cash":
            return f"the fine is ${rules.fine} but {game.names[p]} has ${cash}", R_BORROW
        return None
    if kind == "buy":
        if answers.buy():
            price = game.board.spaces[game.state.pending_buy].price
            return (
                f"{game.board.spaces[game.state.pending_buy].name} costs ${price} but {game.names[p]} has ${cash}",
                R_BORROW,
            )
        return None
    if kind in ("decline", "accept", "reject"):
        return None
    if kind == "end_turn":
        return None
    if kind == "end_game":
        if answers.end_game():
            return "only the two-hour game ends when time is up", R_TWO_HOUR
        return None
    if kind == "income_tax":
        if choice.arg not in TAX_OPTIONS:
            return f"income tax is paid 'flat' or 'percent', not {quoted(choice.arg)}", R_TAX
        return None
    if kind in TITLE_CHOICES:
        return why_not_title(game, kind, choice.arg, answers)
    if kind == "trade":
        return why_not_trade(game, choice.arg, answers)
    return (
        f"unknown choice {quoted(kind)}",
        R_TURN,
    )  # pragma: no cover - kinds come from PHASE_KINDS


def why_not_title(
    game: Game, kind: str, space: Any, answers: RulesAnswers
) -> tuple[str, str] | None:
    p = game.actor
    if not isinstance(space, int) or not 0 <= space < len(game.board.spaces):
        return f"{kind.replace('_', ' ')} needs a title, not {quoted(space)}", R_TURN
    code = core.REFUSALS[answers.title(kind, space)]
    if code == "":
        return None
    sp = game.board.spaces[space]
    name = game.names[p]
    cash = game.cash[p]
    if code == "not_owner":
        return f"{name} does not own {sp.name}", R_BUILD if kind == "build" else R_MORTGAGE
    if code == "not_a_street":
        return f"buildings go on streets only, and {sp.name} is not a street", R_BUILD
    if code == "mortgaged":
        return f"{sp.name} is mortgaged; redeem it before building", R_MORTGAGE
    if code == "no_monopoly":
        have = game.state.monopoly_count(p, sp.city)
        return (
            f"a Monopolist builds only in a monopolized city; {name} owns {have} unmortgaged "
            f"{sp.city} street{'s' if have != 1 else ''} and needs {game.rules.monopoly_streets}",
            R_MONOPOLY,
        )
    if code == "full":
        return f"{sp.name} already has an apartment, the most it can hold", R_BUILD
    if code == "no_apartments_left":
        return "the Treasury has no apartments left", R_SUPPLY
    if code == "no_houses_left":
        return "the Treasury has no houses left", R_SUPPLY
    if code == "short_of_cash" and kind == "build":
        return f"building on {sp.name} costs ${sp.house_cost} but {name} has ${cash}", R_BORROW
    if code == "no_buildings":
        return f"{sp.name} has no buildings to sell", R_SELL
    if code == "already_mortgaged":
        return f"{sp.name} is already mortgaged", R_MORTGAGE
    if code == "buildings_stand":
        return f"sell the buildings on {sp.name} before mortgaging it", R_MORTGAGE
    if code == "breaks_monopoly":
        return (
            f"mortgaging {sp.name} would break {name}'s monopoly of {sp.city} while buildings stand there",
            R_MONOPOLY,
        )
    if code == "not_mortgaged":
        return f"{sp.name} is not mortgaged", R_MORTGAGE
    # redeeming, short of cash
    return (
        f"redeeming {sp.name} costs ${game.state.redeem_values[space]} but {name} has ${cash}",
        R_BORROW,
    )


def why_not_trade(game: Game, trade: Any, answers: RulesAnswers) -> tuple[str, str] | None:
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
    most = len(game.board.spaces)
    if len(trade.give) > most or len(trade.get) > most:
        return f"a trade lists at most {most} titles a side", R_TRADE
    refusal = answers.trade(trade)
    code = core.REFUSALS[core.refusal_code(refusal)]
    if code == "":
        return None
    p, q = game.actor, trade.other
    if code == "no_partner":
        return "a trade needs another player still in the game", R_TRADE
    if code == "no_titles":
        return "a trade must include at least one title; cash alone would be a loan", R_BORROW
    if code == "listed_twice":
        return "a title is listed twice", R_TRADE
    if code == "proposer_short":
        return f"{game.names[p]} has only ${game.cash[p]} to pay ${trade.pay}", R_BORROW
    if code == "partner_short":
        return f"{game.names[q]} has only ${game.cash[q]} to pay ${-trade.pay}", R_BORROW
    # a refusal about one title of one side
    at = core.refused_at(refusal)
    side, s = (p, trade.give[at // 2]) if at % 2 == 0 else (q, trade.get[at // 2])
    spaces = game.board.spaces
    if code == "trade_not_owner":
        label = spaces[s].name if 0 <= s < len(spaces) else str(s)
        return f"{game.names[side]} does not own {label}", R_TRADE
    if code == "trade_buildings":
        return f"{spaces[s].name} has buildings; only bare streets are traded", R_TRADE
    # the trade would break a Monopolist's built-up monopoly
    return (
        f"the trade would break {game.names[side]}'s monopoly of {spaces[s].city} while buildings stand there",
        R_MONOPOLY,
    )
