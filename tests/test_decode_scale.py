"""A photo decoded smaller is measured in its own pixels and reported at full size."""

import cv2
import numpy as np
import pytest

from scanner.decode_scale import work_to_full


@pytest.mark.parametrize("factor", [1, 2, 4, 8])
def test_a_decoded_pixel_maps_to_the_middle_of_the_full_pixels_it_averages(factor):
    # Decoded at 1/factor, pixel (i, j) averages full pixels factor*i .. factor*i+factor-1,
    # whose middle is factor*i + (factor-1)/2.
    work = np.array([[[0.0, 0.0]], [[3.0, 5.0]], [[10.0, 7.0]]])
    full = cv2.perspectiveTransform(work, work_to_full(1 / factor))
    assert np.allclose(full, factor * work + (factor - 1) / 2)


def test_a_scale_that_is_no_power_of_two_still_aligns_the_pixel_edges():
    # A PDF page rendered 1000 px wide for a full page 2550 px wide: the edges meet.
    to_full = work_to_full(1000 / 2550)
    edges = np.array([[[-0.5, -0.5]], [[999.5, 999.5]]])
    assert np.allclose(
        cv2.perspectiveTransform(edges, to_full), [[[-0.5, -0.5]], [[2549.5, 2549.5]]]
    )
