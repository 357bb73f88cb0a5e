"""Transition codes shared by the solver (Python) and its compiled kernels.

A progress transition (progress id, crossing signature) -> progress id uses these for
the outcomes that are not a progress id.
"""

FIN = -2  # the move finishes the race
NONE = -1  # the move ends the race without finishing, or leads where the search does not go
UNKNOWN = -3  # not worked out yet: the kernel asks, the solver fills it in
