"""The cells a person should check, and why (the review list of one sheet's reading).

A cell is listed when its own top probability is low or its top two classes are close,
or when a step of :func:`scanner.classify.classify_cells` chose its terrain (the
neighbours, its outlined shape, its look-alikes, the sheet-context model), when it is
covered, when it is a ruins space read as empty, when it is read as farm and may
still be water, or when those steps kept its terrain but left it doubtful. Each listed
cell comes with its candidates.
"""

from __future__ import annotations

import numpy as np

from scanner.covered import COVERED
from scanner.layout_prior import free_cells
from scanner.normalize import CLASSES
from scanner.sheet import Review
from scoring.layouts import SIZE, Layout, space_name

#: Review a cell when its chosen class has less than this probability ...
REVIEW_MIN_PROB = 0.99
#: ... or when the runner-up is within this much of it.
REVIEW_MIN_MARGIN = 0.5
#: Candidates listed in a review: the top two, and any other class with at least this probability.
CANDIDATE_MIN_PROB = 0.02
#: Review reason of a cell whose class the neighbour prior changed.
DECIDED_BY_NEIGHBOURS = "decided by neighbours"
#: Review reason of a cell whose class its outlined shape chose (:mod:`scanner.shapes`).
DECIDED_BY_SHAPE = "decided by its shape"
#: Review reason of a cell whose class its look-alikes changed.
DECIDED_BY_LOOKALIKES = "decided by look-alikes"
#: Review reason: the sheet-context model (:mod:`scanner.context`) chose the cell's terrain.
DECIDED_BY_SHEET = "decided by the sheet"
#: Review reason of a ruins space read as empty, however surely: the bare printed icon
#: and a faint drawing over it are what the model tells apart worst (docs/figures.md, session 21).
UNFILLED_RUINS = "unfilled ruins"
#: Review reason of a cell read as farm that may still be water (:data:`FARM_WATER_DOUBT`).
FARM_OR_WATER = "farm or water"
#: A cell read as farm keeps at least this probability of water: listed for review.
#: Furrows (a few parallel lines) and waves (two or three wavy lines) are the pair the
#: model takes for each other most, and surely: on the tuning photos of session 45,
#: cells read as farm with water at 0.001 or more held 23 misread cells unlisted until
#: then, for 46 right ones; no other pair of terrains came near.
FARM_WATER_DOUBT = 0.001
#: Review reason of a cell read surely on its own that the sheet's steps (context, look-alikes,
#: shapes, neighbours) left with its terrain but doubtful (its final reading low or close).
#: Spent photos of session 64: 7 of the 31 misread cells left off the review on our own
#: renders (8200000+) and 3 of 20 on the held-out renderer's (1290000+) were such cells,
#: for 0.10 and 0.05 more right cells listed a sheet.
DOUBTED_BY_SHEET = "doubted by the sheet"


def review_cells(
    probs: np.ndarray,
    layout: Layout,
    min_prob: float = REVIEW_MIN_PROB,
    min_margin: float = REVIEW_MIN_MARGIN,
    decided: np.ndarray | None = None,
    covered: np.ndarray | None = None,
    lookalike: np.ndarray | None = None,
    unfilled: np.ndarray | None = None,
    by_shape: np.ndarray | None = None,
    by_sheet: np.ndarray | None = None,
    in_context: np.ndarray | None = None,
    farm_water: np.ndarray | None = None,
    chosen: np.ndarray | None = None,
    final: np.ndarray | None = None,
) -> tuple[Review, ...]:
    """Cells whose top probability is below ``min_prob`` or whose top two are close,
    the cells ``decided`` marks (``(121,)`` bool: the neighbours chose their class),
    those ``lookalike`` marks (``(121,)`` bool: their look-alikes chose it), those
    ``by_shape`` marks (``(121,)`` bool: their outlined shape chose it), those
    ``by_sheet`` marks (``(121,)`` bool: the sheet-context model chose it), those
    ``covered`` marks (``(121,)`` bool: hidden under something; this reason first) and
    those ``unfilled`` marks (``(121,)`` bool: ruins spaces read as empty; this reason
    only when no other applies), and those ``farm_water`` marks (``(121,)`` bool: read as
    farm, maybe water; this reason only when no other applies). A cell the sheet decided
    lists its candidates as read in context (``in_context``), so the terrain chosen is
    among them. With ``chosen`` (``(121,)`` class indices: the terrains finally read), a
    terrain chosen against the listed reading (its neighbours, its shape or its
    look-alikes overruled it) is listed too, last, with that reading's probability. With
    ``final`` (``(121, len(CLASSES))``: the probabilities after every step), a cell whose
    final reading is low or close by the same thresholds is listed too, when no other
    reason holds, with the final reading's candidates."""
    out = []
    order = np.argsort(-probs, axis=1)
    low, close = _low_and_close(probs, min_prob, min_margin)
    doubted = None if final is None else np.logical_or(*_low_and_close(final, min_prob, min_margin))
    # Each reason and its cells, in the order a cell takes the first that holds.
    reasons = [
        (COVERED, covered),
        (DECIDED_BY_NEIGHBOURS, decided),
        (DECIDED_BY_SHAPE, by_shape),
        (DECIDED_BY_LOOKALIKES, lookalike),
        (DECIDED_BY_SHEET, by_sheet),
        ("low confidence", low),
        ("close call", close),
        (UNFILLED_RUINS, unfilled),
        (FARM_OR_WATER, farm_water),
        (DOUBTED_BY_SHEET, doubted),
    ]
    reasons = [(reason, cells) for reason, cells in reasons if cells is not None]
    doubtful = np.logical_or.reduce([cells for _, cells in reasons]) & free_cells(layout)
    for i in np.flatnonzero(doubtful):
        space = divmod(int(i), SIZE)
        reason = next(reason for reason, cells in reasons if cells[i])
        # The runner-up is always listed, however unlikely: a cell to check by
        # hand should say what else it may be.
        if reason == DECIDED_BY_SHEET and in_context is not None:
            read, ranked = in_context, np.argsort(-in_context[i])
        elif reason == DOUBTED_BY_SHEET:
            read, ranked = final, np.argsort(-final[i])
        else:
            read, ranked = probs, order[i]
        candidates = {
            CLASSES[k]: round(float(read[i, k]), 3)
            for rank, k in enumerate(ranked)
            if rank < 2
            or read[i, k] >= CANDIDATE_MIN_PROB
            or (chosen is not None and k == chosen[i])
        }
        out.append(Review(space_name(space), reason, candidates))
    return tuple(out)


def _low_and_close(
    probs: np.ndarray, min_prob: float, min_margin: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(121,)`` bool twice: the cells whose top probability is under ``min_prob``, and
    those whose top two are within ``min_margin``."""
    top2 = -np.partition(-probs, 1, axis=1)[:, :2]
    return top2[:, 0] < min_prob, top2[:, 0] - top2[:, 1] < min_margin


def farm_maybe_water(probs: np.ndarray, doubt: float = FARM_WATER_DOUBT) -> np.ndarray:
    """``(121,)`` bool: cells read as farm (their top class) whose water probability is at
    least ``doubt``."""
    return (probs.argmax(axis=1) == CLASSES.index("F")) & (probs[:, CLASSES.index("W")] >= doubt)
