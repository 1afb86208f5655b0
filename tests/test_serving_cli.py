"""`amteach lessons`, `amteach notebooks` and the serving options of `amteach dashboard`: what
they write, what they refuse (one line, exit 2), and the server command they build."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from amteach.cli import main
from amteach.content import (
    dashboard_notebook,
    lessons_dir,
    notebooks_dir,
    scenarios_dir,
)
from amteach.serving import normalized_base_url, voila_command


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def one_line_error(result) -> str:
    """Exit 2, no traceback; our own checks say it in one line, click's own checks (a number
    out of range) add their usage lines above theirs."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert "Traceback" not in result.output, result.output
    assert len(lines) == 1 or lines[0].startswith("Usage:"), result.output
    return lines[-1]


def test_the_content_is_found_in_one_place():
    assert dashboard_notebook() == notebooks_dir() / "dashboard.ipynb"
    assert dashboard_notebook().is_file()
    assert scenarios_dir() == lessons_dir() / "scenarios"
    assert any(scenarios_dir().glob("*.yaml"))
    assert (lessons_dir() / "01-two-rulebooks" / "worksheet.md").is_file()


def test_lessons_lists_each_lesson_with_its_title():
    result = run("lessons")
    assert result.exit_code == 0
    for plan in lessons_dir().glob("*/plan.md"):
        assert plan.parent.name in result.output
    assert "--copy" in result.output


def test_lessons_copy_writes_lessons_and_notebooks_and_never_overwrites_unasked(tmp_path):
    result = run("lessons", "--copy", str(tmp_path / "class"))
    assert result.exit_code == 0, result.output
    written = {p.relative_to(tmp_path / "class").as_posix() for p in tmp_path.rglob("*.*")}
    assert "lessons/03-taxes-and-incentives/worksheet.md" in written
    assert "lessons/03-taxes-and-incentives/checks.yaml" in written
    assert "lessons/scenarios/doubled-rent.yaml" in written
    assert "notebooks/dashboard.ipynb" in written
    # an instructor's edit survives a second copy without --force
    plan = tmp_path / "class" / "lessons" / "01-two-rulebooks" / "plan.md"
    plan.write_text("my notes", encoding="utf-8")
    refused = one_line_error(run("lessons", "--copy", str(tmp_path / "class")))
    assert "exists" in refused and "--force" in refused
    assert plan.read_text(encoding="utf-8") == "my notes"
    assert run("lessons", "--copy", str(tmp_path / "class"), "--force").exit_code == 0
    assert plan.read_text(encoding="utf-8") != "my notes"


def test_notebooks_copy_writes_only_the_notebooks(tmp_path):
    assert "dashboard.ipynb" in run("notebooks").output
    result = run("notebooks", "--copy", str(tmp_path))
    assert result.exit_code == 0
    assert (tmp_path / "notebooks" / "fairness.ipynb").is_file()
    assert not (tmp_path / "lessons").exists()
    # issue 39: into DIR/notebooks/, not DIR itself, and the command says where
    assert not list(tmp_path.glob("*.ipynb"))
    assert result.output.strip() == f"Wrote {tmp_path / 'notebooks'}"


@pytest.mark.parametrize(
    ("command", "folders"),
    [("notebooks", ["DIR/notebooks"]), ("lessons", ["DIR/lessons", "DIR/notebooks"])],
)
def test_copy_says_which_folders_it_makes_in_help_and_readme(command, folders):
    """Issue 39: the README said `--copy DIR` writes "into DIR"; it makes folders inside DIR."""
    help_text = " ".join(run(command, "--help").output.split())
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    line = next(row for row in readme.splitlines() if f"`amteach {command} [--copy DIR]`" in row)
    said = line.split(f"`{command} --copy DIR`", 1)[1].split(",", 1)[0]
    for folder in folders:
        assert folder in help_text, help_text
        assert f"`{folder}/`" in said, said
    assert "into DIR " not in line and "into DIR " not in help_text


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("lessons", "--force"), "--force goes with --copy"),
        (("notebooks", "--copy", "{file}"), "not a folder"),
        (("dashboard", "--base-url", "/a b/"), "--base-url"),
        (("dashboard", "--base-url", "/../etc/"), "--base-url"),
        (("dashboard", "--max-visitors", "-1"), "--max-visitors"),
        (("dashboard", "--max-per-address", "some"), "--max-per-address"),
        (("dashboard", "--trusted-proxy", "nginx"), "--trusted-proxy"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_2(tmp_path, args, says):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    message = one_line_error(run(*(part.replace("{file}", str(a_file)) for part in args)))
    assert says in message


def test_base_urls_are_written_one_way():
    assert normalized_base_url("amteach") == "/amteach/"
    assert normalized_base_url("/amteach") == "/amteach/"
    assert normalized_base_url("/class/amteach/") == "/class/amteach/"
    assert normalized_base_url("/") == "/"


def test_the_server_command_carries_the_cap_the_grace_and_the_path():
    command = voila_command(
        Path("d.ipynb"), 8866, "127.0.0.1", 30, "amteach", 300, "/amteach/", max_visitors=20
    )
    assert "--Voila.base_url=/amteach/" in command
    assert "--ClassroomKernelManager.max_kernels=20" in command
    assert "--pool_size=20" in command  # the pool lives within the cap
    assert "--MappingKernelManager.cull_idle_timeout=300" in command
    assert "--MappingKernelManager.cull_connected=False" in command
    assert "--KernelManager.transport=ipc" in command  # no TCP port races among kernels


def test_the_server_command_carries_the_caps_per_client_and_the_hard_grace():
    command = voila_command(Path("d.ipynb"), 8866, "127.0.0.1", 30, "amteach", 120, "/", 20)
    # by default: 4 per browser, half of --max-visitors per address (-1), no proxy trusted
    assert "--ClassroomKernelManager.max_per_device=4" in command
    assert "--ClassroomKernelManager.max_per_address=-1" in command
    assert "--ClassroomVoila.trusted_proxies=[]" in command
    # a kernel with no page connected goes after --cull-after, whatever it does
    assert "--ClassroomKernelManager.disconnect_grace=120" in command
    command = voila_command(
        Path("d.ipynb"),
        8866,
        "127.0.0.1",
        30,
        "amteach",
        max_per_device=2,
        max_per_address=25,
        trusted_proxies=("127.0.0.1",),
    )
    assert "--ClassroomKernelManager.max_per_device=2" in command
    assert "--ClassroomKernelManager.max_per_address=25" in command
    assert "--ClassroomVoila.trusted_proxies=['127.0.0.1']" in command


def test_the_dashboard_says_its_caps_per_client_and_passes_them_on(tmp_path, monkeypatch):
    started: list[list[str]] = []
    monkeypatch.setattr(os, "execv", lambda path, args: started.append(args))
    # the command puts the class database's address in its environment for the server
    monkeypatch.setattr(os, "environ", os.environ.copy())
    rooms = str(tmp_path / "rooms.sqlite")
    result = run("dashboard", "--max-visitors", "40", "--rooms", rooms)
    assert result.exit_code == 0, result.output
    assert "At most 4 per browser and 20 per network address (--max-per-address)" in result.output
    result = run(
        "dashboard",
        "--max-visitors",
        "40",
        "--max-per-address",
        "33",
        "--max-per-device",
        "0",
        "--trusted-proxy",
        "0:0::1",
        "--rooms",
        rooms,
    )
    assert "At most 33 per network address" in result.output and "browser" not in result.output
    assert "--ClassroomKernelManager.max_per_address=33" in started[1]
    assert "--ClassroomKernelManager.max_per_device=0" in started[1]
    assert "--ClassroomVoila.trusted_proxies=['::1']" in started[1]  # as the server sees it
