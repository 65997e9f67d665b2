"""Cells set by hand (``score --set C3=F``): the reader's word over the photo's.

After checking the cells a report lists for review, a player says what is really
drawn there instead of retyping the map. Pure data and rules: no image libraries.
"""

from __future__ import annotations

from dataclasses import replace

from scanner.sheet import Correction, Sheet
from scoring.board import DRAWN, EMPTY, MOUNTAIN, TERRAIN_NAMES
from scoring.layouts import Space, parse_space, space_name

#: What a space may be set to: a drawn terrain or empty, by symbol or by name.
SETTABLE = {sym: sym for sym in DRAWN + EMPTY} | {TERRAIN_NAMES[sym]: sym for sym in DRAWN + EMPTY}


class BadCorrection(ValueError):
    """A ``--set`` the map cannot take (unreadable, or a printed space)."""


def parse_corrections(values: list[str] | None, what: str = "--set") -> dict[Space, str]:
    """``["C3=F", "E7=forest,K1=."]`` -> ``{(2, 2): "F", (4, 6): "T", (10, 0): "."}``.

    Space names are case-insensitive; a terrain may be its map symbol or its name.
    Raises :class:`BadCorrection` naming the unreadable item, or a space set twice
    to different terrains; messages start with ``what`` (where the values came from).
    """
    out: dict[Space, str] = {}
    for value in values or []:
        for item in value.split(","):
            name, eq, terrain = item.partition("=")
            if not eq or not name.strip() or not terrain.strip():
                raise BadCorrection(f"{what} takes SPACE=TERRAIN (e.g. C3=F), got {item!r}")
            try:
                space = parse_space(name)
            except ValueError as err:
                raise BadCorrection(f"{what} {item.strip()}: {err}") from None
            key = terrain.strip()
            symbol = SETTABLE.get(key.upper() if len(key) == 1 else key.lower())
            if symbol is None:
                allowed = " ".join(DRAWN + EMPTY)
                raise BadCorrection(
                    f"{what} {item.strip()}: {key!r} is not a terrain ({allowed} or its name)"
                )
            if out.get(space, symbol) != symbol:
                raise BadCorrection(f"{what} names {space_name(space)} twice, as two terrains")
            out[space] = symbol
    return out


def apply_corrections(sheet: Sheet, fixes: dict[Space, str]) -> Sheet:
    """``sheet`` with ``fixes`` drawn on its map, taken off its review list, and at
    confidence 1 (a person looked); the changes are listed in ``sheet.corrected``.

    Raises :class:`BadCorrection` when a fix falls on a printed mountain or wasteland.
    """
    if not fixes:
        return sheet
    game_map = sheet.map
    done = []
    for space, symbol in sorted(fixes.items()):
        printed = game_map.layout.printed(space)
        if printed is not None:
            kind = "a mountain" if printed == MOUNTAIN else TERRAIN_NAMES[printed]
            raise BadCorrection(
                f"{sheet.source}: --set {space_name(space)}: side {game_map.layout.name} "
                f"prints {kind} there; only the spaces players draw on can be set"
            )
        done.append(Correction(space_name(space), symbol, game_map.at(space)))
        game_map = game_map.with_terrain(space, symbol)
    names = {c.space for c in done}
    confidence = sheet.confidence
    if confidence is not None:
        confidence = tuple(
            tuple(1.0 if (r, c) in fixes else p for c, p in enumerate(row))
            for r, row in enumerate(confidence)
        )
    return replace(
        sheet,
        map=game_map,
        confidence=confidence,
        review=tuple(r for r in sheet.review if r.space not in names),
        corrected=(*sheet.corrected, *done),
    )


def fixes_text(fixes: dict[Space, str]) -> str:
    """The spaces set by hand as one line, in map order: ``"A1=T C3=F"`` ("" for none).

    What a batch results row records, so that a re-run scores a sheet again when the
    spaces set for it have changed.
    """
    return " ".join(f"{space_name(space)}={sym}" for space, sym in sorted(fixes.items()))
