"""Cell crops -> the cell model's input: the one definition shared by training and inference.

Pipeline for one sheet (all numpy, no torch):

1. :func:`shrink` halves the ``96 x 96`` crops of :func:`scanner.cells.cut_cells` to
   ``INPUT_PX x INPUT_PX`` by averaging 2 x 2 blocks (exactly what cutting the view
   shrunk by two would give: every crop starts on an even pixel).
2. :func:`paper_colour` estimates the sheet's paper colour from all its crops (the
   light, low-saturation pixels), and :func:`white_balance` divides every channel by it
   so the paper becomes ``PAPER_LEVEL`` grey whatever the lamp: warm light no longer
   turns farms into villages, and colour stays *relative* to the sheet.
3. :func:`to_tensor` turns balanced ``uint8`` crops into ``float32`` NCHW ink amounts,
   ``1 - value / PAPER_LEVEL`` (paper 0, black ink ~1), RGB order. The 8-bit model the
   scanner runs (``models.quantize``) reads instead the 8-bit codes its first layer
   would quantize those ink amounts to (:func:`ink_codes`, :func:`to_codes`): one table
   lookup per pixel, the very same numbers, channels last (at inference composed with
   step 2's balance in one lookup: :func:`balanced_codes`).
4. :func:`ruins_flags` tells the model which cells carry the printed ruins icon
   (known from the layout), as a second input.

:func:`model_inputs` chains them; training stores step 2's output and applies its
augmentations before calling step 3, the same function inference calls.
"""

from __future__ import annotations

import cv2
import numpy as np

from scoring.layouts import SIZE, Layout

#: Side of the square image the model reads (pixels), cell + 0.25 cell margin each side.
INPUT_PX = 48
#: Crop side expected from ``cut_cells`` (pixels).
CROP_PX = 2 * INPUT_PX
#: Grey level the paper is balanced to (leaves head-room for glare and brighter paper).
PAPER_LEVEL = 224.0
#: Model input names in the ONNX graph.
IMAGE_INPUT = "image"
RUINS_INPUT = "ruins"
#: Second model output: the pooled feature vector the classifier head reads (per cell).
FEATURES_OUTPUT = "features"
#: Metadata keys of an 8-bit model whose image input is 8-bit codes (``models.quantize``):
#: the scale and zero point its first layer quantized the ink amounts with.
CODES_SCALE_KEY = "image_scale"
CODES_ZERO_POINT_KEY = "image_zero_point"

#: Class order of the model's output (text-map symbols, RULES.md §5).
CLASSES = ".TVFWM^#"


def shrink(crops: np.ndarray, px: int = INPUT_PX) -> np.ndarray:
    """Average 2 x 2 blocks: ``(N, 96, 96, 3)`` -> ``(N, 48, 48, 3)`` uint8 (rounded).

    One ``cv2.resize`` with ``INTER_AREA`` at exactly half size over the stacked crops:
    an exact block mean, and no block straddles two crops (96 is even). A model read
    at another input size ``px`` gets the crops area-resampled to ``px x px``.
    """
    if crops.ndim != 4 or crops.shape[1:] != (CROP_PX, CROP_PX, 3):
        raise ValueError(f"expected (N, {CROP_PX}, {CROP_PX}, 3) crops, got {crops.shape}")
    n = crops.shape[0]
    stacked = np.ascontiguousarray(crops, dtype=np.uint8).reshape(n * CROP_PX, CROP_PX, 3)
    small = cv2.resize(stacked, (px, n * px), interpolation=cv2.INTER_AREA)
    return small.reshape(n, px, px, 3)


def paper_colour(small: np.ndarray) -> np.ndarray:
    """Estimated paper colour of one sheet, ``(3,)`` float32 in the crops' channel order.

    Paper is what is light and nearly grey: leaving out clipped pixels (glare), among
    the pixels whose brightness lies between the 70th and 95th percentile of the sheet,
    keep the less saturated half and average them. Works whatever share of cells is
    drawn, because hatching and icons leave paper between strokes and in the margins.
    Every fifth pixel is enough and keeps this at about a millisecond per sheet.
    """
    px = np.asarray(small).reshape(-1, 3)[::5]
    c0, c1, c2 = (px[:, i].astype(np.int16) for i in range(3))
    top = np.maximum(np.maximum(c0, c1), c2)
    bright = c0 + c1
    bright += c2
    keep = top < 250
    if np.count_nonzero(keep) >= len(px) // 4:
        # Glare is left out by a brightness no pixel has: no quantile counts it, and it
        # lies above every range chosen below (cheaper than dropping it from each array).
        bright[~keep] = _LEFT_OUT
    lo, hi = _quantiles(bright, _LEFT_OUT, (0.70, 0.95))
    sel = (bright >= lo) & (bright <= hi)
    if np.count_nonzero(sel) < 16:
        sel = bright < _LEFT_OUT
    spread = (top - np.minimum(np.minimum(c0, c1), c2))[sel]
    (mid,) = _quantiles(spread, 256, (0.5,))
    idx = np.flatnonzero(sel)[spread <= mid]
    colour = np.array([c[idx].mean() for c in (c0, c1, c2)], np.float32)
    return np.maximum(colour, 8.0)


#: A brightness above any pixel's (3 x 255): what :func:`paper_colour` leaves out.
_LEFT_OUT = 766


def _quantiles(values: np.ndarray, bins: int, qs: tuple[float, ...]) -> list[int]:
    """Quantiles of small non-negative integers by counting (much faster than sorting);
    values of ``bins`` or more are left out."""
    cum = np.cumsum(np.bincount(values, minlength=bins)[:bins])
    return [int(np.searchsorted(cum, q * cum[-1])) for q in qs]


def _balance_table(paper: np.ndarray) -> np.ndarray:
    """``(256, 3)`` uint8: each channel's grey levels scaled so ``paper`` becomes PAPER_LEVEL."""
    gain = PAPER_LEVEL / np.asarray(paper, np.float32)
    lut = np.clip(np.arange(256, dtype=np.float32)[:, None] * gain + 0.5, 0, 255)
    return lut.astype(np.uint8)


def white_balance(small: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """Scale each channel so ``paper`` becomes ``PAPER_LEVEL``; returns uint8."""
    lut = _balance_table(paper).reshape(256, 1, 3)
    n = small.shape[0]
    flat = np.ascontiguousarray(small, dtype=np.uint8).reshape(n * small.shape[1], -1, 3)
    return cv2.LUT(flat, lut).reshape(small.shape)


def to_tensor(balanced: np.ndarray, bgr: bool = True) -> np.ndarray:
    """Balanced ``(N, 48, 48, 3)`` crops -> ``(N, 3, 48, 48)`` float32 ink amounts, RGB.

    ``bgr`` says the crops are in OpenCV's BGR order (the scanner's and the renderer's).
    """
    rgb = balanced[..., ::-1] if bgr else balanced
    x = np.ascontiguousarray(rgb.transpose(0, 3, 1, 2)).astype(np.float32)
    x *= -1.0 / PAPER_LEVEL
    x += 1.0
    return x


def ink_codes(scale: float, zero_point: int) -> np.ndarray:
    """``(256,)`` uint8: the 8-bit code of each balanced grey level's ink amount.

    As onnxruntime's ``QuantizeLinear`` makes it from :func:`to_tensor`'s ink amount
    ``x``: ``x / scale`` rounded half to even, plus ``zero_point``, saturated to 0..255.
    """
    grey = np.repeat(np.arange(256, dtype=np.uint8).reshape(1, 1, 256, 1), 3, axis=3)
    ink = to_tensor(grey, bgr=False)[0, 0, 0]
    codes = np.rint(ink / np.float32(scale)) + np.float32(zero_point)
    return np.clip(codes, 0, 255).astype(np.uint8)


def to_codes(balanced: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Balanced ``(N, px, px, 3)`` BGR crops -> ``(N, px, px, 3)`` uint8 codes
    (:func:`ink_codes`), RGB, channels last: what an 8-bit model with code input reads."""
    n, h, w, _ = balanced.shape
    rgb = cv2.cvtColor(np.ascontiguousarray(balanced).reshape(n * h, w, 3), cv2.COLOR_BGR2RGB)
    return cv2.LUT(rgb, codes).reshape(n, h, w, 3)


def balanced_codes(small: np.ndarray, paper: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``to_codes(white_balance(small, paper), codes)`` with one lookup per pixel, not two.

    Each BGR channel's balance table composed with the codes table is looked up plane by
    plane, straight into RGB order (three one-plane lookups take about half the time of
    OpenCV's one lookup of a three-channel image with a table per channel).
    """
    table = codes[_balance_table(paper)]  # (256, 3): grey level -> code, per BGR channel
    n, h, w, _ = small.shape
    blue, green, red = cv2.split(np.ascontiguousarray(small, dtype=np.uint8).reshape(n * h, w, 3))
    planes = [
        cv2.LUT(plane, np.ascontiguousarray(table[:, c]))
        for c, plane in ((2, red), (1, green), (0, blue))
    ]
    return cv2.merge(planes).reshape(n, h, w, 3)


def model_image(balanced: np.ndarray, codes: np.ndarray | None = None) -> np.ndarray:
    """The image input of a model for balanced BGR crops: float ink amounts
    (:func:`to_tensor`), or, given a model's ``codes`` table, its 8-bit codes."""
    return to_tensor(balanced) if codes is None else to_codes(balanced, codes)


def ruins_flags(layout: Layout) -> np.ndarray:
    """``(121, 1)`` float32: 1 where the layout prints a ruins icon, row-major."""
    flags = np.zeros((SIZE * SIZE, 1), np.float32)
    for r, c in layout.ruins:
        flags[r * SIZE + c, 0] = 1.0
    return flags


def balance_sheet(crops: np.ndarray, px: int = INPUT_PX) -> np.ndarray:
    """Steps 1-2 for one sheet's crops: shrunk (to ``px``) and white-balanced uint8 crops."""
    small = shrink(crops, px)
    return white_balance(small, paper_colour(small))


def model_inputs(
    crops: np.ndarray, layout: Layout, px: int = INPUT_PX, codes: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Everything the ONNX model needs for one sheet's 121 BGR crops (read at ``px``;
    ``codes``: the model reads 8-bit codes, :func:`model_image`; balanced and coded in one
    lookup, :func:`balanced_codes`)."""
    if crops.shape[0] != SIZE * SIZE:
        raise ValueError(f"expected {SIZE * SIZE} crops (one sheet), got {crops.shape[0]}")
    if codes is None:
        image = model_image(balance_sheet(crops, px))
    else:
        small = shrink(crops, px)
        image = balanced_codes(small, paper_colour(small), codes)
    return {IMAGE_INPUT: image, RUINS_INPUT: ruins_flags(layout)}
