"""How many pages (sheets) a file holds: a PDF's (:mod:`scanner.pdf`), a TIFF's, one.

Kept apart from :mod:`scanner.pages`, whose page names :mod:`scanner.pdf` uses: this
module uses both, and they do not import each other."""

from __future__ import annotations

from pathlib import Path

from scanner.errors import NotAnImage
from scanner.pages import PDF_START, TIFF_STARTS, file_head


def page_count(path: str | Path) -> int:
    """How many pages (sheets) a file holds: a PDF's pages, a TIFF's images, 1 for
    anything else (a JPEG's embedded preview is not a page). Raises :class:`NotAnImage`
    for a PDF that cannot be read."""
    head = file_head(path)
    if head.startswith(PDF_START):
        from scanner.pdf import pdf_page_count  # lazy: PDFium only for PDFs

        return pdf_page_count(path)
    if not head.startswith(TIFF_STARTS):
        return 1
    from PIL import Image  # lazy: listing inputs needs no image library otherwise

    try:
        with Image.open(path) as im:
            return int(getattr(im, "n_frames", 1))
    # A TIFF declaring more pixels than Pillow's own limit: counted as one page, so that
    # the loader refuses it in its own words, as any photo too large.
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as e:
        raise NotAnImage(str(path), f"the TIFF cannot be read ({e})") from e
