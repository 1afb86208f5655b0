"""What a notebook's kernel and a Jupyter server pay to start.

A notebook's kernel imports jsonschema once it draws a chart (plotly's renderers import
nbformat), and a Jupyter server does on start (jupyter_events). From jsonschema 4.25 on, its format checks
import rfc3987-syntax, which builds some 35 parsers on import: 1.1 to 1.5 s of CPU each
process (a notebook's test took 7.6 s with it, 1.7 s without; the suite's main pass 550 s and
510 s: docs/development.md). pyproject.toml keeps jsonschema below 4.25 for that
(python-jsonschema/jsonschema#1428); this test fails if the pin is lifted while the import is
still that costly.
"""

from __future__ import annotations

import json
import subprocess
import sys

IMPORTED = """
import json, sys
import plotly.io._renderers  # what a kernel imports as it draws its first chart
import jupyter_server.serverapp  # what `amteach dashboard`'s server imports as it starts
print(json.dumps(sorted(name for name in sys.modules if name.split('.')[0] in
    ('jsonschema', 'nbformat', 'jupyter_events', 'rfc3987_syntax', 'lark'))))
"""


def test_a_kernel_drawing_a_chart_and_a_server_import_jsonschema_without_building_iri_parsers():
    done = subprocess.run(
        [sys.executable, "-c", IMPORTED], capture_output=True, text=True, check=True, timeout=120
    )
    packages = {name.split(".")[0] for name in json.loads(done.stdout)}
    # the path is the one described above: both import jsonschema, through these packages
    assert {"jsonschema", "nbformat", "jupyter_events"} <= packages, packages
    # and neither builds rfc3987-syntax's parsers (lark is only ever imported by it here)
    assert not packages & {"rfc3987_syntax", "lark"}, packages
