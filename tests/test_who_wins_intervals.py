"""One kind of interval on Who wins: every win rate a student reads against 50% (the summary
table, the chart's whiskers, the table by how games ended, the by-length chart) carries the
exact (Clopper-Pearson) interval that the even test reads (stats module docstring)."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from scipy.stats import binomtest

from amteach.analysis import fairness, outcomes, stats
from amteach.sim import simulate, wilson_interval
from amteach.ui.batch import INVESTOR_SEATS, batch_summary_html, by_length_figure

CELL = re.compile(r"<td>([\d.]+)% to ([\d.]+)%</td><td>(\d+) of (\d+)</td>")


def clopper_pearson(wins: int, games: int) -> tuple[float, float]:
    interval = binomtest(wins, games).proportion_ci(0.95, method="exact")
    return interval.low, interval.high


@pytest.fixture(scope="module")
def batch():
    return simulate(games=60, seats=INVESTOR_SEATS, seed=3, round_cap=60, workers=1, progress=False)


def test_a_who_wins_table_cell_and_the_charts_whisker_show_the_same_exact_interval(batch):
    html = batch_summary_html(batch)
    summary = html.split('<table class="am-summary">')[1].split("</table>")[0]
    cells = CELL.findall(summary)
    assert len(cells) == 2  # Competitors, Monopolists
    bars = fairness.win_rates_figure(batch, "role").data[0]
    for (low, high, wins, games), rate, above, below in zip(
        cells, bars.y, bars.error_y.array, bars.error_y.arrayminus, strict=True
    ):
        wins, games = int(wins), int(games)
        assert rate == pytest.approx(wins / games)
        exact = clopper_pearson(wins, games)
        # the whisker is the exact interval ...
        assert (rate - below, rate + above) == pytest.approx(exact)
        # ... and the cell prints the same two ends
        assert (float(low), float(high)) == (
            round(100 * exact[0], 1),
            round(100 * exact[1], 1),
        )
    # the batch is small enough that Wilson would print other ends
    competitors = int(cells[0][2])
    assert f"{100 * wilson_interval(competitors, 60)[0]:.1f}% to" not in summary


def test_the_table_by_how_games_ended_carries_exact_intervals(batch):
    html = batch_summary_html(batch)
    endings = html.split('<table class="am-endings">')[1]
    cells = CELL.findall(endings)
    assert cells
    for low, high, wins, games in cells:
        exact = clopper_pearson(int(wins), int(games))
        assert (float(low), float(high)) == (round(100 * exact[0], 1), round(100 * exact[1], 1))
    frame = stats.win_rates_by_ending(batch)
    for row in frame[frame["games"] > 0].itertuples():
        assert (row.ci_low, row.ci_high) == pytest.approx(clopper_pearson(row.wins, row.games))


def test_sixty_wins_in_a_hundred_is_read_against_half_by_its_exact_interval():
    """The lesson 4 case: Wilson's interval would leave out 50% ([50.2, 69.1]) while the exact
    test does not reject it (p = 0.057); the exact interval holds 50%, as the test says."""
    frame = stats.exact_intervals(pd.DataFrame({"wins": [60], "games": [100]}))
    assert frame.loc[0, "ci_low"] < 0.5 < wilson_interval(60, 100)[0]
    assert stats.compare_with_even(60, 100, 0.5).p_value == pytest.approx(0.0569, abs=1e-3)
    assert not stats.compare_with_even(60, 100, 0.5).significant


def test_the_by_length_chart_draws_exact_whiskers_even_for_rows_stored_with_wilson():
    rows = outcomes.length_rows(40, 7, 53, 60, 60) + outcomes.length_rows(2000, 20, 40, 60, 3)
    for row in rows:
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            clopper_pearson(row["wins"], row["games"])
        )
    stored = pd.DataFrame(rows)
    for index, row in stored.iterrows():  # as a run finished before the change stored them
        stored.loc[index, ["ci_low", "ci_high"]] = wilson_interval(row["wins"], row["games"])
    figure = by_length_figure(stored)
    lines = [trace for trace in figure.data if trace.type == "scatter"]
    for line, role in zip(lines, ("competitor", "monopolist"), strict=True):
        part = pd.DataFrame(rows).loc[lambda f, r=role: f["role"] == r].sort_values("rounds")
        for y, above, below, (_, row) in zip(
            line.y, line.error_y.array, line.error_y.arrayminus, part.iterrows(), strict=True
        ):
            assert (y - below, y + above) == pytest.approx(
                clopper_pearson(row["wins"], row["games"])
            )
    text = outcomes.reading_by_length(stored)
    low, high = clopper_pearson(53, 60)
    assert f"95% interval {100 * low:.1f}% to {100 * high:.1f}%" in text
