"""Train the cell classifier on rendered sheets and export it to ONNX.

``python -m models.train`` with its defaults trains a model from scratch, as session 16
did for the ancestor of the committed ``models/cells.onnx`` (synthesis 18, the net widened
1.25 times in session 14, :data:`models.net.LAYERS`; 33 minutes of training on a busy
machine after 17 minutes of rendering; later runs take the rendered cells from the cache;
the committed model is session 25's mean of session 23's model and its fine-tune on
synthesis 25, :mod:`models.soup`; session 23's was a fine-tune, on synthesis 24, of session
21's mean of two fine-tunes of session 18's further-trained copy; the README gives the
commands) and writes beside it the 8-bit
copy the scanner runs, ``models/cells.int8.onnx`` (:mod:`models.quantize`; an ``--out
X.onnx`` gets an ``X.int8.onnx``). ``--width W`` multiplies every conv's channels
(:func:`models.net.widened`); session 14 trained the sessions 9-13 net and the 1.25-wide
one on synthesis 16, and the wide one read the held-out tune photos better (docs/figures.md).
Session 15 tried ``--width 1.2`` (1.5 times the sessions 9-13 net, 397k parameters, 23
and 21 minutes from the cache, seeds 0 and 1): both runs read own normal photos better
but held-out normal ones worse (more empty cells read as farms); not the default (docs/figures.md).
``--first-pool`` (:func:`models.net.first_pooled`) runs the first conv at stride 1 before a
max-pool; session 22 trained it from the committed weights on synthesis 23 and it read the
held-out normal tune photos much worse (166 misread cells against 115), and from scratch
(the defaults) worse again (189); not the default.
Session 16's helper trained the defaults on synthesis 18 with an earlier synthesis-17
template (wider farms, water and empty cells, :mod:`models.synth.draw`): held-out normal
tune photos 174 -> 171 misread cells, own hard ones 807 -> 859; not committed. The lead's
run on the final synthesis 18 became the committed model's ancestor (docs/figures.md,
session 16).
Session 12 found that the then committed
model reads its own training cells no better than the validation photos (normal photos
98.3-98.9 % either way): it is held back by fitting, not by data. Two runs on synthesis
14 (``--steps 4400 --fine-steps 3600``, and ``--pool flat``, :mod:`models.net`) read
fewer cells wrong on the tune photos but are surer when wrong (fewer misread cells
flagged for review); neither is the default (docs/history.md, "Cell classifier", session 12).
``--label-smoothing`` (0.02, the value always used) spreads that share of each target
over all classes. Session 13 trained the longer schedule with 0.1 and 0.05: the models
are less sure of right and wrong readings alike (more cells flagged at the same
threshold), catch no more misread cells at the same number flagged, and read the
held-out normal tune photos no better (312 and 300 misread cells against 284); neither
is the default.
Two built-in phases: ``--steps``
batches from scratch on canonical views (``make_view``), then ``--fine-steps`` batches at
``--fine-lr`` on the views plus photos read by the scanner itself (``make_photo`` +
``scan_photo``). ``--sparse-sheets N`` (200 by default) adds N views of blank and
part-played sheets (seeds ``SPARSE_SEED..``). A 200-sheet run with the previous step
counts (2200 + 1800) validated at 95.7 % of cells against 96.1 % without them; with
3300 + 2700 steps it validates at 96.3 %. ``--empty-ruins K`` (1 by default) samples
ruins spaces left empty K times more often (:func:`_sampling_weights`); the committed
model's two runs used 4 (with 800 sparse sheets) and 8 (with 200), docs/figures.md session 21.

``--augment-extra`` (0 by default) adds a small turn and scale, fainter ink, thicker or
thinner strokes and JPEG blocks to a share of the cells; ``--shadow-share`` (0) crosses a
share of them with a hard, ragged shadow edge. Session 10 tried ``--augment-extra 1``:
on the tune photos (own 3,900,000+, held-out 850000+) it cut misread cells on hard
photos (own 837 -> 766, held-out 376 -> 357) but not on normal ones (own 143 -> 147,
held-out 286 -> 286), and validated at 96.2 %; adding ``--shadow-share 0.1`` read
normal photos worse (own 158, held-out 309 misread cells; hard 821 and 351) and
validated at 96.1 %. Neither is the default. Session 11 trained on synthesis 13 (the
committed weights are synthesis 12's): the defaults, ``--augment-extra 1`` and the same
with ``--seed 1`` read own normal tune photos no better (155, 162, 155 misread cells
against 155) and held-out normal sheets less often all right (11, 13, 10 against 15),
though ``--augment-extra 1`` again cut hard-photo errors (own 828 -> 748 / 797, held-out
383 -> 367 / 347); docs/history.md has the table.

Data: ``models.synth.make_view(seed, difficulty)`` renders a sheet already in the
canonical rectified view; ``scanner.cells.cut_cells`` cuts its 121 crops and
``scanner.normalize.balance_sheet`` shrinks and white-balances them -- the very
functions the scanner runs. Training seeds are ``0..N-1``; validation seeds start at
``VALIDATION_SEED`` and are never trained on. Everything is seeded, so a run is
repeatable (up to torch's CPU kernels' float ordering).

Writes the ONNX model and, beside it, ``<name>.metrics.json``: per-class precision and
recall, the confusion matrix, accuracy per style and difficulty, measured through
onnxruntime with :func:`scanner.classify.classify_cells` on the validation sheets.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scanner.cells import cut_cells
from scanner.normalize import (
    CLASSES,
    INPUT_PX,
    PAPER_LEVEL,
    balance_sheet,
    model_image,
    ruins_flags,
    to_tensor,
)
from scoring.layouts import LAYOUTS, SIZE

VALIDATION_SEED = 1_000_000
#: First seed of the blank and part-played sheets (training range, apart from 0..).
SPARSE_SEED = 500_000
DIFFICULTIES = ("clean", "normal", "hard")
DEFAULT_OUT = Path(__file__).resolve().parent / "cells.onnx"
CACHE_DIR = Path(os.environ.get("CARTOSCORE_CACHE", "/tmp/cartoscore-cells"))


@dataclass
class CellSet:
    """Balanced crops and their labels, one row per cell."""

    images: np.ndarray  # (N, 48, 48, 3) uint8, BGR, white-balanced
    labels: np.ndarray  # (N,) int64 index into CLASSES
    ruins: np.ndarray  # (N, 1) float32
    sheet: np.ndarray  # (N,) int32 sheet index
    style: list[str]  # per sheet
    difficulty: list[str]  # per sheet
    side: list[str]  # per sheet


def difficulty_for(seed: int) -> str:
    """Difficulty mix of the rendered sets: 20 % clean, 45 % normal, 35 % hard."""
    u = (seed * 2654435761 % 2**32) / 2**32
    return "clean" if u < 0.20 else "normal" if u < 0.65 else "hard"


def played_for(seed: int) -> int:
    """Seasons drawn on a sparse-set sheet: 0 (blank), 1, 2 or 3, in turn."""
    return seed % 4


def render_sheet(
    seed: int, difficulty: str | None = None, source: str = "view", px: int = INPUT_PX
) -> dict | None:
    """One rendered sheet -> balanced crops, labels and its style (runs in workers).

    ``source="view"``: ``make_view``'s canonical view. ``source="photo"``: a full
    ``make_photo`` read by the scanner (``scanner.pipeline.scan_photo``), so training sees
    the scanner's own resampling and residual misalignment; a sheet whose detected
    lattice is off the true one by more than a quarter cell, or whose side was misread,
    is skipped (None) rather than mislabelled. ``source="sparse"``: a canonical view of a
    blank or part-played sheet (:func:`played_for`), so empty cells and empty ruins are
    seen in numbers.
    """
    from models import synth

    cv2.setNumThreads(1)
    difficulty = difficulty or difficulty_for(seed)
    if source == "photo":
        from scanner.errors import SheetNotFound
        from scanner.pipeline import scan_photo

        photo, truth = synth.make_photo(seed, difficulty)
        try:
            scan = scan_photo(photo)
        except SheetNotFound:
            return None
        true_lattice = np.asarray(truth["lattice"], np.float64)
        cell = np.linalg.norm(true_lattice[0, 1] - true_lattice[0, 0])
        off = np.linalg.norm(np.asarray(scan.lattice) - true_lattice, axis=-1).mean() / cell
        if scan.side != truth["side"] or off > 0.25:
            return None
        view = scan.view
    elif source == "sparse":
        view, truth = synth.make_view(seed, difficulty, played=played_for(seed))
    else:
        view, truth = synth.make_view(seed, difficulty)
    layout = LAYOUTS[truth["side"]]
    grid = truth["grid"]
    labels = np.array([CLASSES.index(grid[r][c]) for r in range(SIZE) for c in range(SIZE)])
    return {
        "images": balance_sheet(cut_cells(view), px),
        "labels": labels.astype(np.int64),
        "ruins": ruins_flags(layout),
        "style": str(truth.get("style", "?")),
        "difficulty": difficulty,
        "side": str(truth["side"]),
    }


def build_set(
    seeds: list[int],
    workers: int,
    difficulty: str | None = None,
    source: str = "view",
    px: int = INPUT_PX,
) -> CellSet:
    """Render ``seeds`` (in parallel when ``workers > 1``) into one :class:`CellSet`."""
    n = len(seeds)
    if workers > 1:
        # Workers from a fresh process, never forked from this one: once this process has
        # run OpenCV's thread pool (models.train_context reads each set before rendering
        # the next), a forked worker hangs for ever in its first cv2.setNumThreads.
        fresh = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(fresh)) as pool:
            sheets = list(
                pool.map(render_sheet, seeds, [difficulty] * n, [source] * n, [px] * n, chunksize=4)
            )
    else:
        sheets = [render_sheet(s, difficulty, source, px) for s in seeds]
    sheets = [s for s in sheets if s is not None]
    n = len(sheets)
    return CellSet(
        images=np.concatenate([s["images"] for s in sheets]),
        labels=np.concatenate([s["labels"] for s in sheets]),
        ruins=np.concatenate([s["ruins"] for s in sheets]),
        sheet=np.repeat(np.arange(n, dtype=np.int32), SIZE * SIZE),
        style=[s["style"] for s in sheets],
        difficulty=[s["difficulty"] for s in sheets],
        side=[s["side"] for s in sheets],
    )


def cached_set(
    name: str,
    seeds: list[int],
    workers: int,
    difficulty: str | None = None,
    source: str = "view",
    version: str | None = None,
    px: int = INPUT_PX,
) -> CellSet:
    """:func:`build_set`, cached on disk by name and seed range (delete the cache to redo).

    ``version`` reuses a set cached from an older synthesis version instead.
    """
    tag = version or _synth_version()
    kind = ("" if source == "view" else f"-{source}") + ("" if px == INPUT_PX else f"-px{px}")
    path = CACHE_DIR / f"{name}{kind}-{seeds[0]}-{len(seeds)}-{difficulty or 'mix'}-v{tag}.npz"
    if path.exists():
        z = np.load(path, allow_pickle=False)
        return CellSet(
            z["images"],
            z["labels"],
            z["ruins"],
            z["sheet"],
            [str(v) for v in z["style"]],
            [str(v) for v in z["diff"]],
            [str(v) for v in z["side"]],
        )
    data = build_set(seeds, workers, difficulty, source, px)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    np.savez(
        path,
        images=data.images,
        labels=data.labels,
        ruins=data.ruins,
        sheet=data.sheet,
        style=np.array(data.style),
        diff=np.array(data.difficulty),
        side=np.array(data.side),
    )
    return data


def concat(parts: list[CellSet]) -> CellSet:
    """Several cell sets as one (sheet indices renumbered)."""
    offsets = np.cumsum([0] + [len(p.style) for p in parts])
    return CellSet(
        images=np.concatenate([p.images for p in parts]),
        labels=np.concatenate([p.labels for p in parts]),
        ruins=np.concatenate([p.ruins for p in parts]),
        sheet=np.concatenate([p.sheet + o for p, o in zip(parts, offsets[:-1], strict=True)]),
        style=[x for p in parts for x in p.style],
        difficulty=[x for p in parts for x in p.difficulty],
        side=[x for p in parts for x in p.side],
    )


# --- augmentation (numpy, on balanced uint8 crops; then the shared to_tensor) -----------


def augment(
    images: np.ndarray,
    rng: np.random.Generator,
    extra: float = 0.0,
    shadow: float = 0.0,
    threshold: float = 0.0,
) -> np.ndarray:
    """Random shift, mirror, colour gain, lighting gradient, blur, noise, greyscale.

    ``extra`` (0 = off, 1 = full) adds, each to a share of the cells: a small turn and
    scale about the centre (the scanner's residual misalignment), fainter ink (light
    pencil pressure), thicker or thinner strokes, and JPEG blocks. ``shadow`` is the
    share of cells crossed by a hard, ragged shadow edge (a phone or hand, SHEET.md).
    ``threshold`` is the share of cells made black and white (:func:`_thresholded`).
    """
    n, px = len(images), images.shape[1]
    pad = round(3 * px / INPUT_PX)  # 3 pixels at the 48 px input, as much of a cell at others
    padded = np.pad(images, ((0, 0), (pad, pad), (pad, pad), (0, 0)), mode="edge")
    out = np.empty((n, px, px, 3), np.float32)
    dx = rng.integers(-pad, pad + 1, n)
    dy = rng.integers(-pad, pad + 1, n)
    warp = rng.random(n) < 0.4 * extra if extra else np.zeros(n, bool)
    for i in range(n):
        if warp[i]:
            out[i] = _warp(images[i], dx[i], dy[i], rng)
            continue
        y0, x0 = pad + dy[i], pad + dx[i]
        out[i] = padded[i, y0 : y0 + px, x0 : x0 + px]
    if extra:
        _ink_habits(out, rng, extra)
    flip = rng.random(n) < 0.5
    out[flip] = out[flip, :, ::-1]
    blur = rng.random(n) < 0.2
    for i in np.flatnonzero(blur):
        out[i] = cv2.GaussianBlur(out[i], (3, 3), rng.uniform(0.4, 1.0) * px / INPUT_PX)
    # A white balance is never perfect: per-cell channel gains and brightness.
    gain = rng.normal(1.0, 0.04, (n, 1, 1, 3)) * rng.uniform(0.85, 1.1, (n, 1, 1, 1))
    # A soft shadow edge or lamp falloff across the crop.
    ramp = np.linspace(-1, 1, px, dtype=np.float32)
    angle = rng.uniform(0, 2 * math.pi, n)
    strength = rng.uniform(0, 0.12, n) * (rng.random(n) < 0.4)
    grad = (
        np.cos(angle)[:, None, None] * ramp[None, None, :]
        + np.sin(angle)[:, None, None] * ramp[None, :, None]
    )
    light = 1.0 + strength[:, None, None] * grad
    if shadow:
        light *= _hard_shadows(n, rng, shadow, px)
    out = out * gain * light[..., None]
    grey = rng.random(n) < 0.08
    out[grey] = out[grey].mean(axis=3, keepdims=True)
    out += rng.uniform(0, 4, (n, 1, 1, 1)) * rng.standard_normal(out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if extra:
        for i in np.flatnonzero(rng.random(n) < 0.15 * extra):
            q = int(rng.integers(45, 90))
            ok, buf = cv2.imencode(".jpg", out[i], [cv2.IMWRITE_JPEG_QUALITY, q])
            if ok:
                out[i] = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if threshold:  # (no draw from rng without it: the other augmentations stay as they were)
        for i in np.flatnonzero(rng.random(n) < threshold):
            out[i] = _thresholded(out[i], rng)
    return out


def _thresholded(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A balanced crop as a scanner app's black-and-white mode leaves it: an adaptive
    threshold at the crop's scale, ink black and paper at the balanced paper level,
    half of them softened as the scanner's resampling softens them.

    Session 46 (docs/figures.md): a fine-tune with 5 % of these read thresholded photos
    with 29 % fewer misread cells than one without (both without the context step);
    with a context model of its own 13.5 % fewer than the committed pair, but own normal
    and held-out hard photos worse, so it was not committed.
    """
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    block = int(rng.choice([9, 11, 15]))
    bw = cv2.adaptiveThreshold(
        grey, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, block, rng.uniform(6, 16)
    )
    bw = np.where(bw > 127, PAPER_LEVEL, 0).astype(np.uint8)
    if rng.random() < 0.5:
        bw = cv2.GaussianBlur(bw, (3, 3), 0.6)
    return cv2.cvtColor(bw, cv2.COLOR_GRAY2BGR)


def _hard_shadows(n: int, rng: np.random.Generator, share: float, px: int = INPUT_PX) -> np.ndarray:
    """``(n, px, px)`` light factors: 1, or a ragged-edged darker part on ``share`` of them."""
    out = np.ones((n, px, px), np.float32)
    pick = np.flatnonzero(rng.random(n) < share)
    if not len(pick):
        return out
    k = len(pick)
    ramp = np.linspace(-1, 1, px, dtype=np.float32)
    angle = rng.uniform(0, 2 * math.pi, k)
    side = (
        np.cos(angle)[:, None, None] * ramp[None, None, :]
        + np.sin(angle)[:, None, None] * ramp[None, :, None]
        - rng.uniform(-0.8, 0.8, (k, 1, 1))
    )
    # A ragged edge: coarse noise, smoothly enlarged, shifts the boundary.
    coarse = rng.normal(0, 0.25, (k, 6, 6)).astype(np.float32)
    rough = np.stack([cv2.resize(c, (px, px)) for c in coarse])
    dark = rng.uniform(0.55, 0.85, (k, 1, 1)).astype(np.float32)
    out[pick] = np.where(side + rough > 0, dark, 1.0)
    return out


def _warp(image: np.ndarray, dx: int, dy: int, rng: np.random.Generator) -> np.ndarray:
    """One crop turned by a few degrees, scaled by a few percent and shifted."""
    px = image.shape[0]
    c = (px - 1) / 2
    m = cv2.getRotationMatrix2D((c, c), rng.uniform(-4, 4), rng.uniform(0.92, 1.08))
    m[:, 2] += (dx, dy)
    return cv2.warpAffine(
        image, m, (px, px), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def _ink_habits(out: np.ndarray, rng: np.random.Generator, extra: float) -> None:
    """In place: fainter ink on some cells, thicker or thinner strokes on others."""
    n = len(out)
    faint = np.flatnonzero(rng.random(n) < 0.3 * extra)
    k = rng.uniform(0.4, 0.9, (len(faint), 1, 1, 1)).astype(np.float32)
    paper = np.float32(PAPER_LEVEL)
    out[faint] = paper - (paper - out[faint]) * k
    kernel = np.ones((2, 2), np.uint8)
    width = rng.random(n)
    for i in np.flatnonzero(width < 0.2 * extra):
        # Half-way to a 2 x 2 min (thicker dark strokes) or max (thinner) filter.
        op = cv2.erode if width[i] < 0.12 * extra else cv2.dilate
        out[i] = 0.5 * (out[i] + op(out[i], kernel))


# --- training -------------------------------------------------------------------------


def _sampling_weights(data: CellSet, empty_ruins: float = 1.0) -> np.ndarray:
    """Oversample ruins cells (3x) and rare classes (up to 3x), as FIELD-NOTES suggests.

    ``empty_ruins`` multiplies once more the weight of ruins spaces left empty: the bare
    printed icon is rare on finished sheets (about 7 % of their ruins spaces) and the
    thing real photos' ruins are most often misread on.
    """
    counts = np.bincount(data.labels, minlength=len(CLASSES)).astype(np.float64)
    per_class = np.clip((counts.max() / np.maximum(counts, 1)) ** 0.5, 1, 3)
    on_ruins = data.ruins[:, 0] > 0
    w = per_class[data.labels] * np.where(on_ruins, 3.0, 1.0)
    w *= np.where(on_ruins & (data.labels == CLASSES.index(".")), empty_ruins, 1.0)
    return w / w.sum()


def train(
    data: CellSet,
    val: CellSet,
    steps: int,
    batch: int,
    lr: float,
    seed: int,
    threads: int,
    evals: int = 8,
    init: Path | None = None,
    mix_share: float = 0.15,
    log=print,
    init_state: dict | None = None,
    extra: float = 0.0,
    shadow: float = 0.0,
    threshold: float = 0.0,
    pool: str | None = None,
    label_smoothing: float = 0.02,
    layers: tuple | None = None,
    empty_ruins: float = 1.0,
):
    """Train a :class:`models.net.CellNet` for ``steps`` batches (one-cycle schedule).

    Validates ``evals`` times, evenly spaced, and returns the model with the best
    validation cell accuracy (ties: the later one). ``init`` (a saved ``.pt``, or an
    ONNX export of the same net: :mod:`models.from_onnx`) or ``init_state`` (a state
    dict) starts from those weights instead of from scratch.
    ``mix_share`` of each batch are blends of two cells with blended targets (mixup), so
    the model learns to say "unsure" on crops that look like two things (what the review
    flags rely on). ``extra``, ``shadow`` and ``threshold`` are :func:`augment`'s; ``pool`` and
    ``layers`` are the net's (defaults :data:`models.net.POOL`, :data:`models.net.LAYERS`).
    ``label_smoothing`` moves that share of each target's weight evenly onto all classes
    (torch's ``CrossEntropyLoss``), so the model is rarely near-certain, wrong readings
    included. ``empty_ruins`` is :func:`_sampling_weights`'s.
    """
    import torch
    from torch import nn

    from models.net import LAYERS, POOL, CellNet

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    model = CellNet(layers or LAYERS, pool=pool or POOL)
    if init is not None and Path(init).suffix == ".onnx":
        from models.from_onnx import state_from_onnx

        pick = np.sort(rng.choice(len(data.labels), min(4096, len(data.labels)), replace=False))
        state = state_from_onnx(init, layers or LAYERS, model.pool, data.images[pick])
        model.load_state_dict(state)
    elif init is not None:
        model.load_state_dict(torch.load(init, weights_only=True))
    if init_state is not None:
        model.load_state_dict(init_state)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=label_smoothing)
    weights = _sampling_weights(data, empty_ruins)
    val_x = torch.from_numpy(to_tensor(val.images))
    val_r = torch.from_numpy(val.ruins)
    checkpoints = {round(steps * (k + 1) / evals) for k in range(evals)}
    best, best_state = -1.0, None
    t0, total, count = time.perf_counter(), 0.0, 0
    for step in range(1, steps + 1):
        model.train()
        images, ruins, target = _batch(
            data, weights, batch, mix_share, rng, extra, shadow, threshold
        )
        x = torch.from_numpy(to_tensor(images))
        r = torch.from_numpy(ruins)
        y = torch.from_numpy(target)
        opt.zero_grad()
        loss = loss_fn(model(x, r), y)
        loss.backward()
        opt.step()
        sched.step()
        total += float(loss.detach())
        count += 1
        if step in checkpoints:
            acc = _accuracy(model, val_x, val_r, val.labels)
            log(
                f"step {step}/{steps}: loss {total / count:.4f}, "
                f"validation cell accuracy {acc:.4%} ({time.perf_counter() - t0:.0f} s)"
            )
            total, count = 0.0, 0
            if acc >= best:
                best = acc
                best_state = {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(best_state)
    model.eval()
    return model


def _batch(
    data: CellSet,
    weights: np.ndarray,
    batch: int,
    mix_share: float,
    rng,
    extra: float = 0.0,
    shadow: float = 0.0,
    threshold: float = 0.0,
):
    """One augmented batch: uint8 images, ruins flags, soft targets (some cells blended)."""
    k = len(CLASSES)
    idx = rng.choice(len(data.labels), batch, p=weights)
    images = augment(data.images[idx], rng, extra, shadow, threshold)
    ruins = data.ruins[idx].copy()
    target = np.eye(k, dtype=np.float32)[data.labels[idx]]
    mix = np.flatnonzero(rng.random(batch) < mix_share)
    if len(mix):
        other = rng.choice(len(data.labels), len(mix), p=weights)
        lam = rng.uniform(0.25, 0.75, len(mix)).astype(np.float32)
        blend = lam[:, None, None, None] * images[mix] + (1 - lam[:, None, None, None]) * augment(
            data.images[other], rng, extra, shadow, threshold
        )
        images[mix] = np.clip(blend + 0.5, 0, 255).astype(np.uint8)
        target[mix] = lam[:, None] * target[mix] + (1 - lam[:, None]) * np.eye(k)[
            data.labels[other]
        ].astype(np.float32)
        ruins[mix] = np.maximum(ruins[mix], data.ruins[other])
    return images, ruins, target


def _accuracy(model, x, r, labels: np.ndarray) -> float:
    import torch

    model.eval()
    with torch.no_grad():
        pred = torch.cat([model(x[i : i + 1024], r[i : i + 1024]) for i in range(0, len(x), 1024)])
    return float((pred.argmax(1).numpy() == labels).mean())


# --- metrics through onnxruntime ------------------------------------------------------


def review_table(probs: np.ndarray, truth: np.ndarray, plain: np.ndarray) -> list[dict]:
    """For a few review thresholds: flagged cells per sheet and the share of errors caught.

    Same rule as :func:`scanner.review.review_cells` (top probability below
    ``min_prob`` or top two closer than ``min_margin``), on non-printed cells.
    """
    top2 = -np.sort(-probs, axis=1)[:, :2]
    wrong = (probs.argmax(1) != truth) & plain
    rows = []
    for min_prob in (0.6, 0.8, 0.9, 0.95, 0.98):
        for min_margin in (0.2, 0.5, 0.8, 0.9):
            flagged = plain & ((top2[:, 0] < min_prob) | (top2[:, 0] - top2[:, 1] < min_margin))
            rows.append(
                {
                    "min_prob": min_prob,
                    "min_margin": min_margin,
                    "flagged_per_sheet": round(float(flagged.sum()) * SIZE * SIZE / len(truth), 3),
                    "wrong": int(wrong.sum()),
                    "wrong_flagged": int((wrong & flagged).sum()),
                }
            )
    return rows


def evaluate_onnx(path: Path, val: CellSet) -> dict:
    """Per-class precision/recall, confusion, per-style/difficulty accuracy of the export.

    Runs the exported model the way the scanner does (onnxruntime, layout prior), on
    the balanced crops (the crops' own normalisation already happened at render time).
    """
    import onnxruntime as ort

    from scanner.cell_model import image_codes
    from scanner.layout_prior import apply_layout_prior

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    k = len(CLASSES)
    confusion = np.zeros((k, k), np.int64)
    by_style: dict[str, list[int]] = {}
    by_diff: dict[str, list[int]] = {}
    sheets_right = 0
    n_sheets = len(val.style)
    all_probs, all_truth, plain = [], [], []
    for s in range(n_sheets):
        sl = slice(s * SIZE * SIZE, (s + 1) * SIZE * SIZE)
        x = model_image(val.images[sl], image_codes(sess))
        (logits,) = sess.run(["logits"], {"image": x, "ruins": val.ruins[sl]})
        z = np.exp(logits - logits.max(1, keepdims=True))
        probs = z / z.sum(1, keepdims=True)
        layout = LAYOUTS[val.side[s]]
        probs = apply_layout_prior(probs, layout)
        pred = probs.argmax(1)
        truth = val.labels[sl]
        all_probs.append(probs)
        all_truth.append(truth)
        plain.append([layout.printed(divmod(i, SIZE)) is None for i in range(SIZE * SIZE)])
        np.add.at(confusion, (truth, pred), 1)
        wrong = int((pred != truth).sum())
        sheets_right += wrong == 0
        for d, key in ((by_style, val.style[s]), (by_diff, val.difficulty[s])):
            d.setdefault(key, [0, 0])
            d[key][0] += SIZE * SIZE - wrong
            d[key][1] += SIZE * SIZE
    tp = np.diag(confusion)
    per_class = {
        CLASSES[i]: {
            "precision": round(float(tp[i] / max(confusion[:, i].sum(), 1)), 5),
            "recall": round(float(tp[i] / max(confusion[i].sum(), 1)), 5),
            "support": int(confusion[i].sum()),
        }
        for i in range(k)
    }
    review = review_table(np.concatenate(all_probs), np.concatenate(all_truth), np.ravel(plain))
    return {
        "review_thresholds": review,
        "cells": int(confusion.sum()),
        "sheets": n_sheets,
        "cell_accuracy": round(float(tp.sum() / confusion.sum()), 5),
        "sheets_all_right": round(sheets_right / max(n_sheets, 1), 4),
        "per_class": per_class,
        "confusion": {"classes": CLASSES, "rows_truth_cols_predicted": confusion.tolist()},
        "per_style": {k2: round(a / b, 5) for k2, (a, b) in sorted(by_style.items())},
        "per_difficulty": {k2: round(a / b, 5) for k2, (a, b) in sorted(by_diff.items())},
    }


def _synth_version() -> str:
    from models import synth

    return str(getattr(synth, "VERSION", "?"))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train-sheets", type=int, default=1000, help="canonical views")
    ap.add_argument("--val-sheets", type=int, default=100)
    ap.add_argument("--steps", type=int, default=3300, help="phase 1 batches (views)")
    ap.add_argument("--fine-steps", type=int, default=2700, help="phase 2 batches (+ photos)")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3, help="phase 1 peak learning rate")
    ap.add_argument("--fine-lr", type=float, default=1.5e-3, help="phase 2 peak learning rate")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2, help="torch threads")
    ap.add_argument("--workers", type=int, default=2, help="rendering processes")
    ap.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="the .onnx file to write (metrics beside it)"
    )
    ap.add_argument(
        "--init", type=Path, help="start phase 1 from these weights (.pt, or an .onnx export)"
    )
    ap.add_argument("--mix-share", type=float, default=0.15, help="share of blended cells")
    ap.add_argument(
        "--augment-extra", type=float, default=0.0, help="turn/scale, faint ink, stroke width, JPEG"
    )
    ap.add_argument("--shadow-share", type=float, default=0.0, help="cells with a hard shadow")
    ap.add_argument(
        "--threshold-share",
        type=float,
        default=0.0,
        help="cells made black and white, as a scanner app's black-and-white mode does",
    )
    ap.add_argument("--first-seed", type=int, default=0, help="first training seed")
    ap.add_argument("--photo-sheets", type=int, default=800, help="photos read by the scanner")
    ap.add_argument(
        "--sparse-sheets", type=int, default=200, help="blank and part-played views (SPARSE_SEED..)"
    )
    ap.add_argument("--view-version", help="reuse views cached from this synthesis version")
    ap.add_argument(
        "--pool", choices=("mean", "flat"), help="last map -> features (default models.net.POOL)"
    )
    ap.add_argument(
        "--label-smoothing",
        type=float,
        default=0.02,
        help="share of each target spread over all classes (calibration)",
    )
    ap.add_argument(
        "--empty-ruins",
        type=float,
        default=1.0,
        help="sample ruins spaces left empty this many times more often",
    )
    ap.add_argument("--val-source", choices=("photo", "view"), default="photo")
    ap.add_argument(
        "--width", type=float, default=1.0, help="channels of every conv times this (models.net)"
    )
    ap.add_argument(
        "--first-pool",
        action="store_true",
        help="first conv at stride 1, then a 2x2 max-pool (models.net.first_pooled)",
    )
    ap.add_argument(
        "--input-px",
        type=int,
        default=INPUT_PX,
        help="side of the model's input image: the 96 px crops shrunk to this",
    )
    args = ap.parse_args(argv)
    if args.out.suffix != ".onnx":  # found out only at export, after the whole training
        ap.error(
            f"--out {args.out}: name the .onnx file to write (a folder or another suffix won't do)"
        )

    t0 = time.perf_counter()
    train_seeds = list(range(args.first_seed, args.first_seed + args.train_sheets))
    photo_seeds = list(range(args.first_seed, args.first_seed + args.photo_sheets))
    val_seeds = list(range(VALIDATION_SEED, VALIDATION_SEED + args.val_sheets))
    views = photos = None
    if args.train_sheets:
        views = cached_set(
            "train", train_seeds, args.workers, version=args.view_version, px=args.input_px
        )
    if args.sparse_sheets:
        sparse_seeds = list(range(SPARSE_SEED, SPARSE_SEED + args.sparse_sheets))
        sparse = cached_set("train", sparse_seeds, args.workers, source="sparse", px=args.input_px)
        views = concat([views, sparse]) if views is not None else sparse
    if args.photo_sheets:
        photos = cached_set("train", photo_seeds, args.workers, source="photo", px=args.input_px)
    val = cached_set("val", val_seeds, args.workers, source=args.val_source, px=args.input_px)
    t_data = time.perf_counter() - t0
    phases = []  # (name, data, steps, lr)
    if args.steps:
        phases.append(("views", views or photos, args.steps, args.lr))
    if args.fine_steps:
        both = concat([p for p in (views, photos) if p is not None])
        phases.append(("views+photos", both, args.fine_steps, args.fine_lr))
    data = concat([p for p in (views, photos) if p is not None])
    print(
        f"rendered {len(data.labels)} training and {len(val.labels)} validation cells "
        f"in {t_data:.0f} s; classes {np.bincount(data.labels, minlength=len(CLASSES))}"
    )
    from models.net import LAYERS, first_pooled, widened

    layers = widened(LAYERS, args.width)
    if args.first_pool:
        layers = first_pooled(layers)
    model, state = None, None
    for k, (name, part, steps, lr) in enumerate(phases):
        print(f"phase {k + 1}: {steps} batches on {name} ({len(part.labels)} cells), lr {lr}")
        model = train(
            part,
            val,
            steps,
            args.batch,
            lr,
            args.seed + k,
            args.threads,
            init=args.init if k == 0 else None,
            mix_share=args.mix_share,
            init_state=state,
            extra=args.augment_extra,
            shadow=args.shadow_share,
            threshold=args.threshold_share,
            pool=args.pool,
            label_smoothing=args.label_smoothing,
            layers=layers,
            empty_ruins=args.empty_ruins,
        )
        state = model.state_dict()

    import torch

    from models.net import export_onnx

    args.out.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(model, str(args.out), px=args.input_px)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    weights = CACHE_DIR / f"{args.out.stem}.pt"
    torch.save(model.state_dict(), weights)
    metrics = evaluate_onnx(args.out, val)
    metrics["training"] = {
        "train_view_sheets": args.train_sheets,
        "train_photo_sheets": args.photo_sheets,
        "train_sparse_sheets": args.sparse_sheets,
        "empty_ruins": args.empty_ruins,
        "train_sheets_kept": len(data.style),
        "first_seed": args.first_seed,
        "validation_source": args.val_source,
        "validation_sheets_kept": len(val.style),
        "init": str(args.init) if args.init else None,
        "synth_version": _synth_version(),
        "validation_seeds": [VALIDATION_SEED, VALIDATION_SEED + args.val_sheets - 1],
        "train_cells": int(len(data.labels)),
        "phases": [{"data": name, "steps": steps, "lr": lr} for name, _, steps, lr in phases],
        "batch": args.batch,
        "mix_share": args.mix_share,
        "augment_extra": args.augment_extra,
        "shadow_share": args.shadow_share,
        "threshold_share": args.threshold_share,
        "pool": model.pool,
        "input_px": args.input_px,
        "layers": [list(spec) if spec != "P" else spec for spec in layers],
        "label_smoothing": args.label_smoothing,
        "seed": args.seed,
        "render_seconds": round(t_data),
        "total_seconds": round(time.perf_counter() - t0),
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "model_bytes": args.out.stat().st_size,
    }
    metrics_path = args.out.with_suffix(".metrics.json")
    metrics_path.write_text(json.dumps(metrics, indent=1) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes), {metrics_path}, {weights}")
    from models.quantize import int8_path, quantize

    int8 = quantize(args.out, int8_path(args.out))
    print(f"wrote {int8} ({int8.stat().st_size} bytes), the 8-bit copy the scanner runs")
    print(
        f"validation cell accuracy {metrics['cell_accuracy']:.4%}, "
        f"sheets all right {metrics['sheets_all_right']:.1%}"
    )


if __name__ == "__main__":
    main()
