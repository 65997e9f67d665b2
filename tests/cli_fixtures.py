"""A stand-in cell model for the CLI tests: ``tests/data/stand_in_cells.onnx``.

It has the committed model's inputs and outputs (``image`` (N, 3, 48, 48),
``ruins`` (N, 1) -> 8 logits) but random weights (mean colour -> logits): tests
that use it check the CLI's plumbing (JSON shape, overlays, review frames, files,
errors), never recognition, and it leaves many cells for review on purpose.
The file is committed (the ``onnx`` package is not a test dependency);
``python -m tests.cli_fixtures`` writes it again.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from cli import app as cli_app

# Shared by the CLI test modules.
ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "samples" / "wilderness-a.txt")
DEAL = "sentinel-wood,canal-lake,great-city,borderlands"
runner = CliRunner()


def run(*args: str):
    """Invoke the cartoscore CLI in-process (typer's runner) with ``args``."""
    return runner.invoke(cli_app, list(args))


STAND_IN_MODEL = Path(__file__).resolve().parent / "data" / "stand_in_cells.onnx"


def write_stand_in_model(path: Path) -> Path:
    """A tiny ONNX graph with the cell model's interface (mean colour -> random logits)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weights = (rng.normal(size=(4, 8)) * 3).astype(np.float32)
    nodes = [
        helper.make_node("GlobalAveragePool", ["image"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("Concat", ["flat", "ruins"], ["features"], axis=1),
        helper.make_node("Gemm", ["features", "W", "b"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes,
        "stand_in_cells",
        [
            helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 48, 48]),
            helper.make_tensor_value_info("ruins", TensorProto.FLOAT, ["N", 1]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 8])],
        [
            numpy_helper.from_array(weights, "W"),
            numpy_helper.from_array(np.zeros(8, np.float32), "b"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


if __name__ == "__main__":
    STAND_IN_MODEL.parent.mkdir(exist_ok=True)
    print(write_stand_in_model(STAND_IN_MODEL))
