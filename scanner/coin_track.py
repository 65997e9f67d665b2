"""Locate and measure the coins of the coin track in the canonical view (pixel work).

The band's centre line is found (it bends and shifts with curled paper) and every coin
is located on it near its printed place (a bright disc in a dark ring); a straight row
of even pitch is fitted through the clearest. Each coin's disc is cut out at a few small
shifts, and the light at each coin is measured on the band just above and below it (or
on the paper beside the band). Deciding the count from these is :mod:`scanner.coins`'.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from scanner import geometry as g
from scanner.median import fast_median, running_median3

_SEARCH = 0.16  # cells: how far a coin may sit from its printed place
_SEARCH_ON_BAND = 0.08  # cells: how far across the band's centre line
_MIN_BAND_EDGE = 8.0  # YCrCb units: weaker band edges are not trusted
_PITCH_SLACK = 0.04  # the coin row's pitch may differ this much from the printed one
_PITCH_SWITCH = 6  # coins more on another pitch's line than on the printed one's to take it
_PITCH_SPAN = 8  # coins: the pitch is refitted only through coins spanning this many
_SHIFT = 3  # view pixels: how far a disc may be off its located centre
# The paper strips a coin's light is read on for the last reading of scanner.coins (its
# step 8): this many cells above and below its centre, clear of the band (whose edges
# are 0.3 away), of the column numbers above it and of the season boxes below.
_PAPER_GAP = 0.5


def _track_rows() -> tuple[int, int]:
    """The view's rows ``(top, bottom)`` around the coin track, the only ones read."""
    top = max(0, int(g.to_canonical_px(0, g.COIN_Y - 1.2)[1]))
    return top, int(g.to_canonical_px(0, g.COIN_Y + 1.2)[1])


def track_grey(view: np.ndarray) -> np.ndarray:
    """Grey float image of the view, computed only on the rows around the coin track."""
    grey = np.zeros(view.shape[:2], np.float32)
    top, bottom = _track_rows()
    grey[top:bottom] = cv2.cvtColor(view[top:bottom], cv2.COLOR_BGR2GRAY)
    return grey


def band_centre_line(view: np.ndarray, chunks: int = 7) -> np.ndarray | None:
    """The coin band's centre line: ``(chunks, 3)`` rows of x, y (view pixels) and strength.

    The band (gold on side A, grey on B) is a strip 0.6 cell high, darker and
    differently coloured than the paper (YCrCb): in each of ``chunks`` pieces along it
    the centre is where two opposite edges (paper -> band above, band -> paper
    below) are strongest, searching up to 0.5 cell from the printed place.
    Returns None when the band is not seen clearly.
    """
    px = g.CANON_PX_PER_CELL
    x0, y0 = g.to_canonical_px(g.COIN_BAND[0] + 0.1, g.COIN_Y - 0.9)
    x1, y1 = g.to_canonical_px(g.COIN_BAND[2] - 0.1, g.COIN_Y + 0.9)
    x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), int(x1), int(y1)
    ycc = cv2.cvtColor(view[y0:y1, x0:x1], cv2.COLOR_BGR2YCrCb).astype(np.float32)
    half = int(round(0.3 * px))
    d = 3
    centres = np.arange(half + 2 + 2 * d, (y1 - y0) - half - 2 - 2 * d)
    cuts = np.linspace(x0, x1, chunks + 1).astype(int)
    # prof[piece, row, channel], each piece's mean colour per row (the sums of
    # ycc[:, a:b].mean(axis=1), in the same order, taken all at once); then every
    # piece and band height (hh) is scored at once.
    sums = np.add.reduceat(ycc, cuts[:-1] - x0, axis=1)
    prof = (sums / np.diff(cuts)[:, None]).astype(np.float32).transpose(1, 0, 2)
    hh = np.array([half - 2, half, half + 2])[:, None]  # (height, centre)
    top = prof[:, centres - hh + d] - prof[:, centres - hh - d]  # inside minus outside
    bottom = prof[:, centres + hh - d] - prof[:, centres + hh + d]
    nt, nb = np.linalg.norm(top, axis=-1), np.linalg.norm(bottom, axis=-1)
    cos = (top * bottom).sum(-1) / np.maximum(nt * nb, 1e-6)
    darker = (top[..., 0] < 0) & (bottom[..., 0] < 0)  # the band is darker than paper
    score = np.minimum(nt, nb) * np.clip(cos, 0, None) * darker  # (piece, height, centre)
    at = np.argmax(score, axis=2)  # each height's best centre ...
    peak = np.take_along_axis(score, at[..., None], 2)[..., 0]
    h = np.argmax(peak, axis=1)  # ... and the first height scoring best
    pieces = np.arange(chunks)
    line = np.column_stack(
        [(cuts[:-1] + cuts[1:]) / 2, y0 + centres[at[pieces, h]], peak[pieces, h]]
    ).astype(np.float64)
    if np.median(line[:, 2]) < _MIN_BAND_EDGE:
        return None
    # A piece far from its neighbours (a stroke, a box line) takes their median.
    ys = line[:, 1]
    smooth = running_median3(ys)
    bad = np.abs(ys - smooth) > 0.12 * px
    line[bad, 1] = smooth[bad]
    return line


def locate_coins(grey: np.ndarray, radius: float, band: np.ndarray | None = None) -> np.ndarray:
    """(14, 2) coin centres in view pixels.

    The row follows the coin band's centre line (``band``: ``(K, 3)`` x, y,
    strength from :func:`band_centre_line`, which may bend with curled paper);
    along it, ring-filter peaks near the printed places give the row's start
    and pitch (marked coins hide their ring, so only the clearest are trusted).
    """
    r = int(np.ceil(1.3 * radius))
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    rr = np.hypot(yy, xx)
    inner = (rr <= 0.6 * radius).astype(np.float32)
    ring = ((rr >= 0.8 * radius) & (rr <= 1.15 * radius)).astype(np.float32)
    kernel = inner / inner.sum() - ring / ring.sum()
    index = np.arange(g.COIN_COUNT)
    nominal = np.array([g.to_canonical_px(*g.coin_center(i)) for i in index])
    if band is not None:
        row_y = np.interp(nominal[:, 0], band[:, 0], band[:, 1])
        w_y = int(round(_SEARCH_ON_BAND * g.CANON_PX_PER_CELL))
    else:
        row_y = nominal[:, 1]
        w_y = int(round(_SEARCH * g.CANON_PX_PER_CELL))
    x0, y0 = g.to_canonical_px(g.COIN_FIRST_X - 0.6, g.COIN_Y - 1.0)
    x1, y1 = g.to_canonical_px(g.COIN_FIRST_X + 13.6 * g.COIN_SPACING, g.COIN_Y + 1.0)
    x0, y0 = max(0, int(x0)), max(0, int(y0))
    response = cv2.filter2D(grey[y0 : int(y1), x0 : int(x1)], -1, kernel)
    w = int(round(_SEARCH * g.CANON_PX_PER_CELL))
    found, strength = [], []
    for i in index:
        cx, cy = int(round(nominal[i, 0])) - x0, int(round(row_y[i])) - y0
        top, left = max(0, cy - w_y), max(0, cx - w)
        window = response[top : cy + w_y + 1, left : cx + w + 1]
        if window.size == 0:
            found.append((cx + x0, cy + y0))
            strength.append(0.0)
            continue
        j, k = np.unravel_index(int(np.argmax(window)), window.shape)
        found.append((left + k + x0, top + j + y0))
        strength.append(float(window[j, k]))
    pts = np.array(found, np.float64)
    strength = np.array(strength)
    # Trust the clearest rings (unmarked coins); marked ones can peak anywhere.
    clear = strength >= 0.5 * strength.max() if strength.max() > 0 else np.ones(14, bool)
    if band is not None:
        ys = np.interp(pts[:, 0], band[:, 0], band[:, 1])
    else:  # the view is rectified: the row is level
        ys = np.full(g.COIN_COUNT, float(np.median(pts[clear, 1])))
    pitch = nominal[1, 0] - nominal[0, 0]
    fx = _row_fit(index[clear], pts[clear, 0], pitch)
    xs = np.polyval(fx, index)
    if band is not None:
        ys = np.interp(xs, band[:, 0], band[:, 1])
    return np.stack([xs, ys], -1)


def _row_fit(index: np.ndarray, xs: np.ndarray, pitch: float) -> np.ndarray:
    """(pitch, offset) of the coin row ``x = pitch * i + offset`` through coins ``index``.

    A marked coin's ring-filter peak can sit anywhere in its window, so the row
    starts at the printed pitch through the coins' median, or at another pitch
    within ``_PITCH_SLACK`` of it whose line (through the median) holds at least
    ``_PITCH_SWITCH`` more coins within 5 % of a pitch (the track's print scale and
    the curl below the grid vary: over 13 pitches 1 % is 6 px, more than a coin's
    tolerance); then it is refitted, a few times, on the coins near it.
    Coins spanning fewer than ``_PITCH_SPAN`` places keep the printed pitch: a
    pixel's error at each end of a short row would move the far coins by several.
    """
    line = np.array([pitch, float(np.median(xs - pitch * index))])
    if np.ptp(index) < _PITCH_SPAN:  # too short a row to tell its pitch
        return line
    # The printed pitch (row 0) and the others, each line through the coins' median.
    pitches = np.concatenate([[pitch], pitch * (1 + np.linspace(-_PITCH_SLACK, _PITCH_SLACK, 17))])
    offsets = xs - pitches[:, None] * index
    medians = np.median(offsets, axis=1)
    counts = np.sum(np.abs(offsets - medians[:, None]) < 0.05 * pitch, axis=1)
    k = int(np.argmax(counts[1:])) + 1
    if counts[k] >= counts[0] + _PITCH_SWITCH:
        line = np.array([pitches[k], float(medians[k])])
    for _ in range(3):
        agree = np.abs(xs - np.polyval(line, index)) < 0.05 * pitch
        if agree.sum() < 3 or np.ptp(index[agree]) < 4:
            break
        refit = np.polyfit(index[agree], xs[agree], 1)
        if abs(refit[0] / pitch - 1) > _PITCH_SLACK:
            break
        line = refit
    return line


def track_light(grey: np.ndarray, centres: np.ndarray, on_paper: bool = False) -> np.ndarray:
    """Light level at each coin: the band just above and below it, smoothed along the
    track; ``on_paper``, the paper above and below the band, on the band's scale.

    The printed band darkens towards its ends (by 10-20 % at the last coins on photos
    of the real print) while its coins do not; the paper beside it is lit as they are.
    Its profile along the track is scaled so that its median is the band's: a mark
    stays a share of the band's light, the scale every threshold here was chosen on.
    """
    levels = _strip_levels(grey, centres, 0.25)  # between the coin's edge and the band's
    if on_paper:
        paper = _strip_levels(grey, centres, _PAPER_GAP)
        levels = paper * (fast_median(levels) / max(fast_median(paper), 1.0))
    # A running median of three follows shadow edges and ignores one stroke-covered strip.
    smooth = running_median3(levels)
    return np.maximum(smooth, 1.0)


def _strip_levels(grey: np.ndarray, centres: np.ndarray, gap_cells: float) -> np.ndarray:
    """Per coin, the median of two short strips ``gap_cells`` above and below its centre."""
    px = g.CANON_PX_PER_CELL
    h, w = grey.shape
    gap = int(round(gap_cells * px))
    half_w = int(round(0.2 * px))
    levels = []
    for x, y in centres:
        x, y = int(round(x)), int(round(y))
        strips = [
            grey[max(0, y + d - 1) : min(h, y + d + 2), max(0, x - half_w) : min(w, x + half_w)]
            for d in (-gap, gap)
        ]
        values = np.concatenate([s.ravel() for s in strips])
        levels.append(float(fast_median(values)) if values.size else 1.0)
    return np.array(levels)


def unlit_discs(grey: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(14, S, P) pixels of each coin's disc (slightly blurred), before the light
    (:func:`track_light`) is divided out.

    Axis 1 holds the disc cut at each of ``S`` small shifts (up to ``_SHIFT``
    pixels, the unshifted cut first), so a coin located a pixel or two off can
    still be compared with the reference pixel for pixel.
    """
    radius = g.COIN_RADIUS * g.CANON_PX_PER_CELL
    half = int(np.ceil(1.3 * radius))
    top, bottom = _track_rows()
    blurred = np.zeros(grey.shape, np.float32)  # only the track rows are read
    blurred[top:bottom] = cv2.GaussianBlur(grey[top:bottom], (0, 0), 1.0)
    patches = _patches(blurred, centres, half + _SHIFT)
    # np.take lays the cuts out coin by coin, each shift's pixels side by side in memory,
    # as the readings sum them.
    return np.take(patches.reshape(len(patches), -1), _disc_cuts(half, radius), axis=1)


@lru_cache(maxsize=4)
def _disc_cuts(half: int, radius: float) -> np.ndarray:
    """(S, P) flat indices into a ``2 * (half + _SHIFT) + 1`` square patch: the disc of
    ``1.1 * radius`` around its centre moved by each shift of up to ``_SHIFT`` pixels,
    the unshifted one first."""
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1]
    disc = np.hypot(yy, xx) <= 1.1 * radius
    ys, xs = yy[disc] + half + _SHIFT, xx[disc] + half + _SHIFT
    shifts = [(0, 0)] + [
        (dy, dx)
        for dy in range(-_SHIFT, _SHIFT + 1)
        for dx in range(-_SHIFT, _SHIFT + 1)
        if (dy or dx) and dy * dy + dx * dx <= _SHIFT * _SHIFT
    ]
    width = 2 * (half + _SHIFT) + 1
    return np.stack([(ys + dy) * width + xs + dx for dy, dx in shifts])


def _patches(image: np.ndarray, centres: np.ndarray, half: int) -> np.ndarray:
    size = 2 * half + 1
    out = np.empty((len(centres), size, size), np.float32)
    for i, (x, y) in enumerate(centres):
        m = np.float32([[1, 0, x - half], [0, 1, y - half]])
        out[i] = cv2.warpAffine(
            image,
            m,
            (size, size),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
    return out


def ring_contrast(discs: np.ndarray, radius: float) -> np.ndarray:
    """Per coin, how much brighter its middle is than its printed ring (light divided
    out; unshifted cut of :func:`unlit_discs`). About 0.13 to 0.18 on a clear printed coin;
    below zero when a mark covers the middle."""
    half = int(np.ceil(1.3 * radius))
    r = _disc_radii(half, radius)
    inner, ring = r <= 0.6 * radius, r >= 0.8 * radius
    cut = discs[:, 0]
    return cut[:, inner].mean(axis=1) - cut[:, ring].mean(axis=1)


@lru_cache(maxsize=4)
def _disc_radii(half: int, radius: float) -> np.ndarray:
    """Distance from the centre of each pixel of :func:`_disc_cuts`' disc, in its order."""
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1]
    rr = np.hypot(yy, xx)
    return rr[rr <= 1.1 * radius]
