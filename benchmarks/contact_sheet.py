"""Tile 24 mixed synthetic photos into one PNG to look at them as a person would.

    python benchmarks/contact_sheet.py [--out contact.png] [--seed 0] [--n 24] [--view]
    python benchmarks/contact_sheet.py --doodles [--out doodles.png] [--seed 0] [--n 24]

Mixed difficulties (clean / normal / hard in turn); each thumbnail is labelled
with its seed, difficulty, side and drawing style. ``--view`` tiles canonical
views (the classifier's FAST mode) instead of photos. ``--doodles`` draws ``--n``
compositional doodles per terrain (synthesis 16, one player each), one row per terrain
(forest, village, farm, water, monster), black on white as designed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.synth import make_photo, make_view  # noqa: E402
from models.synth.canvas import Canvas  # noqa: E402
from models.synth.doodles import DOODLES  # noqa: E402

MIX = ("normal", "hard", "normal", "clean", "normal", "hard")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="contact.png")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--cols", type=int, default=6)
    ap.add_argument("--thumb", type=int, default=420, help="thumbnail height in px")
    ap.add_argument("--view", action="store_true", help="canonical views instead of photos")
    ap.add_argument("--doodles", action="store_true", help="compositional doodles per terrain")
    args = ap.parse_args()
    if args.doodles:
        cv2.imwrite(args.out, doodle_sheet(args.seed, args.n))
        print(f"wrote {args.out}")
        return
    thumbs = []
    for i in range(args.n):
        seed = args.seed + i
        difficulty = MIX[i % len(MIX)]
        t0 = time.perf_counter()
        img, truth = (make_view if args.view else make_photo)(seed, difficulty)
        dt = time.perf_counter() - t0
        h, w = img.shape[:2]
        scale = args.thumb / max(h, w)  # letterbox: the whole frame, as the phone shows it
        th = cv2.resize(
            img, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
        )
        pad = np.full((args.thumb, args.thumb, 3), 40, np.uint8)
        y0, x0 = (args.thumb - th.shape[0]) // 2, (args.thumb - th.shape[1]) // 2
        pad[y0 : y0 + th.shape[0], x0 : x0 + th.shape[1]] = th
        label = f"{seed} {difficulty} {truth['side']} {truth['style']}"
        cv2.putText(pad, label, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3)
        cv2.putText(pad, label, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1)
        thumbs.append(pad)
        print(f"{seed:4d} {difficulty:6s} {w}x{h} {dt:.2f}s", flush=True)
    cols = args.cols
    while len(thumbs) % cols:
        thumbs.append(np.zeros_like(thumbs[0]))
    rows = [np.hstack(thumbs[i : i + cols]) for i in range(0, len(thumbs), cols)]
    cv2.imwrite(args.out, np.vstack(rows))
    print(f"wrote {args.out}")


def doodle_sheet(seed: int, n: int, px: int = 64) -> np.ndarray:
    """``n`` doodles per terrain, players ``seed * 1000 + k``, one row per terrain."""
    rows = []
    for draw in DOODLES.values():
        tiles = []
        for k in range(n):
            player = np.random.default_rng(seed * 1000 + k)
            cv = Canvas.covering(0, 0, 1, 1, px)
            img = cv.blank(1, 255)
            for line in draw(player, player):
                cv.polyline(img, np.asarray(line, float), 0, 0.03)
            tiles.append(
                cv2.copyMakeBorder(img[:px, :px], 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=160)
            )
        rows.append(np.hstack(tiles))
    return np.vstack(rows)


if __name__ == "__main__":
    main()
