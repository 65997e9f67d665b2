"""benchmarks/measure_scanner.py: each photo is also read as the report reads it, so the
coin figures can say which wrong counts the report's coin notes leave unflagged."""

from benchmarks.measure_scanner import measure_one, report


def test_a_wrong_count_the_report_doubts_is_not_counted_as_silent(tmp_path, capsys):
    row = measure_one((str(tmp_path), 5000, "clean"))
    assert row["found"] and row["coins_ok"]
    assert row["report_coin_confidence"] <= row["coin_confidence"]  # notes only doubt
    # The same photo as if its count were wrong: sure for the scanner, doubted by a note.
    wrong = {**row, "coins_ok": False, "coin_confidence": 0.9, "report_coin_confidence": 0.45}
    report("clean", [row, wrong], show_failures=False)
    out = capsys.readouterr().out
    assert "coins wrong 1, of them not flagged (confidence >= 0.5): 1;" in out
    assert "with the report's coin notes: wrong and not flagged 0; right but flagged 0" in out
