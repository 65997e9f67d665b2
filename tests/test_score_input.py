"""app.score_input.score_input: ``score`` scoring one input as a finished sheet. Expected
numbers from samples/wilderness-a.txt's hand-worked scores (RULES.md §3): cards A 15,
B 12, C 7, D 12, monsters -5, coins 6; spring 28, summer 20, fall 20, winter 28, total 96.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import NO_CARDS
from app.inputs import load_input
from app.score_input import score_input
from tests.cli_fixtures import ROOT

WILD = ROOT / "samples" / "wilderness-a.txt"
WILD_DEAL = {"A": "sentinel-wood", "B": "canal-lake", "C": "great-city", "D": "borderlands"}
#: Two forest cards and no farm+water one (RULES.md §3: one card from each deck).
TWO_FORESTS = {"A": "sentinel-wood", "B": "greenbough", "C": "great-city", "D": "borderlands"}


def with_header(tmp_path: Path, cards: str | None) -> str:
    """wilderness-a.txt with its ``cards:`` header replaced (dropped for None)."""
    lines = WILD.read_text().splitlines(keepends=True)
    out = [line for line in lines if not line.startswith("cards:")]
    if cards is not None:
        out.insert(0, f"cards: {cards}\n")
    path = tmp_path / "sheet.txt"
    path.write_text("".join(out))
    return str(path)


def test_the_map_files_own_cards_and_coins_score_it():
    scored = score_input(load_input(str(WILD)), None, None)
    assert scored.cards == WILD_DEAL
    assert [s.total for s in scored.game.seasons] == [28, 20, 20, 28]
    assert scored.game.total == 96
    assert scored.warnings == ()


def test_given_cards_win_over_the_header_and_are_not_warned_of_again(tmp_path):
    path = with_header(tmp_path, "treetower, the golden granary, greengold plains, shieldgate")
    assert score_input(load_input(path), WILD_DEAL, None).game.total == 96
    odd = score_input(load_input(path), TWO_FORESTS, None)
    assert odd.cards == TWO_FORESTS and odd.warnings == ()  # said once, where given


def test_given_coins_win_over_the_sheets_own():
    assert score_input(load_input(str(WILD)), None, [2]).game.total == 96 - 4 * (6 - 2)
    by_season = score_input(load_input(str(WILD)), None, [1, 2, 3, 4]).game
    # spring 15+12+1-5, summer 12+7+2-5, fall 7+12+3-5, winter 12+15+4-5
    assert [s.total for s in by_season.seasons] == [23, 16, 17, 26]


def test_a_headers_odd_deal_is_warned_of_naming_the_input(tmp_path):
    path = with_header(tmp_path, "sentinel-wood, greenbough, great-city, borderlands")
    scored = score_input(load_input(path), None, None)
    assert scored.cards == TWO_FORESTS
    assert len(scored.warnings) == 2
    assert all(w.startswith(f"{path}: the deal has ") for w in scored.warnings)
    assert "2 cards from the forest deck" in scored.warnings[0]
    assert "0 cards from the farm+water deck" in scored.warnings[1]


def test_no_cards_from_anywhere_is_an_error_naming_the_input(tmp_path):
    path = with_header(tmp_path, None)
    with pytest.raises(ValueError) as err:
        score_input(load_input(path), None, None)
    assert str(err.value) == f"{path}: {NO_CARDS}"
