"""Build script: everything else is in pyproject.toml.

Only what pyproject.toml cannot say lives here: the packages under ``game/`` (found,
so a new sub-package needs no edit) plus the repository's top-level ``tracks/`` and
``assets/`` folders, shipped inside the package as ``game/data/tracks`` and
``game/data/assets`` (see ``game/paths.py``). Build with ``pip wheel --no-deps .`` or
install with ``pip install .``.
"""

from setuptools import find_packages, setup

DATA_PACKAGES = {"game.data.tracks": "tracks", "game.data.assets": "assets"}

setup(
    packages=find_packages(include=["game", "game.*"]) + list(DATA_PACKAGES),
    package_dir=DATA_PACKAGES,
)
