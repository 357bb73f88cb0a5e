"""The default kernel source: the compiled search kernels, compiled in the caller on first use.

A *kernel source* gives the solver its numba kernels (see :mod:`game.drivers.compiling` for the
sources that prepare them ahead, in the foreground or in a child process). This one sits apart
from :mod:`game.drivers.compiling` because the solver needs it as its default while
:mod:`game.drivers.compiling` needs the solver to warm the kernels up: kept here, the imports
point one way.
"""

from __future__ import annotations


def compiled_kernels():
    """The compiled kernels module (each kernel compiles or loads on its first call)."""
    # Lazy on purpose: importing the kernels imports numba, which the fast commands never load.
    from game.drivers import kernels

    return kernels


class CompiledKernels:
    """A kernel source that always gives the compiled kernels (compiled in the caller, first time)."""

    def current(self, work: int = 0):
        return compiled_kernels()

    def compiling_now(self) -> bool:
        """Never: a search with this source compiles in its own thread when it must."""
        return False
