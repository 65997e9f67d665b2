"""The 8-bit cell model the scanner runs answers as the trained float model does."""

from functools import cache
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

from models.quantize import FLOAT_MODEL, INT8_MODEL, code_input, int8_path, quantize
from scanner import cell_model
from scanner.cells import cut_cells
from scanner.normalize import (
    CLASSES,
    FEATURES_OUTPUT,
    IMAGE_INPUT,
    RUINS_INPUT,
    balance_sheet,
    ink_codes,
    model_image,
    ruins_flags,
    to_tensor,
)
from scanner.softmax import softmax
from scoring.layouts import LAYOUTS

# Rendered with seeds far from the training (0..), calibration (0..23) and validation ranges.
SEEDS = ((4_000_011, "normal"), (4_000_012, "hard"), (4_000_013, "clean"))


@cache
def _cells() -> tuple[np.ndarray, np.ndarray]:
    """The rendered sheets' balanced crops and ruins flags."""
    from models import synth

    images, ruins = [], []
    for seed, difficulty in SEEDS:
        view, truth = synth.make_view(seed, difficulty)
        images.append(balance_sheet(cut_cells(view)))
        ruins.append(ruins_flags(LAYOUTS[truth["side"]]))
    return np.concatenate(images), np.concatenate(ruins)


def _run(sess, images: np.ndarray, ruins: np.ndarray) -> list[np.ndarray]:
    """Logits and features, the image given as the model reads it (ink amounts or codes)."""
    feed = {IMAGE_INPUT: model_image(images, cell_model.image_codes(sess)), RUINS_INPUT: ruins}
    return sess.run(["logits", FEATURES_OUTPUT], feed)


@cache
def _outputs(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Class probabilities and features of the model file on the rendered cells (once each)."""
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    logits, features = _run(sess, *_cells())
    return softmax(logits, axis=1), features


def _agree(a: Path, b: Path) -> float:
    pa, pb = _outputs(a)[0], _outputs(b)[0]
    return float(np.mean(pa.argmax(axis=1) == pb.argmax(axis=1)))


def test_the_scanner_runs_the_committed_8_bit_copy():
    assert cell_model.MODEL_PATH == INT8_MODEL == int8_path(FLOAT_MODEL) and INT8_MODEL.is_file()
    model = onnx.load(str(INT8_MODEL))
    ops = [n.op_type for n in model.graph.node]
    assert "DequantizeLinear" in ops and "QuantizeLinear" in ops
    int8 = [i for i in model.graph.initializer if i.data_type == onnx.TensorProto.INT8]
    # Every convolution's weights are stored in 8 bits; the file is much smaller.
    assert len(int8) >= ops.count("Conv") > 0
    assert INT8_MODEL.stat().st_size < 0.5 * FLOAT_MODEL.stat().st_size


def test_the_committed_8_bit_copy_reads_as_the_float_model():
    # 99.7 % when written; a stale copy disagrees far more (session 12's longer-trained
    # candidate agrees with the committed float model on 97 % of these cells).
    assert _agree(FLOAT_MODEL, INT8_MODEL) >= 0.98
    probs, features = _outputs(INT8_MODEL)
    assert probs.shape == (len(SEEDS) * 121, len(CLASSES))
    assert features.dtype == np.float32 and np.isfinite(features).all()


def test_quantize_writes_a_model_that_agrees_with_its_source(tmp_path: Path):
    out = quantize(FLOAT_MODEL, tmp_path / "q.onnx", sheets=3)
    assert _agree(FLOAT_MODEL, out) >= 0.98
    names = [o.name for o in ort.InferenceSession(str(out)).get_outputs()]
    assert names == ["logits", FEATURES_OUTPUT]


def test_the_8_bit_copy_reads_codes_and_answers_exactly_as_from_ink_amounts(tmp_path: Path):
    inks = quantize(FLOAT_MODEL, tmp_path / "inks.onnx", sheets=3, codes=False)
    coded = tmp_path / "codes.onnx"
    coded.write_bytes(inks.read_bytes())
    code_input(coded)
    graph = onnx.load(str(coded)).graph
    (image,) = [i for i in graph.input if i.name == IMAGE_INPUT]
    assert image.type.tensor_type.elem_type == onnx.TensorProto.UINT8
    assert [d.dim_value for d in image.type.tensor_type.shape.dim][1:] == [48, 48, 3]
    assert "QuantizeLinear" not in [n.op_type for n in graph.node if IMAGE_INPUT in n.input]
    images, ruins = _cells()
    sessions = [
        ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]) for p in (inks, coded)
    ]
    assert cell_model.image_codes(sessions[0]) is None
    codes = cell_model.image_codes(sessions[1])
    # The lighter the grey, the less ink: black's code is the highest, paper's (224) lower.
    assert np.all(np.diff(codes.astype(int)) <= 0) and codes[0] > codes[224]
    for cells in (images, images[:, :, ::-1]):  # as read, and mirrored left-right
        for a, b in zip(
            _run(sessions[0], cells, ruins), _run(sessions[1], cells, ruins), strict=True
        ):
            np.testing.assert_array_equal(a, b)


def test_codes_are_what_onnxruntime_quantizes_the_ink_amounts_to():
    from onnx import helper, numpy_helper

    grey = np.repeat(np.arange(256, dtype=np.uint8).reshape(1, 1, 256, 1), 3, axis=3)
    ink = to_tensor(grey, bgr=False)[0, 0, 0]
    rng = np.random.default_rng(0)
    for scale, zero_point in [(0.004462371, 31)] + [
        (float(rng.uniform(0.002, 0.02)), int(rng.integers(0, 80))) for _ in range(50)
    ]:
        graph = helper.make_graph(
            [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
            "q",
            [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [256])],
            [helper.make_tensor_value_info("y", onnx.TensorProto.UINT8, [256])],
            [
                numpy_helper.from_array(np.array(scale, np.float32), "s"),
                numpy_helper.from_array(np.array(zero_point, np.uint8), "z"),
            ],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        expected = sess.run(None, {"x": ink})[0]
        np.testing.assert_array_equal(ink_codes(np.float32(scale), zero_point), expected)
