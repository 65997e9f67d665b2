"""benchmarks/measure_cells.py: ``--neighbour-monsters`` renders and counts what it says."""

from benchmarks.measure_cells import measure_one
from models.synth import make_view


def _seed_with_monsters(first: int = 7960000) -> int:
    for seed in range(first, first + 40):
        _, truth = make_view(seed, "normal")
        if "".join(truth["grid"]).count("M") >= 3:
            return seed
    raise AssertionError("no seed with monsters")


def test_a_neighbour_share_of_one_renders_every_sheet_s_monsters_in_a_neighbour_s_hand():
    seed = _seed_with_monsters()
    _, truth = make_view(seed, "normal")
    monsters = "".join(truth["grid"]).count("M")
    for share, hand in ((0.0, "owner"), (1.0, "neighbour")):
        (row,) = measure_one((seed, "normal", "view", False, [None], None, share))
        assert "failed" not in row
        assert row["monsters_by"] == hand
        assert row["monster_cells"] == monsters
        assert 0 <= row["monster_cells_misread"] <= monsters
        assert row["monster_cells_misread_flagged"] <= row["monster_cells_misread"]


def test_a_spec_without_a_path_is_the_committed_model_with_steps_left_out():
    from pathlib import Path

    from benchmarks.measure_cells import model_spec, resolve_spec, steps_left_out

    assert model_spec("!context") == (None, None)
    assert model_spec("@0.6,0.2!context") == (None, (0.6, 0.2))
    assert steps_left_out("!context!shapes") == {"context", "shapes"}
    assert resolve_spec("!context") == "!context"  # not the working folder's path
    resolved = resolve_spec("m.onnx@0.6,0.2!context")
    assert resolved == str(Path("m.onnx").resolve()) + "@0.6,0.2!context"


def test_use_model_leaves_out_the_spec_s_steps_and_restores_them():
    from benchmarks import measure_cells
    from benchmarks.measure_cells import use_model
    from scanner import cell_model, classify

    committed, original = cell_model.MODEL_PATH, classify.classify_cells
    try:
        use_model("!context")
        assert classify.classify_cells.keywords == {"mirror": False, "context": False}
        assert cell_model.MODEL_PATH == committed
        use_model(None)
        assert classify.classify_cells.keywords == {"mirror": False}
    finally:
        cell_model.MODEL_PATH, classify.classify_cells = committed, original
        measure_cells._CLASSIFY_CELLS = None
