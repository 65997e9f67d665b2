"""``python -m models.train``'s arguments are checked before anything is rendered or trained."""

from __future__ import annotations

import pytest

from models import train


def test_a_folder_as_out_is_refused_at_once(tmp_path, capsys):
    """Given a folder, the export used to fail only after the whole training."""
    with pytest.raises(SystemExit) as stop:
        train.main(["--out", str(tmp_path), "--train-sheets", "1", "--steps", "1"])
    assert stop.value.code == 2
    assert "name the .onnx file to write" in capsys.readouterr().err
