"""Measure cell reading on rendered sheets never used in training.

``python benchmarks/measure_cells.py [--sheets 300] [--mode photo|view] [--workers 2]
[--model PATH [--model PATH ...]] [--no-consistency] [--difficulty normal hard]
[--scan-cache DIR] [--neighbour-monsters SHARE]``
(``--difficulty``: only the sheets of these difficulties, the same seeds as in a full run;
``--model``: read with another ONNX model than the committed one; given several times,
every model reads the very same scans and gets its own table; ``--no-consistency``:
without re-scoring doubtful cells by the sheet's own drawings,
``scanner.votes.sheet_consistency``; ``--scan-cache DIR``: keep each photo's scan
there and reuse it when asked for the same seed and difficulty again, so the rendering and
scanning can be done ahead, e.g. while a model trains, and a later run compares models on
the very same scans; delete the folder after a scanner change; ``--scan-only`` fills the
cache and reads nothing; a ``--model`` given as ``PATH@MIN_PROB,MIN_MARGIN`` flags cells for
review with these thresholds instead of ``scanner.classify``'s, so the same model can be
measured with two review rules in one run; ``PATH!STEP`` reads without one of the reading
steps of ``scanner.classify`` (``consistency``, ``second-look``, ``neighbours``,
``lookalikes``, ``unfilled-ruins``: the review of ruins read empty, ``shapes``: the vote
of outlined shapes, ``context``: the sheet-context model, ``farm-water``: the review of
cells read as farm that may be water; repeatable,
e.g. ``models/cells.int8.onnx!neighbours``), so a step is measured on the same scans)

``--neighbour-monsters SHARE`` renders that share of the sheets as from a game of several
players, the monsters drawn in a neighbour's hand (``models.synth``'s
``neighbour_monsters``; 0 by default, every sheet a solo player's) and adds lines by who
drew the monsters. Every run counts the monster cells misread and flagged, by who drew them.

``--mode photo`` (default when the scanner pipeline exists) renders full photos with
``models.synth.make_photo`` and reads them end to end with ``scanner.pipeline``'s
``scan_photo`` and ``sheet_from_scan``; ``--mode view`` renders the canonical
rectified view with ``models.synth.make_view`` and classifies its crops (the
classifier alone).

Reports, by difficulty and by drawing style: cell accuracy, share of sheets with all
121 cells right, share of sheets whose total score (``scoring.game.score_game`` on the
final map with the sheet's dealt cards) is exact with the true coins ("exacttot") and
with the coins the scanner read ("+coins", photo mode), sheets flagged for review,
flagged cells per sheet, and how many of the wrong cells were among the flagged ones;
then, per difficulty, the commonest misreadings (truth>read, ruins spaces apart; ``--json``
keeps every sheet's as ``misread``).
A sheet the scanner fails on counts as 121 wrong cells. Test seeds start at 3,000,000
(training uses 0.., validation 1,000,000..).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
import traceback
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TEST_SEED = 3_000_000
DIFFICULTIES = ("clean", "normal", "hard")
FALLBACK_CARDS = {"A": "sentinel-wood", "B": "canal-lake", "C": "great-city", "D": "borderlands"}


def _total(grid, side: str, cards: dict, coins: int) -> int:
    from scoring.board import Map
    from scoring.game import score_game
    from scoring.layouts import LAYOUTS

    return score_game([Map(tuple(grid), LAYOUTS[side])], cards, coins).total


def _render_and_scan(
    seed: int, difficulty: str, mode: str, cache: str | None, neighbour: float = 0.0
):
    """``(scan, view, truth, scan_seconds)`` for one seed, from ``cache`` when it is there
    (``neighbour``: the share of sheets whose monsters a neighbour drew)."""
    from benchmarks.rendered import kept_in
    from models import synth

    def render_and_scan():
        scan = view = None
        if mode == "photo":
            from scanner.pipeline import scan_photo

            photo, truth = synth.make_photo(seed, difficulty, neighbour_monsters=neighbour)
            t0 = time.perf_counter()
            scan = scan_photo(photo)
            scan_seconds = time.perf_counter() - t0
        else:
            view, truth = synth.make_view(seed, difficulty, neighbour_monsters=neighbour)
            scan_seconds = 0.0
        return scan, view, truth, scan_seconds

    name = f"{mode}-{difficulty}-{seed}" + (f"-nb{neighbour:g}" if neighbour else "")
    path = Path(cache) / f"{name}.pkl" if cache else None
    return kept_in(path, render_and_scan)


#: Reading steps a model spec can leave out with ``!STEP`` (keywords of ``classify_cells``).
STEPS = (
    "consistency",
    "second-look",
    "neighbours",
    "lookalikes",
    "unfilled-ruins",
    "shapes",
    "context",
    "farm-water",
    "doubted",
)


def model_spec(spec: str | None) -> tuple[Path | None, tuple[float, float] | None]:
    """``PATH`` or ``PATH@MIN_PROB,MIN_MARGIN`` -> the model and its review thresholds
    (any ``!STEP`` suffixes, see :func:`steps_left_out`, ignored; no ``PATH``, as in
    ``!context``: the committed model, None)."""
    if spec is None:
        return None, None
    path, _, review = spec.split("!")[0].partition("@")
    model = Path(path) if path else None
    if not review:
        return model, None
    min_prob, min_margin = (float(v) for v in review.split(","))
    return model, (min_prob, min_margin)


def steps_left_out(spec: str | None) -> set[str]:
    """The reading steps a spec's ``!STEP`` suffixes leave out, e.g. ``PATH!neighbours``."""
    steps = set((spec or "").split("!")[1:])
    unknown = steps - set(STEPS)
    if unknown:
        raise ValueError(f"unknown reading step(s) {sorted(unknown)}; known: {', '.join(STEPS)}")
    return steps


def resolve_spec(spec: str) -> str:
    """The spec with its model path made absolute (worker processes may run elsewhere)."""
    steps_left_out(spec)  # fail early on a misspelt step
    cut = min((i for i in (spec.find("@"), spec.find("!")) if i >= 0), default=len(spec))
    if cut == 0:  # no path: the committed model
        return spec
    return str(Path(spec[:cut]).resolve()) + spec[cut:]


_CLASSIFY_CELLS = None


def use_model(spec: str | None, mirror: bool = False) -> None:
    """Make ``scanner.pipeline`` read with this model spec (None: the committed model,
    every step on), every cell also read mirrored with ``mirror``."""
    from scanner import cell_model, classify

    global _CLASSIFY_CELLS
    if _CLASSIFY_CELLS is None:
        _CLASSIFY_CELLS = classify.classify_cells
        _CLASSIFY_CELLS.default_model = cell_model.MODEL_PATH
    path, review = model_spec(spec)
    out = steps_left_out(spec)
    # Each step named after "!" is left out: its classify_cells keyword set False.
    options = {step.replace("-", "_"): False for step in out}
    if review is not None:
        options.update(min_prob=review[0], min_margin=review[1])
    cell_model.MODEL_PATH = path or _CLASSIFY_CELLS.default_model
    classify.classify_cells = functools.partial(_CLASSIFY_CELLS, mirror=mirror, **options)


def measure_one(
    job: tuple[int, str, str, bool, list[str | None], str | None, float],
) -> list[dict]:
    """Render one sheet and read it with each model; per model, what was right and flagged.

    The photo is rendered and scanned once; every model classifies the same scan.
    """
    import cv2

    cv2.setNumThreads(1)

    seed, difficulty, mode, mirror, models, cache, neighbour = job
    try:
        scan, view, truth, scan_seconds = _render_and_scan(seed, difficulty, mode, cache, neighbour)
        if not models:  # --scan-only
            return []
    except Exception as e:  # a failed read is a measured outcome
        trace = traceback.format_exc(limit=3)
        failed = f"{type(e).__name__}: {e}"
        return [
            {
                "seed": seed,
                "difficulty": difficulty,
                "model": m,
                "style": "?",
                "failed": failed,
                "trace": trace,
            }
            for m in models
        ]
    rows = []
    for model in models:
        use_model(model, mirror)
        rows.append(_read(seed, difficulty, model, scan, view, truth, scan_seconds))
    return rows


def _read(seed, difficulty, model, scan, view, truth, scan_seconds) -> dict:
    """Classify one scan (or canonical view) with the current model and compare."""
    from scanner import classify

    out: dict = {"seed": seed, "difficulty": difficulty, "model": model}
    t0 = time.perf_counter()
    try:
        if scan is not None:
            from scanner.pipeline import sheet_from_scan

            sheet = sheet_from_scan(scan)
            grid, side = sheet.map.grid, sheet.map.layout.name
            flagged = {r.space for r in sheet.review}
            coins_read = sheet.coins
        else:
            from scanner.cells import cut_cells
            from scoring.layouts import LAYOUTS

            side = truth["side"]
            reading = classify.classify_cells(cut_cells(view), LAYOUTS[side])
            grid = reading.grid
            flagged = {r.space for r in reading.review}
            coins_read = None
    except Exception as e:  # a failed read is a measured outcome
        out.update(style="?", failed=f"{type(e).__name__}: {e}")
        out["trace"] = traceback.format_exc(limit=3)
        return out
    from scoring.layouts import LAYOUTS, space_name

    true_grid = truth["grid"]
    bad = [(r, c) for r in range(11) for c in range(11) if grid[r][c] != true_grid[r][c]]
    wrong = [space_name(rc) for rc in bad]
    ruins = LAYOUTS[truth["side"]].ruins
    # What each wrong cell was, and was read as: "T>F", "ruins .>F" (a bare icon as a farm).
    misread = [
        f"{'ruins ' if rc in ruins else ''}{true_grid[rc[0]][rc[1]]}>{grid[rc[0]][rc[1]]}"
        for rc in bad
    ]
    cards = truth.get("cards") or FALLBACK_CARDS
    coins = int(truth.get("coins", 0))
    side_right = side == truth["side"]
    true_total = _total(true_grid, truth["side"], cards, coins)
    exact = side_right and _total(grid, side, cards, coins) == true_total
    # End to end: the coins as the scanner read them too (photo mode only).
    exact_e2e = (
        exact and _total(grid, side, cards, coins_read) == true_total
        if coins_read is not None
        else exact
    )
    monsters = [(r, c) for r in range(11) for c in range(11) if true_grid[r][c] == "M"]
    out.update(
        style=str(truth.get("style", "?")),
        monsters_by=truth.get("monsters_by", "owner"),
        monster_cells=len(monsters),
        monster_cells_misread=sum(1 for rc in monsters if rc in bad),
        monster_cells_misread_flagged=sum(
            1 for rc in monsters if rc in bad and space_name(rc) in flagged
        ),
        wrong=wrong,
        misread=misread,
        flagged=sorted(flagged),
        side_right=side_right,
        exact_total=exact,
        exact_total_read_coins=exact_e2e,
        seconds=scan_seconds + time.perf_counter() - t0,
    )
    return out


def summarise(rows: list[dict]) -> dict:
    """Aggregate figures for a group of measured sheets."""
    done = [r for r in rows if "failed" not in r]
    cells = 121 * len(rows)
    wrong = sum(len(r["wrong"]) for r in done) + 121 * (len(rows) - len(done))
    wrong_flagged = sum(len(set(r["wrong"]) & set(r["flagged"])) for r in done)
    wrong_done = sum(len(r["wrong"]) for r in done)
    n = max(len(rows), 1)
    return {
        "sheets": len(rows),
        "failed": len(rows) - len(done),
        "cell_accuracy": 1 - wrong / max(cells, 1),
        "sheets_all_right": sum(1 for r in done if not r["wrong"]) / n,
        "exact_total": sum(1 for r in done if r["exact_total"]) / n,
        "exact_total_read_coins": sum(1 for r in done if r["exact_total_read_coins"]) / n,
        "sheets_flagged": sum(1 for r in done if r["flagged"]) / n,
        "flagged_cells_per_sheet": sum(len(r["flagged"]) for r in done) / max(len(done), 1),
        "wrong_cells": wrong_done,
        "wrong_flagged": wrong_flagged,
        "wrong_flagged_share": wrong_flagged / wrong_done if wrong_done else 1.0,
    }


def _line(name: str, s: dict) -> str:
    return (
        f"{name:<24} {s['sheets']:>5} {s['failed']:>4} {s['cell_accuracy']:>9.3%} "
        f"{s['sheets_all_right']:>8.1%} {s['exact_total']:>8.1%} "
        f"{s['exact_total_read_coins']:>8.1%} {s['sheets_flagged']:>8.1%} "
        f"{s['flagged_cells_per_sheet']:>6.2f} {s['wrong_cells']:>6} "
        f"{s['wrong_flagged_share']:>8.1%}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=300)
    ap.add_argument("--mode", choices=("photo", "view"), default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, help="also write every sheet's result here")
    ap.add_argument("--first-seed", type=int, default=TEST_SEED)
    ap.add_argument("--mirror", action="store_true", help="classify_cells with mirror averaging")
    ap.add_argument(
        "--model",
        action="append",
        help="ONNX model to read with (default: committed), optionally @MIN_PROB,MIN_MARGIN "
        "review thresholds and !STEP to leave a reading step out; repeat to compare on the "
        "same scans",
    )
    ap.add_argument("--scan-cache", type=Path, help="keep and reuse each photo's scan here")
    ap.add_argument("--scan-only", action="store_true", help="fill --scan-cache, read nothing")
    ap.add_argument(
        "--no-consistency", action="store_true", help="classify_cells without sheet consistency"
    )
    ap.add_argument(
        "--neighbour-monsters",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of sheets whose monsters a neighbour drew (a game of several players)",
    )
    ap.add_argument(
        "--difficulty",
        nargs="+",
        choices=DIFFICULTIES,
        default=list(DIFFICULTIES),
        help="only these difficulties' sheets (each seed keeps its difficulty)",
    )
    args = ap.parse_args()
    if not 0.0 <= args.neighbour_monsters <= 1.0:
        ap.error(f"--neighbour-monsters {args.neighbour_monsters}: a share from 0 to 1")
    mode = args.mode
    if mode is None:
        try:
            import scanner.pipeline  # noqa: F401

            mode = "photo"
        except ImportError:
            mode = "view"
    seeds = range(args.first_seed, args.first_seed + args.sheets)
    models = [resolve_spec(m) for m in args.model] if args.model else [None]
    if args.scan_only:
        if not args.scan_cache:
            ap.error("--scan-only needs --scan-cache")
        models = []
    if args.no_consistency:  # the same as '!consistency' on every model
        from scanner.cell_model import MODEL_PATH

        models = [f"{m or resolve_spec(str(MODEL_PATH))}!consistency" for m in models]
    cache = str(args.scan_cache) if args.scan_cache else None
    jobs = [
        (s, DIFFICULTIES[i % 3], mode, args.mirror, models, cache, args.neighbour_monsters)
        for i, s in enumerate(seeds)
        if DIFFICULTIES[i % 3] in args.difficulty
    ]
    t0 = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(measure_one, jobs, chunksize=2))
    else:
        results = [measure_one(j) for j in jobs]
    elapsed = time.perf_counter() - t0
    everything = [row for sheet in results for row in sheet]
    if not models:
        print(f"scanned {len(jobs)} sheets into {cache} in {elapsed:.0f} s")
    for model in models:
        if len(models) > 1:
            print(f"\n=== model {model} ===")
        _report([r for r in everything if r["model"] == model], mode, args, seeds, elapsed)
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))


def _report(rows: list[dict], mode: str, args, seeds: range, elapsed: float) -> None:
    """Print the tables for one model's rows."""
    consistency = not args.no_consistency

    print(
        f"mode {mode}{' +mirror' if args.mirror else ''}"
        f"{'' if consistency else ' -consistency'}: {len(rows)} sheets, "
        f"seeds {seeds.start}..{seeds.stop - 1}, {elapsed:.0f} s"
    )
    head = (
        f"{'group':<24} {'shts':>5} {'fail':>4} {'cells':>9} {'allright':>8} {'exacttot':>8} "
        f"{'+coins':>8} "
        f"{'flagged':>8} {'fl/sh':>6} {'wrong':>6} {'wr.flag':>8}"
    )
    print(head)
    print(_line("all", summarise(rows)))
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[f"diff={r['difficulty']}"].append(r)
    for r in rows:
        groups[f"style={r['style']}"].append(r)
    for r in rows:
        groups[f"{r['difficulty'][:4]}/{r['style']}"].append(r)
    if args.neighbour_monsters:
        for r in rows:
            if "failed" not in r:
                groups[f"monsters={r['monsters_by']}"].append(r)
    for name in sorted(groups, key=lambda k: (not k.startswith("diff"), k)):
        print(_line(name, summarise(groups[name])))
    for diff in DIFFICULTIES:
        pairs = Counter(m for r in rows if r["difficulty"] == diff for m in r.get("misread", ()))
        if pairs:
            common = ", ".join(f"{m} {n}" for m, n in pairs.most_common(8))
            print(f"most misread ({diff}, truth>read): {common}")
    for hand in ("owner", "neighbour"):
        mine = [r for r in rows if r.get("monsters_by") == hand]
        if mine:
            cells = sum(r["monster_cells"] for r in mine)
            misread = sum(r["monster_cells_misread"] for r in mine)
            listed = sum(r["monster_cells_misread_flagged"] for r in mine)
            print(
                f"monster cells drawn by the {hand}: {cells}, misread {misread}"
                f" ({listed} of them flagged)"
            )
    failures = [r for r in rows if "failed" in r]
    for r in failures[:10]:
        print(f"failed seed {r['seed']} ({r['difficulty']}): {r['failed']}")
    times = sorted(r["seconds"] for r in rows if "seconds" in r)
    if times:
        print(f"read time per sheet: median {times[len(times) // 2] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
