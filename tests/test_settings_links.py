"""Which ``cartoscore.toml`` a sheet reached through a link takes (app.config.find_settings,
README "Cards can come from..."): the photos' real folder and those above it first,
then the folders along the path as given, then the current folder.

The sample wilderness-a.txt without its headers scores 96 - 6 * 4 = 72 with its own
header's cards (the hand working in samples/, less the header's 6 coins a season).
"""

from pathlib import Path

import pytest

from app.config import CONFIG_NAME, find_settings
from app.results import read_results
from tests.cli_fixtures import ROOT, run

OWN = '["sentinel-wood", "canal-lake", "great-city", "borderlands"]'  # wilderness-a's
OTHER = '["sentinel-wood", "canal-lake", "great-city", "the-broken-road"]'


def _settings(folder: Path, cards: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / CONFIG_NAME
    path.write_text(f"cards = {cards}\n")
    return path


@pytest.fixture
def linked(tmp_path) -> Path:
    """tournament/round3 holding a sheet, reached as links/current (a link to it)."""
    round3 = tmp_path / "tournament" / "round3"
    round3.mkdir(parents=True)
    plain = (ROOT / "samples" / "wilderness-a.txt").read_text().splitlines()[-11:]
    (round3 / "s.txt").write_text("\n".join(plain) + "\n")
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "current").symlink_to(round3, target_is_directory=True)
    return tmp_path


def test_the_settings_above_the_real_folder_win_over_those_above_the_link(linked):
    real = _settings(linked / "tournament", OWN)
    _settings(linked / "links", OTHER)
    sheet = linked / "links" / "current" / "s.txt"
    assert find_settings(sheet, cwd=linked) == real


def test_the_settings_along_the_path_given_come_next_then_the_current_folder(linked):
    sheet = linked / "links" / "current" / "s.txt"
    here = _settings(linked / "cwd", OTHER)
    assert find_settings(sheet, cwd=here.parent) == here
    above_link = _settings(linked / "links", OTHER)
    assert find_settings(sheet, cwd=here.parent) == above_link
    assert find_settings(linked / "tournament" / "round3" / "s.txt", cwd=here.parent) == here


def test_a_photo_linked_into_a_round_takes_the_rounds_settings(linked):
    """A link to one file is that file put in the link's folder: the folder is
    resolved, not the link itself (a photo linked from a camera's folder takes the
    round's settings, not settings above the camera's folder)."""
    round_ = _settings(linked / "rounds" / "r1", OWN)
    _settings(linked / "tournament", OTHER)
    (linked / "rounds" / "r1" / "table3.txt").symlink_to(linked / "tournament" / "round3" / "s.txt")
    assert find_settings(linked / "rounds" / "r1" / "table3.txt", cwd=linked) == round_


def test_batch_through_a_linked_folder_scores_with_the_real_folders_cards(linked, monkeypatch):
    _settings(linked / "tournament", OWN)
    _settings(linked / "links", OTHER)
    monkeypatch.chdir(linked / "links")
    out = linked / "r.csv"
    res = run("batch", "current", "--out", str(out), "--workers", "0")
    assert res.exit_code == 0, res.stdout
    [row] = read_results(out)
    assert row["total"] == 72 and row["card_D"] == 12  # D: Borderlands, not the Broken Road
