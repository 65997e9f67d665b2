"""A whole game: four seasons of two edicts, coins, monsters, total, solo rating.

RULES.md §2 and §4. Seasons score spring A+B, summer B+C, fall C+D, winter D+A,
each on the map as it stands at that season's end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scoring.board import EMPTY, MONSTER, Map
from scoring.cards import CARDS, DECKS, CardResult, find_card
from scoring.clusters import NEIGHBOURS
from scoring.i18n import counted, solo_title
from scoring.layouts import SIZE, Space, space_name

EDICTS = ("A", "B", "C", "D")
SEASONS: tuple[tuple[str, tuple[str, str], int], ...] = (
    ("spring", ("A", "B"), 8),
    ("summer", ("B", "C"), 8),
    ("fall", ("C", "D"), 7),
    ("winter", ("D", "A"), 6),
)
"""(season, the two edicts it scores, its time)."""
COIN_TRACK = 14


def monster_spaces(game_map: Map) -> frozenset[Space]:
    """Empty spaces (unfilled ruins included) adjacent to at least one monster."""
    grid = game_map.grid
    return frozenset(
        (r, c)
        for r in range(SIZE)
        for c in range(SIZE)
        if grid[r][c] == EMPTY and any(grid[i][j] == MONSTER for i, j in NEIGHBOURS[r][c])
    )


def monster_penalty(game_map: Map) -> int:
    """-1 per empty space adjacent to a monster, each space once (0 or negative)."""
    return -len(monster_spaces(game_map))


def surrounded_mountains(game_map: Map) -> frozenset[Space]:
    """Mountains whose 4 neighbours on the map are all filled: each earned a coin.

    RULES.md §2: "one [coin] when all four neighbours of a mountain become filled".
    Sides beyond the map edge need no filling (no printed mountain sits on the edge).
    """
    grid = game_map.grid
    return frozenset(
        (r, c)
        for r, c in game_map.layout.mountains
        if all(grid[i][j] != EMPTY for i, j in NEIGHBOURS[r][c])
    )


def coin_warnings(game_map: Map, coins: int) -> list[str]:
    """A note when fewer coins are marked than the map's surrounded mountains gave."""
    won = surrounded_mountains(game_map)
    if coins >= len(won):
        return []
    names = ", ".join(space_name(s) for s in sorted(won))
    one = len(won) == 1
    return [
        f"{counted(len(won), 'mountain')} {'is' if one else 'are'} surrounded ({names}), "
        f"{'a coin' if one else 'a coin each'}, "
        f"but only {counted(coins, 'coin')} {'is' if coins == 1 else 'are'} counted"
    ]


@dataclass(frozen=True)
class SeasonResult:
    """One season box: its two edicts' points, coins, monsters and total."""

    season: str
    edicts: tuple[str, str]
    edict_points: tuple[int, int]
    coins: int
    monsters: int
    total: int


@dataclass(frozen=True)
class SoloResult:
    """Solo rating: final score minus the four cards' solo numbers (RULES.md §4)."""

    card_sum: int
    rating: int

    @property
    def title_en(self) -> str | None:
        return solo_title(self.rating, "en")

    def title(self, lang: str = "en") -> str | None:
        """The title in ``lang`` (en, it, fr, es, zh), or None below -30."""
        return solo_title(self.rating, lang)


@dataclass(frozen=True)
class GameResult:
    """A scored game.

    ``card_points``/``card_results``/``monsters`` are on the last map given;
    ``solo`` is None when fewer than four seasons were scored.
    """

    cards: dict[str, str]
    seasons: list[SeasonResult]
    card_results: dict[str, CardResult]
    monsters: int
    total: int
    stars_lost_to_monsters: int
    solo: SoloResult | None
    one_map: bool
    """True when all the seasons were scored on a single (final) map."""

    @property
    def card_points(self) -> dict[str, int]:
        """Each edict's card points on the last map given."""
        return {e: r.points for e, r in self.card_results.items()}


class BadDeal(ValueError):
    """Not four cards, one under each edict A-D."""


def deal(cards: str | Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """The four cards under edicts A-D, by name or id -> edict letter -> card id.

    ``cards`` is a text of four separated by commas (``--cards``, a ``cards:`` header),
    four in edict order, or a mapping by edict letter in any case (a ``[cards]`` table).
    Raises :class:`BadDeal` when that is not four cards, one under each edict (a blank
    name in a text is none), and :class:`scoring.cards.UnknownCard` for a name that is
    no card. Each caller says the first in its own words.
    """
    if isinstance(cards, Mapping):
        names = by_edict(cards)
    elif isinstance(cards, str):
        names = [n.strip() for n in cards.split(",")]
    else:
        names = list(cards)
    blank = isinstance(cards, str) and not all(names)
    if blank or len(names) != len(EDICTS) or not all(isinstance(n, str) for n in names):
        raise BadDeal(f"give 4 cards (edicts A-D), got {cards!r}")
    return {e: find_card(n).id for e, n in zip(EDICTS, names, strict=True)}


def by_edict(cards: Mapping[str, object]) -> list:
    """The values of a mapping keyed by the edicts A-D (in any case, each once), in
    edict order; :class:`BadDeal` for any other keys."""
    upper = {k.upper(): v for k, v in cards.items()}
    if len(upper) != len(cards) or set(upper) != set(EDICTS):
        raise BadDeal(f"cards must be given for edicts A, B, C, D; got {sorted(cards)}")
    return [upper[e] for e in EDICTS]


def deal_warnings(cards: Mapping[str, str]) -> list[str]:
    """Warnings for a deal that is not one card from each deck (legal to score, but odd)."""
    decks = [CARDS[find_card(v).id].deck for v in cards.values()]
    warnings = []
    for deck in DECKS:
        n = decks.count(deck)
        if n != 1:
            warnings.append(f"the deal has {n} cards from the {deck} deck (expected 1)")
    return warnings


def score_game(
    maps: Sequence[Map],
    cards: Mapping[str, str],
    coins: int | Sequence[int] = 0,
    *,
    per_season: bool | None = None,
    season_numbers: Sequence[int] | None = None,
) -> GameResult:
    """Score the four seasons.

    Parameters
    ----------
    maps : 1 or 4 maps
        One map: every season is scored on it (a finished sheet). Four maps:
        season i on ``maps[i]``. With ``per_season=True`` 1 to 4 maps are the
        first seasons only (spring, summer, ...), and ``solo`` is None unless
        all four are given.
    cards : edict letter ("A".."D") -> card id or name
    coins : marked coins, one number for every season or one per scored season
    season_numbers : with ``per_season``, which season each map is (0 spring .. 3
        winter, increasing); default ``0, 1, ...``. Lets a caller leave out a season
        whose map is missing.

    Returns
    -------
    GameResult
    """
    if per_season is None:
        if len(maps) not in (1, 4):
            raise ValueError(f"give 1 map or 4 maps (one per season), not {len(maps)}")
        per_season = len(maps) == 4
    if not 1 <= len(maps) <= 4:
        raise ValueError(f"give 1 to 4 maps, not {len(maps)}")
    ids = deal(cards)
    n_seasons = len(maps) if per_season else 4
    season_maps = list(maps) if per_season else [maps[0]] * 4
    numbers = list(range(n_seasons))
    if season_numbers is not None:
        numbers = [int(i) for i in season_numbers]
        if not per_season or len(numbers) != n_seasons:
            raise ValueError("season_numbers needs per_season and one number per map")
        if numbers != sorted(set(numbers)) or not all(0 <= i < 4 for i in numbers):
            raise ValueError(f"season_numbers must increase within 0..3, got {numbers}")
    if isinstance(coins, int):
        season_coins = [coins] * n_seasons
    else:
        season_coins = [int(c) for c in coins]
        if len(season_coins) != n_seasons:
            raise ValueError(f"give one coin count or {n_seasons}, not {len(season_coins)}")
    for c in season_coins:
        if not 0 <= c <= COIN_TRACK:
            raise ValueError(f"coins must be 0..{COIN_TRACK}, got {c}")

    seasons: list[SeasonResult] = []
    cache: dict[int, tuple[dict[str, CardResult], int]] = {}
    for i in range(n_seasons):
        name, edicts, _time = SEASONS[numbers[i]]
        m = season_maps[i]
        if id(m) not in cache:
            results = {e: CARDS[ids[e]].score(m) for e in EDICTS}
            cache[id(m)] = (results, monster_penalty(m))
        results, monsters = cache[id(m)]
        pts = (results[edicts[0]].points, results[edicts[1]].points)
        total = pts[0] + pts[1] + season_coins[i] + monsters
        seasons.append(SeasonResult(name, edicts, pts, season_coins[i], monsters, total))

    last_results, last_monsters = cache[id(season_maps[n_seasons - 1])]
    total = sum(s.total for s in seasons)
    solo = None
    if n_seasons == 4:
        card_sum = sum(CARDS[ids[e]].solo for e in EDICTS)
        solo = SoloResult(card_sum, total - card_sum)
    return GameResult(
        cards=ids,
        seasons=seasons,
        card_results=last_results,
        monsters=last_monsters,
        total=total,
        stars_lost_to_monsters=-sum(s.monsters for s in seasons),
        solo=solo,
        one_map=not per_season,
    )
