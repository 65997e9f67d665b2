"""``cartoscore batch``: score many sheets in parallel, append each result as it finishes.

Only paths and result rows cross process boundaries: each worker decodes its own
photo, and builds its own single-threaded onnxruntime session once, in the pool's
initializer. Each finished row is appended to the results file and flushed at once,
so an interrupted run loses nothing; a re-run with the same file skips the sheets
already scored (failed ones are tried again, and the newest row of a sheet wins). The
sheets are found by :mod:`app.collect`; the file is :mod:`app.results`.
"""

from __future__ import annotations

import hashlib
import itertools
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path

from app.config import ForInput
from app.errors import INPUT_ERRORS, one_line, with_source
from app.inputs import is_photo, load_with_settings
from app.results import COLUMNS, cards_text, file_facts, finished_rows, sheet_key
from scanner.pages import source_stem
from scoring.game import EDICTS

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
PRELOAD = ["cv2", "onnxruntime", "app.batch", "app.overlay", "scanner.pipeline", "scanner.classify"]


@dataclass(frozen=True)
class Job:
    """One sheet to score; everything here pickles cheaply (paths and small dicts)."""

    source: str
    cards: dict[str, str] | None = None  # --cards / --cards-file: wins over everything
    side: str | None = None  # --side, or set by hand for this sheet: wins over a header
    overlay_dir: str | None = None  # write the annotated sheet in here (overlay_name)
    default_cards: dict[str, str] | None = None  # a nearby cartoscore.toml: after a header
    fixes: tuple = ()  # app.corrections.Fixes as pairs: set by hand ([set] in settings)
    default_side: str | None = None  # a settings file's side: after a map file's header
    debug: bool = False  # --debug: a failure's traceback to stderr, beside its row


def overlay_name(source: str | Path, row: dict) -> str:
    """File name of a sheet's overlay in the HTML report's folder: its resolved path's
    (:func:`app.results.sheet_key`) name and a digest of that path and of what ``row``
    scored (:data:`SCORED`). So a row scored again by a run that drew no overlay finds
    none, rather than the picture of its earlier scoring."""
    key = sheet_key(source)
    scored = "|".join([key, *(str(row.get(k, "")) for k in SCORED)])
    return f"{source_stem(key)}-{hashlib.sha1(scored.encode()).hexdigest()[:8]}.jpg"


# --- one sheet (runs in a worker) ----------------------------------------------------


def init_worker(model: str | None = None, parent: int | None = None) -> None:
    """Pool initializer: one thread per worker for OpenCV, onnxruntime and libheif (an
    iPhone's HEIC is a grid of tiles libheif decodes side by side, four at a time by
    default), freed memory kept for the next photo (:mod:`app.memory`), session built now.

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
    _one_heif_thread()
    keep_freed_memory()
    try:
        from scanner import cell_model, classify
        from scanner.cells import CROP_PX
        from scoring.layouts import SIDE_A

        if model is not None:
            cell_model.MODEL_PATH = Path(model)
        cell_model.set_threads(1)
        classify.classify_cells(np.full((121, CROP_PX, CROP_PX, 3), 230, np.uint8), SIDE_A)
    except Exception:  # noqa: BLE001 - reported per photo when it matters
        pass


def _one_heif_thread() -> None:
    """libheif decodes with one thread in this process (a worker: the pool is the
    parallelism)."""
    try:
        import pillow_heif
    except ImportError:  # pragma: no cover - pillow-heif is a declared dependency
        return
    pillow_heif.options.DECODE_THREADS = 1


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
            if not alive(parent):
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs: it exists, is ours to signal (not a reused
    pid), and has not ended (a zombie: ended, not yet collected by its own parent, as a
    program running the batch may leave it for minutes)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]  # after "pid (name)"
    except (OSError, IndexError):  # no /proc (macOS): as far as can be told, it runs
        return True
    return state != b"Z"


def score_job(job: Job) -> dict:
    """Score one sheet; never raises for bad input (the row's ``error`` says it)."""
    t0 = time.perf_counter()
    try:
        row = _score(job)
    except INPUT_ERRORS as err:
        row = error_row(job.source, one_line(err))
        _overlay_of_failure(job, err, row)
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


def _overlay_of_failure(job: Job, err: BaseException, row: dict) -> None:
    """A sheet not found gets the photo with the places tried as its overlay."""
    if job.overlay_dir is None:
        return
    from app.overlay import write_attempts

    try:
        write_attempts(Path(job.overlay_dir) / overlay_name(job.source, row), err)
    except OSError:
        pass  # the row already says what failed; the picture is an extra


def _score(job: Job) -> dict:
    from app.corrections import fixes_text
    from app.report import sheet_notes
    from app.score_input import score_input

    want_view = job.overlay_dir is not None
    modified, size = file_facts(job.source)  # before reading: an edit meanwhile is seen next run
    fixes = dict(job.fixes)
    loaded = load_with_settings(
        job.source,
        side=job.side,
        default_side=job.default_side,
        fixes=fixes,
        default_cards=job.default_cards,
        keep_view=want_view and is_photo(job.source),
        read_cards=job.cards is None,  # --cards wins over a header: unread
    )
    sheet = loaded.sheet
    # As `score` scores it; a batch row does not warn of an odd deal.
    scored = score_input(loaded, job.cards, None)
    cards, game = scored.cards, scored.game
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
        "side_given": job.side or job.default_side or AUTO,
        "size": size,
    }
    if job.overlay_dir is not None:
        from app.overlay import draw_overlay, write_overlay

        overlay = Path(job.overlay_dir) / overlay_name(job.source, row)
        write_overlay(overlay, draw_overlay(sheet, loaded.view, game))
    return row


#: A row's ``side_given`` when the side was detected (none given).
AUTO = "auto"
#: What a row's scoring decides: a re-run compares these for a map file (scored again
#: in the batch's own process, in milliseconds). Not the notes, whose wording may change.
SCORED = tuple(
    c
    for c in COLUMNS
    if c not in ("source", "notes", "error", "path", "modified", "side_given", "size", "real_path")
)


def still_current(row: dict, job: Job) -> bool:
    """Whether a sheet's row (scored without error) stands for this job, so that a re-run
    skips the sheet.

    A map file is scored again here and its row compared, so whatever changed (the
    file, its header, the cards, the side given, what is set by hand) is seen. A photo
    takes a second or so to read again, not milliseconds, so its row is compared on
    what scored it: what is set for it by hand (:func:`app.corrections.fixes_text`),
    the side given (``--side``, its ``[set]``, the settings file's), the cards given
    (``--cards``, the settings file's) and the file's time and size
    (:func:`app.results.file_facts`: a stat, not a hash of every photo on every
    re-run). A row of a version before a column passes on that column: an older row
    without a size stands on its time, rather than every photo of every earlier
    round being read again, its ranking maybe changed, on the first run after an
    upgrade.
    """
    from app.corrections import fixes_text

    if not is_photo(job.source):
        try:
            now = _score(replace(job, overlay_dir=None))
        except Exception:  # noqa: BLE001 - it fails now: score it again, for its error row
            return False
        return all(
            str(now[k]) == str(row.get(k, ""))
            for k in SCORED
            if k != "cards" or row.get(k)  # rows before that column: the cards unknown
        )
    cards = job.cards or job.default_cards
    modified, size = file_facts(job.source)
    return (
        cards is not None
        and (row.get("set_by_hand") or "") == fixes_text(dict(job.fixes))
        and row.get("side_given") in ("", None, job.side or job.default_side or AUTO)
        and row.get("cards") in ("", None, cards_text(cards))
        and row.get("modified") in ("", None, modified)
        and row.get("size") in ("", None, size)
    )


def error_row(source: str, message: str) -> dict:
    """A results row for a sheet that could not be scored; the message names the file."""
    row = dict.fromkeys(COLUMNS, "")
    row["source"] = source
    row["error"] = with_source(source, message)
    return row


# --- planning ------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What a run is to score, and what it leaves (counted, for the CLI to tell)."""

    jobs: list[Job]  # the sheets to score, in the order found
    skipped: int  # scored without error before, with what is given now: left as they are
    again: int  # scored without error before, but with something else: scored again
    stray_fixes: list[tuple[str, str]]  # (settings file, a sheet its [set] names not found)


def plan_jobs(
    files: Sequence[str],
    settings_for: Callable[[Path], ForInput],
    previous: Iterable[dict],
    cards: dict[str, str] | None = None,
    overlay_dir: Path | None = None,
    debug: bool = False,
) -> Plan:
    """A :class:`Job` for each of ``files`` that needs scoring: a sheet is done when the
    newest of the ``previous`` rows (the results file's) scored it without error with
    what is now given for it (:func:`still_current`).

    ``settings_for`` gives each sheet's settings (its side, what is set by hand, the
    nearby settings file's side and cards); ``cards``, the cards given for every sheet;
    ``overlay_dir``, where the HTML report's overlays go; ``debug``, tracebacks of failed
    sheets.
    """
    done = finished_rows(previous)
    jobs, used, skipped, again = [], {}, 0, 0
    for path in files:
        plan = settings_for(Path(path))
        if plan.settings is not None:
            used[plan.settings.source] = plan.settings
        job = Job(
            path,
            cards,
            plan.side,
            None if overlay_dir is None else str(overlay_dir),
            default_cards=plan.default_cards,
            fixes=tuple(plan.fixes.items()),
            default_side=plan.default_side,
            debug=debug,
        )
        earlier = done.get(sheet_key(path))
        if earlier is None:
            jobs.append(job)
        elif still_current(earlier, job):
            skipped += 1
        else:
            jobs.append(job)
            again += 1
    sheets = {sheet_key(f) for f in files}
    stray = [
        (source, named)
        for source, found in used.items()
        for named in sorted(set(found.fixes) - sheets)
    ]
    return Plan(jobs, skipped, again, stray)


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
        import signal
        import threading
        from multiprocessing import forkserver

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        # Started with Ctrl-C ignored, which its preload and the workers forked from it
        # keep: a Ctrl-C is the batch's to handle (it stops the pool and says what was
        # saved), not theirs to print tracebacks about from the middle of an import.
        if threading.current_thread() is threading.main_thread():  # where signals are set
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                forkserver.ensure_running()
            finally:
                signal.signal(signal.SIGINT, previous)
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
