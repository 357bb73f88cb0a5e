"""A human's choice on the race screen, press by press (no pygame).

Each human car keeps one highlighted candidate key (None: back home, the base point or the
target nearest it). :class:`ChoiceInput` turns what the players do into highlight moves,
submissions and take-backs on the race (a :class:`game.race.controller.RaceController`):
a key of the 3x3 block or a d-pad press (:meth:`select`), an arrow key (:meth:`move`),
the analog stick (:meth:`aim`), Confirm (:meth:`confirm`), the mouse (:meth:`point`), a
phone's tap (:meth:`pick`) and Back (:meth:`take_back`), under every choosing order: one car at a time, or every car at
once. A car that has chosen is no longer awaited: its presses change nothing until Back
takes the choice back (race control allows it until a later car has chosen).

Which car a press belongs to is :class:`game.presentation.seating.SeatRouter`'s business;
where a mouse pointer falls is the screen's (:meth:`point` takes the key it hit, asked only
when the car may choose). Each call answers the message to flash ("" for none).
"""

from __future__ import annotations

from typing import Callable

from game.core.movement import GRID_SYSTEMS
from game.core.vec import Vec
from game.presentation import choosing
from game.race.controller import ChoiceRejected


class ChoiceInput:
    """The highlighted targets of the human cars and what each press does to them.

    ``race`` is the race control (``waiting_humans``, ``chosen``, ``candidates``, ``submit``,
    ``take_back``, ``state``, ``seats``); ``humans`` the human cars. ``on_submit(car)`` is
    told of every choice the race accepted (the seat router remembers who chose last).
    """

    #: A stick let go springs back one axis at a time: a drop below this share of the last
    #: deflection is the release, not an aim (precise aiming moves the stick gradually).
    RELEASE = 0.6

    def __init__(self, race, humans, on_submit: Callable[[int], None] | None = None) -> None:
        self.race = race
        self.highlight: dict[int, Vec | None] = {car: None for car in humans}  # None: home
        self.on_top: int | None = None  # the player who acted last: their rings drawn over the others'
        self._stick: dict[str, float] = {}  # the last stick deflection per gamepad
        self._on_submit = on_submit

    # -- what is highlighted -------------------------------------------------
    def current_key(self, car: int) -> Vec | None:
        """The highlighted key of a car (the base point, or the target nearest it, until moved)."""
        key = self.highlight.get(car)
        if key is None:
            state = self.race.state
            cands = self.race.candidates(car)
            key = choosing.home(state.rules.movement, cands, state.base_point(car)) if cands else None
            if state.rules.movement in GRID_SYSTEMS and cands:
                key = Vec(0, 0)
            self.highlight[car] = key
        return key

    def home_all(self) -> None:
        """A new turn: every highlight back home."""
        for car in self.highlight:
            self.highlight[car] = None

    def unit(self) -> int:
        """Lattice units per paper square (10 on fine paper, else 1)."""
        return max(1, self.race.state.track.scale)

    def reach(self) -> int:
        """Fine paper: how many lattice units the velocity may change per axis."""
        return self.race.state.rules.fine_range * self.unit()

    def acts(self, car: int | None) -> bool:
        """Whether ``car`` is a human of this race; it is then the one on top."""
        if car is None or car not in self.highlight:
            return False
        self.on_top = car
        return True

    # -- presses -------------------------------------------------------------
    def take_back(self, car: int) -> str:
        """Back: withdraw the car's choice, if the race lets it."""
        if self.race.take_back(car):
            return f"{self.race.seats[car].name}: choice taken back"
        return ""

    def select(self, car: int, dx: int, dy: int, pad: bool, stick: bool, confirm: bool) -> str:
        """A key of the block, a d-pad press or a stick push toward (dx, dy), confirming or not."""
        turn = self._turn(car)
        if turn is None:
            return ""
        chooser, turn = turn
        new, confirm = chooser.select(turn, dx, dy, pad, stick, confirm)
        if new is None or new not in {c.key for c in turn.candidates}:
            return ""
        self.highlight[car] = new
        return self.submit(car) if confirm else ""

    def move(self, car: int, dx: int, dy: int, fast: bool) -> str:
        """An arrow key (``fast``: Shift) moves the highlight."""
        turn = self._turn(car)
        if turn is None:
            return ""
        chooser, turn = turn
        self._highlight(car, turn, chooser.move(turn, dx, dy, fast))
        return ""

    def aim(self, car: int, source: str, x: float, y: float) -> str:
        """The analog stick of ``source`` at (x, y): aims where the movement system aims by stick."""
        turn = self._turn(car)
        if turn is None:
            return ""
        chooser, turn = turn
        strength = (x * x + y * y) ** 0.5
        last = self._stick.get(source, 0.0)
        self._stick[source] = strength
        if not chooser.aims or strength < last * self.RELEASE:
            return ""
        self._highlight(car, turn, chooser.aim(turn, x, y))
        return ""

    def confirm(self, car: int) -> str:
        """Confirm: submit the highlighted target."""
        if self._turn(car) is None:
            return ""
        return self.submit(car)

    def point(self, car: int, hit: Callable[[], Vec | None], click: bool) -> str:
        """The mouse over (or clicking) the target ``hit()`` names (None: none in reach): a click
        submits it, pointing only highlights it."""
        if self._turn(car) is None:
            return ""
        key = hit()
        if key is None:
            return ""
        self.highlight[car] = key
        return self.submit(car) if click else ""

    def pick(self, car: int, key, phase: int, confirm: bool) -> str:
        """A phone's tap: aim at target ``key`` (None: the one aimed at) of ``phase``; ``confirm``
        also picks it. A tap meant for another phase, or for a target the phase lacks, is dropped;
        so is every tap once the car has chosen (it is no longer awaited: a phone's pick is final).
        Were a chosen car still awaited, only a confirmed tap would replace its pick."""
        race = self.race
        if car not in race.waiting_humans() or phase != race.state.phase:
            return ""
        cands = race.candidates(car)
        if not cands or key is not None and key not in {c.key for c in cands}:
            return ""
        if race.chosen(car) is not None:
            if not confirm or key is None:
                return ""
            race.take_back(car)
        if key is not None:
            self.highlight[car] = key
        return self.submit(car) if confirm else ""

    def submit(self, car: int) -> str:
        """Send the highlighted target to the race; its refusal is the message."""
        key = self.current_key(car)
        cand = next((c for c in self.race.candidates(car) if c.key == key), None)
        if cand is None:
            return ""
        try:
            self.race.submit(car, cand.node)
        except ChoiceRejected as error:
            return error.reason
        if self._on_submit is not None:
            self._on_submit(car)
        return ""

    # -- helpers -------------------------------------------------------------
    def _turn(self, car: int) -> tuple[choosing.Chooser, choosing.Turn] | None:
        """The chooser and turn of a car whose choice is wanted now (None: it has nothing to choose,
        or has chosen: a chosen car is no longer awaited)."""
        race = self.race
        if car not in race.waiting_humans():
            return None
        cands = race.candidates(car)
        if not cands:
            return None
        state = race.state
        movement = state.rules.movement
        turn = choosing.Turn(movement, cands, state.base_point(car), state.cars[car].velocity,
                             self.current_key(car), self.unit(), self.reach())
        return choosing.chooser_for(movement, cands), turn

    def _highlight(self, car: int, turn: choosing.Turn, new: Vec | None) -> None:
        if new is not None and new in {c.key for c in turn.candidates}:
            self.highlight[car] = new
