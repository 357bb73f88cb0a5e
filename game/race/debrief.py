"""The debrief of a race: where each car lost moves, counted exactly by the solver.

For every car and every phase it raced, the debrief reads the solver's table (the one
the CPUs use) for the car's *remaining moves*: the fewest moves it would still need to
finish from its position, velocity, laps and checkpoints if it drove alone from then on
(plus the turns it must still miss; 0 once it has finished). A phase then *loses*
``1 + remaining(after) - remaining(before)`` moves: 0 on an optimal move, more on a
slower line, a crash, a spin, a block or a penalty (the cause is named from the phase's
events). The losses telescope: for a car that finished, they add up to its moves minus
the remaining moves of its own start place (its start place's par).

Above the per-phase figures the debrief names the *move of the race* (the largest
single gain against the field: the other racing cars' mean loss in that phase minus the
car's own) and each car's *costliest mistake* (its largest single loss, the first of
equal ones), and can draw the *better line* from any lost move (the Champion's line from
the state the car was in).

Pure: no pygame, no clock. :func:`debrief_replay` takes a replay, its track and a
solver (a replay whose track changed since it was recorded is refused with a
:class:`DebriefError`, see ``Replay.track_checksum``); :func:`debrief_race` takes the
states and phase records of a race already played (the results screen).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from game.core.errors import RacetrackError
from game.core.race import FINISHED, EventKind, PhaseRecord, RaceState
from game.core.vec import ZERO, Vec
from game.drivers.lone import remaining, table_remaining  # noqa: F401 - table_remaining: the debrief's API too

#: Why a phase lost moves, in the words the table, the JSON and the screen use.
CAUSES = ("line", "crash", "spin", "block", "penalty", "terrain", "retired", "out")


class DebriefError(RacetrackError, ValueError):
    """No debrief for this race: the message names the replay file and the reason (a changed track...)."""


@dataclass(frozen=True)
class PhaseLoss:
    """One car in one phase it raced.

    ``before``/``after``: its remaining moves before and after the phase (None: it
    cannot finish from there, or is out of the race); ``loss`` is ``1 + after - before``
    (None when either is unknown); ``cause`` is one of :data:`CAUSES` when moves were
    lost (``""`` otherwise), ``detail`` the event's words; ``point`` where it happened
    (the crash point, else where the car ended the phase); ``start`` and ``velocity``
    the car's state before the phase (for the better line).
    """

    phase: int
    before: int | None
    after: int | None
    loss: int | None
    cause: str = ""
    detail: str = ""
    point: tuple[float, float] = (0.0, 0.0)
    start: Vec = ZERO
    velocity: Vec = ZERO


@dataclass(frozen=True)
class CarDebrief:
    """One car's race against the solver.

    ``start_par``: the remaining moves of its start place (its own par); ``moves``: the
    moves it drove (None unless it finished); ``remaining[k]``: its remaining moves after
    ``k`` phases (None once out, or where it cannot finish); ``phases``: a
    :class:`PhaseLoss` for every phase it raced.
    """

    car: int
    name: str
    driver: str
    status: str
    start_par: int | None
    moves: int | None
    remaining: tuple[int | None, ...]
    phases: tuple[PhaseLoss, ...]

    @property
    def lost(self) -> int:
        """Moves lost in all (the phases whose loss is known)."""
        return sum(p.loss for p in self.phases if p.loss)

    @property
    def over_par(self) -> int | None:
        """Moves over its start place's par (None unless it finished)."""
        if self.moves is None or self.start_par is None:
            return None
        return self.moves - self.start_par

    @property
    def costliest(self) -> PhaseLoss | None:
        """Its largest single loss (the first of equal ones), None on a race without one."""
        lossy = [p for p in self.phases if p.loss]
        return max(lossy, key=lambda p: (p.loss, -p.phase)) if lossy else None


@dataclass(frozen=True)
class MoveOfRace:
    """The largest single gain against the field: ``gain`` moves on the other racing cars' mean loss."""

    car: int
    name: str
    phase: int
    gain: float
    point: tuple[float, float]


@dataclass(frozen=True)
class Debrief:
    """A whole race's debrief (see the module's docstring); ``to_json`` gives the CLI's JSON."""

    track: str
    laps: int
    rules: str
    par: int | None
    phases: int
    cars: tuple[CarDebrief, ...]
    move_of_race: MoveOfRace | None
    exact: bool = True
    note: str = ""
    lines: dict = field(default_factory=dict, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data with a fixed key order: every car's per-phase remaining moves and losses."""
        best = self.move_of_race
        return {
            "track": self.track, "laps": self.laps, "rules": self.rules, "par": self.par, "phases": self.phases,
            "exact": self.exact, "note": self.note,
            "move_of_the_race": None if best is None else {
                "car": best.name, "phase": best.phase, "gain": round(best.gain, 3), "point": list(best.point)},
            "cars": [{
                "name": c.name, "driver": c.driver, "status": c.status, "start_par": c.start_par, "moves": c.moves,
                "over_par": c.over_par, "lost": c.lost,
                "costliest": None if c.costliest is None else {
                    "phase": c.costliest.phase, "loss": c.costliest.loss, "cause": c.costliest.cause,
                    "detail": c.costliest.detail},
                "remaining": list(c.remaining),
                "phases": [{"phase": p.phase, "before": p.before, "after": p.after, "loss": p.loss,
                            "cause": p.cause, "detail": p.detail, "point": [p.point[0], p.point[1]]}
                           for p in c.phases],
            } for c in self.cars],
        }


# -- remaining moves ---------------------------------------------------------------
# -- one race -------------------------------------------------------------------------
def debrief_race(table, states: Sequence[RaceState], records: Sequence[PhaseRecord],
                 drivers: Sequence[str] = (), *, track_name: str = "", lines: bool = True) -> Debrief:
    """The debrief of a race from its states (``states[k]``: after ``k`` phases) and phase records.

    ``table`` is the solver's table for the race's track, rules and laps
    (``Solver.table(state.track, state.rules, state.laps)``); ``drivers`` the cars' driver
    kinds, for the report. ``lines`` keeps the better line of every phase that lost moves
    (``Debrief.lines[(car, phase)]``, for the screen).
    """
    if len(states) != len(records) + 1:
        raise ValueError(f"{len(states)} states for {len(records)} phases: need one more state than phases")
    start = states[0]
    n = len(start.cars)
    rem = [[remaining(table, s, i) for i in range(n)] for s in states]
    cars = []
    kept: dict = {}
    for i in range(n):
        phases = []
        for k, record in enumerate(records):
            before_state = states[k]
            c = before_state.cars[i]
            if not c.racing:
                continue
            before, after = rem[k][i], rem[k + 1][i]
            loss = None if before is None or after is None else 1 + after - before
            cause, detail, point = _cause(table, before_state, record, i, loss, states[k + 1])
            phase = PhaseLoss(record.phase, before, after, loss, cause, detail, point, c.position, c.velocity)
            phases.append(phase)
            if lines and loss:
                line = better_line(table, before_state, i)
                if line:
                    kept[(i, record.phase)] = line
        final = states[-1].cars[i]
        cars.append(CarDebrief(
            car=i, name=final.name, driver=drivers[i] if i < len(drivers) else "human", status=str(final.status),
            start_par=rem[0][i], moves=final.moves if final.status == FINISHED else None,
            remaining=tuple(rem[k][i] for k in range(len(states))), phases=tuple(phases)))
    exact = bool(getattr(table, "exact", True))
    return Debrief(track=track_name or start.track.name, laps=start.laps, rules=start.rules.name,
                   par=min((r for r in rem[0] if r is not None), default=None), phases=len(records),
                   cars=tuple(cars), move_of_race=_move_of_race(cars), exact=exact,
                   note=str(getattr(table, "note", "") or ""), lines=kept)


def _cause(table, state: RaceState, record: PhaseRecord, car: int, loss: int | None,
           after: RaceState) -> tuple[str, str, tuple[float, float]]:
    """Why ``car`` lost moves in ``record``'s phase: (cause, the event's words, where)."""
    move = next((m for m in record.moves if m.car == car), None)
    end = after.cars[car].position
    point = move.crash_point if move is not None and move.crash_point is not None else (float(end.x), float(end.y))
    events = [e for e in record.events if e.car == car]
    kinds = {e.kind for e in events}
    status = after.cars[car].status
    if move is not None and move.retired:
        return "retired", events[0].detail if events else "retires", point
    if not after.cars[car].racing and status != FINISHED:
        words = next((e.detail for e in events if e.kind in (EventKind.PENALTY, EventKind.DISQUALIFIED)), str(status))
        return "out", words, point
    if not loss:
        return "", "", point
    if EventKind.OFF_TRACK in kinds:
        words = "; ".join(e.detail for e in events if e.kind in (EventKind.OFF_TRACK, EventKind.PENALTY))
        return "crash", words, point
    if EventKind.COLLISION in kinds:
        hit = next(e for e in events if e.kind == EventKind.COLLISION)
        return "spin", hit.detail, hit.point or point
    if EventKind.PENALTY in kinds:
        return "penalty", next(e.detail for e in events if e.kind == EventKind.PENALTY), point
    blocked = _blocked_by(table, state, record, car)
    if blocked:
        return "block", blocked, point
    if EventKind.TERRAIN in kinds:
        return "terrain", next(e.detail for e in events if e.kind == EventKind.TERRAIN), point
    return "line", "a slower line", point


def _blocked_by(table, state: RaceState, record: PhaseRecord, car: int) -> str:
    """The words of the block that kept ``car`` off every best target this phase ("" if none did)."""
    c = state.cars[car]
    if not state.rules.blocking or c.skip:
        return ""
    sid = table.state_id(c.position, c.velocity, c.progress)
    if sid < 0:
        return ""
    values = table.move_values(sid)
    if not values:
        return ""
    best = min(values.values())
    base = state.base_point(car)
    ahead = record.order[:record.order.index(car)] if car in record.order else ()
    committed = {j: record.choices[j] for j in ahead if j in record.choices}
    reasons = {cand.node: cand.reason for cand in state.candidates(car, committed, order=record.order)}
    best_nodes = [base + step for step, v in values.items() if v == best]
    if best_nodes and all((reasons.get(node) or "").startswith("blocked") for node in best_nodes):
        return reasons[best_nodes[0]]
    return ""


def better_line(table, state: RaceState, car: int) -> list[Vec]:
    """The Champion's line for ``car`` from ``state`` driving alone: its nodes, first where it stands ([] if none)."""
    c = state.cars[car]
    if not c.racing or c.on_paper:
        return []
    sid = table.state_id(c.position, ZERO if c.skip else c.velocity, c.progress)
    if sid < 0 or table.to_go(sid) is None:
        return []
    return list(table.path_from(sid))


def _move_of_race(cars: Sequence[CarDebrief]) -> MoveOfRace | None:
    """The largest single gain against the field (the first of equal ones); None without a gain."""
    by_phase: dict[int, dict[int, PhaseLoss]] = {}
    for c in cars:
        for p in c.phases:
            if p.loss is not None:
                by_phase.setdefault(p.phase, {})[c.car] = p
    best: MoveOfRace | None = None
    for phase in sorted(by_phase):
        losses = by_phase[phase]
        for car, p in losses.items():
            others = [q.loss for j, q in losses.items() if j != car]
            if not others:
                continue
            gain = sum(others) / len(others) - p.loss
            if gain > 0 and (best is None or gain > best.gain + 1e-9):
                best = MoveOfRace(car, cars[car].name, phase, gain, p.point)
    return best


# -- a replay ---------------------------------------------------------------------------
def same_track(replay, track):
    """The replay's first state on ``track``; raises :class:`DebriefError` (naming the file and
    ``track_checksum``) when the track has changed since the race was recorded, so no debrief
    of it is ever worked out from the wrong road."""
    from game.race.referee import start_state
    from game.race.replay import track_checksum

    start = start_state(replay, track)
    if replay.track_checksum is not None and replay.track_checksum != track_checksum(start.track):
        raise DebriefError(f"{replay.source or 'replay'}: track_checksum: the track {replay.track!r} has changed "
                           "since this race was recorded, so its numbers would be wrong: no debrief")
    return start


def debrief_replay(replay, track, solver, progress: Callable[[float, str], None] | None = None) -> Debrief:
    """The debrief of a replay on its track, with ``solver``'s table (``game.drivers.solver.Solver``).

    Raises :class:`DebriefError` when the track has changed since the replay was recorded
    (its ``track_checksum`` differs), or when the solver does not search the replay's
    rules (fine paper, pen flick); the referee's own errors for a replay that breaks the rules.
    """
    # Lazy on purpose: the solver (and the referee's numpy) load only when a replay is debriefed.
    from game.drivers.solver import SolverError, supports
    from game.race.referee import referee

    where = replay.source or "replay"
    start = same_track(replay, track)
    if not supports(replay.rules):
        raise DebriefError(f"{where}: rules.movement: the solver does not search {replay.rules.movement!r} "
                           "movement, so there is no exact debrief for this race")
    result = referee(replay, track)
    try:
        table = solver.table(start.track, start.rules, start.laps, progress)
    except SolverError as error:
        raise DebriefError(f"{where}: track: no debrief: {error}") from None
    return debrief_race(table, result.states, result.records, [c.driver for c in replay.cars],
                        track_name=replay.track)


# -- words -----------------------------------------------------------------------------
def describe_loss(p: PhaseLoss) -> str:
    """One lost phase in words: "phase 12: 3 moves lost (crash: Ada leaves the road)"."""
    moves = "move" if p.loss == 1 else "moves"
    what = p.detail or p.cause
    return f"phase {p.phase}: {p.loss} {moves} lost ({p.cause}{': ' + what if what and what != p.cause else ''})"


def describe_best(best: MoveOfRace | None) -> str:
    """The move of the race in words."""
    if best is None:
        return "Move of the race: none (nobody gained a move on the field in one phase)"
    gain = f"{best.gain:.1f}".rstrip("0").rstrip(".")
    moves = "move" if gain == "1" else "moves"
    return f"Move of the race: {best.name}, phase {best.phase}, {gain} {moves} gained on the field"


def debrief_table(debrief: Debrief) -> str:
    """The debrief as text: a line per car (par of its start place, moves, over par, lost), the
    move of the race, each car's costliest mistake, then every car's remaining moves and losses by phase."""
    rows = [f"Debrief: {debrief.track} · {debrief.rules} · {debrief.laps} lap{'s' if debrief.laps != 1 else ''}"
            f" · par {debrief.par if debrief.par is not None else '-'}"]
    if not debrief.exact and debrief.note:
        rows.append(f"(not exact: {debrief.note})")
    width = max([len(c.name) for c in debrief.cars] + [4])
    rows.append(f"{'car':<{width}}  {'start par':>9}  {'moves':>5}  {'over':>4}  {'lost':>4}  status")
    for c in debrief.cars:
        par = "-" if c.start_par is None else str(c.start_par)
        moves = "-" if c.moves is None else str(c.moves)
        over = "-" if c.over_par is None else f"+{c.over_par}" if c.over_par > 0 else str(c.over_par)
        rows.append(f"{c.name:<{width}}  {par:>9}  {moves:>5}  {over:>4}  {c.lost:>4}  {c.status}")
    rows.append("")
    rows.append(describe_best(debrief.move_of_race))
    for c in debrief.cars:
        worst = c.costliest
        rows.append(f"Costliest mistake of {c.name}: " + ("none: every move optimal" if worst is None
                                                          else describe_loss(worst)))
    rows.append("")
    rows.append("Remaining moves after each phase (loss in brackets where moves were lost):")
    for c in debrief.cars:
        by_phase = {p.phase: p for p in c.phases}
        cells = [str(c.start_par if c.start_par is not None else "-")]
        for k in range(1, debrief.phases + 1):
            p = by_phase.get(k)
            if p is None:
                continue
            cell = "-" if p.after is None else str(p.after)
            if p.loss:
                cell += f"({'+' if p.loss > 0 else ''}{p.loss})"
            cells.append(cell)
        rows.append(f"{c.name:<{width}}  " + " ".join(cells))
    return "\n".join(rows)


__all__ = ["CAUSES", "CarDebrief", "Debrief", "DebriefError", "MoveOfRace", "PhaseLoss", "better_line", "same_track",
           "debrief_race", "debrief_replay", "debrief_table", "describe_best", "describe_loss", "remaining",
           "table_remaining"]
