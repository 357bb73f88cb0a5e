"""The rule flags shared by the headless commands (`solve`, `sim`): one preset plus options."""

from __future__ import annotations

from game.core.rules import OPTIONS, RuleSet, preset


def add_rule_arguments(parser, movement_note: str = "") -> None:
    """--rules, --movement, --braking, --terrain, --sight and --sight-radius, with the values the rules core knows."""
    parser.add_argument("--rules", default=None, metavar="PRESET", help="rule preset (default: the track's)")
    parser.add_argument("--movement", choices=tuple(OPTIONS["movement"]), default=None,
                        help="movement system (default: the rules')" + movement_note)
    parser.add_argument("--braking", choices=tuple(OPTIONS["braking"]), default=None,
                        help="braking option (default: the rules')")
    parser.add_argument("--terrain", choices=tuple(OPTIONS["terrain"]), default=None,
                        help="what sand, mud, ice and curbs do: effects, or offroad as on Karopapier "
                             "(default: the rules')")
    parser.add_argument("--sight", choices=tuple(OPTIONS["sight"]), default=None,
                        help="day, or night: only what headlights light is seen (default: the rules')")
    parser.add_argument("--sight-radius", type=int, default=None, metavar="SQUARES",
                        help="night: how far the headlights reach beyond the car's speed (default 6)")


def rules_from_args(args, default_preset: str) -> RuleSet:
    """The preset named by --rules (or the track's) with --movement, --braking, --terrain and --sight applied."""
    overrides = {name: getattr(args, name) for name in ("movement", "braking", "terrain", "sight", "sight_radius")
                 if getattr(args, name, None) is not None}
    return preset(args.rules or default_preset, overrides)
