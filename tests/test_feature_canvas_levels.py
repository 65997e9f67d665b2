"""The feature canvas halves the colour photo only as far as its warp samples: the
canvas must equal the full pyramid's warp whatever the cell size and photo size."""

import cv2
import numpy as np
import pytest

from scanner.detect import Pyramid, cell_size_px
from scanner.orient import _MARGIN, _PX, N, feature_canvas


@pytest.mark.parametrize("shape", [(756, 1008), (1500, 1100), (1700, 1600), (400, 300), (190, 250)])
@pytest.mark.parametrize("cell", [12.0, 19.0, 19.3, 38.0, 40.0, 77.0, 160.0, 330.0])
def test_feature_canvas_equals_full_pyramid_warp(shape: tuple[int, int], cell: float) -> None:
    rng = np.random.default_rng(int(cell * 10) + shape[0])
    image = rng.integers(0, 256, (*shape, 3), dtype=np.uint8)
    grid = np.float32([[0, 0], [N, 0], [N, N], [0, N]])
    x0, y0 = 0.1 * shape[1], 0.1 * shape[0]
    quad = np.float32(
        [[x0, y0], [x0 + N * cell, y0 + 3], [x0 + N * cell - 5, y0 + N * cell], [x0, y0 + N * cell]]
    )
    h = cv2.getPerspectiveTransform(grid, quad).astype(np.float64)
    size = int(round((N + 2 * _MARGIN) * _PX))
    full = Pyramid(image).warp(h, _PX, -_MARGIN, size, cell_size_px(h))
    assert np.array_equal(feature_canvas(image, h), full)
