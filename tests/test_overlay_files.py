"""app.overlay_files: where ``score --overlay FILE`` writes each input's overlay (README:
"with several inputs each gets its own file (``dispute-<name>.png``)"), and the one line
each write tells."""

from __future__ import annotations

from pathlib import Path

from app.inputs import load_input
from app.overlay_files import OverlayWriter, overlay_paths, write_places_tried
from scoring.game import score_game
from tests.cli_fixtures import SAMPLE


def test_one_input_takes_the_name_given_several_their_own():
    target = Path("out/dispute.png")
    assert overlay_paths(target, ["a/table3.jpg"]) == [target]
    assert overlay_paths(target, ["a/table3.jpg", "b/table4.txt"]) == [
        Path("out/dispute-table3.png"),
        Path("out/dispute-table4.png"),
    ]


def test_inputs_of_the_same_name_are_told_apart_by_their_number():
    target = Path("o.png")
    assert overlay_paths(target, ["round1/sheet.txt", "round2/sheet.txt", "x.jpg"]) == [
        Path("o-sheet-1.png"),
        Path("o-sheet-2.png"),
        Path("o-x.png"),
    ]


def test_a_scan_of_several_pages_gives_each_page_its_file():
    target = Path("o.jpg")
    assert overlay_paths(target, ["scan.pdf#page=1", "scan.pdf#page=2"]) == [
        Path("o-scan-page1.jpg"),
        Path("o-scan-page2.jpg"),
    ]


def test_the_writer_tells_where_each_overlay_went_or_why_it_did_not(tmp_path):
    item = load_input(SAMPLE)
    game = score_game([item.sheet.map], item.cards, item.sheet.coins)
    paths = [tmp_path / "a.png", tmp_path / "missing" / "b.png"]
    draw = OverlayWriter(paths, "A")
    assert draw(item.sheet, None, game, 0) == f"overlay written to {paths[0]}"
    assert paths[0].stat().st_size > 0 and not draw.failed
    line = draw(item.sheet, None, game, 1)
    assert line.startswith(f"error: {SAMPLE}: no overlay: ") and "\n" not in line
    assert draw.failed
    # --explain naming a card that is not in this game's deal: no overlay, one line.
    other = OverlayWriter([tmp_path / "c.png"], "treetower")
    assert other(item.sheet, None, game, 0).startswith(f"error: {SAMPLE}: no overlay: ")
    assert other.failed and not (tmp_path / "c.png").exists()


def test_places_tried_only_with_an_overlay_and_a_sheet_not_found(tmp_path):
    assert write_places_tried(None, ValueError("anything")) is None
    # A failure other than "no sheet found" has no places tried to draw.
    assert write_places_tried(tmp_path / "t.png", ValueError("not an image")) is None
    assert not (tmp_path / "t.png").exists()
