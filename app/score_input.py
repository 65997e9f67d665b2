"""``score`` without ``--per-season``: each input scored on its own as a finished sheet,
with the cards given for every input or else those found with it (the per-season game
is :mod:`app.seasons`')."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.config import pick_cards
from app.seasons import coins_for
from scoring.game import GameResult, deal_warnings, score_game

if TYPE_CHECKING:
    from app.inputs import LoadedInput


@dataclass(frozen=True)
class ScoredInput:
    """An input's game, the cards it was scored with, and what to warn of on the way."""

    cards: dict[str, str]
    game: GameResult
    #: Each naming the input: its own cards (none were given for every input) are not one
    #: card a deck. Cards given for every input are warned of once, where they are given.
    warnings: tuple[str, ...]


def score_input(
    item: LoadedInput, given: dict[str, str] | None, coins: list[int] | None
) -> ScoredInput:
    """Score ``item`` as a finished sheet: with ``given`` (``--cards``, ``--cards-file``),
    else the cards found with it (:func:`app.config.pick_cards`: ValueError when there are
    none), and ``coins`` (``--coins``) over the sheet's own count (:func:`coins_for`)."""
    sheet = item.sheet
    cards = pick_cards(sheet.source, given, item.cards)
    odd = deal_warnings(cards) if given is None else []
    game = score_game([sheet.map], cards, coins_for(coins, sheet.coins))
    return ScoredInput(cards, game, tuple(f"{sheet.source}: {w}" for w in odd))
