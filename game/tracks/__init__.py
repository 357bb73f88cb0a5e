"""Level packs (TOML) and Karopapier maps turned into core tracks, with located errors.

The public API (everything a game, a tool or a test needs):

- :func:`track_from_charmap` compiles a char map (Karopapier letters) into a ``Track``;
  :func:`check_charmap` does the same but returns ``(track or None, problems)``;
  :func:`check_outline` does it for an outline table.
- :func:`load_pack` reads one pack file into a :class:`PackResult` (the :class:`Pack`
  with its good tracks, plus every problem); :func:`load_packs` reads folders of packs
  and ``.map`` files; :func:`read_map_file` reads one Karopapier ``.map`` file;
  :func:`write_pack` writes a pack back as TOML.
- :func:`load_track_ref` finds one track by reference: ``PACK/TRACK`` (built-in),
  ``path/pack.toml#TRACK`` or ``path/file.map``.
- :class:`Problem` is one located error or warning (``file:line: [track "id"] key: message``);
  :class:`TrackError` is the one error type the loaders raise, listing every problem.

``docs/level-packs.md`` explains the formats and every check for modders.
"""

from game.tracks.charmap import check_charmap, parse_forward, track_from_charmap
from game.tracks.pack import (
    Pack,
    PackResult,
    load_pack,
    load_packs,
    load_track_ref,
    read_map_file,
    read_pack_text,
    write_pack,
)
from game.tracks.problems import ERROR, WARNING, Problem, TrackError


def __getattr__(name: str):
    """``check_outline`` is imported on first use: a pack of char maps never needs the outline checks."""
    if name == "check_outline":
        from game.tracks.outline import check_outline

        return check_outline
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ERROR", "WARNING", "Pack", "PackResult", "Problem", "TrackError", "check_charmap", "check_outline",
    "load_pack", "load_packs", "load_track_ref", "parse_forward", "read_map_file", "read_pack_text",
    "track_from_charmap", "write_pack",
]
