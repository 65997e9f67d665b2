"""Sheets printed at home in black and white (benchmarks and tests).

Players who run out of sheets print more, often on a black-and-white printer: the
print loses its colours (side A's orange lines, the gold coin band and compass rose,
the brown mountains turn grey) on white office paper, while the game is still drawn
in whatever the player holds. Inside :func:`grey_print`, ``models.synth`` renders its
blank template that way and draws and photographs the game on it as usual;
``models.synth`` itself is not changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import cv2
import numpy as np

#: Office paper's grey level in the print (before the photo's own light).
PAPER = 245.0


def to_grey_print(bgr: np.ndarray) -> np.ndarray:
    """A rendered blank template as a black-and-white print: grey, paper at ``PAPER``."""
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    paper = float(np.percentile(grey, 90))
    grey = np.clip(grey * (PAPER / max(paper, 1.0)), 0, 255).astype(np.uint8)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)


@contextmanager
def grey_print() -> Iterator[None]:
    """While inside, ``models.synth`` draws its games on black-and-white prints."""
    import models.synth.sheet as sheet

    original = sheet.render_template

    def render(*args, **kwargs):
        bgr, alpha, canvas, printing = original(*args, **kwargs)
        return to_grey_print(bgr), alpha, canvas, printing

    sheet.render_template = render
    try:
        yield
    finally:
        sheet.render_template = original
