"""scoring.game.deal: the one reading of the four cards under edicts A-D (RULES.md §2),
whether given as ``--cards`` text, a ``cards:`` header, a list or a table by edict."""

import pytest

from scoring.cards import UnknownCard
from scoring.game import BadDeal, by_edict, deal

DEAL = {"A": "sentinel-wood", "B": "canal-lake", "C": "great-city", "D": "borderlands"}


def test_a_text_a_list_and_a_table_give_the_same_deal():
    assert deal("Sentinel Wood, canal lake,the great city , BORDERLANDS") == DEAL
    assert deal(["sentinel-wood", "canal-lake", "great-city", "borderlands"]) == DEAL
    table = {"d": "borderlands", "B": "canal-lake", "a": "sentinel-wood", "C": "great-city"}
    assert list(deal(table).items()) == list(DEAL.items())  # edict order, keys upper case


@pytest.mark.parametrize(
    "cards",
    [
        "sentinel-wood, canal-lake, great-city",  # three
        "sentinel-wood,,great-city,borderlands",  # a blank name in a text is none
        "a,b,c,d,e",
        ["sentinel-wood", "canal-lake", "great-city"],
        ["sentinel-wood", "canal-lake", "great-city", 7],  # not a name
        {"A": "sentinel-wood", "B": "canal-lake", "C": "great-city"},  # no D
        {**DEAL, "E": "wildholds"},
        {**DEAL, "a": "wildholds"},  # edict A twice
    ],
)
def test_anything_but_four_cards_one_an_edict_is_a_bad_deal(cards):
    with pytest.raises(BadDeal):
        deal(cards)


def test_a_name_that_is_no_card_is_unknown_not_a_bad_deal():
    # As a settings file's list of four always said: "unknown card ''", not a count.
    for cards in ("sentinel-wood, canal-lake, great-city, bordrlands", [""] * 4):
        with pytest.raises(UnknownCard):
            deal(cards)


def test_by_edict_puts_a_table_in_edict_order():
    assert by_edict({"b": 2, "D": 4, "A": 1, "c": 3}) == [1, 2, 3, 4]
    with pytest.raises(BadDeal, match="edicts A, B, C, D"):
        by_edict({"A": 1, "B": 2, "C": 3})
