"""Our own drawing of the printed sheet (SHEET.md), sides A and B.

Everything is drawn with OpenCV from ``scanner.geometry`` (cell units); a
:class:`Printing` holds the per-copy variation (ink colours, line weights,
paper tone, a few percent of geometry jitter for everything but the 11 x 11
lattice) so that training sees many plausible printings.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from models.synth.canvas import Canvas, densify, smooth_noise, wobble
from scanner import geometry as g
from scoring.layouts import LAYOUTS, ROW_LETTERS, Layout

PAGE_MARGIN = 0.7  # cells of transparent border around the page (room for curl to move it)


@dataclass(frozen=True)
class Printing:
    """How one printed copy looks (BGR colours)."""

    side: str
    paper: tuple[int, int, int]
    ink: tuple[int, int, int]  # dark brown/black line art
    accent: tuple[int, int, int]  # orange (A) or grey (B): dashes, labels, ruins
    band: tuple[int, int, int]  # coin track band
    mountain: tuple[int, int, int]
    gold: tuple[int, int, int]
    line_w: float  # dashed line width, cells
    dash: float  # dash length, cells
    gap: float
    frame_w: float  # thick inner frame line, cells
    jitter: tuple[float, float, float, float]  # dx, dy, sx, sy of non-grid print, cells / ratio
    texture: float  # strength of the paper texture
    map_art: float  # strength of the faint old-map drawing
    age: float  # darkening of the edges

    @property
    def line_colour(self) -> tuple[int, int, int]:
        """The dashed grid lines' colour: the accent on side B; on side A paler than the
        accent (:data:`A_LINE_SHADE` of the paper, varied with the copy's accent)."""
        if self.side != "A":
            return self.accent
        return tuple(
            int(np.clip(p * k * np.sqrt(a / base), 0, 255))
            for p, k, a, base in zip(self.paper, A_LINE_SHADE, self.accent, A_ACCENT, strict=True)
        )


#: Side A's orange, before a copy's variation (BGR).
A_ACCENT = (45, 160, 228)
#: Side A's dashed lines against the paper, per channel (B, G, R). The photo of the real
#: print measures (0.56, 0.78, 0.87) in the middle of its dashes; drawn in the accent ours
#: measured (0.27-0.31, 0.70-0.78, 1.0) there, twice as dark in the blue channel, the one
#: the scanner finds lines in (the least of B, G and R). With these shades, through our
#: camera's blur, they measure (0.57-0.60, 0.77-0.80, 0.87). Side B's grey dashes measure
#: (0.72, 0.73, 0.76) on the print and (0.65-0.71) on ours: left as they are.
A_LINE_SHADE = (0.50, 0.78, 0.87)


def random_printing(rng: np.random.Generator, side: str) -> Printing:
    """A plausible printed copy of ``side``."""

    def vary(c, amount):
        return tuple(int(np.clip(v + rng.normal(0, amount), 0, 255)) for v in c)

    tone = rng.uniform(-12, 8)
    paper = vary((198 + tone, 214 + tone * 0.8, 228 + tone * 0.5), 4)
    if side == "A":
        accent = vary(A_ACCENT, 12)
        band = vary((50, 170, 232), 10)
    else:
        # Side B's grey is neutral against its own paper (measured on the printed sheet: ink
        # 0.70-0.72 of the paper in every channel); a fixed grey on yellowish paper turned
        # violet once the sheet was white-balanced.
        level = np.mean(vary((150, 152, 148), 10)) / 214
        accent = tuple(int(np.clip(v * level, 0, 255)) for v in paper)
        band = vary((148, 160, 150), 8)
    return Printing(
        side=side,
        paper=paper,
        ink=vary((35, 45, 60), 10),
        accent=accent,
        band=band,
        mountain=vary((28, 32, 72), 6),
        gold=vary((40, 185, 232), 8),
        line_w=rng.uniform(0.022, 0.036),
        dash=rng.uniform(0.09, 0.14),
        gap=rng.uniform(0.06, 0.09),
        frame_w=rng.uniform(0.035, 0.055),
        jitter=(
            rng.normal(0, 0.04),
            rng.normal(0, 0.04),
            1 + rng.normal(0, 0.01),
            1 + rng.normal(0, 0.01),
        ),
        texture=rng.uniform(0.6, 1.4),
        map_art=rng.uniform(0.0, 1.0),
        age=rng.uniform(0.3, 1.2),
    )


def page_canvas(ppc: float) -> Canvas:
    """The canvas a template is drawn on: the page plus a small transparent margin."""
    p = g.page_box()
    m = PAGE_MARGIN
    return Canvas.covering(p.x0 - m, p.y0 - m, p.x1 + m, p.y1 + m, ppc)


def render_template(
    side: str,
    ppc: float,
    rng: np.random.Generator,
    printing: Printing | None = None,
    ruins_rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray, Canvas, Printing]:
    """Draw a blank printed sheet.

    ``ruins_rng``, when given, varies the ruins icon's drawing, size and place from
    print to print (printings and scans differ); without it every icon is the same.

    Returns
    -------
    bgr : (H, W, 3) uint8 image of the page on ``canvas``
    alpha : (H, W) uint8, 255 on paper, 0 outside the torn edge
    canvas : the :class:`Canvas` mapping cell units to these pixels
    printing : the variation used
    """
    if side not in LAYOUTS:
        raise ValueError(f"side must be 'A' or 'B', got {side!r}")
    pr = printing or random_printing(rng, side)
    cv = page_canvas(ppc)
    img = _paper(cv, pr, rng)
    alpha = _torn_alpha(cv, rng)
    layout = LAYOUTS[side]
    _header(img, cv, pr, rng)
    _dashes(img, cv, pr)
    if side == "B":
        _rift(img, cv, pr, layout, rng)
    _frame(img, cv, pr)
    _labels(img, cv, pr)
    for r, c in layout.mountains:
        draw_mountain(img, cv, pr, r, c, rng)
    look = ruins_look(ruins_rng) if ruins_rng is not None else RuinsLook()
    for r, c in layout.ruins:
        draw_ruins(img, cv, pr.accent, r, c, look)
    _coin_track(img, cv, pr)
    _season_boxes(img, cv, pr)
    img = _age(img, cv, pr, rng)
    return img, alpha, cv, pr


# ---- paper ------------------------------------------------------------------------------
def _paper(cv: Canvas, pr: Printing, rng: np.random.Generator) -> np.ndarray:
    h, w = cv.height, cv.width
    hh, hw = h // 2 + 1, w // 2 + 1
    low = cv2.resize(smooth_noise(rng, (h // 8 + 1, w // 8 + 1), 6, octaves=4), (hw, hh))
    fine = smooth_noise(rng, (hh, hw), 60, octaves=2)
    lum = low * (7 * pr.texture) + fine * (2.5 * pr.texture)
    # Paper colour + texture at half resolution, then one resize (the texture is smooth).
    half = np.stack([pr.paper[k] + lum * (1.0 + 0.25 * k) for k in range(3)], axis=-1)
    img = cv2.resize(np.clip(half, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    if pr.map_art > 0.05:
        _map_art(img, cv, pr, rng)
    return img


#: Place names for the faint lettering of the old map under the grid.
_MAP_WORDS = tuple(
    "Old Sea|Bay|Marsh|Ford|Tears|Bridge|Vale|Hollow|Keep|Isle|Falls|Wood|Pass|Nalos|The Reach"
    "|Sound|Moor|Gulf|Lake|Crag".split("|")
)
#: Hershey fonts that pass for an old map's lettering.
_MAP_FONTS = (
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX | cv2.FONT_ITALIC,
    cv2.FONT_HERSHEY_COMPLEX | cv2.FONT_ITALIC,
    cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
)


def _map_art(img: np.ndarray, cv: Canvas, pr: Printing, rng: np.random.Generator) -> None:
    """The faint old map printed under the grid: coasts (some with hatching), rivers, lettering.

    On the real sheet these lines show through every empty cell (SHEET.md: "a faint
    old-map texture"); after white balance its cells' darkest pixels are about 5 % darker
    than their paper (7 % in a tenth of them) on the publisher's sheet, and a model that
    never saw such lines read them as furrows. Here: 4-12 % at the lines.
    """
    art = cv.blank(1)
    for _ in range(int(rng.integers(25, 45))):
        start = rng.uniform([-1.0, -1.0], [12.0, 12.0])
        heading = rng.uniform(0, 2 * np.pi)
        step = rng.uniform(0.12, 0.3)
        pts = [start]
        for _ in range(int(rng.integers(15, 50))):
            heading += rng.normal(0, 0.45)
            pts.append(pts[-1] + step * np.array([np.cos(heading), np.sin(heading)]))
        pts = np.array(pts)
        cv.polyline(art, pts, 255, rng.uniform(0.012, 0.03))
        if rng.random() < 0.6:  # a coast's hatching: short strokes off one side
            side = rng.choice([-1.0, 1.0])
            length = rng.uniform(0.05, 0.14)
            ticks = []
            for a, b in zip(pts[:-1:2], pts[1::2], strict=True):
                d = (b - a) / max(np.linalg.norm(b - a), 1e-9)
                n = np.array([-d[1], d[0]]) * side
                ticks.append([a, a + n * length])
            cv.polylines(art, ticks, 170, 0.012)
    for _ in range(int(rng.integers(4, 12))):
        word = str(rng.choice(_MAP_WORDS))
        font = int(rng.choice(_MAP_FONTS))
        xy = rng.uniform([-1.0, 0.0], [10.0, 12.0])
        cv.text(art, word, xy, rng.uniform(0.12, 0.32), 200, font=font, weight=0.08)
    strength = 0.04 + 0.08 * pr.map_art
    dark = art.astype(np.float32) * (strength / 255)
    tint = np.array([1.25, 1.0, 0.8], np.float32)  # bluish light absorbed more: a brown line
    gain = 1 - dark[..., None] * tint
    img[:] = np.clip(img.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def _torn_alpha(cv: Canvas, rng: np.random.Generator) -> np.ndarray:
    p = g.page_box()
    outline = densify([(p.x0, p.y0), (p.x1, p.y0), (p.x1, p.y1), (p.x0, p.y1), (p.x0, p.y0)], 0.05)
    n = len(outline)
    # Tears: mostly small ragged noise, with a few deeper bites.
    rough = rng.normal(0, 0.018, n) + np.abs(rng.normal(0, 0.03, n)) * (rng.random(n) < 0.3)
    rough = np.convolve(rough, np.ones(3) / 3, mode="same")
    center = np.array([p.center])
    direction = outline - center
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    torn = outline - direction * (np.abs(rough)[:, None] + 0.02)
    alpha = cv.blank(1)
    cv.fill(alpha, torn, 255)
    return alpha


def _age(img: np.ndarray, cv: Canvas, pr: Printing, rng: np.random.Generator) -> np.ndarray:
    """Darken and yellow the paper toward its edges; faint stains; a few soft creases."""
    small = Canvas(cv.ppc / 4, cv.origin, cv.width // 4 + 1, cv.height // 4 + 1)
    m = small.blank(1)
    p = g.page_box()
    small.rect(m, p.x0 + 0.5, p.y0 + 0.5, p.x1 - 0.5, p.y1 - 0.5, 255)
    d = cv2.distanceTransform(255 - m, cv2.DIST_L2, 3) / max(small.ppc, 1e-6)
    edge = (np.clip(d / 0.5, 0, 1) ** 2).astype(np.float32)
    stains = np.clip(smooth_noise(rng, m.shape, 5, octaves=2) - 0.6, 0, None) * 0.6
    dark = (edge * 0.10 * pr.age + stains * 0.08 * pr.age).astype(np.float32)
    # Creases: light on one side of the fold line, shaded on the other.
    yy, xx = np.mgrid[0 : small.height, 0 : small.width].astype(np.float32)
    cx = (xx + 0.5) / small.ppc + small.origin[0]
    cy = (yy + 0.5) / small.ppc + small.origin[1]
    for _ in range(int(rng.integers(0, 4))):
        a = rng.uniform(0, np.pi)
        x0, y0 = rng.uniform(p.x0, p.x1), rng.uniform(p.y0, p.y1)
        dist = ((cx - x0) * np.sin(a) - (cy - y0) * np.cos(a)) / rng.uniform(0.08, 0.3)
        dark += rng.uniform(0.02, 0.06) * dist * np.exp(-(dist**2))
    gain = np.stack([1 - dark * 1.6, 1 - dark * 1.0, 1 - dark * 0.6], axis=-1)
    gain = np.clip(gain * 200, 0, 255).astype(np.uint8)
    gain = cv2.resize(gain, (cv.width, cv.height), interpolation=cv2.INTER_LINEAR)
    return cv2.multiply(img, gain, scale=1 / 200)


# ---- printed elements -------------------------------------------------------------------
def print_xy(pr: Printing, x: float, y: float) -> tuple[float, float]:
    """Non-grid print positions move a little with the printing and cutting."""
    dx, dy, sx, sy = pr.jitter
    return 5.5 + (x - 5.5) * sx + dx * 0.3, 5.5 + (y - 5.5) * sy + dy * 0.3


def _dashes(img, cv: Canvas, pr: Printing) -> None:
    period = pr.dash + pr.gap
    starts = np.arange(-pr.dash / 2 + 0.02, 11, period)
    lines = []
    for k in range(1, g.GRID_CELLS):
        for s in starts:
            a, b = max(0.0, s), min(11.0, s + pr.dash)
            if b > a:
                lines.append([(k, a), (k, b)])
                lines.append([(a, k), (b, k)])
    cv.polylines(img, lines, pr.line_colour, pr.line_w)


def _frame(img, cv: Canvas, pr: Printing) -> None:
    # Where the printed sheet has them: a thick inner line whose inside edge is the
    # grid's edge, a thinner outer one, hatched blocks between.
    inner, fw = g.FRAME_INNER_LINE, g.FRAME_OUTER_LINE
    cv.rect(img, -inner, -inner, 11 + inner, 11 + inner, pr.ink, pr.frame_w)
    cv.rect(img, -fw, -fw, 11 + fw, 11 + fw, pr.ink, pr.frame_w * 0.6)
    ticks = []
    step = 0.038
    edge = inner + pr.frame_w / 2
    for k in range(0, 11, 2):
        a, b = k + 0.15, min(k + 1.15, 10.85)
        for t in np.arange(a, b, step):
            ticks.append([(t, -fw), (t, -edge)])
            ticks.append([(t, 11 + edge), (t, 11 + fw)])
            ticks.append([(-fw, t), (-edge, t)])
            ticks.append([(11 + edge, t), (11 + fw, t)])
        # block outlines
        for y0, y1 in ((-fw, -edge), (11 + edge, 11 + fw)):
            ticks.append([(a, y0), (a, y1)])
            ticks.append([(b, y0), (b, y1)])
    cv.polylines(img, ticks, pr.ink, 0.017)
    # Corner squares.
    for cx, cy in ((-fw, -fw), (11, -fw), (11, 11), (-fw, 11)):
        cv.rect(img, cx, cy, cx + fw, cy + fw, pr.ink, 0.015)


def _labels(img, cv: Canvas, pr: Printing) -> None:
    for r, letter in enumerate(ROW_LETTERS):
        x, y = print_xy(pr, g.ROW_LABEL_X, r + 0.5)
        cv.text_centered(img, letter, (x, y), 0.2, pr.accent, weight=0.1)
    for c in range(11):
        x, y = print_xy(pr, c + 0.5, g.COLUMN_LABEL_Y)
        cv.text_centered(img, str(c + 1), (x, y), 0.2, pr.accent, weight=0.1)
    x, y = print_xy(pr, *g.SIDE_LABEL_XY)
    cv.text_centered(img, f"({pr.side})", (x, y), 0.22, pr.ink, weight=0.12)


def draw_mountain(img, cv: Canvas, pr: Printing, r: int, c: int, rng: np.random.Generator) -> None:
    """The printed mountain: scribbled dark-brown square, white peaks, gold coin."""
    x0, y0 = c + 0.02, r + 0.02
    edge = densify([(0, 0), (0.96, 0), (0.96, 0.96), (0, 0.96), (0, 0)], 0.08)
    edge = wobble(rng, edge, 0.012) + (x0, y0)
    cv.fill(img, edge, pr.mountain)
    light = tuple(min(255, int(v * 1.45 + 8)) for v in pr.mountain)
    strokes = []
    for _ in range(26):
        a = rng.uniform(0.05, 0.9, 2)
        d = np.array([1.0, -1.0]) * rng.uniform(0.1, 0.3)
        strokes.append([(x0 + a[0], y0 + a[1]), (x0 + a[0] + d[0], y0 + a[1] + d[1])])
    strokes = [np.clip(s, [x0, y0], [x0 + 0.96, y0 + 0.96]) for s in np.array(strokes)]
    cv.polylines(img, strokes, light, 0.012)
    white = (235, 240, 242)
    big = [(0.16, 0.66), (0.42, 0.24), (0.60, 0.50)]
    small = [(0.50, 0.38), (0.64, 0.22), (0.86, 0.62)]
    inner = [(0.30, 0.46), (0.40, 0.36), (0.46, 0.52)]
    cv.polylines(img, [np.array(p) + (c, r) for p in (big, small, inner)], white, 0.035)
    draw_coin(img, cv, pr, (c + 0.52, r + 0.68), 0.15)


#: The relief struck on the printed coin (a face in profile, SHEET.md: the coins are
#: gold pieces), in units of the coin's radius about its centre.
_COIN_RELIEF = (
    ((-0.25, -0.45), (0.05, -0.5), (0.3, -0.3), (0.35, 0.0), (0.2, 0.3), (-0.1, 0.45)),
    ((-0.25, -0.45), (-0.4, -0.1), (-0.3, 0.25), (-0.1, 0.45)),
    ((0.05, -0.15), (0.15, -0.1)),
    ((0.0, 0.15), (0.15, 0.2)),
)


def draw_coin(img, cv: Canvas, pr: Printing, center, radius: float) -> None:
    dark = tuple(int(v * 0.62) for v in pr.gold)
    mid = tuple(int(v * 0.8) for v in pr.gold)
    bright = tuple(min(255, int(v * 1.15 + 20)) for v in pr.gold)
    cv.circle(img, center, radius, dark)
    cv.circle(img, center, radius * 0.82, pr.gold)
    cv.circle(img, center, radius * 0.55, bright, 0.02)
    relief = [
        [(center[0] + x * radius, center[1] + y * radius) for x, y in line] for line in _COIN_RELIEF
    ]
    cv.polylines(img, relief, mid, radius * 0.1)


@dataclass(frozen=True)
class RuinsLook:
    """How one printing draws the ruins icon: design, size, offset, line weight, strength."""

    design: int = 0  # 0 column + rubble, 1 two columns and a lintel, 2 broken column, 3 arch,
    # 4 the printed sheet's own: a fluted column beside a broken one, on stepped bases
    scale: float = 1.0
    shift: tuple[float, float] = (0.0, 0.0)
    width: float = 0.028
    mirror: bool = False
    strength: float = 1.0  # 1 = the accent colour, less = paler ink
    # design 4 only: how strongly its bodies are coloured in (0 paper .. 1 the accent), how
    # much darker its outlines and flutes are than the accent (1 = not), how many flutes
    fill: float = 0.35
    shade: float = 1.0
    flutes: int = 2


def ruins_look(rng: np.random.Generator) -> RuinsLook:
    """A random :class:`RuinsLook` (one per printing)."""
    design = 4 if rng.random() < 0.5 else int(rng.integers(0, 4))
    scale = float(rng.uniform(0.8, 1.25))
    shift = (float(rng.normal(0, 0.04)), float(rng.normal(0, 0.04)))
    width = float(rng.uniform(0.018, 0.04))
    mirror = bool(rng.random() < 0.5)
    strength = float(rng.uniform(0.55, 1.0))
    fill, shade, flutes = 0.35, 1.0, 2
    if design == 4:
        # The printed icon (the publisher's pictures of both sides): thin outlines and two
        # to four flutes about as dark as the accent, on a body tinted only a little, the
        # slabs solid; over the middle 0.8 of its space it darkens the paper by 16-23 grey
        # levels on average (synthesis 21's heavier, darker outlines: 24-83, and the real
        # icons still read as farms). It spans about 0.70 x 0.63 of its cell (this design
        # at scale 1: 0.57 x 0.55); the model read ours as empty up to scale 1.25 and as a
        # farm from 1.4. (Same draws as before, rescaled.)
        strength = 0.6 + (strength - 0.55) * 0.35 / 0.45
        scale = 0.95 + (scale - 0.8) * 0.5 / 0.45
        fill = float(rng.uniform(0.05, 0.35))
        shade = 0.78 + (float(rng.uniform(0.4, 0.8)) - 0.4) * 0.22 / 0.4
        flutes = int(rng.integers(2, 5))
        width = float(rng.uniform(0.012, 0.022))
    return RuinsLook(design, scale, shift, width, mirror, strength, fill, shade, flutes)


#: Design 4's stepped slabs (x0, x1, y0, y1), two under each column.
_FLUTED_SLAB_BOXES = (
    (0.15, 0.45, 0.67, 0.71),
    (0.13, 0.47, 0.73, 0.77),
    (0.51, 0.69, 0.67, 0.71),
    (0.5, 0.7, 0.73, 0.77),
)


def _box(x0: float, x1: float, y0: float, y1: float) -> list[tuple[float, float]]:
    """A rectangle's corners, clockwise from the top left."""
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


#: Design 4's tinted areas (cell-local): the whole column's capital and shaft (the shaft
#: narrower than the capital, as printed) and the broken one's shaft. (The slabs are
#: printed solid, in the outlines' colour, with a thin gap between the steps.)
_FLUTED_BODIES = (
    [(0.13, 0.22), (0.47, 0.22), (0.45, 0.27), (0.15, 0.27)],
    [(0.225, 0.27), (0.375, 0.27), (0.375, 0.67), (0.225, 0.67)],
    [(0.53, 0.44), (0.58, 0.38), (0.62, 0.43), (0.67, 0.37), (0.67, 0.67), (0.53, 0.67)],
)


def _curl(x: float, turn: int) -> list[tuple[float, float]]:
    """A capital's scroll: a small spiral hanging under its end at ``x``, winding inward."""
    t = np.linspace(0, 1.6 * np.pi, 9)
    r = 0.035 * (1 - t / (2.4 * np.pi))
    return [
        (float(x + turn * r_ * np.sin(a)), float(0.275 - r_ * np.cos(a)))
        for a, r_ in zip(t, r, strict=True)
    ]


#: Design 4's outlines, drawn after the printed sheet's icon: a tall column under a
#: scrolled capital and a shorter broken one, each on two stepped slabs.
_FLUTED_LINES = (
    [(0.13, 0.22), (0.47, 0.22), (0.45, 0.27), (0.15, 0.27), (0.13, 0.22)],  # capital
    *(_curl(x, d) for x, d in ((0.14, 1), (0.46, -1))),  # its scrolls
    [(0.225, 0.29), (0.375, 0.29)],
    [(0.225, 0.29), (0.225, 0.67)],  # shaft outline
    [(0.375, 0.29), (0.375, 0.67)],
    [(0.54, 0.67), (0.54, 0.44), (0.58, 0.38), (0.62, 0.43), (0.66, 0.37), (0.66, 0.67)],
    [(0.59, 0.33), (0.62, 0.3), (0.64, 0.33), (0.61, 0.35), (0.59, 0.33)],  # a falling shard
    *(_box(*slab) + _box(*slab)[:1] for slab in _FLUTED_SLAB_BOXES),  # slabs, closed
)


#: The middle of design 4's outlines (cell-local), put on the cell's middle when drawn.
_FLUTED_CENTRE = (0.415, 0.495)


def _flutes(n: int) -> list[list[tuple[float, float]]]:
    """Design 4's flutes, drawn thinner than its outlines: ``n`` down the whole column's
    shaft, about half as many down the broken one's."""
    whole = [[(x, 0.31), (x, 0.65)] for x in np.linspace(0.225, 0.375, n + 2)[1:-1]]
    k = max(1, (n + 1) // 2)
    broken = [[(x, 0.47), (x, 0.65)] for x in np.linspace(0.54, 0.66, k + 2)[1:-1]]
    return whole + broken


def _ruins_lines(design: int) -> list[list[tuple[float, float]]]:
    """The icon's strokes in cell-local coordinates (0..1)."""
    if design == 4:
        return list(_FLUTED_LINES)
    if design == 1:  # two columns under a lintel, a stone beside
        out = [
            [(0.26, 0.3), (0.66, 0.3)],
            [(0.28, 0.35), (0.64, 0.35)],
            [(0.24, 0.76), (0.68, 0.76)],
        ]
        for x in (0.32, 0.38, 0.54, 0.60):
            out.append([(x, 0.36), (x, 0.75)])
        out.append([(0.7, 0.76), (0.72, 0.68), (0.78, 0.67), (0.8, 0.76)])
        return out
    if design == 2:  # one broken column, its top lying beside it
        out = [
            [(0.36, 0.75), (0.36, 0.42), (0.42, 0.38), (0.46, 0.44), (0.5, 0.36), (0.5, 0.75)],
            [(0.3, 0.76), (0.56, 0.76)],
            [(0.43, 0.44), (0.43, 0.74)],
            [(0.6, 0.76), (0.6, 0.66), (0.78, 0.66), (0.78, 0.76)],
            [(0.62, 0.62), (0.76, 0.62)],
        ]
        return out
    if design == 3:  # a ruined arch
        t = np.linspace(np.pi, 2 * np.pi, 9)
        arch = [(0.5 + 0.18 * np.cos(a), 0.48 + 0.18 * np.sin(a)) for a in t[:7]]
        return [
            [(0.32, 0.76), (0.32, 0.48)] + arch,
            [(0.68, 0.76), (0.68, 0.5)],
            [(0.4, 0.76), (0.4, 0.52)],
            [(0.26, 0.77), (0.74, 0.77)],
            [(0.56, 0.3), (0.6, 0.34)],
        ]
    col = [
        [(0.28, 0.32), (0.50, 0.32)],  # capital
        [(0.30, 0.37), (0.48, 0.37)],
        [(0.27, 0.74), (0.51, 0.74)],  # base
        [(0.29, 0.69), (0.49, 0.69)],
    ]
    for x in (0.33, 0.39, 0.45):
        col.append([(x, 0.38), (x, 0.68)])
    rubble = [
        [(0.55, 0.74), (0.72, 0.74)],
        [(0.57, 0.74), (0.57, 0.56), (0.61, 0.52), (0.64, 0.56), (0.64, 0.74)],
        [(0.66, 0.74), (0.66, 0.63), (0.70, 0.60), (0.70, 0.74)],
        [(0.60, 0.45), (0.62, 0.47)],
    ]
    return col + rubble


def draw_ruins(img, cv: Canvas, color, r: int, c: int, look: RuinsLook = RuinsLook()) -> None:
    """The ruins icon in the middle of the cell (column and rubble by default)."""

    # Design 4 is drawn off the cell's middle; the printed icon sits in it.
    cx, cy = _FLUTED_CENTRE if look.design == 4 else (0.5, 0.5)
    centre = np.array((1 - cx if look.mirror else cx, cy))

    def place(p) -> np.ndarray:
        q = np.array(p, float)
        if look.mirror:
            q[:, 0] = 1 - q[:, 0]
        return (q - centre) * look.scale + 0.5 + np.array(look.shift) + (c, r)

    # The paper under the icon (the printing's own, textured and aged): a fixed light paper
    # made pale icons' bodies whiter than the sheet around them.
    (x0, y0), (x1, y1) = cv.px([(c + 0.15, r + 0.15), (c + 0.85, r + 0.85)]).astype(int)
    paper = np.median(img[y0:y1, x0:x1].reshape(-1, img.shape[2]), axis=0).astype(float)

    def toward_paper(ink, share: float) -> tuple[int, ...]:
        """``ink`` kept at ``share`` (1 = as is), the rest of the way mixed to paper."""
        return tuple(int(v) for v in paper + (np.array(ink, float) - paper) * share)

    if look.strength < 1:  # paler ink
        color = toward_paper(color, look.strength)
    if look.design == 4:
        pale = toward_paper(color, look.fill)
        color = tuple(int(v * look.shade) for v in color)
        for body in _FLUTED_BODIES:
            cv.fill(img, place(body), pale)
        for slab in _FLUTED_SLAB_BOXES:
            cv.fill(img, place(_box(*slab)), color)
        cv.polylines(img, [place(p) for p in _flutes(look.flutes)], color, look.width * 0.9)
    cv.polylines(img, [place(p) for p in _ruins_lines(look.design)], color, look.width)


def _rift(img, cv: Canvas, pr: Printing, layout: Layout, rng: np.random.Generator) -> None:
    """Side B's canyon: one hole torn through the map over the wasteland cells.

    After the publisher's sheet: a single ragged hole (no dashes across it) whose torn
    edge wanders a tenth of a cell or more either side of the cells' borders, outlined
    in near-black, its cliffs shaded brown in vertical streaks inside the edge, a grey
    floor with faint cracks, and a scorched halo on the paper around it that fades over
    0.08-0.2 of a cell (synthesis 23; the publisher's, about 0.1: test_synth.py).
    """
    cells = sorted(layout.wasteland)
    r0 = min(r for r, _ in cells) - 1
    c0 = min(c for _, c in cells) - 1
    r1 = max(r for r, _ in cells) + 2
    c1 = max(c for _, c in cells) + 2
    ppc = cv.ppc
    local = Canvas(ppc, (c0, r0), int((c1 - c0) * ppc), int((r1 - r0) * ppc))
    m = local.blank(1)
    for r, c in cells:
        local.rect(m, c - 0.01, r - 0.01, c + 1.01, r + 1.01, 255)
    # Torn outline: displace the mask with a field rough down to a few hundredths of a cell.
    h, w = m.shape
    amp = float(rng.uniform(0.06, 0.14)) * ppc
    teeth = 0.025 * ppc  # torn paper's small teeth on top of the wandering edge
    dx = smooth_noise(rng, (h, w), 12, 4) * amp + smooth_noise(rng, (h, w), 90) * teeth
    dy = smooth_noise(rng, (h, w), 12, 4) * amp + smooth_noise(rng, (h, w), 90) * teeth
    dx, dy = dx.astype(np.float32), dy.astype(np.float32)
    gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    m = cv2.remap(m, gx + dx, gy + dy, cv2.INTER_LINEAR)
    hole = (m > 127).astype(np.uint8)
    inside = cv2.distanceTransform(hole, cv2.DIST_L2, 3) / ppc  # cells from the edge
    a = cv2.GaussianBlur(hole.astype(np.float32), (0, 0), max(0.6, 0.008 * ppc))[..., None]
    x0, y0 = np.round(cv.px((c0, r0))).astype(int)
    region = img[y0 : y0 + h, x0 : x0 + w].astype(np.float32)
    # The halo: paper scorched brown for a short way outside the edge.
    outside = cv2.distanceTransform(1 - hole, cv2.DIST_L2, 3) / ppc
    halo = float(rng.uniform(0.25, 0.55)) * np.exp(-outside / rng.uniform(0.08, 0.2))[..., None]
    region = region * (1 - halo) + np.array([70, 100, 140], np.float32) * halo
    # The floor, and the cliffs: brown streaks running down, darkest at the edge.
    floor = np.array(rng.choice([(150, 150, 146), (138, 142, 150), (128, 136, 146)]), np.float32)
    floor = floor + smooth_noise(rng, (h, w), 20, 3)[..., None] * 12
    coarse = rng.uniform(0.5, 1.0, (max(2, int(4 * h / ppc)), max(2, w // 3)))
    streaks = cv2.resize(coarse.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    # Cliffs face the viewer under the hole's upper edges: how far each floor pixel
    # lies below the edge above it, straight down.
    below = np.zeros((h, w), np.float32)
    for y in range(1, h):
        below[y] = (below[y - 1] + 1) * hole[y]
    depth = float(rng.uniform(0.1, 0.25)) * ppc
    cliff = np.maximum(np.exp(-below / depth), 0.6 * np.exp(-inside / 0.06))
    cliff = (cliff * streaks)[..., None]
    floor = floor * (1 - 0.7 * cliff) + np.array([45, 70, 105], np.float32) * 0.7 * cliff
    out = region * (1 - a) + floor * a
    edge = ((inside > 0) & (inside < rng.uniform(0.012, 0.03))).astype(np.float32)
    edge = cv2.GaussianBlur(edge, (0, 0), 0.6)[..., None]
    out = out * (1 - edge) + np.array([28, 30, 38], np.float32) * edge
    img[y0 : y0 + h, x0 : x0 + w] = np.clip(out, 0, 255).astype(np.uint8)
    cracks = []
    for r, c in cells:
        for _ in range(2):
            p = np.array([c + rng.uniform(0.2, 0.8), r + rng.uniform(0.1, 0.3)])
            cracks.append(wobble(rng, densify([p, p + (rng.normal(0, 0.1), 0.6)], 0.1), 0.03))
    cv.polylines(img, cracks, (105, 108, 108), 0.015)


def _coin_track(img, cv: Canvas, pr: Printing) -> None:
    bx0, by0, bx1, by1 = g.COIN_BAND
    x0, y0 = print_xy(pr, bx0, by0 + 0.05)
    x1, y1 = print_xy(pr, bx1, by1 - 0.05)
    cv.rect(img, x0, y0, x1, y1, pr.band)
    _shade_band(img, cv, pr, (x0, y0, x1, y1))
    for sx in (x0 - 0.04, x1 + 0.04):
        sgn = -1 if sx < x0 else 1
        brace = [(sx + sgn * 0.05, y0 - 0.06), (sx, y0), (sx, (y0 + y1) / 2 - 0.05)]
        brace += [(sx - sgn * 0.05, (y0 + y1) / 2), (sx, (y0 + y1) / 2 + 0.05), (sx, y1)]
        brace += [(sx + sgn * 0.05, y1 + 0.06)]
        cv.polyline(img, brace, pr.ink, 0.02)
    for i in range(g.COIN_COUNT):
        draw_coin(img, cv, pr, print_xy(pr, *g.coin_center(i)), g.COIN_RADIUS * 0.95)
    # Plus-shaped reminder icon with a tiny mountain and coin.
    cx, cy = print_xy(pr, *g.REMINDER_ICON_XY)
    s = 0.16
    plus = [
        (-s, -3 * s),
        (s, -3 * s),
        (s, -s),
        (3 * s, -s),
        (3 * s, s),
        (s, s),
        (s, 3 * s),
        (-s, 3 * s),
        (-s, s),
        (-3 * s, s),
        (-3 * s, -s),
        (-s, -s),
    ]
    pts = np.array(plus) + (cx, cy)
    cv.fill(img, pts, pr.band)
    cv.polyline(img, pts, pr.ink, 0.015, closed=True)
    cv.rect(img, cx - s, cy - s, cx + s, cy + s, pr.mountain)


def _shade_band(img, cv: Canvas, pr: Printing, box: tuple[float, float, float, float]) -> None:
    """Darken the coin band towards its ends, and mottle it, as the printed band is.

    On photos of the real print the band's light falls by 10-20 % at the last coin
    and 3-8 % at the first, while the coins stay as bright as in the middle; along
    the band it varies by a few percent. The amounts vary from copy to copy here
    (none to half again as much). Drawn from the printing's own values, so the
    random draws of everything else on the sheet are unchanged.
    """
    rng = np.random.default_rng([*pr.band, *pr.paper, *pr.gold])
    right, right_w = rng.uniform(0.0, 0.35), rng.uniform(0.8, 1.5)
    left, left_w = rng.uniform(0.0, 0.15), rng.uniform(0.5, 1.2)
    x0, y0, x1, y1 = box
    (c0, r0), (c1, r1) = np.floor(cv.px([(x0, y0), (x1, y1)])).astype(int)
    c0, r0 = max(c0, 0), max(r0, 0)
    c1, r1 = min(c1 + 1, img.shape[1]), min(r1 + 1, img.shape[0])
    if c1 <= c0 or r1 <= r0:
        return
    x = cv.origin[0] + (np.arange(c0, c1) + 0.5) / cv.ppc
    shade = 1 - right * np.exp(-np.clip(x1 - x, 0, None) / right_w)
    shade -= left * np.exp(-np.clip(x - x0, 0, None) / left_w)
    noise = rng.normal(0, 1, len(x))
    noise = cv2.GaussianBlur(noise[None], (0, 0), max(0.3 * cv.ppc, 1.0))[0]
    shade *= 1 + rng.uniform(0.0, 0.03) * noise / max(float(np.std(noise)), 1e-6)
    part = img[r0:r1, c0:c1].astype(np.float32) * shade[None, :, None].astype(np.float32)
    img[r0:r1, c0:c1] = np.clip(part, 0, 255).astype(np.uint8)


def _season_boxes(img, cv: Canvas, pr: Printing) -> None:
    letters = ("AB", "BC", "CD", "DA")
    faint = tuple(int(v * 0.55 + p * 0.45) for v, p in zip(pr.accent, pr.paper, strict=True))
    line = tuple(int(v) for v in pr.ink)
    for s in range(4):
        b = g.season_box(s)
        x0, y0 = print_xy(pr, b.x0, b.y0)
        x1, y1 = print_xy(pr, b.x1, b.y1)
        c = (x1 - x0) / 3
        mid = (y0 + y1) / 2
        _rounded_rect(img, cv, x0, y0, x1, y1, 0.12, line, 0.025)
        cv.polylines(
            img,
            [
                [(x0 + c, y0), (x0 + c, y1)],
                [(x0 + 2 * c, y0), (x0 + 2 * c, y1)],
                [(x0, mid), (x0 + 2 * c, mid)],
            ],
            line,
            0.02,
        )
        for k in range(2):
            cv.text_centered(
                img,
                letters[s][k],
                (x0 + (k + 0.5) * c, y0 + (mid - y0) / 2),
                0.24,
                faint,
                weight=0.05,
            )
        draw_coin(img, cv, pr, (x0 + 0.5 * c, (mid + y1) / 2), 0.12)
        _monster_icon(img, cv, (x0 + 1.5 * c, (mid + y1) / 2), 0.16, faint)
        if s < 3:
            px = x1 + (g.SEASON_BOX_PITCH - 3 * g.SEASON_BOX_COLUMN) / 2
            cv.text_centered(img, "+", (px, (y0 + y1) / 2), 0.2, line, weight=0.15)
    sx, sy = print_xy(pr, *g.TOTAL_SHIELD_XY)
    eq = sx - 0.7
    cv.polylines(
        img,
        [
            [(eq - 0.1, sy - 0.05), (eq + 0.1, sy - 0.05)],
            [(eq - 0.1, sy + 0.05), (eq + 0.1, sy + 0.05)],
        ],
        line,
        0.025,
    )
    shield = [
        (sx - 0.4, sy - 0.45),
        (sx + 0.4, sy - 0.45),
        (sx + 0.4, sy + 0.05),
        (sx, sy + 0.5),
        (sx - 0.4, sy + 0.05),
    ]
    cv.polyline(img, shield, line, 0.025, closed=True)
    for side in (-1, 1):
        for k in range(5):
            t = k / 4
            lx = sx + side * (0.55 - 0.1 * t * t)
            ly = sy - 0.25 + 0.65 * t
            cv.circle(img, (lx, ly), 0.055, pr.gold)


def _rounded_rect(img, cv, x0, y0, x1, y1, rad, color, width) -> None:
    t = np.linspace(0, np.pi / 2, 6)
    pts = []
    for cx, cy, a0 in (
        (x1 - rad, y0 + rad, -np.pi / 2),
        (x1 - rad, y1 - rad, 0),
        (x0 + rad, y1 - rad, np.pi / 2),
        (x0 + rad, y0 + rad, np.pi),
    ):
        pts.extend(zip(cx + rad * np.cos(a0 + t), cy + rad * np.sin(a0 + t), strict=True))
    cv.polyline(img, pts, color, width, closed=True)


def _monster_icon(img, cv: Canvas, center, size: float, color) -> None:
    cx, cy = center
    s = size
    head = [(-1, -0.6), (-0.6, 0.6), (0, 1), (0.6, 0.6), (1, -0.6)]
    horns = [[(-1, -0.6), (-0.8, -1.1), (-0.5, -0.6)], [(1, -0.6), (0.8, -1.1), (0.5, -0.6)]]
    lines = [np.array(head) * s + (cx, cy)] + [np.array(h) * s + (cx, cy) for h in horns]
    lines.append(np.array([(-0.5, 0.3), (-0.2, 0.15), (0.2, 0.15), (0.5, 0.3)]) * s + (cx, cy))
    cv.polylines(img, lines, color, 0.015)


def _header(img, cv: Canvas, pr: Printing, rng: np.random.Generator) -> None:
    """Name and title lines, crown, ribbon, crossed swords, the shield over the frame, compass.

    Positions measured on the printed sheet (cells from the grid's top-left corner).
    """
    ink = pr.ink
    x, y = print_xy(pr, -0.07, -2.55)
    cv.text(img, "CARTOGRAPHER:", (x, y), 0.2, ink, weight=0.12)
    cv.polyline(img, [(x, y + 0.61), (x + 3.1, y + 0.61)], pr.accent, 0.03)
    x2, y2 = print_xy(pr, -0.07, -1.3)
    cv.text(img, "TITLE:", (x2, y2), 0.2, ink, weight=0.12)
    cv.polyline(img, [(x2, y2 + 0.64), (x2 + 2.3, y2 + 0.64)], pr.accent, 0.03)
    cx, _ = print_xy(pr, 5.58, 0)
    # Crown.
    crown = [
        (-0.25, -2.95),
        (-0.27, -3.22),
        (-0.12, -3.08),
        (0, -3.28),
        (0.12, -3.08),
        (0.27, -3.22),
        (0.25, -2.95),
    ]
    cv.fill(img, np.array(crown) + (cx, 0), ink)
    # Ribbon banner: an arched band with folded tails.
    t = np.linspace(-1, 1, 21)
    top = np.stack([cx + 1.75 * t, -2.72 + 0.25 * t**2], 1)
    bottom = top + (0, 0.4)
    band = np.vstack([top, bottom[::-1]])
    cv.fill(img, band, pr.paper)
    cv.polyline(img, band, ink, 0.03, closed=True)
    for sgn in (-1, 1):
        ex = cx + sgn * 1.75
        tail = [
            (ex, -2.3),
            (ex + sgn * 0.55, -2.3),
            (ex + sgn * 0.38, -2.08),
            (ex + sgn * 0.6, -1.85),
            (ex - sgn * 0.05, -1.85),
            (ex, -2.05),
        ]
        cv.polyline(img, tail, ink, 0.03)
    # Crossed swords behind the shield.
    for sgn in (-1, 1):
        hilt = np.array([cx + sgn * 1.25, -2.05])
        tip = np.array([cx - sgn * 1.0, 0.3])
        d = (tip - hilt) / np.linalg.norm(tip - hilt)
        n = np.array([-d[1], d[0]])
        blade = [hilt + d * 0.35 + n * 0.05, tip, hilt + d * 0.35 - n * 0.05]
        cv.fill(img, blade, pr.paper)
        cv.polyline(img, blade, ink, 0.025)
        cv.polyline(img, [hilt + d * 0.35 + n * 0.2, hilt + d * 0.35 - n * 0.2], ink, 0.05)
        cv.polyline(img, [hilt, hilt + d * 0.33], ink, 0.06)
        cv.circle(img, hilt - d * 0.05, 0.07, ink)
    # Flourishes either side of the shield.
    for sgn in (-1, 1):
        x0, x1 = cx + sgn * 0.75, cx + sgn * 3.0
        cv.polyline(img, [(x0, -0.63), (x1, -0.63)], ink, 0.035)
        cv.fill(img, [(x1, -0.7), (x1 + sgn * 0.15, -0.63), (x1, -0.56)], ink)
        cv.circle(img, (cx + sgn * 1.35, -0.82), 0.17, ink, 0.035)
        cv.polyline(
            img,
            [(cx + sgn * 1.5, -0.9), (cx + sgn * 2.2, -0.95), (cx + sgn * 2.5, -0.8)],
            ink,
            0.03,
        )
    # The shield overlaps the frame and row A.
    tt = np.linspace(0, 1, 10)
    right = np.stack([cx + 0.62 * (1 - tt**2), -0.55 + 0.87 * tt], 1)
    shield = np.vstack(
        [[(cx - 0.62, -1.36), (cx + 0.62, -1.36)], right, (right * [-1, 1] + [2 * cx, 0])[::-1]]
    )
    cv.fill(img, shield, pr.paper)
    cv.polyline(img, shield, ink, 0.04, closed=True)
    # Compass rose.
    ccx, ccy = print_xy(pr, 10.07, -1.8)
    cv.circle(img, (ccx, ccy), 0.95, pr.accent, 0.025)
    cv.circle(img, (ccx, ccy), 0.85, pr.accent, 0.012)
    star = []
    for k in range(16):
        ang = k * np.pi / 8 - np.pi / 2
        rad = 1.05 if k % 4 == 0 else 0.55 if k % 2 == 0 else 0.3
        star.append((ccx + rad * np.cos(ang), ccy + rad * np.sin(ang)))
    cv.fill(img, star, pr.accent)
    cv.circle(img, (ccx, ccy), 0.1, pr.paper)
    for lab, ang in (("N", -90), ("E", 0), ("S", 90), ("W", 180)):
        a = np.deg2rad(ang)
        cv.text_centered(
            img, lab, (ccx + 1.15 * np.cos(a), ccy + 1.15 * np.sin(a)), 0.13, pr.accent
        )
