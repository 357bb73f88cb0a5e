"""The `racetrack import` subcommand (being built)."""

HELP = "(not built yet)"


def add_arguments(parser) -> None:
    pass


def run(args) -> int:
    print("racetrack import: not built yet")
    return 1
