"""qibase: exact solutions of small traditional Chinese board games.

Games and their rules (:class:`Game`), the solved tablebases
(:func:`open_tablebase`, values as :class:`Value` objects or numpy arrays)
and the solver (:func:`solve`). Positions and moves are strings in the
notation of the project's ``docs/rules.md``.

>>> import qibase
>>> g = qibase.Game("weiming")
>>> with qibase.open_tablebase("tablebases") as tb:
...     print(tb.probe(g, g.start))
draw
"""

from . import _errors
from ._errors import (
    CorruptTableError,
    DirectoryLocked,
    Error,
    IllegalPosition,
    InternalError,
    MissingTableError,
    ParseError,
    TablebaseIOError,
    TablebaseNotFound,
    UnknownGame,
)
from ._qibase import (
    Game,
    GameEnd,
    MoveValue,
    Tablebase,
    TierInfo,
    Value,
    games,
    open_tablebase,
    solve,
)

WIN = 1
DRAW = 0
LOSS = -1

__all__ = [
    "Game",
    "GameEnd",
    "MoveValue",
    "Tablebase",
    "TierInfo",
    "Value",
    "games",
    "open_tablebase",
    "solve",
    "WIN",
    "DRAW",
    "LOSS",
]
__all__ += _errors.__all__
