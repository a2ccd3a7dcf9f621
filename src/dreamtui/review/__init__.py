"""Stages 2-5, after a dream: decide proposals, plan the commit, render the bundle, commit through the journal."""
