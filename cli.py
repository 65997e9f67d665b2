"""cartoscore: score Cartographers map sheets (photos or map files). Contract: shared/CLI.md."""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from app.errors import INPUT_ERRORS, one_line, with_source

if TYPE_CHECKING:
    from app.config import ForInput, Settings
    from app.overlay_files import OverlayWriter
    from app.seasons import Loaded


def _flag(name: str, help: str) -> Any:
    """An option that takes no value: its --help line shows none (typer 0.29 shows <bool>)."""
    return typer.Option(False, name, metavar="", help=help)


def _file(name: str, help: str) -> Any:
    """An option naming a file to write or read, None when not given (--help: ``FILE``)."""
    return typer.Option(None, name, metavar="FILE", help=help)


class _BareHelp:
    """A --help line showing no value to give (typer 0.29 shows "<bool>" beside it)."""

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option


class _Argument(typer.core.TyperArgument):
    """A positional argument shown by its ``metavar`` alone, as the usage line's
    ``PHOTO_OR_MAP...`` (typer 0.29 shows ``{inputs}...`` there and ``<list[Path]>``
    beside it in the list of arguments)."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        return name if self.required else f"[{name}]"

    def display_type_rich(self, ctx) -> str | None:
        return None


class _Command(_BareHelp, typer.core.TyperCommand):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:  # typer builds them itself, of its own class
            if type(param) is typer.core.TyperArgument and param.metavar is not None:
                param.__class__ = _Argument


class _Group(_BareHelp, typer.core.TyperGroup):
    pass


app = typer.Typer(
    cls=_Group,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,  # an internal error must not dump image arrays
)


def _show_version(value: bool) -> None:
    """``--version``: the installed package's version, then exit."""
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        typer.echo(f"cartoscore {version('cartoscore')}")
    except PackageNotFoundError:  # run from a checkout that was never installed
        typer.echo("cartoscore (not installed: pip install -e .)")
    raise typer.Exit()


@app.callback()
def _options(
    show_version: bool = typer.Option(
        False,
        "--version",
        metavar="",
        is_eager=True,
        callback=_show_version,
        help="Print the version and exit.",
    ),
) -> None:
    """Score Cartographers map sheets from phone photos or map files."""


# Options several commands take alike (the same --help line in each).
CardsOption = Annotated[
    str | None,
    typer.Option("--cards", metavar="A,B,C,D", help="Cards under edicts A,B,C,D (ids or names)."),
]
CardsFileOption = Annotated[
    Path | None,
    typer.Option(
        "--cards-file",
        metavar="FILE",
        help="TOML file with the cards (default: cartoscore.toml nearby).",
    ),
]
SideOption = Annotated[
    str, typer.Option("--side", metavar="auto|A|B", help="Printed side: auto, A or B.")
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # as a shell reports Ctrl-C


def _err(message: str) -> None:
    typer.echo(message, err=True)


def _say(line: str | None) -> None:
    """``line`` on stderr, if there is one."""
    if line is not None:
        _err(line)


def _usage(message: str) -> typer.Exit:
    _err(f"error: {message}")
    return typer.Exit(EXIT_USAGE)


def _parse_cards(text: str | None) -> dict[str, str] | None:
    """``--cards A,B,C,D`` -> edict -> card id; exit 2 on unknown cards."""
    if text is None:
        return None
    from scoring.cards import UnknownCard
    from scoring.game import BadDeal, deal

    try:
        return deal(text)
    except BadDeal:
        raise _usage(
            f"--cards takes 4 cards separated by commas (edicts A-D), got {text!r}"
        ) from None
    except UnknownCard as err:
        raise _usage(str(err)) from None


def _parse_coins(text: str | None) -> list[int] | None:
    """``--coins N`` or ``--coins a,b,c,d`` (one per season); exit 2 when unreadable."""
    if text is None:
        return None
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise _usage(f"--coins takes a number (or one per season: a,b,c,d), got {text!r}") from None
    from scoring.game import COIN_TRACK

    if len(values) not in (1, 4) or not all(0 <= v <= COIN_TRACK for v in values):
        raise _usage(f"--coins: give 1 or 4 numbers from 0 to {COIN_TRACK}, got {text!r}")
    drops = [i for i in range(1, len(values)) if values[i] < values[i - 1]]
    if drops:  # RULES.md: the coins marked so far; a marked coin stays marked
        from scoring.game import SEASONS

        i = drops[0]
        _err(
            f"warning: --coins {text}: {SEASONS[i][0]} has fewer coins ({values[i]}) than "
            f"{SEASONS[i - 1][0]} ({values[i - 1]}), but marked coins stay marked; "
            "scored as given"
        )
    return values


def _parse_fixes(values: list[str] | None, n_inputs: int) -> dict:
    """``--set SPACE=TERRAIN`` or ``coins=N`` (repeatable, or comma-separated; with several
    inputs ``N:...`` for the N-th) -> input index -> :data:`app.corrections.Fixes`."""
    if not values:
        return {}
    from app.corrections import BadCorrection, corrections_by_input

    try:
        return corrections_by_input(values, n_inputs)
    except BadCorrection as err:
        raise _usage(str(err)) from None


def _for_input(path: Path, settings: Settings | None, given: dict, side: str | None) -> ForInput:
    """The settings for one input: ``settings`` (``--cards-file``) or else the
    cartoscore.toml nearest the input (``--cards`` wins over its cards, while its side
    and ``[set]`` still apply); ``given``, its ``--set``; ``side``, ``--side``."""
    from app.config import ForInput
    from app.corrections import side_set

    found = None if settings is not None else _nearby_settings(path)
    in_use = settings or found
    fixes = {**(in_use.fixes_for(path) if in_use is not None else {}), **given}
    return ForInput(
        fixes,
        side_set(fixes) or side,
        in_use.side if in_use is not None else None,
        found.cards if found is not None else None,
        in_use,
    )


def _load(path: Path, plan: ForInput, **options):
    """The input read as ``plan`` says (:func:`app.inputs.load_with_settings`: its side,
    the settings file's side, what is set by hand for it, the nearby settings file's
    cards); ``options`` go to :func:`app.inputs.load_input`."""
    from app.inputs import load_with_settings

    return load_with_settings(
        path,
        side=plan.side,
        default_side=plan.default_side,
        fixes=plan.fixes,
        default_cards=plan.default_cards,
        **options,
    )


def _check_side(side: str) -> str | None:
    from scoring.layouts import LAYOUTS, parse_side

    try:
        return parse_side(side.strip())
    except ValueError:
        raise _usage(f"--side takes auto, {', '.join(LAYOUTS)}; got {side!r}") from None


def _check_lang(lang: str) -> str:
    """``--lang``, in any case (``IT``, as ``--side a``); exit 2 for an unknown one."""
    from scoring.i18n import LANGS, check_lang

    try:
        return check_lang(lang.strip().lower())
    except ValueError:
        raise _usage(f"--lang takes one of {', '.join(LANGS)}; got {lang!r}") from None


def _warn_deal(cards: dict[str, str]) -> None:
    """Warn once of a deal given for every input that is not one card a deck."""
    from scoring.game import deal_warnings

    for warning in deal_warnings(cards):
        _err(f"warning: {warning}")


@app.command(cls=_Command)
def score(
    inputs: list[Path] = typer.Argument(
        ...,
        metavar="PHOTO_OR_MAP...",
        help="Photos or map files (.txt/.map/.json).",
        readable=False,
    ),
    cards: CardsOption = None,
    cards_file: CardsFileOption = None,
    side: SideOption = "auto",
    coins: str = typer.Option(
        None, "--coins", metavar="N|a,b,c,d", help="Marked coins (N, or a,b,c,d per season)."
    ),
    per_season: bool = _flag(
        "--per-season", "Inputs are the sheet at the end of each season, in order."
    ),
    as_json: bool = _flag("--json", "JSON Lines, one object per input."),
    lang: str = typer.Option("en", "--lang", metavar="CODE", help="Language: en, it, fr, es, zh."),
    overlay: Path = _file(
        "--overlay", "Write the annotated sheet (PNG/JPEG); several inputs: FILE-<name>."
    ),
    explain: str = typer.Option(
        None,
        "--explain",
        metavar="CARD",
        help="With --overlay: draw what earned this card's points (A-D or card).",
    ),
    debug: bool = _flag("--debug", "Show tracebacks of failed inputs."),
    set_cells: list[str] = typer.Option(
        None,
        "--set",
        metavar="SPACE=TERRAIN",
        help="Set by hand: C3=F, C3=farm,E7=., coins=5 or side=B (several inputs: 2:C3=F).",
    ),
) -> None:
    """Score map sheets: card points, seasons, total and solo title."""
    from app.inputs import with_pages

    inputs = with_pages(inputs)  # a PDF or TIFF of several pages: a sheet a page
    deal = _parse_cards(cards)
    coin_values = _parse_coins(coins)
    fixes = _parse_fixes(set_cells, len(inputs))
    side_key = _check_side(side)
    lang = _check_lang(lang)
    if per_season and len(inputs) > 4:
        raise _usage(f"--per-season takes 1 to 4 inputs (spring..winter), got {len(inputs)}")
    if explain is not None and overlay is None:
        raise _usage("--explain draws on the overlay: give --overlay PATH too")
    deal, settings = _with_cards_file(deal, cards_file)
    _check_overlay(overlay, explain, deal)

    from app.inputs import DecodeAhead, is_photo, use_second_thread, warm_up_reader
    from app.overlay_files import OverlayWriter, overlay_paths, write_places_tried

    use_second_thread()
    if any(is_photo(p) for p in inputs):
        warm_up_reader()
    console = Console(highlight=False, soft_wrap=False)
    overlays = None if overlay is None else overlay_paths(overlay, [str(p) for p in inputs])
    loaded = []
    failed = False
    with DecodeAhead(inputs) as ahead:  # the next photo decodes while one is read
        for index, path in enumerate(inputs):
            decoded = ahead.take()
            try:
                plan = _for_input(path, settings, fixes.get(index, {}), side_key)
                item = _load(
                    path,
                    plan,
                    keep_view=overlay is not None,
                    decoded=decoded,
                    read_cards=deal is None,  # --cards wins over a header: unread
                )
                loaded.append((str(path), item, None))
            except INPUT_ERRORS as err:
                if debug:
                    traceback.print_exc()
                loaded.append((str(path), None, one_line(err)))
                failed = True
                if overlays is not None:
                    _say(write_places_tried(overlays[index], err))

    draw = None if overlays is None else OverlayWriter(overlays, explain)
    if per_season:
        failed |= _print_seasons(loaded, deal, coin_values, as_json, lang, console, draw)
    else:
        for index, (source, item, error) in enumerate(loaded):
            if error is not None:
                _report_error(source, error, as_json)
                continue
            try:
                _score_one(item, deal, coin_values, as_json, lang, console, draw, index)
            except INPUT_ERRORS as err:
                if debug:
                    traceback.print_exc()
                _report_error(source, one_line(err), as_json)
                failed = True
    failed |= draw is not None and draw.failed
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def _with_cards_file(
    deal: dict[str, str] | None, cards_file: Path | None
) -> tuple[dict[str, str] | None, Settings | None]:
    """The cards given for every input, ``--cards`` (``deal``) over ``--cards-file``'s
    (exit 2 when that file cannot be read, or names none and no ``--cards`` is given;
    a warning for a deal that is not one card a deck), and that file's settings."""
    settings = None
    if cards_file is not None:
        settings = _load_settings(cards_file)
        deal = deal or settings.cards
        if deal is None:
            raise _usage(f"{cards_file}: no cards in this file")
    if deal is not None:
        _warn_deal(deal)
    return deal, settings


def _load_settings(path: Path, read_cards: bool = True):
    from app.config import BadConfig, load_settings

    try:
        return load_settings(path, read_cards=read_cards)
    except BadConfig as err:
        raise _usage(str(err)) from None


def _settings_for_read(photo: Path, cards_file: Path | None) -> Settings | None:
    """The settings ``read`` applies (``side``, ``[set]``), as ``score`` would, so that its
    text scores as the photo: ``--cards-file``'s, else the nearby cartoscore.toml's.
    ``read`` uses no cards: a problem with the file's is a warning, any other exits 2."""
    from app.config import BadConfig, find_settings, load_settings

    path = cards_file if cards_file is not None else find_settings(photo)
    if path is None:
        return None
    try:
        return load_settings(path)
    except BadConfig as err:
        settings = _load_settings(path, read_cards=False)  # exits 2 unless it was the cards
        _err(f"warning: {err} (read uses no cards; score stops on this)")
        return settings


def _nearby_settings(path: Path):
    """The cartoscore.toml nearest an input (:func:`app.config.find_settings`: above its
    real folder, then above the path as given, else the current directory), read; or
    None."""
    from app.config import find_settings

    found = find_settings(path)
    return None if found is None else _load_settings(found)


def _check_overlay(
    target: Path | None,
    explain: str | None = None,
    deal: dict[str, str] | None = None,
    option: str = "--overlay",
) -> None:
    """Exit 2 at once, rather than after the inputs are read, when ``--overlay`` (or
    ``option``) cannot be written or ``--explain`` names no card, or none of ``deal``
    (the cards given for every input; without them each input's own cards are known
    only once it is read)."""
    if target is None:
        return
    from app.overlay import UnknownExplain, check_explain, overlay_target_problem, resolve_explain

    problem = overlay_target_problem(target)
    if problem is not None:
        raise _usage(f"{option} {target}: {problem}")
    if explain is not None:
        try:
            if deal is None:
                check_explain(explain)
            else:
                resolve_explain(explain, deal)
        except UnknownExplain as err:
            raise _usage(str(err)) from None


def _report_error(source: str, message: str, as_json: bool) -> None:
    """One line naming the input and the problem (JSON object with --json)."""
    message = with_source(source, message)
    if as_json:
        typer.echo(json.dumps({"source": source, "error": message}, ensure_ascii=False))
    else:
        _err(f"error: {message}")


def _score_one(
    item, deal, coin_values, as_json: bool, lang: str, console: Console, draw, index: int
) -> None:
    """Score a read input (:func:`app.score_input.score_input`) and print it."""
    from app.report import render_sheet, review_effects, sheet_json
    from app.score_input import score_input

    sheet = item.sheet
    scored = score_input(item, deal, coin_values)
    for warning in scored.warnings:
        _err(f"warning: {warning}")
    game = scored.game
    # Once, for the report and the overlay (the JSON object has none).
    effects = None if as_json and draw is None else review_effects(sheet, game)
    if as_json:
        typer.echo(json.dumps(sheet_json(sheet, game), ensure_ascii=False))
    else:
        render_sheet(console, sheet, game, lang=lang, effects=effects)
    if draw is not None:
        _err(draw(sheet, item.view, game, index, effects=effects))


def _print_seasons(
    loaded: list[Loaded],
    deal: dict[str, str] | None,
    coin_values: list[int] | None,
    as_json: bool,
    lang: str,
    console: Console,
    draw: OverlayWriter | None,
) -> bool:
    """Score the inputs as spring, summer, fall, winter of one sheet
    (:func:`app.seasons.score_seasons`) and print them. True if any failed."""
    from app.report import render_game, render_sheet, sheet_json
    from app.seasons import score_seasons

    seasons = score_seasons(loaded, deal, coin_values)
    if seasons.headers_differ:
        _err("warning: the map files' cards: headers differ; using the first")
    if deal is None and seasons.cards is not None:
        _warn_deal(seasons.cards)
    if seasons.left_out:
        _err("warning: seasons of failed inputs are left out of the total")
    for i, one in enumerate(seasons.inputs):
        if one.error is not None:
            _report_error(one.source, one.error, as_json)
            continue
        sheet = one.loaded.sheet
        if draw is not None:  # the overlay writes English
            _err(draw(sheet, one.loaded.view, one.on_map, i, one.season))
        if as_json:
            line = sheet_json(sheet, one.on_map, game=seasons.game, season=one.season)
            typer.echo(json.dumps(line, ensure_ascii=False))
        else:
            render_sheet(console, sheet, one.on_map, lang=lang, season=one.season, show_game=False)
    if seasons.game is not None and not as_json:
        render_game(console, seasons.game, lang=lang)
    return seasons.failed


@app.command(cls=_Command)
def batch(
    ctx: typer.Context,
    inputs: list[Path] = typer.Argument(
        ...,
        metavar="DIR_OR_FILES...",
        help="Directories (searched recursively) or files.",
        readable=False,
    ),
    cards: CardsOption = None,
    cards_file: CardsFileOption = None,
    out: Path = typer.Option(
        Path("results.csv"),
        "--out",
        metavar="FILE",
        help="Results: CSV, or JSON Lines for .jsonl (appended).",
    ),
    workers: int = typer.Option(
        None, "--workers", metavar="N", help="Worker processes (default: CPU count; 0 = no pool)."
    ),
    side: SideOption = "auto",
    html: Path = _file("--html", "Also write an HTML report with overlays."),
    debug: bool = _flag("--debug", "Show tracebacks of failed sheets."),
) -> None:
    """Score a folder of sheets in parallel; results appended as they finish, then a ranking."""
    from app.batch import plan_jobs
    from app.collect import collect_inputs, report_files_folder
    from app.outputs import output_path_problem
    from app.results import BadResultsFile, ResultsWriter
    from scoring.i18n import counted

    deal = _parse_cards(cards)
    side_key = _check_side(side)
    deal, settings = _with_cards_file(deal, cards_file)
    if workers is not None and workers < 0:
        raise _usage(f"--workers takes 0 or more, got {workers}")
    for option, path, example in (("--out", out, "results.csv"), ("--html", html, "report.html")):
        problem = None if path is None else output_path_problem(path, example)
        if problem is not None:
            raise _usage(f"{option} {path}: {problem}")
    overlay_dir = report_files_folder(html) if html is not None else None
    if overlay_dir is not None:
        try:
            overlay_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise _usage(f"--html {html}: cannot make {overlay_dir}: {one_line(err)}") from None
    try:
        writer = ResultsWriter(out)  # held, locked, until the run ends
    except (BadResultsFile, OSError) as err:
        raise _usage(one_line(err)) from None
    ctx.call_on_close(writer.close)  # however the command ends
    # The results, the report and its overlays may lie in the folder scored: not sheets.
    collected = collect_inputs(inputs, exclude=[out] + ([html, overlay_dir] if html else []))
    plan = plan_jobs(
        collected.files,
        lambda path: _for_input(path, settings, {}, side_key),
        writer.previous,
        cards=deal,
        overlay_dir=overlay_dir,
        debug=debug,
    )
    for path, why in collected.skipped:
        _err(f"skipped {path}: {why}")
    for path, why in collected.unreadable:
        _err(f"error: {path}: {why}")
    for source, named in plan.stray_fixes:
        _err(f"warning: {source}: [set] names {named}, which is not among the sheets")
    if plan.skipped:
        _err(f"{counted(plan.skipped, 'sheet')} already scored in {out}: skipped")
    if plan.again:
        _err(
            f"{counted(plan.again, 'sheet')} scored again: file, cards, side or [set] changed since"
        )
    n_workers = min(os.cpu_count() or 1, max(len(plan.jobs), 1)) if workers is None else workers
    from app.batch_report import print_summary, run_with_progress, write_html

    console = Console(highlight=False, stderr=False)
    _stop_on_signals()
    try:
        new_rows = run_with_progress(plan.jobs, n_workers, writer, console)
    except KeyboardInterrupt:
        _err(
            f"interrupted: {counted(writer.written, 'more sheet')} saved in {out}; "
            "run the same command again to score the rest"
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except OSError as err:  # the results file could not be written (full disk...)
        _err(f"error: {out}: cannot write the results: {one_line(err)}")
        raise typer.Exit(EXIT_FAILED) from None
    rows = writer.rows
    if html is not None:
        try:
            write_html(html, rows, overlay_dir)
        except OSError as err:
            _err(f"error: {html}: cannot write the HTML report: {one_line(err)}")
            raise typer.Exit(EXIT_FAILED) from None
        _err(f"HTML report written to {html}")
    failed = print_summary(console, rows, new_rows) or bool(collected.unreadable)
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def _stop_on_signals() -> None:
    """A batch told to stop (``kill``, a closed terminal) stops as Ctrl-C stops it: its
    pool is shut down (the workers do not outlive it), and it says what was saved."""
    import signal

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), interrupt)


@app.command("cards", cls=_Command)
def list_cards(
    lang: str = typer.Option(
        "en", "--lang", metavar="CODE", help="Language of card names: en, it, fr, es, zh."
    ),
) -> None:
    """List the 16 scoring cards with their rules and solo values."""
    from scoring.cards import CARDS

    lang = _check_lang(lang)
    console = Console(highlight=False)
    deck = None
    for card in CARDS.values():
        if card.deck != deck:
            deck = card.deck
            console.print(f"\n[bold]{deck} deck[/bold]")
        console.print(f"  [cyan]{card.id}[/cyan]  {card.name_in(lang)}  (solo {card.solo})")
        console.print(f"      {card.rule}")


@app.command(cls=_Command)
def read(
    photo: Path = typer.Argument(
        ..., metavar="PHOTO", help="A photo of a map sheet.", readable=False
    ),
    side: SideOption = "auto",
    overlay: Path = _file("--overlay", "Also write the sheet with each cell's reading (PNG/JPEG)."),
    scan_overlay: Path = _file(
        "--scan-overlay",
        "Also write the photo as the scanner saw it: places tried, frame, intersections, "
        "turn, coins (PNG/JPEG).",
    ),
    debug: bool = _flag("--debug", "Show the traceback on failure."),
    set_cells: list[str] = typer.Option(
        None,
        "--set",
        metavar="SPACE=TERRAIN",
        help="Set by hand: spaces C3=F, C3=farm,E7=., the coins (coins=5) or the side (side=B).",
    ),
    cards_file: Path = _file(
        "--cards-file",
        "TOML settings: its side and \\[set] apply (default: cartoscore.toml nearby).",
    ),
) -> None:
    """Print the recognised map in the text map format, ready to correct and score."""
    from app.corrections import side_set
    from app.inputs import use_second_thread, warm_up_reader
    from app.overlay_files import write_places_tried
    from app.report import check_line, correction_text, map_notes
    from scoring.textmap import format_text

    side_key = _check_side(side)
    given = _parse_fixes(set_cells, 1).get(0, {})
    _check_overlay(overlay)
    _check_overlay(scan_overlay, option="--scan-overlay")
    settings = _settings_for_read(photo, cards_file)
    use_second_thread()
    warm_up_reader()
    try:
        plan = _for_input(photo, settings, given, side_key)
        item = _load(
            photo,
            plan,
            keep_view=overlay is not None,
            keep_scan=scan_overlay is not None,
            photo_only=True,
        )
    except INPUT_ERRORS as err:
        if debug:
            traceback.print_exc()
        for target in (overlay, scan_overlay):  # when no sheet is found: the places tried
            _say(write_places_tried(target, err))
        _err(f"error: {one_line(err)}")
        raise typer.Exit(EXIT_FAILED) from None
    sheet = item.sheet
    for r in sheet.review:
        typer.echo(check_line(r, sheet.map))
    for note in map_notes(sheet, sheet.coins or 0):
        typer.echo(f"; note: {note}")
    if side_set(plan.fixes):
        typer.echo(f"; set by hand: side {side_set(plan.fixes)}")
    for fix in sheet.corrected:
        typer.echo(f"; set by hand: {correction_text(fix)}")
    typer.echo(format_text(sheet.map, coins=sheet.coins), nl=False)
    written = True
    if overlay is not None:
        from app.overlay import draw_overlay

        written &= _write_picture(photo, "overlay", overlay, lambda: draw_overlay(sheet, item.view))
    if scan_overlay is not None:
        from scanner.overlay import draw_scan

        written &= _write_picture(photo, "scan overlay", scan_overlay, lambda: draw_scan(item.scan))
    if not written:
        raise typer.Exit(EXIT_FAILED)


def _write_picture(photo: Path, what: str, path: Path, draw: Callable[[], Any]) -> bool:
    """Write ``draw()``, one of ``read``'s pictures, to ``path``, saying where (or why
    not: False) on stderr."""
    from app.overlay import write_overlay

    try:
        write_overlay(path, draw())
    except OSError as err:
        _err(f"error: {photo}: no {what}: {one_line(err)}")
        return False
    _err(f"{what} written to {path}")
    return True


@app.command(cls=_Command)
def synth(
    out: Path = typer.Option(..., "--out", metavar="DIR", help="Output directory."),
    n: int = typer.Option(100, "--n", metavar="N", help="Number of sheets to render."),
    seed: int = typer.Option(0, "--seed", metavar="N", help="Random seed."),
    difficulty: str = typer.Option(
        "mixed", "--difficulty", metavar="LEVEL", help="clean, normal, hard or mixed."
    ),
    cells: bool = _flag("--cells", "Write each sheet's cell crops and labels instead of photos."),
    neighbour_monsters: float = typer.Option(
        0.0,
        "--neighbour-monsters",
        metavar="SHARE",
        help="Share of sheets from games of several players: their monsters drawn in a "
        "neighbour's hand.",
    ),
) -> None:
    """Render synthetic photos of filled-in sheets (training and test data)."""
    if difficulty not in ("clean", "normal", "hard", "mixed"):
        raise _usage(f"--difficulty takes clean, normal, hard or mixed; got {difficulty!r}")
    if not 0.0 <= neighbour_monsters <= 1.0:
        raise _usage(f"--neighbour-monsters takes a share from 0 to 1, got {neighbour_monsters}")
    for option, value in (("--n", n), ("--seed", seed)):
        if value < 0:
            raise _usage(f"{option} takes 0 or more, got {value}")
    if out.exists() and not out.is_dir():
        raise _usage(f"--out {out}: is a file; give a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise _usage(f"--out {out}: cannot make this folder: {one_line(err)}") from None
    try:
        from models.synth.command import run_synth
    except ImportError as err:
        _err(f"error: synthesis not available ({one_line(err)})")
        raise typer.Exit(EXIT_FAILED) from None
    try:
        run_synth(
            out,
            n=n,
            seed=seed,
            difficulty=difficulty,
            cells=cells,
            neighbour_monsters=neighbour_monsters,
        )
    except OSError as err:  # a full disk, the folder taken away
        _err(f"error: {out}: cannot write: {one_line(err)}")
        raise typer.Exit(EXIT_FAILED) from None


def main() -> None:
    """Console entry point."""
    app()


if __name__ == "__main__":
    sys.exit(main())
