"""app.seasons.score_seasons: ``score --per-season``, the inputs as spring, summer, fall,
winter of one sheet. Expected numbers from samples/wilderness-a.txt's hand-worked scores
(RULES.md §3): cards A 15, B 12, C 7, D 12, monsters -5, coins 6; spring 28, summer 20,
fall 20, winter 28, total 96."""

from __future__ import annotations

from app.config import NO_CARDS
from app.inputs import load_input
from app.seasons import score_seasons
from tests.cli_fixtures import ROOT

WILD = str(ROOT / "samples" / "wilderness-a.txt")
SPARSE = str(ROOT / "samples" / "sparse-b.txt")
WILD_DEAL = {"A": "sentinel-wood", "B": "canal-lake", "C": "great-city", "D": "borderlands"}
FAILED = ("bad.txt", None, "bad.txt: expected 11 grid rows, found 1")


def _read(path: str):
    return (path, load_input(path), None)


def test_a_failed_input_leaves_its_season_out_and_each_map_is_scored_whole():
    seasons = score_seasons([_read(WILD), FAILED, _read(WILD)], None, None)
    assert seasons.cards == WILD_DEAL  # the map file's cards: header
    assert not seasons.headers_differ
    assert seasons.left_out and seasons.failed
    assert [(s.season, s.total) for s in seasons.game.seasons] == [("spring", 28), ("fall", 20)]
    assert seasons.game.total == 48
    assert [s.season for s in seasons.inputs] == ["spring", "summer", "fall"]
    assert [s.error for s in seasons.inputs] == [None, FAILED[2], None]
    assert seasons.inputs[1].on_map is None and seasons.inputs[1].loaded is None
    assert [s.on_map.total for s in (seasons.inputs[0], seasons.inputs[2])] == [96, 96]


def test_coins_given_by_season_score_each_season_and_its_own_map():
    seasons = score_seasons([_read(WILD), _read(WILD)], None, [1, 2, 3, 4])
    # spring 15+12+1-5, summer 12+7+2-5
    assert [s.total for s in seasons.game.seasons] == [23, 16]
    assert seasons.game.total == 39
    # summer's map with its 2 coins in every season: 96 - 4 x (6 - 2)
    assert seasons.inputs[1].on_map.total == 80
    assert not seasons.left_out and not seasons.failed


def test_the_first_header_is_used_when_headers_differ_and_given_cards_win():
    seasons = score_seasons([_read(WILD), _read(SPARSE)], None, None)
    assert seasons.headers_differ and seasons.cards == WILD_DEAL
    assert seasons.game.seasons[0].total == 28
    given = score_seasons([_read(SPARSE), _read(WILD)], WILD_DEAL, None)
    assert given.cards == WILD_DEAL and not given.headers_differ
    assert given.game.seasons[1].total == 20  # summer on wilderness-a, its cards


def test_no_cards_scores_no_input(tmp_path):
    bare = tmp_path / "bare.txt"
    lines = (ROOT / "samples" / "wilderness-a.txt").read_text().splitlines(keepends=True)
    bare.write_text("".join(line for line in lines if not line.startswith("cards:")))
    seasons = score_seasons([_read(str(bare)), FAILED], None, None)
    assert seasons.game is None and seasons.cards is None
    assert [s.error for s in seasons.inputs] == [NO_CARDS, FAILED[2]]
    assert seasons.failed and not seasons.left_out
