"""Property tests: invariants the rules imply, on random maps (hypothesis)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.board import Map
from scoring.cards import CARDS
from scoring.game import monster_penalty
from scoring.layouts import SIDE_A, SIDE_B, SIZE, Layout

PLAIN = Layout("plain", frozenset(), frozenset())  # a sheet with nothing printed

cells = st.lists(st.sampled_from(".....TVFWM"), min_size=SIZE * SIZE, max_size=SIZE * SIZE)


def on(layout: Layout, symbols: list[str]) -> Map:
    rows = [
        "".join(layout.printed((r, c)) or symbols[r * SIZE + c] for c in range(SIZE))
        for r in range(SIZE)
    ]
    return Map(tuple(rows), layout)


def pts(cid: str, m: Map) -> int:
    return CARDS[cid].score(m).points


def empties(m: Map) -> list[tuple[int, int]]:
    return [(r, c) for r in range(SIZE) for c in range(SIZE) if m.grid[r][c] == "."]


FILLED_ONLY = ("borderlands", "the-broken-road", "lost-barony")


@settings(max_examples=60, deadline=None)
@given(cells, st.sampled_from([SIDE_A, SIDE_B]), st.data())
def test_filling_an_empty_space_never_lowers_the_filled_space_cards(symbols, layout, data):
    # Borderlands, The Broken Road and Lost Barony only ask whether spaces are filled.
    m = on(layout, symbols)
    holes = empties(m)
    if not holes:
        return
    space = data.draw(st.sampled_from(holes))
    filled = m.with_terrain(space, data.draw(st.sampled_from("TVFWM")))
    for cid in FILLED_ONLY:
        assert pts(cid, filled) >= pts(cid, m), cid


@settings(max_examples=60, deadline=None)
@given(cells, st.data())
def test_drawing_forest_never_lowers_greenbough_or_sentinel_wood(symbols, data):
    m = on(SIDE_A, symbols)
    holes = empties(m)
    if not holes:
        return
    forested = m.with_terrain(data.draw(st.sampled_from(holes)), "T")
    for cid in ("greenbough", "sentinel-wood"):
        assert pts(cid, forested) >= pts(cid, m)


@settings(max_examples=60, deadline=None)
@given(cells)
def test_transposing_a_plain_sheet_keeps_symmetric_cards(symbols):
    # Rows and columns play the same part in these rules, so a transposed map
    # (on a sheet with nothing printed) scores the same.
    m = on(PLAIN, symbols)
    t = Map(tuple("".join(row[c] for row in m.grid) for c in range(SIZE)), PLAIN)
    for cid in (
        "sentinel-wood",
        "greenbough",
        "treetower",
        "canal-lake",
        "shoreside-expanse",
        "wildholds",
        "great-city",
        "greengold-plains",
        "shieldgate",
        "borderlands",
        "lost-barony",
        "the-cauldrons",
    ):
        assert pts(cid, t) == pts(cid, m), cid
    assert monster_penalty(t) == monster_penalty(m)


def brute_force_square(m: Map) -> int:
    best = 0
    for k in range(1, SIZE + 1):
        for r in range(SIZE - k + 1):
            for c in range(SIZE - k + 1):
                if all(m.grid[r + i][c + j] != "." for i in range(k) for j in range(k)):
                    best = k
    return best


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from("..TTVV"), min_size=SIZE * SIZE, max_size=SIZE * SIZE))
def test_lost_barony_agrees_with_brute_force(symbols):
    m = on(SIDE_B, symbols)
    assert pts("lost-barony", m) == 3 * brute_force_square(m)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from("..TTVV"), min_size=SIZE * SIZE, max_size=SIZE * SIZE))
def test_lost_barony_explains_one_side_of_its_square(symbols):
    # "3 per space along one side of the largest solid square": the spaces that earned
    # points are one full side of a solid square of that size, 3 points each.
    m = on(SIDE_B, symbols)
    res = CARDS["lost-barony"].score(m)
    k = brute_force_square(m)
    [square] = res.explanation.clusters
    rows, cols = {r for r, _ in square}, {c for _, c in square}
    assert len(square) == k * k and len(rows) == len(cols) == k
    assert all(m.grid[r][c] != "." for r, c in square)
    side = res.explanation.spaces
    assert res.points == 3 * len(side) == 3 * k
    edges = [{(r, c) for r, c in square if r == line} for line in (min(rows), max(rows))]
    edges += [{(r, c) for r, c in square if c == line} for line in (min(cols), max(cols))]
    assert side in edges


@settings(max_examples=60, deadline=None)
@given(cells, st.sampled_from([SIDE_A, SIDE_B]))
def test_space_counting_cards_explain_every_point(symbols, layout):
    m = on(layout, symbols)
    for cid in ("sentinel-wood", "treetower", "the-cauldrons", "canal-lake", "great-city"):
        res = CARDS[cid].score(m)
        assert res.points == len(res.explanation.spaces), cid
    assert 0 >= monster_penalty(m) >= -len(empties(m))
    assert pts("the-cauldrons", m) <= len(empties(m))
