"""Errors a user can hit when scanning a photo.

Each carries the file it is about and says the problem in one line; the CLI
prints ``str(error)`` and nothing else.
"""

from __future__ import annotations


class ScanError(Exception):
    """Base of every error the scanner raises for bad input."""

    def __init__(self, source: str, problem: str) -> None:
        self.source = source
        self.problem = problem
        super().__init__(f"{source}: {problem}")


class NotAnImage(ScanError):
    """The file is missing, empty, truncated or not in an image format we read."""


class ImageTooLarge(ScanError):
    """The image has more pixels than we agree to decode (decompression bombs)."""


class SheetNotFound(ScanError):
    """No map sheet's grid could be located in the photo."""

    def __init__(self, source: str, problem: str, tried: object = None) -> None:
        super().__init__(source, problem)
        self.tried = tried  # what detection tried, for the debug overlay


class ClassifierUnavailable(ScanError):
    """The cell classifier is not available, so cells cannot be read."""
