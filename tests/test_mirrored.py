"""A photo that shows the sheet mirrored is read flipped back, and says so.

Front cameras and webcams often save what their preview showed, a mirror image. The
printed layouts are not mirror-symmetric, so scanner.orient scores every side and turn
of the sheet as photographed and as seen in a mirror. The photos here are the shipped
samples (rendered, with their drawn truth), flipped left to right.
"""

import json

import cv2
import pytest

from scanner.pipeline import scan_photo
from tests.cli_fixtures import DEAL, ROOT, run
from tests.test_cli_end_to_end import README_PHOTO, SHIPPED, check_photo

NOTE = "the photo shows the sheet mirrored"


def mirrored_copy(photo, folder, turn=None):
    """The photo flipped left to right (then turned by ``turn``, a cv2.rotate code)."""
    image = cv2.flip(cv2.imread(str(photo)), 1)
    path = folder / f"mirrored-{turn}-{photo.name}"
    cv2.imwrite(str(path), image if turn is None else cv2.rotate(image, turn))
    return path


def test_a_mirrored_photo_scores_its_truth_and_says_it_was_mirrored(tmp_path):
    photo = ROOT / README_PHOTO
    truth = json.loads(photo.with_suffix(".json").read_text())
    mirrored = mirrored_copy(photo, tmp_path)
    check_photo(mirrored, truth, tmp_path)  # every cell, the coins and the points
    got = json.loads(run("score", str(mirrored), "--cards", DEAL, "--json").stdout)
    assert any(note.startswith(NOTE) for note in got["notes"])


@pytest.mark.parametrize("photo", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_photos_are_mirrored_only_when_they_are(photo, tmp_path):
    truth = json.loads(photo.with_suffix(".json").read_text())
    plain = scan_photo(photo)
    assert not plain.mirrored and (plain.side, plain.coins) == (truth["side"], truth["coins"])
    flipped = scan_photo(mirrored_copy(photo, tmp_path))
    assert flipped.mirrored and (flipped.side, flipped.coins) == (truth["side"], truth["coins"])
    # The sheet's up, seen in a mirror, turns the other way round; turning the mirrored
    # photo a quarter clockwise then turns it a quarter further.
    assert flipped.orientation == (-plain.orientation) % 360
    turned = scan_photo(mirrored_copy(photo, tmp_path, cv2.ROTATE_90_CLOCKWISE))
    assert turned.mirrored and turned.side == truth["side"]
    assert turned.orientation == (90 - plain.orientation) % 360
