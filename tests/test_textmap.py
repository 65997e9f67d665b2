"""The text map format and its JSON form (RULES.md §5), and the hand-scored samples."""

import json
import re
from pathlib import Path

import pytest

from scoring.board import Map
from scoring.game import score_game
from scoring.layouts import SIDE_A, SIDE_B, custom_layout
from scoring.textmap import (
    BadMapFile,
    format_text,
    load_map_file,
    parse_json,
    parse_text,
    to_json,
)

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
EMPTY_A = "\n".join(Map.empty(SIDE_A).grid) + "\n"
EMPTY_B = "\n".join(Map.empty(SIDE_B).grid) + "\n"


def test_headers_and_spaced_symbols():
    text = (
        "; a comment\n"
        "side: A\n"
        "coins: 5\n"
        "cards: sentinel-wood, canal-lake, great-city, borderlands\n"
        "\n" + "\n".join(" ".join(row) for row in Map.empty(SIDE_A).grid)
    )
    mf = parse_text(text)
    assert mf.map == Map.empty(SIDE_A)
    assert mf.coins == 5
    assert mf.cards == {
        "A": "sentinel-wood",
        "B": "canal-lake",
        "C": "great-city",
        "D": "borderlands",
    }


def test_header_card_names_are_resolved_to_ids():
    text = "cards: Treetower, the golden granary, GREENGOLD PLAINS, broken road\n" + EMPTY_A
    assert parse_text(text).cards["B"] == "the-golden-granary"


def test_side_is_inferred_from_printed_mountains_without_header():
    # "the printed mountains tell a program ... which side it is" (RULES.md §1)
    assert parse_text(EMPTY_A).map.layout is SIDE_A
    assert parse_text(EMPTY_B).map.layout is SIDE_B
    assert parse_text(EMPTY_A).coins is None and parse_text(EMPTY_A).cards is None


def test_side_argument_overrides_header_and_mismatch_names_the_space():
    # "a mismatch is an error naming the space (e.g. `C9: side A has a mountain here`)"
    assert parse_text("side: B\n" + EMPTY_A, side="A").map.layout is SIDE_A
    with pytest.raises(BadMapFile, match="^B4: side B has no mountain here$"):
        parse_text("side: A\n" + EMPTY_A, side="B")
    grid = list(Map.empty(SIDE_A).grid)
    grid[2] = grid[2][:8] + "T" + grid[2][9:]
    with pytest.raises(BadMapFile, match="^C9: side A has a mountain here$"):
        parse_text("side: A\n" + "\n".join(grid))


def test_wasteland_must_match_the_layout():
    with pytest.raises(BadMapFile, match="D6: side B has wasteland here"):
        parse_text("side: B\n" + EMPTY_B.replace("#", ".", 2))
    with pytest.raises(BadMapFile, match="A1: side A has no wasteland here"):
        parse_text("side: A\n#" + EMPTY_A[1:])


@pytest.mark.parametrize(
    "text, message",
    [
        ("side: A\n" + EMPTY_A.replace(".", "x", 1), "A1: unknown symbol 'x'"),
        ("side: A\n" + EMPTY_A.split("\n", 1)[1], "expected 11 grid rows, found 10"),
        ("side: A\n" + EMPTY_A + "...........\n", "line 13: more than 11 grid rows"),
        ("side: A\n" + EMPTY_A.replace("...........", "..........", 1), "row A: expected 11"),
        ("side: C\n" + EMPTY_A, "unknown side 'C'"),
        ("coins: 15\n" + EMPTY_A, "line 1: coins: the coin track has 14 coins"),
        ("coins: many\n" + EMPTY_A, "line 1: coins: expected a whole number 0..14, got ' many'"),
        ("cards: a, b\n" + EMPTY_A, "give 4 cards"),
        ("cards: a, b, c, d\n" + EMPTY_A, "unknown card 'a'"),
        ("colour: red\n" + EMPTY_A, "unknown header 'colour'"),
        (
            "".join(EMPTY_A.replace("^", ".", 1)),
            "no side given, and the printed spaces match neither side; nearest is side A: "
            "B4: side A has a mountain here",
        ),
    ],
)
def test_parse_errors_say_what_and_where(text, message):
    with pytest.raises(BadMapFile, match=re.escape(message)):
        parse_text(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # RULES.md §5: "a file may start with header lines": one of each; the second used
        # to win without a word.
        ("side: A\ncoins: 6\ncoins: 2\n" + EMPTY_A, "line 3: coins: given twice (lines 2 and 3)"),
        ("Side: A\nSIDE: B\n" + EMPTY_A, "line 2: side: given twice (lines 1 and 2)"),
        # A header without its colon was read as grid row A ("more than 11 grid rows").
        ("side=A\n" + EMPTY_A, "line 1: write a header with a colon, as 'side: ...'"),
        ("coins 6\n" + EMPTY_A, "line 1: write a header with a colon, as 'coins: ...'"),
        # Digits 0-9 only: int() alone took these.
        ("coins: 1_0\n" + EMPTY_A, "line 1: coins: expected a whole number 0..14, got ' 1_0'"),
        ("coins: +6\n" + EMPTY_A, "line 1: coins: expected a whole number"),
        ("coins: \uff16\n" + EMPTY_A, "line 1: coins: expected a whole number"),
        # A value a million symbols long is shown cut, so the error stays one short line.
        ("side: " + "B" * 1_000_000 + "\n" + EMPTY_A, "side: unknown side 'BBBBBBBBBBBB"),
    ],
)
def test_headers_are_each_given_once_and_plainly(text, message):
    with pytest.raises(BadMapFile, match=re.escape(message)) as err:
        parse_text(text)
    assert len(str(err.value)) < 120


def test_only_newlines_end_lines_not_separators_in_a_comment():
    """A comment pasted with a Unicode line separator or a form feed in it stays one
    comment (str.splitlines broke it there and read the rest as a grid row)."""
    for mark in ("\u2028", "\x85", "\f", "\x0b", "\x1c"):
        mf = parse_text(f"; a note{mark} pasted from elsewhere\nside: A\r\n" + EMPTY_A)
        assert mf.map.layout.name == "A"


def test_json_keys_are_each_given_once():
    grid = json.dumps(EMPTY_A.split())
    with pytest.raises(BadMapFile, match="^'coins' given twice$"):
        parse_json('{"side": "A", "coins": 6, "coins": 2, "grid": ' + grid + "}")
    with pytest.raises(BadMapFile, match="coins: expected a whole number 0..14, got 6.5"):
        parse_json('{"coins": 6.5, "grid": ' + grid + "}")
    assert parse_json('{"coins": 6, "grid": ' + grid + "}").coins == 6


def test_a_json_map_under_another_extension_is_read_as_json(tmp_path):
    path = tmp_path / "table3.txt"
    path.write_text(json.dumps({"side": "A", "coins": 4, "grid": EMPTY_A.split()}))
    assert load_map_file(path).coins == 4


def test_custom_layout_sheet():
    other = custom_layout("X", mountains=["A1"], ruins=["B2"])
    text = "side: X\n^" + "." * 10 + "\n" + "...........\n" * 10
    mf = parse_text(text, layouts={"X": other})
    assert mf.map.layout is other and mf.map.at((0, 0)) == "^"


def test_text_round_trip():
    m = Map.empty(SIDE_B).with_terrain((0, 0), "T").with_terrain((10, 10), "M")
    cards = {"A": "greenbough", "B": "mages-valley", "C": "wildholds", "D": "lost-barony"}
    text = format_text(m, coins=3, cards=cards)
    assert text.startswith("side: B\ncoins: 3\ncards: greenbough, mages-valley")
    mf = parse_text(text)
    assert (mf.map, mf.coins, mf.cards) == (m, 3, cards)


def test_json_form_round_trip_and_errors():
    m = Map.empty(SIDE_A).with_terrain((4, 4), "V")
    data = to_json(m, coins=2, cards={"A": "a", "B": "b", "C": "c", "D": "d"})
    assert data["grid"][4] == "....V......" and data["side"] == "A"
    data["cards"] = {"A": "treetower", "B": "canal lake", "C": "shieldgate", "D": "borderlands"}
    mf = parse_json(json.dumps(data))
    assert mf.map == m and mf.coins == 2 and mf.cards["B"] == "canal-lake"
    with pytest.raises(BadMapFile, match="not valid JSON"):
        parse_json("{")
    with pytest.raises(BadMapFile, match='"grid"'):
        parse_json('{"side": "A"}')
    with pytest.raises(BadMapFile, match="side A has a mountain here"):
        parse_json(json.dumps({"side": "A", "grid": ["..........."] * 11}))


def test_loader_names_the_file(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("side: A\n" + EMPTY_A.replace("^", "T", 1))
    with pytest.raises(BadMapFile, match=r"bad\.txt: B4: side A has a mountain here"):
        load_map_file(bad)
    with pytest.raises(BadMapFile, match="no such file"):
        load_map_file(tmp_path / "missing.txt")
    binary = tmp_path / "photo.map"
    binary.write_bytes(b"\xff\xd8\xff\xe0 not text")
    with pytest.raises(BadMapFile, match="not UTF-8"):
        load_map_file(binary)


def test_json_sample_is_the_text_sample():
    a = load_map_file(SAMPLES / "wilderness-a.txt")
    b = load_map_file(SAMPLES / "wilderness-a.json")
    assert a == b


# Expected numbers are the hand working written in each sample's comments.
HAND_SCORED = {
    "wilderness-a.txt": ([15, 12, 7, 12], -5, [28, 20, 20, 28], 96, 7, "Apprentice Surveyor"),
    "wastelands-b.txt": ([18, 17, 16, 9], -3, [39, 37, 29, 31], 136, 52, "Legendary Cartographer"),
    "forest-road-a.txt": ([22, 16, 9, 18], -4, [37, 24, 26, 39], 126, 44, "Legendary Cartographer"),
    "sparse-b.txt": ([6, 15, 6, 7], -5, [18, 18, 10, 10], 56, -29, "Oblivious Inkdrinker"),
}


@pytest.mark.parametrize("name", sorted(HAND_SCORED))
def test_samples_score_as_worked_by_hand(name):
    cards, monsters, seasons, total, rating, title = HAND_SCORED[name]
    mf = load_map_file(SAMPLES / name)
    g = score_game([mf.map], mf.cards, mf.coins)
    assert [g.card_points[e] for e in "ABCD"] == cards
    assert g.monsters == monsters
    assert [s.total for s in g.seasons] == seasons
    assert g.total == total
    assert (g.solo.rating, g.solo.title_en) == (rating, title)


def test_samples_cover_all_sixteen_cards_once():
    ids = [cid for name in HAND_SCORED for cid in load_map_file(SAMPLES / name).cards.values()]
    assert len(ids) == len(set(ids)) == 16
