"""Notebooks are kept in git without outputs (they are executed by nbmake in the test run)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_the_four_notebooks_exist():
    assert {p.name for p in NOTEBOOKS} >= {
        "play.ipynb",
        "who-wins.ipynb",
        "taxes.ipynb",
        "dashboard.ipynb",
    }


def test_notebooks_are_stored_without_outputs():
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, (
                    f"{path.name}: strip outputs"
                )


def test_dollar_signs_in_notebook_text_are_escaped_so_they_do_not_render_as_maths():
    """Jupyter reads text between two $ signs as a formula: "$140, *Pay $200" would lose its
    dollar signs. Each one in a markdown cell is written \\$ (or sits in `code`)."""
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "markdown":
                prose = re.sub(r"`[^`]*`", "", cell.source)
                assert not re.search(r"(?<!\\)\$", prose), f"{path.name}: escape $ as \\$"


def test_play_notebook_names_each_pawns_true_shape():
    """Issue 39: play.ipynb said "green circles, blue squares", but a role's second pawn has a
    shape of its own (Cleo's a diamond, Dev's a hexagon: style.pawn_shapes). The text names
    each seat's shape as the board draws it, for the seats its code cell sets."""
    from amteach.engine.board import ROLES
    from amteach.style import pawn_shapes

    notebook = nbformat.read(NOTEBOOKS[0].parent / "play.ipynb", as_version=4)
    text = " ".join(notebook.cells[0].source.split())
    code = next(cell.source for cell in notebook.cells if cell.cell_type == "code")
    seats = re.findall(r'\("(\w+)", "(competitor|monopolist)", "\w+"\)', code)
    assert len(seats) == 4
    shapes = pawn_shapes([ROLES.index(role) for _, role in seats])
    for (name, _), shape in zip(seats, shapes, strict=True):
        assert re.search(rf"{name}'s (pawn is )?an? {shape}\b", text), (name, shape)
    assert "circles" not in text and "squares" not in text
