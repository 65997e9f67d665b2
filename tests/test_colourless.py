"""A photo without colour (a greyscale scan, a phone's black-and-white filter) is said so.

SHEET.md: players tell terrains apart by colour ("forest ... green, village ... red or
brown, farm ... yellow, water ... blue") and some only hatch a cell in that colour. On a
grey photo those cells cannot be read, so the report must say why so many are listed.
"""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from pinned_renders import pinned_view

from scanner.colourless import COLOURLESS_BELOW, colour_spread
from scanner.pipeline import read_photo
from tests.cli_fixtures import run

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_PHOTO = ROOT / "samples" / "photos" / "synth-2028-A-pencil-hatch-icon.jpg"
CARDS = "the-cauldrons,greenbough,mages-valley,great-city"


def test_grey_images_have_no_colour_in_any_layout():
    view, _ = pinned_view(7103, "normal")
    grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    assert colour_spread(grey) == 0.0
    assert colour_spread(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)) == 0.0
    assert colour_spread(grey) < COLOURLESS_BELOW


def test_an_even_warm_tint_over_a_grey_scan_is_no_colour():
    view, _ = pinned_view(7103, "normal")
    grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    warm = np.clip(grey[..., None] + np.float32([-4, 0, 4]), 0, 255)
    assert colour_spread(warm.astype(np.uint8)) < COLOURLESS_BELOW


def test_a_rendered_colour_view_has_colour_with_room_to_spare():
    view, _ = pinned_view(7103, "normal")
    assert colour_spread(view) > 5 * COLOURLESS_BELOW


@pytest.fixture(scope="module")
def grey_sample(tmp_path_factory) -> Path:
    """The shipped sample photo saved as a greyscale JPEG, as a scanner's grey mode does."""
    photo = cv2.imread(str(SAMPLE_PHOTO), cv2.IMREAD_GRAYSCALE)
    path = tmp_path_factory.mktemp("grey") / "sheet-grey.jpg"
    cv2.imwrite(str(path), photo, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return path


def test_a_grey_photo_is_noted_and_the_colour_one_is_not(grey_sample):
    grey = read_photo(grey_sample)
    assert any("no colour" in note for note in grey.notes)
    colour = read_photo(SAMPLE_PHOTO)
    assert not any("no colour" in note for note in colour.notes)


def test_the_note_reaches_the_json_report(grey_sample):
    result = run("score", str(grey_sample), "--cards", CARDS, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.splitlines()[0])
    assert any("no colour" in note for note in report["notes"])
