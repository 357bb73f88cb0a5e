"""Subcommands of the ``racetrack`` command, one module each (see ``game.cli``)."""
