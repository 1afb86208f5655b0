"""A family of strategies set by numbers a student can read: how much cash to keep, what to
buy, how to build, when to redeem and to raise money, the income-tax choice, the prices of
trades, and how to leave Prison or the Price War.

One `FamilyParams` is one strategy (a point of the family). The best-play search
(`amteach.analysis.best_play_search`) moves through the family looking for each role's strongest
strategy, so every knob is a whole number on a small grid: the search, the compiled core
(`amteach/sim/kernel.py`, which plays the family too) and the frames all see the same
integers, and a strategy written as text (`reserve=150/streets=above/...`) gives the same
games on either core.

The four named bots are shown beside the family (the tournament matrix plays them against the
strategies found), not as points of it: each has a rule of its own (the cautious bot builds
once a turn from three times its reserve, the investor buys by landing odds) that the family
keeps simpler.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..engine.choices import Choice, Trade
from ..engine.errors import RulesError
from ..engine.game import Game
from .builds import decisions
from .strategies import CODE, CORE, TAX_BEHAVIOURS, InvestorStrategy, read_game

FAMILY = CORE.BOTS[CODE["BOT_FAMILY"]]


@dataclass(frozen=True)
class Knob:
    """One number of a family strategy: its grid (low to high in steps), how it is written
    (`scale`: the text shows value / scale, so an offer of 16 quarters reads "4"), and the
    words for each level of a choice."""

    name: str
    low: int
    high: int
    step: int = 1
    scale: int = 1
    levels: tuple[str, ...] = ()
    about: str = ""

    @property
    def size(self) -> int:
        """How many values the knob can take."""
        return (self.high - self.low) // self.step + 1

    def value_at(self, index: int) -> int:
        """The value at grid position `index` (0 is `low`)."""
        return self.low + min(max(int(index), 0), self.size - 1) * self.step

    def index_of(self, value: int) -> int:
        return (value - self.low) // self.step

    def text(self, value: int) -> str:
        if self.levels:
            return self.levels[value - self.low]
        if self.scale == 1:
            return str(value)
        return f"{value / self.scale:g}"

    def parse(self, raw: Any) -> int:
        """A value as written ("150", "above", "4.25", 2), checked against the grid."""
        where = f"family.{self.name}"
        text = str(raw).strip().lower()
        if self.levels and text in self.levels:
            return self.low + self.levels.index(text)
        try:
            number = float(text.lstrip("$"))
        except ValueError:
            words = f" or one of {', '.join(self.levels)}" if self.levels else ""
            raise RulesError(
                f"{self.name} must be a number from {self.text(self.low)} to "
                f"{self.text(self.high)}{words}, not {raw!r}",
                field=where,
            ) from None
        value = number * self.scale
        if value != int(value) or not self.low <= value <= self.high:
            raise RulesError(
                f"{self.name} must be from {self.text(self.low)} to {self.text(self.high)}, "
                f"not {raw!r}",
                field=where,
            )
        value = int(value)
        if (value - self.low) % self.step:
            raise RulesError(
                f"{self.name} moves in steps of {self.step / self.scale:g}, so {raw!r} is not "
                "one of its values",
                field=where,
            )
        return value


BUY_LEVELS = ("never", "above", "always")  # never; when its reserve is left; whenever it can pay
TAX_BY_LEVEL = TAX_BEHAVIOURS
_KNOBS: tuple[Knob, ...] = (
    Knob("reserve", 0, 1000, 25, about="cash it keeps in hand when it buys a title"),
    Knob("streets", 0, 2, levels=BUY_LEVELS, about="buys streets"),
    Knob("transports", 0, 2, levels=BUY_LEVELS, about="buys transport companies"),
    Knob("utilities", 0, 2, levels=BUY_LEVELS, about="buys utilities"),
    Knob(
        "key_streets",
        0,
        2,
        levels=("plain", "complete", "block"),
        about="buys, whenever it can pay, a street that completes its own monopoly (complete), "
        "or also one a rival Monopolist needs (block)",
    ),
    Knob("build_reserve", 0, 1000, 25, about="cash it keeps in hand when it builds"),
    Knob("houses", 0, 4, about="houses it builds on a street at most (0: it never builds)"),
    Knob("apartments", 0, 1, levels=("no", "yes"), about="builds apartments on full streets"),
    Knob(
        "build_order",
        0,
        1,
        levels=("rent", "expected"),
        about="builds first where one landing's rent rises most (rent), or where the expected "
        "rent per dollar, from the landing odds, rises most (expected)",
    ),
    Knob("builds_per_turn", 1, 6, about="buildings it puts up in one turn at most"),
    Knob("redeem_reserve", 0, 2000, 50, about="cash it keeps in hand when it redeems a mortgage"),
    Knob(
        "raise_first",
        0,
        1,
        levels=("buildings", "titles"),
        about="to raise money it sells buildings first, or mortgages titles first",
    ),
    Knob("tax", 0, len(TAX_BY_LEVEL) - 1, levels=TAX_BY_LEVEL, about="its income-tax choice"),
    Knob(
        "offer",
        0,
        24,
        scale=4,
        about="the most it offers for a street, in times its price (0: it never offers): as a "
        "Monopolist for the street that completes a city, as a Competitor for a street a "
        "Monopolist needs for one (to block it)",
    ),
    Knob(
        "accept",
        10,
        50,
        scale=10,
        about="accepts a trade when what it gets is worth this many times what it gives up",
    ),
    Knob(
        "fine_cash",
        0,
        2000,
        50,
        about="pays the fine to leave Prison or the Price War when it has this much cash; "
        "with less it tries for doubles",
    ),
    Knob(
        "final_adjust",
        0,
        1,
        levels=("no", "yes"),
        about="at the final accounting, builds and redeems where the rent is worth more "
        "than the cash it keeps",
    ),
    Knob(
        "team",
        0,
        1,
        levels=("no", "sell"),
        about="team play: sells a teammate (a Monopolist like itself) the street that completes "
        "the teammate's city, for whatever the teammate offers (no: it values the trade as it "
        "would any other). Pooling cash at the end is not a knob: the final accounting deals "
        "with the Treasury only (decision 8)",
    ),
)
# the knobs in the order of the core's vector (amteach.bots.core.FAMILY_KNOBS, its F_* codes)
KNOB_NAMES: tuple[str, ...] = CORE.FAMILY_KNOBS
if sorted(k.name for k in _KNOBS) != sorted(KNOB_NAMES) or len(_KNOBS) != CODE["FAMILY_SIZE"]:
    raise ImportError("amteach.bots.family: the knobs are not the core's FAMILY_KNOBS")
KNOBS: tuple[Knob, ...] = tuple(next(k for k in _KNOBS if k.name == n) for n in KNOB_NAMES)
FAMILY_SIZE = len(KNOBS)


@dataclass(frozen=True)
class FamilyParams:
    """One strategy of the family: every knob's value, as a whole number on its grid (see
    KNOBS). The defaults are a sensible start, close to the investor bot in spirit."""

    reserve: int = 150
    streets: int = 1
    transports: int = 1
    utilities: int = 1
    key_streets: int = 1
    build_reserve: int = 150
    houses: int = 4
    apartments: int = 1
    build_order: int = 1
    builds_per_turn: int = 6
    redeem_reserve: int = 300
    raise_first: int = 0
    tax: int = 0
    offer: int = 16
    accept: int = 12
    fine_cash: int = 600
    final_adjust: int = 1
    team: int = 0

    def __post_init__(self) -> None:
        for knob in KNOBS:
            value = getattr(self, knob.name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise RulesError(
                    f"{knob.name} must be a whole number, not {value!r}",
                    field=f"family.{knob.name}",
                )
            if not knob.low <= value <= knob.high or (value - knob.low) % knob.step:
                raise RulesError(
                    f"{knob.name} must be on its grid from {knob.low} to {knob.high} in steps "
                    f"of {knob.step}, not {value}",
                    field=f"family.{knob.name}",
                )

    # -- as text and as numbers ----------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> FamilyParams:
        """From `name=value` pairs joined by "/" ("reserve=100/tax=flat/offer=3.5"); knobs not
        named keep their defaults. An empty text is the default strategy."""
        values: dict[str, int] = {}
        for item in str(text).split("/"):
            item = item.strip()
            if not item:
                continue
            name, sep, raw = item.partition("=")
            name = name.strip().lower()
            if not sep:
                raise RulesError(
                    f"a family strategy is name=value pairs joined by '/', such as "
                    f"'reserve=100/tax=flat'; {item!r} has no '='",
                    field="family",
                )
            if name not in KNOB_NAMES:
                raise RulesError(
                    f"unknown knob {name!r}; the family's knobs: {', '.join(KNOB_NAMES)}",
                    field="family",
                )
            if name in values:
                raise RulesError(f"{name} is set twice", field=f"family.{name}")
            values[name] = KNOBS[KNOB_NAMES.index(name)].parse(raw)
        return cls(**values)

    @classmethod
    def coerce(cls, value: FamilyParams | str | Mapping[str, Any] | None) -> FamilyParams:
        """A FamilyParams from itself, its text, a mapping of knob to value, or None (the
        defaults)."""
        if value is None:
            return cls()
        if isinstance(value, FamilyParams):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, Mapping):
            return cls.parse("/".join(f"{k}={v}" for k, v in value.items()))
        raise RulesError(
            f"a family strategy is its text or a mapping of knobs, not {value!r}", field="family"
        )

    def text(self) -> str:
        """Every knob as `name=value`, joined by "/": the form `parse` reads and seats use."""
        return "/".join(f"{k.name}={k.text(getattr(self, k.name))}" for k in KNOBS)

    def vector(self) -> tuple[int, ...]:
        """The knobs' values in KNOBS order (what the compiled core is given)."""
        return tuple(getattr(self, k.name) for k in KNOBS)

    @classmethod
    def from_vector(cls, values: Sequence[int]) -> FamilyParams:
        if len(values) != FAMILY_SIZE:
            raise RulesError(f"a family vector has {FAMILY_SIZE} numbers", field="family")
        return cls(**{k.name: int(v) for k, v in zip(KNOBS, values, strict=True)})

    def grid(self) -> tuple[int, ...]:
        """Each knob's position on its grid (0 for its lowest value): the search's space."""
        return tuple(k.index_of(getattr(self, k.name)) for k in KNOBS)

    @classmethod
    def from_grid(cls, positions: Iterable[float]) -> FamilyParams:
        """The strategy at these grid positions, each rounded to the nearest whole step and
        kept within its knob's range."""
        positions = list(positions)
        if len(positions) != FAMILY_SIZE:
            raise RulesError(f"a family grid point has {FAMILY_SIZE} numbers", field="family")
        return cls(
            **{k.name: k.value_at(round(float(x))) for k, x in zip(KNOBS, positions, strict=True)}
        )

    def changed(self, **values: int) -> FamilyParams:
        return replace(self, **values)

    def as_dict(self) -> dict[str, str]:
        """Each knob as it is written, for tables and JSON."""
        return {k.name: k.text(getattr(self, k.name)) for k in KNOBS}

    @property
    def tax_name(self) -> str:
        return TAX_BY_LEVEL[self.tax]

    # -- in words ---------------------------------------------------------------------------------
    def describe(self, role: int | None = None) -> str:
        """The strategy in sentences a student can read; `role` (0 Competitor, 1 Monopolist)
        leaves out what does not apply to it and names its hold (Prison or Price War)."""
        return " ".join(self.sentences(role))

    def sentences(self, role: int | None = None, max_houses: int | None = None) -> list[str]:
        """`describe`, one sentence per part of the strategy. `max_houses`, the most houses
        the role's rules allow on a street, keeps the words within the rules: a Monopolist
        whose knob says 4 houses, under rules that allow 3, builds up to 3."""
        out = [
            self._buying(role),
            self._building(max_houses),
            self._money(),
            self._trading(role),
        ]
        hold = {None: "Prison or the Price War", 0: "the Price War", 1: "Prison"}[role]
        if self.fine_cash == 0:
            out.append(f"It pays the fine to leave {hold} at once.")
        else:
            out.append(
                f"It pays the fine to leave {hold} when it has ${self.fine_cash:,} or more; "
                "with less it stays and tries for doubles."
            )
        if self.final_adjust:
            out.append(
                "At the final accounting it builds and redeems wherever the rent is worth more "
                "than the cash it would keep."
            )
        return out

    def _buying(self, role: int | None = None) -> str:
        kinds = {"streets": self.streets, "transport companies": self.transports}
        kinds["utilities"] = self.utilities
        groups = {
            level: [k for k, v in kinds.items() if v == i] for i, level in enumerate(BUY_LEVELS)
        }
        parts = []
        if groups["always"]:
            parts.append(f"buys {_join(groups['always'])} whenever it can pay")
        if groups["above"]:
            parts.append(
                f"buys {_join(groups['above'])} when it keeps ${self.reserve:,} after paying"
            )
        if groups["never"]:
            parts.append(f"never buys {_join(groups['never'])}")
        text = "It " + "; it ".join(parts) + "."
        own = "a street that completes its own monopoly"
        block = "a street that a rival Monopolist needs for one (to block it)"
        if role == 0:  # a Competitor has no monopoly of its own to complete
            if self.key_streets == 2:
                text += f" It buys, whenever it can pay, {block}."
        elif self.key_streets == 1:
            text += f" It buys {own} whenever it can pay."
        elif self.key_streets == 2:
            text += f" It buys, whenever it can pay, {own} or {block}."
        return text

    def _building(self, max_houses: int | None = None) -> str:
        if self.houses == 0:
            return "It never builds."
        houses = self.houses if max_houses is None else min(self.houses, max_houses)
        full = max_houses is None or houses >= max_houses
        if not self.apartments:
            apartments = " and no apartments"
        elif full:
            apartments = " and then an apartment"
        else:  # it stops before a street is full, so it never reaches an apartment
            apartments = ""
        where = (
            "where one landing's rent rises most"
            if self.build_order == 0
            else "where the expected rent per dollar, from the landing odds, rises most"
        )
        per_turn = (
            "one building a turn"
            if self.builds_per_turn == 1
            else f"up to {self.builds_per_turn} buildings a turn"
        )
        most = (
            " (the most its rules allow)" if max_houses is not None and houses < self.houses else ""
        )
        return (
            f"It builds up to {houses} house{'s' if houses > 1 else ''} on a street{most}"
            f"{apartments}, {where}, {per_turn}, keeping ${self.build_reserve:,} in hand."
        )

    def _money(self) -> str:
        raise_first = (
            "sells buildings before it mortgages titles"
            if self.raise_first == 0
            else "mortgages titles before it sells buildings"
        )
        tax = {
            0: "pays whichever income tax is cheaper",
            1: "always pays the flat income tax",
            2: "always pays the percentage income tax",
        }[self.tax]
        return (
            f"It redeems a mortgaged title when it keeps ${self.redeem_reserve:,} after paying; "
            f"to raise money it {raise_first}; it {tax}."
        )

    def _trading(self, role: int | None) -> str:
        accept = (
            f"It accepts a trade only when what it gets is worth {self.accept / 10:g} times what "
            "it gives up."
        )
        if self.team and role != 0:
            accept += (
                " It sells a teammate (a Monopolist like itself) the street that completes the "
                "teammate's city, for whatever the teammate offers."
            )
        if self.offer == 0:
            return "It never offers to buy a street. " + accept
        wants = {
            None: "the street that completes a city (as a Monopolist), or a street a "
            "Monopolist needs for one (as a Competitor, to block it)",
            0: "a street a Monopolist needs to complete a city, to block it",
            1: "the street that completes a city",
        }[role]
        top = self.offer / 4
        return (
            f"It offers to buy {wants}, from {top / 2:g} times the street's price up to "
            f"{top:g} times. " + accept
        )


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


class FamilyStrategy(InvestorStrategy):
    """A bot of the family: every decision follows its `params` (see KNOBS). It builds,
    redeems and trades after its throw, and reads the landing odds only for
    `build_order=expected`. Its decisions are `amteach.bots.core`'s, with its knobs."""

    name = FAMILY
    kind = CODE["BOT_FAMILY"]
    describe = (
        "A strategy set by numbers you can read: its cash reserve, what it buys, how it "
        "builds, when it redeems, its tax choice, its trade prices and how it leaves Prison "
        "or the Price War."
    )

    def __init__(
        self,
        params: FamilyParams | str | Mapping[str, Any] | None = None,
        tax: str | None = None,
        seed: int | None = None,
    ) -> None:
        params = FamilyParams.coerce(params)
        if tax is not None and tax != params.tax_name:
            if tax not in TAX_BY_LEVEL:
                raise RulesError(
                    f"unknown tax behaviour {tax!r}; valid: {', '.join(TAX_BY_LEVEL)}",
                    field="tax",
                )
            params = params.changed(tax=TAX_BY_LEVEL.index(tax))
        self.params = params
        super().__init__(tax=params.tax_name, seed=seed)

    def _knobs(self) -> Sequence[int]:
        return self.params.vector()

    def __repr__(self) -> str:
        return f"FamilyStrategy({self.params.text()!r})"

    @property
    def spec(self) -> str:
        """The bot as a seat or a controller names it: "family:<its knobs>"."""
        return f"{FAMILY}:{self.params.text()}"

    def propose_blocking_trade(self, game: Game) -> Choice | None:
        """As a Competitor, offer cash for a street a Monopolist holds in a city it has not
        monopolized yet, so that it cannot complete it (the same prices as its other offers)."""
        return self._hook(game, self._core.propose_blocking_trade)

    def build(self, game: Game) -> Choice | None:
        """The next building, if the strategy wants one now."""
        return self._hook(game, self._core.family_build)

    @staticmethod
    def completes_teammates_city(game: Game, trade: Trade) -> bool:
        """Is this trade a teammate's offer of cash (or nothing) for the one street that
        completes its city? Team play: both Monopolists, the proposer gives no title and
        asks for one street that gives it a monopoly."""
        module = decisions()
        return bool(module.completes_teammates_city(read_game(module, game, offer=trade)))


def is_family(name: str) -> bool:
    """Does a bot name ("family" or "family:<knobs>") name a family strategy?"""
    return name == FAMILY or name.startswith(FAMILY + ":")


def family_params(name: str) -> FamilyParams:
    """The knobs of a family bot named "family" or "family:<knobs>"."""
    return FamilyParams.parse(name.partition(":")[2])


def bot_words(name: str) -> str:
    """A seat's bot in words for a page ("the investor bot", "a family strategy"), never its
    knobs as code."""
    if is_family(name):
        return "a family strategy"
    return f"the {name} bot"
