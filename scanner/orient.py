"""Which side of the sheet (A or B) and which way up.

Printed cues, asymmetric enough together:

* the five dark mountain cells (side A's are symmetric under a half turn,
  side B's are not, and the two sides share none);
* the coin track, a row of 14 coins spaced 0.713 cells, found only below the
  grid of an upright sheet, in whichever channel parts the coins from their band
  (brightness, ink, hue) -- with the labels this settles side A's half-turn
  ambiguity;
* the row letters left of the grid and column numbers below it, one per cell;
* the print's colour, orange or gold on side A and grey on side B: the dashed
  interior lines (against paper-coloured cells only: coloured-in cells say
  nothing of it), the coin band (against the paper above the grid) and the
  compass rose (its ink against the paper around it).

Each of the 8 hypotheses (side x quarter turn) gets a score; the best wins and
the margins to the runners-up give the confidences. The 8 of the canvas flipped left
to right are scored too: a photo taken in a mirror (a front camera or a webcam that
mirrors) is read flipped back when they win clearly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from scanner import geometry as g
from scanner.detect import Pyramid, cell_size_px, ink_image
from scanner.median import fast_median
from scanner.mountains import dark_cell_share, paper_level
from scoring.layouts import LAYOUTS

N = g.GRID_CELLS
_PX = 16  # feature canvas resolution, px per cell
_MARGIN = 4.0  # cells around the grid on every side (holds the coin track when turned)
_PAPER_TOLERANCE = 0.12  # a cell is paper-coloured within this share of the paper level
# The colour cues count weight * clip((value - split) / scale, -1, 1), the splits between
# the sides' values on the tuning photos (seeds 300000-304099, hard and normal).
WARM_SPLIT, WARM_SCALE, WARM_WEIGHT = 4.0, 30.0, 0.15
GOLD_SPLIT, GOLD_SCALE, GOLD_WEIGHT = 0.2, 0.2, 0.15
COMPASS_SPLIT, COMPASS_SCALE, COMPASS_WEIGHT = 0.08, 0.08, 0.15
_COMPASS_BOX = (9.2, 10.95, -2.65, -0.95)  # x0, x1, y0, y1 cells: the compass rose
_END = 4  # pixels of a line piece left out at each end (the crossings)
#: A mirrored reading must beat the best plain one by this much. On 1200 spent photos
#: (220000+, 224000+; normal and hard) a plain photo's best plain reading beat its best
#: mirrored one by 0.007 at the least; flipped left to right, 299 of 300 normal photos
#: read mirrored by 0.31 or more (session 48).
MIRROR_MARGIN = 0.15


@dataclass(frozen=True)
class Orientation:
    """The decision: ``side``, and ``quarter_turns`` to apply to cell units (see rectify)."""

    side: str
    quarter_turns: int
    side_confidence: float
    orientation_confidence: float
    scores: dict = field(default_factory=dict)
    #: The sheet is seen in a mirror (a front camera, a webcam, a mirrored self-view):
    #: the turn is then that of the canvas flipped left to right.
    mirrored: bool = False


_ROTATIONS = (None, cv2.ROTATE_90_COUNTERCLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_CLOCKWISE)


def _turned_cut(image: np.ndarray, k: int, y0: int, y1: int, x0: int, x1: int) -> np.ndarray:
    """``np.rot90(image, k)[y0:y1, x0:x1]`` for k in 0..3 and a box inside the turned
    image: the same pixels cut from ``image`` first, then turned by ``cv2.rotate`` into a
    new array (numpy copies a turned view pixel by pixel, several times slower). For
    k = 0, the view itself."""
    h, w = image.shape[:2]
    if k == 0:
        return image[y0:y1, x0:x1]
    if k == 1:
        cut = image[x0:x1, w - y1 : w - y0]
    elif k == 2:
        cut = image[h - y1 : h - y0, w - x1 : w - x0]
    else:
        cut = image[h - x1 : h - x0, y0:y1]
    return cv2.rotate(cut, _ROTATIONS[k])


def feature_canvas(image: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """BGR view of the grid and 4 cells around it at 16 px per cell, in the fit's own frame
    (the colour photo halved only as far as that warp samples)."""
    size = int(round((N + 2 * _MARGIN) * _PX))
    cell_px = cell_size_px(homography)
    pyramid = Pyramid(image, only_for=(cell_px, _PX))
    return pyramid.warp(homography, _PX, -_MARGIN, size, cell_px)


def mountain_map(canvas: np.ndarray) -> np.ndarray:
    """11 x 11 share of each cell's middle that is dark (mountains are nearly all dark).

    ``canvas`` is a feature canvas, or its grey image as a 2-D array.
    """
    grey = canvas if canvas.ndim == 2 else cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
    m = int(_MARGIN * _PX)
    grid = grey[m : m + N * _PX, m : m + N * _PX]
    return dark_cell_share(grid, _PX, paper_level(grid))  # uint8: the fast paper level


def _coin_row() -> tuple[int, int, slice, np.ndarray]:
    """The coin row's pixel rows and columns on a feature canvas, and the printed pitch's
    cosine over those columns (unit length)."""
    y0 = int(round((g.COIN_Y - 0.12 + _MARGIN) * _PX))
    y1 = int(round((g.COIN_Y + 0.12 + _MARGIN) * _PX))
    first = g.COIN_FIRST_X - g.COIN_SPACING / 2
    last = g.COIN_FIRST_X + (g.COIN_COUNT - 0.5) * g.COIN_SPACING
    xs = np.arange(int((first + _MARGIN) * _PX), int((last + _MARGIN) * _PX))
    x_cells = xs / _PX - _MARGIN
    wave = np.cos(2 * np.pi * (x_cells - g.COIN_FIRST_X) / g.COIN_SPACING)
    return y0, y1, slice(xs[0], xs[-1] + 1), wave / np.linalg.norm(wave)


_COIN_ROW = _coin_row()


def coin_scores(canvas: np.ndarray) -> list[float]:
    """How strongly a row of coins with the printed pitch shows below the grid (0..1), for
    each turn (0-3 quarter turns) of a BGR feature canvas: the best of three channels,
    brightness, ink (channel minimum: yellow coins on a grey band) and hue (green minus
    red: yellow coins on an orange band).

    Only the coin row's pixels are converted, the four turns' rows at once (the
    conversions are per pixel, and the rows' means exact: sums of a few whole numbers).
    """
    y0, y1, xs, wave = _COIN_ROW
    rows = np.concatenate([_turned_cut(canvas, k, y0, y1, xs.start, xs.stop) for k in range(4)])
    channels = np.stack(
        [cv2.cvtColor(rows, cv2.COLOR_BGR2GRAY), ink_image(rows), rows[..., 1]], axis=-1
    ).astype(np.float32)
    channels[..., 2] -= rows[..., 2]
    profiles = channels.reshape(4, y1 - y0, *channels.shape[1:]).mean(axis=1)
    out = []
    for profile in profiles:
        profile = profile - profile.mean(axis=0)
        denom = np.linalg.norm(profile, axis=0)
        score = np.abs(wave @ profile) / np.where(denom == 0, np.inf, denom)
        out.append(float(score.max()))
    return out


def _label_bands() -> tuple[slice, slice, slice, np.ndarray, np.float64]:
    """Where the labels are on a feature canvas: the grid's span of pixels, the row
    letters' columns and the column numbers' rows; a wave peaking at the cells' centres
    over that span, and its length."""
    m = _MARGIN
    span = np.arange(int(m * _PX), int((m + N) * _PX))
    centre = span / _PX - m
    wave = np.cos(2 * np.pi * (centre - 0.5))
    x0 = int(round((g.ROW_LABEL_X - 0.22 + m) * _PX))
    x1 = int(round((g.ROW_LABEL_X + 0.22 + m) * _PX))
    y0 = int(round((g.COLUMN_LABEL_Y - 0.2 + m) * _PX))
    y1 = int(round((g.COLUMN_LABEL_Y + 0.2 + m) * _PX))
    grid = slice(span[0], span[-1] + 1)
    # The length stays a numpy float64: times a float32 norm it gives a float64 (a Python
    # float would give a float32).
    return grid, slice(x0, x1), slice(y0, y1), wave, np.linalg.norm(wave)


_LABEL_BANDS = _label_bands()


def label_scores(canvas: np.ndarray) -> list[float]:
    """How strongly row letters (left) and column numbers (below) show, one per cell
    (0..1), for each turn (0-3 quarter turns) of a feature canvas.

    ``canvas`` is a feature canvas, or its ink (channel minimum) as a 2-D array. The
    four turns' label bands are averaged at once (numpy sums each band's pixels in the
    same order as for one turn alone).
    """
    ink = ink_image(canvas)
    span, columns, rows, wave, wave_length = _LABEL_BANDS
    left = np.stack(
        [_turned_cut(ink, k, span.start, span.stop, columns.start, columns.stop) for k in range(4)]
    )
    below = np.stack(
        [_turned_cut(ink, k, rows.start, rows.stop, span.start, span.stop) for k in range(4)]
    )
    left, below = left.astype(np.float32).mean(axis=2), below.astype(np.float32).mean(axis=1)
    out = []
    for profiles in zip(left, below, strict=True):
        scores = []
        for profile in profiles:
            profile = profile - profile.mean()
            denom = np.linalg.norm(profile) * wave_length
            # Labels are darker than the paper at cell centres: the sign matters.
            scores.append(0.0 if denom == 0 else float(max(0.0, -(profile @ wave) / denom)))
        out.append(float(np.mean(scores)))
    return out


def band_cues(canvas: np.ndarray) -> tuple[list[float], np.ndarray]:
    """Where the coin band is below an upright grid, for each turn (0-3 quarter turns) of
    a BGR feature canvas: the mean colour saturation (0..255) and the mean BGR colour
    (a row per turn).

    Only the four bands' pixels are converted, at once (HSV is per pixel, and the mean
    of uint8 values exact).
    """
    x0, y0, x1, y1 = (int((v + _MARGIN) * _PX) for v in g.COIN_BAND)
    bands = np.stack([_turned_cut(canvas, k, y0, y1, x0, x1) for k in range(4)])
    count = bands.shape[1] * bands.shape[2]
    flat = bands.reshape(4 * bands.shape[1], bands.shape[2], 3)
    saturation = cv2.cvtColor(flat, cv2.COLOR_BGR2HSV)[..., 1].reshape(4, count).mean(axis=1)
    colours = np.array([cv2.mean(band)[:3] for band in bands])
    return [float(v) for v in saturation], colours


def line_warmth(canvas: np.ndarray) -> tuple[float, int]:
    """Red-minus-blue on the interior grid lines against paper-coloured cells beside them
    (orange lines: > 0), and how many line pieces it was measured on.

    Only the pieces of line between two cells whose middles have the paper's colour
    count, measured against those cells' middles: coloured-in cells (and the lines
    under their colour) say nothing of the printed line's colour, and a warm fill
    made the old whole-grid comparison read orange lines as grey.
    """
    m = int(_MARGIN * _PX)
    grid = canvas[m : m + N * _PX, m : m + N * _PX]
    middles = _cell_middles(grid)
    grey = middles.mean(axis=-1)
    # np.percentile(grey, 75) over the cells: its index (cells - 1) * 0.75 is whole.
    upper = np.partition(grey.ravel(), _UPPER_QUARTER)[_UPPER_QUARTER]
    paper = fast_median(middles[grey >= upper], axis=0)
    plain = np.abs(middles - paper).max(axis=-1) < _PAPER_TOLERANCE * paper.mean()
    warm = grid[..., 2].astype(np.int16) - grid[..., 0]
    on_line = np.array([k * _PX + d for k in range(1, N) for d in (-1, 0, 1)])
    # Pieces of the vertical lines (between cells (r, c) and (r, c + 1)) and of the
    # horizontal ones, without the crossings: (cells along, cells across, pixels).
    upright = warm[:, on_line].reshape(N, _PX, N - 1, 3)[:, _END:-_END]
    vertical = upright.transpose(0, 2, 1, 3).reshape(N, N - 1, -1)
    lying = warm[on_line, :].reshape(N - 1, 3, N, _PX)[:, :, :, _END:-_END]
    horizontal = lying.transpose(0, 2, 1, 3).reshape(N - 1, N, -1)
    between_v = plain[:, :-1] & plain[:, 1:]
    between_h = plain[:-1, :] & plain[1:, :]
    pieces = int(between_v.sum() + between_h.sum())
    if pieces == 0:
        return 0.0, 0
    lines = np.concatenate([vertical[between_v].ravel(), horizontal[between_h].ravel()])
    inner = middles[..., 2][plain] - middles[..., 0][plain]
    return float(fast_median(lines) - fast_median(inner)), pieces


_UPPER_QUARTER = (N * N - 1) * 3 // 4
assert _UPPER_QUARTER == (N * N - 1) * 0.75  # np.percentile(..., 75) is that very value


def _cell_middles(grid: np.ndarray) -> np.ndarray:
    """Mean BGR colour of each cell's middle (pixels 5 to 10 each way) on a BGR grid of
    ``_PX`` per cell: (N, N, 3), numpy's mean of the pixels (an exact whole-number sum
    divided by the count), summed across the rows first and then along them."""
    rows = grid.reshape(N, _PX, N * _PX * 3)[:, 5:-5].sum(axis=1, dtype=np.int32)
    sums = rows.reshape(N, N, _PX, 3)[:, :, 5:-5].sum(axis=2)
    return sums / ((_PX - 10) ** 2)


def band_gold(below: np.ndarray, above: np.ndarray) -> float:
    """How much yellower ((red + green) / 2 - blue) the band's place below the grid is than
    the same place above it, as a share of the brightness above (both mean BGR colours).

    Side A's band is gold, side B's grey; above the grid is plain paper (or, turned a
    quarter, the same table as below).
    """
    gold = (below[1] + below[2]) / 2 - below[0] - ((above[1] + above[2]) / 2 - above[0])
    return float(gold / max(above.mean(), 1.0))


def compass_golds(canvas: np.ndarray) -> list[float | None]:
    """How much yellower the compass rose's ink (above the grid's top-right corner) is
    than the paper around it, as a share of the paper's brightness, for each turn (0-3
    quarter turns) of a BGR feature canvas; None when it shows no ink.

    Side A prints the compass in gold, side B in grey; measured against the paper beside
    the ink, so a colour cast or a shadow over the header moves both alike. The four
    boxes' greys, papers and yellows are taken at once (per pixel, or per box).
    """
    x0, x1, y0, y1 = (int((v + _MARGIN) * _PX) for v in _COMPASS_BOX)
    boxes = np.stack([_turned_cut(canvas, k, y0, y1, x0, x1) for k in range(4)])
    boxes = boxes.reshape(4, -1, 3).astype(np.float32)
    greys = boxes.mean(axis=2)
    rank = int(0.8 * greys.shape[1])
    papers = np.partition(greys, rank, axis=1)[:, rank]
    yellows = (boxes[..., 1] + boxes[..., 2]) / 2 - boxes[..., 0]
    out: list[float | None] = []
    for grey, yellow, level in zip(greys, yellows, papers, strict=True):
        paper = float(level)
        ink = grey < 0.85 * paper
        if ink.sum() < 10 or paper <= 0:
            out.append(None)
            continue
        out.append(float((yellow[ink].mean() - yellow[grey >= paper].mean()) / paper))
    return out


def _mountain_cells() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """For each side, the flat indices into a mountain map of the cells that the side's
    mountains (and the rest) fall on in each turn (0-3 quarter turns) of the map, in the
    order ``np.rot90(map, k)[expected]`` (and ``[~expected]``) takes them: (4, cells)."""
    cells = np.arange(N * N).reshape(N, N)
    out = {}
    for name, layout in LAYOUTS.items():
        expected = np.zeros((N, N), bool)
        for r, c in layout.mountains:
            expected[r, c] = True
        turns = [np.rot90(cells, k) for k in range(4)]
        out[name] = (
            np.stack([turn[expected] for turn in turns]),
            np.stack([turn[~expected] for turn in turns]),
        )
    return out


_MOUNTAIN_CELLS = _mountain_cells()


def mountain_matches(mountains: np.ndarray, name: str) -> np.ndarray:
    """:func:`scanner.mountains.mountain_contrast` of side ``name``'s mountains on each
    turn (0-3 quarter turns) of a mountain map, the four at once (the same cells in the
    same order, each turn's means as numpy takes them alone)."""
    inside, outside = _MOUNTAIN_CELLS[name]
    cells = mountains.ravel()
    return np.take(cells, inside).mean(axis=1) - np.take(cells, outside).mean(axis=1)


def _cue(value: float, split: float, scale: float) -> float:
    """A colour cue's vote in -1..1: ``clip((value - split) / scale, -1, 1)`` (> 0: side A)."""
    return float(np.clip((value - split) / scale, -1, 1))


def _hypotheses(
    canvas: np.ndarray, ink: np.ndarray, mountains: np.ndarray, colour: float, side: str
) -> tuple[dict[tuple[str, int], float], dict]:
    """The evidence for each (side, quarter turn) hypothesis on a feature canvas (and its
    ink and mountain map), and the cues it came from; ``colour``: the line colour's vote
    (> 0: side A)."""
    coins = coin_scores(canvas)
    labels = label_scores(ink)
    band, colours = band_cues(canvas)
    gold = [band_gold(colours[k], colours[(k + 2) % 4]) for k in range(4)]
    rose = compass_golds(canvas)
    scores: dict[tuple[str, int], float] = {}
    for name in ("A", "B"):
        if side != "auto" and name != side:
            continue
        matches = mountain_matches(mountains, name)
        for k in range(4):
            match = float(matches[k])
            evidence = match + labels[k] + 0.3 * coins[k]
            evidence += WARM_WEIGHT * colour * (1 if name == "A" else -1)
            if name == "A":
                # Side A's gold coin band lies below the grid, plain paper above: a
                # turn that puts the paper where the band should be loses.
                evidence += float(np.clip((band[k] - band[(k + 2) % 4]) / 100.0, -0.4, 0.0))
                # And a band much yellower than the paper above the grid is side A's,
                # and so is a gold compass rose. Their colour only adds evidence: a
                # black-and-white print of side A has neither, and must not lose its
                # right turn for that.
                evidence += GOLD_WEIGHT * max(0.0, _cue(gold[k], GOLD_SPLIT, GOLD_SCALE))
                if rose[k] is not None:
                    rose_cue = _cue(rose[k], COMPASS_SPLIT, COMPASS_SCALE)
                    evidence += COMPASS_WEIGHT * max(0.0, rose_cue)
            scores[(name, k)] = float(evidence)
    return scores, {
        "coins": [round(c, 3) for c in coins],
        "labels": [round(v, 3) for v in labels],
        "gold": [round(v, 3) for v in gold],
        "band": [round(v, 1) for v in band],
        "compass": [None if v is None else round(v, 3) for v in rose],
    }


def decide_orientation(canvas: np.ndarray, side: str = "auto") -> Orientation:
    """Score the 8 (side, quarter turn) hypotheses on a :func:`feature_canvas`, and the 8
    of the sheet seen in a mirror (the canvas flipped left to right): a photo whose
    mirrored reading wins by :data:`MIRROR_MARGIN` or more is taken as mirrored."""
    if side not in ("auto", "A", "B"):
        raise ValueError(f"side must be 'auto', 'A' or 'B', got {side!r}")
    grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)  # once, then turned
    mountains = mountain_map(grey)
    ink = ink_image(canvas)
    warmth, pieces = line_warmth(canvas)  # the same in a mirror
    # The line colour counts in full once 20 pieces of line between paper cells are seen.
    colour = _cue(warmth, WARM_SPLIT, WARM_SCALE) * min(1.0, pieces / 20)
    scores, cues = _hypotheses(canvas, ink, mountains, colour, side)
    flipped, _ = _hypotheses(cv2.flip(canvas, 1), ink[:, ::-1], mountains[:, ::-1], colour, side)
    mirrored = max(flipped.values()) >= max(scores.values()) + MIRROR_MARGIN
    chosen = flipped if mirrored else scores
    best = max(chosen, key=chosen.get)
    other_side = [v for (s, _), v in chosen.items() if s != best[0]]
    other_turn = [v for (s, k), v in chosen.items() if s == best[0] and k != best[1]]
    side_conf = 1.0 if not other_side else _confidence(chosen[best] - max(other_side))
    turn_conf = _confidence(chosen[best] - max(other_turn))
    return Orientation(
        side=best[0],
        quarter_turns=best[1],
        side_confidence=side_conf,
        orientation_confidence=turn_conf,
        mirrored=mirrored,
        scores={f"{s}{k * 90}": round(v, 3) for (s, k), v in scores.items()}
        | {f"{s}{k * 90}m": round(v, 3) for (s, k), v in flipped.items()}
        | cues
        | {"warmth": round(warmth, 1), "pieces": pieces},
    )


def _confidence(margin: float) -> float:
    return float(np.clip(margin / 0.3, 0.0, 1.0))


def sheet_rotation(homography_upright: np.ndarray) -> int:
    """Clockwise degrees (0/90/180/270) the upright sheet appears turned in the photo."""
    pts = np.float64([[[N / 2, N / 2 - 0.5]], [[N / 2, N / 2 + 0.5]]])
    a, b = cv2.perspectiveTransform(pts, homography_upright).reshape(2, 2)
    angle = np.degrees(np.arctan2(b[1] - a[1], b[0] - a[0]))  # clockwise, y down
    return int(round((angle - 90) / 90.0)) % 4 * 90
