"""Worker side of a batch: play games with bots and record them as compact columns.

Kept light (engine, bots and numpy only) because every worker process imports it. A chunk of
games comes back as a dict of numpy arrays, which pickles small and concatenates fast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from ..bots import FAMILY, FamilyParams, FamilyStrategy, Strategy, make_strategy
from ..bots.strategies import opponent_landings
from ..engine import events as ev
from ..engine.board import COMPETITOR, MONOPOLIST, ROLES, standard_board
from ..engine.game import Game, PlayerSetup, Setup
from ..engine.rules import RuleSet
from ..engine.terms import PaymentReason
from . import core
from .accounting import ACCOUNTING_ENDINGS

END_REASONS = ("game_a", "game_b", "two_hour", "round_cap")
NO_WINNER = -1

GAME_COLUMNS = (
    "game",
    "seed",
    "winner",
    "rounds",
    "end_reason",
    "decisions",
    "turns",
    "leader_before_accounting",
)
PLAYER_COLUMNS = (
    "game",
    "seat",
    "turns",
    "final_cash",
    "net_worth",
    "rule25_wealth",
    "rent_paid",
    "rent_received",
    "taxes_paid",
    "income_tax_paid",
    "property_tax_paid",
    "fines",
    "titles",
    "bankrupt_round",
    "cash_before_accounting",
)
ROUND_COLUMNS = ("game", "round", "seat", "cash", "titles", "buildings")
TAX_COLUMNS = ("game", "round", "seat", "flat", "percent", "chose_percent")


@dataclass(frozen=True)
class SeatSpec:
    """One seat of a batch: the role, the bot's name and its tax behaviour, and for a family
    bot its knobs (`FamilyParams.text()`, whose tax is the seat's `tax`)."""

    role: str
    bot: str
    tax: str = "cheaper"
    params: str = ""

    def label(self) -> str:
        if self.bot == FAMILY:
            return f"{self.role}:{FAMILY}:{self.params}"
        return f"{self.role}:{self.bot}" + ("" if self.tax == "cheaper" else f":{self.tax}")

    def strategy(self, seed: int) -> Strategy:
        """A fresh bot for this seat (`seed` matters to the random bot only)."""
        if self.bot == FAMILY:
            return FamilyStrategy(self.params, tax=self.tax, seed=seed)
        return make_strategy(self.bot, tax=self.tax, seed=seed)

    def kernel_seat(self) -> tuple[int, str, str, tuple[int, ...]]:
        """The seat as the compiled core takes it: role, bot, tax and the family's vector."""
        vector = FamilyParams.parse(self.params).vector() if self.bot == FAMILY else ()
        return ROLES.index(self.role), self.bot, self.tax, vector


@dataclass(frozen=True)
class BatchConfig:
    """Everything a worker needs to play any game of the batch (picklable, small)."""

    seats: tuple[SeatSpec, ...]
    rules: dict[str, Any]
    seed: int
    game_type: str = "A"
    record_rounds: bool = True
    allow_one_role: bool = False  # the counterfactual opt-in (see runner.simulate)
    check_invariants: bool = False  # count invariant violations after every decision


def game_seed(master: int, index: int) -> int:
    """Game `index`'s seed, from the master seed and the index alone, so results do not
    depend on how the batch is split across workers or machines."""
    return int(np.random.SeedSequence([master, index]).generate_state(1, dtype=np.uint64)[0] >> 1)


def play_bot_game(
    index: int,
    config: BatchConfig,
    rules: RuleSet | None = None,
    on_round: Callable[[Game, int], None] | None = None,
    on_decision: Callable[[Game], None] | None = None,
) -> tuple[Game, int]:
    """Play game `index` of the batch to its end with its bots; returns the game and the
    number of decisions taken. `on_round(game, r)` runs at the start (r = 0), after each
    round r, and once more when the game is over; `on_decision(game)` after each decision."""
    rules = rules or RuleSet.from_dict(config.rules)
    seed = game_seed(config.seed, index)
    seats = tuple(
        PlayerSetup(name=f"{spec.role[0].upper()}{i + 1}", role=ROLES.index(spec.role))
        for i, spec in enumerate(config.seats)
    )
    setup = Setup(
        players=seats,
        rules=rules,
        seed=seed,
        game_type=config.game_type,
        allow_one_role=config.allow_one_role,
    )
    game = Game(setup)
    bots = [spec.strategy(seed + i) for i, spec in enumerate(config.seats)]
    if on_round is not None:
        on_round(game, 0)
    last_round = game.round
    decisions = 0
    apply, legal = game.apply, game.legal
    while not game.over:
        apply(bots[game.actor].choose(game, legal()))
        decisions += 1
        if on_decision is not None:
            on_decision(game)
        if game.round != last_round:
            if on_round is not None:
                on_round(game, last_round)
            last_round = game.round
    if on_round is not None:
        on_round(game, game.round)
    return game, decisions


def play_game(index: int, config: BatchConfig, rules: RuleSet | None = None) -> dict[str, Any]:
    """Play game `index` of the batch on the pure-Python core and return its rows (lists of
    ints) for each table; with `config.check_invariants`, a "checks" table too."""
    rounds: dict[str, list[int]] = {c: [] for c in ROUND_COLUMNS}
    violations = [0]

    def check(game: Game) -> None:
        violations[0] += len(game.state.invariant_violations())

    def snapshot(game: Game, round_number: int) -> None:
        for p, (cash, titles, buildings) in enumerate(game.wealth_parts()):
            rounds["game"].append(index)
            rounds["round"].append(round_number)
            rounds["seat"].append(p)
            rounds["cash"].append(cash)
            rounds["titles"].append(titles)
            rounds["buildings"].append(buildings)

    game, decisions = play_bot_game(
        index,
        config,
        rules,
        snapshot if config.record_rounds else None,
        check if config.check_invariants else None,
    )
    rows = _rows(index, game.setup.seed, game, decisions, rounds)
    if config.check_invariants:
        rows["checks"] = {"violations": violations}
    return rows


def _rows(
    index: int, seed: int, game: Game, decisions: int, rounds: dict[str, list[int]]
) -> dict[str, Any]:
    n = len(game.names)
    rent_paid, rent_received = [0] * n, [0] * n
    income_tax, property_tax, fines = [0] * n, [0] * n, [0] * n
    bankrupt_round = [-1] * n
    taxes: dict[str, list[int]] = {c: [] for c in TAX_COLUMNS}
    current_round = 1
    for event in game.events:
        if isinstance(event, ev.TurnStarted):
            current_round = event.round
        elif isinstance(event, ev.RentPaid):
            rent_paid[event.payer] += event.amount
            rent_received[event.payee] += event.amount
        elif isinstance(event, ev.Payment):
            if event.reason == PaymentReason.INCOME_TAX:
                income_tax[event.payer] += event.amount
            elif event.reason == PaymentReason.PROPERTY_TAX:
                property_tax[event.payer] += event.amount
            elif event.reason == PaymentReason.FINE:
                fines[event.payer] += event.amount
        elif isinstance(event, ev.IncomeTaxChoice):
            taxes["game"].append(index)
            taxes["round"].append(current_round)
            taxes["seat"].append(event.player)
            taxes["flat"].append(event.flat)
            taxes["percent"].append(event.percent)
            taxes["chose_percent"].append(int(event.choice == "percent"))
        elif isinstance(event, ev.Bankrupt):
            bankrupt_round[event.player] = current_round
    winner = NO_WINNER if game.winner is None else game.winner
    # the standing when the final accounting began, as the engine recorded it (what
    # sim.accounting reads too); a game without it: no leader before it (NO_WINNER, the
    # engine's NOBODY), and its final cash as the cash before it
    leader = NO_WINNER
    cash_before: Sequence[int] = game.cash
    if game.over and game.end_reason in ACCOUNTING_ENDINGS and game.state.cash_at_final is not None:
        leader = game.state.leader_at_final
        cash_before = game.state.cash_at_final
    games = {
        "game": [index],
        "seed": [seed],
        "winner": [winner],
        "rounds": [game.round],
        # a game still going (a class's table, see game_rows) has no ending yet
        "end_reason": [END_REASONS.index(game.end_reason) if game.end_reason else -1],
        "decisions": [decisions],
        "turns": [sum(game.state.turns_taken)],
        "leader_before_accounting": [leader],
    }
    players: dict[str, list[int]] = {c: [] for c in PLAYER_COLUMNS}
    for p in range(n):
        values = (
            index,
            p,
            game.state.turns_taken[p],
            game.cash[p],
            game.wealth(p)["net_worth"],
            game.rule25_wealth(p),
            rent_paid[p],
            rent_received[p],
            income_tax[p] + property_tax[p],
            income_tax[p],
            property_tax[p],
            fines[p],
            len(game.titles_of(p)),
            bankrupt_round[p],
            cash_before[p],
        )
        for column, value in zip(PLAYER_COLUMNS, values, strict=True):
            players[column].append(value)
    return {"games": games, "players": players, "rounds": rounds, "taxes": taxes}


def run_chunk(start: int, stop: int, config: BatchConfig) -> dict[str, dict[str, np.ndarray]]:
    """Play games start..stop-1 and return their rows as arrays, one dict per table, on the
    compiled core where it is built (`amteach.sim.core`), else on pure Python: the frames
    are identical. With `config.check_invariants` a "checks" table holds the count of
    invariant violations."""
    rules = RuleSet.from_dict(config.rules)
    compiled = core.kernel()
    if compiled is not None and kernel_plays(config):
        return compiled_chunk(compiled, start, stop, config, rules)
    return python_chunk(start, stop, config, rules)


# what amteach/sim/kernel.py implements: a batch with a bot or a rule parameter it does not
# know plays on pure Python (correct, slower) until the kernel learns it (docs/development.md)
KERNEL_BOTS = frozenset({"cautious", "builder", "investor", "random", "family"})
KERNEL_RULES = frozenset(
    {
        "preset_name",
        "starting_cash",
        "start_payment",
        "income_tax_flat",
        "income_tax_percent_competitor",
        "income_tax_percent_monopolist",
        "property_tax",
        "foundation_monopolist_fee",
        "foundation_competitor_prizes",
        "fine",
        "held_turns_before_forced_fine",
        "max_houses_competitor",
        "max_houses_monopolist",
        "building_supply",
        "supply_houses",
        "supply_apartments",
        "monopoly_streets",
        "transport_fare_competitor",
        "transport_fares_monopolist",
        "utility_multiplier_competitor",
        "utility_multipliers_monopolist",
        "mortgage_percent",
        "redeem_percent",
        "building_sellback_percent",
        "settlement_keep_percent_competitor",
        "settlement_keep_percent_monopolist",
        "settlement_utility_dice",
        "round_cap",
    }
)


def kernel_plays(config: BatchConfig) -> bool:
    """Can the compiled core play this batch (every bot and rule parameter known to it)?"""
    return set(config.rules) == KERNEL_RULES and all(s.bot in KERNEL_BOTS for s in config.seats)


def python_chunk(
    start: int, stop: int, config: BatchConfig, rules: RuleSet
) -> dict[str, dict[str, np.ndarray]]:
    """Games start..stop-1 on the pure-Python core (the engine and the bots themselves)."""
    tables: dict[str, dict[str, list[int]]] = {}
    for index in range(start, stop):
        rows = play_game(index, config, rules)
        for table, columns in rows.items():
            target = tables.setdefault(table, {c: [] for c in columns})
            for column, values in columns.items():
                target[column].extend(values)
    out = {
        table: {
            column: np.asarray(values, dtype=np.int64 if column == "seed" else np.int32)
            for column, values in columns.items()
        }
        for table, columns in tables.items()
    }
    if "checks" in out:
        out["checks"] = {"violations": np.asarray([out["checks"]["violations"].sum()])}
    return out


def compiled_chunk(
    kernel: ModuleType, start: int, stop: int, config: BatchConfig, rules: RuleSet
) -> dict[str, dict[str, np.ndarray]]:
    """Games start..stop-1 on the compiled core (`amteach/sim/kernel.py`, compiled)."""
    board = standard_board()
    batch = kernel.Batch(
        board,
        rules,
        [s.kernel_seat() for s in config.seats],
        config.game_type,
        # an investor's landing weights for one opponent of each role (it adds them up)
        [opponent_landings(rules, board, (role,)) for role in (COMPETITOR, MONOPOLIST)],
        config.record_rounds,
        config.check_invariants,
    )
    tables, violations = batch.play(
        start,
        [game_seed(config.seed, index) for index in range(start, stop)],
        (GAME_COLUMNS, PLAYER_COLUMNS, ROUND_COLUMNS, TAX_COLUMNS),
    )
    if config.check_invariants:
        tables["checks"] = {"violations": np.asarray([violations])}
    return tables


def game_rows(
    index: int, game: Game, decisions: int, rounds: dict[str, list[int]]
) -> dict[str, Any]:
    """The rows a game adds to each of a batch's tables, for games played elsewhere than in a
    batch (a class's tables, amteach.rooms): `rounds` holds the ROUND_COLUMNS lists already
    recorded. A game still going adds no row to the games table."""
    rows = _rows(index, game.setup.seed, game, decisions, rounds)
    if not game.over:
        rows["games"] = {column: [] for column in GAME_COLUMNS}
    return rows
