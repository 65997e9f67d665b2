"""The human report (app/report.py): what its review table says about each cell."""

from __future__ import annotations

from rich.console import Console

from app.report import map_text, review_table
from scanner.sheet import Review, Sheet
from scoring.board import Map
from scoring.layouts import SIDE_A, parse_space


def _read_map() -> Map:
    """Side A (RULES.md §1: ruins B6 C2 C10 I2 I10 J6) as read: a farm at K9, water drawn
    on the ruins I10, the ruins C10 left empty."""
    m = Map.empty(SIDE_A)
    m = m.with_terrain(parse_space("K9"), "F")
    return m.with_terrain(parse_space("I10"), "W")


def _styled(console: Console, renderable, starts: str) -> list[tuple[str, str]]:
    """The non-blank pieces (text, style) of the rendered line that starts with ``starts``
    once the table's borders and blanks are stripped."""
    for line in console.render_lines(renderable, pad=False):
        text = "".join(seg.text for seg in line).lstrip(" │")
        if text.startswith(starts):
            pieces = [(seg.text.strip(" │"), str(seg.style or "")) for seg in line]
            return [p for p in pieces if p[0]]
    raise AssertionError(f"no line starting {starts!r}")


def test_the_review_table_shows_the_terrain_the_map_holds_as_the_map_shows_it():
    # K9's own reading is a village; its outlined shape chose farm, so farm is what the
    # map holds and what is scored. Listed with the cell's own reading, farm comes last
    # (0.0): in the three candidates shown it does not appear at all.
    review = (
        Review("C10", "unfilled ruins", {".": 0.97, "F": 0.03}),
        Review("I10", "decided by neighbours", {"F": 0.55, "W": 0.45}),
        Review("K9", "decided by its shape", {"V": 0.6, "T": 0.25, "W": 0.1, "F": 0.0}),
    )
    sheet = Sheet(source="x.jpg", map=_read_map(), coins=0, review=review)
    console = Console(width=120, color_system="truecolor", force_terminal=True)
    # The map's row K, I and C: row letter, then the 11 spaces' symbols.
    on_map = {
        name: _styled(console, map_text(sheet.map), f"{name[0]}  ")[int(name[1:])]
        for name in ("C10", "I10", "K9")
    }
    assert [on_map[s][0] for s in ("C10", "I10", "K9")] == ["r", "W", "F"]
    for space in ("C10", "I10", "K9"):
        cells = _styled(console, review_table(sheet), space)
        assert cells[0] == (space, ""), cells
        # Right after the space: the same letter in the same colour as on the map (an
        # unfilled ruins space is the map's "r", water on ruins is underlined there too).
        assert cells[1] == on_map[space], (space, cells)
    assert "underline" in on_map["I10"][1]
    assert on_map["K9"][1] != on_map["I10"][1]
