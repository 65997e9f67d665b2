"""Things lying on the sheet, painted onto an already rendered photo (benchmarks only).

A finger or thumb holding an edge or a corner flat, a pencil lying across the
sheet, a card (or another player's sheet) over one edge: each is drawn flat in
its own small raster, placed in the grid's cell units (origin at the grid's
top-left corner, as in :mod:`scanner.geometry`) and mapped into the photo with
the homography fitted to the truth lattice, with a soft shadow on what lies
under it. Everything is decided by the seed. ``models.synth`` is not touched:
:func:`occlude` works on the finished picture, before it is saved as a JPEG.

:func:`occlude` also returns each cell's covered share (11 x 11, rows from the
grid's A1 side as in the truth lattice), so benchmarks know which cells cannot
be read.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

N = 11  # cells a side (scanner.geometry.GRID_CELLS; not imported to keep this standalone)
KINDS = ("finger", "pencil", "card")
CHOICES = ("none", *KINDS, "mixed")
COVER_PX = 10  # cell-space raster for the covered shares, pixels per cell
SKIN = ((150, 178, 228), (120, 152, 210), (95, 128, 185), (70, 100, 150), (48, 68, 105))
PENCIL = ((40, 200, 235), (60, 140, 40), (50, 50, 190), (160, 90, 30), (40, 40, 40))
CARD = ((225, 234, 240), (238, 242, 244), (170, 205, 228), (205, 160, 100), (130, 175, 130))


@dataclass
class Piece:
    """One flat occluder: colour and alpha rasters, and their pixels -> cell units (3 x 3)."""

    colour: np.ndarray  # (h, w, 3) float32 BGR
    alpha: np.ndarray  # (h, w) float32 0..1
    to_cells: np.ndarray  # raster pixel (x, y, 1) -> cell units


def occlude(
    image: np.ndarray, lattice: np.ndarray, kind: str, seed: int
) -> tuple[np.ndarray, np.ndarray, str]:
    """Paint one occluder of ``kind`` (or a seeded choice for ``"mixed"``) on a photo.

    ``lattice`` is the truth's 12 x 12 x 2 intersections (image pixels). Returns the
    new image (BGR uint8), each cell's covered share (11 x 11, 0..1) and the kind
    drawn. ``"none"`` returns the image as it is.
    """
    image, shares, kind, _ = occlude_points(image, lattice, kind, seed)
    return image, shares, kind


def occlude_points(
    image: np.ndarray, lattice: np.ndarray, kind: str, seed: int, points=()
) -> tuple[np.ndarray, np.ndarray, str, np.ndarray]:
    """:func:`occlude`, and how much the occluder covers each of ``points`` (cell units,
    e.g. the coins' centres; outside the grid too): ``(len(points),)`` 0..1, the
    occluder's own opacity there (its shadow not counted). The same seed paints the
    same photo with or without points."""
    points = np.asarray(points, np.float64).reshape(-1, 2)
    if kind not in CHOICES:
        raise ValueError(f"unknown occluder {kind!r}; choose from {', '.join(CHOICES)}")
    rng = np.random.default_rng([seed, 16_4, CHOICES.index(kind)])
    if kind == "mixed":
        kind = KINDS[int(rng.integers(len(KINDS)))]
    if kind == "none":
        return image, np.zeros((N, N)), kind, np.zeros(len(points))
    lattice = np.asarray(lattice, np.float64)
    h = cell_homography(lattice)
    cell_px = float(np.median(np.linalg.norm(np.diff(lattice, axis=1), axis=-1)))
    ppc = float(np.clip(cell_px, 8, 60))
    pieces = {"finger": fingers, "pencil": pencil, "card": card}[kind](rng, ppc)
    out = image.astype(np.float32)
    light = _paper_light(image, lattice) * rng.uniform(0.85, 1.05)
    height, width = image.shape[:2]
    shadow_dir = rng.normal(0, 1, 2)
    shadow_dir *= rng.uniform(0.12, 0.35) / max(np.linalg.norm(shadow_dir), 1e-9)
    blur = 0.6 + 0.02 * cell_px
    cover = np.zeros((N * COVER_PX, N * COVER_PX), np.float32)
    on_points = np.zeros(len(points))
    to_cover = np.diag([COVER_PX, COVER_PX, 1.0])
    for piece in pieces:
        m = h @ piece.to_cells
        shift = np.array([[1, 0, shadow_dir[0]], [0, 1, shadow_dir[1]], [0, 0, 1.0]])
        shade = _warp(piece.alpha, h @ shift @ piece.to_cells, (width, height))
        shade = cv2.GaussianBlur(shade, (0, 0), 0.2 * cell_px + 1)
        out *= (1 - rng.uniform(0.3, 0.55) * shade)[..., None]
        alpha = cv2.GaussianBlur(_warp(piece.alpha, m, (width, height)), (0, 0), blur)
        colour = _warp(piece.colour, m, (width, height)) * light
        out = out * (1 - alpha[..., None]) + colour * alpha[..., None]
        side = N * COVER_PX
        cover = np.maximum(cover, _warp(piece.alpha, to_cover @ piece.to_cells, (side, side)))
        on_points = np.maximum(on_points, _alpha_at(piece, points))
    out += rng.normal(0, 2.5, out.shape).astype(np.float32) * (out > 0)
    shares = cover.reshape(N, COVER_PX, N, COVER_PX).mean(axis=(1, 3))
    return np.clip(out, 0, 255).astype(np.uint8), shares, kind, on_points


def _alpha_at(piece: Piece, points: np.ndarray) -> np.ndarray:
    """The piece's opacity at each point (cell units), 0 off its raster."""
    if not len(points):
        return np.zeros(0)
    raster = cv2.perspectiveTransform(
        points.reshape(-1, 1, 2), np.linalg.inv(piece.to_cells)
    ).reshape(-1, 2)
    h, w = piece.alpha.shape
    x, y = np.round(raster).astype(int).T
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    out = np.zeros(len(points))
    out[inside] = piece.alpha[y[inside], x[inside]]
    return out


def cell_homography(lattice: np.ndarray) -> np.ndarray:
    """Least-squares homography from cell units to image pixels through the 144 nodes."""
    yy, xx = np.mgrid[0 : N + 1, 0 : N + 1]
    cells = np.stack([xx, yy], -1).reshape(-1, 2).astype(np.float32)
    h, _ = cv2.findHomography(cells, lattice.reshape(-1, 2).astype(np.float32), 0)
    return h


def _warp(raster: np.ndarray, m: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    return cv2.warpPerspective(
        raster, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )


def _paper_light(image: np.ndarray, lattice: np.ndarray) -> float:
    """How bright the photo shows white paper (1.0 for 240), from the grid's brightest tenth."""
    quad = lattice[[0, 0, -1, -1], [0, -1, -1, 0]].astype(np.int32)
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, quad, 255)
    values = image.max(axis=2)[mask > 0]
    if values.size == 0:
        return 1.0
    return float(np.clip(np.percentile(values, 90) / 240, 0.35, 1.1))


def _placement(origin: np.ndarray, angle: float, ppc: float, offset=(0.0, 0.0)) -> np.ndarray:
    """Raster pixels -> cell units: scale by 1/ppc, move the raster point ``offset``
    (raster pixels) to the origin, turn by ``angle`` and put it at ``origin`` (cells)."""
    c, s = np.cos(angle), np.sin(angle)
    turn = np.array([[c, -s, origin[0]], [s, c, origin[1]], [0, 0, 1.0]])
    scale = np.array([[1 / ppc, 0, -offset[0] / ppc], [0, 1 / ppc, -offset[1] / ppc], [0, 0, 1]])
    return turn @ scale


def _grid_anchor(rng: np.random.Generator, corner_share: float) -> tuple[np.ndarray, np.ndarray]:
    """A point on the grid's outline (a corner or along a side) and the outward direction."""
    centre = np.array([N / 2, N / 2])
    if rng.random() < corner_share:
        point = np.array([[0, 0], [N, 0], [N, N], [0, N]][int(rng.integers(4))], float)
        out = (point - centre) / np.linalg.norm(point - centre)
    else:
        side = int(rng.integers(4))
        t = rng.uniform(0.12, 0.88) * N
        point, out = [
            (np.array([t, 0.0]), np.array([0.0, -1.0])),
            (np.array([N, t]), np.array([1.0, 0.0])),
            (np.array([t, N]), np.array([0.0, 1.0])),
            (np.array([0.0, t]), np.array([-1.0, 0.0])),
        ][side]
    return point, out


def _turn(v: np.ndarray, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def fingers(rng: np.random.Generator, ppc: float) -> list[Piece]:
    """A thumb (sometimes with a second finger beside it) pressing a corner or an edge.

    Each finger comes from outside the sheet towards the grid and ends 0.2-1.6
    cells inside it: a rounded bar 1.1-1.7 cells wide and 4-6.5 long, shaded like
    a cylinder, often with a lighter nail near the tip, with the palm behind it.
    """
    point, out = _grid_anchor(rng, 0.5)
    direction = _turn(-out, rng.uniform(-0.6, 0.6))  # from outside, pointing in
    depth = rng.uniform(0.2, 1.6)
    width = rng.uniform(1.1, 1.7)
    skin = np.array(SKIN[int(rng.integers(len(SKIN)))], np.float32) * rng.uniform(0.9, 1.08)
    count = 2 if rng.random() < 0.35 else 1
    pieces = []
    for i in range(count):
        across = np.array([-direction[1], direction[0]]) * width * 1.05 * i
        back = rng.uniform(0.3, 1.0) * width if i else 0.0
        tip = point + direction * (depth - back) + across
        pieces.append(_finger(rng, tip, direction, width * (0.92 if i else 1.0), skin, ppc))
    return pieces


def _finger(rng, tip, direction, width, skin, ppc) -> Piece:
    """One finger 4-6.5 cells long from ``tip``, ending in the hand's palm (an ellipse)."""
    length = rng.uniform(4.0, 6.5)  # cells from the tip to where the palm starts
    palm = np.array([4.0, 2.8]) * rng.uniform(0.85, 1.15)  # half axes, cells
    w_px = int(np.ceil(2 * palm[1] * ppc)) + 2
    l_px = int(np.ceil((length + 2 * palm[0]) * ppc))
    r = width * ppc / 2
    xx, yy = np.meshgrid(np.arange(l_px, dtype=np.float32), np.arange(w_px, dtype=np.float32))
    cy = (w_px - 1) / 2
    along = np.clip(xx - r, 0, length * ppc)  # the tip's round end: distance from the axis
    dist = np.hypot(xx - r - along, yy - cy)
    body = np.sqrt(np.clip(1 - (dist / r) ** 2, 0, 1))
    alpha = np.clip(r - dist + 0.5, 0, 1)
    px, py = (xx - (length + palm[0]) * ppc) / (palm[0] * ppc), (yy - cy) / (palm[1] * ppc)
    hand = np.hypot(px, py)
    body = np.maximum(body, np.sqrt(np.clip(1 - hand**2, 0, 1)))
    alpha = np.maximum(alpha, np.clip((1 - hand) * palm[1] * ppc + 0.5, 0, 1)).astype(np.float32)
    shade = 0.55 + 0.45 * body**0.6
    shade *= 1 - 0.12 * np.clip(xx / (6 * ppc), 0, 1)  # a little darker towards the hand
    colour = skin[None, None] * shade[..., None]
    if rng.random() < 0.65:  # the nail: a lighter, pinker rounded patch behind the tip
        nail_x, nail = r * 1.35, np.array([215, 220, 245], np.float32)
        inside = ((xx - nail_x) / (0.95 * r)) ** 2 + ((yy - cy) / (0.62 * r)) ** 2 < 1
        colour[inside] = 0.45 * colour[inside] + 0.55 * nail * shade[inside][:, None]
    # Raster x runs from the tip back to the hand: x = -direction in cell units.
    angle = float(np.arctan2(-direction[1], -direction[0]))
    to_cells = _placement(tip, angle, ppc, offset=(0.0, cy))
    return Piece(colour.astype(np.float32), alpha, to_cells)


def pencil(rng: np.random.Generator, ppc: float) -> list[Piece]:
    """A hexagonal pencil 10-14 cells long and about half a cell thick, lying across
    the grid through a point inside it: three shaded facets, a sharpened wooden tip
    with its lead, a metal ferrule and an eraser."""
    length = rng.uniform(10, 14)
    width = rng.uniform(0.42, 0.58)
    centre = rng.uniform(1.5, N - 1.5, 2)
    angle = rng.uniform(0, np.pi)
    l_px, w_px = int(np.ceil(length * ppc)), int(np.ceil(width * ppc)) + 2
    xx, yy = np.meshgrid(np.arange(l_px, dtype=np.float32), np.arange(w_px, dtype=np.float32))
    cy = (w_px - 1) / 2
    half = width * ppc / 2
    cone_start = 0.87 * l_px
    reach = np.where(xx < cone_start, half, half * (l_px - xx) / (l_px - cone_start))
    across = np.abs(yy - cy)
    alpha = np.clip(reach - across + 0.5, 0, 1).astype(np.float32)
    body = np.array(PENCIL[int(rng.integers(len(PENCIL)))], np.float32)
    s = (yy - cy) / half
    facet = np.where(s < -1 / 3, 0.75, np.where(s > 1 / 3, 0.9, 1.1)).astype(np.float32)
    colour = body[None, None] * facet[..., None]
    ferrule = xx < 0.06 * l_px
    eraser = xx < 0.025 * l_px
    colour[ferrule] = np.array([165, 165, 170], np.float32) * facet[ferrule][:, None]
    colour[eraser] = np.array([150, 150, 220], np.float32)
    cone = xx >= cone_start
    colour[cone] = np.array([140, 180, 215], np.float32)
    lead = xx >= cone_start + 0.6 * (l_px - cone_start)
    colour[lead] = np.array([50, 50, 55], np.float32)
    to_cells = _placement(centre, angle, ppc, offset=(l_px / 2, cy))
    return [Piece(colour.astype(np.float32), alpha, to_cells)]


def card(rng: np.random.Generator, ppc: float) -> list[Piece]:
    """A game card (or, one time in four, another player's sheet) over one side of the
    grid, turned up to 12 degrees, its deepest corner 0.3-1.5 cells inside the grid.

    The card is a light or coloured rectangle with a thin dark border inset, a
    coloured picture block and rows of small dark print.
    """
    sheet = rng.random() < 0.25
    w_cells, h_cells = (14.0, 19.0) if sheet else (4.2, 5.9)
    if rng.random() < 0.5:
        w_cells, h_cells = h_cells, w_cells
    w_px, h_px = int(np.ceil(w_cells * ppc)), int(np.ceil(h_cells * ppc))
    fill = np.array(CARD[0 if sheet else int(rng.integers(len(CARD)))], np.float32)
    colour = np.zeros((h_px, w_px, 3), np.float32) + fill
    colour *= 1 + rng.normal(0, 0.015, (1, 1, 3)).astype(np.float32)
    ink = (60, 60, 70) if not sheet else (60, 110, 190)
    inset = int(0.18 * ppc)
    thick = max(1, int(round(0.04 * ppc)))
    cv2.rectangle(colour, (inset, inset), (w_px - inset, h_px - inset), ink, thick)
    picture = tuple(float(v) for v in rng.uniform(60, 200, 3))
    top = int(0.35 * ppc)
    cv2.rectangle(colour, (2 * inset, top), (w_px - 2 * inset, int(h_px * 0.45)), picture, -1)
    y = int(h_px * 0.5)
    while y < h_px - 2 * inset:  # rows of print: dashes of random length
        x = 2 * inset
        while x < w_px - 3 * inset:
            word = int(rng.uniform(0.2, 0.8) * ppc)
            end = min(x + word, w_px - 2 * inset)
            cv2.line(colour, (x, y), (end, y), ink, max(1, int(0.07 * ppc)))
            x = end + int(0.15 * ppc)
        y += int(rng.uniform(0.3, 0.45) * ppc)
    alpha = np.ones((h_px, w_px), np.float32)
    # Place it: its raster y axis points outwards from a grid side, turned a little.
    side = int(rng.integers(4))
    outward = [np.array([0.0, -1.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0])]
    outward = (outward + [np.array([-1.0, 0.0])])[side]
    tilt = rng.uniform(-0.21, 0.21)
    out = _turn(outward, tilt)
    along = np.array([out[1], -out[0]])  # raster x; (along, out) keeps the print unmirrored
    t = rng.uniform(0.15, 0.85) * N
    edge_point = {
        0: np.array([t, 0.0]),
        1: np.array([N, t]),
        2: np.array([t, N]),
        3: np.array([0.0, t]),
    }[side]
    depth = rng.uniform(0.3, 1.5)
    # The card's inner edge (raster y = 0), from the edge point; only the part of it
    # beside the grid's side counts for how deep it reaches.
    inner = edge_point + np.linspace(-w_cells / 2, w_cells / 2, 400)[:, None] * along
    beside = inner[:, 1] if side % 2 else inner[:, 0]  # the position along the side
    reach = -((inner - edge_point) @ outward)[(beside >= 0) & (beside <= N)]
    deepest = float(reach.max()) if reach.size else 0.0
    origin = edge_point - outward * (depth - deepest)  # the deepest part ``depth`` inside
    to_cells = np.array(
        [
            [along[0] / ppc, out[0] / ppc, origin[0] - along[0] * w_cells / 2],
            [along[1] / ppc, out[1] / ppc, origin[1] - along[1] * w_cells / 2],
            [0, 0, 1.0],
        ]
    )
    return [Piece(colour, alpha, to_cells)]
