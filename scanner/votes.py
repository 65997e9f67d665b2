"""The sheet's own cells vote on its doubtful cells (one player draws one sheet).

* :func:`sheet_consistency`: a doubtful cell is re-scored by how much the model's
  features of it resemble each terrain's cells read confidently on the same sheet;
* :func:`lookalike_vote`: a doubtful cell leans towards the readings of the few cells
  on the sheet that look most like it;
* :func:`neighbour_prior`: a doubtful cell leans towards the terrains drawn surely on
  the sides it shares (a player draws shapes of several spaces in one terrain).

:func:`scanner.classify.classify_cells` runs them in that order (with the outlined
shapes of :mod:`scanner.shapes` between the last two). All are pure functions of a
sheet's ``(121, len(CLASSES))`` probabilities, its features and its layout.
"""

from __future__ import annotations

import numpy as np

from scanner.layout_prior import apply_layout_prior, plain_cells, printed_table
from scanner.normalize import CLASSES
from scanner.softmax import softmax
from scoring.layouts import SIZE, Layout

#: Sheet consistency: cells read with at least this probability make the sheet's prototypes ...
PROTOTYPE_MIN_PROB = 0.7
#: ... (a class needs this many such cells to have one) ...
PROTOTYPE_MIN_CELLS = 2
#: ... cells read with less than this are re-scored ...
RESCORE_BELOW = 0.995
#: ... by ``exp(CONSISTENCY_WEIGHT * (similarity to the class - best similarity))``.
CONSISTENCY_WEIGHT = 12.0
#: Neighbour prior: a cell read with less than this ...
NEIGHBOUR_BELOW = 0.99
#: ... gains this much log-probability for a terrain per side it shares with a cell ...
#: (0.6 from session 15 to 64; session 65 found 1.2 better, on ruins spaces first, where
#: the model is weakest, then on every cell: fewer misread cells on the real print's
#: composites, the held-out renderer's photos even)
NEIGHBOUR_WEIGHT = 1.2
#: ... read as that terrain with at least this probability, ...
NEIGHBOUR_SURE = 0.9
#: ... counting at most this many such sides.
NEIGHBOUR_MAX_SIDES = 2
#: Look-alike vote: a cell read with less than this ...
LOOKALIKE_BELOW = 0.99
#: ... takes the mean probabilities of its this many closest look-alikes ...
LOOKALIKE_K = 4
#: ... (those whose features' cosine similarity to its own is at least this), ...
LOOKALIKE_MIN_SIM = 0.8
#: ... floored at this, their log times this, added to its own log-probabilities.
LOOKALIKE_FLOOR = 1e-3
LOOKALIKE_WEIGHT = 1.0


def _unit_rows(features: np.ndarray) -> np.ndarray:
    """Each cell's feature vector scaled to length 1 (cosine similarity by dot product)."""
    return features / np.maximum(np.linalg.norm(features, axis=1, keepdims=True), 1e-9)


def sheet_consistency(
    probs: np.ndarray,
    features: np.ndarray,
    layout: Layout,
    weight: float = CONSISTENCY_WEIGHT,
    min_prob: float = PROTOTYPE_MIN_PROB,
    below: float = RESCORE_BELOW,
) -> np.ndarray:
    """Re-score a sheet's doubtful cells by their likeness to its confidently read cells.

    Per class, the prototype is the mean direction of the features of the unprinted
    cells read as that class with at least ``min_prob`` (if there are
    ``PROTOTYPE_MIN_CELLS`` of them). Ruins spaces make no prototypes: their printed
    icon makes them look alike whatever is drawn on them. A cell whose top probability
    is below ``below`` gets ``p_k * exp(weight * (s_k - max_j s_j))``, renormalised,
    with ``s_k`` the cosine similarity of its features to class ``k``'s prototype;
    classes without a prototype keep their probability's weight (``s_k`` counts as the
    best). Printed terrain is never re-scored (its probability is 1) and the layout
    prior is applied again.

    Parameters
    ----------
    probs : (121, len(CLASSES)) probabilities after :func:`apply_layout_prior`.
    features : (121, F) the model's pooled features (:data:`FEATURES_OUTPUT`).
    layout : the printed side.
    """
    unit = _unit_rows(features)
    top = probs.argmax(axis=1)
    sure = (probs.max(axis=1) >= min_prob) & plain_cells(layout)
    sims = np.zeros_like(probs)
    have = np.zeros(probs.shape[1], bool)
    for k in range(probs.shape[1]):
        members = unit[sure & (top == k)]
        if len(members) >= PROTOTYPE_MIN_CELLS:
            proto = members.mean(axis=0)
            sims[:, k] = unit @ (proto / max(float(np.linalg.norm(proto)), 1e-9))
            have[k] = True
    doubtful = probs.max(axis=1) < below
    if not have.any() or not doubtful.any():
        return probs
    best = sims[:, have].max(axis=1, keepdims=True)
    shift = np.where(have, sims - best, 0.0)
    logp = np.log(np.maximum(probs[doubtful], 1e-300)) + weight * shift[doubtful]
    out = probs.copy()
    out[doubtful] = softmax(logp, axis=1)
    return apply_layout_prior(out, layout)


def neighbour_prior(
    probs: np.ndarray,
    layout: Layout,
    weight: float = NEIGHBOUR_WEIGHT,
    sure: float = NEIGHBOUR_SURE,
    below: float = NEIGHBOUR_BELOW,
    max_sides: int = NEIGHBOUR_MAX_SIDES,
) -> np.ndarray:
    """Lean each doubtful cell towards the terrains drawn surely beside it.

    Every turn a player draws a shape of one to five spaces in one terrain, so a
    drawn space usually shares a side with another of its terrain. A cell whose top
    probability is below ``below`` gets ``p_k * exp(weight * min(n_k, max_sides))``,
    renormalised (a class at 0 stays at 0), where ``n_k`` counts its sides shared with
    unprinted cells read as terrain ``k`` with at least ``sure``. Empty neighbours count
    for nothing (a faint drawing beside blank paper must stay in doubt), nor do printed
    ones; printed cells and surely read ones are not changed.
    """
    printed = printed_table(layout)
    top = probs.argmax(axis=1)
    conf = probs.max(axis=1)
    doubtful = (conf < below) & (printed < 0)
    if not doubtful.any():
        return probs
    empty = CLASSES.index(".")
    votes = ((conf >= sure) & (printed < 0) & (top != empty)).reshape(SIZE, SIZE)
    # Each sure vote, one-hot by class, on the grid with a blank border of one cell.
    padded = np.zeros((SIZE + 2, SIZE + 2, probs.shape[1]))
    rows, cols = np.nonzero(votes)
    padded[rows + 1, cols + 1, top.reshape(SIZE, SIZE)[rows, cols]] = 1.0
    up, down, left, right = padded[:-2, 1:-1], padded[2:, 1:-1], padded[1:-1, :-2], padded[1:-1, 2:]
    sides = (up + down + left + right).reshape(SIZE * SIZE, -1)
    boost = np.exp(weight * np.minimum(sides, max_sides))
    leaning = np.flatnonzero(doubtful & (boost > 1).any(axis=1))
    out = probs.copy()
    out[leaning] *= boost[leaning]
    out[leaning] /= out[leaning].sum(axis=1, keepdims=True)
    return out


def lookalike_vote(
    probs: np.ndarray,
    features: np.ndarray,
    layout: Layout,
    k: int = LOOKALIKE_K,
    min_sim: float = LOOKALIKE_MIN_SIM,
    weight: float = LOOKALIKE_WEIGHT,
    below: float = LOOKALIKE_BELOW,
    floor: float = LOOKALIKE_FLOOR,
) -> np.ndarray:
    """Lean each doubtful cell towards the readings of the cells that look most like it.

    One player draws each terrain one way, so a cell's closest look-alikes on the same
    sheet (the ``k`` unprinted cells, ruins spaces excepted, whose features have the
    highest cosine similarity to its own, if at least ``min_sim``) are mostly of its
    terrain. Unlike :func:`sheet_consistency`, which compares a cell with each class's
    mean, this needs no surely read cells: a design the model reads a little wrong on
    most cells is decided by the majority of its own cells. A cell under ``below``
    gets ``log p + weight * log(mean p_j)`` over its look-alikes ``j`` (the mean
    floored at :data:`LOOKALIKE_FLOOR`), renormalised. The look-alikes' probabilities
    are averaged, not their logarithms: one surely read look-alike of another terrain
    must not outvote the rest (a mean of logs let its 1e-6 for the cell's terrain turn
    whole designs). Surely read and printed cells are not changed.
    """
    free = plain_cells(layout)
    doubtful = np.flatnonzero(free & (probs.max(axis=1) < below))
    pool = np.flatnonzero(free)
    if not doubtful.size or pool.size < 2:
        return probs
    unit = _unit_rows(features)
    sims = unit[doubtful] @ unit[pool].T
    sims[pool[None, :] == doubtful[:, None]] = -np.inf  # not its own look-alike
    k = min(k, pool.size - 1)
    near = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    use = np.take_along_axis(sims, near, axis=1) >= min_sim
    count = np.maximum(use.sum(axis=1, keepdims=True), 1)
    mean = (probs[pool[near]] * use[..., None]).sum(axis=1) / count
    has = use.any(axis=1)
    rows = doubtful[has]
    out = probs.copy()
    own = np.log(np.maximum(probs[rows], 1e-300))
    out[rows] = softmax(own + weight * np.log(np.maximum(mean[has], floor)), axis=1)
    return out
