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
