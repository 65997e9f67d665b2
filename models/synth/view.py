"""FAST mode for classifier training: the sheet as the scanner's canonical view shows it.

The sheet is rendered straight into ``scanner.geometry``'s canonical frame with
the small residual misalignment a real rectification leaves (a few percent of a
cell of shift, rotation, scale, slight perspective and curl) and photo-like
degradations (light colour, gradients, shadows, glare, blur, noise, JPEG,
resampling softness).
"""

from __future__ import annotations

import cv2
import numpy as np

from models.synth import scene
from models.synth.photo import Shot, check_difficulty, ground_truth, rng_for
from models.synth.sheet import render_sheet
from models.synth.warp import random_curl, warp_sheet
from scanner import geometry as g

_LEVEL = {"clean": 0.4, "normal": 1.0, "hard": 1.8}


def residual_homography(rng: np.random.Generator, level: float) -> np.ndarray:
    """Cells -> canonical view pixels, off by a few percent of a cell."""
    ppc = g.CANON_PX_PER_CELL
    e = g.CANON_EXTENT
    a = np.deg2rad(rng.normal(0, 0.35 * level))
    s = 1 + rng.normal(0, 0.006 * level, 2)
    t = rng.normal(0, 0.035 * level, 2)  # cells
    c = np.array([5.5, 5.5])
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) * s
    m = np.eye(3)
    m[:2, :2] = rot
    m[:2, 2] = c - rot @ c + t
    persp = np.eye(3)
    persp[2, :2] = rng.normal(0, 0.0006 * level, 2)
    # Keep the grid centre fixed under the perspective term. Like scanner.rectify, view
    # pixel index i shows cell coordinate x0 + i / ppc (``to_canonical_px``).
    to_view = np.array([[ppc, 0, -e.x0 * ppc], [0, ppc, -e.y0 * ppc], [0, 0, 1]])
    shift_c = np.array([[1, 0, -5.5], [0, 1, -5.5], [0, 0, 1]])
    back_c = np.array([[1, 0, 5.5], [0, 1, 5.5], [0, 0, 1]])
    return to_view @ back_c @ persp @ shift_c @ m


def make_view(
    seed: int, difficulty: str = "normal", played: int = 4, neighbour_monsters: float = 0.0
) -> tuple[np.ndarray, dict]:
    """The canonical rectified view (``scanner.geometry.canonical_size()``) and its truth.

    ``played``: seasons drawn (4, a finished game, by default; 0 a blank sheet);
    ``neighbour_monsters``: the chance that a neighbour drew the monsters; see
    :func:`models.synth.sheet.render_sheet`.

    Truth coordinates (``grid_corners``, ``lattice``) are in view pixels, in the
    convention of ``scanner.geometry.to_canonical_px`` (a perfectly aligned view would
    have ``lattice[i][j] == to_canonical_px(j, i)``).
    """
    difficulty = check_difficulty(difficulty)
    rng = rng_for(seed, difficulty, "view")
    level = _LEVEL[difficulty]
    w, h = g.canonical_size()
    hom = residual_homography(rng, level)
    curl = random_curl(rng, rng.uniform(0, 0.05 * level))
    soft = rng.uniform(0.55, 1.25) if difficulty != "clean" else rng.uniform(0.9, 1.3)
    ppc = g.CANON_PX_PER_CELL * soft
    sheet = render_sheet(rng, ppc, played=played, neighbour_monsters=neighbour_monsters)
    bg = scene.table(rng, (w, h))
    img, alpha = warp_sheet(sheet.bgr, sheet.alpha, sheet.canvas, hom, curl, bg)
    hard = difficulty == "hard"
    light = dict(
        warmth=rng.uniform(-0.6, 1.0) * level,
        tint=0.025 * level,
        exposure=rng.uniform(1 - 0.2 * level, 1.08),
        gradient=rng.uniform(0, 0.2 * level),
        vignette=rng.uniform(0, 0.15 * level),
        shadows=int(rng.integers(0, 3)) if difficulty != "clean" else 0,
        shadow_strength=rng.uniform(0.15, 0.3 * level + 0.1),
        glare=rng.uniform(0.1, 0.3 * level) if rng.random() < 0.15 * level else 0.0,
    )
    blur = rng.uniform(0, 0.6 * level)
    if blur > 0.25:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    if hard and rng.random() < 0.2:
        img = scene.motion_blur(img, rng, rng.uniform(2, 4))
    noise = rng.uniform(1, 3.5 * level)
    gain, glare = scene.light_field(rng, (w, h), light)
    gain = scene.detail_gain(gain, alpha, rng, rng.uniform(0.1, 0.3), noise)
    img = scene.apply_light(img, gain, glare)
    img = scene.sensor_noise(img, rng, noise)
    quality = int(rng.integers(55, 81)) if hard else int(rng.integers(70, 96))
    img, _ = scene.jpeg_roundtrip(img, quality)
    shot = Shot(
        size=(w, h),
        exif=1,
        homography=hom,
        curl=curl,
        softness=soft,
        defocus=blur,
        motion=0.0,
        light=light,
        noise=0.0,
        jpeg=quality,
        table="",
        sheet_shadow=0.0,
    )
    return img, ground_truth(seed, difficulty, sheet, shot)
