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
