"""How cells and coins are read when rendered games are drawn into a photo of a real blank sheet.

``python benchmarks/drawn_on_photo.py PHOTO... [--sheets 10] [--seed 0] [--model SPEC]
[--against SPEC] [--keep DIR] [--reshoot normal|hard] [--filter grey|bw|document]``

Our renders are drawn on our own look-alike printing; the sheets users photograph carry
the publisher's. This puts the two together: the scanner finds the grid in each photo of
a blank, unplayed sheet (your own copy, photographed flat in good light); then, ``--sheets``
times, a game is played (``models.synth``: its map, a player's drawing style and habits,
the coins marked, the season scores written) and its ink is rendered on white paper at
the photo's scale, warped into the photo through the scanner's homography and multiplied
into it, as pencil darkens paper. Each composite is written as a JPEG and read end to end
as ``cartoscore score`` reads a photo; its map and coins are compared with the game's.

With ``--reshoot``, each composite is then photographed again the way ``models.synth``
photographs its own renders at that difficulty (:func:`reshoot`: on a table, turned,
tilted, bent, lit, blurred, compressed), so the publisher's print meets the photos of
SHEET.md rather than one flat shot; the photo's paper and print stay, its light is
added to.

With ``--filter``, each composite (re-shot or not) is passed through what a scanner app
or a scanner's grey mode makes of it (benchmarks/scan_filters.py: ``grey``, a thresholded
``bw``, a whitened and colour-boosted ``document``) before it is read.

Reports per photo and in all: how often the grid is found off (a cell centre more
than a tenth of a cell from where the scanner puts it on the blank photo, or from where
the re-shoot put the grid; also among the photos whose sheet fills at least 30 % of the
frame, SHEET.md's range), how often the side or the way up is wrong, cells right
(the printed mountains and wasteland apart: the layout fixes them), sheets entirely
right, coin counts right, how many misread cells the review lists, the commonest
misreadings (truth>read), and the same by drawing style; before each photo's line, every
sheet with a misread cell (its seed, style and commonest misreadings).
The photo's own light, print, paper and camera stay as they were; only the drawing is
ours. Seeds count from ``--seed`` per photo; styles take turns.

``--model`` takes ``measure_cells.py``'s specs: a model file, review thresholds after
``@``, reading steps left out after ``!`` (``!context`` alone: the committed model
without the sheet-context step). ``--against SPEC`` reads every composite a second time
with another spec, on the same scan, and counts the free cells the two readings differ
on: right only as ``--model`` reads them, right only as ``SPEC`` does, or wrong both
ways (e.g. ``--against '!context'``: what the context step mends and breaks on the
real print).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import scan_filters  # noqa: E402
from benchmarks.measure_cells import resolve_spec, use_model  # noqa: E402
from benchmarks.measure_scanner import (  # noqa: E402
    SPEC_SHARE,
    cell_centre_error,
    sheet_share,
)
from models.synth import scene  # noqa: E402
from models.synth.draw import STYLES, add_habits, draw_game, random_style  # noqa: E402
from models.synth.game import simulate_game  # noqa: E402
from models.synth.photo import photograph, random_shot  # noqa: E402
from models.synth.template import page_canvas, random_printing  # noqa: E402
from models.synth.truth import written_numbers  # noqa: E402
from models.synth.warp import canvas_to_image, project  # noqa: E402
from scanner.detect import cell_size_px  # noqa: E402
from scanner.errors import ScanError  # noqa: E402
from scanner.geometry import GRID_CELLS, page_box  # noqa: E402
from scanner.pipeline import scan_photo, sheet_from_scan  # noqa: E402
from scoring.layouts import LAYOUTS, space_name  # noqa: E402


def ink_layer(seed: int, side: str, style: str, ppc: float):
    """A game on ``side`` drawn in ``style`` on white paper: (BGR image, its canvas, game)."""
    rng = np.random.default_rng([seed, 7])
    game = simulate_game(rng, side)
    drawing = random_style(rng, style)
    art = np.random.default_rng(int(rng.integers(2**63)))
    printing = random_printing(rng, side)
    cv = page_canvas(ppc)
    drawing = add_habits(drawing, art)
    white = cv.blank(3, 255)
    return draw_game(white, cv, printing, game, drawing, written_numbers(game), art), cv, game


def draw_into(photo: np.ndarray, layer: np.ndarray, cv, homography: np.ndarray) -> np.ndarray:
    """``photo`` darkened by ``layer`` (255 = no ink), the layer's canvas mapped by
    ``homography`` (cell units -> photo pixels)."""
    s = 1.0 / cv.ppc
    to_cells = np.array([[s, 0, cv.origin[0] + 0.5 * s], [0, s, cv.origin[1] + 0.5 * s], [0, 0, 1]])
    h, w = photo.shape[:2]
    warped = cv2.warpPerspective(
        layer,
        homography @ to_cells,
        (w, h),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(255, 255, 255),
    )
    return cv2.multiply(photo, warped, scale=1 / 255)


def reshoot(
    photo: np.ndarray, homography: np.ndarray, seed: int, difficulty: str
) -> tuple[np.ndarray, np.ndarray]:
    """``photo`` (a sheet photographed flat, its grid at ``homography``) photographed again
    as ``models.synth`` photographs its renders at ``difficulty``: the page is cut out along
    our template's page outline at the photo's own scale, then laid on a table, bent,
    tilted, turned, lit, blurred and JPEG-compressed. Returns the new photo and its grid's
    true 12 x 12 lattice (image pixels)."""
    rng = np.random.default_rng([seed, 11])
    shot = random_shot(rng, difficulty)
    cv = page_canvas(cell_size_px(homography))
    flat = cv2.warpPerspective(
        photo,
        canvas_to_image(homography, cv),
        (cv.width, cv.height),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    p = page_box()
    alpha = cv.blank(1)
    cv.rect(alpha, p.x0, p.y0, p.x1, p.y1, 255)
    img = photograph(flat, alpha, cv, shot, rng, difficulty)
    shot_photo, _ = scene.jpeg_roundtrip(img, shot.jpeg)
    n = GRID_CELLS
    nodes = np.stack(np.meshgrid(np.arange(n + 1), np.arange(n + 1)), -1).astype(np.float64)
    return shot_photo, project(shot.homography, shot.curl, nodes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("photos", nargs="+", help="photos of blank, unplayed sheets")
    ap.add_argument("--sheets", type=int, default=10, help="games drawn into each photo")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--model",
        help="cell model spec as measure_cells.py's: PATH[@MIN_PROB,MIN_MARGIN][!STEP...]"
        " (default: the committed one, every reading step on)",
    )
    ap.add_argument(
        "--against",
        metavar="SPEC",
        help="also read each composite with this spec and count the cells the readings differ on",
    )
    ap.add_argument("--keep", help="keep the drawn photos in this folder")
    ap.add_argument(
        "--reshoot",
        choices=("normal", "hard"),
        help="photograph each drawn sheet again as a synthetic photo of this difficulty",
    )
    ap.add_argument(
        "--filter",
        choices=scan_filters.FILTERS,
        help="pass each drawn photo through a scanner app's filter (benchmarks/scan_filters.py)",
    )
    args = ap.parse_args()
    try:
        model = resolve_spec(args.model) if args.model else None
        against = resolve_spec(args.against) if args.against else None
    except ValueError as err:
        ap.error(str(err))
    use_model(model)
    changes = Counter()
    totals: dict[str, Counter] = defaultdict(Counter)
    misread: Counter = Counter()
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(args.keep or scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        for photo_path in args.photos:
            photo = cv2.imread(photo_path, cv2.IMREAD_COLOR)
            try:
                if photo is None:
                    raise ScanError(photo_path, "not an image")
                scan = scan_photo(photo)
            except ScanError as err:
                print(f"{photo_path}: {err}")
                continue
            ppc = max(16.0, cell_size_px(scan.homography))
            layout = LAYOUTS[scan.side]
            free = [(r, c) for r in range(11) for c in range(11) if layout.printed((r, c)) is None]
            here = Counter()
            for k in range(args.sheets):
                seed = args.seed + k
                style = STYLES[k % len(STYLES)]
                layer, cv, game = ink_layer(seed, scan.side, style, ppc)
                out = tmp / f"{Path(photo_path).stem}-{seed}-{style}.jpg"
                composite = draw_into(photo, layer, cv, scan.homography)
                truth = scan.lattice
                if args.reshoot:
                    composite, truth = reshoot(composite, scan.homography, seed, args.reshoot)
                if args.filter:
                    composite = scan_filters.apply(args.filter, composite)
                size = composite.shape[1::-1]
                in_range = sheet_share({"lattice": truth, "image_size": size}) >= SPEC_SHARE
                cv2.imwrite(str(out), composite)
                try:
                    drawn = scan_photo(str(out))
                    sheet = sheet_from_scan(drawn)
                except ScanError as err:
                    print(f"  seed {seed} ({style}): {err}")
                    for tally in (here, totals["all"], totals[style]):
                        tally.update(
                            sheets=1,
                            cells=len(free),
                            wrong=len(free),
                            grid_off=1,
                            in_range=int(in_range),
                            off_in_range=int(in_range),
                        )
                    continue
                if args.against:
                    use_model(against)
                    other = sheet_from_scan(drawn).map.grid
                    use_model(model)
                    changes.update(reading_changes(game.grid, sheet.map.grid, other, free))
                reviewed = {item.space for item in sheet.review}
                wrong = [(r, c) for r, c in free if sheet.map.grid[r][c] != game.grid[r][c]]
                for r, c in wrong:
                    misread[f"{game.grid[r][c]}>{sheet.map.grid[r][c]}"] += 1
                flagged = sum(space_name(rc) in reviewed for rc in wrong)
                if wrong:
                    kinds = Counter(f"{game.grid[r][c]}>{sheet.map.grid[r][c]}" for r, c in wrong)
                    print(
                        f"  seed {seed} ({style}): {len(wrong)} misread ("
                        + ", ".join(f"{k} {n}" for k, n in kinds.most_common(3))
                        + f"), {flagged} of them listed"
                    )
                errors = [
                    cell_centre_error(np.rot90(drawn.lattice, k, axes=(0, 1)), truth)
                    for k in range(4)
                ]
                off = min(errors) > 0.1
                if off:
                    where = "in" if in_range else "outside"
                    print(
                        f"  seed {seed} ({style}): grid {min(errors):.3f} cell off (the sheet"
                        f" {where} SHEET.md's range)"
                    )
                wrong_way = not off and (errors[0] > 0.1 or drawn.side != scan.side)
                # Counts as ints: a Counter's first update keeps the values as given, and a
                # style's one sheet printed "grid off False".
                for tally in (here, totals["all"], totals[style]):
                    tally.update(
                        sheets=1,
                        cells=len(free),
                        wrong=len(wrong),
                        flagged=flagged,
                        all_right=int(not wrong),
                        coins_right=int(sheet.coins == game.coins),
                        listed=len(sheet.review),
                        grid_off=int(off),
                        in_range=int(in_range),
                        off_in_range=int(off and in_range),
                        wrong_way=int(wrong_way),
                        wrong_on_grid=len(wrong) if not off else 0,
                    )
            print(f"{photo_path}: side {scan.side}, {ppc:.0f} px per cell; {_line(here)}")
    print()
    for name, tally in sorted(totals.items(), key=lambda kv: kv[0] != "all"):
        print(f"{name:18s} {_line(tally)}")
    print("commonest misreadings:", ", ".join(f"{k} {n}" for k, n in misread.most_common(10)))
    if args.against:
        print(
            f"read differently with {args.against}: {sum(changes.values())} cells; right only"
            f" as --model reads them {changes['model']}, right only with {args.against}"
            f" {changes['against']}, wrong both ways {changes['neither']}"
        )


def reading_changes(truth, read, other, spaces) -> Counter:
    """Of the ``spaces`` two readings of one sheet differ on: how many only ``read`` has
    right (``model``), only ``other`` (``against``), or neither (grids as rows of symbols)."""
    out: Counter = Counter()
    for r, c in spaces:
        if read[r][c] == other[r][c]:
            continue
        if read[r][c] == truth[r][c]:
            out["model"] += 1
        elif other[r][c] == truth[r][c]:
            out["against"] += 1
        else:
            out["neither"] += 1
    return out


def _line(t: Counter) -> str:
    if not t["sheets"]:
        return "no sheets"
    right = 100 * (1 - t["wrong"] / max(t["cells"], 1))
    found = t["sheets"] - t["grid_off"]
    right_found = 100 * (1 - t["wrong_on_grid"] / max(found * t["cells"] / t["sheets"], 1))
    return (
        f"{t['sheets']} sheets: grid off {t['grid_off']} (of {t['in_range']} in SHEET.md's "
        f"range: {t['off_in_range']}), side or turn wrong {t['wrong_way']}; "
        f"cells right {right:.2f} % ({right_found:.2f} % where the grid is right), "
        f"all right {t['all_right']}, "
        f"coins right {t['coins_right']}, misread {t['wrong']} (listed for review "
        f"{t['flagged']}), listed cells per sheet {t['listed'] / t['sheets']:.1f}"
    )


if __name__ == "__main__":
    main()
