"""A raster in sheet cell units, and the small drawing helpers every layer uses.

Cell units follow ``scanner.geometry``: origin at the grid's outer top-left
corner, x right, y down. A :class:`Canvas` maps them to pixels with one scale
(``ppc``, pixels per cell) and an offset; drawing goes through OpenCV with
sub-pixel precision (``shift``) so thin strokes stay smooth at any scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

SHIFT = 4  # OpenCV fixed-point bits for sub-pixel drawing
_ONE = 1 << SHIFT


@dataclass(frozen=True)
class Canvas:
    """Pixel frame for drawing: pixel ``(0, 0)``'s top-left corner is cell point ``origin``.

    Pixel centres sit at half-integers, so cell point ``(x, y)`` is pixel
    ``((x - ox) * ppc, (y - oy) * ppc)`` in continuous coordinates where pixel
    ``(i, j)`` covers ``[i, i + 1) x [j, j + 1)``.
    """

    ppc: float
    origin: tuple[float, float]
    width: int
    height: int

    @classmethod
    def covering(cls, x0: float, y0: float, x1: float, y1: float, ppc: float) -> Canvas:
        """A canvas showing the cell-unit box ``[x0, x1] x [y0, y1]``."""
        return cls(ppc, (x0, y0), int(np.ceil((x1 - x0) * ppc)), int(np.ceil((y1 - y0) * ppc)))

    def px(self, pts) -> np.ndarray:
        """Cell points (..., 2) -> continuous pixel coordinates (float64)."""
        p = np.asarray(pts, dtype=np.float64)
        return (p - np.asarray(self.origin)) * self.ppc

    def ipx(self, pts) -> np.ndarray:
        """Cell points -> fixed-point int32 pixel coordinates for OpenCV drawing.

        OpenCV's integer coordinate ``k`` is the centre of pixel ``k``, hence the half-pixel shift.
        """
        return np.round((self.px(pts) - 0.5) * _ONE).astype(np.int32)

    def w(self, cells: float) -> int:
        """A line width in cells -> OpenCV thickness (at least 1 px)."""
        return max(1, int(round(cells * self.ppc)))

    def blank(self, channels: int = 3, value: int = 0) -> np.ndarray:
        shape = (self.height, self.width) if channels == 1 else (self.height, self.width, channels)
        return np.full(shape, value, np.uint8)

    # ---- drawing (all coordinates in cells) ------------------------------------------
    def polyline(self, img, pts, color, width: float, closed: bool = False) -> None:
        cv2.polylines(img, [self.ipx(pts)], closed, color, self.w(width), cv2.LINE_AA, shift=SHIFT)

    def polylines(self, img, lines, color, width: float, closed: bool = False) -> None:
        if len(lines):
            cv2.polylines(
                img,
                [self.ipx(p) for p in lines],
                closed,
                color,
                self.w(width),
                cv2.LINE_AA,
                shift=SHIFT,
            )

    def fill(self, img, pts, color) -> None:
        cv2.fillPoly(img, [self.ipx(pts)], color, cv2.LINE_AA, shift=SHIFT)

    def circle(self, img, center, radius: float, color, width: float | None = None) -> None:
        c = self.ipx(center)
        r = int(round(radius * self.ppc * _ONE))
        thickness = -1 if width is None else self.w(width)
        cv2.circle(img, (int(c[0]), int(c[1])), r, color, thickness, cv2.LINE_AA, shift=SHIFT)

    def rect(self, img, x0, y0, x1, y1, color, width: float | None = None) -> None:
        pts = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        if width is None:
            self.fill(img, pts, color)
        else:
            self.polyline(img, pts, color, width, closed=True)

    def text(self, img, text: str, xy, height: float, color, font=None, weight=0.06) -> None:
        """Hershey text with its baseline-left at ``xy`` and cap height ``height`` cells."""
        font = cv2.FONT_HERSHEY_TRIPLEX if font is None else font
        scale = height * self.ppc / 22.0  # Hershey caps are ~22 px tall at scale 1
        thick = max(1, int(round(weight * height * self.ppc)))
        x, y = self.px(xy)
        cv2.putText(img, text, (int(x), int(y)), font, scale, color, thick, cv2.LINE_AA)

    def text_centered(self, img, text, center, height, color, font=None, weight=0.06) -> None:
        font = cv2.FONT_HERSHEY_TRIPLEX if font is None else font
        scale = height * self.ppc / 22.0
        thick = max(1, int(round(weight * height * self.ppc)))
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
        x, y = self.px(center)
        cv2.putText(
            img, text, (int(x - tw / 2), int(y + th / 2)), font, scale, color, thick, cv2.LINE_AA
        )


def smooth_noise(rng: np.random.Generator, shape, cells: int, octaves: int = 1) -> np.ndarray:
    """Smooth random field in [-1, 1]-ish, float32, of ``shape`` (h, w).

    ``cells`` is the number of random control values across the longer side;
    each further octave doubles it at half the amplitude.
    """
    h, w = shape[:2]
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for _ in range(octaves):
        gw = max(2, int(cells * w / max(h, w)) + 2)
        gh = max(2, int(cells * h / max(h, w)) + 2)
        g = rng.standard_normal((gh, gw)).astype(np.float32)
        out += amp * cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
        cells *= 2
    return out / total


def wobble(rng: np.random.Generator, pts, amount: float, smooth: bool = True) -> np.ndarray:
    """Hand jitter: displace polyline points by about ``amount`` cells, smoothly along the line."""
    p = np.asarray(pts, dtype=np.float64)
    n = len(p)
    if n == 0 or amount <= 0:
        return p
    d = rng.normal(0, amount, (n, 2))
    if smooth and n > 3:
        k = np.array([0.25, 0.5, 0.25])
        d[:, 0] = np.convolve(np.pad(d[:, 0], 1, mode="edge"), k, mode="valid")
        d[:, 1] = np.convolve(np.pad(d[:, 1], 1, mode="edge"), k, mode="valid")
    return p + d


def densify(pts, step: float) -> np.ndarray:
    """Insert points so consecutive points are at most ``step`` apart (for wobbly lines)."""
    p = np.asarray(pts, dtype=np.float64)
    out = [p[0]]
    for a, b in zip(p[:-1], p[1:], strict=True):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / step)))
        t = np.linspace(0, 1, n + 1)[1:, None]
        out.extend(a + (b - a) * t)
    return np.array(out)
