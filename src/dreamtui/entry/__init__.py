"""The entry file format: byte-preserving YAML frontmatter parsing and rendering, and its text edits."""
