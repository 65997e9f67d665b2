"""Tournament settings from a small TOML file: the four cards, set once for many sheets.

``cartoscore.toml`` next to the photos (or in the current directory), or any file
given with ``--cards-file``::

    # cartoscore.toml
    cards = ["sentinel-wood", "canal-lake", "great-city", "borderlands"]  # edicts A-D
    side = "auto"   # optional: auto, A or B

``cards`` may also be a table: ``[cards]`` with keys ``A`` .. ``D``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from scoring.cards import UnknownCard, find_card
from scoring.game import EDICTS

CONFIG_NAME = "cartoscore.toml"


class BadConfig(ValueError):
    """The settings file is unreadable or says something we cannot use."""


@dataclass(frozen=True)
class Settings:
    """What a settings file fixes: cards by edict (ids), side ("A", "B" or None = detect)."""

    source: str
    cards: dict[str, str] | None = None
    side: str | None = None


def load_settings(path: str | Path) -> Settings:
    """Read a settings file.

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
    unknown = set(data) - {"cards", "side"}
    if unknown:
        raise BadConfig(f"{name}: unknown setting(s) {', '.join(sorted(unknown))}")
    return Settings(name, _cards(name, data.get("cards")), _side(name, data.get("side")))


def _cards(name: str, value: object) -> dict[str, str] | None:
    if value is None:
        return None
    if isinstance(value, dict):
        if sorted(k.upper() for k in value) != list(EDICTS):
            raise BadConfig(f"{name}: [cards] needs the keys A, B, C, D")
        names = [value[k] for k in sorted(value, key=str.upper)]
    elif isinstance(value, list):
        names = value
    else:
        raise BadConfig(f"{name}: cards must be a list of 4 cards or a table A..D")
    if len(names) != len(EDICTS) or not all(isinstance(n, str) for n in names):
        raise BadConfig(f"{name}: cards must name 4 cards (edicts A-D), got {names!r}")
    try:
        return {e: find_card(n).id for e, n in zip(EDICTS, names, strict=True)}
    except UnknownCard as err:
        raise BadConfig(f"{name}: {err}") from None


def _side(name: str, value: object) -> str | None:
    if value is None or (isinstance(value, str) and value.lower() == "auto"):
        return None
    if not isinstance(value, str) or value.upper() not in ("A", "B"):
        raise BadConfig(f"{name}: side must be auto, A or B, got {value!r}")
    return value.upper()


def find_settings(input_path: str | Path, cwd: str | Path | None = None) -> Path | None:
    """The ``cartoscore.toml`` next to an input, else in ``cwd`` (default: the current dir)."""
    for folder in (Path(input_path).parent, Path(cwd) if cwd is not None else Path.cwd()):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None
