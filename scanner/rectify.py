"""Warp the photo to the canonical view, following the grid's own intersections.

A homography maps cell units to photo pixels; on curled paper the measured
intersections sit off it by a few percent of a cell. The remap adds those
displacements, interpolated bilinearly between the 12 x 12 intersections (and
held constant beyond the grid), so every cell lands where the canonical view
expects it.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.geometry import CANON_EXTENT, CANON_PX_PER_CELL, GRID_CELLS, canonical_size
from scanner.lattice import model_lattice

N = GRID_CELLS
_STEP = 8  # the map is computed every _STEP canonical pixels, then resized


def rotation(quarter_turns: int) -> np.ndarray:
    """3 x 3 map from upright cell units to cell units turned ``quarter_turns`` times.

    ``R(1)`` sends ``(u, v)`` to ``(11 - v, u)``; the grid maps onto itself.
    """
    r1 = np.array([[0.0, -1.0, N], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    return np.linalg.matrix_power(r1, quarter_turns % 4)


def turn_lattice(lattice: np.ndarray, quarter_turns: int) -> np.ndarray:
    """Re-index a 12 x 12 x 2 lattice given in turned cell units to upright ones.

    ``out[v, u] = lattice[v', u']`` where ``(u', v') = R(quarter_turns)(u, v)``.
    """
    return np.rot90(lattice, quarter_turns % 4, axes=(0, 1)).copy()


def displacements(homography: np.ndarray, lattice: np.ndarray) -> np.ndarray:
    """Lattice minus the homography's prediction, 12 x 12 x 2 photo pixels."""
    return lattice - model_lattice(homography)


def canonical_maps(homography: np.ndarray, lattice: np.ndarray | None = None) -> np.ndarray:
    """The ``cv2.remap`` map from the canonical view to the photo: (H, W, 2) float32 x, y
    (one two-channel map: splitting it into two would copy both halves)."""
    width, height = canonical_size()
    cw, ch = -(-width // _STEP), -(-height // _STEP)
    # Sample at the pixel centres cv2.resize(x _STEP) will interpolate from.
    xs = (np.arange(cw) * _STEP + (_STEP - 1) / 2) / CANON_PX_PER_CELL + CANON_EXTENT.x0
    ys = (np.arange(ch) * _STEP + (_STEP - 1) / 2) / CANON_PX_PER_CELL + CANON_EXTENT.y0
    uu, vv = np.meshgrid(xs, ys)
    pts = np.stack([uu, vv], -1).reshape(-1, 1, 2)
    photo = cv2.perspectiveTransform(pts, homography).reshape(ch, cw, 2)
    if lattice is not None:
        disp = displacements(homography, lattice)
        shift = _bilinear(disp, np.clip(ys, 0, N), np.clip(xs, 0, N))
        for axis in range(2):
            photo[..., axis] += shift[axis]
    full = cv2.resize(
        photo.astype(np.float32), (cw * _STEP, ch * _STEP), interpolation=cv2.INTER_LINEAR
    )
    return np.ascontiguousarray(full[:height, :width])


def _bilinear(values: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """``(k, len(ys), len(xs))``: the 12 x 12 x k ``values`` interpolated bilinearly at
    every row ``ys`` and column ``xs`` (grid units, within [0, 11]).

    The numbers of ``scipy.ndimage.map_coordinates(order=1, mode="nearest")`` at each
    point, bit for bit (``value * row weight * column weight`` summed over the four
    corners in the same order), computed once per row and intersection column before
    the columns are spread out: several times faster on the grid than point by point.
    """
    iy, ix = ys.astype(np.intp), xs.astype(np.intp)  # floor: none is negative
    ty, tx = ys - iy, xs - ix
    iy1, ix1 = np.minimum(iy + 1, N), np.minimum(ix + 1, N)
    planes = np.moveaxis(values, -1, 0)
    top = planes[:, iy] * (1.0 - ty)[:, None]  # (k, rows, 12): corners above, weighted
    bottom = planes[:, iy1] * ty[:, None]
    wx0 = 1.0 - tx
    out = top.take(ix, axis=2) * wx0
    out += top.take(ix1, axis=2) * tx
    out += bottom.take(ix, axis=2) * wx0
    out += bottom.take(ix1, axis=2) * tx
    return out


def rectify_grid(
    image: np.ndarray, homography: np.ndarray, lattice: np.ndarray | None = None
) -> np.ndarray:
    """The canonical view (``scanner.geometry.canonical_size()``) of ``image``.

    Parameters
    ----------
    image : (H, W, 3) uint8 array
        The photo the homography refers to.
    homography : (3, 3) array
        Upright cell units -> image pixels (row A at the top).
    lattice : (12, 12, 2) array, optional
        Measured intersections in image pixels, upright order; when given the
        warp follows them (dense remap) instead of the homography alone.
    """
    if lattice is None or np.abs(displacements(homography, lattice)).max() < 1e-3:
        # Flat paper: the homography alone, warped directly (no dense maps to build).
        width, height = canonical_size()
        s = 1.0 / CANON_PX_PER_CELL
        to_cells = np.array([[s, 0, CANON_EXTENT.x0], [0, s, CANON_EXTENT.y0], [0, 0, 1.0]])
        return cv2.warpPerspective(
            image,
            homography @ to_cells,
            (width, height),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
    return cv2.remap(
        image,
        canonical_maps(homography, lattice),
        None,
        interpolation=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
