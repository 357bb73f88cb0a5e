"""The frame loop's garbage-collector policy: Python's long collector passes kept out of frames.

A full (generation 2) pass of Python's cyclic garbage collector walks every object the
collector tracks: about 130 thousand in the game once the packs are read and the CPUs'
kernels loaded, 90 ms and more, falling on whichever frame happens to allocate when it is
due (Python 3.11 has no incremental collector). Almost all of those objects live as long as
the game does (modules, the packs, the kernels, the fonts), so the policy freezes them
(``gc.freeze``: collections leave them alone from then on) and the passes that remain walk
only what the game made since: a race, the menus' caches.

- :meth:`CollectorPolicy.start` (before the first frame, no frame to stall yet): collects
  everything once and freezes what is left: start-up's imports, the settings, the window.
  While the packs are read and the kernels loaded (on their threads, the title showing)
  generation 2 waits (``loading_threshold``): a full pass there would walk all they made.
- The first frame after start-up loading is done (``settled``: the packs read, the kernels
  loaded) collects the young generations and freezes everything, the packs and kernels
  too. No full pass first: it would walk 130 thousand objects for almost nothing (the
  loading leaves a few dozen objects in cycles, measured with ``tools/bench_frames.py``).
- Every screen change is a calm point: after the new screen's first frame is shown, a
  full pass over what is not frozen (a race that is over, a screen left) reclaims its cyclic
  garbage there, not in the middle of a race. Between calm points Python's own thresholds
  stay in force (generation 2 at ``old_threshold``), so a long race still reclaims its
  garbage, and those passes walk only what was made since start-up.

Nothing made after start-up loading is frozen, so every race's garbage can be reclaimed:
what stays frozen is what was alive at start-up; should part of it die later in a cycle (a
pack file changed and read again; on a first start, whose kernels compile for minutes, a
race already under way when they are ready), that is a one-off, never a growth per race
(``tools/bench_races.py --draw`` measures the growth per race with this policy on).
:meth:`CollectorPolicy.stop` unfreezes and gives back Python's thresholds.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import Callable


def _always() -> bool:
    return True


@dataclass
class CollectorPolicy:
    """When the frame loop runs the collector's long passes and what it freezes (see the module's docstring).

    ``settled`` says when start-up loading is done (the game: the pack catalogue read and
    the CPUs' kernels ready); ``old_threshold`` is generation 2's threshold between calm
    points (Python's own is 10), ``loading_threshold`` its threshold until loading is done.
    """

    settled: Callable[[], bool] = field(default=_always)
    old_threshold: int = 10
    loading_threshold: int = 1000
    started: bool = False
    frozen_settled: bool = False
    calm_passes: int = 0
    calming: bool = False  # True during a calm point's pass (the frame benchmark tells those apart)
    _thresholds: tuple[int, int, int] | None = None

    def start(self) -> None:
        """Before the first frame: collect everything once and freeze what is left."""
        if self.started:
            return
        self.started = True
        self._thresholds = gc.get_threshold()
        young, middle, _ = self._thresholds
        gc.set_threshold(young, middle, self.loading_threshold)
        gc.collect()
        gc.freeze()

    def frame(self, screen_changed: bool) -> None:
        """After a frame is shown: the freeze once start-up loading is done, a full pass if the screen changed."""
        if not self.started:
            return
        if not self.frozen_settled and self.settled():
            self.frozen_settled = True
            gc.collect(1)
            gc.freeze()
            young, middle, _ = gc.get_threshold()
            gc.set_threshold(young, middle, self.old_threshold)
        if screen_changed:
            self.calming = True
            try:
                gc.collect()
            finally:
                self.calming = False
            self.calm_passes += 1

    def stop(self) -> None:
        """The game is over: unfreeze (the process may go on: tests, tools) and give back the thresholds."""
        if not self.started:
            return
        self.started = False
        gc.unfreeze()
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
