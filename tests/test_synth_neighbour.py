"""Monsters drawn by a neighbour: in a game of several players each ambush card passes
every map to a neighbour, who "draws the depicted Shape on their neighbor's Map, then
fill[s] it with the Monster Terrain type" (the published rules' "Ambush Revealed"), in
their own hand. ``neighbour_monsters`` renders such sheets."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from models.synth import make_view
from models.synth.draw import STYLES, draw_game, random_style
from models.synth.game import simulate_game
from models.synth.sheet import neighbour_hand, render_sheet
from models.synth.template import render_template
from models.synth.truth import written_numbers
from scoring.board import MONSTER

PURPLE = (140, 50, 120)  # BGR: a purple coloured pencil


def _game_with_monsters(side: str = "A"):
    for seed in range(50):
        rng = np.random.default_rng(seed)
        game = simulate_game(rng, side)
        if sum(row.count(MONSTER) for row in game.grid) >= 4:
            return rng, game
    raise AssertionError("no simulated game with monsters")


def _ink_colour_spread(drawn: np.ndarray, blank: np.ndarray, cv, cells) -> float:
    """How unevenly the ink over the middle of ``cells`` lets the three colour channels
    through, in per cent (grey graphite dims them alike, a coloured pencil does not)."""
    through = (drawn.astype(np.float32) + 1) / (blank.astype(np.float32) + 1)
    means = []
    for r, c in cells:
        x0, y0 = cv.px((c + 0.15, r + 0.15)).astype(int)
        x1, y1 = cv.px((c + 0.85, r + 0.85)).astype(int)
        means.append(through[y0:y1, x0:x1].reshape(-1, 3).mean(0))
    mean = np.mean(means, axis=0)
    return float(100 * (mean.max() - mean.min()))


def test_a_neighbour_draws_the_monsters_in_their_own_hand_and_no_other_cell():
    rng, game = _game_with_monsters()
    owner = random_style(np.random.default_rng(1), "graphite")  # grey, every terrain
    neighbour = random_style(np.random.default_rng(2), "pencil-hatch")  # coloured fills
    neighbour = replace(neighbour, colours={**neighbour.colours, MONSTER: PURPLE})
    blank, _, cv, pr = render_template(game.side, 40, rng)
    written = written_numbers(game)
    own = draw_game(blank, cv, pr, game, owner, written, np.random.default_rng(5))
    passed = draw_game(
        blank, cv, pr, game, owner, written, np.random.default_rng(5), monster_style=neighbour
    )
    monsters = [(r, c) for r in range(11) for c in range(11) if game.grid[r][c] == MONSTER]
    drawn = [(r, c) for r in range(11) for c in range(11) if game.grid[r][c] in "TVFW"]
    # The neighbour's coloured pencil fills the monster cells; graphite leaves them grey.
    assert _ink_colour_spread(own, blank, cv, monsters) < 1
    assert _ink_colour_spread(passed, blank, cv, monsters) > 5
    # The owner's own cells stay graphite grey either way.
    assert _ink_colour_spread(passed, blank, cv, drawn) < 1


def test_the_game_and_the_camera_of_a_seed_do_not_depend_on_who_drew_the_monsters():
    _, alone = make_view(7950003, "normal")
    _, passed = make_view(7950003, "normal", neighbour_monsters=1.0)
    assert passed["grid"] == alone["grid"]
    assert passed["coins"] == alone["coins"]
    assert passed["lattice"] == alone["lattice"]
    assert passed["style"] == alone["style"]
    assert alone["monsters_by"] == "owner" and alone["monster_style"] == alone["style"]
    assert passed["monsters_by"] == "neighbour" and passed["monster_style"] in STYLES


def test_no_neighbour_by_default_and_the_chance_is_a_share_of_sheets():
    assert neighbour_hand(np.random.default_rng(0), 0.0) is None
    hands = [neighbour_hand(np.random.default_rng(s), 0.5) for s in range(300)]
    share = sum(h is not None for h in hands) / len(hands)
    assert 0.4 < share < 0.6
    assert len({h.name for h in hands if h is not None}) == len(STYLES)


def test_neighbour_hand_leaves_the_owner_s_generator_where_it_was():
    a, b = np.random.default_rng(11), np.random.default_rng(11)
    neighbour_hand(a, 1.0)
    assert a.random() == b.random()


@pytest.mark.parametrize("chance", [-0.1, 1.5])
def test_a_chance_outside_zero_to_one_is_refused(chance):
    with pytest.raises(ValueError, match="neighbour_monsters"):
        render_sheet(np.random.default_rng(0), 20, neighbour_monsters=chance)


def test_training_cells_of_a_neighbour_s_monsters_keep_their_labels_and_cache_apart(
    tmp_path, monkeypatch
):
    from models import cell_data

    monkeypatch.setattr(cell_data, "CACHE_DIR", tmp_path)
    seeds = [7960000, 7960001, 7960002]
    alone = cell_data.cached_set("t", seeds, 1, difficulty="normal")
    passed = cell_data.cached_set("t", seeds, 1, difficulty="normal", neighbour=1.0)
    assert len(list(tmp_path.glob("t-nb1-*.npz"))) == 1
    assert len(list(tmp_path.glob("t-*.npz"))) == 2
    assert np.array_equal(alone.labels, passed.labels)
    monsters = alone.labels == cell_data.CLASSES.index(MONSTER)
    assert monsters.any()
    assert not np.array_equal(alone.images[monsters], passed.images[monsters])
