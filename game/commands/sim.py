"""The `racetrack sim` subcommand (being built)."""

HELP = "(not built yet)"


def add_arguments(parser) -> None:
    pass


def run(args) -> int:
    print("racetrack sim: not built yet")
    return 1
