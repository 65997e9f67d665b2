"""`cartoscore read` and its settings file: `read` prints the map and uses no cards, so a
card the settings file gets wrong is told once and the map is printed all the same
(README: `read` applies the settings file's `side` and `[set]`, as `score` does);
`score` still stops on it (CLI.md: exit 2 for an unknown card)."""

from __future__ import annotations

import pytest

import app.inputs
from scanner.sheet import Sheet
from scoring.board import Map
from scoring.layouts import SIDE_A
from tests.cli_fixtures import DEAL, run

#: Edict A's card mistyped ("sentinel-wod"), side B for all, and the sheet's C4 set.
BAD_CARD = (
    'cards = ["sentinel-wod", "canal-lake", "great-city", "borderlands"]\n'
    'side = "B"\n[set]\n"table.jpg" = "C4=W"\n'
)


@pytest.fixture
def sides_read(monkeypatch) -> list[str | None]:
    """Stand in for the photo reader (an empty side-A map): the sides it is asked for."""
    asked: list[str | None] = []

    def empty_sheet(path, *, side=None, decoded=None):
        asked.append(side)
        return Sheet(source=str(path), map=Map.empty(SIDE_A), coins=0)

    monkeypatch.setattr(app.inputs, "read_photo", empty_sheet)
    return asked


@pytest.mark.parametrize("given", [False, True], ids=["nearby", "cards-file"])
def test_read_prints_the_map_though_the_settings_file_names_an_unknown_card(
    tmp_path, sides_read, given
):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"")
    settings = tmp_path / ("round.toml" if given else "cartoscore.toml")
    settings.write_text(BAD_CARD)
    res = run("read", str(photo), *(["--cards-file", str(settings)] if given else []))
    assert res.exit_code == 0, res.stderr
    assert sides_read == ["B"]  # the file's side
    assert "; set by hand: C4 W (read .)" in res.stdout  # and its [set]
    assert res.stdout.endswith(". . . . . . . . . . .\n")  # the map, to the last row
    [warning] = res.stderr.splitlines()
    assert warning.startswith(f"warning: {settings}: unknown card 'sentinel-wod'")
    scored = run("score", str(photo), *(["--cards-file", str(settings)] if given else []))
    assert scored.exit_code == 2 and scored.stdout == ""
    assert scored.stderr.startswith(f"error: {settings}: unknown card 'sentinel-wod'")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (BAD_CARD.replace("[set]", "[set"), "not valid TOML"),
        (BAD_CARD.replace('side = "B"', 'side = "C"'), "side must be auto, A or B, got 'C'"),
    ],
    ids=["toml-syntax", "side"],
)
def test_read_stops_on_a_settings_file_whose_side_or_set_cannot_be_read(
    tmp_path, sides_read, text, problem
):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"")
    settings = tmp_path / "cartoscore.toml"
    settings.write_text(text)
    res = run("read", str(photo))
    assert res.exit_code == 2 and res.stdout == "" and sides_read == []
    [error] = res.stderr.splitlines()
    assert error.startswith(f"error: {settings}: {problem}")


def test_read_with_good_cards_in_the_settings_file_says_nothing_of_them(tmp_path, sides_read):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"")
    cards = ", ".join(f'"{c}"' for c in DEAL.split(","))
    (tmp_path / "cartoscore.toml").write_text(f"cards = [{cards}]\n" + BAD_CARD.split("\n", 1)[1])
    res = run("read", str(photo))
    assert res.exit_code == 0 and res.stderr == "" and sides_read == ["B"]
