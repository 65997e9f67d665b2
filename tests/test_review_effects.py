"""app.report.review_effects: each reviewed cell's change to the total as its runner-up,
worked out once per input and shown by both the report and the overlay. It is known
for the whole game scored on the sheet's one map, and not for one season's map of a
``--per-season`` game (RULES.md §2: the game's total sums seasons on other maps).
"""

from app.report import review_effects
from scanner.sheet import Review, Sheet
from scoring.board import Map
from scoring.game import score_game
from scoring.layouts import SIDE_A

CARDS = {"A": "sentinel-wood", "B": "greenbough", "C": "canal-lake", "D": "great-city"}
# E5 read empty, maybe a monster: as one it would empty its 4 neighbours, 4 seasons.
MAYBE_MONSTER = (Review("E5", "low confidence", {".": 0.6, "M": 0.4}),)
SHEET = Sheet(source="x.png", map=Map.empty(SIDE_A), coins=0, review=MAYBE_MONSTER)


def test_the_whole_game_on_one_map_gives_each_cells_change():
    effects = review_effects(SHEET, score_game([SHEET.map], CARDS, 0))
    assert (effects["E5"].symbol, effects["E5"].change) == ("M", -16)


def test_no_cell_to_check_changes_nothing():
    plain = Sheet(source="x.png", map=Map.empty(SIDE_A), coins=0)
    assert review_effects(plain, score_game([plain.map], CARDS, 0)) == {}


def test_one_seasons_map_has_no_change_to_the_games_total():
    on_map = score_game([SHEET.map], CARDS, 0)
    assert review_effects(SHEET, on_map, season="summer") is None
    game = score_game([SHEET.map, SHEET.map], CARDS, 0, per_season=True)
    assert review_effects(SHEET, game) is None
