"""``python -m game``: the same as the ``racetrack`` command (the game, or a subcommand)."""

import sys

from game.cli import main

if __name__ == "__main__":
    sys.exit(main())
