"""Everything pygame: the app loop, scenes, drawing, input devices and sound."""
