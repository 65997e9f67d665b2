"""What ``score``, ``read`` and ``batch`` share for one input: loading it with what the
settings say for it (app.inputs.load_with_settings), the cards it is scored with
(app.config.pick_cards) and the one line of its error (app.errors)."""

from pathlib import Path

import pytest

from app.config import NO_CARDS, BadConfig, pick_cards
from app.corrections import BadCorrection
from app.errors import INPUT_ERRORS, one_line, with_source
from app.inputs import UnreadableInput, load_with_settings
from scanner.errors import SheetNotFound
from scoring.cards import UnknownCard
from scoring.textmap import BadMapFile

SAMPLE = str(Path(__file__).resolve().parent.parent / "samples" / "forest-road-a.txt")
HEADER = {  # forest-road-a.txt's cards: header
    "A": "treetower",
    "B": "the-golden-granary",
    "C": "greengold-plains",
    "D": "the-broken-road",
}
NEARBY = {"A": "sentinel-wood", "B": "canal-lake", "C": "great-city", "D": "borderlands"}


def test_an_error_is_one_line_naming_its_input_once():
    assert (
        one_line(OSError("cannot read\n  (permission\tdenied)"))
        == "cannot read (permission denied)"
    )
    assert one_line(ValueError()) == "ValueError"
    assert with_source("a.txt", "no cards") == "a.txt: no cards"
    assert with_source("a.txt", "a.txt: no such file") == "a.txt: no such file"


@pytest.mark.parametrize(
    "err",
    [
        BadMapFile("x"),
        BadCorrection("x"),
        BadConfig("x"),
        UnknownCard("x"),
        SheetNotFound("a.jpg", "no grid"),
        UnreadableInput("x"),
        FileNotFoundError("x"),
    ],
)
def test_a_bad_input_is_an_input_error(err):
    assert isinstance(err, INPUT_ERRORS)


def test_a_bug_is_not_an_input_error():
    assert not isinstance(KeyError("x"), INPUT_ERRORS)
    assert not isinstance(AttributeError("x"), INPUT_ERRORS)


def test_the_cards_given_win_then_the_inputs_own():
    assert pick_cards("a.txt", NEARBY, HEADER) == NEARBY
    assert pick_cards("a.txt", None, HEADER) == HEADER
    with pytest.raises(ValueError) as caught:
        pick_cards("a.txt", None, None)
    assert str(caught.value) == f"a.txt: {NO_CARDS}"


def test_a_map_files_header_wins_over_the_nearby_settings_cards():
    assert load_with_settings(SAMPLE, default_cards=NEARBY).cards == HEADER
    # --cards given: the header is left unread, and the nearby file's stand in.
    assert load_with_settings(SAMPLE, default_cards=NEARBY, read_cards=False).cards == NEARBY


def test_what_is_set_by_hand_is_applied_to_the_sheet_read():
    plain = load_with_settings(SAMPLE).sheet
    assert plain.map.grid[0][4] != "M"
    fixed = load_with_settings(SAMPLE, fixes={(0, 4): "M", "coins": 5}).sheet
    assert fixed.map.grid[0][4] == "M" and fixed.coins == 5
    assert [c.space for c in fixed.corrected] == ["A5", "coins"]
    with pytest.raises(BadCorrection):  # side A prints a mountain at B4
        load_with_settings(SAMPLE, fixes={(1, 3): "F"})
