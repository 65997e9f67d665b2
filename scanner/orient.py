"""Which side of the sheet (A or B) and which way up.

Four printed cues, asymmetric enough together:

* the five dark mountain cells (side A's are symmetric under a half turn,
  side B's are not, and the two sides share none);
* the coin track, a row of 14 coins spaced 0.713 cells, found only below the
  grid of an upright sheet, on side A a gold band -- with the labels this
  settles side A's half-turn ambiguity;
* the row letters left of the grid and column numbers below it, one per cell;
* the colour of the dashed interior lines (orange on A, grey on B).

Each of the 8 hypotheses (side x quarter turn) gets a score; the best wins and
the margins to the runners-up give the confidences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from scanner import geometry as g
from scanner.detect import Pyramid, cell_size_px, ink_image
from scanner.mountains import dark_cell_share, mountain_contrast, paper_level
from scoring.layouts import LAYOUTS

N = g.GRID_CELLS
_PX = 16  # feature canvas resolution, px per cell
_MARGIN = 4.0  # cells around the grid on every side (holds the coin track when turned)


@dataclass(frozen=True)
class Orientation:
    """The decision: ``side``, and ``quarter_turns`` to apply to cell units (see rectify)."""

    side: str
    quarter_turns: int
    side_confidence: float
    orientation_confidence: float
    scores: dict = field(default_factory=dict)


def feature_canvas(image: np.ndarray, homography: np.ndarray, pyramid: Pyramid | None = None):
    """BGR view of the grid and 4 cells around it at 16 px per cell, in the fit's own frame."""
    size = int(round((N + 2 * _MARGIN) * _PX))
    if pyramid is None:
        pyramid = Pyramid(image)
    return pyramid.warp(homography, _PX, -_MARGIN, size, cell_size_px(homography))


def mountain_map(canvas: np.ndarray) -> np.ndarray:
    """11 x 11 share of each cell's middle that is dark (mountains are nearly all dark).

    ``canvas`` is a feature canvas, or its grey image as a 2-D array.
    """
    grey = canvas if canvas.ndim == 2 else cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
    m = int(_MARGIN * _PX)
    grid = grey[m : m + N * _PX, m : m + N * _PX]
    return dark_cell_share(grid, _PX, paper_level(grid))  # uint8: the fast paper level


def coin_track_score(canvas: np.ndarray) -> float:
    """How strongly a row of coins with the printed pitch shows below the grid (0..1).

    ``canvas`` is a feature canvas, or its grey image as a 2-D array.
    """
    grey = (canvas if canvas.ndim == 2 else cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)).astype(
        np.float32
    )
    y0 = int(round((g.COIN_Y - 0.12 + _MARGIN) * _PX))
    y1 = int(round((g.COIN_Y + 0.12 + _MARGIN) * _PX))
    first = g.COIN_FIRST_X - g.COIN_SPACING / 2
    last = g.COIN_FIRST_X + (g.COIN_COUNT - 0.5) * g.COIN_SPACING
    xs = np.arange(int((first + _MARGIN) * _PX), int((last + _MARGIN) * _PX))
    profile = grey[y0:y1, xs].mean(axis=0)
    profile = profile - profile.mean()
    x_cells = xs / _PX - _MARGIN
    wave = np.cos(2 * np.pi * (x_cells - g.COIN_FIRST_X) / g.COIN_SPACING)
    denom = np.linalg.norm(profile) * np.linalg.norm(wave)
    return 0.0 if denom == 0 else float(abs(profile @ wave) / denom)


def label_score(canvas: np.ndarray) -> float:
    """How strongly row letters (left) and column numbers (below) show, one per cell (0..1).

    ``canvas`` is a feature canvas, or its ink (channel minimum) as a 2-D array.
    """
    ink = ink_image(canvas).astype(np.float32)
    m = _MARGIN
    span = np.arange(int(m * _PX), int((m + N) * _PX))
    centre = span / _PX - m
    wave = np.cos(2 * np.pi * (centre - 0.5))
    x0 = int(round((g.ROW_LABEL_X - 0.22 + m) * _PX))
    x1 = int(round((g.ROW_LABEL_X + 0.22 + m) * _PX))
    y0 = int(round((g.COLUMN_LABEL_Y - 0.2 + m) * _PX))
    y1 = int(round((g.COLUMN_LABEL_Y + 0.2 + m) * _PX))
    scores = []
    for profile in (ink[span, x0:x1].mean(axis=1), ink[y0:y1, span].mean(axis=0)):
        profile = profile - profile.mean()
        denom = np.linalg.norm(profile) * np.linalg.norm(wave)
        # Labels are darker than the paper at cell centres: the sign matters.
        scores.append(0.0 if denom == 0 else float(max(0.0, -(profile @ wave) / denom)))
    return float(np.mean(scores))


def band_saturation(canvas: np.ndarray) -> float:
    """Mean colour saturation (0..255) where the coin band is below an upright grid.

    ``canvas`` is a BGR feature canvas (or a turned view of one): only the band's
    pixels are converted (HSV is per pixel, and the mean of uint8 values exact).
    """
    x0, y0, x1, y1 = ((v + _MARGIN) * _PX for v in g.COIN_BAND)
    band = np.ascontiguousarray(canvas[int(y0) : int(y1), int(x0) : int(x1)])
    return float(cv2.cvtColor(band, cv2.COLOR_BGR2HSV)[..., 1].mean())


def line_warmth(canvas: np.ndarray) -> float:
    """Red-minus-blue on the interior grid lines relative to the cells (orange lines: > 0)."""
    m = int(_MARGIN * _PX)
    grid = canvas[m : m + N * _PX, m : m + N * _PX].astype(np.float32)
    warm = grid[..., 2] - grid[..., 0]
    on_line = np.zeros((N * _PX,), bool)
    on_line[[k * _PX + d for k in range(1, N) for d in (-1, 0, 1)]] = True
    lines = np.concatenate([warm[:, on_line].ravel(), warm[on_line, :].ravel()])
    inner = warm.reshape(N, _PX, N, _PX)[:, 5:-5, :, 5:-5]
    return float(np.median(lines) - np.median(inner))


def decide_orientation(canvas: np.ndarray, side: str = "auto") -> Orientation:
    """Score the 8 (side, quarter turn) hypotheses on a :func:`feature_canvas`."""
    if side not in ("auto", "A", "B"):
        raise ValueError(f"side must be 'auto', 'A' or 'B', got {side!r}")
    grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)  # once, then turned
    mountains = mountain_map(grey)
    coins = [coin_track_score(np.rot90(grey, k)) for k in range(4)]
    ink = ink_image(canvas)
    labels = [label_score(np.rot90(ink, k)) for k in range(4)]
    warmth = line_warmth(canvas)
    band = [band_saturation(np.rot90(canvas, k)) for k in range(4)]
    scores: dict[tuple[str, int], float] = {}
    for name in ("A", "B"):
        if side != "auto" and name != side:
            continue
        expected = np.zeros((N, N), bool)
        for r, c in LAYOUTS[name].mountains:
            expected[r, c] = True
        colour = np.clip(warmth / 40.0, -1, 1) * (1 if name == "A" else -1)
        for k in range(4):
            upright = np.rot90(mountains, k)
            match = mountain_contrast(upright, expected)
            evidence = match + labels[k] + 0.3 * coins[k] + 0.15 * colour
            if name == "A":
                # Side A's gold coin band lies below the grid, plain paper above: a
                # turn that puts the paper where the band should be loses (only
                # loses, so this cue never favours side A over side B).
                evidence += float(np.clip((band[k] - band[(k + 2) % 4]) / 100.0, -0.4, 0.0))
            scores[(name, k)] = float(evidence)
    best = max(scores, key=scores.get)
    other_side = [v for (s, _), v in scores.items() if s != best[0]]
    other_turn = [v for (s, k), v in scores.items() if s == best[0] and k != best[1]]
    side_conf = 1.0 if not other_side else _confidence(scores[best] - max(other_side))
    turn_conf = _confidence(scores[best] - max(other_turn))
    return Orientation(
        side=best[0],
        quarter_turns=best[1],
        side_confidence=side_conf,
        orientation_confidence=turn_conf,
        scores={f"{s}{k * 90}": round(v, 3) for (s, k), v in scores.items()}
        | {
            "coins": [round(c, 3) for c in coins],
            "labels": [round(v, 3) for v in labels],
            "warmth": round(warmth, 1),
            "band": [round(v, 1) for v in band],
        },
    )


def _confidence(margin: float) -> float:
    return float(np.clip(margin / 0.3, 0.0, 1.0))


def sheet_rotation(homography_upright: np.ndarray) -> int:
    """Clockwise degrees (0/90/180/270) the upright sheet appears turned in the photo."""
    pts = np.float64([[[N / 2, N / 2 - 0.5]], [[N / 2, N / 2 + 0.5]]])
    a, b = cv2.perspectiveTransform(pts, homography_upright).reshape(2, 2)
    angle = np.degrees(np.arctan2(b[1] - a[1], b[0] - a[0]))  # clockwise, y down
    return int(round((angle - 90) / 90.0)) % 4 * 90
