"""``cartoscore synth``: write synthetic photos with truth, or labelled cell crops."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from models.synth.photo import DIFFICULTIES, check_difficulty, write_sample
from models.synth.view import make_view
from scanner.cells import cut_cells
from scoring.layouts import LAYOUTS

MIXED_WEIGHTS = {"clean": 0.2, "normal": 0.5, "hard": 0.3}


def difficulty_of(seed: int, difficulty: str) -> str:
    """The difficulty of item ``seed``: fixed, or drawn from the mix for ``mixed``."""
    if difficulty != "mixed":
        return check_difficulty(difficulty)
    u = np.random.default_rng([int(seed), 7919]).random()
    edges = np.cumsum([MIXED_WEIGHTS[d] for d in DIFFICULTIES])
    return DIFFICULTIES[int(np.searchsorted(edges, u, side="right"))]


def run_synth(
    out: Path,
    n: int,
    seed: int,
    difficulty: str,
    cells: bool = False,
    neighbour_monsters: float = 0.0,
) -> None:
    """Render ``n`` items with seeds ``seed .. seed + n - 1`` into ``out``
    (``neighbour_monsters``: the share of sheets whose monsters a neighbour drew,
    :func:`models.synth.sheet.render_sheet`).

    Photo mode writes ``photo-<seed>.jpg`` and ``photo-<seed>.json`` (truth).
    Cell mode writes ``cells-<seed>.npz`` per sheet: ``crops`` (121, S, S, 3) uint8 cut
    with ``scanner.cells.cut_cells`` from the canonical view, ``labels`` (121,) terrain
    symbols row-major, ``ruins`` (121,) bool, ``side``, ``style``, ``difficulty``; plus
    ``index.json`` listing them (and the files of earlier runs into ``out`` still
    there). The same seed always gives the same files.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    index = []
    t0 = time.perf_counter()
    for i in range(n):
        s = seed + i
        diff = difficulty_of(s, difficulty)
        if cells:
            view, truth = make_view(s, diff, neighbour_monsters=neighbour_monsters)
            crops = cut_cells(view)
            layout = LAYOUTS[truth["side"]]
            labels = np.array([ch for row in truth["grid"] for ch in row])
            ruins = np.array([(r, c) in layout.ruins for r in range(11) for c in range(11)])
            name = f"cells-{s}.npz"
            np.savez(
                out / name,
                crops=crops,
                labels=labels,
                ruins=ruins,
                side=truth["side"],
                style=truth["style"],
                difficulty=diff,
            )
        else:
            name = f"photo-{s}.jpg"
            truth = write_sample(out / name, s, diff, neighbour_monsters=neighbour_monsters)
        index.append(
            {
                "file": name,
                "seed": s,
                "difficulty": diff,
                "side": truth["side"],
                "style": truth["style"],
                "monsters_by": truth["monsters_by"],
            }
        )
    listed = {item["file"] for item in index}
    earlier = [item for item in _index(out) if item["file"] not in listed]
    (out / "index.json").write_text(json.dumps(earlier + index, indent=1) + "\n")
    dt = time.perf_counter() - t0
    noun = "sheet" if cells else "photo"
    what = f"{noun}{'' if n == 1 else 's'}{' of cell crops' if cells else ''}"
    print(f"wrote {n} {what} to {out} in {dt:.1f} s ({dt / max(n, 1):.2f} s each)")


def _index(out: Path) -> list[dict]:
    """The items of an earlier run's ``index.json`` in ``out`` whose files are still
    there ([] when there is none, or it is not one)."""
    try:
        items = json.loads((out / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(items, list):
        return []
    return [
        item
        for item in items
        if isinstance(item, dict) and (out / str(item.get("file", ""))).is_file()
    ]
