"""A filled-in sheet, flat: printed template + the game drawn on it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.synth.canvas import Canvas
from models.synth.draw import Style, add_habits, draw_game, random_style
from models.synth.game import Game, simulate_game
from models.synth.template import Printing, render_template
from models.synth.truth import written_numbers


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


def render_sheet(
    rng: np.random.Generator, ppc: float, side: str | None = None, style: str | None = None
) -> FlatSheet:
    """Simulate a game and draw it on a fresh printing at ``ppc`` pixels per cell.

    The drawing and the ruins icons' look use their own generator (seeded by one draw
    from ``rng``), so changing how players draw leaves the game and the camera of a
    seed as they were.
    """
    side = side or ("A" if rng.random() < 0.5 else "B")
    game = simulate_game(rng, side)
    st = random_style(rng, style)
    written = written_numbers(game)
    art = np.random.default_rng(int(rng.integers(2**63)))
    bgr, alpha, cv, pr = render_template(side, ppc, rng, ruins_rng=art)
    st = add_habits(st, art)
    drawn = draw_game(bgr, cv, pr, game, st, written, art)
    return FlatSheet(drawn, alpha, cv, pr, game, st, written)
