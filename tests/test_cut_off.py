"""Map spaces the photo's edge cuts off are listed and said so, not silently guessed.

SHEET.md: photos are taken at a table, framed by hand; a phone held too close cuts the
grid. Beyond the edge the canonical view repeats the edge's pixels, so what the cell
model reads there is no reading at all.
"""

import json
from pathlib import Path

import cv2
import numpy as np

from benchmarks.measure_scanner import cell_centres
from scanner.photo_edge import OUTSIDE, cells_outside, describe_spaces
from scanner.pipeline import read_photo
from scoring.layouts import LAYOUTS, space_name

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_PHOTO = ROOT / "samples" / "photos" / "synth-2028-A-pencil-hatch-icon.jpg"


def test_cells_whose_middle_the_edge_cuts_are_outside():
    # 50 px a cell from x = 20: the edge at 10.5 cells cuts column 11 through its middle;
    # column 10 lies whole inside. The bottom edge leaves row K a sliver too thin to read.
    h = np.array([[50.0, 0, 20], [0, 50.0, 20], [0, 0, 1]])
    width, height = 20 + 10.5 * 50, 20 + 10.1 * 50
    out = set(cells_outside(h, (round(height), round(width), 3)))
    assert out == {r * 11 + 10 for r in range(11)} | {10 * 11 + c for c in range(11)}
    assert cells_outside(h, (600, 600, 3)) == ()


def test_cut_spaces_are_described_by_whole_columns_and_rows():
    assert describe_spaces(tuple(r * 11 + c for r in range(11) for c in (9, 10))) == (
        "columns 10-11"
    )
    assert describe_spaces(tuple(range(11))) == "row A"
    assert describe_spaces((0, 11, 22)) == "A1, B1, C1"


def test_a_photo_cutting_the_grid_lists_the_cut_spaces_and_says_so(tmp_path):
    truth = json.loads(SAMPLE_PHOTO.with_suffix(".json").read_text())
    photo = cv2.imread(str(SAMPLE_PHOTO))  # EXIF turn applied, as the truth's lattice
    centres = cell_centres(truth["lattice"]).reshape(-1, 2)  # displayed photo pixels
    cell = np.linalg.norm(np.subtract(truth["lattice"][0][1], truth["lattice"][0][0]))
    x_cut = int(np.percentile(centres[:, 0], 90))  # a tenth of the spaces right of the edge
    path = tmp_path / "cut.png"
    cv2.imwrite(str(path), photo[:, :x_cut])
    sheet = read_photo(path)
    said_out = {r.space for r in sheet.review if r.reason == OUTSIDE}
    names = [space_name(divmod(i, 11)) for i in range(121)]
    far_out = {names[i] for i in range(121) if centres[i, 0] > x_cut + 0.5 * cell}
    well_in = {names[i] for i in range(121) if centres[i, 0] < x_cut - 0.6 * cell}
    assert far_out - _printed_spaces(truth) <= said_out
    assert not said_out & well_in
    assert not said_out & _printed_spaces(truth)
    listed = [r.space for r in sheet.review]
    assert len(listed) == len(set(listed))  # a space listed before is listed once, as cut
    assert any("the photo's edge cuts" in note for note in sheet.notes)
    whole = read_photo(SAMPLE_PHOTO)
    assert not [r for r in whole.review if r.reason == OUTSIDE]
    assert not any("edge cuts" in note for note in whole.notes)


def _printed_spaces(truth: dict) -> set[str]:
    """Mountain and wasteland spaces of the truth's side (never listed for review)."""
    layout = LAYOUTS[truth["side"]]
    return {space_name((r, c)) for r in range(11) for c in range(11) if layout.printed((r, c))}


def test_a_grid_fitting_poorly_is_said_to_be_found_unsurely():
    from dataclasses import replace

    from scanner.pipeline import UNSURE_FIT, scan_photo, sheet_from_scan

    scan = replace(scan_photo(SAMPLE_PHOTO), cells=None)
    assert scan.fit >= UNSURE_FIT
    assert not any("found unsurely" in n for n in sheet_from_scan(scan).notes)
    poor = sheet_from_scan(replace(scan, fit=UNSURE_FIT - 0.05))
    assert any("found unsurely (fit 0.65)" in n for n in poor.notes)
