"""Exact values of Nine Men's Morris positions and its relatives, read from the tables
of `morris solve`. Positions use the notation of docs/rules.md:
"BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]", for example "........................ w 9 9"."""

from os import PathLike
from typing import List, Literal, Optional, Union

__version__: str

Result = Literal["win", "draw", "loss"]

class MorrisError(Exception):
    """Every error of the package."""

class PositionError(MorrisError):
    """A malformed or illegal position, or an illegal move."""

class RulesError(MorrisError):
    """An unknown rule set or option."""

class TableMissingError(MorrisError):
    """A table the position needs is not in the directory."""

class TableError(MorrisError):
    """A table is damaged, truncated, of another format or of other rules."""

class Value:
    """An exact value for the side to move; prints as "win in 23", "draw", "loss in 4"."""

    @property
    def result(self) -> Result: ...
    @property
    def plies(self) -> Optional[int]:
        """Plies to the end under best play; None for a draw."""

class Move:
    """A legal move, the position after it, and its value for the side that plays it."""

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
    read, never a search; a table of other rules raises TableError."""

    def __init__(self, path: Union[str, "PathLike[str]"], rules: str = "standard") -> None: ...
    @property
    def rules(self) -> str: ...
    def probe(self, position: AnyPosition) -> Value: ...
    def probe_wdl(self, position: AnyPosition) -> Result: ...
    def probe_batch(self, positions: List[str]) -> List[Value]:
        """probe of many positions on every core, the GIL released."""
    def probe_wdl_batch(self, positions: List[str]) -> List[Result]:
        """probe_wdl of many positions on every core, the GIL released."""
    def moves(self, position: AnyPosition) -> List[Move]:
        """Every legal move with its value for the side that plays it, best first."""
    def best_move(self, position: AnyPosition) -> Optional[Move]: ...
    def mainline(self, position: AnyPosition) -> List[Move]:
        """Best moves to the end; each move's value is that of the position after it,
        for its side to move."""
