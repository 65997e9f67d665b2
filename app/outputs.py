"""Checks on the files a command will write (``--overlay``, ``--out``, ``--html``), made
before any input is read, so that a bad name fails at once in one line."""

from __future__ import annotations

import os
from pathlib import Path


def output_path_problem(path: str | Path, example: str) -> str | None:
    """Why a file cannot be written at ``path`` (a folder there, a missing folder, no
    permission), or None. ``example`` is a file name to suggest instead of a folder."""
    path = Path(path)
    if path.is_dir():
        return f"is a folder: give a file name such as {example}"
    folder = path.parent
    if not folder.is_dir():
        return f"folder {folder} does not exist"
    if not os.access(path if path.exists() else folder, os.W_OK):
        return "cannot write there (permission denied)"
    return None
