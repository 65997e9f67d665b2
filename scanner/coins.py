"""Count the marked coins on the coin track of the canonical view.

Players mark coins left to right with a cross, a tick or a scribble. The
printed coins are identical, so each coin is compared with the unmarked ones
at the right end of the track (a game rarely earns more than 11 coins):

1. every coin is located near its printed place (a bright disc in a dark ring),
   and a straight row is fitted through the 14 positions;
2. the light at each coin is measured on the band just above and below it and
   divided out, so shadows and glare do not read as marks;
3. a coin's *mark* is how much darker than the reference coin its disc is;
4. the count is the split (marked on the left, unmarked on the right) that best
   explains the marks; the confidence says how clean that split is.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner import geometry as g

MIN_CONTRAST = 0.02  # marked and unmarked groups must differ at least this much
_REFERENCE = slice(11, 14)  # coins taken as unmarked for the reference
_SEARCH = 0.16  # cells: how far a coin may sit from its printed place


@dataclass(frozen=True)
class CoinReading:
    """Marked coins (0..14), confidence 0..1, each coin's mark and centre (view pixels)."""

    count: int
    confidence: float
    marks: tuple[float, ...]
    centres: tuple[tuple[float, float], ...]


def read_coin_track(view: np.ndarray) -> CoinReading:
    """Read the coin track of an upright canonical view (``scanner.geometry`` layout)."""
    grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    radius = g.COIN_RADIUS * g.CANON_PX_PER_CELL
    centres = locate_coins(grey, radius)
    marks = coin_marks(view, centres)
    count, confidence = split_marks(marks)
    return CoinReading(
        count,
        confidence,
        tuple(round(float(m), 4) for m in marks),
        tuple((float(x), float(y)) for x, y in centres),
    )


def coin_marks(view: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """How much darker than the reference coins each coin's disc is (light divided out)."""
    radius = g.COIN_RADIUS * g.CANON_PX_PER_CELL
    grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    level = _track_light(grey, centres)[:, None, None]
    half = int(np.ceil(1.3 * radius))
    patches = _patches(cv2.GaussianBlur(grey, (0, 0), 1.0), centres, half) / level
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1]
    disc = np.hypot(yy, xx) <= 1.1 * radius
    reference = np.median(patches[_REFERENCE], axis=0)
    return np.array([np.mean(np.clip(reference - p, 0, None)[disc]) for p in patches])


def locate_coins(grey: np.ndarray, radius: float) -> np.ndarray:
    """(14, 2) coin centres in view pixels: ring-filter peaks near the printed places,
    then a level row through the clearest of them (marked coins hide their ring)."""
    r = int(np.ceil(1.3 * radius))
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    rr = np.hypot(yy, xx)
    inner = (rr <= 0.6 * radius).astype(np.float32)
    ring = ((rr >= 0.8 * radius) & (rr <= 1.15 * radius)).astype(np.float32)
    kernel = inner / inner.sum() - ring / ring.sum()
    x0, y0 = g.to_canonical_px(g.COIN_FIRST_X - 0.6, g.COIN_Y - 0.6)
    x1, y1 = g.to_canonical_px(g.COIN_FIRST_X + 13.6 * g.COIN_SPACING, g.COIN_Y + 0.6)
    x0, y0 = max(0, int(x0)), max(0, int(y0))
    band = grey[y0 : int(y1), x0 : int(x1)]
    response = cv2.filter2D(band, -1, kernel)
    w = int(round(_SEARCH * g.CANON_PX_PER_CELL))
    found, strength = [], []
    for i in range(g.COIN_COUNT):
        cx, cy = g.to_canonical_px(*g.coin_center(i))
        cx, cy = int(round(cx)) - x0, int(round(cy)) - y0
        window = response[max(0, cy - w) : cy + w + 1, max(0, cx - w) : cx + w + 1]
        if window.size == 0:
            found.append((cx + x0, cy + y0))
            strength.append(0.0)
            continue
        j, k = np.unravel_index(int(np.argmax(window)), window.shape)
        found.append((max(0, cx - w) + k + x0, max(0, cy - w) + j + y0))
        strength.append(float(window[j, k]))
    pts = np.array(found, np.float64)
    strength = np.array(strength)
    # Trust the clearest rings (unmarked coins); marked ones can peak anywhere.
    clear = strength >= 0.5 * strength.max() if strength.max() > 0 else np.ones(14, bool)
    index = np.arange(g.COIN_COUNT)
    nominal = np.array([g.to_canonical_px(*g.coin_center(i)) for i in index])
    # The view is rectified: the row is level; its start and pitch may vary by print.
    y = float(np.median(pts[clear, 1]))
    if clear.sum() >= 4:
        fx = np.polyfit(index[clear], pts[clear, 0], 1)
        pitch = nominal[1, 0] - nominal[0, 0]
        if abs(fx[0] / pitch - 1) > 0.06:  # implausible pitch: keep the printed one
            fx = np.array([pitch, float(np.median(pts[clear, 0] - pitch * index[clear]))])
    else:
        fx = np.array(
            [
                nominal[1, 0] - nominal[0, 0],
                float(np.median(pts[clear, 0] - nominal[clear, 0]) + nominal[0, 0]),
            ]
        )
    return np.stack([np.polyval(fx, index), np.full(g.COIN_COUNT, y)], -1)


def _track_light(grey: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Light level at each coin: the band just above and below it, smoothed along the track."""
    px = g.CANON_PX_PER_CELL
    h, w = grey.shape
    gap = int(round(0.25 * px))  # between the coin's edge (0.2) and the band's (0.3)
    half_w = int(round(0.2 * px))
    levels = []
    for x, y in centres:
        x, y = int(round(x)), int(round(y))
        strips = [
            grey[max(0, y + d - 1) : min(h, y + d + 2), max(0, x - half_w) : min(w, x + half_w)]
            for d in (-gap, gap)
        ]
        values = np.concatenate([s.ravel() for s in strips])
        levels.append(float(np.median(values)) if values.size else 1.0)
    # A running median of three follows shadow edges and ignores one stroke-covered strip.
    levels = np.array(levels)
    padded = np.concatenate([levels[:1], levels, levels[-1:]])
    smooth = np.median(np.stack([padded[:-2], padded[1:-1], padded[2:]]), axis=0)
    return np.maximum(smooth, 1.0)


def _patches(image: np.ndarray, centres: np.ndarray, half: int) -> np.ndarray:
    size = 2 * half + 1
    out = np.empty((len(centres), size, size), np.float32)
    for i, (x, y) in enumerate(centres):
        m = np.float32([[1, 0, x - half], [0, 1, y - half]])
        out[i] = cv2.warpAffine(
            image,
            m,
            (size, size),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
    return out


def split_marks(marks: np.ndarray, min_contrast: float = MIN_CONTRAST) -> tuple[int, float]:
    """Best count n (coins [0, n) marked, [n, 14) not) and a confidence in 0..1.

    The count is where the marks drop most between the (up to) three coins
    before and the three after: a local step, so a slow drift of the marks
    along the track (light, print) does not move it.

    >>> split_marks(np.array([0.2, 0.2, 0.19] + [0.0] * 11))[0]
    3
    >>> split_marks(np.zeros(14))[0]
    0
    """
    marks = np.asarray(marks, np.float64)
    steps = np.array(
        [marks[max(0, n - 3) : n].mean() - marks[n : n + 3].mean() for n in range(1, len(marks))]
    )
    n = int(np.argmax(steps)) + 1
    step = float(steps[n - 1])
    if step < min_contrast:
        # Nothing marked: sure when every coin looks like the reference.
        return 0, float(np.clip(1.0 - marks.max() / (2 * min_contrast), 0.0, 1.0))
    # How cleanly the two groups separate: the gap between them over the step.
    gap = marks[:n].min() - marks[n:].max()
    return n, float(np.clip(0.5 + gap / step, 0.0, 1.0))
