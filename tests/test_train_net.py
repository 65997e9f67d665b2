"""The cell network (models.net, training only): shapes, both poolings, the ONNX export."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the [train] extra

from models.net import LAYERS, CellNet, export_onnx, first_pooled, output_side  # noqa: E402
from scanner.normalize import CLASSES, FEATURES_OUTPUT, INPUT_PX  # noqa: E402


def test_output_side_is_the_last_conv_maps_side():
    for layers in (LAYERS, ((8, 2), "P", (8, 1)), ((8, 1), (8, 2), "P", "P")):
        net = CellNet(layers).eval()
        maps = net.features(torch.zeros(1, 3, INPUT_PX, INPUT_PX))
        assert maps.shape[-1] == maps.shape[-2] == output_side(layers)


def test_first_pooled_sees_a_one_pixel_shift_the_stride_two_conv_can_miss():
    """--first-pool: the first conv runs at every pixel, then a 2x2 max-pool; the maps
    after it have the stride-2 conv's size, so every later layer is unchanged."""
    layers = first_pooled(LAYERS)
    assert layers[:2] == ((LAYERS[0][0], 1), "P") and layers[2:] == LAYERS[1:]
    assert output_side(layers) == output_side(LAYERS)
    # A one-pixel-wide vertical line on odd columns only: a stride-2 conv whose kernel
    # reads only its centre column (one-hot weight) never samples those columns.
    line = torch.zeros(1, 3, INPUT_PX, INPUT_PX)
    line[..., 1::4] = 1.0
    for spec, expect_seen in ((LAYERS, False), (layers, True)):
        conv = CellNet(spec).features[0]
        with torch.no_grad():
            conv.weight.zero_()
            conv.weight[:, :, 1, 1] = 1.0
            seen = torch.nn.functional.conv2d(line, conv.weight, stride=conv.stride, padding=1)
        assert bool(seen.abs().sum() > 0) == expect_seen
    with pytest.raises(ValueError):
        first_pooled(layers)  # already at stride 1


@pytest.mark.parametrize("pool", ["mean", "flat"])
def test_both_poolings_give_logits_and_features_per_cell(pool):
    net = CellNet(pool=pool).eval()
    x = torch.rand(5, 3, INPUT_PX, INPUT_PX)
    ruins = torch.tensor([[0.0], [1.0], [0.0], [1.0], [0.0]])
    with torch.no_grad():
        logits = net(x, ruins)
        feats = net.embed(x, ruins)
    assert logits.shape == (5, len(CLASSES))
    assert feats.shape == (5, LAYERS[-1][0])
    # The head reads the features (no dropout in eval mode).
    torch.testing.assert_close(net.head(feats), logits)


def test_mean_pooling_keeps_the_committed_weights_layout():
    """Weights saved before the pooling option existed still load into the default net."""
    keys = set(CellNet().state_dict())
    assert not any(k.startswith("squeeze.") for k in keys)
    assert {k for k in CellNet(pool="flat").state_dict()} - keys == {
        "squeeze.weight",
        "squeeze.bias",
    }


def test_flat_pooling_sees_where_in_the_cell_the_ink_is():
    """Mean pooling of the last map cannot tell ink in the middle from the same ink moved
    to the margin when the receptive fields see both alike; the flat read-out has a
    weight per place. Checked on the read-out alone with a constructed map."""
    net = CellNet(pool="flat").eval()
    side = output_side()
    middle = torch.zeros(1, LAYERS[-1][0], side, side)
    middle[0, :, side // 2, side // 2] = 1.0
    corner = torch.zeros_like(middle)
    corner[0, :, 0, 0] = 1.0
    assert middle.mean() == corner.mean()
    assert not torch.allclose(net.squeeze(middle.flatten(1)), net.squeeze(corner.flatten(1)))


def test_pool_must_be_known():
    with pytest.raises(ValueError):
        CellNet(pool="max")


@pytest.mark.parametrize("pool", ["mean", "flat"])
def test_export_matches_torch_and_exports_the_features_the_head_reads(pool, tmp_path: Path):
    import onnxruntime as ort

    torch.manual_seed(0)
    net = CellNet(pool=pool)
    path = tmp_path / "net.onnx"
    export_onnx(net, str(path))
    x = np.random.default_rng(1).random((3, 3, INPUT_PX, INPUT_PX), np.float32)
    ruins = np.array([[0], [1], [0]], np.float32)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    logits, feats = sess.run(["logits", FEATURES_OUTPUT], {"image": x, "ruins": ruins})
    with torch.no_grad():
        want = net(torch.from_numpy(x), torch.from_numpy(ruins)).numpy()
        want_feats = net.embed(torch.from_numpy(x), torch.from_numpy(ruins)).numpy()
    np.testing.assert_allclose(logits, want, atol=1e-4)
    np.testing.assert_allclose(feats, want_feats, atol=1e-4)


def test_a_model_exported_at_another_input_size_is_read_at_that_size(tmp_path: Path):
    """`models.train --input-px 64` exports a net reading 64 px cells; the scanner shrinks
    the 96 px crops to what the model's ONNX input says, not to the default 48."""
    from scanner import cell_model
    from scanner.normalize import CROP_PX, model_inputs
    from scoring.layouts import SIDE_A

    torch.manual_seed(0)
    net = CellNet()
    path = tmp_path / "net64.onnx"
    export_onnx(net, str(path), px=64)
    sess = cell_model.model_session(path)
    assert cell_model.input_px(sess) == 64
    assert cell_model.input_px(cell_model.model_session()) == INPUT_PX  # the committed model
    crops = np.random.default_rng(2).integers(0, 256, (121, CROP_PX, CROP_PX, 3), np.uint8)
    feed = model_inputs(crops, SIDE_A, 64)
    assert feed["image"].shape == (121, 3, 64, 64)
    with torch.no_grad():
        want = net(torch.from_numpy(feed["image"]), torch.from_numpy(feed["ruins"]))
    probs = cell_model.predict_probabilities(crops, SIDE_A, model=path)
    np.testing.assert_allclose(probs, torch.softmax(want.double(), 1).numpy(), atol=1e-4)
