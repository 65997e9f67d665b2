"""Compositional terrain doodles (synthesis 16): each symbol is put together from parts.

SHEET.md "How players draw" names what a symbol shows (a face with eyes and a jagged
mouth, furrows or a wheat stalk, wavy lines, ...) but players draw it their own way.
Each function here draws one terrain from independent choices -- for a monster the
head, the eyes, the mouth and what sits on top -- with sizes and positions drawn too.

Two generators: ``design`` makes the player's choices (kept for a whole sheet, so
every monster of a sheet has the same kind of face), ``rng`` the cell's own jitter.
Returns polylines in cell-local coordinates (0..1, y down), fitted inside
``[MARGIN, 1 - MARGIN]``; :func:`models.synth.draw.icon_lines` then scales, turns
and wobbles them like every other design.
"""

from __future__ import annotations

import numpy as np

from scoring.board import FARM, FOREST, MONSTER, VILLAGE, WATER

MARGIN = 0.06

Lines = list[np.ndarray]


# ---- small shapes ----------------------------------------------------------------------
def _ellipse(cx, cy, rx, ry, a0=0.0, a1=2 * np.pi, n=None) -> np.ndarray:
    n = n or max(6, int(abs(a1 - a0) / (2 * np.pi) * 24))
    t = np.linspace(a0, a1, n)
    return np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], 1)


def _dot(x, y, size=0.015) -> np.ndarray:
    return np.array([(x, y), (x + size, y + size * 0.7)])


def _spiral(x, y, r) -> np.ndarray:
    """A small filled circle as a pencil makes it: round and round, inwards."""
    t = np.linspace(0, 3 * 2 * np.pi, 40)
    rad = r * (1 - t / t[-1] * 0.85)
    return np.stack([x + rad * np.cos(t), y + rad * np.sin(t)], 1)


def _xmark(x, y, s) -> Lines:
    return [np.array([(x - s, y - s), (x + s, y + s)]), np.array([(x + s, y - s), (x - s, y + s)])]


def turned(p, angle, about=(0.5, 0.5)) -> np.ndarray:
    """Points turned by ``angle`` about ``about`` (default the cell centre)."""
    ca, sa = np.cos(angle), np.sin(angle)
    c = np.asarray(about, float)
    return (np.asarray(p, float) - c) @ np.array([[ca, -sa], [sa, ca]]).T + c


def _fit(lines: Lines) -> Lines:
    """Shrink the drawing about the cell centre until it lies inside the margins."""
    pts = np.concatenate([np.asarray(p, float) for p in lines])
    reach = np.abs(pts - 0.5).max()
    k = min(1.0, (0.5 - MARGIN) / max(reach, 1e-6))
    return [(np.asarray(p, float) - 0.5) * k + 0.5 for p in lines]


def _grid(design, rng, rows, cols, lo=0.2, hi=0.8) -> list[tuple[float, float]]:
    """Centres of a rows x cols grid over [lo, hi]^2, each nudged a little."""
    ys = np.linspace(lo, hi, rows) if rows > 1 else [0.5]
    xs = np.linspace(lo, hi, cols) if cols > 1 else [0.5]
    return [(x + rng.normal(0, 0.015), y + rng.normal(0, 0.015)) for y in ys for x in xs]


# ---- monster ---------------------------------------------------------------------------
HEADS = ("none", "circle", "oval", "square", "spiky", "lumpy")
EYES = ("dots", "filled", "open", "x", "slits", "brows", "one")
MOUTHS = ("zigzag", "square", "triangle", "fangs", "line")
TOPS = ("none", "horns", "ears", "antennae")


def _head(design, rng, kind, cx, cy, rx, ry) -> Lines:
    t = np.linspace(0, 2 * np.pi, 33)
    if kind == "none":
        return []
    if kind in ("circle", "oval"):
        return [_ellipse(cx, cy, rx, ry)]
    if kind == "square":  # a rounded box (superellipse)
        p = design.uniform(3, 6)
        c, s = np.cos(t), np.sin(t)
        x = cx + rx * np.sign(c) * np.abs(c) ** (2 / p)
        y = cy + ry * np.sign(s) * np.abs(s) ** (2 / p)
        return [np.stack([x, y], 1)]
    if kind == "spiky":
        k = int(design.integers(6, 12))
        a = np.linspace(0, 2 * np.pi, 2 * k + 1) + design.uniform(0, np.pi)
        depth = design.uniform(0.65, 0.82)
        rad = np.where(np.arange(2 * k + 1) % 2 == 0, 1.0, depth)
        return [np.stack([cx + rx * rad * np.cos(a), cy + ry * rad * np.sin(a)], 1)]
    k = int(design.integers(4, 8))  # lumpy: a bumpy potato
    phase = design.uniform(0, 2 * np.pi)
    rad = 1 + design.uniform(0.06, 0.14) * np.abs(np.sin(k * t / 2 + phase)) - 0.05
    rad = rad + rng.normal(0, 0.02, t.shape)
    rad[-1] = rad[0]
    return [np.stack([cx + rx * rad * np.cos(t), cy + ry * rad * np.sin(t)], 1)]


def _eyes(design, kind, cx, ey, dx, size) -> Lines:
    out: Lines = []
    xs = (cx,) if kind == "one" else (cx - dx, cx + dx)
    for i, x in enumerate(xs):
        side = 1 if (i == 0 and len(xs) == 2) else -1  # synthesis 29: towards the nose
        if kind == "dots":
            out.append(_dot(x, ey))
        elif kind == "filled":
            out.append(_spiral(x, ey, size * 0.8))
        elif kind == "open":
            out.append(_ellipse(x, ey, size, size * design.uniform(0.8, 1.2)))
        elif kind == "x":
            out += _xmark(x, ey, size * 0.7)
        elif kind == "slits":  # narrow, slanting down to the nose
            out.append(np.array([(x - side * size, ey - size * 0.5), (x + side * size, ey)]))
        elif kind == "brows":  # angry brows over dots
            out.append(_dot(x, ey + size * 0.3))
            out.append(
                np.array(
                    [(x - side * size * 1.4, ey - size * 1.6), (x + side * size, ey - size * 0.5)]
                )
            )
        else:  # one big eye with a pupil
            out.append(_ellipse(x, ey, size * 1.7, size * 1.4))
            out.append(_spiral(x, ey, size * 0.5))
    return out


def _mouth(design, rng, kind, cx, my, half, size) -> Lines:
    x0, x1 = cx - half, cx + half
    if kind == "zigzag":
        k = int(design.integers(3, 8))
        xs = np.linspace(x0, x1, 2 * k + 1)
        amp = size * design.uniform(0.5, 1.0)
        return [np.stack([xs, my + np.where(np.arange(2 * k + 1) % 2, amp, -amp)], 1)]
    if kind in ("square", "triangle"):  # a lip with a row of teeth hanging from it
        k = int(design.integers(3, 7))
        h = size * design.uniform(0.8, 1.4)
        xs = np.linspace(x0, x1, k + 1)
        teeth = []
        for a, b in zip(xs[:-1], xs[1:], strict=True):
            if kind == "square":
                teeth += [(a, my), (a, my + h), (b, my + h), (b, my)]
            else:
                teeth += [(a, my), ((a + b) / 2, my + h), (b, my)]
        out = [np.array(teeth)]
        if design.random() < 0.7:
            out.append(np.array([(x0 - 0.02, my), (x1 + 0.02, my)]))
        if design.random() < 0.4:  # lower lip closing the mouth
            out.append(_ellipse(cx, my, half, h * 1.6, 0, np.pi))
        return out
    if kind == "fangs":  # open mouth: a top line, the lower jaw an arc, two fangs
        h = size * design.uniform(1.3, 2.2)
        out = [np.array([(x0, my), (x1, my)]), _ellipse(cx, my, half, h, 0, np.pi)]
        fw = half * design.uniform(0.15, 0.25)
        for fx in (cx - half * 0.5, cx + half * 0.5):
            out.append(np.array([(fx - fw, my), (fx, my + h * 0.7), (fx + fw, my)]))
        return out
    bend = design.uniform(-0.05, 0.0)  # a straight or frowning line with fangs
    xs = np.linspace(x0, x1, 9)
    out = [np.stack([xs, my + bend * (1 - ((xs - cx) / half) ** 2)], 1)]
    fw = half * 0.15
    for fx in (cx - half * 0.4, cx + half * 0.4):
        y = my + bend * (1 - ((fx - cx) / half) ** 2)
        out.append(np.array([(fx - fw, y), (fx, y + size * 1.2), (fx + fw, y)]))
    return out


def _top(design, kind, cx, top, rx) -> Lines:
    if kind == "none":
        return []
    out: Lines = []
    spread = rx * design.uniform(0.45, 0.75)
    length = design.uniform(0.1, 0.17)
    for side in (-1, 1):
        bx = cx + side * spread
        if kind == "horns":
            curl = design.uniform(0.0, 0.08)
            w = design.uniform(0.04, 0.07)
            out.append(
                np.array(
                    [
                        (bx - w, top + 0.03),
                        (bx + side * (0.03 + curl), top - length),
                        (bx + w, top + 0.03),
                    ]
                )
            )
        elif kind == "ears":
            w = design.uniform(0.05, 0.08)
            out.append(
                np.array(
                    [
                        (bx - w, top + 0.03),
                        (bx + side * 0.01, top - length * 0.8),
                        (bx + w, top + 0.03),
                    ]
                )
            )
        else:  # antennae with a knob
            tip = (bx + side * design.uniform(0.02, 0.08), top - length)
            out.append(np.array([(bx, top + 0.01), tip]))
            out.append(_ellipse(tip[0], tip[1] - 0.025, 0.025, 0.025))
    return out


def face(design, rng, eyes: str, mouth: str, cx, ey, my, dx, half, size) -> Lines:
    """Eyes of kind ``eyes`` (:data:`EYES`) over a mouth of kind ``mouth`` (:data:`MOUTHS`),
    for the fixed monster designs that carry a face (:mod:`models.synth.draw`); ``"none"``
    draws no mouth."""
    out = _eyes(design, eyes, cx, ey, dx, size)
    return out if mouth == "none" else out + _mouth(design, rng, mouth, cx, my, half, size)


#: Eyes and mouths that make a bare face (no head, no horns) a monster, as SHEET.md's
#: "a face (eyes and a jagged mouth, horns)": angry eyes or a jagged mouth.
ANGRY_EYES = ("brows", "slits", "x")
JAGGED_MOUTHS = ("zigzag", "fangs")


def monster_parts(design: np.random.Generator) -> tuple[str, str, str, str]:
    """A player's monster design: (head, eyes, mouth, top), from :data:`HEADS`, :data:`EYES`,
    :data:`MOUTHS` and :data:`TOPS`. Synthesis 23: a face with neither head nor top is
    drawn when its eyes are angry or its mouth jagged (before, every one got horns)."""
    head = str(design.choice(HEADS, p=(0.2, 0.17, 0.16, 0.14, 0.16, 0.17)))
    eyes = str(design.choice(EYES))
    mouth = str(design.choice(MOUTHS))
    if head == "none" and mouth == "line":  # a bare line under two eyes is a smiley, not a monster
        mouth = str(design.choice(MOUTHS[:4]))
    top = str(design.choice(TOPS, p=(0.35, 0.35, 0.15, 0.15)))
    bare_ok = eyes in ANGRY_EYES or mouth in JAGGED_MOUTHS
    if head == "none" and top == "none" and not bare_ok:
        top = "horns"
    if head == "spiky" and design.random() < 0.6:
        top = "none"
    friendly = eyes in ("dots", "filled", "open") and head in ("circle", "oval", "square")
    if friendly and top == "none":  # a round face with plain eyes needs horns to scare
        top = str(design.choice(TOPS[1:], p=(0.6, 0.2, 0.2)))
    return head, eyes, mouth, top


def monster(rng: np.random.Generator, design: np.random.Generator) -> Lines:
    """A face or a creature: head x eyes x mouth x horns/ears/antennae, all sized freely."""
    head, eyes, mouth, top = monster_parts(design)
    rx = design.uniform(0.24, 0.34)
    ry = rx * (design.uniform(1.1, 1.3) if head == "oval" else design.uniform(0.8, 1.0))
    if head == "oval" and design.random() < 0.4:  # a wide oval
        ry = rx * design.uniform(0.65, 0.8)
    cx = 0.5 + rng.normal(0, 0.015)
    cy = 0.55 + rng.normal(0, 0.015)
    scale = rx / 0.29
    size = 0.045 * scale * design.uniform(0.8, 1.2)
    ey = cy - ry * design.uniform(0.2, 0.4)
    my = cy + ry * design.uniform(0.25, 0.45)
    out = _head(design, rng, head, cx, cy, rx, ry)
    out += _eyes(design, eyes, cx, ey, rx * design.uniform(0.3, 0.5), size)
    out += _mouth(design, rng, mouth, cx, my, rx * design.uniform(0.45, 0.75), size)
    out += _top(design, top, cx, cy - ry if head != "none" else ey - 0.1, rx)
    return _fit(out)


# ---- farm ------------------------------------------------------------------------------
FARMS = ("cross", "diagonals", "hash", "xs", "furrows", "dots", "wheat", "sprouts", "patch")


def _parallel(angle, count, reach, lo=0.15, hi=0.85, length=None) -> Lines:
    """``count`` parallel segments at ``angle`` spread over +-reach across the cell centre,
    clipped to the square [lo, hi]^2 (or ``length`` long, centred)."""
    d = np.array([np.cos(angle), np.sin(angle)])
    n = np.array([-d[1], d[0]])
    out = []
    for off in np.linspace(-reach, reach, count) if count > 1 else [0.0]:
        c = 0.5 + n * off
        if length is not None:
            out.append(np.array([c - d * length / 2, c + d * length / 2]))
            continue
        s = [(b - c[k]) / d[k] for k in range(2) if abs(d[k]) > 1e-6 for b in (lo, hi)]
        s0 = max(min(s[i], s[i + 1]) for i in range(0, len(s), 2))
        s1 = min(max(s[i], s[i + 1]) for i in range(0, len(s), 2))
        if s1 - s0 > 0.1:
            out.append(np.array([c + s0 * d, c + s1 * d]))
    return out


def farm(rng: np.random.Generator, design: np.random.Generator) -> Lines:
    """Crosshatch at any two angles, both-way diagonal strokes, # marks, small Xs,
    furrows, dotted rows, wheat stalks or sprouts -- each with its own counts and sizes.

    Synthesis 18: furrows may be short and drawn quickly (an uneven, unrepeating wobble,
    as a fast pencil leaves); ``patch`` is a small field hatched in two quick passes of
    slanted strokes, often wider than tall, each pass one zigzag or separate strokes."""
    kind = str(design.choice(FARMS))
    if kind == "cross":
        a1 = design.uniform(0, np.pi)
        a2 = a1 + design.uniform(0.5, np.pi - 0.5)
        out = _parallel(a1, int(design.integers(3, 7)), design.uniform(0.2, 0.32))
        out += _parallel(a2, int(design.integers(3, 7)), design.uniform(0.2, 0.32))
    elif kind == "diagonals":  # short strokes leaning both ways, rows or checkerboard
        rows, cols = int(design.integers(2, 5)), int(design.integers(2, 5))
        length = design.uniform(0.1, 0.17)
        lean = design.uniform(0.5, 1.1)
        checker = design.random() < 0.5
        out = []
        for i, (x, y) in enumerate(_grid(design, rng, rows, cols)):
            r, c = divmod(i, cols)
            a = lean if ((r + c) % 2 if checker else r % 2) else np.pi - lean
            d = np.array([np.cos(a), np.sin(a)]) * length / 2
            out.append(np.array([(x, y) - d, (x, y) + d]))
    elif kind == "hash":  # a few "#" marks
        n = int(design.choice([1, 2, 3, 4]))
        s = {1: 0.22, 2: 0.15, 3: 0.12, 4: 0.11}[n] * design.uniform(0.85, 1.2)
        slant = design.uniform(-0.3, 0.3)
        centres = {1: [(0.5, 0.5)], 2: [(0.32, 0.36), (0.66, 0.64)]}.get(
            n, _grid(design, rng, 2, 2, 0.3, 0.7)[:n]
        )
        out = []
        for cx, cy in centres:
            for k in (-0.35, 0.35):
                out.append(turned([(cx + k * s, cy - s), (cx + k * s, cy + s)], slant, (cx, cy)))
                out.append(turned([(cx - s, cy + k * s), (cx + s, cy + k * s)], slant, (cx, cy)))
    elif kind == "xs":  # a few small crosses in rows
        rows, cols = int(design.integers(2, 4)), int(design.integers(2, 4))
        s = design.uniform(0.05, 0.08)
        out = [ln for x, y in _grid(design, rng, rows, cols) for ln in _xmark(x, y, s)]
    elif kind == "furrows":
        angle = design.uniform(-np.pi / 2, np.pi / 2)
        count = int(design.integers(2, 8))
        reach = design.uniform(0.15, 0.32) if count > 2 else design.uniform(0.08, 0.16)
        out = _parallel(angle, count, reach, length=design.uniform(0.25, 0.75))
        bow = design.normal(0, 0.03)
        shaky = design.uniform(0.004, 0.01) if design.random() < 0.5 else 0.0
        if abs(bow) > 0.01 or shaky:
            bent = []
            for a, b in out:
                s = np.linspace(0, 1, 12)[:, None]
                p = a + (b - a) * s
                nrm = np.array([-(b - a)[1], (b - a)[0]]) / np.linalg.norm(b - a)
                # a random walk, pulled back to the line: uneven, never a regular wave
                walk = np.cumsum(rng.normal(0, shaky, len(s)))
                walk = (walk - np.linspace(walk[0], walk[-1], len(s)))[:, None]
                bent.append(p + (bow * np.sin(np.pi * s) + walk) * nrm)
            out = bent
    elif kind == "dots":
        rows, cols = int(design.integers(2, 6)), int(design.integers(3, 7))
        rows = max(rows, -(-8 // cols))  # at least eight dots
        big = design.random() < 0.3
        r = design.uniform(0.012, 0.025)
        out = [
            _spiral(x, y, r) if big else _dot(x, y, 0.03)
            for x, y in _grid(design, rng, rows, cols, 0.2, 0.8)
        ]
        out = [turned(p, design.normal(0, 0.2)) for p in out]
    elif kind == "wheat":
        n = int(design.choice([1, 1, 2, 3]))
        grains = int(design.integers(2, 6))
        shape = str(design.choice(["oval", "v", "stroke"]))
        out = []
        for i in range(n):
            x = 0.5 if n == 1 else 0.25 + 0.5 * i / (n - 1)
            lean = design.normal(0, 0.08)
            top, bottom = 0.15, 0.88
            out.append(np.array([(x + lean * 0.4, top + 0.05), (x, bottom)]))
            g = (0.42 if n == 1 else 0.3) / grains
            for k in range(grains):
                y = top + 0.1 + k * g * 1.1
                gx = x + lean * 0.4 * (1 - (y - top) / (bottom - top))
                for side in (-1, 1):
                    if shape == "oval":
                        e = _ellipse(0, 0, 0.022 * (3 / n) ** 0.5, 0.045 * (3 / n) ** 0.5)
                        out.append(turned(e, side * 0.6, (0, 0)) + (gx + side * 0.035, y))
                    elif shape == "v":
                        w = 0.07 if n == 1 else 0.045
                        out.append(np.array([(gx + side * w, y - 0.04), (gx, y + 0.02)]))
                    else:
                        w = 0.07 if n == 1 else 0.045
                        out.append(np.array([(gx, y + 0.02), (gx + side * w, y - 0.05)]))
            out.append(_ellipse(x + lean * 0.4, top, 0.018, 0.04))
    elif kind == "patch":  # a small field hatched in two passes of slanted strokes
        w, h = design.uniform(0.35, 0.75), design.uniform(0.16, 0.45)
        n = int(design.integers(4, 11))
        lean = design.uniform(0.3, 1.0) * h  # how far a stroke's foot is from its head
        joined = design.random() < 0.5  # each pass one zigzag, or separate strokes
        tilt = design.normal(0, 0.15)
        out = []
        for sign in (1, -1):
            heads = np.linspace(0.5 - w / 2, 0.5 + w / 2 - lean, n) + (lean if sign < 0 else 0)
            strokes = [
                np.array([(x, 0.5 - h / 2), (x + sign * lean, 0.5 + h / 2)])
                + rng.normal(0, 0.012, (2, 2))
                for x in heads
            ]
            if joined:
                pts = [st if k % 2 == 0 else st[::-1] for k, st in enumerate(strokes)]
                out.append(turned(np.concatenate(pts), tilt))
            else:
                out += [turned(st, tilt) for st in strokes]
    else:  # sprouts: a V on a stalk, in rows
        rows, cols = int(design.integers(1, 4)), int(design.integers(2, 5))
        cols = max(cols, 3) if rows == 1 else cols
        h = design.uniform(0.1, 0.18) * (1.3 if rows == 1 else 1.0)
        w = design.uniform(0.04, 0.07)
        out = []
        for x, y in _grid(design, rng, rows, cols, 0.25, 0.75):
            out.append(np.array([(x, y + h / 2), (x, y - h / 4)]))
            out.append(np.array([(x - w, y - h / 2), (x, y - h / 4), (x + w, y - h / 2)]))
    return _fit(out)


# ---- water -----------------------------------------------------------------------------
WATERS = ("waves", "ripples", "tildes", "crest", "scallops", "squiggle")
#: How often a player draws water each way.
WATER_SHARES = (0.33, 0.14, 0.14, 0.12, 0.15, 0.12)


def _wave(x0, x1, y, amp, periods, phase=0.0, n=None) -> np.ndarray:
    n = n or max(10, int(periods * 10))
    x = np.linspace(x0, x1, n)
    return np.stack([x, y + amp * np.sin((x - x0) / (x1 - x0) * periods * 2 * np.pi + phase)], 1)


def water(rng: np.random.Generator, design: np.random.Generator) -> Lines:
    """Waves of any count, height, length and slant; ripples (concentric rings or arcs);
    rows of tildes; a curling crest over waves; rows of scallops.

    Synthesis 18: waves may be low (flattened by a quick hand), of barely one period, or
    packed close; ``squiggle`` draws the rows as one stroke that turns back at each end."""
    kind = str(design.choice(WATERS, p=WATER_SHARES))
    if kind == "waves":
        count = int(design.integers(2, 6))
        amp = design.uniform(0.018, 0.08)
        gap = max(0.1, design.uniform(2.2, 3.2) * amp)
        periods = design.uniform(0.8, 4.5)
        length = design.uniform(0.45, 0.8)
        ys = 0.5 + gap * (np.arange(count) - (count - 1) / 2)
        stagger = design.uniform(0, 0.1)
        out = []
        for i, y in enumerate(ys):
            x0 = 0.5 - length / 2 + stagger * (1 if i % 2 else -1) / 2 + rng.normal(0, 0.01)
            out.append(_wave(x0, x0 + length, y, amp, periods, design.uniform(-0.3, 0.3)))
        slant = design.normal(0, 0.35)  # the whole set slants together
        out = [turned(p, slant) for p in out]
    elif kind == "ripples":
        rings = int(design.integers(2, 4))
        gap = design.random() < 0.5  # arcs rather than whole rings
        flat = design.uniform(0.5 if gap else 0.65, 1.0)
        out = []
        for r in np.linspace(0.16 if rings == 3 else 0.2, 0.36, rings):  # rings apart
            if gap:
                span = design.uniform(2.8, 4.0)
                a0 = 1.5 * np.pi - span / 2 + design.normal(0, 0.2)
                out.append(_ellipse(0.5, 0.55, r, r * flat, a0, a0 + span))
            else:
                out.append(_ellipse(0.5, 0.55, r, r * flat))
    elif kind == "tildes":
        rows = int(design.integers(2, 5))
        per = int(design.integers(1, 4))
        w = (min(0.24, 0.6 / per) if per > 1 else 0.35) * design.uniform(0.85, 1.1)
        amp = design.uniform(0.03, 0.05)
        out = []
        for r, y in enumerate(np.linspace(0.25, 0.75, rows)):
            for x in np.linspace(0.22, 0.78 - w, per) if per > 1 else [0.5 - w / 2]:
                dx = (w * 0.4) * (r % 2) if per > 1 else rng.normal(0, 0.03)
                out.append(_wave(x + dx * 0.5, x + dx * 0.5 + w, y, amp, 1.0, n=8))
    elif kind == "crest":  # a wave rising into a curl that breaks forward, waves below
        r = design.uniform(0.12, 0.17)
        c = np.array([design.uniform(0.5, 0.6), 0.2 + r])
        x = np.linspace(0.1, c[0], 8)
        rise = np.stack(
            [x, c[1] + 0.12 - (0.12 + r) * np.sin((x - 0.1) / (c[0] - 0.1) * np.pi / 2)], 1
        )
        theta = -np.pi / 2 + np.linspace(0, design.uniform(1.1, 1.5) * 2 * np.pi, 30)
        rho = r * (1 - 0.6 * np.linspace(0, 1, 30))
        curl = c + np.stack([rho * np.cos(theta), rho * np.sin(theta)], 1)
        out = [np.concatenate([rise, curl])]
        for k in range(int(design.integers(1, 3))):
            y = c[1] + r + 0.14 + 0.13 * k
            out.append(_wave(0.12, 0.88, y, design.uniform(0.02, 0.05), 2.0))
    elif kind == "squiggle":  # the rows as one stroke, turning back at each end
        rows = int(design.integers(1, 5))
        amp = design.uniform(0.02, 0.07)
        periods = design.uniform(1.5, 4.5)
        length = design.uniform(0.45, 0.8)
        gap = max(0.1, design.uniform(2.5, 3.5) * amp)
        x0 = 0.5 - length / 2
        pts = []
        for r, y in enumerate(0.5 + gap * (np.arange(rows) - (rows - 1) / 2)):
            wave = _wave(x0, x0 + length, y + rng.normal(0, 0.01), amp, periods)
            pts.append(wave if r % 2 == 0 else wave[::-1])
        out = [turned(np.concatenate(pts), design.normal(0, 0.3))]
    else:  # scallops: rows of little arcs, cups or caps
        rows = int(design.integers(1, 4))
        per = int(design.integers(3, 6))
        up = design.random() < 0.5
        w = 0.7 / per
        out = []
        for r, y in enumerate(np.linspace(0.5 - 0.12 * (rows - 1), 0.5 + 0.12 * (rows - 1), rows)):
            pts = []
            for i in range(per):
                cx = 0.15 + w * (i + 0.5) + (w / 2 if r % 2 and rows > 1 else 0) * 0.5
                a0, a1 = (np.pi, 2 * np.pi) if up else (np.pi, 0.0)
                pts.append(_ellipse(cx, y, w / 2, w * 0.45, a0, a1, n=7))
            out.append(np.concatenate(pts))
    return _fit(out)


# ---- forest ----------------------------------------------------------------------------
TREES = ("cone", "round", "cloud", "tiers", "arrow")


def _tree(design, rng, kind, cx, top, bottom, w) -> Lines:
    """One tree between heights ``top`` and ``bottom``, ``w`` wide at its crown."""
    h = bottom - top
    trunk = design.uniform(0.15, 0.3) * h
    crown_bottom = bottom - trunk
    out = []
    if kind == "cone":
        out.append(
            np.array([(cx, top), (cx - w / 2, crown_bottom), (cx + w / 2, crown_bottom), (cx, top)])
        )
    elif kind == "round":
        ry = (crown_bottom - top) / 2
        out.append(_ellipse(cx, top + ry, w / 2, ry))
    elif kind == "cloud":
        ry = (crown_bottom - top) / 2
        t = np.linspace(0, 2 * np.pi, 30)
        bumps = int(design.integers(4, 8))
        rad = 1 + 0.12 * np.abs(np.sin(bumps * t / 2))
        out.append(np.stack([cx + w / 2 * rad * np.cos(t), top + ry + ry * rad * np.sin(t)], 1))
    elif kind == "tiers":  # a pine of stacked triangles
        n = int(design.integers(2, 5))
        ys = np.linspace(top, crown_bottom, n + 1)
        for k in range(n):
            half = w / 2 * (k + 1) / n
            y0, y1 = ys[k] - (0.4 * (ys[1] - ys[0]) if k else 0), ys[k + 1]
            out.append(np.array([(cx - half, y1), (cx, y0), (cx + half, y1)]))
            if design.random() < 0.5 or k == n - 1:
                out.append(np.array([(cx - half, y1), (cx + half, y1)]))
    else:  # arrow: an up-pointing chevron stack on a stem
        n = int(design.integers(2, 4))
        for k in range(n):
            y = top + k * (crown_bottom - top) / n
            half = w / 2 * (0.6 + 0.4 * (k + 1) / n)
            out.append(
                np.array(
                    [
                        (cx - half, y + 0.5 * (crown_bottom - top) / n + 0.05),
                        (cx, y),
                        (cx + half, y + 0.5 * (crown_bottom - top) / n + 0.05),
                    ]
                )
            )
        out.append(np.array([(cx, top), (cx, bottom)]))
        return out
    if design.random() < 0.3:  # a two-line trunk
        tw = w * 0.08
        out.append(
            np.array(
                [
                    (cx - tw, crown_bottom),
                    (cx - tw, bottom),
                    (cx + tw, bottom),
                    (cx + tw, crown_bottom),
                ]
            )
        )
    else:
        out.append(np.array([(cx, crown_bottom), (cx, bottom)]))
    return out


def forest(rng: np.random.Generator, design: np.random.Generator) -> Lines:
    """One tree (cone, round or cloud canopy, a tiered pine, a chevron fir) or a copse of
    two or three, with or without a ground line."""
    kind = str(design.choice(TREES))
    many = int(design.choice([1, 1, 1, 2, 2, 3]))
    out: Lines = []
    if many == 1:
        w = design.uniform(0.4, 0.6)
        out += _tree(design, rng, kind, 0.5 + rng.normal(0, 0.01), 0.12, 0.88, w)
    else:
        spots = {
            2: [(0.3, 0.15, 0.75), (0.7, 0.25, 0.85)],
            3: [(0.2, 0.38, 0.88), (0.5, 0.12, 0.62), (0.8, 0.38, 0.88)],
        }[many]
        w = {2: 0.36, 3: 0.28}[many] * design.uniform(0.85, 1.05)
        mixed = many == 2 and design.random() < 0.3  # three mixed trees blur into a blob
        for cx, top, bottom in spots:
            k = str(design.choice(TREES)) if mixed else kind
            out += _tree(design, rng, k, cx + rng.normal(0, 0.015), top, bottom, w)
    if design.random() < 0.2:
        out.append(np.array([(0.12, 0.9), (0.88, 0.9)]))
    return _fit(out)


# ---- village ---------------------------------------------------------------------------
ROOFS = ("gable", "steep", "overhang", "flat", "tent")


def _house(design, rng, cx, ground, w, h, roof) -> Lines:
    x0, x1 = cx - w / 2, cx + w / 2
    eave = ground - h
    out: Lines = []
    rh = h * design.uniform(0.6, 1.0)
    if roof == "tent":  # a tent: one big triangle on the ground with an open flap
        apex = ground - h * 1.6
        out.append(
            np.array(
                [(x0 - w * 0.1, ground), (cx, apex), (x1 + w * 0.1, ground), (x0 - w * 0.1, ground)]
            )
        )
        out.append(
            np.array([(cx - w * 0.18, ground), (cx, ground - h * 0.7), (cx + w * 0.18, ground)])
        )
        out.append(np.array([(cx, apex), (cx + w * 0.05, apex - 0.05)]))  # pole
        out.append(
            np.array([(cx + w * 0.05, apex - 0.05), (cx + w * 0.15, apex - 0.03)])
        )  # pennant
        return out
    out.append(np.array([(x0, eave), (x0, ground), (x1, ground), (x1, eave)]))
    if roof == "flat":
        out.append(np.array([(x0 - 0.03, eave), (x1 + 0.03, eave)]))
        out.append(
            np.array(
                [
                    (x0 + 0.02, eave),
                    (x0 + 0.02, eave - h * 0.2),
                    (x1 - 0.02, eave - h * 0.2),
                    (x1 - 0.02, eave),
                ]
            )
        )
    else:
        over = {"gable": 0.05, "steep": 0.02, "overhang": 0.1}[roof]
        lift = rh * (1.6 if roof == "steep" else 1.0)
        out.append(
            np.array([(x0 - over, eave + 0.01), (cx, eave - lift), (x1 + over, eave + 0.01)])
        )
        if design.random() < 0.5:
            out.append(np.array([(x0, eave), (x1, eave)]))
    if design.random() < 0.65:  # door
        dw, dh = w * design.uniform(0.18, 0.3), h * design.uniform(0.4, 0.65)
        dx = cx + (design.uniform(-0.2, 0.2) * w)
        if design.random() < 0.3:
            out.append(
                np.concatenate(
                    [
                        [(dx - dw / 2, ground)],
                        _ellipse(dx, ground - dh + dw / 2, dw / 2, dw / 2, np.pi, 2 * np.pi, 8),
                        [(dx + dw / 2, ground)],
                    ]
                )
            )
        else:
            out.append(
                np.array(
                    [
                        (dx - dw / 2, ground),
                        (dx - dw / 2, ground - dh),
                        (dx + dw / 2, ground - dh),
                        (dx + dw / 2, ground),
                    ]
                )
            )
    windows = int(design.choice([0, 1, 1, 2]))
    s = w * design.uniform(0.12, 0.18)
    for i in range(windows):
        wx = cx + (-0.3 if (i == 0 and windows == 2) else 0.3) * w
        wy = eave + h * 0.35
        out.append(
            np.array(
                [
                    (wx - s, wy - s),
                    (wx + s, wy - s),
                    (wx + s, wy + s),
                    (wx - s, wy + s),
                    (wx - s, wy - s),
                ]
            )
        )
        if design.random() < 0.5:  # window bars
            out.append(np.array([(wx, wy - s), (wx, wy + s)]))
            out.append(np.array([(wx - s, wy), (wx + s, wy)]))
    if roof != "flat" and design.random() < 0.4:  # chimney on the roof's slope
        side = float(design.choice([-1, 1]))
        cxh = cx + side * w * 0.28
        y_roof = eave - lift * (1 - abs(cxh - cx) / (w / 2 + over))
        out.append(
            np.array(
                [
                    (cxh - 0.025, y_roof + 0.01),
                    (cxh - 0.025, y_roof - 0.08),
                    (cxh + 0.025, y_roof - 0.08),
                    (cxh + 0.025, y_roof + 0.02),
                ]
            )
        )
    return out


def village(rng: np.random.Generator, design: np.random.Generator) -> Lines:
    """A house with its roof (gable, steep, overhanging, flat) and maybe door, windows and
    chimney; two houses side by side; or a tent."""
    roof = str(design.choice(ROOFS, p=(0.35, 0.2, 0.2, 0.12, 0.13)))
    n = 1 if roof == "tent" else int(design.choice([1, 1, 1, 2]))
    if n == 1:
        w, h = design.uniform(0.38, 0.55), design.uniform(0.26, 0.38)
        out = _house(design, rng, 0.5, 0.85 + rng.normal(0, 0.01), w, h, roof)
    else:
        big = design.uniform(0.9, 1.2)
        out = _house(design, rng, 0.3, 0.85, 0.3 * big, 0.26 * big, roof)
        out += _house(design, rng, 0.72, 0.82, 0.3, 0.24, roof)
    return _fit(out)


DOODLES = {FOREST: forest, VILLAGE: village, FARM: farm, WATER: water, MONSTER: monster}
