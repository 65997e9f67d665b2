"""onnxruntime sessions for the scanner's models: the options and the missing-file check
in one place. Each caller keeps its sessions (one per process and model file, and for the
cell model per thread count); onnxruntime is imported on the first one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxruntime import InferenceSession


class ModelNotFound(FileNotFoundError):
    """A model file is missing (a broken install or checkout)."""


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
