"""A tiny stand-in sheet for scanner unit tests: frame, dashed lines, mountains, coins.

Deliberately plain (no texture, no drawings); realistic photos come from
``models.synth``. Drawn at ``px`` pixels per cell from scanner.geometry, then
put on a table and seen through a homography.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner import geometry as g
from scoring.layouts import LAYOUTS


def draw_sheet(side: str = "A", coins: int = 0, px: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """The flat page (BGR) and the 3x3 homography cell units -> page pixels."""
    page = g.page_box()
    w, h = round((page.x1 - page.x0) * px), round((page.y1 - page.y0) * px)
    img = np.full((h, w, 3), (205, 228, 238), np.uint8)  # beige paper
    to_px = np.array([[px, 0, -page.x0 * px], [0, px, -page.y0 * px], [0, 0, 1]], float)

    def p(x: float, y: float) -> tuple[int, int]:
        return round((x - page.x0) * px), round((y - page.y0) * px)

    line = (60, 150, 235) if side == "A" else (140, 140, 140)
    for k in range(1, 11):
        for s in np.arange(0, 11, 0.25):
            cv2.line(img, p(k, s), p(k, s + 0.14), line, max(1, px // 30))
            cv2.line(img, p(s, k), p(s + 0.14, k), line, max(1, px // 30))
    layout = LAYOUTS[side]
    for r, c in layout.mountains:
        cv2.rectangle(img, p(c, r), p(c + 1, r + 1), (25, 35, 70), -1)
        cv2.circle(img, p(c + 0.5, r + 0.6), px // 6, (40, 190, 230), -1)
    for r, c in layout.wasteland:
        cv2.rectangle(img, p(c + 0.1, r + 0.1), p(c + 0.9, r + 0.9), (130, 130, 130), -1)
    fw = g.FRAME_WIDTH
    cv2.rectangle(
        img, p(-fw / 2, -fw / 2), p(11 + fw / 2, 11 + fw / 2), (20, 20, 20), round(fw * px)
    )
    # Row letters left of the grid, column numbers below it.
    size = px / 70
    for i in range(11):
        x, y = p(g.ROW_LABEL_X - 0.15, i + 0.65)
        cv2.putText(img, "ABCDEFGHIJK"[i], (x, y), cv2.FONT_HERSHEY_SIMPLEX, size, line, 2)
        x, y = p(i + 0.35 - 0.12 * (i >= 9), g.COLUMN_LABEL_Y + 0.15)
        cv2.putText(img, str(i + 1), (x, y), cv2.FONT_HERSHEY_SIMPLEX, size, line, 2)
    bx0, by0, bx1, by1 = g.COIN_BAND
    cv2.rectangle(img, p(bx0, by0), p(bx1, by1), (60, 170, 220), -1)
    for i in range(g.COIN_COUNT):
        x, y = g.coin_center(i)
        cv2.circle(img, p(x, y), round(g.COIN_RADIUS * px), (30, 200, 240), -1)
        cv2.circle(img, p(x, y), round(g.COIN_RADIUS * px), (20, 90, 120), 1)
        if i < coins:
            r = g.COIN_RADIUS
            cv2.line(img, p(x - r, y - r), p(x + r, y + r), (30, 30, 30), max(2, px // 15))
            cv2.line(img, p(x - r, y + r), p(x + r, y - r), (30, 30, 30), max(2, px // 15))
    return img, to_px


def photograph(
    page: np.ndarray, to_px: np.ndarray, corners: np.ndarray, size=(1000, 750), seed=0
) -> tuple[np.ndarray, np.ndarray]:
    """Put the page on a brown table so its page corners land on ``corners`` (TL, TR, BR, BL).

    Returns the photo and the 12x12x2 truth lattice of grid intersections in photo pixels.
    """
    h, w = page.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    warp = cv2.getPerspectiveTransform(src, np.float32(corners))
    rng = np.random.default_rng(seed)
    table = np.empty((size[1], size[0], 3), np.uint8)
    table[:] = (40, 80, 120)
    table = cv2.add(table, rng.integers(0, 30, table.shape, dtype=np.uint8))
    photo = cv2.warpPerspective(
        page, warp, size, dst=table, borderMode=cv2.BORDER_TRANSPARENT, flags=cv2.INTER_AREA
    )
    grid = np.stack(np.meshgrid(np.arange(12.0), np.arange(12.0)), -1).reshape(-1, 1, 2)
    lattice = cv2.perspectiveTransform(grid, warp @ to_px).reshape(12, 12, 2)
    return photo, lattice
