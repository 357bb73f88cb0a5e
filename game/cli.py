"""The ``racetrack`` command: with no arguments it starts the game; subcommands are tools.

Each subcommand lives in its own module under ``game.commands`` with ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``. Errors Racetrack raises on purpose
become a one-line message and exit status 1 (2 for an illegal move in a replay);
a player never sees a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from game.core.errors import RacetrackError

SUBCOMMANDS = {
    "play": "game.commands.play",
    "validate": "game.commands.validate",
    "replay": "game.commands.replay",
    "sim": "game.commands.sim",
    "cup": "game.commands.cup",
    "solve": "game.commands.solve",
    "render": "game.commands.render",
    "import": "game.commands.import_map",
    "generate": "game.commands.generate",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="racetrack", description="Graph-paper racing for the couch.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


class Terminated(BaseException):
    """SIGTERM arrived: unwinds the game like Ctrl+C does (``finally`` blocks run), exit status 143.

    A ``BaseException``, so no ``except Exception`` on the way can swallow it.
    """


def _terminate(signum, frame) -> None:
    raise Terminated()


def install_signal_handlers() -> None:
    """Make SIGTERM end the program through :class:`Terminated` (SIGINT already raises KeyboardInterrupt).

    Only the main thread may install handlers; elsewhere (a test runner's thread) nothing is done.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGTERM, _terminate)
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
        signal.signal(signal.SIGINT, signal.default_int_handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``racetrack`` script."""
    if argv is None:  # the real command, not a test calling main([...])
        install_signal_handlers()
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv or ["play"])
    try:
        return int(args.run(args) or 0)
    except RacetrackError as error:
        print(f"racetrack: {error}", file=sys.stderr)
        return getattr(error, "exit_status", 1)
    except KeyboardInterrupt:
        return 130
    except Terminated:
        return 143
    except Exception as error:  # a bug of ours: one line for the player, the traceback in a file
        return report_error(error)


def report_error(error: Exception) -> int:
    """One clear line on stderr for any error; unexpected ones also leave a crash log."""
    if isinstance(error, RacetrackError):
        print(f"racetrack: {error}", file=sys.stderr)
        return 1
    log = _crash_log(error)
    print(f"racetrack: the game stopped after an unexpected error: {error!r}"
          + (f" (details in {log})" if log else ""), file=sys.stderr)
    return 1


def _crash_log(error: Exception) -> str | None:
    """Write the traceback to a file for bug reports; returns its path (None if it cannot)."""
    from game.crashlog import write_crash_log

    return write_crash_log(error)


if __name__ == "__main__":
    sys.exit(main())
