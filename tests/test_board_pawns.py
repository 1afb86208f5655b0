"""Pawns on the board, in a real browser (issue 39): a pawn on a corner lies inside its own
space (START's and the Prison's pawns were drawn beside the next spaces along, where a pawn in
Prison could hide under the pawn of the space beside it), and no pawn hides another, on a
1280x720 projector and on a 1920x1080 screen.

The board is drawn as the Play tab draws it (`board_html` in the app's own style, inside the
projector stage), with every seat of a six-seat table on one corner, and with pawns on the
corners and on the spaces beside them at once.
"""

from __future__ import annotations

import pytest
from browser import PROJECTOR
from conftest import scenario

from amteach.render import board_html
from amteach.ui.app import APP_STYLE

LARGE = {"width": 1920, "height": 1080}
NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eve", "Finn")
CORNERS = (0, 10, 20, 30)

# each pawn: its space, its box, its space's box, and whether the pawn is what the eye meets
# at its own centre (not covered by another pawn or by a space)
PAWNS = """() => [...document.querySelectorAll('.am-board .am-pawn')].map((pawn) => {
  const space = pawn.closest('.am-space');
  const p = pawn.getBoundingClientRect(), s = space.getBoundingClientRect();
  const top = document.elementFromPoint(p.left + p.width / 2, p.top + p.height / 2);
  return {
    space: Number(space.dataset.space), who: pawn.textContent,
    pawn: [p.left, p.top, p.right, p.bottom], box: [s.left, s.top, s.right, s.bottom],
    seen: pawn.contains(top),
  };
})"""


def players(positions: list[int]) -> list[dict]:
    """Seats alternating Competitor and Monopolist, at `positions` (10 is the Prison corner:
    the Monopolist there is held in Prison, the Competitor passing by)."""
    seats = []
    for seat, position in enumerate(positions):
        role = ("competitor", "monopolist")[seat % 2]
        seat_spec = {"name": NAMES[seat], "role": role, "position": position}
        if position == 10 and role == "monopolist":
            seat_spec["held"] = 0
        seats.append(seat_spec)
    return seats


def draw(page, positions: list[int]) -> list[dict]:
    """The Play tab's board (style, projector stage) with pawns at `positions`."""
    game = scenario(players(positions))
    page.set_content(
        f"<body style='margin:0'>{APP_STYLE}<div class='am-app am-projector'>"
        f"<div class='am-stage' style='--am-top:150px'>"
        f"{board_html(game, with_players=False, centre=False)}</div></div></body>"
    )
    return page.evaluate(PAWNS)


def inside(pawn: dict) -> bool:
    (left, top, right, bottom), (s_left, s_top, s_right, s_bottom) = pawn["pawn"], pawn["box"]
    return (
        left >= s_left - 0.5
        and top >= s_top - 0.5
        and right <= s_right + 0.5
        and bottom <= s_bottom + 0.5
    )


LAYOUTS = [pytest.param([corner] * 6, id=f"six-on-{corner}") for corner in CORNERS] + [
    # two on each corner, one on each space beside a corner
    pytest.param([0, 0, 10, 10, 20, 20], id="two-on-three-corners"),
    pytest.param([30, 30, 1, 39, 9, 11], id="corner-30-and-beside-corners"),
    pytest.param([10, 10, 11, 9, 0, 39], id="prison-beside-its-neighbours"),
]


@pytest.fixture(scope="module")
def board_page(chromium):
    """One page for the module's boards: each test sets its size, then draws its board as a
    new document (page.set_content), so nothing of the board before is left; a page of its
    own for each of the 14 boards started a renderer process each."""
    page = chromium.new_page()
    yield page
    page.close()


@pytest.mark.parametrize("viewport", [PROJECTOR, LARGE], ids=["1280x720", "1920x1080"])
@pytest.mark.parametrize("positions", LAYOUTS)
def test_corner_pawns_lie_in_their_own_space_and_no_pawn_hides_another(
    board_page, viewport, positions
):
    page = board_page
    page.set_viewport_size(viewport)
    pawns = draw(page, positions)
    assert len(pawns) == len(positions)
    for pawn in pawns:
        if pawn["space"] in CORNERS:
            assert inside(pawn), pawn
        # every pawn is on top at its own centre, where its initial is
        assert pawn["seen"], pawn
        # and at least 28 px, as on the projector (tests/test_projector.py)
        assert pawn["pawn"][2] - pawn["pawn"][0] >= 28
