"""The second thread changes when things are computed, never what: the scan made with
it on, and a lattice measured after detection, are the ones the sequential path makes
(drawn stand-in sheets, tests/sheet_fixture.py)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sheet_fixture import draw_sheet, photograph

from scanner import pipeline
from scanner.detect import find_grid, with_lattice
from scanner.load import load_photo

ROOT = Path(__file__).resolve().parent.parent

# Page corners (TL, TR, BR, BL of the upright page) in a 1000 x 750 photo: the page's
# top runs up the photo's left side, a quarter turn anticlockwise (270 degrees clockwise),
# so the orientation has something to decide.
TURNED = np.array([[80, 640], [120, 250], [690, 200], [700, 660]], float)


def _photo(side: str, coins: int) -> np.ndarray:
    page, to_px = draw_sheet(side, coins)
    return photograph(page, to_px, TURNED, seed=3)[0]


def test_lattice_measured_later_is_the_same():
    image = _photo("B", 4)
    at_once = find_grid(image)
    later = find_grid(image, lattice=False)
    assert later.best.lattice is None and later.pyramid is not None
    measured = with_lattice(later.pyramid, later.best)
    assert np.array_equal(measured.homography, at_once.best.homography)
    assert np.array_equal(measured.lattice, at_once.best.lattice)


@pytest.mark.parametrize("side, coins", [("A", 7), ("B", 2)])
def test_the_second_thread_gives_the_same_scan(side, coins):
    photo = load_photo(_photo(side, coins))
    alone = pipeline.scan_image(photo)
    pipeline.set_overlap(True)
    try:
        together = pipeline.scan_image(photo)
        together.cells.result()
    finally:
        pipeline.set_overlap(False)
    assert (together.side, together.orientation, together.coins) == (side, 270, coins)
    assert (alone.side, alone.orientation, alone.coins) == (side, 270, coins)
    assert together.side_confidence == alone.side_confidence
    assert together.orientation_confidence == alone.orientation_confidence
    assert np.array_equal(together.homography, alone.homography)
    assert np.array_equal(together.lattice, alone.lattice)
    assert np.array_equal(together.view, alone.view)


def test_warming_up_builds_both_model_sessions_in_the_second_thread(monkeypatch):
    """``score`` and ``read`` build the cell and context sessions while the first photo
    decodes; a missing model is left for the photo's own reading to report."""
    from scanner import cell_model, context, onnx_session

    monkeypatch.setattr(onnx_session, "_sessions", {})
    context.fits.cache_clear()
    pipeline.set_overlap(True)
    try:
        pipeline.warm_up().result(timeout=60)
        assert (str(cell_model.MODEL_PATH), cell_model._threads) in onnx_session._sessions
        assert (str(context.CONTEXT_PATH), 1) in onnx_session._sessions
        monkeypatch.setattr(cell_model, "MODEL_PATH", cell_model.MODEL_PATH.with_name("none.onnx"))
        assert pipeline.warm_up().result(timeout=60) is None  # no error escaped
    finally:
        pipeline.set_overlap(False)
        context.fits.cache_clear()
    assert pipeline.warm_up() is None  # without the second thread: nothing to do


def test_a_process_ending_while_the_reader_warms_up_ends_cleanly():
    """The warm-up builds OpenCV's colour tables in a thread of its own (about 90 ms); a
    process ending meanwhile, as a bad input's error does, aborted in OpenCV ("terminate
    called without an active exception") in about 4 runs of 12 while that thread was a
    daemon, instead of exiting with its code: eight runs here."""
    script = (
        "import sys\n"
        "from scanner import pipeline\n"
        "pipeline.set_overlap(True)\n"
        "pipeline.warm_up()\n"
        "sys.exit(3)\n"
    )
    for _ in range(8):
        proc = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert (proc.returncode, proc.stderr) == (3, "")
