"""The scanner's one way to open an ONNX model: options and the missing-file error."""

from pathlib import Path

import onnxruntime as ort
import pytest

from scanner.onnx_session import ModelNotFound, load_session

MODEL = Path(__file__).resolve().parent.parent / "models" / "context.onnx"


def test_a_session_runs_on_the_cpu_sequentially_with_the_threads_asked():
    sess = load_session(MODEL, 3, "sheet-context model")
    opts = sess.get_session_options()
    assert opts.intra_op_num_threads == 3 and opts.inter_op_num_threads == 1
    assert opts.execution_mode == ort.ExecutionMode.ORT_SEQUENTIAL
    assert sess.get_providers() == ["CPUExecutionProvider"]


def test_a_missing_file_is_named_in_a_file_not_found_error(tmp_path):
    missing = tmp_path / "none.onnx"
    with pytest.raises(ModelNotFound) as caught:
        load_session(missing, 1, "cell model")
    assert isinstance(caught.value, FileNotFoundError)
    assert str(caught.value) == f"cell model not found: {missing}"
