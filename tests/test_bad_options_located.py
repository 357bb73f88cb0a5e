"""Bad values of the options added in issue 26, in every file that can carry them: a level
pack's ``[[cup]]`` race options (and a track's rule preset), a replay's ``[rules]`` and the
settings file. Each gives one located message naming the file, the line, the track (in a pack)
and the key, and never a traceback; what else the file holds still loads."""

from __future__ import annotations

import pytest

from game.race.replay import ReplayError, loads_replay
from game.settings import load_settings
from game.tracks.pack import read_pack_text
from tests.packs import ONE_TRACK_PACK

#: (option, value as written in TOML, words the message must hold)
BAD = [
    ("sight", '"dusk"', "rule 'sight' cannot be 'dusk'; choose one of 'day', 'night'"),
    ("sight_radius", "0", "rule 'sight_radius' must be a whole number from 2 to 20, not 0"),
    ("sight_radius", "500", "rule 'sight_radius' must be a whole number from 2 to 20, not 500"),
    ("penalty_exponent", "nan", "rule 'penalty_exponent' cannot be nan"),
    ("penalty_exponent", "2", "rule 'penalty_exponent' cannot be 2; choose one of 1, 1.5"),
    ("penalty_cap", "0", "rule 'penalty_cap' must be a whole number from 1 to 20, not 0"),
    ("penalty_cap", "21", "rule 'penalty_cap' must be a whole number from 1 to 20, not 21"),
    ("setback_moves", "1000", "rule 'setback_moves' must be a whole number from 1 to 99, not 1000"),
    ("order", '"sideways"', "rule 'order' cannot be 'sideways'; choose one of"),
    ("slipstream", '"sometimes"', "rule 'slipstream' cannot be 'sometimes'"),
    ("catch_up", "2", "rule 'catch_up' cannot be 2"),
    ("start_direction", '"backwards"', "rule 'start_direction' cannot be 'backwards'; choose one of 'free'"),
]
IDS = [f"{name}={value.strip(chr(34))}" for name, value, _ in BAD]

PACK = ONE_TRACK_PACK + '''[[cup]]
id = "bad"
name = "Bad"
races = [
  "a",
  {{ track = "a", rules = "party", options = {{ {name} = {value} }} }},
]
'''

REPLAY = '''format = 4
track = "pack.toml#loop"
laps = 1
seed = 3

[rules]
preset = "party"
{name} = {value}

[[car]]
name = "Ada"
driver = "human"

[phases]
1 = [[8, 4]]
'''

SETTINGS = '''[sound]
effects = 30

[rules]
preset = "party"
options = {{ {name} = {value} }}
'''


def _line_of(text: str, needle: str) -> int:
    return next(n for n, row in enumerate(text.splitlines(), 1) if needle in row)


@pytest.mark.parametrize("name, value, words", BAD, ids=IDS)
def test_a_bad_option_in_a_pack_cup_names_file_line_track_cup_and_key(name, value, words):
    text = PACK.format(name=name, value=value)
    result = read_pack_text(text, "packs/p.toml")
    assert [t.id for t in result.tracks] == ["a"]  # the track itself still loads
    (found,) = [p for p in result.problems if p.is_error]
    line = _line_of(text, "options")
    assert str(found).startswith(f'packs/p.toml:{line}: [cup "bad"] races[2].options: track \'a\': '), str(found)
    assert words in str(found)


def test_an_unknown_preset_as_a_pack_track_rules_names_file_line_track_and_key():
    text = PACK.format(name="order", value='"rotate"').replace('cars = 2', 'cars = 2\nrules = "midnight"')
    result = read_pack_text(text, "packs/p.toml")
    found = next(p for p in result.problems if p.is_error and p.key == "rules")
    assert str(found).startswith(f'packs/p.toml:{_line_of(text, "midnight")}: [track "a"] rules: unknown rule preset '
                                 "'midnight'; choose one of paper"), str(found)


@pytest.mark.parametrize("name, value, words", BAD, ids=IDS)
def test_a_bad_option_in_a_replay_names_file_line_and_key(name, value, words):
    text = REPLAY.format(name=name, value=value)
    with pytest.raises(ReplayError) as caught:
        loads_replay(text, "races/race.replay.toml")
    message = str(caught.value)
    assert message.startswith(f"races/race.replay.toml:{_line_of(text, name + ' =')}: rules.{name}: "), message
    assert words in message


@pytest.mark.parametrize("name, value, words", BAD, ids=IDS)
def test_a_bad_option_in_the_settings_names_file_line_and_key_and_the_rest_is_kept(tmp_path, name, value, words):
    text = SETTINGS.format(name=name, value=value)
    (tmp_path / "settings.toml").write_text(text, encoding="utf-8")
    settings, problems = load_settings(tmp_path)
    assert settings.effects_volume == 30  # the other settings still hold
    assert settings.rules().name == "party"
    texts = [str(p) for p in problems]
    expected = f"{tmp_path / 'settings.toml'}:{_line_of(text, 'options')}: rules.options: "
    assert any(t.startswith(expected) and words in t for t in texts), texts
