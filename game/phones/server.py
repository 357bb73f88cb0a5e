"""The phones' web server: one page and one socket, on an asyncio loop in a thread of its own.

The frame loop talks to it only through :meth:`PhoneServer.events` (a queue drained without
waiting) and :meth:`PhoneServer.send` (handed to the loop thread, never awaited), so a slow
phone or a flood never holds up a frame. What it refuses, and why, is in ``docs/phones.md``:
only ``/`` (the page) and ``/ws`` (its socket) are served, the socket only to the page's own
origin on an address given as a number, at most :data:`MAX_CONNECTIONS` sockets, every
message checked by :func:`game.phones.protocol.parse` after a per-connection rate limit.
"""

from __future__ import annotations

import collections
import ipaddress
import json
import logging
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from game.phones import events as ev
from game.phones import protocol as proto
from game.phones.room import Bucket, PhoneSeat, Room

LOG = logging.getLogger("game.phones")
#: At most this many sockets at once (eight seats); a ninth is answered 503.
MAX_CONNECTIONS = 8
#: A connection that keeps sending this many messages over its rate limit is closed.
FLOOD_CLOSE = 2000
#: How often the server's thread sends what the game handed it (seconds): the game never wakes that
#: thread itself, since waking it would hand it the interpreter lock in the middle of a frame.
FLUSH_EVERY = 0.01
#: Frames over this size close the socket at once (websockets' own limit); up to it, parse refuses.
FRAME_LIMIT = 4 * proto.MAX_MESSAGE
PAGE = Path(__file__).with_name("page.html")
DEFAULT_PORT = 8765


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), or 127.0.0.1 without one."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 9))  # a private address: only picks the outgoing interface
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def numeric_host(host: str) -> bool:
    """Whether a Host header names this server by number (or localhost): a name could be a
    rebound DNS name pointing a web page elsewhere at the phones' socket."""
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 or host.startswith("[") else host
    name = name.strip("[]")
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


@dataclass(eq=False)
class _Conn:
    ws: object
    address: str
    bucket: Bucket = field(default_factory=Bucket)
    phone: int | None = None
    dropped: int = 0
    told: set = field(default_factory=set)


class PhoneServer:
    """The server of one room (a new code each start). ``start`` returns at once; ``ready``,
    ``url`` and ``error`` say how it went. ``clock`` is the monotonic clock the limits use."""

    def __init__(self, host: str = "0.0.0.0", port: int = DEFAULT_PORT, advertise: str | None = None,
                 room: Room | None = None, clock=time.monotonic) -> None:
        self.host, self.port, self.advertise = host, port, advertise
        self.room = room or Room()
        self.clock = clock
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._outbox: collections.deque = collections.deque()  # (phone, text or None, why): the game's sends
        # asyncio is imported on the server's own thread: its import alone can take a frame's time.
        self._loop = None
        self._stop = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._conns: set[_Conn] = set()
        self._live: dict[int, _Conn] = {}  # phone -> its connection now
        self._told: set[tuple[str, str]] = set()  # (address, kind) of refusals already logged
        self.refusals: list[str] = []  # what was refused, once per kind and connection (newest last)
        self.error = ""
        self.bound_port: int | None = None
        self._page = b""  # read on the server's thread

    # -- the game's side (any thread) ---------------------------------------------------
    @property
    def code(self) -> str:
        return self.room.code

    @property
    def ready(self) -> bool:
        return self._ready.is_set() and not self.error

    @property
    def url(self) -> str:
        """The address a phone opens ("" until the server listens)."""
        if not self.ready:
            return ""
        return f"http://{self.advertise}:{self.bound_port}/"

    def start(self) -> None:
        """Listen, on a thread of its own; returns at once."""
        self._thread = threading.Thread(target=self._run, name="phones-server", daemon=True)
        self._thread.start()

    def wait_ready(self, timeout: float = 5.0) -> bool:
        """For tests and tools: wait until listening (the game never calls this)."""
        self._ready.wait(timeout)
        return self.ready

    def stop(self, wait: float = 0.0) -> None:
        """Stop listening and close every socket; ``wait`` seconds at most for the thread to end."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            try:
                loop.call_soon_threadsafe(lambda: stop.done() or stop.set_result(None))
            except RuntimeError:  # the loop has already closed
                pass
        if wait and self._thread is not None:
            self._thread.join(wait)

    def events(self) -> list[ev.PhoneEvent]:
        """Everything the phones did since the last call (never waits)."""
        found = []
        while True:
            try:
                found.append(self._events.get_nowait())
            except queue.Empty:
                return found

    def send(self, phone: int, message: dict) -> None:
        """Send a message to a phone if it is connected (left in the outbox; the server's thread
        sends it within :data:`FLUSH_EVERY` seconds)."""
        if self._loop is not None:
            self._outbox.append((phone, json.dumps(message, separators=(",", ":")), ""))

    def forget(self, phone: int, why: str = "") -> None:
        """The game refused or retired the phone: its token opens nothing, it is told why."""
        if self._loop is not None:
            self._outbox.append((phone, None, why))

    def connected(self, phone: int) -> bool:
        return phone in self._live

    def known(self, phone: int) -> bool:
        return phone in self.room.phones

    def name_of(self, phone: int) -> str:
        seat = self.room.phones.get(phone)
        return seat.name if seat else ""

    # -- the server's thread ------------------------------------------------------------
    def _run(self) -> None:
        try:
            import asyncio

            self._page = PAGE.read_bytes()
            asyncio.run(self._main())
        except Exception as error:  # noqa: BLE001 - any failure to listen is told on the TV
            self.error = f"the phones' server stopped: {error}"
            LOG.warning(self.error)
        finally:
            self._loop = None
            self._ready.set()

    async def _main(self) -> None:
        import asyncio

        from websockets.asyncio.server import serve

        self._loop = asyncio.get_running_loop()
        self._stop = self._loop.create_future()
        server = None
        for port in ([self.port + k for k in range(10)] if self.port else []) + [0]:
            try:
                server = await serve(self._handler, self.host, port, process_request=self._http,
                                     max_size=FRAME_LIMIT, max_queue=4, compression=None,
                                     ping_interval=5, ping_timeout=10, logger=LOG.getChild("ws"))
                break
            except OSError:
                continue
        if server is None:
            raise OSError("no free port")
        self.bound_port = server.sockets[0].getsockname()[1] if server.sockets else None
        if self.advertise is None:  # looked up once: the lobby draws the address every frame
            self.advertise = self.host if self.host not in ("0.0.0.0", "") else lan_address()
        self._ready.set()
        flusher = asyncio.ensure_future(self._flush())
        try:
            await self._stop
        finally:
            flusher.cancel()
            server.close()
            await server.wait_closed()

    def _refuse(self, address: str, refused: proto.Refused, conn: _Conn | None = None) -> None:
        """Log a refusal once per connection (or address) and kind; keep the game going."""
        key = (str(id(conn)) if conn is not None else address, refused.kind)
        if key in self._told:
            return
        self._told.add(key)
        line = f"phones: refused from {address}: {refused.reason}"
        LOG.warning(line)
        self.refusals.append(line)
        del self.refusals[:-100]

    def _http(self, connection, request):
        """Serve the page, let the page's socket through, refuse everything else."""
        address = connection.remote_address[0] if connection.remote_address else "?"
        path = request.path.split("?", 1)[0]
        host = request.headers.get("Host", "")
        if not numeric_host(host):
            self._refuse(address, proto.Refused(f"host {host!r} is not an address", "host"))
            return connection.respond(403, "Open the address shown on the TV.\n")
        if path == "/":
            response = connection.respond(200, "")
            response.body = self._page
            del response.headers["Content-Type"]
            del response.headers["Content-Length"]
            response.headers["Content-Type"] = "text/html; charset=utf-8"
            response.headers["Content-Length"] = str(len(self._page))
            response.headers["Cache-Control"] = "no-store"
            response.headers["X-Frame-Options"] = "DENY"
            response.headers["Referrer-Policy"] = "no-referrer"
            response.headers["Content-Security-Policy"] = (
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                f"connect-src ws://{host}; img-src data:; media-src data:")
            return response
        if path != "/ws":
            self._refuse(address, proto.Refused(f"no such page {path[:40]!r}", "not-found"))
            return connection.respond(404, "Not found.\n")
        origin = request.headers.get("Origin", "")
        if origin != f"http://{host}":
            self._refuse(address, proto.Refused(f"socket from origin {origin[:60]!r}", "origin"))
            return connection.respond(403, "Only the game's own page may connect.\n")
        if len(self._conns) >= MAX_CONNECTIONS:
            self._refuse(address, proto.Refused(f"more than {MAX_CONNECTIONS} connections", "full"))
            return connection.respond(503, "All seats are taken.\n")
        return None

    async def _handler(self, ws) -> None:
        from websockets.exceptions import ConnectionClosed

        conn = _Conn(ws, ws.remote_address[0] if ws.remote_address else "?")
        self._conns.add(conn)
        try:
            async for data in ws:
                if not conn.bucket.take(self.clock()):
                    conn.dropped += 1
                    self._refuse(conn.address, proto.Refused("messages faster than the limit", "flood"), conn)
                    if conn.dropped >= FLOOD_CLOSE:
                        await ws.close(1008, "too many messages")
                        break
                    continue
                message = proto.parse(data)
                if isinstance(message, proto.Refused):
                    self._refuse(conn.address, message, conn)
                    await self._reply(conn, {"t": "refused", "kind": message.kind, "why": message.reason})
                    continue
                try:
                    await self._on(conn, message)
                except ConnectionClosed:
                    raise
                except Exception as error:  # noqa: BLE001 - one message's failure never ends the evening
                    self._refuse(conn.address, proto.Refused(f"could not handle it ({error!r})", "error"), conn)
        except ConnectionClosed as closed:
            if closed.rcvd is not None and closed.rcvd.code == 1009 or closed.sent is not None and \
                    closed.sent.code == 1009:
                self._refuse(conn.address, proto.Refused(f"a frame over {FRAME_LIMIT} bytes", "oversized"), conn)
        finally:
            self._conns.discard(conn)
            if conn.phone is not None and self._live.get(conn.phone) is conn:
                del self._live[conn.phone]
                self._events.put(ev.Lost(conn.phone))

    async def _reply(self, conn: _Conn, message: dict) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await conn.ws.send(json.dumps(message, separators=(",", ":")))
        except ConnectionClosed:
            pass

    async def _on(self, conn: _Conn, message) -> None:
        if isinstance(message, proto.Join):
            if conn.phone is not None:
                await self._reply(conn, {"t": "refused", "kind": "seated", "why": "this phone has a seat already"})
                return
            seat = self.room.admit(conn.address, message.code, message.name, self.clock())
            if isinstance(seat, proto.Refused):
                self._refuse(conn.address, seat, conn)
                await self._reply(conn, {"t": "refused", "kind": seat.kind, "why": seat.reason})
                return
            await self._seat(conn, seat)
            self._events.put(ev.Joined(seat.id, seat.name))
        elif isinstance(message, proto.Hello):
            seat = self.room.find(message.token)
            if seat is None:
                self._refuse(conn.address, proto.Refused("an unknown seat token", "token"), conn)
                await self._reply(conn, {"t": "unknown"})
                return
            old = self._live.get(seat.id)
            if old is not None and old is not conn:
                import asyncio

                old.phone = None  # the same phone again (a reload): the newer socket has the seat
                asyncio.ensure_future(old.ws.close(1000, "the seat moved to a newer connection"))
            await self._seat(conn, seat)
            self._events.put(ev.Back(seat.id))
        elif conn.phone is None:
            self._refuse(conn.address, proto.Refused("a message before joining", "not-joined"), conn)
            await self._reply(conn, {"t": "refused", "kind": "not-joined", "why": "join with the room code first"})
        elif isinstance(message, proto.Colour):
            self._events.put(ev.LookWanted(conn.phone, message.colour))
        elif isinstance(message, proto.Pick):
            self._events.put(ev.Picked(conn.phone, message.key, message.phase, message.go))
        elif isinstance(message, proto.Confirm):
            self._events.put(ev.Confirmed(conn.phone, message.phase))
        elif isinstance(message, proto.Pause):
            self._events.put(ev.Paused(conn.phone))
        elif isinstance(message, proto.Flick):
            self._events.put(ev.Flicked(conn.phone, message.angle, message.strength, message.phase))
        elif isinstance(message, proto.Answer):
            self._events.put(ev.Answered(conn.phone, message.number, message.yes))
        elif isinstance(message, proto.Leave):
            phone = conn.phone
            conn.phone = None
            self._live.pop(phone, None)
            self.room.forget(phone)
            self._events.put(ev.Left(phone))
            await self._reply(conn, {"t": "bye"})

    async def _seat(self, conn: _Conn, seat: PhoneSeat) -> None:
        conn.phone = seat.id
        self._live[seat.id] = conn
        await self._reply(conn, {"t": "welcome", "token": seat.token, "id": seat.id, "name": seat.name})

    async def _flush(self) -> None:
        """Send what the game left in the outbox, in order, every :data:`FLUSH_EVERY` seconds."""
        import asyncio

        while True:
            await asyncio.sleep(FLUSH_EVERY)
            while self._outbox:
                phone, text, why = self._outbox.popleft()
                if text is None:
                    self._forget_now(phone, why)
                else:
                    self._send_now(phone, text)

    def _send_now(self, phone: int, text: str) -> None:
        import asyncio

        conn = self._live.get(phone)
        if conn is not None:
            asyncio.ensure_future(self._send_text(conn, text))

    async def _send_text(self, conn: _Conn, text: str) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await conn.ws.send(text)
        except ConnectionClosed:
            pass

    def _forget_now(self, phone: int, why: str) -> None:
        import asyncio

        self.room.forget(phone)
        conn = self._live.pop(phone, None)
        if conn is not None:
            conn.phone = None
            asyncio.ensure_future(self._send_text(conn, json.dumps({"t": "bye", "why": why})))
