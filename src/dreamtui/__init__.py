"""dreamtui: a terminal workbench to curate what coding agents learn.

The package root and everything outside `dreamtui.tui` is the Textual-free core.
"""
