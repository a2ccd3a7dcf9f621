"""Stage 1, the dream: claim a batch, cluster it, run an engine, apply the feedback policy and guard, publish a changeset."""
