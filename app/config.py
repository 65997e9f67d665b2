"""Tournament settings from a small TOML file: the four cards, set once for many sheets.

``cartoscore.toml`` next to the photos or in a folder above them (the nearest; the
photos' real folders before a link's: :func:`find_settings`), or in the current
directory, or any file given with ``--cards-file``::

    # cartoscore.toml
    cards = ["sentinel-wood", "canal-lake", "great-city", "borderlands"]  # edicts A-D
    side = "auto"   # optional: auto, A or B

    [set]           # optional: spaces set by hand after checking, per sheet
    "table3.jpg" = "C3=F,E7=T"
    "round2/table5.jpg" = ["A1=forest", "B2=."]
    "table7.jpg" = "side=B"   # this sheet's printed side (``side`` above is for all)

``cards`` may also be a table: ``[cards]`` with keys ``A`` .. ``D``. ``[set]`` names
sheets by their path from the settings file's folder, with what ``score --set`` takes.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from app.corrections import BadCorrection, Fixes, parse_corrections
from app.results import sheet_key
from scoring.cards import UnknownCard
from scoring.game import BadDeal, by_edict, deal
from scoring.layouts import parse_side

CONFIG_NAME = "cartoscore.toml"
#: The problem of a sheet scored with no cards from anywhere (``score`` and ``batch``).
NO_CARDS = "no cards (give --cards A,B,C,D, --cards-file, a cartoscore.toml or a 'cards:' header)"


def pick_cards(
    source: str, given: dict[str, str] | None, found: dict[str, str] | None
) -> dict[str, str]:
    """The cards to score an input with: ``given`` for every input (``--cards``,
    ``--cards-file``), else ``found`` with it (its map file's ``cards:`` header, else
    the nearby settings file's). ValueError (:data:`NO_CARDS`, naming ``source``) when
    there are none."""
    cards = given or found
    if cards is None:
        raise ValueError(f"{source}: {NO_CARDS}")
    return cards


class BadConfig(ValueError):
    """The settings file is unreadable or says something we cannot use."""


@dataclass(frozen=True)
class Settings:
    """What a settings file fixes: cards by edict (ids), side ("A", "B" or None = detect),
    and what is set by hand per sheet (``[set]``, keyed by
    :func:`app.results.sheet_key`, as batch knows its sheets)."""

    source: str
    cards: dict[str, str] | None = None
    side: str | None = None
    fixes: dict[str, Fixes] = field(default_factory=dict)

    def fixes_for(self, sheet: str | Path) -> Fixes:
        """What is set by hand for one sheet (empty when the file names none)."""
        return self.fixes.get(sheet_key(sheet), {})


@dataclass(frozen=True)
class ForInput:
    """What the settings say for one input, the same in ``score``, ``read`` and ``batch``."""

    fixes: Fixes  # set by hand: the settings file's [set] for it, then --set (which wins)
    side: str | None  # to read it as: set by hand for it, else --side (None: detect)
    default_side: str | None  # the settings file's side: for an input that names none
    default_cards: dict[str, str] | None  # a nearby settings file's: after a map's header
    settings: Settings | None  # the settings file in use, if any


def load_settings(path: str | Path, *, read_cards: bool = True) -> Settings:
    """Read a settings file; ``read_cards`` False leaves its ``cards`` unread (None), for
    ``read``, which uses none.

    Raises
    ------
    BadConfig
        Missing or unreadable file, TOML syntax error, unknown card, wrong number of
        cards, unknown side; the message names the file.
    """
    name = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadConfig(f"{name}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BadConfig(f"{name}: cannot read ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise BadConfig(f"{name}: not valid TOML ({e})") from None
    unknown = set(data) - {"cards", "side", "set"}
    if unknown:
        raise BadConfig(f"{name}: unknown setting(s) {', '.join(sorted(unknown))}")
    fixes = _fixes(name, Path(path).parent, data.get("set"))
    cards = _cards(name, data.get("cards")) if read_cards else None
    return Settings(name, cards, _side(name, data.get("side")), fixes)


def _fixes(name: str, folder: Path, value: object) -> dict[str, Fixes]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadConfig(f'{name}: [set] must be a table of sheets ("table3.jpg" = "C3=F")')
    out = {}
    for sheet, given in value.items():
        items = [given] if isinstance(given, str) else given
        if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
            raise BadConfig(f'{name}: [set] "{sheet}": give "C3=F,E7=T" or a list of them')
        try:
            out[sheet_key(folder / sheet)] = parse_corrections(items, f'[set] "{sheet}"')
        except BadCorrection as err:
            raise BadConfig(f"{name}: {err}") from None
    return out


def _cards(name: str, value: object) -> dict[str, str] | None:
    if value is None:
        return None
    if isinstance(value, dict):
        try:
            value = by_edict(value)
        except BadDeal:
            raise BadConfig(f"{name}: [cards] needs the keys A, B, C, D") from None
    elif not isinstance(value, list):
        raise BadConfig(f"{name}: cards must be a list of 4 cards or a table A..D")
    try:
        return deal(value)
    except BadDeal:
        raise BadConfig(f"{name}: cards must name 4 cards (edicts A-D), got {value!r}") from None
    except UnknownCard as err:
        raise BadConfig(f"{name}: {err}") from None


def _side(name: str, value: object) -> str | None:
    if value is None:
        return None
    problem = BadConfig(f"{name}: side must be auto, A or B, got {value!r}")
    if not isinstance(value, str):
        raise problem
    try:
        return parse_side(value)
    except ValueError:
        raise problem from None


def find_settings(input_path: str | Path, cwd: str | Path | None = None) -> Path | None:
    """The ``cartoscore.toml`` nearest an input, looked for in this order:

    1. the input's real folder (links to folders resolved) and the folders above it:
       the settings that live with the photos, as batch rows and ``[set]`` know the
       sheets by their real paths;
    2. the folder as given (through a link) and the folders above it;
    3. ``cwd`` (default: the current dir).

    The nearest folder first in each (a round's file at the top of its folder serves
    the tables' subfolders). An input that is itself a link to a file is taken as put
    in the link's folder: a photo linked into a round takes the round's settings.
    """
    given = Path(input_path).absolute().parent
    real = Path(os.path.realpath(given))
    here = Path(cwd) if cwd is not None else Path.cwd()
    for folder in dict.fromkeys((real, *real.parents, given, *given.parents, here)):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None
