"""Generated tracks checked by the solver: a code in, a fair, raceable track (and its pack text) out.

``game.tracks.generator`` draws candidates 0, 1, 2, ... for a code; this module runs the
checks on each in turn, and the code stands for the first candidate that passes them all
(the same one on every machine: the drawing and the solver are both exact):

- it validates as any pack track does, with a start grid of at least 8 places;
- par (a lone car, the track's laps and rules) lies in the size's range;
- every start place's par (``racetrack solve --slot``) is within 1 move of the best; the
  grid is then ordered by it, so slot 1 is a fastest place (a repair, not a rejection);
- at least two optimal lines from slot 1 part for 3 phases or more;
- the road is at least 3 squares wide all along the line a car must drive.

A code none of whose first :data:`MAX_ATTEMPTS` candidates passes is reported as a
generator bug (:class:`GenerationError`), never raced.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import numpy as np

from game.core.errors import RacetrackError
from game.core.rules import preset
from game.core.track import Track
from game.drivers.codes import FIN
from game.tracks.generator import (NEWEST, PAR_RANGES, Candidate, Spec, candidate, make_code, pack_document,
                                   parse_code, seeds_per_kind, track_id)
from game.tracks.pack import load_track_ref, pack_file_text, read_pack_text
from game.tracks.refs import is_generated_ref  # lives with the other reference rules; re-exported here

if TYPE_CHECKING:  # imported where a search runs: reading a replay of a pack track needs no solver
    from game.drivers.solver import Solver, SolverTable

#: Candidates tried for one code before it is given up as a generator bug.
MAX_ATTEMPTS = 40
#: Fewest start places, most moves between the best and the worst, phases two optimal lines part for.
MIN_SLOTS = 8
MAX_SPREAD = 1
MIN_PARTING = 3
MIN_WIDTH = 3.0
#: Optimal states kept per phase while looking for a second line (the best-parted ones).
_LINE_STATES = 48


class GenerationError(RacetrackError):
    """No track could be made for a code (a generator bug): reported, never raced."""


@dataclass
class Checks:
    """The checks' figures for one candidate; ``failed`` names the first check it failed (None: it passed)."""

    valid: bool = False
    slots: int = 0
    narrowest: float = 0.0
    par: int | None = None
    slot_pars: list[int] = field(default_factory=list)
    parting: int = 0
    failed: str | None = None

    @property
    def spread(self) -> int | None:
        return max(self.slot_pars) - min(self.slot_pars) if self.slot_pars else None

    def to_json(self) -> dict:
        return {"valid": self.valid, "slots": self.slots, "narrowest": round(self.narrowest, 2), "par": self.par,
                "slot_pars": list(self.slot_pars), "spread": self.spread, "parting": self.parting,
                "failed": self.failed}


@dataclass
class Generated:
    """A checked generated track: its ``code``, the ``track``, the pack ``text`` that makes it, the
    checks' figures, which candidate it is and why the ones before it were rejected."""

    code: str
    spec: Spec
    track: Track
    text: str
    checks: Checks
    attempt: int
    rejected: list[tuple[int, str]]
    seconds: float
    kind: str
    candidate: Candidate

    def to_json(self) -> dict:
        return {"code": self.code, "version": self.spec.version, "size": self.spec.size,
                "terrain": self.spec.terrain, "kind": self.kind, "laps": self.track.default_laps,
                "par": self.checks.par, "slot_pars": self.checks.slot_pars, "checks": self.checks.to_json(),
                "attempt": self.attempt, "rejected": [{"attempt": a, "why": w} for a, w in self.rejected],
                "seconds": round(self.seconds, 3)}


def spec_of(code_or_spec: str | Spec) -> Spec:
    """A spec from a typed code (raising :class:`game.tracks.generator.CodeError` for a bad one) or a spec."""
    return code_or_spec if isinstance(code_or_spec, Spec) else parse_code(code_or_spec, newest=NEWEST)


def generate(code_or_spec: str | Spec, *, solver: Solver | None = None,
             progress: Callable[[int, str], None] | None = None, max_attempts: int = MAX_ATTEMPTS,
             clock: Callable[[], float] = time.perf_counter) -> Generated:
    """The checked track of a code: the first of its candidates that passes every check.

    ``progress(attempt, what)`` hears each step (for a screen or a command's status line).
    Raises :class:`GenerationError` when no candidate passes (a generator bug).
    """
    # Lazy on purpose: the solver loads only when a track is generated (game.race.replay imports this module).
    from game.drivers.solver import Solver

    spec = spec_of(code_or_spec)
    code = make_code(spec)
    solver = solver or Solver(max_tables=1)
    began = clock()
    rejected: list[tuple[int, str]] = []
    for attempt in range(max_attempts):
        if progress is not None:
            progress(attempt, "drawing")
        found = candidate(spec, attempt)
        checks, track, text = check_candidate(found, solver, progress=progress)
        if checks.failed is None:
            return Generated(code, spec, track, text, checks, attempt, rejected, clock() - began, found.kind, found)
        rejected.append((attempt, checks.failed))
    last = f" The last: {rejected[-1][1]}" if rejected else ""
    raise GenerationError(f"track code {code}: none of its first {max_attempts} candidates passed the checks "
                          f"(a generator bug; please report the code).{last}")


def check_candidate(found: Candidate, solver: Solver, progress=None) -> tuple[Checks, Track | None, str]:
    """Run every check on one candidate; returns its figures, the checked track and its final pack text."""
    # Lazy on purpose, as in generate().
    from game.drivers.solver import SolverError

    checks = Checks()
    if found.problem:
        checks.failed = f"drawing: {found.problem}"
        return checks, None, ""
    code = found.code
    text = pack_file_text(pack_document(found))
    result = read_pack_text(text, file=f"gen:{code}")
    if result.errors or not result.tracks:
        checks.failed = f"validation: {result.errors[0].key}: {result.errors[0].message}" if result.errors \
            else "validation: no track"
        return checks, None, text
    checks.valid = True
    track = result.tracks[0]
    checks.slots = len(track.start_slots)
    if checks.slots < MIN_SLOTS:
        checks.failed = f"start grid: {checks.slots} places, fewer than {MIN_SLOTS}"
        return checks, None, text
    checks.narrowest = narrowest_road(track, found.centre_line())
    if checks.narrowest < MIN_WIDTH:
        checks.failed = f"road width: {checks.narrowest:.2f} squares somewhere on the line"
        return checks, None, text
    if progress is not None:
        progress(found.attempt, "solving")
    rules = preset(track.default_rules)
    try:
        table = solver.table(track, rules, track.default_laps)
    except SolverError as error:
        checks.failed = f"solver: {error}"
        return checks, None, text
    dist = table.dist
    slot_pars = [int(dist[int(sid)]) if dist[int(sid)] < table.inf else -1 for sid in table.start_ids]
    if min(slot_pars) < 0:
        checks.failed = "solver: a start place cannot reach the finish"
        return checks, None, text
    checks.par = min(slot_pars)
    lo, hi = PAR_RANGES[found.spec.size]
    # The grid ordered by par, fastest first (the drawing's order among equals): slot 1 is a best place.
    order = sorted(range(len(slot_pars)), key=lambda k: (slot_pars[k], k))
    checks.slot_pars = [slot_pars[k] for k in order]
    if not lo <= checks.par <= hi:
        checks.failed = f"par {checks.par} outside the {found.spec.size} range {lo}-{hi}"
        return checks, None, text
    if checks.spread > MAX_SPREAD:
        checks.failed = f"fairness: start places need {min(slot_pars)} to {max(slot_pars)} moves"
        return checks, None, text
    checks.parting = lines_parting(table, int(table.start_ids[order[0]]))
    if checks.parting < MIN_PARTING:
        checks.failed = f"room to race: optimal lines part for only {checks.parting} phases"
        return checks, None, text
    # The repair: the grid in that order and the par written in. Only these change, so the
    # validated track is kept with its start places reordered rather than read a second time
    # (tests read the final text back and compare).
    found.outline["start"] = [found.outline["start"][k] for k in order]
    text = pack_file_text(pack_document(found, par=checks.par))
    meta = dict(track.meta)
    meta["par"] = checks.par
    meta["source"] = dict(meta.get("source", {}), start=found.outline["start"])
    meta["generated"] = {"code": code, "checks": checks.to_json()}
    track = dataclasses.replace(track, start_slots=tuple(track.start_slots[k] for k in order), meta=meta)
    return checks, track, text


def narrowest_road(track: Track, line: list[tuple[float, float]]) -> float:
    """Twice the smallest distance from the drawn centre line to any border: the narrowest the road gets
    where a car must pass (only the stretch from the start to the finish counts on a sprint)."""
    rings = [np.asarray(r, dtype=float) for r in track.region.rings]
    a = np.concatenate([r for r in rings])
    b = np.concatenate([np.roll(r, -1, axis=0) for r in rings])
    pts = np.asarray(line, dtype=float)
    if not track.meta.get("circuit", True):
        # the sprint's ends are closed by a border across the road: only the stretch raced counts
        finish = np.asarray(track.finish.a) + np.asarray(track.finish.b)
        keep = np.linalg.norm(pts - finish / 2, axis=1)
        last = int(np.argmin(keep))
        pts = pts[4:last + 1]
    ab = b - a
    length2 = np.maximum((ab ** 2).sum(1), 1e-12)
    best = np.inf
    for lo in range(0, len(pts), 128):
        p = pts[lo:lo + 128, None, :]
        t = np.clip(((p - a) * ab).sum(2) / length2, 0.0, 1.0)
        d = np.sqrt((((a + t[..., None] * ab) - p) ** 2).sum(2))
        best = min(best, float(d.min()))
    return 2 * best


def lines_parting(table: SolverTable, start: int, enough: int = 8) -> int:
    """For how many phases in a row a second optimal line from ``start`` stands elsewhere than the first.

    The first line takes the first optimal move each time; every optimal line is then
    followed phase by phase (the :data:`_LINE_STATES` best-parted states a phase), counting
    the phases in a row where it stands on another node. Stops at ``enough``.
    """
    dist, inf = table.dist, table.inf

    def optimal(sid: int) -> list[int]:
        d = int(dist[sid])
        return sorted({code for _, code, cost in table.successors(sid)
                       if code != FIN and dist[code] < inf and cost + int(dist[code]) == d})

    total = int(dist[start])
    reference: dict[int, object] = {}
    sid = start
    while True:  # the first line: where it stands with each number of moves to go
        reference[int(dist[sid])] = table.where(sid)[0]
        nxt = optimal(sid)
        if not nxt:
            break
        sid = nxt[0]
    layers: dict[int, dict[int, int]] = {total: {start: 0}}
    best = 0
    for d in range(total, 0, -1):
        layer = layers.pop(d, None)
        if not layer:
            continue
        kept = sorted(layer.items(), key=lambda item: (-item[1], item[0]))[:_LINE_STATES]
        for sid, run in kept:
            for nxt in optimal(sid):
                d2 = int(dist[nxt])
                here = table.where(nxt)[0]
                run2 = run + 1 if reference.get(d2) is not None and here != reference[d2] else 0
                bucket = layers.setdefault(d2, {})
                if run2 > bucket.get(nxt, -1):
                    bucket[nxt] = run2
                best = max(best, run2)
                if best >= enough:
                    return best
    return best


def generate_many(spec: Spec, count: int, **kwargs) -> list[Generated]:
    """``count`` checked tracks from consecutive seeds, starting at ``spec``'s."""
    out = []
    for k in range(count):
        seed = (spec.seed + k) % seeds_per_kind()
        out.append(generate(Spec(spec.version, spec.size, spec.terrain, seed), **kwargs))
    return out


def load_track(ref: str, *, builtin_dir, solver: Solver | None = None) -> Track:
    """The track any reference names: ``gen:CODE`` (generated and checked here) or whatever
    :func:`game.tracks.pack.load_track_ref` reads (``PACK/TRACK``, ``pack.toml#TRACK``, ``.map``).

    A bad code raises :class:`game.tracks.generator.CodeError` saying which character is
    wrong or which version it needs; a code no track can be made for, :class:`GenerationError`.
    """
    if is_generated_ref(ref):
        return generate(ref, solver=solver).track

    return load_track_ref(ref, builtin_dir=builtin_dir)


__all__ = ["Checks", "GenerationError", "Generated", "check_candidate", "generate", "generate_many",
           "is_generated_ref", "load_track", "lines_parting", "narrowest_road", "spec_of", "track_id"]
