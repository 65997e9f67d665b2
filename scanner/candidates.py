"""Candidate places for the grid in a photo, from independent cues.

Each generator takes the detection-scale ink image (channel minimum) and the
colour image, and returns quads (4 x 2 image pixels) where the grid's outer
corners might be. They may be rough -- :mod:`scanner.lattice` corrects scale,
shift and perspective -- and wrong: every one is verified there.

* :func:`mountain_quads`: the five dark mountain cells in a layout's pattern;
* :func:`frame_quads`: outlines of large dark closed shapes (the frame);
* :func:`paper_quads`: the paper's outline, the grid being nearly centred on it;
* :func:`line_quads`: pairs of long lines from two near-perpendicular families.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.geometry import GRID_CELLS, GRID_CORNERS, page_box
from scoring.layouts import LAYOUTS

N = GRID_CELLS


def mountain_quads(ink: np.ndarray, bgr: np.ndarray, most: int = 10) -> list[np.ndarray]:
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
        chosen = np.nonzero(plausible & (hits >= 1))[0]
        chosen = chosen[np.argsort(-hits[chosen], kind="stable")][:40]  # best matches first
        for m in chosen:
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
            if seen_before(quad, [q for _, q in quads]):
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
    x, y, bw, bh, area = (stats[:, i] for i in range(5))
    keep = (area >= max(25, 4 * kernel * kernel)) & (area <= 0.01 * h * w)
    keep &= red >= blue + 8
    keep &= np.maximum(bw, bh) <= 2.2 * np.minimum(bw, bh)
    keep &= area >= 0.45 * bw * bh  # a square in perspective fills half its box or more
    keep[0] = False  # the background
    return [(float(area[i]), centroids[i], float(np.sqrt(area[i]))) for i in np.nonzero(keep)[0]]


def frame_quads(ink: np.ndarray, bgr: np.ndarray) -> list[np.ndarray]:
    """Quads outlining large dark closed shapes: the frame ring (and what encloses it).

    Each shape gives its four longest straight runs (the frame's sides, even when
    a drawing or the header banner touches the frame) and its enclosing quad.
    """
    h, w = ink.shape
    block = max(15, (min(h, w) // 20) | 1)
    dark = cv2.adaptiveThreshold(
        ink, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 20
    )
    contours, _ = cv2.findContours(dark, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    quads: list[np.ndarray] = []
    area_min = 0.02 * h * w
    for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:12]:
        hull = cv2.convexHull(contour)
        if cv2.contourArea(hull) < area_min:
            break
        for quad in (_straight_sides_quad(contour, hull), _hull_to_quad(hull)):
            if quad is not None and not seen_before(quad, quads):
                quads.append(quad)
    return quads


def _straight_sides_quad(contour: np.ndarray, hull: np.ndarray) -> np.ndarray | None:
    """The quad bounded by a contour's longest straight runs, two in each direction.

    Things touching the frame (the banner, a drawing) add corners to its outline
    and its hull, but the frame's sides stay the longest straight runs.
    """
    size = np.sqrt(cv2.contourArea(hull))
    perimeter = cv2.arcLength(contour, True)
    poly = cv2.approxPolyDP(contour, max(1.5, 0.004 * perimeter), True)
    poly = poly.reshape(-1, 2).astype(np.float64)
    if len(poly) < 4:
        return None
    segs = np.hstack([poly, np.roll(poly, -1, axis=0)])
    length = np.linalg.norm(segs[:, 2:] - segs[:, :2], axis=1)
    keep = np.argsort(-length)[:32]  # the sides are among the longest runs
    keep = keep[length[keep] >= 0.04 * size]
    if len(keep) < 4:
        return None
    lines = _merge_lines(segs[keep], length[keep], len(keep), 0.02 * size, degrees=5.0)
    # Each line's turn from the longest one, 0..90 degrees: within 20 degrees it runs
    # the longest one's way, beyond 50 across it.
    angle = np.arctan2(lines[:, 1], lines[:, 0])
    turn = np.abs(((angle - angle[0] + np.pi / 2) % np.pi) - np.pi / 2)
    sides = []
    for family in (lines[turn < np.radians(20)], lines[turn > np.radians(50)]):
        if not len(family):
            return None
        # The longest run, and the longest one at least half the shape away from it.
        a, rest = family[0], family[1:]
        far = rest[np.abs(np.sign(rest[:, :2] @ a[:2]) * rest[:, 2] - a[2]) > 0.5 * size]
        if not len(far):
            return None
        sides.append((a, far[0]))
    (l1, l2), (l3, l4) = sides
    quad = _corners(l1, l2, l3, l4)
    if quad is None:
        return None
    return quad if cv2.isContourConvex(quad.astype(np.float32)) else None


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


def paper_quads(ink: np.ndarray, bgr: np.ndarray) -> list[np.ndarray]:
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
            quad = clockwise(quad)
            sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
            if sides[0] + sides[2] > sides[1] + sides[3]:  # long sides first: turn a quarter
                quad = np.roll(quad, -1, axis=0)
            m = cv2.getPerspectiveTransform(page_corners, quad.astype(np.float32))
            grid = cv2.perspectiveTransform(grid_on_page.reshape(-1, 1, 2), m).reshape(4, 2)
            quads.append(grid.astype(np.float64))
    return quads


def line_quads(
    ink: np.ndarray, bgr: np.ndarray, per_family: int = 6, most: int = 30
) -> list[np.ndarray]:
    """Quads bounded by pairs of long lines from the two dominant directions.

    At most ``most`` quads, those bounded by the longest lines first.
    """
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
            quad = _corners(families[0][i], families[0][j], families[1][k], families[1][m])
            if quad is None:
                continue
            if not cv2.isContourConvex(quad.astype(np.float32)):
                continue
            if cv2.contourArea(quad.astype(np.float32)) < area_min:
                continue
            if np.any(np.abs(quad) > 3 * max(h, w)):
                continue
            quads.append((i + j + k + m, len(quads), quad))
    quads.sort(key=lambda item: item[:2])  # quads of the longest lines first
    return [quad for _, _, quad in quads[:most]]


def _pairs(n: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def _merge_lines(
    segs: np.ndarray, length: np.ndarray, keep: int, tolerance: float = 4.0, degrees: float = 3.0
) -> np.ndarray:
    """Merge collinear segments (``tolerance`` px and ``degrees`` apart at most).

    Returns the ``keep`` longest lines as rows (a, b, c), ax + by = c, |(a, b)| = 1.
    """
    order = np.argsort(-length)
    x1, y1, x2, y2 = segs[order].T
    length = length[order]
    nx, ny = (y1 - y2) / length, (x2 - x1) / length  # unit normals
    c = nx * x1 + ny * y1
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    # joins[s, f]: segment s lies on the line segment f starts (same direction, its
    # middle on that line); a line keeps the direction and place of its first segment.
    same_way = np.abs(nx[:, None] * nx[None, :] + ny[:, None] * ny[None, :]) > np.cos(
        np.radians(degrees)
    )
    on_line = np.abs(mx[:, None] * nx[None, :] + my[:, None] * ny[None, :] - c[None, :])
    joins = (same_way & (on_line < tolerance)).tolist()
    first: list[int] = []  # the segment starting each line, longest first
    total: list[float] = []
    for s, row in enumerate(joins):
        for i, f in enumerate(first):
            if row[f]:
                total[i] += length[s]
                break
        else:
            first.append(s)
            total.append(length[s])
    ranked = sorted(range(len(first)), key=lambda i: -total[i])[:keep]
    starts = np.array(first, dtype=np.intp)[ranked]
    return np.column_stack([nx[starts], ny[starts], c[starts]])


def _corners(l1: np.ndarray, l2: np.ndarray, l3: np.ndarray, l4: np.ndarray) -> np.ndarray | None:
    """The quad whose sides lie on the lines l1, l3, l2, l4 in turn (rows ax + by = c):
    its corners l1 x l3, l3 x l2, l2 x l4, l4 x l1, or None when two of those lines
    meet too flatly. The four 2 x 2 systems are solved at once (each as alone)."""
    ends = np.array([[l1, l3], [l3, l2], [l2, l4], [l4, l1]])  # (corner, line, abc)
    m = ends[:, :, :2]
    if np.any(np.abs(np.linalg.det(m)) < 0.2):
        return None
    return np.linalg.solve(m, ends[:, :, 2:])[:, :, 0]


def clockwise(quad: np.ndarray) -> np.ndarray:
    """Order 4 corners clockwise on screen (y down), starting from the top-left-most."""
    centre = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(ang)]  # increasing angle = clockwise with y down
    start = int(np.argmin(quad.sum(axis=1)))
    return np.roll(quad, -start, axis=0)


def seen_before(quad: np.ndarray, quads: list[np.ndarray]) -> bool:
    """Whether ``quad`` is one of ``quads`` again: one whose corners all lie less than 1 %
    of ``quad``'s size (the root of its area) from ``quad``'s (all compared at once)."""
    if not quads:
        return False
    size = np.sqrt(abs(cv2.contourArea(quad.astype(np.float32))))
    gaps = np.linalg.norm(quad - np.array(quads), axis=2)  # (quads, corners)
    return bool(np.any(gaps.max(axis=1) < 0.01 * size))
