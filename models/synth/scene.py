"""Tables, light and camera noise around the sheet.

Fields that vary slowly (light, shadows, glare, vignetting) are computed at low
resolution and resized; only the final multiply/add runs at full size.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from models.synth.canvas import smooth_noise

TABLES = ("wood", "wood", "dark-wood", "cloth", "light", "grey", "stone", "paper-white")


@lru_cache(maxsize=4)
def _skimage_texture(name: str) -> np.ndarray:
    from skimage import data

    img = getattr(data, name)()
    if img.ndim == 2:
        img = np.dstack([img] * 3)
    return np.ascontiguousarray(img[..., ::-1])


def table(rng: np.random.Generator, size: tuple[int, int], kind: str | None = None) -> np.ndarray:
    """A table top of ``size`` (w, h), BGR uint8, rendered at 1/4 resolution and upscaled."""
    w, h = size
    kind = kind or str(rng.choice(TABLES))
    sw, sh = max(8, w // 4), max(8, h // 4)
    if kind in ("wood", "dark-wood"):
        img = _wood(rng, sw, sh, dark=kind == "dark-wood")
    elif kind == "cloth":
        col = np.array(
            rng.choice(
                [[120, 60, 40], [40, 40, 110], [60, 100, 60], [90, 90, 90], [140, 120, 100]]
            ),
            np.float32,
        )
        yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
        weave = 0.05 * np.sin(xx * 2.2) * np.sin(yy * 2.2)
        folds = smooth_noise(rng, (sh, sw), 3, 2) * 0.06
        img = col * (1 + weave + folds)[..., None]
    elif kind == "stone":  # speckled countertop: the gravel photo tiled small, toned down
        tex = _skimage_texture("gravel").astype(np.float32)
        k = max(1, int(np.ceil(max(sw, sh) / 256)))
        tile = cv2.resize(tex, (256, 256), interpolation=cv2.INTER_AREA)
        img = np.tile(tile, (k + 1, k + 1, 1))[:sh, :sw]
        tone = np.array(rng.choice([[70, 70, 70], [150, 150, 150], [60, 80, 100]]), np.float32)
        img = tone + (img - img.mean()) * rng.uniform(0.2, 0.45)
    elif kind == "grey":  # plain dark or mid grey table / mat
        img = np.zeros((sh, sw, 3), np.float32) + rng.uniform(40, 130) + rng.normal(0, 5, 3)
        img += smooth_noise(rng, (sh, sw), 3, 2)[..., None] * 4
    else:  # light laminate, or the white of a scanner lid
        tone = rng.uniform(185, 240) if kind == "light" else rng.uniform(235, 252)
        tint = rng.normal(0, 6, 3)
        img = np.zeros((sh, sw, 3), np.float32) + tone + tint
        img += smooth_noise(rng, (sh, sw), 3, 2)[..., None] * 3
    img += rng.normal(0, 3, img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)


def _wood(rng: np.random.Generator, sw: int, sh: int, dark: bool) -> np.ndarray:
    """Planks with long grain, drawn along x then turned by a random angle."""
    side = int(np.hypot(sw, sh)) + 2
    plank = rng.uniform(0.12, 0.3) * side
    yy = np.arange(side, dtype=np.float32)[:, None]
    stretch = (side, max(4, side // 12))
    warp = cv2.resize(smooth_noise(rng, (stretch[1], side), 8, 2).T.copy(), (side, side)) * 6
    fine = cv2.resize(
        rng.normal(0, 1, (side, max(4, side // 30))).astype(np.float32),
        (side, side),
        interpolation=cv2.INTER_LINEAR,
    )
    period = rng.uniform(5, 14)
    rings = np.sin((yy + warp) * (2 * np.pi / period))
    grain = 0.55 + 0.2 * rings + 0.12 * fine
    idx = np.floor((yy + 0 * warp) / plank).astype(int)
    tones = rng.uniform(0.8, 1.2, int(side / plank) + 3).astype(np.float32)
    grain = grain * tones[np.clip(idx, 0, len(tones) - 1)]
    seam = (np.abs((yy / plank) % 1 - 0.5) > 0.497).astype(np.float32)
    grain = grain * (1 - 0.5 * seam)
    woods = [[45, 90, 150], [70, 120, 170], [50, 80, 120], [90, 140, 190]]
    base = np.array([28, 45, 80] if dark else woods[int(rng.integers(len(woods)))], np.float32)
    base *= rng.uniform(0.8, 1.15)
    img = base * (0.6 + 0.7 * grain[..., None])
    rot = cv2.getRotationMatrix2D((side / 2, side / 2), rng.uniform(0, 180), 1)
    rot[:, 2] += (sw - side) / 2, (sh - side) / 2
    return cv2.warpAffine(img, rot, (sw, sh), borderMode=cv2.BORDER_REFLECT)


def detail_gain(
    gain: np.ndarray,
    alpha: np.ndarray,
    rng: np.random.Generator,
    sheet_shadow: float,
    chroma: float,
) -> np.ndarray:
    """The light field at quarter resolution with the sheet's soft shadow on the table and
    blotchy chroma noise folded in (multiplicative), ready for :func:`apply_light`."""
    h, w = alpha.shape
    qw, qh = w // 4 + 1, h // 4 + 1
    g = cv2.resize(gain, (qw, qh), interpolation=cv2.INTER_LINEAR)
    if sheet_shadow > 0:
        a = cv2.resize(alpha, (qw, qh), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
        shift = rng.normal(0, 0.002 * qw, 2)
        m = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
        sh = cv2.warpAffine(a, m, (qw, qh))
        sh = cv2.GaussianBlur(sh, (0, 0), 0.006 * qw + 1)
        g *= (1 - sheet_shadow * sh * (1 - a))[..., None]
    if chroma > 0:
        g *= 1 + rng.normal(0, chroma / 200, g.shape).astype(np.float32)
    return g


def light_field(
    rng: np.random.Generator, size: tuple[int, int], params: dict
) -> tuple[np.ndarray, np.ndarray]:
    """Low-resolution multiplicative gain (h, w, 3) and additive glare (h, w, 1)."""
    w, h = size
    sw, sh = 64, max(8, int(64 * h / w))
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx = xx / (sw - 1) - 0.5
    yy = yy / (sh - 1) - 0.5
    temp = params["warmth"]  # >0 warm lamp, <0 cool daylight
    colour = np.array([1 - 0.18 * temp, 1 - 0.02 * temp, 1 + 0.1 * temp], np.float32)
    colour *= 1 + rng.normal(0, params.get("tint", 0.0), 3).astype(np.float32)  # colour cast
    gain = np.ones((sh, sw), np.float32) * params["exposure"]
    ga = rng.uniform(0, 2 * np.pi)
    gain *= 1 + params["gradient"] * (xx * np.cos(ga) + yy * np.sin(ga))
    gain *= 1 - params["vignette"] * (xx**2 + yy**2) * 2
    shade = np.zeros((sh, sw), np.float32)
    for _ in range(params["shadows"]):
        shade = np.maximum(shade, _shadow_blob(rng, sw, sh))
    shade = cv2.GaussianBlur(shade, (0, 0), rng.uniform(1.0, 4.0))
    gain = gain * (1 - params["shadow_strength"] * shade)
    g3 = gain[..., None] * colour
    g3 = g3 * (1 + 0.08 * params["shadow_strength"] * shade[..., None] * np.float32([1, 0, -1]))
    glare = np.zeros((sh, sw), np.float32)
    if params["glare"] > 0:
        cx, cy = rng.uniform(-0.35, 0.35, 2)
        rx, ry = rng.uniform(0.04, 0.18, 2)
        glare = np.exp(-(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2) / 2)
        glare = glare * params["glare"] * 255
    return g3.astype(np.float32), glare[..., None].astype(np.float32)


def _shadow_blob(rng, sw, sh) -> np.ndarray:
    """A hand/phone-like shadow: a soft polygon coming in from one side of the frame."""
    m = np.zeros((sh, sw), np.uint8)
    side = int(rng.integers(4))
    t = rng.uniform(0.1, 0.9)
    depth = rng.uniform(0.15, 0.5)
    width = rng.uniform(0.15, 0.45)
    if side in (0, 1):
        x = 0 if side == 0 else sw - 1
        d = depth * sw * (1 if side == 0 else -1)
        pts = [
            (x, (t - width) * sh),
            (x + d, (t - width * 0.6) * sh),
            (x + d * 1.1, (t + width * 0.5) * sh),
            (x, (t + width) * sh),
        ]
    else:
        y = 0 if side == 2 else sh - 1
        d = depth * sh * (1 if side == 2 else -1)
        pts = [
            ((t - width) * sw, y),
            ((t - width * 0.6) * sw, y + d),
            ((t + width * 0.5) * sw, y + d * 1.1),
            ((t + width) * sw, y),
        ]
    cv2.fillPoly(m, [np.round(pts).astype(np.int32)], 255)
    return m.astype(np.float32) / 255


def apply_light(img: np.ndarray, gain: np.ndarray, glare: np.ndarray) -> np.ndarray:
    """``img * gain + glare`` with the low-resolution fields resized to the image (8-bit)."""
    h, w = img.shape[:2]
    g = cv2.resize(
        np.clip(gain * 128, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR
    )
    out = cv2.multiply(img, g, scale=1 / 128)
    if glare.max() > 0.5:
        gl = cv2.resize(
            np.clip(glare[..., 0], 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR
        )
        out = cv2.add(out, cv2.merge([gl, gl, gl]))
    return out


def sensor_noise(img: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Luma noise at full resolution (8-bit saturating arithmetic); chroma noise is in
    :func:`detail_gain`."""
    if sigma <= 0:
        return img
    h, w = img.shape[:2]
    cv2.setRNGSeed(int(rng.integers(2**31)))
    n = np.empty((h, w), np.float32)
    cv2.randn(n, 0.0, float(sigma))
    pos = cv2.convertScaleAbs(cv2.max(n, 0.0))
    neg = cv2.convertScaleAbs(cv2.min(n, 0.0))
    out = cv2.subtract(cv2.add(img, cv2.merge([pos, pos, pos])), cv2.merge([neg, neg, neg]))
    return out


def focus_ramp(sharp: np.ndarray, blurred: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Blend from sharp to blurred along a random direction (shallow depth of field)."""
    h, w = sharp.shape[:2]
    sw, sh = 64, max(8, int(64 * h / w))
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    t = (xx / sw - 0.5) * np.cos(a) + (yy / sh - 0.5) * np.sin(a)
    m = np.clip((t - rng.uniform(-0.3, 0.2)) * rng.uniform(1.5, 4), 0, 1)
    m = cv2.resize((m * 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    m3 = cv2.merge([m, m, m])
    keep = cv2.multiply(sharp, cv2.bitwise_not(m3), scale=1 / 255)
    return cv2.add(keep, cv2.multiply(blurred, m3, scale=1 / 255))


def sharpen(img: np.ndarray, amount: float, sigma: float) -> np.ndarray:
    """Unsharp mask: ``img + amount * (img - blur(img))``."""
    blurred = cv2.GaussianBlur(img, (0, 0), sigma)
    return cv2.addWeighted(img, 1 + amount, blurred, -amount, 0)


def motion_blur(img: np.ndarray, rng: np.random.Generator, length: float) -> np.ndarray:
    k = max(3, int(round(length)) | 1)
    kernel = np.zeros((k, k), np.float32)
    kernel[k // 2, :] = 1
    rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
    kernel = cv2.warpAffine(kernel, rot, (k, k))
    kernel /= kernel.sum()
    return cv2.filter2D(img, -1, kernel)


def jpeg_roundtrip(img: np.ndarray, quality: int) -> tuple[np.ndarray, bytes]:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    data = buf.tobytes()
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), data


PENCIL_COLOURS = (
    (40, 200, 235),
    (60, 140, 40),
    (50, 50, 190),
    (160, 90, 30),
    (120, 170, 210),
    (40, 40, 40),
)


def draw_pencils(
    img: np.ndarray, rng: np.random.Generator, avoid: np.ndarray, cell_px: float, count: int
) -> None:
    """Lay ``count`` pencils on the scene (in place), never over the polygon ``avoid``
    (the grid, grown by a cell). ``cell_px`` sizes them: a pencil is about 12 cells long."""
    h, w = img.shape[:2]
    centre = avoid.mean(axis=0)
    grown = (centre + (avoid - centre) * (1 + 2.2 / 11)).astype(np.float32)
    for _ in range(count):
        length = cell_px * rng.uniform(9, 13)
        width = length / rng.uniform(18, 24)
        for _try in range(12):
            a = rng.uniform(0, np.pi)
            d = np.array([np.cos(a), np.sin(a)])
            p0 = rng.uniform([0, 0], [w, h])
            axis = p0 + np.outer(np.linspace(0, 1, 12), d * length)
            if all(cv2.pointPolygonTest(grown, (float(x), float(y)), False) < 0 for x, y in axis):
                _pencil(img, rng, p0, d, length, width)
                break


def _pencil(img, rng, p0, d, length, width) -> None:
    n = np.array([-d[1], d[0]])
    # Work on the pencil's bounding box only.
    ends = np.array([p0 - d * width, p0 + d * length])
    lo = np.floor(ends.min(axis=0) - 2 * width).astype(int)
    hi = np.ceil(ends.max(axis=0) + 2 * width).astype(int)
    lo = np.maximum(lo, 0)
    hi = np.minimum(hi, [img.shape[1], img.shape[0]])
    if (hi <= lo).any():
        return
    img = img[lo[1] : hi[1], lo[0] : hi[0]]
    p0 = p0 - lo
    colour = np.array(PENCIL_COLOURS[int(rng.integers(len(PENCIL_COLOURS)))], np.float64)
    body_end = p0 + d * length * 0.86

    def quad(a, b, wa, wb):
        return np.array([a + n * wa, b + n * wb, b - n * wb, a - n * wa])

    def fill(poly, col):
        pts = np.round(poly * 16).astype(np.int32)
        cv2.fillPoly(img, [pts], tuple(float(v) for v in col), cv2.LINE_AA, shift=4)

    shadow = quad(p0, p0 + d * length, width / 2, width / 6) + n * width * 0.6 + d * width * 0.3
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(shadow * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    mask = cv2.GaussianBlur(mask, (0, 0), width * 0.35)
    keep = cv2.bitwise_not(cv2.multiply(mask, 0.55))
    img[:] = cv2.multiply(img, cv2.merge([keep, keep, keep]), scale=1 / 255)
    for k, shade in ((-1, 0.75), (0, 1.1), (1, 0.9)):  # three visible facets of the hexagon
        off = n * k * width / 3
        fill(quad(p0 + off, body_end + off, width / 6, width / 6), np.clip(colour * shade, 0, 255))
    fill(quad(p0, p0 + d * width * 0.9, width / 2, width / 2), (160, 160, 165))  # ferrule
    fill(quad(p0 - d * width * 0.7, p0, width / 2.2, width / 2.2), (150, 150, 220))  # eraser
    tip = p0 + d * length
    fill(np.array([body_end + n * width / 2, tip, body_end - n * width / 2]), (140, 180, 215))
    lead = body_end + d * (length * 0.14 * 0.6)
    fill(np.array([lead + n * width / 5, tip, lead - n * width / 5]), (50, 50, 55))
