"""Every track the game offers, loaded once in the background and reloaded only when a pack file changes.

Reading the built-in packs takes seconds of CPU time (the outline tracks are checked
for crossings), far too long for a menu frame. :class:`PackCatalogue` reads the built-in
folder and the user's pack folder on a background thread when the game starts, keeps
each file's result with the file's size and modification time, and on :meth:`refresh`
(track select calls it on entering) looks at the folders again, also in the background,
reading only the files that are new or changed and dropping the ones that are gone.

The menus only read it: :meth:`entries` is the list track select shows (built-in packs
first, the starter pack first of those; broken tracks and packs as entries with their
problems), :attr:`version` changes whenever that list does, :meth:`results` gives the
packs themselves (their cups, say) and :meth:`problems` what is wrong with the
built-in packs of this install (named by file, for the title screen).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

from game.core.track import Track
from game.files import shown
from game.installation import missing_files, pack_problems
from game.tracks.pack import load_pack, read_map_file
from game.tracks.refs import file_ref

#: Files the catalogue reads in a pack folder.
PACK_SUFFIXES = (".toml", ".map")


@dataclass(frozen=True)
class TrackEntry:
    """A track as the menus list it: ``ref`` is what replays store (``PACK/TRACK`` or ``file#TRACK``)."""

    ref: str
    track: Track | None
    pack: str
    problems: tuple[str, ...] = ()
    user: bool = False

    @property
    def name(self) -> str:
        return self.track.name if self.track is not None else self.ref


def entries_of(result, user: bool) -> list[TrackEntry]:
    """The entries one pack file gives: its usable tracks, then its broken ones with their problems."""
    entries = []
    pack_name = result.pack.name if result.pack else shown(result.path.name)  # a name that is not UTF-8 drawn escaped
    for track in result.tracks:
        if user:
            ref = file_ref(result.path, track.id if result.path.suffix == ".toml" else None)
        else:
            ref = f"{result.pack.id}/{track.id}"
        warnings = tuple(str(p) for p in result.track_problems(track.id) if not p.is_error)
        entries.append(TrackEntry(ref, track, pack_name, warnings, user))
    good = {t.id for t in result.tracks}
    broken: dict[str | None, list[str]] = {}
    for problem in result.errors:
        if problem.track not in good and getattr(problem, "cup", None) is None:  # broken cups show with the cups
            broken.setdefault(problem.track, []).append(str(problem))
    for track_id, problems in broken.items():
        ref = file_ref(result.path, track_id or None)
        entries.append(TrackEntry(ref, None, pack_name, tuple(problems), user))
    return entries


def _builtin_order(result) -> tuple:
    return result.pack is None or result.pack.id != "starter", str(result.path)


def read_file(path: Path):
    """One pack or ``.map`` file read into a ``PackResult`` (never raises for a bad file)."""
    return read_map_file(path) if path.suffix == ".map" else load_pack(path)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _pack_files(folder: Path | None) -> list[Path]:
    if folder is None or not folder.is_dir():
        return []
    try:
        return sorted(p for p in folder.iterdir() if p.suffix in PACK_SUFFIXES and p.is_file())
    except OSError:
        return []


class PackCatalogue:
    """The built-in packs and the user's packs, read on a background thread (see the module docstring).

    ``read`` reads one file into a ``PackResult`` (tests pass a slower or counting one).
    Safe to use from any thread; the menus call :meth:`entries` every frame.
    """

    def __init__(self, builtin_dir: str | Path, packs_dir: str | Path | None, read=read_file) -> None:
        self.builtin_dir = Path(builtin_dir)
        self.packs_dir = Path(packs_dir) if packs_dir is not None else None
        self.read = read
        self.reads = 0  # files read so far (a file read again after a change counts again)
        self.version = 0
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._known: dict[Path, tuple[tuple[int, int] | None, object]] = {}
        self._entries: list[TrackEntry] = []
        self._problems: list[str] = []
        self._builtin: list = []
        self._user: list = []
        self._loaded = threading.Event()
        self._scans_asked = 0
        self._scans_done = 0
        self._progress = (0, 0)
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- what the menus read ----------------------------------------------------
    @property
    def ready(self) -> bool:
        """True once the first reading of both folders is complete."""
        return self._loaded.is_set()

    @property
    def busy(self) -> bool:
        """True while a reading (the first or a refresh) is under way or asked for."""
        with self._lock:
            return self._scans_done < self._scans_asked

    @property
    def progress(self) -> tuple[int, int]:
        """(files read, files to read) of the reading under way."""
        with self._lock:
            return self._progress

    def entries(self) -> list[TrackEntry]:
        """Every entry, built-in first (empty until the first reading is done)."""
        with self._lock:
            return list(self._entries)

    def results(self) -> list[tuple[object, bool]]:
        """Every pack file's ``PackResult`` with whether it is the user's (built-in first)."""
        with self._lock:
            return [(r, False) for r in self._builtin] + [(r, True) for r in self._user]

    def problems(self) -> list[str]:
        """What is wrong with this install's built-in packs, each named by file ([] until read)."""
        with self._lock:
            return list(self._problems)

    # -- reading ----------------------------------------------------------------
    def start(self) -> PackCatalogue:
        """Begin the first reading in the background (once); returns self."""
        with self._lock:
            if self._thread is None:
                self._scans_asked += 1
                self._thread = threading.Thread(target=self._work, name="pack-catalogue", daemon=True)
                self._thread.start()
        return self

    def refresh(self) -> None:
        """Look at the folders again in the background; changed, new and removed files are taken in."""
        if self._thread is None:
            self.start()
            return
        with self._wake:
            if self._scans_asked == self._scans_done:  # one scan waiting is enough
                self._scans_asked += 1
                self._wake.notify()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no reading is under way (tests and tools; the menus never wait)."""
        if self._thread is None:
            self.start()
        end = None if timeout is None else time.monotonic() + timeout
        while self.busy:
            if end is not None and time.monotonic() > end:
                return False
            time.sleep(0.01)
        return True

    def close(self) -> None:
        with self._wake:
            self._closed = True
            self._wake.notify()

    def _work(self) -> None:
        while True:
            try:
                self._scan()
            except Exception:  # noqa: BLE001 - a scan that fails leaves the last good list on screen
                pass
            finally:
                with self._wake:
                    self._scans_done += 1
                self._loaded.set()
            with self._wake:
                while self._scans_done == self._scans_asked and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return

    def _install_problems(self, builtin) -> list[str]:
        tracks = self.builtin_dir.resolve()
        problems = [p for p in missing_files() if Path(p.rsplit(": ", 1)[0]).resolve().parent == tracks]
        return problems + [p for p in pack_problems(builtin, self.builtin_dir) if p not in problems]

    def _scan(self) -> None:
        sources = [(path, False) for path in _pack_files(self.builtin_dir)]
        sources += [(path, True) for path in _pack_files(self.packs_dir)]
        stale = [(path, user, stamp) for path, user in sources
                 if (stamp := _stamp(path)) is None or self._known.get(path, (None,))[0] != stamp]
        with self._lock:
            self._progress = (0, len(stale))
        fresh = {}
        for k, (path, user, stamp) in enumerate(stale):
            fresh[path] = (stamp, self.read(path))
            self.reads += 1
            with self._lock:
                self._progress = (k + 1, len(stale))
        present = {path for path, _ in sources}
        known = {path: found for path, found in self._known.items() if path in present}
        known.update(fresh)
        changed = bool(fresh) or len(known) != len(self._known)
        self._known = known
        builtin = sorted((known[p][1] for p, user in sources if not user), key=_builtin_order)
        user = [known[p][1] for p, user in sources if user]
        entries = [e for r in builtin for e in entries_of(r, False)] + [e for r in user for e in entries_of(r, True)]
        problems = self._install_problems(builtin) if changed or self.version == 0 else self._problems
        with self._lock:
            self._builtin, self._user, self._entries, self._problems = builtin, user, entries, problems
            if changed or self.version == 0:
                self.version += 1
