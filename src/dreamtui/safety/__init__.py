"""Safety guards for untrusted memory text, one module per job.

- `secrets`: secret redaction (`redact`, `redact_obj`, `may_hold_secret`).
- `marks`: safety marks for suspicious text (`scan`, `scan_many`, `display_text`).
- `fields`: both over every field of a memory (`clean_fields`, `clean_memory`).
- `paths`: the slug rule (`validate_slug`, `slugify`) and paths kept inside a root (`resolve_inside`).

Memories come from agents and end up in every future agent's context, so everything here errs
towards *showing* a human what is suspicious rather than silently rewriting it. The one exception
is secrets: they are replaced by a visible `[REDACTED:<kind>]` before anything is stored or sent to
a model.
"""
