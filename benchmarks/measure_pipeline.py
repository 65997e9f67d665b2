"""Photo to score, as a user gets it: rendered photos through `cartoscore score`'s path.

Renders photos with ``models.synth`` (written as JPEGs with EXIF turns, as phones
do), reads each with ``app.inputs.read_photo`` (scanner, two-sheet check, cell
model) and scores it with the cards and truth of the render. Per difficulty:

* found: a sheet came back (not an error);
* coins: the coin count read equals the one drawn;
* cells right: of the 121 cells of the found sheets;
* exact: every cell read right;
* score right: the total equals the truth's (coins as read);
* flagged: cells listed for review, per sheet;
* after checking: every misread cell was among the flagged ones and the coins
  were right, so `read`, fixing the flagged cells, then `score` gives the truth.

    python benchmarks/measure_pipeline.py --n 40 --seed 120000 --jobs 2

Seeds 120000+ are used by nothing else (tuning: 300000+, scanner figures: 110000+).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.rendered import add_render_args, measure_rendered, rendered_sample  # noqa: E402
from scoring.board import Map  # noqa: E402
from scoring.game import score_game  # noqa: E402
from scoring.layouts import LAYOUTS, parse_space  # noqa: E402


def measure_one(args: tuple[str, int, str]) -> dict:
    folder, seed, difficulty = args
    from app.inputs import read_photo
    from scanner.errors import ScanError

    path, truth = rendered_sample(folder, seed, difficulty)
    layout = LAYOUTS[truth["side"]]
    true_map = Map(tuple(truth["grid"]), layout)
    true_total = score_game([true_map], truth["cards"], truth["coins"]).total
    try:
        sheet = read_photo(path)
    except ScanError as e:
        return {"seed": seed, "found": False, "error": type(e).__name__}
    if sheet.map.layout.name != truth["side"]:
        return {"seed": seed, "found": True, "side_ok": False}
    wrong = {
        (r, c) for r in range(11) for c in range(11) if sheet.map.grid[r][c] != true_map.grid[r][c]
    }
    flagged = {parse_space(item.space) for item in sheet.review}
    coins = sheet.coins or 0
    total = score_game([sheet.map], truth["cards"], coins).total
    return {
        "seed": seed,
        "found": True,
        "side_ok": True,
        "coins_ok": coins == truth["coins"],
        "wrong": len(wrong),
        "exact": not wrong,
        "score_ok": total == true_total,
        "flagged": len(flagged),
        "checked_ok": wrong <= flagged and coins == truth["coins"],
    }


def report(difficulty: str, rows: list[dict]) -> None:
    n = len(rows)
    ok = [r for r in rows if r["found"] and r.get("side_ok")]
    cells = 121 * len(ok)
    wrong = sum(r["wrong"] for r in ok)

    def count(key: str) -> str:
        return f"{sum(r[key] for r in ok)}/{n}"

    flagged = sum(r["flagged"] for r in ok) / max(len(ok), 1)
    print(
        f"{difficulty:7s} found {len(ok)}/{n}  coins {count('coins_ok')}  "
        f"cells right {1 - wrong / max(cells, 1):.2%}  exact {count('exact')}  "
        f"score right {count('score_ok')}  flagged/sheet {flagged:.1f}  "
        f"after checking {count('checked_ok')}"
    )
    for r in rows:
        if not r["found"] or not r.get("side_ok"):
            print("    not read:", r)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_render_args(parser, n=40, seed=120000)
    args = parser.parse_args()
    for difficulty, rows in measure_rendered(args, measure_one):
        report(difficulty, rows)


if __name__ == "__main__":
    main()
