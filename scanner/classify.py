"""Read the terrain of every cell with the ONNX cell model (onnxruntime only, no torch).

One batched call per sheet (:mod:`scanner.cell_model`: the session, built once per
process and per thread count, and its inputs); this module is the order of the reading
steps that follow. The printed layout is a hard prior (:mod:`scanner.layout_prior`):
printed mountains and wasteland are read as such whatever the model says, and a cell
without them can never be ``^`` or ``#``. The sheet's votes are in :mod:`scanner.votes`.
One player draws one sheet, so their forests look alike: :func:`sheet_consistency`
re-scores the doubtful cells by how much the model's own features resemble the cells
read confidently on the same sheet. Cells still doubtful after that get a second look:
the model reads them again mirrored, and the two readings are averaged. A cell still
doubtful then leans towards the readings of the few cells on the sheet that look most
like it (:func:`lookalike_vote`). A player draws shapes of several spaces in one terrain,
so it also leans towards the terrain of the sides it shares with surely read cells
(:func:`neighbour_prior`). Cells whose own top probability is low, or whose top two
classes are close, are listed for review with their candidates (and, when the
look-alikes or the neighbours chose the class, so marked: :mod:`scanner.review`).
Cells mostly hidden by something lying on the sheet (a finger, a pencil, a card:
:mod:`scanner.covered`) are listed for review as covered, whatever the model read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from scanner import cell_model
from scanner.context import TERRAINS, context_read
from scanner.context import fits as context_fits
from scanner.covered import covered_cells
from scanner.layout_prior import apply_layout_prior, free_cells, printed_table, ruins_mask
from scanner.normalize import CLASSES
from scanner.review import REVIEW_MIN_MARGIN, REVIEW_MIN_PROB, farm_maybe_water, review_cells
from scanner.shapes import edge_lines, shape_vote
from scanner.sheet import Review
from scanner.votes import lookalike_vote, neighbour_prior, sheet_consistency
from scoring.layouts import SIZE, Layout

if TYPE_CHECKING:
    from concurrent.futures import Future

#: Second look: cells read with less than this are read again mirrored (see classify_cells).
SECOND_LOOK_BELOW = 0.99


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


#: A sheet reading at most this many drawn cells, ...
BLANK_MAX_DRAWN = 12
#: ... none of them this sure, is an unplayed sheet.
BLANK_MAX_PROB = 0.97


def printed_fit(probs: np.ndarray, layout: Layout) -> float:
    """Mean probability ``probs`` (the model's own, ``(121, len(CLASSES))``) give the
    printed terrain on the layout's mountain and wasteland cells: near 1 when the grid,
    side and turn are right, far lower on a grid half a cell off."""
    printed = printed_table(layout)
    fit = probs[printed >= 0, printed[printed >= 0]]
    return float(fit.mean()) if fit.size else 1.0


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
    doubted: bool = True,
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
    is listed as decided by it (by the last one that changed it); with ``doubted``, a
    cell the steps left doubtful is listed too. A sheet that :func:`looks_blank` is read
    as empty. With ``covered``, cells hidden under a finger, a pencil or a card
    (:func:`scanner.covered.covered_cells`) are listed for review as covered, keeping
    their best guess and candidates. With
    ``unfilled_ruins``, every ruins space read as empty is listed for review too (not on
    a blank sheet): on tuning photos that catches faint drawings over the icon read
    surely as empty, for about half a listed cell a sheet.

    Parameters
    ----------
    crops : (121, 96, 96, 3) uint8 array
        BGR crops from :func:`scanner.cells.cut_cells`, row-major.
    layout : the printed side, which fixes mountains, wasteland and ruins.
    model : an ONNX model file; default :data:`scanner.cell_model.MODEL_PATH`.
    threads : onnxruntime threads for this call; default
        :func:`scanner.cell_model.set_threads`'s value.
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
    farm_water : list cells read as farm with water at
        :data:`scanner.review.FARM_WATER_DOUBT` or more.
    doubted : list cells whose final reading (after every step) is low or close, as
        :data:`scanner.review.DOUBTED_BY_SHEET`.

    Returns
    -------
    CellReading
    """
    reader = cell_model.CellReader(crops, layout, model, threads)
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
    if features is not None and context and context_fits(Path(model or cell_model.MODEL_PATH)):
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
    if not covered:
        hidden = None
    else:
        hidden = hidden.result() if hidden is not None else covered_cells(crops, free_cells(layout))
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
            final=probs if doubted else None,
        ),
        printed_fit=printed_fit(model_raw, layout),
    )
