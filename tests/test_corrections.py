"""`score --set SPACE=TERRAIN`: spaces corrected by hand after checking the review list.

The expected points are the hand working in samples/forest-road-a.txt (RULES.md §3):
Treetower "1 per forest whose 4 sides are each a filled space or the map edge" counts
22 there, "not A2: A1 empty". Drawing a forest on A1 completes A1 (two edges, A2 and
B1 forests), A2 (edge, A1, A3, B2) and B1 (edge, A1, B2, C1): 25. The Broken Road's
A1 diagonal still stops at the empty E5, and no other card or monster touches A1.
"""

import json

import pytest

from app.corrections import BadCorrection, apply_corrections, parse_corrections
from scanner.sheet import Review, Sheet
from scoring.board import Map
from scoring.layouts import LAYOUTS
from tests.cli_fixtures import ROOT, run

FOREST_ROAD = str(ROOT / "samples" / "forest-road-a.txt")


def test_spaces_and_terrains_are_read_by_symbol_or_name_in_any_case():
    got = parse_corrections(["c3=f", "E7=forest,K11=.", "A1=Water"])
    assert got == {(2, 2): "F", (4, 6): "T", (10, 10): ".", (0, 0): "W"}


@pytest.mark.parametrize(
    "value, says",
    [
        ("C3", "SPACE=TERRAIN"),
        ("=F", "SPACE=TERRAIN"),
        ("L1=F", "not a space name"),
        ("C12=F", "columns are 1..11"),
        ("C3=X", "not a terrain"),
        ("C3=^", "not a terrain"),  # printed terrain is the layout's, not the player's
        ("C3=F,C3=W", "twice"),
    ],
)
def test_unreadable_corrections_say_what_is_wrong(value, says):
    with pytest.raises(BadCorrection, match=says):
        parse_corrections([value])


def test_the_same_terrain_given_twice_is_one_correction():
    assert parse_corrections(["C3=F", "c3=farm"]) == {(2, 2): "F"}


def photo_like_sheet() -> Sheet:
    layout = LAYOUTS["A"]
    return Sheet(
        source="table3.jpg",
        map=Map.empty(layout),
        confidence=tuple(tuple(0.6 for _ in range(11)) for _ in range(11)),
        review=(Review("C3", "low confidence", {"W": 0.6, "F": 0.3}), Review("E7", "x", {})),
    )


def test_a_corrected_space_leaves_the_review_list_and_is_sure():
    sheet = apply_corrections(photo_like_sheet(), {(2, 2): "F"})
    assert sheet.map.at((2, 2)) == "F"
    assert [r.space for r in sheet.review] == ["E7"]
    assert sheet.confidence[2][2] == 1.0 and sheet.confidence[2][3] == 0.6
    assert [(c.space, c.symbol, c.read) for c in sheet.corrected] == [("C3", "F", ".")]


def test_a_printed_mountain_cannot_be_set():
    # RULES.md §5: mountains must sit where the side prints them.
    mountain = next(iter(LAYOUTS["A"].mountains))
    with pytest.raises(BadCorrection, match="prints a mountain there"):
        apply_corrections(photo_like_sheet(), {mountain: "F"})


def test_score_with_a_space_set_by_hand_scores_the_corrected_map():
    res = run("score", FOREST_ROAD, "--json", "--set", "A1=T")
    assert res.exit_code == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["grid"][0][0] == "T"
    assert got["card_points"] == {"A": 25, "B": 16, "C": 9, "D": 18}
    # spring A+B 25+16+3-4, winter D+A 18+25+3-4; summer and fall as worked out
    assert [s["total"] for s in got["seasons"]] == [40, 24, 26, 42]
    assert got["total"] == 132
    assert got["set_by_hand"] == [{"space": "A1", "symbol": "T", "read": "."}]


def test_the_human_report_lists_what_was_set():
    res = run("score", FOREST_ROAD, "--set", "a1=forest")
    assert res.exit_code == 0, res.stderr
    assert "Set by hand: A1 T (read .)" in res.stdout
    assert "Total: 132" in res.stdout


def test_setting_a_printed_space_fails_that_input_in_one_line():
    res = run("score", FOREST_ROAD, "--set", "B4=F")  # side A prints a mountain on B4
    assert res.exit_code == 1
    [line] = res.stderr.strip().splitlines()
    assert "forest-road-a.txt" in line and "B4" in line and "mountain" in line


@pytest.mark.parametrize(
    "args", [["--set", "C3"], ["--set", "Q1=T"], [FOREST_ROAD, "--set", "A1=T"]]
)
def test_bad_set_usage_exits_2(args):
    res = run("score", FOREST_ROAD, *args)
    assert res.exit_code == 2
    assert res.stderr.startswith("error: --set")


def test_read_prints_the_corrected_map_with_a_comment():
    photo = ROOT / "samples" / "photos" / "synth-2010-B-ballpoint.jpg"
    res = run("read", str(photo), "--set", "A1=V")
    assert res.exit_code == 0, res.stderr
    assert "; set by hand: A1 V (read " in res.stdout
    rows = [line.split() for line in res.stdout.splitlines() if len(line.split()) == 11]
    assert rows[0][0] == "V"


def test_the_overlay_frames_spaces_set_by_hand_in_blue(tmp_path):
    import cv2
    import numpy as np

    from scanner import geometry as g

    out = tmp_path / "set.png"
    res = run("score", FOREST_ROAD, "--set", "A1=T,E5=W", "--overlay", str(out))
    assert res.exit_code == 0, res.stderr
    img = cv2.imread(str(out))
    for r, c in ((0, 0), (4, 4)):
        x0, y0 = (round(v) for v in g.to_canonical_px(c, r))
        border = img[y0 + 62, x0 + 10 : x0 + 50]  # the frame's bottom side
        assert np.all((border[:, 0] > 200) & (border[:, 1] < 60) & (border[:, 2] < 60)), (r, c)
    x0, y0 = (round(v) for v in g.to_canonical_px(1, 0))  # A2, not set
    assert not np.all(img[y0 + 62, x0 + 10 : x0 + 50, 0] > 200)
