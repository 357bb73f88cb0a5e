"""A phone's page in a real browser (Debian's Chromium, headless, 390x844 with touch) against the
real server: join with the code, pick a colour, a whole short race by tapping rings (aim, then
tap again to confirm) with the aim never on the TV, and a reload mid-race that keeps the seat;
a pen flick aimed by touch, and the pause menu's question answered from the phone.

Needs ``chromium`` and ``chromium-driver`` (Debian: ``apt-get install chromium chromium-driver``)
and ``pip install selenium``; skipped with that message without them (``.ci/run`` installs them).
"""

from __future__ import annotations

import os
import shutil
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
WHAT = "install Chromium and its driver (apt-get install chromium chromium-driver) and pip install selenium"
if CHROMIUM is None or DRIVER is None:
    pytest.skip(f"no Chromium here: {WHAT}", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason=WHAT)
pytest.importorskip("websockets", reason="pip install websockets (the phones' server)")

from selenium.webdriver.common.actions import interaction  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.actions.pointer_input import PointerInput  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from game.core.rules import preset  # noqa: E402
from game.core.vec import Vec  # noqa: E402
from game.phones.room import Room  # noqa: E402
from game.phones.server import PhoneServer  # noqa: E402
from game.presentation.app import App, DisplayConfig, init_pygame  # noqa: E402
from game.presentation.input import Confirm, MoveCursor, Select  # noqa: E402
from game.presentation.menus import build_context  # noqa: E402
from game.presentation.menus.lobby import LobbyScene  # noqa: E402
from game.presentation.menus.race import RacePlan, TrackEntry, start_race  # noqa: E402
from game.presentation.phones import PhoneLink  # noqa: E402
from game.tracks import track_from_charmap  # noqa: E402

CODE = "6093"
STRIP = "XXXXXXXXXX\nXSOOOOOOFX\nXSOOOOOOFX\nXOOOOOOOFX\nXXXXXXXXXX\n"


def chromium(tmp_path):
    """Chromium as a 390x844 phone with touch, on a fresh profile, quiet on the network."""
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2.0, "touch": True},
        "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                     "Chrome/120.0 Mobile Safari/537.36"})
    return webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))


@pytest.fixture
def game(tmp_path):
    init_pygame(headless=True)
    app = App(DisplayConfig(size=(640, 360)))
    ctx = build_context(tmp_path / "config", None, tmp_path, seed=3)
    ctx.size, ctx.app = app.size, app
    ctx.phones = PhoneLink(lambda: PhoneServer(host="127.0.0.1", port=0, room=Room(code=CODE)))
    app.feeds.append(ctx.phones)
    driver = chromium(tmp_path)
    yield app, ctx, driver
    driver.quit()
    ctx.phones.stop()
    while app.stack.top is not None:
        app.stack.pop()


def frames_until(app, done, timeout: float = 10.0, what: str = "") -> None:
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        for _ in range(3):
            app.step(1 / 60, events=[])
        time.sleep(0.01)


def page(driver, script: str):
    return driver.execute_script(script)


def tap(driver, x: float, y: float) -> None:
    """A finger's tap at a page point (a real touch pointer, not a click)."""
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    actions = ActionBuilder(driver, mouse=finger)
    actions.pointer_action.move_to_location(int(x), int(y)).pointer_down().pause(0.05).pointer_up()
    actions.perform()


def ring(driver, key) -> tuple[float, float]:
    """Where the page draws the ring of target ``key`` (page pixels)."""
    return tuple(page(driver, """
        const box = document.getElementById('paper').getBoundingClientRect();
        const t = view.targets.find((t) => t.k[0] === arguments[0] && t.k[1] === arguments[1]);
        return [box.left + layout.px(t.x), box.top + layout.py(t.y)];""".replace("arguments[0]", str(key[0]))
                        .replace("arguments[1]", str(key[1]))))


def wanted(view: dict) -> list[int]:
    """Drive right to the line at speed two at most, then on: a legal key of this view."""
    speed = float(view["me"]["speed"])
    safe = [t["k"] for t in view["targets"] if t["s"] in ("legal", "offroad")]
    keys = safe or [t["k"] for t in view["targets"] if t["s"] != "blocked"]  # doomed near the end wall: still go
    for k in ([1, 0], [0, 0]) if speed < 2 else ([0, 0], [-1, 0]):
        if k in keys:
            return k
    return keys[0]


def zoe_joins_from_the_page(app, ctx, driver):
    """Ada takes keyboard 1 in the lobby and turns the phones on; Zoe types the room code and her
    name in the browser's page and takes a seat. Returns the lobby."""
    lobby = LobbyScene(ctx)
    app.push(lobby)
    lobby.handle(Confirm("keys"))  # Ada, keyboard 1
    for _ in range(4):
        lobby.handle(MoveCursor("keys", 0, 1))
    lobby.handle(Confirm("keys"))  # the Phones row: on
    assert ctx.phones.wait_ready(), ctx.phones.error
    driver.get(f"http://127.0.0.1:{ctx.phones.server.bound_port}/")
    driver.find_element(By.ID, "code").send_keys(CODE)
    driver.find_element(By.ID, "name").send_keys("Zoe")
    driver.find_element(By.ID, "enter").click()
    frames_until(app, lambda: lobby.table.seat_of("phone:1") is not None, what="the phone's seat")
    return lobby


def test_a_whole_race_from_a_phone_with_blind_picks_and_a_reload(game, tmp_path):
    app, ctx, driver = game
    lobby = zoe_joins_from_the_page(app, ctx, driver)
    frames_until(app, lambda: page(driver, "return document.querySelectorAll('#colours button').length") == 8,
                 what="the colour buttons")
    free = page(driver, "return view.free")
    driver.find_elements(By.CSS_SELECTOR, "#colours button")[free[-1]].click()
    frames_until(app, lambda: lobby.table.seats[lobby.table.seat_of("phone:1")].color == free[-1],
                 what="the colour picked")
    assert page(driver, "return document.querySelectorAll('#colours button:disabled').length") == 1  # Ada's

    track = track_from_charmap(STRIP, id="strip", name="Strip")
    race = start_race(ctx, RacePlan(tuple(lobby.table.lineup()), TrackEntry("t#strip", track, "T"),
                                    preset("arcade"), 1), intro=False)
    app.push(race)
    zoe, ada = race.devices["phone:1"], race.devices["kb1"]
    reloaded = False
    while not race.controller.over:
        frames_until(app, lambda: page(driver, "return !!(view && view.t === 'race' && view.turn && !view.chosen)")
                     or race.controller.over, what="the phone's turn")
        if race.controller.over:
            break
        view = page(driver, "return view")
        if view.get("t") != "race" or not view.get("turn") or view.get("chosen"):
            continue  # the page's view changed between the two reads (the last pick arriving): wait again
        key = wanted(view)
        x, y = ring(driver, key)
        tap(driver, x, y)  # aim
        frames_until(app, lambda: race.highlight[zoe] == Vec(*key), what="the aim")
        assert zoe not in [t.car for t in race.moment().targets], "a phone's aim is drawn on the TV"
        assert race.controller.chosen(zoe) is None
        if view["phase"] == 0:
            driver.save_screenshot(str(tmp_path / "phone-aiming.png"))
        tap(driver, x, y)  # the same ring again: confirm
        frames_until(app, lambda: race.controller.chosen(zoe) is not None, what="the confirm")
        assert race.moment().lines[zoe].marker == "chosen"
        if not reloaded and view["phase"] == 1:
            reloaded = True
            driver.refresh()  # mid-race: the page reloads, its seat token kept
            frames_until(app, lambda: page(driver, "return !!(view && view.t === 'race')"), what="the reload")
            assert race.devices.get("phone:1") == zoe and not race.seats.orphans
        if ada in race.controller.waiting_humans():
            state = race.controller.state
            speed = abs(state.cars[ada].velocity.x)
            race.handle(Select("kb1", 1 if speed < 2 else 0, 0, True))
    assert reloaded and race.controller.state.cars[zoe].status == "finished"
    frames_until(app, lambda: "Race over" in page(driver, "return document.getElementById('say').textContent"),
                 what="the phone told the race is over")


def test_a_phone_flicks_its_pen_and_answers_the_tvs_question(game):
    from game.presentation.menus.confirm import ConfirmScene
    from game.presentation.menus.pause import PauseMenuScene

    app, ctx, driver = game
    lobby = zoe_joins_from_the_page(app, ctx, driver)
    track = track_from_charmap(STRIP, id="strip", name="Strip")
    race = start_race(ctx, RacePlan(tuple(lobby.table.lineup()), TrackEntry("t#strip", track, "T"),
                                    preset("arcade", {"movement": "flick"}), 1), intro=False)
    app.push(race)
    zoe = race.devices["phone:1"]
    frames_until(app, lambda: page(driver, "return !!(view && view.t === 'race' && view.turn && flick)"),
                 what="the phone's flick")
    assert driver.find_element(By.ID, "go").text == "Flick!"
    here = race.controller.state.cars[zoe].position
    x, y = page(driver, """const box = document.getElementById('paper').getBoundingClientRect();
        return [box.left + layout.px(view.me.pos[0]) + 3 * layout.cell, box.top + layout.py(view.me.pos[1])];""")
    tap(driver, x, y)  # aim straight right, at the road ahead
    assert abs(page(driver, "return flick.angle")) < 0.05
    driver.find_element(By.ID, "go").click()  # flick, wherever the meter stands
    frames_until(app, lambda: race.controller.chosen(zoe) is not None, what="the flick")
    landed = race.controller.chosen(zoe)
    assert landed.x > here.x and abs(landed.y - here.y) <= 1  # to the right, as aimed

    driver.find_element(By.ID, "pause").click()
    frames_until(app, lambda: isinstance(app.stack.top, PauseMenuScene), what="the pause")
    pause = app.stack.top
    while pause.menu.current.label != "Retire a car":
        pause.handle(MoveCursor("keys", 0, 1))
    pause.handle(Confirm("keys"))
    frames_until(app, lambda: page(driver, "return document.getElementById('askyes').offsetParent !== null"),
                 what="the question on the phone")
    assert isinstance(app.stack.top, ConfirmScene)
    assert driver.find_element(By.ID, "askq").text.startswith("Retire")
    driver.find_element(By.ID, "askno").click()  # "No, go back", from the phone
    frames_until(app, lambda: app.stack.top is pause, what="the dialog closed")
    frames_until(app, lambda: driver.find_element(By.ID, "askno").text == "Resume", what="the pause on the phone")
    driver.find_element(By.ID, "askno").click()
    frames_until(app, lambda: app.stack.top is race, what="the race resumed")
    frames_until(app, lambda: page(driver, "return document.getElementById('race').classList.contains('on')"),
                 what="the race back on the phone")
