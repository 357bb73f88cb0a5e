"""How the suite decides to run on several cores (``tests/conftest.py``'s ``pytest_cmdline_main``):
the whole suite spreads its files over the workers, a run naming files stays in one process, and
``-n``, ``--dist``, ``--pdb`` and ``-p no:xdist`` are obeyed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import conftest

ROOT = Path(__file__).resolve().parent.parent


class _Plugins:
    def __init__(self, xdist: bool) -> None:
        self.xdist = xdist

    def hasplugin(self, name: str) -> bool:
        return name == "xdist" and self.xdist


def _config(*args: str, numprocesses=None, dist="no", usepdb=False, xdist=True, worker=False):
    """A stand-in for pytest's config with just what the hook reads: the command line's options."""
    option = SimpleNamespace(file_or_dir=list(args), numprocesses=numprocesses, dist=dist, usepdb=usepdb,
                             trace=False)
    config = SimpleNamespace(option=option, pluginmanager=_Plugins(xdist),
                             invocation_params=SimpleNamespace(dir=ROOT),
                             getoption=lambda name, default=None: getattr(option, name, default))
    if worker:
        config.workerinput = {}
    return config


@pytest.fixture
def cores(monkeypatch):
    """Pretend the machine has ``n`` usable cores (and the whole suite is spread by default)."""

    def pretend(n: int) -> None:
        monkeypatch.setattr(conftest, "_usable_cores", lambda: n)
        monkeypatch.setattr(conftest, "SPREAD_WHOLE_SUITE", True)

    return pretend


@pytest.mark.parametrize(("usable", "workers"), [(2, 2), (8, conftest.MOST_WORKERS)])
@pytest.mark.parametrize("args", [(), ("tests",), ("tests/",)])
def test_the_whole_suite_spreads_whole_files_over_the_cores(cores, usable, workers, args):
    cores(usable)
    config = _config(*args)
    conftest.pytest_cmdline_main(config)
    assert (config.option.numprocesses, config.option.dist) == (workers, "loadfile")


@pytest.mark.parametrize("args", [("tests/test_settings.py",), ("tests/test_settings.py::test_x",),
                                  ("tests", "tests/test_settings.py"), ("tests::nothing",)])
def test_a_run_naming_files_or_tests_stays_in_one_process(cores, args):
    cores(2)
    config = _config(*args)
    conftest.pytest_cmdline_main(config)
    assert (config.option.numprocesses, config.option.dist) == (None, "no")


@pytest.mark.parametrize("options", [dict(numprocesses=0), dict(usepdb=True), dict(xdist=False),
                                     dict(worker=True)])
def test_one_process_when_asked_debugging_without_xdist_or_inside_a_worker(cores, options):
    cores(2)
    config = _config(**options)
    conftest.pytest_cmdline_main(config)
    assert config.option.numprocesses in (None, 0) and config.option.dist == "no"


def test_one_core_runs_in_one_process(cores):
    cores(1)
    config = _config()
    conftest.pytest_cmdline_main(config)
    assert (config.option.numprocesses, config.option.dist) == (None, "no")


def test_a_number_of_workers_asked_for_is_kept_and_files_stay_whole_unless_told(cores):
    cores(2)
    asked = _config(numprocesses=3)
    conftest.pytest_cmdline_main(asked)
    assert (asked.option.numprocesses, asked.option.dist) == (3, "loadfile")
    told = _config(numprocesses=3, dist="load")
    conftest.pytest_cmdline_main(told)
    assert (told.option.numprocesses, told.option.dist) == (3, "load")


def test_hypothesis_never_times_this_machine_in_the_suite():
    """A deadline or a too-slow health check fails a right test on a busy machine (conftest's profile)."""
    from hypothesis import HealthCheck, settings

    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
