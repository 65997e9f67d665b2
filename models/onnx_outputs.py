"""Give an exported cell model its features output without retraining (onnx only, no torch).

``python -m models.onnx_outputs models/cells.onnx`` adds the output
:data:`scanner.normalize.FEATURES_OUTPUT` -- the pooled vector the classifier head reads,
which :func:`scanner.votes.sheet_consistency` compares across a sheet -- to a model
exported before :func:`models.net.export_onnx` wrote it. Weights and logits are untouched.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from scanner.normalize import FEATURES_OUTPUT


def head_input(graph: onnx.GraphProto) -> str:
    """Name of the tensor the final ``Gemm`` (the head, producing ``logits``) reads."""
    for node in graph.node:
        if "logits" in node.output and node.op_type == "Gemm":
            return node.input[0]
    raise ValueError("no Gemm node produces 'logits'")


def add_features_output(path: Path) -> bool:
    """Add the features output to the model file in place; False if it already has one."""
    model = onnx.load(str(path))
    graph = model.graph
    if any(o.name == FEATURES_OUTPUT for o in graph.output):
        return False
    width = next(i for i in graph.initializer if i.name == "head.weight").dims[1]
    if not any(FEATURES_OUTPUT in node.output for node in graph.node):
        graph.node.append(helper.make_node("Identity", [head_input(graph)], [FEATURES_OUTPUT]))
    graph.output.append(
        helper.make_tensor_value_info(FEATURES_OUTPUT, TensorProto.FLOAT, ["cells", width])
    )
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return True


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path)
    args = ap.parse_args(argv)
    print("added" if add_features_output(args.model) else "already there", args.model)


if __name__ == "__main__":
    main()
