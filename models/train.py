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
part-played sheets (seeds ``SPARSE_SEED..``, or from ``--sparse-seed``). A 200-sheet run
with the previous step counts (2200 + 1800) validated at 95.7 % of cells against 96.1 %
without them; with 3300 + 2700 steps it validates at 96.3 %. ``--empty-ruins K`` (1 by
default) samples ruins spaces left empty K times more often (:func:`_sampling_weights`);
the committed model's two runs used 4 (with 800 sparse sheets) and 8 (with 200),
docs/figures.md session 21. ``--style-weight STYLE=W`` samples one drawing style's cells W
times as often (session 60's graphite and minimal x2 was not kept).

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
383 -> 367 / 347); docs/history.md has the table. The augmentations are in
:mod:`models.augment`.

Data: ``models.synth.make_view(seed, difficulty)`` renders a sheet already in the
canonical rectified view; ``scanner.cells.cut_cells`` cuts its 121 crops and
``scanner.normalize.balance_sheet`` shrinks and white-balances them -- the very
functions the scanner runs. Training seeds are ``0..N-1``; validation seeds start at
``VALIDATION_SEED`` and are never trained on. Everything is seeded, so a run is
repeatable (up to torch's CPU kernels' float ordering). The data is in
:mod:`models.cell_data`.

Writes the ONNX model and, beside it, ``<name>.metrics.json``: per-class precision and
recall, the confusion matrix, accuracy per style and difficulty of the exported model
alone (onnxruntime and the layout prior, :func:`evaluate_onnx`) on the validation
sheets' crops; the scanner's later reading steps (:func:`scanner.classify.classify_cells`)
are measured by ``benchmarks/measure_cells.py``.
"""

from __future__ import annotations

import argparse
import json
import time
from functools import partial
from pathlib import Path

import numpy as np

from models.augment import augment
from models.cell_data import (
    CACHE_DIR,
    SPARSE_SEED,
    VALIDATION_SEED,
    CellSet,
    cached_set,
    concat,
    synth_version,
)
from models.synth.draw import STYLES
from scanner.normalize import CLASSES, INPUT_PX, model_image, to_tensor
from scoring.layouts import LAYOUTS, SIZE

DEFAULT_OUT = Path(__file__).resolve().parent / "cells.onnx"


# --- training -------------------------------------------------------------------------


def _joined(parts: list[CellSet]) -> CellSet | None:
    """The cell sets as one, the set itself when there is one, None when there is none."""
    if len(parts) > 1:
        return concat(parts)
    return parts[0] if parts else None


def _sampling_weights(
    data: CellSet, empty_ruins: float = 1.0, style_weights: dict[str, float] | None = None
) -> np.ndarray:
    """Oversample ruins cells (3x) and rare classes (up to 3x), as FIELD-NOTES suggests.

    ``empty_ruins`` multiplies once more the weight of ruins spaces left empty: the bare
    printed icon is rare on finished sheets (about 7 % of their ruins spaces) and the
    thing real photos' ruins are most often misread on. ``style_weights`` multiplies the
    weight of every cell drawn in a style (e.g. ``{"graphite": 2.0}``; others keep 1).
    """
    counts = np.bincount(data.labels, minlength=len(CLASSES)).astype(np.float64)
    per_class = np.clip((counts.max() / np.maximum(counts, 1)) ** 0.5, 1, 3)
    on_ruins = data.ruins[:, 0] > 0
    w = per_class[data.labels] * np.where(on_ruins, 3.0, 1.0)
    w *= np.where(on_ruins & (data.labels == CLASSES.index(".")), empty_ruins, 1.0)
    if style_weights:
        per_sheet = np.array([style_weights.get(s, 1.0) for s in data.style], np.float64)
        w *= per_sheet[data.sheet]
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
    style_weights: dict[str, float] | None = None,
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
    included. ``empty_ruins`` and ``style_weights`` are :func:`_sampling_weights`'s.
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
    weights = _sampling_weights(data, empty_ruins, style_weights)
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
    from scanner.softmax import softmax

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
        probs = softmax(logits, axis=1)
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


def _style_weight(text: str) -> tuple[str, float]:
    """``--style-weight``'s ``STYLE=W``: a drawing style and a positive weight."""
    style, _, weight = text.partition("=")
    if style not in STYLES:
        raise argparse.ArgumentTypeError(f"{style!r} is not a style ({', '.join(STYLES)})")
    try:
        w = float(weight)
    except ValueError:
        w = 0.0
    if not w > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: the weight after '=' must be a number > 0")
    return style, w


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
    ap.add_argument(
        "--first-seed",
        type=int,
        action="append",
        help="first training seed (default 0); given again, the views and photos of each "
        "range are rendered (or taken from the cache) and trained on together",
    )
    ap.add_argument("--photo-sheets", type=int, default=800, help="photos read by the scanner")
    ap.add_argument(
        "--sparse-sheets", type=int, default=200, help="blank and part-played views (SPARSE_SEED..)"
    )
    ap.add_argument(
        "--sparse-seed",
        type=int,
        default=SPARSE_SEED,
        help="first blank/part-played seed (a run on new --first-seed seeds wants new ones too)",
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
    ap.add_argument(
        "--style-weight",
        type=_style_weight,
        action="append",
        metavar="STYLE=W",
        help="sample the cells drawn in STYLE W times as often (repeatable; "
        f"styles: {', '.join(STYLES)})",
    )
    ap.add_argument(
        "--neighbour-monsters",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of training sheets whose monsters a neighbour drew (models.synth); "
        "the validation photos stay as they are",
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
    args.style_weight = dict(args.style_weight or [])
    if not 0.0 <= args.neighbour_monsters <= 1.0:
        ap.error(f"--neighbour-monsters {args.neighbour_monsters}: a share from 0 to 1")
    if args.out.suffix != ".onnx":  # found out only at export, after the whole training
        ap.error(
            f"--out {args.out}: name the .onnx file to write (a folder or another suffix won't do)"
        )

    t0 = time.perf_counter()
    first_seeds = args.first_seed or [0]
    val_seeds = list(range(VALIDATION_SEED, VALIDATION_SEED + args.val_sheets))
    view_parts, photo_parts = [], []
    training_set = partial(
        cached_set,
        "train",
        workers=args.workers,
        px=args.input_px,
        neighbour=args.neighbour_monsters,
    )
    for first in first_seeds:
        if args.train_sheets:
            seeds = list(range(first, first + args.train_sheets))
            view_parts.append(training_set(seeds, version=args.view_version))
        if args.photo_sheets:
            seeds = list(range(first, first + args.photo_sheets))
            photo_parts.append(training_set(seeds, source="photo"))
    if args.sparse_sheets:
        sparse_seeds = list(range(args.sparse_seed, args.sparse_seed + args.sparse_sheets))
        view_parts.append(training_set(sparse_seeds, source="sparse"))
    # Each kind joined once (a single part is taken as it is, not copied).
    views = _joined(view_parts)
    photos = _joined(photo_parts)
    del view_parts, photo_parts
    val = cached_set("val", val_seeds, args.workers, source=args.val_source, px=args.input_px)
    t_data = time.perf_counter() - t0
    # One joined copy serves the second phase and the counts (two were 6.4 GB more at
    # 4000 views and 2000 photos, and ran a 24 GB machine out of memory).
    data = concat([p for p in (views, photos) if p is not None])
    phases = []  # (name, data, steps, lr)
    if args.steps:
        phases.append(("views", views or photos, args.steps, args.lr))
    if args.fine_steps:
        phases.append(("views+photos", data, args.fine_steps, args.fine_lr))
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
            style_weights=args.style_weight,
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
        "sparse_seed": args.sparse_seed,
        "empty_ruins": args.empty_ruins,
        "style_weights": args.style_weight or None,
        "neighbour_monsters": args.neighbour_monsters,
        "train_sheets_kept": len(data.style),
        "first_seed": first_seeds[0] if len(first_seeds) == 1 else first_seeds,
        "validation_source": args.val_source,
        "validation_sheets_kept": len(val.style),
        "init": str(args.init) if args.init else None,
        "synth_version": synth_version(),
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
