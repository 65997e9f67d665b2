"""What a one-photo ``cartoscore score`` costs from the shell: fresh processes, wall time.

``bench_pipeline.py`` times the reading in a warm process (imports done, sessions built,
one photo read before); a person scoring one sheet starts a new process each time, and
waits for the interpreter, the imports, the sessions and a first photo on top of it.
For each of ``--photos`` rendered 12 MP JPEGs (rendered in a child process, as
``bench_pipeline.py`` renders them), ``--rounds`` times, by turns:

- ``score PHOTO --cards ... --json`` in a new Python process (``python -m cli``);
- ``read PHOTO`` (the recognised map, nothing scored) in a new Python process;
- a new Python process that only imports cv2 and reads the same file (``cv2.imread``);
- a new Python process that only imports what ``score`` imports before it reads a photo
  (the CLI and the photo reader's modules), to show how much of the first is imports.

Python's compiled bytecode is used as on a user's machine: the children run with
bytecode caching on, even where the environment turns it off
(``PYTHONDONTWRITEBYTECODE``, as this machine's does: every process then compiles the
project's modules again, about 0.1 s of each ``score``), after one untimed ``score`` that
writes the caches.

    python benchmarks/bench_cli.py [--photos 4] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_pipeline import render_apart  # noqa: E402

IMPORTS = "import cli, app.inputs, scanner.pipeline, scanner.classify, scoring.game, app.report"


#: The children's environment: bytecode cached, as a user's Python does by default.
CACHED = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(args: list[str]) -> float:
    """Seconds a new process running ``args`` took, from start to exit (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(args, cwd=ROOT, check=True, capture_output=True, env=CACHED)
    return time.perf_counter() - start


def score_command(path: str, truth: dict) -> list[str]:
    """``score PATH --cards ... --json`` in a new Python, with the photo's dealt cards."""
    cards = ",".join(truth["cards"][e] for e in "ABCD")
    return [sys.executable, "-m", "cli", "score", path, "--cards", cards, "--json"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    py = sys.executable
    times: dict[str, list[float]] = {"score": [], "read": [], "imread": [], "imports": []}
    with tempfile.TemporaryDirectory() as tmp:
        photos = render_apart(Path(tmp), max(args.photos, 1))
        wall(score_command(*photos[0]))  # writes the bytecode caches
        for _ in range(max(args.rounds, 1)):
            for path, truth in photos:
                times["score"].append(wall(score_command(path, truth)))
                times["read"].append(wall([py, "-m", "cli", "read", path]))
                times["imread"].append(wall([py, "-c", f"import cv2; cv2.imread({path!r})"]))
                times["imports"].append(wall([py, "-c", IMPORTS]))
    median = {k: statistics.median(v) * 1000 for k, v in times.items()}
    n = len(times["score"])
    print(f"{n} fresh processes each, medians:")
    print(f"  score PHOTO --json          {median['score']:7.0f} ms")
    print(f"  read PHOTO                  {median['read']:7.0f} ms")
    print(f"  imports before the photo    {median['imports']:7.0f} ms")
    print(f"  import cv2 + cv2.imread     {median['imread']:7.0f} ms")
    print(f"ratio score / (cv2 + imread): {median['score'] / median['imread']:.2f}")


if __name__ == "__main__":
    main()
