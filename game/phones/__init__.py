"""Phones as controllers: a small local web server a phone joins with a room code.

Pure Python (no pygame): :mod:`protocol` checks every message a phone sends,
:mod:`room` holds the room code, the seat tokens and the wrong-code limits,
:mod:`server` serves the one page and its socket on a thread of its own,
:mod:`hub` is what the game's frame loop talks to (queues only, it never waits), and
:mod:`view` builds what a phone is shown of a race. ``docs/phones.md`` says what it
exposes on the local network.
"""
