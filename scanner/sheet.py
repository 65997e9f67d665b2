"""`Sheet`: what the scanner recognised on one photo (or read from a map file).

Pure data: importing this module pulls in no image or ONNX libraries, so the
report and the rules can use it freely.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.board import Map


@dataclass(frozen=True)
class Review:
    """A cell a person should look at: its printed name, why, and the top candidates."""

    space: str
    reason: str
    candidates: dict[str, float]


def shown(p: float) -> str:
    """A probability or confidence in two decimals, rounded *down*: a value just under a
    threshold (review under 0.99, unsure under 0.50) never prints as the threshold
    itself, so "low confidence" never stands beside "0.99" (0.988 prints 0.98)."""
    hundredths = int(round(p * 1e6)) // 10_000  # the rounding absorbs float noise (0.29)
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def spans(values, label=str) -> list[str]:
    """Runs of consecutive integers in words, each value put through ``label``:
    ``[2, 3, 4, 7]`` -> ``["2-4", "7"]``."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return [label(r[0]) if len(r) == 1 else f"{label(r[0])}-{label(r[-1])}" for r in runs]


#: The ``space`` of a :class:`Correction` that sets the number of marked coins.
COINS = "coins"


@dataclass(frozen=True)
class Correction:
    """A space a person set by hand (``score --set``): what it holds, and what was read;
    or, with ``space`` :data:`COINS`, the count of marked coins."""

    space: str
    symbol: str
    read: str


@dataclass(frozen=True)
class Sheet:
    """One recognised sheet.

    ``confidence`` is an 11 x 11 table of the chosen class's probability (photos
    only); ``coins`` is None when nothing said how many coins are marked.
    """

    source: str
    map: Map
    coins: int | None = None
    confidence: tuple[tuple[float, ...], ...] | None = None
    coin_confidence: float | None = None
    review: tuple[Review, ...] = ()
    notes: tuple[str, ...] = field(default=())
    orientation: int = 0  # degrees the photo was turned to read it upright
    fit: float | None = None  # how well the detected grid fits the 11 x 11 lattice (0..1)
    corrected: tuple[Correction, ...] = ()  # set by hand, in the map and coins already
