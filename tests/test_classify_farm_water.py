"""Cells read as farm that may be water are listed for review.

SHEET.md, "How players draw": "farm: a wheat stalk, or furrows (a few parallel lines or
dotted rows)"; "water: two or three wavy lines". Furrows and flat waves are alike, and a
player draws one way all game, so the model can read a whole design wrong and surely.
"""

import numpy as np
import pytest

from scanner import cell_model
from scanner.classify import classify_cells
from scanner.layout_prior import apply_layout_prior
from scanner.review import FARM_OR_WATER, FARM_WATER_DOUBT, farm_maybe_water
from scoring.layouts import SIDE_A, parse_space
from tests.stand_ins import FixedReader, prob_row


def test_only_farms_keeping_a_chance_of_water_are_marked():
    probs = np.stack(
        [
            prob_row(F=0.997, W=0.003),  # farm, water possible
            prob_row(F=0.9999, W=0.0001),  # farm, water all but ruled out
            prob_row(W=0.997, F=0.003),  # water read: the other way round is not asked
            prob_row(T=0.99, W=0.01),  # forest
            prob_row(F=1 - FARM_WATER_DOUBT, W=FARM_WATER_DOUBT),  # at the threshold
        ]
    )
    assert farm_maybe_water(probs).tolist() == [True, False, False, False, True]


@pytest.mark.parametrize("on", [True, False])
def test_a_sure_farm_with_water_possible_is_listed(monkeypatch, on):
    probs = np.tile(prob_row(E=0.9999, T=0.0001), (121, 1))
    for name in ("E4", "E5", "E6", "F5"):  # a farm shape
        probs[_index(name)] = prob_row(F=0.9999, W=0.0001)
    probs[_index("E5")] = prob_row(F=0.997, W=0.003)
    monkeypatch.setattr(FixedReader, "probs", apply_layout_prior(probs, SIDE_A), raising=False)
    monkeypatch.setattr(cell_model, "CellReader", FixedReader)
    crops = np.zeros((121, 96, 96, 3), np.uint8)
    reading = classify_cells(crops, SIDE_A, covered=False, shapes=False, farm_water=on)
    reviews = {r.space: r for r in reading.review}
    assert reading.grid[4][4] == "F"  # the reading is not changed, only listed
    if on:
        assert reviews["E5"].reason == FARM_OR_WATER
        assert list(reviews["E5"].candidates) == ["F", "W"]
    else:
        assert "E5" not in reviews
    assert not {"E4", "E6", "F5"} & set(reviews)


def _index(name: str) -> int:
    r, c = parse_space(name)
    return r * 11 + c
