"""``cartoscore batch``: score many sheets in parallel, append each result as it finishes.

Only paths and result rows cross process boundaries: each worker decodes its own
photo, and builds its own single-threaded onnxruntime session once, in the pool's
initializer. Each finished row is appended to the results file and flushed at once,
so an interrupted run loses nothing; a re-run with the same file skips the sheets
already scored (failed ones are tried again, and the newest row of a sheet wins).
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # Windows: results files are not locked
    fcntl = None  # type: ignore[assignment]

from app.config import NO_CARDS
from app.inputs import (
    MAP_SUFFIXES,
    PHOTO_SUFFIXES,
    is_photo,
    load_input,
    media_kind,
    with_pages,
)
from scanner.pages import source_stem, split_page
from scoring.game import EDICTS, SEASONS

COLUMNS = (
    "source",
    "side",
    "coins",
    *(f"card_{e}" for e in EDICTS),
    "monsters",
    *(s[0] for s in SEASONS),
    "total",
    "solo_rating",
    "solo_title",
    "review",
    "stars_lost_to_monsters",
    "notes",
    "error",
    "set_by_hand",
    "path",
    "cards",
    "modified",
)
#: The columns of results files written before ``set_by_hand`` (read, and given the new
#: columns when a run appends to them).
FIRST_COLUMNS = COLUMNS[: COLUMNS.index("error") + 1]
INT_COLUMNS = frozenset(
    ["coins", *(f"card_{e}" for e in EDICTS), "monsters", *(s[0] for s in SEASONS), "total"]
    + ["solo_rating", "review", "stars_lost_to_monsters"]
)


THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
PRELOAD = ["cv2", "onnxruntime", "app.batch", "app.overlay", "scanner.pipeline", "scanner.classify"]


class BadResultsFile(ValueError):
    """The ``--out`` file exists but is not a results file of this command."""


@dataclass(frozen=True)
class Job:
    """One sheet to score; everything here pickles cheaply (paths and small dicts)."""

    source: str
    cards: dict[str, str] | None = None  # --cards / --cards-file: wins over everything
    side: str | None = None  # --side, or set by hand for this sheet: wins over a header
    overlay: str | None = None  # write the annotated sheet here (JPEG/PNG) when set
    default_cards: dict[str, str] | None = None  # a nearby cartoscore.toml: after a header
    fixes: tuple = ()  # app.corrections.Fixes as pairs: set by hand ([set] in settings)
    default_side: str | None = None  # a settings file's side: after a map file's header
    debug: bool = False  # --debug: a failure's traceback to stderr, beside its row


@dataclass(frozen=True)
class Collected:
    """The sheets found in the inputs, and the directory files left out (with why)."""

    files: list[str]
    skipped: list[tuple[str, str]]
    #: Folders that could not be listed (with why): their sheets, if any, are not scored.
    unreadable: list[tuple[str, str]] = field(default_factory=list)


# --- finding the sheets -------------------------------------------------------------


def collect_inputs(inputs: Iterable[str | Path], exclude: Iterable[str | Path] = ()) -> Collected:
    """Expand directories (recursively, sorted) into photos and map files, and PDFs and
    TIFFs of several pages into their pages (:func:`app.inputs.with_pages`).

    Files named explicitly are always kept (a bad one then fails with its own
    message). Inside directories, files of other kinds are skipped, and so are an HTML
    report's files (``X_files`` beside ``X.html``: ``--html``'s overlays), and
    ``.json`` files that are not map files (a photo's ``.json`` sidecar, indexes).
    Missing paths are kept, so that they are reported as failures.
    """
    excluded = {_key(p) for p in exclude}
    files: list[str] = []
    skipped: list[tuple[str, str]] = []
    unreadable: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        for one in with_pages([path]):  # a PDF or TIFF of several pages: each page
            key = _key(one)
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
    if _key(top) in excluded:
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
            and _key(here / d) not in excluded
            and not _report_files(here / d)
        ]
        files = (here / n for n in names if not n.startswith("."))
        found += [f for f in files if _key(f) not in excluded]
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


def _key(path: str | Path) -> str:
    return os.path.realpath(path)


#: A row's sheet as a resolved path (:func:`row_key`); set on the rows read back and
#: written, never itself written to the results file.
RESOLVED = "_resolved"


def row_key(row: dict) -> str:
    """The resolved path of a row's sheet: from its ``path`` column (relative to the
    results file's folder, so a run from another folder finds it), else from its
    ``source`` as given (rows of versions before that column: their run's folder)."""
    return row.get(RESOLVED) or _key(row["source"])


def _path_column(source: str, folder: Path) -> str:
    """A sheet's ``path`` column: its resolved path relative to the results file's folder."""
    try:
        return os.path.relpath(_key(source), _key(folder))
    except ValueError:  # another drive (Windows): no relative path
        return _key(source)


def overlay_name(source: str | Path) -> str:
    """File name of a sheet's overlay in the HTML report's folder (unique per resolved path)."""
    digest = hashlib.sha1(_key(source).encode()).hexdigest()[:8]
    return f"{source_stem(source)}-{digest}.jpg"


# --- one sheet (runs in a worker) ----------------------------------------------------


def init_worker(model: str | None = None, parent: int | None = None) -> None:
    """Pool initializer: one thread per worker for OpenCV and onnxruntime, freed memory
    kept for the next photo (:mod:`app.memory`), session built now.

    The session is built by reading a blank sheet's crops once; if the model is missing
    each photo will say so in its own row. ``model`` replaces the committed cell model.
    ``parent``: the batch's process; the worker ends itself when it is gone
    (:func:`_end_with`).
    """
    import cv2
    import numpy as np

    from app.memory import keep_freed_memory

    if parent is not None:
        _end_with(parent)
    cv2.setNumThreads(1)
    keep_freed_memory()
    try:
        from scanner import classify
        from scanner.cells import CROP_PX
        from scoring.layouts import SIDE_A

        if model is not None:
            classify.MODEL_PATH = Path(model)
        classify.set_threads(1)
        classify.classify_cells(np.full((121, CROP_PX, CROP_PX, 3), 230, np.uint8), SIDE_A)
    except Exception:  # noqa: BLE001 - reported per photo when it matters
        pass


#: Seconds between a worker's looks at whether the batch's process is still there.
PARENT_CHECK = 1.0


def _end_with(parent: int) -> None:
    """End this worker when process ``parent`` is gone. A batch killed outright (kill -9,
    an out-of-memory kill) cannot stop its pool, and the workers, holding both ends of
    their job queue, would wait for work for ever, keeping their memory and the batch's
    output pipe open."""
    import threading

    def watch() -> None:
        while True:
            time.sleep(PARENT_CHECK)
            try:
                os.kill(parent, 0)
            except (ProcessLookupError, PermissionError):  # gone, or its pid reused
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def score_job(job: Job) -> dict:
    """Score one sheet; never raises for bad input (the row's ``error`` says it)."""
    from scanner.errors import ScanError
    from scoring.textmap import BadMapFile

    t0 = time.perf_counter()
    try:
        row = _score(job)
    except (ScanError, BadMapFile, ValueError, OSError) as err:
        row = error_row(job.source, " ".join(str(err).split()) or type(err).__name__)
        _overlay_of_failure(job, err)
        _show_traceback(job)
    except Exception as err:  # noqa: BLE001 - one sheet must not stop a tournament
        row = error_row(job.source, f"internal error: {type(err).__name__}: {err}")
        _show_traceback(job)
    row["seconds"] = round(time.perf_counter() - t0, 3)
    return row


def _show_traceback(job: Job) -> None:
    """With ``--debug``, the traceback of the failure being handled, named by its sheet."""
    if job.debug:
        import traceback

        print(f"{job.source}:\n{traceback.format_exc()}", end="", file=sys.stderr, flush=True)


def _overlay_of_failure(job: Job, err: BaseException) -> None:
    """A sheet not found gets the photo with the places tried as its overlay."""
    if job.overlay is None:
        return
    from app.overlay import write_attempts

    try:
        write_attempts(job.overlay, err)
    except OSError:
        pass  # the row already says what failed; the picture is an extra


def _score(job: Job) -> dict:
    from app.corrections import apply_corrections, fixes_text
    from app.report import sheet_notes
    from scoring.game import score_game

    want_view = job.overlay is not None
    modified = file_stamp(job.source)  # before reading: an edit meanwhile is seen next run
    loaded = load_input(
        job.source,
        side=job.side,
        default_side=job.default_side,
        keep_view=want_view and is_photo(job.source),
        read_cards=job.cards is None,  # --cards wins over a header: unread
    )
    fixes = dict(job.fixes)
    sheet = apply_corrections(loaded.sheet, fixes)
    cards = job.cards or loaded.cards or job.default_cards
    if cards is None:
        raise ValueError(f"{job.source}: {NO_CARDS}")
    game = score_game([sheet.map], cards, sheet.coins or 0)
    if job.overlay is not None:
        from app.overlay import draw_overlay, write_overlay

        write_overlay(job.overlay, draw_overlay(sheet, loaded.view, game))
    row = {
        "source": job.source,
        "side": sheet.map.layout.name,
        "coins": game.seasons[-1].coins,
        **{f"card_{e}": game.card_points[e] for e in EDICTS},
        "monsters": game.monsters,
        **{s.season: s.total for s in game.seasons},
        "total": game.total,
        "solo_rating": game.solo.rating if game.solo else "",
        "solo_title": (game.solo.title_en or "") if game.solo else "",
        "review": len(sheet.review),
        "stars_lost_to_monsters": game.stars_lost_to_monsters,
        "notes": "; ".join(sheet_notes(sheet, game)),
        "error": "",
        "set_by_hand": fixes_text(fixes),
        "cards": cards_text(cards),
        "modified": modified,
    }
    return row


def error_row(source: str, message: str) -> dict:
    """A results row for a sheet that could not be scored; the message names the file."""
    if not message.startswith(source):
        message = f"{source}: {message}"
    row = dict.fromkeys(COLUMNS, "")
    row["source"] = source
    row["error"] = message
    return row


# --- the results file ----------------------------------------------------------------


def read_results(path: str | Path) -> list[dict]:
    """Rows of a results file (CSV, or JSON Lines for ``.jsonl``); [] when it does not exist.

    A last line cut short by an interruption is ignored. Numbers come back as ints.
    """
    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:
        return []
    text = path.read_text(encoding="utf-8")
    rows: list[dict] = []
    if _is_jsonl(path):
        for line in text.split("\n"):  # not splitlines: it also breaks at \f or U+2028
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict) and "source" in obj:
                rows.append(_resolved(obj, path.parent))
        return rows
    records = _csv_records(text)
    if not records or not _our_header(records[0]):
        raise BadResultsFile(f"{path}: exists and is not a results file of cartoscore batch")
    header, body = records[0], records[1:]
    for values in body:
        if len(values) == len(header):
            row = {k: _number(k, v) for k, v in zip(header, values, strict=True)}
            rows.append(_resolved(row, path.parent))
    return rows


def _resolved(row: dict, folder: Path) -> dict:
    """The row read from a results file in ``folder``, with its sheet's resolved path
    (:data:`RESOLVED`) when it has a ``path`` column."""
    if row.get("path"):
        row[RESOLVED] = _key(folder / str(row["path"]))
    return row


def _csv_records(text: str) -> list[list[str]]:
    """A results CSV's records, split by the csv module (a quoted file name may hold a
    newline, a form feed or a Unicode line separator, which str.splitlines breaks
    apart); a last row cut short by an interruption (no newline after it) is left out."""
    records = list(csv.reader(io.StringIO(text, newline="")))
    if len(records) > 1 and not text.endswith("\n"):
        records.pop()
    return records


def _our_header(header: list[str]) -> bool:
    """A results file's header: this version's columns, or an earlier version's (all up
    to ``error``), maybe followed by more."""
    n = min(len(header), len(COLUMNS))
    return n >= len(FIRST_COLUMNS) and tuple(header[:n]) == COLUMNS[:n]


def _number(key: str, value: str) -> object:
    if key in INT_COLUMNS and value not in ("", None):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in (".jsonl", ".ndjson")


def latest_rows(rows: Iterable[dict]) -> list[dict]:
    """The newest row of each sheet, in first-seen order."""
    by_key: dict[str, dict] = {}
    for row in rows:
        by_key[row_key(row)] = row
    return list(by_key.values())


def finished_rows(rows: Iterable[dict]) -> dict[str, dict]:
    """The newest row of each sheet scored without error, by resolved path."""
    return {row_key(r): r for r in latest_rows(rows) if not r.get("error")}


def still_current(row: dict, job: Job, modified: str) -> bool:
    """Whether a sheet's row (scored without error) stands for this job, so that a re-run
    skips the sheet: what is set for it by hand (:func:`app.corrections.fixes_text`), the
    side given, the cards given and the file (``modified``: :func:`file_stamp`) are as
    when it was scored. A photo takes the cards of a settings file nearby; a map file's
    own header may win over them, so for it only ``--cards`` is compared. A row of a
    version before a column passes on that column."""
    from app.corrections import fixes_text

    given = job.cards or (job.default_cards if is_photo(job.source) else None)
    return (
        (row.get("set_by_hand") or "") == fixes_text(dict(job.fixes))
        and (job.side is None or row.get("side") == job.side)
        and (given is None or row.get("cards") in ("", None, cards_text(given)))
        and row.get("modified") in ("", None, modified)
    )


def cards_text(cards: dict[str, str]) -> str:
    """A row's ``cards``: the card ids under edicts A-D, as ``--cards`` takes them."""
    return ",".join(cards[e] for e in EDICTS)


def file_stamp(source: str | Path) -> str:
    """When a sheet's file was last changed, in UTC to the microsecond ("" when it cannot
    be told): a row's ``modified``, so that an edited or replaced photo is scored again."""
    try:
        ns = os.stat(split_page(source)[0]).st_mtime_ns
    except OSError:
        return ""
    when = datetime.fromtimestamp(ns // 10**9, timezone.utc)
    return when.replace(microsecond=ns // 1000 % 10**6).isoformat()


def _csv_header(path: Path) -> tuple[str, ...]:
    """The column names on a results CSV's first line."""
    with open(path, encoding="utf-8", newline="") as f:
        return tuple(next(csv.reader(f), COLUMNS))


def _add_columns(path: Path) -> bool:
    """Give a results CSV of an earlier version (its columns a beginning of ours) the
    columns added since, empty in its rows: rewritten whole into a new file that then
    replaces it, so an interruption leaves the old file or the new one. A last line cut
    short by an interruption is dropped, as :func:`read_results` drops it. True when
    the file was replaced."""
    header = _csv_header(path)
    if len(header) >= len(COLUMNS) or header != COLUMNS[: len(header)]:
        return False  # ours already, or not one whose columns ours continue
    rows = _csv_records(path.read_text(encoding="utf-8"))[1:]
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        out.writerow(COLUMNS)
        for row in rows:
            if len(row) == len(header):
                out.writerow(row + [""] * (len(COLUMNS) - len(header)))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return True


def _drop_cut_line(path: Path) -> None:
    """Cut off a last line an interrupted run (or a full disk) left half written, so that
    the file holds whole rows only: ended with a newline, it would stay a bogus row (or
    open a quoted field that swallows the next row)."""
    with open(path, "r+b") as f:
        size = f.seek(0, os.SEEK_END)
        start = max(0, size - 65536)  # a row is far shorter than this
        f.seek(start)
        tail = f.read()
        if tail.endswith(b"\n"):
            return
        end = tail.rfind(b"\n")
        f.truncate(start + end + 1 if end >= 0 else start)


class ResultsBusy(OSError):
    """Another batch holds the results file."""


def _locked(path: Path) -> IO[str]:
    """The results file (made if missing) opened for appending, and locked against other
    batches for as long as it stays open: two batches appending to one file would mix
    their rows and headers. Raises :class:`ResultsBusy` when another batch holds it."""
    while True:
        f = open(path, "a", encoding="utf-8", newline="")  # noqa: SIM115
        try:
            if fcntl is not None:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            raise ResultsBusy(
                f"{path}: another batch is writing it; wait for it to end, or give another --out"
            ) from None
        try:
            if os.path.samestat(os.fstat(f.fileno()), os.stat(path)):
                return f
        except FileNotFoundError:
            pass
        f.close()  # replaced (its columns added) by the batch that held it: lock the new one


class ResultsWriter:
    """Appends rows to the results file, flushing each one to disk; holds the file
    locked from the rows read back (:attr:`previous`) until :meth:`close`.

    Raises :class:`BadResultsFile` for a file that is not a results file (left as it
    is), :class:`ResultsBusy` while another batch writes it.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.jsonl = _is_jsonl(self.path)
        self.file = _locked(self.path)
        try:
            self.previous = read_results(self.path)
        except BaseException:
            self.file.close()
            raise
        new = self.path.stat().st_size == 0
        if not new:
            _drop_cut_line(self.path)
        if not new and not self.jsonl and _add_columns(self.path):
            self.file.close()
            self.file = _locked(self.path)  # the file with the columns added
        # A file of another version that could not take our columns keeps its own.
        columns = COLUMNS if new or self.jsonl else _csv_header(self.path)
        self.csv = None if self.jsonl else csv.DictWriter(self.file, columns, extrasaction="ignore")
        if new and self.csv is not None:
            self.csv.writeheader()
        self.file.flush()

    def write(self, row: dict) -> None:
        """Append the row (given its ``path`` column: the sheet relative to this file)."""
        row["path"] = _path_column(row["source"], self.path.parent)
        row[RESOLVED] = _key(row["source"])
        if self.csv is not None:
            self.csv.writerow(row)
        else:
            self.file.write(json.dumps({k: row.get(k, "") for k in COLUMNS}) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        self.file.close()


# --- running -------------------------------------------------------------------------


def run_jobs(
    jobs: list[Job],
    workers: int,
    on_result: Callable[[dict], None],
    model: str | None = None,
    worker: Callable[[Job], dict] | None = None,
) -> None:
    """Score ``jobs`` on ``workers`` processes (0: in this process), calling ``on_result``
    in the main process as each finishes (in completion order).

    ``model``: another cell model file (benchmarks); ``worker``: another module-level
    function in place of :func:`score_job` (tests).
    """
    worker = worker or score_job
    if workers <= 0:
        init_worker(model)
        for job in jobs:
            on_result(worker(job))
        return
    # spawn: workers start clean (no inherited threads or sessions) on every platform;
    # one thread each for the BLAS/OpenMP pools they import (workers are the parallelism).
    for var in THREAD_VARS:
        os.environ.setdefault(var, "1")
    context = _context()
    todo = list(jobs)
    while todo:
        suspects, todo = _run_pool(todo, workers, on_result, model, context, worker)
        # A worker died (out of memory, a crash in native code): the pool broke and lost
        # the jobs it held. Retry each alone in a fresh worker, so only the sheet that
        # kills its worker gets an error row; the jobs not yet started go on in a new pool.
        for job in suspects:
            if _run_pool([job], 1, on_result, model, context, worker)[0]:
                on_result(error_row(job.source, "the worker process died while scoring it"))


def _context() -> multiprocessing.context.BaseContext:
    """Fresh worker processes without inherited threads or sessions.

    ``forkserver`` (Linux, macOS) imports the image stack once in a server process and
    forks each worker from it, so a worker starts in milliseconds; ``spawn`` elsewhere.
    """
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def _run_pool(jobs, workers, on_result, model, context, worker) -> tuple[list[Job], list[Job]]:
    """Run ``jobs`` on one pool. When a worker dies: (jobs it held, jobs not started)."""
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=init_worker, initargs=(model, os.getpid())
    ) as pool:
        pending: dict[Future, Job] = {}
        queue: Iterator[Job] = iter(jobs)
        # Keep a few jobs per worker queued: enough to stay busy, few to cancel on Ctrl-C.
        for job in itertools.islice(queue, 2 * workers):
            pending[pool.submit(worker, job)] = job
        lost: list[Job] = []
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    job = pending.pop(future)
                    try:
                        row = future.result()
                    except BrokenProcessPool:
                        lost.append(job)
                        continue
                    on_result(row)
                if lost:
                    return lost + list(pending.values()), list(queue)
                for job in itertools.islice(queue, len(done)):
                    pending[pool.submit(worker, job)] = job
        except BaseException:
            for future in pending:
                future.cancel()
            raise
    return [], []


def ranking(rows: Iterable[dict]) -> list[dict]:
    """Scored sheets by total (highest first), ties broken by fewer stars lost to monsters."""
    scored = [r for r in latest_rows(rows) if not r.get("error") and r.get("total") != ""]
    return sorted(scored, key=lambda r: (-int(r["total"]), int(r["stars_lost_to_monsters"])))
