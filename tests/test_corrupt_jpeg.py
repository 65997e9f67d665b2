"""A JPEG whose data is corrupt mid-stream (a copy or transfer that went wrong) is
decoded as far as it goes, and says so: issue 6's "truncated file" has a sibling the
end-of-image marker does not reveal.

The damaged files are the shipped sample photo with bytes of its scan data
overwritten. Where the damage lands on the sheet the photo is refused as corrupt,
not as "no map sheet found"; where it spares the sheet, the sheet is scored and a
note says the data is damaged.
"""

import json

import cv2
import numpy as np
import pytest
from PIL import Image

from scanner.load import load_photo
from tests.cli_fixtures import DEAL, ROOT, run

SAMPLE = ROOT / "samples" / "photos" / "synth-2010-B-ballpoint.jpg"


def overwritten(data: bytes, at: float, count: int, seed: int = 1) -> bytes:
    """``data`` with ``count`` random bytes written at the fraction ``at`` of its scan."""
    start = data.index(b"\xff\xda")
    i = start + int((len(data) - start) * at)
    noise = np.random.default_rng(seed).integers(0, 256, count, dtype=np.uint8).tobytes()
    return data[:i] + noise + data[i + count :]


@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    d = tmp_path_factory.mktemp("damaged")
    data = SAMPLE.read_bytes()
    files = {"middle.jpg": overwritten(data, 0.5, 256), "end.jpg": overwritten(data, 0.95, 256)}
    for name, content in files.items():
        (d / name).write_bytes(content)
    return {name: d / name for name in files}


def test_a_sound_jpeg_has_no_damage_and_the_same_pixels_as_opencv():
    photo = load_photo(SAMPLE)
    assert photo.damage is None
    reduced = cv2.imread(str(SAMPLE), cv2.IMREAD_REDUCED_COLOR_2)  # turned by its EXIF
    assert photo.image.shape == (1024, 768, 3)
    assert np.array_equal(reduced, photo.image)


def test_a_small_jpeg_decoded_whole_matches_pillow(tmp_path):
    """Below the working size the JPEG is decoded at full scale, as Pillow did."""
    rng = np.random.default_rng(5)
    path = tmp_path / "chat.jpg"
    Image.fromarray(rng.integers(0, 255, (600, 800, 3), dtype=np.uint8)).save(path, quality=80)
    photo = load_photo(path)
    with Image.open(path) as im:
        expected = np.asarray(im.convert("RGB"))[:, :, ::-1]
    assert photo.scale == 1 and photo.damage is None
    assert np.array_equal(photo.image, expected)


@pytest.mark.parametrize("name", ["middle.jpg", "end.jpg"])
def test_damaged_data_is_decoded_and_named(damaged, name, capfd):
    """The picture is what a tolerant decode gives, the complaint is kept, and libjpeg's
    own warning does not leak onto the terminal ahead of ours."""
    photo = load_photo(damaged[name])
    assert photo.damage and "segment" in photo.damage
    tolerant = cv2.imread(str(damaged[name]), cv2.IMREAD_REDUCED_COLOR_2)
    assert np.array_equal(tolerant, photo.image)
    capfd.readouterr()  # OpenCV's decode above printed the warning: drop it
    load_photo(damaged[name])
    assert capfd.readouterr().err == ""


def test_a_motion_photo_is_read_past_its_movie(damaged, tmp_path):
    """Phones append a motion photo's movie after the picture: the picture reads as the
    photo alone does, and damage in it is still told."""
    movie = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 40
    sound, hurt = tmp_path / "motion.jpg", tmp_path / "motion-hurt.jpg"
    sound.write_bytes(SAMPLE.read_bytes() + movie)
    hurt.write_bytes(damaged["end.jpg"].read_bytes() + movie)
    photo = load_photo(sound)
    assert photo.damage is None and np.array_equal(photo.image, load_photo(SAMPLE).image)
    assert load_photo(hurt).damage == load_photo(damaged["end.jpg"]).damage is not None


def test_a_sheet_lost_to_damage_is_called_corrupt_not_missing(damaged):
    res = run("score", str(damaged["middle.jpg"]), "--cards", DEAL)
    assert res.exit_code == 1
    [line] = res.stderr.splitlines()
    assert line.startswith(f"error: {damaged['middle.jpg']}: the image data is corrupt (")
    assert "no map sheet was found" in line and "Traceback" not in res.stderr


def test_a_sheet_spared_by_damage_is_scored_with_a_note(damaged):
    res = run("score", str(damaged["end.jpg"]), "--cards", DEAL, "--json")
    assert res.exit_code == 0
    [report] = [json.loads(x) for x in res.stdout.splitlines()]
    assert (
        report["total"]
        == json.loads(run("score", str(SAMPLE), "--cards", DEAL, "--json").stdout)["total"]
    )
    [note] = [n for n in report["notes"] if "corrupt" in n]
    assert note.startswith("the photo's data is corrupt (") and "copy the photo" in note
