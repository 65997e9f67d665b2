"""Cut the 121 cell crops out of the canonical rectified view."""

from __future__ import annotations

import numpy as np

from scanner.geometry import (
    CANON_PX_PER_CELL,
    CELL_CROP_MARGIN,
    GRID_CELLS,
    canonical_size,
    to_canonical_px,
)

CROP_PX = round((1 + 2 * CELL_CROP_MARGIN) * CANON_PX_PER_CELL)


def cut_cells(view: np.ndarray) -> np.ndarray:
    """Crops of every cell with a margin of context, row-major.

    Parameters
    ----------
    view : (H, W, 3) uint8 array
        The canonical rectified view (``scanner.geometry.canonical_size()``).

    Returns
    -------
    (121, CROP_PX, CROP_PX, 3) uint8 array; crop ``r * 11 + c`` is cell ``(r, c)``
    centred, with ``CELL_CROP_MARGIN`` cells of its neighbours around it.
    """
    width, height = canonical_size()
    if view.shape[:2] != (height, width):
        raise ValueError(f"expected a canonical view of {width}x{height}, got {view.shape[1::-1]}")
    # Every crop is a window of the view: one gather instead of 121 slices.
    windows = np.lib.stride_tricks.sliding_window_view(view, (CROP_PX, CROP_PX), axis=(0, 1))
    crops = windows[_CROP_Y[:, None], _CROP_X[None, :]]  # (row, col, channel, y, x)
    return np.ascontiguousarray(np.moveaxis(crops, 2, -1)).reshape(
        GRID_CELLS * GRID_CELLS, CROP_PX, CROP_PX, view.shape[2]
    )


# Top-left pixel of each column's and each row's crops.
_CROP_X = np.array([round(to_canonical_px(c - CELL_CROP_MARGIN, 0)[0]) for c in range(GRID_CELLS)])
_CROP_Y = np.array([round(to_canonical_px(0, r - CELL_CROP_MARGIN)[1]) for r in range(GRID_CELLS)])
