"""``score --overlay`` and ``read --overlay``: where each input's overlay goes, and
writing it. Each write gives back the one line to tell (on stderr, by the CLI); the
drawing is :mod:`app.overlay`, imported only when an overlay is written."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.errors import one_line

if TYPE_CHECKING:
    import numpy as np

    from app.what_if import IfRunnerUp
    from scanner.sheet import Sheet
    from scoring.game import GameResult


def overlay_paths(target: Path, sources: list[str]) -> list[Path]:
    """Where each input's overlay goes: ``target`` for one input; for several,
    ``target-<name>``, and ``target-<name>-<n>`` (the input's number, from 1) for inputs
    whose names are alike (``round1/sheet.txt``, ``round2/sheet.txt``)."""
    if len(sources) == 1:
        return [target]
    from scanner.pages import source_stem

    stems = [source_stem(s) for s in sources]
    return [
        target.with_name(
            f"{target.stem}-{stem}{f'-{n}' if stems.count(stem) > 1 else ''}{target.suffix}"
        )
        for n, stem in enumerate(stems, start=1)
    ]


class OverlayWriter:
    """Writes each input's overlay (called with sheet, view, game, the input's index
    into ``paths`` and the review effects the report worked out, if any), and gives
    back the line saying where it went. An overlay that cannot be made (written, or
    ``--explain``'s card is not in that game) gives an error line instead and sets
    :attr:`failed`; the input's report stands as printed."""

    def __init__(self, paths: list[Path], explain: str | None) -> None:
        self.paths, self.explain = paths, explain
        self.failed = False

    def __call__(
        self,
        sheet: Sheet,
        view: np.ndarray | None,
        game: GameResult,
        index: int,
        season: str | None = None,
        effects: dict[str, IfRunnerUp] | None = None,
    ) -> str:
        from app.overlay import UnknownExplain, draw_overlay, resolve_explain, write_overlay

        path = self.paths[index]
        try:
            edict = None if self.explain is None else resolve_explain(self.explain, game.cards)
            write_overlay(path, draw_overlay(sheet, view, game, edict, season, effects))
        except (UnknownExplain, OSError) as err:
            self.failed = True
            return f"error: {sheet.source}: no overlay: {one_line(err)}"
        return f"overlay written to {path}"


def write_places_tried(path: Path | None, err: BaseException) -> str | None:
    """With ``--overlay`` (written to ``path``), when no sheet was found: the photo with
    every place tried. The line to tell, or None (no overlay asked for, or nothing to
    draw for ``err``)."""
    if path is None:
        return None
    from app.overlay import write_attempts

    try:
        written = write_attempts(path, err)
    except OSError as e:
        return f"error: {one_line(e)}"
    return f"overlay of the places tried written to {path}" if written else None
