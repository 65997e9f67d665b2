"""Find the 11 x 11 grid in a photo.

Independent candidate generators (:mod:`scanner.candidates`: the mountain
pattern, the frame's outline, the paper's outline, long line families) propose
where the grid might be; every candidate is fitted to the printed lattice and
scored (:mod:`scanner.lattice`), cheapest cues first, until one fits well. The
best fit wins; below ``ACCEPT_SCORE`` there is no sheet.

Coordinates: image pixels are ``(x, y)`` in the working image given to
:func:`find_grid`; cell units follow :mod:`scanner.geometry` (origin at the
grid's top-left, 11 cells a side). A fit's homography maps cell units to
image pixels in the *candidate's own* orientation: which corner is A1 is
decided later by :mod:`scanner.orient`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from scanner.bend import fit_lattice, with_lattice
from scanner.candidates import (
    clockwise,
    frame_quads,
    line_quads,
    mountain_quads,
    paper_quads,
    seen_before,
)
from scanner.geometry import FRAME_OUTER_LINE, GRID_CELLS
from scanner.lattice import (
    GridFit,
    Pyramid,
    cell_size_px,
    coarse_fit,
    fine_fit,
    max_shift,
    quad_homography,
)
from scanner.mountains import dark_cell_share, paper_level
from scoring.layouts import LAYOUTS

__all__ = [
    "ACCEPT_SCORE",
    "Detection",
    "GridFit",
    "Pyramid",
    "cell_size_px",
    "coarse_fit",
    "find_grid",
    "fine_fit",
    "fit_lattice",
    "ink_image",
    "photo_ink",
    "with_lattice",
]

N = GRID_CELLS


ACCEPT_SCORE = 0.6  # below this no sheet is reported


GOOD_ENOUGH = 0.85  # a candidate this good ends the search early


FINE_FITS = 3  # candidates of one generator measured in full, best coarse scores first


CLEAR_COMB = 2.2  # a coarse (comb) score this high is measured at once


INSET_GAIN = 0.05  # a frame quad's fit from inside its ring replaces its own if this much better


RESTART_BELOW = 0.9  # a winning fit below this, its frame not all found, is measured again ...
NUDGE = 0.25  # ... from starts this many cells off along each axis ...
RESTART_GAIN = 0.01  # ... and one of those wins when it scores this much more


@dataclass
class Detection:
    """Everything detection tried (for the overlay) and the best fit, if any."""

    best: GridFit | None
    candidates: list[tuple[str, np.ndarray, float]] = field(default_factory=list)
    #: The ink pyramid the fits were measured on (for :func:`with_lattice` later).
    pyramid: Pyramid | None = field(default=None, repr=False, compare=False)


INK_BAND = 128  # rows of a photo turned into ink at a time (their planes stay in the cache)


def ink_image(image: np.ndarray) -> np.ndarray:
    """Darkness of printed lines as a uint8 image: the minimum of B, G, R.

    Orange lines (side A) vanish in grey but are dark in blue; grey and black
    lines are dark in every channel, so the channel minimum shows them all.
    """
    if image.ndim == 2:
        return image
    # Band by band, each deinterleaved into three small planes used again and again,
    # then two vectorised minima: about half the time numpy's minimum takes walking the
    # interleaved channels in place, and no photo-sized temporaries.
    h, w = image.shape[:2]
    ink = np.empty((h, w), image.dtype)
    planes = [np.empty((min(h, INK_BAND), w), image.dtype) for _ in range(3)]
    for y in range(0, h, INK_BAND):
        band = image[y : y + INK_BAND]
        blue, green, red = (plane[: len(band)] for plane in planes)
        cv2.split(band, [blue, green, red])
        cv2.min(blue, green, dst=blue)
        cv2.min(blue, red, dst=ink[y : y + len(band)])
    return ink


#: A photo whose brightest part (the 99.5th percentile of its ink image: the paper,
#: unless glare or a lamp) is darker than this is dim: its ink image is stretched to
#: put it near ``DIM_TARGET``. The frame's threshold and others below are grey levels;
#: on our game drawn into the real side-B print and darkened to a paper of 42 levels, no
#: frame was found at all.
DIM_PAPER = 120
DIM_TARGET = 200


def photo_ink(image: np.ndarray) -> np.ndarray:
    """:func:`ink_image` of a photo, stretched when its paper is dim (``DIM_PAPER``);
    photos with brighter paper get the ink image as it is."""
    ink = ink_image(image)
    sample = ink[::8, ::8].ravel()
    if not sample.size:
        return ink
    k = int(0.995 * (sample.size - 1))
    paper = float(np.partition(sample, k)[k])
    if paper >= DIM_PAPER or paper <= 0:
        return ink
    return cv2.convertScaleAbs(ink, alpha=DIM_TARGET / paper)


def find_grid(
    image: np.ndarray,
    pyramid: Pyramid | None = None,
    detection_side: int = 480,
    lattice: bool = True,
) -> Detection:
    """Locate the grid in a (working-resolution) BGR photo.

    ``pyramid`` may pass a ready :class:`Pyramid` of :func:`photo_ink`. Candidates
    are looked for on the smallest pyramid level whose long side keeps
    ``detection_side`` pixels (more finds smaller sheets, slower). Returns a
    :class:`Detection`; its ``best`` is None when nothing fitted well enough
    (score below ``ACCEPT_SCORE``). Without ``lattice`` the winner's intersections
    are left unmeasured (``best.lattice`` is None; :func:`with_lattice` on
    ``detection.pyramid`` measures them): the caller may do something beside it.
    """
    if pyramid is None:
        pyramid = Pyramid(photo_ink(image))
    small, small_scale = detection_level(pyramid, detection_side)
    small_bgr = None  # colour at the detection scale: only the mountains' generator needs it
    detection = Detection(best=None, pyramid=pyramid)
    generators = (
        ("frame", frame_quads),
        ("mountains", mountain_quads),
        ("paper", paper_quads),
        ("lines", line_quads),
    )
    seen: list[np.ndarray] = []
    measured: list[GridFit] = []  # every fine fit, for the mountains' word at the end
    good = _good_enough(pyramid)
    for name, generate in generators:
        coarse = []
        budget = FINE_FITS  # fine fits left for this generator
        if small_bgr is None and generate is mountain_quads:
            small_bgr = cv2.resize(image, small.shape[::-1], interpolation=cv2.INTER_AREA)
        quads = [clockwise(q / small_scale) for q in generate(small, small_bgr)]
        for i, quad in enumerate(quads):
            if seen_before(quad, seen):
                continue
            seen.append(quad)
            fit = coarse_fit(pyramid, quad)
            if fit is None:
                detection.candidates.append((name, quad, 0.0))
            elif fit[1] >= CLEAR_COMB and budget > 0:
                # A comb this clear is almost always the grid: measure it now, and
                # stop looking when it fits well.
                budget -= 1
                best = _fine(pyramid, fit[0], quad, name)
                detection.candidates.append((name, quad, best.score if best else 0.0))
                measured += [best] if best is not None else []
                _keep_better(detection, best)
                if good(best):
                    # The rest stay listed, unmeasured (a second sheet shows up there).
                    detection.candidates += [(name, q, 0.0) for q in quads[i + 1 :]]
                    detection.best = _settle(pyramid, detection.best, lattice)
                    return detection
            else:
                coarse.append((fit[1], fit[0], quad))
        coarse.sort(key=_fine_fit_order([quad for _, _, quad in coarse]))
        for rank, (_, h, quad) in enumerate(coarse):
            done = good(detection.best)
            fit = _fine(pyramid, h, quad, name) if rank < budget and not done else None
            detection.candidates.append((name, quad, fit.score if fit else 0.0))
            measured += [fit] if fit is not None else []
            _keep_better(detection, fit)
        if good(detection.best):
            detection.best = _settle(pyramid, detection.best, lattice)
            return detection
    if detection.best is not None:
        detection.best = _showing_mountains(pyramid, detection.best, measured)
    if detection.best and detection.best.score < ACCEPT_SCORE:
        detection.best = None
    if detection.best is not None:
        detection.best = _settle(pyramid, detection.best, lattice)
    return detection


MOUNTAINS_RESCUE = 0.1  # a fit showing the mountains may score this much less than the best


def _good_enough(pyramid: Pyramid) -> Callable[[GridFit | None], bool]:
    """Whether a fit ends the search: it scores ``GOOD_ENOUGH``, unless the printed
    mountains show clearly better on the grid one row or column shorter or taller
    (:func:`_a_line_off_shows_mountains`; asked once a fit). Such a fit is left for
    the search's end (:func:`_showing_mountains`).

    On our ballpoint game drawn into the real side-B print (tuning composite 3068,
    session 63) a fit stretched 1.3 cells down to the coin band scored 0.86, with the
    mountains at 0.32, and stopped the search; a row shorter they show at 0.77. The
    mountains' own level cannot tell it: right fits on grey home prints score up to 1.0
    with the mountains at 0.32-0.49 (their one-line-off grids at most 0.22 better).
    """
    asked: dict[int, tuple[GridFit, bool]] = {}  # by id, the fit kept so its id stays its own

    def good(fit: GridFit | None) -> bool:
        if fit is None or fit.score < GOOD_ENOUGH:
            return False
        if id(fit) not in asked:
            asked[id(fit)] = (fit, not _a_line_off_shows_mountains(pyramid, fit.homography))
        return asked[id(fit)][1]

    return good


def _a_line_off_shows_mountains(pyramid: Pyramid, homography: np.ndarray) -> bool:
    """The mountains do not show clearly on this grid but do on one of the eight a row or
    a column shorter or taller (kept at an edge), by ``MOUNTAINS_BETTER`` more."""
    here = mountains_match(pyramid, homography)
    if here >= MOUNTAINS_CLEAR:
        return False
    best = max(mountains_match(pyramid, homography @ s) for s in _LINE_OFF)
    return best >= MOUNTAINS_CLEAR and best >= here + MOUNTAINS_BETTER


def _line_off_scalings() -> tuple[np.ndarray, ...]:
    """Grid units -> grid units of the eight grids one row or column shorter or taller,
    kept at the top, bottom, left or right edge."""
    out = []
    for axis in (0, 1):
        for scale in (N / (N + 1), (N + 1) / N):
            for anchor in (0.0, float(N)):
                s = np.eye(3)
                s[axis, axis], s[axis, 2] = scale, anchor * (1 - scale)
                out.append(s)
    return tuple(out)


_LINE_OFF = _line_off_scalings()


def _showing_mountains(pyramid: Pyramid, best: GridFit, measured: list[GridFit]) -> GridFit:
    """The best fit, or, when it does not show the printed mountains where a layout has
    them and another fit scoring at most ``MOUNTAINS_RESCUE`` less does, that one: first
    among the fits measured, then among the best one refitted a line taller or shorter
    (:func:`_a_line_off`).

    Asked when no fit was good enough (:func:`_good_enough`). On a photo of the real
    side-B print with a game drawn densely in ballpoint, the drawing hides the faint
    printed lines: the right fit scores 0.74, and a fit stretched 1.3 cells down to the
    coin track's band 0.77; the mountains tell them apart (0.71 against 0.26). On hard
    tuning photo 300078 (synthesis 26, side A's pale lines) every candidate settled on a
    fit one row too tall, its last row on the coin band (0.845, mountains 0.36); refitted
    a row shorter from the top it lands on the grid (0.812, mountains 0.77).
    """
    if mountains_match(pyramid, best.homography) >= MOUNTAINS_CLEAR:
        return best
    floor = max(best.score - MOUNTAINS_RESCUE, ACCEPT_SCORE)

    def showing(fits: list[GridFit]) -> GridFit | None:
        for fit in sorted((f for f in fits if f is not best), key=lambda f: -f.score):
            if fit.score >= floor and mountains_match(pyramid, fit.homography) >= MOUNTAINS_CLEAR:
                return fit
        return None

    # The refits are measured only when no fit measured already shows the mountains.
    return showing(measured) or showing(_a_line_off(pyramid, best)) or best


def _a_line_off(pyramid: Pyramid, fit: GridFit) -> list[GridFit]:
    """``fit`` measured again from eight grids: one row or one column more or less, kept
    at the top, bottom, left or right edge (those of the eight that can be measured)."""
    out = []
    for s in _LINE_OFF:
        refit = fine_fit(pyramid, fit.homography @ s, fit.quad, fit.source)
        if refit is not None:
            out.append(refit)
    return out


SMALL_QUAD = 0.25  # a quad under this share of its generator's largest one is measured last


def _fine_fit_order(quads: list[np.ndarray]):
    """Sort key for a generator's candidates ``(comb, homography, quad)``: the clearest
    comb first, but the quads under ``SMALL_QUAD`` of the largest one's area after the
    others.

    Players outline each shape they draw with a firm line, so an outlined shape is a
    small quad of lines too, and where the printed lines are faint its comb can beat
    the grid's: on a photo of the real side-B print with a game drawn in, three such
    shapes took all the fine fits and the frame was never measured (it fits at 0.98).
    """
    largest = max((_area(q) for q in quads), default=0.0)

    def key(item: tuple) -> tuple[bool, float]:
        return _area(item[2]) < SMALL_QUAD * largest, -item[0]

    return key


def _area(quad: np.ndarray) -> float:
    return abs(cv2.contourArea(quad.astype(np.float32)))


def _fine(pyramid: Pyramid, h: np.ndarray, quad: np.ndarray, name: str) -> GridFit | None:
    """:func:`fine_fit` from the comb-corrected homography, or from the quad as it came.

    The comb can slip a whole cell on busy sheets, so when the two disagree by
    more than 0.3 cell and the corrected one does not fit well, both are measured.
    A frame quad may lie on the ring's outer line, a fifth of a cell outside the
    grid, beyond what a fine fit pulls in: when neither fits well, it is measured
    from that far inside too, and taken when clearly better (``INSET_GAIN``). On
    our densely hatched game drawn into the real side-B print and darkened, the
    comb slipped 1.8 cells and the quads' own fits stopped 0.4-0.6 cell off.
    """
    fit = fine_fit(pyramid, h, quad, name)
    raw = quad_homography(quad)
    if raw is not None and max_shift(raw, h) > 0.3 and (fit is None or fit.score < GOOD_ENOUGH):
        fit = _better(fit, fine_fit(pyramid, raw, quad, name))
    if raw is not None and name == "frame" and (fit is None or fit.score < GOOD_ENOUGH):
        inset = fine_fit(pyramid, raw @ _inset(FRAME_OUTER_LINE), quad, name)
        if inset is not None and (fit is None or inset.score >= fit.score + INSET_GAIN):
            fit = inset
    return fit


def _better(fit: GridFit | None, other: GridFit | None) -> GridFit | None:
    """The better scoring of two fits (either may be None)."""
    if other is not None and (fit is None or other.score > fit.score):
        return other
    return fit


def _inset(cells: float) -> np.ndarray:
    """Grid units -> grid units moving each edge ``cells`` inward: a frame quad taken on
    the ring's outer line, put on the grid's edge."""
    f = (N - 2 * cells) / N
    return np.array([[f, 0.0, cells], [0.0, f, cells], [0.0, 0.0, 1.0]])


def _settle(pyramid: Pyramid, fit: GridFit, lattice: bool = True) -> GridFit:
    """The winning fit with its lattice measured; first, when it fits only so-so and
    part of the frame is missing where it puts it, it is measured again from a
    quarter cell either way along each axis, and the best of the five is kept.

    Drawings in rows (house bases a quarter cell above a grid line in row after
    row) make a second lattice of the grid's pitch, and a fit can settle on it with
    the frame that far off (photo 142064, synthesis 15). On 600 tuning photos
    (seeds 300000+) this found one more hard photo and lost none. The four extra
    fits are rare: 0 of 100 normal and 2 of 69 hard winning fits there call for them.

    Then, when the printed mountains sit a whole cell off the fit and clearly fit
    the photo there (:func:`mountain_shift`: a card or a hand over one side of the
    frame), the fit is measured again from there and taken if it is accepted, lies
    about a cell from the first and shows the mountains clearly itself.
    Last (with ``lattice``), the fit's intersections are measured.
    """
    if fit.score < RESTART_BELOW and fit.frame < 1.0:
        for dx, dy in ((NUDGE, 0), (-NUDGE, 0), (0, NUDGE), (0, -NUDGE)):
            shift = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
            other = fine_fit(pyramid, fit.homography @ shift, fit.quad, fit.source)
            if other is not None and other.score > fit.score + RESTART_GAIN:
                fit = other
    shift = mountain_shift(pyramid, fit.homography)
    if shift is not None:
        move = np.array([[1.0, 0.0, shift[0]], [0.0, 1.0, shift[1]], [0.0, 0.0, 1.0]])
        other = fine_fit(pyramid, fit.homography @ move, fit.quad, fit.source)
        if (
            other is not None
            and other.score >= ACCEPT_SCORE
            and 0.6 < max_shift(fit.homography, other.homography) < 1.5
            and mountains_match(pyramid, other.homography) >= MOUNTAINS_CLEAR
        ):
            fit = other
    return with_lattice(pyramid, fit) if lattice else fit


MOUNTAINS_BETTER = 0.3  # a whole-cell shift this much better at the mountains is taken ...
MOUNTAINS_CLEAR = 0.5  # ... when they match at least this well there


def mountain_shift(pyramid: Pyramid, homography: np.ndarray) -> tuple[int, int] | None:
    """A whole-cell shift (dx, dy) that puts the printed mountains where the photo has
    dark cells clearly better than the fit does, or None.

    With one side of the frame under a card or a hand, the double line of the
    coin track's edge or a card's border can stand in for it and the lattice
    settles a cell off, fitting the lines as well as the right one. The five
    mountains (either side's layout, any quarter turn) tell the two apart.
    """
    cells = _dark_cells(pyramid, homography)
    shifts = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    match = _mountain_matches(cells, shifts)
    here = match[shifts.index((0, 0))]
    best, where = max((m, s) for m, s in zip(match, shifts, strict=True) if s != (0, 0))
    if best >= MOUNTAINS_CLEAR and best >= here + MOUNTAINS_BETTER:
        return where
    return None


def mountains_match(pyramid: Pyramid, homography: np.ndarray) -> float:
    """How clearly the fit's cells show either side's mountains (any quarter turn)."""
    return _mountain_match(_dark_cells(pyramid, homography), 0, 0)


def _dark_cells(pyramid: Pyramid, homography: np.ndarray) -> np.ndarray:
    """13 x 13 share of dark pixels in each cell's middle, the grid and one cell around."""
    px = 16
    canvas = pyramid.warp(homography, px, -1.0, (N + 2) * px, cell_size_px(homography))
    return dark_cell_share(canvas, px, paper_level(canvas[px:-px, px:-px]))


def _mountain_patterns() -> list[np.ndarray]:
    patterns = []
    for layout in LAYOUTS.values():
        expected = np.zeros((N, N), bool)
        for r, c in layout.mountains:
            expected[r, c] = True
        patterns += [np.rot90(expected, k) for k in range(4)]
    return patterns


MOUNTAIN_PATTERNS = _mountain_patterns()


def _mountain_match(cells: np.ndarray, dx: int, dy: int) -> float:
    return _mountain_matches(cells, [(dx, dy)])[0]


def _mountain_matches(cells: np.ndarray, shifts: list[tuple[int, int]]) -> list[float]:
    """:func:`scanner.mountains.mountain_contrast` of the grid's cells shifted by each
    (dx, dy), best over :data:`MOUNTAIN_PATTERNS` (all at once: one product)."""
    seen = np.stack([cells[1 + dy : N + 1 + dy, 1 + dx : N + 1 + dx].ravel() for dx, dy in shifts])
    seen = seen.astype(np.float64)
    inside = seen @ _PATTERN_WEIGHTS.T  # (shifts, patterns): mean where the mountains are
    outside = (seen.sum(axis=1, keepdims=True) - inside * _PATTERN_COUNTS) / (
        N * N - _PATTERN_COUNTS
    )
    return [float(v) for v in (inside - outside).max(axis=1)]


_PATTERN_COUNTS = np.array([p.sum() for p in MOUNTAIN_PATTERNS], np.float64)
_PATTERN_WEIGHTS = np.stack([p.ravel() / p.sum() for p in MOUNTAIN_PATTERNS])


def _keep_better(detection: Detection, fit: GridFit | None) -> None:
    detection.best = _better(detection.best, fit)


def detection_level(pyramid: Pyramid, min_side: int = 480) -> tuple[np.ndarray, float]:
    """The smallest pyramid level whose long side keeps ``min_side`` px, and its scale."""
    best = 0
    for i, level in enumerate(pyramid.levels):
        if max(level.shape[:2]) >= min_side:
            best = i
    return pyramid.levels[best], 2.0**-best
