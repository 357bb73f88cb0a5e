"""Getting the solver's compiled kernels ready without making anyone wait.

The numba kernels (:mod:`game.drivers.kernels`) are compiled on first use and cached
on disk in numba's cache directory (``NUMBA_CACHE_DIR``, else ``__pycache__`` beside the
kernels); the first start after an install compiles them, about 10 s of CPU time (a
minute on a busy machine). After a warm-up that finished, :func:`write_marker` leaves a
marker in that directory, so a later start tells a warm cache by reading one small file
(no numba import, no second process).

A *kernel source* gives the kernels to the solver: ``current(work)`` returns the compiled
kernels module, and ``compiling_now()`` says whether asking would wait for a compile.

- :class:`~game.drivers.kernel_source.CompiledKernels` (the default, tools and tests) compiles
  in the calling thread the first time.
- :class:`ForegroundKernels` (``racetrack solve``, ``sim``, ``debrief``) loads or compiles
  every kernel before the first search and then writes the marker: one run leaves the
  cache complete.
- :class:`BackgroundKernels` (the couch game) compiles in a *child process* at a lower
  priority (the other core, and no share of the game's interpreter lock, so frames are not
  slowed), following its progress line by line, then loads the kernels from the disk
  cache on a background thread. On a warm cache it only loads them (well under a
  second). While the child compiles, the CPUs do not wait for it: they drive by the route
  heuristic of fine paper (``game.drivers.cpu``, :class:`~game.drivers.fine.FineDriver`:
  safe, not optimal) until the kernels are ready, then read the exact tables again.

``python -m game.drivers.compiling`` is the child: it prints ``total W``, then
``compiling NAME W`` when a kernel is not in the cache and ``ready NAME`` when it is
compiled (nothing for kernels loaded from the cache), then ``done``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from game.drivers.kernel_source import CompiledKernels, compiled_kernels  # noqa: F401  (the default source, re-exported)

#: Each warm-up kernel with its share of a full compile (CPU seconds measured on the
#: development machine; only the proportions matter, for the progress bar).
KERNEL_WEIGHTS = {"cell_rows": 4.0, "pack_rows": 0.2, "expand_layer": 1.5, "rest_sources": 0.3, "distances": 2.2,
                  "polygon_rows": 1.6, "reach_layer": 0.5, "layer_edges": 0.6, "layer_distances": 1.8,
                  "all_sets_level": 1.5}
#: How much lower the compiling child's priority is than the game's (Unix niceness).
CHILD_NICENESS = 10
#: Seconds :meth:`BackgroundKernels.close` waits for kernels being loaded (a load takes a
#: second or two on a warm cache; an in-process compile, where no child could run, longer).
CLOSE_TIMEOUT = 60.0


@dataclass(frozen=True)
class KernelStatus:
    """Where the kernels are: ``stage`` is one of ``checking`` (asking the cache),
    ``compiling`` (the first start after an install), ``loading`` (into this process),
    ``ready`` or ``failed`` (the child could not compile them: a search compiles in its
    own thread); ``progress`` is 0..1 while compiling."""

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
                # Lazy on purpose: the solver (numpy tables, numba kernels) loads only when a search runs.
                from game.drivers.solver import warm_up

                if not marker_says_warm():  # a warm cache needs no warm-up: each kernel loads on its first call
                    if self.say is not None:
                        self.say("compiling the solver (first run after an install; later runs start at once)")
                    warm_up()
                    write_marker()
                self._kernels = compiled_kernels()
            return self._kernels

    def compiling_now(self) -> bool:
        """Never in the background: :meth:`current` compiles what the cache lacks, in the caller."""
        return False

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
    """A kernel source that compiles in a child process, for the couch game (see the module's docstring).

    ``start()`` reads the marker and, on a cold cache, launches the child (returns at
    once). ``status`` says how far it got; ``compiling_now()`` whether a search would wait
    for the compile (the CPUs drive by a heuristic meanwhile); ``current()`` gives the
    compiled kernels, waiting for them if need be (call it off the frame loop).
    ``close()`` stops a child still compiling (what it compiled so far stays in the cache
    for next time) and waits for a load under way. Safe to use from any thread.
    """

    def __init__(self, command: list[str] | None = None, env: dict[str, str] | None = None, warm=None) -> None:
        self.command = command or child_command()
        self.env = env
        self.warm = warm or (lambda: marker_says_warm(env))  # asked first: a warm cache needs no child
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._checked = threading.Event()  # the marker has been read
        self._stage = "checking"
        self._done_weight = 0.0
        self._total_weight = sum(KERNEL_WEIGHTS.values())
        self._current: tuple[str, float, float] | None = None  # compiling (name, weight, since)
        self._compiled = None
        self._child: subprocess.Popen | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- the kernel source ----------------------------------------------------
    def current(self, work: int = 0):
        """The compiled kernels, once loaded; waits for them (or compiles here, should the child have failed)."""
        self.wait()
        return self._compiled if self._compiled is not None else compiled_kernels()

    def compiling_now(self) -> bool:
        """Whether a search would now wait for a compile (the first start after an install).

        Waits for the marker to be read (a file: milliseconds), so a warm cache is never
        taken for a compile; loading a warm cache counts as ready (under a second).
        """
        if self._thread is None:
            self.start()
        self._checked.wait(5)
        return self._stage == "compiling"

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
        warm = self.warm()
        if not warm and not self._closed:
            with self._lock:
                self._stage = "compiling"
        self._checked.set()
        try:  # the CPU drivers' own code, so that the first race does not import it on the frame loop
            import game.drivers.cpu  # noqa: F401
        except ImportError:
            pass
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
            # write), say so, so that the CPUs go on with the heuristic meanwhile.
            listener = compile_listener(lambda name, depth: self._compiling_here(name) if depth == 0 else None)
            event.register("numba:compile", listener)
            try:
                warm_up()
            finally:
                event.unregister("numba:compile", listener)
            write_marker(self.env)
            kernels = compiled_kernels()
        except Exception as error:  # noqa: BLE001 - a search then compiles in its own thread
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
        self._checked.set()
        self._ready.set()

    def _compiling_here(self, name: str) -> None:
        with self._lock:
            self._stage = "compiling"
            self._current = (name, KERNEL_WEIGHTS.get(name, 0.0), time.monotonic())

    def _run_child(self) -> bool:
        """Run the compiling child to its end, following its progress; True when it succeeded."""
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
    and on a busy machine the game's frames come first.
    """
    # Lazy on purpose (here and in the loading thread): numba and the solver load only in the
    # process or thread that compiles; the game's frame loop and the fast commands never wait for them.
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
