"""Drivers: whoever picks a car's target each phase, human or CPU, behind one interface."""
