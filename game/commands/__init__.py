"""Subcommands of the ``racetrack`` command, one module each (see ``game.cli``).

Imports inside their functions are lazy on purpose: a command module imports at its top only
what is cheap (the standard library, the rules core, files and paths), and loads the solver,
numba's kernels, pygame and the presentation inside the function that needs them, so a short
command (``--help``, ``validate``, ``replay``) starts without them (``tests/test_fast_commands.py``).
"""
