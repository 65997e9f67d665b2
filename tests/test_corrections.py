"""`score --set SPACE=TERRAIN`: spaces corrected by hand after checking the review list.

The expected points are the hand working in samples/forest-road-a.txt (RULES.md §3):
Treetower "1 per forest whose 4 sides are each a filled space or the map edge" counts
22 there, "not A2: A1 empty". Drawing a forest on A1 completes A1 (two edges, A2 and
B1 forests), A2 (edge, A1, A3, B2) and B1 (edge, A1, B2, C1): 25. The Broken Road's
A1 diagonal still stops at the empty E5, and no other card or monster touches A1.
"""

import json
import shutil

import pytest

from app.corrections import (
    BadCorrection,
    apply_corrections,
    corrections_by_input,
    parse_corrections,
)
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


def test_the_coin_count_is_set_with_coins():
    assert parse_corrections(["coins=5,C3=F"]) == {"coins": 5, (2, 2): "F"}
    for bad in ("coins=15", "coins=-1", "coins=five"):
        with pytest.raises(BadCorrection, match="from 0 to 14"):
            parse_corrections([bad])


def test_the_printed_side_is_set_with_side_and_comes_first_in_the_results_row():
    from app.corrections import fixes_text, side_set

    got = parse_corrections(["side=b,C3=F", "coins=2"])
    assert got == {"side": "B", (2, 2): "F", "coins": 2}
    assert side_set(got) == "B" and side_set({(2, 2): "F"}) is None
    assert fixes_text(got) == "side=B C3=F coins=2"
    for bad, says in (("side=C", "side must be A or B"), ("side=A,side=B", "twice")):
        with pytest.raises(BadCorrection, match=says):
            parse_corrections([bad])


def test_a_side_set_by_hand_is_not_drawn_on_the_map():
    sheet = Sheet(source="x", map=Map.empty(LAYOUTS["A"]), coins=0)
    done = apply_corrections(sheet, {"side": "A", (2, 2): "F"})
    assert [(c.space, c.symbol) for c in done.corrected] == [("C3", "F")]
    assert done.map.at((2, 2)) == "F"


SAMPLE_A = str(ROOT / "samples" / "photos" / "synth-2028-A-pencil-hatch-icon.jpg")
SAMPLE_CARDS = "the-cauldrons,greenbough,mages-valley,great-city"


def test_a_photo_is_read_as_the_side_set_for_it():
    # The shipped sample is side A; set to B, it is read with side B's layout (its
    # wasteland among the spaces), the way --side B reads it, for this input alone.
    plain = json.loads(run("score", SAMPLE_A, "--cards", SAMPLE_CARDS, "--json").stdout)
    res = run("score", SAMPLE_A, "--cards", SAMPLE_CARDS, "--json", "--set", "side=B")
    assert res.exit_code == 0, res.stderr
    forced = json.loads(res.stdout)
    assert (plain["side"], forced["side"]) == ("A", "B")
    assert "#" not in "".join(plain["grid"]) and "#" in "".join(forced["grid"])
    both = run("score", SAMPLE_A, SAMPLE_A, "--cards", SAMPLE_CARDS, "--json", "--set", "2:side=B")
    assert [json.loads(line)["side"] for line in both.stdout.splitlines()] == ["A", "B"]
    assert run("read", SAMPLE_A, "--set", "side=B").stdout.count("side: B") == 1


def test_score_with_the_coins_set_by_hand():
    # forest-road-a.txt: coins 3 in every season; with 5, each season gains 2.
    res = run("score", FOREST_ROAD, "--json", "--set", "coins=5")
    assert res.exit_code == 0, res.stderr
    got = json.loads(res.stdout)
    assert [s["total"] for s in got["seasons"]] == [39, 26, 28, 41]
    assert (got["coins"], got["total"]) == (5, 134)
    assert got["set_by_hand"] == [{"space": "coins", "symbol": "5", "read": "3"}]
    human = run("score", FOREST_ROAD, "--set", "coins=5").stdout
    assert "Coins: 5, set by hand (read 3 in the file)" in human


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


def test_with_several_inputs_each_set_names_its_input_by_number():
    got = corrections_by_input(["2:C3=F,E7=forest", "3:coins=6", "2:A1=W"], 3)
    assert got == {1: {(2, 2): "F", (4, 6): "T", (0, 0): "W"}, 2: {"coins": 6}}
    assert corrections_by_input(["1:C3=F"], 1) == corrections_by_input(["C3=F"], 1)
    with pytest.raises(BadCorrection, match="start it with the input's number"):
        corrections_by_input(["C3=F"], 2)
    for bad in ("3:C3=F", "0:C3=F", "x:C3=F"):
        with pytest.raises(BadCorrection, match="not an input number"):
            corrections_by_input([bad], 2)
    with pytest.raises(BadCorrection, match=r"input 2.*twice"):
        corrections_by_input(["2:C3=F", "2:C3=W"], 2)


def test_per_season_a_set_changes_only_its_seasons_map():
    # CLI.md: with --per-season "each season is scored on its own input". The
    # same map four times, A1 set to forest on the winter input only: winter (D+A)
    # counts Treetower 25 instead of 22 (the hand working above), the others do not.
    args = ["score", *[FOREST_ROAD] * 4, "--per-season", "--json"]
    res = run(*args, "--set", "4:A1=T")
    assert res.exit_code == 0, res.stderr
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    assert [s["total"] for s in lines[-1]["seasons"]] == [37, 24, 26, 42]
    assert lines[-1]["total"] == 129
    assert [bool(line.get("set_by_hand")) for line in lines] == [False, False, False, True]
    spring = [json.loads(line) for line in run(*args, "--set", "1:A1=T").stdout.splitlines()]
    assert [s["total"] for s in spring[-1]["seasons"]] == [40, 24, 26, 39]


def test_read_prints_the_corrected_map_with_a_comment():
    photo = ROOT / "samples" / "photos" / "synth-2010-B-ballpoint.jpg"
    res = run("read", str(photo), "--set", "A1=V")
    assert res.exit_code == 0, res.stderr
    assert "; set by hand: A1 V (read " in res.stdout
    # RULES.md §5: "comment lines start with `;`"; the map's rows are the others.
    rows = [
        line.split()
        for line in res.stdout.splitlines()
        if len(line.split()) == 11 and not line.startswith(";")
    ]
    assert len(rows) == 11 and rows[0][0] == "V"


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


# --- spaces set by hand in a settings file, for score and batch -----------------------

DEAL = 'cards = ["treetower", "the golden granary", "greengold plains", "the broken road"]\n'


@pytest.fixture
def round_folder(tmp_path):
    """forest-road-a (hand working 126; A1=T makes it 132) and wilderness-a (96)."""
    import shutil

    d = tmp_path / "round"
    d.mkdir()
    shutil.copy(FOREST_ROAD, d / "road.txt")
    shutil.copy(ROOT / "samples" / "wilderness-a.txt", d / "wild.txt")
    return d


def totals(path) -> dict:
    from app.results import latest_rows, read_results

    return {r["source"].rsplit("/", 1)[-1]: r["total"] for r in latest_rows(read_results(path))}


def test_a_settings_file_sets_spaces_for_score_and_the_command_line_wins(round_folder):
    (round_folder / "cartoscore.toml").write_text(DEAL + '[set]\n"road.txt" = "A1=T"\n')
    road = str(round_folder / "road.txt")
    got = json.loads(run("score", road, "--json").stdout)
    assert (got["total"], got["set_by_hand"]) == (
        132,
        [{"space": "A1", "symbol": "T", "read": "."}],
    )
    # --set A1=. puts back what the map file says: the hand working's 126
    assert json.loads(run("score", road, "--json", "--set", "A1=.").stdout)["total"] == 126


def test_cards_given_on_the_command_line_leave_the_settings_files_set_in_force(
    round_folder, tmp_path
):
    """--cards wins over a settings file's cards only: its [set] still applies, in
    score and in batch (road.txt's own header names forest-road-a's cards)."""
    (round_folder / "cartoscore.toml").write_text(DEAL + '[set]\n"road.txt" = "A1=T"\n')
    road = str(round_folder / "road.txt")
    header = next(
        ",".join(name.strip() for name in line.split(":", 1)[1].split(","))
        for line in open(road)
        if line.startswith("cards:")
    )
    got = json.loads(run("score", road, "--json", "--cards", header).stdout)
    assert (got["total"], got["set_by_hand"][0]["space"]) == (132, "A1")
    out = tmp_path / "r.csv"
    res = run("batch", road, "--out", str(out), "--cards", header, "--workers", "0")
    assert res.exit_code == 0 and totals(out) == {"road.txt": 132}


def test_batch_applies_the_settings_files_set_and_rescores_a_sheet_when_it_changes(
    round_folder, tmp_path
):
    toml = round_folder / "cartoscore.toml"
    toml.write_text(DEAL)
    out = tmp_path / "results.csv"
    # The header's cards win over the folder's (wilderness-a.txt names its own deal).
    assert run("batch", str(round_folder), "--out", str(out), "--workers", "0").exit_code == 0
    assert totals(out) == {"road.txt": 126, "wild.txt": 96}
    toml.write_text(DEAL + '[set]\n"road.txt" = ["A1=forest"]\n')
    res = run("batch", str(round_folder), "--out", str(out), "--workers", "0")
    assert res.exit_code == 0, res.stderr
    assert "1 sheet already scored" in res.stderr  # wild.txt; road.txt again, corrected
    assert totals(out) == {"road.txt": 132, "wild.txt": 96}
    toml.write_text(DEAL + '[set]\n"road.txt" = ["A1=forest"]\n"wild.txt" = "coins=4"\n')
    res = run("batch", str(round_folder), "--out", str(out), "--workers", "0")
    assert "1 sheet already scored" in res.stderr  # road.txt; wild.txt's coins changed
    # wilderness-a.txt's working: coins 6 in every season; with 4, each season loses 2
    assert totals(out) == {"road.txt": 132, "wild.txt": 96 - 4 * 2}
    from app.results import latest_rows, read_results

    road = [r for r in latest_rows(read_results(out)) if r["source"].endswith("road.txt")]
    assert road[0]["set_by_hand"] == "A1=T"
    wild = [r for r in latest_rows(read_results(out)) if r["source"].endswith("wild.txt")]
    assert (wild[0]["set_by_hand"], wild[0]["coins"]) == ("coins=4", 4)
    res = run("batch", str(round_folder), "--out", str(out), "--workers", "0")
    assert "2 sheets already scored" in res.stderr  # nothing changed: nothing to do


def test_an_earlier_versions_results_file_is_still_resumed(round_folder, tmp_path):
    from app.results import COLUMNS, FIRST_COLUMNS, read_results

    (round_folder / "cartoscore.toml").write_text(DEAL)
    out = tmp_path / "old.csv"
    assert (
        run("batch", str(round_folder / "wild.txt"), "--out", str(out), "--workers", "0").exit_code
        == 0
    )
    lines = out.read_text().splitlines()
    assert lines[0].split(",") == list(COLUMNS)
    # The same row as a results file written before the set_by_hand and path columns.
    n = len(FIRST_COLUMNS)
    old = [",".join(FIRST_COLUMNS)] + [",".join(line.split(",")[:n]) for line in lines[1:]]
    out.write_text("\n".join(old) + "\n")
    (round_folder / "cartoscore.toml").write_text(DEAL + '[set]\n"wild.txt" = "coins=4"\n')
    res = run("batch", str(round_folder), "--out", str(out), "--workers", "0")
    assert res.exit_code == 0, res.stderr
    # The file takes the new columns, its old row kept and given its path from the
    # results file's folder (and its real path); wild.txt again (corrected), road.txt.
    lines = out.read_text().splitlines()
    where = {"path": "round/wild.txt", "real_path": str((round_folder / "wild.txt").resolve())}
    added = [where.get(c, "") for c in COLUMNS[n:]]
    assert lines[0] == ",".join(COLUMNS) and lines[1] == ",".join([old[1], *added])
    assert totals(out) == {"wild.txt": 96 - 4 * 2, "road.txt": 126}
    res = run("batch", str(round_folder), "--out", str(out), "--workers", "0")
    assert "2 sheets already scored" in res.stderr  # the correction was recorded
    assert len(read_results(out)) == 3


@pytest.mark.parametrize(
    "table, says",
    [
        ('[set]\n"road.txt" = "A1"\n', 'road.txt" takes SPACE=TERRAIN'),
        ('[set]\n"road.txt" = 3\n', 'give "C3=F,E7=T"'),
        ('set = "A1=T"\n', "[set] must be a table"),
    ],
)
def test_a_bad_set_table_is_a_usage_error_naming_the_file(round_folder, table, says):
    (round_folder / "cartoscore.toml").write_text(DEAL + table)
    res = run("score", str(round_folder / "road.txt"))
    assert res.exit_code == 2
    assert "cartoscore.toml" in res.stderr and says in res.stderr


def test_batch_reads_a_photo_as_the_side_its_settings_set(tmp_path):
    import shutil

    from app.results import latest_rows, read_results

    d = tmp_path / "round"
    d.mkdir()
    shutil.copy(SAMPLE_A, d / "table1.jpg")
    shutil.copy(SAMPLE_A, d / "table2.jpg")
    cards = ", ".join(f'"{c}"' for c in SAMPLE_CARDS.split(","))
    (d / "cartoscore.toml").write_text(f'cards = [{cards}]\n[set]\n"table2.jpg" = "side=B"\n')
    out = tmp_path / "results.csv"
    res = run("batch", str(d), "--out", str(out), "--workers", "0")
    assert res.exit_code == 0, res.stderr
    rows = {r["source"].rsplit("/", 1)[-1]: r for r in latest_rows(read_results(out))}
    assert (rows["table1.jpg"]["side"], rows["table2.jpg"]["side"]) == ("A", "B")
    assert rows["table2.jpg"]["set_by_hand"] == "side=B"


def test_batch_warns_of_a_set_for_a_sheet_it_does_not_have(round_folder, tmp_path):
    (round_folder / "cartoscore.toml").write_text(DEAL + '[set]\n"raod.txt" = "A1=T"\n')
    res = run("batch", str(round_folder), "--out", str(tmp_path / "r.csv"), "--workers", "0")
    assert res.exit_code == 0, res.stderr
    assert "[set] names" in res.stderr and "raod.txt, which is not among the sheets" in res.stderr
    assert totals(tmp_path / "r.csv")["road.txt"] == 126  # nothing set on road.txt


def test_a_set_on_a_printed_space_fails_only_that_sheet_of_a_batch(round_folder, tmp_path):
    (round_folder / "cartoscore.toml").write_text(DEAL + '[set]\n"road.txt" = "B4=F"\n')
    out = tmp_path / "r.csv"
    res = run("batch", str(round_folder), "--out", str(out), "--workers", "0")
    assert res.exit_code == 1
    from app.results import read_results

    rows = {r["source"].rsplit("/", 1)[-1]: r for r in read_results(out)}
    assert "cannot set B4: side A prints a mountain there" in rows["road.txt"]["error"]
    assert (rows["wild.txt"]["error"], rows["wild.txt"]["total"]) == ("", 96)


def test_the_html_report_says_what_was_set_by_hand(round_folder, tmp_path):
    (round_folder / "cartoscore.toml").write_text(DEAL + '[set]\n"road.txt" = "A1=T,coins=4"\n')
    page = tmp_path / "round.html"
    res = run(
        "batch", str(round_folder), "--out", str(tmp_path / "r.csv"), "--workers", "0",
        "--html", str(page),
    )  # fmt: skip
    assert res.exit_code == 0, res.stderr
    assert "set by hand: A1=T coins=4" in page.read_text()


def test_read_applies_the_settings_file_as_score_does(tmp_path):
    """`read` then `score` of its text gives what `score` gives on the photo: the
    settings file's [set] (a space, the coins) and side reach `read` too."""
    d = tmp_path / "round"
    d.mkdir()
    shutil.copy(SAMPLE_A, d / "t1.jpg")
    shutil.copy(SAMPLE_A, d / "t2.jpg")
    cards = ", ".join(f'"{c}"' for c in SAMPLE_CARDS.split(","))
    (d / "cartoscore.toml").write_text(
        f'cards = [{cards}]\n[set]\n"t1.jpg" = "J6=F,coins=3"\n"t2.jpg" = "side=B"\n'
    )
    for name in ("t1", "t2"):
        photo = run("score", str(d / f"{name}.jpg"), "--json")
        assert photo.exit_code == 0, photo.stderr
        res = run("read", str(d / f"{name}.jpg"))
        assert res.exit_code == 0, res.stderr
        text = d / f"{name}.txt"
        text.write_text(res.stdout)
        typed = run("score", str(text), "--json")
        assert typed.exit_code == 0, typed.stderr
        a, b = json.loads(photo.stdout), json.loads(typed.stdout)
        assert (b["side"], b["coins"], b["total"]) == (a["side"], a["coins"], a["total"])
        assert b["grid"] == a["grid"]
    read_t1 = (d / "t1.txt").read_text()
    assert "; set by hand: J6 F (read T)" in read_t1 and "\ncoins: 3\n" in read_t1
    read_t2 = (d / "t2.txt").read_text()
    assert "; set by hand: side B" in read_t2 and "\nside: B\n" in read_t2


def test_a_set_for_a_pdf_page_reaches_it_by_its_link_or_its_file(tmp_path):
    """[set] names a sheet as batch knows it (app.results.sheet_key): a page of a PDF
    named through a link is the same page of the file the link leads to."""
    from app.config import load_settings

    (tmp_path / "scans").mkdir()
    real = tmp_path / "scans" / "feeder.pdf"
    real.write_bytes(b"%PDF-1.7\n")
    (tmp_path / "round.pdf").symlink_to(real)
    (tmp_path / "cartoscore.toml").write_text('[set]\n"round.pdf#page=2" = "coins=3"\n')
    settings = load_settings(tmp_path / "cartoscore.toml")
    assert settings.fixes_for(f"{real}#page=2") == {"coins": 3}
    assert settings.fixes_for(str(tmp_path / "round.pdf") + "#page=2") == {"coins": 3}
    assert settings.fixes_for(f"{real}#page=1") == {}
