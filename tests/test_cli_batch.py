"""`cartoscore batch` (CLI.md): rows per sheet, ranking, resume after an interruption.

Map files make the batch fast and their totals known: the four samples' hand-worked
totals are 96 (wilderness-a), 136 (wastelands-b), 126 (forest-road-a), 56 (sparse-b),
each scored with the cards of its own header.
"""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

import app.batch
from app.collect import collect_inputs
from app.results import COLUMNS, latest_rows, ranking, read_results
from scoring.board import Map
from scoring.layouts import SIDE_A
from tests.cli_fixtures import ROOT, run

TOTALS = {"wilderness-a": 96, "wastelands-b": 136, "forest-road-a": 126, "sparse-b": 56}


@pytest.fixture
def folder(tmp_path) -> Path:
    """The four samples, a JSON map in a sub-folder, and files that are not sheets."""
    d = tmp_path / "sheets"
    (d / "table2").mkdir(parents=True)
    for name in TOTALS:
        shutil.copy(ROOT / "samples" / f"{name}.txt", d)
    shutil.copy(ROOT / "samples" / "wilderness-a.json", d / "table2" / "copy-a.json")
    (d / "notes.md").write_text("round 1\n")
    (d / "index.json").write_text("[1, 2]\n")
    (d / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    (d / "scan-0001.pdf").write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")  # a scanner app's
    return d


def test_collect_keeps_sheets_and_skips_other_files(folder):
    got = collect_inputs([folder])
    names = sorted(Path(f).name for f in got.files)
    expected = ["broken.jpg", "copy-a.json", "scan-0001.pdf", *(f"{n}.txt" for n in TOTALS)]
    assert names == sorted(expected)  # a scan is a sheet (this one fails when read)
    skipped = {Path(p).name: why for p, why in got.skipped}
    assert skipped == {
        "notes.md": "not a photo or map file",
        "index.json": "JSON without a map grid",
    }


def test_collect_tells_photos_and_videos_by_their_first_bytes(tmp_path):
    """A photo saved without its extension is scored, as ``score`` reads it; a Live
    Photo's movie, or a clip without an extension, is skipped as a video."""
    ok, jpeg = cv2.imencode(".jpg", np.full((60, 80, 3), 200, np.uint8))
    (tmp_path / "IMG_0002").write_bytes(jpeg.tobytes())
    (tmp_path / "IMG_0002.MOV").write_bytes(b"\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  ")
    (tmp_path / "clip").write_bytes(b"\x00\x00\x00\x1cftypisom\x00\x00\x02\x00isommp41")
    (tmp_path / "data.bin").write_bytes(bytes(range(256)))
    got = collect_inputs([tmp_path])
    assert [Path(f).name for f in got.files] == ["IMG_0002"]
    assert {Path(p).name: why for p, why in got.skipped} == {
        "IMG_0002.MOV": "a video",
        "clip": "a video",
        "data.bin": "not a photo or map file",
    }


def test_a_photos_truth_sidecar_is_not_a_map(tmp_path):
    (tmp_path / "p.jpg").write_bytes(b"x")
    (tmp_path / "p.json").write_text(json.dumps({"grid": ["." * 11] * 11}))
    got = collect_inputs([tmp_path])
    assert [Path(f).name for f in got.files] == ["p.jpg"]
    assert got.skipped == [(str(tmp_path / "p.json"), "a photo's sidecar")]


def test_batch_writes_a_row_per_sheet_and_ranks(folder, tmp_path):
    out = tmp_path / "results.csv"
    res = run("batch", str(folder), "--out", str(out), "--workers", "2")
    assert res.exit_code == 1  # broken.jpg and the cut PDF failed; the others are still scored
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == COLUMNS
    by_name = {Path(r["source"]).stem: r for r in rows}
    assert {k: int(by_name[k]["total"]) for k in TOTALS} == TOTALS
    assert int(by_name["copy-a"]["total"]) == 96
    assert by_name["broken"]["error"].startswith(str(folder / "broken.jpg") + ": ")
    w = by_name["wilderness-a"]  # the hand working in samples/wilderness-a.txt
    assert [w[f"card_{e}"] for e in "ABCD"] == ["15", "12", "7", "12"]
    assert [w[s] for s in ("spring", "summer", "fall", "winter")] == ["28", "20", "20", "28"]
    assert (w["coins"], w["monsters"], w["solo_rating"]) == ("6", "-5", "7")
    assert w["solo_title"] == "Apprentice Surveyor" and w["stars_lost_to_monsters"] == "20"
    assert w["error"] == "" and w["review"] == "0"
    # Ranking: 136, 126, 96 (twice: a shared place), 56; the failure listed after it.
    text = res.stdout[res.stdout.index("Ranking") :]
    order = [text.index(n) for n in ("wastelands-b", "forest-road-a", "sparse-b")]
    assert order == sorted(order)
    assert "This run: 5 scored, 2 failed" in text
    assert "failed: " + str(folder / "broken.jpg") in text.replace("\n", "")
    assert by_name["scan-0001"]["error"] == (
        f"{folder / 'scan-0001.pdf'}: the PDF cannot be read (damaged or incomplete)"
    )
    assert "skipped " + str(folder / "notes.md") in res.stderr


def test_ranking_ties_go_to_fewer_stars_lost_to_monsters():
    rows = [
        {"source": "a", "total": 80, "stars_lost_to_monsters": 9, "error": ""},
        {"source": "b", "total": 80, "stars_lost_to_monsters": 3, "error": ""},
        {"source": "c", "total": 95, "stars_lost_to_monsters": 20, "error": ""},
        {"source": "d", "total": "", "stars_lost_to_monsters": "", "error": "d: no sheet"},
    ]
    assert [r["source"] for r in ranking(rows)] == ["c", "b", "a"]


def test_resume_after_an_interruption_scores_only_the_rest(folder, tmp_path, monkeypatch):
    out = tmp_path / "results.csv"
    for bad in ("broken.jpg", "scan-0001.pdf"):
        (folder / bad).unlink()
    calls = []
    real = app.batch.score_job

    def interrupted(job):
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C while the third sheet is being scored
        calls.append(job.source)
        return real(job)

    monkeypatch.setattr(app.batch, "score_job", interrupted)
    res = run("batch", str(folder), "--out", str(out), "--workers", "0")
    assert res.exit_code == 130
    assert "interrupted: 2 more sheets saved" in res.stderr
    assert [r["source"] for r in read_results(out)] == calls  # both kept, flushed
    monkeypatch.setattr(app.batch, "score_job", real)
    seen = []
    monkeypatch.setattr(app.batch, "score_job", lambda job: seen.append(job.source) or real(job))
    res = run("batch", str(folder), "--out", str(out), "--workers", "0")
    assert res.exit_code == 0, res.stdout
    assert "2 sheets already scored" in res.stderr
    assert not set(seen) & set(calls) and len(seen) == 3
    rows = read_results(out)
    assert sorted(r["source"] for r in rows) == sorted(calls + seen)  # each sheet once
    res = run("batch", str(folder), "--out", str(out), "--workers", "0")
    assert "5 sheets already scored" in res.stderr and len(read_results(out)) == 5


def test_resume_ignores_a_half_written_last_line(folder, tmp_path):
    out = tmp_path / "results.csv"
    for bad in ("broken.jpg", "scan-0001.pdf"):
        (folder / bad).unlink()
    assert run("batch", str(folder), "--out", str(out), "--workers", "0").exit_code == 0
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:3]) + lines[3][:20])  # killed while writing row 3
    assert len(read_results(out)) == 2
    res = run("batch", str(folder), "--out", str(out), "--workers", "0")
    assert res.exit_code == 0 and "2 sheets already scored" in res.stderr
    rows = read_results(out)
    assert len(rows) == 5 and {Path(r["source"]).stem for r in rows} >= set(TOTALS)
    # The cut row is gone, not closed with a newline: the file is whole rows only, as a
    # spreadsheet or the csv module reads it.
    with open(out, newline="") as f:
        plain = list(csv.reader(f))
    assert len(plain) == 1 + 5 and all(len(r) == len(plain[0]) for r in plain)


def test_a_row_cut_inside_a_quoted_name_does_not_swallow_the_next(tmp_path):
    """A full disk cut the row of "Tanaka, Yui.txt" inside its quoted name: closed with a
    newline, the open quote took in the next run's row (scored, yet not in the file)."""
    d = tmp_path / "names"
    d.mkdir()
    for name in ("Smith, John.txt", "Tanaka, Yui.txt"):
        shutil.copy(ROOT / "samples" / "wilderness-a.txt", d / name)
    out = tmp_path / "r.csv"
    assert run("batch", str(d), "--out", str(out), "--workers", "0").exit_code == 0
    text = out.read_text()
    out.write_text(text[: text.index('"' + str(d / "Tanaka")) + 12])
    res = run("batch", str(d), "--out", str(out), "--workers", "0")
    assert res.exit_code == 0 and "1 sheet already scored" in res.stderr
    with open(out, newline="") as f:
        plain = list(csv.reader(f))
    assert sorted(Path(r[0]).name for r in plain[1:]) == ["Smith, John.txt", "Tanaka, Yui.txt"]


def test_names_with_line_breaks_in_them_are_read_back_whole(tmp_path):
    """A file name holding a form feed or a Unicode line separator: the results file is
    valid CSV, but reading it back with str.splitlines broke the name, so the sheet was
    scored again on every run under a wrong name."""
    d = tmp_path / "weird"
    d.mkdir()
    names = ["para\u2028graph.txt", "form\x0cfeed.txt", "new\nline.txt"]
    for name in names:
        shutil.copy(ROOT / "samples" / "wilderness-a.txt", d / name)
    out = tmp_path / "r.csv"
    assert run("batch", str(d), "--out", str(out), "--workers", "0").exit_code == 0
    assert sorted(Path(r["source"]).name for r in read_results(out)) == sorted(names)
    res = run("batch", str(d), "--out", str(out), "--workers", "0")
    assert "3 sheets already scored" in res.stderr
    # The same rows in a file of a version before the set_by_hand column: the run that
    # adds the columns since keeps the names whole too.
    from app.results import FIRST_COLUMNS

    with open(out, newline="") as f:
        records = list(csv.reader(f))
    with open(out, "w", newline="") as f:
        csv.writer(f).writerows(r[: len(FIRST_COLUMNS)] for r in records[:4])
    res = run("batch", str(d), "--out", str(out), "--workers", "0")
    assert "3 sheets already scored" in res.stderr
    assert sorted(Path(r["source"]).name for r in read_results(out)) == sorted(names)


def test_batch_debug_shows_a_failed_sheets_traceback(tmp_path):
    sheet = tmp_path / "late.txt"
    sheet.write_text("not a map\n")
    out = tmp_path / "r.csv"
    cards = "sentinel-wood,canal-lake,great-city,borderlands"
    res = run("batch", str(sheet), "--out", str(out), "--cards", cards, "--workers", "0")
    assert res.exit_code == 1 and "Traceback" not in res.stderr
    res = run("batch", str(sheet), "--out", str(out), "--cards", cards, "--workers", "0", "--debug")
    assert res.exit_code == 1
    assert f"{sheet}:\nTraceback (most recent call last):" in res.stderr
    assert [bool(r["error"]) for r in read_results(out)] == [True, True]


def test_hidden_folders_hold_no_sheets(tmp_path):
    """A phone's DCIM/.thumbnails or a .git folder: skipped, as hidden files are."""
    d = tmp_path / "DCIM"
    (d / ".thumbnails").mkdir(parents=True)
    shutil.copy(ROOT / "samples" / "wilderness-a.txt", d / "a.txt")
    shutil.copy(ROOT / "samples" / "sparse-b.txt", d / ".thumbnails" / "b.txt")
    assert collect_inputs([d]).files == [str(d / "a.txt")]


def test_a_worker_ends_itself_when_the_batch_is_gone():
    """A batch killed outright (kill -9) cannot stop its pool: each worker watches the
    batch's process and ends itself once it is gone (they waited for ever)."""
    sleeper = subprocess.Popen(["sleep", "60"])
    code = (
        "import time, app.batch as b\n"
        f"b._end_with({sleeper.pid})\n"
        "print('watching', flush=True)\n"
        "time.sleep(60)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline() == "watching\n"
        time.sleep(1.5)
        assert child.poll() is None  # the batch is there: the worker stays
        sleeper.kill()
        sleeper.wait()  # gone (and reaped, as a dead batch's pid is)
        assert child.wait(timeout=20) == 1
    finally:
        for p in (child, sleeper):
            if p.poll() is None:
                p.kill()


def test_a_batch_told_to_stop_stops_as_ctrl_c_does():
    """kill (SIGTERM) or a closed terminal (SIGHUP) during a batch: the Ctrl-C path, which
    shuts the pool down and says what was saved (SIGTERM used to leave workers behind)."""
    import signal

    from cli import _stop_on_signals

    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        _stop_on_signals()
        for sig in saved:
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), sig)
                time.sleep(1)
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def test_failed_sheets_are_tried_again_and_the_newest_row_wins(tmp_path):
    sheet = tmp_path / "late.txt"
    sheet.write_text("not a map\n")
    out = tmp_path / "r.jsonl"
    cards = "sentinel-wood,canal-lake,great-city,borderlands"
    assert run("batch", str(sheet), "--out", str(out), "--cards", cards).exit_code == 1
    shutil.copy(ROOT / "samples" / "wilderness-a.txt", sheet)
    assert run("batch", str(sheet), "--out", str(out), "--cards", cards).exit_code == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 2 and lines[0]["error"] and lines[1]["total"] == 96
    assert [r["total"] for r in ranking(read_results(out))] == [96]


def test_jsonl_output_and_html_report(folder, tmp_path):
    out = tmp_path / "results.jsonl"
    page = tmp_path / "report.html"
    res = run("batch", str(folder), "--out", str(out), "--html", str(page), "--workers", "0")
    assert res.exit_code == 1
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert all(tuple(r) == COLUMNS for r in rows)
    assert {Path(r["source"]).stem: r["total"] for r in rows if not r["error"]} == {
        **TOTALS,
        "copy-a": 96,
    }
    html = page.read_text()
    assert html.count("<img ") == 5  # one overlay per scored sheet
    assert "broken.jpg" in html
    images = list((tmp_path / "report_files").iterdir())
    assert len(images) == 5 and all(p.stat().st_size > 1000 for p in images)


def test_the_html_report_links_resolve_whatever_the_names_and_ties_share_a_place(tmp_path):
    """Links are URLs: a sheet named "sparse #1.txt" or "what?.txt" or "a%20b.txt" must
    link to its own overlay (HTML-escaped only, a browser cut the link at # or ?). Two
    equal sheets share first place, in the page as in the terminal's ranking."""
    from urllib.parse import unquote, urljoin

    d = tmp_path / "round"
    (d / "sub").mkdir(parents=True)
    for name in ("sparse #1.txt", "what?.txt", "a%20b.txt"):
        shutil.copy(ROOT / "samples" / "sparse-b.txt", d / "sub" / name)
    page = tmp_path / "rep" / "report.html"
    page.parent.mkdir()
    out = tmp_path / "r.csv"
    res = run("batch", str(d), "--out", str(out), "--html", str(page), "--workers", "0")
    assert res.exit_code == 0, res.output
    html = page.read_text()
    links = re.findall(r"<img src='([^']+)'", html)
    assert len(links) == 3
    for link in links:
        url = urljoin(page.as_uri(), link.replace("&amp;", "&"))
        assert Path(unquote(url.removeprefix("file://"))).is_file(), link
    assert re.findall(r"<tr><td>(\d+)</td>", html) == ["1", "1", "1"]


def test_a_rerun_from_another_folder_finds_the_sheets_already_scored(tmp_path, monkeypatch):
    """The sheets are recognised by their place relative to the results file (the
    ``path`` column), not by the names given: run from the round's folder, then from
    its photos' folder, every sheet is scored once and ranked once."""
    round_ = tmp_path / "round"
    (round_ / "tables").mkdir(parents=True)
    for name in ("sparse-b", "wilderness-a"):
        shutil.copy(ROOT / "samples" / f"{name}.txt", round_ / "tables")
    monkeypatch.chdir(round_)
    assert run("batch", "tables", "--out", "results.csv", "--workers", "0").exit_code == 0
    with open("results.csv", newline="") as f:
        paths = sorted(r["path"] for r in csv.DictReader(f))
    assert paths == ["tables/sparse-b.txt", "tables/wilderness-a.txt"]
    shutil.copy(ROOT / "samples" / "forest-road-a.txt", round_ / "tables")
    monkeypatch.chdir(round_ / "tables")
    res = run("batch", ".", "--out", "../results.csv", "--workers", "0")
    assert res.exit_code == 0, res.stderr
    assert "2 sheets already scored" in res.stderr
    rows = read_results(round_ / "results.csv")
    assert sorted(r["source"] for r in rows) == [
        "forest-road-a.txt",
        "tables/sparse-b.txt",
        "tables/wilderness-a.txt",
    ]
    assert [r["total"] for r in ranking(rows)] == [126, 96, 56]
    text = res.stdout[res.stdout.index("Ranking") :]
    assert [text.count(f"{n}.txt") for n in ("forest-road-a", "wilderness-a", "sparse-b")] == [
        1,
        1,
        1,
    ]


def test_a_sheet_is_scored_again_when_its_cards_or_its_file_change(tmp_path):
    """A results row records the cards and the file's time: a re-run with other cards,
    or after the sheet was edited, scores it again (the newest row wins); otherwise it
    is skipped. wilderness-a.txt scores 96 with its own header's cards (samples/)."""
    d = tmp_path / "round"
    d.mkdir()
    for name in ("wilderness-a", "sparse-b"):
        shutil.copy(ROOT / "samples" / f"{name}.txt", d)
    out = tmp_path / "r.csv"
    own = "sentinel-wood,canal-lake,great-city,borderlands"  # wilderness-a's header
    other = "sentinel-wood,canal-lake,great-city,the-broken-road"
    assert run("batch", str(d), "--out", str(out), "--cards", own).exit_code == 0
    res = run("batch", str(d), "--out", str(out), "--cards", own)
    assert "2 sheets already scored" in res.stderr and "scored again" not in res.stderr
    res = run("batch", str(d), "--out", str(out), "--cards", other)
    assert "2 sheets scored again: file, cards, side or [set] changed since" in res.stderr
    rows = read_results(out)
    assert len(rows) == 4 and {r["cards"] for r in rows[2:]} == {other}
    wild = [r for r in latest_rows(rows) if r["source"].endswith("wilderness-a.txt")]
    assert wild[0]["total"] != 96 and wild[0]["card_D"] != 12  # D was Borderlands' 12
    # The sheet edited (one coin more: +1 in each of the four seasons), then re-run.
    sheet = d / "wilderness-a.txt"
    sheet.write_text(sheet.read_text().replace("coins: 6", "coins: 7"))
    os.utime(sheet, ns=(time.time_ns(), sheet.stat().st_mtime_ns + 10**9))
    res = run("batch", str(d), "--out", str(out), "--cards", other)
    assert "1 sheet already scored" in res.stderr and "1 sheet scored again" in res.stderr
    rows = latest_rows(read_results(out))
    edited = [r for r in rows if r["source"].endswith("wilderness-a.txt")]
    assert edited[0]["total"] == wild[0]["total"] + 4 and edited[0]["coins"] == 7


def test_a_photos_row_stands_while_what_scored_it_stands():
    """A photo's row records what scored it (the cards, the side given, what is set by
    hand, the file's time); any of those changed and the photo is scored again."""
    from app.batch import AUTO, Job, still_current
    from app.results import cards_text, file_facts

    photo = str(ROOT / "samples" / "photos" / "synth-2028-A-pencil-hatch-icon.jpg")
    deal = {"A": "the-cauldrons", "B": "greenbough", "C": "mages-valley", "D": "great-city"}
    moved = {**deal, "D": "the-broken-road"}
    row = {"set_by_hand": "", "side": "A", "side_given": AUTO, "cards": cards_text(deal)}
    row["modified"] = file_facts(photo)[0]
    assert still_current(row, Job(photo, default_cards=deal))
    assert still_current(row, Job(photo, cards=deal))
    assert not still_current(row, Job(photo, default_cards=moved))  # the folder's cards
    assert not still_current(row, Job(photo, cards=moved))
    assert not still_current(row, Job(photo))  # no cards at all: it fails now
    assert not still_current(row, Job(photo, cards=deal, side="A"))  # forced, even as read
    assert not still_current(row, Job(photo, cards=deal, default_side="B"))
    assert not still_current(row, Job(photo, cards=deal, fixes=(("coins", 3),)))
    assert not still_current(
        {**row, "modified": "2001-01-01T00:00:00+00:00"}, Job(photo, cards=deal)
    )
    # Read as B when --side B was given; a run without it reads the side again.
    forced = {**row, "side": "B", "side_given": "B"}
    assert still_current(forced, Job(photo, cards=deal, side="B"))
    assert not still_current(forced, Job(photo, cards=deal))
    old = {"set_by_hand": "", "side": "A"}  # a row of a version before those columns
    assert still_current(old, Job(photo, cards=moved))


def test_a_map_files_row_stands_while_scoring_it_again_gives_it(tmp_path):
    """A map file is scored again in the batch's process and its row compared: the
    cards its header names win over a folder's, but a map without that header takes
    the folder's, and a change of those scores it again."""
    from app.batch import Job, _score, still_current

    deal = {"A": "sentinel-wood", "B": "canal-lake", "C": "great-city", "D": "borderlands"}
    moved = {**deal, "D": "the-broken-road"}
    headed = str(ROOT / "samples" / "wilderness-a.txt")  # its header: `deal`
    row = _score(Job(headed, default_cards=deal))
    assert still_current(row, Job(headed, default_cards=deal))
    assert still_current(row, Job(headed, default_cards=moved))  # its header wins
    assert not still_current(row, Job(headed, cards=moved))  # --cards wins over it
    assert not still_current(row, Job(headed, fixes=(("coins", 3),)))
    assert not still_current(row, Job(headed, side="B"))  # read as side B: another map
    bare = tmp_path / "bare.txt"
    lines = (ROOT / "samples" / "wilderness-a.txt").read_text().splitlines(keepends=True)
    bare.write_text("".join(line for line in lines if not line.startswith("cards:")))
    row = _score(Job(str(bare), default_cards=deal))
    assert still_current(row, Job(str(bare), default_cards=deal))
    assert not still_current(row, Job(str(bare), default_cards=moved))
    assert not still_current(row, Job(str(bare)))  # no cards now: scored for its error


def test_a_second_batch_on_the_same_results_file_is_refused_while_one_runs(tmp_path):
    """Two batches appending to one file would mix their rows (and write the header
    twice): the second is told, and the file is left as the first has it."""
    from app.results import ResultsWriter

    shutil.copy(ROOT / "samples" / "sparse-b.txt", tmp_path)
    out = tmp_path / "results.csv"
    running = ResultsWriter(out)  # what a batch holds while it runs
    try:
        before = out.read_bytes()
        res = run("batch", str(tmp_path / "sparse-b.txt"), "--out", str(out))
        assert res.exit_code == 2
        assert res.stderr.strip() == (
            f"error: {out}: another batch is writing it; wait for it to end, or give another --out"
        )
        assert out.read_bytes() == before
    finally:
        running.close()
    res = run("batch", str(tmp_path / "sparse-b.txt"), "--out", str(out), "--workers", "0")
    assert res.exit_code == 0 and [r["total"] for r in read_results(out)] == [56]


def test_a_sheet_scored_by_an_earlier_run_says_it_has_no_overlay(tmp_path):
    d = tmp_path / "round"
    d.mkdir()
    shutil.copy(ROOT / "samples" / "sparse-b.txt", d)
    out = tmp_path / "r.csv"
    assert run("batch", str(d), "--out", str(out), "--workers", "0").exit_code == 0
    shutil.copy(ROOT / "samples" / "wilderness-a.txt", d)
    page = tmp_path / "report.html"
    res = run("batch", str(d), "--out", str(out), "--html", str(page), "--workers", "0")
    assert res.exit_code == 0
    html = page.read_text()
    assert html.count("<img ") == 1 and html.count("no overlay: scored by an earlier run") == 1


def test_a_sheet_scored_again_without_the_report_shows_no_stale_overlay(tmp_path):
    """The report's overlays are named by what their row scored: a sheet scored again
    (other cards) by a run without --html has no overlay of its new scoring, and the
    page says so rather than show the picture of its earlier one."""
    d = tmp_path / "round"
    d.mkdir()
    shutil.copy(ROOT / "samples" / "sparse-b.txt", d)
    shutil.copy(ROOT / "samples" / "wilderness-a.txt", d)
    out, page = tmp_path / "r.csv", tmp_path / "report.html"
    cards = "sentinel-wood,canal-lake,great-city,borderlands"
    run("batch", str(d), "--out", str(out), "--html", str(page), "--cards", cards)
    assert page.read_text().count("<img ") == 2
    other = "sentinel-wood,canal-lake,great-city,the-broken-road"
    res = run("batch", str(d / "sparse-b.txt"), "--out", str(out), "--cards", other)
    assert "1 sheet scored again" in res.stderr
    run(
        "batch",
        str(d / "wilderness-a.txt"),
        "--out",
        str(out),
        "--html",
        str(page),
        "--cards",
        cards,
    )
    html = page.read_text()
    assert html.count("<img ") == 1 and html.count("no overlay: scored by an earlier run") == 1


def test_an_out_file_of_something_else_is_refused(folder, tmp_path):
    out = tmp_path / "results.csv"
    out.write_text("name,score\nann,3\n")
    res = run("batch", str(folder), "--out", str(out))
    assert res.exit_code == 2 and "is not a results file" in res.stderr
    assert out.read_text() == "name,score\nann,3\n"


def test_cards_from_a_settings_file_in_the_folder(tmp_path):
    d = tmp_path / "round2"
    d.mkdir()
    plain = "\n".join(open(ROOT / "samples" / "wilderness-a.txt").read().splitlines()[-11:])
    (d / "s1.txt").write_text(plain + "\n")
    (d / "cartoscore.toml").write_text(
        'cards = ["sentinel-wood", "canal-lake", "great-city", "borderlands"]\n'
    )
    out = tmp_path / "r.csv"
    res = run("batch", str(d), "--out", str(out), "--workers", "0")
    assert res.exit_code == 0, res.stdout
    [row] = read_results(out)
    assert row["total"] == 96 - 6 * 4  # the hand working, without the header's coins


def test_a_settings_file_serves_the_subfolders_below_it(tmp_path):
    """README: "Put the photos ... in a folder, with the round's cards in
    cartoscore.toml"; "Folders are searched recursively". A table's subfolder with no
    file of its own takes the round's; one with its own file takes that."""
    plain = "\n".join(open(ROOT / "samples" / "wilderness-a.txt").read().splitlines()[-11:])
    d = tmp_path / "round4"
    for table in ("table1", "table2/late"):
        (d / table).mkdir(parents=True)
        (d / table / "s.txt").write_text(plain + "\n")
    (d / "cartoscore.toml").write_text(
        'cards = ["sentinel-wood", "canal-lake", "great-city", "borderlands"]\n'
    )
    (d / "table2" / "cartoscore.toml").write_text(
        'cards = ["sentinel-wood", "canal-lake", "great-city", "borderlands"]\n'
        '[set]\n"late/s.txt" = "coins=2"\n'
    )
    out = tmp_path / "r.csv"
    res = run("batch", str(d), "--out", str(out), "--workers", "0")
    assert res.exit_code == 0, res.stdout
    totals = {Path(r["source"]).parent.name: r["total"] for r in read_results(out)}
    # the hand working without the header's 6 coins, then with 2 set by hand
    assert totals == {"table1": 96 - 6 * 4, "late": 96 - 6 * 4 + 2 * 4}


def test_a_map_files_side_header_wins_over_the_folders_settings_and_side_over_both(tmp_path):
    """README: "a map file's own cards: header wins over a nearby cartoscore.toml"; so does
    its side: header (the round's side = "B" made wilderness-a, side A, fail with "B4: side
    B has no mountain here"). --side wins over both, and the report says it overrode the
    file's own side."""
    d = tmp_path / "round5"
    d.mkdir()
    shutil.copy(ROOT / "samples" / "wilderness-a.txt", d)  # side: A
    (d / "cartoscore.toml").write_text(
        'cards = ["sentinel-wood", "canal-lake", "great-city", "borderlands"]\nside = "B"\n'
    )
    out = tmp_path / "r.csv"
    assert run("batch", str(d), "--out", str(out), "--workers", "0").exit_code == 0
    assert [(r["side"], r["total"]) for r in read_results(out)] == [("A", 96)]
    res = run("score", str(d / "wilderness-a.txt"), "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["total"] == 96
    blank = d / "blank.txt"
    blank.write_text("side: B\n" + "\n".join(Map.empty(SIDE_A).grid) + "\n")
    res = run("score", str(blank), "--json", "--side", "A")
    assert res.exit_code == 0, res.output
    notes = json.loads(res.stdout)["notes"]
    assert "read as side A, as given; the file says side B" in notes


def test_a_map_files_own_header_wins_over_the_folders_settings(tmp_path):
    d = tmp_path / "round3"
    d.mkdir()
    shutil.copy(ROOT / "samples" / "wilderness-a.txt", d)  # header: its own four cards
    (d / "cartoscore.toml").write_text(
        'cards = ["greenbough", "mages-valley", "wildholds", "lost-barony"]\n'
    )
    out = tmp_path / "r.csv"
    assert run("batch", str(d), "--out", str(out), "--workers", "0").exit_code == 0
    assert [r["total"] for r in read_results(out)] == [96]


def dies_on_poison(job):
    """A worker function that kills its process on one sheet (a native crash, an OOM kill)."""
    import os

    if "poison" in job.source:
        os._exit(3)
    return app.batch.score_job(job)


def test_a_worker_that_dies_costs_only_its_own_sheet(tmp_path):
    names = ["wilderness-a", "poison", "sparse-b", "forest-road-a"]
    for name in names:
        original = "sparse-b" if name == "poison" else name
        shutil.copy(ROOT / "samples" / f"{original}.txt", tmp_path / f"{name}.txt")
    jobs = [app.batch.Job(str(tmp_path / f"{n}.txt")) for n in names]
    rows = []
    app.batch.run_jobs(jobs, 2, rows.append, worker=dies_on_poison)
    assert sorted(r["source"] for r in rows) == sorted(j.source for j in jobs)
    [dead] = [r for r in rows if r["error"]]
    assert dead["error"] == f"{tmp_path / 'poison.txt'}: the worker process died while scoring it"
    totals = {Path(r["source"]).stem: r["total"] for r in rows if not r["error"]}
    assert totals == {n: TOTALS[n] for n in names if n != "poison"}


def test_html_report_shows_where_a_sheet_not_found_was_looked_for(tmp_path):
    d = tmp_path / "round"
    d.mkdir()
    shutil.copy(ROOT / "samples" / "wilderness-a.json", d / "a.json")
    rng = np.random.default_rng(1)
    table = cv2.GaussianBlur(rng.integers(0, 255, (600, 800, 3), dtype=np.uint8), (0, 0), 3)
    cv2.imwrite(str(d / "table.png"), table)  # a photo with no sheet on it
    (d / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    page = tmp_path / "report.html"
    out = tmp_path / "results.csv"
    res = run("batch", str(d), "--out", str(out), "--html", str(page), "--workers", "0")
    assert res.exit_code == 1
    failed = page.read_text().split("<h2>Failed</h2>")[1]
    [table_item] = [li for li in failed.split("<li") if "table.png" in li]
    assert "no map sheet found" in table_item and "alt='places tried'" in table_item
    [broken_item] = [li for li in failed.split("<li") if "broken.jpg" in li]
    assert "<img" not in broken_item
    [tried_file] = (tmp_path / "report_files").glob("table-*.jpg")
    tried = cv2.imread(str(tried_file))
    assert tried is not None and tried.shape[1] / tried.shape[0] == pytest.approx(800 / 600)


def test_a_pdf_page_through_a_link_is_the_same_sheet(tmp_path):
    from app.results import sheet_key

    (tmp_path / "scans").mkdir()
    real = tmp_path / "scans" / "feeder.pdf"
    real.write_bytes(b"%PDF-1.7\n")
    (tmp_path / "round.pdf").symlink_to(real)
    assert sheet_key(str(tmp_path / "round.pdf") + "#page=2") == f"{real}#page=2"
    assert sheet_key(str(tmp_path / "round.pdf")) == str(real)


def test_a_results_file_reached_through_a_link_keeps_its_own_folder(tmp_path, monkeypatch):
    """Rows are placed from the results file's real folder, so the same file, named
    through a link or not, finds the sheets it scored; adding columns to an older one
    keeps the link."""
    d = tmp_path / "round"
    d.mkdir()
    shutil.copy(ROOT / "samples" / "sparse-b.txt", d)
    (tmp_path / "store").mkdir()
    real = tmp_path / "store" / "results.csv"
    link = d / "results.csv"
    link.symlink_to(real)
    monkeypatch.chdir(d)
    assert run("batch", ".", "--out", "results.csv", "--workers", "0").exit_code == 0
    assert [r["path"] for r in read_results(real)] == ["../round/sparse-b.txt"]
    res = run("batch", str(d), "--out", str(real), "--workers", "0")
    assert "1 sheet already scored" in res.stderr
    assert link.is_symlink() and len(read_results(link)) == 1


def test_a_results_file_saved_again_by_a_spreadsheet_is_read(tmp_path):
    """Excel and others save CSV as UTF-8 with a byte-order mark before the header."""
    shutil.copy(ROOT / "samples" / "sparse-b.txt", tmp_path)
    out = tmp_path / "r.csv"
    assert run("batch", str(tmp_path / "sparse-b.txt"), "--out", str(out)).exit_code == 0
    out.write_bytes(b"\xef\xbb\xbf" + out.read_bytes())
    assert [r["total"] for r in read_results(out)] == [56]
    res = run("batch", str(tmp_path / "sparse-b.txt"), "--out", str(out))
    assert res.exit_code == 0 and "1 sheet already scored" in res.stderr


def test_a_process_ended_but_not_yet_collected_is_not_alive():
    """A worker watches the batch's pid: a batch killed outright while the program that
    ran it has not collected it yet (a zombie) must count as gone."""
    from app.batch import alive

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.time() + 10
        while alive(child.pid) and time.time() < deadline:
            time.sleep(0.05)
        assert not alive(child.pid)  # ended; not yet waited for
    finally:
        child.wait()
    assert alive(os.getpid())


def sigint_disposition(job):
    import signal

    return {"source": job.source, "ignored": signal.getsignal(signal.SIGINT) == signal.SIG_IGN}


def test_workers_leave_ctrl_c_to_the_batch():
    """A Ctrl-C reaches every process of the terminal's group: the batch stops its pool
    and says what was saved; its workers (and the server they are forked from, while it
    imports the image stack) ignore it rather than print tracebacks."""
    rows = []
    app.batch.run_jobs(
        [app.batch.Job("a.txt"), app.batch.Job("b.txt")], 2, rows.append, worker=sigint_disposition
    )
    assert sorted(r["source"] for r in rows) == ["a.txt", "b.txt"]
    assert all(r["ignored"] for r in rows)


def test_a_worker_decodes_heic_with_one_thread(monkeypatch):
    # The pool is the parallelism: a worker decoding an iPhone's tiled HEIC with
    # libheif's default four threads would crowd the other workers off the cores.
    import pillow_heif

    from app.batch import _one_heif_thread

    monkeypatch.setattr(pillow_heif.options, "DECODE_THREADS", 4)
    _one_heif_thread()
    assert pillow_heif.options.DECODE_THREADS == 1
