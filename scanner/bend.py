"""Follow bent paper: from a fitted grid's measured crossings to its 12 x 12 lattice.

:func:`with_lattice` (run for the winning fit only) starts from the crossings the
homography's refit kept (:func:`_lattice_from_measurements`), moves every node onto the
line pieces measured right beside it (:func:`refine_locally`, twice), and then either
keeps the homography's grid (flat paper: :data:`FLAT_PAPER`) or holds each node near the
paper's smooth bend (:func:`_limit_local`). Single nodes pulled by drawn strokes are
dropped by comparing them with their neighbours; whole neighbourhoods that move
together are a real bend and are followed.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from functools import cache

import cv2
import numpy as np

from scanner.geometry import FRAME_INNER_LINE, FRAME_OUTER_LINE, FRAME_OUTER_SLACK
from scanner.lattice import (
    LINE_MARGIN,
    LINE_PX,
    GridFit,
    N,
    Pyramid,
    cell_size_px,
    coarse_fit,
    fine_fit,
    line_canvas,
    model_lattice,
    pick,
    row_means,
    subpixel,
)
from scanner.median import fast_median


def with_lattice(pyramid: Pyramid, fit: GridFit) -> GridFit:
    """The fit with its 12 x 12 lattice of intersections measured (done for the winner only)."""
    if fit.lattice is not None:
        return fit
    return replace(fit, lattice=lattice_stages(pyramid, fit)[-1][1])


def lattice_stages(pyramid: Pyramid, fit: GridFit) -> list[tuple[str, np.ndarray]]:
    """The fit's lattice after each step of :func:`with_lattice`, named; the last is the
    lattice it keeps (``benchmarks/lattice_stages.py`` compares each with the truth).

    The crossings the homography's refit kept, then each pass of
    :func:`refine_locally`, then either the homography's grid (flat paper) or the
    nodes held near the paper's smooth bend (:func:`_limit_local`).
    """
    m = fit.measurement
    points = _lattice_from_measurements(
        m.homography, m.nodes, m.measured, m.inliers, cell_size_px(m.homography)
    )
    stages = [("measured", points)]
    responses = line_canvas(pyramid, m.homography)  # both passes look at the same canvas
    bent = _smooth_bend(m.homography, points) > BENT_PAPER
    for i in range(2):
        points = refine_locally(pyramid, m.homography, points, responses, follow=bent)
        stages.append((f"pass {i + 1}", points))
    if _smooth_bend(m.homography, points) < FLAT_PAPER:
        # flat paper: local measurements add only noise
        stages.append(("flat", model_lattice(m.homography)))
    else:
        stages.append(("held to the bend", _limit_local(m.homography, points)))
    return stages


def fit_lattice(pyramid: Pyramid, quad: np.ndarray, source: str = "") -> GridFit | None:
    """Fit the 11 x 11 lattice starting from a candidate quad (clockwise corners).

    The quad may be the frame's outer edge, the grid edge or a little off: a
    comb search over line offset and pitch corrects scale and shift, then two
    passes measure the interior intersections and fit a homography to them.
    """
    coarse = coarse_fit(pyramid, quad)
    fit = None if coarse is None else fine_fit(pyramid, coarse[0], quad, source)
    return None if fit is None else with_lattice(pyramid, fit)


LOCAL_SLACK = 0.02  # cells: how far a node may leave the paper's bend where it lies
BENT_PAPER = 0.12  # cells of smooth bend from which unmeasured nodes follow their neighbours
NEAR = 2  # nodes: how far the neighbours reach whose residuals give a node's local trend


def _limit_local(h: np.ndarray, lattice: np.ndarray) -> np.ndarray:
    """Keep every node within ``LOCAL_SLACK`` of the paper's bend where it lies.

    Paper bends smoothly, so the nodes' displacements from the homography's grid
    are fitted by a cubic surface (robustly: Huber weights). A curled corner bends
    more than a cubic can follow, so each node's bend is the surface plus the local
    trend of its neighbours' residuals (:func:`_local_trend`); a node may differ
    from that only a little. Several neighbouring nodes pulled the same way by
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
        scale = 2.5 * max(0.02, 1.4826 * float(fast_median(res)))
        w = 1 / np.sqrt(np.maximum(1.0, (res / scale) ** 2))
    surface = basis @ coef
    surface += _local_trend(d - surface)
    off = d - surface
    norm = np.linalg.norm(off, axis=1, keepdims=True)
    off *= np.minimum(1.0, LOCAL_SLACK / np.maximum(norm, 1e-9))
    return model + ((surface + off) * cell).reshape(N + 1, N + 1, 2)


def _neighbourhoods(reach: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every node of the 12 x 12 lattice, its neighbours within ``reach`` (itself
    excluded): their flat indices, whether each lies on the lattice, and the design
    rows (1, row offset, column offset) of a plane through them: (144, m) twice and
    (144, m, 3)."""
    di, dj = (a.ravel() for a in np.mgrid[-reach : reach + 1, -reach : reach + 1])
    di, dj = di[(di != 0) | (dj != 0)], dj[(di != 0) | (dj != 0)]
    i, j = (a.ravel()[:, None] for a in np.mgrid[0 : N + 1, 0 : N + 1])
    rows, cols = i + di, j + dj
    on = (rows >= 0) & (rows <= N) & (cols >= 0) & (cols <= N)
    index = np.clip(rows, 0, N) * (N + 1) + np.clip(cols, 0, N)
    design = np.stack(np.broadcast_arrays(1.0, di * 1.0, dj * 1.0), -1)
    return index, on, np.broadcast_to(design, (*index.shape, 3))


_NEIGHBOURS = _neighbourhoods(NEAR)
_COUNT = _NEIGHBOURS[1].sum(axis=1)  # neighbours each node has on the lattice
_NODES = np.arange((N + 1) ** 2)
# The least-squares plane through all of each node's neighbours, as one linear map.
_FIRST_PLANE = np.linalg.pinv(_NEIGHBOURS[2] * _NEIGHBOURS[1][..., None])


def _local_trend(residual: np.ndarray) -> np.ndarray:
    """Each node's residual (``(144, 2)``, cells) as its neighbours' residuals run
    there: a plane through those within :data:`NEAR`, refitted once without the
    ones far off it. A lone node pulled by a stroke does not move its own trend."""
    index, on, design = _NEIGHBOURS
    values = residual[index]
    coef = _FIRST_PLANE @ values  # (144, 3, 2): each node's plane
    off = np.linalg.norm(design @ coef - values, axis=-1)
    ranked = np.sort(np.where(on, off, np.inf), axis=1)  # each node's neighbours first
    typical = (ranked[_NODES, (_COUNT - 1) // 2] + ranked[_NODES, _COUNT // 2])[:, None] / 2
    kept = (design * (on & (off < np.maximum(0.05, 2.5 * typical)))[..., None]).transpose(0, 2, 1)
    return np.linalg.solve(kept @ design, kept @ values)[:, 0]


#: Cells: below this smooth bend the homography alone gives the lattice. Session 30 raised
#: it from 0.02: line pieces were found to a pixel of a 24 px-a-cell canvas (0.04 cell),
#: and on the tuning photos flat sheets read as bent more often than bends this slight
#: were real (worst cell: clean mean 0.022 -> 0.015, normal 0.030 -> 0.026). Session 39
#: places the pieces to a fraction of a pixel but kept the bar: a flat stand-in sheet
#: then reads 0.025, and lower bars lost normal spent photos in a replay of their steps.
FLAT_PAPER = 0.035


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
        keep = residual < max(0.05, 2.5 * float(fast_median(residual)))
    return float(np.abs(basis @ coef).max())


@cache
def _surface_basis(degree: int) -> np.ndarray:
    """Monomials up to ``degree`` (1, u, v, u^2, uv, v^2, ...) at the 12 x 12 nodes,
    with u and v running -1..1 across the grid: (144, terms), read-only (made once)."""
    t = np.linspace(-1.0, 1.0, N + 1)
    u, v = (a.ravel() for a in np.meshgrid(t, t))
    terms = [u**i * v ** (k - i) for k in range(degree + 1) for i in range(k, -1, -1)]
    basis = np.stack(terms, -1)
    basis.flags.writeable = False
    return basis


EDGE_WINDOW = 0.20  # cells: how far from the lattice the frame's inner line is looked for


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
    Each piece lies at its profile's peak, to a fraction of a pixel
    (:func:`scanner.lattice.subpixel`). A node takes the mean of its two adjacent
    pieces per direction (a line's ends continue its last two); nodes unlike their
    neighbours, or not measured, keep their place, or (``follow``: bent paper) move
    as their measured neighbours do. ``responses``: :func:`line_canvas` of ``h``
    when already made.

    On bent paper the nodes left unmeasured are mostly where the paper bends most (a
    lifted corner, its lines faint, in shadow or beyond the narrow window): kept in
    place, they hold the lattice back there while the nodes beside them move, and
    the smooth surface of :func:`_limit_local` is then fitted to both. Following
    their neighbours, the next pass looks for their lines nearer where they are.
    """
    px, margin = LINE_PX, LINE_MARGIN
    vertical, horizontal = line_canvas(pyramid, h) if responses is None else responses
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
        # Each segment's band averaged across the line first: its columns are the profiles.
        seg = row_means(response if axis == 0 else response.T, rows)  # (segment i, px)
        segment = np.arange(N)[:, None, None]
        prof = seg[segment, cols]
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
            seen = seg[segment, far]
            pair = np.maximum(0.0, seen.max(axis=-1))
            prof[:, k, :] = np.minimum(prof[:, k, :], pair)
        prof[:, ~edge, :] = np.where(np.abs(offs) > 0.15 * px, 0.0, prof[:, ~edge, :])
        j = np.argmax(prof, axis=2)
        peak = pick(prof, j)
        strength = peak - fast_median(prof, axis=2)
        typical = float(fast_median(strength.ravel()))
        sub = subpixel(prof, j, peak)
        at = (pick(cols, j) + sub) / px - margin
        at[:, 0] += FRAME_INNER_LINE  # the inner frame line's centre -> the grid's edge
        at[:, N] -= FRAME_INNER_LINE
        at[strength < 0.4 * max(typical, 1e-6)] = np.nan
        pieces.append(at)
    # at[segment, line] of both axes side by side: the lines' courses fitted at once.
    both = _smooth_along_lines(np.hstack(pieces))
    for axis in range(2):
        at = both[:, axis * (N + 1) : (axis + 1) * (N + 1)]
        # Node (r, c): segments r - 1 and r of vertical line c (or of horizontal line r).
        node = _nanmean_pair(
            np.vstack([at[:1] * np.nan, at]), np.vstack([at, at[:1] * np.nan])
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


def _nanmean_pair(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.nanmean`` of ``a`` and ``b`` element by element (the same numbers: the sum of
    those not NaN over their count), without its machinery; NaN where both are."""
    count = (~np.isnan(a)).astype(float) + ~np.isnan(b)
    total = np.where(np.isnan(a), 0.0, a) + np.where(np.isnan(b), 0.0, b)
    return np.divide(total, count, out=np.full_like(total, np.nan), where=count > 0)


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


def _median_where(values: np.ndarray, use: np.ndarray) -> np.ndarray:
    """Median of each row's ``values`` where ``use`` (NaN for a row with none).

    The same numbers as ``np.nanmedian`` on the masked rows, without its slow
    masked-array path for small arrays.
    """
    ordered = np.sort(np.where(use, values, np.inf), axis=1)
    count = use.sum(axis=1)
    lo = np.maximum((count - 1) // 2, 0)[:, None]
    hi = np.minimum(count // 2, values.shape[1] - 1)[:, None]
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
    padded = _padded(disp)
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
    lo = np.maximum((count - 1) // 2, 0)[None, ..., None]  # 8 neighbours at most
    hi = (count // 2)[None, ..., None]
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
    padded = _padded(disp)
    stack = np.stack(
        [padded[1 + dy : N + 2 + dy, 1 + dx : N + 2 + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(stack, axis=0)


def _padded(disp: np.ndarray) -> np.ndarray:
    """``disp`` (rows, cols, 2) with a ring of NaN around it (``np.pad``, made directly)."""
    padded = np.full((disp.shape[0] + 2, disp.shape[1] + 2, *disp.shape[2:]), np.nan, disp.dtype)
    padded[1:-1, 1:-1] = disp
    return padded
