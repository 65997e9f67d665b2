"""Renders kept as files, so that a change to ``models.synth`` does not swap the images
under a test that was written about one of them.

``tests/data/synthesis22`` holds what synthesis 22 (the renderer of commit cd9c7d1) drew:
``write_sample(path, seed, "hard")`` for seeds 7000-7003 (the JPEG as a phone writes it
and its truth), and ``make_view(7103, "normal")`` stored as a lossless WebP with its side
and grid. Synthesis 24 draws other sheets for these seeds (docs/figures.md, session 23).
``tests/data/synthesis25`` holds synthesis 25's hard 304012 (commit 2258790): synthesis
26 prints side A's dashes as pale as the real print's, and on that photo the lines a
test about bent paper was written on are then too faint to measure.
``tests/data/synthesis29`` holds synthesis 29's hard 300034, 300053 and 300098 (commit
5ba4a5b), on which session 30 changed how the lattice is first measured, its corners,
and when paper is flat; and the coin track's rows of the canonical views the scanner made
of hard 300077 and of hard 302060 with a finger painted on (``*_track.webp``, lossless;
session 37's coin steps), of fresh hard 190097 as session 39's lattice made it, and of
fresh hard 196059 as session 41's coin guard was written on.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

PINNED = Path(__file__).parent / "data" / "synthesis22"


def pinned_photo(difficulty: str, seed: int, synthesis: int = 22) -> tuple[Path, dict]:
    """The kept photo file and its truth (drawn by that synthesis)."""
    path = PINNED.parent / f"synthesis{synthesis}" / f"{difficulty}_{seed}.jpg"
    return path, json.loads(path.with_suffix(".json").read_text())


def pinned_view(seed: int, difficulty: str) -> tuple[np.ndarray, dict]:
    """The kept canonical view (BGR) and its truth (``side``, ``grid``)."""
    path = PINNED / f"view_{seed}.webp"
    view = cv2.imread(str(path), cv2.IMREAD_COLOR)
    truth = json.loads(path.with_suffix(".json").read_text())
    if view is None or truth["difficulty"] != difficulty:
        raise FileNotFoundError(f"no kept {difficulty} view {seed} in {PINNED}")
    return view, truth
