"""Each cell listed for review, read as its runner-up: what the total would be.

RULES.md: "−1 per empty space adjacent to at least one monster space (once per
space)" at the end of each of the four seasons, and "+1 per coin marked on the coin
track so far" every season. The cards below score nothing on an empty map
(RULES.md's card table: forest on the edge, rows and columns with forest, water
beside farms, the largest village cluster), so on a map holding one drawing the
totals follow from the monster and coin rules alone.
"""

from app.report import review_heading
from app.what_if import if_runner_up, runner_up
from scanner.sheet import Review, Sheet
from scoring.board import Map
from scoring.game import score_game
from scoring.layouts import SIDE_A

CARDS = {"A": "sentinel-wood", "B": "greenbough", "C": "canal-lake", "D": "great-city"}
#: E5 on side A: its four neighbours D5, F5, E4 and E6 are free spaces (no mountain).
MONSTER_AT = (4, 4)


def _map_with(symbol: str, at: tuple[int, int] = MONSTER_AT) -> Map:
    grid = list(Map.empty(SIDE_A).grid)
    r, c = at
    grid[r] = grid[r][:c] + symbol + grid[r][c + 1 :]
    return Map(tuple(grid), SIDE_A)


def test_runner_up_is_the_likeliest_candidate_not_read():
    review = Review("E5", "low confidence", {".": 0.55, "M": 0.40, "F": 0.05})
    assert runner_up(review, ".") == "M"
    # A cell the neighbours or its shape decided was read as another class than its
    # own top candidate: that candidate is then what it may really be.
    assert runner_up(review, "F") == "."


def test_an_empty_cell_that_may_be_a_monster_would_cost_four_stars_a_season():
    blank = Map.empty(SIDE_A)
    review = [Review("E5", "low confidence", {".": 0.6, "M": 0.4})]
    effects = if_runner_up(blank, review, CARDS, coins=2)
    # 2 coins in each of 4 seasons; a monster at E5 empties 4 spaces' worth of stars.
    assert effects["E5"].symbol == "M"
    assert effects["E5"].total == 4 * (2 - 4)
    assert effects["E5"].change == -16


def test_a_monster_that_may_be_empty_would_give_the_stars_back():
    read = _map_with("M")
    review = [Review("E5", "close call", {"M": 0.5, ".": 0.45})]
    effects = if_runner_up(read, review, CARDS, coins=0)
    assert (effects["E5"].symbol, effects["E5"].total, effects["E5"].change) == (".", 0, 16)


def test_a_cell_whose_runner_up_scores_the_same_says_so():
    # A lone farm that may be a lone water: Canal Lake counts neither without the other.
    read = _map_with("F", (9, 9))
    review = [Review("J10", "low confidence", {"F": 0.7, "W": 0.3})]
    effects = if_runner_up(read, review, CARDS, coins=0)
    assert effects["J10"].change == 0
    sheet = Sheet(source="x.jpg", map=read, coins=0, review=tuple(review))
    assert review_heading(sheet, effects).endswith("0 of them would change the total")


def _corner(img, space: str):
    """The bottom-left quarter of a cell on the overlay, where the runner-up tag goes."""
    from app.overlay import _cell_rect
    from scoring.layouts import parse_space

    x0, y0, x1, y1 = _cell_rect(*parse_space(space))
    return img[(y0 + y1) // 2 : y1 - 6, x0 + 6 : (x0 + x1) // 2]  # inside the red frame


def test_the_overlay_tags_a_cell_whose_runner_up_changes_the_total():
    from app.overlay import draw_overlay

    read = _map_with("M")
    changing = (Review("E5", "close call", {"M": 0.5, ".": 0.45}),)
    # J10's runner-up (a lone water for a lone farm) changes nothing: no tag there.
    farm = list(read.grid)
    farm[9] = farm[9][:9] + "F" + farm[9][10:]
    read = Map(tuple(farm), SIDE_A)
    still = (Review("J10", "low confidence", {"F": 0.7, "W": 0.3}),)
    game = score_game([read], CARDS, 0)
    plain = draw_overlay(Sheet(source="x.png", map=read, coins=0), None, game)
    tagged = draw_overlay(
        Sheet(source="x.png", map=read, coins=0, review=changing + still), None, game
    )
    assert (_corner(tagged, "E5") != _corner(plain, "E5")).any()
    assert (_corner(tagged, "J10") == _corner(plain, "J10")).all()
    # One season's map (score --per-season): the game is not this map alone, so the
    # report gives no such change and neither does the overlay.
    season = draw_overlay(
        Sheet(source="x.png", map=read, coins=0, review=changing + still),
        None,
        game,
        season="summer",
    )
    assert (_corner(season, "E5") == _corner(plain, "E5")).all()


def test_the_review_table_lists_the_cells_that_change_the_total_first():
    from rich.console import Console

    from app.report import review_table

    # Read: a lone farm at J10 (Canal Lake counts it with no water beside it: no
    # change as a water, see above); A1 and E5 read empty but may be monsters. A
    # monster at A1 empties its 2 neighbours (A2, B1), one at E5 its 4, in each of
    # the four seasons: -8 and -16 (no coins).
    read = _map_with("F", (9, 9))
    review = (
        Review("A1", "low confidence", {".": 0.6, "M": 0.4}),
        Review("E5", "low confidence", {".": 0.7, "M": 0.3}),
        Review("J10", "low confidence", {"F": 0.7, "W": 0.3}),
    )
    effects = if_runner_up(read, review, CARDS, coins=0)
    assert [effects[s].change for s in ("A1", "E5", "J10")] == [-8, -16, 0]
    sheet = Sheet(source="x.jpg", map=read, coins=0, review=review)
    console = Console(record=True, width=120)
    console.print(review_table(sheet, effects))
    text = console.export_text()
    assert text.index("E5") < text.index("A1") < text.index("J10")
    assert review_heading(sheet, effects).endswith("2 of them would change the total")
    # Without the effects (a map of one season among several) the sheet's order stays.
    console = Console(record=True, width=120)
    console.print(review_table(sheet))
    text = console.export_text()
    assert text.index("A1") < text.index("E5") < text.index("J10")
