"""The phones' pure parts: what a message may be, the room's limits, a returning phone's seat."""

from __future__ import annotations

import json

from hypothesis import given, strategies as st

from game.phones import protocol as proto
from game.phones.room import FIRST_WAIT, FREE_TRIES, LONGEST_WAIT, Bucket, Room, new_code
from game.presentation.menus.seats import SeatDevices, SeatSpec

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                max_size=4), max_leaves=12)


@given(st.text(max_size=700) | st.binary(max_size=700))
def test_any_text_is_a_message_or_refused_never_an_error(data):
    found = proto.parse(data)
    assert isinstance(found, (proto.Refused, *proto.Message.__args__))


@given(st.dictionaries(st.sampled_from(["t", "code", "name", "token", "c", "k", "p", "go", "car", "path", "n", "yes",
                                        "a", "s"]), JSON, max_size=5))
def test_any_object_is_a_message_of_its_kind_with_checked_fields_or_refused(fields):
    found = proto.parse(json.dumps(fields))
    if isinstance(found, proto.Flick):
        assert 0 <= found.angle < 3600 and 0 <= found.strength <= 1000 and found.phase >= 0
    elif isinstance(found, proto.Answer):
        assert isinstance(found.yes, bool) and found.number >= 0
    elif isinstance(found, proto.Pick):
        assert all(-proto.MAX_KEY <= v <= proto.MAX_KEY for v in found.key) and isinstance(found.go, bool)
    elif isinstance(found, proto.Join):
        assert len(found.code) == 4 and found.code.isdigit() and 1 <= len(found.name) <= proto.MAX_NAME
    elif not isinstance(found, proto.Refused):
        assert "car" not in fields and "path" not in fields  # no field names another car or a file


@given(st.integers(-proto.MAX_KEY, proto.MAX_KEY), st.integers(-proto.MAX_KEY, proto.MAX_KEY),
       st.integers(0, 10 ** 6), st.booleans())
def test_a_pick_reads_back_as_sent(x, y, phase, go):
    assert proto.parse(json.dumps({"t": "pick", "k": [x, y], "p": phase, "go": go})) == proto.Pick((x, y), phase, go)


@given(st.integers(0, 3599), st.integers(0, 1000), st.integers(0, 10 ** 6))
def test_a_flick_reads_back_as_sent(angle, strength, phase):
    assert proto.parse(json.dumps({"t": "flick", "a": angle, "s": strength, "p": phase})) == \
        proto.Flick(angle, strength, phase)


def test_a_bad_flick_or_answer_is_refused_with_the_field_named():
    for message, words in (({"t": "flick", "a": 3600, "s": 10, "p": 1}, "flick: a must be"),
                           ({"t": "flick", "a": 90, "s": 1.5, "p": 1}, "flick: s must be"),
                           ({"t": "flick", "a": 90, "s": 500}, "flick: p must be"),
                           ({"t": "answer", "n": 3, "yes": "yes"}, "answer: yes must be"),
                           ({"t": "answer", "n": -1, "yes": True}, "answer: n must be"),
                           ({"t": "answer", "n": 1, "yes": True, "car": 2}, "answer: unknown field 'car'")):
        found = proto.parse(json.dumps(message))
        assert isinstance(found, proto.Refused) and found.reason.startswith(words), (message, found)


def test_names_the_tv_cannot_draw_are_refused():
    assert proto.clean_name("  Ada   Lovelace ") == "Ada Lovelace"  # spaces squeezed: 12 characters
    assert proto.clean_name("Ada\nLovelace") == "Ada Lovelace"
    for bad in ("", "   ", "<b>x</b>", "\u202eevil", "x" * 13, "Ada Lovelace!"):
        assert proto.clean_name(bad) is None


def test_wrong_codes_wait_longer_each_time_and_the_right_code_gets_a_token():
    room = Room(code="1234")
    now = 0.0
    for _ in range(FREE_TRIES - 1):
        assert room.admit("10.0.0.9", "0000", "Eve", now).kind == "wrong-code"
    waits = []
    for _ in range(8):
        assert room.admit("10.0.0.9", "0000", "Eve", now).kind == "wrong-code"
        refused = room.admit("10.0.0.9", "1234", "Eve", now)
        assert refused.kind == "rate-limited"
        wait = int(refused.reason.rsplit(" in ", 1)[1].split(" s")[0])
        waits.append(wait)
        now += wait
    assert waits[0] == FIRST_WAIT + 1 and waits == sorted(waits) and waits[-1] == LONGEST_WAIT + 1
    assert room.admit("10.0.0.8", "1234", "Ada", now).name == "Ada"  # another address is not held up
    seat = room.admit("10.0.0.9", "1234", "Eve", now)
    assert room.find(seat.token) is seat and len(seat.token) == 32
    room.forget(seat.id)
    assert room.find(seat.token) is None


def test_codes_are_four_digits_and_eight_phones_at_most():
    assert new_code(lambda n: 42) == "0042"
    room = Room(code="1111")
    seats = [room.admit(f"10.0.0.{k}", "1111", f"P{k}", 0.0) for k in range(9)]
    assert all(not isinstance(s, proto.Refused) for s in seats[:8]) and seats[8].kind == "full"


def test_a_bucket_lets_a_burst_through_then_its_rate():
    bucket = Bucket(rate=20, burst=40)
    assert sum(bucket.take(0.0) for _ in range(100)) == 40
    assert sum(bucket.take(1.0) for _ in range(100)) == 20


def test_a_returning_phone_takes_back_its_own_car_unless_a_pad_took_it():
    lineup = [SeatSpec("Ada", 0, 0, device="phone:1"), SeatSpec("Bix", 1, 1, device="phone:2")]
    seats = SeatDevices.from_lineup(lineup)
    seats.unplugged("phone:1")
    seats.unplugged("phone:2")
    assert seats.orphans == [0, 1]
    assert seats.back("phone:2") == 1 and seats.devices["phone:2"] == 1  # its own car, not the first waiting
    assert seats.claim("pad:7") == 0  # a pad takes the car still waiting
    assert seats.back("phone:1") is None and "phone:1" not in seats.devices
