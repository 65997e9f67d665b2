"""Photo to score, end to end, with the committed cell model, against the rendered truth.

The user's workflow is checked on every photo: `cartoscore read PHOTO`, check by
hand the cells it flags (here: set them to the drawn truth), score the file. The
result must be the truth exactly: side and coins right, every misread cell among
the flagged ones, the same points as the typed truth map. The sample photo of the
README's first command must score its truth with no correction at all.
Photos: the ones shipped in samples/photos, and fresh renders from seeds fixed
before the model was trained (never seen in training).
"""

import json
from pathlib import Path

import pytest

from app.results import read_results
from scoring.board import Map
from scoring.layouts import LAYOUTS
from scoring.textmap import format_text
from tests.cli_fixtures import DEAL, ROOT, run

SHIPPED = sorted((ROOT / "samples" / "photos").glob("*.jpg"))
README_PHOTO = "samples/photos/synth-2028-A-pencil-hatch-icon.jpg"
FRESH = [(901_001, "clean"), (901_002, "normal"), (901_003, "normal")]


def typed_map(truth: dict, folder: Path) -> Path:
    """The truth as a text map file (side, coins, cards headers)."""
    m = Map(tuple(truth["grid"]), LAYOUTS[truth["side"]])
    text = format_text(m, coins=truth["coins"])
    path = folder / "truth.txt"
    path.write_text(text)
    return path


def deal(truth: dict) -> str:
    return ",".join(truth["cards"][e] for e in "ABCD")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> list[tuple[Path, dict]]:
    from models.synth import write_sample

    folder = tmp_path_factory.mktemp("fresh")
    out = []
    for seed, difficulty in FRESH:
        path = folder / f"photo-{seed}.jpg"
        out.append((path, write_sample(path, seed, difficulty)))
    return out


def check_photo(path: Path, truth: dict, tmp_path: Path) -> None:
    res = run("score", str(path), "--json", "--cards", deal(truth))
    assert res.exit_code == 0, res.stderr
    got = json.loads(res.stdout)
    wrong = [
        f"{'ABCDEFGHIJK'[r]}{c + 1}: read {got['grid'][r][c]} drew {truth['grid'][r][c]}"
        for r in range(11)
        for c in range(11)
        if got["grid"][r][c] != truth["grid"][r][c]
    ]
    assert (got["side"], wrong, got["coins"]) == (truth["side"], [], truth["coins"])
    typed = run("score", str(typed_map(truth, tmp_path)), "--json", "--cards", deal(truth))
    want = json.loads(typed.stdout)
    for key in ("card_points", "monsters", "seasons", "total", "solo"):
        assert got[key] == want[key], key


def corrected_by_hand(photo: Path, truth: dict, folder: Path) -> tuple[Path, set[str]]:
    """`read` the photo, then put the truth wherever it asks to check: flagged cells, and the
    coins when the note says the count is uncertain."""
    res = run("read", str(photo))
    assert res.exit_code == 0, res.stderr
    flagged = {
        line.split()[2].rstrip(":")
        for line in res.stdout.splitlines()
        if line.startswith("; check ")
    }
    out, r = [], 0
    coins_doubtful = any(
        f"; note: {start}" in res.stdout for start in ("coin count", "no coin is read")
    )
    for line in res.stdout.splitlines():
        if line.startswith("coins:") and coins_doubtful:
            flagged.add("coins")
            out.append(f"coins: {truth['coins']}")
            continue
        if line.startswith(";") or ":" in line or not line.strip():
            out.append(line)
            continue
        cells = line.split()
        for c in range(11):
            if f"{'ABCDEFGHIJK'[r]}{c + 1}" in flagged:
                cells[c] = truth["grid"][r][c]
        out.append(" ".join(cells))
        r += 1
    path = folder / "corrected.txt"
    path.write_text("\n".join(out) + "\n")
    return path, flagged


def check_workflow(photo: Path, truth: dict, tmp_path: Path) -> None:
    corrected, flagged = corrected_by_hand(photo, truth, tmp_path)
    res = run("score", str(corrected), "--json", "--cards", deal(truth))
    assert res.exit_code == 0, res.stderr
    got = json.loads(res.stdout)
    unflagged = [
        f"{'ABCDEFGHIJK'[r]}{c + 1}: read {got['grid'][r][c]} drew {truth['grid'][r][c]}"
        for r in range(11)
        for c in range(11)
        if got["grid"][r][c] != truth["grid"][r][c]
    ]
    assert (got["side"], unflagged, got["coins"]) == (truth["side"], [], truth["coins"])
    typed = run("score", str(typed_map(truth, tmp_path)), "--json", "--cards", deal(truth))
    want = json.loads(typed.stdout)
    for key in ("card_points", "monsters", "seasons", "total", "solo"):
        assert got[key] == want[key], key


def test_the_readme_photo_scores_its_truth_as_it_is(tmp_path):
    photo = ROOT / README_PHOTO
    assert README_PHOTO in (ROOT / "README.md").read_text().splitlines()[3]
    check_photo(photo, json.loads(photo.with_suffix(".json").read_text()), tmp_path)


@pytest.mark.parametrize("photo", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_sample_photo_scores_as_its_truth_once_checked(photo, tmp_path):
    truth = json.loads(photo.with_suffix(".json").read_text())
    check_workflow(photo, truth, tmp_path)


@pytest.mark.parametrize("index", range(len(FRESH)), ids=[f"{s}-{d}" for s, d in FRESH])
def test_fresh_render_scores_as_its_truth_once_checked(fresh, index, tmp_path):
    check_workflow(*fresh[index], tmp_path)


def test_batch_on_two_workers_gives_what_score_gives(fresh, tmp_path):
    # One deal for the table (the fresh renders were dealt different cards).
    cards = deal(fresh[0][1])
    out = tmp_path / "results.csv"
    res = run("batch", *(str(p) for p, _ in fresh), "--cards", cards, "--out", str(out))
    assert res.exit_code == 0, res.stdout
    rows = {Path(r["source"]).name: r for r in read_results(out)}
    for path, _ in fresh:
        alone = json.loads(run("score", str(path), "--json", "--cards", cards).stdout)
        row = rows[path.name]
        assert (row["total"], row["review"]) == (alone["total"], len(alone["review"])), path


@pytest.mark.parametrize("side", ["A", "B"])
def test_a_blank_printed_sheet_scores_as_an_empty_map_once_checked(side, tmp_path):
    from tests.stand_ins import blank_print_file

    path = blank_print_file(side, tmp_path / "unplayed.png")
    truth = {"side": side, "grid": list(Map.empty(LAYOUTS[side]).grid), "coins": 0}
    corrected, _ = corrected_by_hand(path, truth, tmp_path)
    res = run("score", str(corrected), "--json", "--cards", DEAL)
    assert res.exit_code == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["side"] == side and got["grid"] == truth["grid"]
    assert "blank sheet: nothing is drawn on the map; scored as an empty map" in got["notes"]
    # No forest, water, farm, village, full row or column, monster or coin: 0 everywhere.
    assert got["total"] == 0


@pytest.mark.parametrize("photo", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_sample_photo_scores_as_its_truth_once_set_by_hand(photo, tmp_path):
    """The same check in one command: `score PHOTO --set` each flagged space to the drawing."""
    truth = json.loads(photo.with_suffix(".json").read_text())
    first = json.loads(run("score", str(photo), "--json", "--cards", deal(truth)).stdout)
    fixes = [
        f"{r['space']}={truth['grid']['ABCDEFGHIJK'.index(r['space'][0])][int(r['space'][1:]) - 1]}"
        for r in first["review"]
    ]
    extra = ["--set", ",".join(fixes)] if fixes else []
    if any(note.startswith("coin count") for note in first["notes"]):
        extra += ["--coins", str(truth["coins"])]
    res = run("score", str(photo), "--json", "--cards", deal(truth), *extra)
    assert res.exit_code == 0, res.stderr
    got = json.loads(res.stdout)
    assert (got["grid"], got["review"]) == (truth["grid"], [])
    assert len(got.get("set_by_hand", [])) == len(fixes)
    typed = run("score", str(typed_map(truth, tmp_path)), "--json", "--cards", deal(truth))
    want = json.loads(typed.stdout)
    for key in ("card_points", "monsters", "seasons", "total", "solo"):
        assert got[key] == want[key], key
