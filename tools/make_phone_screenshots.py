"""Render the screenshots of docs/phones.md: the TV's lobby with the QR code, a phone's page
(390x844, Debian's headless Chromium) while aiming, and the TV's race at that moment (the
phone's aim not drawn, its card saying "choosing", then "chosen"); the phone asked the pause
menu's question (and the TV asking it); a phone aiming a pen flick with its meter.

Run from the checkout (headless, under a minute; needs chromium, chromium-driver, selenium)::

    python tools/make_phone_screenshots.py [--out docs/screenshots]

The server listens on 127.0.0.1 only; the lobby shows a made-up LAN address (192.168.1.23)
as a real TV would show its own. Settings go to a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def chromium(profile: Path, size: tuple[int, int] = (390, 844)):
    """Chromium as a phone of ``size`` CSS pixels with touch, on a fresh profile, quiet on the network."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": size[0], "height": size[1], "pixelRatio": 2.0, "touch": True}})
    return webdriver.Chrome(options=options, service=Service(executable_path=shutil.which("chromedriver")))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/screenshots")
    parser.add_argument("--phone", default="390x844", help="the phone's size in CSS pixels (844x390: sideways)")
    args = parser.parse_args(argv)
    phone_size = tuple(int(v) for v in args.phone.split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    import pygame
    from selenium.webdriver.common.by import By

    from game import paths
    from game.core.rules import preset
    from game.core.vec import Vec
    from game.phones.server import PhoneServer
    from game.presentation.app import App, DisplayConfig, init_pygame
    from game.presentation.input import Confirm, MoveCursor
    from game.presentation.menus import build_context
    from game.presentation.menus.lobby import LobbyScene
    from game.presentation.menus.race import RacePlan, start_race
    from game.presentation.menus.tracks import load_entries
    from game.presentation.phones import PhoneLink

    tmp = Path(tempfile.mkdtemp(prefix="racetrack-phones-"))
    init_pygame(headless=True)
    app = App(DisplayConfig(size=(1280, 720)))
    ctx = build_context(tmp / "config", None, paths.builtin_tracks_dir(), seed=7)
    ctx.size, ctx.app = app.size, app
    ctx.phones = PhoneLink(lambda: PhoneServer(host="127.0.0.1", port=0, advertise="192.168.1.23"))
    app.feeds.append(ctx.phones)
    driver = chromium(tmp / "profile", phone_size)

    def frames(n: int = 1) -> None:
        for _ in range(n):
            app.step(1 / 60, events=[])
            time.sleep(0.005)

    def until(done, what: str, timeout: float = 20.0) -> None:
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() > end:
                raise SystemExit(f"timed out waiting for {what}")
            frames(3)

    try:
        lobby = LobbyScene(ctx)
        app.push(lobby)
        lobby.handle(Confirm("keys"))
        for _ in range(4):
            lobby.handle(MoveCursor("keys", 0, 1))
        lobby.handle(Confirm("keys"))
        assert ctx.phones.wait_ready(), ctx.phones.error
        driver.get(f"http://127.0.0.1:{ctx.phones.server.bound_port}/")
        driver.find_element(By.ID, "code").send_keys(ctx.phones.code)
        driver.find_element(By.ID, "name").send_keys("Zoe")
        driver.find_element(By.ID, "enter").click()
        until(lambda: lobby.table.seat_of("phone:1") is not None, "the phone's seat")
        until(lambda: driver.execute_script("return !!(view && view.t === 'lobby')"), "the colours")
        driver.save_screenshot(str(out / "phone_lobby.png"))
        lobby.table.add_cpu("cpu:rookie")
        frames(5)
        pygame.image.save(app.screen, str(out / "phones_lobby.png"))

        lineup = tuple(s for s in lobby.table.lineup() if s.is_human)
        entry = next(e for e in load_entries(ctx.builtin_dir, None) if e.ref == "starter/first-sprint")
        race = start_race(ctx, RacePlan(lineup, entry, preset("arcade"), 1), intro=False)
        app.push(race)
        zoe = race.devices["phone:1"]
        until(lambda: driver.execute_script("return !!(view && view.t === 'race' && view.turn)"), "the turn")
        view = driver.execute_script("return view")
        key = next(t["k"] for t in view["targets"] if t["k"] == [1, 0])
        driver.execute_script(f"send({{t: 'pick', k: [{key[0]}, {key[1]}], p: view.phase}});")
        until(lambda: race.highlight[zoe] == Vec(*key), "the aim")
        frames(30)
        driver.save_screenshot(str(out / "phone_page.png"))
        pygame.image.save(app.screen, str(out / "phones_race.png"))
        # Paused from the phone, and the TV's keyboard player asks to retire a car: the phone asks too.
        driver.execute_script("send({t: 'pause'});")
        until(lambda: type(app.stack.top).__name__ == "PauseMenuScene", "the pause menu")
        pause = app.stack.top
        while pause.menu.current.label != "Retire a car":
            pause.handle(MoveCursor("keys", 0, 1))
        pause.handle(Confirm("keys"))
        until(lambda: driver.execute_script("return document.getElementById('ask').classList.contains('on') && "
                                            "document.getElementById('askyes').textContent !== ''"), "the question")
        driver.save_screenshot(str(out / "phone_question.png"))
        pygame.image.save(app.screen, str(out / "phones_question_tv.png"))
        app.stack.top.refuse()
        pause.resume()
        app.stack.pop()  # the race left: the flick race next

        flick = start_race(ctx, RacePlan(lineup, entry, preset("arcade", {"movement": "flick"}), 1), intro=False)
        app.push(flick)
        until(lambda: driver.execute_script("return !!(view && view.t === 'race' && view.turn && view.flick)"),
              "the flick turn")
        driver.execute_script("flick.angle = -0.5; flick.start = performance.now() - 600;")
        time.sleep(0.2)
        driver.save_screenshot(str(out / "phone_flick.png"))
        print("saved", *(out / n for n in ("phones_lobby.png", "phone_lobby.png", "phone_page.png",
                                          "phones_race.png", "phone_question.png", "phones_question_tv.png",
                                          "phone_flick.png")))
    finally:
        driver.quit()
        ctx.phones.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
