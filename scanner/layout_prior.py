"""What the printed layout fixes about each cell, as class probabilities.

Printed mountains and wasteland are read as such whatever the model says, and a cell
without them can never be ``^`` or ``#`` (:func:`apply_layout_prior`); the ruins
spaces carry a printed icon that every reading step must know about.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from scanner.normalize import CLASSES
from scoring.layouts import SIZE, Layout

_PRINTED = "^#"


def apply_layout_prior(probs: np.ndarray, layout: Layout) -> np.ndarray:
    """Force printed terrain; forbid ``^``/``#`` elsewhere; renormalise."""
    printed = printed_table(layout)
    out = probs.copy()
    out[:, [CLASSES.index(s) for s in _PRINTED]] = 0.0
    out /= np.maximum(out.sum(axis=1, keepdims=True), 1e-12)
    fixed = printed >= 0
    out[fixed] = 0.0
    out[fixed, printed[fixed]] = 1.0
    return out


@lru_cache(maxsize=16)
def ruins_mask(layout: Layout) -> np.ndarray:
    """(121,) True on the layout's ruins spaces."""
    mask = np.zeros(SIZE * SIZE, bool)
    for r, c in layout.ruins:
        mask[r * SIZE + c] = True
    mask.flags.writeable = False
    return mask


@lru_cache(maxsize=16)
def printed_table(layout: Layout) -> np.ndarray:
    """(121,) class index of the printed terrain per cell, -1 where nothing is printed."""
    table = np.full(SIZE * SIZE, -1)
    for i in range(SIZE * SIZE):
        sym = layout.printed(divmod(i, SIZE))
        if sym is not None:
            table[i] = CLASSES.index(sym)
    table.flags.writeable = False
    return table


@lru_cache(maxsize=16)
def free_cells(layout: Layout) -> np.ndarray:
    """(121,) bool, read-only: the cells the layout leaves free (no printed terrain)."""
    free = printed_table(layout) < 0
    free.flags.writeable = False
    return free


@lru_cache(maxsize=16)
def plain_cells(layout: Layout) -> np.ndarray:
    """(121,) bool, read-only: free cells without a printed ruins icon, the ones whose
    look is the player's drawing alone (the icon makes ruins spaces look alike whatever
    is drawn on them), so the sheet's votes compare drawings on these."""
    plain = free_cells(layout) & ~ruins_mask(layout)
    plain.flags.writeable = False
    return plain
