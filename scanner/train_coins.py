"""Fit the coin model (P(coin is marked)) on rendered canonical views; write coin_weights.py.

    python -m scanner.train_coins --views 800 --jobs 2

Views come from ``models.synth.make_view`` (or, with ``--photos``, from scanning
rendered phone photos, slower but the scanner's own views) with seeds from 300000
up (never used for measuring), difficulties mixed. Each view gives 14 coins labelled by its
truth count (marked coins are the leftmost ones). A regularised logistic
regression is fitted by Newton's method; the held-out share of sheets whose
count comes out right is printed.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from scanner import geometry as g
from scanner.coins import coin_features, locate_coins, split_probabilities

SEED0 = 300000
DIFFICULTIES = ("clean", "normal", "hard", "normal", "hard")
OUT = Path(__file__).with_name("coin_weights.py")


def sheet_features(seed: int) -> tuple[np.ndarray, int]:
    from models.synth import make_view

    cv2.setNumThreads(1)
    view, truth = make_view(seed, DIFFICULTIES[seed % len(DIFFICULTIES)])
    grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    centres = locate_coins(grey, g.COIN_RADIUS * g.CANON_PX_PER_CELL)
    features, _ = coin_features(view, centres)
    return features, int(truth["coins"])


def photo_features(seed: int) -> tuple[np.ndarray, int] | None:
    """Features from a rendered photo scanned like a user's (the scanner's own views)."""
    import tempfile

    from models.synth import write_sample
    from scanner.errors import SheetNotFound
    from scanner.pipeline import scan_photo

    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "photo.jpg"
        truth = write_sample(path, seed, DIFFICULTIES[seed % len(DIFFICULTIES)])
        try:
            scan = scan_photo(path)
        except SheetNotFound:
            return None
    if scan.side != truth["side"]:
        return None
    grey = cv2.cvtColor(scan.view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    centres = locate_coins(grey, g.COIN_RADIUS * g.CANON_PX_PER_CELL)
    features, _ = coin_features(scan.view, centres)
    return features, int(truth["coins"])


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 25):
    """Newton's method for L2-regularised logistic regression on standardised x."""
    w = np.zeros(x.shape[1])
    b = 0.0
    for _ in range(steps):
        z = x @ w + b
        p = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
        grad_w = x.T @ (p - y) + l2 * w
        grad_b = float(np.sum(p - y))
        s = p * (1 - p)
        xb = np.hstack([x, np.ones((len(x), 1))])
        hess = xb.T @ (xb * s[:, None])
        hess[:-1, :-1] += l2 * np.eye(len(w))
        step = np.linalg.solve(hess + 1e-9 * np.eye(len(hess)), np.append(grad_w, grad_b))
        w -= step[:-1]
        b -= step[-1]
        if np.abs(step).max() < 1e-6:
            break
    return w, b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--views", type=int, default=800)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cache", default=None, help="npz file to keep/reuse the features")
    parser.add_argument("--l2", type=float, default=3.0)
    parser.add_argument(
        "--photos", action="store_true", help="scan rendered photos instead of rendered views"
    )
    args = parser.parse_args()
    cache = Path(args.cache) if args.cache else None
    if cache and cache.exists():
        data = np.load(cache)
        feats, counts = data["features"], data["counts"]
    else:
        seeds = range(SEED0, SEED0 + args.views)
        make = photo_features if args.photos else sheet_features
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = [r for r in pool.map(make, seeds, chunksize=4) if r is not None]
        feats = np.stack([f for f, _ in rows])
        counts = np.array([c for _, c in rows])
        if cache:
            np.savez_compressed(cache, features=feats, counts=counts)
    labels = (np.arange(g.COIN_COUNT)[None, :] < counts[:, None]).astype(np.float64)
    held = np.arange(len(counts)) % 5 == 0
    mean = feats[~held].reshape(-1, feats.shape[-1]).mean(0)
    scale = feats[~held].reshape(-1, feats.shape[-1]).std(0) + 1e-6
    x = ((feats - mean) / scale).astype(np.float64)
    w, b = fit_logistic(x[~held].reshape(-1, x.shape[-1]), labels[~held].ravel(), args.l2)
    prob = 1 / (1 + np.exp(-(x @ w + b)))
    for name, part in (("train", ~held), ("held out", held)):
        right = [
            split_probabilities(p)[0] == c for p, c in zip(prob[part], counts[part], strict=True)
        ]
        print(f"{name}: {np.mean(right):.2%} of {part.sum()} sheets counted right")
    # Refit on everything and write the weights.
    w, b = fit_logistic(x.reshape(-1, x.shape[-1]), labels.ravel(), args.l2)
    write_weights(mean, scale, w, b)
    print(f"wrote {OUT}")


def write_weights(mean, scale, w, b) -> None:
    def fmt(values) -> str:
        items = ", ".join(f"{float(v):.6g}" for v in values)
        return f"({items},)"

    OUT.write_text(
        '"""Coin model weights written by ``python -m scanner.train_coins`` (do not edit)."""\n\n'
        f"MEAN = {fmt(mean)}\nSCALE = {fmt(scale)}\nWEIGHTS = {fmt(w)}\nBIAS = {float(b):.6g}\n"
    )


if __name__ == "__main__":
    sys.exit(main())
