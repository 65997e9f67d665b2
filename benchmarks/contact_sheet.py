"""Tile 24 mixed synthetic photos into one PNG to look at them as a person would.

    python benchmarks/contact_sheet.py [--out contact.png] [--seed 0] [--n 24] [--view]

Mixed difficulties (clean / normal / hard in turn); each thumbnail is labelled
with its seed, difficulty, side and drawing style. ``--view`` tiles canonical
views (the classifier's FAST mode) instead of photos.
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

MIX = ("normal", "hard", "normal", "clean", "normal", "hard")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="contact.png")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--cols", type=int, default=6)
    ap.add_argument("--thumb", type=int, default=420, help="thumbnail height in px")
    ap.add_argument("--view", action="store_true", help="canonical views instead of photos")
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
