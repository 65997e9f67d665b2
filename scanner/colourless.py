"""Whether a photo carries colour at all: a greyscale scan, or a phone's black-and-white filter.

Players who draw with coloured pencils tell their terrains apart by colour first (SHEET.md:
forest green, village red, farm yellow, water blue); a hatch-only fill has no other cue.
On a photo without colour those fills cannot be told apart, by the model or by a person,
so the report says so rather than let a confident-looking map stand unexplained.

The printed sheet always shows colour in a colour photo: its gold coins, the dark-brown
mountains, side A's orange dashes. So does the paper's own tint against the ink.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Below this spread of colour (Lab a*b* units, see :func:`colour_spread`) a photo is
#: taken as colourless. Grey files measure 0 (JPEG or PNG alike, at any quality); colour
#: photos of our games drawn into the publisher's print 23-55; our games on a
#: black-and-white home print, scanned flat in colour in graphite or ballpoint, 3.2 and more.
COLOURLESS_BELOW = 1.5

#: Only every STEP-th pixel of each row and column is looked at (the measure is a
#: high percentile over the whole view; one pixel in 144 keeps it to about a third of a ms).
STEP = 12


def colour_spread(image: np.ndarray) -> float:
    """How far the image's colours stray from its commonest tint: the 99th percentile, over
    pixels, of the distance in the CIELAB a*b* plane from the median a*b*.

    An even tint over everything (a scanner's warm grey, the same offset on every pixel)
    is no colour: it tells no drawn terrain from another and measures about 0, like plain
    grey. A sepia filter, whose tint grows with brightness, measures as colour (about 9).
    """
    if image.ndim == 2 or image.shape[2] == 1:
        return 0.0
    sample = np.ascontiguousarray(image[::STEP, ::STEP, :3])
    lab = cv2.cvtColor(sample, cv2.COLOR_BGR2LAB).reshape(-1, 3)[:, 1:].astype(np.float32)
    if not len(lab):
        return 0.0
    offset = lab - np.median(lab, axis=0)
    return float(np.percentile(np.hypot(offset[:, 0], offset[:, 1]), 99))
