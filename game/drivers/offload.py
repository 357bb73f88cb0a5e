"""Building a distance table in a child process while the compiled kernels are not ready.

After an install the kernels compile for many seconds (:mod:`game.drivers.compiling`);
meanwhile a CPU's table is searched by the interpreted kernels, a second or two of CPU
time for a small track. Run in the game's own process that search shares the
interpreter lock with the frame loop: each slows the other, and the first CPU move came
seconds after the race's countdown. :class:`TableChild` runs that very search in a child
process instead (its own interpreter, the other core) and hands the finished table back
pickled; the game only unpickles it (a few milliseconds of numpy buffers).

The table that comes back is the one the interpreted kernels build in-process (the same
code on the same track, rules and laps), except that the objects it refers to are the
game's own: the track, its region, the rule set and the kernel source are sent as names
(``persistent_id``) and put back on arrival, so ``table.track is track`` as the solver's
caches expect and later work on the table asks the game's kernel source.

Anything unusual (no way to start a process, a search too big for the interpreter, an
error in the search, a child stopped by :meth:`TableChild.cancel`) gives None: the caller
then builds the table in its own process as before, where errors are raised as usual.

``python -m game.drivers.offload`` is the child: it reads one request from stdin (a
length line, then the pickled ``(kind, track, rules, laps, memory_budget, limit)``),
prints ``progress FRACTION WHAT`` lines while it searches, then ``table N`` and N bytes of
pickled table (or ``too-big`` / ``failed``). It exits at once when its stdin closes (the
game quit or died), so no search outlives the game.
"""

from __future__ import annotations

import importlib.util
import io
import os
import pickle
import subprocess
import sys
import threading
import types
from pathlib import Path

#: The objects a table refers to that travel by name rather than by value.
_NAMES = ("track", "region", "rules", "kernels", "report")


def child_command() -> list[str]:
    """The command line of a table child: this interpreter, this very ``game`` package."""
    root = str(Path(__file__).resolve().parent.parent.parent)
    code = (f"import sys; sys.path.insert(0, {root!r}); "
            "from game.drivers.offload import child_main; sys.exit(child_main())")
    return [sys.executable, "-c", code]


class _ByName(pickle.Pickler):
    """Pickles a table with its track, region, rules, kernel source and progress callback as names."""

    def __init__(self, file, named: dict[int, str]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.named = named

    def persistent_id(self, obj):
        return self.named.get(id(obj))


class _Restore(pickle.Unpickler):
    """Unpickles a table, putting the game's own objects back for their names."""

    def __init__(self, file, objects: dict[str, object]) -> None:
        super().__init__(file)
        self.objects = objects

    def persistent_load(self, pid):
        if pid not in self.objects:
            raise pickle.UnpicklingError(f"unknown name {pid!r} in a table from the child")
        return self.objects[pid]


def dumps_table(table, kernels, report=None) -> bytes:
    """``table`` pickled, its track, region, rules, ``kernels`` and ``report`` by name."""
    named = {id(table.track): "track", id(table.track.region): "region", id(table.rules): "rules",
             id(kernels): "kernels"}
    if report is not None:
        named[id(report)] = "report"
    buffer = io.BytesIO()
    _ByName(buffer, named).dump(table)
    return buffer.getvalue()


def loads_table(data: bytes, track, rules, kernels, report=None):
    """A table from :func:`dumps_table`, referring to the given track, rules, kernel source and callback."""
    objects = {"track": track, "region": track.region, "rules": rules, "kernels": kernels, "report": report}
    return _Restore(io.BytesIO(data), objects).load()


class TableChild:
    """One table searched in a child process: :meth:`start` it early, :meth:`build` the table, or :meth:`cancel`.

    ``command`` and ``env`` start the child (this interpreter and package by default).
    The child loads its modules as soon as it is started and then waits for its request,
    so a caller that does not know yet whether it needs one can start it meanwhile.
    """

    def __init__(self, command: list[str] | None = None, env: dict[str, str] | None = None) -> None:
        self.command = command or child_command()
        self.env = env
        self.errors: list[str] = []
        self._child: subprocess.Popen | None = None
        self._errors = None  # the child's stderr: a file (a full pipe nobody reads would stall it)
        self._cancelled = False
        self._lock = threading.Lock()

    @property
    def done(self) -> bool:
        """Whether the child has ended or been stopped (nothing more comes of it)."""
        return self._cancelled

    def start(self) -> TableChild:
        """Start the child (it loads its modules and waits for its request); a failure to start is kept in ``errors``."""
        import tempfile

        with self._lock:
            if self._child is not None or self._cancelled:
                return self
            try:
                self._errors = tempfile.TemporaryFile("w+")
                # A session of its own: where the scheduler shares the processor out by
                # session (Linux's autogroups, on by default on desktops) the search gets its
                # own share on a busy machine instead of taking it from the game's frames.
                self._child = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               stderr=self._errors, start_new_session=True,
                                               env=dict(os.environ if self.env is None else self.env))
            except OSError as error:  # no way to start a process: the caller searches itself
                self.errors.append(f"the table child did not start: {error}")
                self._cancelled = True
        return self

    def build(self, kind, track, rules, laps: int, kernels, memory_budget: int, limit: int, progress=None):
        """The table ``kind(track, rules, laps)`` searched by the interpreted kernels in the child, or None.

        ``kernels`` is the kernel source the table asks later (the game's); ``limit`` the
        most states a layer may have (more: the child gives up, None). ``progress`` hears
        ``(fraction, what)`` as the child goes. Blocks until the child is done: call it
        off the frame loop. The child ends with it.
        """
        self.start()
        child = self._child
        if child is None or self._cancelled:
            self.close()
            return None
        request = pickle.dumps((kind, track, rules, laps, memory_budget, limit), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(b"%d\n" % len(request) + request)
            child.stdin.flush()  # stdin stays open: the child ends when it closes
            data = self._answer(child.stdout, progress)
        except OSError as error:  # it died mid-way: search here instead
            if not self._cancelled:
                self.errors.append(f"the table child stopped: {error}")
            data = None
        finally:
            self.close()
        if data is None:
            return None
        return loads_table(data, track, rules, kernels, progress)

    def _answer(self, out, progress) -> bytes | None:
        """Read the child's progress lines to its table (None: it gave up, failed or was stopped)."""
        while True:
            words = out.readline().decode("ascii", "replace").split()
            if not words:
                self._tell_failure()  # the end of its output: it died or was stopped
                return None
            if words[0] == "progress" and len(words) >= 2:
                if progress is not None:
                    progress(float(words[1]), " ".join(words[2:]))
            elif words[0] == "table" and len(words) == 2:
                size = int(words[1])
                data = out.read(size)
                return data if len(data) == size else None
            else:  # too-big: the caller waits for the compiled kernels
                return None

    def _tell_failure(self) -> None:
        if self._cancelled or self._errors is None:
            return
        self._errors.seek(0)
        last = self._errors.read().strip().splitlines()[-1:]
        if last:
            self.errors.append(f"the table child failed: {last[0]}")

    def close(self) -> None:
        """End the child (closing its stdin ends it) and wait for it; nothing starts after this."""
        with self._lock:
            self._cancelled = True
            child, errors = self._child, self._errors
        if child is not None:
            for stream in (child.stdin, child.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            if child.poll() is None:
                child.terminate()
            try:
                child.wait(timeout=2)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if errors is not None:
            errors.close()

    def cancel(self) -> None:
        """Stop the child now, from any thread (its :meth:`build` returns None); nothing starts after this."""
        with self._lock:
            self._cancelled = True
            child = self._child
        if child is not None and child.poll() is None:
            try:
                child.kill()
            except OSError:
                pass


class _TooBig(Exception):
    """A layer too big for the interpreter: the game waits for the compiled kernels instead."""


def plain_kernels() -> types.ModuleType:
    """The kernels module's code as plain Python functions, loaded without importing numba.

    The same functions :func:`~game.drivers.compiling.interpreted_kernels` rebuilds from
    the compiled kernels' sources, but the child never compiles, and importing numba
    would cost it a third of a second of CPU (more on a busy machine) before its search
    could start: the module's source runs with an ``njit`` that leaves each function as it
    is. A fresh module object, never put in ``sys.modules``.
    """
    spec = importlib.util.find_spec("game.drivers.kernels")
    module = importlib.util.module_from_spec(spec)
    stub = types.ModuleType("numba")
    stub.njit = lambda *args, **options: args[0] if args and callable(args[0]) else (lambda function: function)
    real = sys.modules.get("numba")
    sys.modules["numba"] = stub  # only while the module's source runs: its "from numba import njit"
    try:
        spec.loader.exec_module(module)
    finally:
        if real is None:
            del sys.modules["numba"]
        else:
            sys.modules["numba"] = real
    module.compiled = False
    return module


class _Interpreted:
    """The child's kernel source: the plain kernels, up to ``limit`` states a layer."""

    def __init__(self, limit: int) -> None:
        self.kernels = plain_kernels()
        self.limit = limit

    def current(self, work: int = 0):
        if work > self.limit:
            raise _TooBig(work)
        return self.kernels


def _quit_when_stdin_closes(stdin) -> None:
    """Exit the child the moment the game closes its end of stdin (it quit, died or gave up on us)."""
    while stdin.read(65536):
        pass
    os._exit(0)


def child_main() -> int:
    """The table child: one request from stdin, the table (or why not) on stdout."""
    stdin, out = sys.stdin.buffer, sys.stdout.buffer
    size = int(stdin.readline() or 0)
    request = stdin.read(size)
    if size <= 0 or len(request) != size:
        return 1
    threading.Thread(target=_quit_when_stdin_closes, args=(stdin,), daemon=True).start()
    kind, track, rules, laps, memory_budget, limit = pickle.loads(request)

    def report(fraction: float, what: str) -> None:
        out.write(f"progress {fraction:.3f} {what}\n".encode("ascii", "replace"))
        out.flush()

    kernels = _Interpreted(limit)
    try:
        table = kind(track, rules, laps, kernels=kernels, memory_budget=memory_budget, progress=report)
    except _TooBig:
        out.write(b"too-big\n")
        out.flush()
        return 0
    data = dumps_table(table, kernels, report)
    out.write(b"table %d\n" % len(data))
    out.write(data)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(child_main())
