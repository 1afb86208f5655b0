"""How the tool compares win rates (docs/analysis.md, "Comparing win rates").

Two questions, two methods:

- **Is one group's win rate what an even game would give it?** A role, a seat or a bot in one
  batch is compared with its even mark (a role's share of the seats; 1 in n for a seat or a
  bot) by an exact binomial test: `compare_with_even`. Its p-value is two-sided (twice the
  smaller tail), so it says "more than luck would explain" exactly when the exact 95%
  (Clopper-Pearson) interval leaves out the even mark. The charts drawn against an even mark
  (`fairness.win_rate_table`) draw that exact interval, `exact_interval`, so what a student
  reads off a whisker and what the test says always agree.
- **Did a win rate change between two batches?** Two values of a sweep, two presets or two
  market structures are separate batches. Their difference gets Newcombe's interval for
  the difference of two independent proportions (statsmodels'
  `confint_proportions_2indep`, method "newcomb"): `compare_batches`. The change is more
  than luck would explain when that interval leaves out 0.

Two groups of one batch are never compared with each other: they share the same games (the
two roles' rates add up to 100% less the games nobody won), so each is compared with its
even mark instead. Nor does the tool ask whether two 95% intervals overlap: two intervals can
overlap while the difference between them is clearly more than luck.

A sweep plays the same game seeds for every value. That makes its batches alike in their
dice (usually positively related), so the independent-samples interval is, if anything, a
little wider than it needs to be.

This module also splits a batch's win rates by how the games ended (`win_rates_by_ending`):
played to the end, or settled by the round cap's final accounting.

One kind of interval for one win rate: wherever a single win rate is shown (a table's cell, a
chart's whisker, a sentence), it carries the exact (Clopper-Pearson) interval, since a reader
holds it against 50% or another even mark, and that interval leaves out a mark exactly when
the exact test rejects it. `exact_intervals` puts it on any table of wins and games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from ..engine.errors import InputError
from ..sim.results import ENDING_NAMES

if TYPE_CHECKING:
    from ..sim.results import SimulationResult

CONFIDENCE = 0.95
ENDINGS = ("played to the end", "settled by the round cap")
ENDING_COLUMNS = (
    "ending",
    "games",
    "share",
    "role",
    "wins",
    "rate",
    "ci_low",
    "ci_high",
)
_ROLE_NAMES = {"competitor": "Competitors", "monopolist": "Monopolists"}


def _check_confidence(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise InputError(
            f"confidence must be between 0 and 1, not {confidence!r}", field="confidence"
        )
    return float(confidence)


def _check_count(wins: int, games: int, name: str) -> tuple[int, int]:
    if isinstance(games, bool) or int(games) != games or games < 1:
        raise InputError(f"{name}: games must be a whole number of at least 1", field=name)
    if int(wins) != wins or not 0 <= wins <= games:
        raise InputError(
            f"{name}: wins must be a whole number from 0 to the games ({games})", field=name
        )
    return int(wins), int(games)


def exact_interval(wins: int, games: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval for a proportion: the interval the even test
    reads, so a mark outside it is exactly a mark the test rejects (scipy's `binomtest`).
    (nan, nan) for no games."""
    from scipy.stats import binomtest

    if games == 0:
        return (float("nan"), float("nan"))
    wins, games = _check_count(wins, games, "exact_interval")
    interval = binomtest(wins, games).proportion_ci(
        confidence_level=_check_confidence(confidence), method="exact"
    )
    return (float(interval.low), float(interval.high))


def exact_intervals(frame: pd.DataFrame) -> pd.DataFrame:
    """A table of win rates (columns `wins` and `games`, one row a group) with its `ci_low` and
    `ci_high` replaced by the exact 95% interval of each row, the one `exact_interval` and the
    even test read (nan where a row has no games)."""
    ends = [
        exact_interval(int(wins), int(games)) if games else (float("nan"), float("nan"))
        for wins, games in zip(frame["wins"], frame["games"], strict=True)
    ]
    return frame.assign(ci_low=[low for low, _ in ends], ci_high=[high for _, high in ends])


@dataclass(frozen=True)
class EvenTest:
    """One group's win rate against the rate an even game would give it.

    `rate`, `low`, `high` and `even` are per play (per seat the group held in a game): for a
    role or a seat that is per game. `p_value` is the exact two-sided binomial test of
    "the game is even for this group"."""

    wins: int
    games: int
    plays_per_game: int
    even: float
    rate: float
    low: float
    high: float
    p_value: float
    confidence: float

    @property
    def significant(self) -> bool:
        """True when the difference from the even mark is more than luck would explain."""
        return self.p_value < 1 - self.confidence

    @property
    def direction(self) -> str:
        """ "more" or "less" than the even mark, or "even" when luck can explain it."""
        if not self.significant:
            return "even"
        return "more" if self.rate > self.even else "less"


def compare_with_even(
    wins: int,
    games: int,
    even: float,
    plays_per_game: int = 1,
    confidence: float = CONFIDENCE,
) -> EvenTest:
    """Compare a group's wins with an even game, by an exact binomial test.

    `games` is the number of games the group played, `plays_per_game` how many seats it held
    in each (a bot playing two seats of every game holds 2), and `even` the share of its
    plays an even game would let it win (1/n for a seat or a bot; a role's share of the seats
    for a role, which holds one "play" per game). At most one seat wins a game, so the games
    the group won follow a binomial distribution with `plays_per_game × even` per game when
    the game is even: that is what is tested, exactly.

    Example: ``compare_with_even(188, 200, 0.5)`` for Monopolists who won 188 of 200 games
    with half the seats.
    """
    from scipy.stats import binomtest

    confidence = _check_confidence(confidence)
    wins, games = _check_count(wins, games, "compare_with_even")
    if isinstance(plays_per_game, bool) or int(plays_per_game) != plays_per_game:
        raise InputError("plays_per_game must be a whole number", field="plays_per_game")
    plays_per_game = int(plays_per_game)
    per_game = plays_per_game * float(even)
    if plays_per_game < 1 or not 0 < per_game < 1:
        raise InputError(
            f"an even game's share ({even!r} for each of {plays_per_game} plays) must make a "
            "win per game more than 0 and less than 1",
            field="even",
        )
    less = binomtest(wins, games, per_game, alternative="less").pvalue
    more = binomtest(wins, games, per_game, alternative="greater").pvalue
    low, high = exact_interval(wins, games, confidence)
    return EvenTest(
        wins=wins,
        games=games,
        plays_per_game=plays_per_game,
        even=float(even),
        rate=wins / games / plays_per_game,
        low=low / plays_per_game,
        high=high / plays_per_game,
        p_value=float(min(1.0, 2 * min(less, more))),
        confidence=confidence,
    )


@dataclass(frozen=True)
class BatchDifference:
    """The change in a win rate from batch A to batch B (B minus A), with Newcombe's
    interval for the difference of two independent proportions."""

    rate_a: float
    rate_b: float
    difference: float
    low: float
    high: float
    confidence: float

    @property
    def significant(self) -> bool:
        """True when the interval leaves out 0: the change is more than luck would explain."""
        return self.low > 0 or self.high < 0


def compare_batches(
    wins_a: int, games_a: int, wins_b: int, games_b: int, confidence: float = CONFIDENCE
) -> BatchDifference:
    """How a win rate changed from batch A to batch B, with Newcombe's interval for the
    difference of two independent proportions (statsmodels, method "newcomb").

    Use it for two separate batches (two values of a sweep, two presets), never for two
    groups of one batch. Example: ``compare_batches(188, 200, 170, 200)``.
    """
    from statsmodels.stats.proportion import confint_proportions_2indep

    confidence = _check_confidence(confidence)
    wins_a, games_a = _check_count(wins_a, games_a, "compare_batches (batch A)")
    wins_b, games_b = _check_count(wins_b, games_b, "compare_batches (batch B)")
    low, high = confint_proportions_2indep(
        wins_b, games_b, wins_a, games_a, method="newcomb", compare="diff", alpha=1 - confidence
    )
    rate_a, rate_b = wins_a / games_a, wins_b / games_b
    return BatchDifference(
        rate_a=rate_a,
        rate_b=rate_b,
        difference=rate_b - rate_a,
        low=float(low),
        high=float(high),
        confidence=confidence,
    )


@dataclass(frozen=True)
class MeanDifference:
    """The difference of two means from two separate sets of games (B minus A), with
    Welch's interval (the two sets may spread differently)."""

    mean_a: float
    mean_b: float
    difference: float
    low: float
    high: float
    confidence: float

    @property
    def significant(self) -> bool:
        """True when the interval leaves out 0: the difference is more than luck would explain."""
        return self.low > 0 or self.high < 0


def compare_means(
    mean_a: float,
    sd_a: float,
    n_a: int,
    mean_b: float,
    sd_b: float,
    n_b: int,
    confidence: float = CONFIDENCE,
) -> MeanDifference:
    """How a mean (a Gini at one round, say) differs from set of games A to set B, with
    Welch's t interval for the difference of two independent means.

    Each set needs at least two games and a finite spread. Example:
    ``compare_means(0.14, 0.08, 100, 0.29, 0.12, 97)``.
    """
    import math

    from scipy.stats import t

    confidence = _check_confidence(confidence)
    for name, n, sd in (("A", n_a, sd_a), ("B", n_b, sd_b)):
        if isinstance(n, bool) or int(n) != n or n < 2:
            raise InputError(
                f"set {name} needs at least 2 games, not {n!r}", field=f"n_{name.lower()}"
            )
        if not (sd >= 0 and math.isfinite(sd)):
            raise InputError(
                f"set {name}'s spread must be a number, 0 or more, not {sd!r}",
                field=f"sd_{name.lower()}",
            )
    va, vb = float(sd_a) ** 2 / n_a, float(sd_b) ** 2 / n_b
    se = math.sqrt(va + vb)
    difference = float(mean_b - mean_a)
    if se == 0:
        return MeanDifference(mean_a, mean_b, difference, difference, difference, confidence)
    # Welch-Satterthwaite degrees of freedom, from the variances' shares of the larger one (tiny
    # spreads squared again would underflow to 0 and give no degrees of freedom)
    ra, rb = va / max(va, vb), vb / max(va, vb)
    df = (ra + rb) ** 2 / (ra**2 / (n_a - 1) + rb**2 / (n_b - 1))
    half = float(t.ppf(0.5 + confidence / 2, df)) * se
    return MeanDifference(
        mean_a=float(mean_a),
        mean_b=float(mean_b),
        difference=difference,
        low=difference - half,
        high=difference + half,
        confidence=confidence,
    )


# -- words for the readings ------------------------------------------------------------------


def p_text(p_value: float) -> str:
    """A p-value as the readings print it: "p < 0.001", "p = 0.03", "p = 0.42"."""
    if p_value < 0.001:
        return "p < 0.001"
    if p_value < 0.01:
        return f"p = {p_value:.3f}"
    return f"p = {p_value:.2f}"


def points(x: float, signed: bool = True) -> str:
    """A difference of two rates in percentage points, one decimal: "+4.5", "-12.0"."""
    value = 100 * x
    if abs(value) < 0.05:
        value = 0.0
    return f"{value:+.1f}" if signed else f"{value:.1f}"


def even_verdict(name: str, test: EvenTest) -> str:
    """A clause for a reading: how `name` compares with its even mark, with the p-value."""
    if test.direction == "even":
        return f"{name} won within what luck alone could give an even game ({p_text(test.p_value)})"
    return f"{name} won {test.direction} often than luck would explain ({p_text(test.p_value)})"


def difference_sentence(subject: str, change: BatchDifference, noun: str = "change") -> str:
    """A sentence for a reading: the change (or difference) in a rate between two batches,
    its Newcombe interval in percentage points, and what the interval says."""
    text = (
        f"The {noun} in {subject}, {points(change.difference)} percentage points, has a "
        f"{change.confidence:.0%} interval of {points(change.low)} to {points(change.high)} "
        "points (Newcombe's method for two separate batches)"
    )
    if change.significant:
        return text + f": it leaves out 0, so the {noun} is more than luck would explain."
    return (
        text + ": it includes 0, so these games cannot rule out luck; more games would "
        "narrow the interval."
    )


# -- how the games ended -----------------------------------------------------------------------


def round_cap_share(result: SimulationResult) -> float:
    """The share of a batch's games settled by the round cap's final accounting."""
    games = result.games
    return float((games["end_reason"] == "round_cap").mean()) if len(games) else float("nan")


def win_rates_by_ending(result: SimulationResult) -> pd.DataFrame:
    """Win rate by role, split by how the games ended: "played to the end" (the game's own
    ending, such as the last player standing) or "settled by the round cap" (the final
    accounting picked the winner). One row per ending and role: `ending`, `games` (games
    that ended that way), `share` (their share of the batch), `role`, `wins`, `rate` (share
    of those games the role won) and its exact 95% (Clopper-Pearson) interval `ci_low`,
    `ci_high`, the one every win rate on Who wins carries.

    This is the batch as if there were no round cap, as far as one batch can show it: the
    games played to the end are the ones the cap did not decide."""
    # the batch counts them (SimulationResult.win_rates_by_ending); lessons name the endings
    frame = result.win_rates_by_ending()
    frame["ending"] = frame["ending"].map(dict(zip(ENDING_NAMES, ENDINGS, strict=True)))
    return exact_intervals(frame[list(ENDING_COLUMNS)])


def reading_endings(result: SimulationResult) -> str:
    """Two or three sentences for a student: how many games the round cap settled, and who
    won the games played to the end and the games the cap settled."""
    frame = win_rates_by_ending(result)
    total = len(result.games)
    if total == 0:
        return "No games finished, so there is nothing to read yet."
    capped = frame[frame["ending"] == ENDINGS[1]]
    n_capped = int(capped["games"].iloc[0])
    text = (
        f"The round cap settled {n_capped} of these {total} games "
        f"({100 * n_capped / total:.1f}%): in those, the final accounting picked the winner."
    )
    for ending, rows in frame.groupby("ending", sort=False):
        n = int(rows["games"].iloc[0])
        if n == 0:
            continue
        parts = [
            f"{_ROLE_NAMES[row.role]} won {100 * row.rate:.1f}% "
            f"(95% interval {100 * row.ci_low:.1f}% to {100 * row.ci_high:.1f}%)"
            for row in rows.itertuples()
        ]
        games = "game" if n == 1 else "games"
        text += f" Of the {n} {games} {ending}, " + " and ".join(parts) + "."
    return text


# -- sentences the fairness readings add --------------------------------------------------------


def group_even_test(wins: int, plays: int, even: float, batch_games: int) -> EvenTest | None:
    """`compare_with_even` for one row of a batch's win-rate table (`win_rates(by)`): `plays`
    seats played by the group over `batch_games` games, so a group with twice as many plays
    as games held two seats a game. None when there is nothing to test: no even mark, or one
    group in every seat (it wins every game anyone wins)."""
    per_game = max(1, round(plays / batch_games)) if batch_games else 1
    if even != even or not 0 < per_game * even < 1:
        return None
    return compare_with_even(int(wins), round(plays / per_game), even, per_game)


def even_tests_sentence(rows: list[tuple[str, int, int, float]], batch_games: int) -> str:
    """A sentence comparing each group with its even mark by the exact binomial test.

    `rows` holds (name, wins, plays, even share per play) per group; `batch_games` is the
    number of games in the batch, so a group with twice as many plays held two seats a game.
    Returns "" when no group can be tested (no even mark, or one group in every seat)."""
    clauses = []
    for name, wins, plays, even in rows:
        test = group_even_test(wins, plays, even, batch_games)
        if test is not None:
            clauses.append(even_verdict(name, test))
    if not clauses:
        return ""
    return (
        " Against that even share (exact binomial test), "
        + (", and ".join(clauses) if len(clauses) <= 2 else "; ".join(clauses))
        + "."
    )


def cap_sentence(result: SimulationResult) -> str:
    """ " The round cap settled 35.7% of these games; ..." or "" when it settled none."""
    share = round_cap_share(result)
    if not share > 0:
        return ""
    return (
        f" The round cap settled {100 * share:.1f}% of these games: the final accounting, not "
        "the last player standing, picked their winner."
    )
