"""Cell crops come from where the geometry says each cell is."""

import numpy as np

from scanner.cells import CROP_PX, cut_cells
from scanner.geometry import CANON_PX_PER_CELL, CELL_CROP_MARGIN, canonical_size, to_canonical_px


def test_each_crop_is_centred_on_its_cell():
    width, height = canonical_size()
    view = np.zeros((height, width, 3), np.uint8)
    # Paint a distinct value at every cell centre, as a renderer would place a symbol.
    for r in range(11):
        for c in range(11):
            x, y = to_canonical_px(c + 0.5, r + 0.5)
            view[int(y), int(x)] = (r, c, 255)
    crops = cut_cells(view)
    assert crops.shape == (121, CROP_PX, CROP_PX, 3)
    centre = round((0.5 + CELL_CROP_MARGIN) * CANON_PX_PER_CELL)
    for r in range(11):
        for c in range(11):
            assert tuple(crops[r * 11 + c][centre, centre]) == (r, c, 255), (r, c)


def test_wrong_view_size_is_refused():
    try:
        cut_cells(np.zeros((10, 10, 3), np.uint8))
    except ValueError as e:
        assert "canonical view" in str(e)
    else:
        raise AssertionError("a wrong-size view was accepted")
