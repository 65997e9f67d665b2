"""Time the synthesis on one core: 12 MP phone photos, other photos, canonical views.

    python benchmarks/bench_synth.py [--n 6] [--threads 1]

Target (issue 3): <= 1.5 s per 12 MP photo on one core, JPEG file included. With
``--threads 1`` the process's CPU time is the one-core time even when other jobs
share the machine (wall time then also counts waiting for the CPU).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.synth.photo import exif_jpeg, random_shot, render_photo, rng_for  # noqa: E402
from models.synth.view import make_view  # noqa: E402
from scanner.cells import cut_cells  # noqa: E402


def seeds_with_size(min_pixels: int, n: int, difficulty: str) -> list[int]:
    """Seeds whose photo has at least ``min_pixels`` pixels (only the cheap shot is drawn)."""
    out, seed = [], 0
    while len(out) < n:
        shot = random_shot(rng_for(seed, difficulty, "photo"), difficulty)
        if shot.size[0] * shot.size[1] >= min_pixels:
            out.append(seed)
        seed += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    cv2.setNumThreads(args.threads)
    for difficulty in ("normal", "hard"):
        times, cpus = [], []
        for seed in seeds_with_size(11_000_000, args.n, difficulty):
            t0, c0 = time.perf_counter(), time.process_time()
            img, truth, shot = render_photo(seed, difficulty)
            data = exif_jpeg(img, shot.jpeg, shot.exif)
            dt, cpu = time.perf_counter() - t0, time.process_time() - c0
            times.append(dt)
            cpus.append(cpu)
            w, h = truth["image_size"]
            print(
                f"12MP {difficulty:6s} seed {seed:4d} {w}x{h} wall {dt:.2f} s cpu {cpu:.2f} s"
                f"  {len(data) >> 10} KiB"
            )
        print(
            f"12MP {difficulty}: wall mean {np.mean(times):.2f} s max {np.max(times):.2f} s; "
            f"cpu mean {np.mean(cpus):.2f} s max {np.max(cpus):.2f} s (target <= 1.5 s)"
        )
    times = []
    for seed in range(args.n * 2):
        t0 = time.perf_counter()
        view, _ = make_view(seed, "normal")
        cut_cells(view)
        times.append(time.perf_counter() - t0)
    per = np.mean(times)
    print(f"canonical view + 121 crops: {per:.3f} s per sheet, {121 / per:.0f} crops/s")


if __name__ == "__main__":
    main()
