"""Scenes and the scene stack: the framework every screen of the game is built on.

A :class:`Scene` has a fixed lifecycle, called by the app in this order:

- ``enter(stack)`` when it becomes part of the stack (``stack`` lets it push, pop or
  replace scenes later);
- each frame, for the top scene: ``handle(action)`` for every input action, then
  ``update(dt)`` with the seconds since the last frame; then ``draw(surface)`` for every
  scene from the lowest visible one upward (a scene with ``opaque = False``, such as
  the pause overlay, lets the scene under it be drawn first);
- ``exit()`` when it is popped or replaced.

Scenes only change themselves in ``handle`` and ``update``; ``draw`` only reads.
Time is passed in, never read from a clock, so scenes can be driven frame by frame in
tests. Menus and lobbies are written the same way: subclass :class:`Scene`, and
``stack.push(MyScene(...))``.
"""

from __future__ import annotations

from typing import Callable


class Scene:
    """Base class: override what you need; the defaults do nothing."""

    #: False for overlays: the scene below is drawn first, then this one on top.
    opaque: bool = True
    #: True while a scene wants the lower scenes to keep updating too (rarely wanted).
    passes_updates: bool = False

    def __init__(self) -> None:
        self.stack: SceneStack | None = None

    def enter(self, stack: SceneStack) -> None:
        self.stack = stack

    def exit(self) -> None:
        pass

    def handle(self, action) -> None:
        pass

    def update(self, dt: float) -> None:
        pass

    def draw(self, surface) -> None:
        pass

    def resize(self, size: tuple[int, int]) -> None:
        """The window changed size; drop caches that depend on it."""


class SceneStack:
    """The scenes of the running app, bottom to top; the top one gets input and time.

    ``quit_requested`` becomes True when the last scene is popped or :meth:`quit` is called.
    """

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self.scenes: list[Scene] = []
        self.quit_requested = False
        self._on_change = on_change

    @property
    def top(self) -> Scene | None:
        return self.scenes[-1] if self.scenes else None

    def push(self, scene: Scene) -> None:
        self.scenes.append(scene)
        scene.enter(self)
        self._changed()

    def pop(self) -> Scene | None:
        if not self.scenes:
            return None
        scene = self.scenes.pop()
        scene.exit()
        if not self.scenes:
            self.quit_requested = True
        self._changed()
        return scene

    def replace(self, scene: Scene) -> None:
        """Swap the top scene for another (e.g. race -> results)."""
        if self.scenes:
            self.scenes.pop().exit()
        self.push(scene)

    def quit(self) -> None:
        while self.scenes:
            self.scenes.pop().exit()
        self.quit_requested = True

    def handle(self, action) -> None:
        if self.top is not None:
            self.top.handle(action)

    def update(self, dt: float) -> None:
        for scene in self._updated():
            scene.update(dt)

    def draw(self, surface) -> None:
        for scene in self._visible():
            scene.draw(surface)

    def resize(self, size: tuple[int, int]) -> None:
        for scene in self.scenes:
            scene.resize(size)

    def _visible(self) -> list[Scene]:
        start = len(self.scenes) - 1
        while start > 0 and not self.scenes[start].opaque:
            start -= 1
        return self.scenes[max(start, 0):]

    def _updated(self) -> list[Scene]:
        if not self.scenes:
            return []
        start = len(self.scenes) - 1
        while start > 0 and self.scenes[start].passes_updates:
            start -= 1
        return self.scenes[start:]

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()
