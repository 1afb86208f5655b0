"""What a visitor of the served dashboard can reach, checked in the kernel (no browser): no
path on the server, scenarios by name only, names with HTML shown as text, and bounds the
kernel keeps whatever a browser sends. The browser side is tests/test_dashboard_security.py."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import ipywidgets as widgets
import plotly.graph_objects as go
import pytest

from amteach.engine.game import Game
from amteach.serving import SERVED_ENV, is_served, voila_environment
from amteach.ui import ClassroomApp
from amteach.ui.batch import BatchPanel
from amteach.ui.dashboard import Dashboard

REPO = Path(__file__).resolve().parents[1]
HUMANS = [("Ana", "competitor", "human"), ("Ben", "monopolist", "human")]
# names a person could type; each would run a script if it reached the page as HTML
# names are at most 24 characters (engine/setup.py)
HTML_NAMES = ("<img src=x onerror=f(1)>", "<script>f(2)</script>")
RAW_TAGS = ("<img", "<script")


def walk(widget: widgets.Widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


@pytest.fixture
def served(monkeypatch):
    """A kernel of `amteach dashboard`: the flag is in the environment it was started with."""
    monkeypatch.setenv(SERVED_ENV, "1")


def test_only_amteach_dashboard_marks_its_kernels_as_served(monkeypatch):
    monkeypatch.delenv(SERVED_ENV, raising=False)
    assert not is_served()
    with voila_environment() as env:
        assert env[SERVED_ENV] == "1"
    monkeypatch.setenv(SERVED_ENV, "1")
    assert is_served()


def test_a_served_app_has_no_path_box_and_refuses_paths(served, tmp_path):
    app = ClassroomApp(seats=HUMANS, seed=1, scenario_dir=REPO / "lessons" / "scenarios")
    assert [w for w in walk(app.widget) if isinstance(w, widgets.Text)] == []
    assert not app.files.paths and not hasattr(app.files, "file")
    app.click("Roll")
    before = app.game.state.as_dict()
    kept = tmp_path / "lesson-plan.md"
    kept.write_text("the lesson plan", encoding="utf-8")
    for target in (kept, tmp_path / "new.json", tmp_path / "sub" / ".." / "lesson-plan.md"):
        app.save(target)
        assert "your own computer" in app.message.value
    assert kept.read_text(encoding="utf-8") == "the lesson plan"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson-plan.md"]
    assert not app.load("/etc/passwd") and not app.load(kept)
    assert "root:" not in app.message.value and app.game.state.as_dict() == before


def test_scenarios_open_by_name_from_the_scenario_folder_only(served, tmp_path):
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "start.yaml").write_text(
        "players: [{name: Ana, role: competitor}, {name: Ben, role: monopolist}]\n",
        encoding="utf-8",
    )
    outside = tmp_path / "outside.yaml"
    outside.write_text(
        "players: [{name: Eve, role: competitor}, {name: Mal, role: monopolist}]\n",
        encoding="utf-8",
    )
    app = ClassroomApp(seats=HUMANS, seed=1, scenario_dir=folder)
    assert [value for _, value in app.files.scenario.options] == ["start"]
    for name in ("../outside", str(outside), str(outside.with_suffix("")), "/etc/passwd"):
        assert not app.load_scenario(name)
        assert "no scenario called" in app.message.value
    assert app.game.names == ("Ana", "Ben") and app.game.decisions == []
    assert app.load_scenario("start") and app.game.names == ("Ana", "Ben")


def test_save_downloads_the_game_and_load_uploads_it(served):
    app = ClassroomApp(
        seats=[("Ana", "competitor", "human"), ("Ben", "monopolist", "investor")], seed=4
    )
    app.click("Roll")
    message = app.files.download.file_message()
    assert message["filename"] == "amteach-game.json" and message["mime"] == "application/json"
    assert json.loads(message["text"]) == json.loads(json.dumps(app.game.to_save()))
    played = app.game.state.as_dict()
    app.click("Reset")
    content = message["text"].encode()
    app.files.upload.value = (
        {
            "name": "amteach-game.json",
            "type": "application/json",
            "size": len(content),
            "content": memoryview(content),
            "last_modified": datetime.now(UTC),
        },
    )
    assert app.game.state.as_dict() == played
    assert "Loaded a saved game" in app.message.value


def test_an_oversized_or_foreign_upload_keeps_the_game(served):
    app = ClassroomApp(seats=HUMANS, seed=4)
    before = app.game.state.as_dict()
    assert not app.load(b" " * 3_000_000)
    assert "at most 2 MB" in app.message.value
    assert not app.load(Path("/etc/passwd").read_bytes())
    assert "not valid JSON" in app.message.value and "root:" not in app.message.value
    assert app.game.state.as_dict() == before


def html_game_upload() -> bytes:
    game = Game.new([(HTML_NAMES[0], "competitor"), (HTML_NAMES[1], "monopolist")], seed=3)
    return json.dumps(game.to_save()).encode()


def rendered_html(root: widgets.Widget) -> list[str]:
    """Everything the browser reads as HTML or as plotly's label markup."""
    found = []
    for widget in walk(root):
        if isinstance(widget, widgets.HTML | widgets.HTMLMath):
            found.append(widget.value)
        if isinstance(widget, go.FigureWidget):
            for trace in widget.data:
                for key in ("name", "text", "hovertext"):
                    value = getattr(trace, key, None)
                    if value is not None:
                        found.extend(map(str, value) if isinstance(value, tuple) else [str(value)])
            found.append(str(widget.layout.title.text))
    return found


def test_names_with_html_show_as_text_in_every_widget(served):
    dashboard = Dashboard()
    app = dashboard.app
    assert app.load(html_game_upload()), app.message.value
    # play: the human seat clicks its first choice, the bot seat (investor) steps
    for _ in range(200):
        if app.game.over:
            break
        if app.game.actor == 0:
            app.click(next(iter(app.buttons())))
        else:
            app.step()
    assert any(HTML_NAMES[0] in line for line in app.narration_lines)
    for index in range(len(dashboard.tabs.children)):
        dashboard.tabs.selected_index = index  # build every tab, as a visitor opening it
    inequality = dashboard.tabs.children[dashboard.tabs.titles.index("Inequality")]
    next(w for w in walk(inequality) if isinstance(w, widgets.Button)).click()
    shown = rendered_html(dashboard.widget)
    assert any("&lt;img src=x onerror=f(1)&gt;" in text for text in shown)
    leaks = [text for text in shown if any(tag in text for tag in RAW_TAGS)]
    assert leaks == []


def test_a_served_dashboard_offers_no_text_box_but_the_sweep_values(served, tmp_path, monkeypatch):
    monkeypatch.setenv("AMTEACH_ROOMS", str(tmp_path / "class.sqlite"))
    dashboard = Dashboard()
    for index in range(len(dashboard.tabs.children)):
        dashboard.tabs.selected_index = index
    boxes = [w for w in walk(dashboard.widget) if isinstance(w, widgets.Text | widgets.Textarea)]
    # rule values for a sweep; on the Class tab, a new class's changed rules and PIN, an
    # opened class's instructor link, code and PIN, and the PIN that replacing its instructor
    # link asks for; a question for the phones (its text, choices, unit); another section's
    # instructor link, label and PIN. All but the first few act only for a page that holds a
    # class's instructor key, as below.
    shown = ["Values", "Changed rules", "PIN", "Link or key", "Room", "PIN", "PIN"]
    shown += ["Your own question", "Choices", "Unit", "Instructor link", "Section label"]
    shown += ["Its PIN"]
    assert [box.description for box in boxes] == shown
    tab = dashboard.class_tab
    # a visitor with no class's key can neither ask the phones nor pool another class
    tab.phone_questions.own_text.value = "<script>alert(1)</script>"
    tab.phone_questions.choices.value = "a\nb"
    assert not tab.phone_questions.ask()
    tab.exports.link.value = "#class=ABCDEF&key=" + "x" * 32
    assert not tab.exports.add()
    assert tab.code is None
    for typed in ("../../etc/passwd", "/tmp/x.sqlite", "'; DROP TABLE rooms;--"):
        tab.back_code.value = typed
        assert not tab.reopen() and "no room" in tab.messages.widget.value
    assert {p.name.split("-")[0] for p in tmp_path.iterdir()} == {"class.sqlite"}  # and its WAL


def test_a_batch_keeps_the_kernels_bounds_whatever_the_browser_sends():
    asked: list[int] = []
    seeds: list[int] = []

    def run(games, preset, seed, on_chunk):
        asked.append(games)
        seeds.append(seed)
        return None

    panel = BatchPanel("<p>t</p>", lambda result: [], run=run, max_games=2000)
    panel.games.max = 10**9  # a visitor can change a slider's bounds from the browser
    panel.games.value = 10**9
    panel.start()
    panel.wait()
    panel.games.min = 0
    panel.games.value = 0
    panel.seed_box.max = 2**40  # and a seed's bounds
    panel.seed_box.value = 2**40
    panel.start()
    panel.wait()
    assert asked == [2000, 50]
    assert seeds == [1, 2**31 - 1]


def test_a_sweep_on_the_page_tries_a_bounded_number_of_values():
    dashboard = Dashboard()
    dashboard.tabs.selected_index = dashboard.tabs.titles.index("Is it fair?")
    page = dashboard.tabs.children[dashboard.tabs.selected_index]
    rule_sweep = [
        BatchPanel.by_widget[w.model_id] for w in walk(page) if w.model_id in BatchPanel.by_widget
    ][1]
    values = next(w for w in walk(page) if isinstance(w, widgets.Text))
    values.value = ", ".join(str(10 * i) for i in range(1, 10))
    rule_sweep.run_button.click()
    rule_sweep.wait()
    assert "at most 8 values, not 9" in rule_sweep.status.value and rule_sweep.result is None


def resident_bytes() -> int:
    """This process's resident memory now (not its peak)."""
    import os

    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_an_alias_bomb_in_the_sweep_values_box_is_one_short_line_and_memory_stays_flat():
    """Issue 22: 277 characters of YAML aliases in the Values box became a 17 MB message and a
    1.2 GB server. Now the box's text is read without aliases: one short line, no sweep."""
    from test_bad_input import alias_bomb

    dashboard = Dashboard()
    dashboard.tabs.selected_index = dashboard.tabs.titles.index("Is it fair?")
    page = dashboard.tabs.children[dashboard.tabs.selected_index]
    rule_sweep = [
        BatchPanel.by_widget[w.model_id] for w in walk(page) if w.model_id in BatchPanel.by_widget
    ][1]
    values = next(w for w in walk(page) if isinstance(w, widgets.Text))
    game_before = dashboard.app.game.state.as_dict()
    values.value = alias_bomb() + ", 10"
    before = resident_bytes()
    rule_sweep.run_button.click()
    rule_sweep.wait()
    grown = resident_bytes() - before
    status = rule_sweep.status.value
    assert "anchors and aliases (&amp; and *) are not accepted" in status, status[:300]
    assert len(status) < 400 and rule_sweep.result is None
    assert grown < 20_000_000, grown  # written out, the bomb's message alone is 14 MB
    assert dashboard.app.game.state.as_dict() == game_before
    # a value longer than any rule's is refused by its length, forged past the box or not
    values.value = "1, " * 400
    rule_sweep.run_button.click()
    rule_sweep.wait()
    assert "at most 500 characters" in rule_sweep.status.value
    assert len(rule_sweep.status.value) < 400


def test_a_forged_upload_that_is_not_a_file_keeps_the_game(served):
    app = ClassroomApp(seats=HUMANS, seed=4)
    app.click("Roll")
    before = app.game.state.as_dict()

    def upload(content) -> None:
        """A value as the upload widget reads it from a browser's message (every field is
        there; a forged message chooses what `content` holds)."""
        app.files.upload.value = (
            {
                "name": "x.json",
                "type": "application/json",
                "size": 10,
                "content": content,
                "last_modified": datetime.now(UTC),
            },
        )

    for forged in ("text, not bytes", None, [1, 2]):
        upload(forged)
        assert "did not arrive whole" in app.message.value
        assert app.game.state.as_dict() == before
    upload(memoryview(b"[" * 5000 + b"]" * 5000))
    assert "nested too deeply" in app.message.value and "current game is kept" in app.message.value
    assert app.game.state.as_dict() == before
