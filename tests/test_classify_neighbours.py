"""Doubtful cells lean towards the terrain drawn surely beside them (the neighbour prior).

SHEET.md, "How players draw": "Each placed shape is usually outlined with a firmer line
along its border, then every cell is filled with the terrain's symbol" -- a shape of
several spaces in one terrain, so a drawn space usually shares a side with its own kind.
"""

import numpy as np
import pytest

from scanner import cell_model
from scanner.classify import apply_layout_prior, classify_cells, neighbour_prior
from scanner.normalize import CLASSES
from scanner.review import DECIDED_BY_NEIGHBOURS, DECIDED_BY_SHAPE, REVIEW_MIN_PROB, review_cells
from scoring.layouts import SIDE_A, parse_space, space_name
from tests.stand_ins import FixedReader

FOREST, WATER, EMPTY = (CLASSES.index(s) for s in "TW.")


def _index(name: str) -> int:
    r, c = parse_space(name)
    return r * 11 + c


def _sheet(symbol: str = ".", p: float = 0.999) -> np.ndarray:
    """Every cell read as ``symbol`` with probability ``p``, after the layout prior."""
    probs = np.full((121, len(CLASSES)), (1 - p) / (len(CLASSES) - 1))
    probs[:, CLASSES.index(symbol)] = p
    return apply_layout_prior(probs, SIDE_A)


def _set(probs: np.ndarray, name: str, **by_symbol: float) -> None:
    """Give one cell these probabilities (keyword = class index name: T, W, E for '.')."""
    row = probs[_index(name)]
    row[:] = 0.0
    for key, value in by_symbol.items():
        row[{"T": FOREST, "W": WATER, "E": EMPTY}[key]] = value


def test_a_close_call_between_sure_forests_is_read_as_forest():
    # H8..H10 on side A are plain cells (no mountain, ruins or rift).
    probs = _sheet(".")
    _set(probs, "H8", T=0.999, E=0.001)
    _set(probs, "H10", T=0.999, E=0.001)
    _set(probs, "H9", W=0.52, T=0.48)
    out = neighbour_prior(probs, SIDE_A)
    assert out[_index("H9")].argmax() == FOREST
    np.testing.assert_allclose(out[_index("H9")].sum(), 1.0)
    # Without the two forests beside it, the model's own choice stands.
    alone = _sheet(".")
    _set(alone, "H9", W=0.52, T=0.48)
    assert neighbour_prior(alone, SIDE_A)[_index("H9")].argmax() == WATER


def test_a_sure_reading_is_never_changed_by_its_neighbours():
    probs = _sheet("T")
    _set(probs, "H9", W=0.995, T=0.005)
    out = neighbour_prior(probs, SIDE_A)
    np.testing.assert_array_equal(out[_index("H9")], probs[_index("H9")])


def test_empty_neighbours_do_not_pull_a_faint_drawing_to_empty():
    # A faint forest among blank spaces must stay a forest (and stay in doubt).
    probs = _sheet(".")
    _set(probs, "H9", T=0.55, E=0.45)
    out = neighbour_prior(probs, SIDE_A)
    np.testing.assert_array_equal(out[_index("H9")], probs[_index("H9")])


def test_doubtful_neighbours_do_not_vote():
    probs = _sheet(".")
    _set(probs, "H8", T=0.8, W=0.2)
    _set(probs, "H10", T=0.8, W=0.2)
    _set(probs, "H9", W=0.52, T=0.48)
    assert neighbour_prior(probs, SIDE_A)[_index("H9")].argmax() == WATER


def test_printed_cells_keep_the_printed_terrain():
    probs = _sheet("T")
    out = neighbour_prior(probs, SIDE_A)
    mountain = _index("B4")  # side A mountain
    assert CLASSES[out[mountain].argmax()] == "^" and out[mountain].max() == 1.0


def test_a_cell_decided_by_neighbours_is_listed_for_review():
    probs = _sheet(".")
    decided = np.zeros(121, bool)
    decided[_index("H9")] = True
    reviews = review_cells(probs, SIDE_A, decided=decided)
    assert [(r.space, r.reason) for r in reviews] == [("H9", DECIDED_BY_NEIGHBOURS)]


@pytest.mark.parametrize("neighbours", [True, False])
def test_classify_cells_applies_the_prior_and_flags_what_it_decided(monkeypatch, neighbours):
    probs = _sheet(".")
    for name in ("H8", "H10", "G9", "I9"):
        _set(probs, name, T=0.999, E=0.001)
    _set(probs, "H9", W=0.52, T=0.48)
    monkeypatch.setattr(FixedReader, "probs", probs, raising=False)
    monkeypatch.setattr(cell_model, "CellReader", FixedReader)
    crops = np.zeros((121, 96, 96, 3), np.uint8)
    reading = classify_cells(crops, SIDE_A, neighbours=neighbours, covered=False)
    r, c = parse_space("H9")
    reasons = {x.space: x.reason for x in reading.review}
    if neighbours:
        assert reading.grid[r][c] == "T"
        assert reasons[space_name((r, c))] == DECIDED_BY_NEIGHBOURS
    else:
        assert reading.grid[r][c] == "W"
        assert reasons[space_name((r, c))] == "low confidence"


def test_neighbours_never_take_a_doubtful_cell_off_the_review(monkeypatch):
    # Two sure waters beside a 0.97 water make it surer than the review threshold; the
    # cell's own reading was doubtful, so it is still listed.
    probs = _sheet(".")
    for name in ("H8", "H10"):
        _set(probs, name, W=0.999, E=0.001)
    _set(probs, "H9", W=0.97, T=0.03)
    assert neighbour_prior(probs, SIDE_A)[_index("H9")].max() > REVIEW_MIN_PROB
    monkeypatch.setattr(FixedReader, "probs", probs, raising=False)
    monkeypatch.setattr(cell_model, "CellReader", FixedReader)
    reading = classify_cells(np.zeros((121, 96, 96, 3), np.uint8), SIDE_A, covered=False)
    reviews = {x.space: x for x in reading.review}
    assert reviews["H9"].reason == "low confidence"
    assert reviews["H9"].candidates == {"W": 0.97, "T": 0.03}


def test_a_terrain_chosen_against_the_cells_own_reading_is_among_its_candidates():
    # The cell's own reading is sure of a forest; its outlined shape made it a village
    # (docs/figures.md, session 48: a model sure of T, read V by its shape). The list
    # shows what the drawing itself says, and the terrain the map now holds.
    probs = _sheet(".")
    _set(probs, "G11", T=0.997, E=0.003)
    by_shape = np.zeros(121, bool)
    by_shape[_index("G11")] = True
    chosen = probs.argmax(axis=1)
    chosen[_index("G11")] = CLASSES.index("V")
    (review,) = review_cells(probs, SIDE_A, by_shape=by_shape, chosen=chosen)
    assert (review.space, review.reason) == ("G11", DECIDED_BY_SHAPE)
    assert review.candidates == {"T": 0.997, ".": 0.003, "V": 0.0}
    # Chosen as its own reading says: nothing is added.
    (same,) = review_cells(probs, SIDE_A, by_shape=by_shape, chosen=probs.argmax(axis=1))
    assert same.candidates == {"T": 0.997, ".": 0.003}


@pytest.mark.parametrize("water, leans", [(0.8, True), (0.95, False)])
def test_two_sure_sides_outweigh_a_doubtful_reading_up_to_their_weight(water, leans):
    # H9 reads water, forest the rest, with a sure forest on two sides: forest gains
    # exp(2 x weight), and wins when that outweighs water's lead.
    probs = _sheet(".")
    _set(probs, "H8", T=0.999, E=0.001)
    _set(probs, "H10", T=0.999, E=0.001)
    _set(probs, "H9", W=water, T=1 - water)
    out = neighbour_prior(probs, SIDE_A, weight=1.2)
    forest = (1 - water) * np.e**2.4
    assert (out[_index("H9")].argmax() == FOREST) == leans
    np.testing.assert_allclose(out[_index("H9"), FOREST], forest / (water + forest))
