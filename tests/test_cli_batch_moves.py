"""`cartoscore batch` re-runs after files were moved (README "Score a tournament"): a
results file moved away from its round still knows the sheets it scored, and a round
moved or copied with its results knows its own.

Map files keep these runs fast: their totals are worked by hand in samples/ (96
wilderness-a, 56 sparse-b, 126 forest-road-a).
"""

import csv
import json
import shutil
from pathlib import Path

import pytest

from app.results import COLUMNS, ranking, read_results
from tests.cli_fixtures import ROOT, run


def _round(folder: Path) -> Path:
    """A round's folder with two map files."""
    folder.mkdir(parents=True)
    for name in ("wilderness-a", "sparse-b"):
        shutil.copy(ROOT / "samples" / f"{name}.txt", folder)
    return folder


@pytest.mark.parametrize("name", ["results.csv", "results.jsonl"])
def test_a_results_file_moved_alone_still_knows_its_sheets(tmp_path, name):
    d = _round(tmp_path / "round")
    assert run("batch", str(d), "--out", str(d / name), "--workers", "0").exit_code == 0
    moved = tmp_path / name
    shutil.move(d / name, moved)  # mv round/results.csv ..
    res = run("batch", str(d), "--out", str(moved), "--workers", "0")
    assert res.exit_code == 0, res.stderr
    assert "2 sheets already scored" in res.stderr
    rows = read_results(moved)
    assert len(rows) == 2 and [r["total"] for r in ranking(rows)] == [96, 56]
    # A sheet added since is placed from where the file is now; all three ranked once.
    shutil.copy(ROOT / "samples" / "forest-road-a.txt", d)
    res = run("batch", str(d), "--out", str(moved), "--workers", "0")
    assert "2 sheets already scored" in res.stderr
    rows = read_results(moved)
    assert [r["path"] for r in rows][2] == "round/forest-road-a.txt"
    assert [r["total"] for r in ranking(rows)] == [126, 96, 56]


def test_a_round_moved_with_its_results_still_knows_its_sheets(tmp_path):
    """Photos and results moved together (the path from the file's folder still names
    the sheets): the sheets are known by where they are now, not where they were."""
    d = _round(tmp_path / "round")
    assert run("batch", str(d), "--out", str(d / "r.csv"), "--workers", "0").exit_code == 0
    there = tmp_path / "archive" / "round1"
    there.parent.mkdir()
    shutil.move(d, there)
    res = run("batch", str(there), "--out", str(there / "r.csv"), "--workers", "0")
    assert res.exit_code == 0 and "2 sheets already scored" in res.stderr
    # A copy of the round, its original still in place: the copy's own sheets are its.
    shutil.copytree(there, d)
    (d / "wilderness-a.txt").write_text(
        (d / "wilderness-a.txt").read_text().replace("coins: 6", "coins: 7")
    )
    res = run("batch", str(d), "--out", str(d / "r.csv"), "--workers", "0")
    assert "1 sheet already scored" in res.stderr and "1 sheet scored again" in res.stderr
    assert [r["total"] for r in ranking(read_results(d / "r.csv"))] == [100, 56]


def _as_before_real_path(out: Path) -> None:
    """Rewrite a results CSV as a version before the ``real_path`` column wrote it."""
    with open(out, newline="") as f:
        records = list(csv.reader(f))
    n = COLUMNS.index("side_given") + 1
    with open(out, "w", newline="") as f:
        csv.writer(f).writerows(r[:n] for r in records)


def _as_before_path(out: Path) -> None:
    """Rewrite a JSON Lines results file as a version before the ``path`` key wrote it
    (nor ``modified``, ``side_given``, ``size`` and ``real_path``)."""
    old = COLUMNS[: COLUMNS.index("set_by_hand") + 1] + ("cards",)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    out.write_text("".join(json.dumps({k: r[k] for k in old}) + "\n" for r in rows))


def _csv_rows(out: Path) -> list[dict]:
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def _jsonl_rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.mark.parametrize(
    "name, as_before, rows_in",
    [("r.csv", _as_before_real_path, _csv_rows), ("r.jsonl", _as_before_path, _jsonl_rows)],
)
def test_a_results_file_of_an_earlier_version_moved_alone_still_knows_its_sheets(
    tmp_path, name, as_before, rows_in
):
    """A results file written before the columns (CSV) or keys (JSON Lines) that place
    its sheets: read as before, given them (where each row's sheet is now) by the next
    run, and then it may move."""
    d = _round(tmp_path / "round")
    out = d / name
    assert run("batch", str(d), "--out", str(out), "--workers", "0").exit_code == 0
    as_before(out)
    assert [r["total"] for r in ranking(read_results(out))] == [96, 56]
    res = run("batch", str(d), "--out", str(out), "--workers", "0")
    assert "2 sheets already scored" in res.stderr
    rows = rows_in(out)
    assert len(rows) == 2 and all(tuple(r) == COLUMNS for r in rows)
    assert {r["path"]: r["real_path"] for r in rows} == {
        n: str((d / n).resolve()) for n in ("wilderness-a.txt", "sparse-b.txt")
    }
    moved = tmp_path / name
    shutil.move(out, moved)
    res = run("batch", str(d), "--out", str(moved), "--workers", "0")
    assert res.exit_code == 0 and "2 sheets already scored" in res.stderr


def test_rows_record_the_sheets_real_path(tmp_path):
    d = _round(tmp_path / "round")
    out = tmp_path / "r.jsonl"
    assert run("batch", str(d), "--out", str(out), "--workers", "0").exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["real_path"] for r in rows) == sorted(str(p.resolve()) for p in d.glob("*.txt"))
