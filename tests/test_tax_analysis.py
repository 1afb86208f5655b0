"""Income-tax analysis (amteach.analysis.taxes): the break-even of decision 1's two options,
checked through `Game.tax_options` for both roles and both presets, and the summary of a small
simulated batch checked against counts taken straight from its frames."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

import amteach
from amteach.analysis.taxes import (
    BREAK_EVEN_COLUMNS,
    SUMMARY_COLUMNS,
    reading_tax_break_even,
    reading_tax_choice,
    tax_break_even,
    tax_break_even_figure,
    tax_choice_figure,
    tax_choice_summary,
)
from amteach.engine.board import COMPETITOR, MONOPOLIST, ROLES, standard_board
from amteach.engine.errors import InputError
from amteach.engine.game import Game, PlayerSetup, Setup, TitleSetup
from amteach.engine.rules import RuleSet
from amteach.style import ROLE_COLOURS, ROLE_LABELS, ROLE_SYMBOLS

BOARD = standard_board()
PRESETS = ("default", "edition-2005")
SEATS = (
    "competitor:cautious:flat,monopolist:cautious:percent,competitor:cautious:percent,"
    "monopolist:cautious:cheaper,competitor:cautious,monopolist:cautious:flat"
)


def taxpayer(role: int, rules: RuleSet, cash: int = 0, titles=()) -> Game:
    """A game where seat 0 (of `role`) holds `cash` and `titles` (TitleSetups)."""
    players = (
        PlayerSetup("taxpayer", role, cash=cash, titles=tuple(titles)),
        PlayerSetup("other", 1 - role),
    )
    return Game(Setup(players=players, rules=rules.replace(building_supply="unlimited"), seed=0))


@pytest.fixture(scope="module")
def break_evens():
    return {preset: tax_break_even(preset) for preset in PRESETS}


@pytest.fixture(scope="module")
def batch():
    return amteach.simulate(games=30, seats=SEATS, workers=1, progress=False, seed=11)


@pytest.fixture(scope="module")
def summary(batch):
    return tax_choice_summary(batch)


# -- the break-even -----------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("role", [COMPETITOR, MONOPOLIST])
def test_decision1_break_even_in_cash_is_where_the_engine_reaches_the_flat_tax(
    break_evens, preset, role
):
    """Decision 1: at the break-even cash the engine's percentage equals the flat $200 (the
    rates divide it exactly, so it is reached exactly); one dollar less and it is below."""
    rules = RuleSet.preset(preset)
    row = break_evens[preset].iloc[role]
    assert row["role"] == ROLES[role]
    cash = int(row["break_even_cash"])
    at = taxpayer(role, rules, cash=cash).tax_options(0)
    below = taxpayer(role, rules, cash=cash - 1).tax_options(0)
    assert at.percent == at.flat == rules.income_tax_flat == row["flat"]
    assert below.percent < below.flat
    assert at.rates == tuple(row[f"{a}_percent"] for a in ("cash", "property", "improvements"))


def test_decision1_default_break_evens_and_one_number_only_when_rates_are_equal(break_evens):
    """Decision 1: Competitors pay 10% of everything, so one break-even serves all assets;
    Monopolists pay 20% of cash and 10% of the rest, so their break-even depends on the asset."""
    for preset in PRESETS:
        frame = break_evens[preset]
        assert list(frame.columns) == list(BREAK_EVEN_COLUMNS)
        competitor, monopolist = frame.iloc[COMPETITOR], frame.iloc[MONOPOLIST]
        assert competitor["break_even"] == competitor["break_even_cash"] == 1995
        assert competitor["break_even_property"] == competitor["break_even_improvements"] == 1995
        assert pd.isna(monopolist["break_even"])
        assert monopolist["break_even_cash"] == 998
        assert monopolist["break_even_property"] == monopolist["break_even_improvements"] == 1995
        assert "$998 of cash alone" in monopolist["note"]


def test_decision1_a_zero_rate_never_reaches_the_flat_tax():
    """Decision 1 with other rates: an asset taxed at 0% never reaches the flat amount, and
    unequal rates give no single break-even. 35% of $570 is $199.50, which the engine rounds
    half up to $200; 35% of $569 is $199.15, rounded to $199."""
    rules = RuleSet.preset("default", income_tax_percent_monopolist=[0, 10, 35])
    frame = tax_break_even(rules)
    monopolist = frame.iloc[MONOPOLIST]
    assert pd.isna(monopolist["break_even_cash"]) and pd.isna(monopolist["break_even"])
    assert "never on cash alone" in monopolist["note"]
    assert monopolist["break_even_improvements"] == 570
    assert monopolist["break_even_property"] == 1995
    assert frame.iloc[COMPETITOR]["break_even"] == 1995
    assert "never on cash" in reading_tax_break_even(frame)


@given(cash=st.integers(0, 6000), preset=st.sampled_from(PRESETS), role=st.sampled_from([0, 1]))
def test_decision1_percentage_reaches_flat_exactly_from_the_cash_break_even(cash, preset, role):
    """Decision 1, for any cash: the percentage is at least the flat amount exactly when the
    cash is at least the break-even."""
    rules = RuleSet.preset(preset)
    row = tax_break_even(rules).iloc[role]
    options = taxpayer(role, rules, cash=cash).tax_options(0)
    assert (options.percent >= options.flat) == (cash >= row["break_even_cash"])


@given(
    owned=st.sets(st.sampled_from(BOARD.titles), max_size=len(BOARD.titles)),
    houses=st.integers(0, 3),
    role=st.sampled_from([0, 1]),
)
def test_decision1_property_and_buildings_break_even_on_real_titles(owned, houses, role):
    """Decision 1: property (unmortgaged titles at price) and improvements (what buildings
    cost) are taxed at the same rate, so with no cash the percentage reaches the flat amount
    exactly when property + improvements reach their break-even. Buildings stand on the
    Competitor's streets (a Monopolist's would need a monopolized city)."""
    rules = RuleSet.preset("default")
    row = tax_break_even(rules).iloc[role]
    assert row["break_even_property"] == row["break_even_improvements"]
    built = houses if role == COMPETITOR else 0
    titles = [TitleSetup(s, houses=built if BOARD.spaces[s].kind == "street" else 0) for s in owned]
    options = taxpayer(role, rules, titles=titles).tax_options(0)
    assets = options.property + options.improvements
    assert options.property == sum(BOARD.spaces[s].price for s in owned)
    assert (options.percent >= options.flat) == (assets >= row["break_even_property"])


@given(
    cash=st.integers(0, 5000),
    owned=st.sets(st.sampled_from(BOARD.titles), max_size=10),
    role=st.sampled_from([0, 1]),
    flat=st.integers(0, 400),
)
def test_decision1_the_cheaper_option_is_the_smaller_amount(cash, owned, role, flat):
    """Decision 1: whatever the assets, the option the engine calls cheaper costs the smaller
    of the two amounts (the flat one when they are equal)."""
    rules = RuleSet.preset("default", income_tax_flat=flat)
    options = taxpayer(role, rules, cash=cash, titles=[TitleSetup(s) for s in owned]).tax_options(0)
    assert getattr(options, options.cheaper) == min(options.flat, options.percent)
    if options.flat == options.percent:
        assert options.cheaper == "flat"


def test_tax_break_even_figure_draws_the_engines_percentages_and_marks_the_break_even(
    break_evens,
):
    figure = tax_break_even_figure("default")
    assert type(figure) is go.Figure
    assert figure.layout.xaxis.title.text and figure.layout.yaxis.title.text
    frame = break_evens["default"]
    flat_line = next(t for t in figure.data if t.name.startswith("flat tax"))
    assert set(flat_line.y) == {200}
    markers = [t for t in figure.data if t.mode == "markers+text"]
    assert sorted((t.x[0], t.marker.symbol) for t in markers) == sorted(
        [(998, ROLE_SYMBOLS[1]), (1995, ROLE_SYMBOLS[1]), (1995, ROLE_SYMBOLS[0])]
    )
    assert all(t.y[0] == 200 for t in markers)
    lines = [t for t in figure.data if t.mode == "lines" and t is not flat_line]
    for trace in lines:
        role = ROLE_LABELS.index(trace.name.split(":")[0])
        assert trace.line.color == ROLE_COLOURS[role]
        # every point is the engine's percentage for that much cash at the line's rate
        rate = int(re.search(r"at (\d+)%", trace.name).group(1))
        rules = RuleSet.preset("default", **{f"income_tax_percent_{ROLES[role]}": [rate, 0, 0]})
        for x, y in list(zip(trace.x, trace.y, strict=True))[::8]:
            assert taxpayer(role, rules, cash=int(x)).tax_options(0).percent == y
    assert {t.name for t in lines} == {
        "Competitor: any assets at 10%",
        "Monopolist: cash at 20%",
        "Monopolist: property or buildings at 10%",
    }
    assert frame["break_even_cash"].tolist() == [1995, 998]


def test_reading_tax_break_even_uses_the_frames_numbers(break_evens):
    text = reading_tax_break_even(break_evens["default"])
    amounts = [int(a.replace(",", "")) for a in re.findall(r"\$([\d,]+)", text)]
    assert amounts == [200, 200, 1995, 998, 1995]
    assert "for a Competitor at $1,995 of assets" in text
    assert "for a Monopolist at $998 of cash or at $1,995 of property or buildings" in text
    other = reading_tax_break_even(tax_break_even(RuleSet.preset("default", income_tax_flat=150)))
    assert "$1,495" in other and "$748" in other and "$150" in other


# -- the simulated choices -------------------------------------------------------------------


def test_tax_choice_summary_agrees_with_counts_taken_from_the_frames(batch, summary):
    """Decision 1 in play: each row's counts are those of the taxes frame's decisions by the
    seats of that role and tax behaviour (matched through the players frame)."""
    assert list(summary.columns) == list(SUMMARY_COLUMNS)
    taxes, players = batch.taxes, batch.players
    behaviour = {
        (g, s): t for g, s, t in zip(players["game"], players["seat"], players["tax"], strict=True)
    }
    assert len(summary) == 6  # every role with every behaviour, as seated
    for row in summary.itertuples():
        mask = np.array(
            [
                r == row.role and behaviour[(g, s)] == row.tax
                for g, s, r in zip(taxes["game"], taxes["seat"], taxes["role"], strict=True)
            ]
        )
        mine = taxes[mask]
        assert row.decisions == len(mine) > 0
        assert row.flat_cheaper == (mine["percent"] > mine["flat"]).sum()
        assert row.percent_cheaper == (mine["percent"] < mine["flat"]).sum()
        assert row.equal == (mine["percent"] == mine["flat"]).sum()
        assert row.flat_cheaper_share + row.percent_cheaper_share + row.equal_share == (
            pytest.approx(1)
        )
        assert row.chose_percent == (mine["choice"] == "percent").sum()
        assert row.paid_total == mine["paid"].sum()
        assert row.paid_mean == pytest.approx(mine["paid"].mean())
        lower = np.minimum(mine["flat"], mine["percent"]).sum()
        assert row.overpaid_total == row.paid_total - lower
        seats = players[(players["role"] == row.role) & (players["tax"] == row.tax)]
        assert row.players == len(seats) == 30
        assert row.income_tax_paid == seats["income_tax_paid"].sum()
        role_total = players.loc[players["role"] == row.role, "income_tax_paid"].sum()
        assert row.role_income_tax_paid == role_total


def test_tax_behaviours_choose_as_their_names_say(summary):
    """The bots' tax behaviours: flat always pays the flat amount, percent always the
    percentage, cheaper never pays more than the cheaper option."""
    by = summary.set_index(["role", "tax"])
    for role in ROLES:
        assert by.loc[(role, "flat"), "chose_percent"] == 0
        assert by.loc[(role, "percent"), "chose_flat"] == 0
        assert by.loc[(role, "cheaper"), "overpaid_total"] == 0
        assert by.loc[(role, "percent"), "overpaid_total"] > 0


def test_tax_choice_figure_shows_the_summary_in_role_colours(summary):
    figure = tax_choice_figure(summary)
    assert type(figure) is go.Figure
    bars = list(figure.data)
    assert len(bars) == 4
    for trace in bars:
        role = ROLE_LABELS.index(trace.name[:-1])
        assert trace.marker.color == ROLE_COLOURS[role]
        rows = summary[summary["role"] == ROLES[role]]
        column = "percent_cheaper_share" if trace.xaxis == "x" else "paid_mean"
        assert np.allclose(trace.y, rows[column])
    titles = [a.text for a in figure.layout.annotations]
    assert "How often the percentage was cheaper" in titles


def test_reading_tax_choice_uses_the_summarys_numbers(summary):
    text = reading_tax_choice(summary)
    for role in ROLES:
        rows = summary[summary["role"] == role]
        share = rows["percent_cheaper"].sum() / rows["decisions"].sum()
        label = ROLE_LABELS[ROLES.index(role)]
        assert f"for {label}s in {share:.0%} of {rows['decisions'].sum():,} decisions" in text
    worst = summary.loc[summary["overpaid_total"].idxmax()]
    assert f"${worst['overpaid_total']:,} more than the cheaper option" in text
    assert f"over {worst['decisions']:,} decisions" in text
    assert "always paid the percentage" in text or "always paid the flat tax" in text


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: tax_choice_summary(42), "result"),
        (lambda: tax_break_even(rules="nope"), "rules"),
        (lambda: tax_break_even(rules=3.5), "rules"),
        (lambda: reading_tax_break_even(pd.DataFrame()), "frame"),
        (lambda: tax_choice_figure(pd.DataFrame({"role": []})), "summary"),
    ],
)
def test_bad_input_names_the_parameter(call, field):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.field == field


def test_a_taxes_frame_without_its_columns_is_refused(batch):
    broken = amteach.sim.SimulationResult(
        games=batch.games,
        players=batch.players,
        rounds=batch.rounds,
        taxes=batch.taxes.drop(columns=["cheaper"]),
    )
    with pytest.raises(InputError) as err:
        tax_choice_summary(broken)
    assert err.value.field == "result.taxes" and "cheaper" in str(err.value)
