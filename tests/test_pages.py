"""Files of several pages, a sheet a page: scans saved as PDFs (a scanner app's one page,
a document feeder's pile of sheets) and multi-page TIFFs (an office scanner's).

Each page is read as a photo (scanner.pages, scanner.pdf), named as a PDF link names it
(``scan.pdf#page=2``). The files are made here from the shipped sample photos, as Pillow
writes a scan (one JPEG image filling each PDF page; TIFF pages losslessly), and checked
against the photos' drawn truth; odd PDFs (a turned page, a page the size of a wall, no
pages, pages that do not exist) are built with PDFium itself.
"""

import csv
import json
from pathlib import Path

import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from app.inputs import with_pages
from scanner.errors import ImageTooLarge, NotAnImage
from scanner.load import load_photo
from scanner.pages import split_page
from tests.cli_fixtures import DEAL, ROOT, run
from tests.test_cli_end_to_end import README_PHOTO, SHIPPED, check_photo

SPACES = "ABCDEFGHIJK"


def save_pdf(path: Path, photos: list[Path], dpi: float = 150.0) -> Path:
    """The photos as the pages of one PDF, each page holding its photo at ``dpi``."""
    first, *rest = [Image.open(p) for p in photos]
    first.save(path, save_all=True, append_images=rest, resolution=dpi)
    return path


def test_a_scan_saved_as_a_pdf_scores_its_truth(tmp_path):
    photo = ROOT / README_PHOTO
    pdf = save_pdf(tmp_path / "scan.pdf", [photo])
    check_photo(pdf, json.loads(photo.with_suffix(".json").read_text()), tmp_path)


def test_a_page_is_decoded_as_a_photo_is(tmp_path):
    photo = ROOT / README_PHOTO  # 1920 x 1440: at 150 dpi a 12.8 x 9.6 inch page
    pdf = save_pdf(tmp_path / "scan.pdf", [photo])
    page = load_photo(pdf)
    assert page.original_size == (3840, 2880)  # the page at 300 dpi
    assert page.scale == 0.5  # the largest halving keeping 1000 px
    h, w = page.image.shape[:2]  # PDFium rounds a page's pixels up
    assert w == 1920 and h in (1440, 1441) and page.format == "PDF" and page.source == str(pdf)
    jpeg = cv2.imread(str(photo), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)  # as stored:
    # Pillow puts a photo into a PDF without its EXIF turn
    assert np.abs(page.image[:1440].astype(int) - jpeg).mean() < 4  # colour order kept (BGR)


def test_a_turned_page_is_read_turned(tmp_path):
    image = np.full((200, 300, 3), 255, np.uint8)
    image[:, :100] = (0, 0, 255)  # red on the left (BGR)
    cv2.imwrite(str(tmp_path / "p.png"), image)
    doc = pdfium.PdfDocument(save_pdf(tmp_path / "flat.pdf", [tmp_path / "p.png"], dpi=300))
    doc[0].set_rotation(90)  # the page's /Rotate: shown a quarter turn clockwise
    doc.save(tmp_path / "turned.pdf")
    doc.close()
    got = load_photo(tmp_path / "turned.pdf").image
    want = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)  # red on top
    assert got.shape == want.shape
    assert np.abs(got.astype(int) - want).mean() < 8


def test_a_pdf_of_several_pages_is_one_sheet_a_page(tmp_path):
    pdf = save_pdf(tmp_path / "round 1.pdf", SHIPPED)
    pages = [f"{pdf}#page={k}" for k in range(1, len(SHIPPED) + 1)]
    assert with_pages([pdf, ROOT / "samples" / "sparse-b.txt"]) == [
        *pages,
        ROOT / "samples" / "sparse-b.txt",
    ]
    res = run("score", str(pdf), "--cards", DEAL, "--json")
    assert res.exit_code == 0, res.stderr
    got = [json.loads(line) for line in res.stdout.splitlines()]
    assert [g["source"] for g in got] == pages
    for photo, sheet in zip(SHIPPED, got, strict=True):
        truth = json.loads(photo.with_suffix(".json").read_text())
        assert (sheet["side"], sheet["coins"]) == (truth["side"], truth["coins"]), photo.name
        misread = {
            f"{SPACES[r]}{c + 1}"
            for r in range(11)
            for c in range(11)
            if sheet["grid"][r][c] != truth["grid"][r][c]
        }
        assert misread <= {item["space"] for item in sheet["review"]}, photo.name


def test_read_asks_for_one_page_and_names_missing_ones(tmp_path):
    pdf = save_pdf(tmp_path / "two.pdf", SHIPPED[:2])
    res = run("read", str(pdf))
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.strip() == f"error: {pdf}: a PDF of 2 pages: name one, as {pdf}#page=1"
    res = run("read", f"{pdf}#page=3")
    assert res.stderr.strip() == f"error: {pdf}#page=3: the PDF has no page 3 (it has 2)"
    res = run("read", f"{pdf}#page=2")
    assert res.exit_code == 0 and res.stdout.startswith(";")


def test_a_page_of_something_else_or_of_nothing_is_refused(tmp_path):
    photo = ROOT / README_PHOTO
    with pytest.raises(NotAnImage, match="not a PDF or TIFF of several pages, so it has no page 2"):
        load_photo(f"{photo}#page=2")
    with pytest.raises(NotAnImage, match="no such file"):
        load_photo(f"{tmp_path / 'gone.pdf'}#page=1")
    empty = pdfium.PdfDocument.new()
    empty.save(tmp_path / "empty.pdf")
    with pytest.raises(NotAnImage, match="empty.pdf: the PDF cannot be read"):  # PDFium's view
        load_photo(tmp_path / "empty.pdf")
    wall = pdfium.PdfDocument.new()
    wall.new_page(200 * 72, 200 * 72)  # 200 x 200 inches: 60000 px a side at 300 dpi
    wall.save(tmp_path / "wall.pdf")
    with pytest.raises(ImageTooLarge, match="60000x60000 pixels at 300 dpi"):
        load_photo(tmp_path / "wall.pdf")


def test_a_file_named_like_a_page_is_that_file(tmp_path):
    odd = tmp_path / "notes#page=2"
    odd.write_text("x")
    assert split_page(odd) == (odd, None)
    assert split_page(f"{tmp_path / 'a.pdf'}#page=12") == (str(tmp_path / "a.pdf"), 12)


def test_batch_scores_each_page_and_leaves_its_own_report_alone(tmp_path):
    folder = tmp_path / "round 1"
    folder.mkdir()
    save_pdf(folder / "feeder.pdf", SHIPPED[:2])
    out, html = folder / "results.csv", folder / "report.html"
    args = ("batch", str(folder), "--cards", DEAL, "--out", str(out), "--html", str(html))
    assert run(*args, "--workers", "0").exit_code == 0
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["source"] for r in rows] == [f"{folder / 'feeder.pdf'}#page={k}" for k in (1, 2)]
    assert [r["error"] for r in rows] == ["", ""]
    overlays = sorted(p.name for p in (folder / "report_files").iterdir())
    assert [name.rsplit("-", 1)[0] for name in overlays] == ["feeder-page1", "feeder-page2"]
    again = run(*args, "--workers", "0")  # the overlays written last time are no sheets
    assert again.exit_code == 0 and "This run: 0 scored, 0 failed" in again.stdout
    # Nor are they when the report is not asked for again: X_files beside X.html.
    plain = run("batch", str(folder), "--cards", DEAL, "--out", str(out), "--workers", "0")
    assert plain.exit_code == 0 and "This run: 0 scored, 0 failed" in plain.stdout


def test_a_tiff_of_several_pages_is_one_sheet_a_page(tmp_path):
    tiff = tmp_path / "feeder.tif"
    first, *rest = [Image.open(p) for p in SHIPPED[:2]]
    first.save(tiff, save_all=True, append_images=rest, compression="tiff_deflate")
    single = tmp_path / "one.tif"
    first.save(single)
    assert with_pages([single, tiff]) == [single, f"{tiff}#page=1", f"{tiff}#page=2"]
    res = run("score", str(tiff), "--cards", DEAL, "--json")
    assert res.exit_code == 0, res.stderr
    got = [json.loads(line) for line in res.stdout.splitlines()]
    assert [g["source"] for g in got] == [f"{tiff}#page=1", f"{tiff}#page=2"]
    for photo, sheet in zip(SHIPPED[:2], got, strict=True):
        truth = json.loads(photo.with_suffix(".json").read_text())
        assert (sheet["side"], sheet["coins"]) == (truth["side"], truth["coins"]), photo.name
    res = run("read", str(tiff))
    assert res.stderr.strip() == f"error: {tiff}: a TIFF of 2 pages: name one, as {tiff}#page=1"
    res = run("read", f"{tiff}#page=3")
    assert res.stderr.strip() == f"error: {tiff}#page=3: the TIFF has no page 3 (it has 2)"
