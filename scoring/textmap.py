"""The text map format and its JSON form (RULES.md §5).

Text::

    ; comment lines start with ';'
    side: A
    coins: 5
    cards: sentinel-wood, canal-lake, great-city, borderlands
    TT.........
    ...^.......
    ... (11 rows of 11 symbols, spaces between symbols allowed)

JSON: ``{"side": "A", "coins": 5, "cards": {"A": ..., "D": ...}, "grid": [11 strings]}``.

Parse functions take text and raise :class:`BadMapFile` whose message names the
line or the space (``C9: side A has a mountain here``); :func:`load_map_file`
adds the file name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from scoring.board import MOUNTAIN, SYMBOLS, WASTELAND, BadMap, Map
from scoring.cards import UnknownCard
from scoring.game import COIN_TRACK, EDICTS, BadDeal, by_edict, deal
from scoring.layouts import LAYOUTS, ROW_LETTERS, SIZE, Layout, parse_side


class BadMapFile(ValueError):
    """A map file (text or JSON) that cannot be read as a map."""


@dataclass(frozen=True)
class MapFile:
    """A parsed map file: the map, and the coins and cards its headers give (or None)."""

    map: Map
    coins: int | None = None
    cards: dict[str, str] | None = None
    #: The side the file itself names (its ``side:`` header or JSON key), as written.
    header_side: str | None = None


def _infer_layout(rows: list[str], layouts: Mapping[str, Layout]) -> Layout:
    """The layout whose printed mountains and wasteland match the grid; else an error
    naming the side that comes nearest and its first space that differs."""
    printed = {
        (r, c) for r, row in enumerate(rows) for c, s in enumerate(row) if s in MOUNTAIN + WASTELAND
    }
    for layout in layouts.values():
        if printed == layout.mountains | layout.wasteland:
            return layout
    nearest = min(layouts.values(), key=lambda lay: len(printed ^ (lay.mountains | lay.wasteland)))
    try:  # the map checks each printed space in order and names the first one off
        Map(tuple(rows), nearest)
    except BadMap as err:
        raise BadMapFile(
            f"no side given, and the printed spaces match neither side; nearest is side "
            f"{nearest.name}: {err}"
        ) from None
    raise AssertionError("unreachable: the nearest side differs somewhere")  # pragma: no cover


def _parse_cards(text: str) -> dict[str, str]:
    try:
        return deal(text)
    except BadDeal:
        raise BadMapFile(
            f"cards: give 4 cards separated by commas (edicts A-D), got {_shown(text)}"
        ) from None
    except UnknownCard as err:
        raise BadMapFile(f"cards: {err}") from None


def _parse_coins(value: object) -> int:
    """A count of coins: a whole number written in digits 0-9 (``int`` alone would also
    take ``1_0``, ``+6`` or other scripts' digits), or a JSON integer."""
    text = str(value).strip()
    if isinstance(value, bool) or not (isinstance(value, int) or _DIGITS.fullmatch(text)):
        raise BadMapFile(f"coins: expected a whole number 0..{COIN_TRACK}, got {_shown(value)}")
    coins = int(text)
    if not 0 <= coins <= COIN_TRACK:
        raise BadMapFile(f"coins: the coin track has {COIN_TRACK} coins, got {_shown(coins)}")
    return coins


_DIGITS = re.compile(r"[0-9]+")
#: Header names: a line starting with one of these, then no colon, is a header mistyped.
_HEADERS = ("side", "coins", "cards")
_LONGEST_SHOWN = 40


def _shown(value: object) -> str:
    """``repr(value)``, cut to :data:`_LONGEST_SHOWN` characters: an error stays one line."""
    text = repr(value)
    return text if len(text) <= _LONGEST_SHOWN else text[: _LONGEST_SHOWN - 3] + "..."


def _build_map(rows: list[str], side: str | None, layouts: Mapping[str, Layout]) -> Map:
    if len(rows) != SIZE:
        raise BadMapFile(f"expected {SIZE} grid rows, found {len(rows)}")
    for r, row in enumerate(rows):
        if len(row) != SIZE:
            raise BadMapFile(
                f"row {ROW_LETTERS[r]}: expected {SIZE} symbols, found {len(row)} ({_shown(row)})"
            )
        for c, sym in enumerate(row):
            if sym not in SYMBOLS:
                raise BadMapFile(
                    f"{ROW_LETTERS[r]}{c + 1}: unknown symbol {sym!r} (expected one of {SYMBOLS})"
                )
    if side is None:
        layout = _infer_layout(rows, layouts)
    else:
        try:
            layout = layouts[parse_side(side.strip(), layouts, auto=False)]
        except ValueError:
            raise BadMapFile(
                f"side: unknown side {_shown(side)} (expected {', '.join(layouts)})"
            ) from None
    try:
        return Map(tuple(rows), layout)
    except BadMap as err:
        raise BadMapFile(str(err)) from None


def parse_text(
    text: str,
    *,
    side: str | None = None,
    default_side: str | None = None,
    layouts: Mapping[str, Layout] = LAYOUTS,
    read_cards: bool = True,
) -> MapFile:
    """Parse the text map format.

    Parameters
    ----------
    text : the file's contents
    side : overrides the ``side:`` header
    default_side : the side when the file names none (a round's settings file)
        with none of the three, the side is the one whose printed mountains (and
        wasteland) match the grid
    layouts : the known sides, by name
    read_cards : False when the cards are given elsewhere (``--cards``): the ``cards:``
        header is then not read (an unknown card there does not fail the file)

    >>> mf = parse_text("coins: 2\\n" + "...........\\n" * 11, side="X",
    ...                 layouts={"X": Layout("X", frozenset(), frozenset())})
    >>> mf.coins, mf.map.layout.name
    (2, 'X')
    """
    header_side = coins = cards = None
    given: dict[str, int] = {}  # header -> the line it was on
    rows: list[str] = []
    # Lines end at \n, \r\n or \r only: str.splitlines also breaks at form feeds and
    # Unicode separators, which a comment pasted from elsewhere may hold.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        try:
            if ":" in line:
                key, _, value = line.partition(":")
                key = key.strip().lower()
                if key not in _HEADERS:
                    raise BadMapFile(
                        f"unknown header {_shown(key)} (expected {', '.join(_HEADERS)})"
                    )
                if key in given:
                    raise BadMapFile(f"{key}: given twice (lines {given[key]} and {lineno})")
                given[key] = lineno
                if key == "side":
                    header_side = value.strip()
                elif key == "coins":
                    coins = _parse_coins(value)
                elif read_cards:
                    cards = _parse_cards(value)
                continue
            word = re.match(r"[A-Za-z]+", line)
            if word and word.group().lower() in _HEADERS:
                raise BadMapFile(f"write a header with a colon, as '{word.group().lower()}: ...'")
        except BadMapFile as err:
            raise BadMapFile(f"line {lineno}: {err}") from None
        if len(rows) == SIZE:
            raise BadMapFile(f"line {lineno}: more than {SIZE} grid rows")
        rows.append("".join(line.split()))
    game_map = _build_map(rows, side or header_side or default_side, layouts)
    return MapFile(game_map, coins, cards, header_side)


def parse_json(
    text: str,
    *,
    side: str | None = None,
    default_side: str | None = None,
    layouts: Mapping[str, Layout] = LAYOUTS,
    read_cards: bool = True,
) -> MapFile:
    """Parse the JSON form ``{"side", "coins", "cards", "grid"}``; only ``grid`` is required."""
    try:
        data = json.loads(text, object_pairs_hook=_once_each)
    except json.JSONDecodeError as err:
        raise BadMapFile(f"not valid JSON: {err.msg} at line {err.lineno}") from None
    except RecursionError:  # brackets nested thousands deep: no map is
        raise BadMapFile("not a map: JSON nested too deeply") from None
    if not isinstance(data, dict) or not isinstance(data.get("grid"), list):
        raise BadMapFile('expected a JSON object with a "grid" list of 11 strings')
    if not all(isinstance(row, str) for row in data["grid"]):
        raise BadMapFile('"grid" must be a list of strings')
    rows = ["".join(row.split()) for row in data["grid"]]
    coins = None if data.get("coins") is None else _parse_coins(data["coins"])
    cards = None
    raw_cards = data.get("cards") if read_cards else None
    if isinstance(raw_cards, dict):
        try:
            raw_cards = by_edict(raw_cards)
        except BadDeal:
            raise BadMapFile(
                f"cards: expected edicts A, B, C, D, got {sorted(raw_cards)}"
            ) from None
    if isinstance(raw_cards, list):
        cards = _parse_cards(",".join(str(c) for c in raw_cards))
    elif raw_cards is not None:
        raise BadMapFile('"cards" must be an object {"A": ..., "D": ...} or a list of 4')
    json_side = data.get("side")
    json_side = None if json_side is None else str(json_side)
    game_map = _build_map(rows, side or json_side or default_side, layouts)
    return MapFile(game_map, coins, cards, json_side)


def _once_each(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose keys are all different (``json`` keeps the last of a repeated
    key without a word: ``"coins": 6, "coins": 2`` would score 2)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise BadMapFile(f"{_shown(key)} given twice")
        out[key] = value
    return out


def format_text(
    game_map: Map, *, coins: int | None = None, cards: Mapping[str, str] | None = None
) -> str:
    """The text map format with ``side:`` (and ``coins:``/``cards:`` when given) headers."""
    lines = [f"side: {game_map.layout.name}"]
    if coins is not None:
        lines.append(f"coins: {coins}")
    if cards:
        lines.append("cards: " + ", ".join(cards[e] for e in EDICTS))
    lines.extend(" ".join(row) for row in game_map.grid)
    return "\n".join(lines) + "\n"


def to_json(
    game_map: Map, *, coins: int | None = None, cards: Mapping[str, str] | None = None
) -> dict:
    """The JSON form as a dict (``json.dumps`` it to write a file)."""
    out: dict = {"side": game_map.layout.name}
    if coins is not None:
        out["coins"] = coins
    if cards:
        out["cards"] = {e: cards[e] for e in EDICTS}
    out["grid"] = list(game_map.grid)
    return out


def load_map_file(
    path: str | Path,
    *,
    side: str | None = None,
    default_side: str | None = None,
    layouts: Mapping[str, Layout] = LAYOUTS,
    read_cards: bool = True,
) -> MapFile:
    """Read a text (``.txt``, ``.map``, anything else) or JSON (``.json``) map file.

    Raises :class:`BadMapFile` with the file name in the message.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise BadMapFile(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise BadMapFile(f"{path}: not a text map file (not UTF-8 text)") from None
    except OSError as err:
        raise BadMapFile(f"{path}: cannot read ({err.strerror})") from None
    if not text.strip():
        raise BadMapFile(f"{path}: the file is empty")
    # A JSON map saved under another extension is still JSON (no text map starts with {).
    is_json = path.suffix.lower() == ".json" or text.lstrip().startswith("{")
    parse = parse_json if is_json else parse_text
    try:
        return parse(
            text, side=side, default_side=default_side, layouts=layouts, read_cards=read_cards
        )
    except BadMapFile as err:
        raise BadMapFile(f"{path}: {err}") from None
