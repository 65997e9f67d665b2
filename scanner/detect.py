"""Find the 11 x 11 grid in a photo.

Several independent candidate generators propose where the grid might be
(the outline of the thick black frame, pairs of long straight lines from two
near-perpendicular families); every candidate is then *fitted* to the
printed lattice -- a comb search for the 12 grid lines' offset and pitch,
then the interior intersections measured one by one and a homography fitted
to them -- and the candidate whose lattice fits best wins.

Coordinates: image pixels are ``(x, y)`` in the working image given to
:func:`find_grid`; cell units follow :mod:`scanner.geometry` (origin at the
grid's top-left, 11 cells a side). A fit's homography maps cell units to
image pixels in the *candidate's own* orientation: which corner is A1 is
decided later by :mod:`scanner.orient`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import cv2
import numpy as np

from scanner.geometry import FRAME_WIDTH, GRID_CELLS, page_box
from scoring.layouts import LAYOUTS

N = GRID_CELLS
GRID_CORNERS = np.float32([[0, 0], [N, 0], [N, N], [0, N]])
ACCEPT_SCORE = 0.6  # below this no sheet is reported
GOOD_ENOUGH = 0.85  # a candidate this good ends the search early
FINE_FITS = 2  # candidates of one generator measured in full, best coarse scores first


@dataclass(frozen=True)
class GridFit:
    """A grid fitted to the photo.

    ``homography`` maps cell units to image pixels; ``lattice`` is the 12 x 12 x 2
    array of measured (or, where not measurable, modelled) intersections in image
    pixels; ``score`` in 0..1 says how well the photo shows an 11 x 11 lattice
    with a thick frame there.
    """

    homography: np.ndarray
    lattice: np.ndarray
    score: float
    source: str
    quad: np.ndarray
    interior: float = 0.0  # share of interior line segments found on the model
    frame: float = 0.0  # share of the frame found dark


@dataclass
class Detection:
    """Everything detection tried (for the overlay) and the best fit, if any."""

    best: GridFit | None
    candidates: list[tuple[str, np.ndarray, float]] = field(default_factory=list)


def ink_image(image: np.ndarray) -> np.ndarray:
    """Darkness of printed lines as a uint8 image: the minimum of B, G, R.

    Orange lines (side A) vanish in grey but are dark in blue; grey and black
    lines are dark in every channel, so the channel minimum shows them all.
    """
    if image.ndim == 2:
        return image
    return cv2.min(cv2.min(image[:, :, 0], image[:, :, 1]), image[:, :, 2])


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


def find_grid(image: np.ndarray, pyramid: Pyramid | None = None) -> Detection:
    """Locate the grid in a (working-resolution) BGR photo.

    ``pyramid`` may pass a ready :class:`Pyramid` of :func:`ink_image`. Returns a
    :class:`Detection`; its ``best`` is None when nothing fitted well enough
    (score below ``ACCEPT_SCORE``).
    """
    if pyramid is None:
        pyramid = Pyramid(ink_image(image))
    small, small_scale = _detection_level(pyramid)
    small_bgr = cv2.resize(image, small.shape[::-1], interpolation=cv2.INTER_AREA)
    detection = Detection(best=None)
    generators = (
        ("frame", _frame_quads),
        ("mountains", _mountain_quads),
        ("paper", _paper_quads),
        ("lines", _line_quads),
    )
    seen: list[np.ndarray] = []
    for name, generate in generators:
        coarse = []
        for quad in generate(small, small_bgr):
            quad = _clockwise(quad / small_scale)
            if any(_same_quad(quad, q) for q in seen):
                continue
            seen.append(quad)
            fit = coarse_fit(pyramid, quad)
            if fit is not None:
                coarse.append((fit[1], fit[0], quad))
            else:
                detection.candidates.append((name, quad, 0.0))
        coarse.sort(key=lambda item: -item[0])
        for rank, (_, h, quad) in enumerate(coarse):
            done = detection.best is not None and detection.best.score >= GOOD_ENOUGH
            fit = None
            if rank < FINE_FITS and not done:
                fit = fine_fit(pyramid, h, quad, name)
                # The comb can slip a whole cell on busy sheets: try the quad as it came too.
                raw = _quad_homography(quad)
                if (
                    raw is not None
                    and _max_shift(raw, h) > 0.3
                    and (fit is None or fit.score < GOOD_ENOUGH)
                ):
                    other = fine_fit(pyramid, raw, quad, name)
                    if other is not None and (fit is None or other.score > fit.score):
                        fit = other
            detection.candidates.append((name, quad, fit.score if fit else 0.0))
            if fit and (detection.best is None or fit.score > detection.best.score):
                detection.best = fit
        if detection.best and detection.best.score >= GOOD_ENOUGH:
            return detection
    if detection.best and detection.best.score < ACCEPT_SCORE:
        detection.best = None
    return detection


def _detection_level(pyramid: Pyramid) -> tuple[np.ndarray, float]:
    """The pyramid level whose long side is nearest 640 px, and its scale."""
    best = 0
    for i, level in enumerate(pyramid.levels):
        if max(level.shape[:2]) >= 480:
            best = i
    return pyramid.levels[best], 2.0**-best


# --- candidate generators -------------------------------------------------------------


def _paper_quads(ink: np.ndarray, bgr: np.ndarray) -> list[np.ndarray]:
    """Grid quads inferred from the outline of the bright paper.

    The grid sits nearly centred on the page (SHEET.md), so the page's quad,
    with its long sides taken as the page's height, gives the grid's quad up to
    a few percent, whichever end of the page is the top.
    """
    h, w = ink.shape
    blur = cv2.GaussianBlur(ink, (5, 5), 0)
    otsu, _ = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    page = page_box()
    gx0, gy0 = -page.x0, -page.y0  # grid origin on the page
    grid_on_page = np.float32([[gx0, gy0], [gx0 + N, gy0], [gx0 + N, gy0 + N], [gx0, gy0 + N]])
    # Centre the grid on the page (the printed offsets differ by a fraction of a cell).
    pw, ph = page.x1 - page.x0, page.y1 - page.y0
    grid_on_page += np.float32([(pw - N) / 2 - gx0, (ph - N) / 2 - gy0])
    page_corners = np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]])
    quads = []
    for level in (otsu, 0.5 * (otsu + float(np.percentile(blur, 97)))):
        _, bright = cv2.threshold(blur, level, 255, cv2.THRESH_BINARY)
        bright = cv2.morphologyEx(bright, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:2]:
            hull = cv2.convexHull(contour)
            if cv2.contourArea(hull) < 0.05 * h * w:
                break
            quad = _hull_to_quad(hull)
            if quad is None:
                continue
            quad = _clockwise(quad)
            sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
            if sides[0] + sides[2] > sides[1] + sides[3]:  # long sides first: turn a quarter
                quad = np.roll(quad, -1, axis=0)
            m = cv2.getPerspectiveTransform(page_corners, quad.astype(np.float32))
            grid = cv2.perspectiveTransform(grid_on_page.reshape(-1, 1, 2), m).reshape(4, 2)
            quads.append(grid.astype(np.float64))
    return quads


def _frame_quads(ink: np.ndarray, bgr: np.ndarray) -> list[np.ndarray]:
    """Quads outlining large dark closed shapes: the frame ring (and what encloses it)."""
    h, w = ink.shape
    block = max(15, (min(h, w) // 20) | 1)
    dark = cv2.adaptiveThreshold(
        ink, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 20
    )
    contours, _ = cv2.findContours(dark, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    area_min = 0.02 * h * w
    for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:12]:
        hull = cv2.convexHull(contour)
        if cv2.contourArea(hull) < area_min:
            break
        quad = _hull_to_quad(hull)
        if quad is not None:
            quads.append(quad)
    return quads


def _mountain_quads(ink: np.ndarray, bgr: np.ndarray, most: int = 10) -> list[np.ndarray]:
    """Grid quads from the printed mountains: dark square blobs in a known pattern.

    Blobs about a cell large are matched, three at a time, to three mountains
    of each side's layout; the affine map this fixes must put the other two
    mountains on blobs too. Matches of four or five mountains give a homography.
    """
    centres, sizes = _dark_squares(bgr, most)
    n = len(centres)
    if n < 4:
        return []
    triples = np.array(
        [(i, j, k) for i in range(n) for j in range(n) for k in range(n) if len({i, j, k}) == 3]
    )
    quads = []
    for layout in LAYOUTS.values():
        base, rest = _spread_triple([(c + 0.5, r + 0.5) for r, c in sorted(layout.mountains)])
        to_affine = np.linalg.inv(np.column_stack([base, np.ones(3)]))  # (3, 3)
        pts = centres[triples]  # (M, 3, 2)
        affine = np.einsum("ij,mjk->mik", to_affine, pts)  # (M, 3, 2): [x y 1] @ A
        linear = affine[:, :2, :]
        det = np.linalg.det(linear)
        cell = np.sqrt(np.abs(det))
        size = sizes[triples].mean(axis=1)
        plausible = (det > 0) & (cell > 0.6 * size) & (cell < 1.7 * size)
        predicted = np.einsum("oj,mjk->mok", np.column_stack([rest, np.ones(2)]), affine)
        dist = np.linalg.norm(predicted[:, :, None, :] - centres[None, None], axis=-1)
        nearest = dist.argmin(axis=2)  # (M, 2)
        close = dist.min(axis=2) < 0.6 * cell[:, None]
        hits = close.sum(axis=1)
        for m in np.nonzero(plausible & (hits >= 1))[0]:
            src = [*base]
            dst = [*centres[triples[m]]]
            for o in range(2):
                if close[m, o]:
                    src.append(rest[o])
                    dst.append(centres[nearest[m, o]])
            if len(src) == 5:
                h, _ = cv2.findHomography(np.float32(src), np.float32(dst), 0)
            else:
                h = np.vstack([affine[m].T, [0, 0, 1]])
            if h is None:
                continue
            quad = cv2.perspectiveTransform(GRID_CORNERS.reshape(-1, 1, 2), h).reshape(4, 2)
            if any(_same_quad(quad, q) for _, q in quads):
                continue
            quads.append((len(src), quad.astype(np.float64)))
    quads.sort(key=lambda item: -item[0])  # five mountains matched first
    return [q for _, q in quads[:6]]


def _spread_triple(points: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """The three points spanning the largest triangle (a well-conditioned affine) and the rest."""
    pts = np.array(points)
    best, pick = -1.0, (0, 1, 2)
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            for k in range(j + 1, len(pts)):
                a, b = pts[j] - pts[i], pts[k] - pts[i]
                area = abs(a[0] * b[1] - a[1] * b[0])
                if area > best:
                    best, pick = area, (i, j, k)
    rest = [i for i in range(len(pts)) if i not in pick]
    return pts[list(pick)], pts[rest]


def _dark_squares(bgr: np.ndarray, most: int) -> tuple[np.ndarray, np.ndarray]:
    """Centres and sides (px) of dark, roughly square blobs: mountain candidates."""
    value = bgr.max(axis=2)  # dark in every channel: not blue or red hatching
    h, w = value.shape
    block = max(31, (min(h, w) // 6) | 1)
    dark = cv2.adaptiveThreshold(
        value, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 45
    )
    # Fill the white mountain drawing, then cut off the outlines players draw along
    # cell borders; outlines are thicker on big sheets, so try a few opening sizes.
    dark = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    found: list[tuple[float, np.ndarray, float]] = []
    for k in (3, 5, 7):
        opened = cv2.morphologyEx(dark, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        for area, centre, size in _square_blobs(opened, bgr, k):
            if all(np.linalg.norm(centre - c) > 0.5 * size for _, c, _ in found):
                found.append((area, centre, size))
    found.sort(key=lambda f: -f[0])
    found = found[:most]
    if not found:
        return np.zeros((0, 2)), np.zeros(0)
    return np.array([f[1] for f in found]), np.array([f[2] for f in found])


def _square_blobs(mask: np.ndarray, bgr: np.ndarray, kernel: int):
    """(area, centre, side) of brownish, roughly square connected blobs of ``mask``."""
    h, w = mask.shape
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return []
    # Mean colour per blob: printed mountains are brown/maroon (red above blue).
    flat = labels.ravel()
    area_all = np.maximum(stats[:, cv2.CC_STAT_AREA], 1)
    blue = np.bincount(flat, weights=bgr[..., 0].ravel(), minlength=count) / area_all
    red = np.bincount(flat, weights=bgr[..., 2].ravel(), minlength=count) / area_all
    out = []
    for i in range(1, count):
        x, y, bw, bh, area = stats[i]
        if area < max(25, 4 * kernel * kernel) or area > 0.01 * h * w:
            continue
        if red[i] < blue[i] + 8:
            continue
        if max(bw, bh) > 2.2 * min(bw, bh):
            continue
        # A square seen in perspective fills at least ~half its bounding box.
        if area < 0.45 * bw * bh:
            continue
        out.append((float(area), centroids[i], float(np.sqrt(area))))
    return out


def _hull_to_quad(hull: np.ndarray) -> np.ndarray | None:
    if hasattr(cv2, "approxPolyN"):
        quad = cv2.approxPolyN(hull, 4, epsilon_percentage=-1.0, ensure_convex=True)
        quad = quad.reshape(-1, 2).astype(np.float64)
        return quad if len(quad) == 4 else None
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) < 4:
            return None
    return None


def _line_quads(ink: np.ndarray, bgr: np.ndarray, per_family: int = 6) -> list[np.ndarray]:
    """Quads bounded by pairs of long lines from the two dominant directions."""
    h, w = ink.shape
    edges = cv2.Canny(cv2.GaussianBlur(ink, (3, 3), 0), 40, 120)
    min_len = 0.12 * min(h, w)
    segs = cv2.HoughLinesP(edges, 1, np.pi / 360, 40, minLineLength=min_len, maxLineGap=6)
    if segs is None:
        return []
    segs = segs.reshape(-1, 4).astype(np.float64)
    dx, dy = segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1]
    length = np.hypot(dx, dy)
    angle = np.mod(np.arctan2(dy, dx), np.pi)
    hist = np.bincount((angle / np.pi * 90).astype(int) % 90, weights=length, minlength=90)
    hist = hist + np.roll(hist, 1) + np.roll(hist, -1)
    a1 = int(np.argmax(hist))
    far = np.abs(((np.arange(90) - a1 + 45) % 90) - 45) >= 25  # at least 50 degrees apart
    if not far.any() or hist[far].max() <= 0:
        return []
    a2 = int(np.arange(90)[far][np.argmax(hist[far])])
    families = []
    for a in (a1, a2):
        theta = (a + 0.5) * np.pi / 90
        diff = np.abs(((angle - theta + np.pi / 2) % np.pi) - np.pi / 2)
        members = np.nonzero(diff < np.radians(20))[0]
        families.append(_merge_lines(segs[members], length[members], per_family))
    quads = []
    area_min = 0.02 * h * w
    for i, j in _pairs(len(families[0])):
        for k, m in _pairs(len(families[1])):
            l1, l2, l3, l4 = families[0][i], families[0][j], families[1][k], families[1][m]
            corners = [_intersect(l1, l3), _intersect(l3, l2), _intersect(l2, l4)]
            corners.append(_intersect(l4, l1))
            if any(c is None for c in corners):
                continue
            quad = np.array(corners)
            if not cv2.isContourConvex(quad.astype(np.float32)):
                continue
            if cv2.contourArea(quad.astype(np.float32)) < area_min:
                continue
            if np.any(np.abs(quad) > 3 * max(h, w)):
                continue
            quads.append(quad)
    return quads


def _pairs(n: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def _merge_lines(segs: np.ndarray, length: np.ndarray, keep: int) -> list[np.ndarray]:
    """Merge collinear segments; return the ``keep`` longest lines as (a, b, c), ax+by=c."""
    order = np.argsort(-length)
    lines: list[list[float]] = []  # a, b, c, total length
    for s in order:
        x1, y1, x2, y2 = segs[s]
        n = np.array([y1 - y2, x2 - x1]) / length[s]
        c = n @ (x1, y1)
        for line in lines:
            if abs(n @ line[:2]) > np.cos(np.radians(3)):
                sign = np.sign(n @ line[:2])
                if abs(sign * c - line[2]) < 4:
                    line[3] += length[s]
                    break
        else:
            lines.append([n[0], n[1], c, length[s]])
    lines.sort(key=lambda line: -line[3])
    return [np.array(line[:3]) for line in lines[:keep]]


def _intersect(l1: np.ndarray, l2: np.ndarray) -> np.ndarray | None:
    m = np.array([l1[:2], l2[:2]])
    if abs(np.linalg.det(m)) < 0.2:
        return None
    return np.linalg.solve(m, [l1[2], l2[2]])


def _clockwise(quad: np.ndarray) -> np.ndarray:
    """Order 4 corners clockwise on screen (y down), starting from the top-left-most."""
    centre = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(ang)]  # increasing angle = clockwise with y down
    start = int(np.argmin(quad.sum(axis=1)))
    return np.roll(quad, -start, axis=0)


def _same_quad(a: np.ndarray, b: np.ndarray) -> bool:
    size = np.sqrt(abs(cv2.contourArea(a.astype(np.float32))))
    return bool(np.max(np.linalg.norm(a - b, axis=1)) < 0.01 * size)


# --- fitting a lattice to a candidate -------------------------------------------------


def fit_lattice(pyramid: Pyramid, quad: np.ndarray, source: str = "") -> GridFit | None:
    """Fit the 11 x 11 lattice starting from a candidate quad (clockwise corners).

    The quad may be the frame's outer edge, the grid edge or a little off: a
    comb search over line offset and pitch corrects scale and shift, then two
    passes measure the interior intersections and fit a homography to them.
    """
    coarse = coarse_fit(pyramid, quad)
    return None if coarse is None else fine_fit(pyramid, coarse[0], quad, source)


def _quad_homography(quad: np.ndarray) -> np.ndarray | None:
    """Cell units -> pixels taking the quad's corners as the grid's (clockwise from A1's)."""
    h = cv2.getPerspectiveTransform(GRID_CORNERS, quad.astype(np.float32)).astype(np.float64)
    return h if np.isfinite(h).all() else None


def _max_shift(h1: np.ndarray, h2: np.ndarray) -> float:
    """Largest distance, in cells of ``h1``, between the grid corners under two homographies."""
    corners = GRID_CORNERS.reshape(-1, 1, 2)
    a = cv2.perspectiveTransform(corners, h1).reshape(4, 2)
    b = cv2.perspectiveTransform(corners, h2).reshape(4, 2)
    return float(np.linalg.norm(a - b, axis=1).max() / cell_size_px(h1))


def coarse_fit(pyramid: Pyramid, quad: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Homography from the quad corrected by two comb searches, and the comb's score."""
    h = _quad_homography(quad)
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
        moved = _max_shift(h, result.homography)
        h = result.homography
        if moved < 0.03:
            break
    if best is None:
        return None
    cell = cell_size_px(best.homography)
    points = _lattice_from_measurements(
        best.homography, best.nodes, best.measured, best.inliers, cell
    )
    score = best.agreement * (0.25 + 0.75 * best.frame)
    return GridFit(best.homography, points, float(score), source, quad, best.agreement, best.frame)


@dataclass(frozen=True)
class _Measurement:
    homography: np.ndarray
    nodes: np.ndarray  # (K, 2) lattice nodes (cell units) that were measured
    measured: np.ndarray  # (K, 2) where they were found, image pixels
    inliers: np.ndarray  # (K,) bool, agreeing with the homography
    agreement: float
    frame: float


def cell_size_px(homography: np.ndarray) -> float:
    """Mean side of a cell in image pixels under ``homography``."""
    corners = cv2.perspectiveTransform(GRID_CORNERS.reshape(-1, 1, 2), homography).reshape(4, 2)
    return float(np.sqrt(abs(cv2.contourArea(corners.astype(np.float32)))) / N)


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
    frame: a solid line with a second one ``FRAME_WIDTH`` further out.
    """
    pitches = np.linspace(0.84, 1.19, 29)[:, None, None]
    offsets = np.arange(-1.6, 1.6 + 1e-9, 1 / px / 2)[None, :, None]
    k = np.arange(N + 1)[None, None, :]
    pos = offsets + pitches * k  # cells
    mid = offsets + pitches * (k[..., :-1] + 0.5)
    up = 4  # sample the profile on a 4x finer grid by nearest index (fast gathers)
    # Smooth a little so a line one canvas pixel off still counts; compress so a
    # tooth landing on the frame or a mountain cannot outweigh many thin lines.
    prof = np.log1p(np.convolve(profile, [0.25, 0.5, 0.25], mode="same"))
    table = np.interp(np.arange(len(prof) * up) / up, np.arange(len(prof)), prof)

    def sample(cells: np.ndarray) -> np.ndarray:
        idx = np.clip(np.rint((cells + margin) * px * up).astype(int), 0, len(table) - 1)
        return table[idx]

    base = sample(mid).mean(-1)
    lines = sample(pos[..., 1:-1]).mean(-1) - base
    fw = FRAME_WIDTH * pitches[..., 0]
    near = (sample(pos[..., 0]) + sample(pos[..., 0] - fw)) / 2
    far = (sample(pos[..., -1]) + sample(pos[..., -1] + fw)) / 2
    frame = np.minimum(near, far) - base
    score = lines + frame
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    return float(offsets[0, j, 0]), float(pitches[i, 0, 0]), float(score[i, j])


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
    px, margin = 24.0, 0.75
    size = int(round((N + 2 * margin) * px))
    canvas = pyramid.warp(h, px, -margin, size, cell_size_px(h))
    vertical, horizontal = _line_response(canvas, px)
    offs = np.arange(-int(half * px), int(half * px) + 1)
    start = int(round(margin * px))
    length = int(N * px) // CHUNKS
    chunk_rows = start + np.arange(CHUNKS)[:, None] * length + np.arange(length)  # (C, L)
    lines = np.arange(N + 1)  # 0 and N are the frame's inner line, the grid's edge
    line_cols = (np.round((lines + margin) * px).astype(int))[:, None] + offs
    # prof[k, j, :]: response across line k within piece j.
    pv = vertical[chunk_rows[:, :, None, None], line_cols[None, None]].mean(axis=1)
    ph = horizontal[line_cols[None, None], chunk_rows[:, :, None, None]].mean(axis=1)
    # The frame's outer line runs FRAME_WIDTH outside: look for the inner one only near 0.
    near_edge = np.abs(offs) <= 0.1 * px
    along = (np.arange(CHUNKS) + 0.5) * length / px  # piece centres in cells
    pos = np.zeros((2, N + 1, CHUNKS))
    strength = np.zeros((2, N + 1, CHUNKS))
    for axis, prof in ((0, pv), (1, ph)):
        prof = prof.transpose(1, 0, 2).copy()  # (k, j, offset)
        base = np.median(prof, axis=2)
        for k in (0, N):
            prof[k][:, ~near_edge] = 0.0
        j = np.argmax(prof, axis=2)
        peak = np.take_along_axis(prof, j[..., None], 2)[..., 0]
        left = np.take_along_axis(prof, np.clip(j - 1, 0, len(offs) - 1)[..., None], 2)[..., 0]
        right = np.take_along_axis(prof, np.clip(j + 1, 0, len(offs) - 1)[..., None], 2)[..., 0]
        den = left - 2 * peak + right
        with np.errstate(all="ignore"):
            sub = np.where(den < 0, 0.5 * (left - right) / den, 0.0)
        sub = np.clip(sub, -0.5, 0.5)
        strength[axis] = peak - base
        pos[axis] = (offs[j] + sub) / px + lines[:, None]
    typical = float(np.median(strength[:, 1:N]))
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
    frame = _frame_share(vertical, horizontal, px, margin)
    return _Measurement(new_h, src_a, dst_a, inliers.ravel().astype(bool), agree, frame)


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
        keep = err < max(tolerance, 2.5 * float(np.median(err)))
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


def _lattice_from_measurements(
    h: np.ndarray, src: np.ndarray, dst: np.ndarray, inliers: np.ndarray, cell: float
) -> np.ndarray:
    """12 x 12 intersections: measured where an inlier was found, else from ``h``.

    Displacements from the homography are smoothed (median of the neighbourhood)
    and extended to unmeasured nodes and the frame ring from their neighbours, so
    bent paper is followed and single bad measurements are not.
    """
    grid = np.stack(np.meshgrid(np.arange(N + 1.0), np.arange(N + 1.0)), -1)
    model = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), h).reshape(N + 1, N + 1, 2)
    disp = np.full((N + 1, N + 1, 2), np.nan)
    near = cv2.perspectiveTransform(src.reshape(-1, 1, 2).astype(np.float64), h).reshape(-1, 2)
    for (c, r), d, m, ok in zip(src.astype(int), dst, near, inliers, strict=True):
        if ok or np.linalg.norm(d - m) < 0.3 * cell:
            disp[r, c] = d - m
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(stack, axis=0), count


def _reject_unlike_neighbours(disp: np.ndarray, tolerance: float) -> np.ndarray:
    """Drop nodes far from their neighbours' median, then blend each with that median.

    Lines hidden under mountains or heavy drawing give single wrong nodes; real
    paper bends move whole neighbourhoods together.
    """
    median, count = _neighbour_median(disp)
    off = np.linalg.norm(disp - median, axis=-1)
    bad = (count >= 3) & (off > tolerance)
    out = disp.copy()
    out[bad] = np.nan
    median, count = _neighbour_median(out)
    blend = ~np.isnan(out[..., 0]) & (count >= 3)
    out[blend] = 0.5 * out[blend] + 0.5 * median[blend]
    return out


def _fill_nan(disp: np.ndarray) -> np.ndarray:
    """Fill missing displacement nodes from their neighbours (zero when none)."""
    out = disp.copy()
    for _ in range(2 * N):
        missing = np.isnan(out[..., 0])
        if not missing.any():
            break
        padded = np.pad(out, ((1, 1), (1, 1), (0, 0)), constant_values=np.nan)
        stack = np.stack(
            [
                padded[1 + dy : N + 2 + dy, 1 + dx : N + 2 + dx]
                for dy in (-1, 0, 1)
                for dx in (-1, 0, 1)
            ]
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(stack, axis=0)
        fill = missing & ~np.isnan(mean[..., 0])
        if not fill.any():
            break
        out[fill] = mean[fill]
    return np.nan_to_num(out)


def _frame_share(vertical: np.ndarray, horizontal: np.ndarray, px: float, margin: float) -> float:
    """Share of the frame's 44 side segments where a double solid line borders the grid.

    Compares the line response summed across a strip just outside each grid
    edge (the inner line at the edge and the outer one ``FRAME_WIDTH`` further)
    with the same sum across the interior dashed lines; the frame gives several
    times more. A lattice shifted by a cell has a dashed line or nothing there.
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
    typical = float(np.median(np.concatenate(inner)))
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
    return float(np.mean(sides > 1.8 * typical))
