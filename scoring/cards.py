"""The 16 scoring cards of the base game (RULES.md §3 and its rulings).

Each card is a pure function ``Map -> CardResult``: the points and an
:class:`Explanation` of which spaces, rows, columns, clusters or diagonals
earned them. All cards are registered in :data:`CARDS`; look one up with
:func:`find_card`.

>>> from scoring.layouts import SIDE_A
>>> find_card("The Broken Road").score(Map.empty(SIDE_A)).points
0
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from scoring.board import EMPTY, FARM, FOREST, MONSTER, MOUNTAIN, VILLAGE, WATER, Map
from scoring.clusters import NEIGHBOURS, Cluster, clusters, on_edge
from scoring.i18n import check_lang, counted
from scoring.layouts import ROW_LETTERS, SIZE, Space, space_name

DECKS = ("forest", "farm+water", "village", "spatial")


@dataclass(frozen=True)
class Explanation:
    """Why a card scored what it did.

    ``spaces`` is the flat set of spaces that earned points (what an overlay
    highlights); ``rows``/``columns`` are 0-based indices, ``clusters`` the
    scoring groups of spaces (Lost Barony's square, of which only one side's
    spaces earn points), ``diagonals`` the complete diagonals (each a
    tuple of spaces from the left edge down-right); ``reason`` is a few words.
    """

    reason: str
    spaces: frozenset[Space] = frozenset()
    rows: tuple[int, ...] = ()
    columns: tuple[int, ...] = ()
    clusters: tuple[frozenset[Space], ...] = ()
    diagonals: tuple[tuple[Space, ...], ...] = ()

    def to_json(self) -> dict:
        """Plain-JSON form: space names, 1-based rows/columns as printed (A.., 1..)."""
        return {
            "reason": self.reason,
            "spaces": [space_name(s) for s in sorted(self.spaces)],
            "rows": [ROW_LETTERS[r] for r in self.rows],
            "columns": [c + 1 for c in self.columns],
            "clusters": [[space_name(s) for s in sorted(cl)] for cl in self.clusters],
            "diagonals": [[space_name(s) for s in d] for d in self.diagonals],
        }


@dataclass(frozen=True)
class CardResult:
    """Points a card scored on one map, and why."""

    points: int
    explanation: Explanation


@dataclass(frozen=True)
class Card:
    """One scoring card: identity, deck, solo value, names, and its rule."""

    id: str
    name: str
    deck: str
    solo: int
    rule: str
    names: Mapping[str, str]
    rule_fn: Callable[[Map], CardResult] = field(repr=False, compare=False)

    def score(self, game_map: Map) -> CardResult:
        """Score this card on ``game_map``."""
        return self.rule_fn(game_map)

    def name_in(self, lang: str = "en") -> str:
        """The card's name in ``lang`` (en, it, fr, es, zh)."""
        return self.names[check_lang(lang)]


class UnknownCard(ValueError):
    """A card name or id that matches none of the 16 cards."""


# --- helpers -----------------------------------------------------------------


def _spaces_of(grid: tuple[str, ...], symbol: str) -> list[Space]:
    return [(r, c) for r, row in enumerate(grid) for c, s in enumerate(row) if s == symbol]


def _enclosed(grid: tuple[str, ...], space: Space) -> bool:
    """Each of the 4 sides is a filled space or the map edge."""
    r, c = space
    nbrs = NEIGHBOURS[r][c]
    # Sides beyond the map edge count as closed; only on-map neighbours can be empty.
    return all(grid[i][j] != EMPTY for i, j in nbrs)


def _touching(grid: tuple[str, ...], spaces: list[Space], symbols: str) -> list[Space]:
    """The members of ``spaces`` with at least one neighbour holding one of ``symbols``."""
    return [(r, c) for r, c in spaces if any(grid[i][j] in symbols for i, j in NEIGHBOURS[r][c])]


def _names(spaces) -> str:
    return ", ".join(space_name(s) for s in sorted(spaces))


# --- forest deck ---------------------------------------------------------------


def _sentinel_wood(m: Map) -> CardResult:
    edge = [s for s in _spaces_of(m.grid, FOREST) if on_edge(s)]
    # A corner forest is one space: counted once although it sits on two edges.
    return CardResult(
        len(edge), Explanation(f"{counted(len(edge), 'forest')} on the edge", frozenset(edge))
    )


def _greenbough(m: Map) -> CardResult:
    forests = _spaces_of(m.grid, FOREST)
    rows = tuple(sorted({r for r, _ in forests}))
    cols = tuple(sorted({c for _, c in forests}))
    why = f"{counted(len(rows), 'row')} + {counted(len(cols), 'column')} with forest"
    return CardResult(
        len(rows) + len(cols), Explanation(why, frozenset(forests), rows=rows, columns=cols)
    )


def _treetower(m: Map) -> CardResult:
    towers = [s for s in _spaces_of(m.grid, FOREST) if _enclosed(m.grid, s)]
    why = f"{counted(len(towers), 'forest')} surrounded on all 4 sides"
    return CardResult(len(towers), Explanation(why, frozenset(towers)))


def _stoneside_forest(m: Map) -> CardResult:
    grid = m.grid
    linked: set[Space] = set()
    links: list[frozenset[Space]] = []
    for cl in clusters(m, FOREST):
        mountains = {s for s in cl.border if grid[s[0]][s[1]] == MOUNTAIN}
        if len(mountains) >= 2:
            linked |= mountains
            links.append(cl.spaces)
    # Each mountain scores once, however many clusters connect it.
    points = 3 * len(linked)
    why = f"{counted(len(linked), 'mountain')} linked by forest" + (
        f" ({_names(linked)})" if linked else ""
    )
    spaces = frozenset(linked).union(*links) if links else frozenset()
    return CardResult(points, Explanation(why, spaces, clusters=tuple(links)))


# --- farm + water deck ---------------------------------------------------------


def _canal_lake(m: Map) -> CardResult:
    water = _touching(m.grid, _spaces_of(m.grid, WATER), FARM)
    farms = _touching(m.grid, _spaces_of(m.grid, FARM), WATER)
    why = f"{counted(len(water), 'water')} by farms + {counted(len(farms), 'farm')} by water"
    return CardResult(len(water) + len(farms), Explanation(why, frozenset(water + farms)))


def _mages_valley(m: Map) -> CardResult:
    water = _touching(m.grid, _spaces_of(m.grid, WATER), MOUNTAIN)
    farms = _touching(m.grid, _spaces_of(m.grid, FARM), MOUNTAIN)
    why = f"{counted(len(water), 'water')} x2 + {counted(len(farms), 'farm')} by mountains"
    return CardResult(2 * len(water) + len(farms), Explanation(why, frozenset(water + farms)))


def _golden_granary(m: Map) -> CardResult:
    ruins = m.layout.ruins
    # A ruins space is a printed position, drawn over or not; a water space on a
    # ruin does not score for its own ruin, only for a neighbouring one.
    water = [
        (r, c) for r, c in _spaces_of(m.grid, WATER) if any(n in ruins for n in NEIGHBOURS[r][c])
    ]
    farms = [s for s in _spaces_of(m.grid, FARM) if s in ruins]
    why = f"{counted(len(water), 'water')} by ruins + {counted(len(farms), 'farm')} x3 on ruins"
    return CardResult(len(water) + 3 * len(farms), Explanation(why, frozenset(water + farms)))


def _isolated(m: Map, terrain: str, other: str) -> list[Cluster]:
    grid = m.grid
    return [
        cl
        for cl in clusters(m, terrain)
        if not cl.touches_edge and all(grid[r][c] != other for r, c in cl.border)
    ]


def _shoreside_expanse(m: Map) -> CardResult:
    farms = _isolated(m, FARM, WATER)
    lakes = _isolated(m, WATER, FARM)
    found = farms + lakes
    why = (
        f"{counted(len(farms), 'farm cluster')} away from water + "
        f"{counted(len(lakes), 'water cluster')} away from farms, off the edge"
    )
    return _cluster_result(3 * len(found), why, found)


# --- village deck ----------------------------------------------------------------


def _cluster_result(points: int, why: str, found: list[Cluster]) -> CardResult:
    spaces = frozenset().union(*(cl.spaces for cl in found)) if found else frozenset()
    return CardResult(points, Explanation(why, spaces, clusters=tuple(cl.spaces for cl in found)))


def _at(cl: Cluster) -> str:
    return space_name(cl.first_space())


def _wildholds(m: Map) -> CardResult:
    big = [cl for cl in clusters(m, VILLAGE) if cl.size >= 6]
    return _cluster_result(8 * len(big), f"{counted(len(big), 'village cluster')} of 6+", big)


def _great_city(m: Map) -> CardResult:
    grid = m.grid
    # Clusters adjacent to a mountain are excluded first; then the largest scores.
    away = [cl for cl in clusters(m, VILLAGE) if all(grid[r][c] != MOUNTAIN for r, c in cl.border)]
    if not away:
        return CardResult(0, Explanation("no village cluster away from mountains"))
    best = max(away, key=lambda cl: (cl.size, -cl.first_space()[0], -cl.first_space()[1]))
    why = f"largest cluster not by a mountain: {best.size} at {_at(best)}"
    return _cluster_result(best.size, why, [best])


GREENGOLD_TYPES = frozenset(FOREST + VILLAGE + FARM + WATER + MONSTER + MOUNTAIN)
"""Terrain types Greengold Plains counts (wasteland, empty and the edge are not)."""


def _greengold_plains(m: Map) -> CardResult:
    grid = m.grid
    good = [
        cl for cl in clusters(m, VILLAGE) if len(cl.border_terrains(grid) & GREENGOLD_TYPES) >= 3
    ]
    why = f"{counted(len(good), 'village cluster')} next to 3+ terrain types"
    return _cluster_result(3 * len(good), why, good)


def _shieldgate(m: Map) -> CardResult:
    found = sorted(clusters(m, VILLAGE), key=lambda cl: (-cl.size, cl.first_space()))
    if len(found) < 2:
        return CardResult(0, Explanation(f"{counted(len(found), 'village cluster')}, need 2"))
    # Sizes sorted descending; the second entry scores x2 even when it ties the first.
    second = found[1]
    why = f"second-largest village cluster: {second.size} at {_at(second)}"
    return _cluster_result(2 * second.size, why, [second])


# --- spatial deck ------------------------------------------------------------------


def _borderlands(m: Map) -> CardResult:
    grid = m.grid
    rows = tuple(r for r in range(SIZE) if EMPTY not in grid[r])
    cols = tuple(c for c in range(SIZE) if all(grid[r][c] != EMPTY for r in range(SIZE)))
    spaces = frozenset((r, c) for r in rows for c in range(SIZE)) | frozenset(
        (r, c) for c in cols for r in range(SIZE)
    )
    why = f"{counted(len(rows), 'full row')} + {counted(len(cols), 'full column')}"
    return CardResult(
        6 * (len(rows) + len(cols)), Explanation(why, spaces, rows=rows, columns=cols)
    )


def _largest_square(grid: tuple[str, ...]) -> tuple[int, Space]:
    """Side and top-left corner of the largest solid square of filled spaces.

    Classic dynamic programme: ``side[r][c]`` is the largest filled square whose
    bottom-right corner is ``(r, c)``; ties keep the first found (top, then left).
    """
    best, corner = 0, (0, 0)
    prev = [0] * (SIZE + 1)
    for r in range(SIZE):
        cur = [0] * (SIZE + 1)
        row = grid[r]
        for c in range(SIZE):
            if row[c] != EMPTY:
                k = 1 + min(prev[c], prev[c + 1], cur[c])
                cur[c + 1] = k
                if k > best:
                    best, corner = k, (r - k + 1, c - k + 1)
        prev = cur
    return best, corner


def _lost_barony(m: Map) -> CardResult:
    side, (r0, c0) = _largest_square(m.grid)
    if side == 0:
        return CardResult(0, Explanation("no filled square"))
    square = frozenset((r0 + i, c0 + j) for i in range(side) for j in range(side))
    # Only one side's spaces earn points (3 each): the square's top side stands for it;
    # the whole square is the scoring group around them.
    counted = [(r0, c0 + j) for j in range(side)]
    corner = space_name((r0, c0))
    top = corner if side == 1 else f"{corner}-{space_name(counted[-1])}"
    why = f"largest square {side}x{side} at {corner}: top side {top} x3"
    return CardResult(3 * side, Explanation(why, frozenset(counted), clusters=(square,)))


DIAGONALS: tuple[tuple[Space, ...], ...] = tuple(
    tuple((r + i, i) for i in range(SIZE - r)) for r in range(SIZE)
)
"""The Broken Road's diagonals: from ``(r, 0)`` down-right to the bottom edge, r = 0..10."""


def _broken_road(m: Map) -> CardResult:
    grid = m.grid
    full = tuple(d for d in DIAGONALS if all(grid[r][c] != EMPTY for r, c in d))
    starts = ", ".join(space_name(d[0]) for d in full)
    why = f"{counted(len(full), 'full diagonal')}" + (f" from {starts}" if full else "")
    spaces = frozenset(s for d in full for s in d)
    return CardResult(3 * len(full), Explanation(why, spaces, diagonals=full))


def _cauldrons(m: Map) -> CardResult:
    # Unfilled ruins are '.' in the grid, so they count as empty here.
    pots = [s for s in _spaces_of(m.grid, EMPTY) if _enclosed(m.grid, s)]
    why = f"{counted(len(pots), 'empty space')} closed on all 4 sides"
    return CardResult(len(pots), Explanation(why, frozenset(pots)))


# --- registry ------------------------------------------------------------------------

# Italian, French and Spanish card names: we have no printed source for the
# localised card names, so those languages show the English name. Chinese names
# are from the Chinese rulebook (RULES.md §4).
_TABLE: tuple[tuple[str, str, str, int, str, str, Callable[[Map], CardResult]], ...] = (
    ("sentinel-wood", "Sentinel Wood", "forest", 25, "前哨森林",
     "1 per forest space on the map edge (a corner forest counts once)", _sentinel_wood),
    ("greenbough", "Greenbough", "forest", 22, "蔥鬱林海",
     "1 per row with at least 1 forest, +1 per column with at least 1 forest", _greenbough),
    ("treetower", "Treetower", "forest", 17, "樹塔",
     "1 per forest space whose 4 sides are each a filled space or the map edge", _treetower),
    ("stoneside-forest", "Stoneside Forest", "forest", 18, "巨石山林",
     "3 per mountain connected to another mountain by a forest cluster", _stoneside_forest),
    ("canal-lake", "Canal Lake", "farm+water", 24, "運河湖",
     "1 per water space adjacent to a farm, +1 per farm space adjacent to water", _canal_lake),
    ("mages-valley", "Mages Valley", "farm+water", 22, "魔法山谷",
     "2 per water space adjacent to a mountain, +1 per farm space adjacent to a mountain",
     _mages_valley),
    ("the-golden-granary", "The Golden Granary", "farm+water", 20, "豐饒之地",
     "1 per water space adjacent to a ruins space, +3 per farm space on a ruins space",
     _golden_granary),
    ("shoreside-expanse", "Shoreside Expanse", "farm+water", 27, "廣闊湖岸",
     "3 per farm cluster adjacent to no water and off the edge, "
     "+3 per water cluster adjacent to no farm and off the edge", _shoreside_expanse),
    ("wildholds", "Wildholds", "village", 16, "荒野聚落",
     "8 per village cluster of 6 or more spaces", _wildholds),
    ("great-city", "Great City", "village", 16, "大城市",
     "1 per space of the largest village cluster adjacent to no mountain", _great_city),
    ("greengold-plains", "Greengold Plains", "village", 21, "肥沃平原",
     "3 per village cluster adjacent to at least 3 different terrain types", _greengold_plains),
    ("shieldgate", "Shieldgate", "village", 20, "神盾門",
     "2 per space of the second-largest village cluster", _shieldgate),
    ("borderlands", "Borderlands", "spatial", 24, "邊境",
     "6 per completely filled row or column", _borderlands),
    ("lost-barony", "Lost Barony", "spatial", 24, "失落的莊園",
     "3 per space along one side of the largest solid square of filled spaces", _lost_barony),
    ("the-broken-road", "The Broken Road", "spatial", 24, "崎嶇之路",
     "3 per completely filled diagonal from the left edge down-right to the bottom edge",
     _broken_road),
    ("the-cauldrons", "The Cauldrons", "spatial", 20, "圍困之地",
     "1 per empty space whose 4 sides are each a filled space or the map edge", _cauldrons),
)  # fmt: skip

CARDS: dict[str, Card] = {
    cid: Card(
        id=cid,
        name=name,
        deck=deck,
        solo=solo,
        rule=rule,
        names={"en": name, "it": name, "fr": name, "es": name, "zh": zh},
        rule_fn=fn,
    )
    for cid, name, deck, solo, zh, rule, fn in _TABLE
}
"""All 16 cards by id, in deck order."""


def _normalise(text: str) -> str:
    key = re.sub(r"['’]", "", text.strip().lower())
    key = re.sub(r"[\s_\-]+", "-", key).strip("-")
    return key.removeprefix("the-")


_LOOKUP: dict[str, Card] = {}
for _card in CARDS.values():
    for _key in (_card.id, *_card.names.values()):
        _LOOKUP[_normalise(_key)] = _card


def find_card(name_or_id: str) -> Card:
    """The card with this id or name, case-insensitive, spaces or hyphens, "the" optional.

    >>> find_card("golden granary").id
    'the-golden-granary'
    >>> find_card("The-Cauldrons").name
    'The Cauldrons'
    """
    card = _LOOKUP.get(_normalise(name_or_id))
    if card is None:
        raise UnknownCard(f"unknown card {name_or_id.strip()!r}; valid ids: {', '.join(CARDS)}")
    return card


def score_all(game_map: Map) -> dict[str, CardResult]:
    """Every card's result on ``game_map``, by card id."""
    return {cid: card.score(game_map) for cid, card in CARDS.items()}
