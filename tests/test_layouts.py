"""Printed layouts, quoted from RULES.md §1."""

import pytest

from scoring.board import BadMap, Map
from scoring.layouts import SIDE_A, SIDE_B, custom_layout, parse_space, space_name


def test_space_names_follow_the_printed_labels():
    # RULES.md §1: "`B4` = `(1, 3)`"
    assert parse_space("B4") == (1, 3)
    assert space_name((1, 3)) == "B4"
    assert parse_space("k11") == (10, 10)


@pytest.mark.parametrize("bad", ["L1", "A0", "A12", "4B", ""])
def test_bad_space_names_are_rejected(bad):
    with pytest.raises(ValueError):
        parse_space(bad)


def test_side_a_layout_matches_rules():
    # "mountains: (1,3) (2,8) (5,5) (8,2) (9,7)"; "ruins: (1,5) (2,1) (2,9) (8,1) (8,9) (9,5)"
    assert SIDE_A.mountains == {(1, 3), (2, 8), (5, 5), (8, 2), (9, 7)}
    assert SIDE_A.ruins == {(1, 5), (2, 1), (2, 9), (8, 1), (8, 9), (9, 5)}
    assert SIDE_A.wasteland == frozenset()


def test_side_b_layout_matches_rules():
    assert SIDE_B.mountains == {(1, 8), (2, 3), (7, 5), (8, 9), (9, 2)}
    assert SIDE_B.ruins == {(1, 6), (2, 2), (4, 6), (6, 1), (7, 8), (9, 3)}
    assert SIDE_B.wasteland == {(3, 5), (4, 4), (4, 5), (5, 4), (5, 5), (5, 6), (6, 5)}


def test_empty_map_holds_only_printed_terrain():
    m = Map.empty(SIDE_B)
    assert m.at((2, 3)) == "^" and m.at((4, 4)) == "#" and m.at((0, 0)) == "."


def test_drawn_spaces_count_terrain_and_monsters_not_printed_or_empty():
    # RULES.md's five drawn kinds (forest, village, farm, water, monster); side B's
    # printed mountains and wasteland are not drawn by players.
    m = Map.empty(SIDE_B)
    assert m.drawn_spaces() == 0
    for space, symbol in zip(("A1", "A2", "C3", "K11", "E4"), "TVFWM", strict=True):
        m = m.with_terrain(parse_space(space), symbol)
    assert m.drawn_spaces() == 5


def test_mountain_mismatch_names_the_space():
    grid = list(Map.empty(SIDE_A).grid)
    grid[2] = grid[2][:8] + "T" + grid[2][9:]
    with pytest.raises(BadMap, match="C9: side A has a mountain here"):
        Map(tuple(grid), SIDE_A)


def test_custom_layout_rejects_overlaps():
    with pytest.raises(ValueError):
        custom_layout("X", mountains=["A1"], ruins=["A1"])
