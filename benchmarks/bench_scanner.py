"""Speed of the whole scanner (decode included) against a plain full-resolution decode.

Writes N rendered 12 MP phone photos (models.synth, normal difficulty, scaled to
4032 x 3024) as JPEG in a child process, then in the same run times, per file,
``cv2.imread`` of the full image and ``scanner.pipeline.scan_photo`` (load at reduced
scale, detect, orient, rectify, coins; the cell classifier is not included).

    python benchmarks/bench_scanner.py --n 8 [--grain 4]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scanner.pipeline import scan_photo  # noqa: E402

TWELVE_MP = (4032, 3024)


def write_photos(folder: Path, n: int, seed: int, grain: float = 0.0) -> list[Path]:
    """Render ``n`` normal photos, upscale to 12 MP and write them as JPEG.

    Upscaled renders are smoother than real photos (about 1.3 MB against a
    phone's 3-5 MB), and JPEG decoding time grows with the detail in the file:
    ``grain`` adds sensor-like noise (standard deviation in grey levels).
    """
    from models.synth import make_photo

    rng = np.random.default_rng(seed)
    paths = []
    for i in range(n):
        img, _ = make_photo(seed + i, "normal")
        size = TWELVE_MP if img.shape[1] >= img.shape[0] else TWELVE_MP[::-1]
        img = cv2.resize(img, size, interpolation=cv2.INTER_CUBIC)
        if grain > 0:
            noise = rng.normal(0, grain, img.shape[:2] + (1,)).astype(np.float32)
            img = np.clip(img + noise, 0, 255).astype(np.uint8)
        path = folder / f"photo_{seed + i}.jpg"
        cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        paths.append(path)
    return paths


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--seed", type=int, default=200000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs per file")
    parser.add_argument("--threads", type=int, default=None, help="cv2.setNumThreads")
    parser.add_argument("--grain", type=float, default=0.0, help="sensor noise (grey levels)")
    args = parser.parse_args()
    if args.threads is not None:
        cv2.setNumThreads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        # In a child process: rendering here would leave this heap warmed for the scanner
        # (see bench_pipeline.render_apart).
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            paths = pool.submit(write_photos, Path(tmp), args.n, args.seed, args.grain).result()
        size_mb = statistics.median(p.stat().st_size for p in paths) / 1e6
        print(f"{len(paths)} JPEGs of 12 MP, median {size_mb:.1f} MB")
        scan_photo(paths[0])  # warm up imports and caches
        decode, scan = [], []
        print(f"{'file':24s} {'imread ms':>10s} {'scanner ms':>11s} {'ratio':>6s}")
        for path in paths:
            d = best_of(lambda p=path: cv2.imread(str(p)), args.repeat)
            s = best_of(lambda p=path: scan_photo(p), args.repeat)
            decode.append(d)
            scan.append(s)
            print(f"{path.name:24s} {d:10.1f} {s:11.1f} {s / d:6.2f}")
        ratio = statistics.median(scan) / statistics.median(decode)
        print(
            f"median: imread {statistics.median(decode):.1f} ms, scanner "
            f"{statistics.median(scan):.1f} ms, ratio {ratio:.2f} (target <= 0.6)"
        )


if __name__ == "__main__":
    main()
