"""scanner.lattice.row_means and pick: the same numbers as the gathers they replace."""

import numpy as np

from scanner.lattice import pick, row_means


def test_row_means_equal_averaging_the_gathered_pixels_bit_for_bit():
    rng = np.random.default_rng(0)
    image = (rng.random((120, 120)) * 60).astype(np.float32)
    rows = 7 + np.arange(4)[:, None] * 25 + np.arange(19)  # (pieces, rows per piece)
    cols = np.arange(5, 80, 7)[:, None] + np.arange(-3, 4)  # (lines, offsets)
    gathered = image[rows[:, :, None, None], cols[None, None]].mean(axis=1)
    assert np.array_equal(row_means(image, rows)[:, cols], gathered)
    across = image[cols[None, None], rows[:, :, None, None]].mean(axis=1)
    assert np.array_equal(row_means(image.T, rows)[:, cols], across)


def test_pick_takes_each_profiles_entry():
    rng = np.random.default_rng(1)
    values = rng.random((2, 3, 4, 9))
    index = rng.integers(0, 9, (2, 3, 4))
    expected = np.take_along_axis(values, index[..., None], -1)[..., 0]
    assert np.array_equal(pick(values, index), expected)
    assert np.array_equal(
        pick(values.transpose(1, 0, 2, 3), index.transpose(1, 0, 2)), expected.transpose(1, 0, 2)
    )
