"""Neighbourhoods and clusters on the 11 x 11 map (RULES.md §1).

Adjacent means sharing a side (4-neighbourhood); a cluster is a maximal
4-connected group of spaces of one terrain. Results are cached per map, so the
16 cards scoring the same map label each terrain once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from scoring.board import Map
from scoring.layouts import SIZE, Space


def _neighbour_table() -> tuple[tuple[tuple[Space, ...], ...], ...]:
    table = []
    for r in range(SIZE):
        row = []
        for c in range(SIZE):
            cand = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            row.append(tuple((i, j) for i, j in cand if 0 <= i < SIZE and 0 <= j < SIZE))
        table.append(tuple(row))
    return tuple(table)


NEIGHBOURS = _neighbour_table()
"""``NEIGHBOURS[r][c]``: the spaces sharing a side with ``(r, c)`` (2 to 4 of them)."""


def neighbours(space: Space) -> tuple[Space, ...]:
    """Spaces sharing a side with ``space`` (diagonals are never adjacent).

    >>> neighbours((0, 0))
    ((1, 0), (0, 1))
    """
    return NEIGHBOURS[space[0]][space[1]]


def on_edge(space: Space) -> bool:
    """True for a space in row 0 or 10 or column 0 or 10."""
    r, c = space
    return r in (0, SIZE - 1) or c in (0, SIZE - 1)


@dataclass(frozen=True)
class Cluster:
    """A maximal 4-connected group of spaces of one terrain.

    ``border`` holds the spaces outside the cluster that share a side with it.
    """

    terrain: str
    spaces: frozenset[Space]
    border: frozenset[Space]

    @property
    def size(self) -> int:
        return len(self.spaces)

    @property
    def touches_edge(self) -> bool:
        return any(on_edge(s) for s in self.spaces)

    def first_space(self) -> Space:
        """The top-most, then left-most space (a stable name for the cluster)."""
        return min(self.spaces)

    def border_terrains(self, grid: tuple[str, ...]) -> frozenset[str]:
        """Symbols found on the spaces around the cluster."""
        return frozenset(grid[r][c] for r, c in self.border)


@lru_cache(maxsize=512)
def clusters(game_map: Map, terrain: str) -> tuple[Cluster, ...]:
    """All clusters of ``terrain`` (one symbol), ordered by their first space.

    >>> from scoring.layouts import SIDE_A
    >>> m = Map.empty(SIDE_A).with_terrain((0, 0), "V").with_terrain((0, 1), "V")
    >>> [c.size for c in clusters(m, "V")]
    [2]
    """
    # Imported here, not at the top: scipy.ndimage takes 0.3-0.4 s to import and numpy
    # about 0.08 s, which `cartoscore cards` and usage errors need not wait for.
    import numpy as np
    from scipy import ndimage

    grid = game_map.grid
    mask = np.array([[sym == terrain for sym in row] for row in grid], dtype=bool)
    four_connected = ndimage.generate_binary_structure(2, 1)
    labels, count = ndimage.label(mask, structure=four_connected)
    if count == 0:
        return ()
    groups: list[list[Space]] = [[] for _ in range(count)]
    rows, cols = np.nonzero(labels)
    for r, c, k in zip(rows.tolist(), cols.tolist(), labels[rows, cols].tolist(), strict=True):
        groups[k - 1].append((r, c))
    found = []
    for spaces in groups:
        members = frozenset(spaces)
        border = {n for s in spaces for n in NEIGHBOURS[s[0]][s[1]] if n not in members}
        found.append(Cluster(terrain, members, frozenset(border)))
    return tuple(found)
