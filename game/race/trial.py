"""Time trials: medals against the exact par, and the best run kept per track, rules and laps.

Medals (par is the fewest moves a lone car needs, from the exact solver):

- gold: par moves (or fewer, under the few rules the solver treats only nearly exactly);
- silver: at most ``par + ceil(par / 10)`` moves;
- bronze: at most ``par + ceil(par / 4)`` moves.

>>> medal_limits(43)
MedalLimits(gold=43, silver=48, bronze=54)
>>> [medal(m, 10) for m in (10, 11, 13, 14)]
['gold', 'silver', 'bronze', None]

The best run of each (track, rules, laps) is kept as an ordinary one-car replay file in
a folder passed in (:class:`TrialRecords`): the replay is the ghost of the next trial,
and the referee gives back its moves, so nothing else needs storing. Files are written
atomically; a file that cannot be read is set aside as ``<name>.broken`` (never lost)
before a new best takes its place.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from game.core.race import FINISHED
from game.core.rules import RuleSet
from game.race.replay import Replay, ReplayError, load_replay, save_replay

MEDALS = ("gold", "silver", "bronze")


@dataclass(frozen=True)
class MedalLimits:
    """The most moves each medal allows."""

    gold: int
    silver: int
    bronze: int

    def of(self, name: str) -> int:
        return getattr(self, name)


def medal_limits(par: int) -> MedalLimits:
    """The medal limits for a par (see the module docstring)."""
    if par < 1:
        raise ValueError(f"par must be 1 or more, not {par!r}")
    return MedalLimits(par, par + math.ceil(par / 10), par + math.ceil(par / 4))


def medal(moves: int | None, par: int | None) -> str | None:
    """The medal a finish in ``moves`` earns against ``par`` ("gold", "silver", "bronze"), or None.

    None when there is no par (the solver does not search those rules) or no finish.
    """
    if moves is None or par is None or par < 1:
        return None
    limits = medal_limits(par)
    for name in MEDALS:
        if moves <= limits.of(name):
            return name
    return None


def trial_key(track_ref: str, rules: RuleSet, laps: int) -> str:
    """What a best run is kept under: the track, every rule option and the laps."""
    # One driver, no handicap: the handicap kind remembered with the rules never splits a best run.
    options = json.dumps(rules.with_options(handicap="count").keyed_options(), sort_keys=True)
    return f"{track_ref} x{laps} {rules.name} {hashlib.sha256(options.encode()).hexdigest()[:10]}"


def trial_file_name(track_ref: str, rules: RuleSet, laps: int) -> str:
    """The replay file name of a best run: readable, and different for every key."""
    key = trial_key(track_ref, rules, laps)
    ref, _, rest = key.partition(" ")
    stem = Path(ref.rpartition("#")[0]).stem + "-" + ref.rpartition("#")[2] if "#" in ref else ref
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-.")[:48] or "track"
    digest = hashlib.sha256(key.encode()).hexdigest()[:10]
    return f"{slug}-x{laps}-{rules.name}-{digest}.toml"


@dataclass(frozen=True)
class BestRun:
    """A kept best run: its moves, who drove it, and the replay (the ghost)."""

    moves: int
    name: str
    replay: Replay
    path: Path

    @property
    def assist(self) -> str:
        """The assist the run was driven with ("" none; an old file without one: none)."""
        return self.replay.cars[0].assist


class TrialRecords:
    """Best time-trial runs, one replay file each in ``folder`` (created on the first save).

    ``referee(replay) -> (final_state, records)`` is passed in by the caller, which has
    the track loaded; it is how a kept run's moves and its ghost's phases are known.
    """

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)

    def path(self, track_ref: str, rules: RuleSet, laps: int) -> Path:
        return self.folder / trial_file_name(track_ref, rules, laps)

    def load(self, track_ref: str, rules: RuleSet, laps: int, referee) -> tuple[BestRun | None, list, str]:
        """The best run kept for this key, its phase records (the ghost) and a problem to show ("" if none).

        A file that is damaged, belongs to another key or whose moves the rules refuse is
        reported and treated as no best run (it stays on disk until a new best replaces it).
        """
        path = self.path(track_ref, rules, laps)
        if not path.is_file():
            return None, [], ""
        try:
            replay = load_replay(path)
            if (replay.track, replay.laps, replay.rules.options()) != (track_ref, laps, rules.options()) \
                    or len(replay.cars) != 1:
                return None, [], f"{path}: not the best run of this track, rules and laps (ignored)"
            final, records = referee(replay)
        except (ReplayError, ValueError) as error:  # RacetrackError subclasses are ValueErrors here
            return None, [], f"{path}: the kept best run cannot be used: {error}"
        car = final.cars[0]
        if car.status != FINISHED:
            return None, [], f"{path}: the kept best run does not finish (ignored)"
        return BestRun(car.moves, replay.cars[0].name, replay, path), list(records), ""

    def offer(self, replay: Replay, moves: int, best: BestRun | None) -> bool:
        """Keep ``replay`` (a finished one-car run of ``moves`` moves) if it beats ``best``; True when kept.

        Raises :class:`~game.race.replay.ReplayError` naming the file when it cannot be written.
        """
        if best is not None and best.moves <= moves:
            return False
        path = self.path(replay.track, replay.rules, replay.laps)
        self.folder.mkdir(parents=True, exist_ok=True)
        if path.exists() and best is None:
            _set_aside(path)  # a file we could not use: keep it beside, never overwrite it unseen
        save_replay(replay, path)
        return True


def _set_aside(path: Path) -> None:
    target = path.with_name(path.name + ".broken")
    k = 1
    while target.exists():
        k += 1
        target = path.with_name(f"{path.name}.broken{k}")
    try:
        os.replace(path, target)
    except OSError:
        pass
