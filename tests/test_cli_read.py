"""`cartoscore read` and its settings file: `read` prints the map and uses no cards, so a
card the settings file gets wrong is told once and the map is printed all the same
(README: `read` applies the settings file's `side` and `[set]`, as `score` does);
`score` still stops on it (CLI.md: exit 2 for an unknown card). And `read --scan-overlay`,
the scanner's debug picture (issue #4), on drawn stand-in sheets (tests/sheet_fixture.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from sheet_fixture import draw_sheet, photograph

import app.inputs
import scanner.cell_model
from scanner.sheet import Sheet
from scoring.board import Map
from scoring.layouts import SIDE_A
from tests.cli_fixtures import DEAL, STAND_IN_MODEL, run

#: Edict A's card mistyped ("sentinel-wod"), side B for all, and the sheet's C4 set.
BAD_CARD = (
    'cards = ["sentinel-wod", "canal-lake", "great-city", "borderlands"]\n'
    'side = "B"\n[set]\n"table.jpg" = "C4=W"\n'
)


@pytest.fixture
def sides_read(monkeypatch) -> list[str | None]:
    """Stand in for the photo reader (an empty side-A map): the sides it is asked for."""
    asked: list[str | None] = []

    def empty_sheet(path, *, side=None, decoded=None):
        asked.append(side)
        return Sheet(source=str(path), map=Map.empty(SIDE_A), coins=0)

    monkeypatch.setattr(app.inputs, "read_photo", empty_sheet)
    return asked


@pytest.mark.parametrize("given", [False, True], ids=["nearby", "cards-file"])
def test_read_prints_the_map_though_the_settings_file_names_an_unknown_card(
    tmp_path, sides_read, given
):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"")
    settings = tmp_path / ("round.toml" if given else "cartoscore.toml")
    settings.write_text(BAD_CARD)
    res = run("read", str(photo), *(["--cards-file", str(settings)] if given else []))
    assert res.exit_code == 0, res.stderr
    assert sides_read == ["B"]  # the file's side
    assert "; set by hand: C4 W (read .)" in res.stdout  # and its [set]
    assert res.stdout.endswith(". . . . . . . . . . .\n")  # the map, to the last row
    [warning] = res.stderr.splitlines()
    assert warning.startswith(f"warning: {settings}: unknown card 'sentinel-wod'")
    scored = run("score", str(photo), *(["--cards-file", str(settings)] if given else []))
    assert scored.exit_code == 2 and scored.stdout == ""
    assert scored.stderr.startswith(f"error: {settings}: unknown card 'sentinel-wod'")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (BAD_CARD.replace("[set]", "[set"), "not valid TOML"),
        (BAD_CARD.replace('side = "B"', 'side = "C"'), "side must be auto, A or B, got 'C'"),
    ],
    ids=["toml-syntax", "side"],
)
def test_read_stops_on_a_settings_file_whose_side_or_set_cannot_be_read(
    tmp_path, sides_read, text, problem
):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"")
    settings = tmp_path / "cartoscore.toml"
    settings.write_text(text)
    res = run("read", str(photo))
    assert res.exit_code == 2 and res.stdout == "" and sides_read == []
    [error] = res.stderr.splitlines()
    assert error.startswith(f"error: {settings}: {problem}")


def test_read_with_good_cards_in_the_settings_file_says_nothing_of_them(tmp_path, sides_read):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"")
    cards = ", ".join(f'"{c}"' for c in DEAL.split(","))
    (tmp_path / "cartoscore.toml").write_text(f"cards = [{cards}]\n" + BAD_CARD.split("\n", 1)[1])
    res = run("read", str(photo))
    assert res.exit_code == 0 and res.stderr == "" and sides_read == ["B"]


#: Page corners (TL, TR, BR, BL) of a tilted sheet in a 1000 x 750 photo.
TILTED = np.array([[300, 60], [700, 120], [760, 700], [250, 680]], float)


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(scanner.cell_model, "MODEL_PATH", STAND_IN_MODEL)


def test_read_writes_the_scanners_picture_of_the_photo(tmp_path, stand_in):
    """Issue #4: the debug picture of the frame, the intersections, the turn and the
    coins. A 2000 x 1500 photo is worked on at 1000 x 750 (README: decoded at the
    smallest power-of-two reduction keeping about 1000 px on the long side)."""
    page, to_px = draw_sheet("A", coins=2)
    small, truth = photograph(page, to_px, TILTED)  # truth: the intersections at 1000 x 750
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), cv2.resize(small, None, fx=2.0, fy=2.0))
    out = tmp_path / "scan.png"
    res = run("read", str(photo), "--scan-overlay", str(out))
    assert res.exit_code == 0, res.stderr
    assert res.stderr == f"scan overlay written to {out}\n"
    picture = cv2.imread(str(out))
    assert picture.shape == (750, 1000, 3)
    for r, c in ((0, 0), (5, 5), (11, 11)):  # a red dot on each intersection
        x, y = np.round(truth[r, c]).astype(int)
        patch = picture[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3).astype(int)
        assert any(b < 80 and g < 80 and red > 200 for b, g, red in patch), (r, c)
    plain = run("read", str(photo))
    assert plain.exit_code == 0 and plain.stdout == res.stdout and "side: A" in res.stdout


def test_read_where_no_sheet_is_found_draws_the_places_tried(tmp_path, stand_in):
    rng = np.random.default_rng(3)
    table = cv2.add(
        np.full((600, 800, 3), (40, 80, 120), np.uint8),
        rng.integers(0, 40, (600, 800, 3), dtype=np.uint8),
    )
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), table)
    out = tmp_path / "tried.jpg"
    res = run("read", str(photo), "--scan-overlay", str(out))
    assert res.exit_code == 1 and res.stdout == ""
    assert f"overlay of the places tried written to {out}" in res.stderr
    assert "no map sheet" in res.stderr
    assert cv2.imread(str(out)).shape == table.shape


def test_a_scan_overlay_that_cannot_be_written_stops_read_before_the_photo(tmp_path, sides_read):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"")
    for target, problem in (
        (tmp_path / "scan.txt", "cannot write .txt images"),
        (tmp_path / "away" / "scan.png", f"folder {tmp_path / 'away'} does not exist"),
    ):
        res = run("read", str(photo), "--scan-overlay", str(target))
        assert res.exit_code == 2 and res.stdout == "" and sides_read == []
        assert res.stderr.startswith(f"error: --scan-overlay {target}: ") and problem in res.stderr
