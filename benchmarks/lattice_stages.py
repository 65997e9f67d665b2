"""How close the grid's lattice comes to the truth after each step of its refinement.

``measure_scanner.py`` says whether the winning lattice puts every cell centre within
a tenth of a cell; this says at which step a miss arises. For every rendered photo the
scanner runs as usual, and the lattice of each step of :func:`scanner.bend.lattice_stages`
(the crossings the homography's refit kept, each local pass, then the homography's grid
on flat paper or the nodes held near the paper's smooth bend) is compared with the
truth, as ``measure_scanner.py`` compares the final one::

    python benchmarks/lattice_stages.py --n 200 --seed 300000 --difficulty hard --jobs 2

Session 37 on the 200 hard tuning photos (300000+): 166 within a tenth of a cell as
measured, 184 after the second pass, 192 kept. Holding the nodes to the smooth bend
puts 9 photos within that the passes left outside and takes 1 out (300155: 0.069 ->
0.109); 7 of the 8 misses are already off after the second pass.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure_scanner import cell_centre_error  # noqa: E402
from benchmarks.rendered import add_render_args, measure_rendered, rendered_sample  # noqa: E402
from scanner import bend  # noqa: E402
from scanner.decode_scale import work_to_full  # noqa: E402
from scanner.errors import SheetNotFound  # noqa: E402
from scanner.pipeline import scan_photo  # noqa: E402

FOUND = 0.1  # cells: every cell centre this close counts as found (as measure_scanner.py)


def stage_errors(path: Path, truth: dict) -> list[tuple[str, float]] | None:
    """(step, worst cell-centre error in cells) for the lattice the scan of ``path``
    kept, step by step; None when no sheet was found."""
    seen: list = []
    stages = bend.lattice_stages

    def recording_stages(*args):
        seen[:] = stages(*args)
        return seen

    bend.lattice_stages = recording_stages
    try:
        scan = scan_photo(path)
    except SheetNotFound:
        return None
    finally:
        bend.lattice_stages = stages
    to_full = work_to_full(scan.debug["scale"])  # the steps' lattices are the working photo's
    truth_lattice = np.array(truth["lattice"], float)
    out = []
    for name, lattice in seen:
        full = cv2.perspectiveTransform(lattice.reshape(-1, 1, 2), to_full)
        out.append((name, _worst_error(full.reshape(lattice.shape), truth_lattice)))
    out.append(("kept", _worst_error(scan.lattice, truth_lattice)))
    return out


def _worst_error(lattice: np.ndarray, truth: np.ndarray) -> float:
    """Worst cell-centre error (cells) at the quarter turn that fits best (the steps'
    lattices are in the photo's turn, the scan's upright)."""
    return min(cell_centre_error(np.rot90(lattice, k, axes=(0, 1)), truth) for k in range(4))


def measure_one(args: tuple) -> dict:
    folder, seed, difficulty = args
    path, truth = rendered_sample(folder, seed, difficulty)
    return {"seed": seed, "stages": stage_errors(path, truth)}


def report(difficulty: str, rows: list[dict], show: bool) -> None:
    """Per step: photos within ``FOUND`` and the mean worst error; then the misses."""
    scanned = [r for r in rows if r["stages"] is not None]
    print(f"{difficulty}: {len(rows)} photos, {len(scanned)} with a grid")
    names: list[str] = []
    for r in scanned:
        names += [n for n, _ in r["stages"][:-1] if n not in names]
    names.append("kept")
    for name in names:
        errs = [e for r in scanned for n, e in r["stages"] if n == name]
        within = sum(e <= FOUND for e in errs)
        print(
            f"  {name:17s} {len(errs):4d} photos  within {FOUND}: {within:4d}"
            f"  mean worst {np.mean(errs):.4f} cell"
        )
    if show:
        for r in scanned:
            if r["stages"][-1][1] > FOUND:
                steps = "  ".join(f"{n} {e:.3f}" for n, e in r["stages"])
                print(f"    {r['seed']}: {steps}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_render_args(parser, n=100, seed=300000)
    parser.add_argument("--show-failures", action="store_true")
    args = parser.parse_args()
    for difficulty, rows in measure_rendered(args, measure_one):
        report(difficulty, rows, args.show_failures)


if __name__ == "__main__":
    main()
