"""scoring.layouts.parse_side: the one reading of a printed side, ``auto``, ``A`` or ``B``
(``--side``, a settings file's ``side``, ``--set side=B``, a map file's ``side:``)."""

import pytest

from scoring.layouts import SIDE_A, custom_layout, parse_side


@pytest.mark.parametrize("text, side", [("A", "A"), ("b", "B"), ("auto", None), ("AUTO", None)])
def test_a_side_in_any_case_and_auto_to_detect(text, side):
    assert parse_side(text) == side


@pytest.mark.parametrize("text", ["C", "", "A B", " A", "either"])
def test_anything_else_is_refused(text):
    # Spaces are the caller's to strip: a settings file's " A" was always refused.
    with pytest.raises(ValueError):
        parse_side(text)


def test_where_auto_is_no_side_it_is_refused_too():
    assert parse_side("a", auto=False) == "A"
    with pytest.raises(ValueError):
        parse_side("auto", auto=False)  # --set side=auto, a file's "side: auto"


def test_the_sides_known_are_the_layouts_given():
    layouts = {"X": custom_layout("X", [], []), "A": SIDE_A}
    assert parse_side("x", layouts) == "X"
    with pytest.raises(ValueError):
        parse_side("B", layouts)
