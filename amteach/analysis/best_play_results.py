"""A best-play run as it is kept (`amteach.analysis.best_play_search` makes one): the
strategies found, the search's history, each alternation's check, the tournament matrix and
the sensitivity check as tidy frames, and a summary with the equilibrium's figures and the
run's provenance; saving and loading them as CSV and JSON; the runs shipped with amteach
(`shipped`); and the figures read from a run (`importance`, `compare_presets`,
`largest_gains`). The sentences and the matrix's heatmap are in
`amteach.analysis.best_play_reading`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..bots import FAMILY, FamilyParams
from ..engine.board import ROLES
from ..engine.errors import InputError
from . import stats
from .outcomes import GAME_LENGTHS

COMPETITOR, MONOPOLIST = ROLES
TABLE_ROLES = (COMPETITOR, MONOPOLIST, COMPETITOR, MONOPOLIST)
NAMED = ("cautious", "builder", "investor", "random")
START, BEST = "family start", "best found"
FILES = ("summary.json", "strategies.json", "history.csv", "phases.csv", "matrix.csv")
SENSITIVITY_FILE = "sensitivity.csv"
RESULT_FILES = (*FILES, SENSITIVITY_FILE)
SHIPPED_PRESETS = ("default", "edition-2005")
SHIPPED_LENGTHS = tuple(length.key for length in GAME_LENGTHS)


# -- what a match came to, and the figures of record made from it ----------------------------------
@dataclass(frozen=True)
class Tally:
    """What a match came to: wins by role, games, and games the round cap settled."""

    competitor_wins: int
    monopolist_wins: int
    games: int
    capped: int

    def wins(self, role: str) -> int:
        return self.competitor_wins if role == COMPETITOR else self.monopolist_wins

    def rate(self, role: str) -> float:
        return self.wins(role) / self.games if self.games else float("nan")

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.competitor_wins + other.competitor_wins,
            self.monopolist_wins + other.monopolist_wins,
            self.games + other.games,
            self.capped + other.capped,
        )


def tally(tables: dict[str, dict[str, np.ndarray]]) -> Tally:
    """A chunk's games table as a Tally (seats alternate Competitor, Monopolist)."""
    winner = tables["games"]["winner"]
    won = winner[winner >= 0]
    return Tally(
        competitor_wins=int((won % 2 == 0).sum()),
        monopolist_wins=int((won % 2 == 1).sum()),
        games=len(winner),
        capped=int((tables["games"]["end_reason"] == 3).sum()),  # END_REASONS: round_cap
    )


def equilibrium_figures(result: Tally) -> dict[str, Any]:
    """The final figures of a match: each role's wins and rate with its exact (Clopper-Pearson)
    interval, the one the exact test of the Monopolists' rate against half the games reads, and
    the round cap's share."""
    figures: dict[str, Any] = {"games": result.games, "capped": result.capped}
    figures["round_cap_share"] = result.capped / result.games if result.games else float("nan")
    for role in ROLES:
        low, high = stats.exact_interval(result.wins(role), result.games)
        figures[role] = {
            "wins": result.wins(role),
            "rate": result.rate(role),
            "ci_low": low,
            "ci_high": high,
        }
    test = stats.compare_with_even(result.monopolist_wins, result.games, 0.5)
    figures["even_test"] = {"p_value": test.p_value, "direction": test.direction}
    return figures


def matrix_cell(result: Tally) -> dict[str, Any]:
    """One cell of the tournament matrix: games, wins, rates and exact intervals by role."""
    cell: dict[str, Any] = {"games": result.games}
    for role in ROLES:
        low, high = stats.exact_interval(result.wins(role), result.games)
        cell[f"{role}_wins"] = result.wins(role)
        cell[f"{role}_rate"] = result.rate(role)
        cell[f"{role}_ci_low"] = low
        cell[f"{role}_ci_high"] = high
    cell["round_cap_share"] = result.capped / result.games if result.games else float("nan")
    return cell


# -- a run as kept ---------------------------------------------------------------------------------
@dataclass
class BestPlayResult:
    """A best-play run: the strategies found, the search's history, each alternation's check,
    the tournament matrix, the sensitivity of each role's win rate to each knob, and a summary
    (the equilibrium's win rates on fresh seeds and the run's provenance)."""

    summary: dict[str, Any]
    strategies: dict[str, Any]
    history: pd.DataFrame
    phases: pd.DataFrame
    matrix: pd.DataFrame
    sensitivity: pd.DataFrame = field(default_factory=pd.DataFrame)

    def best(self, role: str) -> FamilyParams:
        """The strongest strategy found for `role` ("competitor" or "monopolist")."""
        return FamilyParams.parse(self.strategies[role]["text"])

    @property
    def interrupted(self) -> bool:
        return bool(self.summary.get("interrupted", False))

    # -- files ---------------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike[str], force: bool = False) -> Path:
        """Write the tidy files (CSV and JSON) into `directory`; results already there are
        kept unless `force`."""
        target = Path(directory)
        if target.exists() and not target.is_dir():
            raise InputError("exists and is not a folder", str(target))
        names = (*FILES, SENSITIVITY_FILE)
        existing = (
            sorted(p.name for p in target.glob("*") if p.name in names) if target.exists() else []
        )
        if existing and not force:
            raise InputError(
                f"already holds best-play results ({', '.join(existing)}); use --force "
                "(force=True) to replace them",
                str(target),
            )
        target.mkdir(parents=True, exist_ok=True)
        for name in existing:
            (target / name).unlink()
        (target / "summary.json").write_text(json.dumps(self.summary, indent=1), encoding="utf-8")
        (target / "strategies.json").write_text(
            json.dumps(self.strategies, indent=1), encoding="utf-8"
        )
        self.history.to_csv(target / "history.csv", index=False)
        self.phases.to_csv(target / "phases.csv", index=False)
        self.matrix.to_csv(target / "matrix.csv", index=False)
        if not self.sensitivity.empty:
            self.sensitivity.to_csv(target / SENSITIVITY_FILE, index=False)
        return target

    @classmethod
    def load(cls, source: str | os.PathLike[str] | Any) -> BestPlayResult:
        """Read a run saved by `save` (a folder, or a package resource folder)."""
        folder = source if hasattr(source, "joinpath") else Path(source)
        missing = [n for n in FILES if not folder.joinpath(n).is_file()]
        if missing:
            raise InputError(f"holds no best-play run ({missing[0]} is missing)", str(source))
        try:
            summary = json.loads(folder.joinpath("summary.json").read_text(encoding="utf-8"))
            strategies = json.loads(folder.joinpath("strategies.json").read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise InputError(f"not valid JSON: {err.msg}", str(source)) from None

        def frame(name: str) -> pd.DataFrame:
            path = folder.joinpath(name)
            if not path.is_file():
                return pd.DataFrame()
            with path.open("r", encoding="utf-8") as handle:
                try:
                    return pd.read_csv(handle)
                except pd.errors.EmptyDataError:  # a quick run has no matrix
                    return pd.DataFrame()

        return cls(
            summary=summary,
            strategies=strategies,
            history=frame("history.csv"),
            phases=frame("phases.csv"),
            matrix=frame("matrix.csv"),
            sensitivity=frame(SENSITIVITY_FILE),
        )


def shipped(preset: str = "default", length: str = "round-200") -> BestPlayResult:
    """The run shipped with amteach for a rules preset ("default" or "edition-2005") and a game
    length (`SHIPPED_LENGTHS`: "two-hour", "round-200" or "to-the-end"; see
    `outcomes.GAME_LENGTHS`): its command, seed, version, date and core are in its summary."""
    if preset not in SHIPPED_PRESETS:
        raise InputError(
            f"no shipped best-play run for {preset!r}; shipped: {', '.join(SHIPPED_PRESETS)}",
            field="preset",
        )
    if length not in SHIPPED_LENGTHS:
        raise InputError(
            f"no shipped best-play run at length {length!r}; shipped: {', '.join(SHIPPED_LENGTHS)}",
            field="length",
        )
    folder = resources.files("amteach.data").joinpath("best_play", preset, length)
    return BestPlayResult.load(folder)


def shipped_lengths(preset: str = "default") -> list[str]:
    """The game lengths shipped for a preset, shortest first (a run still being made is not)."""
    base = resources.files("amteach.data").joinpath("best_play", preset)
    return [
        key
        for key in SHIPPED_LENGTHS
        if base.joinpath(key).is_dir() and base.joinpath(key, "summary.json").is_file()
    ]


def shipped_strategies(role: str) -> list[FamilyParams]:
    """Every shipped run's best strategy for `role` (every preset and length, team play too),
    without repeats: the known strategies both searches try first."""
    found: list[FamilyParams] = []
    base = resources.files("amteach.data").joinpath("best_play")
    for preset in SHIPPED_PRESETS:
        for folder in sorted(base.joinpath(preset).iterdir(), key=lambda f: f.name):
            path = folder.joinpath("strategies.json")
            if path.is_file():
                record = json.loads(path.read_text(encoding="utf-8"))
                found.append(FamilyParams.parse(record[role]["text"]))
    return list(dict.fromkeys(found))


def family_name(params: FamilyParams) -> str:
    return f"{FAMILY}:{params.text()}"


def controllers(result: BestPlayResult) -> list[str]:
    """The bots of the usual table (Competitor, Monopolist, Competitor, Monopolist) when both
    roles play their best strategy: controllers for `Session.set_controller`."""
    return [family_name(result.best(role)) for role in TABLE_ROLES]


# -- figures read from a run -----------------------------------------------------------------------
def importance(result: BestPlayResult, role: str) -> pd.DataFrame:
    """How much each knob of a role's best strategy matters: `drop`, the most the role's win
    rate falls when that knob alone moves to another value (`gain`, the most it rises: the
    search's distance from a best response along that knob, on those games). Largest first."""
    frame = result.sensitivity
    if frame.empty:
        return pd.DataFrame(columns=["knob", "drop", "gain"])
    rows = frame[frame["role"] == role]
    table = rows.groupby("knob", sort=False)["change"].agg(["min", "max"])
    out = pd.DataFrame(
        {
            "knob": table.index,
            "drop": -table["min"].clip(upper=0),
            "gain": table["max"].clip(lower=0),
        }
    )
    return out.sort_values("drop", ascending=False, kind="stable").reset_index(drop=True)


def compare_presets(a: BestPlayResult, b: BestPlayResult) -> stats.BatchDifference:
    """The Monopolists' equilibrium win rate from run `a` to run `b` (two presets), with
    Newcombe's interval for the difference: they are separate batches of fresh games."""
    fa, fb = a.summary["equilibrium"], b.summary["equilibrium"]
    return stats.compare_batches(
        fa[MONOPOLIST]["wins"], fa["games"], fb[MONOPOLIST]["wins"], fb["games"]
    )


def largest_gains(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The most each role was found to gain against a run's final strategies, with Newcombe's
    95% interval: from the best-response check (`approximation`) and from the strategy of a
    second search (`second_seed`), whichever is larger. Empty when neither was run."""
    found: dict[str, dict[str, Any]] = {}
    for role in ROLES:
        options = []
        check = summary.get("approximation")
        # a check that ran out of time before trying a second candidate measured nothing
        if check and role in check and check[role].get("candidates", 0) > 1:
            options.append({**check[role], "source": "best-response check"})
        second = summary.get("second_seed")
        if second and f"{role}_gain" in second:
            options.append({**second[f"{role}_gain"], "source": "second search"})
        if options:
            found[role] = max(options, key=lambda row: row["gain"])
    return found
