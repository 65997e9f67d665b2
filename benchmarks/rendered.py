"""What the benchmarks that render photos with ``models.synth`` and measure each share.

A photo is rendered once per (seed, difficulty) into a folder, with its truth
next to it; ``--dir`` keeps the folder for another run or for looking at misses.
"""

from __future__ import annotations

import argparse
import json
import pickle
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def add_render_args(parser: argparse.ArgumentParser, n: int, seed: int) -> None:
    """--n, --seed, --difficulty, --jobs and --dir, with these defaults."""
    parser.add_argument("--n", type=int, default=n, help="photos per difficulty")
    parser.add_argument("--seed", type=int, default=seed, help="first seed")
    parser.add_argument("--difficulty", nargs="+", default=["clean", "normal", "hard"])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--dir", help="keep the photos here (default: a temporary folder)")


def kept_in(path: Path | None, compute: Callable[[], object]):
    """``compute()``, pickled into ``path`` (written whole or not at all), or read back
    from it when an earlier run left it there. ``path`` None: just ``compute()``."""
    if path is not None and path.is_file():
        return pickle.loads(path.read_bytes())
    out = compute()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps(out))
        tmp.replace(path)
    return out


def rendered_sample(folder: str, seed: int, difficulty: str) -> tuple[Path, dict]:
    """The photo file and its truth, rendered now unless the folder has them."""
    from models.synth import write_sample

    path = Path(folder) / f"{difficulty}_{seed}.jpg"
    truth_path = path.with_suffix(".json")
    if path.exists() and truth_path.exists():
        return path, json.loads(truth_path.read_text())
    return path, write_sample(path, seed, difficulty)


def measure_rendered(
    args: argparse.Namespace, measure_one: Callable[[tuple[str, int, str]], dict]
) -> Iterator[tuple[str, list[dict]]]:
    """(difficulty, rows): ``measure_one((folder, seed, difficulty))`` on every photo."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or tmp
        Path(folder).mkdir(parents=True, exist_ok=True)
        for difficulty in args.difficulty:
            work = [(folder, args.seed + i, difficulty) for i in range(args.n)]
            if args.jobs > 1:
                with ProcessPoolExecutor(args.jobs) as pool:
                    rows = list(pool.map(measure_one, work))
            else:
                rows = [measure_one(w) for w in work]
            yield difficulty, rows
