"""The real pipeline on held-out photos from the independent renderer (evaluation only).

Renders ``--n`` photos per difficulty with :mod:`benchmarks.heldout.render`
(a renderer written apart from ``models.synth``, never used for training or
tuning), writes them as JPEG files (some EXIF-turned), and runs
``scanner.pipeline.scan_photo`` / ``sheet_from_scan`` and
``scoring.game.score_game`` on them, as a user's photo would be.

    python -m benchmarks.heldout.measure --n 60 --difficulty normal hard --contact /tmp/heldout.png

``--model PATH`` reads with another cell model; repeated, every model reads the very same
scans and gets its own figures (``PATH@MIN_PROB,MIN_MARGIN``: with these review
thresholds; ``PATH!STEP``: without that reading step; as in
``benchmarks/measure_cells.py``). ``--scan-cache DIR`` keeps each photo's scan there and
reuses it for the same photo later (scan ahead while a model trains, compare models later
on the very same scans; delete it after a scanner change); with ``--render-only`` it also
scans.

Figures printed per difficulty: grid found (every cell centre within 10 % of a
cell of the truth lattice, whatever the turn) and within 25 % (still readable);
on the sheets within 25 % with the right side and turn: coins right, cell
accuracy (cells not printed by the layout), sheets with all 121 cells right,
sheets with the exact total, how many flagged cells were wrong (and how many
wrong cells were flagged), the commonest confusions, accuracy by drawing style.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from benchmarks.measure_cells import resolve_spec
from benchmarks.measure_scanner import cell_centre_error
from scanner.geometry import COIN_COUNT

TOLERANCE = 0.10  # cells: "grid found"
READABLE = 0.25  # cells: a looser fit whose cells are still cut well enough to read
DEFAULT_SEED = 700_000  # this renderer's own seeds; nothing else uses them


def _turned(lattice: np.ndarray, k: int) -> np.ndarray:
    return np.rot90(lattice, k, axes=(0, 1))


def render_one(job: tuple[str, int, str]) -> tuple[Path, dict]:
    """Render one photo and its truth into the folder, or reuse them if they are there."""
    from benchmarks.heldout.render import file_format, write_photo

    folder, seed, difficulty = job
    suffix = ".heic" if file_format(seed, difficulty) == "heic" else ".jpg"
    path = Path(folder) / f"{difficulty}_{seed}{suffix}"
    truth_path = path.with_suffix(".json")
    if path.exists() and truth_path.exists():
        return path, json.loads(truth_path.read_text())
    truth = write_photo(path, seed, difficulty)
    truth_path.write_text(json.dumps(truth))
    return path, truth


def _scan(path: Path, seed: int, difficulty: str, cache: str | None):
    """``(scan or None, milliseconds)`` for one photo file, from ``cache`` when it is there."""
    from benchmarks.rendered import kept_in
    from scanner.errors import SheetNotFound
    from scanner.pipeline import scan_photo

    def scan():
        start = time.perf_counter()
        try:
            found = scan_photo(path)
        except SheetNotFound:
            found = None
        return found, (time.perf_counter() - start) * 1000

    return kept_in(Path(cache) / f"{difficulty}_{seed}.pkl" if cache else None, scan)


def measure_one(job: tuple) -> list[dict]:
    """Render (or reuse) one photo, run the pipeline on its file, compare with the truth.

    The job's last item lists the ONNX cell models to read with (None: the committed
    one); the photo is scanned once and every model reads that same scan (one result each).
    """
    folder, seed, difficulty, models, *rest = job
    cache = rest[0] if rest else None
    import cv2

    cv2.setNumThreads(1)
    from benchmarks.measure_cells import use_model
    from scanner.cell_model import set_threads

    set_threads(1)
    path, truth = render_one((folder, seed, difficulty))
    out = {"seed": seed, "difficulty": difficulty, "hand": truth["hand"], "found": False}
    out["conditions"] = {
        k: (round(v, 2) if isinstance(v, float) else v)
        for k, v in truth.items()
        if k
        in (
            "size",
            "exif",
            "tilt_deg",
            "page_fraction",
            "background",
            "cell_px",
            "scan",
            "glare",
            "shadow",
            "motion",
            "jpeg_quality",
        )
    }
    scan, scan_ms = _scan(path, seed, difficulty, cache)
    if scan is None:
        out["ms"] = scan_ms
        return [dict(out, model=m) for m in models]
    tl = np.array(truth["lattice"], float)
    lat = np.asarray(scan.lattice, float)
    errs = [cell_centre_error(_turned(lat, k), tl) for k in range(4)]
    out["found"] = min(errs) < TOLERANCE
    out["readable"] = min(errs) < READABLE
    out["grid_error"] = min(errs)
    out["oriented"] = errs[0] == min(errs)
    out["side_ok"] = scan.side == truth["side"]
    out["coins"], out["coins_truth"] = int(scan.coins), int(truth["coins"])
    out["coins_seen"] = len(scan.coin_centres)
    rows = []
    for model in models:
        use_model(model)
        rows.append(_read(dict(out, model=model), scan, truth, scan_ms))
    return rows


def _read(out: dict, scan, truth: dict, scan_ms: float) -> dict:
    """Classify one scan with the current cell model and compare with the truth."""
    from scanner.pipeline import sheet_from_scan
    from scoring.board import Map
    from scoring.game import score_game
    from scoring.layouts import LAYOUTS, space_name

    start = time.perf_counter()
    sheet = sheet_from_scan(scan)
    out["ms"] = scan_ms + (time.perf_counter() - start) * 1000
    layout = LAYOUTS[truth["side"]]
    pred, true = sheet.map.grid, truth["grid"]
    flagged = {rv.space for rv in sheet.review}
    # The report says when the count is uncertain or the track is out of the photo.
    out["coin_note"] = any("coin" in note for note in sheet.notes)
    cells = []
    for r in range(11):
        for c in range(11):
            if layout.printed((r, c)) is not None:
                continue
            cells.append(
                (true[r][c], pred[r][c], space_name((r, c)) in flagged, (r, c) in layout.ruins)
            )
    out["cells"] = cells
    out["habits"] = truth.get("habits", {})
    out["all_cells_right"] = tuple(pred) == tuple(true)
    truth_total = int(truth["total"])
    try:
        got = score_game(
            [Map(tuple(pred), LAYOUTS[scan.side])], truth["cards"], int(scan.coins)
        ).total
    except ValueError:
        got = None
    out["total_ok"] = got == truth_total
    out["total_delta"] = None if got is None else got - truth_total
    return out


def report(results: list[dict], difficulty: str) -> None:
    """Print the figures for one difficulty."""
    n = len(results)
    found = [r for r in results if r["found"]]
    readable = [r for r in results if r.get("readable")]
    right = [r for r in readable if r["oriented"] and r["side_ok"]]
    coins = [r for r in right if r["coins"] == r["coins_truth"]]
    cells = [c for r in right for c in r["cells"]]
    wrong = [c for c in cells if c[0] != c[1]]
    flagged = [c for c in cells if c[2]]
    flagged_wrong = [c for c in flagged if c[0] != c[1]]
    ruins = [c for c in cells if c[3]]
    ruins_wrong = [c for c in ruins if c[0] != c[1]]
    all_right = sum(r["all_cells_right"] for r in right)
    totals = sum(r["total_ok"] for r in right)
    ms = [r["ms"] for r in results]

    def pct(a, b):
        return f"{a}/{b} ({100 * a / b:.1f}%)" if b else f"{a}/0"

    print(f"\n== held-out renderer, {difficulty}: {n} photos ==")
    print(f"grid found (every cell centre within {TOLERANCE:.0%} of a cell): {pct(len(found), n)}")
    print(f"grid within {READABLE:.0%} of a cell:             {pct(len(readable), n)}")
    print(f"side and orientation right (of those):  {pct(len(right), len(readable))}")
    print("figures below are on those sheets:")
    print(f"coins right (of those):                 {pct(len(coins), len(right))}")
    whole = [r for r in right if r.get("coins_seen", COIN_COUNT) == COIN_COUNT]
    whole_right = sum(r["coins"] == r["coins_truth"] for r in whole)
    silent = [r for r in right if r["coins"] != r["coins_truth"] and not r.get("coin_note")]
    print(
        f"  of photos showing the whole track:    {pct(whole_right, len(whole))}"
        f"; wrong with no note in the report: {len(silent)}"
    )
    print(f"cell accuracy (unprinted cells):        {pct(len(cells) - len(wrong), len(cells))}")
    print(
        f"  on ruins cells:                       {pct(len(ruins) - len(ruins_wrong), len(ruins))}"
    )
    print(f"sheets with all 121 cells right:        {pct(all_right, len(right))}")
    end_to_end = pct(totals, n)
    print(
        f"sheets with the exact total:            {pct(totals, len(right))}  (of all: {end_to_end})"
    )
    print(
        f"flagged for review: {len(flagged)} cells, "
        f"wrong among them {pct(len(flagged_wrong), len(flagged))}; "
        f"wrong cells flagged {pct(len(flagged_wrong), len(wrong))}"
    )
    conf = Counter((c[0], c[1]) for c in wrong)
    print(
        "commonest confusions (truth -> read):",
        ", ".join(f"{a}->{b} {k}" for (a, b), k in conf.most_common(8)) or "none",
    )
    by_hand = defaultdict(lambda: [0, 0, 0])
    for r in right:
        by_hand[r["hand"]][2] += 1
        for c in r["cells"]:
            by_hand[r["hand"]][0] += c[0] == c[1]
            by_hand[r["hand"]][1] += 1
    print(
        "cell accuracy by drawing style:",
        ", ".join(f"{h} {100 * a / b:.1f}% ({k})" for h, (a, b, k) in sorted(by_hand.items())),
    )
    per_terrain = defaultdict(lambda: [0, 0])
    per_design = defaultdict(lambda: [0, 0])
    for r in right:
        icons = r.get("habits", {}).get("icons", {})
        for c in r["cells"]:
            per_terrain[c[0]][0] += c[0] == c[1]
            per_terrain[c[0]][1] += 1
            if c[0] in icons:
                key = f"{c[0]}:{icons[c[0]]}"
                per_design[key][0] += c[0] == c[1]
                per_design[key][1] += 1
    print(
        "cells read right by true terrain:",
        ", ".join(f"{t} {100 * a / b:.1f}%" for t, (a, b) in sorted(per_terrain.items())),
    )
    worst = sorted(per_design.items(), key=lambda kv: kv[1][0] / kv[1][1])[:8]
    print(
        "weakest icon designs:",
        ", ".join(f"{k} {100 * a / b:.0f}% ({b} cells)" for k, (a, b) in worst),
    )
    misses = [r["seed"] for r in results if not r["found"]]
    turned = [r["seed"] for r in readable if not (r["oriented"] and r["side_ok"])]
    print(f"not found: seeds {misses}; side/orientation wrong: seeds {turned}")
    for r in results:
        if not r["found"] or not (r.get("oriented") and r.get("side_ok")):
            err = r.get("grid_error")
            err = "no sheet" if err is None else f"grid error {err:.2f} cells"
            print(f"  {r['seed']}: {err}; {r['conditions']}")
    print(f"time per photo (scan + classify): median {np.median(ms):.0f} ms, max {max(ms):.0f} ms")


def contact_sheet(folder: Path, names: list[str], out: Path, height: int = 700) -> None:
    """Thumbnails of some photos (EXIF applied, as a viewer shows them) side by side."""
    from PIL import Image, ImageOps
    from pillow_heif import register_heif_opener

    register_heif_opener()
    thumbs = []
    for name in names:
        path = next(p for p in sorted(folder.glob(name + ".*")) if p.suffix != ".json")
        im = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
        thumbs.append(im.resize((max(1, round(im.width * height / im.height)), height)))
    per_row = 4
    rows = [thumbs[i : i + per_row] for i in range(0, len(thumbs), per_row)]
    width = max(sum(t.width for t in row) for row in rows)
    sheet = Image.new("RGB", (width, height * len(rows)), (255, 255, 255))
    for i, row in enumerate(rows):
        x = 0
        for t in row:
            sheet.paste(t, (x, i * height))
            x += t.width
    sheet.save(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60, help="photos per difficulty")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="first seed")
    ap.add_argument(
        "--difficulty", nargs="+", default=["normal", "hard"], choices=["normal", "hard"]
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--folder", type=Path, default=Path("/tmp/heldout_photos"))
    ap.add_argument("--contact", type=Path, default=None, help="write a contact sheet PNG here")
    ap.add_argument("--json", type=Path, default=None, help="write every photo's result here")
    ap.add_argument("--render-only", action="store_true", help="render the photos, scan nothing")
    ap.add_argument(
        "--model",
        action="append",
        help="cell model (default: committed), optionally @MIN_PROB,MIN_MARGIN review "
        "thresholds and !STEP to leave a reading step out; repeat to compare on the same scans",
    )
    ap.add_argument("--scan-cache", type=Path, help="keep and reuse each photo's scan here")
    args = ap.parse_args(argv)
    models = [resolve_spec(m) for m in args.model] if args.model else [None]
    cache = str(args.scan_cache) if args.scan_cache else None
    args.folder.mkdir(parents=True, exist_ok=True)
    if args.render_only:
        jobs = [
            (str(args.folder), args.seed + i, d) for d in args.difficulty for i in range(args.n)
        ]
        with ProcessPoolExecutor(max(1, args.workers)) as pool:
            for path, _truth in pool.map(render_one, jobs):
                print(path)
        if cache:
            scans = [(str(args.folder), s, d, [], cache) for _, s, d in jobs]
            with ProcessPoolExecutor(max(1, args.workers)) as pool:
                list(pool.map(measure_one, scans))
            print(f"scanned {len(scans)} photos into {cache}")
        return
    everything = {}
    for difficulty in args.difficulty:
        jobs = [(str(args.folder), args.seed + i, difficulty, models, cache) for i in range(args.n)]
        t0 = time.perf_counter()
        if args.workers > 1:
            with ProcessPoolExecutor(args.workers) as pool:
                per_photo = list(pool.map(measure_one, jobs))
        else:
            per_photo = [measure_one(j) for j in jobs]
        for k, model in enumerate(models):
            results = [rows[k] for rows in per_photo]
            if len(models) > 1:
                print(f"\n#### model {model or 'committed'}")
            report(results, difficulty)
            if len(models) == 1:
                everything[difficulty] = results
            else:
                everything[f"{difficulty} {model or 'committed'}"] = results
        print(f"wall time {time.perf_counter() - t0:.0f} s (rendering included)")
    if args.contact:
        names = [f"{d}_{args.seed + i}" for d in args.difficulty for i in range(min(4, args.n))]
        contact_sheet(args.folder, names, args.contact)
        print(f"contact sheet: {args.contact}")
    if args.json:
        args.json.write_text(json.dumps(everything, default=str))


if __name__ == "__main__":
    main()
