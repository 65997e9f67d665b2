"""Stand-ins shared by test modules: a fixed cell reading in place of the model, and a
photo of the blank printed sheet."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from scanner.normalize import CLASSES


def prob_row(**by_class: float) -> np.ndarray:
    """One cell's class probabilities by text-map symbol (``E`` for empty), the rest 0."""
    row = np.zeros(len(CLASSES))
    for key, value in by_class.items():
        row[CLASSES.index("." if key == "E" else key)] = value
    return row


class FixedReader:
    """Stands in for ``scanner.cell_model.CellReader``: returns the class attribute ``probs``
    as the model's probabilities (set it per test), and no features."""

    probs: np.ndarray

    def __init__(self, crops, layout, model, threads) -> None:
        pass

    def read(self, mirror: bool = False):
        return self.probs, None

    def mirrored(self, cells):
        return self.probs[cells], None


def blank_print_file(side: str, path: Path) -> Path:
    """Write the rendered blank sheet of ``side`` (nothing drawn, no coin marked) on a
    plain background, as a scan of an unplayed sheet, to ``path``."""
    from models.synth.template import render_template

    page, alpha, _, _ = render_template(side, 60.0, np.random.default_rng(5))
    a = alpha[..., None].astype(np.float32) / 255
    scan = (page * a + np.full_like(page, (90, 110, 130)) * (1 - a)).astype(np.uint8)
    cv2.imwrite(str(path), scan)
    return path
