"""Decode a photo file into an upright BGR image at a working resolution.

Phones write 12 MP photos, the grid needs only ~60-100 px per cell, and
decoding is the slowest step of the scanner. JPEGs are therefore decoded
straight at 1/2, 1/4 or 1/8 scale (libjpeg's DCT scaling, through simplejpeg for
complete files: the same libjpeg-turbo as OpenCV's decoder, as fast and giving the
same pixels, which also tells when the data is corrupt; Pillow's otherwise, which
reports truncated data), other formats are decoded and shrunk. EXIF orientation is
applied, so row 0 of the result is the top of the scene as the phone showed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import simplejpeg
from PIL import Image, UnidentifiedImageError

from scanner.decode_scale import reduction_factor
from scanner.errors import ImageTooLarge, NotAnImage
from scanner.pages import file_head, is_pdf, named_page, split_page
from scanner.pdf import render_page
from scanner.signatures import HEAD_BYTES, is_image_head

try:  # HEIC/HEIF from iPhones
    from pillow_heif import open_heif, register_heif_opener

    register_heif_opener()
except ImportError:  # pragma: no cover - pillow-heif is a declared dependency
    open_heif = None

#: Refuse to decode more than this (decompression bombs). It admits the 200 MP photos
#: some phones take (16320 x 12240): a JPEG is decoded at 1/8 of that, which peaks at
#: about 0.1 GB of memory (0.7 GB for a progressive one).
MAX_PIXELS = 250_000_000
# Pillow refuses (above twice its limit) or warns of a bomb by its own, lower limit; the
# size is checked here instead, from the header, before any pixel is decoded, so that
# every photo too large is refused with the same line. (Its warnings, where a file is
# opened before this runs, are filtered in scanner/__init__.py.)
Image.MAX_IMAGE_PIXELS = None
#: The problem of a file that begins as an image but cannot be decoded to its end.
DAMAGED = "the image data is truncated or corrupt"
WORK_LONG_SIDE = 1000  # decode at the smallest power-of-two scale keeping this many px
_SWAPS_AXES = {5, 6, 7, 8}  # EXIF orientations that turn the picture a quarter


@dataclass(frozen=True)
class Photo:
    """A decoded photo.

    ``image`` is upright BGR uint8; ``scale`` is its size over the full-resolution
    upright size (``original_size``, (width, height)), e.g. 0.25 for a 12 MP JPEG.
    """

    image: np.ndarray
    source: str
    scale: float
    original_size: tuple[int, int]
    format: str
    #: libjpeg's complaint about a JPEG's data (e.g. "premature end of data segment"):
    #: the picture decoded, but part of it may be garbled. None for a sound file.
    damage: str | None = None


def load_photo(
    source: str | Path | np.ndarray,
    *,
    work_long_side: int = WORK_LONG_SIDE,
    max_pixels: int = MAX_PIXELS,
) -> Photo:
    """Read an image file (JPEG, PNG, WebP, TIFF, HEIC...), a page of a PDF or of a
    multi-page TIFF (:mod:`scanner.pages`: ``scan.pdf``, ``scan.pdf#page=2``) or take an
    array.

    Parameters
    ----------
    source : path or (H, W[, C]) uint8 array
        A file to decode (a page named as ``path#page=N``), or an already decoded
        image (BGR, BGRA or grey).
    work_long_side : int
        Decode at the smallest scale 1, 1/2, 1/4 or 1/8 whose long side keeps at
        least this many pixels.
    max_pixels : int
        Files declaring more pixels than this are refused before decoding.

    Returns
    -------
    Photo

    Raises
    ------
    NotAnImage
        Missing, empty, unreadable, truncated or corrupt file.
    ImageTooLarge
        More than ``max_pixels`` pixels.
    """
    if work_long_side < 1:
        raise ValueError(f"work_long_side must be positive, got {work_long_side}")
    if isinstance(source, np.ndarray):
        return _from_array(source)
    name = str(source)
    file, page = split_page(name)
    path = Path(file)
    if not path.is_file():
        raise NotAnImage(name, "no such file")
    if path.stat().st_size == 0:
        raise NotAnImage(name, "the file is empty")
    if is_pdf(path):
        image, scale, full = render_page(name, work_long_side, max_pixels)
        return Photo(image=image, source=name, scale=scale, original_size=full, format="PDF")
    try:
        with Image.open(path) as im:
            _to_page(im, name, page)
            return _decode(im, name, work_long_side, max_pixels, path)
    except UnidentifiedImageError as e:
        if is_image_head(file_head(path, HEAD_BYTES)):  # a HEIC or AVIF cut short
            raise NotAnImage(name, DAMAGED) from e
        raise NotAnImage(name, "not an image (unrecognised or unsupported format)") from e
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        # Pillow's own words ("image file is truncated (4 bytes not processed)" for half a
        # file) say less than they seem to: the one line stays ours.
        raise NotAnImage(name, DAMAGED) from e


def _to_page(im: Image.Image, name: str, page: int | None) -> None:
    """Move an opened image to the page ``name`` asks for: a multi-page TIFF (an office
    scanner's pile of sheets) is read a page at a time, and only a TIFF has pages."""
    if im.format != "TIFF":
        if page is not None:
            raise NotAnImage(name, f"not a PDF or TIFF of several pages, so it has no page {page}")
        return
    index = named_page(name, "TIFF", page, int(getattr(im, "n_frames", 1)))
    if index:
        im.seek(index)


_REDUCED = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


def _fast_jpeg(path: Path, factor: int) -> tuple[np.ndarray | None, str | None]:
    """BGR pixels of a JPEG file at 1/``factor`` scale, as stored (no EXIF turn), and
    libjpeg's complaint about its data (None when it has none).

    Data after the picture (a motion photo's movie, as some phones append) is ignored.
    A file whose data libjpeg finds corrupt is decoded anyway, as far as it goes (a
    damaged strip may spare the sheet), and the complaint says so. The image is None
    for a file cut short, or one that cannot be decoded here: Pillow then decodes it
    and says what is wrong. OpenCV decodes the few complete files the TurboJPEG API
    refuses (unusual chroma sampling), as it did all of them before.
    """
    data = path.read_bytes()
    try:
        height, width, _, _ = simplejpeg.decode_jpeg_header(data)
    except ValueError:
        return _cv2_jpeg(data, factor), None
    size = {"min_height": -(-height // factor), "min_width": -(-width // factor)}
    try:  # (min_factor alone does not scale: the sizes do)
        return simplejpeg.decode_jpeg(data, "BGR", strict=True, **size), None
    except ValueError as e:
        if str(e) == _CUT_SHORT:
            return None, None
        damage = str(e).removeprefix("Corrupt JPEG data: ")
    try:
        return simplejpeg.decode_jpeg(data, "BGR", strict=False, **size), damage
    except ValueError:
        return _cv2_jpeg(data, factor), damage


#: libjpeg's warning for data that stops before the end-of-image marker.
_CUT_SHORT = "Premature end of JPEG file"


def _cv2_jpeg(data: bytes, factor: int) -> np.ndarray | None:
    """OpenCV's decode of a complete file (it fills a truncated one with grey: None)."""
    if data[-2:] != b"\xff\xd9":
        return None
    flags = _REDUCED[factor] | cv2.IMREAD_IGNORE_ORIENTATION
    return cv2.imdecode(np.frombuffer(data, np.uint8), flags)


def _shrunk_heif(path: Path, factor: int) -> np.ndarray | None:
    """BGR pixels of a HEIC photo at 1/``factor`` scale, or None for one to leave to
    Pillow (not 8-bit RGB, or failing to decode: Pillow then says what is wrong).

    pillow-heif's own buffer is shrunk where it lies, then turned to BGR: Pillow's way
    copies the whole picture out of its image first and turns it whole (a 12 MP HEIC
    here: 461 ms that way, 387 ms this one; the same pixels). libheif has already turned
    the picture as the file says, as it does for Pillow.
    """
    try:
        rgb = np.asarray(open_heif(path, convert_hdr_to_8bit=True))
    except (OSError, ValueError, RuntimeError):
        return None
    if rgb.dtype != np.uint8 or rgb.ndim != 3 or rgb.shape[2] != 3:
        return None
    height, width = rgb.shape[:2]
    size = (-(-width // factor), -(-height // factor))
    return cv2.cvtColor(cv2.resize(rgb, size, interpolation=cv2.INTER_AREA), cv2.COLOR_RGB2BGR)


def _decode(im: Image.Image, name: str, work_long_side: int, max_pixels: int, path: Path) -> Photo:
    width, height = im.size
    if width * height > max_pixels:
        raise ImageTooLarge(
            name, f"{width}x{height} pixels is more than the {max_pixels:,} allowed"
        )
    if width == 0 or height == 0:
        raise NotAnImage(name, "the image has no pixels")
    fmt = im.format or "unknown"
    orientation = im.getexif().get(0x0112, 1)
    factor = reduction_factor(max(width, height), work_long_side)
    image, damage = _fast_jpeg(path, factor) if fmt == "JPEG" else (None, None)
    if fmt == "HEIF" and factor > 1 and open_heif is not None:
        image = _shrunk_heif(path, factor)
    if image is None:
        if factor > 1 and fmt == "JPEG":
            im.draft("RGB", (-(-width // factor), -(-height // factor)))
        elif factor > 1 and fmt == "JPEG2000":
            im.reduce = factor.bit_length() - 1  # its resolution levels: 8x faster at 1/4
        im.load()  # raises OSError on truncated data
        if im.mode.startswith("I") or im.mode == "F":
            im = _grey_to_8_bits(im)
        if im.mode not in ("RGB", "L"):
            im = im.convert("RGBA" if "A" in im.getbands() else "RGB")
            if im.mode == "RGBA":
                background = Image.new("RGBA", im.size, (255, 255, 255, 255))
                im = Image.alpha_composite(background, im).convert("RGB")
        arr = np.asarray(im)
        image = cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR if arr.ndim == 2 else cv2.COLOR_RGB2BGR)
    image = upright_by_exif(image, orientation)
    upright = (height, width) if orientation in _SWAPS_AXES else (width, height)
    scale = image.shape[1] / upright[0]
    if scale > 1.5 / factor:  # the decoder did not shrink it: do it here
        size = (-(-upright[0] // factor), -(-upright[1] // factor))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        scale = image.shape[1] / upright[0]
    return Photo(
        image=image, source=name, scale=scale, original_size=upright, format=fmt, damage=damage
    )


def _grey_to_8_bits(im: Image.Image) -> Image.Image:
    """A 16-bit, 32-bit integer or float grey image as 8-bit grey.

    Pillow reads 16-bit grey PNG and TIFF files (flatbed scanners write them) as ``I;16``
    or ``I``, whose plain conversion to RGB clips every value above 255: a white page.
    Integer images whose values go above 255 are taken as 16-bit (0-65535), floats
    whose values stay within 1 as 0-1.
    """
    arr = np.asarray(im, dtype=np.float64)
    top = float(arr.max()) if arr.size else 0.0
    if im.mode == "F" and top <= 1.0:
        arr = arr * 255.0
    elif im.mode.startswith("I;16") or top > 255:
        arr = arr / 257.0
    return Image.fromarray(np.clip(arr + 0.5, 0, 255).astype(np.uint8), "L")


def upright_by_exif(image: np.ndarray, orientation: int) -> np.ndarray:
    """Turn/flip a decoded image as its EXIF orientation tag (1..8) says."""
    if orientation == 2:
        return cv2.flip(image, 1)
    if orientation == 3:
        return cv2.rotate(image, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(image, 0)
    if orientation == 5:
        return np.ascontiguousarray(image.swapaxes(0, 1))
    if orientation == 6:
        return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:
        return cv2.rotate(np.ascontiguousarray(image.swapaxes(0, 1)), cv2.ROTATE_180)
    if orientation == 8:
        return cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return image


def _from_array(arr: np.ndarray) -> Photo:
    if arr.dtype != np.uint8 or arr.ndim not in (2, 3) or arr.size == 0:
        raise NotAnImage("<array>", f"expected a uint8 image array, got {arr.dtype} {arr.shape}")
    if arr.ndim == 2:
        image = cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR)
    elif arr.shape[2] == 4:
        image = cv2.cvtColor(arr, cv2.COLOR_BGRA2BGR)
    elif arr.shape[2] == 3:
        image = arr
    else:
        raise NotAnImage("<array>", f"expected 1, 3 or 4 channels, got {arr.shape[2]}")
    h, w = image.shape[:2]
    return Photo(image=image, source="<array>", scale=1.0, original_size=(w, h), format="array")
