"""Hand-drawn terrain symbols as polylines in cell-local units (0..1, y down).

Every designer draws differently; these are this renderer's own designs, kept
apart from the training synthesis on purpose. A symbol is a list of
``(kind, points)`` with ``kind`` "stroke" (an open or closed line) or "fill"
(a filled polygon), points an (N, 2) array.
"""

from __future__ import annotations

import numpy as np

Prim = tuple[str, np.ndarray]

VARIANT_NAMES = {
    "T": ("triangle", "lollipop", "pine-zigzag", "two-trees", "cloud-canopy", "three-tiers"),
    "V": ("pentagon", "square-roof-door", "two-houses", "chimney-window", "tower"),
    "F": ("wheat-ear", "furrows", "dotted-rows", "crosshatch", "sprouts"),
    "W": ("long-waves", "ripples", "tilde-rows", "curl-wave"),
    "M": ("round-face", "spiky-blob", "horned-head", "eyes-teeth", "x-eyes"),
}
VARIANTS = {t: len(names) for t, names in VARIANT_NAMES.items()}


def _pts(*xy: float) -> np.ndarray:
    return np.array(xy, float).reshape(-1, 2)


def _ellipse(cx: float, cy: float, rx: float, ry: float, n: int = 24, a0=0.0, a1=None):
    a1 = 2 * np.pi if a1 is None else a1
    t = np.linspace(a0, a1, n)
    return np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], axis=1)


def _wave(x0: float, x1: float, y: float, amp: float, periods: float, phase=0.0) -> np.ndarray:
    x = np.linspace(x0, x1, 30)
    return np.stack([x, y + amp * np.sin(phase + 2 * np.pi * periods * (x - x0) / (x1 - x0))], 1)


def symbol(terrain: str, variant: int, rng: np.random.Generator, filled: bool = False) -> list:
    """The primitives of one drawing of ``terrain`` (one of T V F W M)."""
    f = {"T": _forest, "V": _village, "F": _farm, "W": _water, "M": _monster}[terrain]
    return f(variant % VARIANTS[terrain], rng, filled)


def minimal(terrain: str, rng: np.random.Generator) -> list:
    """A quick minimal mark: one triangle, a roof, two strokes, two waves, a zigzag."""
    if terrain == "T":
        return [("stroke", _pts(0.5, 0.3, 0.32, 0.68, 0.68, 0.68, 0.5, 0.3))]
    if terrain == "V":
        return [
            ("stroke", _pts(0.3, 0.6, 0.5, 0.35, 0.7, 0.6)),
            ("stroke", _pts(0.36, 0.55, 0.36, 0.72, 0.64, 0.72, 0.64, 0.55)),
        ]
    if terrain == "F":
        return [
            ("stroke", _pts(0.3, 0.42, 0.7, 0.42)),
            ("stroke", _pts(0.3, 0.58, 0.7, 0.58)),
            ("stroke", _pts(0.3, 0.74, 0.7, 0.74)),
        ]
    if terrain == "W":
        return [("stroke", _wave(0.25, 0.75, y, 0.06, 1.5)) for y in (0.42, 0.62)]
    return [
        ("stroke", _pts(0.28, 0.65, 0.38, 0.35, 0.5, 0.6, 0.62, 0.35, 0.72, 0.65)),
        ("fill", _ellipse(0.4, 0.25, 0.03, 0.03, 8)),
        ("fill", _ellipse(0.6, 0.25, 0.03, 0.03, 8)),
    ]


def _forest(v: int, rng, filled: bool) -> list:
    k = "fill" if filled else "stroke"
    if v == 0:  # triangle on a trunk
        return [
            (k, _pts(0.5, 0.12, 0.22, 0.7, 0.78, 0.7, 0.5, 0.12)),
            ("stroke", _pts(0.5, 0.7, 0.5, 0.9)),
        ]
    if v == 1:  # lollipop canopy
        return [(k, _ellipse(0.5, 0.38, 0.24, 0.24)), ("stroke", _pts(0.5, 0.62, 0.5, 0.9))]
    if v == 2:  # pine zigzag
        n = int(rng.integers(3, 5))
        ys = np.linspace(0.18, 0.78, n + 1)
        left = [(0.5, 0.1)]
        right = [(0.5, 0.1)]
        for i in range(1, n + 1):
            w = 0.1 + 0.25 * i / n
            left += [(0.5 - w, ys[i]), (0.5 - w * 0.45, ys[i] - 0.02)]
            right += [(0.5 + w, ys[i]), (0.5 + w * 0.45, ys[i] - 0.02)]
        return [
            ("stroke", np.array(left)),
            ("stroke", np.array(right)),
            ("stroke", _pts(0.5, 0.1, 0.5, 0.92)),
        ]
    if v == 3:  # two small trees
        out = []
        for cx, top in ((0.32, 0.2), (0.68, 0.3)):
            out.append((k, _pts(cx, top, cx - 0.17, top + 0.45, cx + 0.17, top + 0.45, cx, top)))
            out.append(("stroke", _pts(cx, top + 0.45, cx, top + 0.6)))
        return out
    if v == 4:  # bumpy cloud canopy with branches
        t = np.linspace(0, 2 * np.pi, 60)
        r = 0.24 + 0.04 * np.sin(7 * t + rng.uniform(0, 6))
        canopy = np.stack([0.5 + r * np.cos(t), 0.4 + 0.85 * r * np.sin(t)], 1)
        return [
            (k, canopy),
            ("stroke", _pts(0.5, 0.9, 0.5, 0.58)),
            ("stroke", _pts(0.5, 0.7, 0.38, 0.56)),
            ("stroke", _pts(0.5, 0.66, 0.62, 0.54)),
        ]
    # three stacked tiers
    out = []
    for i, (top, w) in enumerate(((0.1, 0.16), (0.3, 0.24), (0.5, 0.32))):
        out.append(
            (
                k if i == 2 else "stroke",
                _pts(0.5 - w, top + 0.25, 0.5, top, 0.5 + w, top + 0.25, 0.5 - w, top + 0.25),
            )
        )
    return out + [("stroke", _pts(0.5, 0.75, 0.5, 0.9))]


def _village(v: int, rng, filled: bool) -> list:
    k = "fill" if filled else "stroke"
    if v == 0:  # pentagon
        return [(k, _pts(0.26, 0.84, 0.26, 0.46, 0.5, 0.2, 0.74, 0.46, 0.74, 0.84, 0.26, 0.84))]
    if v == 1:  # square, overhanging roof, door
        return [
            ("stroke", _pts(0.3, 0.47, 0.3, 0.85, 0.7, 0.85, 0.7, 0.47)),
            (k, _pts(0.2, 0.48, 0.5, 0.18, 0.8, 0.48, 0.2, 0.48)),
            ("stroke", _pts(0.45, 0.85, 0.45, 0.67, 0.56, 0.67, 0.56, 0.85)),
        ]
    if v == 2:  # two houses
        out = []
        for x, y, s in ((0.2, 0.2, 0.32), (0.5, 0.45, 0.36)):
            out.append(
                (
                    k,
                    _pts(
                        x,
                        y + s,
                        x,
                        y + 0.45 * s,
                        x + s / 2,
                        y,
                        x + s,
                        y + 0.45 * s,
                        x + s,
                        y + s,
                        x,
                        y + s,
                    ),
                )
            )
        return out
    if v == 3:  # house with chimney and a cross window
        return [
            (
                "stroke",
                _pts(0.25, 0.5, 0.25, 0.86, 0.75, 0.86, 0.75, 0.5, 0.5, 0.22, 0.25, 0.5, 0.75, 0.5),
            ),
            ("stroke", _pts(0.62, 0.36, 0.62, 0.2, 0.7, 0.2, 0.7, 0.45)),
            ("stroke", _pts(0.4, 0.6, 0.6, 0.6, 0.6, 0.76, 0.4, 0.76, 0.4, 0.6)),
            ("stroke", _pts(0.5, 0.6, 0.5, 0.76)),
            ("stroke", _pts(0.4, 0.68, 0.6, 0.68)),
        ]
    # little castle tower with battlements
    return [
        (
            k,
            _pts(
                0.3,
                0.88,
                0.3,
                0.3,
                0.37,
                0.3,
                0.37,
                0.2,
                0.45,
                0.2,
                0.45,
                0.3,
                0.55,
                0.3,
                0.55,
                0.2,
                0.63,
                0.2,
                0.63,
                0.3,
                0.7,
                0.3,
                0.7,
                0.88,
                0.3,
                0.88,
            ),
        ),
        ("stroke", _pts(0.44, 0.88, 0.44, 0.7, 0.56, 0.7, 0.56, 0.88)),
    ]


def _farm(v: int, rng, filled: bool) -> list:
    if v == 0:  # wheat ear: stalk with grains both sides
        out = [("stroke", _pts(0.5, 0.92, 0.5, 0.12))]
        for i, y in enumerate(np.linspace(0.2, 0.55, 4)):
            for side in (-1, 1):
                cx, cy = 0.5 + side * 0.09, y + 0.04 * (i % 2)
                ang = side * 0.6
                e = _ellipse(0, 0, 0.09, 0.04, 12)
                rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
                out.append(("fill" if filled else "stroke", e @ rot.T + [cx, cy]))
        return out
    if v == 1:  # furrows: parallel lines
        n = int(rng.integers(3, 5))
        ang = rng.choice([0.0, np.pi / 4, -np.pi / 4, np.pi / 2])
        d = np.array([np.cos(ang), np.sin(ang)])
        nrm = np.array([-d[1], d[0]])
        return [
            (
                "stroke",
                np.array(
                    [
                        0.5 + nrm[0] * o - 0.3 * d[0],
                        0.5 + nrm[1] * o - 0.3 * d[1],
                        0.5 + nrm[0] * o + 0.3 * d[0],
                        0.5 + nrm[1] * o + 0.3 * d[1],
                    ]
                ).reshape(2, 2),
            )
            for o in np.linspace(-0.28, 0.28, n)
        ]
    if v == 2:  # dotted rows
        return [
            ("fill", _ellipse(x, y, 0.035, 0.035, 8))
            for y in (0.3, 0.5, 0.7)
            for x in np.linspace(0.25, 0.75, 4)
        ]
    if v == 3:  # crosshatch
        out = []
        for o in np.linspace(-0.3, 0.3, 4):
            out.append(("stroke", _pts(0.5 + o - 0.2, 0.3, 0.5 + o + 0.2, 0.7)))
            out.append(("stroke", _pts(0.5 + o + 0.2, 0.3, 0.5 + o - 0.2, 0.7)))
        return out
    # three sprouts: a stalk with a V on top each
    out = []
    for x in (0.28, 0.5, 0.72):
        out.append(("stroke", _pts(x, 0.82, x, 0.4)))
        out.append(("stroke", _pts(x - 0.08, 0.3, x, 0.45, x + 0.08, 0.3)))
    return out


def _water(v: int, rng, filled: bool) -> list:
    if v == 0:  # 2-3 long waves
        n = int(rng.integers(2, 4))
        return [
            ("stroke", _wave(0.15, 0.85, y, 0.06, 1.5 + 0.5 * (n == 2)))
            for y in np.linspace(0.3, 0.72, n)
        ]
    if v == 1:  # ripples: concentric arcs
        return [
            ("stroke", _ellipse(0.5, 0.55, r, 0.7 * r, 20, np.pi * 1.05, np.pi * 1.95))
            for r in (0.12, 0.24, 0.36)
        ]
    if v == 2:  # rows of small tildes
        return [
            ("stroke", _wave(x, x + 0.26, y, 0.045, 1.0))
            for y in (0.35, 0.65)
            for x in (0.15, 0.55)
        ]
    # curling wave crest
    t = np.linspace(0, 1.6 * np.pi, 30)
    curl = np.stack([0.55 + 0.12 * np.cos(t + np.pi), 0.45 - 0.12 * np.sin(t + np.pi)], 1)
    return [
        ("stroke", np.vstack([_pts(0.12, 0.6), curl])),
        ("stroke", _wave(0.15, 0.85, 0.75, 0.05, 2)),
    ]


def _monster(v: int, rng, filled: bool) -> list:
    eyes = [
        ("fill", _ellipse(0.4, 0.42, 0.045, 0.05, 10)),
        ("fill", _ellipse(0.6, 0.42, 0.045, 0.05, 10)),
    ]
    n = int(rng.integers(4, 7))
    xs = np.linspace(0.32, 0.68, n * 2 + 1)
    teeth = ("stroke", np.stack([xs, 0.64 + 0.07 * (np.arange(xs.size) % 2)], 1))
    if v == 0:  # round face
        return [("stroke", _ellipse(0.5, 0.5, 0.33, 0.33, 32))] + eyes + [teeth]
    if v == 1:  # spiky blob
        t = np.linspace(0, 2 * np.pi, 2 * 9 + 1)
        r = np.where(np.arange(t.size) % 2 == 0, 0.38, 0.25) * rng.uniform(0.9, 1.1, t.size)
        r[-1] = r[0]
        return (
            [("stroke", np.stack([0.5 + r * np.cos(t), 0.5 + r * np.sin(t)], 1))] + eyes + [teeth]
        )
    if v == 2:  # horned head
        return (
            [
                ("stroke", _ellipse(0.5, 0.55, 0.28, 0.26, 28)),
                ("stroke", _pts(0.3, 0.38, 0.2, 0.1, 0.4, 0.3)),
                ("stroke", _pts(0.7, 0.38, 0.8, 0.1, 0.6, 0.3)),
            ]
            + eyes
            + [teeth]
        )
    if v == 3:  # angry eyes and teeth, no head
        return (
            [("stroke", _pts(0.28, 0.28, 0.45, 0.36)), ("stroke", _pts(0.72, 0.28, 0.55, 0.36))]
            + eyes
            + [("stroke", np.stack([xs, 0.66 + 0.1 * (np.arange(xs.size) % 2)], 1))]
        )
    # skull-ish face with X eyes
    return [
        ("stroke", _ellipse(0.5, 0.48, 0.3, 0.3, 30)),
        ("stroke", _pts(0.33, 0.35, 0.45, 0.47)),
        ("stroke", _pts(0.45, 0.35, 0.33, 0.47)),
        ("stroke", _pts(0.55, 0.35, 0.67, 0.47)),
        ("stroke", _pts(0.67, 0.35, 0.55, 0.47)),
        teeth,
    ]
