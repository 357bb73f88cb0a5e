"""The ``racetrack`` command: with no arguments it starts the game; subcommands are tools.

Each subcommand lives in its own module under ``game.commands`` with ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``. Errors Racetrack raises on purpose
become a one-line message and exit status 1 (2 for an illegal move in a replay);
a player never sees a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from typing import Sequence

from game.core.errors import RacetrackError

SUBCOMMANDS = {
    "play": "game.commands.play",
    "validate": "game.commands.validate",
    "replay": "game.commands.replay",
    "debrief": "game.commands.debrief",
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


#: The exit status of a command whose output pipe was closed (``racetrack validate | head -1``):
#: 128 + SIGPIPE, what the shell reports for any program the closed pipe stopped.
CLOSED_PIPE = 141


def safe_streams(streams=None) -> None:
    """Let stdout and stderr print any text: what the terminal's encoding cannot show is escaped.

    On a terminal that is not UTF-8 (``LC_ALL=C`` without UTF-8 mode, or ``PYTHONIOENCODING=ascii``)
    a name holding "ä" or an emoji prints as ``\\xe4`` or ``\\U0001f3ce`` instead of
    stopping the command; so does a file name with bytes that are not UTF-8.
    """
    for stream in (sys.stdout, sys.stderr) if streams is None else streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a stream already closed or detached: nothing to print to
                pass


class TerminalSafe:
    """A text stream that escapes control characters (all but newline and tab) before they reach the terminal.

    A name read from a file (a pack's file name, a track's name) could hold an escape
    sequence that clears or recolours the terminal, or a carriage return that hides what
    came before it on the line: the real ``racetrack`` command prints them as ``\\x1b``.
    Everything else is passed to the wrapped stream.
    """

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from game.files import shown

        self._stream.write(_UNSAFE.sub(lambda m: shown(m.group()), text))
        return len(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def closed_pipe() -> int:
    """The output pipe was closed by its reader: end quietly with :data:`CLOSED_PIPE`.

    Standard output is pointed at the null device, so the interpreter's last flush at exit
    does not complain about the pipe again.
    """
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError, AttributeError):
                pass
        os.close(devnull)
    except OSError:
        pass
    return CLOSED_PIPE


def _is_closed_pipe(error: BaseException) -> bool:
    return isinstance(error, BrokenPipeError) or (isinstance(error, OSError) and error.errno == 32)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``racetrack`` script."""
    if argv is None:  # the real command, not a test calling main([...])
        install_signal_handlers()
        safe_streams()
        sys.stdout, sys.stderr = TerminalSafe(sys.stdout), TerminalSafe(sys.stderr)
    else:
        safe_streams()
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv or ["play"])
    try:
        try:
            status = int(args.run(args) or 0)
            sys.stdout.flush()  # here, not at exit, so a closed pipe is seen where it can be handled
            return status
        except RacetrackError as error:
            print(f"racetrack: {error}", file=sys.stderr)
            return getattr(error, "exit_status", 1)
        except KeyboardInterrupt:
            return 130
        except Terminated:
            return 143
        except Exception as error:  # a bug of ours: one line for the player, the traceback in a file
            if _is_closed_pipe(error):
                return closed_pipe()
            return report_error(error)
    except BrokenPipeError:  # the message itself went to a closed pipe (``2>&1 | head``)
        return closed_pipe()


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
