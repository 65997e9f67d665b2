"""Time the cell classifier: one sheet of 121 cells, onnxruntime on one thread.

``python benchmarks/bench_classify.py [--sheets 5] [--repeat 30] [--threads 1] [--model PATH]``

Prints per-sheet times (median and 90th percentile) for the whole
``classify_cells`` call and its parts: input normalisation (shrink, white balance,
tensor), the single onnxruntime run and the sheet-consistency step. The target is
<= 15 ms per sheet on one core. Also timed apart: the two measurements that ``score``
makes in its other thread while this one reads (the covered cells,
:func:`scanner.covered.covered_cells`, and the cells' edge lines,
:func:`scanner.shapes.edge_lines`), and ``classify_cells`` given them ready, as the
reading thread of ``score`` runs it. ``--model`` times another ONNX model than the committed one
(a candidate; given several times, the models take turns sheet by sheet, so a busy machine
slows them alike).
Session creation is timed once, apart (it happens once per process).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from concurrent.futures import Future
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from models import synth  # noqa: E402
from scanner import cell_model, classify  # noqa: E402
from scanner.cells import cut_cells  # noqa: E402
from scanner.covered import covered_cells  # noqa: E402
from scanner.shapes import edge_lines  # noqa: E402
from scanner.softmax import softmax  # noqa: E402
from scoring.layouts import LAYOUTS  # noqa: E402


def _ms(times: list[float]) -> str:
    t = np.array(times) * 1000
    return f"median {np.median(t):6.2f} ms  p90 {np.percentile(t, 90):6.2f} ms"


def _ready(value) -> Future:
    """A future already holding ``value`` (what ``classify_cells`` takes for work another
    thread did)."""
    future: Future = Future()
    future.set_result(value)
    return future


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--mirror", action="store_true", help="also read mirrored cells and average")
    ap.add_argument("--model", type=Path, action="append", help="ONNX model to time (repeatable)")
    args = ap.parse_args()
    models = args.model or [cell_model.MODEL_PATH]

    sheets = []
    for seed in range(2_000_000, 2_000_000 + args.sheets):
        view, truth = synth.make_view(seed, "normal")
        sheets.append((cut_cells(view), LAYOUTS[truth["side"]]))

    sessions = []
    for path in models:
        t0 = time.perf_counter()
        sessions.append(cell_model.model_session(path, args.threads))
        print(f"{path.name}: session creation {(time.perf_counter() - t0) * 1000:.1f} ms")

    # Per model, per part: the seconds of each sheet's timing.
    times: dict[Path, dict[str, list[float]]] = {path: defaultdict(list) for path in models}
    for _ in range(args.repeat):
        for crops, layout in sheets:
            for path, sess in zip(models, sessions, strict=True):
                took = times[path]
                t0 = time.perf_counter()
                classify.classify_cells(
                    crops, layout, model=path, threads=args.threads, mirror=args.mirror
                )
                took["whole"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                hidden = _ready(covered_cells(crops, classify.free_cells(layout)))
                t1 = time.perf_counter()
                lines = _ready(edge_lines(crops))
                t2 = time.perf_counter()
                classify.classify_cells(
                    crops,
                    layout,
                    model=path,
                    threads=args.threads,
                    mirror=args.mirror,
                    hidden=hidden,
                    outlines=lines,
                )
                took["reading"].append(time.perf_counter() - t2)
                took["covered"].append(t1 - t0)
                took["outlines"].append(t2 - t1)
                t0 = time.perf_counter()
                feed = cell_model.session_inputs(sess, crops, layout)
                t1 = time.perf_counter()
                logits, features = sess.run(None, feed)
                t2 = time.perf_counter()
                probs = classify.apply_layout_prior(softmax(logits.astype(float), axis=1), layout)
                t3 = time.perf_counter()
                classify.sheet_consistency(probs, features.astype(float), layout)
                took["consistency"].append(time.perf_counter() - t3)
                took["prep"].append(t1 - t0)
                took["run"].append(t2 - t1)
    mirror = ", mirror averaging" if args.mirror else ""
    for path in models:
        took = times[path]
        whole, reading = np.median(took["whole"]) * 1000, np.median(took["reading"]) * 1000
        n = len(took["whole"])
        print(f"{path}: {n} sheet classifications, 121 cells, {args.threads} thread(s){mirror}:")
        print(f"  classify_cells      {_ms(took['whole'])}")
        print(f"  normalise inputs    {_ms(took['prep'])}")
        print(f"  onnxruntime run     {_ms(took['run'])}")
        print(f"  sheet consistency   {_ms(took['consistency'])}")
        print(f"  covered cells       {_ms(took['covered'])}  (score: in its other thread)")
        print(f"  edge lines          {_ms(took['outlines'])}  (score: in its other thread)")
        print(f"  given both (score's reading thread) {_ms(took['reading'])}")
        print(f"  per cell            {whole / 121:.3f} ms")
        print(
            f"  target 15 ms: ratio {whole / 15:.2f} (everything),"
            f" {reading / 15:.2f} (score's reading thread)"
        )


if __name__ == "__main__":
    main()
