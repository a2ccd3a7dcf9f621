"""Storage, the bottom layer: the SQLite queue and its side tables, LTM files, changesets, the lock, the journal and git."""
