"""Renders kept as files, so that a change to ``models.synth`` does not swap the images
under a test that was written about one of them.

``tests/data/synthesis22`` holds what synthesis 22 (the renderer of commit cd9c7d1) drew:
``write_sample(path, seed, "hard")`` for seeds 7000-7003 (the JPEG as a phone writes it
and its truth), and ``make_view(7103, "normal")`` stored as a lossless WebP with its side
and grid. Synthesis 24 draws other sheets for these seeds (docs/figures.md, session 23).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

PINNED = Path(__file__).parent / "data" / "synthesis22"


def pinned_photo(difficulty: str, seed: int) -> tuple[Path, dict]:
    """The kept photo file and its truth."""
    path = PINNED / f"{difficulty}_{seed}.jpg"
    return path, json.loads(path.with_suffix(".json").read_text())


def pinned_view(seed: int, difficulty: str) -> tuple[np.ndarray, dict]:
    """The kept canonical view (BGR) and its truth (``side``, ``grid``)."""
    path = PINNED / f"view_{seed}.webp"
    view = cv2.imread(str(path), cv2.IMREAD_COLOR)
    truth = json.loads(path.with_suffix(".json").read_text())
    if view is None or truth["difficulty"] != difficulty:
        raise FileNotFoundError(f"no kept {difficulty} view {seed} in {PINNED}")
    return view, truth
