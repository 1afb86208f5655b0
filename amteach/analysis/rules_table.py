"""The rule parameters in plain words, for people: the Rules tab's Competitor | Monopolist
table, and the names a sweep's chart and reading give a parameter.

The figures all come from the `RuleSet` (amteach/data/rules.yaml); this module only says them
in words, with their units ($, %, times the dice). A parameter added to the rules appears in
the table under its own name until it gets words here (`tests/test_dashboard_pages.py` checks
that every parameter has them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.rules import RuleSet

# name -> (words, unit): the unit is "$", "%", "x dice" or "" (a count)
PARAMETER_WORDS: dict[str, tuple[str, str]] = {
    "starting_cash": ("starting cash", "$"),
    "start_payment": ("the payment for passing START", "$"),
    "income_tax_flat": ("the flat income tax", "$"),
    "income_tax_percent_competitor": ("the Competitors' percentage income tax", "%"),
    "income_tax_percent_monopolist": ("the Monopolists' percentage income tax", "%"),
    "property_tax": ("the property tax", "$"),
    "foundation_monopolist_fee": ("the Monopolists' fee at the Foundation", "$"),
    "foundation_competitor_prizes": ("the Competitors' prizes at the Foundation", "$"),
    "fine": ("the fine to leave Prison or Price War", "$"),
    "held_turns_before_forced_fine": ("turns a held player may try for doubles", ""),
    "max_houses_competitor": ("houses a Competitor builds before an apartment", ""),
    "max_houses_monopolist": ("houses a Monopolist builds before an apartment", ""),
    "building_supply": ("the Treasury's supply of buildings", ""),
    "supply_houses": ("houses in the Treasury", ""),
    "supply_apartments": ("apartments in the Treasury", ""),
    "monopoly_streets": ("streets of a city a Monopolist needs for a monopoly", ""),
    "transport_fare_competitor": ("a Competitor's transport fare", "$"),
    "transport_fares_monopolist": ("a Monopolist's transport fares", "$"),
    "utility_multiplier_competitor": ("a Competitor's utility rent", "x dice"),
    "utility_multipliers_monopolist": ("a Monopolist's utility rent", "x dice"),
    "mortgage_percent": ("a mortgage, as a share of the price", "%"),
    "redeem_percent": ("redeeming a mortgage, as a share of the price", "%"),
    "building_sellback_percent": ("selling buildings back, as a share of their cost", "%"),
    "settlement_keep_percent_competitor": (
        "the cash a Competitor keeps in the final accounting",
        "%",
    ),
    "settlement_keep_percent_monopolist": (
        "the cash a Monopolist keeps in the final accounting",
        "%",
    ),
    "settlement_utility_dice": ("the dice total for utilities in the final accounting", ""),
    "round_cap": ("the round cap", ""),
}


def parameter_words(name: str) -> str:
    """A parameter in words, e.g. "the Monopolists' fee at the Foundation"."""
    words = PARAMETER_WORDS.get(name)
    return words[0] if words else name.replace("_", " ")


def parameter_label(name: str) -> str:
    """A parameter in words with its unit, for an axis: "Monopolists' fee at the Foundation
    ($)"."""
    words, unit = PARAMETER_WORDS.get(name, (name.replace("_", " "), ""))
    words = words.removeprefix("the ")
    words = words[0].upper() + words[1:]
    return f"{words} ({unit.replace('x', '×')})" if unit else words


def parameter_value(name: str, value: Any) -> str:
    """One value of a parameter with its unit: "$10", "50%", "4 × dice", "no cap"."""
    unit = PARAMETER_WORDS.get(name, ("", ""))[1]
    if value is None:
        return "no cap" if name == "round_cap" else "none"
    if isinstance(value, list | tuple):
        return " / ".join(parameter_value(name, v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {parameter_value(name, v)}" for k, v in value.items())
    if unit == "$":
        return f"${value:,}" if isinstance(value, int) else f"${value}"
    if unit == "%":
        return f"{value}%"
    if unit == "x dice":
        return f"{value} × dice"
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class RuleRow:
    """One row of the rules table: `monopolist` is None when both roles share the rule
    (`competitor` then says it for both). `parameters` are the rule parameters behind the
    row, and `changed` those that differ from the default rules."""

    group: str
    rule: str
    competitor: str
    monopolist: str | None
    parameters: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()


def _money(amount: int) -> str:
    return f"${amount:,}"


def _tax(percents: Any) -> str:
    cash, titles, buildings = percents
    return f"{cash}% of cash + {titles}% of property + {buildings}% of buildings"


def _per_count(amounts: Any) -> str:
    """Fares by how many companies are owned: "$40 with 1, $80 with 2, ..."."""
    return ", ".join(
        f"{_money(amount)} with {count}" for count, amount in enumerate(amounts, start=1)
    )


def rules_table(rules: RuleSet | str | None = None) -> list[RuleRow]:
    """The rules of a preset (or a RuleSet) as rows: rule, Competitor, Monopolist."""
    r = RuleSet.coerce(rules)
    changed = set(r.changed_from_default())

    def row(group: str, rule: str, competitor: str, monopolist: str | None, *names: str) -> RuleRow:
        return RuleRow(
            group, rule, competitor, monopolist, names, tuple(n for n in names if n in changed)
        )

    prizes = r.to_dict()["foundation_competitor_prizes"]
    prize_words = ", ".join(f"a {face} wins {_money(amount)}" for face, amount in prizes.items())
    supply = (
        "unlimited"
        if r.unlimited_supply
        else f"{r.supply_houses} houses and {r.supply_apartments} apartments"
    )
    monopoly = f"{r.monopoly_streets} streets of a city"
    return [
        row("Money", "Starting cash", _money(r.starting_cash), None, "starting_cash"),
        row("Money", "Passing START", _money(r.start_payment), None, "start_payment"),
        row("Money", "Income tax, flat", _money(r.income_tax_flat), None, "income_tax_flat"),
        row(
            "Money",
            "Income tax, percentage (instead of the flat amount, as the player chooses)",
            _tax(r.income_tax_percent_competitor),
            _tax(r.income_tax_percent_monopolist),
            "income_tax_percent_competitor",
            "income_tax_percent_monopolist",
        ),
        row("Money", "Property tax", _money(r.property_tax), None, "property_tax"),
        row(
            "Money",
            "At the Anti-Monopoly Foundation",
            f"throws one die: {prize_words}; otherwise nothing",
            f"pays a fee of {_money(r.foundation_monopolist_fee)}",
            "foundation_competitor_prizes",
            "foundation_monopolist_fee",
        ),
        row(
            "Rent",
            "Doubled rent",
            "never: a street's rent is the same whoever owns the rest of its city",
            f"doubled on a bare street once they own {monopoly} (a monopoly)",
            "monopoly_streets",
        ),
        row(
            "Rent",
            "Transport companies",
            f"{_money(r.transport_fare_competitor)} however many they own",
            _per_count(r.transport_fares_monopolist) + " companies owned",
            "transport_fare_competitor",
            "transport_fares_monopolist",
        ),
        row(
            "Rent",
            "Utilities",
            f"{r.utility_multiplier_competitor} × the dice",
            " and ".join(
                f"{times} × the dice with {'one' if count == 1 else 'both'}"
                for count, times in enumerate(r.utility_multipliers_monopolist, start=1)
            ),
            "utility_multiplier_competitor",
            "utility_multipliers_monopolist",
        ),
        row(
            "Building",
            "Where they may build",
            "on any street they own",
            f"only in a city they have monopolized ({monopoly})",
            "monopoly_streets",
        ),
        row(
            "Building",
            "Houses on a street before an apartment",
            f"{r.max_houses_competitor} houses",
            f"{r.max_houses_monopolist} houses",
            "max_houses_competitor",
            "max_houses_monopolist",
        ),
        row(
            "Building",
            "The Treasury's buildings",
            supply,
            None,
            "building_supply",
            "supply_houses",
            "supply_apartments",
        ),
        row(
            "Prison and Price War",
            "While held (sent by the Go to corner or by a card)",
            "held in Price War: still collects rent",
            "held in Prison: collects no rent",
        ),
        row(
            "Prison and Price War",
            "Leaving",
            f"pay the {_money(r.fine)} fine, or try for doubles for up to "
            f"{r.held_turns_before_forced_fine} turns and then pay it",
            None,
            "fine",
            "held_turns_before_forced_fine",
        ),
        row(
            "Mortgages and sales",
            "Mortgage / redeem",
            f"the Treasury lends {r.mortgage_percent}% of the price; redeeming costs "
            f"{r.redeem_percent}% of it",
            None,
            "mortgage_percent",
            "redeem_percent",
        ),
        row(
            "Mortgages and sales",
            "Selling buildings back",
            f"{r.building_sellback_percent}% of what was paid for them",
            None,
            "building_sellback_percent",
        ),
        row(
            "The end",
            "Cash kept in the final accounting",
            f"{r.settlement_keep_percent_competitor}%",
            f"{r.settlement_keep_percent_monopolist}%",
            "settlement_keep_percent_competitor",
            "settlement_keep_percent_monopolist",
        ),
        row(
            "The end",
            "Utilities in the final accounting and the Game B score",
            f"counted as a throw of {r.settlement_utility_dice}",
            None,
            "settlement_utility_dice",
        ),
        row(
            "The end",
            "Round cap",
            "no cap: play until the game ends"
            if r.round_cap is None
            else f"after {r.round_cap} rounds, the final accounting settles the game",
            None,
            "round_cap",
        ),
    ]
