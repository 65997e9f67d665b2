"""The cell model's data: rendered sheets cut into balanced crops with their labels.

``models.synth.make_view(seed, difficulty)`` renders a sheet already in the canonical
rectified view; ``scanner.cells.cut_cells`` cuts its 121 crops and
``scanner.normalize.balance_sheet`` shrinks and white-balances them -- the very
functions the scanner runs. Training seeds are ``0..N-1``; validation seeds start at
:data:`VALIDATION_SEED` and are never trained on. Rendered sets are cached on disk
(:data:`CACHE_DIR`, :func:`cached_set`). Used by :mod:`models.train`,
:mod:`models.train_context` and :mod:`models.soup`.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scanner.cells import cut_cells
from scanner.normalize import CLASSES, INPUT_PX, balance_sheet, ruins_flags
from scoring.layouts import LAYOUTS, SIZE

VALIDATION_SEED = 1_000_000
#: First seed of the blank and part-played sheets (training range, apart from 0..).
SPARSE_SEED = 500_000
CACHE_DIR = Path(os.environ.get("CARTOSCORE_CACHE", "/tmp/cartoscore-cells"))


@dataclass
class CellSet:
    """Balanced crops and their labels, one row per cell."""

    images: np.ndarray  # (N, 48, 48, 3) uint8, BGR, white-balanced
    labels: np.ndarray  # (N,) int64 index into CLASSES
    ruins: np.ndarray  # (N, 1) float32
    sheet: np.ndarray  # (N,) int32 sheet index
    style: list[str]  # per sheet
    difficulty: list[str]  # per sheet
    side: list[str]  # per sheet


def difficulty_for(seed: int) -> str:
    """Difficulty mix of the rendered sets: 20 % clean, 45 % normal, 35 % hard."""
    u = (seed * 2654435761 % 2**32) / 2**32
    return "clean" if u < 0.20 else "normal" if u < 0.65 else "hard"


def played_for(seed: int) -> int:
    """Seasons drawn on a sparse-set sheet: 0 (blank), 1, 2 or 3, in turn."""
    return seed % 4


def render_sheet(
    seed: int,
    difficulty: str | None = None,
    source: str = "view",
    px: int = INPUT_PX,
    neighbour: float = 0.0,
) -> dict | None:
    """One rendered sheet -> balanced crops, labels and its style (runs in workers).

    ``source="view"``: ``make_view``'s canonical view. ``source="photo"``: a full
    ``make_photo`` read by the scanner (``scanner.pipeline.scan_photo``), so training sees
    the scanner's own resampling and residual misalignment; a sheet whose detected
    lattice is off the true one by more than a quarter cell, or whose side was misread,
    is skipped (None) rather than mislabelled. ``source="sparse"``: a canonical view of a
    blank or part-played sheet (:func:`played_for`), so empty cells and empty ruins are
    seen in numbers. ``neighbour``: the share of sheets whose monsters a neighbour drew
    (``models.synth``'s ``neighbour_monsters``).
    """
    from models import synth

    cv2.setNumThreads(1)
    difficulty = difficulty or difficulty_for(seed)
    if source == "photo":
        from scanner.errors import SheetNotFound
        from scanner.pipeline import scan_photo

        photo, truth = synth.make_photo(seed, difficulty, neighbour_monsters=neighbour)
        try:
            scan = scan_photo(photo)
        except SheetNotFound:
            return None
        true_lattice = np.asarray(truth["lattice"], np.float64)
        cell = np.linalg.norm(true_lattice[0, 1] - true_lattice[0, 0])
        off = np.linalg.norm(np.asarray(scan.lattice) - true_lattice, axis=-1).mean() / cell
        if scan.side != truth["side"] or off > 0.25:
            return None
        view = scan.view
    elif source == "sparse":
        view, truth = synth.make_view(
            seed, difficulty, played=played_for(seed), neighbour_monsters=neighbour
        )
    else:
        view, truth = synth.make_view(seed, difficulty, neighbour_monsters=neighbour)
    layout = LAYOUTS[truth["side"]]
    grid = truth["grid"]
    labels = np.array([CLASSES.index(grid[r][c]) for r in range(SIZE) for c in range(SIZE)])
    return {
        "images": balance_sheet(cut_cells(view), px),
        "labels": labels.astype(np.int64),
        "ruins": ruins_flags(layout),
        "style": str(truth.get("style", "?")),
        "difficulty": difficulty,
        "side": str(truth["side"]),
    }


def build_set(
    seeds: list[int],
    workers: int,
    difficulty: str | None = None,
    source: str = "view",
    px: int = INPUT_PX,
    neighbour: float = 0.0,
) -> CellSet:
    """Render ``seeds`` (in parallel when ``workers > 1``) into one :class:`CellSet`
    (``neighbour``: :func:`render_sheet`'s)."""
    n = len(seeds)
    if workers > 1:
        # Workers from a fresh process, never forked from this one: once this process has
        # run OpenCV's thread pool (models.train_context reads each set before rendering
        # the next), a forked worker hangs for ever in its first cv2.setNumThreads.
        fresh = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(fresh)) as pool:
            sheets = list(
                pool.map(
                    render_sheet,
                    seeds,
                    [difficulty] * n,
                    [source] * n,
                    [px] * n,
                    [neighbour] * n,
                    chunksize=4,
                )
            )
    else:
        sheets = [render_sheet(s, difficulty, source, px, neighbour) for s in seeds]
    sheets = [s for s in sheets if s is not None]
    n = len(sheets)
    return CellSet(
        images=np.concatenate([s["images"] for s in sheets]),
        labels=np.concatenate([s["labels"] for s in sheets]),
        ruins=np.concatenate([s["ruins"] for s in sheets]),
        sheet=np.repeat(np.arange(n, dtype=np.int32), SIZE * SIZE),
        style=[s["style"] for s in sheets],
        difficulty=[s["difficulty"] for s in sheets],
        side=[s["side"] for s in sheets],
    )


def cached_set(
    name: str,
    seeds: list[int],
    workers: int,
    difficulty: str | None = None,
    source: str = "view",
    version: str | None = None,
    px: int = INPUT_PX,
    neighbour: float = 0.0,
) -> CellSet:
    """:func:`build_set`, cached on disk by name and seed range (delete the cache to redo).

    ``version`` reuses a set cached from an older synthesis version instead; a set with
    a ``neighbour`` share above 0 is cached under a name that says it.
    """
    tag = version or synth_version()
    kind = ("" if source == "view" else f"-{source}") + ("" if px == INPUT_PX else f"-px{px}")
    kind += f"-nb{neighbour:g}" if neighbour else ""
    path = CACHE_DIR / f"{name}{kind}-{seeds[0]}-{len(seeds)}-{difficulty or 'mix'}-v{tag}.npz"
    if path.exists():
        z = np.load(path, allow_pickle=False)
        return CellSet(
            z["images"],
            z["labels"],
            z["ruins"],
            z["sheet"],
            [str(v) for v in z["style"]],
            [str(v) for v in z["diff"]],
            [str(v) for v in z["side"]],
        )
    data = build_set(seeds, workers, difficulty, source, px, neighbour)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    np.savez(
        path,
        images=data.images,
        labels=data.labels,
        ruins=data.ruins,
        sheet=data.sheet,
        style=np.array(data.style),
        diff=np.array(data.difficulty),
        side=np.array(data.side),
    )
    return data


def concat(parts: list[CellSet]) -> CellSet:
    """Several cell sets as one (sheet indices renumbered)."""
    offsets = np.cumsum([0] + [len(p.style) for p in parts])
    return CellSet(
        images=np.concatenate([p.images for p in parts]),
        labels=np.concatenate([p.labels for p in parts]),
        ruins=np.concatenate([p.ruins for p in parts]),
        sheet=np.concatenate([p.sheet + o for p, o in zip(parts, offsets[:-1], strict=True)]),
        style=[x for p in parts for x in p.style],
        difficulty=[x for p in parts for x in p.difficulty],
        side=[x for p in parts for x in p.side],
    )


def synth_version() -> str:
    """The synthesis version the rendered sets are cached under (``models.synth.VERSION``)."""
    from models import synth

    return str(getattr(synth, "VERSION", "?"))
