"""Getting the solver's compiled kernels ready without making anyone wait.

The numba kernels (:mod:`game.drivers.kernels`) are compiled on first use and cached
on disk; the first start after an install compiles them, which costs about 10 s of CPU
time. Two things keep that from stalling a race:

- :class:`BackgroundKernels` compiles them in a *child process* (the other core, and no
  share of this process's interpreter lock, so the frame loop is not slowed), reporting
  progress line by line; when the child is done this process loads them from numba's
  disk cache on a background thread. On a warm cache the child only confirms the cache
  in about a second.
- Until they are loaded, the solver runs the very same kernel code in the interpreter
  (:func:`interpreted_kernels`): exact, about 35 us a state, so a small track's table
  (20 000 states on ``starter/first-sprint``) takes a second or two of CPU. A whole
  table is searched so in a child process of its own (:meth:`BackgroundKernels.build_table`,
  :mod:`game.drivers.offload`), where it shares no interpreter lock with the frame
  loop; the compiling child runs at a lower priority, so that on a busy machine the
  table and the frames come first. Work that would take the interpreter longer than
  waiting waits for the compiled kernels instead (on the planner thread, never on the
  frame loop).

A *kernel source* is anything with ``current(work) -> kernel set``, where a kernel set
is the kernels module or its interpreted twin (both have ``compiled``); the solver asks
its source before each piece of work, so a search that starts interpreted goes on
compiled the moment the kernels are ready. :class:`CompiledKernels` (the default) always
gives the compiled module, compiling in the calling thread the first time, as tools and
tests want.

``python -m game.drivers.compiling`` is the child: it prints ``total W``, then
``compiling NAME W`` when a kernel is not in the cache and ``ready NAME`` when it is
compiled (nothing for kernels loaded from the cache), then ``done``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import types
from dataclasses import dataclass
from pathlib import Path

#: Each warm-up kernel with its share of a full compile (CPU seconds measured on the
#: development machine; only the proportions matter, for the progress bar).
KERNEL_WEIGHTS = {"cell_rows": 4.0, "pack_rows": 0.2, "expand_layer": 1.5, "rest_sources": 0.3, "distances": 2.2,
                  "polygon_rows": 1.6, "reach_layer": 0.5, "layer_edges": 0.6, "layer_distances": 1.8,
                  "all_sets_level": 1.5}
#: States the interpreter may still search rather than wait for the compiled kernels
#: (about 35 us a state: 300 000 states is some 10 s, about what a first compile takes).
INTERPRET_LIMIT = 300_000
#: How much lower the compiling child's priority is than the game's (Unix niceness).
CHILD_NICENESS = 10
#: Seconds :meth:`BackgroundKernels.close` waits for kernels being loaded (a load takes a
#: second or two on a warm cache; an in-process compile, where no child could run, longer).
CLOSE_TIMEOUT = 60.0


def compiled_kernels():
    """The compiled kernels module (each kernel compiles or loads on its first call)."""
    from game.drivers import kernels

    return kernels


def interpreted_kernels() -> types.SimpleNamespace:
    """The kernels module's code run by the Python interpreter: the same results, no compiling.

    Every compiled function is rebuilt from its Python source function with globals in
    which the other compiled functions are interpreted too, so nothing here ever
    triggers numba's compiler. Slow (tens of microseconds a state), exact.
    """
    from numba.core.registry import CPUDispatcher

    from game.drivers import kernels

    namespace = dict(vars(kernels))
    for name, value in vars(kernels).items():
        if isinstance(value, CPUDispatcher):
            source = value.py_func
            namespace[name] = types.FunctionType(source.__code__, namespace, name, source.__defaults__,
                                                 source.__closure__)
    namespace["compiled"] = False
    return types.SimpleNamespace(**namespace)


class CompiledKernels:
    """A kernel source that always gives the compiled kernels (compiled in the caller, first time)."""

    def current(self, work: int = 0):
        return compiled_kernels()


@dataclass(frozen=True)
class KernelStatus:
    """Where the kernels are: ``stage`` is one of ``checking`` (asking the cache),
    ``compiling`` (the first start after an install), ``loading`` (into this process),
    ``ready`` or ``failed`` (the CPUs go on with the interpreted kernels); ``progress``
    is 0..1 while compiling."""

    stage: str
    progress: float = 0.0

    @property
    def compiling(self) -> bool:
        return self.stage == "compiling"

    @property
    def ready(self) -> bool:
        return self.stage == "ready"

    def message(self) -> str:
        """What to tell the players while the CPUs wait for this ("" when nothing to say)."""
        if self.stage == "compiling" or (self.stage == "loading" and self.progress > 0):
            return f"preparing the CPU drivers, first start only: {round(100 * self.progress)}%"
        return ""


def cache_is_warm() -> bool:
    """Whether numba's disk cache holds every warm-up kernel for this source (False when unsure).

    Reads the cache index numba keeps next to each cached function: a missing or stale
    index (another source file, another numba) means that kernel would compile. Uses
    numba's cache objects (not a documented API), so any surprise answers False and the
    kernels are then checked by the compiling child instead.
    """
    try:
        from game.drivers import kernels

        return all(getattr(kernels, name)._cache._cache_file._load_index() for name in KERNEL_WEIGHTS)
    except Exception:  # noqa: BLE001 - unsure: let the child find out
        return False


#: The file, in the kernels' cache directory, that says a warm-up finished there (see :func:`write_marker`).
MARKER_NAME = "racetrack-kernels.json"


def _kernel_sources() -> list[Path]:
    """The source files numba compiles the kernels from (its cache is keyed by them)."""
    here = Path(__file__).resolve().parent
    return [here / "kernels.py", here / "codes.py"]


def marker_path(env: dict[str, str] | None = None) -> Path | None:
    """Where the warm-cache marker lives: numba's documented cache directory for the kernels.

    ``NUMBA_CACHE_DIR`` when set (numba keeps its files in a folder of it; the marker's
    name carries a digest of the kernels' path, as several installs may share the folder),
    else the ``__pycache__`` folder beside ``kernels.py``, numba's default, when writable.
    None when neither is usable (numba then falls back to a per-user folder): no marker,
    and the cache is taken as cold.
    """
    import hashlib

    env = os.environ if env is None else env
    source = _kernel_sources()[0]
    if env.get("NUMBA_CACHE_DIR"):
        digest = hashlib.sha256(str(source).encode()).hexdigest()[:12]
        return Path(env["NUMBA_CACHE_DIR"]) / f"racetrack-kernels-{digest}.json"
    folder = source.parent / "__pycache__"
    if os.access(folder if folder.exists() else source.parent, os.W_OK):
        return folder / MARKER_NAME
    return None


def _fingerprint() -> dict:
    """What the compiled kernels depend on: their sources, this Python and this numba."""
    import hashlib
    from importlib import metadata

    try:
        numba_version = metadata.version("numba")
    except metadata.PackageNotFoundError:
        numba_version = "?"
    sources = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in _kernel_sources()}
    return {"python": sys.version, "numba": numba_version, "sources": sources}


def marker_says_warm(env: dict[str, str] | None = None) -> bool:
    """Whether a warm-up of these very kernels finished into the cache (False when unsure).

    Reads only the marker :func:`write_marker` left: no numba import, no second process.
    A changed kernel source, Python or numba makes the marker stale.
    """
    import json

    path = marker_path(env)
    try:
        return path is not None and json.loads(path.read_text(encoding="utf-8")) == _fingerprint()
    except (OSError, ValueError):
        return False


def write_marker(env: dict[str, str] | None = None) -> None:
    """Record that every warm-up kernel is in numba's cache; called after a warm-up that finished.

    Written whole or not at all (a temporary file renamed), so a process stopped halfway
    never leaves a marker claiming a cache it did not fill. A cache nobody can write gets
    no marker: the next run then checks the slow way.
    """
    import json

    path = marker_path(env)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(_fingerprint()), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass


class ForegroundKernels:
    """A kernel source for a command that runs a search: every kernel ready before the first search.

    The first :meth:`current` on a cache without the marker compiles (or loads) all warm-up
    kernels in this process, then writes the marker; with the marker, each kernel simply
    loads from the cache on its first call: a command that ends at once still leaves the
    cache complete, so the next run only loads it (a background compile cut short by the
    command's end left it partly warm run after run).
    """

    def __init__(self, say=None) -> None:
        self.say = say  # say(text): told once when the kernels must compile (a cold cache)
        self._kernels = None
        self._lock = threading.Lock()

    def current(self, work: int = 0):
        with self._lock:
            if self._kernels is None:
                from game.drivers.solver import warm_up

                if not marker_says_warm():  # a warm cache needs no warm-up: each kernel loads on its first call
                    if self.say is not None:
                        self.say("compiling the solver (first run after an install; later runs start at once)")
                    warm_up()
                    write_marker()
                self._kernels = compiled_kernels()
            return self._kernels

    def close(self) -> bool:
        """Nothing runs in the background: present so commands treat every source alike."""
        return True


def compile_listener(on_start, on_end=None):
    """A numba event listener calling ``on_start(name, depth)`` / ``on_end(name, depth)`` around each compile.

    ``name`` is the compiled function's name and ``depth`` 0 for a compile nobody else
    asked for (nested helpers have depth 1 and more). Register it for ``"numba:compile"``.
    """
    from numba.core import event

    class Listener(event.Listener):
        def __init__(self) -> None:
            self.depth = 0

        def on_start(self, e) -> None:
            on_start(e.data["dispatcher"].py_func.__name__, self.depth)
            self.depth += 1

        def on_end(self, e) -> None:
            self.depth -= 1
            if on_end is not None:
                on_end(e.data["dispatcher"].py_func.__name__, self.depth)

    return Listener()


def child_command() -> list[str]:
    """The command line of the compiling child: this interpreter, this very ``game`` package."""
    root = str(Path(__file__).resolve().parent.parent.parent)
    code = (f"import sys; sys.path.insert(0, {root!r}); "
            "from game.drivers.compiling import child_main; sys.exit(child_main())")
    return [sys.executable, "-c", code]


class BackgroundKernels:
    """A kernel source that compiles in a child process and hands out the interpreted kernels meanwhile.

    ``start()`` launches the child (returns at once). ``status`` says how far it got;
    ``current(work)`` gives the compiled kernels once loaded, else the interpreted ones,
    or waits for the compiled ones when ``work`` (states to search) is above
    ``interpret_limit``. ``close()`` stops a child still compiling (what it compiled so far
    stays in the cache for next time) and waits for a load under way. Safe to use from any
    thread.
    """

    def __init__(self, command: list[str] | None = None, env: dict[str, str] | None = None,
                 interpret_limit: int = INTERPRET_LIMIT, warm=None) -> None:
        self.command = command or child_command()
        self.env = env
        self.warm = warm or marker_says_warm  # asked first: a warm cache needs no child
        self.interpret_limit = interpret_limit
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._stage = "checking"
        self._done_weight = 0.0
        self._total_weight = sum(KERNEL_WEIGHTS.values())
        self._current: tuple[str, float, float] | None = None  # compiling (name, weight, since)
        self._compiled = None
        self._interpreted = None
        self._child: subprocess.Popen | None = None
        self._thread: threading.Thread | None = None
        self._tables: set = set()  # table children searching (game.drivers.offload)
        self._closed = False

    # -- the kernel source ----------------------------------------------------
    def current(self, work: int = 0):
        """The kernels to use now for ``work`` states (see the class docstring).

        While the cache is being checked or the kernels loaded (well under a second) this
        waits; while they are being compiled it hands out the interpreted kernels, unless
        ``work`` is too big for the interpreter.
        """
        if self._thread is None:
            self.start()
        while self._compiled is None and self._stage != "failed":
            if self._stage == "compiling" and work <= self.interpret_limit:
                break
            self._ready.wait(0.05)
        if self._compiled is not None:
            return self._compiled
        with self._lock:
            if self._interpreted is None:
                self._interpreted = interpreted_kernels()
            return self._interpreted

    def build_table(self, kind, track, rules, laps: int, memory_budget: int, progress=None):
        """``kind(track, rules, laps)`` searched in a child process while the kernels compile, else None.

        The solver asks this before building a table itself. While the compiled kernels
        are not ready (compiling, or failed), the interpreted search runs in a child
        (:class:`~game.drivers.offload.TableChild`), so that it shares no interpreter lock
        with the frame loop; None tells the caller to build the table itself (the
        compiled kernels are ready, the child could not do it, or this source is closed).
        While the cache is still being checked the child starts at once (a first start
        must not lose that time) and is stopped should the cache be warm after all.
        """
        from game.drivers.offload import TableChild

        if self._thread is None:
            self.start()
        with self._lock:
            if self._compiled is not None or self._closed:
                return None
            child = TableChild(env=self.env)
            self._tables.add(child)
        try:
            if self._stage in ("checking", "loading"):
                threading.Thread(target=self._stop_if_loaded, args=(child, self._stage), daemon=True,
                                 name="kernel-table-watch").start()
            table = child.build(kind, track, rules, laps, self, memory_budget, self.interpret_limit, progress)
        finally:
            with self._lock:
                self._tables.discard(child)
        self.errors.extend(child.errors)
        return table

    def _stop_if_loaded(self, child, stage: str) -> None:
        """Stop a table child started in ``stage`` once the compiled kernels are near after all.

        Started while the cache was checked: stopped if it is warm (the kernels load in a
        second, then the table takes a blink); started while they load: stopped when
        they are ready. Left alone once a compile begins or fails.
        """
        while not child.done:
            now = self._stage
            if self._compiled is not None or (stage == "checking" and now == "loading"):
                child.cancel()  # its build gives None: the caller builds with the compiled kernels
                return
            if now in ("compiling", "failed"):
                return
            time.sleep(0.02)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the compiled kernels are loaded (or failed); True when they are ready."""
        if self._thread is None:
            self.start()
        self._ready.wait(timeout)
        return self._compiled is not None

    @property
    def status(self) -> KernelStatus:
        with self._lock:
            progress = self._done_weight
            if self._current is not None:
                _, weight, since = self._current
                progress += weight * min(0.9, (time.monotonic() - since) / max(weight, 0.1))
            fraction = min(1.0, progress / self._total_weight) if self._total_weight else 1.0
            return KernelStatus(self._stage, fraction if self._stage in ("compiling", "loading") else 0.0)

    # -- running ----------------------------------------------------------------
    def start(self) -> BackgroundKernels:
        if self._closed:  # nothing starts after close()
            self._finish(None, "failed")
            return self
        with self._lock:
            if self._thread is not None:
                return self
            self._thread = threading.Thread(target=self._run, name="kernel-compile", daemon=True)
        self._thread.start()
        return self

    def close(self, timeout: float = CLOSE_TIMEOUT) -> bool:
        """Stop the child if it is still compiling, and wait for kernels being loaded into this process.

        Loading cannot be interrupted, and it must not be cut short either: a process that
        exits while this thread is inside numba's loader (LLVM, C++) is aborted by the C++
        runtime ("terminate called without an active exception", exit status 134) when
        the thread calls back into the interpreter that is shutting down. So this returns
        once the thread has ended (or after ``timeout`` seconds, should it hang); nothing
        is started after it is called. Close the window first: a quit must not look frozen.
        Returns whether nothing is left running (False: a load is still under way, and
        another ``close()`` must wait for it before the process exits).
        """
        with self._lock:
            self._closed = True
            tables = list(self._tables)
        for table in tables:  # a table being searched for a race nobody will finish
            table.cancel()
        child = self._child
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=2)
            except subprocess.TimeoutExpired:
                child.kill()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def _run(self) -> None:
        try:  # the CPU drivers' own code, so that the first race does not import it on the frame loop
            import game.drivers.cpu  # noqa: F401
        except ImportError:
            pass
        warm = self.warm()
        if not warm and not self._closed:
            try:
                self._run_child()
            except OSError as error:  # no way to start a process: compile here instead
                self.errors.append(f"the compiling process did not start: {error}")
        if self._closed:  # closed while checking or compiling: load nothing more
            self._finish(None, "failed")
            return
        with self._lock:
            self._stage = "loading"  # (an in-process compile, should it happen, says "compiling" again)
            self._current = None
        try:
            from numba.core import event

            from game.drivers.solver import warm_up

            # Loads from the disk cache; should it compile after all (a cache nobody can
            # write), say so, so that the CPUs go on interpreted meanwhile.
            listener = compile_listener(lambda name, depth: self._compiling_here(name) if depth == 0 else None)
            event.register("numba:compile", listener)
            try:
                warm_up()
            finally:
                event.unregister("numba:compile", listener)
            write_marker(self.env)
            kernels = compiled_kernels()
        except Exception as error:  # noqa: BLE001 - the CPUs go on interpreted
            self.errors.append(f"the compiled kernels could not be loaded: {error!r}")
            self._finish(None, "failed")
            return
        self._finish(kernels, "ready")

    def _finish(self, kernels, stage: str) -> None:
        with self._lock:
            self._compiled = kernels
            self._stage = stage
            self._current = None
            self._done_weight = self._total_weight if kernels is not None else self._done_weight
        self._ready.set()

    def _compiling_here(self, name: str) -> None:
        with self._lock:
            self._stage = "compiling"
            self._current = (name, KERNEL_WEIGHTS.get(name, 0.0), time.monotonic())

    def _run_child(self) -> bool:
        """Run the compiling child to its end, following its progress; True when it succeeded."""
        import tempfile

        env = dict(os.environ if self.env is None else self.env)
        with tempfile.TemporaryFile("w+") as errors:  # a file: a full pipe nobody reads would stall the child
            child = self._child = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=errors,
                                                   stdin=subprocess.DEVNULL, text=True, env=env)
            if self._closed:  # closed while it was being started
                self.close()
            assert child.stdout is not None
            for line in child.stdout:
                self._heard(line.split())
            code = child.wait()
            errors.seek(0)
            stderr = errors.read()
        if code != 0 and not self._closed:
            last = stderr.strip().splitlines()[-1:] or [f"exit status {code}"]
            self.errors.append(f"the compiling process failed: {last[0]}")
        return code == 0

    def _heard(self, words: list[str]) -> None:
        if not words:
            return
        with self._lock:
            if words[0] == "compiling" and len(words) == 3:
                self._stage = "compiling"
                self._current = (words[1], float(words[2]), time.monotonic())
            elif words[0] == "ready" and len(words) == 2:
                self._done_weight += KERNEL_WEIGHTS.get(words[1], 0.0)
                self._current = None


def child_main() -> int:
    """The compiling child: load or compile every kernel the warm-up uses, printing progress.

    It runs at a lower priority (:data:`CHILD_NICENESS`): the compile is background work,
    and on a busy machine the frame loop and a CPU's first table (searched meanwhile in
    another child, :mod:`game.drivers.offload`) should not wait for it.
    """
    from numba.core import event

    if hasattr(os, "nice"):
        try:
            os.nice(CHILD_NICENESS)
        except OSError:
            pass

    from game.drivers.solver import warm_up

    def started(name: str, depth: int) -> None:
        if depth == 0 and name in KERNEL_WEIGHTS:
            print(f"compiling {name} {KERNEL_WEIGHTS[name]}", flush=True)

    def ended(name: str, depth: int) -> None:
        if depth == 0 and name in KERNEL_WEIGHTS:
            print(f"ready {name}", flush=True)

    listener = compile_listener(started, ended)
    event.register("numba:compile", listener)
    try:
        print(f"total {sum(KERNEL_WEIGHTS.values()):.1f}", flush=True)
        warm_up()
    finally:
        event.unregister("numba:compile", listener)
    write_marker()
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(child_main())
