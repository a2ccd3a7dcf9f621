"""Storage, the bottom of the core: the SQLite queue and its side tables, LTM files, changesets,
the workspace lock, the commit journal and git."""
