"""Doubts about a coin count: coins outside the photo or cut by its edge, covered, lying
off the track's line, under something over the map's foot, or none read on a played map.
Each doubt caps the count's confidence below 0.5 and says why, and how to mend it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from scanner import geometry as g
from scanner.coins import describe_coins
from scanner.covered import COVERED
from scanner.geometry import COIN_COUNT
from scanner.photo_edge import in_photo
from scanner.sheet import shown
from scoring.board import Map
from scoring.layouts import SIZE, parse_space

if TYPE_CHECKING:
    from scanner.pipeline import Scan
    from scanner.sheet import Review

#: How a doubtful coin count is mended, the same in ``score`` and ``read`` (``--set``)
#: and in a batch's settings file (``[set]``).
COUNT_BY_HAND = "(set the count by hand: coins=N)"
#: A map with at least this many drawn terrain spaces (about two seasons' shapes) is
#: played: coins come with shapes and surrounded mountains, so a coin track read all
#: unmarked there is more likely faint ticks missed than a game without a coin.
PLAYED_SPACES = 30


def coins_in_photo(homography: np.ndarray, shape: tuple[int, ...]) -> int:
    """How many coins, from the first, have their centre in the image.

    ``homography``: upright cell units -> image pixels. A coin cut by the photo's
    edge usually still shows its mark (on held-out renders, refusing cut coins
    made more counts wrong than it saved); one whose centre is outside would be
    read from border pixels smeared outwards. 0 when the first coin's is outside.
    """
    centres = np.float64([g.coin_center(i) for i in range(g.COIN_COUNT)])
    inside = in_photo(homography, shape, centres, 0.0)
    return int(np.argmin(inside)) if not inside.all() else g.COIN_COUNT


#: Half the height of the strip around a coin its reading looks at (the band above and
#: below it, scanner/coins.py), in cells.
COIN_STRIP = 0.3
#: The confidence a count keeps at most when the pipeline doubts it (below 0.5: the report
#: says the count is uncertain): it calls a coin cut by the photo's edge marked, some coins
#: look covered or lie off the track's line, something covers the map's bottom row above
#: counted coins, or no coin is read on a played map.
DOUBTED_COUNT_CONFIDENCE = 0.45


#: This many covered cells (:mod:`scanner.covered`) in the map's bottom row, or more, make
#: a count doubted when coins it calls marked (or the first it calls unmarked) lie below
#: them. A card or a hand over the grid's foot reaches the coin track 1.4 cells lower, and
#: the coins under it read as marks: occluded tuning photo 302018, a card over K1-K5, 7
#: coins for 3 at 1.0. One covered cell is mostly a pencil crossing, which reached the
#: track on few tuning photos; two or more flagged 8 right counts of 171 under something
#: there (2 of them with coins truly hidden) and none of 433 plain photos (docs/figures.md,
#: session 47).
COVERED_FOOT_CELLS = 2


#: Cells: a located coin whose centre lies further than this from the other coins' line
#: (the median of their heights in the upright view) was found on something lying over
#: the track. Fresh hard photo 226142: a pen across the last two coins moved the centres
#: of coins 11-14 0.2-0.3 cell down, they read brighter than the clean rings, and 3 coins
#: read as 12 at 0.57. On 1188 spent photos (rule B1, session 48) this flagged 3 wrong
#: counts nothing else flagged, all with something lying on the sheet, and 3 right ones
#: of 588 plain photos.
COIN_LINE_SLACK = 0.15


def coins_off_line(centres: Sequence[tuple[float, float]]) -> tuple[int, ...]:
    """The coins (0-based) whose located centre (``(x, y)`` cells, upright) lies more than
    :data:`COIN_LINE_SLACK` above or below the median height of them all."""
    if not centres:
        return ()
    heights = np.array([y for _, y in centres])
    return tuple(
        int(i) for i in np.flatnonzero(np.abs(heights - np.median(heights)) > COIN_LINE_SLACK)
    )


def coins_below_covered(covered: list[tuple[int, int]], count: int) -> tuple[int, ...]:
    """Coins up to the first the count calls unmarked (``count``, 0-based) that lie below
    the bottom-row cells among ``covered`` (row, column) spaces, within half a cell either
    side; none unless :data:`COVERED_FOOT_CELLS` bottom-row cells are covered."""
    columns = [c for r, c in covered if r == SIZE - 1]
    if len(columns) < COVERED_FOOT_CELLS:
        return ()
    return tuple(
        i
        for i in range(min(count + 1, COIN_COUNT))
        if any(c - 0.5 <= g.coin_center(i)[0] <= c + 1.5 for c in columns)
    )


def coins_cut(homography: np.ndarray, shape: tuple[int, ...], visible: int) -> tuple[int, ...]:
    """The coins among the first ``visible`` whose strip (``COIN_STRIP`` cells round
    their centre) the photo's edge cuts.

    Beyond the edge the canonical view repeats the edge's pixels, so the light a cut
    coin is read in is not its own: held-out photo 1060047 (fresh, session 28), its
    first coin at the bottom edge, read 3 marked coins on a blank track with no note.
    """
    if visible == 0:
        return ()
    centres = np.float64([g.coin_center(i) for i in range(visible)])
    inside = in_photo(homography, shape, centres, COIN_STRIP)
    return tuple(int(i) for i in np.flatnonzero(~inside))


def _covered_spaces(review) -> list[tuple[int, int]]:
    """The (row, column) of the cells a reading lists as covered."""
    return [parse_space(item.space) for item in review if item.reason == COVERED]


def coin_doubt(scan: Scan, review: tuple[Review, ...], game_map: Map) -> tuple[str | None, float]:
    """The note on ``scan``'s coin count, if it is doubted (the first doubt that holds),
    and the count's confidence: capped at :data:`DOUBTED_COUNT_CONFIDENCE` by a doubt
    the coin reading itself did not weigh. ``review``: the cells read, for those covered."""
    coin_confidence = scan.coin_confidence
    note = None
    seen = len(scan.coin_centres)
    if seen == 0:
        note = f"the coin track is outside the photo: coins not read {COUNT_BY_HAND}"
    elif seen < COIN_COUNT and scan.coin_confidence < 0.5:
        note = (
            f"only {seen} of the {COIN_COUNT} coins are in the photo: the count"
            f" {scan.coins} is uncertain {COUNT_BY_HAND}"
        )
    elif cut := scan.coins_cut:
        note = (
            f"coin {cut[0] + 1} is cut by the photo's edge and read as marked: the count"
            f" {scan.coins} is uncertain {COUNT_BY_HAND}"
        )
    elif covered := scan.coins_covered:
        coin_confidence = min(coin_confidence, DOUBTED_COUNT_CONFIDENCE)
        note = (
            f"{describe_coins(covered)} {'looks' if len(covered) == 1 else 'look'} covered"
            f" (a finger, pencil or card on the track?): the count {scan.coins} is uncertain"
            f" {COUNT_BY_HAND}"
        )
    elif below := coins_below_covered(_covered_spaces(review), scan.coins):
        coin_confidence = min(coin_confidence, DOUBTED_COUNT_CONFIDENCE)
        note = (
            f"something lies over the map's bottom row, above {describe_coins(below)}:"
            f" they may be hidden, and the count {scan.coins} is uncertain {COUNT_BY_HAND}"
        )
    elif off := coins_off_line(scan.coin_centres):
        coin_confidence = min(coin_confidence, DOUBTED_COUNT_CONFIDENCE)
        note = (
            f"{describe_coins(off)} {'lies' if len(off) == 1 else 'lie'} off the coin track's"
            " line (something on the track?): the count"
            f" {scan.coins} is uncertain {COUNT_BY_HAND}"
        )
    elif scan.coin_confidence < 0.5:
        note = f"coin count {scan.coins} is uncertain ({shown(scan.coin_confidence)})"
    elif scan.coins == 0 and (drawn := game_map.drawn_spaces()) >= PLAYED_SPACES:
        coin_confidence = min(coin_confidence, DOUBTED_COUNT_CONFIDENCE)
        note = (
            f"no coin is read as marked, yet {drawn} map spaces are drawn: faint marks may"
            f" be missed; check the coin track {COUNT_BY_HAND}"
        )
    return note, coin_confidence
