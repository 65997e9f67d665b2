"""Loading photos: formats, EXIF orientation, reduced decoding, bad files."""

import struct
import zlib

import numpy as np
import pytest
from PIL import Image, ImageOps

from scanner.errors import ImageTooLarge, NotAnImage
from scanner.load import load_photo


def _marked_rgb(width=90, height=60) -> Image.Image:
    """An asymmetric picture: red block at the top-left, blue at the bottom-right."""
    arr = np.full((height, width, 3), 200, np.uint8)
    arr[: height // 3, : width // 3] = (255, 0, 0)
    arr[-height // 3 :, -width // 3 :] = (0, 0, 255)
    return Image.fromarray(arr)


def _save_with_orientation(path, im: Image.Image, orientation: int) -> None:
    exif = Image.Exif()
    exif[0x0112] = orientation
    im.save(path, quality=95, exif=exif.tobytes())


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_is_applied_like_pillow_does(tmp_path, orientation):
    path = tmp_path / f"o{orientation}.jpg"
    _save_with_orientation(path, _marked_rgb(), orientation)
    with Image.open(path) as im:
        expected = np.asarray(ImageOps.exif_transpose(im).convert("RGB"))[:, :, ::-1]
    photo = load_photo(path)
    assert photo.image.shape == expected.shape
    assert np.abs(photo.image.astype(int) - expected).max() < 40
    assert photo.original_size == (expected.shape[1], expected.shape[0])


def test_portrait_photo_stored_landscape_comes_out_portrait(tmp_path):
    path = tmp_path / "portrait.jpg"
    _save_with_orientation(path, _marked_rgb(90, 60), 6)  # stored 90 x 60, shown turned
    photo = load_photo(path)
    assert photo.image.shape[:2] == (90, 60)
    # Orientation 6: the stored top-left (red) is shown at the top-right.
    b, g, r = photo.image[5, -5]
    assert r > 200 and b < 60


@pytest.mark.parametrize("ext", ["png", "webp", "tiff", "bmp"])
def test_lossless_and_other_formats_load_exactly_enough(tmp_path, ext):
    im = _marked_rgb()
    path = tmp_path / f"x.{ext}"
    im.save(path, **({"lossless": True} if ext == "webp" else {}))
    photo = load_photo(path)
    assert np.array_equal(photo.image[:, :, ::-1], np.asarray(im))
    assert photo.scale == 1.0


def test_heic_loads(tmp_path):
    import pillow_heif

    im = _marked_rgb(128, 96)
    path = tmp_path / "x.heic"
    pillow_heif.from_pillow(im).save(path, quality=95)
    photo = load_photo(path)
    assert photo.image.shape == (96, 128, 3)
    b, g, r = photo.image[10, 10]
    assert r > 180 and g < 80 and b < 80
    assert photo.format.upper().startswith("HEI") or photo.format.upper() == "AVIF"


@pytest.mark.parametrize("size", [(2400, 1800), (2401, 1799)])
def test_a_large_heic_is_shrunk_as_pillow_s_decode_shrunk_would_be(tmp_path, size):
    import cv2
    import pillow_heif

    path = tmp_path / "IMG_0003.heic"
    pillow_heif.from_pillow(_marked_rgb(*size)).save(path, quality=90)
    with Image.open(path) as im:
        whole = cv2.cvtColor(np.asarray(im.convert("RGB")), cv2.COLOR_RGB2BGR)
    half = (-(-size[0] // 2), -(-size[1] // 2))
    expected = cv2.resize(whole, half, interpolation=cv2.INTER_AREA)
    photo = load_photo(path)
    assert photo.image.shape == (half[1], half[0], 3)
    assert photo.scale == pytest.approx(half[0] / size[0])
    assert photo.original_size == size
    assert np.array_equal(photo.image, expected)
    b, g, r = photo.image[20, 20]  # the red block stays at the top left
    assert r > 180 and g < 80 and b < 80


def test_grey_and_palette_images_become_bgr(tmp_path):
    grey = tmp_path / "g.png"
    Image.fromarray(np.full((20, 30), 77, np.uint8)).save(grey)
    assert load_photo(grey).image.shape == (20, 30, 3)
    pal = tmp_path / "p.png"
    _marked_rgb().convert("P").save(pal)
    assert load_photo(pal).image.shape == (60, 90, 3)


@pytest.mark.parametrize("ext", ["png", "tiff"])
def test_sixteen_bit_grey_scans_keep_their_tones(tmp_path, ext):
    """Flatbed scanners write 16-bit grey PNG and TIFF files; Pillow opens them as
    ``I;16`` and its plain conversion clips every value above 255 (a white page)."""
    tones = np.array([[0, 77, 128, 200, 255]], np.uint16).repeat(4, axis=0)
    path = tmp_path / f"g16.{ext}"
    Image.fromarray(tones * 257).save(path)
    assert Image.open(path).mode.startswith("I")
    image = load_photo(path).image
    assert image.shape == (4, 5, 3)
    assert np.array_equal(image[..., 0], tones.astype(np.uint8))
    assert np.array_equal(image[..., 0], image[..., 2])


def test_float_grey_tiff_in_zero_to_one_keeps_its_tones(tmp_path):
    tones = np.array([[0.0, 0.5, 1.0]], np.float32).repeat(3, axis=0)
    path = tmp_path / "f.tiff"
    Image.fromarray(tones, "F").save(path)
    assert np.array_equal(load_photo(path).image[0, :, 1], [0, 128, 255])


@pytest.mark.parametrize("ext", ["gif", "jfif"])
def test_gif_and_jfif_files_are_photos(tmp_path, ext):
    """A chat app's .jfif (a JPEG) and a .gif are read as photos, not as map files."""
    from app.inputs import is_photo

    path = tmp_path / f"x.{ext}"
    _marked_rgb().save(path, format="GIF" if ext == "gif" else "JPEG")
    assert is_photo(path)
    b, g, r = load_photo(path).image[5, 5]
    assert r > 180 and g < 80 and b < 80


def test_big_jpeg_is_decoded_at_reduced_scale(tmp_path):
    path = tmp_path / "big.jpg"
    _marked_rgb(4032, 3024).save(path, quality=80)
    photo = load_photo(path)
    assert photo.image.shape == (756, 1008, 3)
    assert photo.scale == pytest.approx(0.25)
    assert photo.original_size == (4032, 3024)
    b, g, r = photo.image[50, 50]
    assert r > 200 and b < 60


def test_big_png_is_shrunk_after_decoding(tmp_path):
    path = tmp_path / "big.png"
    _marked_rgb(2400, 1600).save(path)
    photo = load_photo(path)
    assert photo.image.shape == (800, 1200, 3)
    assert photo.scale == pytest.approx(0.5)


def test_small_images_are_not_shrunk(tmp_path):
    path = tmp_path / "small.jpg"
    _marked_rgb(1600, 1200).save(path)
    assert load_photo(path).image.shape == (1200, 1600, 3)


def test_missing_file(tmp_path):
    with pytest.raises(NotAnImage, match="no such file"):
        load_photo(tmp_path / "nope.jpg")


def test_empty_file(tmp_path):
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    with pytest.raises(NotAnImage, match="empty") as e:
        load_photo(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_text_file_is_not_an_image(tmp_path):
    path = tmp_path / "notes.jpg"
    path.write_text("CARTOGRAPHER: me\n")
    with pytest.raises(NotAnImage, match="not an image"):
        load_photo(path)


@pytest.mark.parametrize("ext", ["jpg", "png"])
def test_truncated_files_are_refused(tmp_path, ext):
    full = tmp_path / f"full.{ext}"
    rng = np.random.default_rng(1)
    Image.fromarray(rng.integers(0, 255, (200, 300, 3), dtype=np.uint8)).save(full)
    data = full.read_bytes()
    cut = tmp_path / f"cut.{ext}"
    cut.write_bytes(data[: len(data) // 2])
    # Our words only: Pillow's "(4 bytes not processed)" for half a file misled.
    with pytest.raises(NotAnImage, match=f"cut.{ext}: the image data is truncated or corrupt$"):
        load_photo(cut)


def test_a_bmp_without_its_extension_is_read(tmp_path):
    """The "neither a photo in a format cartoscore reads (..., BMP, ...)" line named BMP
    while a BMP saved without its extension was refused with it (session 52 audit)."""
    from app.inputs import is_photo

    path = tmp_path / "scan0001"
    _marked_rgb(90, 60).save(path, format="BMP")
    assert is_photo(path)
    assert load_photo(path).image.shape == (60, 90, 3)


def test_a_heic_cut_short_is_called_damaged_not_unknown(tmp_path):
    """Pillow cannot even identify a HEIC cut in half; its first bytes say it is one."""
    import pillow_heif

    full = tmp_path / "IMG_0002.heic"
    rng = np.random.default_rng(3)
    picture = Image.fromarray(rng.integers(0, 255, (96, 128, 3), dtype=np.uint8))
    pillow_heif.from_pillow(picture).save(full, quality=90, format="HEIF")
    cut = tmp_path / "cut.heic"
    cut.write_bytes(full.read_bytes()[: full.stat().st_size // 2])
    with pytest.raises(NotAnImage, match="/cut.heic: the image data is truncated or corrupt$"):
        load_photo(cut)


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares a huge size but carries almost no data (a bomb's header)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))


def test_decompression_bomb_is_refused_before_decoding(tmp_path):
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_header_only(60000, 60000))
    # 3.6 billion pixels, far past Pillow's own bomb limit: refused in the same words
    # as any photo over ours.
    with pytest.raises(ImageTooLarge, match="60000x60000 pixels is more than the 250,000,000"):
        load_photo(path)


def test_a_200_megapixel_phone_photo_is_read_at_an_eighth(tmp_path):
    # Some phones take 200 MP photos (16320 x 12240); such a JPEG is decoded at 1/8.
    path = tmp_path / "200mp.jpg"
    Image.new("L", (16320, 12240), 200).save(path, quality=80)
    photo = load_photo(path)
    assert photo.original_size == (16320, 12240)
    assert photo.image.shape == (1530, 2040, 3) and photo.scale == 0.125


def test_pixel_limit_is_configurable(tmp_path):
    path = tmp_path / "x.png"
    _marked_rgb(300, 200).save(path)
    with pytest.raises(ImageTooLarge, match="300x200"):
        load_photo(path, max_pixels=50_000)
    assert load_photo(path, max_pixels=60_000).image.shape == (200, 300, 3)


def test_arrays_are_accepted():
    grey = np.zeros((10, 20), np.uint8)
    assert load_photo(grey).image.shape == (10, 20, 3)
    bgra = np.zeros((10, 20, 4), np.uint8)
    assert load_photo(bgra).image.shape == (10, 20, 3)
    with pytest.raises(NotAnImage):
        load_photo(np.zeros((10, 20), np.float32))


def _pillow_reduced(path, factor: int) -> np.ndarray:
    """What Pillow alone gives: DCT-scaled decode, then the EXIF turn, as BGR."""
    with Image.open(path) as im:
        im.draft("RGB", (im.size[0] // factor, im.size[1] // factor))
        return np.asarray(ImageOps.exif_transpose(im).convert("RGB"))[:, :, ::-1]


@pytest.mark.parametrize("trailer", [b"", b"MotionPhoto" + bytes(300)])
def test_big_turned_jpeg_decodes_as_pillow_does(tmp_path, trailer):
    """The fast reduced decode (complete files) and Pillow's (files with data after
    the picture, as some phones append) give the same upright pixels."""
    rng = np.random.default_rng(3)
    arr = np.asarray(_marked_rgb(2400, 1800)).copy()
    arr[::7] = rng.integers(0, 255, arr[::7].shape, dtype=np.uint8)
    path = tmp_path / "turned.jpg"
    _save_with_orientation(path, Image.fromarray(arr), 6)
    path.write_bytes(path.read_bytes() + trailer)
    photo = load_photo(path)
    expected = _pillow_reduced(path, 2)
    assert photo.image.shape == expected.shape == (1200, 900, 3)
    assert np.abs(photo.image.astype(int) - expected).max() <= 2
    assert photo.original_size == (1800, 2400)


def test_big_truncated_jpeg_is_refused(tmp_path):
    full = tmp_path / "full.jpg"
    rng = np.random.default_rng(2)
    Image.fromarray(rng.integers(0, 255, (1800, 2400, 3), dtype=np.uint8)).save(full)
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(full.read_bytes()[: full.stat().st_size // 2])
    with pytest.raises(NotAnImage, match="truncated or corrupt"):
        load_photo(cut)


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "GIF", "TIFF", "WEBP", "AVIF", "JPEG2000"])
def test_a_photo_without_its_extension_is_still_a_photo(tmp_path, fmt):
    """Saved from a chat or a browser as ``image`` or under a wrong name, a photo is
    told by its first bytes; a text map file is not."""
    from app.inputs import is_photo

    for name in ("image", "photo.txt"):
        path = tmp_path / f"{fmt}-{name}"
        _marked_rgb().save(path, format=fmt)
        assert is_photo(path)
        assert load_photo(path).image.shape == (60, 90, 3)
    text = tmp_path / "map"
    text.write_text("...........\n" * 11)
    assert not is_photo(text)
    assert not is_photo(tmp_path / "missing")


def test_a_heic_photo_without_its_extension_is_still_a_photo(tmp_path):
    import pillow_heif

    from app.inputs import is_photo

    path = tmp_path / "IMG_0001"
    pillow_heif.from_pillow(_marked_rgb(128, 96)).save(path, quality=90, format="HEIF")
    assert is_photo(path)


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", "photo"),  # an iPhone photo
        (b"\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  ", "video"),  # a Live Photo's clip
        (b"\x1aE\xdf\xa3\x9fB\x86\x81\x01", "video"),  # WebM
        (b"RIFF\x00\x00\x00\x00AVI LIST", "video"),
        (b"...........\n" * 11, None),  # a text map
        (b"BM\x36\x10\x0e\x00\x00\x00\x00\x00\x36\x00", "photo"),  # a BMP, 921654 bytes
        (b"BMW.VV..TT.\n" + b"...........\n" * 10, None),  # a map whose first row says BM
    ],
)
def test_a_file_without_an_extension_is_told_by_one_look_at_its_start(
    tmp_path, monkeypatch, head, kind
):
    """Photo, video or neither is decided from the first bytes, read once (the batch
    folder walk and ``score`` ask both questions of every such file)."""
    import app.inputs

    path = tmp_path / "upload"
    path.write_bytes(head + bytes(64))
    reads = []
    real = app.inputs.file_head
    monkeypatch.setattr(app.inputs, "file_head", lambda *a: reads.append(a) or real(*a))
    assert app.inputs.media_kind(path) == kind
    assert len(reads) == 1


def test_a_large_jpeg_2000_is_decoded_at_a_reduced_resolution(tmp_path):
    """A JPEG 2000 file (some cameras, archives) is read from its lower resolution
    levels, as a JPEG is decoded by DCT scaling, not decoded whole and then shrunk:
    4000 px wide gives the 1000 px the scanner works at, its picture kept."""
    from app.inputs import is_photo

    path = tmp_path / "scan.jp2"
    grain = np.random.default_rng(3).integers(0, 40, (2000, 4000, 3))
    picture = (np.asarray(_marked_rgb(4000, 2000)) - grain).clip(0, 255).astype(np.uint8)
    Image.fromarray(picture).save(path)
    assert is_photo(path)
    photo = load_photo(path)
    assert photo.image.shape == (500, 1000, 3) and photo.scale == 0.25
    assert photo.original_size == (4000, 2000) and photo.format == "JPEG2000"
    with Image.open(path) as im:
        im.reduce = 2  # the file's own quarter-resolution level
        level = np.asarray(im.convert("RGB"))[:, :, ::-1]
    assert np.array_equal(photo.image, level)
    b, g, r = photo.image[50, 50].astype(int)  # the red block at the top-left
    assert r > 180 and g < 60 and b < 60
