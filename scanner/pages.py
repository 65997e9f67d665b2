"""Files of several pages, each page a sheet: a PDF (a scanner app's scan, a document
feeder's pile of sheets) or a multi-page TIFF (what many office scanners save).

A page is named as a PDF viewer's link names it, ``scan.pdf#page=3`` or
``feeder.tif#page=3`` (pages count from 1); a file of one page needs no page. Reading a
page is :mod:`scanner.load`'s (a PDF's through :mod:`scanner.pdf`), counting a file's
pages :mod:`scanner.page_count`'s.
"""

from __future__ import annotations

import re
from pathlib import Path

from scanner.errors import NotAnImage

#: How a page of a file is named after the file's path (a PDF link's fragment).
PAGE_MARK = "#page="
_PAGE_SPEC = re.compile(rf"^(?P<path>.+){re.escape(PAGE_MARK)}(?P<page>\d+)$")
#: How a PDF file begins.
PDF_START = b"%PDF-"
#: How TIFF files begin (little- and big-endian).
TIFF_STARTS = (b"II*\x00", b"MM\x00*")


def split_page(source: str | Path) -> tuple[str | Path, int | None]:
    """``("scan.pdf", 3)`` for ``"scan.pdf#page=3"``; ``(source, None)``, as given, for
    anything else, including a file that exists under that very name."""
    found = _PAGE_SPEC.match(str(source))
    if found is None or Path(source).exists():
        return source, None
    return found["path"], int(found["page"])


def page_name(path: str | Path, page: int) -> str:
    """The name of page ``page`` (from 1) of a file: ``scan.pdf#page=3``."""
    return f"{path}{PAGE_MARK}{page}"


def source_stem(source: str | Path) -> str:
    """A file name's stem for an input's outputs: ``scan-page3`` for ``scan.pdf#page=3``."""
    path, page = split_page(source)
    stem = Path(path).stem
    return stem if page is None else f"{stem}-page{page}"


def file_head(path: str | Path, n: int = 12) -> bytes:
    """The file's first ``n`` bytes (empty when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError:
        return b""


def is_pdf(path: str | Path) -> bool:
    """True for a PDF document, by its first bytes (whatever its name)."""
    return file_head(path, len(PDF_START)) == PDF_START


def named_page(name: str, kind: str, page: int | None, n: int) -> int:
    """The index (from 0) of the page ``name`` asks for in a file of ``n`` pages of
    ``kind`` ("PDF", "TIFF"), or :class:`NotAnImage`: no pages, several and none named,
    or one the file has not."""
    path = split_page(name)[0]
    if n == 0:
        raise NotAnImage(name, f"the {kind} has no pages")
    if page is None and n > 1:
        raise NotAnImage(name, f"a {kind} of {n} pages: name one, as {page_name(path, 1)}")
    if page is not None and not 1 <= page <= n:
        raise NotAnImage(name, f"the {kind} has no page {page} (it has {n})")
    return (page or 1) - 1
