"""Training the sheet-context model: its data is the committed cell model's reading."""

import numpy as np

from models.cell_data import build_set, difficulty_for
from models.train_context import sheet_arrays, terrain_errors, train
from scanner import cell_model
from scanner.cells import cut_cells
from scanner.context import context_logits
from scanner.softmax import softmax
from scoring.layouts import LAYOUTS


def test_the_training_sheets_are_the_committed_models_reading():
    from models import synth

    seeds = [4_000_021, 4_000_022]
    arrays = sheet_arrays(build_set(seeds, workers=1))
    assert arrays["logits"].shape == (2, 121, 8) and arrays["features"].shape == (2, 121, 160)
    view, truth = synth.make_view(seeds[1], difficulty_for(seeds[1]))
    layout = LAYOUTS[truth["side"]]
    assert arrays["side"][1] == (truth["side"] == "B")
    labels = "".join(truth["grid"])
    assert "".join(".TVFWM^#"[k] for k in arrays["labels"][1]) == labels
    probs = cell_model.predict_probabilities(cut_cells(view), layout)
    logits = arrays["logits"][1]
    np.testing.assert_allclose(softmax(logits, axis=1), probs, atol=1e-4)


def test_a_short_training_runs_and_its_export_reads_a_sheet(tmp_path):
    from models.context_net import export_context_onnx

    arrays = sheet_arrays(build_set([4_000_021, 4_000_022], workers=1))
    net = train(
        arrays,
        arrays,
        steps=20,
        seed=0,
        width=16,
        layers=1,
        positions=False,
        feature_drop=0.2,
        threads=1,
    )
    path = tmp_path / "context.onnx"
    export_context_onnx(net, str(path))
    side = LAYOUTS["AB"[arrays["side"][0]]]
    logits = arrays["logits"][0]
    out = context_logits(softmax(logits, axis=1), arrays["features"][0], side, path)
    assert out.shape == (121, 8) and np.isfinite(out).all()


def test_terrain_errors_count_drawn_free_cells_only():
    """Empty cells and printed mountains are not the context model's question."""
    labels = np.zeros((1, 121), np.int64)
    printed = np.zeros((1, 121), np.int64)
    labels[0, :3] = [3, 4, 0]  # a farm, a water, an empty cell
    labels[0, 3], printed[0, 3] = 6, 1  # a printed mountain
    logits = np.zeros((1, 121, 8))
    logits[0, 0, 4] = logits[0, 1, 4] = 1.0  # both read as water
    logits[0, 2, 1] = logits[0, 3, 1] = 1.0  # the empty cell and the mountain as forest
    arrays = {"labels": labels, "printed": printed}
    assert terrain_errors(logits, arrays) == 1


def test_sets_render_in_parallel_after_this_process_has_run_opencv_threads():
    # models.train_context reads each set with the cell model (OpenCV's colour conversion
    # and table lookup on thousands of crops: its thread pool runs) before rendering the
    # next; a worker forked from such a process hung for ever in its first OpenCV call.
    import subprocess
    import sys

    script = (
        "import cv2, numpy as np\n"
        "a = np.random.default_rng(0).integers(0, 255, (3000, 3000, 3), np.uint8)\n"
        "for _ in range(3): cv2.cvtColor(a, cv2.COLOR_BGR2RGB); cv2.GaussianBlur(a, (0, 0), 3)\n"
        "from models.cell_data import build_set\n"
        "print(len(build_set([4_000_031, 4_000_032], workers=2).style))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "2"
