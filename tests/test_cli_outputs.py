"""Files the commands write, and inputs that used to escape as tracebacks.

CLI.md: "Exit status: ... 1 at least one input failed (the others are still reported);
2 bad usage", "--json: one JSON object per input, one per line"; and the guide's "bad
input gets a clear one-line error naming the file and the problem, a non-zero exit,
and no traceback; a batch logs the bad file and goes on". Each case was found by
running the command (a session-52 audit of CLI.md): an overlay name OpenCV has no
writer for, a missing folder for ``--overlay`` or ``--out``, a folder the batch cannot
list, a JSON file nested too deeply for Python's parser, a damaged TIFF that made Pillow
print warnings before our error line.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import app.overlay
from app.collect import collect_inputs
from tests.cli_fixtures import DEAL, ROOT, SAMPLE, run

SPARSE = str(ROOT / "samples" / "sparse-b.txt")


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("overlay.xyz", "cannot write .xyz images: use .png or .jpg"),
        ("overlay", "cannot write a file without an extension: use .png or .jpg"),
        ("missing/overlay.png", "does not exist"),
        (".", "is a folder: give a file name such as overlay.png"),
    ],
)
def test_an_overlay_that_cannot_be_written_is_bad_usage_before_any_input(tmp_path, name, why):
    target = tmp_path / name
    for args in (["score", SAMPLE, SPARSE, "--json"], ["read", SAMPLE]):
        res = run(*args, "--overlay", str(target))
        assert res.exit_code == 2, res.output
        assert res.stdout == ""  # nothing scored, nothing printed twice
        [line] = res.stderr.splitlines()
        assert line.startswith(f"error: --overlay {target}: ") and line.endswith(why)


def test_an_overlay_failing_late_leaves_one_object_per_input(tmp_path, monkeypatch):
    """A write that fails after scoring (a full disk) is one error line per input; each
    input's JSON object is still printed, once, and the exit status is 1."""

    def full_disk(path, image):
        raise OSError(f"{path}: No space left on device")

    monkeypatch.setattr(app.overlay, "write_overlay", full_disk)
    res = run("score", SAMPLE, SPARSE, "--json", "--overlay", str(tmp_path / "o.png"))
    assert res.exit_code == 1
    objs = json_lines(res.stdout)
    assert [o["source"] for o in objs] == [SAMPLE, SPARSE]
    assert all("error" not in o for o in objs) and objs[0]["total"] == 96
    lines = res.stderr.splitlines()
    assert len(lines) == 2 and all("No space left on device" in x for x in lines)
    assert lines[0].startswith(f"error: {SAMPLE}: no overlay: ")


def test_explain_of_a_card_not_in_a_game_fails_that_overlay_only(tmp_path):
    """The samples' own cards: wilderness-a's are sentinel-wood, canal-lake, great-city,
    borderlands; sparse-b's header deals shieldgate under C. The overlay explaining
    shieldgate is written for sparse-b only; both are scored."""
    out = tmp_path / "o.png"
    res = run("score", SAMPLE, SPARSE, "--json", "--overlay", str(out), "--explain", "shieldgate")
    assert res.exit_code == 1
    assert [o["source"] for o in json_lines(res.stdout)] == [SAMPLE, SPARSE]
    assert not (tmp_path / "o-wilderness-a.png").exists()
    assert (tmp_path / "o-sparse-b.png").is_file()
    [line] = [x for x in res.stderr.splitlines() if x.startswith("error:")]
    assert line.startswith(f"error: {SAMPLE}: no overlay: ") and "not one of this game" in line
    # A name that is no card at all is bad usage, found before any input is read.
    res = run("score", SAMPLE, "--overlay", str(out), "--explain", "nonsense")
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.startswith("error: --explain: unknown card 'nonsense'")


@pytest.mark.parametrize(
    ("where", "why"),
    [("missing/results.csv", "does not exist"), (".", "is a folder: give a file name")],
)
def test_batch_results_that_cannot_be_written_are_bad_usage(tmp_path, where, why):
    out = tmp_path / where
    res = run("batch", SAMPLE, "--cards", DEAL, "--out", str(out), "--workers", "0")
    assert res.exit_code == 2 and "Traceback" not in res.output
    [line] = res.stderr.splitlines()
    assert line.startswith(f"error: --out {out}: ") and why in line


def test_a_folder_the_batch_cannot_list_is_an_error_and_the_rest_is_scored(tmp_path, monkeypatch):
    """Permissions cannot be taken from root (the tests' user here), so the listing of
    one folder fails as ``os.scandir`` fails on a folder without read permission."""
    sheets = tmp_path / "sheets"
    (sheets / "locked").mkdir(parents=True)
    shutil.copy(SAMPLE, sheets / "a.txt")
    shutil.copy(SPARSE, sheets / "locked" / "b.txt")
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path) == sheets / "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    got = collect_inputs([sheets])
    assert got.files == [str(sheets / "a.txt")]
    why = "cannot read this folder (permission denied)"
    assert got.unreadable == [(str(sheets / "locked"), why)]
    out = tmp_path / "r.csv"
    res = run("batch", str(sheets), "--cards", DEAL, "--out", str(out), "--workers", "0")
    assert res.exit_code == 1
    assert f"error: {sheets / 'locked'}: {why}" in res.stderr
    assert "This run: 1 scored, 0 failed" in res.stdout


def test_json_nested_too_deeply_is_one_line_and_skipped_in_a_batch(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    res = run("score", str(deep), "--cards", DEAL)
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [f"error: {deep}: not a map: JSON nested too deeply"]
    shutil.copy(SAMPLE, tmp_path / "a.txt")
    out = tmp_path / "r.csv"
    res = run("batch", str(tmp_path), "--cards", DEAL, "--out", str(out), "--workers", "0")
    assert res.exit_code == 0
    assert f"skipped {deep}: not JSON" in res.stderr


def test_a_damaged_tiff_gives_one_line_not_pillow_warnings(tmp_path):
    """A TIFF header then junk: Pillow warned twice ("Corrupt EXIF data") before our
    error. In a subprocess, as a user runs it (pytest rearranges warning filters)."""
    tif = tmp_path / "fake.tif"
    tif.write_bytes(b"II*\x00" + b"garbage" * 4)
    proc = subprocess.run(
        [sys.executable, "-m", "cli", "score", str(tif), "--cards", DEAL],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    # It begins as a TIFF, so it is a damaged one, not "not an image".
    assert proc.stderr.splitlines() == [f"error: {tif}: the image data is truncated or corrupt"]


def test_a_map_file_has_an_empty_review_list():
    """CLI.md's object lists "review"; only "confidence" is "(photo input only)"."""
    [obj] = json_lines(run("score", SAMPLE, "--json").stdout)
    assert obj["review"] == []


def test_overlays_of_inputs_with_the_same_name_do_not_overwrite_each_other(tmp_path):
    """round1/sheet.txt and round2/sheet.txt both went to o-sheet.png, the second
    overwriting the first without a word; each now has its own, by its number."""
    for folder, sample in (("round1", SAMPLE), ("round2", SPARSE)):
        (tmp_path / folder).mkdir()
        shutil.copy(sample, tmp_path / folder / "sheet.txt")
    out = tmp_path / "o.png"
    args = [str(tmp_path / f / "sheet.txt") for f in ("round1", "round2")]
    res = run("score", *args, "--overlay", str(out))
    assert res.exit_code == 0, res.output
    written = sorted(p.name for p in tmp_path.glob("o-*.png"))
    assert written == ["o-sheet-1.png", "o-sheet-2.png"]
    assert res.stderr.splitlines() == [f"overlay written to {tmp_path / w}" for w in written]


def test_an_empty_map_file_says_it_is_empty(tmp_path):
    """README's table: empty file -> "the file is empty" (it said "expected 11 grid rows,
    found 0" for a map file)."""
    for name in ("empty.txt", "blank.map"):
        path = tmp_path / name
        path.write_text("" if name == "empty.txt" else "\n  \n")
        res = run("score", str(path), "--cards", DEAL)
        assert res.exit_code == 1
        assert res.stderr.splitlines() == [f"error: {path}: the file is empty"]


def test_cards_given_on_the_command_line_leave_a_bad_cards_header_unread(tmp_path):
    """CLI.md: --cards "Overrides a map file's header": an unknown card in that header
    failed the file even then. Without --cards it still does, naming the line."""
    bad = tmp_path / "typo.txt"
    text = Path(SAMPLE).read_text().replace("cards: sentinel-wood", "cards: sentinal-wood")
    bad.write_text(text)
    res = run("score", str(bad), "--cards", DEAL, "--json")
    assert res.exit_code == 0 and json_lines(res.stdout)[0]["total"] == 96
    out = tmp_path / "r.csv"
    res = run("batch", str(bad), "--cards", DEAL, "--out", str(out), "--workers", "0")
    assert res.exit_code == 0
    res = run("score", str(bad))
    assert res.exit_code == 1 and "unknown card 'sentinal-wood'" in res.stderr


def test_a_tiff_declaring_too_many_pixels_is_refused_in_one_line(tmp_path):
    """Counting a TIFF's pages (several pages are several sheets) opened it under
    Pillow's own bomb limit, whose DecompressionBombError escaped as a traceback; it is
    refused as any photo too large."""
    import struct

    tags = [
        (256, 4, 1, 20000),
        (257, 4, 1, 20000),
        (258, 3, 1, 8),
        (259, 3, 1, 1),
        (262, 3, 1, 1),
        (273, 4, 1, 8),
        (277, 3, 1, 1),
        (278, 4, 1, 20000),
        (279, 4, 1, 400_000_000),
    ]  # width, height, 8-bit grey, one strip off the end
    ifd = struct.pack("<H", len(tags)) + b"".join(struct.pack("<HHII", *t) for t in tags)
    tif = tmp_path / "huge.tif"
    tif.write_bytes(b"II*\x00" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0))
    res = run("score", str(tif), "--cards", DEAL)
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f"error: {tif}: 20000x20000 pixels is more than the 250,000,000 allowed"
    ]
