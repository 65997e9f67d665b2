"""What the photo's edge cuts off: coin strips and map spaces partly outside the image.

Beyond the edge the canonical view repeats the edge's pixels, so what is read there is
no reading at all. A photo cutting off the last one and a half columns of our game on
the real print read 13 of their 22 spaces wrong and said nothing of it (cut through the
middle of the last column, 1 of its 11): such spaces are listed for review as
:data:`OUTSIDE`, and the report names them.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.normalize import CLASSES
from scanner.sheet import Review, spans
from scoring.layouts import ROW_LETTERS, SIZE, parse_space, space_name

#: How far from a cell's centre, along each axis (cells), the photo must still show it.
CELL_MIDDLE = 0.25

#: The review reason of a space the photo's edge cuts off (:func:`cells_outside`).
OUTSIDE = "outside the photo"


def in_photo(
    homography: np.ndarray, shape: tuple[int, ...], centres: np.ndarray, half: float
) -> np.ndarray:
    """(K,) bool: whether the square ``half`` cells either way round each of ``centres``
    (K x 2, upright cell units; ``half`` 0: the point itself) lies whole in an image of
    ``shape``. ``homography``: upright cell units -> image pixels."""
    square = half * np.float64([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    corners = (np.asarray(centres, np.float64)[:, None, :] + square).reshape(-1, 1, 2)
    pts = cv2.perspectiveTransform(corners, homography).reshape(len(centres), 4, 2)
    height, width = shape[:2]
    return np.all((pts >= 0) & (pts <= (width - 1, height - 1)), axis=(1, 2))


def cells_outside(homography: np.ndarray, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The cells (row-major indices) whose middle half the photo's edge cuts: a corner of
    the square ``CELL_MIDDLE`` cell round their centre lies outside the image."""
    n = SIZE
    centres = np.stack(np.meshgrid(np.arange(n) + 0.5, np.arange(n) + 0.5), -1).reshape(-1, 2)
    inside = in_photo(homography, shape, centres, CELL_MIDDLE)
    return tuple(int(i) for i in np.flatnonzero(~inside))


def describe_spaces(cells: tuple[int, ...]) -> str:
    """Row-major cell indices in words: whole columns and rows by number and letter
    ("columns 10-11", "row A"), the other spaces by name (the first four)."""
    chosen = set(cells)
    columns = [c for c in range(SIZE) if all(r * SIZE + c in chosen for r in range(SIZE))]
    rows = [r for r in range(SIZE) if all(r * SIZE + c in chosen for c in range(SIZE))]
    rest = [i for i in cells if i % SIZE not in columns and i // SIZE not in rows]

    def lines(kind: str, picked: list[int], label) -> list[str]:
        """Runs of consecutive picked lines: "column 11", "columns 1-2"."""
        return [f"{kind}{'s' if '-' in run else ''} {run}" for run in spans(picked, label)]

    parts = lines("column", columns, lambda c: str(c + 1))
    parts += lines("row", rows, lambda r: ROW_LETTERS[r])
    names = [space_name(divmod(i, SIZE)) for i in rest]
    parts += names[:4] + (["..."] if len(names) > 4 else [])
    return ", ".join(parts)


def outside_review(
    review: tuple[Review, ...], probabilities: np.ndarray, cut: list[int]
) -> tuple[Review, ...]:
    """``review`` with each cut-off space (row-major indices) listed as :data:`OUTSIDE`,
    keeping its candidates when already listed, else its top two ``probabilities``."""
    listed = {r.space: r for r in review}
    for i in cut:
        space = space_name(divmod(i, SIZE))
        if space in listed:
            candidates = listed[space].candidates
        else:
            top = np.argsort(-probabilities[i])[:2]
            candidates = {CLASSES[k]: round(float(probabilities[i, k]), 3) for k in top}
        listed[space] = Review(space, OUTSIDE, candidates)
    return tuple(sorted(listed.values(), key=lambda r: parse_space(r.space)))
