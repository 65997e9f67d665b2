"""benchmarks/drawn_on_photo.py: a game's ink lands on the photographed grid where it belongs."""

import numpy as np
import pytest
from sheet_fixture import draw_sheet, photograph

from benchmarks.drawn_on_photo import draw_into, ink_layer, reshoot
from benchmarks.measure_scanner import cell_centre_error
from models.synth.canvas import Canvas
from scanner.lattice import quad_homography
from scanner.pipeline import scan_photo, sheet_from_scan

CORNERS = np.array([[300, 60], [700, 120], [760, 700], [250, 680]], float)


def _photo_and_homography(side="A"):
    page, to_px = draw_sheet(side)
    photo, lattice = photograph(page, to_px, CORNERS)
    corners = np.float64([lattice[0, 0], lattice[0, -1], lattice[-1, -1], lattice[-1, 0]])
    return photo, quad_homography(corners), lattice


@pytest.mark.parametrize("cell", [(0.5, 0.5), (5.5, 7.5), (10.5, 10.5)])
def test_a_dot_drawn_at_a_cell_centre_darkens_the_photo_there(cell):
    photo, h, _ = _photo_and_homography()
    cv = Canvas.covering(-1.0, -1.0, 12.0, 12.0, 20.0)
    layer = cv.blank(3, 255)
    cv.circle(layer, cell, 0.1, (0, 0, 0))
    drawn = draw_into(photo, layer, cv, h)
    changed = np.argwhere(np.abs(drawn.astype(int) - photo.astype(int)).max(axis=2) > 60)
    x, y = (h @ np.array([cell[0], cell[1], 1.0]))[:2] / (h @ np.array([cell[0], cell[1], 1.0]))[2]
    assert len(changed)
    assert np.allclose(changed.mean(axis=0), (y, x), atol=1.0)


def test_a_game_drawn_into_a_blank_sheet_photo_is_read_back():
    photo, h, lattice = _photo_and_homography("B")
    scan = scan_photo(photo)
    assert cell_centre_error(scan.lattice, lattice) < 0.1
    layer, cv, game = ink_layer(3, "B", "pencil-hatch-icon", 40.0)
    drawn = draw_into(photo, layer, cv, scan.homography)
    again = scan_photo(drawn)
    sheet = sheet_from_scan(again)
    assert cell_centre_error(again.lattice, lattice) < 0.1
    read, truth = "".join(sheet.map.grid), "".join(game.grid)
    right = sum(a == b for a, b in zip(read, truth, strict=True))
    assert right >= 110  # the stand-in print is plainer than ours: most cells read right


@pytest.mark.parametrize("seed", [0, 1])
def test_a_reshot_sheet_is_found_where_the_reshoot_says_its_grid_is(seed):
    # The re-shoot cuts the page out of the flat photo and photographs it again with the
    # synthetic camera (turned, tilted, bent): the lattice it returns is where the scanner
    # must find the grid in the new photo, and every cell still reads as drawn.
    photo, h, _ = _photo_and_homography("A")
    scan = scan_photo(photo)
    layer, cv, game = ink_layer(5, "A", "pencil-hatch-icon", 40.0)
    drawn = draw_into(photo, layer, cv, scan.homography)
    shot, lattice = reshoot(drawn, scan.homography, seed, "normal")
    assert shot.shape[0] * shot.shape[1] >= 1200 * 900
    assert lattice.shape == (12, 12, 2)
    again = scan_photo(shot)
    assert cell_centre_error(again.lattice, lattice) < 0.1
    read, truth = "".join(sheet_from_scan(again).map.grid), "".join(game.grid)
    assert sum(a == b for a, b in zip(read, truth, strict=True)) >= 110


def test_scanner_app_filters_keep_the_sheet_and_do_what_they_say():
    from benchmarks import scan_filters

    photo, _, _ = _photo_and_homography()
    warm = np.clip(photo.astype(int) + (-20, 0, 25), 0, 255).astype(np.uint8)
    grey = scan_filters.apply("grey", warm)
    assert grey.shape == warm.shape
    assert (grey[..., 0] == grey[..., 1]).all() and (grey[..., 1] == grey[..., 2]).all()
    assert set(np.unique(scan_filters.apply("bw", warm))) <= {0, 255}
    doc = scan_filters.apply("document", warm)
    paper = np.median(warm.reshape(-1, 3), axis=0)
    assert np.median(doc.reshape(-1, 3), axis=0).min() > paper.min() + 10
    with pytest.raises(ValueError):
        scan_filters.apply("sepia", warm)


def test_reading_changes_counts_only_the_spaces_the_two_readings_differ_on():
    from benchmarks.drawn_on_photo import reading_changes

    truth = ["FW.", "TTV"]
    read = ["FF.", "TVV"]  # (0, 1) wrong, (1, 1) wrong
    other = ["FW.", "TMV"]  # (0, 1) right, (1, 1) wrong another way
    spaces = [(r, c) for r in range(2) for c in range(3)]
    changes = reading_changes(truth, read, other, spaces)
    assert changes == {"against": 1, "neither": 1}
    assert reading_changes(truth, other, read, spaces) == {"model": 1, "neither": 1}
    assert reading_changes(truth, read, other, [(0, 0), (1, 2)]) == {}
