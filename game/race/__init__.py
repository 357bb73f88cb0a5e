"""Race control: the phase loop, replays and the headless referee. No pygame here."""
