"""scanner.median: np.median's and np.percentile's numbers for the scanner's small arrays."""

import numpy as np

from scanner.median import fast_median, fast_percentile, running_median3


def test_the_middle_value_of_an_odd_count():
    assert fast_median(np.array([3.0, 1.0, 2.0])) == 2.0
    assert fast_median(np.array([7.0])) == 7.0


def test_the_mean_of_the_middle_two_of_an_even_count():
    assert fast_median(np.array([4.0, 1.0, 3.0, 2.0])) == 2.5
    assert fast_median(np.array([1, 2, 3, 4])) == 2.5  # whole numbers: a half is kept


def test_a_float32_array_keeps_its_type():
    got = fast_median(np.float32([1.0, 2.0]))
    assert got == np.float32(1.5) and np.asarray(got).dtype == np.float32


def test_along_an_axis():
    values = np.array([[1.0, 5.0, 3.0], [9.0, 7.0, 8.0]])
    assert np.array_equal(fast_median(values), [3.0, 8.0])
    assert np.array_equal(fast_median(values, axis=0), [5.0, 6.0, 5.5])
    cube = np.arange(24.0).reshape(2, 3, 4)[:, ::-1]  # each column falls along axis 1
    assert np.array_equal(fast_median(cube, axis=1), [[4.0, 5.0, 6.0, 7.0], [16, 17, 18, 19]])


def test_a_percentile_between_two_values_is_interpolated_as_numpy_does():
    values = np.array([10.0, 0.0, 30.0, 20.0])  # sorted 0, 10, 20, 30: index 3 * 0.5
    assert fast_percentile(values, 50) == 15.0
    assert fast_percentile(values, 100) == 30.0 and fast_percentile(values, 0) == 0.0


def test_percentiles_of_random_rows_are_numpys_bit_for_bit():
    rng = np.random.default_rng(56)
    for n in (1, 2, 5, 14, 97):
        for dtype in (np.float32, np.float64):
            rows = rng.normal(size=(7, n)).astype(dtype)
            for q in (0, 12.5, 50, 75, 98, 100):
                got, want = fast_percentile(rows, q), np.percentile(rows, q, axis=-1)
                assert got.dtype == want.dtype and np.array_equal(got, want)


def test_a_running_median_of_three_ignores_one_outlier_and_repeats_the_ends():
    assert np.array_equal(running_median3(np.array([1.0, 9.0, 2.0, 3.0])), [1.0, 2.0, 3.0, 3.0])
    assert np.array_equal(running_median3(np.array([5.0, 0.0])), [5.0, 0.0])
    assert np.array_equal(running_median3(np.array([4.0])), [4.0])


def test_running_medians_are_scipys_median_filter_bit_for_bit():
    from scipy.ndimage import median_filter

    rng = np.random.default_rng(57)
    for n in (1, 2, 3, 14, 40):
        for dtype in (np.float32, np.float64):
            values = rng.normal(size=n).astype(dtype)
            got, want = running_median3(values), median_filter(values, size=3, mode="nearest")
            assert got.dtype == want.dtype and np.array_equal(got, want)
