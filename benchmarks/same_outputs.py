"""Record everything the photo reader produces, or check a change left it all the same.

For a refactor meant to change nothing but speed: record the outputs before it, then
compare after. On rendered photos (``models.synth``, written as a phone writes them by
``benchmarks.rendered``; ``--variant`` paints a finger, pencil or card on each, mirrors
it, prints it in grey or puts it on a screen), each photo is scanned and read twice:
in one thread and in two (the cells read beside the coins, as ``score`` reads them).
The record keeps the canonical view's hash, the lattice, the homography, side and turn
with their confidences, the fit, the coins with their confidence and centres, every
cell's class and confidence, the review list and the notes. Floats are compared bit
for bit::

    python benchmarks/same_outputs.py --record before.json      # on the old code
    python benchmarks/same_outputs.py --against before.json     # on the new: exit 1 if not

Session 56's two rounds of speed work left every output the same on the defaults (16
normal and 24 hard photos from seed 240000) and on the variants mirror, mixed and
grey-print (seed 252000), compared with the code before them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.rendered import rendered_sample  # noqa: E402


def render(folder: Path, normal: int, hard: int, seed: int, variant: str) -> list[Path]:
    """``normal`` then ``hard`` photos from consecutive seeds (the hard ones from ``seed``
    + 8000), as :func:`benchmarks.rendered.rendered_sample` writes them."""
    paths = []
    for difficulty, count, first in (("normal", normal, seed), ("hard", hard, seed + 8000)):
        for s in range(first, first + count):
            paths.append(rendered_sample(str(folder), s, difficulty, variant)[0])
    return paths


def _plain(value):
    """``value`` as JSON keeps it exactly: arrays as nested lists, tuples as lists."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def outputs(path: Path) -> dict:
    """What reading ``path`` produced, or the error it raised."""
    from scanner.pipeline import scan_photo, sheet_from_scan

    try:
        scan = scan_photo(path)
        sheet = sheet_from_scan(scan)
    except Exception as e:  # a photo the reader refuses: the refusal is the output
        said = str(e).replace(str(path), path.name)  # not the run's temporary folder
        return {"error": f"{type(e).__name__}: {said}"}
    return {
        "view": hashlib.md5(scan.view.tobytes()).hexdigest(),
        "side": scan.side,
        "orientation": scan.orientation,
        "mirrored": scan.mirrored,
        "side_confidence": scan.side_confidence,
        "orientation_confidence": scan.orientation_confidence,
        "fit": scan.fit,
        "colour": scan.colour,
        "lattice": _plain(scan.lattice),
        "homography": _plain(scan.homography),
        "coins": scan.coins,
        "coin_confidence": scan.coin_confidence,
        "coin_centres": _plain(scan.coin_centres),
        "coins_covered": _plain(scan.coins_covered),
        "coins_cut": _plain(scan.coins_cut),
        "outside": _plain(scan.outside),
        "map": str(sheet.map),
        "confidence": _plain(sheet.confidence),
        "review": [[r.space, r.reason, sorted(r.candidates.items())] for r in sheet.review],
        "notes": list(sheet.notes),
    }


def record(paths: list[Path]) -> dict[str, dict]:
    """Each photo's outputs read in one thread and in two, by file name."""
    from scanner import cell_model, pipeline

    cell_model.set_threads(1)
    out = {}
    for overlap in (False, True):
        pipeline.set_overlap(overlap)
        for path in paths:
            out[f"{path.name} {'two threads' if overlap else 'one thread'}"] = outputs(path)
    return out


def differences(before: dict[str, dict], after: dict[str, dict]) -> list[str]:
    """One line per photo and output that changed (or photo missing on either side)."""
    lines = []
    for key in sorted(before.keys() | after.keys()):
        if key not in before or key not in after:
            lines.append(f"{key}: only in the {'record' if key in before else 'new run'}")
            continue
        old, new = before[key], after[key]
        for name in sorted(old.keys() | new.keys()):
            if old.get(name) != new.get(name):
                lines.append(f"{key}: {name} differs")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--record", type=Path, help="write the outputs to this JSON file")
    what.add_argument("--against", type=Path, help="compare with a recorded JSON file")
    ap.add_argument("--normal", type=int, default=16)
    ap.add_argument("--hard", type=int, default=24)
    ap.add_argument("--seed", type=int, default=240000)
    ap.add_argument(
        "--variant",
        default="none",
        help="none, finger, pencil, card, mixed, mirror, grey-print or screen:KIND"
        " (benchmarks.rendered)",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        now = record(render(Path(tmp), args.normal, args.hard, args.seed, args.variant))
    # Through JSON both ways, so that the comparison sees what a record keeps.
    now = json.loads(json.dumps(now))
    if args.record:
        args.record.write_text(json.dumps(now, indent=1))
        print(f"recorded {len(now)} readings in {args.record}")
        return
    lines = differences(json.loads(args.against.read_text()), now)
    for line in lines:
        print(line)
    print(f"{'all the same' if not lines else f'{len(lines)} differences'}: {len(now)} readings")
    sys.exit(1 if lines else 0)


if __name__ == "__main__":
    main()
