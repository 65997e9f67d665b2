"""How image files begin: an image whose name does not say what it is (no extension, or
a wrong one) is still read as one, and a file that begins as an image but cannot be
decoded is called damaged rather than "not an image"."""

from __future__ import annotations

from scanner.pages import TIFF_STARTS

#: How image files begin (JPEG, PNG, GIF, TIFF, JPEG 2000 as a file and as a bare
#: codestream).
IMAGE_STARTS = (
    b"\xff\xd8\xff",
    b"\x89PNG\r\n\x1a\n",
    b"GIF87a",
    b"GIF89a",
    *TIFF_STARTS,
    b"\x00\x00\x00\x0cjP  \r\n\x87\n",
    b"\xff\x4f\xff\x51",
)
#: ISO media brands (``ftyp``) of still images: HEIC/HEIF (iPhones) and AVIF.
HEIF_BRANDS = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"mif1", b"msf1", b"avif", b"avis")
#: Bytes a file's head must hold for :func:`is_image_head` to tell every kind above.
HEAD_BYTES = 12


def ftyp_brand(head: bytes) -> bytes | None:
    """The major brand of an ISO media file (HEIC, AVIF, MP4, QuickTime), or None."""
    return head[8:12] if head[4:8] == b"ftyp" else None


def is_image_head(head: bytes) -> bool:
    """Whether a file beginning with ``head`` (its first :data:`HEAD_BYTES` bytes or
    more) is an image of a format read here: the starts above, WebP's RIFF, a HEIF
    brand, or a BMP (``BM``, its size, then four reserved zero bytes)."""
    return (
        head.startswith(IMAGE_STARTS)
        or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")
        or ftyp_brand(head) in HEIF_BRANDS
        or (head[:2] == b"BM" and head[6:10] == b"\x00\x00\x00\x00")
    )
