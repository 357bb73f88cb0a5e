"""Level packs (TOML) and Karopapier maps turned into core tracks, with located errors.

The public API (everything a game, a tool or a test needs):

- :func:`track_from_charmap` compiles a char map (Karopapier letters) into a ``Track``;
  :func:`check_charmap` does the same but returns ``(track or None, problems)``.
- :class:`Problem` is one located error or warning (``file:line: [track "id"] key: message``);
  :class:`TrackError` is the one error type the loaders raise, listing every problem.

``docs/level-packs.md`` explains the formats and every check for modders.
"""

from game.tracks.charmap import check_charmap, parse_forward, track_from_charmap
from game.tracks.problems import ERROR, WARNING, Problem, TrackError

__all__ = ["ERROR", "WARNING", "Problem", "TrackError", "check_charmap", "parse_forward", "track_from_charmap"]
