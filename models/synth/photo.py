"""Phone photos (and flatbed scans) of filled-in sheets, with ground truth.

``make_photo(seed, difficulty)`` returns the photo as the phone shows it (EXIF
orientation already applied) and its truth; ``write_sample`` writes the JPEG
(sometimes stored turned, with an EXIF orientation tag, as phones do) and the
truth next to it as JSON.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from models.synth import scene
from models.synth.canvas import Canvas
from models.synth.sheet import FlatSheet, render_sheet
from models.synth.warp import Curl, local_scale, project, random_curl, warp_sheet
from scanner import geometry as g

DIFFICULTIES = ("clean", "normal", "hard")
PHONE_SIZES = (
    (4032, 3024),
    (3264, 2448),
    (2592, 1944),
    (2048, 1536),
    (1600, 1200),
    (1200, 900),
    (4000, 3000),
    (1920, 1440),
)
SCAN_SIZES = ((1240, 1754), (1700, 2338), (2480, 3508), (1275, 1650))
MAX_RENDER_PPC = 120.0


@dataclass(frozen=True)
class Shot:
    """Everything random about one photo except the sheet itself."""

    size: tuple[int, int]  # (w, h) as displayed
    exif: int
    homography: np.ndarray  # cells -> displayed image pixels
    curl: Curl
    softness: float  # render scale relative to the image scale (<1 blurs)
    defocus: float  # Gaussian sigma, px at 4032 wide
    motion: float  # motion blur length, px at 4032 wide
    light: dict
    noise: float
    jpeg: int
    table: str
    sheet_shadow: float
    pencils: int = 0
    sharpen: float = 0.0  # unsharp-mask amount of the phone's processing


def rng_for(seed: int, difficulty: str, purpose: str) -> np.random.Generator:
    """The generator for one seed: difficulty and purpose keep the streams apart."""
    tags = {"photo": 1, "view": 2, "cells": 3}
    return np.random.default_rng([int(seed), DIFFICULTIES.index(difficulty), tags[purpose]])


ALIASES = {"easy": "clean"}


def check_difficulty(difficulty: str) -> str:
    """The difficulty name, with ``easy`` accepted for ``clean``."""
    difficulty = ALIASES.get(difficulty, difficulty)
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")
    return difficulty


def random_shot(rng: np.random.Generator, difficulty: str) -> Shot:
    """Camera, light and file settings for a photo of ``difficulty``."""
    if difficulty == "clean":
        w, h = SCAN_SIZES[int(rng.integers(len(SCAN_SIZES)))]
        return Shot(
            size=(w, h),
            exif=1,
            homography=_camera(
                rng, (w, h), tilt=0.0, rot=rng.normal(0, 0.8), fill=(0.86, 0.97), upright=True
            ),
            curl=Curl(),
            softness=rng.uniform(0.8, 1.0),
            defocus=0.0,
            motion=0.0,
            light=dict(
                warmth=rng.normal(0, 0.1),
                exposure=rng.uniform(0.98, 1.06),
                gradient=0.02,
                vignette=0.0,
                shadows=0,
                shadow_strength=0.0,
                glare=0.0,
            ),
            noise=rng.uniform(0.5, 2.0),
            jpeg=int(rng.integers(85, 96)),
            table="paper-white",
            sheet_shadow=0.15,
        )
    hard = difficulty == "hard"
    w, h = PHONE_SIZES[int(rng.integers(len(PHONE_SIZES)))]
    if hard:
        rot = rng.uniform(0, 360)
        tilt = rng.uniform(10, 35)
        fill = (0.3, 0.95)
        portrait = rng.random() < 0.6
    else:
        # Mostly upright, sometimes turned; people turn the phone to match the sheet.
        base = float(rng.choice([0, 0, 0, 0, 0, 0, 90, 180, 270, 270]))
        rot = base + rng.normal(0, 7)
        tilt = rng.uniform(0, 22)
        fill = (0.62, 0.95)
        portrait = (base in (0, 180)) == (rng.random() < 0.85)
    if portrait:
        w, h = h, w
    # Phones store portrait shots landscape with orientation 6 (or 8); some files are plain.
    if portrait:
        exif = int(rng.choice([6, 6, 6, 8, 1]))
    else:
        exif = int(rng.choice([1, 1, 1, 3]))
    scale = 1.6 if hard else 1.0
    return Shot(
        size=(w, h),
        exif=exif,
        homography=_camera(rng, (w, h), tilt=tilt, rot=rot, fill=fill),
        curl=random_curl(rng, rng.uniform(0.1, 0.45) if hard else rng.uniform(0.0, 0.2)),
        softness=rng.uniform(0.45, 0.9) if hard else rng.uniform(0.6, 1.0),
        defocus=rng.uniform(0, 4.0) if hard else rng.uniform(0, 1.5),
        motion=(rng.uniform(3, 12) if rng.random() < 0.3 else 0.0) if hard else 0.0,
        light=dict(
            warmth=rng.uniform(-0.6, 1.0) * scale,
            tint=0.05 if hard else 0.025,
            exposure=rng.uniform(0.6, 1.1) if hard else rng.uniform(0.85, 1.1),
            gradient=rng.uniform(0, 0.5 if hard else 0.25),
            vignette=rng.uniform(0, 0.5 if hard else 0.25),
            shadows=int(rng.integers(0, 3 if hard else 2)) if rng.random() < 0.7 else 0,
            shadow_strength=rng.uniform(0.2, 0.6 if hard else 0.4),
            glare=(rng.uniform(0.2, 0.7 if hard else 0.4))
            if rng.random() < (0.45 if hard else 0.2)
            else 0.0,
        ),
        noise=rng.uniform(3, 9) if hard else rng.uniform(1.5, 4.5),
        jpeg=int(rng.integers(55, 81)) if hard else int(rng.integers(70, 93)),
        table=str(rng.choice(scene.TABLES[:-1])),
        sheet_shadow=rng.uniform(0.1, 0.4),
        pencils=int(rng.choice([0, 0, 1, 2])) if hard else int(rng.choice([0, 0, 0, 1])),
        sharpen=rng.uniform(0.3, 0.9) if rng.random() < 0.7 else 0.0,
    )


def _camera(rng, size, tilt: float, rot: float, fill, upright: bool = False) -> np.ndarray:
    """Homography cells -> image for a sheet turned ``rot`` degrees and tilted ``tilt`` degrees."""
    w, h = size
    p = g.page_box()
    corners = np.array([(p.x0, p.y0), (p.x1, p.y0), (p.x1, p.y1), (p.x0, p.y1)], np.float64)
    c = np.array(p.center)
    a = np.deg2rad(rot)
    rz = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    axis_angle = rng.uniform(0, 2 * np.pi)
    axis = np.array([np.cos(axis_angle), np.sin(axis_angle), 0.0])
    rt, _ = cv2.Rodrigues(axis * np.deg2rad(tilt))
    pts3 = np.hstack([corners - c, np.zeros((4, 1))]) @ (rt @ rz).T
    dist = np.hypot(p.x1 - p.x0, p.y1 - p.y0) * rng.uniform(1.2, 2.2)
    proj = pts3[:, :2] / (dist + pts3[:, 2:3]) * dist
    lo, hi = proj.min(axis=0), proj.max(axis=0)
    span = hi - lo
    f = rng.uniform(*fill)
    s = f * min(w / span[0], h / span[1])
    free = np.array([w, h]) - span * s
    off = rng.uniform(0.15, 0.85, 2) * free if not upright else free / 2
    dst = (proj - lo) * s + off
    return cv2.getPerspectiveTransform(corners.astype(np.float32), dst.astype(np.float32))


def render_photo(
    seed: int, difficulty: str, neighbour_monsters: float = 0.0
) -> tuple[np.ndarray, dict, Shot]:
    """The photo before JPEG compression, its truth, and the shot settings
    (``neighbour_monsters``: :func:`models.synth.sheet.render_sheet`'s)."""
    difficulty = check_difficulty(difficulty)
    rng = rng_for(seed, difficulty, "photo")
    shot = random_shot(rng, difficulty)
    ppc = float(np.clip(sheet_scale(shot) * shot.softness, 16, MAX_RENDER_PPC))
    sheet = render_sheet(rng, ppc, neighbour_monsters=neighbour_monsters)
    img = photograph(sheet.bgr, sheet.alpha, sheet.canvas, shot, rng, difficulty)
    truth = ground_truth(seed, difficulty, sheet, shot)
    return img, truth, shot


def sheet_scale(shot: Shot) -> float:
    """Image pixels per cell where ``shot`` puts the page (its largest local scale)."""
    p = g.page_box()
    return local_scale(
        shot.homography, shot.curl, [(p.x0, p.y0), (p.x1, p.y0), (p.x1, p.y1), (p.x0, p.y1)]
    )


def photograph(
    bgr: np.ndarray,
    alpha: np.ndarray,
    canvas: Canvas,
    shot: Shot,
    rng: np.random.Generator,
    difficulty: str,
) -> np.ndarray:
    """A flat sheet (``bgr`` and ``alpha`` on ``canvas``) photographed as ``shot`` says:
    placed on a table, bent, blurred, lit, noisy and sharpened (before JPEG)."""
    w, h = shot.size
    bg = scene.table(rng, (w, h), shot.table)
    img, alpha = warp_sheet(bgr, alpha, canvas, shot.homography, shot.curl, bg)
    if shot.pencils:
        n = g.GRID_CELLS
        grid = project(shot.homography, shot.curl, [(0, 0), (n, 0), (n, n), (0, n)])
        scene.draw_pencils(img, rng, grid, sheet_scale(shot), shot.pencils)
    px = w / 4032
    if shot.defocus * px > 0.3:
        blurred = cv2.GaussianBlur(img, (0, 0), shot.defocus * px)
        # Tilted shots: only part of the sheet is in focus (a ramp across the frame).
        img = scene.focus_ramp(img, blurred, rng) if difficulty == "hard" else blurred
    if shot.motion * px > 1.5:
        img = scene.motion_blur(img, rng, shot.motion * px)
    gain, glare = scene.light_field(rng, (w, h), shot.light)
    gain *= _curl_shading(shot, gain.shape[:2], rng.uniform(-0.25, 0.12))[..., None]
    gain = scene.detail_gain(gain, alpha, rng, shot.sheet_shadow, shot.noise)
    img = scene.apply_light(img, gain, glare)
    img = scene.sensor_noise(img, rng, shot.noise)
    if shot.sharpen > 0:  # the phone's own sharpening, noise included
        img = scene.sharpen(img, shot.sharpen, max(0.8, 1.6 * px))
    return img


def _curl_shading(shot: Shot, shape: tuple[int, int], strength: float) -> np.ndarray:
    """Brightness factor on a coarse grid: the bent part of the paper faces the light
    differently (darker or lighter in proportion to how far it is displaced)."""
    ch, cw = shape
    amount = max(shot.curl.amp + shot.curl.wave, 1e-6)
    if shot.curl.amp == 0 and shot.curl.wave == 0:
        return np.ones(shape, np.float32)
    w, h = shot.size
    xs = (np.arange(cw) + 0.5) * w / cw - 0.5
    ys = (np.arange(ch) + 0.5) * h / ch - 0.5
    gx, gy = np.meshgrid(xs, ys)
    q = np.stack([gx, gy], -1).reshape(1, -1, 2)
    p = cv2.perspectiveTransform(q, np.linalg.inv(shot.homography))[0]
    bend = np.linalg.norm(shot.curl(p), axis=1) / amount
    pg = g.page_box()
    bend *= (p[:, 0] > pg.x0) & (p[:, 0] < pg.x1) & (p[:, 1] > pg.y0) & (p[:, 1] < pg.y1)
    return (1 + strength * np.clip(bend, 0, 1.5)).reshape(shape).astype(np.float32)


def ground_truth(seed: int, difficulty: str, sheet: FlatSheet, shot: Shot) -> dict:
    """The truth dict (see models/synth/__init__.py) for a sheet placed by ``shot``."""
    game = sheet.game
    n = g.GRID_CELLS
    corners = project(shot.homography, shot.curl, [(0, 0), (n, 0), (n, n), (0, n)])
    yy, xx = np.mgrid[0 : n + 1, 0 : n + 1]
    lattice = project(shot.homography, shot.curl, np.stack([xx, yy], -1).astype(np.float64))
    return {
        "seed": int(seed),
        "difficulty": difficulty,
        "style": sheet.style.name,
        "monster_style": (sheet.monster_style or sheet.style).name,
        "monsters_by": "owner" if sheet.monster_style is None else "neighbour",
        "side": game.side,
        "grid": list(game.grid),
        "season_grids": [list(s) for s in game.season_grids],
        "coins": int(game.coins),
        "season_coins": [int(c) for c in game.season_coins],
        "cards": dict(game.cards),
        "written": sheet.written,
        "grid_corners": np.round(corners, 2).tolist(),
        "lattice": np.round(lattice, 2).tolist(),
        "exif_orientation": int(shot.exif),
        "image_size": [int(shot.size[0]), int(shot.size[1])],
    }


def make_photo(
    seed: int, difficulty: str = "normal", neighbour_monsters: float = 0.0
) -> tuple[np.ndarray, dict]:
    """A BGR uint8 photo as the phone shows it (EXIF already applied) and its truth dict.

    ``neighbour_monsters``: the chance that a neighbour drew the monsters
    (:func:`models.synth.sheet.render_sheet`; 0 by default)."""
    img, truth, shot = render_photo(seed, difficulty, neighbour_monsters)
    out, _ = scene.jpeg_roundtrip(img, shot.jpeg)
    return out, truth


# EXIF orientation -> how to turn the displayed picture into the stored pixels.
_STORE = {
    1: None,
    3: cv2.ROTATE_180,
    6: cv2.ROTATE_90_COUNTERCLOCKWISE,  # viewer turns it 90 degrees clockwise
    8: cv2.ROTATE_90_CLOCKWISE,
}


def exif_jpeg(img: np.ndarray, quality: int, orientation: int) -> bytes:
    """JPEG bytes of the displayed picture ``img``, stored as a phone would for ``orientation``."""
    if orientation not in _STORE:
        raise ValueError(f"unsupported EXIF orientation {orientation}")
    code = _STORE[orientation]
    stored = img if code is None else cv2.rotate(img, code)
    ok, buf = cv2.imencode(".jpg", stored, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    data = buf.tobytes()
    if orientation == 1:
        return data
    exif = Image.Exif()
    exif[0x0112] = orientation
    payload = exif.tobytes()  # starts with b"Exif\0\0"
    app1 = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return data[:2] + app1 + data[2:]


def write_sample(
    path: str | Path,
    seed: int,
    difficulty: str = "normal",
    *,
    quality: int | None = None,
    neighbour_monsters: float = 0.0,
) -> dict:
    """Write ``path`` (a .jpg) and ``path`` with suffix .json; returns the truth.

    ``quality`` overrides the JPEG quality the seed would pick (e.g. small sample files);
    ``neighbour_monsters`` is :func:`make_photo`'s.
    """
    path = Path(path)
    img, truth, shot = render_photo(seed, difficulty, neighbour_monsters)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(exif_jpeg(img, quality or shot.jpeg, shot.exif))
    path.with_suffix(".json").write_text(json.dumps(truth, separators=(",", ":")) + "\n")
    return truth
