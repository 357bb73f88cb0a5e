"""Running one test module in a fresh interpreter of its own.

A stop-gap for modules whose virtual gamepads a whole-suite run breaks (an earlier test file
leaves pygame/SDL's joystick state behind; not found yet): the module's tests run in a child
``pytest`` with ``RACETRACK_FRESH_PADS=1``, asserted the same way, and one wrapper test in the
suite fails when any of them fails.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

FRESH = os.environ.get("RACETRACK_FRESH_PADS") == "1"
WRAPPER = "test_every_test_of_the_module_passes_in_a_fresh_process"


def module_in_a_fresh_process(path: str):
    """The wrapper test and the autouse fixture that skips the module's own tests outside the child."""

    @pytest.mark.skipif(FRESH, reason="this is the fresh process itself")
    def wrapper():
        env = {**os.environ, "RACETRACK_FRESH_PADS": "1"}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", path],
                              env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]

    @pytest.fixture(autouse=True)
    def only_in_the_fresh_process(request):
        if not FRESH and request.node.name != WRAPPER:
            pytest.skip(f"run in a fresh process by {WRAPPER}")

    return wrapper, only_in_the_fresh_process
