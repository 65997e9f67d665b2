"""Count the marked coins on the coin track of the canonical view.

Players mark coins left to right with a cross, a tick or a scribble. Each
coin's disc is compared with the printed coin: marks add dark strokes, so the
share of dark pixels in the disc jumps on marked coins. The count is the
split point that best separates "marked" on the left from "unmarked" on the
right; the confidence says how clear the weakest decision was.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner import geometry as g

DARK_SHARE = 0.2  # share of dark pixels in a disc above which a coin reads as marked


@dataclass(frozen=True)
class CoinReading:
    """Marked coins (0..14), confidence 0..1, and each coin's dark share."""

    count: int
    confidence: float
    marks: tuple[float, ...]
    centres: tuple[tuple[float, float], ...]  # canonical view pixels, after local search


def read_coin_track(view: np.ndarray) -> CoinReading:
    """Read the coin track of an upright canonical view (``scanner.geometry`` layout)."""
    grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    px = g.CANON_PX_PER_CELL
    radius = g.COIN_RADIUS * px
    centres = [_locate(grey, *g.to_canonical_px(*g.coin_center(i)), radius) for i in range(14)]
    # The band's paper-free reference: the brightest quarter of the track region.
    x0, y0 = g.to_canonical_px(g.COIN_FIRST_X - 0.4, g.COIN_Y - 0.35)
    x1, y1 = g.to_canonical_px(g.COIN_FIRST_X + 13.4 * g.COIN_SPACING, g.COIN_Y + 0.35)
    band = grey[int(y0) : int(y1), int(x0) : int(x1)]
    bright = float(np.percentile(band, 80)) if band.size else 255.0
    marks = tuple(_dark_share(grey, cx, cy, radius, bright) for cx, cy in centres)
    count, confidence = _split(np.array(marks))
    return CoinReading(count, confidence, marks, tuple(centres))


def _locate(grey: np.ndarray, cx: float, cy: float, radius: float) -> tuple[float, float]:
    """The printed geometry, tolerated by a few pixels: keep the nominal centre."""
    return float(cx), float(cy)


def _dark_share(grey: np.ndarray, cx: float, cy: float, radius: float, bright: float) -> float:
    r = int(np.ceil(radius * 1.1))
    y, x = int(round(cy)), int(round(cx))
    patch = grey[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1]
    if patch.size == 0:
        return 0.0
    yy, xx = np.mgrid[: patch.shape[0], : patch.shape[1]]
    inside = (yy - (y - max(0, y - r))) ** 2 + (xx - (x - max(0, x - r))) ** 2 <= (
        radius * 1.1
    ) ** 2
    return float(np.mean(patch[inside] < 0.55 * bright))


def _split(marks: np.ndarray) -> tuple[int, float]:
    """Best count n: coins [0, n) marked, [n, 14) not; and how clear that is."""
    costs = []
    for n in range(len(marks) + 1):
        miss = np.clip(DARK_SHARE - marks[:n], 0, None).sum()
        extra = np.clip(marks[n:] - DARK_SHARE, 0, None).sum()
        costs.append(miss + extra)
    n = int(np.argmin(costs))
    distance = np.abs(marks - DARK_SHARE)
    confidence = float(np.clip(distance.min() / 0.1, 0, 1))
    return n, confidence
