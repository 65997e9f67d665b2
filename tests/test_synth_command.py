"""`run_synth`: the files it writes are deterministic and carry the right labels."""

from __future__ import annotations

import json

import numpy as np
import pytest

from models.synth import make_view
from models.synth.command import difficulty_of, run_synth
from scanner.cells import cut_cells


def test_cell_mode_writes_the_view_crops_with_their_labels(tmp_path):
    run_synth(tmp_path / "a", n=2, seed=40, difficulty="normal", cells=True)
    run_synth(tmp_path / "b", n=2, seed=40, difficulty="normal", cells=True)
    for seed in (40, 41):
        a = np.load(tmp_path / "a" / f"cells-{seed}.npz")
        b = np.load(tmp_path / "b" / f"cells-{seed}.npz")
        view, truth = make_view(seed, "normal")
        assert np.array_equal(a["crops"], b["crops"])
        assert np.array_equal(a["crops"], cut_cells(view))
        assert "".join(a["labels"]) == "".join(truth["grid"])
        assert str(a["side"]) == truth["side"]
        assert int(a["ruins"].sum()) == 6
    index = json.loads((tmp_path / "a" / "index.json").read_text())
    assert [item["seed"] for item in index] == [40, 41]


def test_photo_mode_is_deterministic(tmp_path):
    run_synth(tmp_path / "a", n=1, seed=9, difficulty="clean")
    run_synth(tmp_path / "b", n=1, seed=9, difficulty="clean")
    a, b = tmp_path / "a" / "photo-9.jpg", tmp_path / "b" / "photo-9.jpg"
    assert a.read_bytes() == b.read_bytes()
    truth = json.loads(a.with_suffix(".json").read_text())
    assert truth["difficulty"] == "clean" and truth["seed"] == 9


def test_mixed_difficulty_is_a_fixed_mix():
    picks = [difficulty_of(s, "mixed") for s in range(300)]
    assert picks == [difficulty_of(s, "mixed") for s in range(300)]
    for d in ("clean", "normal", "hard"):
        assert 0.1 < picks.count(d) / len(picks) < 0.65
    assert difficulty_of(3, "easy") == "clean"
    with pytest.raises(ValueError):
        difficulty_of(3, "medium")


def test_committed_sample_photos_carry_consistent_truth():
    from pathlib import Path

    from PIL import Image, ImageOps

    from scoring.board import Map
    from scoring.game import score_game
    from scoring.layouts import LAYOUTS

    root = Path(__file__).resolve().parents[1] / "samples" / "photos"
    photos = sorted(root.glob("*.jpg"))
    assert 1 <= len(photos) <= 6
    assert sum(p.stat().st_size for p in root.iterdir()) <= 2_000_000
    assert {json.loads(p.with_suffix(".json").read_text())["side"] for p in photos} == {"A", "B"}
    for photo in photos:
        truth = json.loads(photo.with_suffix(".json").read_text())
        with Image.open(photo) as im:
            assert list(ImageOps.exif_transpose(im).size) == truth["image_size"], photo.name
        maps = [Map(tuple(g), LAYOUTS[truth["side"]]) for g in truth["season_grids"]]
        result = score_game(maps, truth["cards"], truth["season_coins"])
        assert result.total == truth["written"]["total"], photo.name


def test_committed_samples_are_what_their_seeds_render(tmp_path):
    """The sample names carry their seed; the truth must still come out of it (re-render
    the samples when the synthesis changes)."""
    from pathlib import Path

    from models.synth import write_sample

    root = Path(__file__).resolve().parents[1] / "samples" / "photos"
    for photo in sorted(root.glob("synth-*.jpg")):
        seed = int(photo.stem.split("-")[1])
        truth = write_sample(tmp_path / photo.name, seed, "normal", quality=85)
        assert truth == json.loads(photo.with_suffix(".json").read_text()), photo.name


def test_a_second_run_into_a_folder_keeps_the_first_runs_files_in_its_index(tmp_path):
    run_synth(tmp_path, n=2, seed=40, difficulty="normal", cells=True)
    run_synth(tmp_path, n=1, seed=41, difficulty="normal", cells=True)  # 41 again
    run_synth(tmp_path, n=1, seed=50, difficulty="normal", cells=True)
    (tmp_path / "cells-40.npz").unlink()  # gone: no longer listed
    run_synth(tmp_path, n=1, seed=60, difficulty="normal", cells=True)
    index = json.loads((tmp_path / "index.json").read_text())
    assert [item["seed"] for item in index] == [41, 50, 60]


@pytest.mark.parametrize(
    "args, says",
    [
        (["--n", "-1"], "error: --n takes 0 or more, got -1"),
        (["--seed", "-1"], "error: --seed takes 0 or more, got -1"),
        (["--difficulty", "medium"], "error: --difficulty takes clean, normal, hard or mixed"),
        (
            ["--neighbour-monsters", "1.5"],
            "error: --neighbour-monsters takes a share from 0 to 1, got 1.5",
        ),
    ],
)
def test_bad_synth_options_are_one_line_and_exit_2(tmp_path, args, says):
    from tests.cli_fixtures import run

    res = run("synth", "--out", str(tmp_path / "out"), *args)
    assert res.exit_code == 2 and res.stderr.startswith(says)
    assert len(res.stderr.splitlines()) == 1 and not (tmp_path / "out").exists()


def test_synth_can_render_games_of_several_players_whose_neighbours_drew_the_monsters(tmp_path):
    from tests.cli_fixtures import run

    for share, hand in (("0", "owner"), ("1", "neighbour")):
        out = tmp_path / share
        res = run("synth", "--out", str(out), "--n", "2", "--seed", "40", "--cells",
                  "--neighbour-monsters", share)  # fmt: skip
        assert res.exit_code == 0, res.stderr
        index = json.loads((out / "index.json").read_text())
        assert [item["monsters_by"] for item in index] == [hand, hand]
    # The games are the same; the monsters are drawn otherwise.
    with_monsters = 0
    for seed in (40, 41):
        alone, passed = (np.load(tmp_path / s / f"cells-{seed}.npz") for s in ("0", "1"))
        assert np.array_equal(alone["labels"], passed["labels"])
        monsters = alone["labels"] == "M"
        if monsters.any():
            with_monsters += 1
            assert not np.array_equal(alone["crops"][monsters], passed["crops"][monsters])
    assert with_monsters


def test_synth_into_a_file_or_an_impossible_folder_is_one_line(tmp_path):
    from tests.cli_fixtures import run

    taken = tmp_path / "taken"
    taken.write_text("not a folder\n")
    res = run("synth", "--out", str(taken), "--n", "1")
    assert res.exit_code == 2 and res.stderr == f"error: --out {taken}: is a file; give a folder\n"
    res = run("synth", "--out", str(taken / "below"), "--n", "1")
    assert res.exit_code == 2 and len(res.stderr.splitlines()) == 1
    assert res.stderr.startswith(f"error: --out {taken / 'below'}: cannot make this folder: ")
