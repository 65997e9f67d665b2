"""``score`` decodes the next photo in a second thread: each input gets its own decoding."""

import cv2
import numpy as np

from app.inputs import DecodeAhead


def _png(path, width, height):
    cv2.imwrite(str(path), np.full((height, width, 3), 128, np.uint8))
    return path


def test_each_photo_gets_its_own_decoding_and_map_files_none(tmp_path):
    first = _png(tmp_path / "first.png", 100, 80)
    notes = tmp_path / "notes.txt"
    notes.write_text("not decoded\n")
    second = _png(tmp_path / "second.png", 120, 90)
    third = _png(tmp_path / "third.png", 140, 70)
    inputs = [first, notes, second, third]
    with DecodeAhead(inputs) as ahead:
        taken = [ahead.take() for _ in inputs]
        photos = [None if t is None else t.result() for t in taken]
    # The first photo is read at once (nothing to overlap it with), a map file is no photo.
    assert taken[0] is None and taken[1] is None
    assert photos[2].source == str(second) and photos[2].image.shape[:2] == (90, 120)
    assert photos[3].source == str(third) and photos[3].image.shape[:2] == (70, 140)


def test_a_missing_or_unlisted_file_is_not_decoded_ahead(tmp_path):
    first = _png(tmp_path / "first.png", 100, 80)
    with DecodeAhead([first, tmp_path / "gone.jpg", tmp_path]) as ahead:
        assert [ahead.take() for _ in range(3)] == [None, None, None]
