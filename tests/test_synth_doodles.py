"""Compositional doodles (synthesis 16): every part of every terrain's doodle draws ink
inside its cell, a player's choices hold for the whole sheet, and the parts vary."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from models.synth import doodles
from models.synth.canvas import Canvas
from models.synth.draw import COMPOSED, ICONS, add_habits, icon_lines, random_style
from scoring.board import FARM, MONSTER, WATER

PX = 48


def _ink(lines) -> np.ndarray:
    """The lines drawn in black on a white 3 x 3-cell canvas, the cell in the middle."""
    cv = Canvas.covering(-1, -1, 2, 2, PX)
    img = cv.blank(1, 255)
    for line in lines:
        cv.polyline(img, np.asarray(line, float), 0, 0.04)  # a soft pencil
    return img < 128


@pytest.mark.parametrize("terrain", list(doodles.DOODLES))
def test_every_doodle_draws_strokes_inside_its_cell_for_many_seeds(terrain):
    for seed in range(150):
        rng = np.random.default_rng(seed)
        lines = doodles.DOODLES[terrain](rng, rng)
        pts = np.concatenate([np.asarray(p, float) for p in lines])
        assert np.isfinite(pts).all(), (terrain, seed)
        assert pts.min() >= doodles.MARGIN - 1e-9 and pts.max() <= 1 - doodles.MARGIN + 1e-9
        ink = _ink(lines)
        assert ink.sum() > 0.01 * PX * PX, (terrain, seed)  # a visible drawing, not a speck
        ys, xs = np.nonzero(ink)
        assert xs.min() > PX * 0.97 and xs.max() < PX * 2.03, (terrain, seed)
        assert ys.min() > PX * 0.97 and ys.max() < PX * 2.03, (terrain, seed)


def _kinds(choices, seeds=200, p=None):
    """What ``design.choice(choices)`` picks first for these seeds (the doodles' first draw)."""
    return {str(np.random.default_rng(s).choice(choices, p=p)) for s in range(seeds)}


def test_each_terrain_reaches_all_its_kinds():
    assert _kinds(doodles.FARMS) == set(doodles.FARMS)
    assert _kinds(doodles.WATERS, p=doodles.WATER_SHARES) == set(doodles.WATERS)
    assert _kinds(doodles.HEADS, p=(0.14, 0.2, 0.18, 0.14, 0.17, 0.17)) == set(doodles.HEADS)


def test_a_players_doodle_holds_for_the_sheet_and_differs_between_players():
    st = replace(random_style(np.random.default_rng(3), "graphite"), variants=COMPOSED)
    st = replace(st, designs={t: 7 for t in ICONS})

    def strokes(style, cell_seed):
        return len(icon_lines(np.random.default_rng(cell_seed), style, MONSTER, False))

    same = [strokes(st, s) for s in range(40)]
    # the same parts on (nearly) every cell: a few cells switch to a classic design
    assert max(same.count(n) for n in set(same)) >= 28
    players = set()
    for design in range(30):
        player = replace(st, designs={MONSTER: design})
        counts = [strokes(player, s) for s in range(9)]
        players.add(max(set(counts), key=counts.count))
    assert len(players) >= 5  # different players' monsters have different numbers of strokes


def test_add_habits_gives_doodles_to_many_players_and_seeds_them():
    composed, seeds = 0, set()
    for seed in range(100):
        base = random_style(np.random.default_rng(seed), "graphite")
        st = add_habits(base, np.random.default_rng(5000 + seed))
        composed += sum(st.variants[t] == COMPOSED[t] for t in ICONS)
        assert set(st.designs) == set(ICONS)
        seeds.add(st.designs[WATER])
    assert 0.3 * 500 <= composed <= 0.5 * 500  # about 40 % of the terrains
    assert len(seeds) == 100


def _design_for(kinds, kind, p=None) -> np.random.Generator:
    """A fresh design generator whose first choice among ``kinds`` is ``kind``."""
    for s in range(500):
        if str(np.random.default_rng(s).choice(kinds, p=p)) == kind:
            return np.random.default_rng(s)
    raise AssertionError(kind)


def _slopes(line) -> np.ndarray:
    d = np.diff(np.asarray(line, float), axis=0)
    return d[:, 0] * np.sign(d[:, 1] + 1e-12)  # >0 leans right going down, <0 left


def test_a_hatched_patch_farm_has_strokes_leaning_both_ways():
    for seed in range(20):
        lines = doodles.farm(np.random.default_rng(seed), _design_for(doodles.FARMS, "patch"))
        slopes = np.concatenate([_slopes(p) for p in lines])
        steep = np.abs(slopes) > 0.01
        assert (slopes[steep] > 0).sum() >= 3 and (slopes[steep] < 0).sum() >= 3, seed


def test_a_squiggle_water_is_one_stroke_and_quick_furrows_stay_near_straight():
    for seed in range(30):
        design = _design_for(doodles.WATERS, "squiggle", p=doodles.WATER_SHARES)
        lines = doodles.water(np.random.default_rng(seed), design)
        assert len(lines) == 1 and len(lines[0]) >= 10
    bends = []
    for seed in range(40):
        design = np.random.default_rng(seed)
        if str(np.random.default_rng(seed).choice(doodles.FARMS)) != "furrows":
            continue
        for line in doodles.farm(np.random.default_rng(seed + 1), design):
            p = np.asarray(line, float)
            d = (p[-1] - p[0]) / np.linalg.norm(p[-1] - p[0])
            off = (p - p[0]) @ np.array([-d[1], d[0]])
            bends.append(np.abs(off).max())
    assert bends and max(bends) < 0.12  # a shaky line, not a wave
    assert sum(b > 0.005 for b in bends) >= 3  # and some furrows do wobble


def test_some_monsters_are_bare_faces_and_every_bare_face_looks_angry():
    """SHEET.md: "monster: a face (eyes and a jagged mouth, horns) or a spiky blob". Some
    players draw just the face: no head, no horns. Each such design has angry eyes or a
    jagged mouth (a bare face with plain eyes and mouth would be a smiley)."""
    parts = [doodles.monster_parts(np.random.default_rng(seed)) for seed in range(600)]
    bare = [(eyes, mouth) for head, eyes, mouth, top in parts if head == top == "none"]
    assert len(bare) >= 0.03 * len(parts), len(bare)
    for eyes, mouth in bare:
        assert eyes in doodles.ANGRY_EYES or mouth in doodles.JAGGED_MOUTHS, (eyes, mouth)


def _turns(p: np.ndarray) -> int:
    """How many times a polyline turns back up or down (the teeth of a zigzag)."""
    dy = np.sign(np.diff(np.asarray(p, float)[:, 1]))
    dy = dy[dy != 0]
    return int((dy[1:] != dy[:-1]).sum())


def test_a_minimal_players_monster_is_sometimes_a_quick_face():
    """SHEET.md: "quick minimal marks" and "monster: a face (eyes and a jagged mouth,
    horns)". A quick monster may be a zigzag or a cross, or two eyes with a jagged mouth
    or a crown of horns (an "M") (synthesis 24): two short eye marks side by side, and one
    stroke with at least three turns (the icon is drawn at the player's scale)."""
    style = random_style(np.random.default_rng(0), "minimal")
    faces = 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        style = replace(style, variants={**style.variants, MONSTER: seed % 4})
        lines = icon_lines(rng, style, MONSTER, ruins=False)
        short = [p for p in lines if np.ptp(p, axis=0).max() < 0.1]
        long = [p for p in lines if np.ptp(p, axis=0).max() >= 0.1]
        if len(short) == 2:
            faces += 1
            left, right = sorted(short, key=lambda p: p[:, 0].mean())
            eye = max(np.ptp(left, axis=0).max(), np.ptp(right, axis=0).max())
            assert right[:, 0].mean() - left[:, 0].mean() > 1.5 * eye, seed  # two eyes apart
            assert abs(right[:, 1].mean() - left[:, 1].mean()) < 0.1, seed  # level
            assert len(long) == 1 and _turns(long[0]) >= 3, seed
    assert faces >= 40, faces


def test_a_minimal_players_dotted_farm_is_not_a_few_stray_dots():
    """SHEET.md: "farm: ... furrows (a few parallel lines or dotted rows)", and "Empty
    cells can carry eraser smudges or stray dots a person would ignore" -- one to three
    dots in the renderer. A quick dotted farm is rows of dabs (synthesis 25): at least two
    rows of three, with more than twice the ink of three of the largest stray dots."""
    style = random_style(np.random.default_rng(0), "minimal")
    style = replace(style, variants={**style.variants, FARM: 0})
    cv = Canvas.covering(-1, -1, 2, 2, PX)
    stray = cv.blank(1, 255)
    for x in (0.3, 0.5, 0.7):
        cv.circle(stray, (x, 0.5), 0.02, 0)
    stray_ink = int((stray < 128).sum())
    dotted = 0
    for seed in range(200):
        lines = icon_lines(np.random.default_rng(seed), style, FARM, ruins=False)
        if max(np.ptp(p, axis=0).max() for p in lines) >= 0.1:
            continue  # now and then another design: furrows, a stalk, sprouts
        dotted += 1
        rows = np.unique(np.round([p[:, 1].mean() / 0.08 for p in lines]))
        assert len(lines) >= 6 and len(rows) >= 2, seed
        assert _ink(lines).sum() > 2 * stray_ink, seed
    assert dotted >= 100, dotted


def test_angry_brows_and_slits_slant_down_towards_the_nose():
    """Angry eyes (:data:`doodles.ANGRY_EYES`): each brow or slit is lower at its end near
    the middle of the face than at its outer end (synthesis 29; they slanted the other way,
    a worried look)."""
    for kind in ("brows", "slits"):
        rng = np.random.default_rng(0)
        lines = doodles.face(rng, rng, kind, "none", 0.5, 0.4, 0.6, 0.12, 0.2, 0.05)
        strokes = [np.asarray(p, float) for p in lines if len(p) == 2 and np.ptp(p[:, 0]) > 0.03]
        assert len(strokes) == 2, kind
        for p in strokes:
            inner, outer = sorted(p, key=lambda q: abs(q[0] - 0.5))
            assert inner[1] > outer[1] + 0.01, (kind, p)  # y grows downwards


def test_bare_faces_and_spiky_blobs_vary_and_carry_a_face():
    """SHEET.md: "monster: a face (eyes and a jagged mouth, horns) or a spiky blob". The
    fixed bare-face design (synthesis 29) differs from cell to cell, every one has a mouth
    of at least three teeth, and half or so wear horns; most spiky blobs have more than two
    dots for a face, and their spikes vary in number."""
    face_variant, blob_variant = 6, 1
    faces = [ICONS[MONSTER](np.random.default_rng(s), face_variant) for s in range(200)]
    assert len({len(f) for f in faces}) >= 3
    for f in faces:
        assert max(_turns(p) for p in f) >= 4  # a zigzag or a row of teeth

    def has_horns(f) -> bool:
        return any(len(p) == 3 and np.ptp(np.asarray(p, float)[:, 1]) > 0.1 for p in f)

    horned = sum(has_horns(f) for f in faces)
    assert 0.35 * len(faces) < horned < 0.85 * len(faces), horned
    blobs = [ICONS[MONSTER](np.random.default_rng(s), blob_variant) for s in range(200)]
    spikes = {_turns(np.asarray(b[0], float)) for b in blobs}
    assert len(spikes) >= 4
    assert sum(len(b) > 3 for b in blobs) > 0.6 * len(blobs)
