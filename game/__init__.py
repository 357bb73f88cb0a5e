"""Racetrack: couch-arcade graph-paper racing.

Layers, each importing only from those above it in this list:

- ``game.core``: the pure rules (vectors, exact geometry, tracks, rule sets, race state);
- ``game.tracks``: level packs (TOML) and Karopapier ``.map`` files turned into tracks;
- ``game.drivers``: the driver interface, CPU drivers and the exact solver;
- ``game.race``: race control, replays and the headless referee;
- ``game.presentation``: pygame-ce scenes, drawing, input devices and sound.
"""
