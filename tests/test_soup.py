"""models.soup: the mean of several exports' weights, written as a model onnxruntime runs."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from models.soup import main, soup


def _linear(path, weight: np.ndarray, bias: np.ndarray, name: str = "w") -> str:
    """A one-layer ONNX model y = x @ weight.T + bias, saved at ``path``."""
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", name, "b"], ["y"], transB=1)],
        "linear",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, weight.shape[1]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, weight.shape[0]])],
        [numpy_helper.from_array(weight, name), numpy_helper.from_array(bias, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, str(path))
    return str(path)


def _run(path, x: np.ndarray) -> np.ndarray:
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[
        0
    ]


def test_soup_runs_as_the_model_with_the_mean_weights(tmp_path):
    rng = np.random.default_rng(0)
    ws = [rng.normal(size=(3, 4)).astype(np.float32) for _ in range(3)]
    bs = [rng.normal(size=3).astype(np.float32) for _ in range(3)]
    paths = [
        _linear(tmp_path / f"m{k}.onnx", w, b) for k, (w, b) in enumerate(zip(ws, bs, strict=True))
    ]
    out = soup(paths, tmp_path / "soup.onnx")
    x = rng.normal(size=(1, 4)).astype(np.float32)
    want = x @ np.mean(ws, axis=0).T + np.mean(bs, axis=0)
    assert np.allclose(_run(out, x), want, atol=1e-5)
    # Not simply one of the ingredients.
    assert not np.allclose(_run(out, x), _run(paths[0], x), atol=1e-3)


def test_soup_of_one_model_with_itself_is_that_model(tmp_path):
    rng = np.random.default_rng(1)
    w, b = rng.normal(size=(2, 5)).astype(np.float32), rng.normal(size=2).astype(np.float32)
    one = _linear(tmp_path / "one.onnx", w, b)
    out = soup([one, one], tmp_path / "same.onnx")
    x = rng.normal(size=(1, 5)).astype(np.float32)
    assert np.array_equal(_run(out, x), _run(one, x))


def test_soup_refuses_one_model_and_different_nets(tmp_path):
    w, b = np.ones((2, 3), np.float32), np.zeros(2, np.float32)
    one = _linear(tmp_path / "one.onnx", w, b)
    renamed = _linear(tmp_path / "renamed.onnx", w, b, name="other")
    wider = _linear(tmp_path / "wider.onnx", np.ones((2, 4), np.float32), b)
    with pytest.raises(ValueError, match="at least two"):
        soup([one], tmp_path / "x.onnx")
    with pytest.raises(ValueError, match="same net"):
        soup([one, renamed], tmp_path / "x.onnx")
    with pytest.raises(ValueError, match="shape"):
        soup([one, wider], tmp_path / "x.onnx")


def test_soup_command_wants_an_onnx_file_to_write(tmp_path, capsys):
    one = _linear(tmp_path / "one.onnx", np.ones((2, 3), np.float32), np.zeros(2, np.float32))
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "outdir"), one, one])
    assert stop.value.code == 2
    assert "name the .onnx file" in capsys.readouterr().err
    assert not (tmp_path / "outdir").exists()
