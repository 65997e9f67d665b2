"""The printed layout overrules the model, and doubtful cells are flagged for review."""

import numpy as np

from scanner.classify import apply_layout_prior, looks_blank
from scanner.normalize import CLASSES
from scanner.review import UNFILLED_RUINS, review_cells
from scoring.layouts import SIDE_A, SIDE_B, parse_space


def _index(name: str) -> int:
    r, c = parse_space(name)
    return r * 11 + c


def _confident(symbol: str, p: float = 0.99) -> np.ndarray:
    """Every cell says ``symbol`` with probability ``p``, the rest spread evenly."""
    probs = np.full((121, len(CLASSES)), (1 - p) / (len(CLASSES) - 1))
    probs[:, CLASSES.index(symbol)] = p
    return probs


def test_printed_mountain_is_read_as_mountain_whatever_the_model_says():
    probs = apply_layout_prior(_confident("T"), SIDE_A)
    assert probs[_index("B4")].argmax() == CLASSES.index("^")  # side A mountain
    assert probs[_index("B4")].max() == 1.0


def test_printed_wasteland_is_kept_on_side_b():
    probs = apply_layout_prior(_confident("."), SIDE_B)
    assert CLASSES[probs[_index("E5")].argmax()] == "#"


def test_a_plain_cell_can_never_become_mountain_or_wasteland():
    for symbol in "^#":
        probs = apply_layout_prior(_confident(symbol, 0.9), SIDE_A)
        plain = _index("A1")
        assert CLASSES[probs[plain].argmax()] not in "^#"
        assert probs[plain, CLASSES.index("^")] == 0 and probs[plain, CLASSES.index("#")] == 0
        np.testing.assert_allclose(probs[plain].sum(), 1.0)


def test_confident_cells_are_not_reviewed():
    probs = apply_layout_prior(_confident("W"), SIDE_A)
    assert review_cells(probs, SIDE_A) == ()


def test_low_and_close_cells_are_reviewed_with_their_candidates():
    probs = apply_layout_prior(_confident("."), SIDE_A)
    low, close = _index("C4"), _index("K11")
    probs[low] = 0
    probs[low, CLASSES.index("T")], probs[low, CLASSES.index("V")] = 0.55, 0.45
    probs[close] = 0
    probs[close, CLASSES.index("F")], probs[close, CLASSES.index("V")] = 0.93, 0.07
    reviews = {r.space: r for r in review_cells(probs, SIDE_A, min_prob=0.9, min_margin=0.9)}
    assert set(reviews) == {"C4", "K11"}
    assert reviews["C4"].reason == "low confidence"
    assert reviews["C4"].candidates == {"T": 0.55, "V": 0.45}
    assert reviews["K11"].reason == "close call"
    assert list(reviews["K11"].candidates) == ["F", "V"]


def test_a_reviewed_cell_always_names_its_runner_up():
    """A cell flagged at 0.98 still says what else it may be, however unlikely."""
    probs = apply_layout_prior(_confident("."), SIDE_A)
    cell = _index("C4")
    probs[cell] = 0
    probs[cell, CLASSES.index("W")], probs[cell, CLASSES.index("F")] = 0.985, 0.015
    (review,) = review_cells(probs, SIDE_A, min_prob=0.99, min_margin=0.5)
    assert list(review.candidates) == ["W", "F"]
    assert review.candidates["F"] == 0.015


def _doubtful(probs: np.ndarray, names: list[str], symbol: str, p: float) -> np.ndarray:
    for name in names:
        probs[_index(name)] = (1 - p) / (len(CLASSES) - 1)
        probs[_index(name), CLASSES.index(symbol)] = p
    return probs


def test_a_few_doubtful_marks_on_an_empty_sheet_make_it_blank():
    """An unplayed sheet: a few cells (ruins icons) read as terrain, none surely.
    A sheet after one season shows 18+ drawn cells, read surely."""
    empty = apply_layout_prior(_confident("."), SIDE_A)
    ruins = ["B6", "C2", "C10", "I2", "I10", "J6"]  # side A's ruins, read as forest
    assert looks_blank(_doubtful(empty.copy(), ruins, "T", 0.6), SIDE_A)
    assert not looks_blank(_doubtful(empty.copy(), ["D5"], "T", 0.99), SIDE_A)
    season = [f"{r}{c}" for r in "DEFG" for c in range(1, 6)]  # 20 cells drawn
    assert not looks_blank(_doubtful(empty.copy(), season, "F", 0.8), SIDE_A)


def test_ruins_read_empty_are_listed_as_unfilled_unless_another_reason_applies():
    """The marked ruins spaces are listed even when surely empty; a doubtful one keeps
    its doubt as the reason; unmarked sure cells stay off the list."""
    probs = apply_layout_prior(_confident(".", 0.999), SIDE_A)
    unfilled = np.zeros(121, bool)
    unfilled[[_index("B6"), _index("C2")]] = True  # side A ruins
    probs[_index("C2")] = 0.0
    probs[_index("C2"), CLASSES.index(".")] = 0.6
    probs[_index("C2"), CLASSES.index("F")] = 0.4
    reviews = {r.space: r for r in review_cells(probs, SIDE_A, unfilled=unfilled)}
    assert set(reviews) == {"B6", "C2"}
    assert reviews["B6"].reason == UNFILLED_RUINS
    assert reviews["C2"].reason == "low confidence"
    assert review_cells(probs, SIDE_A) == (reviews["C2"],)
