"""Fit the covered-cell detector's weights (scanner/covered.py -> scanner/covered.json).

Tuning photos only: seeds 302000+ with a finger, a pencil or a card painted on them
(benchmarks/occlude.py; normal and hard "mixed", and each kind alone on normal) and
plain 300000+ (clean, normal, hard). Each photo is scanned like a user's; where the grid
is found the right way up, every free cell is an example: covered when at least
``COVERED`` of it lies under the occluder (benchmarks/measure_scanner.py), not covered
when nothing of it does (cells in between are left out). Both stages are quadratic
logistic models (L2 penalty ``--l2``) fitted by Newton's method; the second stage
takes the first's out-of-fold scores, so it learns what the first stage's scores mean
on photos it was not fitted on.

    python benchmarks/fit_covered.py --dir /tmp/covered_tune --jobs 2

Then measure with ``measure_scanner.py --occlude mixed --cells`` (and plain photos).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure_scanner import COVERED, TOLERANCE, cell_centre_error  # noqa: E402
from benchmarks.rendered import kept_in, rendered_sample  # noqa: E402
from scanner.covered import (  # noqa: E402
    CUES,
    WEIGHTS_PATH,
    cell_cues,
    context,
    cue_source,
    expand,
    logit,
)

#: (difficulty, occluder, first seed, photos): the tuning sets.
SETS = (
    ("normal", "mixed", 302000, 100),
    ("hard", "mixed", 302000, 100),
    ("normal", "pencil", 302000, 100),
    ("normal", "card", 302000, 100),
    ("normal", "finger", 302000, 100),
    ("normal", "none", 300000, 200),
    ("clean", "none", 300000, 200),
    ("hard", "none", 300000, 200),
)
#: (difficulty, seasons played, first seed, views): rendered rectified views with nothing
#: on them (models.synth.make_view: no camera, lines and light unlike the photos'),
#: unplayed sheets among them, and every other played one with a dozen empty cells
#: coloured in (:func:`colour_in`); more clear cells only.
VIEW_SETS = (
    ("clean", 4, 303000, 40),
    ("normal", 4, 303000, 40),
    ("hard", 4, 303000, 40),
    ("normal", 0, 303100, 20),
    ("hard", 0, 303100, 20),
)
#: Coloured pencils a player colours cells in with (BGR): orange, brown, green, red, ...
PENCILS = (
    (40, 140, 235),
    (45, 80, 140),
    (60, 150, 60),
    (50, 50, 200),
    (190, 120, 40),
    (40, 200, 230),
)
FOLDS = 2  # out-of-fold first-stage scores for the second stage, photos split by seed


def photo_cues(item: tuple) -> dict | None:
    """A tuning photo's cues and covered shares, or None when its grid is not found right."""
    import cv2

    from scanner.cells import cut_cells
    from scanner.errors import SheetNotFound
    from scanner.layout_prior import printed_table
    from scanner.pipeline import scan_photo
    from scoring.layouts import LAYOUTS

    cv2.setNumThreads(1)
    folder, seed, difficulty, occluder = item
    path, truth = rendered_sample(folder, seed, difficulty, occluder)
    try:
        scan = scan_photo(path)
    except SheetNotFound:
        return None
    if cell_centre_error(scan.lattice, np.array(truth["lattice"], float)) > TOLERANCE:
        return None
    free = printed_table(LAYOUTS[scan.side]) < 0
    return {
        "seed": seed,
        "cues": cell_cues(cut_cells(scan.view), free),
        "free": free,
        "covered": np.asarray(truth.get("covered", np.zeros((11, 11)))).reshape(-1),
    }


def view_cues(item: tuple) -> dict:
    """A rendered view's cues; none of its cells is covered."""
    from models.synth import make_view
    from scanner.cells import cut_cells
    from scanner.layout_prior import printed_table
    from scoring.layouts import LAYOUTS

    seed, difficulty, played = item
    view, truth = make_view(seed, difficulty, played=played)
    free = printed_table(LAYOUTS[truth["side"]]) < 0
    if played and seed % 2:  # every other played view: some empty cells coloured in
        rng = np.random.default_rng([seed, 17])
        empty = [i for i in np.flatnonzero(free) if truth["grid"][i // 11][i % 11] == "."]
        cells = rng.choice(empty, size=min(12, len(empty)), replace=False)
        view = colour_in(view, [divmod(int(i), 11) for i in cells], rng)
    cues = cell_cues(cut_cells(view), free)
    return {"seed": seed, "cues": cues, "free": free, "covered": np.zeros(len(cues))}


def colour_in(view: np.ndarray, cells: list[tuple[int, int]], rng) -> np.ndarray:
    """Colour cells in with a pencil each: hatching 1-3 px wide every 2-5 px (dense
    enough to hide the paper), pressure varying, inside the cell's lines."""
    import cv2

    from scanner.geometry import to_canonical_px

    out = view.copy()
    for r, c in cells:
        x0, y0 = (round(v) for v in to_canonical_px(c, r))
        x1, y1 = (round(v) for v in to_canonical_px(c + 1, r + 1))
        inset = int(rng.integers(2, 6))
        patch = out[y0 + inset : y1 - inset + 1, x0 + inset : x1 - inset + 1].astype(np.float32)
        h, w = patch.shape[:2]
        ink = np.zeros((h, w), np.float32)
        step, width = int(rng.integers(2, 6)), int(rng.integers(1, 4))
        slope = rng.uniform(-1.2, 1.2)
        for k in range(-2 * h, w + 2 * h, step):
            cv2.line(ink, (k, h), (int(k + slope * h + rng.integers(-2, 3)), 0), 1.0, width)
        ink = np.clip(ink * rng.uniform(0.5, 0.95, ink.shape), 0, 1)[..., None]
        tint = np.array(PENCILS[int(rng.integers(len(PENCILS)))], np.float32) / 255
        patch = patch * (1 - ink) + patch * tint * ink
        out[y0 + inset : y1 - inset + 1, x0 + inset : x1 - inset + 1] = np.clip(patch, 0, 255)
    return out


def fit_stage(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 30) -> dict:
    """A quadratic logistic model of ``y`` on ``x`` (standardised expanded inputs)."""
    low, high = x.min(0), x.max(0)
    z = expand(x)
    mean, scale = z.mean(0), z.std(0)
    scale[scale < 1e-6] = 1e6  # a column that never varied in fitting counts for nothing
    z = np.c_[np.ones(len(z)), (z - mean) / scale]
    w = np.zeros(z.shape[1])
    penalty = l2 * np.eye(len(w))  # the bias too: nearly separable data must not run off

    def loss(w: np.ndarray) -> float:
        t = z @ w
        return float(np.logaddexp(0, t).sum() - y @ t + 0.5 * w @ penalty @ w)

    for _ in range(steps):  # Newton's method, its step halved until the loss falls
        p = expit(z @ w)
        grad = z.T @ (p - y) + penalty @ w
        hess = (z * (p * (1 - p))[:, None]).T @ z + penalty
        step, before = np.linalg.solve(hess, grad), loss(w)
        while loss(w - step) > before and np.abs(step).max() > 1e-6:
            step /= 2
        w -= step
        if np.abs(step).max() <= 1e-6:
            break
    return {
        "low": low,
        "high": high,
        "mean": mean,
        "scale": scale,
        "weights": w[1:],
        "bias": float(w[0]),
    }


def examples(photos: list[dict], x_of) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for p in photos:
        hidden = p["covered"] >= COVERED
        use = p["free"] & (hidden | (p["covered"] == 0))
        xs.append(x_of(p)[use])
        ys.append(hidden[use].astype(float))
    return np.concatenate(xs), np.concatenate(ys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", required=True, help="tuning photos (rendered there if missing)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--out", default=str(WEIGHTS_PATH))
    args = parser.parse_args()
    work = [
        (args.dir, seed + i, difficulty, occluder)
        for difficulty, occluder, seed, n in SETS
        for i in range(n)
    ]

    views = [
        (seed + i, difficulty, played)
        for difficulty, played, seed, n in VIEW_SETS
        for i in range(n)
    ]

    def compute(fn, items):
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                return list(pool.map(fn, items, chunksize=4))
        return [fn(w) for w in items]

    # The cues are kept for another fit, as long as the code measuring them is unchanged.
    version = hashlib.sha1(cue_source().encode()).hexdigest()[:10]
    cache = Path(args.dir) / f"covered_cues_{version}.pkl"
    photos = [p for p in kept_in(cache, lambda: compute(photo_cues, work)) if p is not None]
    print(f"{len(photos)} of {len(work)} tuning photos found right")
    cache = Path(args.dir) / f"covered_views_{version}.pkl"
    photos += kept_in(cache, lambda: compute(view_cues, views))
    x, y = examples(photos, lambda p: p["cues"])
    first = fit_stage(x, y, args.l2)
    for fold in range(FOLDS):  # out-of-fold first-stage scores
        fitted = fit_stage(*examples([p for p in photos if p["seed"] % FOLDS != fold],
                                     lambda p: p["cues"]), args.l2)  # fmt: skip
        for p in photos:
            if p["seed"] % FOLDS == fold:
                p["context"] = context(logit(p["cues"], fitted), p["free"])
    second = fit_stage(*examples(photos, lambda p: p["context"]), args.l2)
    print(f"{int(y.sum())} covered and {int((1 - y).sum())} clear cells")

    def plain(stage: dict) -> dict:
        return {
            "low": stage["low"].round(6).tolist(),
            "high": stage["high"].round(6).tolist(),
            "mean": stage["mean"].round(6).tolist(),
            "scale": stage["scale"].round(6).tolist(),
            "weights": stage["weights"].round(5).tolist(),
            "bias": round(stage["bias"], 5),
        }

    out = {"cues": list(CUES), "l2": args.l2, "first": plain(first), "second": plain(second)}
    Path(args.out).write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
