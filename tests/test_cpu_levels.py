"""One table of CPU levels (issue 28): the lobby, the command line, fine paper and flick all read it."""

from __future__ import annotations

import pytest

from game.drivers.levels import CPU_LEVELS, UnknownLevelError, cpu_level, level_kinds


def test_every_level_has_a_driver_and_every_driver_a_level():
    from game.drivers.cpu import KINDS, LEVELS

    assert set(KINDS) == set(level_kinds()) == set(LEVELS)
    assert all(LEVELS[level.kind] is level.traffic for level in CPU_LEVELS)


def test_the_lobby_and_the_settings_offer_the_table_s_levels_by_its_names():
    from game.presentation.menus.seats import CPU_LEVELS as OFFERED, LEVEL_NAMES, SeatTable
    from game.settings import SEAT_KINDS

    assert OFFERED == level_kinds() == ("cpu:rookie", "cpu:pro", "cpu:champion")  # weakest first
    assert LEVEL_NAMES == {level.kind: level.name for level in CPU_LEVELS}
    assert SEAT_KINDS == ("human", *level_kinds())
    table = SeatTable()
    for level in level_kinds():
        assert table.seats[table.add_cpu(level)].kind == level


def test_the_command_line_help_lists_every_level():
    from game.cli import build_parser

    parser = build_parser()
    for command in ("sim", "cup"):
        sub = next(a for a in parser._subparsers._group_actions if command in a.choices).choices[command]
        text = sub.format_help().replace("\n", " ")
        for level in CPU_LEVELS:
            assert level.kind in text
        assert sub.get_default("cars") == "cpu:champion,cpu:pro,cpu:rookie"


def test_the_sharper_the_level_the_steadier_it_drives_on_every_paper():
    rookie, pro, champion = (cpu_level(k) for k in ("cpu:rookie", "cpu:pro", "cpu:champion"))
    assert rookie.fine_noise > pro.fine_noise > champion.fine_noise
    assert rookie.flick_noise > pro.flick_noise > champion.flick_noise
    assert rookie.traffic.temperature > pro.traffic.temperature > champion.traffic.temperature


def test_fine_paper_and_flick_read_the_table():
    from game.drivers.fine import FineDriver
    from game.drivers.flick import make_flick_driver

    for level in CPU_LEVELS:
        assert FineDriver(level.kind).noise == level.fine_noise
        assert make_flick_driver(level.kind).noise == level.flick_noise


@pytest.mark.parametrize("kind", ["cpu:wizard", "cpu:Champion", "", "human"])
def test_an_unregistered_level_is_an_error_everywhere_not_the_champion(kind):
    from game.drivers.fine import FineDriver
    from game.drivers.flick import make_flick_driver
    from game.presentation.menus.seats import SeatTable

    for make in (cpu_level, FineDriver, make_flick_driver):
        with pytest.raises(UnknownLevelError, match="choose one of cpu:rookie, cpu:pro, cpu:champion"):
            make(kind)
    if kind:  # an empty level means the lobby's current one
        with pytest.raises(ValueError, match=repr(kind)):
            SeatTable().add_cpu(kind)


def test_a_fine_paper_race_with_an_unregistered_level_stops_with_its_name():
    """The CPUs' own path to fine paper (``make_driver`` then the specialist) refuses the kind too."""
    from game.drivers.cpu import UnknownDriverError, make_driver

    with pytest.raises(UnknownDriverError, match="cpu:wizard"):
        make_driver("cpu:wizard")
