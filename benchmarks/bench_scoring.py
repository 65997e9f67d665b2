"""Benchmark: score one map with all 16 cards (plus the monster penalty).

Run by hand: ``python benchmarks/bench_scoring.py [N]``. Prints maps/s and the
median time per map; the goal is a median under 1 ms. Every map is distinct
(random fills with a fixed seed), so no cache is hit between maps.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring.board import EMPTY, Map  # noqa: E402
from scoring.cards import score_all  # noqa: E402
from scoring.game import monster_penalty  # noqa: E402
from scoring.layouts import LAYOUTS, SIZE  # noqa: E402

DRAWN = np.array(list("TVFWM" + EMPTY))
WEIGHTS = np.array([0.22, 0.16, 0.16, 0.16, 0.05, 0.25])


def random_maps(n: int, seed: int = 0) -> list[Map]:
    """``n`` finished-looking maps: about a quarter empty, alternating sides A and B."""
    rng = np.random.default_rng(seed)
    maps = []
    for i in range(n):
        layout = LAYOUTS["AB"[i % 2]]
        picks = rng.choice(DRAWN, size=(SIZE, SIZE), p=WEIGHTS)
        rows = [
            "".join(layout.printed((r, c)) or picks[r, c] for c in range(SIZE)) for r in range(SIZE)
        ]
        maps.append(Map(tuple(rows), layout))
    return maps


def main(n: int = 2000) -> None:
    maps = random_maps(n)
    for m in maps[:20]:  # warm up imports and code paths (these maps are not timed again)
        score_all(m)
    times = []
    start = time.perf_counter()
    for m in maps[20:]:
        t0 = time.perf_counter()
        score_all(m)
        monster_penalty(m)
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - start
    med = statistics.median(times) * 1e3
    p95 = sorted(times)[int(0.95 * len(times))] * 1e3
    print(f"{len(times)} maps, all 16 cards + monsters each")
    print(f"median {med:.3f} ms/map, p95 {p95:.3f} ms, {len(times) / total:.0f} maps/s")
    print(f"goal: median < 1 ms -> {'OK' if med < 1.0 else 'TOO SLOW'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
