"""Photo -> canonical view, side, orientation, coins (:func:`scan_photo`) -> `Sheet`.

``load -> detect -> orient -> rectify -> coins`` here; the cells are cut from the
canonical view and read by :mod:`scanner.classify` in :func:`read_photo`. A big
photo is decoded at a reduced scale; when the sheet turns out small in it (or is
not found), it is decoded twice as large and fitted again.

With :func:`set_overlap` on (``cartoscore score`` and ``read`` in one process), the
model reads the cells in a second thread while this thread looks for covered cells,
measures the cells' edge lines and reads the coin track. Batch workers keep to one
thread.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from scanner.cells import cut_cells
from scanner.coin_doubts import (
    DOUBTED_COUNT_CONFIDENCE,
    coin_doubt,
    coins_cut,
    coins_in_photo,
)
from scanner.coins import CoinReading, read_coin_track
from scanner.colourless import COLOURLESS_BELOW, cells_view, colour_spread, warm_colour_tables
from scanner.decode_scale import work_to_full
from scanner.detect import (
    GOOD_ENOUGH,
    Detection,
    GridFit,
    Pyramid,
    cell_size_px,
    find_grid,
    fine_fit,
    photo_ink,
    with_lattice,
)
from scanner.errors import ClassifierUnavailable, SheetNotFound
from scanner.geometry import CANON_EXTENT, CANON_PX_PER_CELL
from scanner.lattice import max_shift
from scanner.load import Photo, load_photo
from scanner.orient import Orientation, decide_orientation, feature_canvas, sheet_rotation
from scanner.photo_edge import cells_outside, describe_spaces, outside_review
from scanner.rectify import rectify_grid, rotation, turn_lattice
from scanner.sheet import Sheet, shown
from scoring.board import Map
from scoring.layouts import SIZE

SMALL_CELL_PX = 22  # below this many working pixels per cell, decode larger if we can
FINE_DETECTION_SIDE = 960  # candidates are looked for this large on the second look

_overlap = False
_pool: ThreadPoolExecutor | None = None
#: The thread building OpenCV's CIELAB tables (:func:`warm_up`), joined before their first use.
_tables: threading.Thread | None = None


def set_overlap(on: bool) -> None:
    """Classify the cells in a second thread while the coins are read (off by default)."""
    global _overlap
    _overlap = bool(on)


def warm_up() -> Future | None:
    """With :func:`set_overlap` on, ready the reader while the first photo decodes in this
    thread (else the first reading does it on the way): the second thread builds the cell
    and sheet-context models' sessions, then imports the modules the reading imports when
    first needed, and a third builds OpenCV's CIELAB tables (:func:`warm_colour_tables`)."""
    global _tables
    if not _overlap:
        return None
    if _tables is None:
        # Not a daemon: Python joins it before the interpreter ends. A process leaving
        # while OpenCV builds the tables (a bad input's error, say) aborted otherwise.
        _tables = threading.Thread(target=warm_colour_tables, name="tables")
        _tables.start()
    return _background(_build_sessions)


def _build_sessions() -> None:
    try:
        from scanner import cell_model
        from scanner.context import fits

        cell_model.model_session()
        fits(cell_model.MODEL_PATH)
        import scanner.classify  # noqa: F401 - the reading's own imports, ~50 ms
    except Exception:  # noqa: BLE001 - a missing model is reported when a photo is read
        pass


def _tables_built() -> None:
    """Wait for :func:`warm_up`'s CIELAB tables, if it started them: a conversion in this
    thread meanwhile would build them again beside it (or wait for them anyway)."""
    if _tables is not None:
        _tables.join()


def _background(fn, *args) -> Future:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cells")
    return _pool.submit(fn, *args)


#: Cell units of a fit's frame seen in a mirror (flipped left to right about the grid's
#: middle) -> the frame's own: ``(u, v) -> (11 - u, v)``.
MIRROR = np.array([[-1.0, 0.0, SIZE], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


@dataclass
class Scan:
    """What the scanner saw on one photo.

    Pixel coordinates (``lattice``, ``homography``) refer to the photo as
    displayed (EXIF applied) at full resolution; ``lattice[r, c]`` is the
    intersection at the top-left of cell (r, c) of the upright grid, so
    ``lattice[0, 0]`` is the outer corner next to A1.
    """

    source: str
    view: np.ndarray  # canonical rectified view, upright
    side: str
    orientation: int  # clockwise degrees the sheet appears turned in the photo
    side_confidence: float
    orientation_confidence: float
    fit: float  # 0..1, how well an 11 x 11 lattice with a frame fits
    colour: float  # the view's colour spread (scanner.colourless); about 0 on a grey photo
    coins: int
    coin_confidence: float
    lattice: np.ndarray
    homography: np.ndarray  # upright cell units -> full-resolution photo pixels
    #: Centres (``(x, y)`` cells of the upright grid) of the coins located in the photo,
    #: from the first: as many as are in it (:func:`scanner.coin_doubts.coins_in_photo`).
    coin_centres: tuple[tuple[float, float], ...]
    #: Coins (0 = leftmost) that look covered (:attr:`scanner.coins.CoinReading.covered`).
    coins_covered: tuple[int, ...]
    #: Coins the count calls marked that the photo's edge cuts
    #: (:func:`scanner.coin_doubts.coins_cut`).
    coins_cut: tuple[int, ...]
    #: The working-resolution photo (BGR) the sheet was found in, the upright cell units ->
    #: its pixels homography, and detection's candidates there ``(name, quad, score)``.
    work_image: np.ndarray = field(repr=False)
    work_homography: np.ndarray
    candidates: list[tuple[str, np.ndarray, float]] = field(repr=False)
    #: Cells (row-major indices of the upright grid) the photo's edge cuts through their
    #: middle (:func:`cells_outside`): what is read there is the edge's pixels smeared.
    outside: tuple[int, ...] = ()
    #: For the debug picture (:func:`scanner.overlay.draw_scan`) and benchmarks only.
    debug: dict = field(default_factory=dict)
    #: The cell reading started while the coins were read (:func:`set_overlap`), or None.
    cells: Future | None = field(default=None, repr=False, compare=False)
    #: The photo shows the sheet mirrored (read flipped back).
    mirrored: bool = False
    #: libjpeg's complaint about the photo's data (:attr:`scanner.load.Photo.damage`).
    damage: str | None = None


def scan_photo(
    source: str | Path | np.ndarray, side: str = "auto", photo: Photo | None = None
) -> Scan:
    """Find, rectify and orient the sheet in a photo and read its coin track.

    Parameters
    ----------
    source : path of an image file, or a BGR uint8 array
    side : "auto", "A" or "B" (forces the side; orientation is still decided)
    photo : ``load_photo(source)`` when already decoded (e.g. ahead, in another
        thread); the source is still decoded again, larger, for a small sheet

    Raises
    ------
    NotAnImage, ImageTooLarge
        From :func:`scanner.load.load_photo`.
    SheetNotFound
        No grid fitted the photo well enough (``error.tried`` holds the attempts).
    """
    if side not in ("auto", "A", "B"):
        raise ValueError(f"side must be 'auto', 'A' or 'B', got {side!r}")
    if photo is None:
        photo = load_photo(source)
    detection = find_grid(photo.image, lattice=False)  # measured in scan_image
    best = detection.best
    small = (
        best is None or cell_size_px(best.homography) < SMALL_CELL_PX or best.score < GOOD_ENOUGH
    )
    if small:
        finer, refined = _second_look(source, photo, best)
        if refined.best is not None and (best is None or refined.best.score >= best.score - 0.02):
            if not (finer is photo and _first_reads_better(photo, best, refined.best, side)):
                photo, detection = finer, refined
    return scan_image(photo, side, detection)


#: Cells: a second look's fit on the same decode this far from the first is a different
#: grid (rule 65c: a densely hatched sheet's grid half a cell off scores as well or better).
SECOND_APART = 0.15
#: The first fit stays when the cell model reads the printed terrain this much better on it.
PRINTED_BETTER = 0.01


def _first_reads_better(photo: Photo, first: GridFit | None, second: GridFit, side: str) -> bool:
    """Whether the first fit, not the second look's on the same decode, is the sheet:
    they lie apart and the cell model reads the printed mountains and wasteland better
    where the first puts them (their scores cannot tell: a densely hatched sheet on the
    real print's faint side B gives a grid half a cell off that scores more)."""
    if first is None or max_shift(first.homography, second.homography) <= SECOND_APART:
        return False
    try:
        ours, theirs = (_printed_fit(photo.image, fit.homography, side) for fit in (first, second))
    except (ImportError, FileNotFoundError):  # no cell model here: the scores decide, as before
        return False
    return ours >= theirs + PRINTED_BETTER


def _printed_fit(image: np.ndarray, homography: np.ndarray, side: str) -> float:
    """:func:`scanner.classify.printed_fit` of the sheet as this homography straightens it
    (orientation decided, the homography's own lattice, no bend)."""
    from scanner import cell_model
    from scanner.classify import printed_fit
    from scanner.lattice import model_lattice
    from scoring.layouts import LAYOUTS

    orientation = _orientation(image, homography, side)
    h = _upright(homography, orientation)
    view = rectify_grid(image, h, model_lattice(h))
    layout = LAYOUTS[orientation.side]
    _tables_built()  # colour_spread converts to CIELAB: the tables warm_up builds
    crops = _cell_crops(view, colour_spread(view))
    raw, _ = cell_model.CellReader(crops, layout, None, None).read()
    return printed_fit(raw, layout)


def _second_look(
    source: str | Path | np.ndarray, photo: Photo, best: GridFit | None
) -> tuple[Photo, Detection]:
    """Look again for a small or poorly fitting sheet: in a larger decode if the file
    has one, and with candidates sought on a finer pyramid level."""
    if photo.scale < 1 and not isinstance(source, np.ndarray):
        finer = load_photo(source, work_long_side=2 * max(photo.image.shape[:2]))
        return finer, _look_again(finer, best, finer.scale / photo.scale)
    if max(photo.image.shape[:2]) < 1.5 * FINE_DETECTION_SIDE / 2:
        return photo, Detection(best=None)  # already searched at full detail
    return photo, find_grid(photo.image, None, FINE_DETECTION_SIDE)


def _look_again(photo: Photo, previous: GridFit | None, factor: float) -> Detection:
    """Detection on a larger decode: refit the previous grid there, or search afresh."""
    pyramid = Pyramid(photo_ink(photo.image))
    if previous is not None:
        s = np.array([[factor, 0, 0.5 * factor - 0.5], [0, factor, 0.5 * factor - 0.5], [0, 0, 1]])
        quad = previous.quad * factor + 0.5 * factor - 0.5
        fit = fine_fit(pyramid, s @ previous.homography, quad, previous.source)
        if fit is not None and fit.score >= max(previous.score - 0.02, GOOD_ENOUGH):
            fit = with_lattice(pyramid, fit)
            return Detection(best=fit, candidates=[(fit.source, quad, fit.score)])
        # A mediocre fit may be a wrong one: search afresh at this scale as well.
        fresh = find_grid(photo.image, pyramid, FINE_DETECTION_SIDE)
        if fit is not None and (
            fresh.best is None or fit.score > fresh.best.score + 0.02 or _steadier(fit, fresh.best)
        ):
            fit = with_lattice(pyramid, fit)
            return Detection(
                best=fit, candidates=[(fit.source, quad, fit.score), *fresh.candidates]
            )
        return fresh
    return find_grid(photo.image, pyramid, FINE_DETECTION_SIDE)


STEADIER = 0.08  # interior agreement by which a refit beats a fresh fit elsewhere ...
SIDES_SEEN = 0.7  # ... when it sees about three sides of the frame or more


def _steadier(fit: GridFit, other: GridFit) -> bool:
    """Whether ``fit`` should stand against a better-scoring ``other`` that puts the
    grid elsewhere: its interior lines agree clearly better, and it sees most of
    the frame.

    A card over one side of the sheet, its edge and printed border a double line
    like the frame's, gives a fresh fit that takes them for the frame: more of the
    frame "found", the interior lines squeezed (tuning photo 302005: 0.857 with
    interior 0.89 against the first fit's 0.786 with 0.99, three sides seen).
    """
    apart = max_shift(fit.homography, other.homography) > 0.15
    return apart and fit.frame >= SIDES_SEEN and fit.interior >= other.interior + STEADIER


def scan_image(photo: Photo, side: str = "auto", detection: Detection | None = None) -> Scan:
    """:func:`scan_photo` on an already loaded photo (and, optionally, its detection)."""
    image = photo.image
    if detection is None:
        detection = find_grid(image)
    best = detection.best
    if best is None:
        raise SheetNotFound(
            photo.source,
            f"the image data is corrupt ({photo.damage}) and no map sheet was found in what"
            " it shows: copy the photo from the phone again"
            if photo.damage
            else "no map sheet found (no 11x11 grid with a frame)",
            tried={"image": image, "candidates": detection.candidates},
        )
    if best.lattice is None:
        pyramid = detection.pyramid or Pyramid(photo_ink(image))
        best = detection.best = with_lattice(pyramid, best)
    # In this thread, not beside the lattice: both are many small numpy steps holding
    # the GIL, and side by side they took longer than one after the other.
    orientation = _orientation(image, best.homography, side)
    h_work = _upright(best.homography, orientation)
    lattice_fit = best.lattice[:, ::-1] if orientation.mirrored else best.lattice
    lattice_work = turn_lattice(lattice_fit, orientation.quarter_turns)
    view = rectify_grid(image, h_work, lattice_work)
    _tables_built()
    colour = colour_spread(view)
    cells = None
    if _overlap:
        # The model reads the cells in the second thread while this one looks for
        # covered cells and measures the cells' edge lines, which that reading takes
        # from here, and then reads the coins: the reading has them when it needs them.
        crops = _cell_crops(view, colour)
        hidden, outlines = Future(), Future()
        cells = _background(_read_cells, crops, orientation.side, hidden, outlines)
        _settle_for_cells(hidden, outlines, crops, orientation.side)
    visible = coins_in_photo(h_work, image.shape)
    outside = cells_outside(h_work, image.shape)
    coins = read_coin_track(view, visible) if visible else CoinReading(0, 0.0, (), ())
    # Cut coins the count calls marked: the count stands, unsure, and says why.
    cut = tuple(i for i in coins_cut(h_work, image.shape, visible) if i < coins.count)
    if cut:
        coins = replace(coins, confidence=min(coins.confidence, DOUBTED_COUNT_CONFIDENCE))
    to_full = work_to_full(photo.scale)
    h_full = to_full @ h_work
    lattice_full = cv2.perspectiveTransform(lattice_work.reshape(-1, 1, 2), to_full).reshape(
        lattice_work.shape
    )
    centres = tuple(_in_cells(x, y) for x, y in coins.centres)
    return Scan(
        source=photo.source,
        view=view,
        side=orientation.side,
        orientation=sheet_rotation(h_full),
        side_confidence=orientation.side_confidence,
        orientation_confidence=orientation.orientation_confidence,
        fit=best.score,
        colour=colour,
        coins=coins.count,
        coin_confidence=coins.confidence,
        lattice=lattice_full,
        homography=h_full,
        coin_centres=centres,
        coins_covered=coins.covered,
        coins_cut=cut,
        work_image=image,
        work_homography=h_work,
        candidates=detection.candidates,
        outside=outside,
        debug=_debug(photo, detection, orientation, coins, lattice_work),
        cells=cells,
        mirrored=orientation.mirrored,
        damage=photo.damage,
    )


def _settle_for_cells(hidden: Future, outlines: Future, crops: np.ndarray, side: str) -> None:
    """Find the covered cells, then measure the cells' edge lines, that the second
    thread's reading waits for, and always settle both futures (with the error, if any):
    else that thread would wait for ever."""
    try:
        from scanner.classify import free_cells
        from scanner.covered import covered_cells
        from scanner.shapes import edge_lines
        from scoring.layouts import LAYOUTS

        hidden.set_result(covered_cells(crops, free_cells(LAYOUTS[side])))
        outlines.set_result(edge_lines(crops))
    except BaseException as e:
        for future in (hidden, outlines):
            if not future.done():
                future.set_exception(e)
        raise


def _orientation(image: np.ndarray, homography: np.ndarray, side: str) -> Orientation:
    return decide_orientation(feature_canvas(image, homography), side)


def _upright(homography: np.ndarray, orientation: Orientation) -> np.ndarray:
    """A fit's homography made to map the upright grid's cell units: flipped back first
    when the sheet shows mirrored (the turn is the flipped canvas's), then turned."""
    h = homography @ MIRROR if orientation.mirrored else homography
    return h @ rotation(orientation.quarter_turns)


def _debug(
    photo: Photo,
    detection: Detection,
    orientation: Orientation,
    coins: CoinReading,
    lattice_work: np.ndarray,
) -> dict:
    """What the debug picture and the benchmarks look at beyond the :class:`Scan`'s fields."""
    return {
        "scale": photo.scale,
        "source_of_fit": detection.best.source if detection.best else None,
        "lattice_work": lattice_work,
        "orientation_scores": orientation.scores,
        "coin_marks": coins.marks,
    }


def _in_cells(x: float, y: float) -> tuple[float, float]:
    """Canonical view pixels -> cells of the upright grid."""
    return x / CANON_PX_PER_CELL + CANON_EXTENT.x0, y / CANON_PX_PER_CELL + CANON_EXTENT.y0


def read_photo(path: str | Path, side: str = "auto") -> Sheet:
    """Scan a photo and read every cell: the recognised :class:`~scanner.sheet.Sheet`.

    Raises
    ------
    NotAnImage, ImageTooLarge, SheetNotFound
        As :func:`scan_photo`.
    TwoSheets
        A second sheet's grid is in the photo (:mod:`scanner.two_sheets`).
    ClassifierUnavailable
        The cell model could not be loaded.
    """
    from scanner.two_sheets import check_one_sheet

    scan = scan_photo(path, side)
    check_one_sheet(scan)
    return sheet_from_scan(scan)


#: A grid fitting worse than this is said to be found unsurely. On 600 tuning and fresh
#: photos (300000+, 200 normal and 200 hard; 202000+, 100 and 100) the two fits under
#: it were both wrong (0.616 and 0.617, 0.47 and 3 cells off) and every other fit was
#: 0.72 or more; so were the fits of two photos cutting away three columns, or two rows
#: and the frame above them (0.659 and 0.621, the grid found cells off).
UNSURE_FIT = 0.7
#: A side or a turn decided with less confidence than this is said to be uncertain.
UNSURE_SIDE = 0.5
UNSURE_TURN = 0.5


def _cell_crops(view: np.ndarray, colour: float) -> np.ndarray:
    """The 121 crops the cells are read from (a thresholded view cleared of its specks
    first: :func:`scanner.colourless.cells_view`), the same whichever thread reads them."""
    return cut_cells(cells_view(view, colour))


def _read_cells(
    crops: np.ndarray, side: str, hidden: Future | None = None, outlines: Future | None = None
):
    """The classifier's reading of a canonical view's 121 cell crops (``hidden`` and
    ``outlines``: its covered cells and edge lines, being found by another thread)."""
    from scanner.classify import classify_cells
    from scoring.layouts import LAYOUTS

    return classify_cells(crops, LAYOUTS[side], hidden=hidden, outlines=outlines)


def sheet_from_scan(scan: Scan) -> Sheet:
    """Classify the cells of a :class:`Scan` (or take the reading already started) and
    assemble the :class:`Sheet`."""
    from scoring.layouts import LAYOUTS

    layout = LAYOUTS[scan.side]
    try:
        reading = (
            scan.cells.result()
            if scan.cells is not None
            else _read_cells(_cell_crops(scan.view, scan.colour), scan.side)
        )
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ClassifierUnavailable(scan.source, f"the cell classifier cannot load ({e})") from e
    except FileNotFoundError as e:
        raise ClassifierUnavailable(scan.source, f"the cell model is missing ({e})") from e
    game_map = Map(reading.grid, layout)
    notes = []
    if scan.colour < COLOURLESS_BELOW:
        notes.append(
            "the photo has no colour (a greyscale scan or a black-and-white filter?):"
            " coloured-pencil terrains cannot be told apart by colour; check the cells"
            " listed, or photograph the sheet in colour"
        )
    if scan.fit < UNSURE_FIT:
        notes.append(
            f"the grid was found unsurely (fit {shown(scan.fit)}): compare the map with the"
            " photo (--overlay), or photograph the whole sheet again, closer"
        )
    if scan.damage:
        notes.append(
            f"the photo's data is corrupt ({scan.damage}): part of the picture may be"
            " garbled; compare the map with the photo (--overlay), or copy the photo from"
            " the phone again"
        )
    if scan.mirrored:
        notes.append(
            "the photo shows the sheet mirrored (a front camera, or a webcam that mirrors?):"
            " it was read flipped back"
        )
    if scan.side_confidence < UNSURE_SIDE:
        notes.append(f"side {scan.side} is uncertain ({shown(scan.side_confidence)})")
    if scan.orientation_confidence < UNSURE_TURN:
        notes.append(f"orientation is uncertain ({shown(scan.orientation_confidence)})")
    note, coin_confidence = coin_doubt(scan, reading.review, game_map)
    if note is not None:
        notes.append(note)
    review = reading.review
    cut_spaces = [i for i in scan.outside if layout.printed(divmod(i, SIZE)) is None]
    if cut_spaces:
        review = outside_review(reading.review, reading.probabilities, cut_spaces)
        notes.append(
            f"the photo's edge cuts {len(cut_spaces)} map spaces ({describe_spaces(scan.outside)}):"
            " their reading is a guess; check them, or photograph the whole grid"
        )
    return Sheet(
        source=scan.source,
        map=game_map,
        coins=scan.coins,
        confidence=reading.confidence,
        coin_confidence=coin_confidence,
        review=review,
        notes=tuple(notes),
        orientation=scan.orientation,
        fit=scan.fit,
    )
