"""Count the marked coins on the coin track of the canonical view.

Players mark coins left to right with a cross, a tick or a scribble. The
printed coins are identical, so each coin is compared with the unmarked ones
(a game rarely earns more than 11 coins):

1. the band's centre line is found (it bends and shifts with curled paper) and
   every coin is located on it near its printed place (a bright disc in a dark
   ring); a straight row of even pitch is fitted through the clearest;
2. the light at each coin is measured on the band just above and below it and
   divided out, so shadows and glare do not read as marks; then each coin is
   brightened to the reference coin's brightest pixels (by a fifth at most), since
   the printed band is darker towards its ends while the coins are not;
3. a coin's *mark* is how much darker than the reference coin its disc is;
4. the count is the split (marked on the left, unmarked on the right) that best
   explains the marks; the confidence says how clean that split is; the coins
   that split calls unmarked then become the reference for a second reading;
5. if those "unmarked" coins are darker in the middle than at their printed ring,
   they are probably all marked (nothing was left to compare with): unsure;
6. so is a count leaving only one or two coins unmarked with a small step to them
   (the reference then held marked coins), one whose "unmarked" coins include a
   dark one (a pencil lying across the track, or marks out of order), and one
   with a coin so flat it shows no printed ring (a card or a hand over the track);
7. an unsure count is read again from each coin's darkest pixels: a thin slash or
   tick on a small, blurred sheet darkens a few pixels a lot and the disc's mean
   little. That reading is taken when it splits more clearly with a clear step
   between its groups, and stays unsure;
8. a count still unsure is read once more with each coin's light taken from the
   paper beside the band instead of the band (:func:`scanner.coin_track.track_light`);
   when that reading surely finds no coin marked, it is taken, unless
9. the darkest pixels in the paper's light split clearly into marked and unmarked
   coins: then that count is taken, still unsure, if it splits more clearly than the
   same reading in the band's light;
10. a count still read as none marked, unsurely, is read once more against the last
   coin alone (marks go left to right, so it is the likeliest unmarked one when the
   brightest coins are marked too): a clear split there is taken, still unsure;
11. on a colour photo, the first coin read unmarked is listed as covered when its disc
   is not the printed gold its fellows show (a pencil lying on it: the count may be
   higher), as is every coin flat enough to show nothing (step 6's).

Steps 1 and 2 (locating the coins, cutting their discs and measuring their light) are
:mod:`scanner.coin_track`'s; the count is decided here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from scanner import geometry as g
from scanner.coin_track import (
    band_centre_line,
    locate_coins,
    ring_contrast,
    track_grey,
    track_light,
    unlit_discs,
)
from scanner.median import fast_median, fast_percentile
from scanner.sheet import spans

MIN_CONTRAST = 0.02  # marked and unmarked groups must differ at least this much
_REFERENCE_COINS = 3  # the brightest coins, taken as unmarked for the reference
_NO_SPLIT_SEEN = 0.3  # confidence when the coins in the photo are all alike
_CLEAR_OF_GROUPS = 0.1  # a coin this near (share of the step) its group's median is clear
# The unmarked coins' spread is taken as at least this, so a step needs 6x it (0.015)
# even on a clean pale track: an unmarked track under a light gradient reaches
# ~0.0145, the faintest true marks on 548 tuning photos 0.0235.
_MIN_NOISE = 0.0025
# Each coin is also lit by its own brightest pixels (up to this much brighter than the
# band says): on the real print the band darkens by 10-20 % at the last coins and a
# few % at the first, while the coins do not, and the band's light alone reads 12 marks
# on a blank track. 0.2 covers that; a scribble that darkens even a coin's brightest
# pixels stays marked. Chosen on 1493 tuning photos (seeds 300000+, 301000+, synthesis
# 13-15): 41 -> 36 wrong counts, and the blank print reads 0 on both sides.
_OWN_LIGHT_LIMIT = 0.2
_OWN_LIGHT_PERCENTILE = 98
# When the coins a reading calls unmarked have their middles darker than their rings
# (median over them), they are most likely all marked (a full track of faint marks
# reads 0): the count is then given with low confidence. On 2798 tuning tracks this
# flagged 2 of the 9 unflagged wrong counts and no right one (at -0.03: 2 and 3).
_HIDDEN_RING = -0.05
# When fewer than _REFERENCE_COINS coins are left unmarked, the first reading's
# reference held marked coins and no second reading is made: a step between the groups
# below this is no evidence (a full track of 14 light ticks read 13 at confidence 1.0,
# fresh photo 146016; the unflagged right counts of 12-13 on 1,192 tuning tracks step
# 0.058 or more).
_SHORT_REFERENCE_STEP = 0.05
# A coin the count calls unmarked yet darker than this against the reference means
# something lies on the track (a pencil across it read 0 at confidence 1.0, fresh
# photo 146085) or marks out of order: unsure. No right count among the 1,192 tuning
# tracks has an "unmarked" coin above 0.08.
_DARK_UNMARKED = 0.1
# An unsure count (under _SURE) is read again with each coin's mark taken from the
# darkest _THIN_MARK_SHARE of its disc's pixels; that count is kept when its split is
# clearer and its marked coins are at least _THIN_MARK_STEP darker than the rest, at a
# confidence of at most _THIN_MARK_CONFIDENCE (still flagged). On 1,192 tuning tracks
# (seeds 300000+, 301000+, synthesis 15) wrong counts fell 26 -> 15 (hard 25 -> 14,
# normal 1 -> 1) and no count was flagged that was not before; the counts it mended
# stepped 0.065 or more, a blank print whose band darkens at its end 0.02. Used for
# every reading it cut hard errors too but misread three normal tracks.
_SURE = 0.5
# A coin whose disc (light divided out) is this flat shows neither its printed ring
# nor a mark: something lies on the track (a card, a hand), so the count is unsure.
# Covered coins measure 0.000-0.010 (tuning photos 302000+ with a card painted over
# an edge, benchmarks/occlude.py); no coin of 120 plain tuning photos (300000+,
# normal and hard: 1,680 coins) is under 0.022, the small blurred ones included.
_FLAT_DISC = 0.012
_THIN_MARK_SHARE = 0.15
_THIN_MARK_STEP = 0.05
_THIN_MARK_CONFIDENCE = 0.45
# A count read at least _SURE but under _THIN_CHECK_BELOW is checked once more: when the
# coins it calls unmarked differ among themselves in their darkest pixels (the thin-mark
# reading) by more than _THIN_AMONG_UNMARKED, one of them still bears a mark, and the count
# is unsure (_THIN_MARK_CONFIDENCE). Fresh normal photo 228123 (session 48): 13 graphite
# X's fading along the track read 7 at 0.64; its coins 8-13 keep thin marks of 0.10-0.24
# against coin 14's 0.02. On 1196 spent photos (220000+ to 228000+, normal and hard; rule
# C2) the check caught 5 of the 6 wrong counts read at 0.5 or more and flagged 2 right
# ones of 1138. Sure counts (0.99 and more, 5 photos in 6 on normal photos) skip it:
# the thin-mark reading costs 4 ms on the critical path.
_THIN_CHECK_BELOW = 0.99
_THIN_AMONG_UNMARKED = 0.15
# Step 9 (:func:`_clear_thin_marks`) takes a thin-mark reading in the paper's light whose
# split is at least this clear. Chosen on 800 tuning photos (300000+ normal and hard,
# 302000+ with something lying on the sheet, normal and hard; session 37): wrong counts
# 41 -> 38 at 0.6 and none turned wrong (0.5: 37, one turned wrong; 0.7: 39).
_PAPER_THIN_SURE = 0.6
# Step 10 (:func:`_against_last_coin`) takes a split against the last coin whose marked
# coins are all at least this much darker than it. Tuning tracks (session 55: 897 of
# spent seeds 240000+, 242000+ and 248000+, normal and hard): 5 read none marked
# unsurely, none of them blank; against the last coin three split right (13, 13 and 7
# marked; their lightest marks 0.129, 0.033 and 0.103), one at 9 with marks from 0.009
# (kept as none) and one at 0. On the fresh tracks of 250000+ (299) it changed no count.
_LAST_COIN_MARK = 0.03
# Step 11 (:func:`_first_unmarked_hidden`): the printed coins are gold, so the middle of
# an unmarked disc has little blue beside its red and green: (min(R, G) - B) / max(R, G)
# measures 0.45-0.75 on colour photos, about 0 on grey ones. A pencil's ferrule or eraser
# over the coin after the marked ones leaves edges (not flat) and no gold: reshot
# composite 3073 (session 63, our game in the real side-B print) read 3 coins as 2 at 0.97
# with no note, its third coin at 0.03 against 0.55. Coloured marks take the gold from
# marked coins too (blue crosses 0.2), so only the first coin read unmarked is asked,
# against the median of the coins read unmarked (at least _GOLD_FELLOWS of them, with a
# median of _GOLD_SHOWN or more: a colour photo of the gold print).
_GOLD_SHOWN = 0.25
_GOLD_LOST = 0.5  # the first unmarked coin has less than this share of its fellows' gold
_GOLD_FELLOWS = 3
_GOLD_MIDDLE = 0.6  # the share of the coin's radius whose pixels are measured


@dataclass(frozen=True)
class CoinReading:
    """Marked coins (0..14), confidence 0..1, each coin's mark and centre (view pixels)."""

    count: int
    confidence: float
    marks: tuple[float, ...]
    centres: tuple[tuple[float, float], ...]
    #: Coins (0 = leftmost) whose disc is flat in the band's light: something lies on them.
    covered: tuple[int, ...] = ()


def read_coin_track(view: np.ndarray, visible: int = g.COIN_COUNT) -> CoinReading:
    """Read the coin track of an upright canonical view (``scanner.geometry`` layout).

    The first reading compares every coin with the brightest ones; when it
    leaves at least ``_REFERENCE_COINS`` coins unmarked, the coins are compared
    again with exactly those (the brightest can be thinly marked ones).

    ``visible``: only the first coins are in the photo (the track runs off its
    edge). Marks go left to right, so a split between marked and unmarked coins
    among them settles the count; when they all look alike (all marked, or none)
    the count is reported with a low confidence.

    A count read unsurely in the band's light is read again in the paper's
    (:func:`scanner.coin_track.track_light`), and a blank track read surely there is
    taken. On the real print the band darkens towards its last coins while they do not:
    in the band's light the last coins look the brightest, the other unmarked ones
    marked against them, and 7 of 16 photos of a blank real print (turned, shrunk, warm,
    slanted) read unsurely, two of them as 12 and 13 coins; in the paper's light all 16
    read 0 surely. Only a blank reading is taken: on tracks under a card or a pencil in
    dim light the paper's reading was sure of 14 and 10 coins against 3 and 7. The
    counts of 520 tuning photos (seeds 300000+ and 172000+, normal and hard; 302000+
    with something lying on the sheet; synthesis 25) and of 76 real prints with marks
    drawn in stay as they were. Nor is a blank reading taken when the band's light
    shows marks the paper's light must not overrule (:func:`_thin_marks_in`).

    A count read short of sure (``_THIN_CHECK_BELOW``) whose "unmarked" coins still
    differ in their darkest pixels is given as unsure (:func:`thin_mark_among_unmarked`).
    """
    grey = track_grey(view)
    radius = g.COIN_RADIUS * g.CANON_PX_PER_CELL
    centres = locate_coins(grey, radius, band_centre_line(view))
    unlit = unlit_discs(grey, centres)  # cut once, read in either light

    def discs_in(on_paper: bool) -> np.ndarray:
        light = track_light(grey, centres, on_paper)[:, None, None]
        return (unlit / light)[:visible]

    band = discs_in(on_paper=False)
    covered = set(np.flatnonzero(covered_coins(band)).tolist())
    reading = _reading(band, lambda: discs_in(on_paper=True), centres, visible)
    if _SURE <= reading.confidence < _THIN_CHECK_BELOW and thin_mark_among_unmarked(
        band, reading.count
    ):
        reading = replace(reading, confidence=min(reading.confidence, _THIN_MARK_CONFIDENCE))
    if reading.count == 0 and reading.confidence < _SURE:
        reading = _against_last_coin(band, reading)
    if _first_unmarked_hidden(coin_gold(view, centres[:visible], radius), reading.count):
        covered.add(reading.count)
    return replace(reading, covered=tuple(sorted(covered)))


def coin_gold(view: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """Per coin, how gold the middle of its disc is: the median over the pixels within
    ``_GOLD_MIDDLE`` of its radius of (min(R, G) - B) / max(R, G) (step 11); NaN for a
    coin whose middle leaves the view."""
    r = int(np.ceil(_GOLD_MIDDLE * radius))
    dy, dx = np.mgrid[-r : r + 1, -r : r + 1]
    inside = dx**2 + dy**2 <= (_GOLD_MIDDLE * radius) ** 2
    height, width = view.shape[:2]
    out = np.full(len(centres), np.nan)
    for i, (x, y) in enumerate(np.rint(centres).astype(int)):
        if r <= x < width - r and r <= y < height - r:
            disc = view[y - r : y + r + 1, x - r : x + r + 1][inside].astype(np.float32)
            blue, green, red = disc.T
            out[i] = np.median((np.minimum(red, green) - blue) / np.maximum(red, green).clip(1))
    return out


def _first_unmarked_hidden(gold: np.ndarray, count: int) -> bool:
    """Step 11: the first coin read unmarked has lost the gold its unmarked fellows show."""
    fellows = gold[count:]
    fellows = fellows[np.isfinite(fellows)]
    if len(fellows) < _GOLD_FELLOWS or not np.isfinite(gold[count]):  # enough fellows: it exists
        return False
    median = float(np.median(fellows))
    return median >= _GOLD_SHOWN and float(gold[count]) < _GOLD_LOST * median


def _against_last_coin(band: np.ndarray, reading: CoinReading) -> CoinReading:
    """Step 10: an unsure "none marked" read again against the last visible coin.

    A graphite player who scribbled over 13 of the 14 coins leaves one printed coin to
    compare with; against the three brightest (two of them marked) every mark looks
    small and the track reads as none marked (fresh hard photos 248038 and 248146,
    session 55). Against the last coin the 13 split clearly. The count taken stays
    unsure (``_THIN_MARK_CONFIDENCE`` at most), so it is still listed for a look.
    """
    if len(band) < 2 or covered_coins(band[-1:]).any():
        return reading
    marks = coin_marks(band, np.arange(len(band) - 1, len(band)))
    count, confidence = split_marks(marks)
    if count == 0 or confidence < _SURE or float(marks[:count].min()) < _LAST_COIN_MARK:
        return reading
    return _taken_unsure(reading, marks, count)


def thin_mark_among_unmarked(discs: np.ndarray, count: int) -> bool:
    """Whether the coins a count calls unmarked (from ``count`` on) differ among
    themselves by more than ``_THIN_AMONG_UNMARKED`` in the thin-mark reading (their
    darkest pixels): a faint mark on one of them (``discs``: the visible coins' discs,
    light divided out)."""
    marks = _two_readings(discs, _THIN_MARK_SHARE)[0][count:]
    return len(marks) >= 2 and float(marks.max() - marks.min()) > _THIN_AMONG_UNMARKED


def _reading(
    band: np.ndarray, paper_discs: Callable[[], np.ndarray], centres: np.ndarray, visible: int
) -> CoinReading:
    """Steps 3-9 of :func:`read_coin_track` on the band's discs, and, for an unsure count,
    on the discs in the paper's light (``paper_discs()``)."""
    reading = _read_discs(band, centres, visible)
    if reading.confidence >= _SURE:
        return reading
    paper = paper_discs()
    thin = _clear_thin_marks(paper)
    if thin is None:
        in_paper_light = _read_discs(paper, centres, visible)
        if (
            in_paper_light.count == 0
            and in_paper_light.confidence >= _SURE
            and not _thin_marks_in(band, in_paper_light.confidence)
        ):
            return in_paper_light
        return reading
    marks, count, confidence = thin
    if confidence <= _two_readings(band, _THIN_MARK_SHARE)[2]:
        return reading
    return _taken_unsure(reading, marks, count)


def _taken_unsure(reading: CoinReading, marks: np.ndarray, count: int) -> CoinReading:
    """Another reading's ``count`` (and ``marks``) taken over ``reading``, still unsure:
    its confidence at most ``_THIN_MARK_CONFIDENCE``, so the count is listed for a look."""
    return CoinReading(
        count,
        min(reading.confidence, _THIN_MARK_CONFIDENCE),
        tuple(round(float(m), 4) for m in marks),
        reading.centres,
    )


def describe_coins(coins: tuple[int, ...]) -> str:
    """Coins (0 = leftmost) as a person counts them on the track: ``"coins 9-14"``,
    ``"coin 3"``, ``"coins 2, 5-6"``."""
    parts = spans(coins, lambda i: str(i + 1))
    return ("coin " if len(coins) == 1 else "coins ") + ", ".join(parts)


def _clear_thin_marks(paper: np.ndarray) -> tuple[np.ndarray, int, float] | None:
    """Step 9's reading: marks, count and confidence from the coins' darkest pixels in
    the paper's light, when that split is clear (``_PAPER_THIN_SURE``) and steps as a
    thin mark does; else None.

    A track of bold crosses on a blurred, dim photo (tuning photo 300077, 13 marked)
    read 10 in the band's light, where the band darkens towards its end while the
    coins do not; from the darkest pixels in the paper's light it splits clearly at 13.
    Such a split also stops step 8 from calling the track surely blank: on tuning photos
    302018 and 302060 (3 and 6 marked) and fresh 184004 (13 thin crosses on a sheet
    filling 8 % of the frame) the paper's light read no coin marked, surely.
    """
    marks, count, confidence = _two_readings(paper, _THIN_MARK_SHARE)
    if confidence < _PAPER_THIN_SURE or _step(marks, count) < _THIN_MARK_STEP:
        return None
    return marks, count, confidence


def _thin_marks_in(band: np.ndarray, blank: float) -> bool:
    """Whether the band's light shows marks that the paper's "none marked" reading
    (confidence ``blank``) must not overrule: the coins' darkest pixels split more
    surely than ``blank`` and step as thin marks do, or they split at the same count,
    above none, as the whole discs do.

    On fresh photo 190097 (8 thin crosses, the sheet on 10 % of the frame) the band's
    darkest pixels split at 8 (0.77) while the paper's light, dim at the last coins,
    read none marked at 0.53. On fresh photo 196059 (5 ticks in glare, the sheet on 8 %
    of the frame) the whole discs and the darkest pixels both split at 5, unsurely
    (0.40 and 0.37), while the paper's light read none marked at 0.72.
    """
    marks, count, confidence = _two_readings(band, _THIN_MARK_SHARE)
    if confidence > blank and _step(marks, count) >= _THIN_MARK_STEP:
        return True
    return count > 0 and count == _two_readings(band)[1]


def _read_discs(discs: np.ndarray, centres: np.ndarray, visible: int) -> CoinReading:
    """Steps 3-7 on the visible coins' discs, their light divided out."""
    radius = g.COIN_RADIUS * g.CANON_PX_PER_CELL
    marks, count, confidence = _two_readings(discs)
    if count < len(discs) and np.median(ring_contrast(discs[count:], radius)) < _HIDDEN_RING:
        confidence = min(confidence, _NO_SPLIT_SEEN)  # the "unmarked" coins look covered
    if short_reference_doubt(marks, count):
        confidence = min(confidence, _NO_SPLIT_SEEN)
    if dark_among_unmarked(marks, count):
        confidence = min(confidence, _NO_SPLIT_SEEN)
    if confidence < _SURE:  # thin marks may show only in the darkest pixels
        thin_marks, thin_count, thin_confidence = _two_readings(discs, _THIN_MARK_SHARE)
        step = _step(thin_marks, thin_count)
        if thin_confidence > confidence and step >= _THIN_MARK_STEP:
            marks, count = thin_marks, thin_count
            confidence = min(thin_confidence, _THIN_MARK_CONFIDENCE)
    if visible < g.COIN_COUNT and count in (0, visible):
        confidence = min(confidence, _NO_SPLIT_SEEN)
    if covered_coins(discs).any():
        confidence = min(confidence, _NO_SPLIT_SEEN)
    return CoinReading(
        count,
        confidence,
        tuple(round(float(m), 4) for m in marks),
        tuple((float(x), float(y)) for x, y in centres[:visible]),
    )


def _two_readings(discs: np.ndarray, darkest: float | None = None) -> tuple[np.ndarray, int, float]:
    """Marks, count and confidence: against the brightest coins, then (when that
    leaves at least ``_REFERENCE_COINS`` unmarked) against exactly those."""
    marks = coin_marks(discs, darkest=darkest)
    count, confidence = split_marks(marks)
    if len(discs) - count >= _REFERENCE_COINS:
        marks = coin_marks(discs, np.arange(count, len(discs)), darkest=darkest)
        count, confidence = split_marks(marks)
    return marks, count, confidence


def _step(marks: np.ndarray, count: int) -> float:
    """How much darker the marked coins are than the rest, on average (0 for none)."""
    if count == 0:
        return 0.0
    rest = marks[count:]
    return float(marks[:count].mean() - (rest.mean() if rest.size else 0.0))


def short_reference_doubt(marks: np.ndarray, count: int) -> bool:
    """A count leaving 1 or 2 coins unmarked with only a small step to them.

    Such a count was read against a reference of the brightest coins, marked ones
    among them, so the step says little: a full track of faint marks can look like
    this with its lightest mark taken for unmarked.
    """
    marks = np.asarray(marks, np.float64)
    left = len(marks) - count
    if count == 0 or not 0 < left < _REFERENCE_COINS:
        return False
    return _step(marks, count) < _SHORT_REFERENCE_STEP


def dark_among_unmarked(marks: np.ndarray, count: int) -> bool:
    """A coin the count calls unmarked is as dark as a mark (``_DARK_UNMARKED``)."""
    marks = np.asarray(marks, np.float64)
    return count < len(marks) and float(marks[count:].max()) > _DARK_UNMARKED


def covered_coins(discs: np.ndarray) -> np.ndarray:
    """Per coin, whether its disc is flat (``_FLAT_DISC``): hidden under something."""
    return _unshifted(discs).std(axis=1) < _FLAT_DISC


def _unshifted(discs: np.ndarray) -> np.ndarray:
    """Each coin's unshifted cut (``discs[:, 0]``), laid out coin after coin per pixel.

    numpy then sums each coin's pixels one after another (not pairwise, as along a
    row), the order the mean and spread of the cuts were first measured in: their
    last bits, and the brightest coins, stay as they were.
    """
    return np.asfortranarray(discs[:, 0])


def coin_marks(
    discs: np.ndarray,
    unmarked: np.ndarray | None = None,
    own_light: bool = True,
    darkest: float | None = None,
) -> np.ndarray:
    """How much darker than the reference each coin's disc is, on average.

    The reference is the per-pixel median of the ``unmarked`` coins (indices),
    by default the ``_REFERENCE_COINS`` brightest discs; each coin is compared
    at the shift (axis 1 of ``discs``) where it looks least marked. ``own_light``:
    a coin whose brightest pixels are darker than the reference's is first
    brightened to match (by ``_OWN_LIGHT_LIMIT`` at most, so a coin scribbled all
    over stays dark). ``darkest``: average only that share of each disc's pixels,
    the most darkened ones (a thin stroke), instead of the whole disc.
    """
    centred = discs[:, 0]
    if unmarked is None:
        unmarked = np.argsort(_unshifted(discs).mean(axis=1))[-_REFERENCE_COINS:]
    reference = np.median(centred[unmarked], axis=0)
    gain = np.ones(len(discs), np.float32)
    if own_light:
        top = fast_percentile(centred, _OWN_LIGHT_PERCENTILE)
        ratio = fast_percentile(reference, _OWN_LIGHT_PERCENTILE) / np.maximum(top, 1e-6)
        gain = np.clip(ratio, 1.0, 1.0 + _OWN_LIGHT_LIMIT).astype(np.float32)
    # max(reference - gain * disc, 0) = gain * max(reference / gain - disc, 0): one
    # temporary array of the discs' size instead of three.
    diff = (reference / gain[:, None])[:, None, :] - discs
    np.maximum(diff, 0, out=diff)
    if darkest is not None:
        k = max(1, int(darkest * diff.shape[2]))
        np.negative(diff, out=diff)  # partitioned in place: the k largest come first
        diff.partition(k - 1, axis=2)
        diff = -diff[:, :, :k]
    return diff.mean(axis=2).min(axis=1) * gain


def _leading_medians(values: np.ndarray) -> np.ndarray:
    """The medians of ``values[:k]`` for k = 1 .. len(values), the numbers
    :func:`scanner.median.fast_median` gives: every leading run sorted at once, each
    padded to full length with infinities."""
    n = len(values)
    runs = np.where(np.tri(n, dtype=bool), values, np.inf)
    runs.sort(axis=1)
    k = np.arange(n)  # run k holds k + 1 values
    # The middle one twice (an odd run; halving its double is exact), or the middle two.
    return (runs[k, k // 2] + runs[k, (k + 1) // 2]) / 2


def split_marks(marks: np.ndarray, min_contrast: float = MIN_CONTRAST) -> tuple[int, float]:
    """Best count n (coins [0, n) marked, [n, 14) not) and a confidence in 0..1.

    Marks go left to right, so the count is a single change point: the split
    whose two groups (marked on the left, unmarked on the right) each sit
    closest to their own median. The split counts only when the marked group is
    darker than the unmarked one by ``min_contrast`` or by several times the
    unmarked coins' own spread (pale, washed-out photos).

    >>> split_marks(np.array([0.2, 0.2, 0.19] + [0.0] * 11))[0]
    3
    >>> split_marks(np.zeros(14))[0]
    0
    """
    marks = np.asarray(marks, np.float64)
    total = len(marks)
    # Split after k = 1..total coins: each side's absolute deviations from its median
    # (a single very dark mark must not pull the split).
    left_medians = _leading_medians(marks)  # of marks[:k], k = 1..total
    right_medians = _leading_medians(marks[::-1])[::-1]  # of marks[k:], k = 0..total-1
    cost = np.full(total, np.inf)
    for k in range(1, total + 1):
        left, right = marks[:k], marks[k:]
        if right.size and left_medians[k - 1] <= right_medians[k]:
            continue
        cost[k - 1] = np.abs(left - left_medians[k - 1]).sum() + (
            np.abs(right - right_medians[k]).sum() if right.size else 0.0
        )
    n = int(np.argmin(cost)) + 1 if np.isfinite(cost).any() else 0
    if n == 0:
        return 0, 1.0
    right = marks[n:]
    step = _step(marks, n)
    noise = max(float(np.std(right)) if right.size > 1 else 0.0, _MIN_NOISE)
    threshold = min(min_contrast, 6 * noise)
    if step < threshold:
        # Nothing marked: sure when even the best split is far below the threshold.
        return 0, float(np.clip(1.0 - step / threshold, 0.0, 1.0))
    if not right.size:
        # Every coin marked: each must stand out on its own, or light falling
        # unevenly along an unmarked track would read as a full one.
        if marks.min() < min_contrast:
            return 0, float(np.clip(1.0 - marks.min() / min_contrast, 0.0, 1.0))
        return n, float(np.clip(marks.min() / (2 * min_contrast), 0.0, 1.0))
    # How cleanly the two groups separate: the gap between them over the step, and
    # whether some coin sits halfway between the groups' medians (a faint mark, or
    # glare fading the last ones): then the count is uncertain.
    gap = marks[:n].min() - right.max()
    low, high = fast_median(right), left_medians[n - 1]
    place = (marks - low) / max(high - low, 1e-9)
    # Marks run from the left without gaps, so a coin left of a clearer marked one is
    # marked as surely as that one (a lighter stroke among the first coins is no doubt).
    # Any coin on the unmarked side that is halfway dark still is one.
    sure = np.concatenate([np.maximum.accumulate(place[:n][::-1])[::-1], place[n:]])
    between = float(np.max(np.minimum(sure, 1 - sure)))
    confidence = min(0.5 + gap / step, 1 - (between - _CLEAR_OF_GROUPS) / 0.5)
    return n, float(np.clip(confidence, 0.0, 1.0))
