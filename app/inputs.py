"""Load each CLI input (a photo or a map file) into a :class:`scanner.sheet.Sheet`.

Map scoring never imports the image stack: the photo reader is imported lazily,
only when a photo is given.
"""

from __future__ import annotations

import codecs
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from app.corrections import Fixes, apply_corrections
from scanner.errors import NotAnImage
from scanner.page_count import page_count
from scanner.pages import PDF_START, file_head, page_name, split_page
from scanner.sheet import Sheet
from scanner.signatures import HEAD_BYTES, ftyp_brand, is_image_head
from scoring.textmap import load_map_file

PHOTO_SUFFIXES = frozenset(
    {".jpg", ".jpeg", ".jfif", ".png", ".webp", ".tif", ".tiff", ".heic", ".heif", ".gif", ".bmp"}
    | {".avif"}  # what some Android phones save
    | {".jp2", ".j2k", ".jpf", ".jpx"}  # JPEG 2000 (some cameras and archives)
    | {".pdf"}  # a scan: each page is read as a photo (scanner.pdf)
)
MAP_SUFFIXES = frozenset({".txt", ".map", ".json"})
#: Videos, by name (a Live Photo's movie beside its still, a clip of the table).
VIDEO_SUFFIXES = frozenset({".mov", ".mp4", ".m4v", ".3gp", ".avi", ".mkv", ".webm"})

_overlap = False


def use_second_thread(on: bool = True) -> None:
    """Let photo reading classify the cells in a second thread while the coins are read.

    For a command scoring photos in its own process (``score``, ``read``): about 6 ms
    less per 12 MP photo on two cores. Batch workers keep to one thread each.
    """
    global _overlap
    _overlap = bool(on)


def warm_up_reader() -> None:
    """Start building the photo reader's model sessions in its second thread (with
    :func:`use_second_thread`), to overlap the first photo's decoding."""
    if _overlap:
        from scanner.pipeline import set_overlap, warm_up

        set_overlap(True)
        warm_up()


@dataclass(frozen=True)
class LoadedInput:
    """A sheet, and the cards its map file's ``cards:`` header named (None for photos).

    ``view`` is the photo's canonical rectified view (BGR) when it was asked for
    (``keep_view``), for overlays; ``scan``, its whole :class:`scanner.pipeline.Scan`
    (``keep_scan``), for the scanner's debug picture; None for map files.
    """

    sheet: Sheet
    cards: dict[str, str] | None = None
    view: object | None = None
    scan: object | None = None


#: ISO media brands (``ftyp``) of videos: MP4, QuickTime, 3GPP.
_VIDEO_BRANDS = (
    b"isom",
    b"iso2",
    b"mp41",
    b"mp42",
    b"qt  ",
    b"M4V ",
    b"avc1",
    b"3gp4",
    b"3gp5",
    b"3gp6",
)
#: One line for a video given as a sheet.
VIDEO_PROBLEM = "a video, not a photo: score a still photo of the sheet"
#: One line for a file that is binary data but no image format read here.
NEITHER_PROBLEM = (
    "neither a photo in a format cartoscore reads (JPEG, PNG, HEIC, AVIF, WebP, TIFF, GIF,"
    " BMP, JPEG 2000, PDF) nor a text map file"
)
#: ``read`` given text (a map file?): there is nothing to recognise in it.
TEXT_PROBLEM = "a text file, not a photo (cartoscore score reads map files as they are)"


def media_kind(path: str | Path) -> str | None:
    """What a file is, by its extension, else by its first bytes (read once): "photo",
    "video" or None (neither).

    A photo saved without an extension, or under a wrong one, is still read as a photo
    rather than refused as a map file that is not text; a PDF (a scan) and a PDF's page
    (``scan.pdf#page=2``) are read as photos too. A video is told apart so that it can
    be refused as one (an iPhone's Live Photo leaves a ``.MOV`` beside each still).
    """
    file, page = split_page(path)
    suffix = Path(file).suffix.lower()
    if suffix in VIDEO_SUFFIXES:
        return "video"
    if page is not None or suffix in PHOTO_SUFFIXES:
        return "photo"
    head = file_head(file, HEAD_BYTES)
    if (
        ftyp_brand(head) in _VIDEO_BRANDS
        or head.startswith(b"\x1aE\xdf\xa3")  # Matroska, WebM
        or (head[:4] == b"RIFF" and head[8:12] == b"AVI ")
    ):
        return "video"
    if head.startswith(PDF_START) or is_image_head(head):
        return "photo"
    return None


def is_photo(path: str | Path) -> bool:
    """True when the file's name or first bytes say it is an image (:func:`media_kind`)."""
    return media_kind(path) == "photo"


def _binary(path: str | Path) -> bool:
    """True when the file's start is no UTF-8 text (a NUL byte, or bytes UTF-8 does not
    allow): whatever it is, it is not a text map."""
    head = file_head(path, 512)
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head)  # a cut last character is fine
    except UnicodeDecodeError:
        return True
    return b"\x00" in head


def read_photo(
    path: str | Path, *, side: str | None = None, decoded: Future | None = None
) -> Sheet:
    """Recognise the sheet in a photo (``scanner.pipeline``), refusing two-sheet photos.

    ``side`` is "A", "B" or None (detect); ``decoded``, the photo's decoding started
    by :class:`DecodeAhead`. Scanner errors pass through, and
    :class:`scanner.two_sheets.TwoSheets` when a second sheet is in the picture.
    """
    return scan_and_read_photo(path, side=side, decoded=decoded)[0]


def scan_and_read_photo(
    path: str | Path, *, side: str | None = None, decoded: Future | None = None
) -> tuple[Sheet, object]:
    """:func:`read_photo` that also returns the scan (its canonical view for overlays)."""
    from scanner.pipeline import scan_photo, set_overlap, sheet_from_scan  # lazy: cv2...
    from scanner.two_sheets import check_one_sheet

    set_overlap(_overlap)
    photo = decoded.result() if decoded is not None else None  # its errors raise here
    scan = scan_photo(path, side=side or "auto", photo=photo)
    check_one_sheet(scan)
    return sheet_from_scan(scan), scan


class UnreadableInput(OSError):
    """The input exists but this user may not read it."""


def load_input(
    path: str | Path,
    *,
    side: str | None = None,
    default_side: str | None = None,
    keep_view: bool = False,
    keep_scan: bool = False,
    photo_only: bool = False,
    decoded: Future | None = None,
    read_cards: bool = True,
) -> LoadedInput:
    """Read one input: a photo by extension, anything else as a text or JSON map file.

    ``side`` (``--side``, or set by hand for this input) is the side to read it as;
    ``default_side`` (a settings file's) only when the input does not say: a map file's
    own ``side:`` header wins over it, as its ``cards:`` header does. A map file read as
    a side its header does not name gets a note saying so. ``read_cards`` False (the
    cards are given for it) leaves a map file's ``cards:`` header unread.

    ``photo_only`` reads every file as a photo whatever its extension (``read``);
    ``decoded`` is a photo's decoding started ahead (:class:`DecodeAhead`).
    Raises :class:`scoring.textmap.BadMapFile`,
    :class:`UnreadableInput`, or the scanner's ``ScanError`` subclasses, each naming
    the file.
    """
    file = split_page(path)[0]
    if os.path.isdir(path):
        raise UnreadableInput(f"{path}: is a folder (cartoscore batch scores a folder)")
    if os.path.isfile(file) and not os.access(file, os.R_OK):
        raise UnreadableInput(f"{path}: cannot read (permission denied)")
    kind = media_kind(path)
    if kind == "video":
        raise NotAnImage(str(path), VIDEO_PROBLEM)
    if photo_only and kind is None and os.path.isfile(file) and os.path.getsize(file):
        raise NotAnImage(str(path), NEITHER_PROBLEM if _binary(file) else TEXT_PROBLEM)
    if photo_only or kind == "photo":
        photo_side = side or default_side
        if keep_view or keep_scan:
            sheet, scan = scan_and_read_photo(path, side=photo_side, decoded=decoded)
            return LoadedInput(
                sheet, view=scan.view if keep_view else None, scan=scan if keep_scan else None
            )
        return LoadedInput(read_photo(path, side=photo_side, decoded=decoded))
    if Path(file).suffix.lower() not in MAP_SUFFIXES and _binary(file):
        raise NotAnImage(str(path), NEITHER_PROBLEM)
    mf = load_map_file(path, side=side, default_side=default_side, read_cards=read_cards)
    notes = ()
    named = (mf.header_side or "").strip().upper()
    if side and named and named != mf.map.layout.name:
        notes = (f"read as side {mf.map.layout.name}, as given; the file says side {named}",)
    sheet = Sheet(source=str(path), map=mf.map, coins=mf.coins, notes=notes)
    return LoadedInput(sheet, mf.cards)


def load_with_settings(
    path: str | Path,
    *,
    fixes: Fixes | None = None,
    default_cards: dict[str, str] | None = None,
    **options,
) -> LoadedInput:
    """:func:`load_input` (given ``options``), then what the settings say for the input:
    ``fixes``, set by hand, applied (:class:`app.corrections.BadCorrection` on a printed
    space) and, unless a map file's header named its cards, ``default_cards`` (a nearby
    settings file's). ``score``, ``read`` and ``batch`` each load an input so."""
    item = load_input(path, **options)
    if item.cards is None and default_cards is not None:
        item = replace(item, cards=default_cards)
    if not fixes:
        return item
    return replace(item, sheet=apply_corrections(item.sheet, fixes))


def with_pages(inputs: list[str | Path]) -> list[str | Path]:
    """The inputs with each file of several pages (a PDF, a multi-page TIFF) replaced by
    its pages, in order (``scan.pdf#page=1``, ``scan.pdf#page=2`` ...): a document feeder
    scans a tournament's sheets into one file, and each page is one sheet. Anything else,
    a file that cannot be read included (it fails with its own message), stays as it is.
    """
    out: list[str | Path] = []
    for item in inputs:
        n = 1
        if os.path.isfile(item):
            try:
                n = page_count(item)
            except NotAnImage:
                n = 1
        out.extend([page_name(item, k) for k in range(1, n + 1)] if n > 1 else [item])
    return out


class DecodeAhead:
    """Decode the next photo of a list in a second thread while this one is read.

    For ``score`` with several photos: decoding is about 40 % of a photo's time, so
    photo ``i + 1``'s overlaps recognising photo ``i`` on a second core. Call
    :meth:`take` once per input, in order; at most one decoded photo waits. Errors
    of a decoding (not an image, too large) are raised when its photo is read.

    >>> with DecodeAhead(["scores.txt"]) as ahead:
    ...     ahead.take() is None  # not a photo: nothing decoded ahead
    True
    """

    def __init__(self, inputs: list[str | Path]) -> None:
        self._inputs = [Path(p) for p in inputs]
        self._cursor = 0
        self._ahead: tuple[int, Future] | None = None
        self._pool: ThreadPoolExecutor | None = None

    def take(self) -> Future | None:
        """The decoding of the next input (None: not started ahead), starting the next one."""
        index = self._cursor
        self._cursor += 1
        decoded = None
        if self._ahead is not None and self._ahead[0] == index:
            decoded = self._ahead[1]
            self._ahead = None
        if self._ahead is None:
            later = (k for k in range(index + 1, len(self._inputs)) if self._decodable(k))
            following = next(later, None)
            if following is not None:
                self._ahead = (following, self._decode(self._inputs[following]))
        return decoded

    def _decodable(self, index: int) -> bool:
        path = self._inputs[index]
        file = split_page(path)[0]
        return is_photo(path) and os.path.isfile(file) and os.access(file, os.R_OK)

    def _decode(self, path: Path) -> Future:
        from scanner.load import load_photo  # lazy: pulls in cv2

        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="decode")
        return self._pool.submit(load_photo, path)

    def close(self) -> None:
        """Drop a decoding nobody will take (an interrupted run)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        self._ahead = None

    def __enter__(self) -> DecodeAhead:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
