"""How much smaller an image is decoded than its full size: photos (:mod:`scanner.load`)
and PDF pages (:mod:`scanner.pdf`) are both read at 1, 1/2, 1/4 or 1/8 of it."""

from __future__ import annotations

import numpy as np


def reduction_factor(long_side: int, work_long_side: int) -> int:
    """The decode scale's divisor: the largest of 1, 2, 4, 8 keeping ``work_long_side``
    pixels on a ``long_side`` long side."""
    factor = 1
    while factor < 8 and long_side / (factor * 2) >= work_long_side:
        factor *= 2
    return factor


def work_to_full(scale: float) -> np.ndarray:
    """The 3x3 homography from the pixels of an image decoded at ``scale`` (its size over
    the full size) to full-resolution pixels, pixel centres aligned."""
    s = 1.0 / scale
    return np.array([[s, 0, 0.5 * s - 0.5], [0, s, 0.5 * s - 0.5], [0, 0, 1.0]])
