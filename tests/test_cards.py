"""The 16 scoring cards on hand-built maps; each case is worked out from RULES.md §3.

Maps are painted onto the printed layouts with :func:`paint`. Side A prints
mountains at B4 C9 F6 I3 J8 and ruins at B6 C2 C10 I2 I10 J6; side B prints
mountains at B9 C4 H6 I10 J3, ruins at B7 C3 E7 G2 H9 J4 and wasteland at
D6 E5 E6 F5 F6 F7 G6 (RULES.md §1).
"""

import pytest

from scoring.board import Map
from scoring.cards import CARDS, DECKS, UnknownCard, find_card
from scoring.layouts import SIDE_A, SIDE_B, Layout, custom_layout, parse_space


def paint(layout: Layout = SIDE_A, **terrain: str) -> Map:
    """A map of ``layout`` with e.g. ``T="A1 A2"`` drawn (forest on A1 and A2)."""
    m = Map.empty(layout)
    for symbol, names in terrain.items():
        for name in names.split():
            m = m.with_terrain(parse_space(name), symbol)
    return m


def row(letter: str, cols=range(1, 12), layout: Layout = SIDE_A) -> str:
    """Space names of a row, skipping printed mountains/wasteland of ``layout``."""
    names = [f"{letter}{c}" for c in cols]
    printed = layout.mountains | layout.wasteland
    return " ".join(n for n in names if parse_space(n) not in printed)


def col(number: int, layout: Layout = SIDE_A) -> str:
    printed = layout.mountains | layout.wasteland
    names = [f"{letter}{number}" for letter in "ABCDEFGHIJK"]
    return " ".join(n for n in names if parse_space(n) not in printed)


def points(card_id: str, m: Map) -> int:
    return CARDS[card_id].score(m).points


def spaces(card_id: str, m: Map) -> set[str]:
    from scoring.layouts import space_name

    return {space_name(s) for s in CARDS[card_id].score(m).explanation.spaces}


# --- registry -------------------------------------------------------------------------


def test_sixteen_cards_four_per_deck_with_solo_values():
    # RULES.md §3 table: deck, id, solo
    expected = {
        "sentinel-wood": ("forest", 25),
        "greenbough": ("forest", 22),
        "treetower": ("forest", 17),
        "stoneside-forest": ("forest", 18),
        "canal-lake": ("farm+water", 24),
        "mages-valley": ("farm+water", 22),
        "the-golden-granary": ("farm+water", 20),
        "shoreside-expanse": ("farm+water", 27),
        "wildholds": ("village", 16),
        "great-city": ("village", 16),
        "greengold-plains": ("village", 21),
        "shieldgate": ("village", 20),
        "borderlands": ("spatial", 24),
        "lost-barony": ("spatial", 24),
        "the-broken-road": ("spatial", 24),
        "the-cauldrons": ("spatial", 20),
    }
    assert {cid: (c.deck, c.solo) for cid, c in CARDS.items()} == expected
    assert set(DECKS) == {c.deck for c in CARDS.values()}


@pytest.mark.parametrize(
    "name, cid",
    [
        # "Accept names case-insensitively, with spaces or hyphens, with or without a
        # leading "the" (`golden granary`, `The Golden Granary`, `the-golden-granary`)."
        ("golden granary", "the-golden-granary"),
        ("The Golden Granary", "the-golden-granary"),
        ("the-golden-granary", "the-golden-granary"),
        ("GOLDEN-GRANARY", "the-golden-granary"),
        ("the broken road", "the-broken-road"),
        ("Broken Road", "the-broken-road"),
        ("cauldrons", "the-cauldrons"),
        ("Mages Valley", "mages-valley"),
        ("the sentinel wood", "sentinel-wood"),
        ("  stoneside   forest ", "stoneside-forest"),
        ("大城市", "great-city"),
    ],
)
def test_find_card_accepts_names_and_ids(name, cid):
    assert find_card(name).id == cid


def test_unknown_card_lists_valid_ids():
    with pytest.raises(UnknownCard) as err:
        find_card("golden grainery")
    assert isinstance(err.value, ValueError)
    for cid in CARDS:
        assert cid in str(err.value)


def test_names_in_five_languages():
    card = find_card("shieldgate")
    assert card.name_in("zh") == "神盾門"
    assert card.name_in("en") == "Shieldgate"
    assert all(card.name_in(lang) for lang in ("it", "fr", "es"))
    with pytest.raises(ValueError):
        card.name_in("de")


# --- forest deck ---------------------------------------------------------------------


def test_sentinel_wood_counts_edge_forests_and_corners_once():
    # "1 per forest space on the map edge (a corner forest counts once)"
    m = paint(T="A1 A5 F1 K11 F11 E5 B2")
    assert points("sentinel-wood", m) == 5
    assert spaces("sentinel-wood", m) == {"A1", "A5", "F1", "K11", "F11"}
    assert points("sentinel-wood", paint(T="A1")) == 1
    assert points("sentinel-wood", paint(V="A1 A2", T="B2")) == 0


def test_greenbough_rows_plus_columns_with_forest():
    # "1 per row with ≥1 forest, +1 per column with ≥1 forest"
    assert points("greenbough", paint(T="A1 A5 C5")) == 2 + 2
    assert points("greenbough", paint(T=row("A"))) == 1 + 11
    assert points("greenbough", paint(T="E5 F5 G5 G4")) == 3 + 2
    assert points("greenbough", paint(V="A1")) == 0
    res = CARDS["greenbough"].score(paint(T="A1 C5"))
    assert res.explanation.rows == (0, 2) and res.explanation.columns == (0, 4)


def test_treetower_forest_closed_by_filled_spaces_or_edge():
    # "1 per forest space whose 4 sides are each a filled space or the map edge"
    assert points("treetower", paint(T="A1", V="A2", F="B1")) == 1  # corner: 2 edge sides
    assert points("treetower", paint(T="B3", W="A3", M="C3", F="B2")) == 1  # B4 is a mountain
    assert points("treetower", paint(T="B3", M="C3", F="B2")) == 0  # A3 is empty
    # 2 x 2 forest in the corner: only A1 has all sides closed
    assert points("treetower", paint(T="A1 A2 B1 B2")) == 1


def test_treetower_only_forest_scores_and_unfilled_ruins_are_open():
    # "Treetower: only forest spaces score; neighbours may be any filled space."
    # An empty space closed on all sides is not a tower.
    assert points("treetower", paint(V="A2 B1")) == 0
    # C1's right side is the ruins space C2 (side A): empty until drawn on.
    assert points("treetower", paint(T="C1", V="B1 D1")) == 0
    assert points("treetower", paint(T="C1", V="B1 D1", F="C2")) == 1


def test_stoneside_forest_three_per_linked_mountain():
    # "3 per mountain connected to another mountain by a forest cluster"; a cluster
    # "connects" two mountains "when it is adjacent to both". B4 -> F6 via C4..E6.
    link = "C4 D4 E4 E5 E6"
    assert points("stoneside-forest", paint(T=link)) == 6
    assert spaces("stoneside-forest", paint(T=link)) == {"B4", "F6", *link.split()}
    # A cluster touching one mountain links nothing.
    assert points("stoneside-forest", paint(T="C4 D4 E4")) == 0
    # Two clusters, each touching one mountain, do not link them.
    assert points("stoneside-forest", paint(T="C4 D4", V="E4", W="E5")) == 0


def test_stoneside_forest_mountain_counts_once_and_rule_is_3_not_1():
    # "(a mountain counts once, however many clusters)": F6 is linked to B4 by one
    # cluster and to J8 by another: 3 mountains x 3 = 9, not 12.
    m = paint(T="C4 D4 E4 E5 E6  G6 H6 H7 H8 I8")
    assert points("stoneside-forest", m) == 9
    assert len(CARDS["stoneside-forest"].score(m).explanation.clusters) == 2
    # One cluster touching three mountains: 9.
    assert points("stoneside-forest", paint(T="C4 D4 E4 E5 E6 F7 G7 H7 H8 I8")) == 9


# --- farm + water deck ----------------------------------------------------------------


def test_canal_lake_each_space_scores_once():
    # "1 per water space adjacent to ≥1 farm, +1 per farm space adjacent to ≥1 water";
    # "Canal Lake / Mages Valley: a space scores at most once."
    assert points("canal-lake", paint(W="E2", F="E3")) == 2
    assert points("canal-lake", paint(W="E2", F="E3 D2")) == 1 + 2
    assert points("canal-lake", paint(F="A1", W="A2 B1")) == 1 + 2
    assert points("canal-lake", paint(F="E3", W="F4")) == 0  # diagonal is never adjacent


def test_mages_valley_water_two_farm_one_next_to_mountains():
    # "2 per water space adjacent to a mountain, +1 per farm space adjacent to a mountain"
    assert points("mages-valley", paint(W="A4 C4", F="B3")) == 2 + 2 + 1
    assert points("mages-valley", paint(W="A1", F="K1")) == 0
    # A water between two mountains still scores once (custom sheet: mountains A1, A3).
    twin = custom_layout("X", mountains=["A1", "A3"], ruins=[])
    assert points("mages-valley", paint(twin, W="A2")) == 2
    assert points("mages-valley", paint(twin, F="A2")) == 1


def test_golden_granary_ruins_are_printed_positions():
    # "1 per water space adjacent to a ruins space, +3 per farm space on a ruins space";
    # "a "ruins space" is a printed ruins position, drawn over or not."
    assert points("the-golden-granary", paint(W="A6")) == 1  # B6 is a ruin, unfilled
    assert points("the-golden-granary", paint(W="A6", F="B6")) == 1 + 3  # drawn over
    assert points("the-golden-granary", paint(F="B6 C2 B5")) == 6
    # Side B ruins: E7 -> water at D7 and E8 score, a farm on J4 scores 3.
    assert points("the-golden-granary", paint(SIDE_B, W="D7 E8", F="J4")) == 2 + 3


def test_golden_granary_water_on_a_ruin_does_not_score_for_it():
    # "A water space on a ruins space does not score for its own ruin."
    assert points("the-golden-granary", paint(W="C2")) == 0
    # ... but does for a neighbouring ruin (custom sheet with ruins C2 and C3).
    pair = custom_layout("X", mountains=[], ruins=["C2", "C3"])
    assert points("the-golden-granary", paint(pair, W="C2")) == 1


def test_shoreside_expanse_isolated_clusters_off_the_edge():
    # "3 per farm cluster adjacent to no water and not touching the edge, +3 per water
    # cluster adjacent to no farm and not touching the edge"
    assert points("shoreside-expanse", paint(F="E3 E4", W="G9 H9")) == 3 + 3
    assert points("shoreside-expanse", paint(F="E3", W="E4")) == 0
    assert points("shoreside-expanse", paint(F="E3", W="F4")) == 6  # diagonal: not adjacent
    # "a cluster with any space on the edge is out"
    assert points("shoreside-expanse", paint(F="B5 A5")) == 0
    assert points("shoreside-expanse", paint(W="E10 E11")) == 0
    # Other terrain around it does not matter.
    assert points("shoreside-expanse", paint(F="E3", T="E2 E4 D3 F3")) == 3


# --- village deck ------------------------------------------------------------------------


def test_wildholds_eight_per_cluster_of_six_or_more():
    # "8 per village cluster of ≥6 spaces"
    assert points("wildholds", paint(V="E1 E2 E3 E4 E5 E6")) == 8
    assert points("wildholds", paint(V="E1 E2 E3 E4 E5")) == 0
    assert points("wildholds", paint(V="A1 A2 A3 A5 A6 A7 A8 A9 A10 A11 B10 B11 B1")) == 8
    assert points("wildholds", paint(V="A1 A2 A3 B1 B2 B3  J10 J11 K7 K8 K9 K10 K11")) == 16


def test_great_city_excludes_clusters_next_to_a_mountain_first():
    # "clusters adjacent to a mountain are excluded first; then the largest of the
    # rest scores its size (0 if none)". A3..A7 touch B4's mountain (via A4).
    near = "A3 A4 A5 A6 A7"
    assert points("great-city", paint(V=near + " K1 K2 K3")) == 3
    assert points("great-city", paint(V=near)) == 0
    assert points("great-city", paint(V=near + " K1 K2 K3 E1 E2 E3 E4")) == 4
    assert spaces("great-city", paint(V=near + " K1 K2 K3")) == {"K1", "K2", "K3"}


def test_greengold_plains_counts_terrain_types_around_a_cluster():
    # "3 per village cluster adjacent to ≥3 different terrain types"
    assert points("greengold-plains", paint(V="E2", T="D2", F="F2", W="E1")) == 3
    assert points("greengold-plains", paint(V="E2", T="D2 F2 E1")) == 0
    # Mountain and monster are terrain types: C4 touches B4's mountain.
    assert points("greengold-plains", paint(V="C4", M="D4", T="C3")) == 3
    # Two clusters, each with its own neighbours.
    m = paint(V="E2 H8", T="D2 G8", F="F2 I8", W="E1", M="H7")
    assert points("greengold-plains", m) == 6


def test_greengold_plains_wasteland_empty_and_edge_are_not_types():
    # "Wasteland, empty spaces, unfilled ruins and the edge are not terrain types."
    # Side B: E4's right-hand neighbour E5 is wasteland.
    assert points("greengold-plains", paint(SIDE_B, V="E4", T="D4", F="F4")) == 0
    assert points("greengold-plains", paint(SIDE_B, V="E4", T="D4", F="F4", W="E3")) == 3
    assert points("greengold-plains", paint(V="A1", T="A2", F="B1")) == 0  # edge + 2 types
    # Side B ruin G2 unfilled next to the village does not count.
    assert points("greengold-plains", paint(SIDE_B, V="G3", T="F3", F="H3")) == 0


def test_shieldgate_second_largest_with_ties():
    # "sort village cluster sizes descending; the second entry scores ×2. Ties count:
    # two clusters of 4 → 8. One cluster or none → 0."
    assert points("shieldgate", paint(V="A1 A2 A3 A5 A6  K1 K2 K3")) == 6
    assert points("shieldgate", paint(V="A1 A2 B1 B2  K1 K2 K3 K4")) == 8
    assert points("shieldgate", paint(V="A1 A2 A3 A5 A6 A7 A8 A9  K1 K2 K3 K5 K6 K7 K8")) == 2 * 4
    assert points("shieldgate", paint(V="A1 A2 A3 A5 A6  K1 K2 K3 K4  E1 E2 E3 E4")) == 8
    assert points("shieldgate", paint(V="A1 A2 A3")) == 0
    assert points("shieldgate", paint()) == 0


# --- spatial deck ------------------------------------------------------------------------


def test_borderlands_full_rows_and_columns():
    # "6 per completely filled row or column"
    assert points("borderlands", paint(T=row("A"))) == 6
    assert points("borderlands", paint(W=row("B"))) == 6  # B4 is a mountain: filled
    assert points("borderlands", paint(F=col(1))) == 6
    assert points("borderlands", paint(T=row("A"), F=col(1).replace("A1 ", ""))) == 12
    assert points("borderlands", paint(T=row("A", range(1, 11)))) == 0


def test_borderlands_unfilled_ruins_leave_a_row_open():
    # "Unfilled ruins are empty" (RULES.md §2). Row C on side A: ruins C2 and C10.
    open_row = " ".join(n for n in row("C").split() if n not in ("C2", "C10"))
    assert points("borderlands", paint(V=open_row)) == 0
    assert points("borderlands", paint(V=open_row, F="C2 C10")) == 6


def test_lost_barony_largest_solid_square():
    # "Score = 3 × side length. A lone mountain is a 1×1 square, so side A/B always
    # score ≥ 3."
    assert points("lost-barony", paint()) == 3
    assert points("lost-barony", Map.empty(SIDE_B)) == 6  # wasteland E5 E6 F5 F6 is 2x2
    assert points("lost-barony", paint(T="A1 A2 A3 B1 B2 B3 C1 C2 C3")) == 9
    assert points("lost-barony", paint(T="A1 A2 A3 B1 B3 C1 C2 C3")) == 3  # hole at B2
    # "every space filled; mountains, wasteland and monsters count"
    m = paint(SIDE_B, M="D4 D5", V="E4", F="F4")
    assert points("lost-barony", m) == 9
    # "3 per space along one side": the spaces that earned points are one side of the
    # square D4..F6 (3 of them), the whole square is its scoring group.
    sides = [{"D4", "D5", "D6"}, {"F4", "F5", "F6"}, {"D4", "E4", "F4"}, {"D6", "E6", "F6"}]
    counted = spaces("lost-barony", m)
    assert counted in sides, counted
    expl = CARDS["lost-barony"].score(m).explanation
    assert expl.to_json()["clusters"] == [["D4", "D5", "D6", "E4", "E5", "E6", "F4", "F5", "F6"]]
    # The reason names the square and the side counted, from one end to the other.
    ends = sorted(counted)
    assert "3x3 at D4" in expl.reason and f"{ends[0]}-{ends[-1]}" in expl.reason, expl.reason
    # A 4x6 filled rectangle (D1..G6, the mountain F6 included) holds a 4x4 square.
    assert points("lost-barony", paint(V=" ".join(row(r, range(1, 7)) for r in "DEFG"))) == 12
    # Two 2x6 strips with an empty row between them: 2x2 at most.
    assert points("lost-barony", paint(V=" ".join(row(r, range(1, 7)) for r in "DEGH"))) == 6


def test_broken_road_diagonals_from_the_left_edge():
    # "the diagonals are (r+i, i) for i = 0 … 10−r ... the single corner space (10,0)
    # is a complete diagonal by itself."
    assert points("the-broken-road", paint(T="K1")) == 3
    assert points("the-broken-road", paint(T="J1 K2")) == 3
    assert points("the-broken-road", paint(T="J1 K2 K1")) == 6
    main = " ".join(f"{'ABCDEFGHIJK'[i]}{i + 1}" for i in range(11) if i != 5)  # F6 mountain
    assert points("the-broken-road", paint(V=main)) == 3
    assert points("the-broken-road", paint(V=main.replace("K11", ""))) == 0


def test_broken_road_up_right_and_top_edge_diagonals_never_count():
    # "Up-right diagonals and those starting on the top edge never count."
    assert points("the-broken-road", paint(T="J1 I2 H3 G4")) == 0
    top = " ".join(f"{'ABCDEFGHIJK'[i]}{i + 2}" for i in range(10))  # A2 .. J11
    assert points("the-broken-road", paint(T=top)) == 0


def test_cauldrons_empty_spaces_closed_on_all_sides():
    # "1 per empty space whose 4 sides are each a filled space or the map edge"
    assert points("the-cauldrons", paint(T="A2 B1")) == 1  # A1: edge on two sides
    assert points("the-cauldrons", paint(T="A5 C5", F="B6")) == 1  # B5: B4 is a mountain
    assert points("the-cauldrons", paint(T="A5 C5")) == 0  # B6 ruin unfilled -> open
    assert points("the-cauldrons", paint(T="A1 A2 B1")) == 0  # nothing empty is closed


def test_cauldrons_unfilled_ruins_count_as_empty():
    # "The Cauldrons: ruins spaces with nothing drawn count as empty." C2 is a ruin.
    assert points("the-cauldrons", paint(V="B2 D2 C1 C3")) == 1
    assert spaces("the-cauldrons", paint(V="B2 D2 C1 C3")) == {"C2"}
    assert points("the-cauldrons", paint(V="B2 D2 C1 C3 C2")) == 0


def test_explanations_say_why_in_a_few_words():
    res = CARDS["the-broken-road"].score(paint(T="J1 K2 K1"))
    assert "2 full diagonals" in res.explanation.reason
    assert res.explanation.diagonals == (((9, 0), (10, 1)), ((10, 0),))
    assert res.explanation.to_json()["diagonals"] == [["J1", "K2"], ["K1"]]


@pytest.mark.parametrize(
    "module", ["scoring.cards", "scoring.clusters", "scoring.i18n", "scoring.textmap"]
)
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
