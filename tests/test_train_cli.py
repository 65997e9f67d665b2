"""``python -m models.train``'s arguments are checked before anything is rendered or trained."""

from __future__ import annotations

import numpy as np
import pytest

from models import train
from models.cell_data import CellSet


def test_a_folder_as_out_is_refused_at_once(tmp_path, capsys):
    """Given a folder, the export used to fail only after the whole training."""
    with pytest.raises(SystemExit) as stop:
        train.main(["--out", str(tmp_path), "--train-sheets", "1", "--steps", "1"])
    assert stop.value.code == 2
    assert "name the .onnx file to write" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["pastel=2", "graphite=0", "graphite=-1", "graphite", "graphite=x"])
def test_style_weight_option_refuses_unknown_styles_and_weights(bad, capsys):
    with pytest.raises(SystemExit) as stop:
        train.main(["--style-weight", bad, "--out", "x.onnx"])
    assert stop.value.code == 2
    assert "--style-weight" in capsys.readouterr().err


class _Stop(Exception):
    pass


def _sets_asked(monkeypatch, args: list[str]) -> list[tuple[str, list[int]]]:
    """``(source, seeds)`` of every training set ``main`` asks ``cached_set`` for, sorted
    (it is stopped when it asks for the validation set; each set it gets is empty)."""
    asked = []

    def fake(kind, seeds, workers, source="view", **kw):
        if kind == "val":
            raise _Stop
        asked.append((source, list(seeds)))
        return CellSet(np.zeros((0, 48, 48, 3), np.uint8), *(np.zeros(0, int),) * 3, [], [], [])

    monkeypatch.setattr(train, "cached_set", fake)
    with pytest.raises(_Stop):
        train.main(["--out", "x.onnx", *args])
    return sorted(asked)


def test_sparse_views_start_at_sparse_seed_by_default_and_where_asked(monkeypatch):
    """Runs on new --first-seed seeds used to reuse the same blank and part-played views."""

    def sparse_seeds(args: list[str]) -> list[list[int]]:
        asked = _sets_asked(monkeypatch, ["--train-sheets", "0", "--sparse-sheets", "3", *args])
        return [seeds for source, seeds in asked if source == "sparse"]

    assert sparse_seeds([]) == [[train.SPARSE_SEED + k for k in range(3)]]
    assert sparse_seeds(["--sparse-seed", "610000"]) == [[610000, 610001, 610002]]


def test_first_seed_given_twice_trains_on_both_ranges(monkeypatch):
    """Two cached sets of training seeds can be trained on together (session 59's run)."""
    args = ["--train-sheets", "2", "--photo-sheets", "1", "--sparse-sheets", "1"]
    assert _sets_asked(monkeypatch, [*args, "--first-seed", "30000", "--first-seed", "40000"]) == [
        ("photo", [30000]),
        ("photo", [40000]),
        ("sparse", [train.SPARSE_SEED]),
        ("view", [30000, 30001]),
        ("view", [40000, 40001]),
    ]
    assert _sets_asked(monkeypatch, args) == [
        ("photo", [0]),
        ("sparse", [train.SPARSE_SEED]),
        ("view", [0, 1]),
    ]


def test_neighbour_monsters_reach_every_training_set_and_not_the_validation_photos(monkeypatch):
    asked = {}

    def fake(kind, seeds, workers, source="view", **kw):
        asked[(kind, source)] = kw.get("neighbour", 0.0)
        if kind == "val":
            raise _Stop
        return CellSet(np.zeros((0, 48, 48, 3), np.uint8), *(np.zeros(0, int),) * 3, [], [], [])

    monkeypatch.setattr(train, "cached_set", fake)
    with pytest.raises(_Stop):
        train.main(["--out", "x.onnx", "--train-sheets", "1", "--photo-sheets", "1",
                    "--sparse-sheets", "1", "--neighbour-monsters", "0.5"])  # fmt: skip
    assert asked == {
        ("train", "view"): 0.5,
        ("train", "photo"): 0.5,
        ("train", "sparse"): 0.5,
        ("val", "photo"): 0.0,
    }


@pytest.mark.parametrize("share", ["-0.5", "2"])
def test_a_neighbour_share_outside_zero_to_one_is_refused(share, capsys):
    with pytest.raises(SystemExit) as stop:
        train.main(["--neighbour-monsters", share, "--out", "x.onnx"])
    assert stop.value.code == 2
    assert "--neighbour-monsters" in capsys.readouterr().err
