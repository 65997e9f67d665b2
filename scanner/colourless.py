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


def warm_colour_tables() -> None:
    """Have OpenCV build the tables of its 8-bit CIELAB conversion now: it builds them on
    the first such conversion in a process (:func:`colour_spread`'s), which took 89 ms on
    this project's machine, and a one-photo ``score`` can build them in a spare thread
    while the photo decodes."""
    cv2.cvtColor(np.zeros((1, 1, 3), np.uint8), cv2.COLOR_BGR2LAB)


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


#: A colourless view looks thresholded (a scanner app's black-and-white mode) when at least
#: this share of its sampled pixels is near black or near white (grey files of our games
#: drawn into the publisher's print: under 1 %; thresholded: 89-93 %) ...
THRESHOLDED_EXTREMES = 0.8
#: ... and at most this share of its darker pixels (under 200) is a mid grey (40-200):
#: a thresholded view's ink is black but for its edges (26-37 %), pencil on grey paper's
#: is all mid grey (94 %).
THRESHOLDED_MID_INK = 0.5


def looks_thresholded(image: np.ndarray) -> bool:
    """Whether a colourless view is black and white only: ink black, paper white.

    On such a view the threshold leaves specks of the paper's grain, which the cell model,
    trained on pencil's greys, reads as a farm's strokes in an empty cell.
    """
    sample = np.ascontiguousarray(image[::STEP, ::STEP])
    grey = sample if sample.ndim == 2 else cv2.cvtColor(sample[..., :3], cv2.COLOR_BGR2GRAY)
    if not grey.size:
        return False
    extremes = np.mean((grey <= 20) | (grey >= 235))
    darker = grey < 200
    mid = np.count_nonzero(darker & (grey > 40)) / max(np.count_nonzero(darker), 1)
    return bool(extremes >= THRESHOLDED_EXTREMES and mid <= THRESHOLDED_MID_INK)


#: Ink specks of at most this many view pixels (8-connected, 0.2 % of a cell) are cleared
#: from a thresholded view: the threshold's grain of the paper, not a stroke or a dot.
SPECK_PX = 8


def cells_view(view: np.ndarray, colour: float) -> np.ndarray:
    """The view the cells are cut from: ``view`` itself, or, when it is colourless
    (``colour``: its :func:`colour_spread`) and :func:`looks_thresholded`, a copy with its
    ink specks of at most :data:`SPECK_PX` pixels made white (on our games drawn into the
    publisher's print, thresholded: misread cells 630 -> 517 on 20 sheets, empty cells
    read as farms 185 -> 71; a median filter cleared as many specks but also thin strokes)."""
    if colour >= COLOURLESS_BELOW or not looks_thresholded(view):
        return view
    grey = view if view.ndim == 2 else cv2.cvtColor(view[..., :3], cv2.COLOR_BGR2GRAY)
    ink = (grey < 128).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    speck = stats[:, cv2.CC_STAT_AREA] <= SPECK_PX
    speck[0] = False  # the background
    out = view.copy()
    out[speck[labels]] = 255
    return out
