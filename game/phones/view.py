"""What a phone is shown: pure builders of the messages the game sends each phone.

A race view is the car's neighbourhood of the track (road nodes in a window around the
car and its targets), every car in that window, and the car's own targets with what
each would do (``legal``, ``offroad``, ``doomed``, ``blocked``), plus the line the
phone's top bar reads. The presentation layer passes in what only it knows (the pens'
colours, places, the doomed marks), so nothing here draws or reads a clock.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

#: The window around the car: at least this many nodes each side, at most :data:`MAX_REACH`.
MIN_REACH, MAX_REACH = 5, 20


def target_status(candidate, doomed: frozenset) -> str:
    """One word for what picking a target does, in the phone's colours."""
    if not candidate.legal:
        return "blocked"
    if candidate.key in doomed:
        return "doomed"
    return "offroad" if candidate.offroad else "legal"


def race_view(state, car: int, *, candidates: Sequence, doomed: frozenset = frozenset(), aim=None,
              chosen: bool = False, turn: bool = False, colours: Sequence[str] = (), place: int = 0,
              message: str = "", flick: dict | None = None) -> dict:
    """The message for ``car``'s phone: its window of the track, the cars in it, its targets
    (only while it is the car's turn; ``aim`` is the target it has aimed at, a layout key).

    ``flick`` (the pen-flick party mode, :func:`flick_view`): the phone aims and times a meter
    instead of tapping rings; the targets are then where a flick may land."""
    me = state.cars[car]
    base = state.base_point(car)
    nodes = [me.position, base] + [c.node for c in candidates]
    reach = max(MIN_REACH, min(MAX_REACH, 2 + max(max(abs(n.x - base.x), abs(n.y - base.y)) for n in nodes)))
    x0, y0, size = base.x - reach, base.y - reach, 2 * reach + 1
    road = state.track.region.road_nodes()
    height, width = road.shape
    window = np.zeros((size, size), dtype=np.uint8)
    top, left, bottom, right = max(0, y0), max(0, x0), min(height, y0 + size), min(width, x0 + size)
    if top < bottom and left < right:
        window[top - y0:bottom - y0, left - x0:right - x0] = road[top:bottom, left:right]
    rows = [(window + ord("0")).tobytes().decode("ascii")]
    cars = [{"x": c.position.x, "y": c.position.y, "c": colours[i] if i < len(colours) else "#555",
             "me": i == car}
            for i, c in enumerate(state.cars)
            if c.racing and abs(c.position.x - base.x) <= reach and abs(c.position.y - base.y) <= reach]
    targets = [{"k": [c.key.x, c.key.y], "x": c.node.x, "y": c.node.y, "s": target_status(c, doomed)}
               for c in candidates]
    speed = math.hypot(me.velocity.x, me.velocity.y) / max(1, state.track.scale)
    finish = state.track.finish
    if finish.is_line:
        line = {"line": [float(v) for v in (*finish.a, *finish.b)]}
    else:
        line = {"cells": [[x, y] for x, y in sorted(finish.cells)
                          if abs(x - base.x) <= reach and abs(y - base.y) <= reach]}
    return {"t": "race", "phase": state.phase, "turn": bool(turn and candidates), "chosen": chosen,
            "aim": [aim.x, aim.y] if aim is not None and turn else None,
            "base": [base.x, base.y],
            "grid": {"x0": x0, "y0": y0, "w": size, "h": size, "road": "".join(rows)},
            "cars": cars, "targets": targets if turn else [], "finish": line,
            "me": {"name": me.name, "colour": colours[car] if car < len(colours) else "#555",
                   "pos": [me.position.x, me.position.y], "speed": f"{speed:.1f}".removesuffix(".0"),
                   "lap": min(state.laps, me.laps_done + 1), "laps": state.laps, "place": place,
                   "of": len(state.cars), "status": str(me.status)},
            "msg": message, "flick": flick}


def flick_view(state, car: int, reach: float, period: float) -> dict:
    """What a phone needs to flick: the reach (squares), the meter's period (seconds, the
    TV's), and the angle its aim starts at (degrees; along the car's motion, or the track's
    forward direction at rest, as on the TV)."""
    v = state.cars[car].velocity
    fx, fy = state.track.forward
    angle = math.atan2(v.y, v.x) if (v.x or v.y) else math.atan2(fy, fx)
    return {"reach": reach, "period": period, "angle": round(math.degrees(angle), 1)}


def lobby_view(seats: Sequence, mine: int | None, colours: Sequence[str], colour_names: Sequence[str]) -> dict:
    """The message for a phone waiting in the lobby: who sits, which colours are free, which is its own.

    ``seats`` are ``(name, colour index)`` pairs of every seat; ``mine`` the phone's colour.
    """
    taken = {colour for _, colour in seats}
    return {"t": "lobby", "seats": [{"name": name, "colour": colours[c]} for name, c in seats],
            "free": [k for k in range(len(colours)) if k not in taken], "mine": mine,
            "colours": list(colours), "names": list(colour_names)}


def ask_view(question: str, detail: str = "", yes: str = "", no: str = "") -> dict:
    """A question over the phone's page while the TV asks it: the race paused (``yes`` empty:
    the one button, ``no``, resumes), or a confirm dialog (``no`` and ``yes``, the dialog's rows)."""
    return {"t": "ask", "q": question, "detail": detail, "yes": yes, "no": no}
