"""A phone camera looking at a sheet on a table: this renderer's own photo model.

A pinhole camera tilted up to 35 degrees over the table, the sheet turned any
way, paper curl (a smooth displacement on the sheet), radial lens distortion,
table backgrounds, lamp colour, shadows, glare, blur, noise. Every pixel of
the photo is mapped back onto the page in one ``cv2.remap``; the truth
lattice goes through the same maps forwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage
from skimage import data as skdata

SIZES = ((4032, 3024), (3264, 2448), (2592, 1944), (2048, 1536), (1600, 1200), (1200, 900))


@dataclass
class Camera:
    """Where the page lands in a ``size`` photo: page px -> photo px, with curl and lens."""

    size: tuple[int, int]  # (width, height)
    homography: np.ndarray  # page px (after curl) -> undistorted photo px
    curl: tuple  # (amplitudes (2,), frequencies (2, 2), phases (2,)) in page px
    k1: float  # radial distortion over the half diagonal

    def _curl(self, x: np.ndarray, y: np.ndarray):
        amp, freq, ph = self.curl
        s = np.sin(freq[0, 0] * x + freq[0, 1] * y + ph[0])
        t = np.sin(freq[1, 0] * x + freq[1, 1] * y + ph[1])
        return amp[0] * s, amp[1] * t

    def forward(self, pts: np.ndarray) -> np.ndarray:
        """Page px (N, 2) -> photo px (N, 2)."""
        x, y = pts[:, 0].astype(np.float64), pts[:, 1].astype(np.float64)
        dx, dy = self._curl(x, y)
        q = cv2.perspectiveTransform(
            np.stack([x + dx, y + dy], 1).reshape(-1, 1, 2), self.homography
        )
        q = q.reshape(-1, 2)
        c, rad = self._centre()
        u = (q - c) / rad
        return c + u * (1 + self.k1 * (u**2).sum(1, keepdims=True)) * rad

    def _centre(self):
        w, h = self.size
        return np.array([(w - 1) / 2, (h - 1) / 2]), np.hypot(w, h) / 2

    def backward_maps(self, step: int = 8) -> tuple[np.ndarray, np.ndarray]:
        """For every photo pixel, the page px it shows (float32 maps for ``cv2.remap``)."""
        w, h = self.size
        gw, gh = w // step + 2, h // step + 2
        # Sample where resizing by exactly ``step`` puts each coarse value: cv2.resize
        # aligns pixel centres, so coarse k lands on pixel (k + 0.5) * step - 0.5.
        # (Sampling at k * step and resizing to (gw - 1) * step + 1 pixels shrank the
        # photo's content by ~1/gw against the truth lattice: 0.2-0.7 %.)
        gx, gy = np.meshgrid((np.arange(gw) + 0.5) * step - 0.5, (np.arange(gh) + 0.5) * step - 0.5)
        d = np.stack([gx, gy], -1).reshape(-1, 2).astype(np.float64)
        c, rad = self._centre()
        dn = (d - c) / rad
        u = dn.copy()
        for _ in range(6):  # undo the lens: dn = u (1 + k1 |u|^2)
            u = dn / (1 + self.k1 * (u**2).sum(1, keepdims=True))
        q = cv2.perspectiveTransform(
            (u * rad + c).reshape(-1, 1, 2), np.linalg.inv(self.homography)
        )
        q = q.reshape(-1, 2)
        p = q.copy()
        for _ in range(6):  # undo the curl: q = p + curl(p)
            dx, dy = self._curl(p[:, 0], p[:, 1])
            p = q - np.stack([dx, dy], 1)
        mx = p[:, 0].reshape(gh, gw).astype(np.float32)
        my = p[:, 1].reshape(gh, gw).astype(np.float32)
        # stretch the coarse maps to every pixel
        big = (gw * step, gh * step)
        mx = cv2.resize(mx, big, interpolation=cv2.INTER_LINEAR)[:h, :w]
        my = cv2.resize(my, big, interpolation=cv2.INTER_LINEAR)[:h, :w]
        return mx, my


def _rot(axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def place_camera(
    rng,
    page_wh_cells,
    grid_box_cells,
    difficulty: str,
    size: tuple[int, int] | None = None,
    scan: bool = False,
) -> tuple[Camera, dict]:
    """Choose photo size, tilt, turn, framing; page measured in cells (page px = cells * ppc).

    The returned camera maps *cell* coordinates on the page; :func:`scale_camera`
    rescales it to page pixels once the render resolution is chosen.
    """
    hard = difficulty == "hard"
    w, h = SIZES[rng.integers(len(SIZES))]
    if rng.random() < 0.35:
        w, h = h, w
    if size is not None:  # a fixed photo size (tests); the random draws above are kept
        w, h = size
    pw, ph = page_wh_cells
    tilt = np.radians(rng.uniform(0, 35 if hard else 22))
    az = rng.uniform(0, 2 * np.pi)
    if hard:
        turn = rng.uniform(0, 2 * np.pi)
    else:
        turn = np.radians(90 * rng.integers(4) + rng.normal(0, 8))
    frac = rng.uniform(0.3, 0.95) if hard else rng.uniform(0.45, 0.9)
    if scan:  # flatbed: straight down, upright (now and then upside down), A4 at 150-300 dpi
        w, h = ((1240, 1754), (1654, 2339), (2480, 3508))[rng.integers(3)]
        tilt, turn = 0.0, np.radians(rng.normal(0, 1) + 180 * (rng.random() < 0.1))
        frac = rng.uniform(0.7, 0.85)
    f = max(w, h) * (rng.uniform(0.75, 0.95) if not scan else 50.0)  # ~26 mm phone lens
    r_tilt = _rot(np.array([np.cos(az), np.sin(az), 0.0]), tilt)
    r_turn = _rot(np.array([0, 0, 1.0]), turn)
    rmat = r_tilt @ r_turn
    corners = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], float)
    gx0, gy0, gx1, gy1 = grid_box_cells
    gridq = np.array([[gx0, gy0], [gx1, gy0], [gx1, gy1], [gx0, gy1]], float)

    def project(pts, dist, off):
        p3 = np.c_[pts - [pw / 2, ph / 2], np.zeros(len(pts))] @ rmat.T
        p3 = p3 + [off[0], off[1], dist]
        return np.stack([f * p3[:, 0] / p3[:, 2] + w / 2, f * p3[:, 1] / p3[:, 2] + h / 2], 1)

    def area(q):
        x, y = q[:, 0], q[:, 1]
        return 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))

    dist = 40.0
    for _ in range(8):  # distance so the page covers ``frac`` of the frame
        a = area(project(corners, dist, (0, 0))) / (w * h)
        dist *= np.sqrt(a / frac)
    margin = 0.02 * min(w, h)

    def fits(pts: np.ndarray) -> bool:
        """Every projected grid point lies at least ``margin`` inside the frame."""
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        return bool(lo[0] > margin and lo[1] > margin and hi[0] < w - margin and hi[1] < h - margin)

    for attempt in range(60):
        spread = dist * 0.25 * (1 - attempt / 60)
        off = rng.uniform(-spread, spread, 2)
        g = project(gridq, dist, off)
        if fits(g):
            break
    else:  # back off until the grid fits
        off = np.zeros(2)
        while True:
            g = project(gridq, dist, off)
            if fits(g):
                break
            dist *= 1.08
    homog = cv2.getPerspectiveTransform(
        corners.astype(np.float32), project(corners, dist, off).astype(np.float32)
    )
    amp_cells = rng.uniform(0.0, 0.35 if hard else 0.15, 2)
    freq = rng.uniform(-1, 1, (2, 2)) * 2 * np.pi / rng.uniform(25, 60)
    curl = (amp_cells, freq, rng.uniform(0, 2 * np.pi, 2))
    k1 = rng.uniform(-0.06, 0.03)
    if scan:
        curl, k1 = (amp_cells * 0, freq, curl[2]), 0.0
    info = {
        "scan": scan,
        "tilt_deg": float(np.degrees(tilt)),
        "turn_deg": float(np.degrees(turn) % 360),
        "page_fraction": float(frac),
    }
    return Camera((w, h), homog, curl, float(k1)), info


def scale_camera(cam: Camera, ppc: float) -> Camera:
    """The same camera for a page rendered at ``ppc`` pixels per cell."""
    s = np.diag([1 / ppc, 1 / ppc, 1.0])
    amp, freq, ph = cam.curl
    return Camera(cam.size, cam.homography @ s, (amp * ppc, freq / ppc, ph), cam.k1)


def cell_px_in_photo(cam: Camera, grid_box_cells) -> float:
    """The largest cell side in photo pixels over the grid's corners (camera in cells)."""
    gx0, gy0, gx1, gy1 = grid_box_cells
    sides = []
    for x, y in ((gx0, gy0), (gx1, gy0), (gx1, gy1), (gx0, gy1)):
        q = cam.forward(np.array([[x, y], [x + 1, y], [x, y + 1]], float))
        sides += [np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[0])]
    return float(max(sides))


# --------------------------------------------------------------------------- backgrounds


def _wood(rng, w, h) -> np.ndarray:
    small = (h // 4 + 1, w // 4 + 1)
    yy, xx = np.mgrid[0 : small[0], 0 : small[1]].astype(np.float32)
    warp = ndimage.gaussian_filter(rng.standard_normal(small), 20) * 400
    rings = np.sin((yy + warp) / rng.uniform(3, 9)) * 0.5 + 0.5
    fine = ndimage.gaussian_filter(rng.standard_normal(small), (0.5, 8))
    lum = 0.75 + 0.15 * rings + 0.1 * fine / (fine.std() + 1e-6) * 0.5
    base = np.array(
        [[0.42, 0.27, 0.15], [0.6, 0.42, 0.26], [0.3, 0.18, 0.1], [0.72, 0.58, 0.4]][
            rng.integers(4)
        ]
    )
    img = lum[..., None] * base
    if rng.random() < 0.5:
        img = np.rot90(img)
    return cv2.resize(img.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def _cloth(rng, w, h) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    p = rng.uniform(3, 7)
    weave = 0.5 + 0.25 * np.sin(xx * 2 * np.pi / p) * np.sin(yy * 2 * np.pi / p)
    base = rng.uniform(0.15, 0.8, 3)
    return (base * (0.85 + 0.3 * weave[..., None])).astype(np.float32)


def _skimage_texture(rng, w, h) -> np.ndarray:
    name = ["brick", "grass", "gravel", "coffee", "page", "text", "moon"][rng.integers(7)]
    im = getattr(skdata, name)().astype(np.float32) / 255
    if im.ndim == 2:
        tint = rng.uniform(0.45, 0.9) * rng.uniform(0.85, 1.1, 3)
        im = im[..., None] * tint
    im = im[..., :3]
    reps = (int(np.ceil(h / im.shape[0] / 2)) + 1, int(np.ceil(w / im.shape[1] / 2)) + 1, 1)
    tiled = np.tile(im, reps)
    return cv2.resize(tiled, (w, h), interpolation=cv2.INTER_LINEAR)


def background(rng, w: int, h: int) -> tuple[np.ndarray, str]:
    """A table top (H, W, 3) float32 RGB 0..1 and its kind."""
    kind = ["wood", "wood", "cloth", "texture", "solid", "gradient", "light"][rng.integers(7)]
    if kind == "wood":
        img = _wood(rng, w, h)
    elif kind == "cloth":
        img = _cloth(rng, w, h)
    elif kind == "texture":
        img = _skimage_texture(rng, w, h)
    elif kind == "light":  # white or light-grey table: hard for the page edge
        img = np.full((h, w, 3), rng.uniform(0.8, 0.95), np.float32) * rng.uniform(0.95, 1.0, 3)
    else:
        tables = np.array(
            [
                [0.3, 0.3, 0.32],
                [0.55, 0.5, 0.45],
                [0.18, 0.22, 0.3],
                [0.6, 0.62, 0.6],
                [0.12, 0.12, 0.12],
                [0.45, 0.3, 0.25],
                [0.25, 0.35, 0.3],
                [0.7, 0.66, 0.58],
            ]
        )
        a = tables[rng.integers(len(tables))] * rng.uniform(0.85, 1.15, 3)
        b = a * rng.uniform(0.6, 1.3)
        t = np.linspace(0, 1, w if rng.random() < 0.5 else h, dtype=np.float32)
        if kind == "solid":
            b = a
        ramp = a + (b - a) * t[:, None]
        img = np.broadcast_to(ramp[None] if len(t) == w else ramp[:, None], (h, w, 3)).copy()
    img = np.clip(img, 0, 1).astype(np.float32)
    if rng.random() < 0.5:
        img = _clutter(rng, img)
        kind += "+clutter"
    return img, kind


def _clutter(rng, img: np.ndarray) -> np.ndarray:
    """Things on the table: a pencil, game cards, a die (drawn with Pillow, under the sheet)."""
    h, w = img.shape[:2]
    pil = Image.fromarray((img * 255).astype(np.uint8))
    d = ImageDraw.Draw(pil)
    u = min(w, h) / 20
    for _ in range(int(rng.integers(1, 4))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        a = rng.uniform(0, np.pi)
        what = rng.integers(3)
        if what == 0:  # a pencil
            ln, wd = u * rng.uniform(5, 8), u * 0.35
            col = [(230, 180, 40), (40, 90, 160), (200, 60, 50), (60, 140, 70)][rng.integers(4)]
            body = _box_pts(cx, cy, ln, wd, a)
            d.polygon(body, fill=col, outline=(60, 50, 30))
            tip = (cx + np.cos(a) * (ln / 2 + u), cy + np.sin(a) * (ln / 2 + u))
            d.polygon([body[1], tip, body[2]], fill=(225, 195, 150))
        elif what == 1:  # a game card
            cw, ch = u * 2.6, u * 3.7
            col = tuple(int(v) for v in rng.integers(60, 220, 3))
            d.polygon(_box_pts(cx, cy, cw, ch, a), fill=(235, 228, 210), outline=(90, 80, 70))
            d.polygon(_box_pts(cx, cy, cw * 0.82, ch * 0.86, a), fill=col)
        else:  # a die
            s = u * 0.8
            d.polygon(_box_pts(cx, cy, s, s, a), fill=(240, 240, 235), outline=(120, 120, 120))
            for k in range(int(rng.integers(1, 7))):
                px, py = cx + (k % 3 - 1) * s * 0.28, cy + (k // 3 - 0.5) * s * 0.35
                d.ellipse(
                    [px - s * 0.07, py - s * 0.07, px + s * 0.07, py + s * 0.07], fill=(20, 20, 20)
                )
    return np.asarray(pil, np.float32) / 255


def _box_pts(cx, cy, length, width, a):
    c, s = np.cos(a), np.sin(a)
    out = []
    for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        x, y = dx * length / 2, dy * width / 2
        out.append((cx + x * c - y * s, cy + x * s + y * c))
    return out


# --------------------------------------------------------------------------- the shot


def shoot(
    rng, page_rgba: np.ndarray, cam: Camera, difficulty: str, scan: bool = False
) -> tuple[np.ndarray, dict]:
    """The photo (H, W, 3) uint8 RGB of the page through ``cam`` (page-px camera).

    ``scan``: a flatbed scan instead (white lid, even light, no shadow or glare).
    """
    hard = difficulty == "hard"
    w, h = cam.size
    mx, my = cam.backward_maps()
    page = cv2.remap(
        page_rgba, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )
    del mx, my
    a = page[..., 3:4].astype(np.float32) / 255
    if scan:
        bg, bg_kind = np.full((h, w, 3), rng.uniform(0.93, 1.0), np.float32), "scanner lid"
    else:
        bg, bg_kind = background(rng, w, h)
    # the paper's own shadow on the table
    sh = cv2.GaussianBlur(a[..., 0], (0, 0), max(2, 0.004 * w))
    sh = np.roll(sh, (int(0.004 * h), int(0.003 * w)), (0, 1))
    bg = bg * (1 - 0.35 * sh[..., None])
    img = bg * (1 - a) + page[..., :3].astype(np.float32) / 255 * a
    del page, bg

    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # lamp: colour temperature, a gradient across the frame, vignetting
    warm = rng.uniform(-0.5, 1.0) if hard else rng.uniform(-0.3, 0.6)
    tint = np.array([1 + 0.12 * warm, 1 + 0.02 * warm, 1 - 0.18 * warm], np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    ramp = (xx / w - 0.5) * np.cos(ang) + (yy / h - 0.5) * np.sin(ang)
    light = rng.uniform(0.75, 1.05) * (1 + rng.uniform(0, 0.45 if hard else 0.25) * ramp)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    light = light * (1 - rng.uniform(0.05, 0.3) * r2)
    if scan:
        light, warm, tint = np.float32(1.0), 0.0, np.ones(3, np.float32)
    effects = {"background": bg_kind, "warmth": float(warm)}
    # shadow of the phone and the hand holding it, coming in from one side
    if not scan and rng.random() < (0.6 if hard else 0.3):
        small = (w // 16, h // 16)
        m = Image.new("L", small, 0)
        dm = ImageDraw.Draw(m)
        cx, cy = rng.uniform(0.2, 0.8) * small[0], rng.uniform(0.2, 0.8) * small[1]
        a = rng.uniform(0, 2 * np.pi)
        pl, pw = 0.35 * max(small), 0.18 * max(small)
        dm.polygon(_box_pts(cx, cy, pl, pw, a), fill=255)
        far = (cx + np.cos(a) * 2 * max(small), cy + np.sin(a) * 2 * max(small))
        dm.line([(cx, cy), far], fill=255, width=int(0.2 * max(small)))
        blur = rng.uniform(1.5, 6)
        m = cv2.GaussianBlur(np.asarray(m, np.float32) / 255, (0, 0), blur)
        m = cv2.resize(m, (w, h), interpolation=cv2.INTER_LINEAR)
        depth = rng.uniform(0.2, 0.55 if hard else 0.35)
        light = light * (1 - depth * m)
        effects["shadow"] = float(depth)
    img = img * light[..., None] * tint
    # glare: a bright washed-out patch
    if not scan and rng.random() < (0.45 if hard else 0.15):
        gx, gy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        s = rng.uniform(0.04, 0.15) * min(w, h)
        g = np.exp(-(((xx - gx) / (s * rng.uniform(1, 2.5))) ** 2 + ((yy - gy) / s) ** 2))
        strength = rng.uniform(0.3, 0.8 if hard else 0.5)
        img = img + (1.05 - img) * (strength * g)[..., None]
        effects["glare"] = float(strength)
    del xx, yy, r2, ramp
    img = np.clip(img, 0, 1)
    # optics and sensor
    blur = rng.uniform(0.3, 2.2 if hard else 1.2) * max(w, h) / 2000
    img = cv2.GaussianBlur(img, (0, 0), blur)
    if hard and rng.random() < 0.3:
        k = int(rng.integers(3, 9))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2] = 1.0 / k
        rot = cv2.getRotationMatrix2D(((k - 1) / 2, (k - 1) / 2), rng.uniform(0, 180), 1)
        kern = cv2.warpAffine(kern, rot, (k, k))
        img = cv2.filter2D(img, -1, kern / kern.sum())
        effects["motion"] = k
    if rng.random() < 0.5:  # phone sharpening
        soft = cv2.GaussianBlur(img, (0, 0), 1.5)
        img = img + rng.uniform(0.3, 1.0) * (img - soft)
    sigma = rng.uniform(0.004, 0.03 if hard else 0.015)
    noise = rng.standard_normal((h // 2 + 1, w // 2 + 1)).astype(np.float32)
    noise = cv2.resize(noise, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    img = img + sigma * noise * (0.6 + 0.8 * (1 - img))
    effects["blur"] = float(blur)
    return np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8), effects
