"""A filled-in sheet, flat: printed template + the game drawn on it."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from models.synth.canvas import Canvas
from models.synth.draw import Style, add_habits, draw_game, random_style
from models.synth.game import Game, simulate_game
from models.synth.template import Printing, render_template
from models.synth.truth import written_numbers
from scoring.board import Map


@dataclass
class FlatSheet:
    """A drawn sheet on its canvas (``bgr`` + paper ``alpha``) and what it shows."""

    bgr: np.ndarray
    alpha: np.ndarray
    canvas: Canvas
    printing: Printing
    game: Game
    style: Style
    written: dict
    monster_style: Style | None = None  # a neighbour's hand drew the monsters


def stopped_game(game: Game, played: int) -> Game:
    """``game`` as its sheet looks after ``played`` seasons (0: a blank, unplayed sheet).

    Later seasons' grids and coins repeat the last played season's (or the empty map's).
    """
    if not 0 <= played <= len(game.season_grids):
        raise ValueError(f"played must be 0..{len(game.season_grids)}, got {played}")
    if played == len(game.season_grids):
        return game
    last = game.season_grids[played - 1] if played else Map.empty(game.layout).grid
    coins = game.season_coins[played - 1] if played else 0
    later = len(game.season_grids) - played
    return replace(
        game,
        placements=tuple(p for p in game.placements if p.season < played),
        season_grids=game.season_grids[:played] + (tuple(last),) * later,
        season_coins=game.season_coins[:played] + (coins,) * later,
    )


def render_sheet(
    rng: np.random.Generator,
    ppc: float,
    side: str | None = None,
    style: str | None = None,
    played: int = 4,
    neighbour_monsters: float = 0.0,
) -> FlatSheet:
    """Simulate a game and draw it on a fresh printing at ``ppc`` pixels per cell.

    The drawing and the ruins icons' look use their own generator (seeded by one draw
    from ``rng``), so changing how players draw leaves the game and the camera of a
    seed as they were. ``played`` below 4 draws the sheet as it stood after that many
    seasons (0: blank), with only those seasons' numbers written; ``rng`` still plays the
    whole game, so the printing and camera stay the seed's.

    ``neighbour_monsters``: the chance that the sheet comes from a game of several
    players, where each ambush card passes every map to a neighbour, who draws the
    monster shape on it in their own hand (:func:`neighbour_hand`). 0, the default,
    draws every sheet as a solo player's, as synthesis 29 does.
    """
    if not 0.0 <= neighbour_monsters <= 1.0:
        raise ValueError(f"neighbour_monsters must be in 0..1, got {neighbour_monsters}")
    side = side or ("A" if rng.random() < 0.5 else "B")
    game = stopped_game(simulate_game(rng, side), played)
    st = random_style(rng, style)
    written = written_numbers(game)
    if played < len(game.season_grids):
        seasons = written["seasons"][:played]
        written = {"seasons": seasons, "total": sum(x["total"] for x in seasons)} if played else {}
    art = np.random.default_rng(int(rng.integers(2**63)))
    bgr, alpha, cv, pr = render_template(side, ppc, rng, ruins_rng=art)
    st = add_habits(st, art)
    neighbour = neighbour_hand(art, neighbour_monsters)
    drawn = draw_game(bgr, cv, pr, game, st, written, art, monster_style=neighbour)
    return FlatSheet(drawn, alpha, cv, pr, game, st, written, monster_style=neighbour)


def neighbour_hand(art: np.random.Generator, chance: float) -> Style | None:
    """With probability ``chance``, another player's drawing habits, else None.

    Drawn from a generator spawned off ``art``'s seed, which leaves ``art``'s own draws
    as they were: with ``chance`` 0 a seed's sheet is drawn exactly as before, and with
    any chance the owner's habits and everything drawn before the first monster stay the
    seed's.
    """
    if chance <= 0.0:
        return None
    hands = np.random.default_rng(art.bit_generator.seed_seq.spawn(1)[0])
    if hands.random() >= chance:
        return None
    return add_habits(random_style(hands), hands)
