"""The ``racetrack`` command: with no arguments it starts the game; subcommands are tools.

Each subcommand lives in its own module under ``game.commands`` with
``add_arguments(parser)`` and ``run(args) -> int``; its help line is in :data:`SUBCOMMANDS`. Errors Racetrack raises on purpose
become a one-line message and exit status 1 (2 for an illegal move in a replay);
a player never sees a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys
import threading
from typing import Sequence

from game.core.errors import RacetrackError


#: Each subcommand: the module that runs it, and the one line ``racetrack --help`` shows for it.
#: The line lives here, not in the module, so that ``--help`` imports no command (numpy, the
#: track readers and the solver cost more than the whole rest of a short command).
SUBCOMMANDS = {
    "play": ("game.commands.play",
             "start the game (title screen); with --track/--cars/--rules/--laps, a quick race at once"),
    "validate": ("game.commands.validate",
                 "check level packs (.toml) and Karopapier maps (.map): print every problem, exit 1 on errors; "
                 "with no paths, check the built-in packs and sounds of this install"),
    "replay": ("game.commands.replay",
               "referee a replay file again and print the outcome (a table, or JSON with --json)"),
    "debrief": ("game.commands.debrief",
                "show where each car of a replay lost moves against the solver (a table, or JSON with --json)"),
    "sim": ("game.commands.sim",
            "race CPU drivers headless and print the outcome (the same JSON as `racetrack replay`)"),
    "cup": ("game.commands.cup",
            "play a cup (every track of a pack, or one of its [[cup]] tables) between CPU drivers and print "
            "the standings"),
    "solve": ("game.commands.solve",
              "compute a track's par (fewest moves for one car alone) and an optimal line"),
    "render": ("game.commands.render",
               "draw a track (optionally a replay's trails or the optimal line) to a PNG file"),
    "import": ("game.commands.import_map",
               "turn a Karopapier map (.map) into a level pack, or a game log (.json) into a replay"),
    "generate": ("game.commands.generate",
                 "make tracks from six-character codes (or random ones), checked by the solver; print them or write "
                 "a pack"),
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``racetrack`` argument parser; only the command named in ``argv`` gets its module imported.

    ``argv`` None builds every command in full (all modules imported), as tools want. With
    ``argv`` given, the other commands are listed by name and help line only: a short
    command does not pay for importing the others (the solver, pygame, the map importer).
    """
    # No command named (``racetrack --help``): no command module is imported at all.
    chosen = None if argv is None else next((a for a in argv if not a.startswith("-")), "")
    parser = argparse.ArgumentParser(prog="racetrack", description="Graph-paper racing for the couch.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_line) in SUBCOMMANDS.items():
        command = sub.add_parser(name, help=help_line, description=help_line)
        if chosen is None or name == chosen:
            module = importlib.import_module(module_name)
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
        self._stream.write(_UNSAFE.sub(_escaped, text))
        return len(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escaped(match: re.Match) -> str:
    # Imported here: game.files (TOML, paths, the write rule) is more than ``racetrack --help`` needs.
    from game.files import shown

    return shown(match.group())


def closed_pipe() -> int:
    """The output pipe was closed by its reader: end quietly with :data:`CLOSED_PIPE`.

    Standard output is pointed at the null device, so the interpreter's last flush at exit
    does not complain about the pipe again.
    """
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
    argv = argv or ["play"]
    args = build_parser(argv).parse_args(argv)

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
    from game.crashlog import write_crash_log  # only after an unexpected error

    return write_crash_log(error)


if __name__ == "__main__":
    sys.exit(main())
