"""What each cell listed for review would change: the total if it were its runner-up.

A report lists a dozen cells to check on a typical photo, and most of them change
nothing whatever they are. Re-scoring the game with each such cell read as its
runner-up tells a player which checks matter (and which ``--set`` would mend them).
Pure data and rules: no image libraries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scanner.sheet import Review
from scoring.board import DRAWN, EMPTY, Map
from scoring.game import score_game
from scoring.layouts import parse_space


@dataclass(frozen=True)
class IfRunnerUp:
    """The game total with one reviewed cell read as its runner-up instead."""

    space: str
    symbol: str
    total: int
    change: int  # ``total`` minus the total as read


def runner_up(review: Review, read: str) -> str | None:
    """The likeliest candidate other than what was read (None when there is none, or
    when it is not something a player draws)."""
    ranked = sorted(review.candidates.items(), key=lambda kv: -kv[1])
    for symbol, _ in ranked:
        if symbol != read:
            return symbol if symbol in DRAWN + EMPTY else None
    return None


def if_runner_up(
    game_map: Map,
    review: Sequence[Review],
    cards: Mapping[str, str],
    coins: int,
) -> dict[str, IfRunnerUp]:
    """Per reviewed space (its name), the total of the game scored on ``game_map`` alone
    (every season on it, as ``score`` does with one map) with that one cell read as its
    runner-up, everything else as read."""
    base = score_game([game_map], cards, coins).total
    out = {}
    for r in review:
        row, col = parse_space(r.space)
        symbol = runner_up(r, game_map.grid[row][col])
        if symbol is None:
            continue
        total = score_game([game_map.with_terrain((row, col), symbol)], cards, coins).total
        out[r.space] = IfRunnerUp(r.space, symbol, total, total - base)
    return out


def changing(effects: Mapping[str, IfRunnerUp]) -> int:
    """How many of the reviewed cells would change the total as their runner-up."""
    return sum(e.change != 0 for e in effects.values())
