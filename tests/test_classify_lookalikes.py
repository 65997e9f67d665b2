"""Doubtful cells lean towards the readings of the cells that look most like them.

SHEET.md, "How players draw": "One player keeps one style for a whole sheet." So the
cells a player filled with one terrain look alike, and a design the model reads a
little wrong on one cell is read right on most of the others.
"""

from functools import cache

import numpy as np

from scanner import classify
from scanner.cells import cut_cells
from scanner.classify import apply_layout_prior, lookalike_vote
from scanner.normalize import CLASSES
from scanner.review import DECIDED_BY_LOOKALIKES, DECIDED_BY_NEIGHBOURS, DECIDED_BY_SHAPE
from scoring.layouts import LAYOUTS, SIDE_A, parse_space, space_name

FARM, WATER, EMPTY = (CLASSES.index(s) for s in "FW.")
#: Plain spaces of side A (no mountain, ruins, wasteland): a farm design drawn five times.
FARMS = ("H8", "H9", "H10", "G8", "G9")
FEATURES = 160


def _index(name: str) -> int:
    r, c = parse_space(name)
    return r * 11 + c


def _sheet() -> tuple[np.ndarray, np.ndarray]:
    """Every cell surely empty, each with its own random look; the five FARMS cells
    share one look and are read farm 0.7 / water 0.3."""
    rng = np.random.default_rng(5)
    probs = np.full((121, len(CLASSES)), 0.001 / (len(CLASSES) - 1))
    probs[:, EMPTY] = 0.999
    features = rng.normal(size=(121, FEATURES))
    design = rng.normal(size=FEATURES)
    for name in FARMS:
        i = _index(name)
        probs[i] = 0.0
        probs[i, FARM], probs[i, WATER] = 0.7, 0.3
        features[i] = design + 0.1 * rng.normal(size=FEATURES)
    return apply_layout_prior(probs, SIDE_A), features


def _read(probs: np.ndarray, name: str, **by_symbol: float) -> None:
    row = probs[_index(name)]
    row[:] = 0.0
    for symbol, value in by_symbol.items():
        row[CLASSES.index(symbol)] = value


def test_a_cell_read_a_little_wrong_follows_its_look_alikes():
    probs, features = _sheet()
    _read(probs, "G9", W=0.55, F=0.45)
    out = lookalike_vote(probs, features, SIDE_A)
    assert out[_index("G9")].argmax() == FARM
    np.testing.assert_allclose(out[_index("G9")].sum(), 1.0)
    # Drawn unlike anything else on the sheet, the same reading stands.
    features[_index("G9")] = np.random.default_rng(9).normal(size=FEATURES)
    alone = lookalike_vote(probs, features, SIDE_A)
    np.testing.assert_allclose(alone[_index("G9")], probs[_index("G9")])


def test_one_sure_look_alike_of_another_terrain_does_not_outvote_the_rest():
    """The vote is the look-alikes' majority: here three of G9's four look-alikes lean
    water as G9 does, and one is read surely as farm. G9 stays water."""
    probs, features = _sheet()
    _read(probs, "G9", W=0.6, F=0.4)
    for name in ("H8", "H9", "H10"):
        _read(probs, name, W=0.6, F=0.4)
    _read(probs, "G8", F=0.999999, W=0.000001)
    out = lookalike_vote(probs, features, SIDE_A)
    assert out[_index("G9")].argmax() == WATER


def test_sure_printed_and_ruins_cells_are_never_changed():
    probs, features = _sheet()
    _read(probs, "G9", W=0.995, F=0.005)  # sure: the step leaves it
    ruins = sorted(SIDE_A.ruins)[0]
    i = ruins[0] * 11 + ruins[1]
    probs[i] = 0.0
    probs[i, WATER], probs[i, FARM] = 0.55, 0.45
    features[i] = features[_index("H8")]  # looks exactly like the farms
    out = lookalike_vote(probs, features, SIDE_A)
    unchanged = [_index("G9"), i] + [r * 11 + c for r, c in SIDE_A.mountains]
    np.testing.assert_allclose(out[unchanged], probs[unchanged])


@cache
def _with_and_without_leaning(seed: int, difficulty: str):
    """A rendered view read with every step, and by the cells' own reading (before the
    look-alikes, the outlined shapes or the neighbours lean them)."""
    from models import synth

    view, truth = synth.make_view(seed, difficulty)
    crops, layout = cut_cells(view), LAYOUTS[truth["side"]]
    on = classify.classify_cells(crops, layout)
    own = classify.classify_cells(crops, layout, lookalikes=False, neighbours=False, shapes=False)
    return on, own


def _wrong(grid, truth) -> int:
    return sum(a != b for a, b in zip("".join(grid), "".join(truth["grid"]), strict=True))


def test_held_out_photos_are_read_better_with_the_vote():
    """Photos from the held-out renderer (benchmarks/heldout: another hand, another camera;
    seeds never measured on) through the scanner: fewer misread cells in all. Measured 6
    against 10 on these eight with session 23's model, 7 against 9 with session 25's.

    Until session 22 this test read our own renderer's photos (seeds 4000001-4000004): 41
    against 43 with session 21's model. Drawn by synthesis 24, those eight read 45 against
    45 with that model and 54 against 50 with session 23's, while over many photos the vote
    still helps: 1453 against 1489 misread cells on the 320 tuning photos, 1022 against 1053
    on the 240 fresh ones, nearly all of it on held-out photos (docs/figures.md, session
    23). Eight photos of our own renderer no longer show a gain of a few cells in a
    hundred; the held-out hand's do, so they are what is tested. The seeds were chosen
    before this was measured.
    """
    from benchmarks.heldout.render import render_photo
    from scanner.pipeline import scan_photo

    on = off = 0
    for seed in range(1_030_000, 1_030_004):
        for difficulty in ("normal", "hard"):
            rgb, truth = render_photo(seed, difficulty)
            scan = scan_photo(np.ascontiguousarray(rgb[..., ::-1]))
            assert scan.side == truth["side"]
            crops, layout = cut_cells(scan.view), LAYOUTS[scan.side]
            on += _wrong(classify.classify_cells(crops, layout).grid, truth)
            off += _wrong(classify.classify_cells(crops, layout, lookalikes=False).grid, truth)
    assert on < off


def test_a_cell_whose_own_reading_was_changed_is_listed_as_decided():
    looked = 0
    for seed in range(4_000_001, 4_000_005):
        for difficulty in ("normal", "hard"):
            on, own = _with_and_without_leaning(seed, difficulty)
            reasons = {r.space: r.reason for r in on.review}
            for r in range(11):
                for c in range(11):
                    if on.grid[r][c] != own.grid[r][c]:
                        space = space_name((r, c))
                        assert reasons[space] in (
                            DECIDED_BY_LOOKALIKES,
                            DECIDED_BY_SHAPE,
                            DECIDED_BY_NEIGHBOURS,
                        )
                        looked += reasons[space] == DECIDED_BY_LOOKALIKES
    assert looked > 0
