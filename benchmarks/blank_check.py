"""How the cell model reads an unplayed sheet: every free cell should be sure to be empty.

``python benchmarks/blank_check.py PHOTO... [--render N] [--model PATH]``

For each photo of a blank printed sheet (a real one, or ``--render N`` of our own
look-alike printings laid on a dark table): the model's own probability that each
free cell (not mountain or wasteland) is empty, before any prior and before the
blank-sheet rule: its median, how many cells fall under 0.9 and 0.5, and what the
doubtful ones are read as; ruins cells apart (their printed icon is the hardest
thing on a blank sheet). A real photo is the one check of our printing's look
against the publisher's: on a blank sheet, everything the model sees is print.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scanner import cell_model  # noqa: E402
from scanner.cells import cut_cells  # noqa: E402
from scanner.errors import ScanError  # noqa: E402
from scanner.layout_prior import printed_table, ruins_mask  # noqa: E402
from scanner.normalize import CLASSES  # noqa: E402
from scanner.pipeline import scan_photo  # noqa: E402
from scoring.layouts import LAYOUTS  # noqa: E402

EMPTY = CLASSES.index(".")


def rendered_blanks(n: int, folder: Path) -> list[Path]:
    """``n`` blank look-alike printings (alternating sides) on a dark table, as PNG files."""
    from models.synth.template import render_template

    out = []
    for i in range(n):
        rng = np.random.default_rng(7000 + i)
        page, alpha, _, _ = render_template("AB"[i % 2], 70.0, rng, ruins_rng=rng)
        a = alpha[..., None].astype(np.float32) / 255
        table = np.full_like(page, (60, 75, 95))
        path = folder / f"blank-{i}.png"
        cv2.imwrite(str(path), (page * a + table * (1 - a)).astype(np.uint8))
        out.append(path)
    return out


def check(path: Path, model: str | None) -> str:
    """One line: the free cells' P(empty) and what the doubtful ones are read as."""
    scan = scan_photo(path)
    layout = LAYOUTS[scan.side]
    probs = cell_model.predict_probabilities(cut_cells(scan.view), layout, model=model)
    free = printed_table(layout) < 0
    ruins = ruins_mask(layout)
    empty = probs[:, EMPTY]
    doubtful = free & (empty < 0.9)
    read_as = Counter(CLASSES[k] for k in probs[doubtful].argmax(axis=1) if k != EMPTY)

    def part(mask: np.ndarray) -> str:
        e = empty[mask]
        low, lower = int((e < 0.9).sum()), int((e < 0.5).sum())
        return f"median {np.median(e):.3f}, <0.9 {low}, <0.5 {lower}"

    return (
        f"{path.name}: side {scan.side}; free cells ({int(free.sum())}) {part(free & ~ruins)};"
        f" ruins ({int((free & ruins).sum())}) {part(free & ruins)};"
        f" doubtful read as {dict(read_as.most_common())}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("photos", nargs="*", type=Path)
    ap.add_argument("--render", type=int, default=0, help="also check N rendered blanks")
    ap.add_argument("--model", help="another ONNX model than the committed one")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = list(args.photos) + rendered_blanks(args.render, Path(tmp))
        if not paths:
            ap.error("give photos of blank sheets or --render N")
        for path in paths:
            try:
                print(check(path, args.model))
            except ScanError as e:
                print(f"{path.name}: {e}")


if __name__ == "__main__":
    main()
