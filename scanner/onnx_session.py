"""onnxruntime sessions for the scanner's models: the options, the missing-file check and
the one cache of sessions (one per process, model file and thread count) in one place;
onnxruntime is imported on the first one."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxruntime import InferenceSession


#: The sessions built so far, by model file and thread count (:func:`cached_session`).
_sessions: dict[tuple[str, int], InferenceSession] = {}
#: Held while a session is looked up or built: a thread asking for a session another
#: thread is building (``warm_up``'s, say) waits for it rather than building its own.
_building = threading.Lock()


class ModelNotFound(FileNotFoundError):
    """A model file is missing (a broken install or checkout)."""


def cached_session(path: Path, threads: int, what: str) -> InferenceSession:
    """:func:`load_session`'s session for ``path`` and ``threads``, built on the first call
    in this process and kept (a missing file is looked for again on the next call); one
    thread at a time, so a session is never built twice."""
    key = (str(path), threads)
    with _building:
        if key not in _sessions:
            _sessions[key] = load_session(path, threads, what)
        return _sessions[key]


def load_session(path: Path, threads: int, what: str) -> InferenceSession:
    """A CPU session for the ONNX model at ``path``, run sequentially with ``threads``
    threads per operator (0 lets onnxruntime choose).

    Raises :class:`ModelNotFound` ("``what`` not found: ``path``") when the file is missing.
    """
    import onnxruntime as ort

    if not path.is_file():  # a broken install: the scanner reports it in one line
        raise ModelNotFound(f"{what} not found: {path}")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
