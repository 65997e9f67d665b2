"""Finding the sheets ``cartoscore batch`` scores: folders walked, files told apart
(photos, map files, a photo's sidecar, videos), HTML reports' folders left out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from app.inputs import MAP_SUFFIXES, PHOTO_SUFFIXES, media_kind, with_pages
from app.results import sheet_key


@dataclass(frozen=True)
class Collected:
    """The sheets found in the inputs, and the directory files left out (with why)."""

    files: list[str]
    skipped: list[tuple[str, str]]
    #: Folders that could not be listed (with why): their sheets, if any, are not scored.
    unreadable: list[tuple[str, str]] = field(default_factory=list)


def collect_inputs(inputs: Iterable[str | Path], exclude: Iterable[str | Path] = ()) -> Collected:
    """Expand directories (recursively, sorted) into photos and map files, and PDFs and
    TIFFs of several pages into their pages (:func:`app.inputs.with_pages`).

    Files named explicitly are always kept (a bad one then fails with its own
    message). Inside directories, files of other kinds are skipped, and so are an HTML
    report's files (``X_files`` beside ``X.html``: ``--html``'s overlays), and
    ``.json`` files that are not map files (a photo's ``.json`` sidecar, indexes).
    Missing paths are kept, so that they are reported as failures.
    """
    excluded = {sheet_key(p) for p in exclude}
    files: list[str] = []
    skipped: list[tuple[str, str]] = []
    unreadable: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        for one in with_pages([path]):  # a PDF or TIFF of several pages: each page
            key = sheet_key(one)
            if key not in seen and key not in excluded:
                seen.add(key)
                files.append(str(one))

    for item in inputs:
        path = Path(item)
        if not path.is_dir():
            add(str(item))
            continue
        children = _folder_files(path, excluded, unreadable)
        photos = {(c.parent, c.stem) for c in children if c.suffix.lower() in PHOTO_SUFFIXES}
        for child in children:
            suffix = child.suffix.lower()
            if suffix in PHOTO_SUFFIXES:
                add(str(child))
            elif suffix in MAP_SUFFIXES - {".json"}:
                add(str(child))
            elif suffix == ".json":
                why = _json_not_a_map(child, (child.parent, child.stem) in photos)
                if why:
                    skipped.append((str(child), why))
                else:
                    add(str(child))
            elif (kind := media_kind(child)) == "video":
                skipped.append((str(child), "a video"))
            elif kind == "photo":  # a photo or scan saved without its extension
                add(str(child))
            elif child.name != "cartoscore.toml":
                skipped.append((str(child), "not a photo or map file"))
    return Collected(files, skipped, unreadable)


def _folder_files(top: Path, excluded: set[str], unreadable: list[tuple[str, str]]) -> list[Path]:
    """The files in ``top`` and its subfolders (sorted; links to folders are not
    followed), leaving out hidden files and folders, the ``excluded`` ones (this run's
    results and HTML report) and HTML reports' folders (:func:`_report_files`, a run
    without ``--html``). A folder that cannot be listed is added to ``unreadable``."""
    if sheet_key(top) in excluded:
        return []

    def cannot_list(err: OSError) -> None:
        why = (err.strerror or type(err).__name__).lower()
        unreadable.append((err.filename or str(top), f"cannot read this folder ({why})"))

    found = []
    for folder, subfolders, names in os.walk(top, onerror=cannot_list):
        here = Path(folder)
        subfolders[:] = [
            d
            for d in subfolders
            if not d.startswith(".")  # a phone's .thumbnails, a .git: no sheets
            and sheet_key(here / d) not in excluded
            and not _report_files(here / d)
        ]
        files = (here / n for n in names if not n.startswith("."))
        found += [f for f in files if sheet_key(f) not in excluded]
    return sorted(p for p in found if p.is_file())


#: An HTML report ``X.html`` keeps its files (``batch --html``'s overlays) in ``X_files``,
#: as a browser saves a page.
REPORT_FILES_SUFFIX = "_files"


def report_files_folder(html: Path) -> Path:
    """Where the HTML report ``html`` keeps its overlays: ``X_files`` beside ``X.html``."""
    return html.with_name(html.stem + REPORT_FILES_SUFFIX)


def _report_files(folder: Path) -> bool:
    """Whether ``folder`` holds an HTML report's files (:func:`report_files_folder` of an
    ``.html`` file beside it), never sheets to score."""
    stem = folder.name.removesuffix(REPORT_FILES_SUFFIX)
    return stem != folder.name and folder.with_name(stem + ".html").is_file()


def _json_not_a_map(path: Path, beside_a_photo: bool) -> str | None:
    """Why a ``.json`` file in a folder is no map file: a photo's sidecar (its name a
    photo's, with ``.json``), not JSON, or JSON without a map grid; None for a map."""
    if beside_a_photo:
        return "a photo's sidecar"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: nested thousands deep
        return "not JSON"
    if not isinstance(data, dict) or "grid" not in data:
        return "JSON without a map grid"
    return None
