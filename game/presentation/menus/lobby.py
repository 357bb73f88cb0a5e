"""The lobby: players join by pressing a button, pick a name, colour and symbol, and add CPUs.

The evening is remembered: a lobby opened again (the next race, a cup) seats the last
line-up as it was, and at a new start the saved line-up comes back: its CPUs sit at once,
and each person who joins takes their old name and look back (a keyboard its own, a
gamepad the first pad look free). The device that opened the lobby from the title is
seated already.

Joining: A (or Start) on a gamepad, Enter / Space or S on the keyboard for keyboard
player 1 (block QWE/ASD/ZXC), K for keyboard player 2 (block UIO/JKL/M,.). Each player
then moves their own cursor over their card (name, colour, symbol) and the shared rows
below it (add a CPU of a chosen level, start the race). Back leaves the seat (on the
CPU row it removes the last CPU). A gamepad pulled out in the lobby gives up its seat.
The mouse shares keyboard 1's seat: it shades what a click would act on, a click on a
row of a person's card puts that seat's cursor there and a click on its ``<`` / ``>``
steps the value; the footer's rows act on a click (see :meth:`LobbyScene._mouse`).

The Phones row turns the phones on (``game.presentation.phones``): a QR code, the address
and the room code appear beside the cards; a phone that joins takes the first free seat
with its own name and may pick any free colour. A phone that loses its connection keeps
its seat; one that leaves (or the row turned off) frees it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pygame

from game.presentation import theme
from game.presentation.input import ClickAt, Confirm, DeviceAdded, DeviceRemoved, PointAt
from game.presentation.menus.common import (BACK, DOWN, LEFT, OK, RIGHT, START, UP, Backdrop, draw_badge, draw_hint,
                                            draw_panel, device_of, nav, wrap_to)
from game.presentation.menus.seats import (CPU_LEVELS, LEVEL_NAMES, MAX_SEATS, ROWS, SeatTable, device_label,
                                           driver_of, seat_from_record, seat_record)
from game.presentation.scene import Scene

class LobbyScene(Scene):
    """Seats up to eight cars; Start goes on to track select with the line-up."""

    takes_phones = True

    def __init__(self, ctx, next_screen: str = "tracks", badge: str = "", joined: str | None = None) -> None:
        super().__init__()
        self.ctx = ctx
        self.next_screen, self.badge = next_screen, badge  # the cup's lobby goes on to choosing the cup
        self.backdrop = Backdrop()
        self.pad_numbers: dict[str, int] = {}
        self.message = ""
        self._qr: tuple[tuple, pygame.Surface | None] | None = None  # (url, side) and its picture
        self._qr_job = None  # the QR code's modules, worked out off the frame (segno's import is slow)
        self.zones: list[Zone] = []  # where a click acts, as last drawn
        self.pointer: tuple[int, int] | None = None  # where the mouse rests
        self.shown: LobbyPlan | None = None  # the layout last drawn
        if ctx.lineup:  # the same evening: everyone keeps their seat
            here = [s for s in ctx.lineup if ctx.device_present(s.device)]
            gone = [replace(s, device="pad") for s in ctx.lineup if s.is_human and s not in here]
            self.table = SeatTable(list(ctx.settings.player_names), gone)  # a pad pulled since: its look waits
            self.table.restore(here)
            for seat in self.table.humans:
                self._pad_number(seat.device)
            self.message = "Same line-up as last time: Start to go on, Back to leave your seat."
        else:  # a new start: the saved line-up's CPUs sit down, its people take their looks back on joining
            remembered = [seat_from_record(r) for r in ctx.settings.lineup]
            self.table = SeatTable(list(ctx.settings.player_names), remembered)
            self.table.seats = [s for s in remembered if not s.is_human]
        if joined is not None and self.table.seat_of(joined) is None:
            self._pad_number(joined)
            self.table.join(joined)
            if self.table.remembered or any(not s.is_human for s in self.table.seats):
                self.table.rows[joined] = ROWS.index("start")  # the line-up is set: one press goes on

    def _pad_number(self, device: str) -> None:
        if device.startswith("pad:") and device not in self.pad_numbers:
            self.pad_numbers[device] = len(self.pad_numbers) + 1

    def _free_gone_seats(self) -> None:
        """Free the seat of every gamepad unplugged while another screen was on top (track select,
        a race): nobody could press Back on it, and Back would never leave the lobby."""
        gone = [s.device for s in self.table.humans if not self.ctx.device_present(s.device)]
        for device in gone:
            self.table.leave(device)
        if gone:
            self.message = "A gamepad was unplugged: its seat is free again."

    def update(self, dt: float) -> None:
        self._free_gone_seats()
        phones = self.ctx.phones
        if phones is not None and phones.on:
            for event in phones.lobby_events():
                self._phone_event(phones, event)
            phones.publish_lobby(self.table.seats)

    @property
    def phones_on(self) -> bool:
        return self.ctx.phones is not None and self.ctx.phones.on

    def toggle_phones(self) -> None:
        """The Phones row: start the server (a new room code) or stop it (phone seats are freed)."""
        phones = self.ctx.phones
        if phones is None:
            self.message = "Phones are not available here."
            return
        if phones.on:
            phones.stop()
            for spec in [s for s in self.table.humans if (s.device or "").startswith("phone:")]:
                self.table.leave(spec.device)
            self.message = "Phones off: nothing listens on the network."
        else:
            phones.start()
            self.message = "Phones on: scan the code or open the address, then type the room code."
        self.ctx.audio.play("confirm")

    def _phone_event(self, phones, event) -> None:
        from game.phones.events import Joined, LookWanted
        from game.presentation.phones import phone_device

        device = phone_device(event.phone)
        if isinstance(event, Joined):
            if self.table.seat_of(device) is None and self.table.join(device) is None:
                phones.refuse(device, f"All {MAX_SEATS} seats are taken.")
                return
            self.table.take_look(self.table.seat_of(device), name=event.name)
            self.table.rows.pop(device, None)  # its cursor is on the phone, not the TV
            self.ctx.audio.play("join")
            self.message = f"{event.name} joined on a phone."
        elif isinstance(event, LookWanted):
            seat = self.table.seat_of(device)
            if seat is not None and not self.table.take_look(seat, color=event.colour):
                phones.tell(device, "colour", "Somebody has that colour: pick a free one.")
    def handle(self, action) -> None:
        source = getattr(action, "source", "")
        device = device_of(source)
        if source.startswith("phone:"):
            self._phone_action(action)
            return
        if isinstance(action, DeviceRemoved):
            if self.table.leave(device):
                self.message = "A gamepad was unplugged: its seat is free again."
            return
        self._free_gone_seats()  # before a Back that may leave the lobby in this same frame
        if isinstance(action, DeviceAdded):
            self.message = f"{action.name or 'A gamepad'} connected: press A to join."
            return
        if self._mouse(action):
            return
        verb = nav(action)
        if verb is None:
            return
        seat = self.table.seat_of(device)
        if seat is None:
            if verb in (OK, START):
                self._pad_number(device)
                if self.table.join(device) is None:
                    self.message = f"All {MAX_SEATS} seats are taken."
                else:
                    self.ctx.audio.play("join")
                    self.message = ""
            elif verb == BACK and not self.table.humans:
                self.ctx.audio.play("back")
                self.stack.pop()
            return
        row = self.table.rows.get(device, 0)
        what = ROWS[row]
        if verb in (UP, DOWN):
            self.table.rows[device] = (row + (1 if verb == DOWN else -1)) % len(ROWS)
            self.ctx.audio.play("tick")
        elif what == "phones" and verb in (LEFT, RIGHT, OK):
            self.toggle_phones()
        elif verb in (LEFT, RIGHT):
            step = 1 if verb == RIGHT else -1
            if what in ("name", "colour", "symbol", "handicap", "assist"):
                self.table.cycle(seat, what, step)
            elif what == "cpu":
                self.table.cpu_level = (self.table.cpu_level + step) % len(CPU_LEVELS)
            self.ctx.audio.play("tick")
        elif verb == OK:
            if what == "cpu":
                if self.table.add_cpu() is None:
                    self.message = f"All {MAX_SEATS} seats are taken."
                self.ctx.audio.play("confirm")
            elif what == "start":
                self.start()
            else:
                self.table.rows[device] = row + 1
                self.ctx.audio.play("tick")
        elif verb == START:
            self.start()
        elif verb == BACK:
            if what == "cpu" and self.table.remove_cpu():
                self.ctx.audio.play("back")
            else:
                self.table.leave(device)
                self.ctx.audio.play("back")

    def _phone_action(self, action) -> None:
        """Phones join through :meth:`update`; here they only come and go."""
        seat = self.table.seat_of(action.source)
        if seat is None:
            return
        name = self.table.seats[seat].name
        if isinstance(action, DeviceRemoved):
            if getattr(action, "left", True):
                self.table.leave(action.source)
                self.message = f"{name} left: the seat is free again."
            else:
                self.message = f"{name}'s phone lost its connection: the seat waits for it."
        elif isinstance(action, DeviceAdded):
            self.message = f"{name}'s phone is back."

    def start(self) -> None:
        if not self.table.seats:
            self.message = "Nobody has joined yet."
            return
        self.ctx.settings.player_names = [s.name for s in self.table.humans] or self.ctx.settings.player_names
        self.ctx.lineup = self.table.lineup()  # the next lobby, cup and time trial seat them again
        self.ctx.settings.lineup = [seat_record(s) for s in self.table.seats]
        self.message = self.ctx.save_settings()
        self.ctx.audio.play("confirm")
        self.ctx.screens.push(self.stack, self.next_screen, self.ctx, self.table.lineup())

    # -- the mouse ------------------------------------------------------------
    def _mouse(self, action) -> bool:
        """The pointer and clicks on the cards and the footer rows; True when the action was the mouse's.

        The pointer only shows where a click lands (it moves nobody's cursor). A click on a row of
        a person's card puts that seat's cursor there; on the row its cursor is on already, the
        ``<`` half steps the value back and the ``>`` half on, as left and right do. A click on a
        footer row does what confirm does there (the ``<`` and ``>`` of the CPU level change it);
        on a free seat it seats keyboard 1, whose keys the mouse shares.
        """
        if isinstance(action, PointAt):
            self.pointer = action.pos
            return True
        if not isinstance(action, ClickAt):
            return False
        self.pointer = action.pos
        zone = next((z for z in reversed(self.zones) if z.rect.collidepoint(action.pos)), None)
        if zone is None:
            return True
        step = -1 if action.pos[0] < zone.middle else 1
        if zone.what == "free":
            if self.table.seat_of(device_of("mouse")) is None:
                self.handle(Confirm("mouse"))  # the mouse's device is keyboard 1's (``device_of``)
            else:
                self.message = "Keyboard 1 (and the mouse) has a seat: a gamepad joins with A, keyboard 2 with K."
        elif zone.seat is not None:
            spec = self.table.seats[zone.seat]
            row = ROWS.index(zone.what)
            if self.table.rows.get(spec.device) != row:
                self.table.rows[spec.device] = row
            elif action.pos[0] >= zone.value_left:
                self.table.cycle(zone.seat, zone.what, step)
            self.ctx.audio.play("tick")
        elif zone.what == "cpu" and zone.value_left <= action.pos[0] < zone.value_right:
            self.table.cpu_level = (self.table.cpu_level + step) % len(CPU_LEVELS)
            self.ctx.audio.play("tick")
        elif zone.what == "cpu":
            if self.table.add_cpu() is None:
                self.message = f"All {MAX_SEATS} seats are taken."
            self.ctx.audio.play("confirm")
        elif zone.what == "phones":
            self.toggle_phones()
        elif zone.what == "start":
            self.start()
        return True

    def _zone(self, surface: pygame.Surface, rect: pygame.Rect, what: str, seat: int | None = None,
              value: tuple[int, int] = (0, 0)) -> None:
        """A place a click acts on (kept for the next click), shaded while the pointer is over it."""
        zone = Zone(pygame.Rect(rect), what, seat, *value)
        self.zones.append(zone)
        if self.pointer is not None and zone.rect.collidepoint(self.pointer):
            surface.blit(self.ctx.text.panel(zone.rect.size, (*theme.pens(1)[0].light, 90)), zone.rect)

    # -- drawing --------------------------------------------------------------
    def draw(self, surface: pygame.Surface) -> None:
        self._draw_screen(surface)
        draw_badge(surface, self.ctx, self.badge)

    def plan(self, w: int, h: int, top: int) -> LobbyPlan:
        """Where the cards, the phones' card and the footer go in a ``w`` x ``h`` window below ``top``.

        The text size is the largest (from the menus' 24, at 720 lines) at which two rows of four
        cards and the footer stand above the help band and a card is ten text sizes wide. With the
        phones on, a wide window (16:9) gives the phones' card a column beside the cards; a squarer
        one (4:3, 5:4), whose width the cards need, puts it beside the footer, below the cards, in the
        height such a window has to spare (there it left the lower half of the screen empty).
        """
        ctx = self.ctx
        size = ctx.font(24)
        hint_top = h - ctx.font(17) * 2 - ctx.font(17) // 2  # the help band at the foot of the page
        phones = self.phones_on
        below = phones and w < h * 1.6  # the phones' card beside the footer, not beside the cards
        least = 10
        while size > least and top + 2 * (int(size * CARD_H) + size) + size // 2 + int(size * FOOT_H) > \
                hint_top - size // 2:
            size -= 1
        fixed = 8 + (12 if phones and not below else 0)  # the margins, gaps and phones' column, in text sizes
        while size > least and (w - size * fixed) / 4 < size * 10:
            size -= 1
        gap, left = size, size * 4
        qr_w = size * 11 if phones and not below else 0
        card_w = (w - gap * 5 - size * 3 - (qr_w + gap if qr_w else 0)) // 4
        card_h = int(size * CARD_H)
        cards = [pygame.Rect(left + (k % 4) * (card_w + gap), top + (k // 4) * (card_h + gap), card_w, card_h)
                 for k in range(MAX_SEATS)]
        y = top + 2 * (card_h + gap) + size // 2
        foot_h = int(size * FOOT_H)
        if below:
            room = max(foot_h, hint_top - size // 2 - y)  # the phones' card and the footer share the height left
            qr_w = max(size * 11, min(room + size * 9, int((w - left - gap) * 0.48)))  # the code beside the QR
            phones_rect = pygame.Rect(w - gap - qr_w, y, qr_w, room)
            footer = pygame.Rect(left, y, phones_rect.left - gap - left, room)
        else:
            phones_rect = pygame.Rect(w - gap - qr_w, top, qr_w, 2 * card_h + gap) if qr_w else None
            footer = pygame.Rect(left, y, w - left - gap, foot_h)
        return LobbyPlan(size, cards, phones_rect, footer)

    def _draw_screen(self, surface: pygame.Surface) -> None:
        ctx = self.ctx
        top = self.backdrop.draw(surface, ctx, "Who is racing?",
                                 "Join: A on a gamepad  ·  Enter or S for keyboard 1  ·  K for keyboard 2  ·  "
                                 "phones: the Phones row")
        w, h = surface.get_size()
        plan = self.shown = self.plan(w, h, top)
        size = plan.size
        self.zones = []
        cursors = {}
        for device, row in self.table.rows.items():
            cursors.setdefault(row, []).append(self.table.seat_of(device))
        for k, rect in enumerate(plan.cards):
            self._draw_card(surface, rect, k, size)
        if plan.phones is not None:
            self._draw_phones(surface, plan.phones, size)
        footer = plan.footer
        draw_panel(surface, footer, ctx)
        level = LEVEL_NAMES[CPU_LEVELS[self.table.cpu_level]]
        phones = "Phones: on  (confirm: turn off)" if self.phones_on else \
            "Phones: off  (confirm: let phones join as controllers)"
        rows = [("cpu", f"Add a CPU driver:  <  {level}  >   (Back here removes the last CPU)"),
                ("phones", phones),
                ("start", "Start: pick a track  (or press Start on a gamepad)")]
        x = footer.left + size * 4
        if ctx.text.size_of(rows[0][1], int(size * 0.8), True)[0] > footer.right - size - x:
            rows = [("cpu", f"Add a CPU driver:  <  {level}  >"), ("phones", phones.partition("  (")[0]),
                    ("start", "Start: pick a track")]  # a footer beside the phones' card: the short words
        spread = min(size * 2.6, (footer.height - size * 2) / 2)  # a taller footer (5:4) spreads its rows
        for n, (name, label) in enumerate(rows):
            ry = footer.top + max(size * 0.5, (footer.height - size - 2 * spread) / 2) + n * spread
            fitted = ctx.text.fit(label, size, footer.right - size - x, bold=True)
            value = (0, 0)
            if name == "cpu":  # "<  Pro  >": a click there changes the level, elsewhere adds the CPU
                lead = ctx.text.size_of("Add a CPU driver:  ", fitted, True)[0]
                value = (x + lead, x + ctx.text.size_of(f"Add a CPU driver:  <  {level}  >", fitted, True)[0])
            self._zone(surface, pygame.Rect(footer.left + 2, int(ry - size * 0.35), footer.width - 4,
                                            int(size * 1.7)), name, value=value)
            ctx.text.blit(surface, label, fitted, theme.INK, (x, ry + (size - fitted) // 2), bold=True)
            marks = [s for s in cursors.get(ROWS.index(name), []) if s is not None]
            for j, seat in enumerate(marks):
                spec = self.table.seats[seat]
                theme.draw_symbol(surface, theme.SYMBOLS[spec.symbol], (footer.left + size * (1 + j * 0.9),
                                  ry + size * 0.55), size * 0.38, theme.COLORS[spec.color])
        draw_hint(surface, ctx, self.message or self._waiting() or "up/down: move  ·  left/right: change  ·  "
                  "confirm: next / add  ·  back: leave your seat  ·  mouse: click a row, its < or >")

    def _draw_phones(self, surface: pygame.Surface, rect: pygame.Rect, size: int) -> None:
        """The phones' card: the QR code of the address, the room code in big digits, the address; in a
        card wider than tall (below the seats, in a squarer window) the words stand beside the code."""
        ctx, phones = self.ctx, self.ctx.phones
        draw_panel(surface, rect, ctx)
        code_size = int(size * 1.9)
        url = phones.url
        beside = rect.width > rect.height * 1.3
        if beside:
            side = min(rect.height - size, rect.width - size * 9)
            words = pygame.Rect(rect.left + side + size, rect.top, rect.right - rect.left - side - size, rect.height)
            title_y = words.top + (words.height - size - code_size - size * 2.8) // 2
            code_y, url_y = title_y + size * 1.6, title_y + size * 1.9 + code_size
            picture_at = {"midleft": (rect.left + size // 2, rect.centery)}
        else:
            side = min(rect.width - size, rect.height - size * 2 - code_size - size * 2)
            words, title_y = rect, rect.top + size // 2
            code_y, url_y = rect.bottom - size * 1.6 - code_size, rect.bottom - size * 1.3
            picture_at = {"midtop": (rect.centerx, rect.top + size * 2)}
        ctx.text.blit(surface, "Join with a phone", ctx.text.fit("Join with a phone", size, words.width - size, True),
                      theme.INK, (words.centerx, title_y), "midtop", bold=True)
        if url:
            picture = self._qr_picture(url, side)
            if picture is not None:
                surface.blit(picture, picture.get_rect(**picture_at))
            ctx.text.blit(surface, phones.code, code_size, theme.INK, (words.centerx, code_y), "midtop", bold=True)
            ctx.text.blit(surface, url.removeprefix("http://").rstrip("/"),
                          ctx.text.fit(url, int(size * 0.8), words.width - size // 2), theme.HUD_DIM,
                          (words.centerx, url_y), "midtop")
        else:
            note = phones.error or "starting..."
            for k, line in enumerate(wrap_to(ctx.text, note, int(size * 0.8), words.width - size)):
                ctx.text.blit(surface, line, int(size * 0.8), theme.DOOM if phones.error else theme.HUD_DIM,
                              (words.centerx, words.centery + k * size), "midtop")

    def _qr_picture(self, url: str, side: int) -> pygame.Surface | None:
        """The QR code of the address at ``side`` pixels: None until its worker has made the modules."""
        from game.presentation.jobs import Job
        from game.presentation.phones import qr_matrix, qr_surface

        if self._qr is not None and self._qr[0] == (url, side):
            return self._qr[1]
        job = self._qr_job
        if job is None or job.url != url:
            job = self._qr_job = Job(lambda: qr_matrix(url), name="qr-code")
            job.url = url
        if not job.done:
            return None
        self._qr = ((url, side), qr_surface(job.result, side) if job.result else None)
        return self._qr[1]

    def _waiting(self) -> str:
        """Who of the last line-up has not sat down yet (their seats are kept for them)."""
        seated = {s.name for s in self.table.seats}
        people = [s.name for s in self.table.remembered if s.name not in seated]
        if not people:
            return ""
        return f"Last line-up: {', '.join(people)}, press A / Enter / K to take your seat back  ·  Start: go"

    def _draw_card(self, surface: pygame.Surface, rect: pygame.Rect, k: int, size: int) -> None:
        """Seat ``k``'s card: a free seat's invitation, a CPU's name and manner, or a person's name,
        device and the rows their cursor moves over (name, colour, symbol, handicap and assist),
        in text as large as the card's name line allows: read from the sofa, not only up close."""
        ctx = self.ctx
        draw_panel(surface, rect, ctx)
        note, name_size, small = int(size * 0.9), int(size * 1.3), int(size * DETAIL)
        if k >= len(self.table.seats):
            self._zone(surface, rect.inflate(-4, -4), "free")
            ctx.text.blit(surface, f"seat {k + 1}", note, theme.HUD_DIM, (rect.left + 8, rect.top + 6))
            words = "press A / Enter / K"
            ctx.text.blit(surface, words, ctx.text.fit(words, size, rect.width - size), theme.ILLEGAL, rect.center,
                          "center")
            ctx.text.blit(surface, "to join", note, theme.ILLEGAL, (rect.centerx, rect.centery + size), "center")
            return
        spec = self.table.seats[k]
        color, symbol = theme.COLORS[spec.color], theme.SYMBOLS[spec.symbol]
        pygame.draw.rect(surface, color, rect, 3)
        theme.draw_symbol(surface, symbol, (rect.left + size * 1.6, rect.top + size * 1.8), size * 0.9, color)
        room = rect.right - size // 2 - (rect.left + size * 3.2)
        ctx.text.blit(surface, spec.name, ctx.text.fit(spec.name, name_size, room, bold=True), color,
                      (rect.left + size * 3.2, rect.top + size * 0.5), bold=True, width=room)
        kind = device_label(spec.device, self.pad_numbers) if spec.is_human else f"CPU · {LEVEL_NAMES[spec.kind]}"
        ctx.text.blit(surface, kind, ctx.text.fit(kind, note, room), theme.HUD_DIM,
                      (rect.left + size * 3.2, rect.top + size * 1.95))
        if not spec.is_human:
            driver = driver_of(spec)
            if driver is not None:  # a line of character, where the people's rows are
                manner = f"\u201c{driver.manner}\u201d"  # fitted: the cards narrow when the phones' card shows
                fitted = ctx.text.fit(manner, small, rect.width - size * 1.5)
                manner = ctx.text.shorten(manner, fitted, rect.width - size * 1.5)  # (a line of character may be cut)
                ctx.text.blit(surface, manner, fitted, color, (rect.left + size * 1.0, rect.top + size * 3.6))
            return
        row = self.table.rows.get(spec.device, 0)
        phone = device_label(spec.device, {}) == "phone"  # a phone has no cursor here, and no clicks
        labels = [("name", spec.name, 0), ("colour", _colour_name(spec.color), 1), ("symbol", symbol, 2),
                  ("handicap", str(spec.handicap) if spec.handicap else "none", 3),
                  ("assist", "coach" if spec.assist else "none", 3)]
        texts = {what: f"{what}:  < {value} >" if ROWS[row] == what and not phone else f"{what}:  {value}"
                 for what, value, _ in labels}
        # the handicap and the coaching assist share the last line, each in the part of it its words need
        # (halves shrank "handicap: none" to half the others' size)
        line = rect.right - size // 2 - (rect.left + size)
        wants = [ctx.text.size_of(texts[what], small, ROWS[row] == what)[0] for what in ("handicap", "assist")]
        split = int((line - size // 2) * wants[0] / sum(wants)) + size // 2
        for what, value, n in labels:
            y = rect.top + size * (LINES_AT + n * LINE_STEP)  # four lines inside the card
            x = rect.left + size * 1.0 + (split if what == "assist" else 0)
            room = split - size // 2 if what == "handicap" else rect.right - size // 2 - x
            on = ROWS[row] == what and not phone
            text = texts[what]
            fitted = ctx.text.fit(text, small, room, on)
            if not phone:
                lead = ctx.text.size_of(f"{what}:  ", fitted, on)[0]
                self._zone(surface, pygame.Rect(x - size // 3, int(y - size * 0.06), room + size // 3,
                                                int(size * LINE_STEP)), what, k,
                           (x + lead, x + ctx.text.size_of(text, fitted, on)[0]))
            ctx.text.blit(surface, text, fitted, color if on else theme.HUD_TEXT, (x, y), bold=on)
            if on:
                theme.draw_symbol(surface, symbol, (x - size * 0.5, y + fitted * 0.5), small * 0.3, color)


@dataclass(frozen=True)
class LobbyPlan:
    """Where :meth:`LobbyScene.plan` puts things: the text size, the eight cards, the phones' card
    (None with the phones off) and the footer of shared rows."""

    size: int
    cards: list
    phones: pygame.Rect | None
    footer: pygame.Rect


@dataclass(frozen=True)
class Zone:
    """A place on the lobby a click acts on: a seat's row (``seat`` set), a footer row or a free seat.
    ``value_left``/``value_right``: where its ``< value >`` stands (a click's half picks the step)."""

    rect: pygame.Rect
    what: str
    seat: int | None = None
    value_left: int = 0
    value_right: int = 0

    @property
    def middle(self) -> float:
        return (self.value_left + self.value_right) / 2


#: The card's height, the footer's, where a person's rows start and how far apart they stand, and
#: their text, all in text sizes: the rows at the full size are read from a sofa (at 0.8 they were not).
CARD_H, FOOT_H, LINES_AT, LINE_STEP, DETAIL = 7.7, 5.7, 2.95, 1.12, 0.95


def _colour_name(index: int) -> str:
    return ("blue", "vermillion", "green", "purple", "orange", "black", "sky", "olive")[index % 8]
