"""Read the terrain of every cell with the ONNX cell model (onnxruntime only, no torch).

One batched call per sheet; the session is built once per process and per thread
count. The printed layout is a hard prior (:mod:`scanner.layout_prior`): printed
mountains and wasteland are read as such whatever the model says, and a cell without
them can never be ``^`` or ``#``. The sheet's votes are in :mod:`scanner.votes`.
One player draws one sheet, so their forests look alike: :func:`sheet_consistency`
re-scores the doubtful cells by how much the model's own features resemble the cells
read confidently on the same sheet. Cells still doubtful after that get a second look:
the model reads them again mirrored, and the two readings are averaged. A cell still
doubtful then leans towards the readings of the few cells on the sheet that look most
like it (:func:`lookalike_vote`). A player draws shapes of several spaces in one terrain,
so it also leans towards the terrain of the sides it shares with surely read cells
(:func:`neighbour_prior`). Cells whose own top probability is low, or whose top two
classes are close, are listed for review with their candidates (and, when the
look-alikes or the neighbours chose the class, so marked).
Cells mostly hidden by something lying on the sheet (a finger, a pencil, a card:
:mod:`scanner.covered`) are listed for review as covered, whatever the model read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import softmax

from scanner.context import TERRAINS, context_read
from scanner.context import fits as context_fits
from scanner.covered import COVERED, covered_cells
from scanner.layout_prior import apply_layout_prior, free_cells, printed_table, ruins_mask
from scanner.normalize import (
    CLASSES,
    CODES_SCALE_KEY,
    CODES_ZERO_POINT_KEY,
    FEATURES_OUTPUT,
    IMAGE_INPUT,
    INPUT_PX,
    RUINS_INPUT,
    ink_codes,
    model_inputs,
)
from scanner.onnx_session import ModelNotFound as ModelNotFound  # re-exported: callers catch it
from scanner.onnx_session import load_session
from scanner.shapes import edge_lines, shape_vote
from scanner.sheet import Review
from scanner.votes import lookalike_vote, neighbour_prior, sheet_consistency
from scoring.layouts import SIZE, Layout, space_name

if TYPE_CHECKING:
    from concurrent.futures import Future

#: The committed model the scanner runs: the 8-bit copy of the trained ``models/cells.onnx``
#: (:mod:`models.quantize`; the same readings at about half the model time).
MODEL_PATH = Path(__file__).resolve().parent.parent / "models" / "cells.int8.onnx"
#: Review a cell when its chosen class has less than this probability ...
REVIEW_MIN_PROB = 0.99
#: ... or when the runner-up is within this much of it.
REVIEW_MIN_MARGIN = 0.5
#: Candidates listed in a review: the top two, and any other class with at least this probability.
CANDIDATE_MIN_PROB = 0.02
#: Second look: cells read with less than this are read again mirrored (see classify_cells).
SECOND_LOOK_BELOW = 0.99
#: Review reason of a cell whose class the neighbour prior changed.
DECIDED_BY_NEIGHBOURS = "decided by neighbours"
#: Review reason of a cell whose class its outlined shape chose (:mod:`scanner.shapes`).
DECIDED_BY_SHAPE = "decided by its shape"
#: Review reason of a cell whose class its look-alikes changed.
DECIDED_BY_LOOKALIKES = "decided by look-alikes"
#: Review reason: the sheet-context model (:mod:`scanner.context`) chose the cell's terrain.
DECIDED_BY_SHEET = "decided by the sheet"
#: Review reason of a ruins space read as empty, however surely: the bare printed icon
#: and a faint drawing over it are what the model tells apart worst (docs/figures.md, session 21).
UNFILLED_RUINS = "unfilled ruins"
#: Review reason of a cell read as farm that may still be water (:data:`FARM_WATER_DOUBT`).
FARM_OR_WATER = "farm or water"
#: A cell read as farm keeps at least this probability of water: listed for review.
#: Furrows (a few parallel lines) and waves (two or three wavy lines) are the pair the
#: model takes for each other most, and surely: on the tuning photos of session 45,
#: cells read as farm with water at 0.001 or more held 23 misread cells unlisted until
#: then, for 46 right ones; no other pair of terrains came near.
FARM_WATER_DOUBT = 0.001

_threads = 1
_sessions: dict[tuple[str, int], object] = {}


@dataclass(frozen=True)
class CellReading:
    """What the classifier read on one sheet.

    Attributes
    ----------
    grid : 11 strings of text-map symbols, row-major.
    confidence : 11 x 11 probability of each chosen class (1.0 on printed terrain).
    probabilities : (121, len(CLASSES)) class probabilities after the layout prior (and
        the sheet-consistency step and the neighbour prior).
    model_probabilities : (121, len(CLASSES)) the model's own probabilities.
    review : cells a person should check.
    printed_fit : mean probability the model itself gives the printed terrain on the
        layout's mountain and wasteland cells (near 1 when grid and side are right).
    """

    grid: tuple[str, ...]
    confidence: tuple[tuple[float, ...], ...]
    probabilities: np.ndarray
    model_probabilities: np.ndarray
    review: tuple[Review, ...]
    printed_fit: float


def set_threads(n: int) -> None:
    """Threads onnxruntime may use per call (1 by default; 0 lets onnxruntime choose)."""
    global _threads
    if n < 0:
        raise ValueError(f"threads must be >= 0, got {n}")
    _threads = n


def _session(path: Path, threads: int):
    key = (str(path), threads)
    if key not in _sessions:
        _sessions[key] = load_session(path, threads, "cell model")
    return _sessions[key]


def model_session(model: Path | None = None, threads: int | None = None):
    """The onnxruntime session classify_cells reads with (built once per process)."""
    return _session(Path(model) if model else MODEL_PATH, _threads if threads is None else threads)


def predict_probabilities(
    crops: np.ndarray,
    layout: Layout,
    model: Path | None = None,
    threads: int | None = None,
    mirror: bool = False,
) -> np.ndarray:
    """The model's class probabilities ``(121, len(CLASSES))`` for one sheet's crops.

    With ``mirror`` the batch also holds every cell mirrored left-right (the model
    was trained on both) and the two readings are averaged: about a tenth fewer
    errors on validation photos, at twice the model time.
    """
    reader = _Reader(crops, layout, model, threads)
    return reader.read(mirror)[0]


def input_px(sess) -> int:
    """Side of the square image a model session reads (its ``image`` input, channels
    first or, 8-bit codes, last: axis 2 is the width either way)."""
    for arg in sess.get_inputs():
        if arg.name == IMAGE_INPUT and isinstance(arg.shape[2], int):
            return arg.shape[2]
    return INPUT_PX


def image_codes(sess) -> np.ndarray | None:
    """The 8-bit codes table (:func:`scanner.normalize.ink_codes`) of a model session whose
    image input is codes (``models.quantize.code_input``), or None: it reads ink amounts.
    (About 10 microseconds: made afresh for each sheet.)"""
    meta = sess.get_modelmeta().custom_metadata_map
    if CODES_SCALE_KEY not in meta:
        return None
    return ink_codes(float(meta[CODES_SCALE_KEY]), int(meta[CODES_ZERO_POINT_KEY]))


def session_inputs(sess, crops: np.ndarray, layout: Layout) -> dict[str, np.ndarray]:
    """:func:`scanner.normalize.model_inputs` as the model of ``sess`` reads them (its
    input size, ink amounts or 8-bit codes)."""
    return model_inputs(crops, layout, input_px(sess), image_codes(sess))


def _mirrored(image: np.ndarray) -> np.ndarray:
    """Cells mirrored left-right: 8-bit codes are channels last, ink amounts first."""
    return image[:, :, ::-1] if image.dtype == np.uint8 else image[..., ::-1]


def model_input_px(model: Path) -> int:
    """:func:`input_px` of an ONNX model file (its session is built once per process)."""
    return input_px(model_session(model))


class _Reader:
    """One sheet's model inputs and session: reads all cells, or some of them mirrored."""

    def __init__(
        self, crops: np.ndarray, layout: Layout, model: Path | None, threads: int | None
    ) -> None:
        self.sess = model_session(model, threads)
        self.feed = session_inputs(self.sess, crops, layout)
        names = [o.name for o in self.sess.get_outputs()]
        self.wanted = ["logits"] + ([FEATURES_OUTPUT] if FEATURES_OUTPUT in names else [])

    def _run(self, image: np.ndarray, ruins: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        outputs = self.sess.run(self.wanted, {IMAGE_INPUT: image, RUINS_INPUT: ruins})
        probs = softmax(outputs[0].astype(np.float64), axis=1)
        return probs, outputs[1].astype(np.float64) if len(outputs) > 1 else None

    def read(self, mirror: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """All cells; with ``mirror`` also mirrored left-right, the two averaged."""
        image, ruins = self.feed[IMAGE_INPUT], self.feed[RUINS_INPUT]
        if not mirror:
            return self._run(image, ruins)
        probs, features = self._run(
            np.concatenate([image, _mirrored(image)]), np.concatenate([ruins, ruins])
        )
        n = len(image)
        probs = (probs[:n] + probs[n:]) / 2
        return probs, None if features is None else (features[:n] + features[n:]) / 2

    def mirrored(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The given cells (indices) read mirrored left-right."""
        image = np.ascontiguousarray(_mirrored(self.feed[IMAGE_INPUT][cells]))
        return self._run(image, self.feed[RUINS_INPUT][cells])


def review_cells(
    probs: np.ndarray,
    layout: Layout,
    min_prob: float = REVIEW_MIN_PROB,
    min_margin: float = REVIEW_MIN_MARGIN,
    decided: np.ndarray | None = None,
    covered: np.ndarray | None = None,
    lookalike: np.ndarray | None = None,
    unfilled: np.ndarray | None = None,
    by_shape: np.ndarray | None = None,
    by_sheet: np.ndarray | None = None,
    in_context: np.ndarray | None = None,
    farm_water: np.ndarray | None = None,
    chosen: np.ndarray | None = None,
) -> tuple[Review, ...]:
    """Cells whose top probability is below ``min_prob`` or whose top two are close,
    the cells ``decided`` marks (``(121,)`` bool: the neighbours chose their class),
    those ``lookalike`` marks (``(121,)`` bool: their look-alikes chose it), those
    ``by_shape`` marks (``(121,)`` bool: their outlined shape chose it), those
    ``by_sheet`` marks (``(121,)`` bool: the sheet-context model chose it), those
    ``covered`` marks (``(121,)`` bool: hidden under something; this reason first) and
    those ``unfilled`` marks (``(121,)`` bool: ruins spaces read as empty; this reason
    only when no other applies), and those ``farm_water`` marks (``(121,)`` bool: read as
    farm, maybe water; this reason only when no other applies). A cell the sheet decided
    lists its candidates as read in context (``in_context``), so the terrain chosen is
    among them. With ``chosen`` (``(121,)`` class indices: the terrains finally read), a
    terrain chosen against the listed reading (its neighbours, its shape or its
    look-alikes overruled it) is listed too, last, with that reading's probability."""
    out = []
    order = np.argsort(-probs, axis=1)
    top2 = np.take_along_axis(probs, order[:, :2], axis=1)
    low = top2[:, 0] < min_prob
    close = top2[:, 0] - top2[:, 1] < min_margin
    # Each reason and its cells, in the order a cell takes the first that holds.
    reasons = [
        (COVERED, covered),
        (DECIDED_BY_NEIGHBOURS, decided),
        (DECIDED_BY_SHAPE, by_shape),
        (DECIDED_BY_LOOKALIKES, lookalike),
        (DECIDED_BY_SHEET, by_sheet),
        ("low confidence", low),
        ("close call", close),
        (UNFILLED_RUINS, unfilled),
        (FARM_OR_WATER, farm_water),
    ]
    reasons = [(reason, cells) for reason, cells in reasons if cells is not None]
    doubtful = np.logical_or.reduce([cells for _, cells in reasons]) & free_cells(layout)
    for i in np.flatnonzero(doubtful):
        space = divmod(int(i), SIZE)
        reason = next(reason for reason, cells in reasons if cells[i])
        # The runner-up is always listed, however unlikely: a cell to check by
        # hand should say what else it may be.
        if reason == DECIDED_BY_SHEET and in_context is not None:
            read, ranked = in_context, np.argsort(-in_context[i])
        else:
            read, ranked = probs, order[i]
        candidates = {
            CLASSES[k]: round(float(read[i, k]), 3)
            for rank, k in enumerate(ranked)
            if rank < 2
            or read[i, k] >= CANDIDATE_MIN_PROB
            or (chosen is not None and k == chosen[i])
        }
        out.append(Review(space_name(space), reason, candidates))
    return tuple(out)


def farm_maybe_water(probs: np.ndarray, doubt: float = FARM_WATER_DOUBT) -> np.ndarray:
    """``(121,)`` bool: cells read as farm (their top class) whose water probability is at
    least ``doubt``."""
    return (probs.argmax(axis=1) == CLASSES.index("F")) & (probs[:, CLASSES.index("W")] >= doubt)


#: A sheet reading at most this many drawn cells, ...
BLANK_MAX_DRAWN = 12
#: ... none of them this sure, is an unplayed sheet.
BLANK_MAX_PROB = 0.97


def looks_blank(probs: np.ndarray, layout: Layout) -> bool:
    """Is this an unplayed sheet whose few "drawn" cells are the model's doubts?

    On a blank sheet the model reads a few cells, mostly ruins icons, as terrain,
    and never surely (on 60 rendered blank sheets: 0-10 cells, 99 % of them below
    0.9). A sheet after even one season shows 18 or more drawn cells, nearly all
    read above 0.99.
    """
    free = free_cells(layout)
    choice = probs.argmax(axis=1)
    drawn = free & (choice != CLASSES.index("."))
    return bool(
        drawn.sum() <= BLANK_MAX_DRAWN
        and probs[drawn, choice[drawn]].max(initial=0.0) < BLANK_MAX_PROB
    )


def _all_empty(probs: np.ndarray, layout: Layout) -> np.ndarray:
    """Every cell the layout leaves free read as empty, surely."""
    out = probs.copy()
    free = free_cells(layout)
    out[free] = 0.0
    out[free, CLASSES.index(".")] = 1.0
    return out


def _posterior(
    raw: np.ndarray, features: np.ndarray | None, layout: Layout, consistency: bool
) -> np.ndarray:
    """The layout prior, then (with features and ``consistency``) the sheet-consistency step."""
    probs = apply_layout_prior(raw, layout)
    if features is not None and consistency:
        probs = sheet_consistency(probs, features, layout)
    return probs


def classify_cells(
    crops: np.ndarray,
    layout: Layout,
    model: Path | None = None,
    threads: int | None = None,
    min_prob: float = REVIEW_MIN_PROB,
    min_margin: float = REVIEW_MIN_MARGIN,
    mirror: bool = False,
    consistency: bool = True,
    second_look: bool = True,
    neighbours: bool = True,
    covered: bool = True,
    lookalikes: bool = True,
    hidden: Future | None = None,
    outlines: Future | None = None,
    unfilled_ruins: bool = True,
    shapes: bool = True,
    context: bool = True,
    farm_water: bool = True,
) -> CellReading:
    """Read all 121 cells of one sheet.

    The model's probabilities go through the layout prior and then, when the model
    exports its features and ``consistency`` is on, :func:`sheet_consistency`. With
    ``second_look`` (and without ``mirror``), the cells whose top probability is then
    below :data:`SECOND_LOOK_BELOW` are read again mirrored left-right (the model was
    trained on both), their two readings (probabilities and features) averaged, and
    the prior and consistency step redone: a sixth fewer misread cells on tuning
    photos for about a tenth of a sheet's model time. With ``context``, the cells read
    as drawn have their terrain re-read among the sheet's cells
    (:func:`scanner.context.context_read`). With ``lookalikes``, cells still
    doubtful lean towards the readings of the cells that look most like them
    (:func:`lookalike_vote`); with ``shapes``, the cells of each shape the player
    outlined take one terrain, sure cells included (:func:`scanner.shapes.shape_vote`);
    then, with ``neighbours``, doubtful cells lean towards the terrains read surely
    beside them (:func:`neighbour_prior`). The review is still decided on the cells'
    own reading (no step takes a cell off it), and a cell whose class a step changed
    is listed as decided by it (by the last one that changed it). A
    sheet that :func:`looks_blank` is read as empty. With ``covered``, cells hidden
    under a finger, a pencil or a card (:func:`scanner.covered.covered_cells`) are
    listed for review as covered, keeping their best guess and candidates. With
    ``unfilled_ruins``, every ruins space read as empty is listed for review too (not on
    a blank sheet): on tuning photos that catches faint drawings over the icon read
    surely as empty, for about half a listed cell a sheet.

    Parameters
    ----------
    crops : (121, 96, 96, 3) uint8 array
        BGR crops from :func:`scanner.cells.cut_cells`, row-major.
    layout : the printed side, which fixes mountains, wasteland and ruins.
    model : an ONNX model file; default :data:`MODEL_PATH`.
    threads : onnxruntime threads for this call; default :func:`set_threads`'s value.
    min_prob, min_margin : review thresholds (see :func:`review_cells`).
    mirror : also read every cell mirrored and average (off).
    consistency : re-score doubtful cells by the sheet's own drawings.
    second_look : read doubtful cells again mirrored.
    neighbours : apply :func:`neighbour_prior`.
    lookalikes : apply :func:`lookalike_vote`.
    covered : look for covered cells.
    hidden : the covered cells (``(121,)`` bool) being found by the caller, e.g. in its
        own thread while this one reads the model: taken instead of looking here.
    outlines : :func:`scanner.shapes.edge_lines` of ``crops`` being measured by the
        caller, in the same way: taken instead of measuring here.
    context : re-read the drawn cells' terrain among the sheet (:mod:`scanner.context`;
        only with the cell model the context model was trained on).
    unfilled_ruins : list ruins spaces read as empty.
    shapes : let each outlined shape's cells agree.
    farm_water : list cells read as farm with water at :data:`FARM_WATER_DOUBT` or more.

    Returns
    -------
    CellReading
    """
    reader = _Reader(crops, layout, model, threads)
    raw, features = reader.read(mirror)
    probs = _posterior(raw, features, layout, consistency)
    if not mirror and second_look:
        doubtful = np.flatnonzero(probs.max(axis=1) < SECOND_LOOK_BELOW)
        if doubtful.size:
            again, again_features = reader.mirrored(doubtful)
            raw = raw.copy()
            raw[doubtful] = (raw[doubtful] + again) / 2
            if features is not None and again_features is not None:
                features = features.copy()
                features[doubtful] = (features[doubtful] + again_features) / 2
            probs = _posterior(raw, features, layout, consistency)
    model_raw = raw
    # The review follows the cells' own reading: the context, the look-alikes and the
    # neighbours may choose a cell's class, but they never take it off the review list.
    own = in_context = probs
    # The context model reads the features of the cell model it was trained on, no other's.
    if features is not None and context and context_fits(Path(model or MODEL_PATH)):
        drawn = np.isin(own.argmax(axis=1), np.arange(TERRAINS.start, TERRAINS.stop))
        raw = context_read(raw, features, layout, drawn & free_cells(layout))
        in_context = probs = _posterior(raw, features, layout, consistency)
    voted = in_context
    if features is not None and lookalikes:
        voted = probs = lookalike_vote(in_context, features, layout)
    shaped = voted
    if shapes:
        lines = outlines.result() if outlines is not None else edge_lines(crops)
        shaped = shape_vote(voted, lines, free_cells(layout))
        shaped = probs = apply_layout_prior(shaped, layout)
    if neighbours:
        probs = neighbour_prior(shaped, layout)
    decided = probs.argmax(axis=1) != shaped.argmax(axis=1)
    by_shape = (shaped.argmax(axis=1) != voted.argmax(axis=1)) & ~decided
    lookalike = (voted.argmax(axis=1) != in_context.argmax(axis=1)) & ~decided & ~by_shape
    by_sheet = (probs.argmax(axis=1) != own.argmax(axis=1)) & ~decided & ~by_shape & ~lookalike
    blank = looks_blank(probs, layout)
    if blank:
        own = probs = _all_empty(probs, layout)
        decided = lookalike = by_shape = by_sheet = None
    choice = probs.argmax(axis=1)
    unfilled = maybe_water = None
    if not blank and unfilled_ruins:
        unfilled = ruins_mask(layout) & (choice == CLASSES.index("."))
    if not blank and farm_water:
        maybe_water = farm_maybe_water(probs)
    grid = tuple("".join(CLASSES[choice[r * SIZE + c]] for c in range(SIZE)) for r in range(SIZE))
    conf = probs[np.arange(SIZE * SIZE), choice]
    confidence = tuple(
        tuple(round(float(conf[r * SIZE + c]), 4) for c in range(SIZE)) for r in range(SIZE)
    )
    printed = printed_table(layout)
    if not covered:
        hidden = None
    else:
        hidden = hidden.result() if hidden is not None else covered_cells(crops, free_cells(layout))
    fit = model_raw[printed >= 0, printed[printed >= 0]]
    return CellReading(
        grid=grid,
        confidence=confidence,
        probabilities=probs,
        model_probabilities=model_raw,
        review=review_cells(
            own,
            layout,
            min_prob,
            min_margin,
            decided=decided,
            covered=hidden,
            lookalike=lookalike,
            unfilled=unfilled,
            by_shape=by_shape,
            by_sheet=by_sheet,
            in_context=in_context,
            farm_water=maybe_water,
            chosen=choice,
        ),
        printed_fit=float(fit.mean()) if fit.size else 1.0,
    )
