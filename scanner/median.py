"""A fast ``np.median`` and ``np.percentile`` for the small NaN-free arrays the scanner
measures."""

from __future__ import annotations

import numpy as np


def fast_median(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """``np.median`` along ``axis`` of NaN-free values: the same numbers (the middle one,
    or the mean of the middle two in the array's own type) without its general
    machinery, which costs more than the sorting on these small arrays. A 1-D array
    gives a numpy scalar."""
    n = values.shape[axis]
    if n % 2:
        return np.partition(values, n // 2, axis=axis).take(n // 2, axis=axis)
    part = np.partition(values, (n // 2 - 1, n // 2), axis=axis)
    return (part.take(n // 2 - 1, axis=axis) + part.take(n // 2, axis=axis)) / 2


def fast_percentile(values: np.ndarray, q: float) -> np.ndarray:
    """``np.percentile(values, q, axis=-1)`` of NaN-free values: the same numbers (its
    "linear" method, interpolated as numpy does) from one partition, without its general
    machinery, which costs more than the partition on these small arrays."""
    n = values.shape[-1]
    at = (n - 1) * np.true_divide(q, 100)
    below = min(int(at), n - 1)
    above = min(below + 1, n - 1)
    part = np.partition(values, (below, above), axis=-1)
    low, high = part[..., below], part[..., above]
    gamma = float(at - below)
    step = high - low
    return high - step * (1 - gamma) if gamma >= 0.5 else low + step * gamma


def running_median3(values: np.ndarray) -> np.ndarray:
    """Each value of a 1-D array replaced by the median of it and its two neighbours, the
    ends repeated beyond the array: ``scipy.ndimage.median_filter(values, size=3,
    mode="nearest")``'s numbers, without importing scipy into the photo reader."""
    padded = np.concatenate([values[:1], values, values[-1:]])
    return np.sort(np.stack([padded[:-2], padded[1:-1], padded[2:]]), axis=0)[1]
