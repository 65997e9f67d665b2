"""How cells and coins are read when rendered games are drawn into a photo of a real blank sheet.

``python benchmarks/drawn_on_photo.py PHOTO... [--sheets 10] [--seed 0] [--model PATH]
[--keep DIR]``

Our renders are drawn on our own look-alike printing; the sheets users photograph carry
the publisher's. This puts the two together: the scanner finds the grid in each photo of
a blank, unplayed sheet (your own copy, photographed flat in good light); then, ``--sheets``
times, a game is played (``models.synth``: its map, a player's drawing style and habits,
the coins marked, the season scores written) and its ink is rendered on white paper at
the photo's scale, warped into the photo through the scanner's homography and multiplied
into it, as pencil darkens paper. Each composite is written as a JPEG and read end to end
as ``cartoscore score`` reads a photo; its map and coins are compared with the game's.

Reports per photo and in all: how often the grid is found off (a cell centre more
than a tenth of a cell from where the scanner puts it on the blank photo), cells right
(the printed mountains and wasteland apart: the layout fixes them), sheets entirely
right, coin counts right, how many misread cells the review lists, the commonest
misreadings (truth>read), and the same by drawing style.
The photo's own light, print, paper and camera stay as they were; only the drawing is
ours. Seeds count from ``--seed`` per photo; styles take turns.
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

from models.synth.draw import STYLES, add_habits, draw_game, random_style  # noqa: E402
from models.synth.game import simulate_game  # noqa: E402
from models.synth.template import page_canvas, random_printing  # noqa: E402
from models.synth.truth import written_numbers  # noqa: E402
from scanner.detect import cell_size_px  # noqa: E402
from scanner.errors import ScanError  # noqa: E402
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


def centre_error(lattice: np.ndarray, truth: np.ndarray) -> float:
    """Largest distance between the cell centres of two lattices, in cells of ``truth``."""

    def centres(a: np.ndarray) -> np.ndarray:
        return (a[:-1, :-1] + a[1:, 1:] + a[:-1, 1:] + a[1:, :-1]) / 4

    cell = np.linalg.norm(truth[0, -1] - truth[0, 0]) / (len(truth) - 1)
    return float(np.linalg.norm(centres(lattice) - centres(truth), axis=-1).max() / cell)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("photos", nargs="+", help="photos of blank, unplayed sheets")
    ap.add_argument("--sheets", type=int, default=10, help="games drawn into each photo")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", help="cell model (default: the committed one)")
    ap.add_argument("--keep", help="keep the drawn photos in this folder")
    args = ap.parse_args()
    if args.model:
        from scanner import classify

        classify.MODEL_PATH = Path(args.model)
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
                cv2.imwrite(str(out), draw_into(photo, layer, cv, scan.homography))
                try:
                    drawn = scan_photo(str(out))
                    sheet = sheet_from_scan(drawn)
                except ScanError as err:
                    print(f"  seed {seed} ({style}): {err}")
                    for tally in (here, totals["all"], totals[style]):
                        tally.update(sheets=1, cells=len(free), wrong=len(free), grid_off=1)
                    continue
                reviewed = {item.space for item in sheet.review}
                wrong = [(r, c) for r, c in free if sheet.map.grid[r][c] != game.grid[r][c]]
                for r, c in wrong:
                    misread[f"{game.grid[r][c]}>{sheet.map.grid[r][c]}"] += 1
                flagged = sum(space_name(rc) in reviewed for rc in wrong)
                off = centre_error(drawn.lattice, scan.lattice) > 0.1
                for tally in (here, totals["all"], totals[style]):
                    tally.update(
                        sheets=1,
                        cells=len(free),
                        wrong=len(wrong),
                        flagged=flagged,
                        all_right=not wrong,
                        coins_right=sheet.coins == game.coins,
                        listed=len(sheet.review),
                        grid_off=off,
                        wrong_on_grid=len(wrong) if not off else 0,
                    )
            print(f"{photo_path}: side {scan.side}, {ppc:.0f} px per cell; {_line(here)}")
    print()
    for name, tally in sorted(totals.items(), key=lambda kv: kv[0] != "all"):
        print(f"{name:18s} {_line(tally)}")
    print("commonest misreadings:", ", ".join(f"{k} {n}" for k, n in misread.most_common(10)))


def _line(t: Counter) -> str:
    if not t["sheets"]:
        return "no sheets"
    right = 100 * (1 - t["wrong"] / max(t["cells"], 1))
    found = t["sheets"] - t["grid_off"]
    right_found = 100 * (1 - t["wrong_on_grid"] / max(found * t["cells"] / t["sheets"], 1))
    return (
        f"{t['sheets']} sheets: grid off {t['grid_off']}; cells right {right:.2f} % "
        f"({right_found:.2f} % where the grid is right), all right {t['all_right']}, "
        f"coins right {t['coins_right']}, misread {t['wrong']} (listed for review "
        f"{t['flagged']}), listed cells per sheet {t['listed'] / t['sheets']:.1f}"
    )


if __name__ == "__main__":
    main()
