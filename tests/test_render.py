"""A game shows itself in Jupyter: 40 spaces, pawns in role colours with labels and shapes,
owners, buildings, mortgages and cash."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import scenario, two

from amteach.render import ROLE_COLOURS, board_html, grid_cell


def test_grid_places_forty_spaces_on_the_ring():
    cells = {grid_cell(i) for i in range(40)}
    assert len(cells) == 40
    assert all(r in (0, 10) or c in (0, 10) for r, c in cells)
    assert grid_cell(0) == (10, 10) and grid_cell(10) == (10, 0)
    assert grid_cell(20) == (0, 0) and grid_cell(30) == (0, 10)


def test_the_board_html_shows_pawns_owners_buildings_mortgages_and_cash():
    game = scenario(
        two(
            {
                "titles": {"Rush St.": {"houses": 2}, "U.S. Railroad": {"mortgaged": True}},
                "cash": 1234,
            },
            {"held": 0, "titles": {"Nob Hill": {}}},
        )
    )
    html = board_html(game)
    assert len(re.findall(r'data-space="\d+"', html)) == 40
    # pawns: colour plus a label and a shape (circle / square)
    assert 'aria-label="Ana, Competitor, to move"' in html  # her turn: a gold ring
    assert "am-pawn am-to-move" in html
    assert 'aria-label="Ben, Monopolist, held in Prison"' in html
    # each seat's own shape (style.pawn_shapes): Competitors solid, Monopolists hatched
    assert 'data-shape="circle" title="Ana, Competitor, to move"' in html
    assert f"--am-fill:{ROLE_COLOURS[0]};--am-clip:circle(50%)" in html
    assert 'data-shape="square" title="Ben, Monopolist, held in Prison"' in html
    assert f"--am-fill:repeating-linear-gradient(135deg,{ROLE_COLOURS[1]} 0 4px" in html
    rush = html.split('data-space="11"')[1].split('data-space="12"')[0]
    # houses as a number with the house symbol, large enough to count from the back row
    assert "owned by Ana (Competitor)" in rush and 'title="2 houses"' in rush
    assert '<span class="am-house">⌂</span>2' in rush
    railroad = html.split('data-space="5"')[1].split('data-space="6"')[0]
    assert "mortgaged" in railroad
    assert "$1,234" in html
    assert "Round 1: Ana to decide" in html


NOTEBOOK_DISPLAY = """
import sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
import amteach  # registers the board as a Game's HTML in the running shell
game = amteach.Game.new([("Ana", "competitor"), ("Ben", "monopolist")], seed=1)
data, _ = shell.display_formatter.format(game)
print(data["text/html"].count('data-space="'), "text/html" in data)
print(hasattr(game, "_repr_html_"), "amteach.render" in sys.modules)
"""


def test_a_notebook_shows_a_game_as_its_board_though_the_engine_draws_nothing():
    """A Game in a notebook cell shows the board: `import amteach` registers render's drawing
    with the running IPython shell, so the engine imports nothing above its layer."""
    done = subprocess.run(
        [sys.executable, "-c", NOTEBOOK_DISPLAY], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["40", "True", "False", "True"]


def test_without_a_shell_nothing_is_registered_and_ipython_is_not_loaded():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, amteach; print(amteach.render.show_games_as_boards(),"
            " 'IPython' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["False", "False"]
