"""Fit the printed 11 x 11 lattice to a candidate quad and score the fit.

:func:`coarse_fit` corrects a rough quad's scale and shift with a comb search
over the 12 grid lines (interior dashed lines and the frame's double line);
:func:`fine_fit` then measures every grid line piecewise and fits a homography to
their crossings, keeping the measured crossings for :mod:`scanner.bend`, which builds
the 12 x 12 lattice from them (bent paper is followed). The score is the share of line
pieces found where the fit puts them, weighted by the share of the frame found.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from scanner.geometry import (
    FRAME_INNER_LINE,
    FRAME_WIDTH,
    GRID_CELLS,
    GRID_CORNERS,
)
from scanner.median import fast_median

N = GRID_CELLS
LINE_PX, LINE_MARGIN = 24.0, 0.75  # lines are measured on this canvas (px per cell, cells)


@dataclass(frozen=True)
class GridFit:
    """A grid fitted to the photo.

    ``homography`` maps cell units to image pixels; ``lattice`` is the 12 x 12 x 2
    array of measured (or, where not measurable, modelled) intersections in image
    pixels; ``score`` in 0..1 says how well the photo shows an 11 x 11 lattice
    with a thick frame there.
    """

    homography: np.ndarray
    lattice: np.ndarray | None  # None until :func:`with_lattice`
    score: float
    source: str
    quad: np.ndarray
    interior: float = 0.0  # share of interior line pieces found on the model
    frame: float = 0.0  # share of the frame's sides found
    measurement: object = None  # what the lattice is built from


class Pyramid:
    """An image and its halvings, for warping from a level near the wanted scale.

    ``only_for``: ``(cell_px, px)`` of the one kind of :meth:`warp` the pyramid will
    serve; the halvings below the level those warps sample are not made.
    """

    def __init__(
        self, image: np.ndarray, min_side: int = 96, only_for: tuple[float, float] | None = None
    ) -> None:
        self.levels = [image]
        while min(self.levels[-1].shape[:2]) // 2 >= min_side and len(self.levels) < 5:
            if only_for is not None and not _finer_than(len(self.levels), *only_for):
                break
            self.levels.append(cv2.pyrDown(self.levels[-1]))

    def warp(
        self, homography: np.ndarray, px: float, origin: float, size: int, cell_px: float
    ) -> np.ndarray:
        """Sample ``size`` x ``size`` pixels at ``px`` per cell from cell ``(origin, origin)``."""
        level = 0
        while level + 1 < len(self.levels) and _finer_than(level + 1, cell_px, px):
            level += 1
        f = 2.0**-level
        to_level = np.array([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5], [0, 0, 1]])
        canvas_to_cell = np.array([[1 / px, 0, origin], [0, 1 / px, origin], [0, 0, 1]])
        m = to_level @ homography @ canvas_to_cell
        return cv2.warpPerspective(
            self.levels[level],
            m,
            (size, size),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )


def _finer_than(level: int, cell_px: float, px: float) -> bool:
    """Whether pyramid ``level`` still has cells of ``cell_px`` image pixels sampled more
    finely than ``px`` per cell (with a fifth to spare): warps sample the coarsest such."""
    return cell_px / 2**level >= px * 1.2


def cell_size_px(homography: np.ndarray) -> float:
    """Mean side of a cell in image pixels under ``homography``."""
    corners = cv2.perspectiveTransform(GRID_CORNERS.reshape(-1, 1, 2), homography).reshape(4, 2)
    return float(np.sqrt(abs(cv2.contourArea(corners.astype(np.float32)))) / N)


def quad_homography(quad: np.ndarray) -> np.ndarray | None:
    """Cell units -> pixels taking the quad's corners as the grid's (clockwise from A1's)."""
    h = cv2.getPerspectiveTransform(GRID_CORNERS, quad.astype(np.float32)).astype(np.float64)
    return h if np.isfinite(h).all() else None


def max_shift(h1: np.ndarray, h2: np.ndarray) -> float:
    """Largest distance, in cells of ``h1``, between the grid corners under two homographies."""
    corners = GRID_CORNERS.reshape(-1, 1, 2)
    a = cv2.perspectiveTransform(corners, h1).reshape(4, 2)
    b = cv2.perspectiveTransform(corners, h2).reshape(4, 2)
    return float(np.linalg.norm(a - b, axis=1).max() / cell_size_px(h1))


def coarse_fit(pyramid: Pyramid, quad: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Homography from the quad corrected by two comb searches, and the comb's score."""
    h = quad_homography(quad)
    if h is None:
        return None
    score = 0.0
    for _ in range(2):
        result = _comb_correct(pyramid, h)
        if result is None:
            return None
        h, score = result
    return h, score


def fine_fit(pyramid: Pyramid, h: np.ndarray, quad: np.ndarray, source: str) -> GridFit | None:
    """Measure the lines up to three times, refitting the homography each time.

    Stops when a pass moves the grid corners by less than 0.03 cell, and keeps the
    previous fit when a pass agrees worse with its own measurements.
    """
    best = None
    for half in (0.32, 0.22, 0.22):
        result = _measure_intersections(pyramid, h, half)
        if result is None:
            break
        if best is not None and result.agreement < best.agreement - 0.02:
            break  # measuring again made it worse: keep the better fit
        best = result
        moved = max_shift(h, result.homography)
        h = result.homography
        if moved < 0.03:
            break
    if best is None:
        return None
    # The frame is measured on the kept pass's canvas only.
    best = replace(best, frame=_frame_share(*best.lines, LINE_PX, LINE_MARGIN), lines=None)
    score = best.agreement * (0.25 + 0.75 * best.frame)
    return GridFit(
        best.homography, None, float(score), source, quad, best.agreement, best.frame, best
    )


def model_lattice(h: np.ndarray) -> np.ndarray:
    """The 12 x 12 x 2 intersections a homography alone puts in the image."""
    grid = np.stack(np.meshgrid(np.arange(N + 1.0), np.arange(N + 1.0)), -1)
    return cv2.perspectiveTransform(grid.reshape(-1, 1, 2), h).reshape(N + 1, N + 1, 2)


@dataclass(frozen=True)
class _Measurement:
    homography: np.ndarray
    nodes: np.ndarray  # (K, 2) lattice nodes (cell units) that were measured
    measured: np.ndarray  # (K, 2) where they were found, image pixels
    inliers: np.ndarray  # (K,) bool, agreeing with the homography
    agreement: float
    frame: float = 0.0  # share of the frame found (set by :func:`fine_fit`)
    lines: tuple[np.ndarray, np.ndarray] | None = None  # the pass's line responses


def _line_response(canvas: np.ndarray, px: float) -> tuple[np.ndarray, np.ndarray]:
    """Black-hat responses to thin dark vertical and horizontal lines, float32 (see
    :func:`_black_hats`)."""
    vertical, horizontal = _black_hats(canvas, px)
    return vertical.astype(np.float32), horizontal.astype(np.float32)


def _black_hats(canvas: np.ndarray, px: float) -> tuple[np.ndarray, np.ndarray]:
    """Black-hat responses to thin dark vertical and horizontal lines, uint8.

    Each image is first averaged along the line direction over half a cell, so
    dashes merge into a line while hatching and drawings, which run every
    which way, blur into an even tone the black-hat ignores.
    """
    k = max(3, int(round(px * 0.45)) | 1)
    along = max(3, int(round(px * 0.5)) | 1)
    vertical = cv2.blur(canvas, (1, along))
    horizontal = cv2.blur(canvas, (along, 1))
    vertical = cv2.morphologyEx(vertical, cv2.MORPH_BLACKHAT, np.ones((1, k), np.uint8))
    horizontal = cv2.morphologyEx(horizontal, cv2.MORPH_BLACKHAT, np.ones((k, 1), np.uint8))
    return vertical, horizontal


def _comb_correct(pyramid: Pyramid, h: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Correct offset and pitch along both axes by matching a comb of 12 lines."""
    px, margin = 12.0, 2.5
    size = int(round((N + 2 * margin) * px))
    cell = cell_size_px(h)
    if not 3 < cell < 5000:
        return None
    canvas = pyramid.warp(h, px, -margin, size, cell)
    vertical, horizontal = _black_hats(canvas, px)
    inside = slice(int(margin * px), int((margin + N) * px))
    # The float32 means of the responses: their sums are whole numbers below 2**24, exact
    # in float32 in any order, so summed as integers and divided in float32.
    count = inside.stop - inside.start
    prof_x = vertical[inside].sum(axis=0, dtype=np.int32).astype(np.float32) / count
    prof_y = horizontal[:, inside].sum(axis=1, dtype=np.int32).astype(np.float32) / count
    ox, sx, score_x = _comb_search(prof_x, px, margin)
    oy, sy, score_y = _comb_search(prof_y, px, margin)
    return h @ np.array([[sx, 0, ox], [0, sy, oy], [0, 0, 1.0]]), min(score_x, score_y)


def _comb_search(profile: np.ndarray, px: float, margin: float) -> tuple[float, float, float]:
    """Best (offset, pitch) in cell units so that lines sit at offset + k * pitch.

    The 10 interior teeth must land on (dashed) lines, and both end teeth on the
    frame: a solid line with a second one ``FRAME_WIDTH`` further out. That coarse
    pairing finds small, blurred sheets more often than the measured places
    (``FRAME_INNER_LINE`` / ``FRAME_OUTER_LINE``), which the finer stages use.
    """
    up = _COMB_UP
    teeth = _comb_teeth(px, margin, len(profile) * up)
    # Smooth a little so a line one canvas pixel off still counts; compress so a
    # tooth landing on the frame or a mountain cannot outweigh many thin lines.
    prof = np.log1p(np.convolve(profile, [0.25, 0.5, 0.25], mode="same"))
    table = np.interp(np.arange(len(prof) * up) / up, np.arange(len(prof)), prof)
    base = pairwise_mean(np.take(table, teeth.mid))
    lines = pairwise_mean(np.take(table, teeth.lines)) - base
    near = (table[teeth.first] + table[teeth.first_out]) / 2
    far = (table[teeth.last] + table[teeth.last_out]) / 2
    frame = np.minimum(near, far) - base
    score = lines + frame
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    return float(teeth.offsets[j]), float(teeth.pitches[i]), float(score[i, j])


@dataclass(frozen=True)
class _CombTeeth:
    """Where the comb's teeth fall in the profile table, for every (pitch, offset) tried."""

    pitches: np.ndarray  # (P,)
    offsets: np.ndarray  # (O,)
    mid: np.ndarray  # (N, P, O) table indices half a pitch past each line
    lines: np.ndarray  # (N - 1, P, O) the interior lines
    first: np.ndarray  # (P, O) the first line (the frame's inner line) ...
    first_out: np.ndarray  # ... and the frame's outer line beyond it
    last: np.ndarray  # (P, O) the last line ...
    last_out: np.ndarray  # ... and the frame's outer line beyond it


_COMB_UP = 4  # the profile is sampled on a 4x finer grid by nearest index (fast gathers)
_TEETH: dict[tuple[float, float, int], _CombTeeth] = {}


def _comb_teeth(px: float, margin: float, length: int) -> _CombTeeth:
    """The comb's table indices for a profile table of ``length`` entries (computed once:
    they depend only on the canvas layout, the same for every candidate)."""
    key = (px, margin, length)
    if key not in _TEETH:
        pitches = np.linspace(0.84, 1.19, 29)[:, None, None]
        offsets = np.arange(-1.6, 1.6 + 1e-9, 1 / px / 2)[None, :, None]
        k = np.arange(N + 1)[None, None, :]
        pos = offsets + pitches * k  # cells
        mid = offsets + pitches * (k[..., :-1] + 0.5)
        fw = FRAME_WIDTH * pitches[..., 0]

        def index(cells: np.ndarray) -> np.ndarray:
            return np.clip(np.rint((cells + margin) * px * _COMB_UP).astype(int), 0, length - 1)

        _TEETH[key] = _CombTeeth(
            pitches=pitches[:, 0, 0],
            offsets=offsets[0, :, 0],
            mid=np.moveaxis(index(mid), -1, 0).copy(),  # teeth first: see pairwise_mean
            lines=np.moveaxis(index(pos[..., 1:-1]), -1, 0).copy(),
            first=index(pos[..., 0]),
            first_out=index(pos[..., 0] - fw),
            last=index(pos[..., -1]),
            last_out=index(pos[..., -1] + fw),
        )
    return _TEETH[key]


def pairwise_mean(rows: np.ndarray) -> np.ndarray:
    """The mean over the first axis of 8 to 15 rows, bit for bit numpy's mean over a
    contiguous last axis: numpy sums up to 128 values in 8 running sums, adds them in
    pairs, then adds the rest one by one. Element-wise over whole rows this costs a few
    passes instead of numpy's per-output reduction over a short axis (~4x faster)."""
    n = len(rows)
    if not 8 <= n < 16:
        raise ValueError(f"pairwise_mean takes 8 to 15 rows, got {n}")
    total = ((rows[0] + rows[1]) + (rows[2] + rows[3])) + (
        (rows[4] + rows[5]) + (rows[6] + rows[7])
    )
    for row in rows[8:]:
        total += row
    return total / n


CHUNKS = 4  # each interior line is measured in this many pieces along its length


DEGREE = 2  # polynomial through a line's pieces (bent paper)


def _measure_intersections(
    pyramid: Pyramid, h: np.ndarray, half: float = 0.3
) -> _Measurement | None:
    """Measure the 20 interior lines piecewise; refit the homography to their crossings.

    Each line's response is averaged over ``CHUNKS`` pieces of its length (icons
    and hatching do not line up over several cells, the printed line does); a
    quadratic through the pieces follows bent paper. Returns the new homography,
    the 12 x 12 x 2 lattice in image pixels, the share of pieces found where the
    new model puts them, and the share of the frame found.
    """
    px, margin = LINE_PX, LINE_MARGIN
    vertical, horizontal = line_canvas(pyramid, h)
    offs = np.arange(-int(half * px), int(half * px) + 1)
    start = int(round(margin * px))
    length = int(N * px) // CHUNKS
    chunk_rows = start + np.arange(CHUNKS)[:, None] * length + np.arange(length)  # (C, L)
    lines = np.arange(N + 1)  # 0 and N are the frame's inner line, the grid's edge
    line_cols = (np.round((lines + margin) * px).astype(int))[:, None] + offs
    # pv[j, k, :]: response across line k within piece j.
    pv = row_means(vertical, chunk_rows)[:, line_cols]
    ph = row_means(horizontal.T, chunk_rows)[:, line_cols]
    # The frame's outer line runs further out: look for the inner one only near 0.
    near_edge = np.abs(offs) <= 0.1 * px
    along = (np.arange(CHUNKS) + 0.5) * length / px  # piece centres in cells
    # Both axes at once: prof[axis, k, j, :] across line k within piece j.
    prof = np.stack([pv, ph]).transpose(0, 2, 1, 3).copy()
    base = fast_median(prof, axis=3)
    for k in (0, N):
        prof[:, k][..., ~near_edge] = 0.0
    j = _line_peaks(prof)
    peak = pick(prof, j)
    sub = subpixel(prof, j, peak)
    strength = (peak - base).astype(np.float64)
    pos = (offs[j] + sub) / px + lines[:, None]
    # The frame's inner line lies just outside the grid's edge: its centre is not it.
    pos[:, 0] += FRAME_INNER_LINE
    pos[:, N] -= FRAME_INNER_LINE
    typical = float(fast_median(strength[:, 1:N].ravel()))
    if typical <= 0.5:
        return None
    valid = strength > 0.3 * typical
    curves = _quadratic_through(along, pos, np.where(valid, strength, 0.0), np.arange(N + 1.0))
    # Crossing of vertical line c and horizontal line r, canvas cells.
    xs, ys = curves[0].T, curves[1]  # xs[r, c], ys[r, c]
    found = ~(np.isnan(xs) | np.isnan(ys))
    if found[1:N, 1:N].sum() < 12:
        return None
    rr, cc = np.nonzero(found)
    src_a = np.float32(np.stack([cc, rr], -1))
    meas = np.stack([xs[found], ys[found]], -1).reshape(-1, 1, 2)
    dst_a = cv2.perspectiveTransform(meas, h).reshape(-1, 2)
    cell = cell_size_px(h)
    new_h, inliers = _robust_homography(src_a, dst_a, 0.12 * cell)
    if new_h is None:
        return None
    agree = _agreement(new_h, h, pos[:, 1:N], along, valid[:, 1:N])
    inliers = inliers.ravel().astype(bool)
    return _Measurement(new_h, src_a, dst_a, inliers, agree, lines=(vertical, horizontal))


def row_means(image: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Mean of ``image``'s rows over the last axis of ``rows``: ``(*rows.shape[:-1],
    columns)``; ``image.T`` gives column means.

    The rows are added one after another in ``rows`` order, as numpy's mean over the
    row axis of the gathered pixels adds them, so taking columns from these means gives
    the very numbers that averaging the gathered pixels did, gathering far fewer.
    """
    return np.ascontiguousarray(image[rows]).mean(axis=-2)


def _line_peaks(prof: np.ndarray) -> np.ndarray:
    """Index of each profile's highest local peak (last axis), or of its maximum
    where it has none.

    A printed line is a peak across its profile; a slope rising to the window's
    edge is the flank of something beyond it: on small, dark, heavily drawn
    sheets the faint dashed line is weaker than the icons half a cell away, and
    the plain maximum put every such piece at the window's edge (tuning photo
    7002, hard: its true fit scored 0.58 against 0.78 with this). Where nothing
    peaks inside the window the maximum stands, as before.
    """
    inner = prof[..., 1:-1]
    top = (inner >= prof[..., :-2]) & (inner >= prof[..., 2:])
    ridge = np.full(prof.shape, -np.inf)
    ridge[..., 1:-1] = np.where(top, inner, -np.inf)
    j = np.argmax(ridge, axis=-1)
    none = ~top.any(axis=-1)
    return np.where(none, np.argmax(prof, axis=-1), j)


def subpixel(prof: np.ndarray, j: np.ndarray, peak: np.ndarray) -> np.ndarray:
    """How far (pixels, -0.5..0.5) each profile's peak lies beyond its sample ``j`` (last
    axis; ``peak`` its value): the top of the parabola through it and its two
    neighbours, 0 where they do not bend down."""
    last = prof.shape[-1] - 1
    left = pick(prof, np.maximum(j - 1, 0))
    right = pick(prof, np.minimum(j + 1, last))
    den = left - 2 * peak + right
    sub = np.divide(0.5 * (left - right), den, out=np.zeros_like(den), where=den < 0)
    return np.clip(sub, -0.5, 0.5)


def pick(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Each profile's entry at ``index`` (``values[..., index]`` per profile, last axis)."""
    flat = values.reshape(-1, values.shape[-1])
    return flat[np.arange(len(flat)), index.ravel()].reshape(index.shape)


def _quadratic_through(
    t: np.ndarray, values: np.ndarray, weights: np.ndarray, at: np.ndarray
) -> np.ndarray:
    """Weighted quadratic fits of ``values[..., :]`` against ``t``, evaluated ``at``.

    Batched over the leading axes. A small ridge on the slope and curvature makes
    lines with one or two pieces fall back to a constant or a straight line;
    lines with no weight at all give NaN.
    """
    centre, half = t.mean(), max(float(np.ptp(t)) / 2, 1e-9)
    degree = min(DEGREE, len(t) - 1)
    basis = np.stack([((t - centre) / half) ** d for d in range(degree + 1)], -1)
    gram = np.einsum("...c,ci,cj->...ij", weights, basis, basis)
    total = weights.sum(-1)
    penalty = np.diag([0.0] + [1.0] * degree)
    ridge = 1e-3 * np.maximum(total, 1e-9)[..., None, None] * penalty
    rhs = np.einsum("...c,ci,...c->...i", weights, basis, values)
    gram = gram + ridge + np.eye(degree + 1) * 1e-12
    coef = np.linalg.solve(gram, rhs[..., None])[..., 0]
    u = (at - centre) / half
    out = sum(coef[..., d : d + 1] * u**d for d in range(degree + 1))
    out[total <= 0] = np.nan
    return out


def _robust_homography(
    src: np.ndarray, dst: np.ndarray, tolerance: float
) -> tuple[np.ndarray | None, np.ndarray]:
    """Least-squares homography, refitted twice without points off by > ``tolerance``.

    The start is already close, so plain refits beat RANSAC here (and are 20x faster).
    """
    keep = np.ones(len(src), bool)
    h = None
    for _ in range(3):
        if keep.sum() < 8:
            return None, keep
        h, _ = cv2.findHomography(src[keep], dst[keep], 0)
        if h is None:
            return None, keep
        pred = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
        err = np.linalg.norm(pred - dst, axis=1)
        again = err < max(tolerance, 2.5 * float(fast_median(err)))
        if np.array_equal(again, keep):
            return h, keep  # a refit to the same points would give the same homography
        keep = again
    return h, keep


def _agreement(new_h, old_h, pos, along, valid) -> float:
    """Share of the measured line pieces lying within 0.1 cell of the new model."""
    to_new = np.linalg.inv(new_h) @ old_h  # old cell units -> new cell units
    k = np.arange(1, N)[:, None] * np.ones((1, len(along)))
    t = np.ones((N - 1, 1)) * along[None, :]
    good = 0
    for axis in range(2):
        xy = np.stack([pos[axis], t] if axis == 0 else [t, pos[axis]], -1).reshape(-1, 1, 2)
        q = cv2.perspectiveTransform(xy, to_new).reshape(N - 1, len(along), 2)[..., axis]
        good += int(np.sum(valid[axis] & (np.abs(q - k) < 0.1)))
    return good / valid.size


def line_canvas(pyramid: Pyramid, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_line_response` of the grid warped at ``LINE_PX`` per cell with
    ``LINE_MARGIN`` cells around it."""
    px, margin = LINE_PX, LINE_MARGIN
    size = int(round((N + 2 * margin) * px))
    canvas = pyramid.warp(h, px, -margin, size, cell_size_px(h))
    return _line_response(canvas, px)


FRAME_OVER_LINES = 1.3  # a frame side's double line gives this many times an interior line


def _frame_share(vertical: np.ndarray, horizontal: np.ndarray, px: float, margin: float) -> float:
    """Share of the frame's 44 side segments where a double solid line borders the grid.

    Compares the line response summed across a strip just outside each grid
    edge (the inner line at the edge and the outer one ``FRAME_WIDTH`` further)
    with the same sum across the interior dashed lines; the frame gives more
    (``FRAME_OVER_LINES``: not much more when players outline their shapes with
    firm lines along the cell borders, as most do). A lattice shifted by a cell
    has a dashed line or nothing there.
    """
    n = N
    band = (np.round((np.arange(n) + margin) * px).astype(int))[:, None] + np.arange(
        int(0.15 * px), int(0.85 * px)
    )
    outward = np.arange(-int(round((FRAME_WIDTH + 0.12) * px)), int(round(0.06 * px)) + 1)

    seg_v = vertical[band].mean(axis=1)  # (n, width): per cell segment, across x
    seg_h = horizontal[:, band].mean(axis=2).T  # (n, height): per cell segment, across y

    def strips(lines: np.ndarray, sign: int) -> np.ndarray:
        """Both axes' strips beside ``lines``: (2, n segments, lines); each strip is
        summed as it was alone (numpy adds across a gathered strip in order)."""
        cols = np.round((lines + margin) * px).astype(int)[:, None] + sign * outward
        return np.stack([seg_v[:, cols].sum(axis=-1), seg_h[:, cols].sum(axis=-1)])

    typical = float(fast_median(strips(np.arange(1, n), 1).ravel()))
    if typical <= 0:
        return 0.0
    sides = np.concatenate([strips(np.array([0]), 1), strips(np.array([n]), -1)])
    return float(np.mean(sides > FRAME_OVER_LINES * typical))
