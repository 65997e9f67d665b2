"""The scanner on rendered phone photos (models.synth) with their ground truth.

Each photo is written as a JPEG (with its EXIF orientation tag, as phones do)
and scanned from the file. The truth lattice, side and coin count come from
the renderer.
"""

import json

import numpy as np
import pytest

from models.synth import write_sample
from scanner.pipeline import scan_photo


def _worst_centre_error(lattice: np.ndarray, truth: np.ndarray) -> float:
    centre = (lattice[:-1, :-1] + lattice[1:, 1:] + lattice[:-1, 1:] + lattice[1:, :-1]) / 4
    true = (truth[:-1, :-1] + truth[1:, 1:] + truth[:-1, 1:] + truth[1:, :-1]) / 4
    side_x = np.linalg.norm(truth[:-1, 1:] - truth[:-1, :-1], axis=-1)
    side_y = np.linalg.norm(truth[1:, :-1] - truth[:-1, :-1], axis=-1)
    return float((np.linalg.norm(centre - true, axis=-1) / np.sqrt(side_x * side_y)).max())


@pytest.mark.parametrize(
    "difficulty, seed",
    [("clean", 7000), ("normal", 7000), ("normal", 7001), ("hard", 7000), ("hard", 7002)],
)
def test_rendered_photo_is_read(tmp_path, difficulty, seed):
    path = tmp_path / f"{difficulty}_{seed}.jpg"
    truth = write_sample(path, seed, difficulty)
    assert json.loads(path.with_suffix(".json").read_text())["side"] == truth["side"]
    scan = scan_photo(path)
    where = f"{difficulty} seed {seed}"
    # Upright order: the A1 corner must be where the truth has it (orientation right).
    error = _worst_centre_error(scan.lattice, np.array(truth["lattice"], float))
    assert error < 0.1, f"{where}: a cell centre is {error:.2f} cells off"
    assert scan.side == truth["side"], where
    assert scan.coins == truth["coins"], f"{where}: read {scan.coins} coins"
