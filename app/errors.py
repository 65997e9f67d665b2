"""An input that cannot be scored, told in one line naming it: ``score``, ``read`` and
``batch`` (its results row) say it alike."""

from __future__ import annotations

from scanner.errors import ScanError

#: What a bad input raises: the scanner's errors, a file that cannot be read, and the
#: ValueErrors (a map file's ``BadMapFile``, an unknown card, a ``--set`` on a printed
#: space, no cards). Anything else is an internal error.
INPUT_ERRORS: tuple[type[BaseException], ...] = (ScanError, ValueError, OSError)


def one_line(err: BaseException) -> str:
    """The error's message on one line (its type's name when it has none)."""
    return " ".join(str(err).split()) or type(err).__name__


def with_source(source: str, message: str) -> str:
    """``message`` naming ``source`` first: as it is when it already starts with it."""
    return message if message.startswith(source) else f"{source}: {message}"
