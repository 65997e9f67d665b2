"""app.seasons.coins_for: --coins (N, or a,b,c,d by season) over the sheet's own count, else 0,
for one sheet and for one season's sheet of ``score --per-season``."""

from app.seasons import coins_for


def test_the_sheets_count_when_no_coins_are_given():
    assert coins_for(None, 5) == 5
    assert coins_for(None, None) == 0
    assert coins_for(None, 3, season=2) == 3


def test_one_number_is_every_seasons():
    assert coins_for([4], 9) == 4
    assert coins_for([4], 9, season=3) == 4


def test_one_number_a_season_scores_a_sheet_by_season_or_gives_that_seasons():
    assert coins_for([1, 2, 3, 4], 9) == [1, 2, 3, 4]
    assert [coins_for([1, 2, 3, 4], 9, season=s) for s in range(4)] == [1, 2, 3, 4]
