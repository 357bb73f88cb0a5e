"""The track editor's parts (run it with ``python tools/track_editor.py``).

- :mod:`.doc`: the track being edited as plain immutable values (char map or outline) and
  every edit as a pure function from one document to the next; reading and writing the
  ``[[track]]`` table of a level pack.
- :mod:`.history`: unlimited undo and redo over those documents.
- :mod:`.packio`: opening a pack's track (even a broken one) and saving into a pack file.
- :mod:`.jobs`: validation and par, computed off the frame loop; stale results dropped.
- :mod:`.view` and :mod:`.app`: the pygame window: canvas, side panel, input.

Nothing here is imported by the game; the editor uses the game's public API only.
"""
