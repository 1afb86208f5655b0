"""What `amteach dashboard` sets up around Voilà: the amteach template, plotly's widget bundle
served once, and a lighter kernel."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from amteach.serving import PLOTLY_BUNDLE_ENV, TEMPLATE, voila_environment


def test_the_served_environment_holds_the_template_and_one_plotly_bundle():
    with voila_environment() as env:
        share = Path(env["JUPYTER_PATH"].split(os.pathsep)[0])
        template = share / "voila" / "templates" / TEMPLATE
        assert (template / "conf.json").is_file() and (template / "index.html.j2").is_file()
        bundle = share / "voila" / env[PLOTLY_BUNDLE_ENV]
        assert bundle.is_file() and bundle.stat().st_size > 1_000_000
    assert not share.exists()  # removed with the server


def test_a_dashboard_kernel_skips_the_unused_uri_grammar_and_a_notebook_kernel_does_not():
    probe = (
        "import sys, amteach.ui, plotly.graph_objects as go; go.FigureWidget; "
        "print(sys.modules.get('rfc3987_syntax') is not None)"
    )
    served = dict(os.environ, **{PLOTLY_BUNDLE_ENV: "templates/amteach/static/plotly-widget.js"})
    plain = {k: v for k, v in os.environ.items() if k != PLOTLY_BUNDLE_ENV}
    run = [sys.executable, "-c", probe]
    assert subprocess.run(run, env=served, capture_output=True, text=True).stdout.strip() == "False"
    assert subprocess.run(run, env=plain, capture_output=True, text=True).stdout.strip() == "True"


def test_charts_load_plotly_from_the_server_only_when_served(monkeypatch):
    import plotly.graph_objects as go

    from amteach.serving import figure_widget

    monkeypatch.delenv(PLOTLY_BUNDLE_ENV, raising=False)
    plain = figure_widget(go.Figure())
    assert len(plain._esm) > 1_000_000  # plotly's own widget, carrying plotly.js
    monkeypatch.setenv(PLOTLY_BUNDLE_ENV, "templates/amteach/static/plotly-widget-x.js")
    served = figure_widget(go.Figure(layout={"title": "Wealth"}))
    assert isinstance(served, go.FigureWidget)
    assert len(served._esm) < 1_000 and "templates/amteach/static/plotly-widget-x.js" in served._esm
    assert served.layout.title.text == "Wealth"


# --- the served page: preheated for the dashboard and for join links (issue 24) -------------


def test_a_page_known_at_start_builds_only_what_it_shows(tmp_path, monkeypatch):
    """A kernel started for one request (or a notebook outside Voilà) knows its address at
    once: a join link builds the student's page and never the dashboard."""
    from amteach.ui.dashboard import ServedPage

    monkeypatch.setenv("AMTEACH_ROOMS", str(tmp_path / "class.sqlite"))
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    monkeypatch.setenv("QUERY_STRING", "room=abc123")
    student = ServedPage()
    assert student.dashboard is None
    assert [child._dom_classes for child in student.page.children] == [
        student.student.widget._dom_classes
    ]
    assert "am-student" in student.student.widget._dom_classes
    monkeypatch.setenv("QUERY_STRING", "")
    dashboard = ServedPage()
    assert dashboard.student is None
    assert dashboard.page.children == (dashboard.dashboard.widget,)


def test_a_preheated_dashboard_turns_into_a_students_page_when_the_join_link_arrives(
    tmp_path, monkeypatch
):
    """In the pool the dashboard is built and shown before the visitor comes; a join link's
    query then closes every widget of the dashboard (a phone receives only its own page) and
    puts the student's page in the same place on the page."""
    from amteach.ui import dashboard as served

    monkeypatch.setenv("AMTEACH_ROOMS", str(tmp_path / "class.sqlite"))
    monkeypatch.setenv("VOILA_PREHEAT", "True")
    waiting = []
    monkeypatch.setattr(served, "when_page_known", waiting.append)
    page = served.ServedPage()
    assert page.dashboard is not None and page.student is None
    built = page.dashboard
    assert page.page.children == (built.widget,)
    assert len(waiting) == 1  # the page waits for its address without blocking the notebook
    waiting[0]("room=abc123")
    assert page.dashboard is None
    assert "am-student" in page.page.children[0]._dom_classes
    assert page.page.comm is not None  # the page the browser shows stays open
    closed = [built.widget, built.app.widget, built.app.board_view, built.rules_view]
    assert all(widget.comm is None for widget in closed)


def test_a_preheated_dashboard_stays_the_dashboard_for_its_own_address(monkeypatch):
    from amteach.ui import dashboard as served

    monkeypatch.setenv("VOILA_PREHEAT", "True")
    waiting = []
    monkeypatch.setattr(served, "when_page_known", waiting.append)
    page = served.ServedPage()
    built = page.dashboard
    waiting[0]("x=1")
    assert page.dashboard is built and built.widget.comm is not None
