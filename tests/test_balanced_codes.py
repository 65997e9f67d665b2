"""scanner.normalize.balanced_codes: the white balance and the 8-bit codes in one lookup."""

import numpy as np

from scanner.normalize import balanced_codes, ink_codes, paper_colour, to_codes, white_balance


def test_balanced_codes_equal_balancing_then_coding():
    rng = np.random.default_rng(5)
    small = rng.integers(0, 256, (121, 48, 48, 3), dtype=np.uint8)
    small[:, 10:30] = (150, 190, 220)  # paper under a warm lamp
    paper = paper_colour(small)
    codes = ink_codes(0.0078, 128)
    expected = to_codes(white_balance(small, paper), codes)
    np.testing.assert_array_equal(balanced_codes(small, paper, codes), expected)
