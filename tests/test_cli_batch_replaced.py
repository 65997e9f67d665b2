"""`cartoscore batch` re-runs after a photo was replaced (README "Score a tournament"):
a photo swapped for another that kept the old one's time is scored again.

The photos are samples/photos' renders, scored with the committed model: only whether
they are scored again is checked, not what is read.
"""

import os
import shutil

from app.results import read_results
from tests.cli_fixtures import ROOT, run

PHOTOS = ROOT / "samples" / "photos"
DEAL = "the-cauldrons,greenbough,mages-valley,great-city"


def test_a_photo_replaced_by_another_with_the_same_time_is_scored_again(tmp_path):
    """``cp -p other.jpg table3.jpg``, or a sync tool restoring times: the file's
    modification time is the old one's, its size is not."""
    d = tmp_path / "round"
    d.mkdir()
    table = d / "table3.jpg"
    shutil.copy(PHOTOS / "synth-2028-A-pencil-hatch-icon.jpg", table)
    out = tmp_path / "r.csv"
    batch = ("batch", str(d), "--out", str(out), "--workers", "0", "--cards", DEAL)
    assert run(*batch).exit_code == 0
    first = table.stat()
    shutil.copy(PHOTOS / "synth-2037-A-graphite.jpg", table)
    os.utime(table, ns=(first.st_atime_ns, first.st_mtime_ns))
    res = run(*batch)
    assert res.exit_code == 0, res.stderr
    assert "1 sheet scored again: file, cards, side or [set] changed since" in res.stderr
    rows = read_results(out)
    assert [r["modified"] for r in rows] == [rows[0]["modified"]] * 2  # the same time
    assert [r["size"] for r in rows] == [first.st_size, table.stat().st_size]
    res = run(*batch)
    assert "1 sheet already scored" in res.stderr and "scored again" not in res.stderr


def test_a_photos_row_without_a_size_stands_on_its_time():
    """A row of a version before the ``size`` column is not scored again for lack of
    it (its time still tells an edited photo); a row whose size differs is."""
    from app.batch import AUTO, Job, still_current
    from app.results import cards_text, file_facts

    photo = PHOTOS / "synth-2028-A-pencil-hatch-icon.jpg"
    deal = {"A": "the-cauldrons", "B": "greenbough", "C": "mages-valley", "D": "great-city"}
    row = {"set_by_hand": "", "side_given": AUTO, "cards": cards_text(deal)}
    row["modified"] = file_facts(photo)[0]
    job = Job(str(photo), cards=deal)
    assert still_current(row, job)
    assert still_current({**row, "size": photo.stat().st_size}, job)
    assert not still_current({**row, "size": photo.stat().st_size + 1}, job)
