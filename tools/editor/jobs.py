"""Work the editor does off the frame loop: validating the track and finding its par.

A :class:`LatestWorker` is one background thread that only ever works on the newest
request: submitting a request makes every older one stale. A stale request that has
not started is skipped; one that is running is told so through its ``cancelled()``
callback, and whatever it returns is dropped, so the editor never shows the par of a
track that has since changed.

The solver (``game.drivers.solver.solve``) cannot be interrupted from another thread,
and a long solve would hold the interpreter lock while the editor draws. So by default
the par worker thread runs each solve in a child process (``multiprocessing`` spawn),
polls it, and terminates it the moment the track changes: cancelling is real.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from game.core.rules import preset
from game.core.track import Track
from game.tracks import Problem, read_pack_text

Work = Callable[[Any, Callable[[], bool]], Any]


@dataclass(frozen=True)
class JobFailed:
    """A job raised instead of answering; ``message`` says what went wrong."""

    message: str


class LatestWorker:
    """A daemon thread running ``work(request, cancelled)`` for the newest request only.

    ``submit`` returns the request's generation; ``poll`` returns a finished result of the
    current generation once (None otherwise). ``dropped`` counts results thrown away
    because a newer request came in while they were computed.
    """

    def __init__(self, work: Work, name: str) -> None:
        self._work = work
        self._name = name
        self._cond = threading.Condition()
        self._generation = 0
        self._pending: tuple[int, Any] | None = None
        self._running: int | None = None
        self._result: tuple[int, Any] | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self.dropped = 0
        self.skipped = 0

    def submit(self, request: Any) -> int:
        """Ask for ``request`` to be worked on; everything asked before becomes stale."""
        with self._cond:
            if self._closed:
                raise RuntimeError(f"{self._name} is closed")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._generation += 1
            if self._pending is not None:
                self.skipped += 1
            self._pending = (self._generation, request)
            self._result = None
            self._cond.notify_all()
            return self._generation

    def cancel(self) -> None:
        """Make every request stale without asking for a new one."""
        with self._cond:
            self._generation += 1
            self._pending = None
            self._result = None

    def poll(self) -> Any | None:
        """The result of the newest request, once, when it is ready (None before and after)."""
        with self._cond:
            result, self._result = self._result, None
        if result is not None and result[0] == self._generation:
            return result[1]
        return None

    @property
    def busy(self) -> bool:
        """True while the newest request is waiting or being worked on."""
        with self._cond:
            return self._pending is not None or self._running == self._generation

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread (a running job is cancelled) and wait for it a little."""
        with self._cond:
            self._closed = True
            self._generation += 1
            self._pending = None
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._pending is None and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                generation, request = self._pending
                self._pending = None
                self._running = generation
            try:
                value = self._work(request, lambda: self._generation != generation or self._closed)
            except Exception as exc:  # a job's bug must not kill the editor: it shows in the panel
                value = JobFailed(f"{type(exc).__name__}: {exc}")
            with self._cond:
                self._running = None
                if generation == self._generation and value is not None:
                    self._result = (generation, value)
                else:
                    self.dropped += 1


# -- validation ------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckRequest:
    """Validate this document, whose one-track pack text is ``text``."""

    doc: Any
    text: str
    track_id: str
    file: str


@dataclass(frozen=True)
class Checked:
    """The validation of one document: the game's track (None with errors) and every problem."""

    doc: Any
    track: Track | None
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.is_error]


def check(request: CheckRequest, cancelled: Callable[[], bool]) -> Checked:
    """Run the game's pack validation on the document's pack text."""
    result = read_pack_text(request.text, request.file)
    track = result.pack.track(request.track_id) if result.pack else None
    return Checked(request.doc, track, list(result.problems))


# -- par -------------------------------------------------------------------------------
@dataclass(frozen=True)
class ParRequest:
    """Find the par of track ``track_id`` in this pack text, on ``rules`` over ``laps``."""

    text: str
    track_id: str
    rules: str
    laps: int


@dataclass(frozen=True)
class ParResult:
    """What the solver said: ``par`` moves and the optimal line, or ``reason`` why there is none."""

    par: int | None
    path: tuple[tuple[int, int], ...] = ()
    reason: str | None = None
    exact: bool = True
    note: str = ""
    seconds: float = 0.0
    rules: str = "paper"
    laps: int = 1


def solve_par(request: ParRequest) -> ParResult:
    """Par for the request, computed here (the body of both the thread and the process runner)."""
    from game.drivers.solver import SolverError, solve

    started = time.perf_counter()
    result = read_pack_text(request.text, "<editor>")
    track = result.pack.track(request.track_id) if result.pack else None
    if track is None:
        return ParResult(None, reason="the track has errors", rules=request.rules, laps=request.laps)
    try:
        solution = solve(track, preset(request.rules), request.laps)
    except SolverError as exc:
        return ParResult(None, reason=str(exc), rules=request.rules, laps=request.laps)
    return ParResult(solution.par, tuple((v.x, v.y) for v in solution.path), solution.reason, solution.exact,
                     solution.note, time.perf_counter() - started, request.rules, request.laps)


def solve_in_thread(request: ParRequest, cancelled: Callable[[], bool]) -> ParResult | None:
    """Par computed in the worker thread itself (a stale answer is dropped, not interrupted)."""
    return solve_par(request)


def _child(conn, request: ParRequest) -> None:
    try:
        conn.send(solve_par(request))
    except Exception as exc:  # sent back to the editor, which shows it
        conn.send(JobFailed(f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def solve_in_process(request: ParRequest, cancelled: Callable[[], bool]) -> ParResult | JobFailed | None:
    """Par computed in a child process that is terminated as soon as the request goes stale."""
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sender, request), daemon=True, name="racetrack-par")
    try:
        process.start()
    except OSError:
        receiver.close()
        return solve_par(request)  # no child processes here: the thread does the work
    sender.close()
    try:
        while True:
            if cancelled():
                return None
            if receiver.poll(0.05):
                try:
                    return receiver.recv()
                except EOFError:
                    return JobFailed(f"the solver process stopped (exit code {process.exitcode})")
            if not process.is_alive() and not receiver.poll(0):
                return JobFailed(f"the solver process stopped (exit code {process.exitcode})")
    finally:
        if process.is_alive():
            process.terminate()
            process.join(2)
            if process.is_alive():
                process.kill()
                process.join(1)
        receiver.close()
