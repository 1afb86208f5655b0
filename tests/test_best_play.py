"""Best play (issue 15): the family of strategies, the search for each role's best response,
the tournament matrix, the shipped runs, the `amteach best-play` command and the Best play
tab. The cores' agreement on family strategies is in tests/test_core.py, their invariants in
tests/test_properties.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import ipywidgets as widgets
import pandas as pd
import plotly.graph_objects as go
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from state_edit import poke
from traitlets import TraitError

from amteach import Game, RuleSet, simulate
from amteach.analysis import best_play_reading, best_play_results, best_play_search, outcomes, stats
from amteach.bots import KNOBS, FamilyParams, FamilyStrategy, check_bot, make_strategy
from amteach.cli import main
from amteach.engine.board import COMPETITOR, MONOPOLIST
from amteach.engine.choices import Trade
from amteach.engine.errors import InputError, RulesError
from amteach.engine.game import PlayerSetup, Setup
from amteach.session import Session
from amteach.sim import core
from amteach.sim.runner import SeatError, parse_seats
from amteach.style import ROLE_COLOURS

grids = st.tuples(*(st.integers(0, knob.size - 1) for knob in KNOBS))


# -- the family --------------------------------------------------------------------------------
@given(grid=grids)
def test_a_family_strategy_reads_back_from_its_text_and_its_vector(grid):
    params = FamilyParams.from_grid(grid)
    assert params.grid() == grid
    assert FamilyParams.parse(params.text()) == params
    assert FamilyParams.from_vector(params.vector()) == params
    assert check_bot(f"family:{params.text()}") == f"family:{params.text()}"
    assert make_strategy(f"family:{params.text()}").params == params


def test_knobs_not_named_keep_their_defaults_and_values_read_as_written():
    params = FamilyParams.parse("reserve=$100/streets=always/offer=3.5/accept=2/tax=flat")
    assert params.changed(reserve=150, streets=1, offer=16, accept=12, tax=0) == FamilyParams()
    assert (params.reserve, params.streets, params.offer, params.accept) == (100, 2, 14, 20)
    assert params.tax_name == "flat"
    assert FamilyParams.parse("") == FamilyParams()


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("reserve=110", "family.reserve", "steps of 25"),
        ("reserve=5000", "family.reserve", "from 0 to 1000"),
        ("streets=sometimes", "family.streets", "never, above, always"),
        ("offer=1.1", "family.offer", "from 0 to 6"),
        ("wizard=1", "family", "unknown knob 'wizard'"),
        ("reserve", "family", "has no '='"),
        ("tax=flat/tax=percent", "family.tax", "set twice"),
    ],
)
def test_a_bad_knob_gets_one_message_naming_it(text, field, words):
    with pytest.raises(RulesError) as err:
        FamilyParams.parse(text)
    assert err.value.field == field and words in str(err.value)
    with pytest.raises(SeatError, match="seats\\[1\\]"):
        parse_seats(f"competitor:investor,monopolist:family:{text}")
    with pytest.raises(InputError, match="controller must be 'human' or a bot"):
        Session().set_controller(1, f"family:{text}")


def test_the_strategy_in_words_follows_its_knobs_and_its_role():
    params = FamilyParams.parse(
        "houses=0/tax=flat/fine_cash=0/streets=always/utilities=never/key_streets=block/offer=0"
    )
    competitor, monopolist = params.describe(COMPETITOR), params.describe(MONOPOLIST)
    assert "It never builds." in competitor
    assert "always pays the flat income tax" in competitor
    assert "leave the Price War at once" in competitor and "leave Prison at once" in monopolist
    assert "buys streets whenever it can pay" in competitor and "never buys utilities" in competitor
    assert "rival Monopolist needs" in competitor and "never offers" in competitor
    builder = FamilyParams.parse("houses=2/apartments=no/builds_per_turn=1/offer=4")
    assert "up to 2 houses on a street and no apartments" in builder.describe(MONOPOLIST)
    assert "one building a turn" in builder.describe(MONOPOLIST)
    assert "completes a city, from 2 times" in builder.describe(MONOPOLIST)
    assert "needs to complete a city, to block it" in builder.describe(COMPETITOR)


def two_player_game(**rules: object) -> Game:
    setup = Setup(
        players=(PlayerSetup("Ana", COMPETITOR), PlayerSetup("Ben", MONOPOLIST)),
        rules=RuleSet.preset("default", **rules),
        seed=3,
    )
    return Game(setup)


def test_the_family_buys_by_kind_of_title_and_pays_for_key_streets():
    """Basin St. (1) and French Quarter (3) make New Orleans; a Monopolist needs two."""
    game = two_player_game()
    poke(game, actor=0, current=0, cash={0: 100})  # Basin St. costs 60: 40 would be left
    thrifty = FamilyStrategy("reserve=50/streets=above/key_streets=plain")
    assert not thrifty.wants(game, 1)
    assert FamilyStrategy("reserve=50/streets=always").wants(game, 1)
    poke(game, owner={3: 1})  # Ben the Monopolist holds French Quarter: Basin St. would complete it
    assert not FamilyStrategy("reserve=50/key_streets=complete").wants(game, 1)
    assert FamilyStrategy("reserve=50/key_streets=block").wants(game, 1)
    poke(game, actor=1, current=1, owner={3: NOT_OWNED, 1: 1}, cash={1: 100})
    assert FamilyStrategy("reserve=50/key_streets=complete").wants(game, 3)
    assert not FamilyStrategy("reserve=50/key_streets=plain").wants(game, 3)


NOT_OWNED = -1


def test_family_seats_carry_their_knobs_through_workers_and_both_cores(monkeypatch):
    seats = (
        "competitor:family:reserve=300/houses=2/key_streets=block/offer=2,"
        "monopolist:family:tax=flat/offer=5/raise_first=titles,"
        "competitor:family,monopolist:investor"
    )
    args = {"games": 24, "seats": seats, "seed": 4, "round_cap": 60, "progress": False}
    one, two = simulate(workers=1, **args), simulate(workers=2, **args)
    monkeypatch.setattr(core, "kernel", lambda: None)
    pure = simulate(workers=1, **args)
    for name in ("games", "players", "rounds", "taxes"):
        pd.testing.assert_frame_equal(getattr(one, name), getattr(two, name))
        pd.testing.assert_frame_equal(getattr(one, name), getattr(pure, name))
    assert (
        one.meta["seats"][1]["params"]
        == FamilyParams.parse("tax=flat/offer=5/raise_first=titles").text()
    )
    assert one.meta["seats"][1]["tax"] == "flat"
    assert set(one.players["bot"].astype(str)) == {"family", "investor"}
    assert (one.taxes[one.taxes["seat"] == 1]["choice"] == "flat").all()


def test_a_family_seat_survives_saving_a_batch_as_csv(tmp_path):
    from amteach.sim import SimulationResult

    result = simulate(
        games=6,
        seats="competitor:family:houses=1,monopolist:family:offer=0",
        round_cap=30,
        progress=False,
        workers=1,
    )
    result.save(tmp_path / "out", format="csv")
    loaded = SimulationResult.load(tmp_path / "out")
    assert loaded.meta["seats"] == result.meta["seats"]
    pd.testing.assert_frame_equal(loaded.games, result.games, check_dtype=False)


# -- the search ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_run():
    """A real search with a small budget: 40 games a candidate, four generations a role, two
    alternations, on one worker (deterministic: the generations bound it, not the clock)."""
    return best_play_search.best_play(
        games_per_candidate=40,
        budget_minutes=5,
        seed=1,
        workers=1,
        generations=4,
        phases=2,
        popsize=8,
        progress=False,
    )


def test_a_small_search_runs_and_improves_on_its_start(small_run):
    history = small_run.history
    assert list(small_run.phases["role"]) == ["competitor", "monopolist"]
    for phase, role in ((1, "competitor"), (2, "monopolist")):
        rows = history[history["phase"] == phase]
        assert (rows["role"] == role).all() and (rows["games"] == 40).all()
        start = rows[rows["source"] == "incumbent"]
        # four generations at most; a role's search stops sooner once a candidate wins all
        assert len(start) == 1 and 1 <= rows["generation"].max() <= 4
        assert set(rows[rows["generation"] == 0]["source"]) == {"incumbent", "one knob", "shipped"}
        assert rows["generation"].max() == 4 or rows["rate"].max() == 1.0
        assert rows["rate"].max() > start["rate"].iloc[0], f"phase {phase} found nothing better"
    first = small_run.phases.iloc[0]
    assert first["challenger"] != first["incumbent"]
    # the check games decide: Newcombe's interval for the challenger against the incumbent
    change = stats.compare_batches(
        round(first["incumbent_rate"] * first["games"]),
        first["games"],
        round(first["challenger_rate"] * first["games"]),
        first["games"],
    )
    assert bool(first["improved"]) == (change.low > 0)
    assert small_run.summary["candidates"] == len(history)


def test_each_role_search_starts_warm_from_the_known_strategies_and_the_incumbents_neighbours():
    """The warm start (docs/analysis.md, "Best play"): before CMA-ES a role's search plays its
    incumbent, the incumbent with each searched knob moved alone (the sensitivity check's
    values) and every shipped run's best strategy for the role (team play held as the
    incumbent has it), without repeats; without the warm start, the incumbent alone."""
    search = best_play_search.Search(best_play_search.SearchSettings(), progress=False)
    incumbent = search.current["monopolist"]
    pool = search.warm_pool("monopolist")
    assert pool[0] == (incumbent, "incumbent")
    assert len({params for params, _ in pool}) == len(pool)
    moved = {params for params, source in pool if source == "one knob"}
    for knob in search.searched:
        for value in best_play_search.probe_values(knob, getattr(incumbent, knob.name)):
            assert incumbent.changed(**{knob.name: value}) in moved, (knob.name, value)
    known = [params for params, source in pool if source == "shipped"]
    assert known and all(params.team == incumbent.team for params in known)
    offered = {params.changed(team=incumbent.team) for params, _ in pool}
    for params in best_play_results.shipped_strategies("monopolist"):
        assert params.changed(team=incumbent.team) in offered, params.text()
    cold = best_play_search.SearchSettings(warm_start=False)
    assert best_play_search.Search(cold, progress=False).warm_pool("competitor") == [
        (incumbent, "incumbent")
    ]


def test_a_search_records_the_known_strategies_it_started_from(small_run):
    known = small_run.summary["warm_start"]
    for role in ("competitor", "monopolist"):
        assert known[role] == [p.text() for p in best_play_results.shipped_strategies(role)]


def test_the_final_figures_come_from_fresh_games_with_their_intervals(small_run):
    summary = small_run.summary
    seeds = summary["seeds"]
    assert len(set(seeds.values())) == len(seeds)  # search, check and fresh games all differ
    figures = summary["equilibrium"]
    m = figures["monopolist"]
    assert figures["games"] == summary["games"]["final"] > 0
    assert (m["ci_low"], m["ci_high"]) == pytest.approx(
        stats.exact_interval(m["wins"], figures["games"])
    )
    test = stats.compare_with_even(m["wins"], figures["games"], 0.5)
    assert figures["even_test"] == {"p_value": test.p_value, "direction": test.direction}
    for key in ("command", "seed", "version", "date", "core", "preset", "round_cap"):
        assert key in summary
    reading = summary["reading"]
    assert reading.startswith("Under the strongest strategies we found (default rules)")
    assert f"{100 * m['rate']:.1f}%" in reading and "The features that matter most" in reading
    assert f"settled {100 * figures['round_cap_share']:.1f}%" in reading


def test_the_matrix_plays_every_named_bot_and_the_strategies_found(small_run):
    matrix = small_run.matrix
    names = [*best_play_results.NAMED, best_play_results.START, best_play_results.BEST]
    assert list(dict.fromkeys(matrix["competitor"])) == names
    assert list(dict.fromkeys(matrix["monopolist"])) == names
    assert len(matrix) == len(names) ** 2
    cell = matrix.set_index(["competitor", "monopolist"]).loc[
        (best_play_results.BEST, best_play_results.BEST)
    ]
    assert cell["competitor_bot"] == best_play_results.family_name(small_run.best("competitor"))
    for row in matrix.itertuples():
        assert row.competitor_wins + row.monopolist_wins <= row.games
        low, high = stats.exact_interval(row.monopolist_wins, row.games)
        assert (row.monopolist_ci_low, row.monopolist_ci_high) == pytest.approx((low, high))


def test_the_sensitivity_moves_one_knob_at_a_time(small_run):
    frame = small_run.sensitivity
    assert set(frame["role"]) == {"competitor", "monopolist"}
    for role in ("competitor", "monopolist"):
        rows = frame[frame["role"] == role]
        # every knob the search moved (team play is held at "no" unless asked for)
        assert set(rows["knob"]) == {k.name for k in KNOBS} - set(best_play_search.TEAM_KNOBS)
        assert (rows["value"] != rows["found"]).all()
        table = best_play_results.importance(small_run, role)
        assert (table["drop"].diff().dropna() <= 0).all()  # largest first
        worst = rows["change"].min()
        assert table["drop"].iloc[0] == pytest.approx(max(0.0, -worst))


def test_a_run_saves_tidy_files_and_loads_them_back(small_run, tmp_path):
    saved = small_run.save(tmp_path / "run")
    assert sorted(p.name for p in saved.iterdir()) == sorted(best_play_results.RESULT_FILES)
    loaded = best_play_results.BestPlayResult.load(saved)
    assert loaded.summary == json.loads(json.dumps(small_run.summary))
    assert loaded.best("monopolist") == small_run.best("monopolist")
    pd.testing.assert_frame_equal(loaded.matrix, small_run.matrix, check_dtype=False)
    with pytest.raises(InputError, match="already holds best-play results"):
        small_run.save(saved)
    with pytest.raises(InputError, match=r"summary\.json is missing"):
        best_play_results.BestPlayResult.load(tmp_path)


def test_ctrl_c_keeps_what_the_search_found():
    """The second phase's announcement stands in for a Ctrl-C in the middle of the search."""

    def stop_at_phase_two(text: str) -> None:
        if text.startswith("Phase 2"):
            raise KeyboardInterrupt

    result = best_play_search.best_play(
        games_per_candidate=20,
        budget_minutes=5,
        seed=2,
        workers=1,
        generations=2,
        popsize=4,
        progress=False,
        on_event=stop_at_phase_two,
    )
    assert result.interrupted and len(result.phases) == 1
    assert len(result.history) > 0 and result.summary["equilibrium"] == {}
    assert "stopped before its final games" in best_play_reading.reading_best_play(result)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("games_per_candidate", 5, "at least 20"),
        ("budget_minutes", 0, "above 0"),
        ("preset", "house-rules", "unknown rules preset"),
        ("seed", -1, "0 or more"),
        ("workers", 0, "at least 1"),
    ],
)
def test_bad_settings_are_refused_before_any_game(field, value, words):
    with pytest.raises(InputError, match=words):
        best_play_search.best_play(**{field: value, "progress": False})


# -- the heatmap ------------------------------------------------------------------------------------
def test_the_matrix_heatmap_is_readable_from_the_back_row(small_run):
    figure = best_play_reading.matrix_figure(small_run.matrix)
    (heat,) = figure.data
    assert isinstance(heat, go.Heatmap) and len(heat.z) == len(heat.y) == 6
    assert figure.layout.xaxis.tickfont.size >= 14 and figure.layout.yaxis.tickfont.size >= 14
    assert heat.textfont.size >= 14 and heat.colorbar.tickfont.size >= 14
    colours = [stop[1] for stop in heat.colorscale]
    assert colours[0] == ROLE_COLOURS[0] and colours[-1] == ROLE_COLOURS[1]
    assert all(label.endswith("●") for label in heat.y)  # a shape beside every colour
    assert all(label.endswith("■") for label in heat.x)
    best = small_run.matrix.set_index(["competitor", "monopolist"]).loc[
        ("best found", "best found")
    ]
    assert f"{100 * best['monopolist_rate']:.0f}%" in heat.text[-1][-1]


# -- the command ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--games-per-candidate", "many"], "--games-per-candidate must be a whole number"),
        (["--games-per-candidate", "3"], "--games-per-candidate must be at least 20"),
        (["--budget", "-1"], "--budget must be above 0"),
        (["--budget", "nan"], "--budget must be above 0"),
        (["--seed", "1.5"], "--seed must be a whole number"),
        (["--preset", "house"], "unknown rules preset 'house'"),
        (["--workers", "0"], "--workers must be at least 1"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_2(args, words, tmp_path):
    result = CliRunner().invoke(
        main, ["best-play", "--full", "--out", str(tmp_path / "run"), *args]
    )
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert words in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


def test_best_play_needs_a_folder_and_keeps_results_already_there(tmp_path):
    missing = CliRunner().invoke(main, ["best-play", "--full"])
    assert missing.exit_code == 2 and "--full needs --out DIR" in missing.stderr
    (tmp_path / "summary.json").write_text("{}")
    held = CliRunner().invoke(main, ["best-play", "--out", str(tmp_path)])
    assert held.exit_code == 2 and "already holds best-play results" in held.stderr
    assert (tmp_path / "summary.json").read_text() == "{}"


def test_the_command_runs_a_search_within_a_small_budget(tmp_path):
    # 3 s (0.05 minutes; 12 s until issue 40): the budget is wall time that the search fills,
    # so it was the test's CPU; the warm start, the check and the tail games (at least 20 games
    # a match) play whatever the budget, so the command still searches, checks, plays its
    # final figures, matrix and sensitivity and writes every file, even at load 20
    out = tmp_path / "run"
    result = CliRunner().invoke(
        main,
        [
            "best-play",
            "--full",
            "--games-per-candidate",
            "20",
            "--budget",
            "0.05",
            "--seed",
            "3",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Under the strongest strategies we found" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == sorted(best_play_results.RESULT_FILES)
    loaded = best_play_results.BestPlayResult.load(out)
    assert loaded.summary["games_per_candidate"] == 20 and loaded.summary["seed"] == 3
    lines = [line for line in result.stdout.splitlines() if line.startswith("competitor:family:")]
    assert lines == [f"competitor:family:{loaded.strategies['competitor']['text']}"]


# -- the shipped runs ------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", best_play_results.SHIPPED_PRESETS)
def test_the_shipped_runs_carry_their_provenance_and_agree_with_themselves(preset):
    run = best_play_results.shipped(preset)
    summary = run.summary
    assert summary["preset"] == preset and summary["command"].startswith("amteach best-play")
    assert f"--preset {preset}" in summary["command"]
    assert f"--seed {summary['seed']}" in summary["command"]
    for key in ("version", "date", "core", "elapsed_seconds", "games_played"):
        assert summary[key]
    assert not summary["interrupted"]
    figures = summary["equilibrium"]
    for role in ("competitor", "monopolist"):
        row = figures[role]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            stats.exact_interval(row["wins"], figures["games"])
        )
        assert run.best(role).text() == run.strategies[role]["text"]
    assert len(run.matrix) == 36 and not run.sensitivity.empty
    # the stored reading is the reading of the stored figures (its wording may be newer)
    assert (
        summary["reading"].split(";")[0] == best_play_reading.reading_best_play(run).split(";")[0]
    )


def test_the_shipped_best_against_best_replays_on_fresh_games():
    """The shipped strategies as seats of an ordinary batch: the Monopolists' win rate lands
    within the shipped interval's reach (a new set of games, so a Newcombe interval)."""
    run = best_play_results.shipped("default")
    seats = [
        f"{role}:family:{run.strategies[role]['text']}" for role in best_play_results.TABLE_ROLES
    ]
    result = simulate(games=300, seats=seats, seed=99, workers=1, progress=False)
    wins = int((result.games["winner_role"] == "monopolist").sum())
    figures = run.summary["equilibrium"]
    change = stats.compare_batches(figures["monopolist"]["wins"], figures["games"], wins, 300)
    assert not change.significant, change


# -- the Best play tab ----------------------------------------------------------------------------
def walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


def test_the_best_play_tab_shows_the_matrix_the_words_and_plays_best_against_best():
    from amteach.ui.dashboard import Dashboard

    dashboard = Dashboard()
    titles = [dashboard.tabs.get_title(i) for i in range(len(dashboard.tabs.children))]
    index = titles.index("Best play")
    dashboard.tabs.selected_index = index
    page = dashboard.tabs.children[index]
    figures = [w for w in walk(page) if isinstance(w, go.FigureWidget)]
    assert any(isinstance(t, go.Heatmap) for f in figures for t in f.data)
    text = " ".join(w.value for w in walk(page) if isinstance(w, widgets.HTML))
    run = best_play_results.shipped("default", "two-hour")  # the tab opens at the two-hour game
    assert run.summary["reading"].split(";")[0] in text
    assert run.best("monopolist").sentences(MONOPOLIST)[0] in text
    assert "From the default rules to edition-2005" in text
    button = next(
        w
        for w in walk(page)
        if isinstance(w, widgets.Button) and "best against best" in w.description
    )
    button.click()
    session = dashboard.app.session
    assert dashboard.tabs.selected_index == 0
    expected = best_play_results.controllers(run)
    assert session.seat_controllers == expected
    assert session.game.rules.preset_name == "default"
    assert session.step().ok  # the family bot decides
    toggle = next(w for w in walk(page) if isinstance(w, widgets.ToggleButtons))
    toggle.value = "edition-2005"
    button.click()
    assert session.seat_controllers == best_play_results.controllers(
        best_play_results.shipped("edition-2005", "two-hour")
    )
    assert session.game.rules.preset_name == "edition-2005"


# -- game length (issue 23) -----------------------------------------------------------------------
def test_a_two_hour_game_is_about_40_rounds_as_its_assumptions_say():
    """40 s a turn, 4 players, one extra turn in 6 for doubles: 7,200 s / 186.7 s = 38.6."""
    assert outcomes.rounds_in(7200) == outcomes.TWO_HOUR_ROUNDS == 40
    assert outcomes.rounds_in(7200, per_turn=60) == 25  # slower tables play fewer rounds
    assert "40 seconds" in outcomes.LENGTH_ASSUMPTIONS and "doubles" in outcomes.LENGTH_ASSUMPTIONS
    assert [g.key for g in outcomes.GAME_LENGTHS] == list(best_play_results.SHIPPED_LENGTHS)
    assert outcomes.time_is_up(40) == "two-hour game (about 40 rounds)"
    assert outcomes.time_is_up(300) == "time is up after 300 rounds"


def test_win_rates_by_length_count_each_batch_by_role_and_by_the_cap():
    """One batch a length on the same seed; the table recounts each batch's winners and the
    games the cap settled, with Wilson intervals."""
    seats = "competitor:investor,monopolist:investor,competitor:investor,monopolist:investor"
    frame = outcomes.play_by_length(seats, "default", seed=5, games=60, lengths=(10, 400))
    assert list(frame["rounds"]) == [10, 10, 400, 400]
    for rounds in (10, 400):
        batch = simulate(games=60, seats=seats, seed=5, round_cap=rounds, workers=1, progress=False)
        rows = frame[frame["rounds"] == rounds].set_index("role")
        for role in ("competitor", "monopolist"):
            wins = int((batch.games["winner_role"] == role).sum())
            assert rows.loc[role, "wins"] == wins
            assert (rows.loc[role, "ci_low"], rows.loc[role, "ci_high"]) == pytest.approx(
                stats.exact_interval(wins, 60)
            )
        capped = int((batch.games["end_reason"] == "round_cap").sum())
        assert (rows["capped"] == capped).all()
    # time settles every 10-round game and fewer of the 400-round ones
    assert frame.loc[0, "capped_share"] == 1.0 > frame.loc[2, "capped_share"]
    assert "Each length is its own batch of 60 games" in outcomes.reading_by_length(frame)


def test_a_batch_reports_win_rates_by_how_its_games_ended():
    seats = "competitor:investor,monopolist:investor,competitor:investor,monopolist:investor"
    result = simulate(games=80, seats=seats, seed=2, round_cap=60, workers=1, progress=False)
    frame = result.win_rates_by_ending()
    assert frame.groupby("ending")["games"].first().sum() == 80
    capped = result.games["end_reason"] == "round_cap"
    time_up = frame[frame["ending"] == "time up"].set_index("role")
    for role in ("competitor", "monopolist"):
        assert time_up.loc[role, "wins"] == int(
            (result.games.loc[capped, "winner_role"] == role).sum()
        )
    text = result.summary()
    assert "Win rate by how the games ended" in text and "time up after 60 rounds" in text
    from amteach.ui.batch import batch_summary_html

    html = batch_summary_html(result)
    assert "by how the games ended" in html and "Time up after 60 rounds" in html


def test_a_batch_panel_plays_the_game_length_chosen_and_charts_each_length():
    from amteach.ui.batch import LENGTH_GAMES, BatchPanel

    panel = BatchPanel("<p>test</p>", lambda result: [], default_games=50)
    assert [rounds for _, rounds in panel.length.options] == [40, 200, 2000]
    assert "40 seconds" in panel.length.tooltip
    with pytest.raises(TraitError):  # a browser can only pick one of the lengths offered
        panel.length.value = 10**9
    assert panel.chosen_length() == 200
    panel.length.value = 40
    panel.games.value = 50
    panel.start()
    panel.wait()
    assert panel.result.meta["rules"]["round_cap"] == 40
    assert panel.result.games["rounds"].max() <= 40
    assert panel.chart_rounds == outcomes.CHART_ROUNDS
    panel.chart_rounds = (10, 40, 100)  # shorter games than the page's, for a quick test
    panel.start_lengths()
    panel.wait()
    frame = panel.length_frame
    assert sorted(frame["rounds"].unique()) == [10, 40, 100]
    assert (frame["games"] == 50).all() and LENGTH_GAMES >= 50  # the Games slider's
    figure = next(w for w in walk(panel.length_charts) if isinstance(w, go.FigureWidget))
    lines = [t for t in figure.data if isinstance(t, go.Scatter)]
    assert [t.name for t in lines] == ["Competitors win", "Monopolists win"]
    assert all(t.error_y.array is not None for t in lines)  # intervals drawn
    bars = [t for t in figure.data if isinstance(t, go.Bar)]
    assert list(bars[0].y) == list(frame.drop_duplicates("rounds")["capped_share"])


# -- the shipped runs at every length (issue 23) --------------------------------------------------
SHIPPED = [
    (p, length)
    for p in best_play_results.SHIPPED_PRESETS
    for length in best_play_results.SHIPPED_LENGTHS
]


@pytest.mark.parametrize(("preset", "length"), SHIPPED)
def test_every_shipped_run_says_its_length_and_names_no_scratch_path(preset, length):
    assert length in best_play_results.shipped_lengths(preset), f"{preset}/{length} is not shipped"
    run = best_play_results.shipped(preset, length)
    summary = run.summary
    assert summary["round_cap"] == outcomes.LENGTHS_BY_KEY[length].rounds
    assert summary["length"] == length
    assert summary["game_length"] == outcomes.time_is_up(summary["round_cap"])
    assert f"--preset {preset}" in summary["command"]
    assert "--out" not in summary["command"]
    from importlib import resources

    folder = resources.files("amteach.data").joinpath("best_play", preset, length)
    for name in best_play_results.RESULT_FILES:
        text = folder.joinpath(name).read_text(encoding="utf-8")
        for scratch in ("/tmp", "/work", "/home"):
            assert scratch not in text, (name, scratch)
    # the strategy's words never break its role's rules (edition-2005 Monopolists build 3)
    for role in ("competitor", "monopolist"):
        most = RuleSet.preset(preset).max_houses(0 if role == "competitor" else 1)
        words = " ".join(
            run.strategies[role]["words"] + best_play_reading.strategy_bullets(run, role)
        )
        for built in re.findall(r"up to (\d) houses", words):
            assert int(built) <= most, (role, words)


@pytest.mark.parametrize("preset", best_play_results.SHIPPED_PRESETS)
def test_the_shipped_by_length_figures_replay_for_the_two_hour_game(preset):
    """summary.json's win rates by length: the two-hour row is played again from its seed
    and games, and every row holds its exact (Clopper-Pearson) interval."""
    run = best_play_results.shipped(preset, "two-hour")
    rows = pd.DataFrame(run.summary["by_length"])
    assert sorted(rows["rounds"].unique()) == sorted(outcomes.CHART_ROUNDS)
    for row in rows.itertuples():
        assert (row.ci_low, row.ci_high) == pytest.approx(stats.exact_interval(row.wins, row.games))
    first = rows[rows["rounds"] == outcomes.TWO_HOUR_ROUNDS]
    again = best_play_search.by_length(
        run, (outcomes.TWO_HOUR_ROUNDS,), int(first["games"].iloc[0]), int(first["seed"].iloc[0])
    )
    assert [r["wins"] for r in again] == list(first["wins"])
    assert [r["capped"] for r in again] == list(first["capped"])


@pytest.mark.parametrize("preset", best_play_results.SHIPPED_PRESETS)
def test_the_shipped_two_hour_run_measures_how_approximate_it_is(preset):
    check = best_play_results.shipped(preset, "two-hour").summary["approximation"]
    for role in ("competitor", "monopolist"):
        row = check[role]
        assert row["gain"] == pytest.approx(row["best_response_rate"] - row["final_rate"])
        assert row["ci_low"] <= row["gain"] <= row["ci_high"]
        n = check["check_games"]
        change = stats.compare_batches(
            round(row["final_rate"] * n), n, round(row["best_response_rate"] * n), n
        )
        assert (change.low, change.high) == pytest.approx((row["ci_low"], row["ci_high"]))


# -- team play (issue 23) -------------------------------------------------------------------------
def test_a_team_player_sells_its_teammate_the_street_that_completes_its_city():
    """Basin St. (1) and French Quarter (3) make New Orleans; two streets make a monopoly.
    Ben asks his teammate Dee for French Quarter at a tenth of its price."""
    setup = Setup(
        players=(
            PlayerSetup("Ana", COMPETITOR),
            PlayerSetup("Ben", MONOPOLIST),
            PlayerSetup("Cy", COMPETITOR),
            PlayerSetup("Dee", MONOPOLIST),
        ),
        rules=RuleSet.preset("default"),
        seed=3,
    )
    game = Game(setup)
    poke(game, actor=1, current=1, owner={1: 1, 3: 3})
    cheap = Trade(3, (), (3,), 6)
    assert FamilyStrategy("team=sell").accepts(game, cheap)
    assert not FamilyStrategy("team=no").accepts(game, cheap)
    # a Competitor asking is no teammate of a Monopolist; nor is a street that completes nothing
    poke(game, actor=0, current=0)
    assert not FamilyStrategy("team=sell").accepts(game, Trade(3, (), (3,), 6))
    poke(game, actor=1, current=1, owner={1: NOT_OWNED})
    assert not FamilyStrategy("team=sell").accepts(game, cheap)
    words = FamilyParams.parse("team=sell").describe(MONOPOLIST)
    assert "sells a teammate" in words
    assert "teammate" not in FamilyParams.parse("team=sell").describe(COMPETITOR)


def test_team_play_changes_who_wins_on_both_cores_alike():
    """Monopolists who sell each other the street that completes a city win more often than
    the same strategy without it, over the same games."""

    def seats(team: str) -> str:
        m = f"monopolist:family:offer=4/team={team}"
        return f"competitor:family,{m},competitor:family,{m}"

    rates = {}
    for team in ("no", "sell"):
        result = simulate(games=300, seats=seats(team), seed=8, workers=1, progress=False)
        rates[team] = (result.games["winner_role"] == "monopolist").mean()
    assert rates["sell"] > rates["no"]


# -- the Best play tab for the back row (issue 23) ------------------------------------------------
def test_the_best_play_tab_leads_with_a_sentence_and_hides_seat_codes_in_details():
    from amteach.ui import best_play

    run = best_play_results.shipped("edition-2005", "two-hour")
    sentence, condition = best_play.headline(run)
    rate = run.summary["equilibrium"]["monopolist"]["rate"]
    assert sentence == f"Monopolists win about {round(100 * rate)} of 100 two-hour games"
    assert "edition-2005 rules" in condition and "within the family" in condition
    page = best_play.best_play_page(Session(seed=1))
    shown = [w.value for w in walk(page) if isinstance(w, widgets.HTML)]
    seat_code = re.compile(r"(competitor|monopolist):family:|reserve=\d")
    for html in shown:
        outside = re.sub(r"<details.*?</details>", "", html, flags=re.S)
        assert not seat_code.search(outside), outside[:200]
    assert any(seat_code.search(html) for html in shown)  # in the details panel
    toggle = next(
        w
        for w in walk(page)
        if isinstance(w, widgets.ToggleButtons) and "Game length" in w.description
    )
    assert toggle.value == "two-hour"
    figures = [w for w in walk(page) if isinstance(w, go.FigureWidget)]
    assert any("game length" in (f.layout.title.text or "") for f in figures)


def test_best_against_best_names_the_bots_in_words_on_the_play_tab():
    from amteach.ui.app import ClassroomApp
    from amteach.ui.best_play import play_best_against_best

    app = ClassroomApp(seed=1)
    reply = play_best_against_best(app.session, best_play_results.shipped("default", "two-hour"))
    assert reply.ok and "family:" not in reply.message
    texts = " ".join(w.value for w in walk(app.widget) if isinstance(w, widgets.HTML))
    assert "a family strategy" in texts
    assert not re.search(r"(competitor|monopolist):family|family:\w+=|reserve=", texts)


def test_the_best_play_tab_reads_from_the_back_row_at_1280x720(dashboard_url, browser):
    """In Chromium at 1280x720: the headline is in large type inside the first screen,
    nothing on the tab is wider than the screen, both sides' strategies are on it side by
    side, the by-length chart is drawn, and no seat code is visible until the details panel
    opens."""
    # the session's dashboard server and the module's Chromium (tests/conftest.py), not a
    # server and a browser of the test's own: the page has a kernel of its own all the same
    wait = 180_000
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(dashboard_url, timeout=wait)
    page.locator(".am-choices button").first.wait_for(timeout=wait)
    page.locator(".widget-tab > .lm-TabBar").first.get_by_role(
        "tab", name="Best play", exact=True
    ).click()
    headline = page.locator(".am-best .am-headline")
    headline.wait_for(timeout=wait)
    assert re.match(r"Monopolists win about \d+ of 100 two-hour games", headline.inner_text())
    size = headline.evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)")
    big = page.locator(".am-best .am-big").evaluate(
        "(el) => parseFloat(getComputedStyle(el).fontSize)"
    )
    assert size >= 36 and big >= 48, (size, big)
    box = headline.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 720, box
    # the by-length chart draws both roles' lines and the bars of games time settled
    page.wait_for_function(
        "() => [...document.querySelectorAll('.am-best .js-plotly-plot .gtitle')]"
        ".some((t) => t.textContent.includes('game length'))",
        timeout=wait,
    )
    # nothing wider than the screen; the two sides side by side, both on screen
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 1280, width
    sides = page.locator(".am-best .am-side")
    assert sides.count() == 2
    first, second = sides.nth(0).bounding_box(), sides.nth(1).bounding_box()
    assert first["y"] == second["y"] and second["x"] + second["width"] <= 1280
    text = page.locator(".am-best").inner_text()
    assert "family:" not in text and "reserve=" not in text and "p =" not in text
    shots = Path(__file__).resolve().parents[1] / "test-output" / "browser"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "best-play-1280.png"))
    details = page.locator(".am-best details", has=page.locator("summary", has_text="Details"))
    details.locator("summary").click()
    assert "monopolist:family:" in details.inner_text()
    assert not errors, errors


@pytest.mark.parametrize("preset", best_play_results.SHIPPED_PRESETS)
def test_the_second_search_and_team_play_figures_hold_their_intervals(preset):
    """Each preset's two-hour run was searched again from another seed (bench_best_play.py
    second-seed: the same command, seed + 1): each role's gain from the other search's
    strategy is Newcombe's interval on the stored wins, and the largest gain the tab reports
    is the larger of the two checks."""
    summary = best_play_results.shipped(preset, "two-hour").summary
    second = summary["second_seed"]
    assert second["seeds"] == [summary["seed"], summary["seed"] + 1]
    # the same search from the next seed (the default run's second search had 20 minutes)
    command = second["second_command"].split()
    assert command[command.index("--seed") + 1] == str(summary["seed"] + 1)
    first = summary["command"].split()
    cap_option = "--length" if "--length" in first else "--round-cap"  # its older name
    for option in ("--preset", cap_option, "--games-per-candidate"):
        assert command[command.index(option) + 1] == first[first.index(option) + 1]
    assert second["second_equilibrium"]["monopolist"]["rate"] == second["monopolist_rates"][1]
    base = second["a_against_a"]
    for role, switched in (
        ("competitor", second["b_competitors_against_a"]),
        ("monopolist", second["b_monopolists_against_a"]),
    ):
        change = stats.compare_batches(
            base[f"{role}_wins"], base["games"], switched[f"{role}_wins"], switched["games"]
        )
        row = second[f"{role}_gain"]
        assert (row["gain"], row["ci_low"], row["ci_high"]) == pytest.approx(
            (change.difference, change.low, change.high)
        )
        largest = best_play_results.largest_gains(summary)[role]["gain"]
        assert largest == max(row["gain"], summary["approximation"][role]["gain"])
    for length in best_play_results.shipped_lengths(preset):
        team = best_play_results.shipped(preset, length).summary.get("team_play_gain")
        if team:
            assert team["gain"] == pytest.approx(team["with_team_play"] - team["without"])
            assert team["ci_low"] <= team["gain"] <= team["ci_high"]
