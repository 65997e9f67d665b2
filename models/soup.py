"""Average the weights of several exports of one net: a "model soup" (onnx only, no torch).

``python -m models.soup OUT.onnx MODEL.onnx MODEL.onnx [...]`` writes the float model whose
every weight is the mean of the given models' (Wortsman et al., 2022, "Model soups"), and
beside it the 8-bit copy the scanner runs (:func:`models.quantize.quantize`) and a metrics
file as ``models.train`` writes one (measured on the same validation photos), whose
``soup`` entry lists the ingredients with their own metrics files' ``training`` entries.

It makes sense for fine-tunes of one starting model (``python -m models.train --init``):
they stay near each other, so their mean is a model too, and it often reads better than
any of them. The exports' batch norms are folded into their convolutions, so the mean is
taken of the folded weights; measure the soup like any other model before trusting it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def soup(sources: list[Path], out: Path) -> Path:
    """Write to ``out`` the first model with every float weight replaced by the mean over
    ``sources``; returns ``out``.

    Raises ValueError when fewer than two models are given or when they are not exports of
    one net (the same weights by name, shape and type).
    """
    import onnx
    from onnx import numpy_helper

    if len(sources) < 2:
        raise ValueError("a soup needs at least two models")
    models = [onnx.load(str(p)) for p in sources]
    base = models[0]
    weights = [{t.name: t for t in m.graph.initializer} for m in models]
    for path, w in zip(sources[1:], weights[1:], strict=True):
        if w.keys() != weights[0].keys():
            raise ValueError(f"{path}: not an export of the same net as {sources[0]} (weights)")
    for t in base.graph.initializer:
        arrays = [numpy_helper.to_array(w[t.name]) for w in weights]
        if any(a.shape != arrays[0].shape or a.dtype != arrays[0].dtype for a in arrays):
            raise ValueError(f"{t.name}: the models' weights differ in shape or type")
        if not np.issubdtype(arrays[0].dtype, np.floating):
            continue  # shapes and indices are the same in every export
        mean = np.mean(np.stack(arrays), axis=0, dtype=np.float64).astype(arrays[0].dtype)
        t.CopyFrom(numpy_helper.from_array(mean, t.name))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(base, str(out))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the .onnx file to write (its 8-bit copy beside it)")
    ap.add_argument("models", type=Path, nargs="+", help="float exports of the same net")
    ap.add_argument("--val-sheets", type=int, default=100, help="as models.train's")
    ap.add_argument("--workers", type=int, default=2, help="rendering processes (uncached)")
    args = ap.parse_args(argv)
    if args.out.suffix != ".onnx":
        ap.error(f"{args.out}: name the .onnx file to write")
    try:
        soup(args.models, args.out)
    except (ValueError, OSError) as e:
        ap.error(str(e))
    from models.cell_data import VALIDATION_SEED, cached_set
    from models.quantize import int8_path, quantize
    from models.train import evaluate_onnx

    seeds = list(range(VALIDATION_SEED, VALIDATION_SEED + args.val_sheets))
    metrics = evaluate_onnx(args.out, cached_set("val", seeds, args.workers, source="photo"))
    metrics["soup"] = [{"model": str(p), "training": _training_of(p)} for p in args.models]
    metrics_path = args.out.with_suffix(".metrics.json")
    metrics_path.write_text(json.dumps(metrics, indent=1) + "\n")
    int8 = quantize(args.out, int8_path(args.out))
    print(f"wrote {args.out}, {metrics_path} and {int8}")
    print(f"validation cell accuracy {metrics['cell_accuracy']:.4%}")


def _training_of(model: Path) -> dict | None:
    """The ``training`` entry of the metrics file beside ``model``, if there is one."""
    path = Path(model).with_suffix(".metrics.json")
    return json.loads(path.read_text()).get("training") if path.exists() else None


if __name__ == "__main__":
    main()
