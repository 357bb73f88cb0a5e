"""The outcome of a race as plain JSON data: what ``racetrack replay`` and ``racetrack sim`` print.

:func:`outcome_json` turns a race header (a :class:`~game.race.replay.Replay`, or
anything with ``track``, ``laps``, ``rules``, ``seed`` and ``cars`` of ``name`` and
``driver``), the final state and the phase records into a dict with a fixed key
order, so the same race always gives the same text (golden tests compare it).
:func:`outcome_table` is the short human-readable form.

Layout (see docs/replays.md)::

    {"track", "laps", "seed", "rules": {"preset", "options"}, "phases", "finished",
     "winners": [names], "cars": [{"name", "driver", "status", "rank", "moves",
     "laps_done", "position", "velocity"}], "events": [{"phase", "car", "kind",
     "detail", "point", "time"}]}
"""

from __future__ import annotations

from typing import Any, Iterable, Protocol, Sequence

from game.core.race import FINISHED, PhaseRecord, RaceState
from game.core.rules import RuleSet


class RaceHeader(Protocol):
    """What the report needs to know about a race beyond its states: a Replay has all of it."""

    track: str
    laps: int
    rules: RuleSet
    seed: int
    cars: Sequence[Any]  # each with .name and .driver


def finishers_in_order(state: RaceState) -> list[int]:
    """The cars that finished, best placed first (cars sharing a place in seat order).

    Track records are offered in this order, so a tie on moves goes to the car placed ahead.
    """
    ranks = state.outcome().ranks
    done = [i for i, car in enumerate(state.cars) if car.status == FINISHED]
    return sorted(done, key=lambda i: (ranks[i] if ranks[i] is not None else len(ranks), i))


def _point(point) -> list[float] | None:
    if point is None:
        return None
    return [_number(point[0]), _number(point[1])]


def _number(value: float) -> float | int:
    """Whole numbers as ints, so a node reads [3, 4] and not [3.0, 4.0]."""
    value = float(value)
    return int(value) if value.is_integer() else round(value, 6)


def outcome_json(header: RaceHeader, final_state: RaceState, records: Iterable[PhaseRecord]) -> dict[str, Any]:
    """The outcome of a race as a JSON-ready dict with a deterministic key order.

    ``cars[i].rank`` is the place (1 = winner, shared on a tie) or None for a car that
    did not finish; ``winners`` are the names ranked 1 (several mean a tie). Events
    come in phase order and, inside a phase, in the order the rules core reports them;
    each names its car by name.
    """
    names = [c.name for c in final_state.cars]
    drivers = [getattr(c, "driver", "human") for c in header.cars]
    outcome = final_state.outcome()
    cars = []
    for i, car in enumerate(final_state.cars):
        cars.append({
            "name": car.name,
            "driver": drivers[i] if i < len(drivers) else "human",
            "status": car.status,
            "rank": outcome.ranks[i],
            "moves": car.moves,
            "laps_done": car.laps_done,
            "position": [car.position.x, car.position.y],
            "velocity": [car.velocity.x, car.velocity.y],
        })
    events = []
    for record in records:
        for event in record.events:
            events.append({
                "phase": event.phase,
                "car": names[event.car],
                "kind": event.kind,
                "detail": event.detail,
                "point": _point(event.point),
                "time": _number(event.time),
            })
    return {
        "track": header.track,
        "laps": header.laps,
        "seed": header.seed,
        "rules": {"preset": header.rules.name, "options": header.rules.keyed_options()},
        "phases": final_state.phase,
        "finished": outcome.finished,
        "winners": [names[i] for i in outcome.winners],
        "cars": cars,
        "events": events,
    }


def dumps_outcome(outcome: dict[str, Any], width: int = 120) -> str:
    """The outcome as JSON text (the form golden files pin), ending in a newline.

    Indented, but any list or object that fits in ``width`` characters stays on one
    line, so each car and each event reads as one line and diffs stay small.
    """
    return _format(outcome, 0, width) + "\n"


def _format(value: Any, depth: int, width: int) -> str:
    import json  # here: ``racetrack replay`` prints its table without JSON unless asked for it

    flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if not isinstance(value, (list, dict)) or not value or 2 * depth + len(flat) <= width:
        return flat
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, list):
        items = [inner + _format(v, depth + 1, width) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_format(v, depth + 1, width)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}"


def outcome_table(outcome: dict[str, Any]) -> str:
    """A short human-readable summary: the race line, then one line per car by rank."""
    rules = outcome["rules"]
    state = "finished" if outcome["finished"] else "not finished"
    winners = ", ".join(outcome["winners"]) or "nobody yet"
    lines = [f"{outcome['track']}: {outcome['laps']} lap(s), {rules['preset']} rules, "
             f"{outcome['phases']} phases, {state}; won by {winners}"]
    order = sorted(range(len(outcome["cars"])),
                   key=lambda i: (outcome["cars"][i]["rank"] is None, outcome["cars"][i]["rank"] or 0, i))
    width = max(len(c["name"]) for c in outcome["cars"])
    lines.append(f"  {'#':>3}  {'car':<{width}}  {'driver':<13} {'status':<12} {'moves':>5} {'laps':>4}")
    for i in order:
        car = outcome["cars"][i]
        rank = "-" if car["rank"] is None else str(car["rank"])
        lines.append(f"  {rank:>3}  {car['name']:<{width}}  {car['driver']:<13} {car['status']:<12} "
                     f"{car['moves']:>5} {car['laps_done']:>4}")
    counts: dict[str, int] = {}
    for event in outcome["events"]:
        counts[event["kind"]] = counts.get(event["kind"], 0) + 1
    if counts:
        lines.append("  events: " + ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items())))
    return "\n".join(lines)
