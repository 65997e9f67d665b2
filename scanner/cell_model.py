"""The cell model: its onnxruntime session and inputs, and its reading of one sheet.

The session is built once per process and per thread count. :class:`CellReader` holds
one sheet's model inputs and reads all its cells, or some of them mirrored
left-right; what is done with the probabilities is :mod:`scanner.classify`'s.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from scanner.normalize import (
    CODES_SCALE_KEY,
    CODES_ZERO_POINT_KEY,
    FEATURES_OUTPUT,
    IMAGE_INPUT,
    INPUT_PX,
    RUINS_INPUT,
    ink_codes,
    model_inputs,
)
from scanner.onnx_session import cached_session
from scanner.softmax import softmax
from scoring.layouts import Layout

#: The committed model the scanner runs: the 8-bit copy of the trained ``models/cells.onnx``
#: (:mod:`models.quantize`; the same readings at about half the model time).
MODEL_PATH = Path(__file__).resolve().parent.parent / "models" / "cells.int8.onnx"

_threads = 1


def set_threads(n: int) -> None:
    """Threads onnxruntime may use per call (1 by default; 0 lets onnxruntime choose)."""
    global _threads
    if n < 0:
        raise ValueError(f"threads must be >= 0, got {n}")
    _threads = n


def model_session(model: Path | None = None, threads: int | None = None):
    """The onnxruntime session :func:`scanner.classify.classify_cells` reads with (built
    once per process)."""
    path = Path(model) if model else MODEL_PATH
    return cached_session(path, _threads if threads is None else threads, "cell model")


def predict_probabilities(
    crops: np.ndarray,
    layout: Layout,
    model: Path | None = None,
    threads: int | None = None,
    mirror: bool = False,
) -> np.ndarray:
    """The model's class probabilities ``(121, len(CLASSES))`` for one sheet's crops.

    With ``mirror`` the batch also holds every cell mirrored left-right (the model
    was trained on both) and the two readings are averaged: about a tenth fewer
    errors on validation photos, at twice the model time.
    """
    reader = CellReader(crops, layout, model, threads)
    return reader.read(mirror)[0]


def input_px(sess) -> int:
    """Side of the square image a model session reads (its ``image`` input, channels
    first or, 8-bit codes, last: axis 2 is the width either way)."""
    for arg in sess.get_inputs():
        if arg.name == IMAGE_INPUT and isinstance(arg.shape[2], int):
            return arg.shape[2]
    return INPUT_PX


def image_codes(sess) -> np.ndarray | None:
    """The 8-bit codes table (:func:`scanner.normalize.ink_codes`) of a model session whose
    image input is codes (``models.quantize.code_input``), or None: it reads ink amounts.
    (About 10 microseconds: made afresh for each sheet.)"""
    meta = sess.get_modelmeta().custom_metadata_map
    if CODES_SCALE_KEY not in meta:
        return None
    return ink_codes(float(meta[CODES_SCALE_KEY]), int(meta[CODES_ZERO_POINT_KEY]))


def session_inputs(sess, crops: np.ndarray, layout: Layout) -> dict[str, np.ndarray]:
    """:func:`scanner.normalize.model_inputs` as the model of ``sess`` reads them (its
    input size, ink amounts or 8-bit codes)."""
    return model_inputs(crops, layout, input_px(sess), image_codes(sess))


def _mirrored(image: np.ndarray) -> np.ndarray:
    """Cells mirrored left-right, a new C-contiguous array: 8-bit codes are channels last,
    ink amounts first. All the cells' pixel rows are flipped as one image by cv2.flip (a
    numpy copy of the reversed view walks 3-byte pixels one by one, about 20 times slower)."""
    if image.dtype == np.uint8:  # (n, H, W, C): n * H rows of W pixels
        rows = image.reshape(-1, *image.shape[2:])
    else:  # (n, C, H, W): n * C * H rows of W values
        rows = image.reshape(-1, image.shape[-1])
    return cv2.flip(rows, 1).reshape(image.shape)


def model_input_px(model: Path) -> int:
    """:func:`input_px` of an ONNX model file (its session is built once per process)."""
    return input_px(model_session(model))


class CellReader:
    """One sheet's model inputs and session: reads all cells, or some of them mirrored."""

    def __init__(
        self, crops: np.ndarray, layout: Layout, model: Path | None, threads: int | None
    ) -> None:
        self.sess = model_session(model, threads)
        self.feed = session_inputs(self.sess, crops, layout)
        names = [o.name for o in self.sess.get_outputs()]
        self.wanted = ["logits"] + ([FEATURES_OUTPUT] if FEATURES_OUTPUT in names else [])

    def _run(self, image: np.ndarray, ruins: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        outputs = self.sess.run(self.wanted, {IMAGE_INPUT: image, RUINS_INPUT: ruins})
        probs = softmax(outputs[0].astype(np.float64), axis=1)
        return probs, outputs[1].astype(np.float64) if len(outputs) > 1 else None

    def read(self, mirror: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """All cells; with ``mirror`` also mirrored left-right, the two averaged."""
        image, ruins = self.feed[IMAGE_INPUT], self.feed[RUINS_INPUT]
        if not mirror:
            return self._run(image, ruins)
        probs, features = self._run(
            np.concatenate([image, _mirrored(image)]), np.concatenate([ruins, ruins])
        )
        n = len(image)
        probs = (probs[:n] + probs[n:]) / 2
        return probs, None if features is None else (features[:n] + features[n:]) / 2

    def mirrored(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The given cells (indices) read mirrored left-right."""
        image = _mirrored(self.feed[IMAGE_INPUT][cells])
        return self._run(image, self.feed[RUINS_INPUT][cells])
