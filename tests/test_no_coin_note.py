"""A coin track read all unmarked on a played map is listed for checking.

RULES.md: "A player marks one when drawing a shape that shows a coin, and one when all
four neighbours of a mountain become filled." A played sheet without a single coin is
rare; faint ticks read as none are not (fresh photo 204013: 7 marked, read 0, surely).
"""

from dataclasses import replace
from pathlib import Path

import pytest

from scanner.coin_doubts import DOUBTED_COUNT_CONFIDENCE, PLAYED_SPACES
from scanner.pipeline import scan_photo, sheet_from_scan

SAMPLE = sorted((Path(__file__).parent.parent / "samples" / "photos").glob("*.jpg"))[0]
NOTE = "no coin is read as marked"


@pytest.fixture(scope="module")
def played_scan():
    scan = scan_photo(SAMPLE)
    assert scan.coins > 0  # the sample's own track is marked
    return scan


def test_played_map_with_no_coin_read_is_flagged(played_scan):
    sheet = sheet_from_scan(replace(played_scan, coins=0, coin_confidence=1.0))
    assert sheet.map.drawn_spaces() >= PLAYED_SPACES
    assert sheet.coins == 0
    assert sheet.coin_confidence == DOUBTED_COUNT_CONFIDENCE < 0.5
    assert any(NOTE in note for note in sheet.notes)


def test_marked_coins_on_a_played_map_get_no_such_note(played_scan):
    sheet = sheet_from_scan(played_scan)
    assert sheet.coin_confidence == played_scan.coin_confidence
    assert not any(NOTE in note for note in sheet.notes)


@pytest.mark.parametrize("side", ["A", "B"])
def test_blank_sheet_without_coins_gets_no_such_note(side, tmp_path):
    """An unplayed sheet has no coin marked, as it should: no word about its track."""
    from scanner.pipeline import read_photo
    from tests.stand_ins import blank_print_file

    sheet = read_photo(blank_print_file(side, tmp_path / "unplayed.png"))
    assert sheet.coins == 0 and sheet.map.drawn_spaces() == 0
    assert not any(NOTE in note for note in sheet.notes), sheet.notes
