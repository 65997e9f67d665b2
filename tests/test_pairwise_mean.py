"""scanner.lattice.pairwise_mean: numpy's own mean over a short last axis, bit for bit."""

import numpy as np
import pytest

from scanner.lattice import pairwise_mean


@pytest.mark.parametrize("n", range(8, 16))
def test_pairwise_mean_equals_numpys_mean_over_the_last_axis(n):
    rng = np.random.default_rng(n)
    for _ in range(50):
        scale = 10 ** rng.uniform(-5, 5)
        rows = np.log1p(np.abs(rng.standard_normal((n, 29, 77)) * scale))
        expected = np.ascontiguousarray(np.moveaxis(rows, 0, -1)).mean(-1)
        assert np.array_equal(pairwise_mean(rows), expected)


def test_pairwise_mean_refuses_other_row_counts():
    with pytest.raises(ValueError):
        pairwise_mean(np.zeros((7, 3)))
    with pytest.raises(ValueError):
        pairwise_mean(np.zeros((16, 3)))
