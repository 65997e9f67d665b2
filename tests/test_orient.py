"""Side and orientation on rendered sheets whose cells are coloured in (models.synth).

Coloured-in cells are what fooled the line-colour cue (fresh hard photo 158008: a
side-A sheet read as side B): measured against the cells' middles, warm fills make
orange lines look grey. Here the sheets lie flat under warm (tungsten) light.
"""

import cv2
import numpy as np
import pytest

from scanner.orient import decide_orientation, feature_canvas
from scoring.layouts import LAYOUTS

N = 11
SEEDS = (1, 2)
WARM_LIGHT = np.float32([0.8, 1.0, 1.2])  # B, G, R gains


def _canvas(seed: int, side: str, hide_mountains: bool = False) -> np.ndarray:
    from models.synth.sheet import render_sheet
    from models.synth.warp import Curl, warp_sheet

    sheet = render_sheet(np.random.default_rng(seed), 40.0, side=side, style="pencil-hatch-icon")
    grid = np.float32([[0, 0], [N, 0], [N, N], [0, N]])
    quad = np.float32([[250, 200], [690, 200], [690, 640], [250, 640]])  # 40 px cells
    h = cv2.getPerspectiveTransform(grid, quad).astype(np.float64)
    table = np.full((1000, 940, 3), (60, 90, 120), np.uint8)
    photo, _ = warp_sheet(sheet.bgr, sheet.alpha, sheet.canvas, h, Curl(amp=0.0), table)
    photo = np.clip(photo * WARM_LIGHT, 0, 255).astype(np.uint8)
    if hide_mountains:
        # Both sides' mountain cells painted alike: the mountains then tell neither
        # side nor turn, and the decision rests on the print's colours and the margins.
        for r, c in LAYOUTS["A"].mountains | LAYOUTS["B"].mountains:
            x, y = 250 + 40 * c, 200 + 40 * r
            photo[y + 4 : y + 36, x + 4 : x + 36] = (40, 45, 70)
    return feature_canvas(photo, h)


@pytest.fixture(scope="module")
def canvases() -> dict:
    return {(seed, side): _canvas(seed, side, True) for seed in SEEDS for side in "AB"}


def test_line_colour_is_measured_beside_paper_cells(canvases):
    """Side A's orange lines read warmer than the paper beside them, side B's grey ones
    do not, however the other cells are coloured in."""
    for seed in SEEDS:
        assert decide_orientation(canvases[(seed, "A")]).scores["warmth"] > 3.0, seed
        assert decide_orientation(canvases[(seed, "B")]).scores["warmth"] < 3.0, seed


@pytest.mark.parametrize("side", ["A", "B"])
def test_coloured_in_sheet_without_telling_mountains_is_read_right(canvases, side):
    """With nothing to tell the sides apart at the mountains, the print's colours (lines,
    gold coin band and compass on side A) still give the side, and the margins the turn."""
    for seed in SEEDS:
        for k in range(4):
            decision = decide_orientation(np.ascontiguousarray(np.rot90(canvases[(seed, side)], k)))
            assert decision.side == side, (seed, k, decision.scores)
            assert (decision.quarter_turns + k) % 4 == 0, (seed, k, decision.scores)
