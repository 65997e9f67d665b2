"""The model input is defined once (scanner.normalize) and behaves as documented."""

import numpy as np
import pytest

from scanner.cells import cut_cells
from scanner.geometry import canonical_size
from scanner.normalize import (
    INPUT_PX,
    PAPER_LEVEL,
    balance_sheet,
    model_inputs,
    paper_colour,
    ruins_flags,
    shrink,
    to_tensor,
)
from scoring.layouts import SIDE_A, SIDE_B, parse_space


def _sheet_view(paper_bgr, rng):
    """A canonical view of plain paper with dark strokes in a few cells."""
    width, height = canonical_size()
    view = np.empty((height, width, 3), np.uint8)
    view[:] = paper_bgr
    view = np.clip(view + rng.normal(0, 3, view.shape), 0, 255).astype(np.uint8)
    view[200:230, 150:300] = (40, 60, 150)  # a red-brown hatched patch
    view[500:505, 100:700] = 20  # a pencil line across many cells
    return view


def test_shrink_equals_cutting_the_half_size_view():
    rng = np.random.default_rng(1)
    width, height = canonical_size()
    view = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    half = view.reshape(height // 2, 2, width // 2, 2, 3).astype(np.float32).mean(axis=(1, 3))
    small = shrink(cut_cells(view))
    assert small.shape == (121, INPUT_PX, INPUT_PX, 3)
    # Cell (0, 0)'s crop starts at canonical pixel (64, 48): half-size (32, 24).
    np.testing.assert_allclose(small[0], half[24 : 24 + INPUT_PX, 32 : 32 + INPUT_PX], atol=0.51)


def test_paper_is_balanced_to_the_same_grey_under_any_lamp():
    rng = np.random.default_rng(2)
    cool = balance_sheet(cut_cells(_sheet_view((235, 238, 240), rng)))
    warm = balance_sheet(cut_cells(_sheet_view((120, 175, 215), rng)))  # warm, dimmer lamp
    for balanced in (cool, warm):
        paper = np.median(balanced.reshape(-1, 3), axis=0)
        np.testing.assert_allclose(paper, PAPER_LEVEL, atol=4)


def test_paper_colour_ignores_glare_and_ink():
    rng = np.random.default_rng(3)
    small = np.full((121, INPUT_PX, INPUT_PX, 3), (150, 190, 220), np.float32)
    small += rng.normal(0, 2, small.shape)
    small[:30] = 255  # glare over a quarter of the cells
    small[30:60, 10:30] = (30, 30, 30)  # ink
    np.testing.assert_allclose(paper_colour(small), (150, 190, 220), atol=3)


def test_tensor_is_rgb_ink_amount_with_paper_at_zero():
    balanced = np.full((2, INPUT_PX, INPUT_PX, 3), PAPER_LEVEL, np.uint8)
    balanced[1, :, :, 0] = 0  # blue channel of BGR fully inked
    x = to_tensor(balanced)
    assert x.shape == (2, 3, INPUT_PX, INPUT_PX) and x.dtype == np.float32
    assert np.abs(x[0]).max() == 0
    assert np.all(x[1, 2] == 1.0) and np.all(x[1, :2] == 0.0)  # blue is the last RGB channel


def test_ruins_flags_follow_the_layout():
    for layout in (SIDE_A, SIDE_B):
        flags = ruins_flags(layout)
        assert flags.shape == (121, 1) and flags.sum() == 6
    r, c = parse_space("B6")
    assert ruins_flags(SIDE_A)[r * 11 + c, 0] == 1.0
    assert ruins_flags(SIDE_B)[r * 11 + c, 0] == 0.0


def test_model_inputs_refuse_a_partial_sheet():
    with pytest.raises(ValueError, match="121 crops"):
        model_inputs(np.zeros((10, 96, 96, 3), np.uint8), SIDE_A)
    with pytest.raises(ValueError, match="crops"):
        shrink(np.zeros((121, 64, 64, 3), np.uint8))
