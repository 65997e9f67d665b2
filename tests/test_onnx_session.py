"""The scanner's one way to open an ONNX model: options, the missing-file error, and the
one cache of sessions shared by threads."""

import threading
import time
from pathlib import Path

import onnxruntime as ort
import pytest

from scanner import onnx_session
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


def test_two_threads_asking_for_one_session_build_it_once(monkeypatch):
    """The printed-terrain check may ask for the cell model's session in the calling thread
    while ``warm_up`` builds it in the second: the one built is shared, not built twice."""
    built = []

    def slow_load(path, threads, what):
        built.append(path)
        time.sleep(0.2)  # long enough for the other thread to ask meanwhile
        return object()

    monkeypatch.setattr(onnx_session, "_sessions", {})
    monkeypatch.setattr(onnx_session, "load_session", slow_load)
    got = []
    workers = [
        threading.Thread(
            target=lambda: got.append(onnx_session.cached_session(Path("m.onnx"), 1, "model"))
        )
        for _ in range(2)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=10)
    assert len(built) == 1
    assert len(got) == 2 and got[0] is got[1]
