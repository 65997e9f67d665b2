"""Fit the printed 11 x 11 lattice to a candidate quad and score the fit.

:func:`coarse_fit` corrects a rough quad's scale and shift with a comb search
over the 12 grid lines (interior dashed lines and the frame's double line);
:func:`fine_fit` then measures every grid line piecewise, fits a homography to
their crossings and keeps the measured crossings as the lattice, so bent
paper is followed. The score is the share of line pieces found where the fit
puts them, weighted by the share of the frame found.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import cv2
import numpy as np

from scanner.geometry import (
    FRAME_INNER_LINE,
    FRAME_OUTER_LINE,
    FRAME_OUTER_SLACK,
    FRAME_WIDTH,
    GRID_CELLS,
)

N = GRID_CELLS
GRID_CORNERS = np.float32([[0, 0], [N, 0], [N, N], [0, N]])
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
    """An image and its halvings, for warping from a level near the wanted scale."""

    def __init__(self, image: np.ndarray, min_side: int = 96) -> None:
        self.levels = [image]
        while min(self.levels[-1].shape[:2]) // 2 >= min_side and len(self.levels) < 5:
            self.levels.append(cv2.pyrDown(self.levels[-1]))

    def warp(
        self, homography: np.ndarray, px: float, origin: float, size: int, cell_px: float
    ) -> np.ndarray:
        """Sample ``size`` x ``size`` pixels at ``px`` per cell from cell ``(origin, origin)``."""
        level = 0
        while level + 1 < len(self.levels) and cell_px / 2 ** (level + 1) >= px * 1.2:
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


def cell_size_px(homography: np.ndarray) -> float:
    """Mean side of a cell in image pixels under ``homography``."""
    corners = cv2.perspectiveTransform(GRID_CORNERS.reshape(-1, 1, 2), homography).reshape(4, 2)
    return float(np.sqrt(abs(cv2.contourArea(corners.astype(np.float32)))) / N)


def fit_lattice(pyramid: Pyramid, quad: np.ndarray, source: str = "") -> GridFit | None:
    """Fit the 11 x 11 lattice starting from a candidate quad (clockwise corners).

    The quad may be the frame's outer edge, the grid edge or a little off: a
    comb search over line offset and pitch corrects scale and shift, then two
    passes measure the interior intersections and fit a homography to them.
    """
    coarse = coarse_fit(pyramid, quad)
    fit = None if coarse is None else fine_fit(pyramid, coarse[0], quad, source)
    return None if fit is None else with_lattice(pyramid, fit)


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


def with_lattice(pyramid: Pyramid, fit: GridFit) -> GridFit:
    """The fit with its 12 x 12 lattice of intersections measured (done for the winner only)."""
    if fit.lattice is not None:
        return fit
    m = fit.measurement
    points = _lattice_from_measurements(
        m.homography, m.nodes, m.measured, m.inliers, cell_size_px(m.homography)
    )
    responses = _line_canvas(pyramid, m.homography)  # both passes look at the same canvas
    bent = _smooth_bend(m.homography, points) > BENT_PAPER
    for _ in range(2):
        points = refine_locally(pyramid, m.homography, points, responses, follow=bent)
    if _smooth_bend(m.homography, points) < FLAT_PAPER:
        points = model_lattice(m.homography)  # flat paper: local measurements add only noise
    else:
        points = _limit_local(m.homography, points)
    return replace(fit, lattice=points)


LOCAL_SLACK = 0.04  # cells: how far a node may leave the paper's smooth bend
BENT_PAPER = 0.12  # cells of smooth bend from which unmeasured nodes follow their neighbours


def _limit_local(h: np.ndarray, lattice: np.ndarray) -> np.ndarray:
    """Keep every node within ``LOCAL_SLACK`` of the paper's smooth bend.

    Paper bends smoothly, so the nodes' displacements from the homography's grid
    are fitted by a cubic surface (robustly: Huber weights); a node may differ
    from it only a little. Several neighbouring nodes pulled the same way by
    dense hatching, which pass the neighbour tests, stay near the surface.
    """
    cell = cell_size_px(h)
    model = model_lattice(h)
    d = ((lattice - model) / cell).reshape(-1, 2)
    basis = _surface_basis(3)
    w = np.ones(len(d))
    for _ in range(4):
        coef, *_ = np.linalg.lstsq(basis * w[:, None], d * w[:, None], rcond=None)
        res = np.linalg.norm(basis @ coef - d, axis=1)
        scale = 2.5 * max(0.02, 1.4826 * float(np.median(res)))
        w = 1 / np.sqrt(np.maximum(1.0, (res / scale) ** 2))
    smooth = basis @ coef
    off = d - smooth
    norm = np.linalg.norm(off, axis=1, keepdims=True)
    off *= np.minimum(1.0, LOCAL_SLACK / np.maximum(norm, 1e-9))
    return model + ((smooth + off) * cell).reshape(N + 1, N + 1, 2)


#: Cells: below this smooth bend the homography alone gives the lattice. Session 30 raised
#: it from 0.02: line pieces are found to a pixel of a 24 px-a-cell canvas (0.04 cell),
#: and on the tuning photos flat sheets read as bent more often than bends this slight
#: were real (worst cell: clean mean 0.022 -> 0.015, normal 0.030 -> 0.026).
FLAT_PAPER = 0.035


def model_lattice(h: np.ndarray) -> np.ndarray:
    """The 12 x 12 x 2 intersections a homography alone puts in the image."""
    grid = np.stack(np.meshgrid(np.arange(N + 1.0), np.arange(N + 1.0)), -1)
    return cv2.perspectiveTransform(grid.reshape(-1, 1, 2), h).reshape(N + 1, N + 1, 2)


def _smooth_bend(h: np.ndarray, lattice: np.ndarray) -> float:
    """Largest smooth displacement (cells) of the lattice from the homography's grid.

    A quadratic surface is fitted to the displacements, refitted twice without
    nodes far off it. Bent paper moves neighbourhoods together and shows here;
    single nodes caught by a drawn stroke do not. On flat paper the homography
    (fitted to ~100 crossings) is more exact than any one measured node.
    """
    cell = cell_size_px(h)
    d = ((lattice - model_lattice(h)) / cell).reshape(-1, 2)
    basis = _surface_basis(2)
    keep = np.ones(len(d), bool)
    for _ in range(3):
        coef, *_ = np.linalg.lstsq(basis[keep], d[keep], rcond=None)
        residual = np.linalg.norm(basis @ coef - d, axis=1)
        keep = residual < max(0.05, 2.5 * float(np.median(residual)))
    return float(np.abs(basis @ coef).max())


def _surface_basis(degree: int) -> np.ndarray:
    """Monomials up to ``degree`` (1, u, v, u^2, uv, v^2, ...) at the 12 x 12 nodes,
    with u and v running -1..1 across the grid: (144, terms)."""
    t = np.linspace(-1.0, 1.0, N + 1)
    u, v = (a.ravel() for a in np.meshgrid(t, t))
    terms = [u**i * v ** (k - i) for k in range(degree + 1) for i in range(k, -1, -1)]
    return np.stack(terms, -1)


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
    """Black-hat responses to thin dark vertical and horizontal lines.

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
    return vertical.astype(np.float32), horizontal.astype(np.float32)


def _comb_correct(pyramid: Pyramid, h: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Correct offset and pitch along both axes by matching a comb of 12 lines."""
    px, margin = 12.0, 2.5
    size = int(round((N + 2 * margin) * px))
    cell = cell_size_px(h)
    if not 3 < cell < 5000:
        return None
    canvas = pyramid.warp(h, px, -margin, size, cell)
    vertical, horizontal = _line_response(canvas, px)
    inside = slice(int(margin * px), int((margin + N) * px))
    prof_x = vertical[inside].mean(axis=0)
    prof_y = horizontal[:, inside].mean(axis=1)
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
    base = table[teeth.mid].mean(-1)
    lines = table[teeth.lines].mean(-1) - base
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
    mid: np.ndarray  # (P, O, N) table indices half a pitch past each line
    lines: np.ndarray  # (P, O, N - 1) the interior lines
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
            mid=index(mid),
            lines=index(pos[..., 1:-1]),
            first=index(pos[..., 0]),
            first_out=index(pos[..., 0] - fw),
            last=index(pos[..., -1]),
            last_out=index(pos[..., -1] + fw),
        )
    return _TEETH[key]


CHUNKS = 4  # each interior line is measured in this many pieces along its length


DEGREE = 2  # polynomial through a line's pieces (bent paper)
EDGE_WINDOW = 0.20  # cells: how far from the lattice the frame's inner line is looked for


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
    vertical, horizontal = _line_canvas(pyramid, h)
    offs = np.arange(-int(half * px), int(half * px) + 1)
    start = int(round(margin * px))
    length = int(N * px) // CHUNKS
    chunk_rows = start + np.arange(CHUNKS)[:, None] * length + np.arange(length)  # (C, L)
    lines = np.arange(N + 1)  # 0 and N are the frame's inner line, the grid's edge
    line_cols = (np.round((lines + margin) * px).astype(int))[:, None] + offs
    # prof[k, j, :]: response across line k within piece j.
    pv = vertical[chunk_rows[:, :, None, None], line_cols[None, None]].mean(axis=1)
    ph = horizontal[line_cols[None, None], chunk_rows[:, :, None, None]].mean(axis=1)
    # The frame's outer line runs further out: look for the inner one only near 0.
    near_edge = np.abs(offs) <= 0.1 * px
    along = (np.arange(CHUNKS) + 0.5) * length / px  # piece centres in cells
    # Both axes at once: prof[axis, k, j, :] across line k within piece j.
    prof = np.stack([pv, ph]).transpose(0, 2, 1, 3).copy()
    base = _median(prof, axis=3)
    for k in (0, N):
        prof[:, k][..., ~near_edge] = 0.0
    j = _line_peaks(prof)
    peak = np.take_along_axis(prof, j[..., None], 3)[..., 0]
    left = np.take_along_axis(prof, np.clip(j - 1, 0, len(offs) - 1)[..., None], 3)[..., 0]
    right = np.take_along_axis(prof, np.clip(j + 1, 0, len(offs) - 1)[..., None], 3)[..., 0]
    den = left - 2 * peak + right
    with np.errstate(all="ignore"):
        sub = np.where(den < 0, 0.5 * (left - right) / den, 0.0)
    sub = np.clip(sub, -0.5, 0.5)
    strength = (peak - base).astype(np.float64)
    pos = (offs[j] + sub) / px + lines[:, None]
    # The frame's inner line lies just outside the grid's edge: its centre is not it.
    pos[:, 0] += FRAME_INNER_LINE
    pos[:, N] -= FRAME_INNER_LINE
    typical = float(_median(strength[:, 1:N].ravel()))
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
        again = err < max(tolerance, 2.5 * float(np.median(err)))
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


def _line_canvas(pyramid: Pyramid, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_line_response` of the grid warped at ``LINE_PX`` per cell with
    ``LINE_MARGIN`` cells around it."""
    px, margin = LINE_PX, LINE_MARGIN
    size = int(round((N + 2 * margin) * px))
    canvas = pyramid.warp(h, px, -margin, size, cell_size_px(h))
    return _line_response(canvas, px)


def refine_locally(
    pyramid: Pyramid,
    h: np.ndarray,
    lattice: np.ndarray,
    responses: tuple[np.ndarray, np.ndarray] | None = None,
    follow: bool = False,
) -> np.ndarray:
    """Move each intersection onto the lines measured right beside it (curled corners).

    Every grid line is measured once per cell it borders, in a narrow window
    (0.15 cell) around where the lattice puts it, so icons in the cells stay out
    of view. The frame's inner line is looked for in a wider window
    (``EDGE_WINDOW``: a curled edge moves most) together with its outer line
    further out (``FRAME_OUTER_LINE``), so neither the outer line alone nor a stroke
    inside the grid passes for it; the grid's edge is the inner line's inside edge.
    A node takes the mean of its two adjacent pieces per direction (a line's ends
    continue its last two); nodes unlike their neighbours, or not measured, keep
    their place, or (``follow``: bent paper) move as their measured neighbours do.
    ``responses``: :func:`_line_canvas` of ``h`` when already made.

    On bent paper the nodes left unmeasured are mostly where the paper bends most (a
    lifted corner, its lines faint, in shadow or beyond the narrow window): kept in
    place, they hold the lattice back there while the nodes beside them move, and
    the smooth surface of :func:`_limit_local` is then fitted to both. Following
    their neighbours, the next pass looks for their lines nearer where they are.
    """
    px, margin = LINE_PX, LINE_MARGIN
    vertical, horizontal = _line_canvas(pyramid, h) if responses is None else responses
    size = vertical.shape[0]
    inv = np.linalg.inv(h)
    cells = cv2.perspectiveTransform(lattice.reshape(-1, 1, 2), inv).reshape(N + 1, N + 1, 2)
    to_px = (cells + margin) * px  # canvas pixels of every node, (row, col, xy)
    offs = np.arange(-int(EDGE_WINDOW * px), int(EDGE_WINDOW * px) + 1)
    band = np.arange(int(0.2 * px), int(0.8 * px))
    seg_start = np.round((np.arange(N) + margin) * px).astype(int)
    rows = seg_start[:, None] + band  # (N segments, B)
    found = np.full((2, N + 1, N + 1), np.nan)  # axis, row, col: measured coordinate (cells)
    pieces = []  # per axis, at[segment i, line k]: where line k was found on segment i (cells)
    for axis, response in ((0, vertical), (1, horizontal)):
        # Line k's predicted position on segment i: mean of the two nodes bounding it.
        if axis == 0:
            centre = (to_px[:-1, :, 0] + to_px[1:, :, 0]) / 2  # (segment i, line k)
        else:
            centre = ((to_px[:, :-1, 1] + to_px[:, 1:, 1]) / 2).T  # (segment i, line k)
        cols = np.round(centre).astype(int)[:, :, None] + offs  # (i, k, O)
        cols = np.clip(cols, 0, size - 1)
        if axis == 0:
            prof = response[rows[:, None, :, None], cols[:, :, None, :]].mean(axis=2)
        else:
            prof = response[cols[:, :, None, :], rows[:, None, :, None]].mean(axis=2)
        edge = np.zeros(prof.shape[1], bool)
        edge[[0, N]] = True
        # The frame's outer line runs parallel beyond its inner one: look for the pair.
        apart = FRAME_OUTER_LINE - FRAME_INNER_LINE
        aparts = range(
            int(round((apart - FRAME_OUTER_SLACK) * px)),
            int(round((apart + FRAME_OUTER_SLACK) * px)) + 1,
        )
        for k, outward in ((0, -1), (N, 1)):
            # far[i, o, d]: the outer line's column for each spacing d in ``aparts``.
            far = np.clip(cols[:, k, :, None] + outward * np.array(aparts), 0, size - 1)
            if axis == 0:
                seen = response[rows[:, :, None, None], far[:, None]].mean(axis=1)
            else:
                seen = response[far[:, None], rows[:, :, None, None]].mean(axis=1)
            pair = np.maximum(0.0, seen.max(axis=-1))
            prof[:, k, :] = np.minimum(prof[:, k, :], pair)
        prof[:, ~edge, :] = np.where(np.abs(offs) > 0.15 * px, 0.0, prof[:, ~edge, :])
        j = np.argmax(prof, axis=2)
        peak = np.take_along_axis(prof, j[..., None], 2)[..., 0]
        strength = peak - _median(prof, axis=2)
        typical = float(_median(strength.ravel()))
        at = (cols[np.arange(N)[:, None], np.arange(N + 1)[None, :], j]) / px - margin
        at[:, 0] += FRAME_INNER_LINE  # the inner frame line's centre -> the grid's edge
        at[:, N] -= FRAME_INNER_LINE
        at[strength < 0.4 * max(typical, 1e-6)] = np.nan
        pieces.append(at)
    # at[segment, line] of both axes side by side: the lines' courses fitted at once.
    both = _smooth_along_lines(np.hstack(pieces))
    for axis in range(2):
        at = both[:, axis * (N + 1) : (axis + 1) * (N + 1)]
        # Node (r, c): segments r - 1 and r of vertical line c (or of horizontal line r).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            node = np.nanmean(
                np.stack([np.vstack([at[:1] * np.nan, at]), np.vstack([at, at[:1] * np.nan])]),
                axis=0,
            )  # (N + 1 positions along the line, N + 1 lines)
        # A line's ends lie half a segment beyond its last pieces: extrapolate.
        for end, a, b in ((0, 0, 1), (N, N - 1, N - 2)):
            both_ends = ~np.isnan(at[a]) & ~np.isnan(at[b])
            node[end, both_ends] = 1.5 * at[a, both_ends] - 0.5 * at[b, both_ends]
        found[axis] = node if axis == 0 else node.T
    shift = _frame_nodes_on_their_line(np.stack(found, -1) - cells)
    shift = _reject_unlike_neighbours(shift, 0.08, blend=False, ring_apart=True)
    shift = _fill_nan(shift) if follow else np.nan_to_num(shift)
    moved = cells + shift
    return cv2.perspectiveTransform(moved.reshape(-1, 1, 2), h).reshape(N + 1, N + 1, 2)


def _frame_nodes_on_their_line(shift: np.ndarray) -> np.ndarray:
    """Node shifts (cells; NaN where a coordinate was not measured) to use: a frame
    node with only one coordinate measured keeps it, and its other coordinate moves as
    that coordinate's mean among the nodes around it (by none: it stays). Any other
    node missing a coordinate is unmeasured (all NaN).

    The frame's double line is found on nearly every segment, while the faint dashed
    line meeting it near a corner often is not. Dropping such a node left it off the
    frame by as much as the homography was (up to 0.15 cell at the corner of a hard
    photo's curled or blurred sheet) while its neighbours along the frame moved.
    """
    missing = np.isnan(shift)
    out = shift.copy()
    out[missing.any(-1)] = np.nan
    one = missing.any(-1) & ~missing.all(-1)
    one[1:-1, 1:-1] = False
    if one.any():
        mean = np.nan_to_num(_mean_around(shift))
        out[one] = np.where(missing[one], mean[one], shift[one])
    return out


SMOOTH_ALONG = 0.06  # cells: a line piece this far off its line's smooth course is dropped


_ALONG_U = (np.arange(N) + 0.5 - N / 2) / (N / 2)
_ALONG_BASIS = np.stack([_ALONG_U**d for d in range(4)], -1)  # (segment, 4): cubic along a line


def _smooth_along_lines(at: np.ndarray) -> np.ndarray:
    """Drop line pieces off their line's smooth course (``at[segment, line]``, cells).

    A printed line bends gently with the paper from one end to the other; a
    player's stroke parallel to it (crosshatched farms, outlines) moves a few
    pieces at once. A cubic, refitted without outlying pieces, gives the course.
    All lines are fitted at once; a line stops refitting when its pieces settle.
    Several sets of the ``N + 1`` lines may sit side by side (both axes at once).
    """
    basis = _ALONG_BASIS
    y = (at - np.arange(at.shape[1]) % (N + 1)).T  # (line, segment): off the line's place
    ok = ~np.isnan(y)
    y0 = np.nan_to_num(y)
    fitting = ok.sum(axis=1) >= 5
    use = ok.copy()
    off = np.zeros_like(y0)
    for _ in range(3):
        w = use.astype(float)
        gram = np.einsum("ls,si,sj->lij", w, basis, basis)
        rhs = np.einsum("ls,si,ls->li", w, basis, y0)
        coef = np.zeros((len(y), 4))
        coef[fitting] = np.linalg.solve(gram[fitting], rhs[fitting][..., None])[..., 0]
        off[fitting] = np.abs(y0 - coef @ basis.T)[fitting]
        typical = _median_where(off, ok)[:, None]
        again = ok & (off < np.maximum(SMOOTH_ALONG, 2.5 * typical))
        settled = (again.sum(axis=1) < 5) | (again == use).all(axis=1)
        fitting &= ~settled  # settled lines keep this fit's offsets
        use[fitting] = again[fitting]
        if not fitting.any():
            break
    drop = (ok & (off > SMOOTH_ALONG)) & (ok.sum(axis=1) >= 5)[:, None]
    out = at.copy()
    out[drop.T] = np.nan
    return out


def _median(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """``np.median`` along ``axis`` of NaN-free values: the same numbers (the middle one,
    or the mean of the middle two in the array's own type) without its general
    machinery, which costs more than the sorting on these small arrays."""
    n = values.shape[axis]
    if n % 2:
        return np.partition(values, n // 2, axis=axis).take(n // 2, axis=axis)
    part = np.partition(values, (n // 2 - 1, n // 2), axis=axis)
    return (part.take(n // 2 - 1, axis=axis) + part.take(n // 2, axis=axis)) / 2


def _median_where(values: np.ndarray, use: np.ndarray) -> np.ndarray:
    """Median of each row's ``values`` where ``use`` (NaN for a row with none).

    The same numbers as ``np.nanmedian`` on the masked rows, without its slow
    masked-array path for small arrays.
    """
    ordered = np.sort(np.where(use, values, np.inf), axis=1)
    count = use.sum(axis=1)
    lo = np.clip((count - 1) // 2, 0, None)[:, None]
    hi = np.clip(count // 2, 0, values.shape[1] - 1)[:, None]
    median = (np.take_along_axis(ordered, lo, 1) + np.take_along_axis(ordered, hi, 1))[:, 0] / 2
    return np.where(count > 0, median, np.nan)


def _lattice_from_measurements(
    h: np.ndarray, src: np.ndarray, dst: np.ndarray, inliers: np.ndarray, cell: float
) -> np.ndarray:
    """12 x 12 intersections: measured where an inlier was found, else from ``h``.

    Displacements from the homography are smoothed (median of the neighbourhood)
    and extended to unmeasured nodes and the frame ring from their neighbours, so
    bent paper is followed and single bad measurements are not. Crossings the
    homography's refit left out are not taken (until session 30 any within 0.3 cell
    were): a blob of dense hatching bends a line's quadratic through its pieces, and a
    few such crossings side by side pass the neighbour test (tuning photo 300034, a
    blurred sheet: 0.15 cell off). :func:`refine_locally` follows real bends from here.
    """
    model = model_lattice(h)
    disp = np.full((N + 1, N + 1, 2), np.nan)
    near = cv2.perspectiveTransform(src.reshape(-1, 1, 2).astype(np.float64), h).reshape(-1, 2)
    c, r = src.astype(int)[inliers].T
    disp[r, c] = (dst - near)[inliers]
    disp = _reject_unlike_neighbours(disp, 0.06 * cell)
    disp = _fill_nan(disp)
    return model + disp


def _neighbour_median(disp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median of each node's 8 neighbours (NaN = missing) and how many there were."""
    n1 = disp.shape[0]
    padded = np.pad(disp, ((1, 1), (1, 1), (0, 0)), constant_values=np.nan)
    stack = np.stack(
        [
            padded[1 + dy : n1 + 1 + dy, 1 + dx : n1 + 1 + dx]
            for dy in (-1, 0, 1)
            for dx in (-1, 0, 1)
            if dy or dx
        ]
    )
    count = np.sum(~np.isnan(stack[..., 0]), axis=0)
    ordered = np.sort(stack, axis=0)  # NaNs last
    lo = np.clip((count - 1) // 2, 0, 7)[None, ..., None].repeat(2, axis=-1)
    hi = np.clip(count // 2, 0, 7)[None, ..., None].repeat(2, axis=-1)
    median = (np.take_along_axis(ordered, lo, 0)[0] + np.take_along_axis(ordered, hi, 0)[0]) / 2
    median[count == 0] = np.nan
    return median, count


def _reject_unlike_neighbours(
    disp: np.ndarray, tolerance: float, blend: bool = True, ring_apart: bool = False
) -> np.ndarray:
    """Drop nodes far from their neighbours' median, then (``blend``) average each with it.

    Lines hidden under mountains or heavy drawing give single wrong nodes; real
    paper bends move whole neighbourhoods together. With ``ring_apart`` the frame's
    nodes are compared along their own lines instead (:func:`_unlike_along_lines`): a
    curled edge moves further than the row inside it.
    """
    median, count = _neighbour_median(disp)
    off = np.linalg.norm(disp - median, axis=-1)
    bad = (count >= 3) & (off > tolerance)
    if ring_apart:
        ring = np.ones(disp.shape[:2], bool)
        ring[1:-1, 1:-1] = False
        bad = np.where(ring, _unlike_along_lines(disp) > tolerance, bad)
    out = disp.copy()
    out[bad] = np.nan
    if blend:
        median, count = _neighbour_median(out)
        mixed = ~np.isnan(out[..., 0]) & (count >= 3)
        out[mixed] = 0.5 * out[mixed] + 0.5 * median[mixed]
    return out


def _unlike_along_lines(disp: np.ndarray) -> np.ndarray:
    """How far each node's shift is from what its own lines' other nodes predict.

    ``x`` is the position of the node's vertical line, so the nodes above and
    below predict it: their mean, or a straight continuation of the two on
    either side; ``y`` likewise from the nodes left and right. The closest
    prediction counts, so one stray node does not make its neighbours look
    stray. NaN where nothing predicts the node.
    """
    out = np.full(disp.shape, np.nan)
    for comp in (0, 1):
        d = np.moveaxis(disp[..., comp], comp, 0)  # along the line first
        pred = np.full((3, *d.shape), np.nan)
        pred[0, 1:-1] = (d[:-2] + d[2:]) / 2
        pred[1, 2:] = 2 * d[1:-1] - d[:-2]  # continued from the nodes before
        pred[2, :-2] = 2 * d[1:-1] - d[2:]  # ... and from the nodes after
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            off = np.nanmin(np.abs(d - pred), axis=0)
        out[..., comp] = np.moveaxis(off, 0, comp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmax(out, axis=-1)


def _fill_nan(disp: np.ndarray) -> np.ndarray:
    """Fill missing displacement nodes from their neighbours (zero when none)."""
    out = disp.copy()
    for _ in range(2 * N):
        missing = np.isnan(out[..., 0])
        if not missing.any():
            break
        mean = _mean_around(out)
        fill = missing & ~np.isnan(mean[..., 0])
        if not fill.any():
            break
        out[fill] = mean[fill]
    return np.nan_to_num(out)


def _mean_around(disp: np.ndarray) -> np.ndarray:
    """Per node and coordinate, the mean over its 3 x 3 neighbourhood (itself included)
    of the values that are not NaN; NaN where there are none."""
    padded = np.pad(disp, ((1, 1), (1, 1), (0, 0)), constant_values=np.nan)
    stack = np.stack(
        [padded[1 + dy : N + 2 + dy, 1 + dx : N + 2 + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(stack, axis=0)


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

    def strip(response: np.ndarray, line: float, sign: int, along_rows: bool) -> np.ndarray:
        cols = int(round((line + margin) * px)) + sign * outward
        return (seg_v if along_rows else seg_h)[:, cols].sum(axis=1)  # (n,) per segment

    inner = [strip(vertical, k, 1, True) for k in range(1, n)]
    inner += [strip(horizontal, k, 1, False) for k in range(1, n)]
    typical = float(_median(np.concatenate(inner)))
    if typical <= 0:
        return 0.0
    sides = np.concatenate(
        [
            strip(vertical, 0, 1, True),
            strip(vertical, n, -1, True),
            strip(horizontal, 0, 1, False),
            strip(horizontal, n, -1, False),
        ]
    )
    return float(np.mean(sides > FRAME_OVER_LINES * typical))
