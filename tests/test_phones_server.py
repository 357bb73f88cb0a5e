"""The phones' server against real sockets: what it serves, whom it lets in, what it refuses.

Each test starts a server on a free local port (its own thread) and talks to it with
websockets' plain client, as a phone's browser would; the frame loop's side is the
server's ``events()`` queue.
"""

from __future__ import annotations

import contextlib
import json
import time
import urllib.error
import urllib.request

import pytest

websockets = pytest.importorskip("websockets", reason="pip install websockets (the phones' server)")
from websockets.exceptions import InvalidStatus  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from game.phones import events as ev  # noqa: E402
from game.phones.room import Room  # noqa: E402
from game.phones.server import MAX_CONNECTIONS, PhoneServer  # noqa: E402


@pytest.fixture
def server():
    srv = PhoneServer(host="127.0.0.1", port=0, advertise="127.0.0.1", room=Room(code="4271"))
    srv.start()
    assert srv.wait_ready(), srv.error
    yield srv
    srv.stop(wait=2.0)


def _origin(srv) -> str:
    return f"http://127.0.0.1:{srv.bound_port}"


def phone(srv, origin: str | None = None):
    return connect(f"ws://127.0.0.1:{srv.bound_port}/ws", origin=origin or _origin(srv), open_timeout=3)


def said(ws) -> dict:
    return json.loads(ws.recv(timeout=3))


def events(srv, want: int, timeout: float = 3.0) -> list:
    found, end = [], time.monotonic() + timeout
    while len(found) < want and time.monotonic() < end:
        found += srv.events()
        time.sleep(0.01)
    return found


def test_the_page_is_served_and_nothing_else(server):
    with urllib.request.urlopen(server.url, timeout=3) as answer:
        page = answer.read().decode()
        assert answer.headers["Content-Type"].startswith("text/html")
        assert "default-src 'none'" in answer.headers["Content-Security-Policy"]
    assert "<canvas" in page and "http" not in page.split("<script>")[1].replace("location.host", "")
    for path in ("/../pyproject.toml", "/settings.toml", "/page.html", "/favicon.ico"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.url.rstrip("/") + path, timeout=3)
        assert refused.value.code == 404


def test_a_name_instead_of_an_address_is_refused(server):
    """A DNS name could point another site at the phones' socket: only numbers are served."""
    request = urllib.request.Request(server.url, headers={"Host": f"evil.example:{server.bound_port}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=3)
    assert refused.value.code == 403


def test_a_socket_from_another_origin_is_refused_and_logged_once(server):
    for _ in range(3):
        with pytest.raises(InvalidStatus) as refused:
            phone(server, origin="http://evil.example")
        assert refused.value.response.status_code == 403
    assert sum("origin" in line for line in server.refusals) == 1


def test_join_with_the_code_and_come_back_after_a_reload(server):
    with phone(server) as ws:
        ws.send(json.dumps({"t": "join", "code": "4271", "name": "Ada"}))
        welcome = said(ws)
        assert welcome["t"] == "welcome" and welcome["name"] == "Ada"
        assert events(server, 1) == [ev.Joined(welcome["id"], "Ada")]
        ws.send(json.dumps({"t": "pick", "k": [1, 0], "p": 0}))
        assert events(server, 1) == [ev.Picked(welcome["id"], (1, 0), 0, False)]
    assert events(server, 1) == [ev.Lost(welcome["id"])]
    assert not server.connected(welcome["id"]) and server.known(welcome["id"])
    with phone(server) as again:  # the reloaded page: its token in hand
        again.send(json.dumps({"t": "hello", "token": welcome["token"]}))
        assert said(again)["id"] == welcome["id"]
        assert events(server, 1) == [ev.Back(welcome["id"])]
        server.send(welcome["id"], {"t": "race", "phase": 3})
        assert said(again) == {"t": "race", "phase": 3}


def test_a_second_socket_with_the_token_takes_the_seat_and_the_first_is_closed(server):
    with phone(server) as first, phone(server) as second:
        first.send(json.dumps({"t": "join", "code": "4271", "name": "Bix"}))
        token = said(first)["token"]
        second.send(json.dumps({"t": "hello", "token": token}))
        assert said(second)["t"] == "welcome"
        with pytest.raises(websockets.exceptions.ConnectionClosed):
            first.recv(timeout=3)
    found = events(server, 3)
    assert [type(e) for e in found] == [ev.Joined, ev.Back, ev.Lost]  # Lost: when the second closed


def test_wrong_codes_are_limited_even_before_the_right_one(server):
    with phone(server) as ws:
        for _ in range(3):
            ws.send(json.dumps({"t": "join", "code": "0000", "name": "Eve"}))
            assert said(ws)["kind"] == "wrong-code"
        ws.send(json.dumps({"t": "join", "code": "4271", "name": "Eve"}))
        answer = said(ws)
        assert answer["kind"] == "rate-limited" and "try again in" in answer["why"]
    assert events(server, 1, timeout=0.3) == []
    assert sum("wrong room code" in line for line in server.refusals) == 1


def test_bad_messages_are_refused_and_the_socket_stays(server):
    with phone(server) as ws:
        ws.send(json.dumps({"t": "pick", "k": [1, 0], "p": 0}))  # before joining: nobody's car
        assert said(ws)["kind"] == "not-joined"
        for bad in ("{", "[1,2]", '{"t":"pick","k":[1e9,0],"p":0}', '{"t":"join","code":"12345","name":"x"}',
                    '{"t":"join","code":"4271","name":"<script>"}', '{"t":"pause","car":3}',
                    json.dumps({"t": "join", "code": "4271", "name": "x" * 600})):
            ws.send(bad)
            assert said(ws)["t"] == "refused"
        ws.send(json.dumps({"t": "join", "code": "4271", "name": "Cleo"}))
        assert said(ws)["t"] == "welcome"
    kinds = [line for line in server.refusals]
    assert len(kinds) == 3  # not-joined, malformed, oversized: each logged once
    with phone(server) as ws:  # a frame far over the limit closes that socket only
        ws.send("x" * 10_000)
        with pytest.raises(websockets.exceptions.ConnectionClosed):
            ws.recv(timeout=3)
    with phone(server) as ws:
        ws.send(json.dumps({"t": "join", "code": "4271", "name": "Dash"}))
        assert said(ws)["t"] == "welcome"


def test_a_flood_is_cut_to_the_rate_limit(server):
    with phone(server) as ws:
        ws.send(json.dumps({"t": "join", "code": "4271", "name": "Fern"}))
        said(ws)
        start = time.monotonic()
        for k in range(1000):  # a second's worth at 1000 a second
            ws.send(json.dumps({"t": "pick", "k": [1, 0], "p": k}))
        elapsed = time.monotonic() - start
        time.sleep(0.2)
    picks = [e for e in events(server, 2000, timeout=0.5) if isinstance(e, ev.Picked)]
    assert len(picks) <= 40 + 20 * (elapsed + 0.5) + 1
    assert sum("faster than the limit" in line for line in server.refusals) == 1


def test_at_most_eight_sockets(server):
    with contextlib.ExitStack() as stack:
        for _ in range(MAX_CONNECTIONS):
            stack.enter_context(phone(server))
        with pytest.raises(InvalidStatus) as refused:
            phone(server)
        assert refused.value.response.status_code == 503


def test_stopping_closes_every_socket():
    srv = PhoneServer(host="127.0.0.1", port=0, room=Room(code="1111"))
    srv.start()
    assert srv.wait_ready()
    with phone(srv) as ws:
        srv.stop(wait=3.0)
        with pytest.raises(websockets.exceptions.ConnectionClosed):
            ws.recv(timeout=3)
    with pytest.raises(OSError):
        phone(srv)
