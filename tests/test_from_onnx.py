"""Training can go on from an ONNX export whose torch weights are gone (models.from_onnx)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the [train] extra
ort = pytest.importorskip("onnxruntime")

from models.from_onnx import state_from_onnx  # noqa: E402
from models.net import LAYERS, POOL, CellNet, export_onnx  # noqa: E402
from scanner.cell_model import MODEL_PATH  # noqa: E402
from scanner.normalize import IMAGE_INPUT, INPUT_PX, RUINS_INPUT, to_tensor  # noqa: E402

SMALL = ((8, 2), (12, 1), "P", (16, 1))


def _cells(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (n, INPUT_PX, INPUT_PX, 3), np.uint8)


def _onnx_logits(path, cells: np.ndarray, ruins: np.ndarray) -> np.ndarray:
    sess = ort.InferenceSession(str(path))
    return sess.run(["logits"], {IMAGE_INPUT: to_tensor(cells), RUINS_INPUT: ruins})[0]


def _torch_logits(net, cells: np.ndarray, ruins: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return net(torch.from_numpy(to_tensor(cells)), torch.from_numpy(ruins)).numpy()


@pytest.mark.parametrize("pool", ["mean", "flat"])
def test_a_rebuilt_net_computes_the_export(tmp_path, pool):
    torch.manual_seed(3)
    net = CellNet(SMALL, pool=pool)
    for m in net.modules():  # batch norms that are not the identity
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    export_onnx(net, str(tmp_path / "net.onnx"))
    calibration = _cells(64, 1)
    rebuilt = CellNet(SMALL, pool=pool)
    rebuilt.load_state_dict(state_from_onnx(tmp_path / "net.onnx", SMALL, pool, calibration))
    cells, ruins = _cells(6, 2), np.array([[0], [1], [0], [1], [0], [1]], np.float32)
    expected = _onnx_logits(tmp_path / "net.onnx", cells, ruins)
    np.testing.assert_allclose(_torch_logits(rebuilt.eval(), cells, ruins), expected, atol=1e-4)
    # In training mode on the calibration cells the batch norms undo themselves.
    ruins64 = np.zeros((64, 1), np.float32)
    rebuilt.train()
    rebuilt.dropout.p = 0.0
    np.testing.assert_allclose(
        _torch_logits(rebuilt, calibration, ruins64),
        _onnx_logits(tmp_path / "net.onnx", calibration, ruins64),
        atol=1e-3,
    )


def test_the_committed_model_can_be_trained_on():
    onnx_path = MODEL_PATH.with_name("cells.onnx")
    net = CellNet(LAYERS, pool=POOL)
    net.load_state_dict(state_from_onnx(onnx_path, LAYERS, POOL, _cells(32, 4)))
    cells, ruins = _cells(8, 5), np.ones((8, 1), np.float32)
    np.testing.assert_allclose(
        _torch_logits(net.eval(), cells, ruins), _onnx_logits(onnx_path, cells, ruins), atol=1e-3
    )


def test_a_net_of_another_shape_is_refused(tmp_path):
    export_onnx(CellNet(SMALL).eval(), str(tmp_path / "net.onnx"))
    with pytest.raises(ValueError, match="convolutions"):
        state_from_onnx(tmp_path / "net.onnx", SMALL + ("P", (16, 1)), POOL, _cells(4, 6))
