"""Geometry of the printed sheet, in cell units (SHEET.md).

One place for every measurement of the paper: the synthesis template draws
from it and the scanner looks for things where it says.

Convention: ``(x, y)`` in cells, origin at the grid's outer top-left corner
(the inside edge of the black frame), x to the right, y down. The grid spans
``0 <= x, y <= 11``. Printing and cutting vary by a few percent, so the
scanner treats every figure here other than the 11 x 11 lattice as
approximate and searches around it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GRID_CELLS = 11
#: The grid's corners in cell units, clockwise from A1's: ``(4, 2)`` float32, read-only.
GRID_CORNERS = np.float32([[0, 0], [GRID_CELLS, 0], [GRID_CELLS, GRID_CELLS], [0, GRID_CELLS]])
GRID_CORNERS.flags.writeable = False

# Paper, measured on the reference (s = one cell).
PAGE_WIDTH = 13.2
PAGE_HEIGHT = 19.6
GRID_ORIGIN_ON_PAGE = (1.23, 4.26)  # grid top-left from the page's top-left corner

# The black double frame with hatched blocks, just outside the grid: its whole width
# (to the outer line's outside), as the coarse comb search and the frame share take it.
FRAME_WIDTH = 0.22
# Centres of the frame's two lines outside the grid's edge, measured on the printed
# sheet against the edge its dashed lines' spacing puts (both sides, all four edges:
# inner 0.016-0.028, outer 0.19-0.20 from the dashes' lattice, 0.174 apart). The inner
# line's inside edge is the grid's edge.
FRAME_INNER_LINE = 0.02
FRAME_OUTER_LINE = 0.195
#: How far the outer line may lie from where FRAME_OUTER_LINE says (print and cut vary).
FRAME_OUTER_SLACK = 0.03

# Labels: row letters A-K left of the grid, column numbers 1-11 below it.
ROW_LABEL_X = -0.5
COLUMN_LABEL_Y = GRID_CELLS + 0.47  # their centres, 0.27 below the outer line (real print)
SIDE_LABEL_XY = (GRID_CELLS - 0.25, -0.35)  # "(A)" / "(B)" above the top-right corner

# Coin track: 14 coins in a band below the grid.
COIN_COUNT = 14
COIN_Y = GRID_CELLS + 1.43
COIN_FIRST_X = 1.41
COIN_SPACING = 0.713
COIN_RADIUS = 0.2
COIN_BAND = (1.05, COIN_Y - 0.3, 11.3, COIN_Y + 0.3)  # x0, y0, x1, y1
REMINDER_ICON_XY = (0.3, COIN_Y)  # plus-shaped icon left of the track

# Season boxes: spring AB, summer BC, fall CD, winter DA, then "=" and the total shield.
SEASON_BOX_Y = GRID_CELLS + 2.34
SEASON_BOX_HEIGHT = 1.15
SEASON_BOX_COLUMN = 0.72
SEASON_BOX_FIRST_X = -0.63
SEASON_BOX_PITCH = 2.636
TOTAL_SHIELD_XY = (SEASON_BOX_FIRST_X + 4 * SEASON_BOX_PITCH + 0.45, SEASON_BOX_Y + 0.55)


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in cell units."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def center(self) -> tuple[float, float]:
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2


def coin_center(index: int) -> tuple[float, float]:
    """Centre of coin ``index`` (0 = leftmost) of the coin track."""
    if not 0 <= index < COIN_COUNT:
        raise ValueError(f"coin index must be 0..{COIN_COUNT - 1}, got {index}")
    return COIN_FIRST_X + index * COIN_SPACING, COIN_Y


def season_box(season: int) -> Box:
    """Outline of season box ``season`` (0 spring .. 3 winter)."""
    if not 0 <= season < 4:
        raise ValueError(f"season must be 0..3, got {season}")
    x0 = SEASON_BOX_FIRST_X + season * SEASON_BOX_PITCH
    return Box(x0, SEASON_BOX_Y, x0 + 3 * SEASON_BOX_COLUMN, SEASON_BOX_Y + SEASON_BOX_HEIGHT)


def season_fields(season: int) -> dict[str, Box]:
    """Where the numbers go inside a season box: two cards, coins, monsters, total."""
    b = season_box(season)
    c, mid = SEASON_BOX_COLUMN, b.y0 + SEASON_BOX_HEIGHT / 2
    return {
        "card1": Box(b.x0, b.y0, b.x0 + c, mid),
        "card2": Box(b.x0 + c, b.y0, b.x0 + 2 * c, mid),
        "coins": Box(b.x0, mid, b.x0 + c, b.y1),
        "monsters": Box(b.x0 + c, mid, b.x0 + 2 * c, b.y1),
        "total": Box(b.x0 + 2 * c, b.y0, b.x1, b.y1),
    }


def page_box() -> Box:
    """The paper's outline relative to the grid origin (before torn edges)."""
    gx, gy = GRID_ORIGIN_ON_PAGE
    return Box(-gx, -gy, PAGE_WIDTH - gx, PAGE_HEIGHT - gy)


# --- The canonical rectified view -------------------------------------------------
# The scanner warps every photo to this view; the synthesis pipeline renders
# training crops in it; the classifier reads cells cut from it. Changing these
# numbers means re-training the cell model.
CANON_PX_PER_CELL = 64
CANON_EXTENT = Box(-1.25, -1.0, 12.25, 15.0)  # in cells; cell edges fall on whole pixels
CELL_CROP_MARGIN = 0.25  # cells of context kept around each cell crop


def canonical_size() -> tuple[int, int]:
    """``(width, height)`` in pixels of the canonical rectified view."""
    e = CANON_EXTENT
    return (
        round((e.x1 - e.x0) * CANON_PX_PER_CELL),
        round((e.y1 - e.y0) * CANON_PX_PER_CELL),
    )


def to_canonical_px(x: float, y: float) -> tuple[float, float]:
    """Cell units -> pixel coordinates (x, y) in the canonical view."""
    return (
        (x - CANON_EXTENT.x0) * CANON_PX_PER_CELL,
        (y - CANON_EXTENT.y0) * CANON_PX_PER_CELL,
    )
