"""app.batch.plan_jobs: which sheets a batch run scores, and what it says it left.

The rules (README "Batch", the results file): a sheet whose newest row scored it
without error, with what is given for it now, is skipped; one scored with something
else (here: other cards) is scored again; a failed one is simply tried again; a
settings file's ``[set]`` naming no sheet found is told.
"""

from __future__ import annotations

from pathlib import Path

from app.batch import Job, plan_jobs
from app.config import ForInput, Settings
from app.results import cards_text, file_facts, sheet_key

DEAL = {"A": "sentinel-wood", "B": "canal-lake", "C": "great-city", "D": "borderlands"}
MOVED = {**DEAL, "D": "the-broken-road"}


def _photo(folder: Path, name: str) -> str:
    path = folder / name
    path.write_bytes(b"\xff\xd8\xff\xe0 a photo's first bytes")  # never decoded here
    return str(path)


def _row(source: str, cards: dict[str, str], error: str = "") -> dict:
    """A results row for a photo scored with ``cards``, nothing set by hand, side B given
    (by the settings file)."""
    return {
        "source": source,
        "error": error,
        "set_by_hand": "",
        "side_given": "B",
        "cards": cards_text(cards),
        "modified": file_facts(source)[0],
    }


def test_plan_skips_what_stands_and_scores_again_what_changed(tmp_path):
    new, same, moved, failed = (
        _photo(tmp_path, f"{n}.jpg") for n in ("new", "same", "moved", "failed")
    )
    settings = Settings(
        str(tmp_path / "cartoscore.toml"),
        side="B",
        fixes={sheet_key(new): {"coins": 3}, sheet_key(tmp_path / "gone.jpg"): {"coins": 1}},
    )

    def settings_for(path: Path) -> ForInput:
        assert isinstance(path, Path)
        return ForInput(settings.fixes_for(path), None, settings.side, None, settings)

    previous = [
        _row(same, DEAL, error=f"{same}: no map sheet found"),
        _row(same, DEAL),  # the newest row of a sheet wins
        _row(moved, MOVED),  # scored with other cards
        _row(failed, DEAL, error=f"{failed}: no map sheet found"),
    ]
    plan = plan_jobs(
        [new, same, moved, failed],
        settings_for,
        previous,
        cards=DEAL,
        overlay_dir=tmp_path / "report_files",
        debug=True,
    )
    overlays = str(tmp_path / "report_files")
    expected = [
        Job(new, DEAL, None, overlays, fixes=(("coins", 3),), default_side="B", debug=True),
        Job(moved, DEAL, None, overlays, default_side="B", debug=True),
        Job(failed, DEAL, None, overlays, default_side="B", debug=True),
    ]
    assert plan.jobs == expected
    assert (plan.skipped, plan.again) == (1, 1)
    assert plan.stray_fixes == [(settings.source, sheet_key(tmp_path / "gone.jpg"))]


def test_plan_of_a_first_run_scores_every_sheet_as_its_settings_say(tmp_path):
    a, b = _photo(tmp_path, "a.jpg"), _photo(tmp_path, "b.jpg")
    plans = {
        Path(a): ForInput({"side": "A"}, "A", None, DEAL, None),
        Path(b): ForInput({}, None, None, None, None),
    }
    plan = plan_jobs([a, b], plans.__getitem__, [])
    assert plan.jobs == [Job(a, side="A", default_cards=DEAL, fixes=(("side", "A"),)), Job(b)]
    assert (plan.skipped, plan.again, plan.stray_fixes) == (0, 0, [])
