"""Spaces (and the coin count) set by hand: the reader's word over the photo's.

After checking the cells a report lists for review, a player says what is really
drawn there (``score --set C3=F``, or a settings file's ``[set]`` table for a batch)
instead of retyping the map; ``coins=N`` sets the count of marked coins the same way,
and ``side=A`` or ``side=B`` the printed side (for one sheet, where ``--side`` and a
settings file's ``side`` set it for all: the side is given before the photo is read).
Pure data and rules: no image libraries.
"""

from __future__ import annotations

from dataclasses import replace

from scanner.sheet import COINS, Correction, Sheet
from scoring.board import DRAWN, EMPTY, MOUNTAIN, TERRAIN_NAMES
from scoring.game import COIN_TRACK
from scoring.layouts import LAYOUTS, Space, parse_side, parse_space, space_name

#: What a space may be set to: a drawn terrain or empty, by symbol or by name.
SETTABLE = {sym: sym for sym in DRAWN + EMPTY} | {TERRAIN_NAMES[sym]: sym for sym in DRAWN + EMPTY}

#: Space -> map symbol, and maybe :data:`COINS` -> the count and :data:`SIDE` -> "A"/"B".
Fixes = dict
#: The key of a sheet's printed side set by hand.
SIDE = "side"


class BadCorrection(ValueError):
    """A ``--set`` the map cannot take (unreadable, or a printed space)."""


def parse_corrections(values: list[str] | None, what: str = "--set") -> Fixes:
    """``["C3=F", "E7=forest,K1=.", "coins=5", "side=b"]`` ->
    ``{(2, 2): "F", (4, 6): "T", (10, 0): ".", "coins": 5, "side": "B"}``.

    Space names are case-insensitive; a terrain may be its map symbol or its name.
    Raises :class:`BadCorrection` naming the unreadable item, or a space (or the coins,
    or the side) set twice to different values; messages start with ``what`` (where they
    came from).
    """
    out: Fixes = {}
    for value in values or []:
        for item in value.split(","):
            name, eq, given = item.partition("=")
            if not eq or not name.strip() or not given.strip():
                raise BadCorrection(f"{what} takes SPACE=TERRAIN (e.g. C3=F), got {item!r}")
            key, setting = _parse_item(name.strip(), given.strip(), f"{what} {item.strip()}")
            if out.get(key, setting) != setting:
                shown = key if key in (COINS, SIDE) else space_name(key)
                raise BadCorrection(f"{what} names {shown} twice, with two values")
            out[key] = setting
    return out


def corrections_by_input(values: list[str] | None, n_inputs: int) -> dict[int, Fixes]:
    """``--set`` for a command's inputs: input index (from 0) -> :data:`Fixes`.

    With one input a value is ``SPACE=TERRAIN,...``; with several (the photos of each
    season, or several sheets) it starts with the input's number, from 1, for all of
    it: ``["2:C3=F,E7=T", "3:coins=6"]`` -> ``{1: {(2, 2): "F", (4, 6): "T"}, 2:
    {"coins": 6}}``. Raises :class:`BadCorrection` for a missing or out-of-range number.
    """
    given: dict[int, list[str]] = {}
    for value in values or []:
        number, colon, rest = value.partition(":")
        if not colon:
            if n_inputs != 1:
                raise BadCorrection(
                    f"--set with {n_inputs} inputs: start it with the input's number, "
                    f"e.g. --set 2:{value.strip()} for the second"
                )
            number, rest = "1", value
        if not number.strip().isdigit() or not 1 <= int(number) <= n_inputs:
            raise BadCorrection(
                f"--set {value.strip()}: {number.strip()!r} is not an input number "
                f"(1 to {n_inputs}, in the order given)"
            )
        given.setdefault(int(number) - 1, []).append(rest)
    return {
        i: parse_corrections(v, "--set" if n_inputs == 1 else f"--set (input {i + 1})")
        for i, v in sorted(given.items())
    }


def _parse_item(name: str, given: str, where: str) -> tuple[Space | str, str | int]:
    if name.lower() == SIDE:
        try:
            return SIDE, parse_side(given, auto=False)
        except ValueError:
            raise BadCorrection(f"{where}: side must be {' or '.join(LAYOUTS)}") from None
    if name.lower() == COINS:
        if not given.isdigit() or int(given) > COIN_TRACK:
            raise BadCorrection(f"{where}: coins must be a number from 0 to {COIN_TRACK}")
        return COINS, int(given)
    try:
        space = parse_space(name)
    except ValueError as err:
        raise BadCorrection(f"{where}: {err}") from None
    symbol = SETTABLE.get(given.upper() if len(given) == 1 else given.lower())
    if symbol is None:
        allowed = " ".join(DRAWN + EMPTY)
        raise BadCorrection(f"{where}: {given!r} is not a terrain ({allowed} or its name)")
    return space, symbol


def apply_corrections(sheet: Sheet, fixes: Fixes) -> Sheet:
    """``sheet`` with ``fixes`` drawn on its map, taken off its review list, and at
    confidence 1 (a person looked); ``coins`` replaces the count read (and its doubt).
    The changes are listed in ``sheet.corrected``.

    Raises :class:`BadCorrection` when a fix falls on a printed mountain or wasteland.
    """
    if not fixes:
        return sheet
    spaces = _spaces(fixes)
    game_map = sheet.map
    done = []
    for space, symbol in sorted(spaces.items()):
        printed = game_map.layout.printed(space)
        if printed is not None:
            kind = "a mountain" if printed == MOUNTAIN else TERRAIN_NAMES[printed]
            raise BadCorrection(
                f"{sheet.source}: cannot set {space_name(space)}: side {game_map.layout.name} "
                f"prints {kind} there; only the spaces players draw on can be set"
            )
        done.append(Correction(space_name(space), symbol, game_map.at(space)))
        game_map = game_map.with_terrain(space, symbol)
    names = {c.space for c in done}
    confidence = sheet.confidence
    if confidence is not None:
        confidence = tuple(
            tuple(1.0 if (r, c) in spaces else p for c, p in enumerate(row))
            for r, row in enumerate(confidence)
        )
    coins, notes = sheet.coins, sheet.notes
    if COINS in fixes:
        read = "none" if sheet.coins is None else str(sheet.coins)
        done.append(Correction(COINS, str(fixes[COINS]), read))
        coins = fixes[COINS]
        notes = tuple(n for n in notes if not n.startswith("coin count"))
    return replace(
        sheet,
        map=game_map,
        coins=coins,
        notes=notes,
        confidence=confidence,
        review=tuple(r for r in sheet.review if r.space not in names),
        corrected=(*sheet.corrected, *done),
    )


def fixes_text(fixes: Fixes) -> str:
    """The settings as one line: the side, the spaces in map order, then the coins:
    ``"side=B A1=T C3=F coins=5"`` ("" for none).

    What a batch results row records, so that a re-run scores a sheet again when what
    was set for it has changed.
    """
    parts = [f"{SIDE}={fixes[SIDE]}"] if SIDE in fixes else []
    parts += [f"{space_name(k)}={v}" for k, v in sorted(_spaces(fixes).items())]
    if COINS in fixes:
        parts.append(f"{COINS}={fixes[COINS]}")
    return " ".join(parts)


def _spaces(fixes: Fixes) -> dict[Space, str]:
    """The spaces of ``fixes`` (not the coins or the side)."""
    return {k: v for k, v in fixes.items() if k not in (COINS, SIDE)}


def side_set(fixes: Fixes) -> str | None:
    """The printed side set by hand ("A" or "B"), or None."""
    return fixes.get(SIDE)
