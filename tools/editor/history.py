"""Unlimited undo and redo over immutable documents.

Every edit hands the history the document as it was before; undo swaps the current
document with the last of those, redo swaps it back. A new edit after an undo drops
the redo list, as in every editor.
"""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class History(Generic[T]):
    """The documents before (``undo``) and after (``redo``) the current one."""

    def __init__(self) -> None:
        self._undo: list[T] = []
        self._redo: list[T] = []

    def record(self, before: T) -> None:
        """Remember the document as it was before an edit."""
        self._undo.append(before)
        self._redo.clear()

    def undo(self, current: T) -> T | None:
        """The document before the last edit (None if there is none); ``current`` goes to redo."""
        if not self._undo:
            return None
        self._redo.append(current)
        return self._undo.pop()

    def redo(self, current: T) -> T | None:
        """The document the last undo left (None if there is none); ``current`` goes to undo."""
        if not self._redo:
            return None
        self._undo.append(current)
        return self._redo.pop()

    def clear(self) -> None:
        self._undo.clear()
        self._redo.clear()

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def __len__(self) -> int:
        return len(self._undo)
