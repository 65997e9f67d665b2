"""scanner.softmax: scipy.special.softmax's numbers without importing scipy."""

import numpy as np

from scanner.softmax import softmax


def test_rows_sum_to_one_in_the_order_of_their_values():
    probs = softmax(np.array([[0.0, np.log(3.0)], [2.0, 2.0]]), axis=1)
    assert np.allclose(probs, [[0.25, 0.75], [0.5, 0.5]])


def test_huge_values_do_not_overflow():
    probs = softmax(np.array([1000.0, 1000.0, -1000.0]))
    assert np.all(np.isfinite(probs)) and np.allclose(probs, [0.5, 0.5, 0.0])


def test_the_same_numbers_as_scipy_bit_for_bit():
    from scipy.special import softmax as scipys

    rng = np.random.default_rng(57)
    for shape, axis in (((121, 8), 1), ((5, 6), 0), ((7,), -1)):
        x = rng.normal(scale=6.0, size=shape)
        assert np.array_equal(softmax(x, axis=axis), scipys(x, axis=axis))


def test_the_photo_reader_does_not_import_scipy():
    import subprocess
    import sys

    code = (
        "import sys, scanner.pipeline, scanner.classify; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
