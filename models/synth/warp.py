"""Put a flat sheet into an image: a homography from cell units plus paper curl.

Image coordinates follow OpenCV: pixel ``(i, j)``'s centre is the point
``(i, j)``. A sheet point ``p`` (cells) lands at ``H @ (p + curl(p))``; the
renderer inverts that per output pixel on a coarse grid and resamples the
flat sheet with one ``cv2.remap``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from models.synth.canvas import Canvas

COARSE = 8  # output pixels per step of the coarse inverse map


@dataclass(frozen=True)
class Curl:
    """A smooth displacement of sheet points in the sheet plane (cells).

    ``d(p) = amp * max(0, (p - origin) . normal / length) ** 2 * direction``
    (one edge lifting and bending) plus a low-frequency wave.
    """

    amp: float = 0.0
    origin: tuple[float, float] = (5.5, 5.5)
    normal: tuple[float, float] = (1.0, 0.0)
    direction: tuple[float, float] = (1.0, 0.0)
    length: float = 8.0
    wave: float = 0.0
    wave_k: tuple[float, float] = (0.3, 0.2)
    wave_phase: float = 0.0

    def __call__(self, p: np.ndarray) -> np.ndarray:
        p = np.asarray(p, np.float64)
        if self.amp == 0 and self.wave == 0:
            return np.zeros_like(p)
        s = ((p - self.origin) @ np.asarray(self.normal)) / self.length
        bend = self.amp * np.clip(s, 0, None) ** 2
        d = bend[..., None] * np.asarray(self.direction)
        phase = p @ np.asarray(self.wave_k) + self.wave_phase
        d = d + self.wave * np.stack([np.sin(phase), np.cos(1.3 * phase)], axis=-1)
        return d


def random_curl(rng: np.random.Generator, amount: float) -> Curl:
    """A plausible bend of up to about ``amount`` cells at the lifted edge."""
    if amount <= 0:
        return Curl()
    a = rng.uniform(0, 2 * np.pi)
    normal = (np.cos(a), np.sin(a))
    b = a + rng.normal(0, 0.5)
    return Curl(
        amp=rng.uniform(0.3, 1.0) * amount,
        origin=(5.5 + rng.normal(0, 2), 5.5 + rng.normal(0, 2)),
        normal=normal,
        direction=(np.cos(b), np.sin(b)),
        length=rng.uniform(6, 12),
        wave=rng.uniform(0, 0.3) * amount,
        wave_k=tuple(rng.normal(0, 0.35, 2)),
        wave_phase=rng.uniform(0, 2 * np.pi),
    )


def project(h: np.ndarray, curl: Curl, pts) -> np.ndarray:
    """Sheet points (cells, (..., 2)) -> image pixels (OpenCV convention)."""
    p = np.asarray(pts, np.float64)
    q = p + curl(p)
    flat = q.reshape(-1, 2)
    out = cv2.perspectiveTransform(flat[None], h)[0]
    return out.reshape(p.shape)


def curl_map(curl: Curl, canvas: Canvas, coarse: int = COARSE) -> tuple[np.ndarray, np.ndarray]:
    """Maps that bend a flat sheet on ``canvas`` by ``curl``: output canvas point ``p'``
    samples the flat sheet at ``p`` with ``p + curl(p) = p'`` (float32, full size)."""
    w, hgt = canvas.width, canvas.height
    cw, ch = max(2, -(-w // coarse)), max(2, -(-hgt // coarse))
    xs = (np.arange(cw) + 0.5) * (w / cw) - 0.5
    ys = (np.arange(ch) + 0.5) * (hgt / ch) - 0.5
    gx, gy = np.meshgrid(xs, ys)
    q = np.stack([gx, gy], axis=-1).reshape(-1, 2)
    p1 = (q + 0.5) / canvas.ppc + np.asarray(canvas.origin)
    p = p1.copy()
    for _ in range(3):  # fixed point: the curl is smooth and small
        p = p1 - curl(p)
    src = canvas.px(p) - 0.5
    mx = cv2.resize(src[:, 0].reshape(ch, cw).astype(np.float32), (w, hgt))
    my = cv2.resize(src[:, 1].reshape(ch, cw).astype(np.float32), (w, hgt))
    return mx, my


def canvas_to_image(h: np.ndarray, canvas: Canvas) -> np.ndarray:
    """Homography from canvas pixels (OpenCV convention) to image pixels."""
    ox, oy = canvas.origin
    k = 1.0 / canvas.ppc
    a = np.array([[k, 0, 0.5 * k + ox], [0, k, 0.5 * k + oy], [0, 0, 1]])
    return h @ a


def local_scale(h: np.ndarray, curl: Curl, pts) -> float:
    """Largest image pixels per cell of the mapping around the given sheet points."""
    best = 0.0
    for p in np.asarray(pts, np.float64):
        a = project(h, curl, [p, p + (0.5, 0), p + (0, 0.5)])
        best = max(best, np.linalg.norm(a[1] - a[0]) * 2, np.linalg.norm(a[2] - a[0]) * 2)
    return best


def warp_sheet(
    bgr: np.ndarray,
    alpha: np.ndarray,
    canvas: Canvas,
    h: np.ndarray,
    curl: Curl,
    background: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Composite the flat sheet onto ``background`` (modified copy returned) and its alpha."""
    hgt, w = background.shape[:2]
    if curl.amp != 0 or curl.wave != 0:  # bend the flat sheet first, then one homography
        mx, my = curl_map(curl, canvas)
        bgr = cv2.remap(bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        alpha = cv2.remap(alpha, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    premult = cv2.multiply(bgr, cv2.merge([alpha, alpha, alpha]), scale=1 / 255)
    # Only the sheet's bounding box in the image needs resampling and compositing.
    edge = np.linspace(0, 1, 9)
    x0c, y0c = canvas.origin
    x1c, y1c = x0c + canvas.width / canvas.ppc, y0c + canvas.height / canvas.ppc
    ring = np.concatenate(
        [
            np.stack([x0c + (x1c - x0c) * edge, np.full(9, y0c)], 1),
            np.stack([x0c + (x1c - x0c) * edge, np.full(9, y1c)], 1),
            np.stack([np.full(9, x0c), y0c + (y1c - y0c) * edge], 1),
            np.stack([np.full(9, x1c), y0c + (y1c - y0c) * edge], 1),
        ]
    )
    box = cv2.perspectiveTransform(ring[None], h)[0]
    lo = np.clip(np.floor(box.min(axis=0)) - 2, 0, [w, hgt]).astype(int)
    hi = np.clip(np.ceil(box.max(axis=0)) + 2, 0, [w, hgt]).astype(int)
    out = background.copy()
    a_full = np.zeros((hgt, w), np.uint8)
    rw, rh = hi - lo
    if rw <= 0 or rh <= 0:
        return out, a_full
    shift = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]], np.float64)
    m = shift @ canvas_to_image(h, canvas)
    flags = cv2.INTER_LINEAR
    warped = cv2.warpPerspective(premult, m, (rw, rh), flags=flags, borderMode=cv2.BORDER_CONSTANT)
    a = cv2.warpPerspective(alpha, m, (rw, rh), flags=flags, borderMode=cv2.BORDER_CONSTANT)
    roi = out[lo[1] : hi[1], lo[0] : hi[0]]
    inv = cv2.bitwise_not(cv2.merge([a, a, a]))
    roi[:] = cv2.add(warped, cv2.multiply(roi, inv, scale=1 / 255))
    a_full[lo[1] : hi[1], lo[0] : hi[0]] = a
    return out, a_full
