"""Softmax for the photo reader, without importing scipy.

``scipy.special`` takes 0.12-0.15 s to import (its array-API layer pulls in
``numpy.testing`` and ``numpy.f2py``), about a fifth of a one-photo ``cartoscore read``,
which scores nothing; the reader needs only this one function of it (the rules import
``scipy.ndimage`` themselves, where they label clusters).
"""

from __future__ import annotations

import numpy as np


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """``exp(x)`` normalised to sum to 1 along ``axis``, shifted by the maximum so it
    cannot overflow: the very formula of ``scipy.special.softmax``, so the same numbers."""
    x = np.asarray(x)
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return shifted / np.sum(shifted, axis=axis, keepdims=True)
