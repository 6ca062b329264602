"""Exact values of Nine Men's Morris positions and its relatives, read from the tables
of `morris solve`. Positions use the notation of docs/rules.md:
"BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]", for example "........................ w 9 9".

Values are for the side to move, and a move's value is for the side that plays it, in
every call. Values order from worst to best for that side."""

import enum
from os import PathLike
from types import TracebackType
from typing import Iterable, List, Literal, Optional, Type, TypeVar, Union, overload

__version__: str

Result = Literal["win", "draw", "loss"]
_T = TypeVar("_T")

class MorrisError(Exception):
    """Every error of the package."""

class PositionError(MorrisError, ValueError):
    """A malformed or illegal position, or an illegal move; also a ValueError."""

class RulesError(MorrisError, ValueError):
    """An unknown rule set or option; also a ValueError."""

class TableMissingError(MorrisError, KeyError):
    """A table the position needs, or the directory, is not there; also a KeyError, as
    python-chess's MissingTableError. The get_* calls answer None instead."""

class TableError(MorrisError):
    """A table is damaged, truncated, of another format or of other rules."""

class ClosedError(MorrisError, ValueError):
    """A call on a Tablebase after close(); also a ValueError, as for a closed file."""

class Wdl(enum.IntEnum):
    """A result as an integer for the side to move, as python-chess's WDL."""

    LOSS = -1
    DRAW = 0
    WIN = 1

class Value:
    """An exact value for the side to move; prints as "win in 23", "draw", "loss in 4".

    Ordered from worst to best for the side to move: a loss (the sooner, the worse),
    a draw, a win (the sooner, the better). max() of moves' values is the best move's.
    Equal values are equal and hash alike."""

    @property
    def result(self) -> Result: ...
    @property
    def plies(self) -> Optional[int]:
        """Plies to the end under best play; None for a draw."""
    @property
    def wdl(self) -> Wdl:
        """The result as an integer: Wdl.WIN (1), Wdl.DRAW (0), Wdl.LOSS (-1)."""
    def __lt__(self, other: "Value", /) -> bool: ...
    def __le__(self, other: "Value", /) -> bool: ...
    def __gt__(self, other: "Value", /) -> bool: ...
    def __ge__(self, other: "Value", /) -> bool: ...

class Move:
    """A legal move, the position after it, and its value for the side that plays it
    (in moves(), best_move() and mainline() alike)."""

    @property
    def name(self) -> str:
        """The notation of docs/rules.md: "d1", "a7-d7", "d1xa7"."""
    @property
    def position(self) -> str: ...
    @property
    def value(self) -> Value: ...

class Position:
    """A position of a rule set's game (default "standard")."""

    def __init__(self, text: str, rules: str = "standard") -> None: ...
    @property
    def side_to_move(self) -> Literal["white", "black"]: ...
    def legal_moves(self) -> List[str]: ...
    def play(self, name: str) -> "Position": ...

AnyPosition = Union[str, Position]

class Tablebase:
    """A directory of tables of one rule set, opened lazily. Every probe is one table
    read, never a search; a table of other rules raises TableError.

    A context manager: the with block closes it, as close() does; calls after that
    raise ClosedError. A position that is neither a str nor a Position raises
    TypeError."""

    def __init__(self, path: Union[str, "PathLike[str]"], rules: str = "standard") -> None: ...
    @property
    def rules(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None:
        """Closes the tables' files; closing again does nothing."""
    def __enter__(self) -> "Tablebase": ...
    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], traceback: Optional[TracebackType]) -> bool: ...
    def probe(self, position: AnyPosition) -> Value: ...
    def probe_wdl(self, position: AnyPosition) -> Result: ...
    def probe_wdl_int(self, position: AnyPosition) -> Wdl: ...
    @overload
    def get(self, position: AnyPosition) -> Optional[Value]: ...
    @overload
    def get(self, position: AnyPosition, default: _T) -> Union[Value, _T]:
        """probe, or default (None) where a table is missing; a bad position raises."""
    @overload
    def get_wdl(self, position: AnyPosition) -> Optional[Result]: ...
    @overload
    def get_wdl(self, position: AnyPosition, default: _T) -> Union[Result, _T]: ...
    @overload
    def get_wdl_int(self, position: AnyPosition) -> Optional[Wdl]: ...
    @overload
    def get_wdl_int(self, position: AnyPosition, default: _T) -> Union[Wdl, _T]: ...
    @overload
    def probe_batch(self, positions: Iterable[AnyPosition], errors: Literal["raise"] = "raise") -> List[Value]:
        """probe of many positions on every core, the GIL released. errors="raise"
        raises the first failure in the list's order; errors="return" puts the
        exception probe() would raise in its place."""
    @overload
    def probe_batch(self, positions: Iterable[AnyPosition], errors: Literal["return"]) -> List[Union[Value, Exception]]: ...
    @overload
    def probe_wdl_batch(self, positions: Iterable[AnyPosition], errors: Literal["raise"] = "raise") -> List[Result]:
        """probe_wdl of many positions on every core, the GIL released; errors as in
        probe_batch."""
    @overload
    def probe_wdl_batch(self, positions: Iterable[AnyPosition], errors: Literal["return"]) -> List[Union[Result, Exception]]: ...
    def moves(self, position: AnyPosition) -> List[Move]:
        """Every legal move with its value for the side that plays it, best first."""
    def best_move(self, position: AnyPosition) -> Optional[Move]:
        """The best move, whose value is the position's; None when the game is over."""
    def mainline(self, position: AnyPosition) -> List[Move]:
        """Best moves to the end; each move's value is for the side that plays it, as
        in moves(): the value of the position before it."""
