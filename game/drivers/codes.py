"""Transition codes shared by the solver (Python) and its compiled kernels.

A progress transition (progress id, crossing signature) -> progress id uses these for
the outcomes that are not a progress id.
"""

FIN = -2  # the move finishes the race
NONE = -1  # the move ends the race without finishing, or leads where the search does not go
UNKNOWN = -3  # not worked out yet: the kernel asks, the solver fills it in


def check_code(rules) -> int:
    """The rules' off-road check as the kernels spell it: 0 segment, 1 landing, 2 projection."""
    from game.core.rules import OffroadCheck
    return (OffroadCheck.SEGMENT, OffroadCheck.LANDING, OffroadCheck.PROJECTION).index(rules.offroad_check)
