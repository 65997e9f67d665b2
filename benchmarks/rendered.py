"""What the benchmarks that render photos with ``models.synth`` and measure each share.

A photo is rendered once per (seed, difficulty) into a folder, with its truth
next to it; ``--dir`` keeps the folder for another run or for looking at misses.
With ``occlude`` (benchmarks/occlude.py) a finger, pencil or card is painted on
the rendered picture before it is saved; the truth then also says which kind
was drawn, each cell's covered share and the occluder's opacity on each coin
("occluder", "covered", "coins_covered"). With
``occlude`` "screen:KIND" the picture is put on a phone or computer screen
instead (benchmarks/screenshot.py) and the truth says which ("screenshot"); with
"grey-print" the game is drawn on a black-and-white home print (benchmarks/grey_print.py;
the truth's "print" says "grey").
"""

from __future__ import annotations

import argparse
import json
import pickle
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def add_render_args(parser: argparse.ArgumentParser, n: int, seed: int) -> None:
    """--n, --seed, --difficulty, --jobs and --dir, with these defaults."""
    parser.add_argument("--n", type=int, default=n, help="photos per difficulty")
    parser.add_argument("--seed", type=int, default=seed, help="first seed")
    parser.add_argument("--difficulty", nargs="+", default=["clean", "normal", "hard"])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--dir", help="keep the photos here (default: a temporary folder)")


def kept_in(path: Path | None, compute: Callable[[], object]):
    """``compute()``, pickled into ``path`` (written whole or not at all), or read back
    from it when an earlier run left it there. ``path`` None: just ``compute()``."""
    if path is not None and path.is_file():
        return pickle.loads(path.read_bytes())
    out = compute()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps(out))
        tmp.replace(path)
    return out


def rendered_sample(
    folder: str, seed: int, difficulty: str, occlude: str = "none"
) -> tuple[Path, dict]:
    """The photo file and its truth, rendered now unless the folder has them.

    ``occlude`` other than "none" paints that occluder (a seeded choice for "mixed")
    on the photo before it is written, as :func:`models.synth.write_sample` writes it;
    "screen:KIND" and "grey-print" draw a screenshot or a black-and-white print instead.
    """
    from models.synth import write_sample

    screen = None
    if occlude.startswith("screen:"):
        from benchmarks.screenshot import pick

        screen = pick(occlude.removeprefix("screen:"), seed)
        occlude = f"screen-{screen}"
    name = f"{difficulty}_{seed}" + ("" if occlude == "none" else f"_{occlude}")
    path = Path(folder) / f"{name}.{'jpg' if screen in (None, 'chat') else 'png'}"
    truth_path = path.with_suffix(".json")
    if path.exists() and truth_path.exists():
        return path, json.loads(truth_path.read_text())
    if occlude == "none":
        return path, write_sample(path, seed, difficulty)
    if occlude == "grey-print":
        from benchmarks.grey_print import grey_print

        with grey_print():
            truth = write_sample(path, seed, difficulty)
        return path, _write_truth(path, {**truth, "print": "grey"})
    if screen is not None:
        return path, _write_screenshot(path, seed, difficulty, screen)
    if occlude == "mirror":
        return path, _write_mirrored(path, seed, difficulty)
    return path, _write_occluded(path, seed, difficulty, occlude)


def _write_mirrored(path: Path, seed: int, difficulty: str) -> dict:
    """The photo as a front camera or a webcam that mirrors saves it: flipped left to right
    (the truth lattice with it), written upright without an EXIF turn."""
    import cv2

    from models.synth import make_photo

    img, truth = make_photo(seed, difficulty)
    width = img.shape[1]
    lattice = [[[width - 1 - x, y] for x, y in row] for row in truth["lattice"]]
    truth = {**truth, "lattice": lattice, "mirrored": True, "exif_orientation": 1}
    truth["image_size"] = [width, img.shape[0]]
    truth["grid_corners"] = [lattice[0][0], lattice[0][-1], lattice[-1][-1], lattice[-1][0]]
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), cv2.flip(img, 1), [cv2.IMWRITE_JPEG_QUALITY, 92]):
        raise OSError(f"could not write {path}")
    return _write_truth(path, truth)


def _write_screenshot(path: Path, seed: int, difficulty: str, kind: str) -> dict:
    import cv2

    from benchmarks.screenshot import screenshot
    from models.synth import make_photo

    img, truth = make_photo(seed, difficulty)
    img, lattice, kind, quality = screenshot(img, truth["lattice"], kind, seed)
    truth = {**truth, "lattice": lattice, "screenshot": kind, "exif_orientation": 1}
    truth["image_size"] = [img.shape[1], img.shape[0]]
    truth["grid_corners"] = [lattice[0][0], lattice[0][-1], lattice[-1][-1], lattice[-1][0]]
    path.parent.mkdir(parents=True, exist_ok=True)
    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if quality else []
    if not cv2.imwrite(str(path), img, params):
        raise OSError(f"could not write {path}")
    return _write_truth(path, truth)


def _write_occluded(path: Path, seed: int, difficulty: str, occlude: str) -> dict:
    from benchmarks.occlude import occlude_points
    from models.synth.photo import exif_jpeg, render_photo
    from scanner.geometry import COIN_COUNT, coin_center

    img, truth, shot = render_photo(seed, difficulty)
    coins = [coin_center(i) for i in range(COIN_COUNT)]
    img, covered, kind, on_coins = occlude_points(img, truth["lattice"], occlude, seed, coins)
    truth = {
        **truth,
        "occluder": kind,
        "covered": covered.round(3).tolist(),
        "coins_covered": on_coins.round(3).tolist(),  # the occluder's opacity on each coin
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(exif_jpeg(img, shot.jpeg, shot.exif))
    return _write_truth(path, truth)


def measure_rendered(
    args: argparse.Namespace, measure_one: Callable[[tuple], dict]
) -> Iterator[tuple[str, list[dict]]]:
    """(difficulty, rows): ``measure_one((folder, seed, difficulty))`` on every photo
    (``(folder, seed, difficulty, occluder)`` when ``args.occlude`` names one)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or tmp
        Path(folder).mkdir(parents=True, exist_ok=True)
        for difficulty in args.difficulty:
            work = [(folder, args.seed + i, difficulty) for i in range(args.n)]
            occlude = getattr(args, "occlude", "none")
            if occlude != "none":  # only then a fourth item: other benchmarks take three
                work = [(*w, occlude) for w in work]
            if args.jobs > 1:
                with ProcessPoolExecutor(args.jobs) as pool:
                    rows = list(pool.map(measure_one, work))
            else:
                rows = [measure_one(w) for w in work]
            yield difficulty, rows


def _write_truth(path: Path, truth: dict) -> dict:
    """``truth`` written beside the photo ``path`` (as ``models.synth.write_sample`` does)."""
    path.with_suffix(".json").write_text(json.dumps(truth, separators=(",", ":")) + "\n")
    return truth
