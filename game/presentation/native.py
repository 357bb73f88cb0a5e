"""Keeping what SDL and the C libraries under it print off the player's terminal.

Opening the video and audio devices makes SDL and ALSA write straight to the process's
standard error (``ALSA lib confmisc.c:855:(parse_card) cannot find card '0'`` nine
times on a machine without a sound card, ``XDG_RUNTIME_DIR is invalid`` without a
desktop session). They print below Python, so :func:`quiet_native_output` points file
descriptor 2 at the null device for the duration of such a call; whatever went wrong is
still reported by the call's own result (a ``pygame.error``, a dummy driver).
"""

from __future__ import annotations

import contextlib
import os
import sys


@contextlib.contextmanager
def quiet_native_output():
    """While inside, what C code writes to standard error goes nowhere (Python's own writes too)."""
    try:
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass
    try:
        saved = os.dup(2)
    except OSError:  # no standard error at all: nothing to keep quiet
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
