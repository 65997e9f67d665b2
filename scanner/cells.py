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
    out = np.empty((GRID_CELLS * GRID_CELLS, CROP_PX, CROP_PX, view.shape[2]), view.dtype)
    for r in range(GRID_CELLS):
        for c in range(GRID_CELLS):
            x0, y0 = to_canonical_px(c - CELL_CROP_MARGIN, r - CELL_CROP_MARGIN)
            x0, y0 = round(x0), round(y0)
            out[r * GRID_CELLS + c] = view[y0 : y0 + CROP_PX, x0 : x0 + CROP_PX]
    return out
