"""The dispute picture: the rectified sheet with what was read and what scored.

:func:`draw_overlay` draws, on the scanner's canonical view (or, for a map file, on
a clean rendered grid of the same geometry), each cell's class and confidence, a red
frame around cells needing review, a blue one around spaces set by hand, and
optionally one card's explanation: the spaces that earned points (tinted), the
scoring clusters (outlined), full rows or columns (framed) and complete diagonals
(a line through them). With the whole game scored on the sheet's one map, a cell to
check whose runner-up would change the total says so in its bottom corner
(``"F -2"``: :mod:`app.what_if`).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from app.outputs import output_path_problem
from app.report import review_effects
from app.what_if import IfRunnerUp, changing
from scanner import geometry as g
from scanner.sheet import COINS, Sheet, shown
from scoring.board import EMPTY
from scoring.cards import CARDS, UnknownCard, find_card
from scoring.game import EDICTS, GameResult
from scoring.i18n import counted
from scoring.layouts import ROW_LETTERS, SIZE, parse_space, space_name

PX = g.CANON_PX_PER_CELL
FONT = cv2.FONT_HERSHEY_SIMPLEX
# BGR colours of the cell labels (same hues as the terminal report).
LABEL_COLOURS = {
    "T": (40, 130, 30),
    "V": (40, 40, 190),
    "F": (0, 150, 190),
    "W": (190, 90, 20),
    "M": (150, 40, 150),
    "^": (30, 70, 120),
    "#": (90, 90, 90),
    EMPTY: (110, 110, 110),
}
REVIEW_COLOUR = (0, 0, 255)
SET_COLOUR = (255, 0, 0)  # blue frame: a space set by hand (score --set)
HIGHLIGHT = (0, 215, 255)  # amber tint on scoring spaces
# Cluster outlines, in turn: none of them the orange of the scoring spaces' boxes, the green
# of full rows, columns and diagonals, the red of cells to check or the blue of cells set
# by hand (magenta, cyan, purple, teal, near black).
CLUSTER_COLOURS = [(255, 0, 200), (230, 200, 0), (150, 20, 100), (120, 120, 0), (40, 40, 40)]
# Fills of the clean grid drawn for map files (light tints of the terrain colours).
FILL = {
    "T": (150, 200, 150),
    "V": (160, 160, 225),
    "F": (150, 220, 235),
    "W": (225, 190, 150),
    "M": (210, 160, 210),
    "^": (60, 80, 110),
    "#": (170, 170, 170),
    EMPTY: (235, 242, 246),
}


class UnknownExplain(ValueError):
    """``--explain`` names neither an edict letter nor one of the game's four cards."""


def check_explain(what: str) -> None:
    """Raise :class:`UnknownExplain` when ``--explain`` names neither an edict letter nor
    any card (whether the card is in a game is known only once its cards are)."""
    if what.strip().upper() not in EDICTS:
        _explained_card(what)


def _explained_card(what: str):
    try:
        return find_card(what.strip())
    except UnknownCard as err:
        raise UnknownExplain(f"--explain: {err}") from None


def resolve_explain(what: str, cards: dict[str, str]) -> str:
    """Edict letter (A-D) for ``--explain``: an edict letter, a card id or a card name."""
    key = what.strip()
    if key.upper() in EDICTS:
        return key.upper()
    card = _explained_card(key)
    for edict, card_id in cards.items():
        if card_id == card.id:
            return edict
    raise UnknownExplain(f"--explain: {card.id} is not one of this game's cards")


def _cell_rect(r: int, c: int) -> tuple[int, int, int, int]:
    x0, y0 = g.to_canonical_px(c, r)
    return int(round(x0)), int(round(y0)), int(round(x0 + PX)), int(round(y0 + PX))


def clean_view(sheet: Sheet) -> np.ndarray:
    """A drawn sheet in the canonical geometry for map-file input: fills, lines, labels."""
    w, h = g.canonical_size()
    img = np.full((h, w, 3), (225, 238, 245), np.uint8)
    grid = sheet.map.grid
    ruins = sheet.map.layout.ruins
    for r in range(SIZE):
        for c in range(SIZE):
            x0, y0, x1, y1 = _cell_rect(r, c)
            cv2.rectangle(img, (x0, y0), (x1, y1), FILL[grid[r][c]], -1)
            if (r, c) in ruins:
                cv2.rectangle(img, (x0 + 4, y0 + 4), (x1 - 4, y1 - 4), (60, 120, 170), 1)
    for i in range(SIZE + 1):
        a = _px(0, i)
        b = _px(SIZE, i)
        cv2.line(img, a, b, (80, 110, 140), 1)
        a = _px(i, 0)
        b = _px(i, SIZE)
        cv2.line(img, a, b, (80, 110, 140), 1)
    cv2.rectangle(img, _px(0, 0), _px(SIZE, SIZE), (40, 40, 40), 3)
    for r in range(SIZE):
        x, y = _px(g.ROW_LABEL_X, r + 0.5)
        cv2.putText(img, ROW_LETTERS[r], (x - 6, y + 6), FONT, 0.5, (60, 110, 170), 1, cv2.LINE_AA)
    for c in range(SIZE):
        x, y = _px(c + 0.5, g.COLUMN_LABEL_Y)
        label = str(c + 1)
        cv2.putText(img, label, (x - 5 * len(label), y + 6), FONT, 0.5, (60, 110, 170), 1)
    return img


def _px(x: float, y: float) -> tuple[int, int]:
    px, py = g.to_canonical_px(x, y)
    return int(round(px)), int(round(py))


def draw_overlay(
    sheet: Sheet,
    view: np.ndarray | None = None,
    game: GameResult | None = None,
    explain: str | None = None,
    season: str | None = None,
    effects: dict[str, IfRunnerUp] | None = None,
) -> np.ndarray:
    """The annotated canonical view.

    Parameters
    ----------
    sheet : the recognised (or typed) sheet.
    view : the scanner's canonical view (BGR uint8); None draws :func:`clean_view`.
    game : the scored game; needed with ``explain``.
    explain : an edict letter A-D whose card's scoring spaces are drawn.
    season : the season this map is (``score --per-season``): ``game`` is then this map
        alone, so the title names the season instead of a total, and the cells to check
        are not tagged with a change of the game's total (as the report leaves it out).
    effects : :func:`app.report.review_effects` when the caller has it (the report
        shows it too); else it is worked out here.

    Returns
    -------
    (H, W, 3) uint8 BGR image of ``scanner.geometry.canonical_size()``.
    """
    base = clean_view(sheet) if view is None else np.ascontiguousarray(view).copy()
    if explain is not None:
        if game is None:
            raise ValueError("explain needs the scored game")
        _draw_explanation(base, game, explain)
    if effects is None and game is not None:
        effects = review_effects(sheet, game, season)
    effects = effects or {}
    _draw_cells(base, sheet, effects)
    _draw_title(base, sheet, game, explain, effects, season)
    return base


def _draw_cells(img: np.ndarray, sheet: Sheet, effects: dict[str, IfRunnerUp]) -> None:
    review = {parse_space(r.space) for r in sheet.review}
    by_hand = {parse_space(c.space) for c in sheet.corrected if c.space != COINS}
    grid = sheet.map.grid
    for r in range(SIZE):
        for c in range(SIZE):
            x0, y0, x1, y1 = _cell_rect(r, c)
            sym = grid[r][c]
            label = sym
            if (r, c) in by_hand:
                label += " set"
            elif sheet.confidence is not None:
                label += " " + shown(sheet.confidence[r][c]).replace("0.", ".").replace("1.00", "1")
            # A white tag in the cell's top-left corner keeps the label readable on any ink.
            (tw, th), _ = cv2.getTextSize(label, FONT, 0.38, 1)
            cv2.rectangle(img, (x0 + 1, y0 + 1), (x0 + tw + 5, y0 + th + 6), (255, 255, 255), -1)
            cv2.putText(
                img, label, (x0 + 3, y0 + th + 3), FONT, 0.38, LABEL_COLOURS[sym], 1, cv2.LINE_AA
            )
            if (r, c) in review:
                cv2.rectangle(img, (x0 + 1, y0 + 1), (x1 - 1, y1 - 1), REVIEW_COLOUR, 3)
                effect = effects.get(space_name((r, c)))
                if effect is not None and effect.change:
                    _draw_effect(img, effect, x0, y1)
            elif (r, c) in by_hand:
                cv2.rectangle(img, (x0 + 1, y0 + 1), (x1 - 1, y1 - 1), SET_COLOUR, 3)


def _draw_effect(img: np.ndarray, effect: IfRunnerUp, x0: int, y1: int) -> None:
    """The runner-up and what it would do to the total (``"F -2"``), red on white in the
    cell's bottom-left corner."""
    label = f"{effect.symbol} {effect.change:+d}"
    (tw, th), _ = cv2.getTextSize(label, FONT, 0.38, 1)
    cv2.rectangle(img, (x0 + 4, y1 - th - 9), (x0 + tw + 8, y1 - 4), (255, 255, 255), -1)
    cv2.putText(img, label, (x0 + 6, y1 - 7), FONT, 0.38, REVIEW_COLOUR, 1, cv2.LINE_AA)


def _draw_explanation(img: np.ndarray, game: GameResult, edict: str) -> None:
    expl = game.card_results[edict].explanation
    tint = img.copy()
    for r, c in expl.spaces:
        x0, y0, x1, y1 = _cell_rect(r, c)
        cv2.rectangle(tint, (x0, y0), (x1, y1), HIGHLIGHT, -1)
    cv2.addWeighted(tint, 0.55, img, 0.45, 0, dst=img)
    for r, c in expl.spaces:
        x0, y0, x1, y1 = _cell_rect(r, c)
        cv2.rectangle(img, (x0 + 4, y0 + 4), (x1 - 4, y1 - 4), (0, 140, 255), 3)
    for i, cluster in enumerate(expl.clusters):
        mask = np.zeros(img.shape[:2], np.uint8)
        for r, c in cluster:
            x0, y0, x1, y1 = _cell_rect(r, c)
            mask[y0:y1, x0:x1] = 255
        # Outer borders and the borders of holes: a space a cluster surrounds but does not
        # hold must not look like part of it.
        contours, _ = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(img, contours, -1, CLUSTER_COLOURS[i % len(CLUSTER_COLOURS)], 4)
    for r in expl.rows:
        cv2.rectangle(img, _px(0, r), _px(SIZE, r + 1), (0, 200, 0), 4)
    for c in expl.columns:
        cv2.rectangle(img, _px(c, 0), _px(c + 1, SIZE), (0, 200, 0), 4)
    for diagonal in expl.diagonals:
        pts = np.array([_px(c + 0.5, r + 0.5) for r, c in diagonal], np.int32)
        if len(pts) == 1:
            cv2.circle(img, tuple(int(v) for v in pts[0]), PX // 3, (0, 200, 0), 4)
        else:
            cv2.polylines(img, [pts], False, (0, 200, 0), 5, cv2.LINE_AA)


def _draw_title(
    img: np.ndarray,
    sheet: Sheet,
    game: GameResult | None,
    explain: str | None,
    effects: dict[str, IfRunnerUp],
    season: str | None,
) -> None:
    lines = [f"{Path(sheet.source).name}  side {sheet.map.layout.name}"]
    if season is not None:
        lines[0] += f"  {season}"
    if sheet.review:
        lines[0] += f"  {counted(len(sheet.review), 'cell')} to check (red)"
        if effects:
            lines[0] += f", {changing(effects)} would change the total"
    spaces = [c for c in sheet.corrected if c.space != COINS]
    if spaces:
        lines[0] += f"  {len(spaces)} set by hand (blue)"
    if len(spaces) < len(sheet.corrected):
        lines[0] += f"  coins {sheet.coins} set by hand"
    if game is not None and explain is not None:
        card = CARDS[game.cards[explain]]
        res = game.card_results[explain]
        lines.append(f"{explain} {card.name}: {res.points} - {res.explanation.reason}")
    elif game is not None and season is None:
        lines[0] += f"  total {game.total}"
    y = 16
    for line in lines:
        (tw, th), _ = cv2.getTextSize(line, FONT, 0.45, 1)
        cv2.rectangle(img, (2, y - th - 3), (8 + tw, y + 4), (255, 255, 255), -1)
        cv2.putText(img, line, (5, y), FONT, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
        y += th + 10


def overlay_target_problem(path: str | Path) -> str | None:
    """Why an overlay cannot be written to ``path`` (checked before any input is read,
    so that ``--overlay`` with a bad name fails at once), or None.

    ``path`` must name a file of an image type OpenCV writes (PNG, JPEG, WebP, TIFF...)
    in a folder that exists; with several inputs each overlay goes beside it, with the
    same folder and extension (:func:`app.overlay_files.overlay_paths`).
    """
    path = Path(path)
    problem = output_path_problem(path, "overlay.png")
    if problem is not None:
        return problem
    if not cv2.haveImageWriter(str(path)):
        kind = f"{path.suffix} images" if path.suffix else "a file without an extension"
        return f"cannot write {kind}: use .png or .jpg"
    return None


def write_overlay(path: str | Path, image: np.ndarray) -> None:
    """Write the overlay (PNG, JPEG... by the file's extension); OSError if it cannot."""
    path = Path(path)
    params = [cv2.IMWRITE_JPEG_QUALITY, 85] if path.suffix.lower() in (".jpg", ".jpeg") else []
    try:
        ok = cv2.imwrite(str(path), image, params)
    except cv2.error:  # OpenCV raises for an extension it has no writer for
        ok = False
    if not ok:
        raise OSError(f"{path}: cannot write the overlay image (unknown extension or path)")


def write_attempts(path: str | Path, err: BaseException) -> bool:
    """For a photo where no sheet was found (``SheetNotFound``), write the photo with
    every place the search tried to ``path``; False when ``err`` is another failure
    (nothing to draw). OSError if the file cannot be written."""
    from scanner.errors import SheetNotFound
    from scanner.overlay import draw_attempts

    image = draw_attempts(err) if isinstance(err, SheetNotFound) else None
    if image is None:
        return False
    write_overlay(path, image)
    return True
