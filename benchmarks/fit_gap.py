"""Is the cell model short of examples, or of telling designs apart?

Reads rendered cell sets with an ONNX cell model, as ``models.train`` validates it (its
own argmax after the layout prior, no sheet steps): a set the model trained on beside a
set it never saw. A model that reads its training set much better than the unseen one
has learned its examples and wants more of them; one that reads both alike misreads
what it cannot tell apart, and more data of the same kind will not help.

    python benchmarks/fit_gap.py --trained 50000:2000 --unseen 60000:1000 --sheets 330

``FIRST:COUNT`` names a set as ``models.train`` caches it (seeds FIRST.. of COUNT
sheets; ``--source photo``, the default, the scanned photos; ``view`` the canonical
views); a set not in the cache is rendered first, which takes a while. ``--sheets N``
reads every k-th sheet of each set, N in all. Prints each set's cell accuracy, by
difficulty and by drawing style, and its commonest misreadings (truth>read).

Session 61, the committed model (session 58's, whose last fine-tune trained on the
photos of 50,000+): see docs/figures.md, "Cell classifier".
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from models.cell_data import CellSet, cached_set  # noqa: E402
from models.train import evaluate_onnx  # noqa: E402
from scanner.cell_model import MODEL_PATH  # noqa: E402
from scanner.normalize import CLASSES  # noqa: E402
from scoring.layouts import SIZE  # noqa: E402


def every_kth_sheet(data: CellSet, n: int) -> CellSet:
    """About ``n`` of the set's sheets, evenly spread (all of them if it has fewer)."""
    step = max(1, len(data.style) // max(n, 1))
    keep = np.arange(0, len(data.style), step)[:n]
    rows = (keep[:, None] * SIZE * SIZE + np.arange(SIZE * SIZE)).ravel()
    return CellSet(
        images=data.images[rows],
        labels=data.labels[rows],
        ruins=data.ruins[rows],
        sheet=np.repeat(np.arange(len(keep), dtype=np.int32), SIZE * SIZE),
        style=[data.style[i] for i in keep],
        difficulty=[data.difficulty[i] for i in keep],
        side=[data.side[i] for i in keep],
    )


def commonest_misreadings(metrics: dict, top: int = 6) -> list[tuple[str, int]]:
    """The most frequent (truth>read) pairs of an ``evaluate_onnx`` confusion matrix."""
    matrix = metrics["confusion"]["rows_truth_cols_predicted"]
    pairs = Counter(
        {
            f"{CLASSES[t]}>{CLASSES[p]}": n
            for t, row in enumerate(matrix)
            for p, n in enumerate(row)
            if t != p and n
        }
    )
    return pairs.most_common(top)


def _set_spec(text: str) -> tuple[int, int]:
    first, _, count = text.partition(":")
    try:
        return int(first), int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected FIRST:COUNT, e.g. 50000:2000, not {text!r}"
        ) from None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trained", type=_set_spec, required=True, help="FIRST:COUNT")
    ap.add_argument("--unseen", type=_set_spec, required=True, help="FIRST:COUNT")
    ap.add_argument("--source", choices=("photo", "view"), default="photo")
    ap.add_argument("--sheets", type=int, default=330, help="sheets read from each set")
    ap.add_argument("--model", type=Path, default=MODEL_PATH)
    ap.add_argument("--workers", type=int, default=2, help="rendering processes (cache misses)")
    args = ap.parse_args()
    print(f"model {args.model}")
    for name, (first, count) in (("trained", args.trained), ("unseen", args.unseen)):
        data = cached_set(
            "train", list(range(first, first + count)), args.workers, source=args.source
        )
        m = evaluate_onnx(args.model, every_kth_sheet(data, args.sheets))
        print(
            f"{name:8s} {args.source}s {first}+ ({m['sheets']} of {len(data.style)} sheets):"
            f" {100 * m['cell_accuracy']:.2f} % of cells"
        )
        for group in ("per_difficulty", "per_style"):
            print("   " + "  ".join(f"{k} {100 * v:.2f}" for k, v in m[group].items()))
        print("   commonest misread: " + ", ".join(f"{k} {n}" for k, n in commonest_misreadings(m)))


if __name__ == "__main__":
    main()
