# Makes the bundled sample workspace importable as package data (dreamtui demo copies it).
