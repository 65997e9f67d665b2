"""What the player draws: terrain symbols, shape outlines, coin marks, season numbers.

One :class:`Style` per sheet (SHEET.md "How players draw"), with per-cell
variation. Ink goes to two "darkness" layers (255 - ink colour) that are
multiplied into the paper, so the printed art (ruins icons, dashes) stays
visible under the drawings; pencil strokes are modulated by paper grain.
Synthesis 16: besides the fixed designs, a player may draw a terrain as a
compositional doodle (:mod:`models.synth.doodles`), its parts chosen once per sheet.
Synthesis 18 (:func:`add_habits`, :func:`_smudges`): small icons, hard or light
pressure with any pencil, trees and houses coloured in, and more kinds of marks in
empty cells (graphite dust, a slip of the pencil, dots). Synthesis 25: a minimal
player's dotted farm is two or three rows of dabs, never one row of specks (which
matched the stray dots of empty cells: a label no one could read).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from importlib import import_module

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from models.synth.canvas import Canvas, densify, wobble
from models.synth.doodles import DOODLES, face, turned
from models.synth.game import Game
from models.synth.template import Printing, print_xy
from scanner import geometry as g
from scoring.board import EMPTY, FARM, FOREST, MONSTER, VILLAGE, WATER
from scoring.cards import CARDS
from scoring.i18n import solo_title

STYLES = ("graphite", "pencil-hatch", "pencil-hatch-icon", "ballpoint", "minimal")
STYLE_WEIGHTS = (0.25, 0.15, 0.2, 0.2, 0.2)
FONT_PACKAGES = (
    "fontpkg_caveat",
    "fontpkg_indie_flower",
    "fontpkg_kalam",
    "fontpkg_permanent_marker",
)

PENCIL_COLOURS = {  # BGR, a few choices per terrain
    FOREST: [(60, 140, 50), (50, 110, 40), (80, 160, 90)],
    VILLAGE: [(50, 50, 190), (40, 80, 140), (60, 60, 160)],
    FARM: [(40, 200, 230), (40, 170, 220), (60, 210, 220)],
    WATER: [(200, 130, 40), (210, 150, 70), (170, 100, 30)],
    MONSTER: [(140, 50, 120), (40, 40, 40), (120, 40, 90)],
}
GRAPHITE = (70, 70, 75)
ICON_TERRAINS = (FOREST, VILLAGE, FARM, WATER, MONSTER)
BALLPOINT = [(140, 50, 20), (35, 35, 35), (120, 40, 30)]


@dataclass(frozen=True)
class Style:
    name: str
    colours: dict[str, tuple[int, int, int]]  # terrain -> ink BGR
    pen: tuple[int, int, int]  # outlines, coins, numbers
    width: float  # icon stroke width, cells
    grain: float  # 0 ballpoint .. 1 soft pencil
    hatch: bool
    icons: bool
    outline: float  # probability a shape gets an outline
    variants: dict[str, int]  # terrain -> preferred icon variant
    size: float  # icon scale
    jitter: float  # hand wobble, cells
    hatch_angle: float
    hatch_spacing: float
    coin_mark: str
    font: str
    minus: bool  # writes monster penalties with a minus sign
    smudges: float  # eraser smudges / stray dots per empty cell
    faint: float = 1.0  # pencil pressure on lines: ink darkness factor (light 0.4-0.8, hard 1.3)
    fill: str = "hatch"  # how hatching styles fill a cell: hatch, cross, scribble, solid
    spill: float = 0.0  # how far symbols stray over the cell lines (cells)
    designs: dict[str, int] = field(default_factory=dict)  # terrain -> seed of its doodle
    filled: float = 0.0  # colours in a tree's or house's outlines (0 never .. 1 dark)


def random_style(rng: np.random.Generator, name: str | None = None) -> Style:
    """A player's drawing habits for one sheet."""
    if name is None:
        name = str(rng.choice(STYLES, p=STYLE_WEIGHTS))
    if name not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, got {name!r}")

    def pick(opts):
        return opts[int(rng.integers(len(opts)))]

    pencil = {t: pick(c) for t, c in PENCIL_COLOURS.items()}
    if name == "graphite":
        colours = {t: GRAPHITE for t in pencil}
        pen, width, grain = GRAPHITE, rng.uniform(0.025, 0.04), rng.uniform(0.5, 0.9)
    elif name == "ballpoint":
        ink = pick(BALLPOINT)
        colours = {t: ink for t in pencil}
        pen, width, grain = ink, rng.uniform(0.016, 0.026), rng.uniform(0.0, 0.15)
    elif name == "minimal":
        if rng.random() < 0.5:
            colours, pen = pencil, GRAPHITE
        else:
            ink = pick(BALLPOINT + [GRAPHITE])
            colours, pen = {t: ink for t in pencil}, ink
        width, grain = rng.uniform(0.022, 0.04), rng.uniform(0.2, 0.8)
    else:
        colours = pencil
        pen = GRAPHITE if rng.random() < 0.6 else pick(BALLPOINT)
        width, grain = rng.uniform(0.028, 0.045), rng.uniform(0.5, 0.95)
    return Style(
        name=name,
        colours=colours,
        pen=pen,
        width=width,
        grain=grain,
        hatch=name.startswith("pencil-hatch"),
        icons=name != "pencil-hatch",
        outline=float(rng.choice([0.0, 0.5, 0.9, 1.0])) if name != "minimal" else 0.2,
        variants={t: int(rng.integers(0, 4)) for t in pencil},
        size=rng.uniform(0.55, 0.8) if name != "minimal" else rng.uniform(0.4, 0.65),
        jitter=rng.uniform(0.006, 0.018),
        hatch_angle=rng.uniform(-1.2, 1.2),
        hatch_spacing=rng.uniform(0.045, 0.09),
        coin_mark=str(rng.choice(["cross", "tick", "scribble", "slash"])),
        font=str(rng.choice(FONT_PACKAGES)),
        minus=bool(rng.random() < 0.7),
        smudges=rng.uniform(0.0, 0.12),
    )


#: Icon designs per terrain: 0-3 the classic ones, then quick or unusual habits
#: (crosshatched and furrowed farms, one-zigzag and scribbled monsters, ...), and last
#: the compositional doodle (:mod:`models.synth.doodles`, synthesis 16).
N_VARIANTS = {FOREST: 7, VILLAGE: 7, FARM: 8, WATER: 7, MONSTER: 8}
COMPOSED = {t: n - 1 for t, n in N_VARIANTS.items()}
FILLS = ("hatch", "hatch", "cross", "scribble", "solid")
EXTRA_COLOURS = {  # BGR, more pencils players own
    FOREST: [(40, 90, 30), (70, 170, 120), (50, 120, 90)],
    VILLAGE: [(40, 60, 150), (30, 50, 100), (70, 70, 200)],
    FARM: [(90, 215, 235), (50, 160, 200), (30, 190, 200)],
    WATER: [(220, 170, 90), (160, 140, 40), (190, 110, 60)],
    MONSTER: [(100, 30, 70), (170, 80, 150), (60, 30, 50)],
}


def add_habits(style: Style, rng: np.random.Generator) -> Style:
    """Widen a player's habits beyond the five styles (SHEET.md "How players draw").

    Drawn from their own generator so the game, the style name and the camera of a
    seed do not depend on them. Many players use one of the quick or unusual designs
    for a terrain; graphite is often light; hatching players may crosshatch, scribble
    or colour solid; some draw big and across the cell lines; coloured pencils vary.
    Synthesis 16: 40 % of a player's terrains are compositional doodles, their parts
    (head, eyes, mouth, ...) fixed for the sheet by ``designs``; 25 % one of the quick designs.
    Synthesis 18: 15 % draw small; 12 % press hard (``faint`` above 1), and light
    pressure reaches coloured pencils too; empty cells get up to twice the smudges; 12 %
    of icon drawers colour in their trees and houses (``filled``).
    """
    variants = {}
    for t, v in style.variants.items():
        u = rng.random()
        if u < 0.4:
            v = COMPOSED[t]
        elif u < 0.65:
            v = int(rng.integers(4, COMPOSED[t]))
        variants[t] = v
    colours = style.colours
    if len(set(colours.values())) > 1 and rng.random() < 0.5:  # coloured pencils
        colours = {
            t: EXTRA_COLOURS[t][int(rng.integers(3))] if rng.random() < 0.6 else c
            for t, c in colours.items()
        }
    faint = 1.0  # light graphite lines; coloured fills have their own pressure already
    if set(colours.values()) == {GRAPHITE} and rng.random() < 0.4:
        faint = float(rng.uniform(0.4, 0.7))
    elif rng.random() < 0.15:
        faint = float(rng.uniform(0.7, 0.9))
    fill = str(rng.choice(FILLS)) if style.hatch else "hatch"
    spill = float(rng.uniform(0.03, 0.14)) if rng.random() < 0.35 else 0.0
    size = style.size * (rng.uniform(1.05, 1.3) if spill else 1.0)
    designs = {t: int(rng.integers(2**32)) for t in ICON_TERRAINS}
    # Synthesis 18: some draw small in the middle of the cell; some press hard, and
    # coloured pencils are often used lightly too; some leave more marks in empty cells.
    if rng.random() < 0.15:
        size *= rng.uniform(0.6, 0.8)
    u = rng.random()
    if faint == 1.0 and u < 0.12:
        faint = float(rng.uniform(1.1, 1.3))
    elif faint == 1.0 and u < 0.27 and len(set(colours.values())) > 1:
        faint = float(rng.uniform(0.5, 0.8))
    smudges = style.smudges * rng.uniform(1.0, 2.0)
    filled = float(rng.uniform(0.4, 0.9)) if style.icons and rng.random() < 0.12 else 0.0
    return replace(
        style,
        variants=variants,
        colours=colours,
        faint=faint,
        fill=fill,
        spill=spill,
        size=size,
        designs=designs,
        smudges=smudges,
        filled=filled,
    )


# ---- icons in cell-local coordinates (0..1, y down) ------------------------------------
def _tree(rng, variant):
    if variant == 4:  # cloud canopy of three bumps on a trunk with two branches
        t = np.linspace(0, 2 * np.pi, 30)
        rad = 0.2 + 0.05 * np.abs(np.sin(1.5 * t))
        canopy = np.stack([0.5 + rad * np.cos(t), 0.38 + 0.9 * rad * np.sin(t)], 1)
        return [
            canopy,
            [(0.5, 0.58), (0.5, 0.9)],
            [(0.5, 0.7), (0.4, 0.6)],
            [(0.5, 0.74), (0.6, 0.64)],
        ]
    if variant == 5:  # stick pine: a trunk with branches hanging down both sides
        out = [[(0.5, 0.1), (0.5, 0.9)]]
        for k, y in enumerate((0.22, 0.36, 0.5, 0.64)):
            w = 0.1 + 0.05 * k
            out.append([(0.5, y), (0.5 - w, y + 0.12)])
            out.append([(0.5, y), (0.5 + w, y + 0.12)])
        return out
    if variant == 3:  # a small group of three cones
        out = []
        for cx, cy, k in ((0.22, 0.64, 0.7), (0.78, 0.64, 0.7), (0.5, 0.46, 0.9)):
            out.append(
                [
                    (cx, cy - 0.3 * k),
                    (cx - 0.16 * k, cy + 0.12),
                    (cx + 0.16 * k, cy + 0.12),
                    (cx, cy - 0.3 * k),
                ]
            )
            out.append([(cx, cy + 0.12), (cx, cy + 0.22)])
        return out
    if variant == 0:  # cone on a trunk
        return [[(0.5, 0.12), (0.24, 0.68), (0.76, 0.68), (0.5, 0.12)], [(0.5, 0.68), (0.5, 0.9)]]
    if variant == 1:  # round canopy
        t = np.linspace(0, 2 * np.pi, 18)
        canopy = np.stack([0.5 + 0.25 * np.cos(t), 0.4 + 0.24 * np.sin(t)], 1)
        return [canopy, [(0.5, 0.64), (0.5, 0.9)]]
    # fir: stacked zigzag
    return [
        [
            (0.5, 0.1),
            (0.3, 0.38),
            (0.42, 0.38),
            (0.24, 0.66),
            (0.76, 0.66),
            (0.58, 0.38),
            (0.7, 0.38),
            (0.5, 0.1),
        ],
        [(0.5, 0.66), (0.5, 0.88)],
    ]


def _house(rng, variant):
    if variant == 4:  # one stroke house with two windows
        body = [
            (0.3, 0.45),
            (0.3, 0.85),
            (0.7, 0.85),
            (0.7, 0.45),
            (0.5, 0.2),
            (0.3, 0.45),
            (0.7, 0.45),
        ]
        win = [
            [(x, 0.55), (x + 0.1, 0.55), (x + 0.1, 0.65), (x, 0.65), (x, 0.55)]
            for x in (0.36, 0.54)
        ]
        return [body, *win]
    if variant == 5:  # a row of three small houses (a hamlet)
        out = []
        for x0 in (0.14, 0.4, 0.66):
            out.append([(x0, 0.5), (x0, 0.72), (x0 + 0.2, 0.72), (x0 + 0.2, 0.5)])
            out.append([(x0 - 0.03, 0.52), (x0 + 0.1, 0.34), (x0 + 0.23, 0.52)])
        return out
    if variant == 3:  # two little houses
        out = []
        for ox, k in ((-0.2, 0.8), (0.18, 1.0)):

            def p(x, y, ox=ox, k=k):
                return (0.5 + ox + (x - 0.5) * k * 0.6, 0.55 + (y - 0.55) * k * 0.75)

            out.append([p(0.28, 0.5), p(0.28, 0.86), p(0.72, 0.86), p(0.72, 0.5)])
            out.append([p(0.2, 0.52), p(0.5, 0.18), p(0.8, 0.52)])
        return out
    body = [(0.28, 0.5), (0.28, 0.86), (0.72, 0.86), (0.72, 0.5)]
    roof = [(0.2, 0.52), (0.5, 0.18), (0.8, 0.52)]
    out = [body, roof]
    if variant >= 1:
        out.append([(0.44, 0.86), (0.44, 0.68), (0.56, 0.68), (0.56, 0.86)])  # door
    if variant == 2:
        out.append([(0.64, 0.36), (0.64, 0.22), (0.7, 0.22), (0.7, 0.42)])  # chimney
    return out


def _farm(rng, variant):
    if variant == 4:  # crosshatch: two sets of crossing lines
        turn = float(rng.choice([0.0, np.pi / 4])) + rng.normal(0, 0.1)
        k = int(rng.integers(3, 6))
        ts = np.linspace(0.22, 0.78, k)
        out = [[(t, 0.18), (t, 0.82)] for t in ts] + [[(0.18, t), (0.82, t)] for t in ts]
        return [turned(np.array(p, float), turn) for p in out]
    if variant == 5:  # long parallel furrows, straight or slightly bowed
        turn = float(rng.choice([0.0, 0.0, 0.5, -0.5, np.pi / 2])) + rng.normal(0, 0.08)
        k = int(rng.integers(3, 7))
        bow = rng.normal(0, 0.04)
        x = np.linspace(0.1, 0.9, 9)
        out = [
            np.stack([x, y + bow * np.sin((x - 0.1) / 0.8 * np.pi)], 1)
            for y in np.linspace(0.2, 0.8, k)
        ]
        return [turned(p, turn) for p in out]
    if variant == 6:  # rows of short dashes
        out = []
        for y in np.linspace(0.25, 0.75, int(rng.integers(3, 5))):
            for x in (0.18, 0.42, 0.66):
                out.append([(x, y), (x + 0.14, y)])
        return out
    if variant == 0:  # wheat stalk: a stem with oval grains either side
        lines = [[(0.5, 0.9), (0.5, 0.2)]]
        t = np.linspace(0, 2 * np.pi, 10)
        grain = np.stack([0.045 * np.cos(t), 0.09 * np.sin(t)], 1)
        for k, y in enumerate((0.26, 0.38, 0.5, 0.62)):
            for side in (-1, 1):
                a = side * 0.6
                rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
                lines.append(grain @ rot.T + (0.5 + side * 0.07, y + 0.02 * (k % 2)))
        lines.append(grain + (0.5, 0.14))
        return lines
    if variant == 1:  # furrows
        return [[(0.18, y + 0.1), (0.82, y - 0.1)] for y in (0.3, 0.5, 0.7)]
    if variant == 3:  # two rows of upright sprouts: a stem with a leaf each side
        out = []
        for y in (0.45, 0.78):
            for x in (0.27, 0.5, 0.73):
                out.append([(x, y), (x, y - 0.22)])
                out.append([(x, y - 0.1), (x - 0.07, y - 0.17)])
                out.append([(x, y - 0.13), (x + 0.07, y - 0.2)])
        return out
    dots = []  # dotted rows
    for y in (0.3, 0.5, 0.7):
        for x in (0.25, 0.42, 0.59, 0.76):
            dots.append([(x, y), (x + 0.02, y + 0.01)])
    return dots


def _water(rng, variant):
    if variant == 4:  # many small tildes
        x = np.linspace(0, 0.2, 7)
        tilde = np.stack([x, 0.035 * np.sin(x / 0.2 * 2 * np.pi)], 1)
        spots = [(0.15, 0.28), (0.5, 0.25), (0.3, 0.48), (0.62, 0.5), (0.15, 0.7), (0.5, 0.74)]
        return [tilde + s for s in spots]
    if variant == 5:  # three or four flat ripply lines
        x = np.linspace(0.12, 0.88, 20)
        k = int(rng.integers(3, 5))
        return [
            np.stack([x, y + 0.025 * np.sin(x * 9 * np.pi)], 1) for y in np.linspace(0.3, 0.72, k)
        ]
    if variant == 3:  # short waves in a brick pattern
        x = np.linspace(0, 0.3, 8)
        wave = np.stack([x, 0.05 * np.sin(x / 0.3 * 2 * np.pi)], 1)
        return [
            wave + (x0, y0)
            for x0, y0 in ((0.15, 0.35), (0.55, 0.35), (0.35, 0.55), (0.15, 0.75), (0.55, 0.75))
        ]
    n = 2 + (variant != 1)
    x = np.linspace(0.15, 0.85, 14)
    ys = np.linspace(0.35, 0.68, n) if n > 1 else [0.5]
    amp = 0.06 + 0.02 * variant
    return [np.stack([x, y + amp * np.sin((x - 0.15) * 2.5 * np.pi)], 1) for y in ys]


def _bare_face(rng) -> list:
    """A face with no head (SHEET.md: "a face (eyes and a jagged mouth, horns)").
    Synthesis 29: the eyes are dots, angry brows over dots or slits, the mouth a zigzag
    or a row of teeth, and half of them have horns (all those whose face alone could pass
    for furrows); before, one fixed face with horns."""
    eyes = str(rng.choice(("dots", "brows", "brows", "slits")))
    mouth = str(rng.choice(("zigzag", "zigzag", "triangle", "square")))
    size = rng.uniform(0.05, 0.07)
    ey, my = rng.uniform(0.36, 0.46), rng.uniform(0.6, 0.7)
    dx, half = rng.uniform(0.1, 0.16), rng.uniform(0.14, 0.24)
    lines = face(rng, rng, eyes, mouth, 0.5, ey, my, dx, half, size)
    if rng.random() < 0.5 or mouth == "square" or eyes == "dots" and mouth != "zigzag":
        lines += [
            [(0.3, 0.34), (0.26, 0.16), (0.4, 0.3)],
            [(0.7, 0.34), (0.74, 0.16), (0.6, 0.3)],
        ]
    return lines


def _spiky_blob(rng) -> list:
    """A spiky blob (SHEET.md). Synthesis 29: 7-11 spikes of varied depth, and most
    carry a face: dot or angry eyes, and often a jagged mouth or a row of teeth."""
    k = int(rng.integers(7, 12))
    t = np.linspace(0, 2 * np.pi, 2 * k + 1) + rng.uniform(0, np.pi)
    outer = rng.uniform(0.3, 0.37)
    rad = np.where(np.arange(2 * k + 1) % 2 == 0, outer, outer * rng.uniform(0.55, 0.8))
    blob = [np.stack([0.5 + rad * np.cos(t), 0.52 + rad * np.sin(t)], 1)]
    if rng.random() < 0.2:  # the older plain one: two dots for eyes
        return [*blob, [(0.42, 0.46), (0.43, 0.47)], [(0.58, 0.46), (0.59, 0.47)]]
    eyes = str(rng.choice(("dots", "dots", "brows", "open")))
    mouth = str(rng.choice(("zigzag", "triangle", "square", "none")))
    size = rng.uniform(0.03, 0.045)
    ey, my = rng.uniform(0.43, 0.49), rng.uniform(0.6, 0.66)
    return blob + face(rng, rng, eyes, mouth, 0.5, ey, my, rng.uniform(0.06, 0.09), 0.11, size)


def _monster(rng, variant):
    if variant == 4:  # a single zigzag
        k = int(rng.integers(4, 9))
        amp = rng.uniform(0.12, 0.28)
        xs = np.linspace(0.15, 0.85, k + 1)
        return [[(x, 0.5 + (amp if i % 2 else -amp)) for i, x in enumerate(xs)]]
    if variant == 5:  # a quick scribble: a few loops round and round
        turns = rng.uniform(2, 4)
        t = np.linspace(0, 2 * np.pi * turns, int(24 * turns))
        rad = 0.22 + 0.08 * np.sin(t * rng.uniform(0.3, 0.7) + rng.uniform(0, 6))
        cx = 0.5 + 0.08 * np.sin(t / turns)
        return [np.stack([cx + rad * np.cos(t), 0.5 + 0.8 * rad * np.sin(t)], 1)]
    if variant == 6:  # a face with no head: eyes, a jagged mouth or teeth, often horns
        return _bare_face(rng)
    if variant == 3:  # blob with big eyes and teeth
        t = np.linspace(0, 2 * np.pi, 16)
        rad = 0.28 + 0.04 * np.sin(5 * t)
        blob = np.stack([0.5 + rad * np.cos(t), 0.52 + rad * np.sin(t)], 1)
        eye = np.stack([0.07 * np.cos(t[:12] * 16 / 12), 0.07 * np.sin(t[:12] * 16 / 12)], 1)
        teeth = [
            (0.34, 0.64),
            (0.4, 0.72),
            (0.46, 0.64),
            (0.52, 0.72),
            (0.58, 0.64),
            (0.64, 0.72),
            (0.68, 0.64),
        ]
        return [blob, eye + (0.4, 0.45), eye + (0.6, 0.45), teeth]
    if variant == 1:  # spiky blob, most often with a face
        return _spiky_blob(rng)
    t = np.linspace(0, 2 * np.pi, 20)
    head = np.stack([0.5 + 0.27 * np.cos(t), 0.55 + 0.25 * np.sin(t)], 1)
    lines = [
        head,
        [(0.38, 0.48), (0.45, 0.5)],
        [(0.62, 0.48), (0.55, 0.5)],
        [(0.34, 0.66), (0.42, 0.6), (0.5, 0.68), (0.58, 0.6), (0.66, 0.66)],
    ]
    if variant == 0:
        lines += [
            [(0.32, 0.38), (0.24, 0.16), (0.42, 0.32)],
            [(0.68, 0.38), (0.76, 0.16), (0.58, 0.32)],
        ]
    return lines


def _minimal_monster(rng, variant: int) -> list:
    """A monster drawn quickly: a zigzag, a cross, or (synthesis 24) a face reduced to
    two eyes and a jagged mouth, or two eyes under a crown of horns (an "M")."""
    if variant == 0:
        return [[(0.25, 0.6), (0.35, 0.3), (0.45, 0.6), (0.55, 0.3), (0.65, 0.6), (0.75, 0.3)]]
    if variant == 1:
        return [[(0.3, 0.3), (0.7, 0.7)], [(0.7, 0.3), (0.3, 0.7)]]
    gap = rng.uniform(0.12, 0.2)
    size = rng.uniform(0.015, 0.05)  # dots, or short dashes
    if variant == 2:  # two eyes over a zigzag mouth
        ey, my = rng.uniform(0.3, 0.42), rng.uniform(0.58, 0.7)
        teeth = int(rng.integers(3, 6))
        xs = np.linspace(0.28, 0.72, 2 * teeth + 1)
        mark = [(x, my + (0.06 if i % 2 else -0.04)) for i, x in enumerate(xs)]
    else:  # an "M" of horns, two eyes under its peaks or below it
        top = rng.uniform(0.22, 0.32)
        low = top + rng.uniform(0.2, 0.3)
        mark = [(0.25, low + 0.05), (0.33, top), (0.5, low - 0.04), (0.67, top), (0.75, low + 0.05)]
        if rng.random() < 0.6:
            gap, ey = rng.uniform(0.15, 0.19), top + rng.uniform(0.12, 0.18)
        else:
            ey = low + rng.uniform(0.08, 0.12)
    eyes = [[(0.5 + d * gap, ey), (0.5 + d * gap + size, ey + size * 0.7)] for d in (-1, 1)]
    return [*eyes, mark]


def _minimal(rng, terrain, variant):
    """A quick mark for ``terrain``: designs 0-1 (every terrain), 2-3 (monsters only)."""
    if terrain == MONSTER:
        return _minimal_monster(rng, variant)
    variant %= 2
    if terrain == FOREST:
        return [[(0.5, 0.25), (0.3, 0.7), (0.7, 0.7), (0.5, 0.25)]]
    if terrain == VILLAGE:
        return [[(0.3, 0.75), (0.3, 0.45), (0.5, 0.25), (0.7, 0.45), (0.7, 0.75), (0.3, 0.75)]]
    if terrain == FARM:  # two furrows, or dotted rows (synthesis 25: two or three rows of
        # dabs; one row of four specks was the size of SHEET.md's stray dots in empty cells)
        if variant:
            return [[(0.25, y), (0.75, y)] for y in (0.4, 0.6)]
        rows = (0.35, 0.65) if rng.random() < 0.6 else (0.3, 0.5, 0.7)
        xs = (0.25, 0.42, 0.59, 0.76) if rng.random() < 0.6 else (0.28, 0.5, 0.72)
        dab = rng.uniform(0.03, 0.07)
        return [[(x, y), (x + dab, y)] for y in rows for x in xs]
    if terrain == WATER:  # two clear "~"
        x = np.linspace(0.22, 0.78, 12)
        return [
            np.stack([x, y + 0.1 * np.sin((x - 0.22) / 0.56 * 3 * np.pi)], 1) for y in (0.4, 0.62)
        ]


_FIXED = {FOREST: _tree, VILLAGE: _house, FARM: _farm, WATER: _water, MONSTER: _monster}


def _icon(terrain: str, rng, variant: int, design=None) -> list:
    """Design ``variant`` of ``terrain``: a fixed one, or the compositional doodle whose
    parts ``design`` (a generator seeded per player; default ``rng``) chooses."""
    if variant == COMPOSED[terrain]:
        return DOODLES[terrain](rng, rng if design is None else design)
    return _FIXED[terrain](rng, variant)


ICONS = {t: partial(_icon, t) for t in _FIXED}


def icon_lines(rng, style: Style, terrain: str, ruins: bool) -> list[np.ndarray]:
    """The symbol for one cell as polylines in cell-local coordinates, with per-cell variation."""
    variant = style.variants[terrain]
    if rng.random() < 0.12:
        variant = int(rng.integers(0, 4))
    design = None  # the player's doodle; now and then drawn another way
    if variant == COMPOSED[terrain] and terrain in style.designs and rng.random() < 0.9:
        design = np.random.default_rng(style.designs[terrain])
    if style.name == "minimal" and variant < 4:
        lines = _minimal(rng, terrain, variant)
    else:
        lines = ICONS[terrain](rng, variant, design)
    scale = style.size * rng.uniform(0.88, 1.12)
    angle = rng.normal(0, 0.12)
    shift = rng.normal(0, 0.04 + style.spill, 2)
    if ruins and rng.random() < 0.6:  # squeezed beside the printed icon
        scale *= 0.7
        shift += [rng.choice([-0.2, 0.22]), rng.uniform(-0.2, 0.1)]
    ca, sa = np.cos(angle), np.sin(angle)
    rot = np.array([[ca, -sa], [sa, ca]])
    out = []
    for line in lines:
        p = (np.asarray(line, float) - 0.5) @ rot.T * scale + 0.5 + shift
        p = wobble(rng, densify(p, 0.08), style.jitter)
        out.append(p)
    return out


def hatch_lines(rng, style: Style, overshoot: float, turn: float = 0.0) -> np.ndarray:
    """One back-and-forth hatching stroke covering the unit cell (cell-local coordinates);
    ``turn`` (radians) is added to the player's usual hatching angle."""
    ang = style.hatch_angle + turn + rng.normal(0, 0.08)
    d = np.array([np.cos(ang), np.sin(ang)])
    n = np.array([-d[1], d[0]])
    spacing = style.hatch_spacing * rng.uniform(0.85, 1.15)
    lo, hi = -overshoot, 1 + overshoot
    pts = []
    for k, t in enumerate(np.arange(-0.72, 0.72, spacing)):
        c = np.array([0.5, 0.5]) + n * t
        seg = _clip_line(c, d, lo, hi)
        if seg is None:
            continue
        a, b = seg
        pts.extend([a, b] if k % 2 == 0 else [b, a])
    p = np.array(pts) if pts else np.zeros((0, 2))
    return p + rng.normal(0, 0.015, p.shape)


def _clip_line(c, d, lo, hi):
    """Intersect the line c + s d with the square [lo, hi]^2 (Liang-Barsky)."""
    s0, s1 = -10.0, 10.0
    for k in range(2):
        if abs(d[k]) < 1e-9:
            if not lo <= c[k] <= hi:
                return None
            continue
        a, b = (lo - c[k]) / d[k], (hi - c[k]) / d[k]
        s0, s1 = max(s0, min(a, b)), min(s1, max(a, b))
    if s1 <= s0:
        return None
    return c + s0 * d, c + s1 * d


# ---- the whole sheet -------------------------------------------------------------------
def draw_game(
    img: np.ndarray,
    cv: Canvas,
    pr: Printing,
    game: Game,
    style: Style,
    written: dict,
    rng: np.random.Generator,
    monster_style: Style | None = None,
) -> np.ndarray:
    """Draw ``game`` onto the printed sheet ``img`` (not modified); returns the drawn sheet.

    ``monster_style``: the hand that draws the monster shapes and their outlines, when it
    is not the owner's (in a game of several players a neighbour draws them).
    """
    fill = cv.blank(3)  # hatching
    ink = cv.blank(3)  # icons, outlines, coins, numbers

    def hand_for(terrain: str) -> Style:
        return monster_style if monster_style is not None and terrain == MONSTER else style

    layout = game.layout
    grid = game.grid
    # A shape is hatched in one go: its own angle and pressure, varying shape to shape.
    shape_turn, shape_pressure = {}, {}
    for pl in game.placements:
        turn = rng.normal(0, 0.25) if rng.random() < 0.6 else float(rng.choice([-1, 1])) * 1.3
        pressure = rng.uniform(0.5, 0.85)
        for cell in pl.cells:
            shape_turn[tuple(cell)] = turn
            shape_pressure[tuple(cell)] = pressure
    for r in range(11):
        for c in range(11):
            t = grid[r][c]
            if t not in ICONS:
                continue
            hand = hand_for(t)
            dark = _darkness(hand.colours[t])
            if hand.hatch:
                turn = shape_turn.get((r, c), 0.0)
                pressure = shape_pressure.get((r, c), 0.7) * rng.uniform(0.9, 1.1)
                _fill_cell(fill, cv, hand, rng, (r, c), dark, turn, pressure)
            if hand.icons:
                lines = [p + (c, r) for p in icon_lines(rng, hand, t, (r, c) in layout.ruins)]
                icon_dark = dark if not hand.hatch else tuple(min(255, int(v * 1.2)) for v in dark)
                icon_dark = tuple(min(255, int(v * hand.faint)) for v in icon_dark)
                if hand.filled and t in (FOREST, VILLAGE):
                    _fill_closed(ink, cv, lines, icon_dark, hand.filled * rng.uniform(0.8, 1.1))
                _strokes(ink, cv, lines, icon_dark, hand.width * rng.uniform(0.85, 1.15), hand, rng)
    for pl in game.placements:
        hand = hand_for(pl.terrain)
        if rng.random() < hand.outline:
            colour = hand.pen if hand.name != "pencil-hatch" else hand.colours[pl.terrain]
            _outline(ink, cv, pl.cells, _darkness(colour), hand, rng)
    _smudges(fill, ink, cv, grid, style, rng)
    _coin_marks(ink, cv, pr, game.coins, style, rng)
    _numbers(ink, cv, pr, written, style, rng)
    _name_and_title(ink, cv, pr, game, written, style, rng)
    return _composite(img, fill, ink, style, rng)


def _fill_cell(fill, cv: Canvas, style: Style, rng, cell, dark, turn: float, pressure: float):
    """Colour one cell the player's way: hatching, crosshatching, a scribble or solid."""
    r, c = cell
    over = rng.uniform(-0.02, 0.06) + style.spill
    soft = tuple(int(min(255, v * pressure)) for v in dark)
    width = style.hatch_spacing * rng.uniform(0.35, 0.6)
    if style.fill == "solid":  # dense strokes that merge into a flat colour
        dense = replace(style, hatch_spacing=style.hatch_spacing * 0.6)
        cv.polyline(fill, hatch_lines(rng, dense, over, turn) + (c, r), soft, width * 1.4)
        return
    if style.fill == "scribble":  # loose back-and-forth loops, uneven coverage
        k = int(rng.integers(5, 10))
        pts = np.stack([rng.uniform(0.0, 1.0, 2 * k), np.linspace(0.05, 0.95, 2 * k)], 1)
        pts[::2, 0] = rng.uniform(-over, 0.25, k)
        pts[1::2, 0] = rng.uniform(0.75, 1 + over, k)
        pts = turned(densify(pts, 0.08), turn + style.hatch_angle)
        cv.polyline(fill, wobble(rng, pts, 0.03) + (c, r), soft, width * 1.2)
        return
    cv.polyline(fill, hatch_lines(rng, style, over, turn) + (c, r), soft, width)
    if style.fill == "cross":
        second = tuple(int(v * rng.uniform(0.6, 0.9)) for v in soft)
        stroke = hatch_lines(rng, style, over, turn + rng.uniform(1.2, 1.9)) + (c, r)
        cv.polyline(fill, stroke, second, width)


def _strokes(ink, cv: Canvas, lines, dark, width: float, style: Style, rng) -> None:
    """Draw polylines one by one with uneven pressure (darkness and width vary per stroke)."""
    pressure = 0.15 if style.name == "ballpoint" else 0.45
    for line in lines:
        chunks = [line]
        if len(line) > 6 and rng.random() < 0.4:  # pressure changes along a long stroke
            k = int(rng.integers(2, len(line) - 2))
            chunks = [line[: k + 1], line[k:]]
        for chunk in chunks:
            f = 1 - pressure * rng.random()
            colour = tuple(int(v * f) for v in dark)
            cv.polyline(ink, chunk, colour, width * rng.uniform(0.85, 1.15))


def _fill_closed(ink, cv: Canvas, lines, dark, strength: float) -> None:
    """Colour in each stroke's outline: a canopy, a roof, a wall (a straight stroke stays
    a line)."""
    colour = tuple(min(255, int(v * strength)) for v in dark)
    for line in lines:
        if len(line) > 2:
            cv.fill(ink, cv2.convexHull(np.asarray(line, np.float32))[:, 0], colour)


def _darkness(bgr) -> tuple[int, int, int]:
    return tuple(255 - int(v) for v in bgr)


def _outline(ink, cv: Canvas, cells, dark, style: Style, rng) -> None:
    cells = set(map(tuple, cells))
    dark = tuple(min(255, int(v * style.faint)) for v in dark)
    inset = rng.uniform(0.0, 0.06)
    segs = []
    for r, c in cells:
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if (r + dr, c + dc) in cells:
                continue
            if dr:
                y = r + (0 if dr < 0 else 1) - dr * inset
                a, b = (c - 0.03, y), (c + 1.03, y)
            else:
                x = c + (0 if dc < 0 else 1) - dc * inset
                a, b = (x, r - 0.03), (x, r + 1.03)
            segs.append(wobble(rng, densify([a, b], 0.2), style.jitter * 0.8))
    cv.polylines(ink, segs, dark, style.width * 1.25)


def _smudges(fill, ink, cv: Canvas, grid, style: Style, rng) -> None:
    """Marks a person ignores in empty cells: eraser smears, stray dots, and (pencil only)
    the faint ghost of an erased symbol; synthesis 18 adds graphite dust rubbed off by a
    hand, a slip of the pencil in from a cell edge, and a few dots where the point rested."""
    for r in range(11):
        for c in range(11):
            if grid[r][c] != EMPTY or rng.random() > style.smudges:
                continue
            x, y = c + rng.uniform(0.2, 0.8), r + rng.uniform(0.2, 0.8)
            kind = rng.random()
            if kind < 0.2 and style.grain > 0.3:  # erased symbol: a faint ghost
                terrain = str(rng.choice(list(ICONS)))
                lines = [p + (c, r) for p in icon_lines(rng, style, terrain, False)]
                f = rng.uniform(0.08, 0.16)
                ghost = tuple(int(v * f) for v in _darkness(style.colours[terrain]))
                cv.polylines(fill, lines, ghost, style.width * 1.3)
            elif kind < 0.45:  # eraser smudge: faint grey smear
                lines = [
                    wobble(rng, densify([(x - 0.2, y + dy), (x + 0.2, y + dy + 0.05)], 0.05), 0.02)
                    for dy in np.linspace(-0.08, 0.08, 4)
                ]
                v = int(rng.uniform(12, 30))
                cv.polylines(fill, lines, (v, v, v), 0.05)
            elif kind < 0.6:  # graphite dust: a broad, very light grey rub
                a = rng.uniform(0, np.pi)
                d = np.array([np.cos(a), np.sin(a)]) * rng.uniform(0.15, 0.35)
                v = int(rng.uniform(6, 18))
                stroke = wobble(rng, densify([(x, y) - d, (x, y) + d], 0.05), 0.03)
                cv.polyline(fill, stroke, (v, v, v), rng.uniform(0.1, 0.25))
            elif kind < 0.75:  # a slip of the pencil, in from one edge
                side = int(rng.integers(4))
                e = rng.uniform(0.15, 0.85)
                start = [(c + e, r), (c + 1, r + e), (c + e, r + 1), (c, r + e)][side]
                inward = np.array([(0, 1), (-1, 0), (0, -1), (1, 0)][side], float)
                inward = turned(inward, rng.normal(0, 0.4), (0, 0)) * rng.uniform(0.08, 0.25)
                stroke = wobble(rng, densify([start, start + inward], 0.05), 0.01)
                colour = style.colours[str(rng.choice(list(ICONS)))]
                cv.polyline(ink, stroke, _darkness(colour), style.width)
            else:  # stray dots
                v = _darkness(style.pen)
                for _ in range(int(rng.integers(1, 4))):
                    x, y = c + rng.uniform(0.15, 0.85), r + rng.uniform(0.15, 0.85)
                    cv.circle(ink, (x, y), rng.uniform(0.008, 0.02), v)


def _coin_marks(ink, cv: Canvas, pr: Printing, coins: int, style: Style, rng) -> None:
    dark = _darkness(style.pen)
    for i in range(coins):
        x, y = print_xy(pr, *g.coin_center(i))
        rad = g.COIN_RADIUS * rng.uniform(0.9, 1.3)
        x += rng.normal(0, 0.03)
        y += rng.normal(0, 0.03)
        if style.coin_mark == "cross":
            lines = [
                [(x - rad, y - rad), (x + rad, y + rad)],
                [(x + rad, y - rad), (x - rad, y + rad)],
            ]
        elif style.coin_mark == "tick":
            lines = [[(x - rad * 0.8, y), (x - rad * 0.2, y + rad * 0.7), (x + rad, y - rad)]]
        elif style.coin_mark == "slash":
            lines = [[(x - rad * 0.8, y + rad), (x + rad * 0.8, y - rad)]]
        else:
            zig = [
                (x - rad * 0.8 + 1.6 * rad * k / 7, y + (rad if k % 2 else -rad) * 0.8)
                for k in range(8)
            ]
            lines = [zig]
        lines = [wobble(rng, densify(p, 0.05), style.jitter) for p in lines]
        cv.polylines(ink, lines, dark, max(style.width, 0.025) * 1.2)


@lru_cache(maxsize=16)
def _font(package: str, px: int) -> ImageFont.FreeTypeFont:
    root = import_module(package).ROOT / "files"
    files = sorted(root.glob("*.ttf"))
    regular = [f for f in files if "Regular" in f.name] or files
    return ImageFont.truetype(str(regular[0]), px)


def _numbers(ink, cv: Canvas, pr: Printing, written: dict, style: Style, rng) -> None:
    if not written:
        return
    dark = _darkness(style.pen)
    for s, season in enumerate(written["seasons"]):
        fields = g.season_fields(s)
        for key, box in fields.items():
            value = season[key]
            text = str(value)
            if key == "monsters" and value == 0 and rng.random() < 0.3:
                text = "0"
            elif key == "monsters" and value < 0 and not style.minus:
                text = str(-value)
            height = (0.42 if key == "total" else 0.34) * rng.uniform(0.85, 1.15)
            _write(ink, cv, pr, text, box.center, height, dark, style, rng)
    sx, sy = print_xy(pr, *g.TOTAL_SHIELD_XY)
    _write(ink, cv, pr, str(written["total"]), (sx, sy - 0.05), 0.45, dark, style, rng, True)


NAMES = (
    "Anna",
    "Ben",
    "Chiara",
    "Dario",
    "Elodie",
    "Farid",
    "Giulia",
    "Hugo",
    "Ines",
    "Jonas",
    "Kim",
    "Luca",
    "Marta",
    "Noah",
    "Olga",
    "Pablo",
    "Rosa",
    "Sven",
    "Tom",
    "Wei",
)


def _name_and_title(ink, cv: Canvas, pr, game: Game, written: dict, style: Style, rng) -> None:
    """Often the player's name on the CARTOGRAPHER line, sometimes the solo title earned."""
    if not written:
        return
    dark = _darkness(style.pen)
    if rng.random() < 0.6:
        name = str(rng.choice(NAMES))
        x, y = print_xy(pr, 1.4, -2.12)
        _write(ink, cv, pr, name, (x, y), 0.3, dark, style, rng, True)
    if rng.random() < 0.4:
        rating = written["total"] - sum(CARDS[c].solo for c in game.cards.values())
        title = solo_title(rating)
        if title:
            x, y = print_xy(pr, 1.3, -0.84)
            _write(ink, cv, pr, title, (x, y), 0.22, dark, style, rng, True)


def _write(ink, cv: Canvas, pr, text, center, height, dark, style, rng, placed=False) -> None:
    """Handwritten ``text`` centred near ``center`` (cells), ``height`` cells tall."""
    px = max(8, int(height * cv.ppc * 1.35))
    font = _font(style.font, px)
    left, top, right, bottom = font.getbbox(text)
    w, h = right - left + 8, bottom - top + 8
    patch = Image.new("L", (w, h), 0)
    ImageDraw.Draw(patch).text((4 - left, 4 - top), text, fill=255, font=font)
    patch = patch.rotate(rng.normal(0, 6), resample=Image.BILINEAR, expand=True)
    a = np.asarray(patch)
    cx, cy = center if placed else print_xy(pr, *center)
    cx += rng.normal(0, 0.06)
    cy += rng.normal(0, 0.05)
    x0, y0 = np.round(cv.px((cx, cy)) - np.array(a.shape[::-1]) / 2).astype(int)
    x1, y1 = x0 + a.shape[1], y0 + a.shape[0]
    if x0 < 0 or y0 < 0 or x1 > ink.shape[1] or y1 > ink.shape[0]:
        return
    region = ink[y0:y1, x0:x1]
    alpha = a.astype(np.float32)[..., None] / 255 * rng.uniform(0.75, 1.0)
    np.maximum(region, (alpha * np.array(dark, np.float32)).astype(np.uint8), out=region)


def _grain(rng, shape, strength: float) -> np.ndarray:
    """Paper tooth for pencil: a per-pixel factor in [1 - strength, 1] as uint8 (255 = 1)."""
    tile = rng.random((128, 128)).astype(np.float32)
    tile = cv2.GaussianBlur(tile, (0, 0), 0.7)
    tile = (tile - tile.min()) / (np.ptp(tile) + 1e-6)
    tile = np.round((1 - strength * tile) * 255).astype(np.uint8)
    h, w = shape[:2]
    return np.tile(tile, (h // 128 + 1, w // 128 + 1))[:h, :w]


def _composite(img, fill, ink, style: Style, rng) -> np.ndarray:
    """``img * (1 - fill * grain) * (1 - ink * grain)`` in 8-bit arithmetic (darkness layers)."""
    grain = _grain(rng, img.shape, style.grain * 0.7)
    grain3 = cv2.merge([grain, grain, grain])
    f = cv2.multiply(fill, grain3, scale=1 / 255)
    out = cv2.multiply(img, cv2.bitwise_not(f), scale=1 / 255)
    k = cv2.multiply(ink, grain3, scale=1 / 255) if style.grain > 0.3 else ink
    return cv2.multiply(out, cv2.bitwise_not(k), scale=1 / 255)
