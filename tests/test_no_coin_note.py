"""A coin track read all unmarked on a played map is listed for checking.

RULES.md: "A player marks one when drawing a shape that shows a coin, and one when all
four neighbours of a mountain become filled." A played sheet without a single coin is
rare; faint ticks read as none are not (fresh photo 204013: 7 marked, read 0, surely).
"""

from dataclasses import replace
from pathlib import Path

import pytest

from scanner.pipeline import (
    NO_COIN_CONFIDENCE,
    PLAYED_SPACES,
    drawn_spaces,
    scan_photo,
    sheet_from_scan,
)

SAMPLE = sorted((Path(__file__).parent.parent / "samples" / "photos").glob("*.jpg"))[0]
NOTE = "no coin is read as marked"


@pytest.fixture(scope="module")
def played_scan():
    scan = scan_photo(SAMPLE)
    assert scan.coins > 0  # the sample's own track is marked
    return scan


def test_played_map_with_no_coin_read_is_flagged(played_scan):
    sheet = sheet_from_scan(replace(played_scan, coins=0, coin_confidence=1.0))
    assert drawn_spaces(sheet.map.grid) >= PLAYED_SPACES
    assert sheet.coins == 0
    assert sheet.coin_confidence == NO_COIN_CONFIDENCE < 0.5
    assert any(NOTE in note for note in sheet.notes)


def test_marked_coins_on_a_played_map_get_no_such_note(played_scan):
    sheet = sheet_from_scan(played_scan)
    assert sheet.coin_confidence == played_scan.coin_confidence
    assert not any(NOTE in note for note in sheet.notes)


def test_drawn_spaces_counts_terrain_not_printed_or_empty():
    grid = ("TVFWM^#....",) + ("...........",) * 10
    assert drawn_spaces(grid) == 5


@pytest.mark.parametrize("side", ["A", "B"])
def test_blank_sheet_without_coins_gets_no_such_note(side, tmp_path):
    """An unplayed sheet has no coin marked, as it should: no word about its track."""
    import cv2
    import numpy as np

    from models.synth.template import render_template
    from scanner.pipeline import read_photo

    page, alpha, _, _ = render_template(side, 60.0, np.random.default_rng(5))
    a = alpha[..., None].astype(np.float32) / 255
    scan = (page * a + np.full_like(page, (90, 110, 130)) * (1 - a)).astype(np.uint8)
    path = tmp_path / "unplayed.png"
    cv2.imwrite(str(path), scan)
    sheet = read_photo(path)
    assert sheet.coins == 0 and drawn_spaces(sheet.map.grid) == 0
    assert not any(NOTE in note for note in sheet.notes), sheet.notes
