"""benchmarks/fit_gap.py: the sheets it reads and the misreadings it names."""

import numpy as np

from benchmarks.fit_gap import commonest_misreadings, every_kth_sheet
from models.cell_data import CellSet
from scanner.normalize import CLASSES

CELLS = 121


def _set(n_sheets: int) -> CellSet:
    """A hand-made set whose every cell says which sheet it is from (label and pixels)."""
    sheet = np.repeat(np.arange(n_sheets, dtype=np.int32), CELLS)
    images = np.zeros((n_sheets * CELLS, 4, 4, 3), np.uint8)
    images[:] = sheet[:, None, None, None].astype(np.uint8)
    return CellSet(
        images=images,
        labels=(sheet % len(CLASSES)).astype(np.int64),
        ruins=np.zeros((n_sheets * CELLS, 1), np.float32),
        sheet=sheet,
        style=[f"style{i}" for i in range(n_sheets)],
        difficulty=["normal" if i % 2 else "hard" for i in range(n_sheets)],
        side=["A" if i % 3 else "B" for i in range(n_sheets)],
    )


def test_every_kth_sheet_keeps_whole_sheets_evenly_spread():
    part = every_kth_sheet(_set(10), 3)  # every third sheet: 0, 3, 6
    assert part.style == ["style0", "style3", "style6"]
    assert part.difficulty == ["hard", "normal", "hard"]
    assert part.side == ["B", "B", "B"]
    assert len(part.labels) == 3 * CELLS
    # Each kept sheet's 121 cells come whole, in order, renumbered 0, 1, 2.
    assert list(part.images[::CELLS, 0, 0, 0]) == [0, 3, 6]
    assert (part.images[:CELLS] == 0).all() and (part.images[2 * CELLS :] == 6).all()
    assert list(part.labels[::CELLS]) == [0, 3, 6]
    assert list(np.unique(part.sheet)) == [0, 1, 2]
    assert (part.sheet[CELLS : 2 * CELLS] == 1).all()


def test_every_kth_sheet_takes_all_of_a_small_set():
    part = every_kth_sheet(_set(4), 330)
    assert part.style == ["style0", "style1", "style2", "style3"]


def test_commonest_misreadings_counts_only_off_the_diagonal():
    k = len(CLASSES)
    matrix = np.zeros((k, k), int)
    water, farm, empty = CLASSES.index("W"), CLASSES.index("F"), CLASSES.index(".")
    matrix[water, water] = 500  # right: never a misreading
    matrix[water, farm] = 7
    matrix[farm, water] = 3
    matrix[farm, empty] = 5
    metrics = {"confusion": {"rows_truth_cols_predicted": matrix.tolist()}}
    assert commonest_misreadings(metrics) == [("W>F", 7), ("F>.", 5), ("F>W", 3)]
    assert commonest_misreadings(metrics, top=1) == [("W>F", 7)]
