"""A plausible solo game of Cartographers, played by a simple random policy.

The result says what a finished sheet holds: every placed shape (for drawing
outlines), the map at each season's end, marked coins per season, and the four
dealt scoring cards (one per deck, in random edict order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.board import EMPTY, FARM, FOREST, MONSTER, VILLAGE, WATER, Map
from scoring.cards import CARDS
from scoring.game import COIN_TRACK, monster_penalty
from scoring.layouts import LAYOUTS, SIZE, Layout

SEASON_TIME = (8, 8, 7, 6)
DECKS = {
    "forest": ("sentinel-wood", "greenbough", "treetower", "stoneside-forest"),
    "farm+water": ("canal-lake", "mages-valley", "the-golden-granary", "shoreside-expanse"),
    "village": ("wildholds", "great-city", "greengold-plains", "shieldgate"),
    "spatial": ("borderlands", "lost-barony", "the-broken-road", "the-cauldrons"),
}
MAX_COINS = COIN_TRACK  # the printed coin track


@dataclass(frozen=True)
class Option:
    cells: tuple[tuple[int, int], ...]
    terrains: str
    coin: bool = False


@dataclass(frozen=True)
class Card:
    name: str
    time: int
    options: tuple[Option, ...]
    ruins: bool = False  # the next shape must cover a ruins space
    monster: bool = False


def _o(cells, terrains, coin=False) -> Option:
    return Option(tuple(cells), terrains, coin)


EXPLORE = (
    Card(
        "great-river",
        1,
        (
            _o([(0, 0), (1, 0), (2, 0)], WATER, True),
            _o([(0, 2), (1, 1), (1, 2), (2, 0), (2, 1)], WATER),
        ),
    ),
    Card(
        "farmland",
        1,
        (_o([(0, 0), (1, 0)], FARM, True), _o([(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)], FARM)),
    ),
    Card(
        "hamlet",
        1,
        (
            _o([(0, 0), (1, 0), (1, 1)], VILLAGE, True),
            _o([(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)], VILLAGE),
        ),
    ),
    Card(
        "forgotten-forest",
        1,
        (_o([(0, 0), (1, 1)], FOREST, True), _o([(0, 0), (1, 0), (1, 1), (2, 1)], FOREST)),
    ),
    Card("hinterland-stream", 2, (_o([(0, 0), (0, 1), (0, 2), (1, 0), (2, 0)], FARM + WATER),)),
    Card("homestead", 2, (_o([(0, 0), (1, 0), (1, 1), (2, 0)], VILLAGE + FARM),)),
    Card("orchard", 2, (_o([(0, 0), (0, 1), (0, 2), (1, 2)], FOREST + FARM),)),
    Card("treetop-village", 2, (_o([(0, 2), (0, 3), (1, 0), (1, 1), (1, 2)], FOREST + VILLAGE),)),
    Card("marshlands", 2, (_o([(0, 0), (1, 0), (1, 1), (1, 2), (2, 0)], FOREST + WATER),)),
    Card("fishing-village", 2, (_o([(0, 0), (0, 1), (0, 2), (0, 3)], VILLAGE + WATER),)),
    Card("rift-lands", 0, (_o([(0, 0)], FOREST + VILLAGE + FARM + WATER + MONSTER),)),
    Card("temple-ruins", 0, (), ruins=True),
    Card("outpost-ruins", 0, (), ruins=True),
)
AMBUSH = (
    Card("goblin-attack", 0, (_o([(0, 0), (1, 1), (2, 2)], MONSTER),), monster=True),
    Card("bugbear-assault", 0, (_o([(0, 0), (0, 2), (1, 0), (1, 2)], MONSTER),), monster=True),
    Card("kobold-onslaught", 0, (_o([(0, 0), (1, 0), (1, 1), (2, 0)], MONSTER),), monster=True),
    Card("gnoll-raid", 0, (_o([(0, 0), (0, 1), (1, 0), (2, 0), (2, 1)], MONSTER),), monster=True),
)


@dataclass(frozen=True)
class Placement:
    """One drawn shape: its spaces, terrain, the season it was drawn in, whether it gave a coin."""

    cells: tuple[tuple[int, int], ...]
    terrain: str
    season: int
    coin: bool


@dataclass(frozen=True)
class Game:
    side: str
    placements: tuple[Placement, ...]
    season_grids: tuple[tuple[str, ...], ...]  # 4 x 11 strings
    season_coins: tuple[int, ...]  # coins marked at each season's end
    cards: dict[str, str]  # edict letter -> card id

    @property
    def grid(self) -> tuple[str, ...]:
        return self.season_grids[-1]

    @property
    def coins(self) -> int:
        return self.season_coins[-1]

    @property
    def layout(self) -> Layout:
        return LAYOUTS[self.side]

    def maps(self) -> list[Map]:
        return [Map(grid, self.layout) for grid in self.season_grids]


def orientations(cells) -> list[np.ndarray]:
    """The distinct rotations and flips of a shape, each normalised to start at (0, 0)."""
    base = np.array(cells)
    out, seen = [], set()
    for flip in (False, True):
        p = base * [1, -1] if flip else base
        for _ in range(4):
            p = np.stack([p[:, 1], -p[:, 0]], axis=1)
            q = p - p.min(axis=0)
            key = tuple(sorted(map(tuple, q)))
            if key not in seen:
                seen.add(key)
                out.append(q)
    return out


def simulate_game(rng: np.random.Generator, side: str, seasons: int = 4) -> Game:
    """Play ``seasons`` seasons with a random but sensible placement policy."""
    layout = LAYOUTS[side]
    grid = np.array([list(row) for row in Map.empty(layout).grid])
    ruins = np.zeros((SIZE, SIZE), bool)
    for r, c in layout.ruins:
        ruins[r, c] = True
    style = {  # per-player habits: cluster building, edge play, tidiness
        "cluster": rng.uniform(0.5, 3.0),
        "edge": rng.uniform(-0.5, 1.5),
        "compact": rng.uniform(0.0, 1.5),
        "fence": rng.uniform(0.3, 1.5),  # fill the spaces monsters threaten
        "skill": rng.uniform(0.2, 1.5),  # how much the edicts guide the placement
    }
    cards = _deal(rng)
    coins = 0
    mountains_done: set = set()
    placements: list[Placement] = []
    season_grids, season_coins = [], []
    ambush = list(rng.permutation(len(AMBUSH)))
    for season in range(seasons):
        deck = [EXPLORE[i] for i in rng.permutation(len(EXPLORE))]
        deck.insert(int(rng.integers(0, len(deck))), AMBUSH[ambush[season % len(AMBUSH)]])
        time, need_ruins = 0, False
        while time < SEASON_TIME[season] and deck:
            card = deck.pop(0)
            time += card.time
            if card.ruins:
                need_ruins = True
                continue
            choice = _play_card(rng, grid, ruins, card, need_ruins, style, cards, season, layout)
            if choice is None:
                continue
            spot, terrain, coin = choice
            need_ruins = False
            for r, c in spot:
                grid[r, c] = terrain
            if coin:
                coins += 1
            coins += _new_mountain_coins(grid, layout, mountains_done)
            coins = min(coins, MAX_COINS)
            placements.append(Placement(tuple(map(tuple, spot)), terrain, season, coin))
        season_grids.append(tuple("".join(row) for row in grid))
        season_coins.append(coins)
    return Game(side, tuple(placements), tuple(season_grids), tuple(season_coins), cards)


def _play_card(rng, grid, ruins, card, need_ruins, style, cards, season, layout):
    """Choose option, terrain and spot for an explore or ambush card; None if nothing fits.

    The best few spots by habit are weighed by what the edicts would score on the
    resulting map (this season's two in full, the others a little) and the monster
    penalty, scaled by the player's skill; a shape with a coin is worth a little more.
    """
    options = []
    for opt in card.options:
        for terrain in opt.terrains:
            for score, spot in _choose_spot(
                rng, grid, ruins, opt.cells, terrain, need_ruins, style
            ):
                options.append((score + 1.5 * opt.coin, spot, terrain, opt.coin))
    if not options:  # nowhere fits: a single space of any listed terrain (rift lands rule)
        terrains = "".join(o.terrains for o in card.options)
        terrain = terrains[int(rng.integers(len(terrains)))]
        found = _choose_spot(rng, grid, ruins, [(0, 0)], terrain, need_ruins, style, top=1)
        return None if not found else (found[0][1], terrain, False)
    if card.monster:
        best = max(options, key=lambda o: o[0])
        return best[1], best[2], best[3]
    options.sort(key=lambda o: -o[0])
    options = options[:10]
    current = ("AB", "BC", "CD", "DA")[season]
    values = []
    for score, spot, terrain, _coin in options:
        trial = grid.copy()
        trial[spot[:, 0], spot[:, 1]] = terrain
        m = Map(tuple("".join(row) for row in trial), layout)
        points = sum(
            CARDS[cards[e]].score(m).points * (1.0 if e in current else 0.3) for e in "ABCD"
        )
        values.append(score + style["skill"] * (points + monster_penalty(m)))
    best = options[int(np.argmax(values))]
    return best[1], best[2], best[3]


def _deal(rng: np.random.Generator) -> dict[str, str]:
    picks = [ids[int(rng.integers(4))] for ids in DECKS.values()]
    order = rng.permutation(4)
    return {letter: picks[i] for letter, i in zip("ABCD", order, strict=True)}


def _new_mountain_coins(grid: np.ndarray, layout: Layout, done: set) -> int:
    new = 0
    for r, c in layout.mountains:
        if (r, c) in done:
            continue
        nbrs = [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        if all(grid[y, x] != EMPTY for y, x in nbrs if 0 <= y < SIZE and 0 <= x < SIZE):
            done.add((r, c))
            new += 1
    return new


def _neighbour_count(mask: np.ndarray) -> np.ndarray:
    """Per space, how many of its 4 neighbours are in ``mask``."""
    m = np.pad(mask.astype(np.int32), 1)
    return m[:-2, 1:-1] + m[2:, 1:-1] + m[1:-1, :-2] + m[1:-1, 2:]


def _choose_spot(rng, grid, ruins, cells, terrain, need_ruins, style, top: int = 6):
    """The ``top`` best ``(score, spaces)`` for a shape over every rotation/flip and position
    by the player's habits, with noise (empty when nothing fits).

    Spaces inside a shape are empty, so summing per-space neighbour counts over the
    shape counts its outside neighbours exactly.
    """
    empty = grid == EMPTY
    nb_same = _neighbour_count(grid == terrain)
    nb_filled = _neighbour_count(~empty)
    nb_monster = _neighbour_count(grid == MONSTER)
    edge = np.zeros((SIZE, SIZE), np.int32)
    edge[[0, -1], :] = 1
    edge[:, [0, -1]] = 1
    if terrain == MONSTER:  # monsters go where they hurt: next to empty space
        per_space = -0.3 * nb_filled - 0.3 * nb_monster
    else:
        per_space = (
            style["cluster"] * 0.6 * nb_same
            + style["compact"] * 0.3 * nb_filled
            + style["edge"] * 0.3 * edge
            + style["fence"] * nb_monster
        )
    cands, scores = [], []
    for shape in orientations(cells):
        h, w = shape.max(axis=0) + 1
        ph, pw = SIZE - h + 1, SIZE - w + 1
        ok = np.ones((ph, pw), bool)
        on_ruins = np.zeros((ph, pw), bool)
        score = np.zeros((ph, pw))
        for dr, dc in shape:
            ok &= empty[dr : dr + ph, dc : dc + pw]
            on_ruins |= ruins[dr : dr + ph, dc : dc + pw]
            score += per_space[dr : dr + ph, dc : dc + pw]
        if need_ruins:
            ok &= on_ruins
        for r0, c0 in zip(*np.nonzero(ok), strict=True):
            cands.append(shape + (r0, c0))
            scores.append(score[r0, c0])
    if not cands:
        return []
    s = np.array(scores) + rng.gumbel(0, 1.0, len(scores))
    order = np.argsort(-s)[:top]
    return [(float(s[i]), cands[i]) for i in order]
