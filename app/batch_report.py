"""What ``cartoscore batch`` shows: the progress bar, the ranking, failures, the HTML page."""

from __future__ import annotations

import html as html_lib
import os
import urllib.parse
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from app.batch import Job, overlay_name, run_jobs
from app.results import COLUMNS, ResultsWriter, latest_rows, ranking, row_key
from scoring.game import EDICTS, SEASONS
from scoring.i18n import counted


class RateColumn(TextColumn):
    """Sheets per second over the run so far."""

    def __init__(self) -> None:
        super().__init__("")

    def render(self, task):  # noqa: D102 - rich column protocol
        from rich.text import Text

        elapsed = task.elapsed or 0.0
        rate = task.completed / elapsed if elapsed > 0 else 0.0
        return Text(f"{rate:.2f} sheets/s", style="cyan")


def run_with_progress(
    jobs: list[Job], workers: int, writer: ResultsWriter, console: Console
) -> list:
    """Run the jobs with a progress bar, appending each row with ``writer`` (closed at
    the end); the new rows."""
    rows: list[dict] = []
    progress = Progress(
        TextColumn("[bold]scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[last]}", style="dim"),
        console=console,
        transient=False,
    )
    task = progress.add_task("scoring", total=len(jobs), last="")

    def on_result(row: dict) -> None:
        writer.write(row)
        rows.append(row)
        status = "failed" if row.get("error") else f"total {row['total']}"
        progress.update(task, advance=1, last=f"{Path(row['source']).name}: {status}")

    try:
        with progress:
            run_jobs(jobs, workers, on_result)
    finally:
        writer.close()
    return rows


def short_names(sources: list[str]) -> dict[str, str]:
    """Each path relative to the sheets' common folder (what tells them apart)."""
    if not sources:
        return {}
    try:
        common = os.path.commonpath([os.path.abspath(s) for s in sources])
    except ValueError:  # different drives (Windows)
        return {s: s for s in sources}
    if len(sources) == 1:
        common = os.path.dirname(common)
    return {s: os.path.relpath(os.path.abspath(s), common) for s in sources}


def print_summary(console: Console, rows: list[dict], new_rows: list[dict]) -> bool:
    """Ranking of every sheet in the results, then failures and review counts of this run.

    Returns True when a sheet of this run failed.
    """
    ranked = ranking(rows)
    if ranked:
        table = Table(title="Ranking", title_justify="left")
        for name, justify in (
            ("#", "right"),
            ("Sheet", "left"),
            ("Total", "right"),
            ("Monster stars", "right"),
            ("Solo", "left"),
            ("Review", "right"),
        ):
            table.add_column(name, justify=justify)
        names = short_names([row_key(r) for r in ranked])
        for place, row in zip(places(ranked), ranked, strict=True):
            solo = f"{row['solo_rating']} {row['solo_title']}".strip()
            table.add_row(
                str(place),
                names[row_key(row)],
                str(row["total"]),
                str(row["stars_lost_to_monsters"]),
                solo,
                str(row["review"]) if row["review"] else "",
            )
        console.print(table)
    failures = [r for r in new_rows if r.get("error")]
    scored = [r for r in new_rows if not r.get("error")]
    to_check = [r for r in scored if int(r.get("review") or 0) > 0]
    cells = sum(int(r["review"]) for r in to_check)
    seconds = [float(r["seconds"]) for r in new_rows if r.get("seconds") not in (None, "")]
    line = f"This run: {len(scored)} scored, {len(failures)} failed"
    if seconds:
        line += f" ({sum(seconds) / len(seconds):.2f} s per sheet in a worker)"
    console.print(line)
    if to_check:
        console.print(
            f"{counted(len(to_check), 'sheet')} {'has' if len(to_check) == 1 else 'have'}"
            f" {counted(cells, 'cell')} to check by hand "
            "(cartoscore score PHOTO --overlay check.png shows them in red)",
            style="yellow",
        )
    for row in failures:
        console.print(f"failed: {row['error']}", style="red", markup=False)
    return bool(failures)


def _notes(row: dict) -> str:
    """A row's notes, and the spaces set by hand for its sheet."""
    notes = [str(row.get("notes") or "")]
    if row.get("set_by_hand"):
        notes.append(f"set by hand: {row['set_by_hand']}")
    return "; ".join(n for n in notes if n)


#: The overlay cell of a sheet scored by an earlier run that wrote no overlay into this
#: report's folder (without ``--html``, or with another report).
NO_OVERLAY = "<small>no overlay: scored by an earlier run</small>"


def places(ranked: list[dict]) -> list[int]:
    """Each ranked sheet's place: equal sheets (total, then stars lost to monsters) share
    the place of the first of them (1, 1, 3)."""
    out: list[int] = []
    previous = None
    for i, row in enumerate(ranked, start=1):
        key = (row["total"], row["stars_lost_to_monsters"])
        out.append(out[-1] if key == previous else i)
        previous = key
    return out


def write_html(path: str | Path, rows: list[dict], overlay_dir: str | Path | None) -> None:
    """A static page: the ranking with every column, each sheet's overlay as a thumbnail."""
    path = Path(path)
    ranked = ranking(rows)
    failed = [r for r in latest_rows(rows) if r.get("error")]
    head = ["#", "sheet", "overlay", "total", "stars lost", "solo", "review", "side", "coins"]
    head += [f"card {e}" for e in EDICTS] + [s[0] for s in SEASONS] + ["notes"]
    out = [
        "<!doctype html><html><head><meta charset='utf-8'><title>cartoscore results</title>",
        "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top}"
        "img{width:160px}.err{color:#b00}</style></head><body>",
        f"<h1>cartoscore: {len(ranked)} sheets scored, {len(failed)} failed</h1>",
        "<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>",
    ]

    def thumbnail(row: dict, alt: str) -> str:
        img = None if overlay_dir is None else Path(overlay_dir) / overlay_name(row_key(row), row)
        if img is None or not img.exists():
            return ""
        # A URL, relative: "#", "?" or "%" in a sheet's name must not end or change it.
        rel = html_lib.escape(
            urllib.parse.quote(Path(os.path.relpath(img, path.parent)).as_posix())
        )
        return f"<a href='{rel}'><img src='{rel}' alt='{alt}'></a>"

    for place, row in zip(places(ranked), ranked, strict=True):
        cell = thumbnail(row, "overlay") or NO_OVERLAY
        values = [
            str(place),
            html_lib.escape(str(row["source"])),
            cell,
            str(row["total"]),
            str(row["stars_lost_to_monsters"]),
            html_lib.escape(f"{row['solo_rating']} {row['solo_title']}"),
            str(row["review"]),
            str(row["side"]),
            str(row["coins"]),
            *(str(row[f"card_{e}"]) for e in EDICTS),
            *(str(row[s[0]]) for s in SEASONS),
            html_lib.escape(_notes(row)),
        ]
        out.append("<tr>" + "".join(f"<td>{v}</td>" for v in values) + "</tr>")
    out.append("</table>")
    if failed:
        out.append("<h2>Failed</h2><ul>")
        for r in failed:
            tried = thumbnail(r, "places tried")  # a sheet not found: where it was looked for
            tried = f"<br>{tried}" if tried else ""
            out.append(f"<li class='err'>{html_lib.escape(str(r['error']))}{tried}</li>")
        out.append("</ul>")
    out.append(f"<p>Columns of the results file: {', '.join(COLUMNS)}</p></body></html>")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
