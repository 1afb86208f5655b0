"""A batch's results as tidy pandas DataFrames, with saving, loading and summaries."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..engine.board import ROLES
from ..engine.errors import InputError
from ..style import ROLE_LABELS
from .accounting import ACCOUNTING_ENDINGS
from .play import END_REASONS, GAME_COLUMNS, PLAYER_COLUMNS, ROUND_COLUMNS, TAX_COLUMNS, SeatSpec

TABLES = ("games", "players", "rounds", "taxes")
# the frames' two columns on the final accounting (decision 12; sim.accounting)
LEADER_BEFORE = "leader_before_accounting"
BEFORE_ACCOUNTING = "cash_before_accounting"
# how a game ended, in two: played out (its own end) or time up (settled by the round cap)
ENDING_NAMES = ("played out", "time up")
FORMATS = ("parquet", "csv")
END_LABELS = {
    "game_a": "Game A",
    "game_b": "Game B",
    "two_hour": "two-hour accounting",
    "round_cap": "round cap",
}

# what each frame's columns mean (docs/simulation.md is written from this)
COLUMNS_DOC: dict[str, dict[str, str]] = {
    "games": {
        "game": "the game's number in the batch",
        "seed": "the game's own seed, derived from the master seed and the game's number",
        "winner": "the winner's seat (0 is the first player), or -1 if nobody won",
        "winner_role": "competitor or monopolist",
        "winner_bot": "the winner's bot",
        "rounds": "rounds played",
        "end_reason": "game_a (last player standing), game_b, two_hour, or round_cap (settled by the final accounting)",
        "decisions": "decisions taken by all players",
        "turns": "turns taken by all players",
        "leader_before_accounting": "in a game settled by the final accounting (two_hour or "
        "round_cap), the seat with the most cash when it began (the first seat of the most, as "
        "for the winner); -1 for a game without the final accounting",
    },
    "players": {
        "game": "the game's number",
        "seat": "turn order, from 0",
        "role": "competitor or monopolist",
        "bot": "the seat's bot",
        "tax": "its income-tax behaviour: cheaper, flat or percent",
        "turns": "turns taken",
        "cash_before_accounting": "cash when the final accounting began (before selling, "
        "mortgaging, the keep shares and the Treasurer's rent); in a game without it, the final "
        "cash",
        "final_cash": "cash at the end",
        "net_worth": "cash + titles at price (mortgaged: price less redeem price) + buildings at cost",
        "rule25_wealth": "cash + one landing's rent on every unmortgaged title (decision 11)",
        "rent_paid": "rent paid to other players",
        "rent_received": "rent received from other players",
        "taxes_paid": "income tax + property tax",
        "income_tax_paid": "income tax",
        "property_tax_paid": "property tax",
        "fines": "fines paid to leave Prison or Price War",
        "titles": "titles held at the end",
        "bankrupt": "true if the player went bankrupt",
        "bankrupt_round": "the round of the bankruptcy, empty if none",
    },
    "rounds": {
        "game": "the game's number",
        "round": "0 is the start; r is the end of round r; the last row is after the game's end",
        "seat": "turn order, from 0",
        "role": "competitor or monopolist",
        "bot": "the seat's bot",
        "cash": "cash",
        "titles": "titles at price (mortgaged: price less redeem price)",
        "buildings": "buildings at what was paid for them",
        "wealth": "cash + titles + buildings",
    },
    "taxes": {
        "game": "the game's number",
        "round": "the round of the decision",
        "seat": "turn order, from 0",
        "role": "competitor or monopolist",
        "bot": "the seat's bot",
        "flat": "the flat amount",
        "percent": "the role's percentage amount",
        "choice": "flat or percent",
        "paid": "the amount chosen",
        "cheaper": "which option was cheaper: flat, percent or equal",
    },
}


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (scipy's implementation)."""
    from scipy.stats import binomtest

    if trials == 0:
        return (float("nan"), float("nan"))
    ci = binomtest(int(successes), int(trials)).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return (float(ci.low), float(ci.high))


def exact_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval for a proportion (scipy's implementation), the one
    the dashboard's tables show."""
    from scipy.stats import binomtest

    if trials == 0:
        return (float("nan"), float("nan"))
    ci = binomtest(int(successes), int(trials)).proportion_ci(
        confidence_level=confidence, method="exact"
    )
    return (float(ci.low), float(ci.high))


# the intervals a summary may give a proportion, by the name it prints
INTERVALS = {"Wilson": wilson_interval, "exact": exact_interval}


def _by_seat(seat: np.ndarray, labels: list[str], categories: list[str]) -> pd.Categorical:
    """A categorical column from seat numbers, built from integer codes (no strings per row)."""
    codes = np.asarray([categories.index(label) for label in labels], dtype=np.int8)
    return pd.Categorical.from_codes(codes[seat], categories=categories)


def build_frames(
    chunks: list[dict[str, dict[str, np.ndarray]]], seats: tuple[SeatSpec, ...]
) -> dict[str, pd.DataFrame]:
    """Concatenate worker chunks (in game order) into the four tidy frames. Each table's chunk
    arrays are released as soon as they are joined, to keep the peak memory low."""
    roles = [s.role for s in seats]
    bots = [s.bot for s in seats]
    taxes = [s.tax for s in seats]
    role_names = sorted(set(roles) | {"competitor", "monopolist"})
    bot_names = sorted(set(bots))

    def table(name: str, columns: tuple[str, ...]) -> pd.DataFrame:
        data = {}
        for c in columns:
            parts = [chunk[name].pop(c) for chunk in chunks if name in chunk]
            data[c] = np.concatenate(parts) if parts else np.array([], dtype=np.int32)
        return pd.DataFrame(data, copy=False)

    def by_seat(frame: pd.DataFrame) -> pd.DataFrame:
        seat = frame["seat"].to_numpy()
        frame["seat"] = seat.astype(np.int8)
        at = frame.columns.get_loc("seat") + 1
        frame.insert(at, "role", _by_seat(seat, roles, role_names))
        frame.insert(at + 1, "bot", _by_seat(seat, bots, bot_names))
        return frame

    games = table("games", GAME_COLUMNS)
    winner = games["winner"].to_numpy()
    role_codes = np.asarray([role_names.index(r) for r in roles] + [-1], dtype=np.int8)
    bot_codes = np.asarray([bot_names.index(b) for b in bots] + [-1], dtype=np.int8)
    games["winner"] = winner.astype(np.int8)
    # winner -1 (nobody) indexes the trailing -1 code, a missing category
    games.insert(
        3, "winner_role", pd.Categorical.from_codes(role_codes[winner], categories=role_names)
    )
    games.insert(
        4, "winner_bot", pd.Categorical.from_codes(bot_codes[winner], categories=bot_names)
    )
    games[LEADER_BEFORE] = games[LEADER_BEFORE].to_numpy().astype(np.int8)
    games["end_reason"] = pd.Categorical.from_codes(
        games["end_reason"].to_numpy(), categories=list(END_REASONS)
    )

    players = by_seat(table("players", PLAYER_COLUMNS))
    players.insert(
        players.columns.get_loc("bot") + 1,
        "tax",
        _by_seat(players["seat"].to_numpy(), taxes, ["cheaper", "flat", "percent"]),
    )
    players["bankrupt"] = players["bankrupt_round"] >= 0
    players["bankrupt_round"] = players["bankrupt_round"].astype("Int32").where(players["bankrupt"])
    counts = [c for c in PLAYER_COLUMNS[2:] if c not in ("bankrupt_round", BEFORE_ACCOUNTING)]
    counts.insert(counts.index("final_cash"), BEFORE_ACCOUNTING)
    players = players[
        [*PLAYER_COLUMNS[:2], "role", "bot", "tax", *counts, "bankrupt", "bankrupt_round"]
    ]

    rounds = by_seat(table("rounds", ROUND_COLUMNS))
    rounds["round"] = rounds["round"].astype(np.int16)
    rounds["wealth"] = rounds["cash"] + rounds["titles"] + rounds["buildings"]

    tax = by_seat(table("taxes", TAX_COLUMNS))
    chose = tax.pop("chose_percent").to_numpy().astype(bool)
    tax["choice"] = pd.Categorical.from_codes(chose.astype(np.int8), categories=["flat", "percent"])
    tax["paid"] = np.where(chose, tax["percent"], tax["flat"]).astype(np.int32)
    flat, percent = tax["flat"].to_numpy(), tax["percent"].to_numpy()
    cheaper = np.where(percent < flat, 1, np.where(percent > flat, 0, 2)).astype(np.int8)
    tax["cheaper"] = pd.Categorical.from_codes(cheaper, categories=["flat", "percent", "equal"])
    return {"games": games, "players": players, "rounds": rounds, "taxes": tax}


@dataclass
class SimulationResult:
    """The frames of a batch (games, players, rounds, taxes) and how it was run (meta)."""

    games: pd.DataFrame
    players: pd.DataFrame
    rounds: pd.DataFrame
    taxes: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def completed(self) -> int:
        return len(self.games)

    @property
    def interrupted(self) -> bool:
        return bool(self.meta.get("interrupted", False))

    # -- summaries -------------------------------------------------------------------------------
    def win_rates(self, by: str = "role", confidence: float = 0.95) -> pd.DataFrame:
        """Win rate with a Wilson interval, by `role`, `bot` or `seat` of the winner.

        By role: the share of games a player of that role won. By bot or seat: the share of
        that seat's (or bot's) plays that ended in a win."""
        games = len(self.games)
        rows = []
        if by == "role":
            counts = self.games["winner_role"].value_counts()
            for role in ("competitor", "monopolist"):
                wins = int(counts.get(role, 0))
                rows.append({"role": role, "wins": wins, "games": games})
        elif by in ("bot", "seat"):
            players = self.players
            winners = self.games.set_index("game")["winner"]
            won = players["seat"].to_numpy() == winners.reindex(players["game"]).to_numpy()
            grouped = (
                players.assign(won=won).groupby(by, observed=True)["won"].agg(["sum", "count"])
            )
            for key, row in grouped.iterrows():
                rows.append({by: key, "wins": int(row["sum"]), "games": int(row["count"])})
        else:
            raise InputError(f"win rates are by role, bot or seat, not {by!r}", field="by")
        for row in rows:
            row["rate"] = row["wins"] / row["games"] if row["games"] else float("nan")
            row["ci_low"], row["ci_high"] = wilson_interval(row["wins"], row["games"], confidence)
        return pd.DataFrame(rows)

    def summary(self) -> str:
        """Plain-English summary: win rate by role with 95% intervals, game length, endings."""
        n = len(self.games)
        lines = []
        head = f"{n} games"
        if self.interrupted:
            head += f" (stopped early: {n} of {self.meta.get('requested', n)} finished)"
        if "elapsed" in self.meta and self.meta["elapsed"] > 0:
            elapsed = self.meta["elapsed"]
            head += f" in {elapsed:.1f} s ({n / elapsed:.0f} games/s, {int(self.games['turns'].sum()) / elapsed:,.0f} player-turns/s)"
        lines.append(head)
        if n == 0:
            return "\n".join(lines)
        lines.append("Win rate by role (95% Wilson interval):")
        for row in self.win_rates("role").itertuples():
            lines.append(
                f"  {ROLE_LABELS[ROLES.index(row.role)]:<11} {100 * row.rate:5.1f}%  [{100 * row.ci_low:.1f}%, {100 * row.ci_high:.1f}%]  "
                f"{row.wins} of {row.games} games"
            )
        no_winner = int((self.games["winner"] < 0).sum())
        if no_winner:
            lines.append(f"  no winner    {100 * no_winner / n:5.1f}%")
        rounds = self.games["rounds"]
        lines.append(f"Game length: mean {rounds.mean():.1f} rounds, median {rounds.median():.0f}")
        ends = self.games["end_reason"].value_counts(normalize=True)
        lines.append(
            "End reasons: "
            + ", ".join(f"{END_LABELS[k]} {100 * v:.1f}%" for k, v in ends.items() if v > 0)
        )
        cap = (self.meta.get("rules") or {}).get("round_cap")
        lines.append(
            "Win rate by how the games ended (95% Wilson interval)"
            + (f", time up after {cap} rounds:" if cap else ":")
        )
        for row in self.win_rates_by_ending().itertuples():
            if row.games == 0:
                continue
            lines.append(
                f"  {row.ending:<15} {ROLE_LABELS[ROLES.index(row.role)]:<11} "
                f"{100 * row.rate:5.1f}%  [{100 * row.ci_low:.1f}%, {100 * row.ci_high:.1f}%]  "
                f"{row.wins} of {row.games} games"
            )
        return "\n".join(lines)

    def win_rates_by_ending(self, confidence: float = 0.95) -> pd.DataFrame:
        """Win rate by role, split by how the games ended: "played out" (the game's own end:
        the last player standing, or one role out) or "time up" (the round cap's final
        accounting picked the winner). One row per ending and role: `ending`, `games`,
        `share` (of the batch), `role`, `wins`, `rate` and its Wilson interval."""
        games = self.games
        capped = (games["end_reason"] == "round_cap").to_numpy()
        rows = []
        for ending, part in ((ENDING_NAMES[0], games[~capped]), (ENDING_NAMES[1], games[capped])):
            counts = part["winner_role"].value_counts()
            for role in ROLES:
                wins, n = int(counts.get(role, 0)), len(part)
                low, high = wilson_interval(wins, n, confidence)
                rows.append(
                    {
                        "ending": ending,
                        "games": n,
                        "share": n / len(games) if len(games) else float("nan"),
                        "role": role,
                        "wins": wins,
                        "rate": wins / n if n else float("nan"),
                        "ci_low": low,
                        "ci_high": high,
                    }
                )
        return pd.DataFrame(
            rows, columns=["ending", "games", "share", "role", "wins", "rate", "ci_low", "ci_high"]
        )

    def accounting_changes(
        self, confidence: float = 0.95, interval: str = "Wilson"
    ) -> pd.DataFrame:
        """What the final accounting decided, over the games it settled (time up: two_hour or
        round_cap): one row for the winner (the seat with the most cash when it began is not
        the winner) and one for the winning role (that seat's role is not the winner's). Columns
        `change`, `changed`, `games` (settled by the accounting), `of` (all games), `rate` and
        its interval (`ci_low`, `ci_high`; NaN with no such game): `interval` "Wilson" or
        "exact" (Clopper-Pearson)."""
        if interval not in INTERVALS:
            raise InputError(
                f"interval must be one of {', '.join(INTERVALS)}, not {interval!r}",
                field="interval",
            )
        games = self.games
        if LEADER_BEFORE not in games:
            raise InputError(
                f"these games have no {LEADER_BEFORE} column (saved by an older amteach); "
                "play them again to see what the final accounting decided",
                field=LEADER_BEFORE,
            )
        settled = games[games["end_reason"].isin(ACCOUNTING_ENDINGS).to_numpy()]
        leader = settled[LEADER_BEFORE].to_numpy().astype(np.int64)
        winner = settled["winner"].to_numpy().astype(np.int64)
        # each seat's role in its own game (a class's tables may seat the roles differently)
        roles = self.players.set_index(["game", "seat"])["role"].astype(object)
        game_no = settled["game"].to_numpy()

        def role_of(seats: np.ndarray) -> np.ndarray:
            keys = pd.MultiIndex.from_arrays([game_no, seats.astype(self.players["seat"].dtype)])
            return roles.reindex(keys).to_numpy()

        leader_role, winner_role = role_of(leader), role_of(winner)
        same_role = (leader_role == winner_role) | (pd.isna(leader_role) & pd.isna(winner_role))
        rows = []
        for change, changed in (
            ("winner", int((leader != winner).sum())),
            ("winning role", int((~same_role).sum())),
        ):
            n = len(settled)
            low, high = INTERVALS[interval](changed, n, confidence)
            rows.append(
                {
                    "change": change,
                    "changed": changed,
                    "games": n,
                    "of": len(games),
                    "rate": changed / n if n else float("nan"),
                    "ci_low": low,
                    "ci_high": high,
                }
            )
        return pd.DataFrame(rows)

    def accounting_text(self, interval: str = "Wilson") -> str:
        """Plain English: the share of games whose winner (and winning role) the final
        accounting changed, with 95% intervals (`interval`: "Wilson", as `amteach simulate`
        prints, or "exact", as the dashboard shows), and what it holds under: how many games
        it settled, after how many rounds, and the keep shares."""
        table = self.accounting_changes(interval=interval).set_index("change")
        winner, role = table.loc["winner"], table.loc["winning role"]
        n, total = int(winner["games"]), int(winner["of"])
        if n == 0:
            return (
                f"None of the {total:,} games ended in the final accounting (every one was "
                "played out), so it decided none."
            )

        def share(row: pd.Series) -> str:
            return (
                f"{100 * row['rate']:.1f}% [{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}]"
            )

        return (
            f"The final accounting changed the winner of {int(winner['changed']):,} of {n:,} "
            f"games ({share(winner)}); the winning role in {int(role['changed']):,} "
            f"({share(role)}).\n"
            f"  Over the {n:,} of {total:,} games that time ended, {self.accounting_conditions()}; "
            "changed: the player with the most cash when time was up did not win; "
            f"95% {interval} intervals."
        )

    def accounting_conditions(self) -> str:
        """What the final accounting's figures hold under, in words: the rounds after which
        time ended the games and the keep shares of the rules (meta), e.g. "after 6 rounds;
        Competitors keep 10% of their cash, Monopolists 20%"; empty with no such game."""
        settled = self.games[self.games["end_reason"].isin(ACCOUNTING_ENDINGS).to_numpy()]
        if not len(settled):
            return ""
        low, high = int(settled["rounds"].min()), int(settled["rounds"].max())
        after = f"after {low:,} round{'' if low == 1 else 's'}"
        if high != low:
            after = f"after {low:,} to {high:,} rounds"
        rules = self.meta.get("rules") or {}
        if "settlement_keep_percent_competitor" not in rules:
            if len(set(self.meta.get("rule_sets") or ())) > 1:  # a class's treatments
                return (
                    f"{after}; the tables played {', '.join(sorted(set(self.meta['rule_sets'])))}"
                )
            return after
        return (
            f"{after}; Competitors keep {rules['settlement_keep_percent_competitor']}% of their "
            f"cash, Monopolists {rules['settlement_keep_percent_monopolist']}%"
        )

    def __repr__(self) -> str:
        return f"<SimulationResult {self.completed} games; frames: games, players, rounds, taxes>"

    # -- files ---------------------------------------------------------------------------------
    def save(
        self, directory: str | os.PathLike[str], format: str = "parquet", force: bool = False
    ) -> Path:
        """Write the four frames and meta.json into `directory`. An existing batch there is
        kept unless `force` is true."""
        if format not in FORMATS:
            raise InputError(
                f"format must be one of {', '.join(FORMATS)}, not {format!r}", field="format"
            )
        target = Path(directory)
        if target.exists() and not target.is_dir():
            raise InputError("exists and is not a folder", str(target))
        existing = (
            [p.name for p in target.glob("*") if p.stem in (*TABLES, "meta")]
            if target.exists()
            else []
        )
        if existing and not force:
            raise InputError(
                f"already holds results ({', '.join(sorted(existing))}); use --force (force=True) to replace them",
                str(target),
            )
        target.mkdir(parents=True, exist_ok=True)
        for name in existing:
            (target / name).unlink()
        for name in TABLES:
            frame: pd.DataFrame = getattr(self, name)
            if format == "parquet":
                frame.to_parquet(target / f"{name}.parquet", index=False)
            else:
                frame.to_csv(target / f"{name}.csv", index=False)
        (target / "meta.json").write_text(
            json.dumps({**self.meta, "format": format}, indent=1), encoding="utf-8"
        )
        return target

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> SimulationResult:
        """Read a batch written by `save` (Parquet or CSV)."""
        source = Path(directory)
        meta_path = source / "meta.json"
        if not meta_path.is_file():
            raise InputError("holds no saved batch (meta.json is missing)", str(source))
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise InputError(f"not valid JSON: {err.msg}", str(meta_path)) from None
        format = meta.get("format", "parquet")
        frames = {}
        for name in TABLES:
            path = source / f"{name}.{format}"
            if not path.is_file():
                raise InputError("is missing", str(path))
            frames[name] = (
                pd.read_parquet(path) if format == "parquet" else _read_csv(path, name, meta)
            )
        return cls(meta=meta, **frames)


def _read_csv(path: Path, name: str, meta: dict[str, Any]) -> pd.DataFrame:
    """CSV loses types; restore the categories and integer widths the frames use."""
    frame = pd.read_csv(path)
    seats = tuple(SeatSpec(**s) for s in meta.get("seats", []))
    roles = sorted({s.role for s in seats} | {"competitor", "monopolist"})
    bots = sorted({s.bot for s in seats})
    for column, categories in (
        ("role", roles),
        ("winner_role", roles),
        ("bot", bots),
        ("winner_bot", bots),
        ("tax", ["cheaper", "flat", "percent"]),
        ("end_reason", list(END_REASONS)),
        ("choice", ["flat", "percent"]),
        ("cheaper", ["flat", "percent", "equal"]),
    ):
        if column in frame:
            frame[column] = pd.Categorical(frame[column], categories=categories)
    for column in ("seat", "winner", LEADER_BEFORE):
        if column in frame:
            frame[column] = frame[column].astype(np.int8)
    if name == "rounds":
        frame["round"] = frame["round"].astype(np.int16)
    if "bankrupt_round" in frame:
        frame["bankrupt_round"] = frame["bankrupt_round"].astype("Int32")
    int_columns = [c for c in frame.columns if frame[c].dtype == np.int64 and c != "seed"]
    frame[int_columns] = frame[int_columns].astype(np.int32)
    return frame
