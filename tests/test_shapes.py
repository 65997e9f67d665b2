"""Outlined shapes (scanner/shapes.py) on canonical views drawn here with OpenCV.

SHEET.md: "Each placed shape is usually outlined with a firmer line along its border,
then every cell is filled with the terrain's symbol" -- and a shape holds one terrain.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner.cells import cut_cells
from scanner.classify import classify_cells
from scanner.geometry import canonical_size, to_canonical_px
from scanner.normalize import CLASSES
from scanner.review import DECIDED_BY_SHAPE
from scanner.shapes import edge_lines, outlined_shapes, shape_vote
from scoring.layouts import LAYOUTS

N = 11
PAPER, PRINTED, PEN = 225, 185, 60
# Two shapes side by side, in rows C-D (2-3) of the map: an L of three cells and a
# domino just right of it; and a square of four on row H.
L_SHAPE = [(2, 2), (2, 3), (3, 2)]
DOMINO = [(2, 4), (3, 4)]
SQUARE = [(7, 6), (7, 7), (8, 6), (8, 7)]


def _pt(x: float, y: float) -> tuple[int, int]:
    px, py = to_canonical_px(x, y)
    return int(round(px)), int(round(py))


def _view(shapes: list[list[tuple[int, int]]], outline: bool, seed: int = 0) -> np.ndarray:
    """A canonical view: paper, the printed dashed grid, hatching in every drawn cell
    (crossing into its neighbours a little) and, with ``outline``, a firm wobbly line
    along each shape's border."""
    rng = np.random.default_rng(seed)
    width, height = canonical_size()
    img = np.full((height, width, 3), PAPER, np.uint8)
    for k in range(N + 1):  # dashes of a fifth of a cell
        for s in np.arange(0, N, 0.4):
            cv2.line(img, _pt(k, s), _pt(k, s + 0.2), (PRINTED,) * 3, 1)
            cv2.line(img, _pt(s, k), _pt(s + 0.2, k), (PRINTED,) * 3, 1)
    for shape in shapes:
        cells = set(shape)
        for r, c in cells:
            for t in np.linspace(-0.05, 0.85, 7):  # slanted hatching strokes
                a = (c + t, r + 0.95 + rng.normal(0, 0.03))
                b = (c + t + 0.3, r + 0.05 + rng.normal(0, 0.03))
                cv2.line(img, _pt(*a), _pt(*b), (150, 170, 120), 2)
        if not outline:
            continue
        for r, c in cells:
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if (r + dr, c + dc) in cells:
                    continue
                if dr:
                    y = r + (dr > 0)
                    ends = [(c - 0.02, y), (c + 1.02, y)]
                else:
                    x = c + (dc > 0)
                    ends = [(x, r - 0.02), (x, r + 1.02)]
                s = np.linspace(0, 1, 8)[:, None]
                pts = np.array(ends[0]) + s * (np.array(ends[1]) - np.array(ends[0]))
                pts += rng.normal(0, 0.02, pts.shape)
                poly = np.array([_pt(*p) for p in pts], np.int32)
                cv2.polylines(img, [poly], False, (PEN,) * 3, 3)
    return img


def _probs(reading: dict[tuple[int, int], dict[str, float]]) -> np.ndarray:
    """Probabilities over CLASSES: empty everywhere except the cells given."""
    p = np.zeros((N * N, len(CLASSES)))
    p[:, CLASSES.index(".")] = 1.0
    for (r, c), classes in reading.items():
        p[r * N + c] = 0.0
        for sym, v in classes.items():
            p[r * N + c, CLASSES.index(sym)] = v
    return p


FREE = np.ones(N * N, bool)  # the drawn test cells avoid side A's printed spaces


def test_an_outline_is_a_firm_line_and_a_shapes_inside_edges_are_not():
    right, below = edge_lines(cut_cells(_view([L_SHAPE, DOMINO, SQUARE], outline=True)))
    inside = [right[2, 2], below[2, 2], right[7, 6], below[7, 6], below[7, 7], right[8, 6]]
    between = right[2, 3]  # the L's right side against the domino's left
    borders = [below[2, 3], right[3, 2], right[2, 1], below[1, 2], right[7, 7], below[8, 6]]
    printed = [right[0, 0], below[5, 5], right[10, 8], below[9, 0]]
    assert min(borders + [between]) > 2 * max(inside)
    # Hatching across an edge darkens it, but it stays nearer the printed lines' level.
    assert max(inside) - max(printed) < min(borders + [between]) - max(inside)


def test_a_shape_whose_cells_disagree_takes_the_terrain_its_cells_favour():
    edges = edge_lines(cut_cells(_view([L_SHAPE, DOMINO, SQUARE], outline=True)))
    reading = {
        (2, 2): {"F": 0.999, "W": 0.001},
        (2, 3): {"W": 0.7, "F": 0.3},  # the L's odd one out
        (3, 2): {"F": 0.98, "W": 0.02},
        (2, 4): {"W": 0.999, "F": 0.001},  # the domino: water, outlined apart
        (3, 4): {"W": 0.97, "F": 0.03},
        **{cell: {"V": 0.999, "T": 0.001} for cell in SQUARE},
    }
    out = shape_vote(_probs(reading), edges, FREE).argmax(axis=1)
    read = {cell: CLASSES[out[cell[0] * N + cell[1]]] for cell in reading}
    assert all(read[cell] == "F" for cell in L_SHAPE)
    assert all(read[cell] == "W" for cell in DOMINO)
    assert all(read[cell] == "V" for cell in SQUARE)


def test_a_player_who_does_not_outline_keeps_the_models_reading():
    edges = edge_lines(cut_cells(_view([L_SHAPE, DOMINO, SQUARE], outline=False)))
    reading = {
        (2, 2): {"F": 0.999, "W": 0.001},
        (2, 3): {"W": 0.7, "F": 0.3},
        (3, 2): {"F": 0.98, "W": 0.02},
        **{cell: {"W": 0.99, "F": 0.01} for cell in DOMINO},
        **{cell: {"V": 0.999, "T": 0.001} for cell in SQUARE},
    }
    probs = _probs(reading)
    assert np.array_equal(shape_vote(probs, edges, FREE), probs)


def test_a_group_larger_than_any_card_shape_is_left_alone():
    # Six cells with no outline between them: an outline was missed somewhere.
    drawn = np.zeros((N, N), bool)
    drawn[5, 2:8] = True
    empty = ~drawn
    right = np.full((N, N - 1), 0.1)
    below = np.full((N - 1, N), 0.1)
    right[5, 1] = right[5, 7] = 0.8
    below[4, 2:8] = below[5, 2:8] = 0.8  # every border of the row outlined
    labels = outlined_shapes(drawn, empty, right, below)
    assert labels is not None and np.sum(labels == labels[5 * N + 2]) == 6
    reading = {(5, c): {"F": 0.9, "W": 0.1} for c in range(2, 8)}
    reading[(5, 7)] = {"W": 0.99, "F": 0.01}
    probs = _probs(reading)
    assert np.array_equal(shape_vote(probs, (right, below), FREE), probs)


@pytest.mark.parametrize("outline", [True, False])
def test_classify_lists_a_cell_its_shape_decided(monkeypatch, outline):
    from scanner import cell_model

    view = _view([L_SHAPE, DOMINO, SQUARE], outline=outline)
    reading = {
        (2, 2): {"F": 0.999, "W": 0.001},
        (2, 3): {"W": 0.9999, "F": 0.0001},  # surely water, in a shape of farms
        (3, 2): {"F": 0.999, "W": 0.001},
        **{cell: {"W": 0.999, "F": 0.001} for cell in DOMINO},
        **{cell: {"V": 0.999, "T": 0.001} for cell in SQUARE},
    }

    class Reader:  # the model's reading, given
        def __init__(self, *args, **kwargs):
            pass

        def read(self, mirror=False):
            return _probs(reading), None

        def mirrored(self, cells):
            return _probs(reading)[cells], None

    monkeypatch.setattr(cell_model, "CellReader", Reader)
    result = classify_cells(cut_cells(view), LAYOUTS["A"], covered=False)
    reasons = {r.space: r.reason for r in result.review}
    if outline:
        assert result.grid[2][3] == "F" and reasons.get("C4") == DECIDED_BY_SHAPE
    else:
        assert result.grid[2][3] == "W" and "C4" not in reasons
