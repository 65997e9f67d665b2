"""The results file of ``cartoscore batch``: its columns, reading it back (a row cut short
by an interruption left out), appending to it under a lock, each row's sheet (its path
from the file's folder, and its real path for a file moved without its sheets) and what
scored it; :func:`app.batch.still_current` decides
which rows still stand on a re-run.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # Windows: results files are not locked
    fcntl = None  # type: ignore[assignment]

from scanner.pages import page_name, split_page
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
    "side_given",
    "size",
    "real_path",
)
#: The columns of results files written before ``set_by_hand`` (read, and given the new
#: columns when a run appends to them).
FIRST_COLUMNS = COLUMNS[: COLUMNS.index("error") + 1]
INT_COLUMNS = frozenset(
    ["coins", *(f"card_{e}" for e in EDICTS), "monsters", *(s[0] for s in SEASONS), "total"]
    + ["solo_rating", "review", "stars_lost_to_monsters", "size"]
)


class BadResultsFile(ValueError):
    """The ``--out`` file exists but is not a results file of this command."""


def sheet_key(path: str | Path) -> str:
    """A sheet's path resolved (links, "..", the current folder): what tells sheets
    apart whatever name they were given by. A page keeps its mark on its file's
    resolved path (``/round/scan.pdf#page=2``)."""
    file, page = split_page(path)
    real = os.path.realpath(file)
    return real if page is None else page_name(real, page)


#: A row's sheet as a resolved path (:func:`row_key`); set on the rows read back and
#: written, never itself written to the results file.
RESOLVED = "_resolved"


def row_key(row: dict) -> str:
    """The resolved path of a row's sheet: from its ``path`` column (relative to the
    results file's folder, so a run from another folder, or the round moved with its
    results, finds it; its ``real_path`` when that names no file: the results file
    moved alone), else from its ``source`` as given (rows of versions before that
    column: their run's folder)."""
    return row.get(RESOLVED) or sheet_key(row["source"])


def _path_column(source: str, folder: Path) -> str:
    """A sheet's ``path`` column: its resolved path relative to the results file's folder."""
    try:
        return os.path.relpath(sheet_key(source), sheet_key(folder))
    except ValueError:  # another drive (Windows): no relative path
        return sheet_key(source)


def read_results(path: str | Path) -> list[dict]:
    """Rows of a results file (CSV, or JSON Lines for ``.jsonl``); [] when it does not exist.

    A last line cut short by an interruption is ignored. Numbers come back as ints.
    """
    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:
        return []
    folder = Path(os.path.realpath(path)).parent  # the rows' paths start there
    # utf-8-sig: a results file saved again by a spreadsheet may start with a BOM.
    text = path.read_text(encoding="utf-8-sig")
    rows: list[dict] = []
    if _is_jsonl(path):
        for line in text.split("\n"):  # not splitlines: it also breaks at \f or U+2028
            row = _json_row(line)
            if row is not None:
                rows.append(_resolved(row, folder))
        return rows
    records = _csv_records(text)
    if not records or not _our_header(records[0]):
        raise BadResultsFile(f"{path}: exists and is not a results file of cartoscore batch")
    header, body = records[0], records[1:]
    for values in body:
        if len(values) == len(header):
            row = {k: _number(k, v) for k, v in zip(header, values, strict=True)}
            rows.append(_resolved(row, folder))
    return rows


def _json_row(line: str) -> dict | None:
    """The row on one line of a JSON Lines results file; None for any other line (one
    cut short by an interruption, or not a row)."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) and "source" in obj else None


def _resolved(row: dict, folder: Path) -> dict:
    """The row read from a results file in ``folder``, with its sheet's resolved path
    (:data:`RESOLVED`) when it has a ``path`` column: where that leads from ``folder``,
    unless no file is there and the row's ``real_path`` (the sheet's when it was
    scored) is kept: then that, the results file having moved without its sheets."""
    if row.get("path"):
        key = sheet_key(folder / str(row["path"]))
        if row.get("real_path") and not os.path.exists(split_page(key)[0]):
            key = str(row["real_path"])
        row[RESOLVED] = key
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


def cards_text(cards: dict[str, str]) -> str:
    """A row's ``cards``: the card ids under edicts A-D, as ``--cards`` takes them."""
    return ",".join(cards[e] for e in EDICTS)


def file_facts(source: str | Path) -> tuple[str, int | str]:
    """When a sheet's file was last changed (UTC, to the microsecond) and its size in
    bytes, from one stat ("" for each when it cannot be told): a row's ``modified`` and
    ``size``, so that an edited or replaced photo is scored again. The size tells a photo
    replaced by another that kept the old one's time (``cp -p``, a sync tool)."""
    try:
        st = os.stat(split_page(source)[0])
    except OSError:
        return "", ""
    ns = st.st_mtime_ns
    when = datetime.fromtimestamp(ns // 10**9, timezone.utc)
    return when.replace(microsecond=ns // 1000 % 10**6).isoformat(), st.st_size


def _csv_header(path: Path) -> tuple[str, ...]:
    """The column names on a results CSV's first line."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        return tuple(next(csv.reader(f), COLUMNS))


def _add_columns(path: Path) -> bool:
    """Give a results CSV of an earlier version (its columns a beginning of ours) the
    columns added since, empty in its rows: rewritten whole into a new file that then
    replaces it, so an interruption leaves the old file or the new one. A last line cut
    short by an interruption is dropped, as :func:`read_results` drops it. A row gets its
    ``path`` from its ``source`` as seen from the current folder (where its run was, as
    such a row's key assumes: :func:`row_key`), so that later runs may be elsewhere, and
    its ``real_path`` from that ``path``, so that the file may then move alone.
    True when the file was replaced."""
    header = _csv_header(path)
    if len(header) >= len(COLUMNS) or header != COLUMNS[: len(header)]:
        return False  # ours already, or not one whose columns ours continue
    rows = _csv_records(path.read_text(encoding="utf-8-sig"))[1:]
    text = io.StringIO(newline="")
    out = csv.writer(text)
    out.writerow(COLUMNS)
    at, real_at = COLUMNS.index("path"), COLUMNS.index("real_path")
    for row in rows:
        if len(row) == len(header):
            row += [""] * (len(COLUMNS) - len(header))
            if at >= len(header):  # anchored now: its source as seen from this run
                row[at] = _path_column(row[0], path.parent)
            if real_at >= len(header) and row[at]:
                row[real_at] = sheet_key(path.parent / row[at])
            out.writerow(row)
    _replace(path, text.getvalue())
    return True


def _add_keys(path: Path) -> bool:
    """Give the rows of a JSON Lines results file of an earlier version the keys added
    since, as :func:`_add_columns` gives a CSV its columns: ``path`` from the row's
    ``source`` as seen from the current folder, ``real_path`` from that ``path``, the
    others empty. Other lines are kept as they are; the file is rewritten whole into a
    new one that then replaces it. True when the file was replaced."""
    lines = path.read_text(encoding="utf-8-sig").split("\n")
    changed = False
    for i, line in enumerate(lines):
        row = _json_row(line)
        if row is None or set(COLUMNS) <= row.keys():
            continue
        if "path" not in row:  # anchored now: its source as seen from this run
            row["path"] = _path_column(str(row["source"]), path.parent)
        if "real_path" not in row and row["path"]:
            row["real_path"] = sheet_key(path.parent / str(row["path"]))
        ours = {k: row.get(k, "") for k in COLUMNS}
        lines[i] = json.dumps(ours | {k: v for k, v in row.items() if k not in ours})
        changed = True
    if not changed:
        return False
    _replace(path, "\n".join(lines))
    return True


def _replace(path: Path, text: str) -> None:
    """Write ``text`` into a new file beside ``path`` that then replaces it, so that an
    interruption leaves the old file or the new one."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


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


def _locked(path: Path, shown: Path) -> IO[str]:
    """The results file (made if missing) opened for appending, and locked against other
    batches for as long as it stays open: two batches appending to one file would mix
    their rows and headers. Raises :class:`ResultsBusy` (naming it ``shown``) when
    another batch holds it."""
    while True:
        f = open(path, "a", encoding="utf-8", newline="")  # noqa: SIM115
        try:
            if fcntl is not None:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            raise ResultsBusy(
                f"{shown}: another batch is writing it; wait for it to end, or give another --out"
            ) from None
        try:
            if os.path.samestat(os.fstat(f.fileno()), os.stat(path)):
                return f
        except FileNotFoundError:
            pass
        f.close()  # replaced (its columns added) by the batch that held it: lock the new one


class ResultsWriter:
    """Appends rows to the results file, flushing each one to disk; holds the file
    locked from the rows read back (:attr:`previous`) until :meth:`close`, so that
    :attr:`rows`, those and the rows written since, are the file's.

    Raises :class:`BadResultsFile` for a file that is not a results file (left as it
    is), :class:`ResultsBusy` while another batch writes it.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.jsonl = _is_jsonl(self.path)
        # The file itself, where --out is a link: its folder anchors the rows' paths, and
        # adding columns replaces the file, not the link.
        real = self.real = Path(os.path.realpath(path))
        self.file = _locked(real, self.path)
        try:
            self.previous = read_results(real)
            self.rows = list(self.previous)
        except BaseException:
            self.file.close()
            raise
        new = real.stat().st_size == 0
        if not new:
            _drop_cut_line(real)
        if not new and (_add_keys(real) if self.jsonl else _add_columns(real)):
            self.file.close()
            self.file = _locked(real, self.path)  # the file with the columns added
        # A file of another version that could not take our columns keeps its own.
        columns = COLUMNS if new or self.jsonl else _csv_header(real)
        self.csv = None if self.jsonl else csv.DictWriter(self.file, columns, extrasaction="ignore")
        if new and self.csv is not None:
            self.csv.writeheader()
        self.file.flush()

    def write(self, row: dict) -> None:
        """Append the row (given its ``path`` column, the sheet relative to this file, and
        its ``real_path``)."""
        row["path"] = _path_column(row["source"], self.real.parent)
        row["real_path"] = row[RESOLVED] = sheet_key(row["source"])
        if self.csv is not None:
            self.csv.writerow(row)
        else:
            self.file.write(json.dumps({k: row.get(k, "") for k in COLUMNS}) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())
        self.rows.append(row)

    @property
    def written(self) -> int:
        """How many rows this run has saved."""
        return len(self.rows) - len(self.previous)

    def close(self) -> None:
        self.file.close()


def ranking(rows: Iterable[dict]) -> list[dict]:
    """Scored sheets by total (highest first), ties broken by fewer stars lost to monsters."""
    scored = [r for r in latest_rows(rows) if not r.get("error") and r.get("total") != ""]
    return sorted(scored, key=lambda r: (-int(r["total"]), int(r["stars_lost_to_monsters"])))
