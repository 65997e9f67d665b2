"""The numbers a player writes in the season boxes, from the project's own scoring rules."""

from __future__ import annotations

from models.synth.game import Game
from scoring.game import score_game


def written_numbers(game: Game) -> dict:
    """Per season ``card1, card2, coins, monsters, total`` and the final ``total``.

    Each season is scored on the map as it stood at that season's end, with the
    coins marked by then (RULES.md §2).
    """
    result = score_game(game.maps(), game.cards, list(game.season_coins))
    seasons = [
        {
            "card1": s.edict_points[0],
            "card2": s.edict_points[1],
            "coins": s.coins,
            "monsters": s.monsters,
            "total": s.total,
        }
        for s in result.seasons
    ]
    return {"seasons": seasons, "total": result.total}
