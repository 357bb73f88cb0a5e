"""Settings and best results: what a player changes is kept, and a broken file never crashes the game."""

from __future__ import annotations

from hypothesis import given, settings as hsettings, strategies as st

from game.core.rules import preset
from game.settings import (BEST_FILE, REPLAY_SPEEDS, SCALES, SETTINGS_FILE, BestResults, Settings, load_best,
                           load_settings, save_best, save_settings, setting_fields, settings_document,
                           settings_from_document)


def test_a_fresh_folder_gives_the_defaults_without_complaint(tmp_path):
    settings, problems = load_settings(tmp_path)
    assert settings == Settings()
    assert problems == []


def test_changed_settings_come_back_after_a_restart(tmp_path):
    changed = Settings(fullscreen=True, window=(1600, 900), scale=1.25, master_volume=40, effects_volume=10,
                       menu_volume=0, music_volume=20, show_doomed=False, reduce_motion=True, replay_speed=2.0,
                       bindings={"kb1": {"f": ["confirm"]}}, player_names=["Ada", "Bo"], tutorial_done=True)
    changed = changed.with_rules(preset("paper", {"movement": "flick", "collision": "spin"}))
    save_settings(changed, tmp_path)
    loaded, problems = load_settings(tmp_path)
    assert problems == []
    assert loaded == changed
    assert loaded.rules().movement == "flick"


def test_every_setting_is_saved(tmp_path):
    doc = settings_document(Settings())
    saved = {k for table in doc.values() if isinstance(table, dict) for k in table} | set(doc)
    assert len(setting_fields()) <= len(saved)


def test_a_file_that_is_not_toml_is_reported_set_aside_and_replaced_by_defaults(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text("[display\nfullscreen = yes please\n")
    settings, problems = load_settings(tmp_path)
    assert settings == Settings()
    assert len(problems) == 1
    assert SETTINGS_FILE in str(problems[0]) and "not valid TOML" in str(problems[0])
    assert (tmp_path / (SETTINGS_FILE + ".broken")).read_text().startswith("[display")
    again, problems = load_settings(tmp_path)
    assert again == Settings() and problems == []


def test_one_bad_value_names_its_key_and_line_and_keeps_the_others(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text(
        "[display]\nfullscreen = true\n\n[sound]\nmaster = 250\neffects = 30\n\n[rules]\npreset = \"bogus\"\n")
    settings, problems = load_settings(tmp_path)
    assert settings.fullscreen is True
    assert settings.effects_volume == 30
    assert settings.master_volume == Settings().master_volume
    assert settings.rules_preset == Settings().rules_preset
    texts = [str(p) for p in problems]
    assert any("sound.master" in t and ":5:" in t and "0 to 100" in t for t in texts), texts
    assert any("rules.preset" in t and ":9:" in t for t in texts), texts


def test_a_file_that_is_not_utf8_is_reported_not_raised(tmp_path):
    (tmp_path / SETTINGS_FILE).write_bytes(b"\xff\xfe\x00bad")
    settings, problems = load_settings(tmp_path)
    assert settings == Settings()
    assert problems and SETTINGS_FILE in str(problems[0])


def test_saving_leaves_no_temporary_files_behind(tmp_path):
    save_settings(Settings(), tmp_path)
    save_settings(Settings(master_volume=1), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [SETTINGS_FILE]


def test_a_best_result_is_kept_only_when_it_is_fewer_moves(tmp_path):
    best = BestResults()
    assert best.record("starter/bean", 1, 20, "Ada", "paper")
    assert not best.record("starter/bean", 1, 25, "Bo")
    assert best.record("starter/bean", 1, 18, "Bo")
    assert not best.record("starter/bean", 1, 18, "Cy")
    assert best.record("starter/bean", 2, 40, "Cy")  # another lap count is another record
    save_best(best, tmp_path)
    loaded, problems = load_best(tmp_path)
    assert problems == []
    assert loaded.get("starter/bean", 1).moves == 18
    assert loaded.get("starter/bean", 1).name == "Bo"
    assert loaded.get("starter/bean", 2).moves == 40
    assert loaded.get("starter/oval", 1) is None


def test_a_bad_best_entry_is_dropped_with_its_key(tmp_path):
    (tmp_path / BEST_FILE).write_text('[track."a/b x1"]\nmoves = 12\nname = "Ada"\n\n'
                                      '[track."a/c x1"]\nmoves = -3\nname = "Bo"\n')
    best, problems = load_best(tmp_path)
    assert best.get("a/b", 1).moves == 12
    assert best.get("a/c", 1) is None
    assert "a/c x1" in str(problems[0]) and ":5:" in str(problems[0])
    assert "kept as best.toml.broken" in str(problems[1])  # the dropped entry is not lost
    assert (tmp_path / (BEST_FILE + ".broken")).read_text() == (tmp_path / BEST_FILE).read_text()


@hsettings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["display", "sound", "rules", "bindings", "players", "replay", "assists",
                                        "junk"]),
                       st.recursive(st.none() | st.booleans() | st.integers(-5, 300) | st.text(max_size=5)
                                    | st.sampled_from(list(SCALES) + list(REPLAY_SPEEDS)),
                                    lambda inner: st.lists(inner, max_size=3)
                                    | st.dictionaries(st.sampled_from(["fullscreen", "window", "scale", "master",
                                                                       "speed", "preset", "options", "names",
                                                                       "kb1", "x"]), inner, max_size=3),
                                    max_leaves=8)))
def test_any_document_gives_valid_settings_or_named_problems(doc):
    doc = {k: v for k, v in doc.items() if v is not None}
    settings, problems = settings_from_document(doc, "settings.toml")
    assert all(p.file == "settings.toml" and p.message for p in problems)
    assert 0 <= settings.master_volume <= 100
    assert settings.scale in SCALES and settings.replay_speed in REPLAY_SPEEDS
    settings.rules()  # always a usable rule set
    again, more = settings_from_document(settings_document(settings))
    assert again == settings and again.extra == settings.extra
    assert all(p.message == "unknown setting (kept, not used)" for p in more)


def test_a_race_offers_its_finishers_best_placed_first_so_a_tie_goes_to_the_one_ahead():
    best = BestResults()
    assert best.record_race("starter/bean", 1, [(13, "Rookie"), (13, "Pro"), (15, "Cy")]) == 0
    assert best.get("starter/bean", 1).name == "Rookie"
    assert best.record_race("starter/bean", 1, [(14, "Ada"), (12, "Bo")]) == 1  # fewer moves, placed behind
    assert best.record_race("starter/bean", 1, [(12, "Cy")]) is None  # equalling a record is not a record
    assert best.get("starter/bean", 1).name == "Bo"
