"""With the second thread on, the covered-cell check and the cells' edge lines run in the
calling thread while the model reads the cells in the other: the same sheet, review list
included, as read in one thread; and an error while the coins or the covered cells are
read never leaves the other thread waiting."""

import pytest

from benchmarks.occlude import occlude
from models.synth import make_photo
from scanner import pipeline
from scanner.covered import COVERED
from scanner.load import load_photo


@pytest.fixture
def overlap():
    pipeline.set_overlap(True)
    try:
        yield
    finally:
        pipeline.set_overlap(False)


def _occluded_photo(seed: int, kind: str):
    image, truth = make_photo(seed, "normal")
    painted, _covered, _drawn = occlude(image, truth["lattice"], kind, seed)
    return painted


@pytest.mark.parametrize("seed, kind", [(4_000_103, "finger"), (4_000_104, "card")])
def test_covered_cells_found_beside_the_model_give_the_same_sheet(overlap, seed, kind):
    photo = load_photo(_occluded_photo(seed, kind))
    scan = pipeline.scan_image(photo)
    assert scan.cells is not None
    together = pipeline.sheet_from_scan(scan)
    pipeline.set_overlap(False)
    alone = pipeline.sheet_from_scan(pipeline.scan_image(photo))
    assert any(item.reason == COVERED for item in alone.review)  # the check has work
    assert together == alone


def _cells_of_a_failing_scan(monkeypatch, photo, module, name: str, message: str):
    """Scan ``photo`` with ``module.name`` raising ``message``; the cell reading the scan
    started in the second thread (a Future)."""
    started = []
    background = pipeline._background

    def spy(fn, *args):
        started.append(future := background(fn, *args))
        return future

    def broken(*args):
        raise RuntimeError(message)

    monkeypatch.setattr(pipeline, "_background", spy)
    monkeypatch.setattr(module, name, broken)
    with pytest.raises(RuntimeError, match=message):
        pipeline.scan_image(photo)
    return started[-1]


def test_an_error_while_reading_coins_leaves_no_thread_waiting(overlap, monkeypatch):
    photo = load_photo(make_photo(4_000_101, "normal")[0])
    expected = pipeline.sheet_from_scan(pipeline.scan_image(photo))
    cells = _cells_of_a_failing_scan(
        monkeypatch, photo, pipeline, "read_coin_track", "coin reader failed"
    )
    assert cells.result(timeout=30) is not None  # settled: its covered cells were given
    monkeypatch.undo()
    pipeline.set_overlap(True)
    assert pipeline.sheet_from_scan(pipeline.scan_image(photo)) == expected


def test_an_error_while_finding_covered_cells_leaves_no_thread_waiting(overlap, monkeypatch):
    from scanner import covered

    photo = load_photo(make_photo(4_000_101, "normal")[0])
    cells = _cells_of_a_failing_scan(
        monkeypatch, photo, covered, "covered_cells", "covered check failed"
    )
    # The reading waited for the covered cells and the edge lines: both were settled
    # with the error, so it ends with that error instead of waiting for ever.
    with pytest.raises(RuntimeError, match="covered check failed"):
        cells.result(timeout=30)
