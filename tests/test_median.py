"""scanner.median.fast_median: np.median's numbers for the scanner's small arrays."""

import numpy as np

from scanner.median import fast_median


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
