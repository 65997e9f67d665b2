"""PDF pages read as photos (:mod:`scanner.pages` names them: ``scan.pdf#page=3``).

A page is rendered with PDFium (``pypdfium2``), which applies the page's own turn
(``/Rotate``), at the smallest of 300 dpi halved, quartered ... that keeps the working
size, as a JPEG is decoded at a reduced scale: the "full" size a small sheet is looked
at again in is the page at 300 dpi. PDFium is not thread-safe, and ``score`` decodes
the next input in a second thread: every call into it holds one lock.
"""

from __future__ import annotations

import threading
from pathlib import Path

from scanner.errors import ImageTooLarge, NotAnImage
from scanner.pages import named_page, split_page

FULL_DPI = 300.0  # a scan's usual resolution: the page's "full-size" decode
_LOCK = threading.Lock()


def _open(path: str, name: str):
    import pypdfium2 as pdfium  # lazy: only PDFs need it

    try:
        return pdfium.PdfDocument(path)
    except pdfium.PdfiumError as e:
        why = "it is protected by a password" if "password" in str(e).lower() else None
        raise NotAnImage(name, f"the PDF cannot be read ({why or 'damaged or incomplete'})") from e


def pdf_page_count(path: str | Path) -> int:
    """How many pages a PDF file has (:class:`NotAnImage` when it cannot be read)."""
    with _LOCK:
        pdf = _open(str(path), str(path))
        try:
            return len(pdf)
        finally:
            pdf.close()


def render_page(
    source: str | Path, work_long_side: int, max_pixels: int
) -> tuple[object, float, tuple[int, int]]:
    """A page of a PDF as an upright BGR uint8 image at a working size.

    ``source`` is a PDF's path, or ``path#page=N``. Returns the image, its scale against
    the page at :data:`FULL_DPI` (1, 1/2, 1/4 or 1/8: the smallest keeping
    ``work_long_side`` pixels on the long side, as photos are decoded) and that full
    size (width, height). Raises :class:`NotAnImage` (unreadable, no such page, several
    pages and none named, an empty page) or :class:`ImageTooLarge`.
    """
    import cv2  # lazy, as pypdfium2: listing pages needs neither
    import numpy as np

    from scanner.decode_scale import reduction_factor

    name = str(source)
    path, page = split_page(source)
    with _LOCK:
        pdf = _open(str(path), name)
        try:
            pdf_page = pdf[named_page(name, "PDF", page, len(pdf))]
            width_pt, height_pt = pdf_page.get_size()
            full = (round(width_pt * FULL_DPI / 72), round(height_pt * FULL_DPI / 72))
            if min(full) < 1:
                raise NotAnImage(name, "the PDF page has no size")
            if full[0] * full[1] > max_pixels:
                raise ImageTooLarge(
                    name,
                    f"the page is {full[0]}x{full[1]} pixels at {FULL_DPI:.0f} dpi,"
                    f" more than the {max_pixels:,} allowed",
                )
            factor = reduction_factor(max(full), work_long_side)
            bitmap = pdf_page.render(scale=FULL_DPI / 72 / factor)
            pixels, mode = np.array(bitmap.to_numpy()), bitmap.mode  # copied: freed below
        finally:
            pdf.close()
    if pixels.ndim == 2:
        image = cv2.cvtColor(pixels, cv2.COLOR_GRAY2BGR)
    elif mode.startswith("RGB"):
        image = cv2.cvtColor(pixels[..., :3], cv2.COLOR_RGB2BGR)
    else:
        image = np.ascontiguousarray(pixels[..., :3])
    return image, image.shape[1] / full[0], full
