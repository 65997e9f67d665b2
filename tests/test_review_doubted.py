"""A cell read surely on its own that the sheet's steps leave doubtful is listed for review.

Issue #5: "mark cells whose top probability is low or whose top two are close as needing
review". The review starts from each cell's own reading; the sheet's later steps (its
context, look-alikes, outlined shapes, neighbours) may keep a cell's terrain and still
leave it low or close: that reading is doubtful too, and what the map is scored on.
"""

import numpy as np
import pytest

from scanner import cell_model, classify
from scanner.classify import classify_cells
from scanner.layout_prior import apply_layout_prior
from scanner.review import (
    DOUBTED_BY_SHEET,
    REVIEW_MIN_MARGIN,
    REVIEW_MIN_PROB,
    review_cells,
)
from scoring.layouts import SIDE_A, parse_space
from tests.stand_ins import FixedReader, prob_row


def _index(name: str) -> int:
    r, c = parse_space(name)
    return r * 11 + c


def _sheet() -> np.ndarray:
    """Every free cell surely empty; a water shape at E4-E6 read surely."""
    probs = np.tile(prob_row(E=0.9999, T=0.0001), (121, 1))
    for name in ("E4", "E5", "E6"):
        probs[_index(name)] = prob_row(W=0.9995, F=0.0005)
    return apply_layout_prior(probs, SIDE_A)


def test_a_cell_left_low_by_the_steps_is_listed_with_the_final_candidates():
    own = _sheet()
    final = own.copy()
    final[_index("E5")] = prob_row(W=0.87, F=0.13)  # the terrain kept, now in doubt
    reviews = {r.space: r for r in review_cells(own, SIDE_A, final=final)}
    assert set(reviews) == {"E5"}
    assert reviews["E5"].reason == DOUBTED_BY_SHEET
    assert reviews["E5"].candidates == {"W": 0.87, "F": 0.13}


@pytest.mark.parametrize(
    "top, second, listed",
    [
        (REVIEW_MIN_PROB - 0.001, 0.0, True),  # just under the sure mark
        (REVIEW_MIN_PROB, 1 - REVIEW_MIN_PROB, False),  # at it
        (0.7, 0.3, True),  # close: also low
    ],
)
def test_the_final_reading_meets_the_same_thresholds_as_the_own(top, second, listed):
    own = _sheet()
    final = own.copy()
    rest = max(0.0, 1 - top - second)
    final[_index("E5")] = prob_row(W=top, F=second, T=rest)
    spaces = {r.space for r in review_cells(own, SIDE_A, final=final)}
    assert ("E5" in spaces) == listed


def test_a_cell_doubtful_on_its_own_keeps_its_own_reason_and_candidates():
    own = _sheet()
    own[_index("E5")] = prob_row(W=0.8, F=0.2)
    final = own.copy()
    final[_index("E5")] = prob_row(W=0.6, F=0.4)
    (review,) = review_cells(own, SIDE_A, REVIEW_MIN_PROB, REVIEW_MIN_MARGIN, final=final)
    assert review.reason == "low confidence"
    assert review.candidates == {"W": 0.8, "F": 0.2}


def test_without_the_final_reading_only_the_own_one_counts():
    own = _sheet()
    assert review_cells(own, SIDE_A) == ()


@pytest.mark.parametrize("on", [True, False])
def test_classify_cells_lists_what_a_later_step_left_in_doubt(monkeypatch, on):
    monkeypatch.setattr(FixedReader, "probs", _sheet(), raising=False)
    monkeypatch.setattr(cell_model, "CellReader", FixedReader)

    def doubting_shapes(probs, lines, free):  # stands in for an outlined shape's vote
        out = probs.copy()
        out[_index("E5")] = prob_row(W=0.9, F=0.1)
        return out

    monkeypatch.setattr(classify, "shape_vote", doubting_shapes)
    crops = np.zeros((121, 96, 96, 3), np.uint8)
    # Only the shapes step after the own reading: the neighbours would lean E5 back.
    reading = classify_cells(crops, SIDE_A, covered=False, neighbours=False, doubted=on)
    reviews = {r.space: r for r in reading.review}
    assert reading.grid[4][4] == "W"  # the reading is not changed, only listed
    assert ("E5" in reviews) == on
    if on:
        assert reviews["E5"].reason == DOUBTED_BY_SHEET
    assert not {"E4", "E6"} & set(reviews)
