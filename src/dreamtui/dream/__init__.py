"""Stage 1, the dream: claim a batch, cluster it, run an engine, apply the feedback policy and
the guard, and publish a changeset."""
