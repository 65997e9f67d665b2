"""``score --per-season``: the inputs are one sheet at the end of spring, summer, fall and
winter, in order, scored as one game; and the coins each sheet is scored with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.config import NO_CARDS
from scoring.game import SEASONS, GameResult, score_game

if TYPE_CHECKING:
    from app.inputs import LoadedInput

#: An input as read: its source, what was read (None when it failed) and the one-line
#: error (None when it was read).
Loaded = tuple[str, "LoadedInput | None", "str | None"]


def coins_for(
    override: list[int] | None, sheet_coins: int | None, season: int | None = None
) -> int | list[int]:
    """--coins (one number, or one per season) wins over the sheet's own count, else 0;
    with ``season`` (0 spring .. 3 winter: the sheet is that season's), its one count."""
    if override is None:
        return sheet_coins or 0
    if len(override) == 1:
        return override[0]
    return override if season is None else override[season]


@dataclass(frozen=True)
class SeasonInput:
    """One input: the sheet at the end of its season (its position among the inputs)."""

    source: str
    season: str  # "spring" .. "winter"
    loaded: LoadedInput | None  # what was read; None when it failed or has no score
    on_map: GameResult | None  # its own map scored, with its season's coins
    error: str | None  # why it has no score: it could not be read, or no cards


@dataclass(frozen=True)
class Seasons:
    """The inputs' seasons scored as one game."""

    inputs: list[SeasonInput]
    game: GameResult | None  # None when no input was read, or there are no cards
    cards: dict[str, str] | None  # given, else the first map file's ``cards:`` header
    headers_differ: bool  # no cards given, and the map files' headers name other deals
    left_out: bool  # the game leaves out the seasons of the inputs that failed

    @property
    def failed(self) -> bool:
        """Whether any input has no score."""
        return any(s.error is not None for s in self.inputs)


def score_seasons(
    loaded: Sequence[Loaded], cards: dict[str, str] | None, coins: list[int] | None
) -> Seasons:
    """Score ``loaded`` (1 to 4 inputs) as spring, summer, fall, winter of one sheet.

    ``cards``: given for every input, else the first map file's header's; ``coins``:
    ``--coins`` (:func:`coins_for`). An input that failed leaves its season out of the
    game; without cards none is scored (each input's error is :data:`NO_CARDS`).
    """
    good = [(i, item) for i, (_, item, error) in enumerate(loaded) if error is None]
    headers_differ = False
    if cards is None:
        headed = [item.cards for _, item in good if item.cards is not None]
        cards = headed[0] if headed else None
        headers_differ = any(c != cards for c in headed)
    game = None
    if good and cards is not None:
        # Seasons follow input positions, so a failed input leaves its season out.
        game = score_game(
            [item.sheet.map for _, item in good],
            cards,
            [coins_for(coins, item.sheet.coins, i) for i, item in good],
            per_season=True,
            season_numbers=[i for i, _ in good],
        )
    inputs = []
    for i, (source, item, error) in enumerate(loaded):
        season = SEASONS[i][0]
        if error is not None:
            inputs.append(SeasonInput(source, season, None, None, error))
        elif game is None:
            inputs.append(SeasonInput(source, season, None, None, NO_CARDS))
        else:
            on_map = score_game([item.sheet.map], cards, coins_for(coins, item.sheet.coins, i))
            inputs.append(SeasonInput(source, season, item, on_map, None))
    left_out = game is not None and len(good) < len(loaded)
    return Seasons(inputs, game, cards, headers_differ, left_out)
