"""Screenshots of scans, made from an already rendered clean scan (benchmarks and tests).

SHEET.md lists "screenshots of scans (clean, upright)" among the pictures users
send: a scan opened on a phone or a computer and captured with the screen around
it. :func:`screenshot` puts a rendered scan on such a screen, decided by the seed:

- ``phone``: a 1170 x 2532 portrait screen, dark or light, a status bar above and a
  toolbar below, the scan fitted to the width or zoomed in until the paper's edges
  leave the screen (the grid stays on it);
- ``desktop``: a 1920 x 1080 window, a title bar, the scan fitted to the height on a
  grey viewer background (about 40 pixels a cell);
- ``chat``: the phone screenshot as a chat app forwards it, shrunk to 60-80 % and saved
  as a JPEG of quality 60-80.

The truth lattice moves with the scan (pixel centres as OpenCV places them).
``models.synth`` is not touched.
"""

from __future__ import annotations

import cv2
import numpy as np

KINDS = ("phone", "desktop", "chat")
CHOICES = (*KINDS, "mixed")
PHONE = (1170, 2532)  # width, height
DESKTOP = (1920, 1080)


def pick(kind: str, seed: int) -> str:
    """The kind drawn for ``seed`` (``mixed`` takes turns by seed)."""
    if kind == "mixed":
        return KINDS[seed % len(KINDS)]
    if kind not in KINDS:
        raise ValueError(f"screenshot kind must be one of {CHOICES}, not {kind!r}")
    return kind


def _text(img: np.ndarray, x: int, y: int, text: str, colour, scale: float) -> None:
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 2, cv2.LINE_AA)


def _place(canvas: np.ndarray, scan: np.ndarray, scale: float, x0: float, y0: float) -> np.ndarray:
    """``scan`` shrunk or grown by ``scale`` with its top-left pixel corner at (x0, y0) of
    the canvas (parts off the canvas are cut); returns the scan-to-canvas transform."""
    to_canvas = np.array([[scale, 0, x0 + (scale - 1) / 2], [0, scale, y0 + (scale - 1) / 2]])
    h, w = canvas.shape[:2]
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    warped = cv2.warpAffine(scan, to_canvas, (w, h), flags=interp, borderValue=(0, 0, 0))
    inside = cv2.warpAffine(
        np.full(scan.shape[:2], 255, np.uint8), to_canvas, (w, h), flags=cv2.INTER_NEAREST
    )
    canvas[inside > 0] = warped[inside > 0]
    return to_canvas


def screenshot(
    scan: np.ndarray, lattice: list, kind: str, seed: int
) -> tuple[np.ndarray, list, str, int | None]:
    """``(image, lattice, kind, jpeg_quality)``: the scan on a screen of ``kind``
    (:data:`CHOICES`), its truth lattice moved with it, the kind drawn and the JPEG
    quality to save it with (None: a PNG, as phones save screenshots)."""
    kind = pick(kind, seed)
    rng = np.random.default_rng([seed, 7919])
    h, w = scan.shape[:2]
    if kind == "desktop":
        width, height = DESKTOP
        canvas = np.full((height, width, 3), int(rng.integers(40, 90)), np.uint8)
        cv2.rectangle(canvas, (0, 0), (width, 40), (225, 225, 225), -1)
        _text(canvas, 20, 28, "scan_0042.png - Image Viewer", (20, 20, 20), 0.8)
        scale = (height - 60) / h
        x0 = (width - w * scale) / 2 + rng.uniform(-200, 200)
        to_canvas = _place(canvas, scan, scale, x0, 50)
        quality = None
    else:
        width, height = PHONE
        dark = bool(rng.integers(2))
        canvas = np.full((height, width, 3), 0 if dark else 255, np.uint8)
        zoom = 1.0 if rng.random() < 0.5 else rng.uniform(1.1, 1.3)
        scale = zoom * width / w
        x0 = (width - w * scale) / 2 + rng.uniform(-0.04, 0.04) * width * (zoom - 1)
        y0 = (height - h * scale) / 2 + rng.uniform(-80, 80)
        to_canvas = _place(canvas, scan, scale, x0, y0)
        ink = (235, 235, 235) if dark else (20, 20, 20)
        bar = (28, 28, 30) if dark else (242, 242, 246)
        _text(canvas, 60, 80, "9:41", ink, 1.3)
        _text(canvas, width - 260, 80, "5G  87%", ink, 1.1)
        cv2.rectangle(canvas, (0, height - 190), (width, height), bar, -1)
        _text(canvas, 60, height - 90, "<    Share    Edit    Delete", ink, 1.3)
        quality = None
        if kind == "chat":
            shrink = rng.uniform(0.6, 0.8)
            size = (round(width * shrink), round(height * shrink))
            canvas = cv2.resize(canvas, size, interpolation=cv2.INTER_AREA)
            sx, sy = size[0] / width, size[1] / height
            to_canvas = np.array([[sx, 0, (sx - 1) / 2], [0, sy, (sy - 1) / 2]]) @ np.vstack(
                [to_canvas, [0, 0, 1]]
            )
            quality = int(rng.integers(60, 81))
    points = np.asarray(lattice, float)
    moved = points @ to_canvas[:, :2].T + to_canvas[:, 2]
    return canvas, moved.tolist(), kind, quality
