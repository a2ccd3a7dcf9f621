"""Delivery into the code project (`project.root`): the bundle's marked blocks, skills, DECISIONS.md.

Between review (which plans and commits) and store (which writes through the journal): nothing
here writes a file; it computes what the project's files become, and why one is held back.
"""
