"""The batch summary's review line counts sheets and cells in plain English."""

from rich.console import Console

from app.batch_report import print_summary


def _row(source: str, total: int, review: int) -> dict:
    return {
        "source": source,
        "total": total,
        "stars_lost_to_monsters": 0,
        "solo_rating": "",
        "solo_title": "",
        "review": review,
        "error": "",
        "seconds": "0.1",
    }


def _summary(rows: list[dict]) -> str:
    console = Console(record=True, width=200)
    print_summary(console, rows, rows)
    return console.export_text()


def test_one_sheet_with_one_cell_to_check_is_singular():
    text = _summary([_row("a.jpg", 50, 1), _row("b.jpg", 40, 0)])
    assert "1 sheet has 1 cell to check by hand" in text


def test_several_sheets_and_cells_are_plural():
    text = _summary([_row("a.jpg", 50, 2), _row("b.jpg", 40, 3)])
    assert "2 sheets have 5 cells to check by hand" in text
