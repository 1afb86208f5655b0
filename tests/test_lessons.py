"""The lessons (lessons/NN-name/plan.md and worksheet.md) are complete, their links and files
exist, their scenarios play, and every number they state comes from the tool.

A lesson never types a number the tool computes. Every dollar amount or percentage in a lesson
must be part of a sentence listed in that lesson's checks.yaml, with what the tool says it is:

    - file: plan.md                      # the lesson file the sentence is in
      text: "Ana pays Ben $28 rent"      # the sentence, word for word; one number in it
      scenario_cash_change: {scenario: doubled-rent.yaml, player: Ana}   # how to compute it

The kinds of check are the functions in CHECKS below. Everything else (durations, counts of
students, question numbers) is plain text and needs no check.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from amteach.analysis import taxes
from amteach.engine.rules import RuleSet
from amteach.engine.scenario import run_scenario
from amteach.files import load_scenario_file, read_yaml

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
SCENARIOS = LESSONS / "scenarios"
LESSON_DIRS = sorted(p for p in LESSONS.iterdir() if p.is_dir() and re.match(r"\d\d-", p.name))
PLAN_SECTIONS = (
    "Audience and level",
    "Duration",
    "Learning objectives",
    "Concepts",
    "What to open",
    "Activity",
    "Discussion questions",
    "Extension",
    "Assessment",
)
# a dollar amount ($1,995) or a percentage (20%, 94.5%)
NUMBER = re.compile(r"\$\d[\d,]*(?:\.\d+)?|\b\d+(?:\.\d+)?\s?%")


def lesson_files() -> list[Path]:
    return sorted(LESSONS.rglob("*.md"))


def number_in(text: str) -> float:
    found = NUMBER.findall(text)
    assert len(found) == 1, f"a checked sentence holds exactly one number: {text!r}"
    return float(found[0].strip("$% ").replace(",", ""))


# -- what the tool says a number is -------------------------------------------------------------
@cache
def played(name: str):
    return load_scenario_file(SCENARIOS / name)


@cache
def before(name: str):
    return load_scenario_file(SCENARIOS / name, play=False)


def player_index(game: Any, name: str) -> int:
    return list(game.names).index(name)


def scenario_cash_change(scenario: str, player: str) -> float:
    """How much a player's cash changed while the scenario's script played (negative: paid)."""
    start, end = before(scenario), played(scenario)
    return end.cash[player_index(end, player)] - start.cash[player_index(start, player)]


def scenario_rent(scenario: str, space: str) -> float:
    """One landing's rent on a title after the scenario's script (Game.rent_for)."""
    game = played(scenario)
    index = next(s.index for s in game.board.spaces if s.name == space)
    return game.rent_for(index)[0]


def scenario_tax(scenario: str, player: str, option: str) -> float:
    """A player's income tax after the scenario's script: option "flat" or "percent"."""
    game = played(scenario)
    return getattr(game.tax_options(player_index(game, player)), option)


def rule(name: str, preset: str = "default", index: int | None = None) -> float:
    """A rule parameter of a preset (an item of it, for list parameters)."""
    value = RuleSet.preset(preset).to_dict()[name]
    return value if index is None else value[index]


def tax_break_even(role: str, asset: str = "cash", preset: str = "default") -> float:
    """The assets at which a role's percentage income tax reaches the flat amount."""
    frame = taxes.tax_break_even(preset).set_index("role")
    return frame.loc[role, f"break_even_{asset}"]


CHECKS = {
    "scenario_cash_change": scenario_cash_change,
    "scenario_rent": scenario_rent,
    "scenario_tax": scenario_tax,
    "rule": rule,
    "tax_break_even": tax_break_even,
}


def checks_of(lesson: Path) -> list[dict[str, Any]]:
    path = lesson / "checks.yaml"
    return (yaml.safe_load(path.read_text()) or []) if path.exists() else []


# -- the tests ------------------------------------------------------------------------------------
def test_there_are_at_least_six_lessons_covering_the_six_topics():
    assert len(LESSON_DIRS) >= 6
    titles = " ".join((d / "plan.md").read_text().splitlines()[0].lower() for d in LESSON_DIRS)
    for topic in ("rulebooks", "pricing", "tax", "fair", "landing", "inequality"):
        assert topic in titles, topic


@pytest.mark.parametrize("lesson", LESSON_DIRS, ids=lambda p: p.name)
def test_each_lesson_has_a_complete_plan_and_a_separate_worksheet(lesson):
    plan = (lesson / "plan.md").read_text()
    headings = [line.lstrip("#").strip() for line in plan.splitlines() if line.startswith("## ")]
    for section in PLAN_SECTIONS:
        assert any(h.startswith(section) for h in headings), f"{lesson.name}: no {section!r}"
    worksheet = (lesson / "worksheet.md").read_text()
    assert worksheet.startswith("# ") and "worksheet" in worksheet.splitlines()[0].lower()
    assert "Name:" in worksheet  # printable: students write on it


def test_every_link_and_referenced_file_in_the_lessons_exists():
    missing = []
    for path in lesson_files():
        text = path.read_text()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+://", target) or target.startswith("#"):
                continue
            if not (path.parent / target.split("#")[0]).exists():
                missing.append(f"{path.relative_to(ROOT)} -> {target}")
        for reference in re.findall(r"`((?:notebooks|lessons|docs)/[^`\s]+)`", text):
            if not (ROOT / reference).exists():
                missing.append(f"{path.relative_to(ROOT)} -> {reference}")
    assert missing == []


def test_every_dashboard_tab_a_lesson_names_exists():
    from amteach.ui.dashboard import Dashboard

    tabs = Dashboard().tabs
    titles = {tabs.get_title(i) for i in range(len(tabs.children))}
    named = {
        (path.relative_to(ROOT), tab)
        for path in lesson_files()
        for tab in re.findall(r"\*([A-Z][^*]{1,20})\* tab", path.read_text())
    }
    assert named, "lessons point to dashboard tabs as *Name* tab"
    assert [(str(p), tab) for p, tab in named if tab not in titles] == []


@pytest.mark.parametrize("scenario", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_scenario_loads_and_plays(scenario):
    game = run_scenario(read_yaml(scenario), source=str(scenario))
    assert game.decisions  # its script was played


def test_every_scenario_is_used_by_a_lesson():
    used = " ".join(path.read_text() for path in lesson_files())
    assert [s.name for s in SCENARIOS.glob("*.yaml") if s.name not in used] == []


def test_every_notebook_a_lesson_uses_is_one_the_test_suite_runs():
    used = {
        name
        for path in lesson_files()
        for name in re.findall(r"notebooks/([\w-]+\.ipynb)", path.read_text())
    }
    assert used and all((ROOT / "notebooks" / name).exists() for name in used)


@pytest.mark.parametrize("lesson", LESSON_DIRS, ids=lambda p: p.name)
def test_every_number_a_lesson_states_is_the_tool_s_own(lesson):
    checks = checks_of(lesson)
    for check in checks:
        text = (lesson / check["file"]).read_text()
        assert check["text"] in " ".join(text.split()), (
            f"{lesson.name}: not found: {check['text']!r}"
        )
        (kind,) = [k for k in check if k in CHECKS]
        computed = CHECKS[kind](**check[kind])
        assert number_in(check["text"]) == pytest.approx(float(computed), abs=0.051), check
    for path in sorted(lesson.glob("*.md")):
        text = " ".join(path.read_text().split())
        checked = " ".join(c["text"] for c in checks if c["file"] == path.name)
        for number in NUMBER.findall(text):
            assert number in checked, f"{path.relative_to(ROOT)}: {number} is not checked"
