"""Bad input gives one line naming the file and the problem, a non-zero exit, no traceback.

Each case is built here: a text file named .jpg, an empty file, a JPEG cut short,
an image without a sheet, a PNG whose header declares 400 megapixels, a folder,
a missing file, a PDF (as a scanner app saves a scan; also under a photo's name),
a video (a Live Photo's movie, a clip without an extension), an office document,
two rendered sheets side by side in one photo, an unknown card.
"""

import json
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring.board import Map
from scoring.layouts import SIDE_B
from scoring.textmap import format_text
from tests.cli_fixtures import DEAL, ROOT, run


def png_declaring(width: int, height: int) -> bytes:
    """A PNG whose header says ``width`` x ``height`` but holds almost no data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


#: The start of a PDF as a scanner app writes it (the header, a binary comment), cut off
#: there: a download or a copy that stopped.
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("bad")
    files = {
        "text.jpg": b"these are my notes, not a photo\n",
        "empty.png": b"",
        "huge.png": png_declaring(20000, 20000),
        "scan.pdf": PDF,
        "pdf-as.jpg": PDF,
        # An iPhone's Live Photo leaves a QuickTime movie beside each still.
        "IMG_0001.MOV": b"\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  " + bytes(64),
        "clip": b"\x00\x00\x00\x1cftypisom\x00\x00\x02\x00isomiso2mp41" + bytes(64),
        "notes.docx": b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(256)),  # a zip
    }
    for name, data in files.items():
        (d / name).write_bytes(data)
    ok, jpeg = cv2.imencode(".jpg", np.full((600, 800, 3), 200, np.uint8))
    (d / "cut.jpg").write_bytes(jpeg.tobytes()[: len(jpeg) // 3])
    rng = np.random.default_rng(1)
    table = cv2.GaussianBlur(rng.integers(0, 255, (600, 800, 3), dtype=np.uint8), (0, 0), 3)
    cv2.imwrite(str(d / "table.png"), table)  # a wooden-table-ish blur, no sheet
    (d / "folder.txt").mkdir()
    return {p.name: p for p in d.iterdir()}


CASES = {
    "text.jpg": "not an image",
    "empty.png": "the file is empty",
    "cut.jpg": "truncated or corrupt",
    "table.png": "no map sheet found",
    "huge.png": "20000x20000 pixels is more than the 250,000,000 allowed",
    "folder.txt": "is a folder (cartoscore batch scores a folder)",
    "scan.pdf": "the PDF cannot be read (damaged or incomplete)",
    "pdf-as.jpg": "the PDF cannot be read (damaged or incomplete)",
    "IMG_0001.MOV": "a video, not a photo: score a still photo of the sheet",
    "clip": "a video, not a photo",
    "notes.docx": "neither a photo in a format cartoscore reads (JPEG, PNG, HEIC,",
}


@pytest.mark.parametrize("name, problem", sorted(CASES.items()))
def test_each_bad_file_is_one_line_naming_it(bad_files, name, problem):
    path = bad_files[name]
    res = run("score", str(path), "--cards", DEAL)
    assert res.exit_code == 1
    [line] = res.stderr.splitlines()
    assert line.startswith(f"error: {path}: ") and problem in line, line
    assert "Traceback" not in res.stderr and res.stdout == ""
    [obj] = [
        json.loads(x)
        for x in run("score", str(path), "--cards", DEAL, "--json").stdout.splitlines()
    ]
    assert set(obj) == {"source", "error"} and problem in obj["error"]


def test_missing_file_and_debug_traceback(tmp_path):
    missing = tmp_path / "IMG_0042.jpg"
    res = run("score", str(missing), "--cards", DEAL)
    assert res.exit_code == 1 and res.stderr.strip() == f"error: {missing}: no such file"
    res = run("score", str(missing), "--cards", DEAL, "--debug")
    assert "Traceback" in res.stderr and "NotAnImage" in res.stderr


@pytest.mark.parametrize(
    "name", ["text.jpg", "table.png", "empty.png", "scan.pdf", "IMG_0001.MOV", "clip"]
)
def test_read_fails_with_one_line(bad_files, name):
    res = run("read", str(bad_files[name]))
    assert res.exit_code == 1
    [line] = res.stderr.splitlines()
    assert line.startswith(f"error: {bad_files[name]}: ") and CASES[name] in line
    assert res.stdout == ""


@pytest.mark.parametrize("command", ["score", "read"])
def test_no_sheet_found_with_overlay_shows_the_places_tried(bad_files, tmp_path, command):
    """CLI.md's --overlay, and issue 4: "When no sheet is found, say so clearly (and,
    with --overlay, show what was tried)"."""
    out = tmp_path / "tried.png"
    extra = ["--cards", DEAL] if command == "score" else []
    res = run(command, str(bad_files["table.png"]), *extra, "--overlay", str(out))
    assert res.exit_code == 1 and "Traceback" not in res.stderr
    lines = res.stderr.splitlines()
    assert lines == [
        f"overlay of the places tried written to {out}",
        f"error: {bad_files['table.png']}: no map sheet found (no 11x11 grid with a frame)",
    ]
    tried = cv2.imread(str(out))
    assert tried is not None and tried.shape[1] / tried.shape[0] == pytest.approx(800 / 600)
    # A file that is not an image has no places tried: no overlay, the one error line.
    res = run(command, str(bad_files["text.jpg"]), *extra, "--overlay", str(tmp_path / "x.png"))
    assert res.exit_code == 1 and len(res.stderr.splitlines()) == 1
    assert not (tmp_path / "x.png").exists()


def test_overlays_of_several_inputs_are_named_after_each(bad_files, tmp_path):
    out = tmp_path / "o.png"
    sample = str(ROOT / "samples" / "wilderness-a.txt")
    res = run("score", str(bad_files["table.png"]), sample, "--cards", DEAL, "--overlay", str(out))
    assert res.exit_code == 1
    assert (tmp_path / "o-table.png").is_file()


def test_good_inputs_are_still_scored_next_to_bad_ones(bad_files):
    sample = str(ROOT / "samples" / "wilderness-a.txt")
    res = run("score", str(bad_files["text.jpg"]), sample, str(bad_files["cut.jpg"]), "--json")
    assert res.exit_code == 1
    objs = [json.loads(x) for x in res.stdout.splitlines()]
    assert ["error" in o for o in objs] == [True, False, True]
    assert objs[1]["total"] == 96


def test_bad_photos_decoded_ahead_each_fail_with_their_own_problem(bad_files):
    """``score`` decodes each next photo while one is read: every error still names
    its own file and problem, in the order given."""
    names = ["text.jpg", "empty.png", "cut.jpg", "table.png", "huge.png"]
    res = run("score", *(str(bad_files[n]) for n in names), "--cards", DEAL, "--json")
    assert res.exit_code == 1
    objs = [json.loads(x) for x in res.stdout.splitlines()]
    assert [o["source"] for o in objs] == [str(bad_files[n]) for n in names]
    assert all(CASES[n] in o["error"] for n, o in zip(names, objs, strict=True))


def test_batch_goes_on_past_every_bad_file(bad_files, tmp_path):
    out = tmp_path / "r.csv"
    sample = str(ROOT / "samples" / "sparse-b.txt")
    # Every bad file but the folder (a folder is searched for sheets; this one has none).
    files = [str(p) for name, p in sorted(bad_files.items()) if name in CASES]
    res = run("batch", *files, sample, "--out", str(out), "--workers", "0")
    assert res.exit_code == 1
    assert "This run: 1 scored, 10 failed" in res.stdout
    assert "Traceback" not in res.stdout + res.stderr


def test_two_sheets_in_one_photo_are_refused(tmp_path):
    from models.synth import make_photo

    halves = []
    for seed in (2, 4):
        img, _ = make_photo(seed, "clean")
        halves.append(cv2.resize(img, (round(img.shape[1] * 1000 / img.shape[0]), 1000)))
    path = tmp_path / "two.jpg"
    cv2.imwrite(str(path), np.hstack(halves))
    res = run("score", str(path), "--cards", DEAL)
    assert res.exit_code == 1
    assert res.stderr.strip() == (
        f"error: {path}: two map sheets in the photo; photograph one sheet at a time"
    )
    # The scanner's own reader refuses it too, as the command does.
    from scanner.pipeline import read_photo
    from scanner.two_sheets import TwoSheets

    with pytest.raises(TwoSheets):
        read_photo(path)


def _page_on_table(seed: int, angle: float, shift: tuple[int, int], size=(1800, 2000)):
    """A rendered sheet's paper alone (its page outline from the drawn lattice), turned by
    ``angle`` degrees and moved by ``shift`` on a ``size`` canvas: (image, mask, truth)."""
    from models.synth import make_photo
    from scanner.two_sheets import page_outline

    img, truth = make_photo(seed, "clean")
    lattice = np.float64(truth["lattice"])
    n = lattice.shape[0]
    cells = np.stack(np.meshgrid(np.arange(n), np.arange(n)), -1).reshape(-1, 2)
    h, _ = cv2.findHomography(cells.astype(np.float64), lattice.reshape(-1, 2))
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(page_outline(h)).astype(np.int32), 255)
    w, ht = size
    m = cv2.getRotationMatrix2D((img.shape[1] / 2, img.shape[0] / 2), angle, 1.0)
    m[:, 2] += (w / 2 - img.shape[1] / 2 + shift[0], ht / 2 - img.shape[0] / 2 + shift[1])
    return cv2.warpAffine(img, m, size), cv2.warpAffine(mask, m, size), truth


def test_the_top_sheet_of_a_pile_is_scored_not_refused(tmp_path):
    # A tournament's sheets photographed one after another on the pile: the sheet below
    # shows a strip of its grid beside the top one, which is the sheet to score.
    below, below_mask, _ = _page_on_table(4, 12.0, (420, 160))
    top, top_mask, truth = _page_on_table(2, 0.0, (0, 0))
    photo = np.full_like(top, (40, 70, 110))
    photo[below_mask > 0] = below[below_mask > 0]
    photo[top_mask > 0] = top[top_mask > 0]
    path = tmp_path / "pile.jpg"
    cv2.imwrite(str(path), photo)
    res = run("read", str(path))
    assert res.exit_code == 0, res.output
    assert f"side: {truth['side']}" in res.stdout


def test_unknown_card_in_batch_is_a_usage_error(tmp_path):
    res = run("batch", str(tmp_path), "--cards", "a,b,c,d")
    assert res.exit_code == 2 and "unknown card 'a'" in res.stderr


def test_a_blank_sheet_scores_as_an_empty_map_with_a_note(tmp_path):
    blank = tmp_path / "unplayed.txt"
    blank.write_text(format_text(Map.empty(SIDE_B)))
    res = run("score", str(blank), "--cards", DEAL, "--json")
    assert res.exit_code == 0
    [obj] = [json.loads(x) for x in res.stdout.splitlines()]
    assert "blank sheet: nothing is drawn on the map; scored as an empty map" in obj["notes"]
    # RULES: no filled row/column/edge forest etc.; Great City has no village: all 0 but
    # no monsters either; coins 0.
    assert obj["card_points"] == {"A": 0, "B": 0, "C": 0, "D": 0} and obj["total"] == 0
    assert "blank sheet" in run("score", str(blank), "--cards", DEAL).stdout


def test_an_unreadable_file_says_permission_denied(tmp_path, monkeypatch):
    # Tests may run as root, for whom chmod 000 changes nothing: deny access instead.
    import app.inputs

    photo = tmp_path / "locked.jpg"
    photo.write_bytes(b"\xff\xd8\xff")
    real = app.inputs.os.access
    monkeypatch.setattr(app.inputs.os, "access", lambda p, mode: p != photo and real(p, mode))
    res = run("score", str(photo), "--cards", DEAL)
    assert res.exit_code == 1, res.output
    assert res.stderr.strip() == f"error: {photo}: cannot read (permission denied)"
    # ... and the other inputs are still scored; a batch records it and goes on.
    sample = str(ROOT / "samples" / "wilderness-a.txt")
    res = run("score", str(photo), sample, "--json")
    assert res.exit_code == 1 and json.loads(res.stdout.splitlines()[1])["total"] == 96
    res = run("batch", str(photo), sample, "--out", str(tmp_path / "r.csv"), "--workers", "0")
    assert res.exit_code == 1 and "This run: 1 scored, 1 failed" in res.stdout
