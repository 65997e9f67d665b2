"""Train the sheet-context model (:mod:`scanner.context`) and export it to ONNX.

``python -m models.train_context`` reads rendered sheets the committed cell model never
trained on (views and scanned photos of seeds 30,000+ and 40,000+, synthesis 29; the
same cached sets as session 32's and 33's fine-tunes, rendered if missing), runs the
committed 8-bit cell model (``models/cells.int8.onnx``) on each sheet, and trains
:class:`models.context_net.ContextNet` to re-read the terrain of every drawn cell from
the cell model's outputs for the whole sheet. Writes ``models/context.onnx`` and
``models/context.metrics.json`` (drawn cells whose terrain the plain argmax and the
context read wrong on the validation photos, seeds 1,000,000+).

The context model is tied to the cell model whose features it reads (the export
carries that file's SHA-256, :func:`models.context_net.stamp`): retrain it whenever
``models/cells.int8.onnx`` changes; until then the scanner leaves the step out.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from models.cell_data import CACHE_DIR, VALIDATION_SEED, CellSet, cached_set
from scanner.cell_model import MODEL_PATH, image_codes, model_input_px
from scanner.context import N_FEATURES, TERRAINS, drawn_terrain, printed_kinds
from scanner.normalize import (
    CLASSES,
    FEATURES_OUTPUT,
    IMAGE_INPUT,
    RUINS_INPUT,
    model_image,
    ruins_flags,
)
from scanner.softmax import softmax
from scoring.layouts import LAYOUTS, SIZE

DEFAULT_OUT = Path(__file__).resolve().parent / "context.onnx"
#: First seeds of the training players: 2000 views and 1000 scanned photos from each.
TRAIN_SEEDS = (30_000, 40_000)
VIEWS, PHOTOS = 2000, 1000


def sheet_arrays(data: CellSet, model: Path = MODEL_PATH) -> dict[str, np.ndarray]:
    """Per sheet: the cell model's logits and features, the labels, printed kinds, side."""
    import onnxruntime as ort

    sess = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    codes = image_codes(sess)
    n = len(data.side)
    out = {
        "logits": np.zeros((n, SIZE * SIZE, len(CLASSES)), np.float32),
        "features": np.zeros((n, SIZE * SIZE, N_FEATURES), np.float32),
        "labels": np.zeros((n, SIZE * SIZE), np.int64),
        "printed": np.zeros((n, SIZE * SIZE), np.int64),
        "side": np.array([s == "B" for s in data.side], np.int64),
    }
    starts = np.searchsorted(data.sheet, np.arange(n))
    for i, side in enumerate(data.side):
        cells = slice(starts[i], starts[i] + SIZE * SIZE)
        layout = LAYOUTS[side]
        image = model_image(data.images[cells], codes)
        feed = {IMAGE_INPUT: image, RUINS_INPUT: ruins_flags(layout)}
        out["logits"][i], out["features"][i] = sess.run(["logits", FEATURES_OUTPUT], feed)
        out["labels"][i] = data.labels[cells]
        out["printed"][i] = printed_kinds(layout)
    return out


def terrain_errors(logits: np.ndarray, arrays: dict[str, np.ndarray]) -> int:
    """Drawn free cells whose terrain the logits' argmax among the five gets wrong."""
    labels = arrays["labels"]
    read = logits[..., TERRAINS].argmax(-1) + TERRAINS.start
    return int((read != labels)[drawn_terrain(labels, arrays["printed"])].sum())


def train(
    arrays: dict,
    val: dict,
    steps: int,
    seed: int,
    width: int,
    layers: int,
    positions: bool,
    feature_drop: float,
    threads: int,
    kind: str = "context",
):
    import torch

    from models.context_net import NETS, terrain_loss

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    t = {k: torch.from_numpy(v) for k, v in arrays.items()}
    v = {k: torch.from_numpy(a) for k, a in val.items()}
    net = NETS[kind](width, layers, positions=positions)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-3, total_steps=steps, pct_start=0.1)
    gen = torch.Generator().manual_seed(seed)
    n = len(t["side"])
    for step in range(steps):
        i = torch.randint(0, n, (64,), generator=gen)
        log_probs = torch.log_softmax(t["logits"][i], -1)
        features = t["features"][i]
        keep = torch.rand(features.shape, generator=gen) > feature_drop
        features = features * keep / (1 - feature_drop)
        out = net(log_probs, features, t["printed"][i], t["side"][i])
        loss = terrain_loss(out, t["labels"][i], t["printed"][i])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if (step + 1) % 500 == 0 or step + 1 == steps:
            net.eval()
            with torch.no_grad():
                lp = torch.log_softmax(v["logits"], -1)
                read = net(lp, v["features"], v["printed"], v["side"]).numpy()
            net.train()
            print(
                f"{step + 1} loss {loss.item():.4f} val terrain errors {terrain_errors(read, val)}"
            )
    return net


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--first-seeds",
        type=int,
        nargs="+",
        default=list(TRAIN_SEEDS),
        help="first seed of each range of training players (2000 views, 1000 photos each)",
    )
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0],
        help="train one net per torch seed, in turn, and export the mean of their logits",
    )
    ap.add_argument(
        "--mean",
        type=Path,
        nargs="+",
        help="train nothing: export the mean of these saved nets (.pt, same --width etc.)",
    )
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument(
        "--positions", action="store_true", help="add row/column embeddings (not the default)"
    )
    ap.add_argument("--feature-drop", type=float, default=0.2)
    ap.add_argument(
        "--net",
        choices=("context", "votes"),
        default="context",
        help="votes: a cell's own features only choose which cells it hears (VoteNet)",
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2, help="rendering processes (cache misses)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument(
        "--cells",
        type=Path,
        default=MODEL_PATH,
        help="the 8-bit cell model whose outputs to learn from (default the committed one)",
    )
    ap.add_argument(
        "--synth-version",
        help="read the sheets cached from this synthesis version (default the current one)",
    )
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    px = model_input_px(args.cells)  # the cells as the cell model reads them
    cache = {"px": px, "version": args.synth_version}  # which cached rendering to read
    parts = []  # each set's cells are read one set at a time: the crops are GBs, these MBs
    for first in [] if args.mean else args.first_seeds:
        views = cached_set("train", list(range(first, first + VIEWS)), args.workers, **cache)
        parts.append(sheet_arrays(views, args.cells))
        photo_seeds = list(range(first, first + PHOTOS))
        photos = cached_set("train", photo_seeds, args.workers, source="photo", **cache)
        parts.append(sheet_arrays(photos, args.cells))
        del views, photos
    arrays = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]} if parts else {}
    val_seeds = list(range(VALIDATION_SEED, VALIDATION_SEED + 100))
    val = sheet_arrays(
        cached_set("val", val_seeds, args.workers, source="photo", **cache), args.cells
    )
    print(
        f"{len(arrays.get('side', ()))} training sheets, {len(val['side'])} validation sheets "
        f"({time.perf_counter() - t0:.0f} s)"
    )
    import torch

    from models.context_net import NETS, ContextMean, export_context_onnx

    nets = []
    for path in args.mean or []:
        net = NETS[args.net](args.width, args.layers, positions=args.positions)
        net.load_state_dict(torch.load(path))
        nets.append(net)
    for seed in [] if args.mean else args.seeds:
        net = train(
            arrays,
            val,
            args.steps,
            seed,
            args.width,
            args.layers,
            args.positions,
            args.feature_drop,
            args.threads,
            args.net,
        )
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        torch.save(net.state_dict(), CACHE_DIR / f"{args.out.stem}-seed{seed}.pt")
        nets.append(net)
    export_context_onnx(nets[0] if len(nets) == 1 else ContextMean(nets), str(args.out), args.cells)
    from scanner.context import context_logits

    read = np.stack(
        [
            context_logits(
                softmax(val["logits"][i].astype(np.float64), axis=1),
                val["features"][i],
                LAYOUTS["AB"[val["side"][i]]],
                args.out,
            )
            for i in range(len(val["side"]))
        ]
    )
    metrics = {
        "validation_sheets": len(val["side"]),
        "drawn_cells": int(drawn_terrain(val["labels"], val["printed"]).sum()),
        "terrain_errors_cell_model": terrain_errors(val["logits"], val),
        "terrain_errors_with_context": terrain_errors(read, val),
        "training": {
            "first_seeds": args.first_seeds,
            "steps": args.steps,
            "seeds": args.seeds if not args.mean else None,
            "mean_of": [str(p) for p in args.mean] if args.mean else None,
            "width": args.width,
            "layers": args.layers,
            "positions": args.positions,
            "net": args.net,
            "cell_model": args.cells.name,
            "feature_drop": args.feature_drop,
            "minutes": round((time.perf_counter() - t0) / 60, 1),
        },
    }
    args.out.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    print(json.dumps(metrics))


if __name__ == "__main__":
    main()
