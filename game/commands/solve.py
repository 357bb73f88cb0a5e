"""The `racetrack solve` subcommand (being built)."""

HELP = "(not built yet)"


def add_arguments(parser) -> None:
    pass


def run(args) -> int:
    print("racetrack solve: not built yet")
    return 1
