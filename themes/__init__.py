# Makes the themes importable as package data (the TUI loads them with importlib.resources).
