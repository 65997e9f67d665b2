"""Seasons, coins, monsters, totals and solo titles (RULES.md §2 and §4)."""

import pytest

from scoring.board import Map
from scoring.cards import UnknownCard
from scoring.game import (
    deal_warnings,
    monster_penalty,
    monster_spaces,
    score_game,
)
from scoring.i18n import solo_title
from scoring.layouts import SIDE_A, SIDE_B, parse_space, space_name

DEAL = {"A": "sentinel-wood", "B": "canal-lake", "C": "great-city", "D": "borderlands"}


def paint(layout=SIDE_A, base: Map | None = None, **terrain: str) -> Map:
    m = base or Map.empty(layout)
    for symbol, names in terrain.items():
        for name in names.split():
            m = m.with_terrain(parse_space(name), symbol)
    return m


def test_monster_penalty_once_per_empty_space():
    # "−1 per empty space adjacent to at least one monster space (once per space)"
    assert monster_penalty(paint(M="E5")) == -4
    # E6 touches both monsters but costs 1.
    assert monster_penalty(paint(M="E5 E7")) == -7
    # "mountains and wasteland are never empty": A4 touches B4's mountain.
    assert monster_penalty(paint(M="A4")) == -2
    assert monster_penalty(paint(M="E5", T="D5 F5 E4 E6")) == 0
    assert monster_penalty(paint()) == 0


def test_monster_penalty_counts_unfilled_ruins():
    # "Unfilled ruins are empty (monster penalty applies to them)". B6 is a ruin on side A.
    assert {space_name(s) for s in monster_spaces(paint(M="B7"))} == {"A7", "C7", "B6", "B8"}
    assert monster_penalty(paint(M="B7", F="B6")) == -3
    # Side B: E4 next to wasteland E5 -> only 3 empty neighbours.
    assert monster_penalty(paint(SIDE_B, M="E4")) == -3


# Worked by hand. Map: forest A1 A2; water E1; farm D1; village E2 E3 E4; monster H8.
#  Sentinel Wood: A1, A2 on the edge = 2.  Canal Lake: water E1 by farm D1 + farm D1 by
#  water = 2.  Great City: E2-E4 touch no mountain = 3.  Borderlands: no full line = 0.
#  Monsters: H8's neighbours G8 I8 H7 H9 all empty = -4.  Coins 5.
#  spring A+B 2+2+5-4 = 5; summer B+C 2+3+5-4 = 6; fall C+D 3+0+5-4 = 4;
#  winter D+A 0+2+5-4 = 3; total 18; solo sum 25+24+16+24 = 89, rating -71: no title.
FINAL = paint(T="A1 A2", W="E1", F="D1", V="E2 E3 E4", M="H8")


def test_one_map_scores_all_four_seasons_on_it():
    g = score_game([FINAL], DEAL, coins=5)
    assert g.one_map
    assert [(s.season, s.edicts) for s in g.seasons] == [
        ("spring", ("A", "B")),
        ("summer", ("B", "C")),
        ("fall", ("C", "D")),
        ("winter", ("D", "A")),
    ]
    assert [s.edict_points for s in g.seasons] == [(2, 2), (2, 3), (3, 0), (0, 2)]
    assert [s.total for s in g.seasons] == [5, 6, 4, 3]
    assert all(s.coins == 5 and s.monsters == -4 for s in g.seasons)
    assert g.card_points == {"A": 2, "B": 2, "C": 3, "D": 0}
    assert g.monsters == -4
    assert g.total == 18
    assert g.stars_lost_to_monsters == 16
    assert g.solo.card_sum == 89 and g.solo.rating == -71
    assert g.solo.title_en is None and g.solo.title("zh") is None


def test_four_maps_score_one_season_each():
    # Spring: forest A1, 1 coin -> A 1 + B 0 + 1 = 2.
    spring = paint(T="A1")
    # Summer: + forest A2, water E1, farm D1, 2 coins -> B 2 + C 0 + 2 = 4.
    summer = paint(base=spring, T="A2", W="E1", F="D1")
    # Fall: + villages E2-E4, 3 coins -> C 3 + D 0 + 3 = 6.
    fall = paint(base=summer, V="E2 E3 E4")
    # Winter: + monster H8, 5 coins -> D 0 + A 2 + 5 - 4 = 3.   Total 15.
    winter = paint(base=fall, M="H8")
    g = score_game([spring, summer, fall, winter], DEAL, coins=[1, 2, 3, 5])
    assert not g.one_map
    assert [s.total for s in g.seasons] == [2, 4, 6, 3]
    assert g.total == 15
    assert g.stars_lost_to_monsters == 4
    assert g.card_points == {"A": 2, "B": 2, "C": 3, "D": 0}
    assert g.solo.rating == 15 - 89


def test_per_season_with_fewer_maps_scores_only_those_seasons():
    g = score_game([paint(T="A1"), FINAL], DEAL, coins=[1, 2], per_season=True)
    assert [s.season for s in g.seasons] == ["spring", "summer"]
    assert g.total == 2 + (2 + 3 + 2 - 4)
    assert g.solo is None


def test_cards_by_name_and_bad_deals():
    g = score_game(
        [FINAL],
        {"a": "Sentinel Wood", "b": "canal lake", "c": "Great City", "d": "BORDERLANDS"},
        coins=0,
    )
    assert g.cards == DEAL
    with pytest.raises(UnknownCard):
        score_game([FINAL], {**DEAL, "D": "bordrlands"})
    with pytest.raises(ValueError, match="edicts"):
        score_game([FINAL], {"A": "sentinel-wood", "B": "canal-lake", "C": "great-city"})
    with pytest.raises(ValueError, match="coins"):
        score_game([FINAL], DEAL, coins=15)  # "the coin track has 14 coins"
    with pytest.raises(ValueError):
        score_game([FINAL, FINAL], DEAL)  # 1 or 4 maps unless per_season


def test_deal_not_one_per_deck_is_a_warning():
    assert deal_warnings(DEAL) == []
    warn = deal_warnings(
        {"A": "sentinel-wood", "B": "greenbough", "C": "great-city", "D": "borderlands"}
    )
    assert any("forest deck" in w for w in warn)
    assert any("farm+water deck" in w for w in warn)


@pytest.mark.parametrize(
    "rating, en, it",
    [
        # "Title = the highest row whose threshold the rating reaches."
        (45, "Legendary Cartographer", "Cartografo Leggendario"),
        (30, "Legendary Cartographer", "Cartografo Leggendario"),
        (29, "Master Mapsmith", "Artigiano delle Mappe"),
        (20, "Master Mapsmith", "Artigiano delle Mappe"),
        (10, "Journeyman Topographer", "Topografo Viaggiatore"),
        (0, "Apprentice Surveyor", "Perito Apprendista"),
        (-1, "Amateur Assessor", "Assessore Dilettante"),
        (-5, "Amateur Assessor", "Assessore Dilettante"),
        (-6, "Inept Assistant", "Assistente Incapace"),
        (-20, "Dimwitted Doodler", "Semplice Scribacchino"),
        (-30, "Oblivious Inkdrinker", "Bevitore di Inchiostro"),
        # "Below −30 there is no title"
        (-31, None, None),
    ],
)
def test_solo_titles_at_thresholds(rating, en, it):
    assert solo_title(rating) == en
    assert solo_title(rating, "it") == it


def test_solo_titles_other_languages():
    assert solo_title(25, "fr") == "Maître des Cartes"
    assert solo_title(25, "es") == "Maestro Cartógrafo"
    assert solo_title(25, "zh") == "地圖大師"
    with pytest.raises(ValueError):
        solo_title(0, "de")


def test_solo_rating_is_total_minus_card_solo_numbers():
    # A full map of forest: Sentinel Wood = 40 edge spaces (side A has no mountain
    # on the edge and no ruin on the edge). Greenbough 11 + 11. Cards A..D all
    # forest-deck: solo 25 + 22 + 17 + 18 = 82.
    full = Map(tuple(row.replace(".", "T") for row in Map.empty(SIDE_A).grid), SIDE_A)
    deal = {"A": "sentinel-wood", "B": "greenbough", "C": "treetower", "D": "stoneside-forest"}
    g = score_game([full], deal, coins=0)
    # Treetower: every forest is closed (all spaces filled) = 121 - 5 mountains = 116.
    # Stoneside: one forest cluster touches all 5 mountains = 15.
    assert g.card_points == {"A": 40, "B": 22, "C": 116, "D": 15}
    spring, summer, fall, winter = (40 + 22, 22 + 116, 116 + 15, 15 + 40)
    assert g.total == spring + summer + fall + winter
    assert g.solo.card_sum == 82
    assert g.solo.rating == g.total - 82
    assert g.solo.title_en == "Legendary Cartographer"


def test_surrounded_mountains_earn_coins():
    # "one when all four neighbours of a mountain become filled" (RULES.md §2)
    from scoring.game import coin_warnings, surrounded_mountains

    m = paint(T="A4 C4", W="B3", M="B5")
    assert surrounded_mountains(m) == {(1, 3)}
    assert surrounded_mountains(paint(T="A4 C4", W="B3")) == frozenset()
    assert coin_warnings(m, 1) == []
    assert coin_warnings(m, 0) == [
        "1 mountain is surrounded (B4), a coin, but only 0 coins are counted"
    ]
    two = paint(T="A4 C4 E6 G6", W="B3", M="B5", F="F5 F7")  # B4 and F6 (side A)
    assert coin_warnings(two, 1) == [
        "2 mountains are surrounded (B4, F6), a coin each, but only 1 coin is counted"
    ]


@pytest.mark.parametrize(
    "name, mountains",
    [
        # Worked by hand from the sample grids: each mountain's four neighbours.
        ("wilderness-a.txt", {"J8"}),
        ("wastelands-b.txt", {"B9", "C4", "H6", "I10", "J3"}),
        ("forest-road-a.txt", {"B4", "J8"}),
        ("sparse-b.txt", set()),
    ],
)
def test_samples_surrounded_mountains(name, mountains):
    from pathlib import Path

    from scoring.game import surrounded_mountains
    from scoring.textmap import load_map_file

    mf = load_map_file(Path(__file__).resolve().parent.parent / "samples" / name)
    assert {space_name(s) for s in surrounded_mountains(mf.map)} == mountains
    assert mf.coins >= len(mountains)  # the samples mark at least those coins
