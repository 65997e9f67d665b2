"""A second, independent sheet renderer, for evaluation only (never for training or tuning).

Draws a filled Cartographers map sheet with Pillow (supersampled) on a textured
paper, in this module's own style: print colours, frame, dashes, mountains,
ruins and rift, and a player's hand (pencil, ballpoint, coloured pencil,
marker, fineliner; icons, hatching, outlines). :mod:`benchmarks.heldout.camera`
turns it into a phone photo.

Coordinates: "grid units" are cells with the origin at the grid's outer
top-left corner (``scanner.geometry``), x right, y down; page pixels are the
rendered sheet image's pixels.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage
from skimage import measure

from benchmarks.heldout import symbols
from scanner import geometry as geo
from scoring.game import score_game
from scoring.layouts import LAYOUTS, SIZE

SS = 3  # supersampling factor of every Pillow drawing

TERRAIN_COLOURS = {
    "T": [(0.13, 0.5, 0.18), (0.32, 0.62, 0.2), (0.08, 0.38, 0.25)],
    "V": [(0.75, 0.15, 0.12), (0.55, 0.3, 0.15), (0.85, 0.32, 0.2)],
    "F": [(0.93, 0.77, 0.1), (0.82, 0.6, 0.15), (0.96, 0.66, 0.22)],
    "W": [(0.15, 0.4, 0.85), (0.2, 0.62, 0.85), (0.1, 0.25, 0.62)],
    "M": [(0.45, 0.15, 0.55), (0.15, 0.1, 0.15), (0.62, 0.22, 0.6)],
}
PEN_STYLES = (
    "graphite",
    "ballpoint",
    "colour-pencil",
    "colour-hatch",
    "hatch-icons",
    "marker",
    "fineliner-wash",
    "minimal",
)


@dataclass
class Pen:
    """One drawing tool: colour (RGB 0..1), line width (cells), strength, paper grain, wobble."""

    colour: tuple[float, float, float]
    width: float
    strength: float
    grain: float
    wobble: float


@dataclass
class Hand:
    """A player's habits for a whole sheet."""

    style: str
    pens: dict[str, Pen]  # per terrain, for icons
    fill_pens: dict[str, Pen] = field(default_factory=dict)  # per terrain, for hatching
    outline: Pen | None = None  # firm line along each placed shape (None: no outlines)
    variants: dict[str, int] = field(default_factory=dict)
    scale: float = 0.8  # icon size in cells
    jitter: float = 0.06  # icon placement scatter in cells
    overflow: float = 0.05  # how far hatching strays over the cell lines
    hatch_spacing: float = 0.07
    icons: bool = True
    minimal: bool = False
    coin_mark: str = "cross"
    hatch_kind: str = "lines"  # lines, zigzag (back and forth) or cross (cross-hatching)
    retrace: float = 0.0  # chance a line is gone over twice
    smudges: int = 0


@dataclass
class Sheet:
    """A rendered flat sheet: RGBA page image and where its grid lattice is."""

    image: np.ndarray  # (H, W, 4) uint8 RGB + alpha (torn outline)
    ppc: float  # page pixels per nominal cell
    lattice: np.ndarray  # (12, 12, 2) page-pixel (x, y) of the grid intersections
    side: str
    hand: str
    habits: dict = field(default_factory=dict)  # icon designs, hatching, outlines (for reports)


# --------------------------------------------------------------------------- paper


def _smooth_noise(rng, shape, sigma, amp):
    n = ndimage.gaussian_filter(rng.standard_normal(shape).astype(np.float32), sigma)
    return n / (n.std() + 1e-6) * amp


def paper(rng: np.random.Generator, w: int, h: int, ppc: float, hard: bool) -> np.ndarray:
    """Paper texture (H, W, 3) float32 in 0..1: base tint, mottling, fibres, aged edges."""
    tints = [
        (0.94, 0.9, 0.81),
        (0.95, 0.93, 0.88),
        (0.92, 0.87, 0.77),
        (0.9, 0.88, 0.84),
        (0.96, 0.92, 0.84),
    ]
    base = np.array(tints[rng.integers(len(tints))], np.float32) + rng.uniform(-0.02, 0.02, 3)
    small = (max(8, h // 8), max(8, w // 8))
    mott = _smooth_noise(rng, small, 2.5 * ppc / 8, 0.035)
    mott = np.asarray(Image.fromarray(mott).resize((w, h), Image.BICUBIC))
    mid = _smooth_noise(rng, (h, w), 0.25 * ppc, 0.012)
    fib = _smooth_noise(rng, (h, w), 0.6, 0.018)
    lum = 1 + mott + mid + fib
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    edge = np.minimum.reduce([xx, yy, w - 1 - xx, h - 1 - yy]) / ppc
    age = 1 - rng.uniform(0.04, 0.14) * np.exp(-edge / rng.uniform(0.3, 0.8))
    out = base[None, None, :] * (lum * age)[..., None]
    out[..., 2] *= 1 - 0.04 * np.exp(-edge / 0.6)  # edges yellow a little
    return np.clip(out, 0, 1).astype(np.float32)


def _map_texture(rng, w, h, ppc) -> list[np.ndarray]:
    """Faint old-map contour lines (page px): contours of a smooth random field."""
    small = (int(h / ppc * 4), int(w / ppc * 4))
    f = ndimage.gaussian_filter(rng.standard_normal(small), 6)
    lines = []
    for level in np.quantile(f, [0.3, 0.5, 0.7, 0.85]):
        for c in measure.find_contours(f, level):
            if len(c) > 20:
                lines.append(c[:, ::-1] * (ppc / 4))
    return lines


# --------------------------------------------------------------------------- fonts


def _font(kind: str, px: float) -> ImageFont.FreeTypeFont:
    size = max(6, int(px))
    paths = {
        "serif": ["/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"],
        "kalam": [("fontpkg_kalam", "Kalam-Regular.ttf")],
        "caveat": [("fontpkg_caveat", "Caveat[wght].ttf")],
        "indie": [("fontpkg_indie_flower", "IndieFlower-Regular.ttf")],
        "marker": [("fontpkg_permanent_marker", "PermanentMarker-Regular.ttf")],
    }[kind]
    for p in paths:
        try:
            if isinstance(p, tuple):
                p = str(importlib.resources.files(p[0]) / "files" / p[1])
            return ImageFont.truetype(p, size)
        except (OSError, ModuleNotFoundError):
            continue
    return ImageFont.load_default(size)


# --------------------------------------------------------------------------- the print


class _Printer:
    """Draws the printed template at SS x resolution; grid units -> supersampled px."""

    def __init__(self, w: int, h: int, origin: np.ndarray, cell: float):
        self.img = Image.new("RGB", (w * SS, h * SS), (255, 255, 255))
        self.d = ImageDraw.Draw(self.img)
        self.origin, self.cell = origin, cell

    def p(self, x: float, y: float) -> tuple[float, float]:
        return ((self.origin[0] + x * self.cell) * SS, (self.origin[1] + y * self.cell) * SS)

    def w(self, cells: float) -> int:
        return max(1, round(cells * self.cell * SS))

    def line(self, pts, col, width):
        self.d.line([self.p(*q) for q in pts], fill=col, width=self.w(width), joint="curve")

    def poly(self, pts, fill=None, outline=None, width=0.02):
        self.d.polygon(
            [self.p(*q) for q in pts],
            fill=fill,
            outline=outline,
            width=self.w(width) if outline else 0,
        )

    def ellipse(self, cx, cy, r, fill=None, outline=None, width=0.02):
        (x0, y0), (x1, y1) = self.p(cx - r, cy - r), self.p(cx + r, cy + r)
        self.d.ellipse([x0, y0, x1, y1], fill=fill, outline=outline, width=self.w(width))

    def text(self, x, y, s, col, size, anchor="mm", kind="serif"):
        self.d.text(
            self.p(x, y), s, fill=col, font=_font(kind, size * self.cell * SS), anchor=anchor
        )


def _rgb(c) -> tuple[int, int, int]:
    return tuple(int(round(255 * v)) for v in c)


def _print_template(pr: _Printer, rng, side: str, map_lines, ppc_page: float) -> None:
    ink = (40, 32, 30)
    accent = (222, 150, 40) if side == "A" else (150, 150, 150)
    accent = tuple(int(np.clip(v + rng.integers(-12, 13), 0, 255)) for v in accent)
    faint = (205, 190, 170)
    # old-map texture first (page px -> grid units)
    for ln in map_lines:
        pts = (ln - pr.origin) / pr.cell
        pr.line(pts[::3], faint, 0.012)
    # header
    pr.text(-0.6, -3.3, "CARTOGRAPHER:", ink, 0.32, "lm")
    pr.text(-0.6, -2.3, "TITLE:", ink, 0.32, "lm")
    pr.line([(-0.6, -2.75), (2.6, -2.75)], accent, 0.03)
    pr.line([(-0.6, -1.75), (2.0, -1.75)], accent, 0.03)
    # banner ribbon and shield with crossed swords
    cx = 5.5
    pr.poly(
        [(cx - 2.2, -3.7), (cx + 2.2, -3.7), (cx + 2.0, -3.1), (cx - 2.0, -3.1)],
        outline=ink,
        width=0.04,
    )
    pr.poly([(cx - 2.2, -3.7), (cx - 2.8, -3.4), (cx - 2.2, -3.1)], outline=ink, width=0.04)
    pr.poly([(cx + 2.2, -3.7), (cx + 2.8, -3.4), (cx + 2.2, -3.1)], outline=ink, width=0.04)
    pr.line([(cx - 1.5, -2.8), (cx + 1.2, -0.2)], ink, 0.06)
    pr.line([(cx + 1.5, -2.8), (cx - 1.2, -0.2)], ink, 0.06)
    pr.poly(
        [(cx - 0.7, -2.3), (cx + 0.7, -2.3), (cx + 0.7, -1.0), (cx, -0.25), (cx - 0.7, -1.0)],
        fill=(245, 240, 232),
        outline=ink,
        width=0.05,
    )
    pr.line([(cx - 3.8, -1.35), (cx - 0.8, -1.35)], ink, 0.04)
    pr.line([(cx + 0.8, -1.35), (cx + 3.8, -1.35)], ink, 0.04)
    # compass rose
    ccx, ccy = 10.2, -2.4
    pr.ellipse(ccx, ccy, 1.0, outline=accent, width=0.03)
    star = []
    for i in range(16):
        a = i * np.pi / 8
        r = 1.05 if i % 4 == 0 else (0.55 if i % 2 == 0 else 0.22)
        star.append((ccx + r * np.sin(a), ccy - r * np.cos(a)))
    pr.poly(star, fill=accent, outline=ink, width=0.015)
    for lab, (dx, dy) in zip("NESW", ((0, -1.25), (1.25, 0), (0, 1.25), (-1.25, 0)), strict=True):
        pr.text(ccx + dx, ccy + dy, lab, accent, 0.2)
    pr.text(*geo.SIDE_LABEL_XY, f"({side})", ink, 0.3)
    # grid dashes
    dash, gap = rng.uniform(0.1, 0.16), rng.uniform(0.06, 0.1)
    dash_w = rng.uniform(0.025, 0.04)
    for i in range(1, SIZE):
        t = -gap / 2
        while t < SIZE:
            a, b = max(t, 0), min(t + dash, SIZE)
            if b > a:
                pr.line([(i, a), (i, b)], accent, dash_w)
                pr.line([(a, i), (b, i)], accent, dash_w)
            t += dash + gap
    # frame: thick outer line, thin inner line, hatched blocks between. As printed
    # (measured on the real sheet against its dashed lines): the inner line's inside
    # edge is the grid's edge, the outer line's centre about 0.195 cell outside it.
    # Drawn as closed lines (a PIL polygon's outline would lie inside the shape).
    fw = geo.FRAME_WIDTH
    for o, width in ((geo.FRAME_INNER_LINE, 0.035), (geo.FRAME_OUTER_LINE, 0.05)):
        corners = [(-o, -o), (SIZE + o, -o), (SIZE + o, SIZE + o), (-o, SIZE + o), (-o, -o)]
        pr.line(corners, ink, width)
    for k in range(6):
        s0 = 0.3 + k * 2.0
        for edge in range(4):
            for t in np.arange(s0, s0 + 0.9, 0.09):
                if edge == 0:
                    seg = [(t, -fw), (t, 0)]
                elif edge == 1:
                    seg = [(t, SIZE), (t, SIZE + fw)]
                elif edge == 2:
                    seg = [(-fw, t), (0, t)]
                else:
                    seg = [(SIZE, t), (SIZE + fw, t)]
                pr.line(seg, ink, 0.02)
    # labels
    for r in range(SIZE):
        pr.text(geo.ROW_LABEL_X, r + 0.5, "ABCDEFGHIJK"[r], accent, 0.3)
    for c in range(SIZE):
        pr.text(c + 0.5, geo.COLUMN_LABEL_Y, str(c + 1), accent if side == "B" else ink, 0.28)
    # coin track, reminder icon
    band_col = (232, 170, 50) if side == "A" else (160, 172, 168)
    x0, y0, x1, y1 = geo.COIN_BAND
    pr.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], fill=band_col)
    pr.line([(x0 - 0.1, y0 - 0.05), (x0 - 0.15, geo.COIN_Y), (x0 - 0.1, y1 + 0.05)], ink, 0.03)
    pr.line([(x1 + 0.1, y0 - 0.05), (x1 + 0.15, geo.COIN_Y), (x1 + 0.1, y1 + 0.05)], ink, 0.03)
    for i in range(geo.COIN_COUNT):
        cx_, cy_ = geo.coin_center(i)
        pr.ellipse(
            cx_, cy_, geo.COIN_RADIUS, fill=(236, 190, 40), outline=(150, 100, 20), width=0.03
        )
        pr.ellipse(cx_, cy_, geo.COIN_RADIUS * 0.6, outline=(200, 140, 20), width=0.02)
    rx, ry = geo.REMINDER_ICON_XY
    for dx, dy in ((0, 0), (-0.3, 0), (0.3, 0), (0, -0.3), (0, 0.3)):
        pr.poly(
            [
                (rx + dx - 0.15, ry + dy - 0.15),
                (rx + dx + 0.15, ry + dy - 0.15),
                (rx + dx + 0.15, ry + dy + 0.15),
                (rx + dx - 0.15, ry + dy + 0.15),
            ],
            fill=band_col,
            outline=ink,
            width=0.02,
        )
    pr.poly([(rx - 0.13, ry + 0.12), (rx, ry - 0.12), (rx + 0.13, ry + 0.12)], fill=(90, 40, 25))
    # season boxes
    letters = ("AB", "BC", "CD", "DA")
    for s in range(4):
        b = geo.season_box(s)
        pr.d.rounded_rectangle(
            [*pr.p(b.x0, b.y0), *pr.p(b.x1, b.y1)], radius=pr.w(0.12), outline=ink, width=pr.w(0.03)
        )
        c = geo.SEASON_BOX_COLUMN
        mid = b.y0 + geo.SEASON_BOX_HEIGHT / 2
        pr.line([(b.x0 + c, b.y0), (b.x0 + c, b.y1)], ink, 0.02)
        pr.line([(b.x0 + 2 * c, b.y0), (b.x0 + 2 * c, b.y1)], ink, 0.02)
        pr.line([(b.x0, mid), (b.x0 + 2 * c, mid)], ink, 0.02)
        for j in range(2):
            pr.text(b.x0 + (j + 0.5) * c, b.y0 + 0.28, letters[s][j], (200, 190, 180), 0.35)
        pr.ellipse(b.x0 + 0.5 * c, mid + 0.29, 0.13, fill=(236, 190, 40))
        pr.ellipse(b.x0 + 1.5 * c, mid + 0.29, 0.14, outline=(190, 180, 170), width=0.02)
        if s < 3:
            pr.text(b.x1 + 0.24, b.y0 + 0.58, "+", ink, 0.4)
    tx, ty = geo.TOTAL_SHIELD_XY
    pr.text(tx - 0.75, ty, "=", ink, 0.45)
    pr.poly(
        [
            (tx - 0.4, ty - 0.5),
            (tx + 0.4, ty - 0.5),
            (tx + 0.4, ty + 0.05),
            (tx, ty + 0.5),
            (tx - 0.4, ty + 0.05),
        ],
        outline=ink,
        width=0.03,
    )
    for k in range(6):
        for sgn in (-1, 1):
            pr.ellipse(tx + sgn * (0.5 + 0.05 * k), ty + 0.45 - 0.15 * k, 0.07, fill=(170, 120, 40))


def _print_mountain(pr: _Printer, rng, r: int, c: int) -> None:
    brown = (72, 34, 24)
    pad = rng.uniform(-0.02, 0.04)
    pr.poly(
        [
            (c + pad, r + pad),
            (c + 1 - pad, r + pad),
            (c + 1 - pad, r + 1 - pad),
            (c + pad, r + 1 - pad),
        ],
        fill=(88, 44, 30),
    )
    for _ in range(70):  # the scribble
        a = rng.uniform(0, 1, 2)
        d = rng.normal(0, 0.35, 2)
        b = np.clip(a + d, -0.03, 1.03)
        pr.line(
            [(c + a[0], r + a[1]), (c + b[0], r + b[1])],
            brown if rng.random() < 0.7 else (110, 60, 40),
            0.02,
        )
    white = (246, 242, 236)
    pr.line(
        [
            (c + 0.15, r + 0.72),
            (c + 0.38, r + 0.25),
            (c + 0.52, r + 0.5),
            (c + 0.64, r + 0.3),
            (c + 0.86, r + 0.72),
            (c + 0.15, r + 0.72),
        ],
        white,
        0.04,
    )
    pr.line([(c + 0.3, r + 0.42), (c + 0.38, r + 0.36), (c + 0.45, r + 0.45)], white, 0.025)
    pr.ellipse(c + 0.5, r + 0.7, 0.15, fill=(230, 180, 35), outline=(140, 90, 15), width=0.025)
    pr.ellipse(c + 0.5, r + 0.7, 0.08, outline=(250, 220, 120), width=0.015)


def _print_ruins(pr: _Printer, rng, r: int, c: int, side: str) -> None:
    col = (224, 150, 45) if side == "A" else (160, 160, 160)
    x, y = c + 0.5 + rng.uniform(-0.03, 0.03), r + 0.5
    pr.poly(
        [(x - 0.28, y - 0.2), (x - 0.04, y - 0.2), (x - 0.04, y - 0.14), (x - 0.28, y - 0.14)],
        fill=col,
    )
    pr.poly(
        [(x - 0.24, y - 0.14), (x - 0.08, y - 0.14), (x - 0.08, y + 0.16), (x - 0.24, y + 0.16)],
        outline=col,
        width=0.03,
    )
    pr.line([(x - 0.16, y - 0.12), (x - 0.16, y + 0.14)], col, 0.02)
    pr.poly(
        [(x - 0.3, y + 0.16), (x + 0.3, y + 0.16), (x + 0.3, y + 0.22), (x - 0.3, y + 0.22)],
        fill=col,
    )
    pr.poly(
        [(x + 0.04, y + 0.16), (x + 0.04, y - 0.02), (x + 0.1, y - 0.08), (x + 0.14, y + 0.16)],
        fill=col,
    )
    pr.poly([(x + 0.16, y + 0.16), (x + 0.18, y + 0.06), (x + 0.26, y + 0.16)], fill=col)


def _print_rift(pr: _Printer, rng, cells) -> None:
    mask = np.zeros((SIZE * 10 + 20, SIZE * 10 + 20), np.uint8)
    for r, c in cells:
        mask[10 + r * 10 - 1 : 10 + r * 10 + 11, 10 + c * 10 - 1 : 10 + c * 10 + 11] = 1
    cont = max(measure.find_contours(mask.astype(float), 0.5), key=len)
    pts = (cont[:, ::-1] - 10) / 10
    pts = pts + rng.normal(0, 0.05, pts.shape)
    pr.poly([tuple(q) for q in pts + [0.06, 0.06]], fill=(120, 110, 105))
    pr.poly([tuple(q) for q in pts], fill=(168, 166, 164), outline=(80, 70, 65), width=0.03)
    for _ in range(25):
        a = pts[rng.integers(len(pts))]
        pr.line([tuple(a), tuple(a + rng.normal(0, 0.15, 2))], (110, 100, 95), 0.02)


# --------------------------------------------------------------------------- the hand


def _pen(rng, kind: str, terrain: str | None = None, hard: bool = False) -> Pen:
    if kind == "graphite":
        faint = hard and rng.random() < 0.35
        return Pen(
            (0.3, 0.3, 0.33),
            rng.uniform(0.022, 0.04),
            rng.uniform(0.25, 0.4) if faint else rng.uniform(0.55, 0.9),
            0.6,
            0.02,
        )
    if kind == "ballpoint":
        col = [(0.1, 0.15, 0.55), (0.08, 0.08, 0.12), (0.05, 0.1, 0.4)][rng.integers(3)]
        return Pen(col, rng.uniform(0.016, 0.028), rng.uniform(0.7, 0.95), 0.15, 0.015)
    if kind == "fineliner":
        return Pen((0.05, 0.05, 0.07), rng.uniform(0.022, 0.035), 1.0, 0.0, 0.012)
    pal = TERRAIN_COLOURS[terrain]
    col = np.clip(np.array(pal[rng.integers(len(pal))]) + rng.uniform(-0.05, 0.05, 3), 0.02, 1)
    if kind == "marker":
        return Pen(tuple(col), rng.uniform(0.05, 0.09), rng.uniform(0.65, 0.9), 0.0, 0.015)
    # coloured pencil
    return Pen(
        tuple(col),
        rng.uniform(0.03, 0.05),
        rng.uniform(0.5, 0.85) * (0.7 if hard and rng.random() < 0.3 else 1),
        0.7,
        0.02,
    )


def make_hand(rng: np.random.Generator, hard: bool) -> Hand:
    """Choose one player's tools and habits."""
    weights = np.array([3, 2, 2, 1.2, 2, 1.5, 1.2, 1.0])
    style = PEN_STYLES[rng.choice(len(PEN_STYLES), p=weights / weights.sum())]
    terr = "TVFWM"
    variants = {t: int(rng.integers(symbols.VARIANTS[t])) for t in terr}
    h = Hand(style=style, pens={}, variants=variants)
    h.scale = rng.uniform(0.6, 0.95)
    h.jitter = rng.uniform(0.02, 0.1 if not hard else 0.16)
    h.overflow = rng.uniform(0.0, 0.08 if not hard else 0.16)
    h.hatch_spacing = rng.uniform(0.05, 0.1) if not hard else rng.uniform(0.035, 0.1)
    h.coin_mark = ["cross", "tick", "scribble", "fill", "slash"][rng.integers(5)]
    h.smudges = int(rng.integers(0, 4 if not hard else 9))
    h.hatch_kind = ["lines", "zigzag", "cross"][rng.choice(3, p=[0.45, 0.4, 0.15])]
    h.retrace = rng.choice([0.0, 0.2, 0.5], p=[0.5, 0.3, 0.2])
    if style in ("graphite", "ballpoint", "minimal"):
        kind = (
            "ballpoint"
            if style == "ballpoint"
            else ("graphite" if rng.random() < 0.7 or style == "graphite" else "ballpoint")
        )
        p = _pen(rng, kind, hard=hard)
        h.pens = {t: p for t in terr}
        h.minimal = style == "minimal"
    elif style == "colour-pencil":
        h.pens = {t: _pen(rng, "colour", t, hard) for t in terr}
    elif style == "marker":
        h.pens = {t: _pen(rng, "marker", t, hard) for t in terr}
    elif style == "colour-hatch":
        h.fill_pens = {t: _pen(rng, "colour", t, hard) for t in terr}
        h.icons = False
    elif style == "hatch-icons":
        h.fill_pens = {t: _pen(rng, "colour", t, hard) for t in terr}
        icon_kind = ["graphite", "ballpoint", "colour"][rng.integers(3)]
        h.pens = {t: _pen(rng, icon_kind, t, hard) for t in terr}
        if icon_kind == "colour":  # icons darker than the hatching
            for t in terr:
                c = np.array(h.pens[t].colour) * 0.6
                h.pens[t] = Pen(tuple(c), h.pens[t].width, 0.9, 0.5, 0.02)
    else:  # fineliner icons with a light coloured wash
        p = _pen(rng, "fineliner")
        h.pens = {t: p for t in terr}
        h.fill_pens = {t: _pen(rng, "colour", t, hard) for t in terr}
        for t in terr:
            f = h.fill_pens[t]
            h.fill_pens[t] = Pen(f.colour, f.width * 1.5, f.strength * 0.45, 0.8, 0.03)
    if rng.random() < (0.6 if style != "colour-hatch" else 0.9):
        base = next(iter(h.pens.values())) if h.pens else _pen(rng, "graphite", hard=hard)
        h.outline = Pen(
            base.colour,
            base.width * rng.uniform(1.1, 1.8),
            min(1.0, base.strength * 1.1),
            base.grain,
            0.02,
        )
    return h


class _Ink:
    """Optical density of the player's marks on the page, accumulated stroke group by group."""

    def __init__(self, h: int, w: int, grain: np.ndarray):
        self.density = np.zeros((h, w, 3), np.float32)
        self.grain = grain

    def stamp(self, box, draw_fn, pen: Pen) -> None:
        """Draw ``draw_fn(ImageDraw, to_px)`` on a local supersampled canvas and lay it down."""
        x0, y0, x1, y1 = (
            int(np.floor(box[0])),
            int(np.floor(box[1])),
            int(np.ceil(box[2])),
            int(np.ceil(box[3])),
        )
        h, w = self.density.shape[:2]
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return
        img = Image.new("L", ((x1 - x0) * SS, (y1 - y0) * SS), 0)
        d = ImageDraw.Draw(img)
        draw_fn(d, lambda p: ((p[0] - x0) * SS, (p[1] - y0) * SS))
        a = np.asarray(img.resize((x1 - x0, y1 - y0), Image.BOX), np.float32) / 255
        if pen.grain:
            g = self.grain[y0:y1, x0:x1]
            a = a * (1 - pen.grain + pen.grain * g)
        absorb = -np.log10(np.clip(np.array(pen.colour, np.float32), 0.03, 1))
        self.density[y0:y1, x0:x1] += (a * pen.strength)[..., None] * absorb


def _clip_line(p, d, lo, hi):
    """The part of the line ``p + t d`` inside the box ``lo..hi`` (Liang-Barsky), or None."""
    t0, t1 = -np.inf, np.inf
    for k in (0, 1):
        if abs(d[k]) < 1e-9:
            if not lo[k] <= p[k] <= hi[k]:
                return None
            continue
        a, b = sorted(((lo[k] - p[k]) / d[k], (hi[k] - p[k]) / d[k]))
        t0, t1 = max(t0, a), min(t1, b)
    if t1 - t0 < 0.05:
        return None
    return p + t0 * d, p + t1 * d


def _wobble(rng, pts: np.ndarray, amount: float) -> np.ndarray:
    """A hand's line through ``pts`` (grid units): resampled, with smooth sideways drift."""
    pts = np.asarray(pts, float)
    if len(pts) < 2:
        return pts
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    total = seg.sum()
    if total < 1e-6:
        return pts
    n = max(2, int(total / 0.03))
    s = np.concatenate([[0], np.cumsum(seg)])
    t = np.linspace(0, total, n)
    out = np.stack([np.interp(t, s, pts[:, 0]), np.interp(t, s, pts[:, 1])], 1)
    drift = ndimage.gaussian_filter1d(rng.normal(0, 1, (n, 2)), max(1.0, n / 6), axis=0)
    drift = drift / (np.abs(drift).max() + 1e-9) * amount
    return out + drift


class _Player:
    """Draws a game onto the ink layer in page pixels."""

    def __init__(self, rng, ink: _Ink, origin, cell, hand: Hand):
        self.rng, self.ink, self.origin, self.cell, self.hand = rng, ink, origin, cell, hand

    def px(self, p) -> tuple[float, float]:
        return (self.origin[0] + p[0] * self.cell, self.origin[1] + p[1] * self.cell)

    def _box(self, pts, margin):
        pts = np.asarray(pts)
        lo, hi = pts.min(0) - margin, pts.max(0) + margin
        a, b = self.px(lo), self.px(hi)
        return (a[0], a[1], b[0], b[1])

    def strokes(self, prims, pen: Pen, retrace: float | None = None) -> None:
        """Lay down primitives given in grid units.

        Lines vary in width along their length (pressure) and, by the hand's
        habit, some are gone over twice a little apart.
        """
        rng = self.rng
        retrace = self.hand.retrace if retrace is None else retrace
        lines = []
        for k, p in prims:
            if k != "stroke":
                lines.append((k, p))
                continue
            lines.append((k, _wobble(rng, p, pen.wobble)))
            if rng.random() < retrace:
                lines.append((k, _wobble(rng, p, pen.wobble) + rng.normal(0, 0.015, 2)))
        allpts = np.vstack([p for _, p in lines])
        wpx = pen.width * self.cell * SS
        chunk = 5

        def draw(d, to):
            for k, p in lines:
                q = [to(self.px(v)) for v in p]
                if k == "fill" and len(q) > 2:
                    d.polygon(q, fill=255)
                elif len(q) > 1:
                    pressure = 1 + 0.25 * np.sin(rng.uniform(0, 6.3) + np.arange(len(q)) / 4)
                    for i in range(0, len(q) - 1, chunk):
                        width = max(1, round(wpx * pressure[i]))
                        d.line(q[i : i + chunk + 1], fill=255, width=width, joint="curve")

        self.ink.stamp(self._box(allpts, pen.width + 0.05), draw, pen)

    def icon(self, r: int, c: int, terrain: str, ruins: bool) -> None:
        h, rng = self.hand, self.rng
        pen = h.pens[terrain]
        if h.minimal:
            prims = symbols.minimal(terrain, rng)
        else:
            filled = h.style == "marker" and rng.random() < 0.5
            prims = symbols.symbol(terrain, h.variants[terrain], rng, filled)
        s = h.scale * rng.uniform(0.9, 1.08)
        if ruins:  # squeezed beside or over the printed ruins icon
            s *= rng.uniform(0.6, 0.85)
        ang = rng.normal(0, 0.12)
        rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        centre = np.array([c + 0.5, r + 0.5]) + rng.normal(0, h.jitter, 2)
        if ruins and rng.random() < 0.6:
            centre += [rng.choice([-0.22, 0.22]), rng.uniform(-0.2, 0.0)]
        out = [(k, (p - 0.5) * s @ rot.T + centre) for k, p in prims]
        self.strokes(out, pen)

    def hatch(self, cells, pen: Pen) -> None:
        """Coloured-pencil hatching filling ``cells`` (one shape, one angle), straying a little."""
        rng, h = self.rng, self.hand
        ang = rng.uniform(0, np.pi)
        d = np.array([np.cos(ang), np.sin(ang)])
        nrm = np.array([-d[1], d[0]])
        prims = []
        for r, c in cells:
            ctr = np.array([c + 0.5, r + 0.5])
            half = 0.5 + h.overflow * rng.uniform(0.3, 1.0, 2)
            lines = []
            for o in np.arange(-0.72, 0.72, h.hatch_spacing * rng.uniform(0.85, 1.15)):
                seg = _clip_line(ctr + nrm * o, d, ctr - half, ctr + half)
                if seg is not None:
                    j = rng.normal(0, 0.02, 2)
                    ends = np.array([seg[0] + j, seg[1] - j])
                    # zigzag: the pencil goes back and forth without lifting
                    lines.append(
                        ends[::-1] if h.hatch_kind == "zigzag" and len(lines) % 2 else ends
                    )
            if h.hatch_kind == "zigzag" and lines:
                prims.append(("stroke", np.vstack(lines)))
            else:
                prims += [("stroke", ln) for ln in lines]
            if h.hatch_kind == "cross":
                for o in np.arange(-0.72, 0.72, h.hatch_spacing * 1.6):
                    seg = _clip_line(ctr + d * o, nrm, ctr - half, ctr + half)
                    if seg is not None:
                        prims.append(("stroke", np.array(seg)))
        hp = Pen(pen.colour, pen.width, pen.strength, pen.grain, 0.008)
        for i in range(0, len(prims), 40):
            self.strokes(prims[i : i + 40], hp, retrace=0.0)

    def outline(self, cells, pen: Pen) -> None:
        """A firm line along the shape's border, just inside it."""
        rng = self.rng
        shape = {tuple(x) for x in cells}
        inset = rng.uniform(0.02, 0.08)
        segs = []
        for r, c in shape:
            for dr, dc, a, b in (
                (-1, 0, (0, 0), (1, 0)),
                (1, 0, (0, 1), (1, 1)),
                (0, -1, (0, 0), (0, 1)),
                (0, 1, (1, 0), (1, 1)),
            ):
                if (r + dr, c + dc) not in shape:
                    p = np.array([c + a[0], r + a[1]], float)
                    q = np.array([c + b[0], r + b[1]], float)
                    n = -np.array([dc, dr], float) * inset
                    segs.append(("stroke", np.array([p + n, q + n])))
        self.strokes(segs, pen)

    def smudge(self, r: int, c: int) -> None:
        """An eraser smudge or a stray dot in an empty cell."""
        rng = self.rng
        ctr = np.array([c + rng.uniform(0.2, 0.8), r + rng.uniform(0.2, 0.8)])
        if rng.random() < 0.5:
            pts = ctr + rng.normal(0, 0.1, (6, 2))
            self.strokes([("stroke", pts)], Pen((0.55, 0.55, 0.57), 0.1, 0.12, 0.8, 0.05))
        else:
            self.strokes(
                [
                    (
                        "fill",
                        ctr
                        + 0.02 * np.array([[np.cos(t), np.sin(t)] for t in np.linspace(0, 6.3, 8)]),
                    )
                ],
                Pen((0.3, 0.3, 0.33), 0.02, 0.7, 0.3, 0.0),
            )


def _mark_coins(player: _Player, n: int, pen: Pen) -> None:
    rng = player.rng
    mark = player.hand.coin_mark
    p = Pen(pen.colour, max(pen.width, 0.025) * 1.2, max(pen.strength, 0.7), pen.grain * 0.5, 0.01)
    for i in range(n):
        x, y = geo.coin_center(i)
        x, y = x + rng.normal(0, 0.03), y + rng.normal(0, 0.03)
        r = geo.COIN_RADIUS * rng.uniform(0.9, 1.3)
        if mark == "cross":
            prims = [
                ("stroke", np.array([[x - r, y - r], [x + r, y + r]])),
                ("stroke", np.array([[x + r, y - r], [x - r, y + r]])),
            ]
        elif mark == "tick":
            prims = [
                ("stroke", np.array([[x - r, y], [x - r * 0.2, y + r], [x + r * 1.1, y - r * 1.1]]))
            ]
        elif mark == "slash":
            prims = [("stroke", np.array([[x + r, y - r * 1.1], [x - r, y + r * 1.1]]))]
        elif mark == "fill":
            prims = [
                (
                    "fill",
                    np.array(
                        [
                            [x + r * 0.95 * np.cos(t), y + r * 0.95 * np.sin(t)]
                            for t in np.linspace(0, 6.3, 16)
                        ]
                    ),
                )
            ]
        else:
            t = np.linspace(0, 1, 14)
            prims = [
                (
                    "stroke",
                    np.stack(
                        [
                            x - r + 2 * r * t,
                            y
                            + r
                            * 0.9
                            * np.where(np.arange(14) % 2, -1, 1)
                            * rng.uniform(0.6, 1, 14),
                        ],
                        1,
                    ),
                )
            ]
        player.strokes(prims, p)


def _write_numbers(player: _Player, rng, numbers: list[dict], total: int, pen: Pen) -> None:
    font_kind = ["kalam", "caveat", "indie", "marker"][rng.integers(4)]
    img_pen = Pen(pen.colour, 0.02, max(pen.strength, 0.75), pen.grain * 0.5, 0)
    for s, nums in enumerate(numbers):
        fields = geo.season_fields(s)
        for key, box in fields.items():
            v = nums[key]
            text = str(v) if key != "monsters" or v == 0 or rng.random() < 0.7 else str(-v)
            cx, cy = box.center
            cx, cy = cx + rng.normal(0, 0.04), cy + rng.normal(0, 0.04)
            size = (0.45 if key == "total" else 0.32) * rng.uniform(0.85, 1.15)

            def draw(d, to, text=text, cx=cx, cy=cy, size=size):
                f = _font(font_kind, size * player.cell * SS)
                d.text(to(player.px((cx, cy))), text, fill=255, font=f, anchor="mm")

            player.ink.stamp(player._box(np.array([[cx, cy]]), 0.6), draw, img_pen)
    tx, ty = geo.TOTAL_SHIELD_XY

    def draw_total(d, to):
        f = _font(font_kind, 0.5 * player.cell * SS)
        d.text(to(player.px((tx, ty - 0.05))), str(total), fill=255, font=f, anchor="mm")

    player.ink.stamp(player._box(np.array([[tx, ty]]), 0.8), draw_total, img_pen)


def _write_name(player: _Player, rng, pen: Pen) -> None:
    name = ["Ada", "Bruno", "Chiara", "Dmitri", "Emeka", "Fatima", "Gus", "Hana", "Ines", "Jonas"][
        rng.integers(10)
    ]
    kind = ["kalam", "caveat", "indie"][rng.integers(3)]

    def draw(d, to):
        d.text(
            to(player.px((0.3, -2.95))),
            name,
            fill=255,
            font=_font(kind, 0.45 * player.cell * SS),
            anchor="lm",
        )

    player.ink.stamp(
        player._box(np.array([[0.2, -3.1], [3.0, -2.7]]), 0.4),
        draw,
        Pen(pen.colour, 0.02, 0.8, 0.3, 0),
    )


# --------------------------------------------------------------------------- the sheet


@dataclass(frozen=True)
class GameState:
    """What is on the sheet: final grid, coins, shapes (cells, terrain), season numbers, cards."""

    side: str
    grid: tuple[str, ...]
    coins: int
    shapes: tuple[tuple[tuple[tuple[int, int], ...], str], ...]
    numbers: tuple[dict, ...]
    total: int
    cards: dict


def play(rng: np.random.Generator, side: str, seasons: int = 4) -> GameState:
    """A finished (or part-finished) game from :func:`models.synth.game.simulate_game`."""
    from models.synth.game import simulate_game

    game = simulate_game(rng, side, seasons)
    result = score_game(game.maps(), game.cards, list(game.season_coins), per_season=True)
    numbers = tuple(
        {
            "card1": s.edict_points[0],
            "card2": s.edict_points[1],
            "coins": s.coins,
            "monsters": s.monsters,
            "total": s.total,
        }
        for s in result.seasons
    )
    shapes = tuple((p.cells, p.terrain) for p in game.placements)
    return GameState(side, game.grid, game.coins, shapes, numbers, result.total, dict(game.cards))


def render_sheet(rng: np.random.Generator, state: GameState, ppc: float, hard: bool) -> Sheet:
    """Draw ``state`` on a page at ``ppc`` pixels per nominal cell."""
    w, h = int(round(geo.PAGE_WIDTH * ppc)), int(round(geo.PAGE_HEIGHT * ppc))
    cell = ppc * rng.uniform(0.98, 1.02)  # print scale varies a little
    origin = (np.array(geo.GRID_ORIGIN_ON_PAGE) + rng.uniform(-0.12, 0.12, 2)) * ppc
    layout = LAYOUTS[state.side]
    pr = _Printer(w, h, origin, cell)
    _print_template(pr, rng, state.side, _map_texture(rng, w, h, ppc), ppc)
    for r, c in layout.mountains:
        _print_mountain(pr, rng, r, c)
    for r, c in layout.ruins:
        _print_ruins(pr, rng, r, c, state.side)
    if layout.wasteland:
        _print_rift(pr, rng, layout.wasteland)
    printed = np.asarray(pr.img.resize((w, h), Image.LANCZOS), np.float32) / 255
    page = paper(rng, w, h, ppc, hard) * printed

    grain = np.clip(
        ndimage.gaussian_filter(rng.random((h, w)).astype(np.float32), 0.6) * 3 - 1, 0, 1
    )
    ink = _Ink(h, w, grain)
    hand = make_hand(rng, hard)
    player = _Player(rng, ink, origin, cell, hand)
    grid = state.grid
    for cells, terrain in state.shapes:
        if terrain in hand.fill_pens:
            player.hatch(cells, hand.fill_pens[terrain])
    for cells, terrain in state.shapes:
        if hand.icons:
            for r, c in cells:
                player.icon(r, c, terrain, (r, c) in layout.ruins)
        if hand.outline is not None:
            o = hand.outline
            if hand.style in ("colour-hatch", "colour-pencil", "marker"):
                fp = hand.fill_pens.get(terrain) or hand.pens[terrain]
                o = Pen(tuple(np.array(fp.colour) * 0.8), o.width, o.strength, fp.grain, o.wobble)
            player.outline(cells, o)
    empties = [(r, c) for r in range(SIZE) for c in range(SIZE) if grid[r][c] == "."]
    for i in rng.permutation(len(empties))[: hand.smudges]:
        player.smudge(*empties[i])
    writer = hand.outline or (
        next(iter(hand.pens.values())) if hand.pens else _pen(rng, "graphite")
    )
    if writer.colour[1] > 0.4 or writer.strength < 0.5:
        writer = _pen(rng, "graphite")
    _mark_coins(player, state.coins, writer)
    _write_numbers(player, rng, list(state.numbers), state.total, writer)
    _write_name(player, rng, writer)
    page = page * np.power(10.0, -ink.density).astype(np.float32)

    alpha = _torn_alpha(rng, w, h, ppc)
    rgba = np.dstack([np.clip(page * 255, 0, 255), alpha]).astype(np.uint8)
    ii, jj = np.mgrid[0 : SIZE + 1, 0 : SIZE + 1]
    lattice = np.stack([origin[0] + jj * cell, origin[1] + ii * cell], -1).astype(np.float64)
    habits = {
        "icons": {
            t: ("minimal" if hand.minimal else symbols.VARIANT_NAMES[t][v])
            for t, v in hand.variants.items()
        }
        if hand.icons
        else {},
        "hatching": hand.hatch_kind if hand.fill_pens else None,
        "outlines": hand.outline is not None,
    }
    return Sheet(rgba, ppc, lattice, state.side, hand.style, habits)


def _torn_alpha(rng, w, h, ppc) -> np.ndarray:
    """Page outline with torn, slightly ragged edges (uint8 alpha)."""
    img = Image.new("L", (w, h), 0)
    per = []
    n = 60
    edges = [((0, 0), (w, 0)), ((w, 0), (w, h)), ((w, h), (0, h)), ((0, h), (0, 0))]
    for (x0, y0), (x1, y1) in edges:
        t = np.linspace(0, 1, n, endpoint=False)
        dev = (
            np.abs(ndimage.gaussian_filter1d(rng.normal(0, 1, n), 1.5)) * 0.12 * ppc
            + rng.random(n) * 0.04 * ppc
        )
        nx, ny = (y1 - y0), -(x1 - x0)
        ln = np.hypot(nx, ny)
        for ti, di in zip(t, dev, strict=True):
            per.append((x0 + (x1 - x0) * ti - nx / ln * di, y0 + (y1 - y0) * ti - ny / ln * di))
    ImageDraw.Draw(img).polygon(per, fill=255)
    return np.asarray(img)


# --------------------------------------------------------------------------- the photo

DIFFICULTIES = ("normal", "hard")
EXIF_TAGS = {1: 0, 3: 2, 6: 1, 8: -1}  # EXIF orientation -> np.rot90 k turning upright to stored


def _rng(seed: int, difficulty: str) -> np.random.Generator:
    # a seed space of its own: nothing here shares streams with models.synth
    return np.random.default_rng([seed, DIFFICULTIES.index(difficulty), 0x4E1D0])


def render_photo(
    seed: int, difficulty: str = "normal", size: tuple[int, int] | None = None
) -> tuple[np.ndarray, dict]:
    """One held-out photo: upright RGB uint8 image and its truth.

    Truth: ``side``, ``grid`` (11 strings of ``. T V F W M ^ #``), ``coins``,
    ``lattice`` (12 x 12 x 2 photo pixel (x, y) of the grid intersections,
    row-major from the A1 corner, pixel-centre convention), ``cards``,
    ``total`` (the final map scored once with its coins), ``written_total``
    (the season-by-season total the player wrote), ``exif`` (orientation tag
    to store with), and what was chosen (hand, camera, effects). ``size``
    (width, height) fixes the photo size instead of drawing one.
    """
    from benchmarks.heldout import camera as cm

    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")
    rng = _rng(seed, difficulty)
    hard = difficulty == "hard"
    side = "AB"[rng.integers(2)]
    seasons = 4 if rng.random() < (0.85 if not hard else 0.7) else int(rng.integers(1, 4))
    state = play(rng, side, seasons)
    scan = difficulty == "normal" and rng.random() < 0.08
    gx, gy = geo.GRID_ORIGIN_ON_PAGE
    grid_box = (gx - 0.7, gy - 0.4, gx + SIZE + 0.3, gy + SIZE + 0.6)
    cam_cells, cam_info = cm.place_camera(
        rng, (geo.PAGE_WIDTH, geo.PAGE_HEIGHT), grid_box, difficulty, size, scan
    )
    cell_px = cm.cell_px_in_photo(cam_cells, grid_box)
    ppc = float(np.clip(cell_px * 1.15, 36, 120))
    sheet = render_sheet(rng, state, ppc, hard)
    cam = cm.scale_camera(cam_cells, ppc)
    photo, effects = cm.shoot(rng, sheet.image, cam, difficulty, scan)
    lattice = cam.forward(sheet.lattice.reshape(-1, 2) - 0.5).reshape(SIZE + 1, SIZE + 1, 2)
    exif = exif_tag(seed, difficulty)
    quality = int(rng.integers(55, 80) if hard else rng.integers(72, 96))
    final = score_game([_final_map(state)], state.cards, state.coins)
    truth = {
        "seed": seed,
        "difficulty": difficulty,
        "side": side,
        "grid": list(state.grid),
        "coins": state.coins,
        "lattice": lattice.round(3).tolist(),
        "cards": state.cards,
        "total": final.total,
        "written_total": state.total,
        "seasons_played": seasons,
        "exif": exif,
        "jpeg_quality": quality,
        "hand": sheet.hand,
        "habits": sheet.habits,
        "render_ppc": round(ppc, 1),
        "cell_px": round(cell_px, 1),
        "size": list(cam.size),
        **cam_info,
        **effects,
    }
    return photo, truth


def _file_draws(seed: int, difficulty: str) -> tuple[int, str]:
    rng = np.random.default_rng([seed, DIFFICULTIES.index(difficulty), 0x4E1D0, 1])
    tag = int(rng.choice([1, 3, 6, 8], p=[0.8, 0.04, 0.1, 0.06]))
    fmt = "heic" if rng.random() < 0.06 else "jpeg"
    return (1 if fmt == "heic" else tag), fmt


def exif_tag(seed: int, difficulty: str) -> int:
    """The EXIF orientation the photo of ``seed`` is stored with (1 = none; 3, 6, 8 turned)."""
    return _file_draws(seed, difficulty)[0]


def file_format(seed: int, difficulty: str) -> str:
    """ "jpeg" or (for a few photos, stored upright) "heic"; name the file to match."""
    return _file_draws(seed, difficulty)[1]


def _final_map(state: GameState):
    from scoring.board import Map

    return Map(tuple(state.grid), LAYOUTS[state.side])


def write_photo(path, seed: int, difficulty: str = "normal", size=None) -> dict:
    """Render a held-out photo to a JPEG (EXIF-turned when the truth says so) or HEIC file.

    The format is :func:`file_format`'s; returns the truth.
    """
    import io

    photo, truth = render_photo(seed, difficulty, size)
    if file_format(seed, difficulty) == "heic":
        from pillow_heif import from_pillow

        from_pillow(Image.fromarray(photo)).save(str(path), quality=truth["jpeg_quality"])
        return truth
    stored = np.rot90(photo, EXIF_TAGS[truth["exif"]])
    im = Image.fromarray(np.ascontiguousarray(stored))
    exif = Image.Exif()
    if truth["exif"] != 1:
        exif[0x0112] = truth["exif"]
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=truth["jpeg_quality"], exif=exif.tobytes())
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return truth
