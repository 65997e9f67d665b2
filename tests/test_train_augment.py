"""Training augmentations (models.augment): shapes, and that each does what it says."""

from dataclasses import replace

import numpy as np
import pytest

from models.augment import _hard_shadows, _ink_habits, _thresholded, _warp, augment
from models.cell_data import CellSet
from models.train import _sampling_weights
from scanner.normalize import CLASSES, INPUT_PX, PAPER_LEVEL


def _cells(n: int = 16) -> np.ndarray:
    """Paper-grey crops with a dark cross (ink) in the middle."""
    img = np.full((n, INPUT_PX, INPUT_PX, 3), int(PAPER_LEVEL), np.uint8)
    img[:, 20:28, :] = 40
    img[:, :, 20:28] = 40
    return img


def test_augment_keeps_shape_and_type_with_and_without_extras():
    rng = np.random.default_rng(0)
    for extra, shadow in ((0.0, 0.0), (1.0, 0.5)):
        out = augment(_cells(), rng, extra, shadow)
        assert out.shape == (16, INPUT_PX, INPUT_PX, 3)
        assert out.dtype == np.uint8


def test_augment_keeps_a_larger_input_size():
    """Cells rendered for a 64 px model (``--input-px 64``) stay 64 px, every step
    included (shift, turn, shadows)."""
    rng = np.random.default_rng(0)
    cells = np.full((16, 64, 64, 3), int(PAPER_LEVEL), np.uint8)
    cells[:, 28:36] = 40
    out = augment(cells, rng, 1.0, 0.5)
    assert out.shape == (16, 64, 64, 3)
    assert out.dtype == np.uint8
    # The ink band stays near the middle rows: shifted by at most 4 px (3 at 48 px).
    dark_rows = np.flatnonzero(out[:8].astype(int).mean(axis=(0, 2, 3)) < 150)
    assert dark_rows.size and 22 <= dark_rows.min() and dark_rows.max() <= 41


def test_faint_ink_moves_ink_towards_paper_and_keeps_paper():
    out = _cells(200).astype(np.float32)
    _ink_habits(out, np.random.default_rng(1), 1.0)
    ink = out[:, 20:28, 0:8, 0]  # on the cross's arm, away from the stroke-width edges
    paper = out[:, 0:8, 0:8, 0]
    assert (ink >= 40).all() and (ink > 60).any()  # some cells lighter, none darker
    assert np.allclose(paper, PAPER_LEVEL)


def test_hard_shadows_darken_part_of_a_cell_only_when_asked():
    none = _hard_shadows(8, np.random.default_rng(2), 0.0)
    assert (none == 1).all()
    some = _hard_shadows(64, np.random.default_rng(2), 1.0)
    dark = some < 1
    assert dark.any() and (some >= 0.55).all()
    shaded = dark.reshape(64, -1).mean(axis=1)
    assert ((shaded > 0) & (shaded < 1)).any()  # an edge crosses some cells


def test_warp_shifts_the_crop_by_the_given_pixels():
    img = _cells(1)[0]
    rng = np.random.default_rng(3)
    moved = _warp(img, 2, 0, rng)
    # Turn within 4 degrees and scale within 8 %: the vertical bar's centre moves ~2 px right.
    col = (moved[:, :, 0] < 130).mean(axis=0)
    centre = (col * np.arange(INPUT_PX)).sum() / col.sum()
    assert abs(centre - 25.5) < 1.5


def _labelled(labels: list[int], ruins: list[int]) -> CellSet:
    n = len(labels)
    return CellSet(
        images=np.zeros((n, INPUT_PX, INPUT_PX, 3), np.uint8),
        labels=np.array(labels, np.int64),
        ruins=np.array(ruins, np.float32)[:, None],
        sheet=np.zeros(n, np.int32),
        style=["graphite"],
        difficulty=["normal"],
        side=["A"],
    )


def test_empty_ruins_weight_raises_only_the_bare_printed_icon():
    empty, forest = CLASSES.index("."), CLASSES.index("T")
    #        empty ruins, empty plain, forest on ruins, forest plain
    data = _labelled([empty, empty, forest, forest], [1, 0, 1, 0])
    plain = _sampling_weights(data)
    more = _sampling_weights(data, empty_ruins=4.0)
    assert plain.sum() == pytest.approx(1.0) and more.sum() == pytest.approx(1.0)
    # Ruins spaces are sampled 3x either way; only the empty one gains 4x more.
    assert plain[0] / plain[1] == pytest.approx(3.0)
    assert more[0] / more[1] == pytest.approx(12.0)
    assert more[2] / more[3] == pytest.approx(plain[2] / plain[3])
    assert more[1] / more[3] == pytest.approx(plain[1] / plain[3])


def test_a_thresholded_crop_is_black_ink_on_balanced_paper():
    # A scanner app's black-and-white mode: ink black, paper white, which the scanner's
    # white balance makes the balanced paper level (scanner.normalize.PAPER_LEVEL).
    rng = np.random.default_rng(2)
    cell = np.full((INPUT_PX, INPUT_PX, 3), int(PAPER_LEVEL), np.int16)
    cell[23:25, 6:42] = 60  # a pencil stroke across, and one down
    cell[6:42, 23:25] = 60
    cell += np.random.default_rng(3).integers(-6, 7, cell.shape)  # the paper's grain
    crop = np.clip(cell, 0, 255).astype(np.uint8)
    outs = [_thresholded(crop, rng) for _ in range(12)]
    for out in outs:
        assert out.shape == crop.shape and out.dtype == np.uint8
        assert (out[..., 0] == out[..., 1]).all() and (out[..., 1] == out[..., 2]).all()
        # The strokes stay ink, the corners stay paper.
        assert out[23:25, 10:38].mean() < 100 and out[:8, :8].mean() > PAPER_LEVEL - 30
    # Some are left sharp: every pixel is ink or paper.
    assert any(set(np.unique(out)) <= {0, int(PAPER_LEVEL)} for out in outs)


def test_the_threshold_share_is_the_share_of_black_and_white_crops():
    cells = _cells(400)
    plain = augment(cells, np.random.default_rng(5))
    some = augment(cells, np.random.default_rng(5), threshold=0.25)

    def black_and_white(out: np.ndarray) -> np.ndarray:
        grey = ((out[..., 0] == out[..., 1]) & (out[..., 1] == out[..., 2])).all(axis=(1, 2))
        ink = out.min(axis=(1, 2, 3)) == 0
        paper = out.max(axis=(1, 2, 3)) <= PAPER_LEVEL
        return grey & ink & paper

    assert black_and_white(plain).sum() == 0
    assert 70 <= black_and_white(some).sum() <= 130


def test_style_weight_raises_only_the_named_styles_cells():
    forest = CLASSES.index("T")
    data = _labelled([forest, forest, forest], [0, 0, 0])
    data = replace(
        data, sheet=np.array([0, 1, 2], np.int32), style=["graphite", "minimal", "ballpoint"]
    )
    plain = _sampling_weights(data)
    more = _sampling_weights(data, style_weights={"graphite": 2.0, "minimal": 3.0})
    assert more.sum() == pytest.approx(1.0)
    assert plain[0] == pytest.approx(plain[2])
    assert more[0] / more[2] == pytest.approx(2.0)
    assert more[1] / more[2] == pytest.approx(3.0)
