"""Debug pictures: what the scanner found (or tried) on a photo.

:func:`draw_scan` draws, on the working-resolution photo, the candidate quads
that were tried (thin grey), the fitted grid frame (green), the refined
intersections (red dots), an arrow to the sheet's top with the A1 corner
marked, and a caption with side, orientation, fit and the coin reading.
:func:`draw_attempts` draws the tried candidates when no sheet was found.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from scanner.errors import SheetNotFound
from scanner.sheet import shown

if TYPE_CHECKING:
    from scanner.pipeline import Scan

_GREEN, _RED, _GREY, _YELLOW, _BLUE = (
    (60, 200, 60),
    (40, 40, 230),
    (150, 150, 150),
    (0, 220, 255),
    (230, 120, 30),
)


def draw_scan(scan: Scan) -> np.ndarray:
    """BGR picture of a :class:`scanner.pipeline.Scan` (working resolution)."""
    image = scan.work_image.copy()
    scale = max(image.shape[:2]) / 1000.0
    thick = max(1, int(round(2 * scale)))
    _draw_candidates(image, scan.candidates, max(1, thick // 2))
    lattice = scan.debug["lattice_work"]
    n = lattice.shape[0] - 1
    frame = np.concatenate([lattice[0, :], lattice[:, n], lattice[n, ::-1], lattice[::-1, 0]])
    cv2.polylines(image, [np.round(frame).astype(np.int32)], True, _GREEN, thick, cv2.LINE_AA)
    for point in lattice.reshape(-1, 2):
        cv2.circle(image, _pt(point), max(2, thick + 1), _RED, -1, cv2.LINE_AA)
    # Orientation: an arrow from the grid's centre towards its top edge; A1 marked.
    centre = lattice[n // 2, n // 2]
    top = (lattice[0, n // 2] + lattice[0, n // 2 + 1]) / 2
    cv2.arrowedLine(image, _pt(centre), _pt(top), _YELLOW, thick + 1, cv2.LINE_AA, tipLength=0.08)
    a1 = (lattice[0, 0] + lattice[1, 1]) / 2
    _text(image, "A1", a1, 0.6 * scale, _BLUE)
    # Coins: circles on the located coins, filled for the ones read as marked.
    for i, (x, y) in enumerate(scan.coin_centres):
        p = cv2.perspectiveTransform(np.float64([[[x, y]]]), scan.work_homography).reshape(2)
        cv2.circle(image, _pt(p), max(3, int(4 * scale)), _RED if i < scan.coins else _GREEN, thick)
    caption = (
        f"side {scan.side} ({shown(scan.side_confidence)})  turned {scan.orientation} deg "
        f"({shown(scan.orientation_confidence)})  fit {scan.fit:.2f}  coins {scan.coins} "
        f"({shown(scan.coin_confidence)})"
    )
    _caption(image, caption, scale)
    return image


def draw_attempts(error: SheetNotFound) -> np.ndarray | None:
    """The photo with every candidate detection tried, when no sheet was found."""
    tried = error.tried if isinstance(error.tried, dict) else None
    if not tried or "image" not in tried:
        return None
    image = tried["image"].copy()
    scale = max(image.shape[:2]) / 1000.0
    _draw_candidates(image, tried.get("candidates", ()), max(1, int(round(scale))), label=True)
    _caption(image, f"no sheet found: {len(tried.get('candidates', ()))} candidates tried", scale)
    return image


def _draw_candidates(image: np.ndarray, candidates, thick: int, label: bool = False) -> None:
    for name, quad, score in candidates:
        pts = np.round(np.asarray(quad)).astype(np.int32)
        cv2.polylines(image, [pts], True, _GREY, thick, cv2.LINE_AA)
        if label:
            _text(image, f"{name} {score:.2f}", pts[0], 0.4, _GREY)


def _caption(image: np.ndarray, text: str, scale: float) -> None:
    size = 0.5 * max(scale, 0.6)
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, size, 1)
    cv2.rectangle(image, (0, 0), (w + 10, h + base + 10), (0, 0, 0), -1)
    cv2.putText(
        image, text, (5, h + 5), cv2.FONT_HERSHEY_SIMPLEX, size, (255, 255, 255), 1, cv2.LINE_AA
    )


def _text(image: np.ndarray, text: str, at, size: float, colour) -> None:
    cv2.putText(image, text, _pt(at), cv2.FONT_HERSHEY_SIMPLEX, size, colour, 1, cv2.LINE_AA)


def _pt(p) -> tuple[int, int]:
    return int(round(float(p[0]))), int(round(float(p[1])))
