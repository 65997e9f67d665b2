"""Time photo -> score on 12 MP JPEGs, and batch throughput on 1 and 2 worker processes.

``python benchmarks/bench_pipeline.py [--photos 8] [--rounds 3] [--batch 16] [--model PATH]``
(``--batch 0`` skips step 3)

1. Renders ``--photos`` sheets with ``models.synth`` and stores them as 4032 x 3024
   JPEGs (quality 92, as a phone writes them), in a child process (:func:`render_apart`).
2. ``score`` in one process: load, find, rectify, orient, read the coins, classify
   the 121 cells, score and build the JSON object, per file, after one warm-up file
   (session creation is once per process), set up as ``score`` runs: OpenCV's
   default threads, one onnxruntime thread, the cells classified in a second thread
   while the coins are read. In the same run, plain ``cv2.imread`` of the same files,
   each file read just before it is scored; ``--rounds`` passes over the files
   (medians over all of them: one pass gives only 8 samples of a noisy clock).
   Target: pipeline / imread <= 1.0 (the pipeline decodes at 1/4 scale).
   Then ``score`` of all the files in one call, as ``cartoscore score *.jpg`` runs it
   (each next photo decoded in a second thread while one is read), against
   ``cv2.imread`` of them all, per photo.
3. ``batch`` throughput, sheets per second of wall time, on 1 and 2 worker processes
   (forked from a forkserver that imported the image stack once, one single-threaded
   onnxruntime session each, paths and rows only crossing processes), over ``--batch``
   files. Target: 2 workers >= 1.7 x 1 worker. Printed with and without the pool's
   start-up (forking workers, building sessions).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.batch import Job, run_jobs  # noqa: E402
from app.inputs import DecodeAhead, load_input  # noqa: E402
from app.report import sheet_json  # noqa: E402
from models.synth import make_photo  # noqa: E402
from scoring.game import score_game  # noqa: E402

SIZE = (4032, 3024)


def render(folder: Path, n: int) -> list[tuple[str, dict]]:
    """``n`` synthetic photos stored as 12 MP JPEGs (landscape or portrait as rendered)."""
    out = []
    seed = 9000
    while len(out) < n:
        img, truth = make_photo(seed, "normal")
        seed += 1
        h, w = img.shape[:2]
        if abs(max(w, h) / min(w, h) - 4 / 3) > 0.02:  # a flatbed scan: not a phone photo
            continue
        size = SIZE if w >= h else SIZE[::-1]
        img = cv2.resize(img, size, interpolation=cv2.INTER_CUBIC)
        path = folder / f"bench-{seed - 1}.jpg"
        cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        out.append((str(path), truth))
    return out


def render_apart(folder: Path, n: int) -> list[tuple[str, dict]]:
    """:func:`render` in a child process. Rendering 12 MP images here leaves glibc holding
    freed memory that spares the pipeline's arrays their page faults, which a ``score``
    process, rendering nothing, does not have: a change tried in session 56 (a BGRA warp)
    was 2 ms a photo faster after such a render and 3.5-5 ms slower without it."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(render, folder, n).result()


def score_file(path: str, cards: dict, decoded=None) -> dict:
    """What ``cartoscore score PHOTO --json`` does for one file (after ``main``'s set-up:
    OpenCV's default threads, one onnxruntime thread, cells read while the coins are);
    ``decoded``: the photo's decoding started by :class:`app.inputs.DecodeAhead`."""
    sheet = load_input(path, decoded=decoded).sheet
    game = score_game([sheet.map], cards, sheet.coins or 0)
    return sheet_json(sheet, game)


def ms(times: list[float]) -> str:
    median, mean = statistics.median(times) * 1000, statistics.mean(times) * 1000
    return f"median {median:7.1f} ms  mean {mean:7.1f} ms"


def batch_rate(jobs: list[Job], workers: int, model: str | None) -> tuple[float, float]:
    """(sheets per second over the whole run, sheets per second after the first result).

    Also prints the mean time a worker spent on one sheet: about equal for 1 and 2
    workers when the two really run side by side (nothing oversubscribed, no one else
    busy on the machine).
    """
    stamps: list[float] = []
    seconds: list[float] = []

    def done(row: dict) -> None:
        stamps.append(time.perf_counter())
        seconds.append(float(row["seconds"]))

    t0 = time.perf_counter()
    run_jobs(jobs, workers, done, model=model)
    print(f"  {workers} worker(s): {statistics.mean(seconds) * 1000:.0f} ms per sheet in a worker")
    total = len(jobs) / (stamps[-1] - t0)
    steady = (len(jobs) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else float("nan")
    return total, steady


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3, help="passes over the photos, one at a time")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--model", default=None, help="cell model (default: the committed one)")
    args = ap.parse_args()
    from app.inputs import use_second_thread
    from scanner import cell_model

    if args.model:
        cell_model.MODEL_PATH = Path(args.model)
    cell_model.set_threads(1)  # as in ``score`` (onnxruntime's default in this process)
    use_second_thread()  # as ``score`` and ``read`` do

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{os.cpu_count()} CPUs, load average {load:.1f} before the run (others share them)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        photos = render_apart(folder, max(args.photos, 2))
        print(
            f"rendered {len(photos)} photos at {SIZE[0]}x{SIZE[1]}"
            f" in {time.perf_counter() - t:.1f} s"
        )

        score_file(*_first(photos))  # warm-up: session creation, imports
        pipe, read, pipe_cpu, read_cpu = [], [], [], []
        for path, truth in photos * max(args.rounds, 1):
            t, c = time.perf_counter(), time.process_time()
            cv2.imread(path)
            read.append(time.perf_counter() - t)
            read_cpu.append(time.process_time() - c)
            t, c = time.perf_counter(), time.process_time()
            obj = score_file(path, truth["cards"])
            pipe.append(time.perf_counter() - t)
            pipe_cpu.append(time.process_time() - c)
            right = sum(
                a == b for a, b in zip("".join(obj["grid"]), "".join(truth["grid"]), strict=True)
            )
            print(
                f"  {Path(path).name}: pipeline {pipe[-1] * 1000:6.1f} ms, "
                f"imread {read[-1] * 1000:5.1f} ms, cells right {right}/121, "
                f"coins {obj['coins']}/{truth['coins']}"
            )
        rounds = max(args.rounds, 1)
        print(f"score, whole pipeline ({rounds} x {len(photos)}): {ms(pipe)}; CPU {ms(pipe_cpu)}")
        print(f"cv2.imread (full decode): {ms(read)}; CPU {ms(read_cpu)}")
        print(
            "ratio pipeline / imread (median): "
            f"{statistics.median(pipe) / statistics.median(read):.2f} wall, "
            f"{statistics.median(pipe_cpu) / statistics.median(read_cpu):.2f} CPU (target <= 1.0)"
        )

        # Several photos in one call: the next one decodes while one is read.
        block, block_read = [], []
        for _ in range(3):
            t = time.perf_counter()
            for path, _truth in photos:
                cv2.imread(path)
            block_read.append((time.perf_counter() - t) / len(photos))
            t = time.perf_counter()
            with DecodeAhead([p for p, _ in photos]) as ahead:
                for path, truth in photos:
                    score_file(path, truth["cards"], ahead.take())
            block.append((time.perf_counter() - t) / len(photos))
        print(
            f"score of {len(photos)} photos in one call (3 runs): "
            f"{', '.join(f'{b * 1000:.1f}' for b in block)} ms per photo; cv2.imread "
            f"{', '.join(f'{r * 1000:.1f}' for r in block_read)} ms; ratio (medians) "
            f"{statistics.median(block) / statistics.median(block_read):.2f} (target <= 1.0)"
        )

        if args.batch <= 0:  # --batch 0: the one-process timings only
            return
        jobs = [
            Job(p, t["cards"]) for p, t in (photos * (args.batch // len(photos) + 1))[: args.batch]
        ]
        one, one_steady = batch_rate(jobs, 1, args.model)
        two, two_steady = batch_rate(jobs, 2, args.model)
        print(
            f"batch of {len(jobs)}: 1 worker {one:.2f} sheets/s ({one_steady:.2f} after start-up)"
        )
        print(
            f"batch of {len(jobs)}: 2 workers {two:.2f} sheets/s ({two_steady:.2f} after start-up)"
        )
        print(
            f"speed-up 2 vs 1 workers: {two / one:.2f} x whole run, "
            f"{two_steady / one_steady:.2f} x after start-up (target >= 1.7)"
        )


def _first(photos: list[tuple[str, dict]]) -> tuple[str, dict]:
    path, truth = photos[0]
    return path, truth["cards"]


if __name__ == "__main__":
    main()
