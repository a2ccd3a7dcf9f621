"""`dreamtui import codex`: lessons from Codex CLI session rollouts.

Codex CLI writes one JSONL rollout per session under `$CODEX_HOME/sessions/YYYY/MM/DD/
rollout-<time>-<id>.jsonl`. `reader` turns its records into events (and counts the shapes it
does not know), `frictions` finds the frictions worth a lesson, `importer` selects the project's
rollouts, remembers what it read and submits one memory per lesson.
"""
