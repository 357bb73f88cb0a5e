"""The `racetrack render` subcommand (being built)."""

HELP = "(not built yet)"


def add_arguments(parser) -> None:
    pass


def run(args) -> int:
    print("racetrack render: not built yet")
    return 1
