"""Mine Claude Code session logs for friction and turn each friction into an STM memory.

One module per job, in the order an import runs them:

- `discovery` — where the logs are: the slug folders, subagent transcripts, the `cwd` that
  places a log in a project, the configured projects folder.
- `parser` — what a log holds: JSONL lines read with byte-level probes, records turned into the
  events of a session (the agent acted, called a tool, a tool failed, the person typed), and the
  context carried from one import to the next.
- `frictions` — a session's events in, frictions out: the vocabulary the parser and the rules
  share, and the order-dependent rules (an interrupt marker after a rejection, a correction only
  after the agent acted).
- `rules` — the text rules: which tool errors are rejections, denials, hook blocks; which typed
  turns are corrections; which text is not the person's at all.
- `memories` — one memory per distinct friction, its title, content and idempotency key, and
  the occurrence count a later import raises.
- `importer` — the incremental import: which logs to read, from where, and submitting what they
  yield. Where each log was read up to is `dreamtui.store.import_state`.
"""
