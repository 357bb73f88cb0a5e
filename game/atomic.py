"""Writing files whole or not at all: what settings, replays and packs are saved with."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomic(path: str | os.PathLike, text: str, make_folder: bool = False) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    A crash or a full disk never leaves half a file behind: readers see the old file or
    the new one. With ``make_folder`` a missing folder is created; raises ``OSError``
    when it cannot write.
    """
    path = Path(path)
    tmp = None
    try:
        if make_folder:
            path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
