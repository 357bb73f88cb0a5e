"""Who drives which car on the race screen, and what each press does to a choice: the pygame-free
seat router and choice input, on a real race controller (no window, no pygame)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from game import paths
from game.core import RaceState, Vec, preset
from game.drivers.base import HumanDriver
from game.presentation.choice_input import ChoiceInput
from game.presentation.seating import SeatRouter
from game.race.controller import RaceController, Seat
from game.tracks import load_track_ref

ROOT = Path(__file__).resolve().parent.parent
ORDERS = ("fixed", "lot_once", "lot_each", "simultaneous")


@pytest.fixture(scope="module")
def oval():
    return load_track_ref("starter/paper-oval", builtin_dir=paths.builtin_tracks_dir())


def race(track, humans=2, order="fixed", movement=None, seed=5):
    options = {"order": order} | ({"movement": movement} if movement else {})
    names = [f"P{i + 1}" for i in range(humans)]
    state = RaceState.start(track, preset("paper").with_options(**options), names, seed=seed)
    return RaceController(state, [Seat(n, HumanDriver()) for n in names])


class FakeSeats:
    """The menus' seat manager's two answers (``menus.seats.SeatDevices`` is a menu module)."""

    def __init__(self, devices, orphans=()):
        self.devices, self.orphans = devices, list(orphans)

    def unplugged(self, source):
        car = self.devices.pop(source, None)
        if car is not None:
            self.orphans.append(car)
        return car

    def claim(self, source):
        if source in self.devices or not self.orphans or not source.startswith("pad:"):
            return None
        car = self.orphans.pop(0)
        self.devices[source] = car
        return car


def test_the_seat_router_and_the_choice_input_import_without_pygame():
    script = ("import sys; sys.modules['pygame'] = None\n"
              "import game.presentation.seating, game.presentation.choice_input, game.presentation.choosing\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_keyboard_blocks_drive_the_first_two_humans_and_shared_keys_the_one_to_move(oval):
    ctl = race(oval, humans=3)
    router = SeatRouter([0, 1, 2])
    assert router.car_for("kb1", ctl) == 0 and router.car_for("kb2", ctl) == 1
    assert router.car_for("keys", ctl) == ctl.waiting_humans()[0] == 0  # numpad and mouse: whoever moves now
    assert router.source_of(0) == "kb1" and router.source_of(2) == "keys"


@pytest.mark.parametrize("order", ORDERS)
def test_shared_keys_follow_the_turn_under_every_order(oval, order):
    ctl = race(oval, humans=2, order=order)
    router = SeatRouter([0, 1], devices={})
    choice = ChoiceInput(ctl, [0, 1], on_submit=lambda car: setattr(router, "last_submitted", car))
    first = router.car_for("keys", ctl)
    assert first == router.choosing(ctl)[0]
    assert choice.confirm(first) == ""  # the highlighted target (home) is chosen
    assert ctl.chosen(first) is not None
    second = router.car_for("keys", ctl)
    assert second != first and second in (0, 1)  # the next player to choose, in either order
    assert choice.confirm(second) == ""
    ctl.tick()  # the phase is played: everyone chooses anew
    assert len(ctl.records) == 1 and router.car_for("keys", ctl) in (0, 1)


def test_a_new_gamepad_takes_the_first_seat_without_one_and_gives_it_back_when_pulled(oval):
    ctl = race(oval, humans=2)
    router = SeatRouter([0, 1])
    assert router.car_for("pad:7", ctl) == 0 and router.devices["pad:7"] == 0
    assert router.car_for("pad:8", ctl) == 1
    assert router.car_for("pad:9", ctl) is None  # every seat has its pad
    assert router.unplugged("pad:7") == 0 and router.unplugged("pad:7") is None
    assert router.car_for("pad:9", ctl) == 0  # plugged back in (any pad): the free seat again


def test_an_unknown_pad_does_not_take_a_seat_by_asking_whether_it_chooses(oval):
    ctl = race(oval, humans=1)
    router = SeatRouter([0], devices={})
    assert not router.chooses("pad:3", ctl) and "pad:3" not in router.devices
    assert router.chooses("keys", ctl)


def test_with_the_menus_seats_only_an_orphaned_car_is_taken_and_the_unused_block_drives_nobody(oval):
    ctl = race(oval, humans=2)
    seats = FakeSeats({"kb1": 0, "pad:1": 1})
    router = SeatRouter([0, 1], seats=seats)
    assert router.devices is seats.devices  # one mapping, shared with the seat manager
    assert router.car_for("kb2", ctl) is None
    assert router.car_for("pad:2", ctl) is None  # nobody waits for a pad
    assert router.unplugged("pad:1") == 1 and router.orphans == (1,)
    assert router.car_for("pad:2", ctl) == 1 and router.orphans == ()


def test_in_the_tutorial_every_device_drives_the_lone_car(oval):
    ctl = race(oval, humans=1)
    router = SeatRouter([0], devices={}, any_device=True)
    assert {router.car_for(src, ctl) for src in ("kb1", "kb2", "keys", "mouse", "pad:4")} == {0}


def test_the_block_keys_pick_a_target_by_its_place_and_a_confirmed_one_is_submitted(oval):
    ctl = race(oval, humans=1)
    choice = ChoiceInput(ctl, [0])
    assert choice.current_key(0) == Vec(0, 0)  # the 3x3 block starts on its middle
    assert choice.select(0, 1, 0, pad=False, stick=False, confirm=False) == ""
    assert choice.highlight[0] == Vec(1, 0) and ctl.chosen(0) is None
    choice.select(0, 1, 1, pad=False, stick=False, confirm=True)
    base = ctl.state.base_point(0)
    assert ctl.chosen(0) == base + Vec(1, 1)


def test_arrows_move_the_highlight_but_not_once_chosen_and_back_takes_the_choice_back(oval):
    ctl = race(oval, humans=1)
    choice = ChoiceInput(ctl, [0])
    choice.move(0, -1, 0, fast=False)
    assert choice.highlight[0] == Vec(-1, 0)
    choice.confirm(0)
    assert ctl.chosen(0) is not None
    choice.move(0, 1, 0, fast=False)
    assert choice.highlight[0] == Vec(-1, 0)  # a choice made is not moved by the arrows
    assert choice.take_back(0) == "P1: choice taken back" and ctl.chosen(0) is None
    assert choice.take_back(0) == ""  # nothing left to take back


@pytest.mark.parametrize("order", ORDERS)
def test_a_chosen_car_keeps_its_choice_until_back_takes_it_back(oval, order):
    ctl = race(oval, humans=2, order=order)
    choice = ChoiceInput(ctl, [0, 1])
    car = ctl.waiting_humans()[0]
    base = ctl.state.base_point(car)
    choice.select(car, 0, -1, pad=False, stick=False, confirm=True)
    assert ctl.chosen(car) == base + Vec(0, -1)
    choice.select(car, 1, -1, pad=False, stick=False, confirm=True)
    choice.move(car, 1, 0, fast=False)
    choice.point(car, lambda: Vec(1, 0), click=True)
    assert ctl.chosen(car) == base + Vec(0, -1) and choice.highlight[car] == Vec(0, -1)
    assert choice.take_back(car)
    choice.select(car, 1, -1, pad=False, stick=False, confirm=True)
    assert ctl.chosen(car) == base + Vec(1, -1)


def test_the_mouse_highlights_on_pointing_submits_on_a_click_and_is_asked_only_when_choosing(oval):
    ctl = race(oval, humans=2)  # fixed order: car 1 waits for car 0
    choice = ChoiceInput(ctl, [0, 1])
    asked = []

    def hit():
        asked.append(1)
        return Vec(1, 0)

    assert choice.point(1, hit, click=True) == "" and asked == []  # not car 1's turn: the pointer is not read
    choice.point(0, hit, click=False)
    assert choice.highlight[0] == Vec(1, 0) and ctl.chosen(0) is None
    choice.point(0, hit, click=True)
    assert ctl.chosen(0) == ctl.state.base_point(0) + Vec(1, 0)


def test_an_illegal_target_is_refused_with_the_race_controls_reason(oval):
    names = ["P1", "P2"]
    rules = preset("paper").with_options(order="fixed", collision="block")
    ctl = RaceController(RaceState.start(oval, rules, names, seed=5), [Seat(n, HumanDriver()) for n in names])
    choice = ChoiceInput(ctl, [0, 1])
    below = ctl.state.cars[1].position - ctl.state.cars[0].position
    assert below == Vec(0, 3)  # the grid: P2 three squares under P1
    ctl.submit(0, ctl.state.base_point(0) + Vec(0, 1))
    ctl.submit(1, ctl.state.base_point(1))
    ctl.tick()  # P1 rolls one square down, P2 stays
    if ctl.waiting_humans()[0] != 0:
        ctl.submit(1, ctl.state.base_point(1))
    blocked = next(c for c in ctl.candidates(0) if c.node == ctl.state.cars[1].position)
    assert not blocked.legal
    choice.highlight[0] = blocked.key
    assert choice.confirm(0) == blocked.reason and blocked.reason
    assert ctl.chosen(0) is None


def test_on_fine_paper_the_stick_aims_and_its_release_keeps_the_aim(oval):
    ctl = race(oval, humans=1, movement="fine")
    choice = ChoiceInput(ctl, [0])
    velocity = ctl.state.cars[0].velocity
    choice.aim(0, "pad:1", 1.0, 0.0)
    aimed = choice.highlight[0]
    assert aimed is not None and aimed.x > velocity.x  # full right: the velocity grows to the right
    choice.aim(0, "pad:1", 0.1, 0.0)  # the stick springs back: a sudden drop is no aim
    assert choice.highlight[0] == aimed


def test_a_phone_drives_only_its_own_car_and_shared_keys_never_act_for_a_phone_car(oval):
    ctl = race(oval, humans=2, order="simultaneous")
    seats = FakeSeats({"phone:1": 0})
    seats.away = {}
    seats.back = lambda source: None
    router = SeatRouter([0, 1], seats=seats)
    assert router.car_for("phone:1", ctl) == 0
    assert router.car_for("phone:2", ctl) is None  # a phone with no seat drives nobody
    assert router.phone_cars() == {0} and router.phone_seats() == [("phone:1", 0)]
    seats.devices.pop("phone:1")
    seats.away["phone:1"] = 0  # its connection dropped: the car still waits for the phone
    assert router.phone_cars() == {0} and router.phone_seats() == [("phone:1", 0)]
    plain = SeatRouter([0, 1], devices={"phone:1": 0})
    assert plain.car_for("keys", ctl) == 1  # the numpad and the mouse act for the car not on a phone


def test_a_phone_s_tap_aims_in_its_phase_confirms_and_its_pick_is_final(oval):
    ctl = race(oval, humans=2, order="simultaneous")
    choice = ChoiceInput(ctl, [0, 1])
    base, phase = ctl.state.base_point(0), ctl.state.phase
    assert choice.pick(0, Vec(1, 0), phase + 1, confirm=True) == "" and choice.highlight[0] is None  # another phase
    assert choice.pick(0, Vec(9, 9), phase, confirm=True) == "" and ctl.chosen(0) is None  # no such target
    choice.pick(0, Vec(1, 0), phase, confirm=False)
    assert choice.highlight[0] == Vec(1, 0) and ctl.chosen(0) is None
    choice.pick(0, None, phase, confirm=True)  # the button: the one aimed at
    assert ctl.chosen(0) == base + Vec(1, 0)
    choice.pick(0, Vec(0, 1), phase, confirm=False)
    assert ctl.chosen(0) == base + Vec(1, 0) and choice.highlight[0] == Vec(1, 0)  # an aim does not undo a pick
    choice.pick(0, Vec(0, 1), phase, confirm=True)
    assert ctl.chosen(0) == base + Vec(1, 0)  # nor does a second confirmed tap: the pick is final
