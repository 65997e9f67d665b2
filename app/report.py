"""Reports of a scored sheet: the JSON object of CLI.md and the human report (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from app.what_if import IfRunnerUp, changing, if_runner_up
from scanner.sheet import COINS, Correction, Review, Sheet, shown
from scoring.board import EMPTY, Map
from scoring.cards import CARDS
from scoring.game import EDICTS, GameResult, coin_warnings
from scoring.i18n import counted, season_name
from scoring.layouts import ROW_LETTERS, SIZE, Space, parse_space

STYLES = {
    "T": "bold green",
    "V": "bold red",
    "F": "bold yellow",
    "W": "bold blue",
    "M": "bold magenta",
    "^": "bold rgb(150,90,40)",
    "#": "grey50",
    EMPTY: "grey42",
}
RUIN_MARK = "r"  # how an unfilled ruins space is drawn in the report
LEGEND = (
    "T forest  V village  F farm  W water  M monster\n"
    "^ mountain  # wasteland  r unfilled ruins  (underlined: drawn on ruins)"
)

ONE_MAP_NOTE = (
    "All four seasons were scored on this one map (the final sheet); the numbers "
    "written in earlier seasons' boxes were scored on earlier maps and may differ. "
    "Give one map per season with --per-season to score each season on its own map."
)


def _solo_json(game: GameResult) -> dict | None:
    if game.solo is None:
        return None
    return {"card_sum": game.solo.card_sum, "rating": game.solo.rating, "title": game.solo.title_en}


def sheet_json(
    sheet: Sheet,
    on_map: GameResult,
    *,
    game: GameResult | None = None,
    season: str | None = None,
) -> dict:
    """The CLI.md ``--json`` object for one input.

    ``on_map`` is the game scored on this sheet's map alone (card points, monsters,
    explanations); ``game`` is the whole game when the sheet is one season of a
    per-season game (``season`` names it), else ``on_map`` is the game.
    """
    game = game or on_map
    out: dict = {"source": sheet.source, "side": sheet.map.layout.name}
    if season is not None:
        out["season"] = season
    out["grid"] = list(sheet.map.grid)
    if sheet.confidence is not None:
        out["confidence"] = [[round(float(p), 3) for p in row] for row in sheet.confidence]
    out |= {
        "coins": on_map.seasons[-1].coins,
        "cards": dict(game.cards),
        "card_points": dict(on_map.card_points),
        "monsters": on_map.monsters,
        "seasons": [
            {
                "season": s.season,
                "edicts": list(s.edicts),
                "edict_points": list(s.edict_points),
                "coins": s.coins,
                "monsters": s.monsters,
                "total": s.total,
            }
            for s in game.seasons
        ],
        "total": game.total,
        "solo": _solo_json(game),
        "explanations": {e: r.explanation.to_json() for e, r in on_map.card_results.items()},
    }
    out["notes"] = sheet_notes(sheet, on_map)
    if sheet.fit is not None:  # photos: how sure the scanner was
        out["scan"] = {
            "fit": round(float(sheet.fit), 3),
            "orientation": sheet.orientation,
            "coin_confidence": None
            if sheet.coin_confidence is None
            else round(float(sheet.coin_confidence), 3),
        }
    if sheet.corrected:
        out["set_by_hand"] = [
            {"space": c.space, "symbol": c.symbol, "read": c.read} for c in sheet.corrected
        ]
    # Always there (CLI.md's object has it; only "confidence" is photo input only): a map
    # file's is empty.
    out["review"] = [
        {"space": r.space, "reason": r.reason, "candidates": dict(r.candidates)}
        for r in sheet.review
    ]
    return out


def review_effects(
    sheet: Sheet, game: GameResult, season: str | None = None
) -> dict[str, IfRunnerUp] | None:
    """The total of ``game`` (one map: the sheet's) with each reviewed cell read as its
    runner-up (:func:`app.what_if.if_runner_up`). None when the sheet is one season's
    map (``season``) of a ``--per-season`` game: its cells' change to the game's total
    is not known."""
    if season is not None or not game.one_map:
        return None
    if not sheet.review:
        return {}
    return if_runner_up(sheet.map, sheet.review, game.cards, game.seasons[-1].coins)


BLANK_NOTE = "blank sheet: nothing is drawn on the map; scored as an empty map"


def is_blank(game_map: Map) -> bool:
    """True when no terrain or monster is drawn on the map (an unplayed sheet)."""
    return game_map.drawn_spaces() == 0


def sheet_notes(sheet: Sheet, on_map: GameResult) -> list[str]:
    """The scanner's notes on the sheet plus consistency checks of the map (with the
    coins it was scored with)."""
    return map_notes(sheet, on_map.seasons[-1].coins)


def map_notes(sheet: Sheet, coins: int) -> list[str]:
    """The scanner's notes, a blank sheet's, and the map's checks with ``coins``."""
    blank = [BLANK_NOTE] if is_blank(sheet.map) else []
    return [*sheet.notes, *blank, *coin_warnings(sheet.map, coins)]


def map_text(game_map: Map) -> Text:
    """The map as coloured symbols with the printed row letters and column numbers."""
    text = Text()
    text.append("    " + " ".join(f"{c + 1:<2}" for c in range(SIZE)).rstrip() + "\n", "dim")
    for r in range(SIZE):
        text.append(f" {ROW_LETTERS[r]}  ", "dim")
        for c in range(SIZE):
            text.append(*map_symbol(game_map, (r, c)))
            text.append("  " if c < SIZE - 1 else "\n")
    text.append(LEGEND, "dim")
    return text


def map_symbol(game_map: Map, space: Space) -> tuple[str, str]:
    """One space as :func:`map_text` draws it: its symbol (``r`` for unfilled ruins) and
    rich style (its terrain's colour, underlined when drawn on ruins)."""
    r, c = space
    sym = game_map.grid[r][c]
    on_ruin = space in game_map.layout.ruins
    if on_ruin and sym == EMPTY:
        return RUIN_MARK, "yellow3"
    return sym, STYLES[sym] + (" underline" if on_ruin else "")


def _cards_table(game: GameResult, lang: str) -> Table:
    table = Table(title="Cards on this map", title_justify="left", expand=False)
    table.add_column("Edict")
    table.add_column("Card")
    table.add_column("Points", justify="right")
    table.add_column("Why")
    for e in EDICTS:
        card = CARDS[game.cards[e]]
        res = game.card_results[e]
        table.add_row(e, card.name_in(lang), str(res.points), res.explanation.reason)
    return table


def _seasons_table(game: GameResult, lang: str) -> Table:
    table = Table(title="Seasons", title_justify="left")
    for name, justify in (
        ("Season", "left"),
        ("Edicts", "left"),
        ("Cards", "right"),
        ("Coins", "right"),
        ("Monsters", "right"),
        ("Total", "right"),
    ):
        table.add_column(name, justify=justify)
    for s in game.seasons:
        table.add_row(
            season_name(s.season, lang),
            "+".join(s.edicts),
            f"{s.edict_points[0]} + {s.edict_points[1]}",
            f"{s.coins:+d}",
            str(s.monsters),
            str(s.total),
        )
    return table


def solo_line(game: GameResult, lang: str) -> str:
    """A sentence on the solo rating and title."""
    if game.solo is None:
        return "Solo: not rated (fewer than four seasons scored)."
    solo = game.solo
    title = solo.title(lang)
    head = f"Solo: {game.total} - {solo.card_sum} (cards' solo values) = rating {solo.rating}"
    if title is None:
        return head + ": below -30, no title."
    return f"{head}: {title}"


def review_heading(sheet: Sheet, effects: dict[str, IfRunnerUp] | None = None) -> str:
    """The line above the review table (printed on its own: a table title would
    wrap to the narrow table's width); with ``effects``, how many of the cells would
    change the total if they were their runner-up (the table lists those first)."""
    line = f"Check by hand: {counted(len(sheet.review), 'cell')} (red on --overlay)"
    if effects is not None:
        line += f"; {changing(effects)} of them would change the total"
    return line


def review_order(review: tuple[Review, ...], effects: dict[str, IfRunnerUp] | None) -> list[Review]:
    """The reviewed cells as the table lists them: with ``effects``, those whose
    runner-up would change the total first, the largest change first, then the others;
    otherwise (and within equal changes) as the sheet lists them, row by row.

    A finished sheet lists a dozen cells on a typical photo and most change nothing:
    the ones that matter should not hide among them."""
    if effects is None:
        return list(review)

    def change(r: Review) -> int:
        effect = effects.get(r.space)
        return -abs(effect.change) if effect is not None else 0

    return sorted(review, key=change)  # stable: equal changes keep the sheet's order


def if_text(effect: IfRunnerUp | None) -> str:
    """``"V: total 15 (+3)"``, ``"V: no change"`` or ``""`` (no runner-up to try)."""
    if effect is None:
        return ""
    if effect.change == 0:
        return f"{effect.symbol}: no change"
    return f"{effect.symbol}: total {effect.total} ({effect.change:+d})"


def review_table(sheet: Sheet, effects: dict[str, IfRunnerUp] | None = None) -> Table:
    """The cells to check by hand: the terrain the map holds there (as the map shows it),
    why, the classifier's top three candidates and, with ``effects``, the total if each
    were its runner-up (in :func:`review_order`).

    The candidates are the cell's own reading (for a cell decided by the sheet, as read
    in context); for a cell decided by its shape, its neighbours or its look-alikes the
    terrain chosen is not their first and may not be among the three shown, so the map's
    symbol has its own column."""
    table = Table()
    table.add_column("Space")
    table.add_column("Map")
    table.add_column("Why")
    table.add_column("Candidates")
    if effects is not None:
        table.add_column("If it is the runner-up")
    for r in review_order(sheet.review, effects):
        chosen = Text(*map_symbol(sheet.map, parse_space(r.space)))
        cells = [r.space, chosen, r.reason, candidates_text(r)]
        if effects is not None:
            cells.append(if_text(effects.get(r.space)))
        table.add_row(*cells)
    return table


def candidates_text(r: Review) -> str:
    """A reviewed cell's top three candidates: ``"T 0.55  V 0.41"``."""
    return "  ".join(f"{k} {shown(v)}" for k, v in list(r.candidates.items())[:3])


def check_line(r: Review, game_map: Map) -> str:
    """``read``'s comment on a cell to check: why, the terrain on the map when it is not
    the first candidate (a cell decided by its shape, neighbours or look-alikes), and the
    candidates: ``"; check K9: decided by its shape, read F (V 0.98  T 0.01  F 0.00)"``."""
    r0, c0 = parse_space(r.space)
    held = game_map.grid[r0][c0]
    first = next(iter(r.candidates), held)
    read = f", read {held}" if held != first else ""
    maybe = f" ({candidates_text(r)})" if r.candidates else ""
    return f"; check {r.space}: {r.reason}{read}{maybe}"


def correction_text(c: Correction) -> str:
    """One thing set by hand, with what had been read: ``"C3 F (read W)"``."""
    return f"{c.space} {c.symbol} (read {c.read})"


def corrected_line(sheet: Sheet) -> str:
    """What was set by hand (``--set``, ``[set]``), each with what had been read."""
    return f"Set by hand: {', '.join(correction_text(c) for c in sheet.corrected)}"


def coins_line(sheet: Sheet, game: GameResult) -> str:
    """Where the coins counted in the seasons come from, and what was scored when
    ``--coins`` said otherwise (one count, or one a season: ``1, 2, 3, 4 by season``)."""
    counts = [s.coins for s in game.seasons]
    by_season = len(set(counts)) > 1
    scored = f"{', '.join(map(str, counts))} by season" if by_season else str(counts[-1])
    overridden = f"; scored with {scored} (--coins)"
    by_hand = [c for c in sheet.corrected if c.space == COINS]
    if by_hand:
        where = "on the coin track" if sheet.confidence is not None else "in the file"
        line = f"Coins: {sheet.coins}, set by hand (read {by_hand[-1].read} {where})"
    elif sheet.confidence is None:  # a map file: its coins: header, if any
        if sheet.coins is None or (sheet.coins == counts[-1] and not by_season):
            return f"Coins: {scored}"
        line = f"Coins: {sheet.coins} in the file"
    else:
        line = f"Coins read on the coin track: {sheet.coins}"
        if sheet.coin_confidence is not None:
            line += f" (confidence {shown(sheet.coin_confidence)})"
    return line if counts[-1] == sheet.coins and not by_season else line + overridden


def render_sheet(
    console: Console,
    sheet: Sheet,
    game: GameResult,
    *,
    lang: str = "en",
    season: str | None = None,
    show_game: bool = True,
    effects: dict[str, IfRunnerUp] | None = None,
) -> None:
    """Print the human report for one sheet (and, with ``show_game``, its seasons);
    ``effects`` (:func:`review_effects`) adds what each cell to check would change."""
    where = f"{sheet.source}  side {sheet.map.layout.name}"
    if season is not None:
        where += f"  ({season_name(season, lang)})"
    if len(where) + 4 <= console.width:
        console.rule(where, align="left")
    else:  # a rule would cut the title (the season last): the whole title, then the rule
        console.print(where, overflow="fold")
        console.rule()
    console.print(map_text(sheet.map))
    for note in sheet_notes(sheet, game):
        console.print(f"note: {note}", style="yellow")
    if sheet.review:
        console.print(review_heading(sheet, effects), style="yellow")
        console.print(review_table(sheet, effects))
    if sheet.corrected:
        console.print(corrected_line(sheet))
    console.print(coins_line(sheet, game))
    console.print(_cards_table(game, lang))
    monsters = game.monsters
    console.print(f"Monsters: {monsters} (empty spaces next to a monster)")
    if show_game:
        render_game(console, game, lang=lang)


def render_game(console: Console, game: GameResult, *, lang: str = "en") -> None:
    """Season lines, total and solo title."""
    console.print(_seasons_table(game, lang))
    if game.one_map:
        console.print(ONE_MAP_NOTE, style="italic")
    total = f"Total: {game.total}"
    if len(game.seasons) < 4:
        names = ", ".join(season_name(s.season, lang) for s in game.seasons)
        total += f" (only {names} scored)"
    console.print(Text(total, style="bold"))
    lost = game.stars_lost_to_monsters
    console.print(f"Stars lost to monsters: {lost} (tie-break: fewer wins)")
    console.print(solo_line(game, lang))
