"""Located problems in level packs and maps, and the one error type the track loaders raise.

Every problem knows where it is (file, line, track id, key) so a modder can go
straight to it; ``str(problem)`` gives ``file:line: [track "id"] key: what is wrong``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from game.core.errors import RacetrackError

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One thing wrong (``severity="error"``) or worth a look (``"warning"``) in a pack or map.

    ``line`` is 1-based in ``file`` (None when unknown); ``track`` is the track id and
    ``key`` the pack key (``"map"`` for a char map, ``"outline.finish"`` ...), each None
    when the problem is not about one. ``cup`` is the id of the ``[[cup]]`` table a
    problem is in (None for tracks and the pack itself).
    """

    file: str | None
    line: int | None
    track: str | None
    key: str | None
    message: str
    severity: str = ERROR
    cup: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def moved(self, *, file: str | None = None, line_offset: int = 0, track: str | None = None) -> Problem:
        """The same problem placed inside a bigger file (a map string inside a pack, say)."""
        return replace(
            self,
            file=self.file if file is None else file,
            line=None if self.line is None else self.line + line_offset,
            track=self.track if track is None else track,
        )

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = f"{self.file}:{self.line}: " if self.line is not None else f"{self.file}: "
        elif self.line is not None:
            where = f"line {self.line}: "
        track = f'[track "{self.track}"] ' if self.track is not None else ""
        if self.cup is not None:
            track += f'[cup "{self.cup}"] '
        key = f"{self.key}: " if self.key else ""
        label = "warning: " if self.severity == WARNING else ""
        return f"{where}{track}{key}{label}{self.message}"


class TrackError(RacetrackError, ValueError):
    """A track, map or pack that cannot be used; ``problems`` lists every error found (and warnings)."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(problems)
        errors = [p for p in self.problems if p.is_error] or list(self.problems)
        text = "\n".join(str(p) for p in errors) or "invalid track"
        super().__init__(text)

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.is_error)


def errors_in(problems: Iterable[Problem]) -> list[Problem]:
    """Only the errors of a list of problems."""
    return [p for p in problems if p.is_error]
