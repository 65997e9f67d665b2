"""Accuracy of the scanner on synthetic photos (models.synth), by difficulty.

For each photo: is the grid found with every cell centre within 10% of a cell
of the truth (whatever the orientation)? Of those found, is the side right and
is the orientation right (the A1 corner where the truth has it)? Is the coin
count right? Photos are written as JPEG files (with EXIF orientation, as phones
do) and scanned from the file, like a user's photo.

    python benchmarks/measure_scanner.py --n 200 --seed 112000 --jobs 2

Tuning used seeds 5000-5999, 300000-300199 and 301000-301099. The README's
figures come from seeds 112000-112199 (and 110000-110199), never used while
tuning; seeds 100000-100199 gave an earlier stop's figures and a few of them were
looked at while debugging the coin reading. Since then a few photos of
110000+ and 112000+ were looked at to explain misses. Later sessions used
114000+ to 142000+ (even thousands; 132000+, 136000+, 138000+ and 140000+ were
looked at to make changes or explain misses; 138000+ and 140000+ gave session
11's figures, 142000+ session 12's, then a few of its photos were looked at);
144000+ is the pipeline's (measure_pipeline.py); 146000+ gave session 13's figures
(then a few photos were looked at), 148000+ is the pipeline's again: use 150000+ next. Each
difficulty also reports the photos whose sheet covers at least 30 % of the frame
(SHEET.md's range) apart.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.rendered import add_render_args, measure_rendered, rendered_sample  # noqa: E402
from scanner.errors import SheetNotFound  # noqa: E402
from scanner.geometry import GRID_CELLS, page_box  # noqa: E402
from scanner.pipeline import scan_photo  # noqa: E402

TOLERANCE = 0.10  # cells
SPEC_SHARE = 0.30  # SHEET.md: the sheet fills 30-95 % of the frame


def cell_centre_error(lattice: np.ndarray, truth: np.ndarray) -> float:
    """Largest distance between matching cell centres, in local cells of the truth."""
    centres = (lattice[:-1, :-1] + lattice[1:, :-1] + lattice[:-1, 1:] + lattice[1:, 1:]) / 4
    truth_c = (truth[:-1, :-1] + truth[1:, :-1] + truth[:-1, 1:] + truth[1:, 1:]) / 4
    side_x = np.linalg.norm(truth[:-1, 1:] - truth[:-1, :-1], axis=-1)
    side_y = np.linalg.norm(truth[1:, :-1] - truth[:-1, :-1], axis=-1)
    cell = np.sqrt(side_x * side_y)
    return float((np.linalg.norm(centres - truth_c, axis=-1) / cell).max())


def measure_one(args: tuple[str, int, str]) -> dict:
    folder, seed, difficulty = args
    path, truth = rendered_sample(folder, seed, difficulty)
    start = time.perf_counter()
    try:
        scan = scan_photo(path)
    except SheetNotFound:
        ms = (time.perf_counter() - start) * 1000
        return {"seed": seed, "found": False, "ms": ms, "share": sheet_share(truth)}
    ms = (time.perf_counter() - start) * 1000
    truth_lattice = np.array(truth["lattice"], float)
    share = sheet_share(truth)
    errors = [
        cell_centre_error(np.rot90(scan.lattice, k, axes=(0, 1)), truth_lattice) for k in range(4)
    ]
    return {
        "seed": seed,
        "found": min(errors) <= TOLERANCE,
        "error": min(errors),
        "orientation_ok": errors[0] <= TOLERANCE,
        "side_ok": scan.side == truth["side"],
        "coins_ok": scan.coins == truth["coins"],
        "coins": [scan.coins, truth["coins"]],
        "fit": scan.fit,
        "ms": ms,
        "share": share,
    }


def sheet_share(truth: dict) -> float:
    """Share of the photo's area the sheet's paper covers (from the truth lattice)."""
    corners = np.array(truth["lattice"], float)[[0, 0, -1, -1], [0, -1, -1, 0]]
    x, y = corners[:, 0], corners[:, 1]
    grid_area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    page = page_box()
    page_cells = (page.x1 - page.x0) * (page.y1 - page.y0)
    width, height = truth["image_size"]
    return float(grid_area * page_cells / GRID_CELLS**2 / (width * height))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_render_args(parser, n=100, seed=112000)
    parser.add_argument("--show-failures", action="store_true")
    args = parser.parse_args()
    for difficulty, rows in measure_rendered(args, measure_one):
        report(difficulty, rows, args.show_failures)


def report(difficulty: str, rows: list[dict], show_failures: bool) -> None:
    n = len(rows)
    found = [r for r in rows if r["found"]]

    def share(items, key):
        return sum(r[key] for r in items) / len(items) if items else float("nan")

    print(
        f"{difficulty:7s} n={n:4d}  found {len(found) / n:7.2%}  "
        f"side {share(found, 'side_ok'):7.2%}  orientation {share(found, 'orientation_ok'):7.2%}  "
        f"coins {share(found, 'coins_ok'):7.2%}  "
        f"median scan {np.median([r['ms'] for r in rows]):.0f} ms"
    )
    # SHEET.md: the sheet fills 30-95 % of the frame; hard renders also go smaller.
    within = [r for r in rows if r["share"] >= SPEC_SHARE]
    if within and len(within) < n:
        inside = sum(r["found"] for r in within) / len(within)
        smaller = [r for r in rows if r["share"] < SPEC_SHARE]
        print(
            f"        sheet >= {SPEC_SHARE:.0%} of the frame: {len(within)} photos, found "
            f"{inside:7.2%}; smaller: {len(smaller)} photos, found "
            f"{sum(r['found'] for r in smaller) / len(smaller):7.2%}"
        )
    if show_failures:
        for r in rows:
            bad = not r["found"] or not (r["side_ok"] and r["orientation_ok"] and r["coins_ok"])
            if bad:
                print(
                    "   ", {k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()}
                )


if __name__ == "__main__":
    main()
