"""The lobby's seats: who sits where, on which device, with which name, colour and symbol.

Plain logic (it draws nothing), so it can be tested alone and reused by the race for hot-plug:
a device (``"kb1"``, ``"kb2"`` or ``"pad:<SDL instance id>"``) joins the first free seat;
CPUs of any level fill seats too; colours and symbols are never shared, so every car
differs in both (colour-blind safe: never colour alone).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from game.drivers.levels import CPU_LEVELS as LEVELS_TABLE, cpu_level, level_kinds
from game.presentation.theme import COLORS, SYMBOLS

MAX_SEATS = 8
#: The CPU levels the lobby offers, weakest first, and the names a card shows: from the one
#: level table (:mod:`game.drivers.levels`).
CPU_LEVELS = level_kinds()
LEVEL_NAMES = {level.kind: level.name for level in LEVELS_TABLE}
NAMES = ("Ada", "Bix", "Cleo", "Dash", "Elio", "Fern", "Gus", "Hana", "Ivo", "Juno", "Kit", "Lou", "Max", "Nia",
         "Oz", "Pip", "Quin", "Rex", "Sol", "Tam", "Uma", "Vik", "Wren", "Yuki", "Zed")
#: The rows a player's cursor moves over on their lobby card and the shared footer (the handicap,
#: drawn on the card, comes after "add CPU" and the Phones row so the first rows are where players' hands know them).
ROWS = ("name", "colour", "symbol", "cpu", "phones", "handicap", "assist", "start")
#: The handicaps a player may take in the lobby: moves (``game.race.handicap``) or "auto".
HANDICAPS = (*range(0, 11), "auto")

DEVICE_NAMES = {"kb1": "keys QWE/ASD/ZXC", "kb2": "keys UIO/JKL/M,."}


@dataclass(frozen=True)
class Driver:
    """A CPU driver's personality: a name, a symbol it likes to race under and a line for its card."""

    name: str
    symbol: str
    manner: str


#: The CPU drivers of each level, in the order the lobby seats them: names and looks of their
#: own (a Rookie never reads "Pro 2"). Each prefers its symbol; the seat takes the next free one
#: when another car already has it (colours and symbols are never shared).
ROSTER: dict[str, tuple[Driver, ...]] = {
    "cpu:rookie": (Driver("Doodle", "plus", "wobbles, but never gives up"),
                   Driver("Smudge", "hexagon", "brakes late, then later"),
                   Driver("Squiggle", "triangle", "takes the scenic line"),
                   Driver("Eraser", "circle", "undoes its own mistakes"),
                   Driver("Crayon", "square", "loves the wide corners"),
                   Driver("Blot", "cross", "surprised by every wall"),
                   Driver("Scribble", "star", "fast on the straights only"),
                   Driver("Nib", "diamond", "first race ever")),
    "cpu:pro": (Driver("Ruler", "square", "straight lines, tidy braking"),
                Driver("Compass", "circle", "rounds every bend just so"),
                Driver("Vector", "diamond", "counts every square"),
                Driver("Set Square", "triangle", "sharp in the corners"),
                Driver("Stencil", "hexagon", "copies the best line"),
                Driver("Margin", "cross", "never leaves the page"),
                Driver("Quill", "plus", "smooth and patient"),
                Driver("Index", "star", "knows every checkpoint")),
    "cpu:champion": (Driver("Graphite", "star", "the optimal line, every time"),
                     Driver("Protractor", "triangle", "every angle worked out"),
                     Driver("Inkwell", "circle", "never smudges a move"),
                     Driver("Sextant", "diamond", "navigates by par"),
                     Driver("Draughtsman", "square", "draws the race before it starts"),
                     Driver("Calliper", "cross", "measures to the square"),
                     Driver("Fountain", "hexagon", "flows round the track"),
                     Driver("Theorem", "plus", "proved the fastest line")),
}


def driver_of(spec) -> Driver | None:
    """The roster driver a CPU seat is (by name), None for a person or a name not on the roster."""
    return next((d for d in ROSTER.get(spec.kind, ()) if d.name == spec.name), None)


def device_label(device: str | None, pad_numbers: dict[str, int]) -> str:
    """How a seat's device is called on its card: its keys, or the gamepad's number in joining order."""
    if device is None:
        return ""
    if device in DEVICE_NAMES:
        return DEVICE_NAMES[device]
    if device.startswith("phone:"):
        return "phone"
    return f"gamepad {pad_numbers.get(device, '?')}"


@dataclass(frozen=True)
class SeatSpec:
    """One seat of the line-up: ``kind`` is ``"human"`` or a CPU level; ``device`` for humans."""

    name: str
    color: int
    symbol: int
    kind: str = "human"
    device: str | None = None
    assist: str = ""  # "coach": the coaching rings and stopping distance (``game.race.coaching``); "" none
    handicap: int | str = 0  # moves, 0-10, or "auto" (``game.race.handicap``)

    @property
    def is_human(self) -> bool:
        return self.kind == "human"


class SeatTable:
    """Up to eight seats, edited by the players in the lobby. Seats keep their order."""

    def __init__(self, preferred_names: list[str] | None = None, remembered: list[SeatSpec] | None = None) -> None:
        self.seats: list[SeatSpec] = []
        self.rows: dict[str, int] = {}  # device -> cursor row index into ROWS
        self.cpu_level = 1  # index into CPU_LEVELS offered by the "add CPU" row
        self.preferred = [n for n in (preferred_names or []) if n]
        # The last line-up's people, waiting for their devices: a keyboard takes its own look back,
        # a gamepad the first pad look nobody has taken (which pad was whose is not known).
        self.remembered = [s for s in (remembered or []) if s.is_human]

    # -- asking ---------------------------------------------------------------
    def seat_of(self, device: str) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.device == device), None)

    @property
    def full(self) -> bool:
        return len(self.seats) >= MAX_SEATS

    @property
    def humans(self) -> list[SeatSpec]:
        return [s for s in self.seats if s.is_human]

    def _free(self, attr: str, count: int, start: int = 0, step: int = 1, mine: int | None = None) -> int:
        used = {getattr(s, attr) for i, s in enumerate(self.seats) if i != mine}
        kept = {getattr(s, attr) for s in self.remembered}  # the last line-up's looks, waiting for their people
        if len(used | kept) < count:
            used |= kept
        for k in range(count):
            candidate = (start + step * (k + (1 if mine is not None else 0))) % count
            if candidate not in used:
                return candidate
        return start % count

    def _free_name(self, start: int = 0, step: int = 1, mine: int | None = None) -> str:
        used = {s.name for i, s in enumerate(self.seats) if i != mine} | {s.name for s in self.remembered}
        pool = list(dict.fromkeys(self.preferred + list(NAMES)))
        for k in range(len(pool)):
            name = pool[(start + step * (k + (1 if mine is not None else 0))) % len(pool)]
            if name not in used:
                return name
        return f"Player {len(self.seats) + 1}"

    # -- changing ---------------------------------------------------------------
    def join(self, device: str) -> int | None:
        """Seat a device (once); returns its seat, or None when all eight are taken."""
        found = self.seat_of(device)
        if found is not None:
            return found
        if self.full:
            return None
        spec = self._remembered_look(device)
        if spec is None:
            colour = self._free("color", len(COLORS))
            symbol = self._free("symbol", len(SYMBOLS))
            humans = len(self.humans)
            taken = {s.name for s in self.seats} | {s.name for s in self.remembered}
            name = self.preferred[humans] if humans < len(self.preferred) and \
                self.preferred[humans] not in taken else self._free_name()
            spec = SeatSpec(name, colour, symbol, "human", device)
        # Humans sit before the CPUs, so the best grid slots go to people when joining late.
        at = next((i for i, s in enumerate(self.seats) if not s.is_human), len(self.seats))
        self.seats.insert(at, spec)
        self.rows[device] = 0
        return at

    def _remembered_look(self, device: str) -> SeatSpec | None:
        """The last line-up's seat this device takes back (name, colour, symbol, handicap, assist), if one is free."""
        kind = "pad" if device.startswith("pad:") else "phone" if device.startswith("phone:") else device
        used = {(s.name,) for s in self.seats} | {("c", s.color) for s in self.seats} | \
            {("s", s.symbol) for s in self.seats}
        for k, old in enumerate(self.remembered):
            if old.device == kind and not {(old.name,), ("c", old.color), ("s", old.symbol)} & used:
                del self.remembered[k]
                return replace(old, kind="human", device=device)
        return None

    def restore(self, lineup: list[SeatSpec]) -> None:
        """Seat a whole line-up again (the evening's seats from the last mode); people's cursors on Start."""
        self.seats = []
        self.rows = {}
        for spec in lineup[:MAX_SEATS]:
            if spec.is_human and (spec.device is None or self.seat_of(spec.device) is not None):
                continue
            self.seats.append(spec)
            if spec.is_human:
                self.rows[spec.device] = ROWS.index("start")

    def leave(self, device: str) -> bool:
        i = self.seat_of(device)
        if i is None:
            return False
        del self.seats[i]
        self.rows.pop(device, None)
        return True

    def add_cpu(self, level: str | None = None) -> int | None:
        if self.full:
            return None
        level = level or CPU_LEVELS[self.cpu_level]
        colour = cpu_level(level).colour  # an unknown level raises UnknownLevelError (a ValueError), naming the known
        used = {s.name for s in self.seats}
        driver = next((d for d in ROSTER[level] if d.name not in used), None)
        if driver is None:  # every name of the level is racing (not with eight seats): the level's own
            name = next(f"{LEVEL_NAMES[level]} {k}" for k in range(1, MAX_SEATS + 2)
                        if f"{LEVEL_NAMES[level]} {k}" not in used)
            symbol = self._free("symbol", len(SYMBOLS))
        else:
            name = driver.name
            symbol = self._free("symbol", len(SYMBOLS), SYMBOLS.index(driver.symbol))
        # A level's colours start in their own place: a Champion tends to the darker inks.
        self.seats.append(SeatSpec(name, self._free("color", len(COLORS), colour), symbol, level))
        return len(self.seats) - 1

    def remove_cpu(self) -> bool:
        for i in range(len(self.seats) - 1, -1, -1):
            if not self.seats[i].is_human:
                del self.seats[i]
                return True
        return False

    def cycle(self, seat: int, what: str, step: int) -> None:
        """Change a seat's name, colour or symbol to the next one nobody else has."""
        spec = self.seats[seat]
        if what == "name":
            pool = list(dict.fromkeys(self.preferred + list(NAMES)))
            start = pool.index(spec.name) if spec.name in pool else 0
            self.seats[seat] = replace(spec, name=self._free_name(start, step, mine=seat))
        elif what == "colour":
            self.seats[seat] = replace(spec, color=self._free("color", len(COLORS), spec.color, step, mine=seat))
        elif what == "symbol":
            self.seats[seat] = replace(spec, symbol=self._free("symbol", len(SYMBOLS), spec.symbol, step, mine=seat))
        elif what == "assist":  # the coaching assist (``game.race.coaching``), off unless the player asks
            self.seats[seat] = replace(spec, assist="" if spec.assist else "coach")
        elif what == "handicap":
            at = HANDICAPS.index(spec.handicap) if spec.handicap in HANDICAPS else 0
            self.seats[seat] = replace(spec, handicap=HANDICAPS[(at + step) % len(HANDICAPS)])
        else:
            raise ValueError(f"cannot change {what!r}")

    def take_look(self, seat: int, name: str | None = None, color: int | None = None) -> bool:
        """A phone's own name and colour for its seat: the colour only when nobody else has it
        (a name somebody has gets a number); False when the colour is taken."""
        spec = self.seats[seat]
        others = [s for i, s in enumerate(self.seats) if i != seat]
        if color is not None and any(s.color == color for s in others):
            return False
        if name is not None:
            used = {s.name for s in others}
            name = next(n for n in [name] + [f"{name[:10]} {k}" for k in range(2, 10)] if n not in used)
        self.seats[seat] = replace(spec, name=spec.name if name is None else name,
                                   color=spec.color if color is None else color)
        return True

    def lineup(self) -> list[SeatSpec]:
        return list(self.seats)


def seat_record(spec: SeatSpec) -> dict:
    """A seat as the settings remember it (``Settings.lineup``): a pad is remembered as "a pad"."""
    record = {"name": spec.name, "color": spec.color, "symbol": spec.symbol, "kind": spec.kind}
    if spec.is_human:
        device = spec.device or "pad"
        record["device"] = "pad" if device.startswith("pad:") else "phone" if device.startswith("phone:") else device
    if spec.handicap:  # left out at their defaults, as a settings file from before them reads
        record["handicap"] = spec.handicap
    if spec.assist and spec.is_human:
        record["assist"] = spec.assist
    return record


def seat_from_record(record: dict) -> SeatSpec:
    """A remembered seat (checked by ``game.settings.read_lineup``) as a seat spec; people wait for a device."""
    return SeatSpec(record["name"], record["color"] % len(COLORS), record["symbol"] % len(SYMBOLS),
                    record["kind"], record.get("device"), assist=record.get("assist", ""),
                    handicap=record.get("handicap", 0))


@dataclass
class SeatDevices:
    """During a race: which device drives which car, and which human cars lost their gamepad.

    A pulled gamepad leaves its car *orphaned*; the race pauses until any gamepad not
    already driving a car presses a button, and that pad takes the car over.
    """

    devices: dict[str, int]
    orphans: list[int]
    #: A phone whose connection dropped, and its car: it gets the car back on its return unless
    #: a pad took the car over or it was retired meanwhile (``back``).
    away: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_lineup(cls, lineup: list[SeatSpec], present=None) -> SeatDevices:
        """Each human car on its seat's device; a car whose device ``present(device)`` says is gone
        (a pad pulled on track select or the rules screen) starts waiting for any free pad."""
        devices = {s.device: i for i, s in enumerate(lineup) if s.is_human and s.device}
        gone = [i for d, i in devices.items() if present is not None and not present(d)]
        return cls({d: i for d, i in devices.items() if i not in gone}, gone)

    def unplugged(self, source: str) -> int | None:
        """A device went away: its car (if it drove one) is now waiting for a pad."""
        car = self.devices.pop(source, None)
        if car is not None and car not in self.orphans:
            self.orphans.append(car)
        if car is not None and source.startswith("phone:"):
            self.away[source] = car
        return car

    def back(self, source: str) -> int | None:
        """A phone came back with its seat token: its own car again, if that still waits for it."""
        car = self.away.pop(source, None)
        if car is None or car not in self.orphans:
            return None
        self.orphans.remove(car)
        self.devices[source] = car
        return car

    def claim(self, source: str) -> int | None:
        """A pad pressed a button: if it drives nothing and a car waits, it takes that car."""
        if source in self.devices or not self.orphans or not source.startswith("pad:"):
            return None
        car = self.orphans.pop(0)
        self.devices[source] = car
        self.away = {phone: c for phone, c in self.away.items() if c != car}  # taken over for good
        return car
