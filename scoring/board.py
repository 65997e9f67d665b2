"""The `Map` value: an 11 x 11 grid of terrain symbols on a printed layout."""

from __future__ import annotations

from dataclasses import dataclass

from scoring.layouts import SIZE, Layout, Space, space_name

EMPTY, FOREST, VILLAGE, FARM, WATER, MONSTER, MOUNTAIN, WASTELAND = ".TVFWM^#"
SYMBOLS = EMPTY + FOREST + VILLAGE + FARM + WATER + MONSTER + MOUNTAIN + WASTELAND
DRAWN = FOREST + VILLAGE + FARM + WATER + MONSTER
TERRAIN_NAMES = {
    EMPTY: "empty",
    FOREST: "forest",
    VILLAGE: "village",
    FARM: "farm",
    WATER: "water",
    MONSTER: "monster",
    MOUNTAIN: "mountain",
    WASTELAND: "wasteland",
}


class BadMap(ValueError):
    """A grid that does not fit the rules or its printed layout."""


@dataclass(frozen=True)
class Map:
    """An 11 x 11 map: ``grid[row][col]`` holds one symbol of :data:`SYMBOLS`.

    Mountains and wasteland must sit exactly where the layout prints them;
    ruins are a property of the layout, not of the grid.
    """

    grid: tuple[str, ...]
    layout: Layout

    def __post_init__(self) -> None:
        if len(self.grid) != SIZE or any(len(row) != SIZE for row in self.grid):
            raise BadMap(f"a map is {SIZE} rows of {SIZE} symbols")
        for r, row in enumerate(self.grid):
            for c, sym in enumerate(row):
                where = space_name((r, c))
                if sym not in SYMBOLS:
                    raise BadMap(f"{where}: unknown symbol {sym!r}")
                printed = self.layout.printed((r, c))
                if printed == MOUNTAIN and sym != MOUNTAIN:
                    raise BadMap(f"{where}: side {self.layout.name} has a mountain here")
                if printed == WASTELAND and sym != WASTELAND:
                    raise BadMap(f"{where}: side {self.layout.name} has wasteland here")
                if printed is None and sym in (MOUNTAIN, WASTELAND):
                    kind = TERRAIN_NAMES[sym]
                    raise BadMap(f"{where}: side {self.layout.name} has no {kind} here")

    @classmethod
    def empty(cls, layout: Layout) -> Map:
        """A fresh sheet: only the printed terrain."""
        rows = ["".join(layout.printed((r, c)) or EMPTY for c in range(SIZE)) for r in range(SIZE)]
        return cls(tuple(rows), layout)

    def at(self, space: Space) -> str:
        return self.grid[space[0]][space[1]]

    def drawn_spaces(self) -> int:
        """How many spaces hold a drawn terrain or monster (:data:`DRAWN`)."""
        return sum(row.count(sym) for row in self.grid for sym in DRAWN)

    def with_terrain(self, space: Space, symbol: str) -> Map:
        """A copy with ``symbol`` drawn at ``space``."""
        r, c = space
        rows = list(self.grid)
        rows[r] = rows[r][:c] + symbol + rows[r][c + 1 :]
        return Map(tuple(rows), self.layout)
