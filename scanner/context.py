"""The sheet-context step: which terrain a drawn cell is, read among its sheet.

A player draws each terrain one way all game, and a drawing that is ambiguous alone
(tight waves or a squiggled furrow) is rarely so beside the sheet's other drawings.
A small attention model (``models/context.onnx``, trained by
``python -m models.train_context``) takes, for each of one sheet's 121 cells, the cell
model's log-probabilities and features, the printed terrain under it and the side
(not where the cell is: a version that also knew each cell's row and column read our
own tuning photos better and the held-out renderer's worse), and re-reads the terrain
of every cell the reading so far calls drawn. It never decides whether a cell is
drawn: on held-out tuning photos an unrestricted version turned faintly marked empty
cells into terrain.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import numpy as np

from scanner.layout_prior import printed_table, ruins_mask
from scanner.normalize import CLASSES
from scanner.onnx_session import cached_session
from scanner.softmax import softmax
from scoring.layouts import SIZE, Layout

CONTEXT_PATH = Path(__file__).resolve().parent.parent / "models" / "context.onnx"
#: Metadata key of the context model: the SHA-256 of the cell model file whose features
#: it was trained on. With any other cell model (a candidate, the float export, a
#: retrained ``cells.int8.onnx``) the step is left out.
CELL_MODEL_KEY = "cell_model_sha256"
#: The model's input names (shared with :mod:`models.context_net`).
LOG_PROBS_INPUT, FEATURES_INPUT, PRINTED_INPUT, SIDE_INPUT = (
    "log_probs",
    "features",
    "printed",
    "side",
)
#: Width of the cell model's features output.
N_FEATURES = 160
#: The five drawn terrains' places in :data:`CLASSES` (forest ... monster).
TERRAINS = slice(CLASSES.index("T"), CLASSES.index("M") + 1)


def drawn_terrain(labels, printed):
    """Where a true label is a drawn terrain on a free or ruins space (what the context
    model is trained and judged on); numpy arrays or torch tensors alike."""
    return (labels >= TERRAINS.start) & (labels < TERRAINS.stop) & ((printed == 0) | (printed == 3))


@lru_cache(maxsize=16)
def printed_kinds(layout: Layout) -> np.ndarray:
    """``(121,)`` int64, row-major, read-only: 0 free, 1 mountain, 2 wasteland, 3 ruins."""
    printed = printed_table(layout)
    out = np.zeros(SIZE * SIZE, np.int64)
    out[printed == CLASSES.index("^")] = 1
    out[printed == CLASSES.index("#")] = 2
    out[ruins_mask(layout)] = 3
    out.flags.writeable = False
    return out


def _session(path: Path):
    """The context model's session (one thread; built once per process and file)."""
    return cached_session(path, 1, "sheet-context model")


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@lru_cache(maxsize=8)
def fits(cell_model: Path, path: Path = CONTEXT_PATH) -> bool:
    """Whether the context model at ``path`` was trained on ``cell_model``'s features
    (checked once per process and pair of files)."""
    meta = _session(path).get_modelmeta().custom_metadata_map
    return meta.get(CELL_MODEL_KEY) == file_sha256(cell_model)


def context_logits(
    probs: np.ndarray, features: np.ndarray, layout: Layout, path: Path | None = None
) -> np.ndarray:
    """The context model's ``(121, 8)`` logits for one sheet's cell-model reading."""
    feed = {
        LOG_PROBS_INPUT: np.log(np.maximum(probs, 1e-9)).astype(np.float32)[None],
        FEATURES_INPUT: np.asarray(features, np.float32)[None],
        PRINTED_INPUT: printed_kinds(layout)[None],
        SIDE_INPUT: np.array([layout.name == "B"], np.int64),
    }
    return _session(path or CONTEXT_PATH).run(["logits"], feed)[0][0].astype(np.float64)


def context_read(
    probs: np.ndarray,
    features: np.ndarray,
    layout: Layout,
    drawn: np.ndarray,
    path: Path | None = None,
) -> np.ndarray:
    """``probs`` (the cell model's, ``(121, 8)``) with the terrain of each ``drawn`` cell
    re-read in context: its probability of being drawn at all is kept and shared
    among the five terrains as the context model says."""
    logits = context_logits(probs, features, layout, path)[:, TERRAINS]
    share = softmax(logits, axis=1)
    out = np.array(probs, np.float64, copy=True)
    out[drawn, TERRAINS] = out[drawn, TERRAINS].sum(axis=1, keepdims=True) * share[drawn]
    return out
