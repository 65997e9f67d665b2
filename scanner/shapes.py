"""The shapes a player outlined: one terrain per shape.

SHEET.md: each placed shape is usually outlined with a firmer line along its border,
then every cell is filled with the terrain's symbol; an explore or ambush card's shape
covers one to five spaces, all of one terrain. So where a player outlines, two drawn
cells with *no* firm line on the edge between them belong to one shape and hold one
terrain, whatever the model reads on each.

1. :func:`edge_lines` measures, on every inner edge of the grid, how firm a line runs
   along it: the ink darkness averaged along the edge (a line along it survives, strokes
   crossing it fade) at its darkest across the edge, taken where the line is weakest
   (a low percentile along the edge: the printed dashes leave gaps, an outline does not).
2. :func:`shape_vote` compares the sheet's edges: those between a drawn and an empty
   cell (a shape's border) against those between two empty cells (the printed line
   only). When the borders are clearly darker, the player outlines; drawn neighbours
   whose edge is as light as the printed line are joined, and each group of two to
   five cells takes the terrain its cells' summed log-probabilities favour. A player
   who does not outline leaves the reading as it is.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.cells import CROP_PX
from scanner.geometry import CANON_PX_PER_CELL, CELL_CROP_MARGIN, GRID_CELLS
from scanner.normalize import CLASSES
from scanner.softmax import softmax

N = GRID_CELLS
#: Pixels (canonical, 64 a cell) looked at across an edge on each side: a hand-drawn
#: outline wobbles and may sit a little inside its shape.
EDGE_HALF = 10
#: Pixels left out at each end of an edge (the crossing line's ink).
EDGE_END = 6
#: Pixels the darkness is averaged over along the edge.
EDGE_RUN = 19
#: The edge's line strength is this percentile of its length (a firm line runs along
#: nearly all of it).
EDGE_PERCENTILE = 20
#: The player outlines when shape borders (drawn | empty edges) are at least this much
#: darker, median against median, than the printed lines (empty | empty edges) ...
OUTLINED_GAP = 0.15
#: ... (with at least this many edges of each kind to compare) ...
MIN_EDGES = 8
#: ... and two drawn cells are one shape when their edge is less than this share of the
#: way from the printed lines' median to the borders' median.
SAME_SHAPE = 0.35
#: The largest shape a card draws (spaces).
MAX_SHAPE = 5
#: Probabilities are floored here before their logarithms are summed over a shape.
LOG_FLOOR = 1e-6

_EMPTY = CLASSES.index(".")
_EDGE_AT = CROP_PX - round(CELL_CROP_MARGIN * CANON_PX_PER_CELL)  # a crop's cell's far edge
_CELL_FROM = round(CELL_CROP_MARGIN * CANON_PX_PER_CELL)


def _grey(pixels: np.ndarray) -> np.ndarray:
    """uint8 grey levels of BGR pixels ``(..., 3)``."""
    flat = np.ascontiguousarray(pixels).reshape(1, -1, 3)  # one row: no per-row overhead
    return cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY).reshape(pixels.shape[:-1])


def _paper(*greys: np.ndarray) -> float:
    """The paper's grey: the 90th percentile of the pixels (every third), by histogram."""
    counts = np.cumsum(sum(np.bincount(g.ravel()[::3], minlength=256) for g in greys))
    return max(float(np.searchsorted(counts, 0.9 * counts[-1])), 1.0)


def _strength(bands: np.ndarray, paper: float) -> np.ndarray:
    """Line strength of grey bands ``(n, along, across)``: darkness against ``paper``
    averaged along the edge, at its darkest across it, at a low percentile along it.

    Darkness ``1 - grey / paper`` is linear in the grey level once the grey is capped
    at the paper's, so the averaging and the darkest pixel are taken on grey levels."""
    n, length, width = bands.shape
    # One image, a column per (across, edge) pair: one blur runs along every edge at once.
    columns = np.ascontiguousarray(bands.transpose(1, 2, 0)).reshape(length, width * n)
    capped = np.minimum(columns, np.uint8(min(round(paper), 255)))
    along = cv2.boxFilter(capped, cv2.CV_32F, (1, EDGE_RUN), borderType=cv2.BORDER_REFLECT_101)
    darkest = 1.0 - along.reshape(length, width, n).min(axis=1) / np.float32(paper)
    # The EDGE_PERCENTILE-th percentile along each edge (linear between two ranks).
    rank = EDGE_PERCENTILE / 100 * (length - 1)
    lo = int(rank)
    pair = np.partition(darkest, (lo, lo + 1), axis=0)[lo : lo + 2]
    return pair[0] + (rank - lo) * (pair[1] - pair[0])


def edge_lines(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How firm a line runs along each inner edge of the grid.

    ``crops``: the 121 cell crops of :func:`scanner.cells.cut_cells` (BGR). Returns
    ``(right, below)``: ``right[r, c]`` for the edge between cells (r, c) and (r, c+1),
    shape (11, 10); ``below[r, c]`` between (r, c) and (r+1, c), shape (10, 11). Both
    edges lie inside cell (r, c)'s crop, in its margin; darkness is measured against
    the paper's grey around the edges.
    """
    grid = crops.reshape(N, N, CROP_PX, CROP_PX, 3)
    span = slice(_CELL_FROM + EDGE_END, _EDGE_AT - EDGE_END)
    across = slice(_EDGE_AT - EDGE_HALF, _EDGE_AT + EDGE_HALF + 1)
    length, width = span.stop - span.start, across.stop - across.start
    right = _grey(grid[:, : N - 1, span, across]).reshape(-1, length, width)
    below = _grey(grid[: N - 1, :, across, span]).reshape(-1, width, length).transpose(0, 2, 1)
    strength = _strength(np.concatenate([right, below]), _paper(right, below))
    return strength[: len(right)].reshape(N, N - 1), strength[len(right) :].reshape(N - 1, N)


def outlined_shapes(
    drawn: np.ndarray, empty: np.ndarray, right: np.ndarray, below: np.ndarray
) -> np.ndarray | None:
    """Shape label per cell (121,): 1, 2, ... for drawn cells (joined cells share one),
    0 for the others; or None when the sheet shows no outlines.

    ``drawn`` and ``empty``: (11, 11) bool, the cells read as a terrain and those read
    as empty (printed cells are neither).
    """
    plain = np.concatenate([right[empty[:, :-1] & empty[:, 1:]], below[empty[:-1] & empty[1:]]])
    border = np.concatenate(
        [
            right[(drawn[:, :-1] & empty[:, 1:]) | (empty[:, :-1] & drawn[:, 1:])],
            below[(drawn[:-1] & empty[1:]) | (empty[:-1] & drawn[1:])],
        ]
    )
    if len(plain) < MIN_EDGES or len(border) < MIN_EDGES:
        return None
    printed, outline = float(np.median(plain)), float(np.median(border))
    if outline - printed < OUTLINED_GAP:
        return None
    below_line = printed + SAME_SHAPE * (outline - printed)
    # Cells on the even pixels of a (2N-1)^2 image, joins between them: 4-connected
    # components of the image are the shapes.
    image = np.zeros((2 * N - 1, 2 * N - 1), bool)
    image[::2, ::2] = drawn
    image[::2, 1::2] = drawn[:, :-1] & drawn[:, 1:] & (right < below_line)
    image[1::2, ::2] = drawn[:-1] & drawn[1:] & (below < below_line)
    _, labels = cv2.connectedComponents(image.view(np.uint8), connectivity=4)
    return labels[::2, ::2].ravel()


def shape_vote(
    probs: np.ndarray, edges: tuple[np.ndarray, np.ndarray], free: np.ndarray
) -> np.ndarray:
    """Each outlined shape's cells take the terrain its cells' log-probabilities favour.

    ``probs``: (121, len(CLASSES)); ``edges``: :func:`edge_lines`; ``free``: (121,) the
    cells the layout leaves free. A shape is a group of 2 to ``MAX_SHAPE`` drawn cells
    joined by edges with no outline; in a larger group an outline was missed and
    nothing changes. A cell gets ``p_i * prod_j p_j`` (over the shape's other cells,
    floored at ``LOG_FLOOR``), renormalised; the other cells of the sheet are unchanged.
    """
    drawn = (probs.argmax(axis=1) != _EMPTY) & free
    labels = outlined_shapes(drawn.reshape(N, N), (free & ~drawn).reshape(N, N), *edges)
    if labels is None:
        return probs
    sizes = np.bincount(labels)
    sizes[0] = 0  # not a shape: the cells nothing is drawn on
    logp = np.log(np.maximum(probs, LOG_FLOOR))
    out = probs.copy()
    for shape in np.flatnonzero((sizes >= 2) & (sizes <= MAX_SHAPE)):
        cells = np.flatnonzero(labels == shape)
        out[cells] = softmax(logp[cells].sum(axis=0))
    return out
