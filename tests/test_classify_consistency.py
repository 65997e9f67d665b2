"""Sheet consistency: a doubtful cell is re-scored by its likeness to the sheet's sure cells."""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

from models.onnx_outputs import add_features_output
from scanner import cell_model
from scanner.layout_prior import apply_layout_prior
from scanner.normalize import CLASSES, FEATURES_OUTPUT
from scanner.votes import PROTOTYPE_MIN_PROB, RESCORE_BELOW, sheet_consistency
from scoring.layouts import SIDE_A, SIZE, parse_space

F, W, EMPTY = CLASSES.index("F"), CLASSES.index("W"), CLASSES.index(".")


def _cell(name: str) -> int:
    r, c = parse_space(name)
    return r * SIZE + c


def _sheet(rng: np.random.Generator):
    """Side A: ten sure forests (features near axis 0), ten sure waters (axis 1), the rest
    sure empty cells (axis 2); every probability row sums to 1."""
    probs = np.full((SIZE * SIZE, len(CLASSES)), 0.01 / (len(CLASSES) - 1))
    probs[:, EMPTY] = 0.99
    feats = np.abs(rng.normal(0, 0.05, (SIZE * SIZE, 16)))
    feats[:, 2] += 1.0
    forests = [_cell(f"A{c}") for c in range(1, 11)]
    waters = [_cell(f"K{c}") for c in range(1, 11)]
    for cells, k, axis in ((forests, F, 0), (waters, W, 1)):
        probs[cells] = 0.01 / (len(CLASSES) - 1)
        probs[cells, k] = 0.99
        feats[cells, 2] -= 1.0
        feats[cells, axis] += 1.0
    return probs, feats


def _doubtful(probs, feats, name: str, p_forest: float, looks_like: int):
    """Make ``name`` a close call between forest and water that looks like ``looks_like``."""
    i = _cell(name)
    probs[i] = 0.0
    probs[i, F], probs[i, W] = p_forest, 1 - p_forest
    feats[i] = 0.0
    feats[i, looks_like] = 1.0
    return i


def test_a_close_call_goes_to_the_class_it_looks_like_on_this_sheet():
    rng = np.random.default_rng(0)
    probs, feats = _sheet(rng)
    i = _doubtful(probs, feats, "E6", p_forest=0.45, looks_like=0)  # model says water
    j = _doubtful(probs, feats, "G6", p_forest=0.55, looks_like=1)  # model says forest
    prior = apply_layout_prior(probs, SIDE_A)
    out = sheet_consistency(prior, feats, SIDE_A)
    assert out[i].argmax() == F and out[i, F] > 0.9
    assert out[j].argmax() == W and out[j, W] > 0.9
    np.testing.assert_allclose(out.sum(axis=1), 1.0)


def test_sure_cells_and_printed_terrain_are_left_alone():
    rng = np.random.default_rng(1)
    probs, feats = _sheet(rng)
    mountain = _cell("B4")  # printed on side A
    feats[mountain] = feats[_cell("A1")]  # looks exactly like a forest
    sure = _cell("E2")
    probs[sure] = 0.0
    probs[sure, W], probs[sure, EMPTY] = RESCORE_BELOW + 0.005, 1 - RESCORE_BELOW - 0.005
    feats[sure] = feats[_cell("A2")]  # a sure water that looks like a forest stays water
    prior = apply_layout_prior(probs, SIDE_A)
    out = sheet_consistency(prior, feats, SIDE_A)
    assert CLASSES[out[mountain].argmax()] == "^" and out[mountain].max() == 1.0
    np.testing.assert_array_equal(out[sure], prior[sure])
    plain = [i for i in range(SIZE * SIZE) if SIDE_A.printed(divmod(i, SIZE)) is None]
    assert out[plain][:, [CLASSES.index("^"), CLASSES.index("#")]].max() == 0.0


def test_without_sure_cells_of_a_class_nothing_is_invented():
    rng = np.random.default_rng(2)
    probs, feats = _sheet(rng)
    # No sure village on the sheet, so village has no prototype and is not penalised;
    # the doubtful cell looks like the sheet's waters, not its forests, so forest loses.
    i = _cell("E7")
    probs[i] = 0.0
    probs[i, F], probs[i, CLASSES.index("V")] = 0.4, 0.6
    feats[i] = feats[_cell("K1")]  # looks like the sheet's water, which it is not read as
    prior = apply_layout_prior(probs, SIDE_A)
    out = sheet_consistency(prior, feats, SIDE_A)
    assert out[i].argmax() == CLASSES.index("V")
    # Every cell doubtful: no prototypes, the probabilities come back unchanged.
    flat = apply_layout_prior(np.full_like(probs, 1 / len(CLASSES)), SIDE_A)
    assert PROTOTYPE_MIN_PROB > 1 / (len(CLASSES) - 2)
    np.testing.assert_array_equal(sheet_consistency(flat, feats, SIDE_A), flat)


def test_committed_model_exports_the_features_the_head_reads():
    sess = cell_model.model_session(cell_model.MODEL_PATH, 1)
    outputs = {o.name: o.shape for o in sess.get_outputs()}
    assert FEATURES_OUTPUT in outputs and outputs[FEATURES_OUTPUT][0] == "cells"
    model = onnx.load(str(cell_model.MODEL_PATH))
    head = next(i for i in model.graph.initializer if i.name == "head.weight")
    x = np.random.default_rng(3).integers(0, 256, (5, 48, 48, 3), np.uint8)  # 8-bit codes
    ruins = np.array([[0], [1], [0], [0], [1]], np.float32)
    logits, feats = sess.run(["logits", FEATURES_OUTPUT], {"image": x, "ruins": ruins})
    bias = next(i for i in model.graph.initializer if i.name == "head.bias")
    weight = onnx.numpy_helper.to_array(head)
    np.testing.assert_allclose(
        feats @ weight.T + onnx.numpy_helper.to_array(bias), logits, atol=1e-4
    )


def test_the_features_output_can_be_added_to_an_older_export(tmp_path: Path):
    model = onnx.load(str(cell_model.MODEL_PATH))
    keep = [o for o in model.graph.output if o.name != FEATURES_OUTPUT]
    del model.graph.output[:]
    model.graph.output.extend(keep)
    nodes = [n for n in model.graph.node if FEATURES_OUTPUT not in n.output]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    old = tmp_path / "old.onnx"
    onnx.save(model, str(old))
    assert [o.name for o in ort.InferenceSession(str(old)).get_outputs()] == ["logits"]
    assert add_features_output(old) is True
    assert add_features_output(old) is False
    names = [o.name for o in ort.InferenceSession(str(old)).get_outputs()]
    assert names == ["logits", FEATURES_OUTPUT]


def test_ruins_spaces_make_no_prototypes():
    """The printed ruins icon makes every ruins space look alike: sure readings there must
    not pull another ruins space towards their class."""
    rng = np.random.default_rng(4)
    probs, feats = _sheet(rng)
    ruins = [r * SIZE + c for r, c in SIDE_A.ruins]
    tree = CLASSES.index("T")
    for i in ruins[:-1]:  # five ruins spaces read as sure trees, all alike
        probs[i] = 0.0
        probs[i, tree], probs[i, EMPTY] = 0.99, 0.01
        feats[i] = 0.0
        feats[i, 3] = 1.0
    last = ruins[-1]  # the sixth: a close call, empty favoured, looking like the others
    probs[last] = 0.0
    probs[last, EMPTY], probs[last, tree] = 0.6, 0.4
    feats[last] = 0.0
    feats[last, 3] = 1.0
    out = sheet_consistency(apply_layout_prior(probs, SIDE_A), feats, SIDE_A)
    assert out[last].argmax() == EMPTY
