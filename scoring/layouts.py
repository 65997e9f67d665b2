"""Printed layouts of the map sheets: where mountains, ruins and wasteland are.

Coordinates are ``(row, col)``, 0-based, row 0 at the top (RULES.md §1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SIZE = 11
ROW_LETTERS = "ABCDEFGHIJK"

Space = tuple[int, int]


def space_name(space: Space) -> str:
    """Printed label of a space: ``(1, 3)`` -> ``"B4"``."""
    row, col = space
    return f"{ROW_LETTERS[row]}{col + 1}"


def parse_space(name: str) -> Space:
    """Inverse of :func:`space_name`: ``"B4"`` -> ``(1, 3)``."""
    text = name.strip().upper()
    if len(text) < 2 or text[0] not in ROW_LETTERS or not text[1:].isdigit():
        raise ValueError(f"not a space name: {name!r} (expected A1..K11)")
    col = int(text[1:]) - 1
    if not 0 <= col < SIZE:
        raise ValueError(f"not a space name: {name!r} (columns are 1..11)")
    return ROW_LETTERS.index(text[0]), col


@dataclass(frozen=True)
class Layout:
    """What is printed on one side of a map sheet."""

    name: str
    mountains: frozenset[Space]
    ruins: frozenset[Space]
    wasteland: frozenset[Space] = frozenset()

    def __post_init__(self) -> None:
        for kind in ("mountains", "ruins", "wasteland"):
            for r, c in getattr(self, kind):
                if not (0 <= r < SIZE and 0 <= c < SIZE):
                    raise ValueError(f"layout {self.name}: {kind} space {(r, c)} is off the map")
        if self.mountains & self.wasteland:
            raise ValueError(f"layout {self.name}: a space is both mountain and wasteland")
        if self.ruins & (self.mountains | self.wasteland):
            raise ValueError(f"layout {self.name}: ruins printed on a mountain or wasteland")

    def printed(self, space: Space) -> str | None:
        """The printed terrain symbol at ``space`` (``^``, ``#``) or None."""
        if space in self.mountains:
            return "^"
        if space in self.wasteland:
            return "#"
        return None


def custom_layout(
    name: str, mountains: list[str], ruins: list[str], wasteland: list[str] = ()
) -> Layout:
    """Define a layout for another map sheet from printed space names (``"B4"``)."""
    return Layout(
        name=name,
        mountains=frozenset(parse_space(s) for s in mountains),
        ruins=frozenset(parse_space(s) for s in ruins),
        wasteland=frozenset(parse_space(s) for s in wasteland),
    )


SIDE_A = custom_layout(
    "A",
    mountains=["B4", "C9", "F6", "I3", "J8"],
    ruins=["B6", "C2", "C10", "I2", "I10", "J6"],
)
SIDE_B = custom_layout(
    "B",
    mountains=["B9", "C4", "H6", "I10", "J3"],
    ruins=["B7", "C3", "E7", "G2", "H9", "J4"],
    wasteland=["D6", "E5", "E6", "F5", "F6", "F7", "G6"],
)
LAYOUTS: dict[str, Layout] = {"A": SIDE_A, "B": SIDE_B}


def parse_side(
    text: str, layouts: Mapping[str, Layout] = LAYOUTS, *, auto: bool = True
) -> str | None:
    """A printed side as given (``a``, ``B``) -> its name in ``layouts``; with ``auto``,
    ``auto`` (in any case) -> None, to detect it. Raises ValueError for anything else;
    each caller says so in its own words."""
    if auto and text.lower() == "auto":
        return None
    if text.upper() not in layouts:
        raise ValueError(f"unknown side {text!r} (expected {', '.join(layouts)})")
    return text.upper()
