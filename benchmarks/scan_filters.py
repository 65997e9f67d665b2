"""What scanner apps and a scanner's grey mode do to a photo of a sheet (benchmarks only).

Users send what their phone's document-scanner app or an office scanner made of the
sheet, not always the camera's own colour photo:

- ``grey``: a greyscale scan or a phone's monochrome filter (one channel, as BGR);
- ``bw``: a "black and white" document filter, a threshold that adapts to the local
  paper tone (ink black, paper white, nothing in between);
- ``document``: a "document"/"magic colour" filter, the paper's uneven light divided out
  so it turns white, contrast stretched and colours boosted.

Each takes and returns a BGR uint8 image of the same size; the grid stays where it was.
"""

from __future__ import annotations

import cv2
import numpy as np

FILTERS = ("grey", "bw", "document")


def _paper_light(image: np.ndarray) -> np.ndarray:
    """The paper's light at each pixel (ink closed over, then smoothed), float32."""
    closed = cv2.dilate(image, np.ones((15, 15), np.uint8))
    return np.maximum(cv2.GaussianBlur(closed, (0, 0), 25).astype(np.float32), 1.0)


def grey(image: np.ndarray) -> np.ndarray:
    """A plain conversion to grey, kept as three equal channels."""
    return cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def bw(image: np.ndarray) -> np.ndarray:
    """An adaptive threshold of the grey image (block 31 px, offset 12 levels)."""
    g = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    t = cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, 31, 12)
    return cv2.cvtColor(t, cv2.COLOR_GRAY2BGR)


def document(image: np.ndarray) -> np.ndarray:
    """Paper whitened (divided by its own light), levels stretched from 40, saturation x1.6."""
    flat = image.astype(np.float32) / _paper_light(image) * 255
    stretched = np.clip((flat - 40) * 255 / 215, 0, 255).astype(np.uint8)
    hsv = cv2.cvtColor(stretched, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] = np.clip(hsv[..., 1] * 1.6, 0, 255)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)


def apply(name: str, image: np.ndarray) -> np.ndarray:
    """The filter called ``name`` (one of :data:`FILTERS`) applied to ``image``."""
    if name not in FILTERS:
        raise ValueError(f"filter must be one of {FILTERS}, not {name!r}")
    return {"grey": grey, "bw": bw, "document": document}[name](image)
