"""The exceptions of qibase. Every one derives from :class:`Error`.

The extension raises them with ``(message, path)``; ``path`` is the file or
directory concerned, or ``None``.
"""

from typing import Optional


class Error(Exception):
    """Base of every qibase exception. ``path``: the file concerned, or ``None``."""

    def __init__(self, message: str = "", path: Optional[str] = None) -> None:
        super().__init__(message)
        self.path = path

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ParseError(Error, ValueError):
    """A malformed position or move, or a move that is not legal there."""


class IllegalPosition(ParseError):
    """A well-formed position that cannot occur (e.g. wrong material)."""


class UnknownGame(Error, ValueError):
    """An unknown game id, or a variant string with a bad key or value."""


class MissingTableError(Error, KeyError):
    """The tier of the position is not solved in the tablebase directory."""


class CorruptTableError(Error):
    """A damaged tier file, or one made for other rules or another format
    version. ``path`` names the file."""


class TablebaseIOError(Error, OSError):
    """The operating system failed to read a tier file (``path``)."""


class TablebaseNotFound(Error, FileNotFoundError):
    """``open_tablebase`` was given a directory that does not exist."""


class DirectoryLocked(Error, OSError):
    """Another process is writing the directory (``path``): a solve there
    waits for it to end. The message names that process."""


class InternalError(Error, RuntimeError):
    """A bug in qibase (a Rust panic), caught at the boundary."""


__all__ = [
    "Error",
    "ParseError",
    "IllegalPosition",
    "UnknownGame",
    "MissingTableError",
    "CorruptTableError",
    "TablebaseIOError",
    "TablebaseNotFound",
    "DirectoryLocked",
    "InternalError",
]
