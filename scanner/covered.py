"""Cells hidden under something lying on the sheet: a finger, a pencil, a card.

The cell model has never seen a thumb or a pencil on a sheet and reads what lies under
one as a drawing, often surely. A hidden cell shows what paper and ink never do: a
smooth surface off the paper's colour (skin, a pencil's painted body, a card's face),
the printed grid lines gone where it lies, and the same across its neighbours, as an
occluder is one object crossing cells. Coloured-in cells are smooth and coloured too,
but keep their grid lines, their drawn icon and their region's outline.

:func:`covered_cells` measures these cues on each cell's crop (at half resolution) and
weighs them with a two-stage logistic model fitted on rendered tuning photos with a
finger, a pencil or a card painted on them and on plain ones (``benchmarks/fit_covered.py``
writes the weights, :data:`WEIGHTS_PATH`): the first stage scores each cell on its own
cues and its four neighbours', the second adds the first stage's scores around it (a
pencil crossing a cell has covered cells on opposite sides). A cell scoring above
:data:`COVERED_ABOVE` is listed for review as :data:`COVERED`.
"""

from __future__ import annotations

import inspect
import json
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from scanner.normalize import INPUT_PX, shrink
from scoring.layouts import SIZE

#: Review reason of a cell mostly hidden by something that is neither paper nor ink.
COVERED = "covered"
#: The fitted weights (written by benchmarks/fit_covered.py).
WEIGHTS_PATH = Path(__file__).with_name("covered.json")
#: A cell whose second-stage log-odds is above this (a probability of one half) is covered.
COVERED_ABOVE = 0.0

_HALF = INPUT_PX  # crops read at half resolution (the model's own shrink): the cell is
# [8, 40), with its lines at 8 and 40
_LO, _HI = 8, 40
_BLOCKS = 12  # 4 x 4 half-resolution blocks per crop side; the cell's are [2, 10)
_BLOCK_PX = _HALF // _BLOCKS
_SMOOTH = 2.5  # a block is smooth when its grey level's spread is under this many paper noises
_OFF_CHROMA, _OFF_DARK, _OFF_LIGHT = 0.12, 0.8, 1.12  # off the paper's colour or brightness
_SCORE_LIMIT = 20.0  # first-stage log-odds beyond this say nothing more

#: The first stage's cues, in the order the weights use.
CUES = (
    "L_med", "L_std", "L_std_nbmax", "L_std_nbmean", "chroma_med", "dark", "fg", "fg_nbmax",
    "fg_nbmean", "miss_hi0.2", "miss_hi0.2_nbmax", "miss_hi0.2_nbmean", "miss_hi0.4",
    "miss_lo0.2", "miss_lo0.2_nbmax", "miss_lo0.2_nbmean", "miss_lo0.4", "smooth",
    "smooth_chroma", "smooth_dark", "smooth_dark_nbmax", "smooth_dark_nbmean", "smooth_nbmax",
    "smooth_nbmean", "tex_med", "tex_q25", "tex_q90", "tex_q90_nbmax", "tex_q90_nbmean",
)  # fmt: skip
_NEIGHBOURED = ("miss_lo0.2", "miss_hi0.2", "fg", "smooth", "smooth_dark", "L_std", "tex_q90")


def _line_contrast(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How much darker each cell border's middle is than its sides, in 4 segments per border.

    ``grey`` is (121, 48, 48) uint8 (averaged as float32). Returns the contrast against
    the lighter side and against the darker side, each (121, 16): a printed line is
    darker than both.
    """
    n = len(grey)
    near = np.r_[_LO - 3 : _LO + 4, _HI - 3 : _HI + 4]  # 7 pixels across each of both lines
    # Each segment's 8 pixels along averaged: (n, 2 lines, 4 segments, 7 across).
    across = grey[:, _LO:_HI, near].astype(np.float32).reshape(n, 4, 8, 2, 7)
    down = grey[:, near, _LO:_HI].astype(np.float32).reshape(n, 2, 7, 4, 8)
    across = across.mean(axis=2).transpose(0, 2, 1, 3)
    down = down.mean(axis=4).transpose(0, 1, 3, 2)
    # (n, 4 borders, 4 segments, 7 across): left, top, right, bottom
    profile = np.stack([across[:, 0], down[:, 0], across[:, 1], down[:, 1]], 1)
    a, b = profile[..., 0:2].mean(-1), profile[..., 5:7].mean(-1)
    middle = profile[..., 2:5].min(-1)
    return (np.maximum(a, b) - middle).reshape(n, 16), (np.minimum(a, b) - middle).reshape(n, 16)


def _lighting(brightness: np.ndarray, free: np.ndarray) -> np.ndarray:
    """(121,) how bright the light falls on each cell, relative to the whole grid's median.

    A plane through the cells' bright blocks (their 80th percentile), fitted on the
    free cells three times, each time leaving out those far darker than the last fit
    (something lying on them, or a dense drawing): a shadow or a lamp's fall-off across
    the sheet must not make one side's paper read as something dark lying on it.
    """
    level = np.percentile(brightness, 80, axis=1)
    rows, cols = np.divmod(np.arange(len(level)), SIZE)
    design = np.stack([np.ones(len(level)), rows / SIZE - 0.5, cols / SIZE - 0.5], 1)
    use = free.copy()
    for _ in range(3):
        coef, *_ = np.linalg.lstsq(design[use], level[use], rcond=None)
        fitted = design @ coef
        residual = level - fitted
        spread = 1.4826 * np.median(np.abs(residual[use])) + 1.0
        use = free & (residual > -2.5 * spread)
    return np.clip(fitted / max(float(np.median(fitted)), 1.0), 0.5, 2.0)


def _neighbours(values: np.ndarray) -> np.ndarray:
    """(4, k, 121): for each of k cues (k, 121), each cell's up, down, left and right
    neighbour's value (0 off the grid)."""
    m = np.pad(values.reshape(-1, SIZE, SIZE), ((0, 0), (1, 1), (1, 1)))
    shifted = [m[:, :-2, 1:-1], m[:, 2:, 1:-1], m[:, 1:-1, :-2], m[:, 1:-1, 2:]]
    return np.stack(shifted).reshape(4, *values.shape)


def _grey(half: np.ndarray) -> np.ndarray:
    """uint8 grey levels of (n, 48, 48, 3) BGR crops, as one row: no per-row overhead."""
    flat = half.reshape(1, -1, 3)
    return cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY).reshape(half.shape[:-1])


def _blocks(image: np.ndarray) -> np.ndarray:
    """Means of the blocks (4 x 4 pixels) of (n, h, w, ...) stacked images, one
    ``cv2.resize`` (``INTER_AREA``) over them all (a view is copied first); no block
    straddles two images. Returns (n, h / 4, w / 4, ...)."""
    n, h, w, *channels = image.shape
    rows, cols = h // _BLOCK_PX, w // _BLOCK_PX
    stacked = image.reshape(n * h, w, *channels)
    small = cv2.resize(stacked, (cols, n * rows), interpolation=cv2.INTER_AREA)
    return small.reshape(n, rows, cols, *channels)


def cell_cues(crops: np.ndarray, free: np.ndarray) -> np.ndarray:
    """The first stage's cues of every cell, (121, len(CUES)) float64.

    Parameters
    ----------
    crops : (121, 96, 96, 3) uint8 BGR crops (scanner.cells.cut_cells).
    free : (121,) bool, cells the layout leaves free (printed ones lend their
        neighbours nothing).
    """
    n = len(crops)
    half = shrink(crops)
    grey = _grey(half)
    # The cell's blocks, [2, 10) of the crop's 12: only its [_LO, _HI) pixels are resized.
    inner = (slice(None), slice(_LO, _HI), slice(_LO, _HI))
    colour = _blocks(half[inner]).reshape(n, -1, 3).astype(np.float32)
    cell = grey[inner].astype(np.float32)
    m1 = _blocks(cell).reshape(n, -1)
    m2 = _blocks(cell * cell).reshape(n, -1)
    spread = np.sqrt(np.maximum(m2 - m1 * m1, 0))
    lighter, darker = _line_contrast(grey)
    # The paper: bright blocks of low spread; its colour, its noise, its lines' contrast.
    paper = (m1 >= np.percentile(m1, 60)) & (spread <= np.percentile(spread, 50))
    paper_colour = np.median(colour[paper], axis=0)
    noise = max(float(np.median(spread[paper])), 0.5)
    seen = darker[darker > 0]
    line = max(float(np.median(seen)) if seen.size else 1.0, 1.0)
    balanced = colour / np.maximum(paper_colour * _lighting(m1, free)[:, None, None], 1.0)
    light = balanced.mean(-1)
    chroma = np.linalg.norm(balanced / np.maximum(light, 1e-3)[..., None] - 1, axis=-1)
    rel = spread / noise
    smooth = rel < _SMOOTH
    off = (chroma > _OFF_CHROMA) | (light < _OFF_DARK) | (light > _OFF_LIGHT)
    ranked = np.sort(rel, axis=1)
    k = ranked.shape[1] - 1
    l_med, chroma_med = np.median(np.stack([light, chroma]), axis=2)
    cues = {
        "L_med": l_med,
        "L_std": light.std(1),
        "chroma_med": chroma_med,
        "tex_med": _quantile(ranked, 0.5, k),
        "tex_q25": _quantile(ranked, 0.25, k),
        "tex_q90": _quantile(ranked, 0.90, k),
    }
    blocks = {
        "dark": light < 0.6,
        "fg": smooth & off,
        "smooth": smooth,
        "smooth_chroma": smooth & (chroma > _OFF_CHROMA),
        "smooth_dark": smooth & (light < _OFF_DARK),
    }
    cues.update(_shares(blocks))
    contrast = {"hi": lighter / line, "lo": darker / line}
    missing = _shares({f"miss_{s}{t}": contrast[s] < t for s in contrast for t in (0.2, 0.4)})
    # Some printings' lines are faint or sparsely dashed everywhere: what counts is a
    # cell missing more of them than the sheet's free cells usually do.
    usual = np.median(np.stack(list(missing.values()))[:, free], axis=1)
    cues.update(
        {name: share - below for (name, share), below in zip(missing.items(), usual, strict=True)}
    )
    # One pass per dtype: tex_q90 is float32, and so is its neighbours' mean.
    for dtype in {cues[name].dtype for name in _NEIGHBOURED}:
        names = [name for name in _NEIGHBOURED if cues[name].dtype == dtype]
        around = _neighbours(np.where(free, np.stack([cues[name] for name in names]), 0.0))
        for name, most, mean in zip(names, around.max(0), around.mean(0), strict=True):
            cues[name + "_nbmax"] = most
            cues[name + "_nbmean"] = mean
    return np.stack([cues[name] for name in CUES], 1).astype(np.float64)


def _shares(masks: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each mask's (n, m) share of True per row, by name: one mean over them all."""
    return dict(zip(masks, np.stack(list(masks.values())).mean(2), strict=True))


def _quantile(ranked: np.ndarray, q: float, last: int) -> np.ndarray:
    """Per row quantile of already sorted rows (linear interpolation, as numpy's default)."""
    pos = q * last
    i = int(pos)
    frac = pos - i
    return ranked[:, i] * (1 - frac) + ranked[:, min(i + 1, last)] * frac


def cue_source() -> str:
    """The code that measures the first stage's cues, as text: the settings it reads and
    its functions' source (``benchmarks/fit_covered.py`` keeps measured cues under its
    hash, for as long as it is unchanged)."""
    settings = (CUES, _NEIGHBOURED, _HALF, _LO, _HI, _BLOCKS, _SMOOTH)
    off_paper = (_OFF_CHROMA, _OFF_DARK, _OFF_LIGHT)
    code = (shrink, _grey, _blocks, _line_contrast, _lighting, _neighbours, _shares, _quantile)
    code += (cell_cues,)
    return repr((settings, off_paper)) + "".join(inspect.getsource(f) for f in code)


def context(scores: np.ndarray, free: np.ndarray) -> np.ndarray:
    """The second stage's inputs (121, 5): a cell's first-stage score (within +-20), the largest
    first-stage probability among its 4 and its 8 neighbours, the largest on both sides
    of it (up/down, left/right or either diagonal) and their mean over the 8."""
    scores = np.clip(scores, -_SCORE_LIMIT, _SCORE_LIMIT)
    p = np.where(free, 1 / (1 + np.exp(-scores)), 0.0).reshape(SIZE, SIZE)
    m = np.pad(p, 1)
    around = {
        (dy, dx): m[1 + dy : SIZE + 1 + dy, 1 + dx : SIZE + 1 + dx]
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if dy or dx
    }
    through = np.max(
        [
            np.minimum(around[d], around[(-d[0], -d[1])])
            for d in ((-1, 0), (0, -1), (-1, -1), (-1, 1))
        ],
        axis=0,
    )
    four = np.stack([around[d] for d in ((-1, 0), (1, 0), (0, -1), (0, 1))])
    eight = np.stack(list(around.values()))
    return np.stack(
        [scores, four.max(0).ravel(), eight.max(0).ravel(), through.ravel(), eight.mean(0).ravel()],
        1,
    )


def expand(x: np.ndarray) -> np.ndarray:
    """The inputs, their squares and their pairwise products (a quadratic logistic model)."""
    i, j = np.triu_indices(x.shape[1], 1)
    return np.concatenate([x, x * x, x[:, i] * x[:, j]], 1)


def logit(x: np.ndarray, stage: dict) -> np.ndarray:
    """A fitted stage's log-odds for its (not yet expanded) inputs ``x``, each clipped to
    the range it had in fitting (a quadratic model must not extrapolate: a view with no
    camera noise at all made scores of 1e5)."""
    x = np.clip(x, stage["low"], stage["high"])
    z = (expand(x) - stage["mean"]) / stage["scale"]
    return stage["bias"] + z @ stage["weights"]


@lru_cache(maxsize=2)
def load_weights(path: Path = WEIGHTS_PATH) -> tuple[dict, dict]:
    """The two fitted stages: the inputs' fitted range (``low``, ``high``), the expanded
    inputs' ``mean`` and ``scale``, the ``weights`` and the ``bias``."""
    raw = json.loads(Path(path).read_text())
    if tuple(raw["cues"]) != CUES:
        raise ValueError(f"{path} was fitted on other cues")
    return tuple(
        {k: np.asarray(v, np.float64) if k != "bias" else float(v) for k, v in raw[s].items()}
        for s in ("first", "second")
    )


def covered_scores(crops: np.ndarray, free: np.ndarray) -> np.ndarray:
    """(121,) log-odds that each cell is mostly hidden by something lying on the sheet."""
    first, second = load_weights()
    scores = logit(cell_cues(crops, free), first)
    return logit(context(scores, free), second)


def covered_cells(crops: np.ndarray, free: np.ndarray, above: float = COVERED_ABOVE) -> np.ndarray:
    """(121,) bool: the free cells mostly hidden by a finger, a pencil, a card ...

    Parameters
    ----------
    crops : (121, 96, 96, 3) uint8 BGR crops (scanner.cells.cut_cells), row-major.
    free : (121,) bool, the cells the layout leaves free; printed ones are never covered.
    above : score threshold (:data:`COVERED_ABOVE`).
    """
    free = np.asarray(free, bool)
    return (covered_scores(crops, free) > above) & free
