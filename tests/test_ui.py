"""The classroom app, driven by clicking its buttons as a class would (no browser needed).
After each click: the game's state, the narration and the chart data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from amteach.engine import events as ev
from amteach.ui import ClassroomApp

REPO = Path(__file__).resolve().parents[1]

HUMANS = [("Ana", "competitor", "human"), ("Ben", "monopolist", "human")]


def scenario_file(tmp_path: Path, name: str = "moment", **fields) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(fields), encoding="utf-8")
    return path


def app_at(tmp_path: Path, players, dice=(), cards=None, seats=HUMANS) -> ClassroomApp:
    app = ClassroomApp(seats=seats, seed=1, scenario_dir=tmp_path)
    fields = {"players": players, "dice": [list(d) for d in dice]}
    if cards:
        fields["cards"] = cards
    assert app.load_scenario(scenario_file(tmp_path, **fields).stem), app.message.value
    return app


def chart_xy(app: ClassroomApp, chart: str, trace: int) -> tuple[list, list]:
    data = app.charts[chart].data[trace]
    return list(data.x), list(data.y)


def test_a_human_turn_that_buys(tmp_path):
    app = app_at(
        tmp_path,
        [{"name": "Ana", "role": "competitor"}, {"name": "Ben", "role": "monopolist"}],
        dice=[[5, 6]],
    )
    assert list(app.buttons()) == ["Roll"]
    app.click("Roll")
    assert list(app.buttons()) == ["Buy Rush St. for $140", "Decline"]
    assert app.narration_lines[0] == "Ana moves from START to Rush St."
    app.click("Buy Rush St. for $140")
    assert app.game.owner[11] == 0 and app.game.cash[0] == 1500 - 140
    assert app.narration_lines[0] == "Ana (Competitor) buys Rush St. for $140."
    assert (
        "owned by Ana (Competitor)"
        in app.board_view.value.split('data-space="11"')[1].split('data-space="12"')[0]
    )
    assert "$1,360" in app.players_view.value
    app.click("End turn")
    assert app.game.actor == 1 and "<b>Ben (Monopolist)</b> to decide" in app.decisions.status.value
    # the wealth chart got one point per turn start, equal to the engine's net worth then
    xs, ys = chart_xy(app, "wealth", 0)
    assert xs == [1, 2] and ys == [1500, 1500]  # buying swaps cash for a title at price


def test_an_income_tax_choice_shows_both_amounts_and_charts_the_choice(tmp_path):
    app = app_at(
        tmp_path,
        [
            {
                "name": "Ana",
                "role": "competitor",
                "cash": 1000,
                "titles": {"Rush St.": {"houses": 2}},
            },
            {"name": "Ben", "role": "monopolist"},
        ],
        dice=[[1, 3]],
    )
    app.click("Roll")
    percent = (10 * 1000 + 10 * 140 + 10 * 200 + 50) // 100
    assert list(app.buttons())[:2] == [
        "Pay $200 flat",
        f"Pay ${percent} (10% of cash + 10% of property + 10% of buildings)",
    ]
    app.click(f"Pay ${percent}")
    assert app.game.cash[0] == 1000 - percent
    assert app.narration_lines[1].startswith("Ana (Competitor) chooses the percentage tax")
    _flat_x, flat_y = chart_xy(app, "taxes", 0)
    _pct_x, pct_y = chart_xy(app, "taxes", 1)
    _chosen_x, chosen_y = chart_xy(app, "taxes", 2)  # chosen by a Competitor
    assert (flat_y, pct_y, chosen_y) == ([200], [percent], [percent])
    choices = [e for e in app.game.events if isinstance(e, ev.IncomeTaxChoice)]
    assert [(e.flat, e.percent) for e in choices] == [(200, percent)]


def test_building_as_a_competitor(tmp_path):
    app = app_at(
        tmp_path,
        [
            {"name": "Ana", "role": "competitor", "titles": {"Rush St.": {}}},
            {"name": "Ben", "role": "monopolist"},
        ],
    )
    app.manage.picker.value = 11
    assert app.buttons()["Build a house on Rush St. for $100"]
    app.click("Build a house on Rush St. for $100")
    assert app.game.houses[11] == 1 and app.game.cash[0] == 1400
    assert app.narration_lines[0] == "Ana (Competitor) builds a house on Rush St. for $100."
    assert "⌂" in app.board_view.value.split('data-space="11"')[1].split('data-space="12"')[0]
    assert app.game.state.supply_houses == 34


def test_a_monopolist_without_a_monopoly_is_refused_a_build(tmp_path):
    app = app_at(
        tmp_path,
        [
            {"name": "Ben", "role": "monopolist", "titles": {"Rush St.": {}}},
            {"name": "Ana", "role": "competitor"},
        ],
    )
    app.manage.picker.value = 11
    build = app.manage.buttons["build"]
    assert build.disabled  # the app offers only legal choices, and says why not (rule 10)
    why = "a Monopolist builds only in a monopolized city; Ben owns 1 unmortgaged Chicago street"
    assert why in build.tooltip and why in app.manage.reasons.value
    assert app.manage.reasons.value.startswith("<div><b>Build</b>: ")
    before = app.game.state.as_dict()
    build.click()  # a click that arrives anyway (a stale page, a keyboard)
    assert app.game.state.as_dict() == before
    assert "Monopolist builds only in a monopolized city" in app.message.value
    assert "rule 10" in app.message.value


def test_undo_takes_back_the_last_decision_everywhere(tmp_path):
    app = app_at(
        tmp_path,
        [{"name": "Ana", "role": "competitor"}, {"name": "Ben", "role": "monopolist"}],
        dice=[[5, 6]],
    )
    app.click("Roll")
    app.click("Buy Rush St.")
    bought = app.game.state.as_dict()
    app.click("End turn")
    assert app.game.actor == 1
    app.click("Undo")
    assert app.game.state.as_dict() == bought
    assert (
        list(app.buttons())
        == ["End turn", *[b for b in app.buttons() if b != "End turn"]][: len(app.buttons())]
    )
    assert app.narration_lines[0] == "Ana (Competitor) buys Rush St. for $140."
    assert chart_xy(app, "wealth", 0) == ([1], [1500])


def test_save_then_load_restores_the_game(tmp_path):
    app = ClassroomApp(
        seats=[("Ana", "competitor", "human"), ("Ben", "monopolist", "investor")],
        seed=5,
        scenario_dir=tmp_path,
    )
    app.click("Roll")
    while app.game.actor == 0 and app.buttons():
        app.click(next(iter(app.buttons())))
    for _ in range(6):
        app.step()
    saved_state = app.game.state.as_dict()
    path = tmp_path / "class.json"
    app.files.file.value = str(path)
    app.click("Save")
    assert "Saved the game" in app.message.value and path.is_file()
    app.click("Reset")
    assert app.game.state.as_dict() != saved_state
    app.click("Load")
    assert app.game.state.as_dict() == saved_state
    wealth = chart_xy(app, "wealth", 0)
    turns = sum(isinstance(e, ev.TurnStarted) for e in app.game.events)
    assert len(wealth[0]) == turns


def test_a_corrupt_save_or_scenario_keeps_the_current_game(tmp_path):
    app = ClassroomApp(seats=HUMANS, seed=2, scenario_dir=tmp_path)
    app.click("Roll")
    before = app.game.state.as_dict()
    broken = tmp_path / "broken.json"
    broken.write_text(
        '{"format": "amteach-game", "version": 1, "setup": {"players": []}', encoding="utf-8"
    )
    original = broken.read_bytes()
    assert not app.load(broken)
    assert "not valid JSON" in app.message.value and "the current game is kept" in app.message.value
    assert app.game.state.as_dict() == before and broken.read_bytes() == original
    bad = scenario_file(
        tmp_path,
        "bad",
        players=[{"name": "Ana", "role": "wizard"}, {"name": "Ben", "role": "monopolist"}],
    )
    assert not app.load_scenario(bad.stem)
    assert "players[0].role" in app.message.value
    assert app.game.state.as_dict() == before


def test_loading_a_scenario_sets_up_the_teaching_moment():
    app = ClassroomApp(seats=HUMANS, seed=2)
    names = [label for label, _ in app.files.scenario.options]
    assert "doubled rent" in names
    app.files.scenario.value = dict(app.files.scenario.options)["doubled rent"]
    app.click("Load scenario")
    assert app.game.names == ("Ana", "Ben")
    assert app.narration_lines[0] == (
        "Ana (Competitor) pays Ben (Monopolist) $28 rent for Rush St.; Ben owns 2 Chicago streets, so the rent is doubled."
    )
    # rents chart: Monopolists received 28, Competitors paid 28 (traces: C recv, C paid, M recv, M paid)
    assert chart_xy(app, "rents", 1)[1] == [28]
    assert chart_xy(app, "rents", 2)[1] == [28]


def test_a_double_click_or_stale_button_changes_nothing(tmp_path):
    app = app_at(
        tmp_path,
        [{"name": "Ana", "role": "competitor"}, {"name": "Ben", "role": "monopolist"}],
        dice=[[5, 6], [1, 2]],
    )
    roll = app.buttons()["Roll"]
    roll.click()
    after_first = app.game.state.as_dict()
    roll.click()  # the same button again: it was for an earlier moment
    assert app.game.state.as_dict() == after_first
    assert "earlier moment" in app.message.value


def test_bots_step_and_the_charts_match_the_events():
    app = ClassroomApp(
        seats=[
            ("Ana", "competitor", "investor"),
            ("Ben", "monopolist", "builder"),
            ("Cy", "competitor", "cautious"),
        ],
        seed=9,
    )
    assert app.buttons() == {}
    for _ in range(400):
        if not app.step():
            break
    game = app.game
    # wealth: one point per turn start (and one at the end), each equal to the player's net worth then
    turns = sum(isinstance(e, (ev.TurnStarted, ev.GameOver)) for e in game.events)
    for p in range(len(game.names)):
        xs, _ys = chart_xy(app, "wealth", p)
        assert xs == list(range(1, turns + 1))
    assert chart_xy(app, "wealth", 0)[1][0] == 1500
    # rents: the last cumulative value per role and side equals the sum of the rent events
    rents = [e for e in game.events if isinstance(e, ev.RentPaid)]
    for role in (0, 1):
        received = sum(e.amount for e in rents if game.roles[e.payee] == role)
        paid = sum(e.amount for e in rents if game.roles[e.payer] == role)
        got = chart_xy(app, "rents", role * 2)[1]
        gave = chart_xy(app, "rents", role * 2 + 1)[1]
        assert (got[-1] if got else 0) == received
        assert (gave[-1] if gave else 0) == paid
    # narration shows the newest event first
    assert app.narration_lines[0] == game.events[-1].text


def test_play_ticks_step_bots_and_wait_for_humans():
    app = ClassroomApp(
        seats=[("Ana", "competitor", "human"), ("Ben", "monopolist", "investor")], seed=3
    )
    decisions = len(app.game.decisions)
    app.controls.play.value += 1  # a tick of the Play widget while a human must choose
    assert len(app.game.decisions) == decisions
    app.click("Roll")
    while app.game.actor == 0:
        app.click(next(iter(app.buttons())))
    before = len(app.game.decisions)
    app.controls.play.value += 1  # now the bot's seat: one decision per tick
    assert len(app.game.decisions) == before + 1
    app.controls.speed.value = 5
    assert app.controls.play.interval == 200
    assert app.controls.speed.label == "5 steps/s"  # the speed says its unit
    app.controls.play_pause.click()
    assert app.controls.play.playing and app.controls.play_pause.description == "❚❚ Pause"
    app.controls.play_pause.click()
    assert not app.controls.play.playing and app.controls.play_pause.description == "▶ Play"


def test_new_game_with_another_seed_and_preset():
    app = ClassroomApp(seats=HUMANS, seed=1)
    app.files.seed.value = 42
    app.files.preset.value = "edition-2005"
    app.click("New game")
    assert app.game.setup.seed == 42 and app.game.rules.foundation_monopolist_fee == 160
    assert app.game.decisions == []
    assert chart_xy(app, "wealth", 0) == ([1], [1500])


def test_a_human_trade_with_a_bot_gets_its_answer(tmp_path):
    app = app_at(
        tmp_path,
        [
            {"name": "Ana", "role": "competitor", "titles": {"Rush St.": {}}},
            {"name": "Ben", "role": "monopolist", "titles": {"State St.": {}}},
        ],
        seats=[("Ana", "competitor", "human"), ("Ben", "monopolist", "cautious")],
    )
    app.trade.partner.value = 1
    app.trade.give.value = (11,)
    app.trade.pay.value = -50
    app.click("Propose trade")
    answered = [e for e in app.game.events if isinstance(e, ev.TradeAnswered)]
    assert len(answered) == 1 and answered[0].player == 1
    assert app.game.actor == 0  # back to Ana's turn after the answer
    assert "trade" in app.narration_lines[0]


def test_bad_seats_are_refused_with_a_clear_message():
    from amteach import InputError

    with pytest.raises(InputError, match="controller must be 'human' or a bot"):
        ClassroomApp(seats=[("Ana", "competitor", "wizard"), ("Ben", "monopolist", "human")])


def test_the_app_shows_itself_in_a_notebook_cell():
    app = ClassroomApp(seats=HUMANS, seed=1)
    assert app.widget.children  # the root widget
    text = json.dumps(app.board_view.value)
    assert text.count("data-space=") == 40
    # the board's middle is left to the app's panel: whose turn, the choices and the players
    assert (
        "ANTI-MONOPOLY" not in text and "am-hole" in app.widget.children[2].children[1]._dom_classes
    )
    assert "Ana" in app.players_view.value and "Game B score" in app.players_view.value


def test_a_scenario_with_other_seats_gets_fresh_charts_on_screen(tmp_path):
    app = ClassroomApp(seats=HUMANS, seed=2, scenario_dir=tmp_path)
    before = dict(app.charts)
    tabs_before = app.chart_tabs.children
    three = [
        {"name": n, "role": r}
        for n, r in (("Ana", "competitor"), ("Ben", "monopolist"), ("Cy", "competitor"))
    ]
    assert app.load_scenario(scenario_file(tmp_path, players=three).stem)
    wealth = app.charts["wealth"]
    assert len(wealth.data) == 3 + 2  # one line per player and a mean per role
    # the same chart widgets as before, with the new table's traces: the page never swaps a
    # chart's view (a removed plotly view kept listening and blanked the live one, issue 12)
    assert app.charts == before and app.chart_tabs.children == tabs_before
    assert app.chart_tabs.children[0].children[0] is wealth
    assert [t.name for t in wealth.data[:3]] == [
        "Ana (Competitor)",
        "Ben (Monopolist)",
        "Cy (Competitor)",
    ]


def test_a_dashboard_batch_runs_in_the_background_and_can_be_cancelled():
    from amteach.ui.dashboard import Dashboard

    dashboard = Dashboard()
    panel = dashboard.who_wins
    panel.games.value = 2000
    panel.start()
    panel.cancel_button.click()  # Cancel while the batch runs: it stops after its first chunk
    panel.wait()
    assert panel.result is not None and panel.result.interrupted
    assert 0 < panel.result.completed < 2000
    assert "cancelled" in panel.status.value
    assert not panel.run_button.disabled and panel.cancel_button.disabled
    # win rates and their reading, wealth by role, rent flows; each with "Show the data"
    shown = panel.charts.children
    assert [type(w).__name__ for w in shown] == [
        "FigureWidget",
        "HTML",
        "HTML",
        "FigureWidget",
        "HTML",
        "FigureWidget",
        "HTML",
        "ChartSizer",  # resizes the charts when their tab opens
    ]
    assert "won" in shown[1].value and "interval" in shown[1].value
    tabs = [dashboard.tabs.get_title(i) for i in range(len(dashboard.tabs.children))]
    assert tabs[:3] == ["Play", "Who wins", "Taxes"] and tabs[-2:] == ["Rules", "Class"]
    dashboard.rules_preset.value = "edition-2005"
    rules = dashboard.rules_view.value
    assert "pays a fee of $160 <b>(changed)</b>" in rules  # the Monopolist's cell only
    assert "[" not in rules and "{1:" not in rules and "None" not in rules


def test_new_game_after_a_scenario_returns_to_the_class_table_or_keeps_the_scenario_players():
    app = ClassroomApp(scenario_dir=REPO / "lessons" / "scenarios")
    assert app.load_scenario("doubled-rent")
    assert app.game.names == ("Ana", "Ben")
    app.files.players.value = "game"
    app.files.new.click()
    assert app.game.names == ("Ana", "Ben")
    app.files.players.value = "table"  # the default choice
    app.files.new.click()
    assert app.game.names == ("Ana", "Ben", "Cleo", "Dev")
    assert app.controllers == ["human", "investor", "cautious", "builder"]
    assert app.game.setup.seed == app.files.seed.value


def test_a_choice_the_rules_refuse_is_shown_disabled_with_the_engines_reason(tmp_path):
    app = app_at(
        tmp_path,
        [{"name": "Ana", "role": "competitor", "cash": 100}, {"name": "Ben", "role": "monopolist"}],
        dice=[[5, 6]],
    )
    app.click("Roll")  # to Rush St., $140, with $100
    shown = {b.description: b for b in app.decisions.choices.children}
    assert not shown["Decline"].disabled
    buy = shown["Buy Rush St. for $140"]
    assert buy.disabled and buy.tooltip == "Rush St. costs $140 but Ana has $100"
    assert "Buy Rush St. for $140: Rush St. costs $140 but Ana has $100." in (
        app.decisions.refused.value
    )
    assert "Buy Rush St. for $140" not in app.buttons()  # not offered as a choice to click


def test_new_game_draws_a_fresh_seed_unless_one_is_typed_and_shows_the_seed():
    app = ClassroomApp(seats=HUMANS, seed=1)
    app.click("New game")
    first = app.game.setup.seed
    assert first != 1 and app.files.seed.value == first
    assert f"seed {first}" in app.message.value  # so a class can write it down
    app.click("New game")
    assert app.game.setup.seed != first  # the box still shows this game's seed: a fresh one
    app.files.seed.value = first  # typed: play that game again
    app.click("New game")
    assert app.game.setup.seed == first and app.game.decisions == []
