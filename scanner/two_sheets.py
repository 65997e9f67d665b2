"""Refuse photos that show two map sheets (which one would the score be for?).

Detection keeps the best grid; a second sheet beside it would silently be ignored.
When detection also saw a large candidate outside the chosen sheet's paper, the
sheet is painted out and detection runs again: a second good grid means two sheets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from scanner import geometry as g
from scanner.detect import find_grid
from scanner.errors import ScanError

if TYPE_CHECKING:
    from scanner.pipeline import Scan

MIN_AREA_SHARE = 0.3  # a candidate smaller than this share of the grid is not a sheet


class TwoSheets(ScanError):
    """The photo shows more than one map sheet."""


def page_outline(homography: np.ndarray) -> np.ndarray:
    """The sheet's paper outline (4 x 2 pixels) for a cell-units -> pixels homography."""
    p = g.page_box()
    corners = np.float32([[p.x0, p.y0], [p.x1, p.y0], [p.x1, p.y1], [p.x0, p.y1]])
    return cv2.perspectiveTransform(corners.reshape(-1, 1, 2), homography).reshape(-1, 2)


def _area(quad: np.ndarray) -> float:
    return float(abs(cv2.contourArea(np.float32(quad).reshape(-1, 1, 2))))


def suspicious_candidates(scan: Scan) -> list[np.ndarray]:
    """Detection candidates (work pixels) that lie outside the chosen sheet's paper."""
    h = scan.work_homography
    page = page_outline(h).astype(np.float32)
    grid = cv2.perspectiveTransform(g.GRID_CORNERS.reshape(-1, 1, 2), h).reshape(-1, 2)
    min_area = MIN_AREA_SHARE * _area(grid)
    out = []
    for _, quad, _ in scan.candidates:
        quad = np.asarray(quad, np.float32).reshape(-1, 2)
        cx, cy = quad.mean(axis=0)
        outside = cv2.pointPolygonTest(page.reshape(-1, 1, 2), (float(cx), float(cy)), False) < 0
        if outside and _area(quad) >= min_area:
            out.append(quad)
    return out


def check_one_sheet(scan: Scan) -> None:
    """Raise :class:`TwoSheets` when a second sheet's grid is found beside the chosen one."""
    if not suspicious_candidates(scan):
        return
    image = scan.work_image.copy()
    page = page_outline(scan.work_homography)
    fill = [int(v) for v in np.median(image.reshape(-1, 3), axis=0)]
    cv2.fillConvexPoly(image, np.round(page).astype(np.int32), fill)
    if find_grid(image).best is not None:
        raise TwoSheets(scan.source, "two map sheets in the photo; photograph one sheet at a time")
