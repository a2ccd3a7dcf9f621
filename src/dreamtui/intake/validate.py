"""The single gate every intake path passes (CLI, JSONL, MCP, session-log import).

It checks a submission against the config, redacts secrets and records safety marks, so no path
can store a raw key or skip the checks another path makes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from dreamtui.errors import InputError
from dreamtui.model import FEEDBACK_CONFIRMED, FEEDBACK_FLAGGED, FEEDBACK_TYPES, NewMemory
from dreamtui.safety.marks import scan_many
from dreamtui.safety.paths import validate_slug
from dreamtui.safety.secrets import may_hold_secret, redact, redact_obj
from dreamtui.workspace.config import Config

_KNOWN_FIELDS = frozenset({"type", "title", "content", "agent_id", "tags", "metadata",
                           "idempotency_key", "extra"})
_KNOWN_LIST = ", ".join(sorted(_KNOWN_FIELDS))


def prepare(memory: NewMemory, config: Config) -> NewMemory:
    """Validate and clean one submission; raises `InputError` naming the field and the rule."""
    return _prepared(memory.type, memory.title, memory.content, memory.agent_id, memory.tags,
                     memory.metadata, memory.idempotency_key, memory.extra, config)


def _prepared(type_: str, title: str, content: str, agent_id: str, tags: Sequence[Any],
              metadata: dict[str, Any], idempotency_key: str | None, extra_in: dict[str, Any],
              config: Config) -> NewMemory:
    # Fields rather than a NewMemory, so `from_json` builds one frozen dataclass per record, not
    # two: bulk intake runs this for every line.
    if type_ not in config.memory_types and type_ not in FEEDBACK_TYPES:
        allowed = ", ".join(config.submit_types)
        raise InputError(f"type: {type_!r} is not an allowed memory type (allowed: {allowed})")
    title = title.strip()
    if not title:
        raise InputError("title: must not be empty")
    limit = config.stm.max_title_chars
    if len(title) > limit:
        raise InputError(f"title: {len(title)} characters, at most {limit} allowed")
    if not content.strip():
        raise InputError("content: must not be empty")
    size = len(content.encode("utf-8"))
    if size > config.stm.max_content_bytes:
        raise InputError(f"content: {size} bytes of UTF-8, at most {config.stm.max_content_bytes} "
                         "allowed (stm.max_content_bytes)")
    if not agent_id.strip():
        raise InputError("agent_id: must not be empty")
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip() or len(tag) > 64:
            raise InputError(f"tags: {tag!r} is not a tag (a non-empty string of at most 64 chars)")
    if idempotency_key is not None and not (0 < len(idempotency_key) <= 200):
        raise InputError("idempotency_key: must be 1 to 200 characters")

    extra = dict(extra_in)
    kinds: tuple[str, ...] = ()
    # One cheap pre-check over everything; the full patterns run only where it fires.
    if may_hold_secret(f"{title}\n{content}\n{metadata!r}"):
        clean_title, clean_content = redact(title), redact(content)
        metadata, metadata_kinds = redact_obj(metadata)
        title, content = clean_title.text, clean_content.text
        kinds = tuple(dict.fromkeys((*clean_title.kinds, *clean_content.kinds, *metadata_kinds)))
    if kinds:
        extra["redacted"] = sorted(set(extra.get("redacted", ())) | set(kinds))
    # Marks are computed on what we store, so a redaction cannot hide a mark and vice versa.
    marks = scan_many((title, content))
    if marks:
        extra["safety"] = sorted(set(extra.get("safety", ())) | set(marks))
    return NewMemory(type=type_, title=title, content=content, agent_id=agent_id,
                     tags=tuple([t.strip() for t in tags]), metadata=metadata,
                     idempotency_key=idempotency_key, extra=extra)


def _slug(field: str, value: str) -> str:
    try:
        return validate_slug(value.strip())
    except ValueError as exc:
        raise InputError(f"{field}: {exc}") from None


def confirmation(target: str, agent_id: str, note: str | None, now: datetime | None = None) -> NewMemory:
    """A `context_confirmed` memory; one per agent, target and UTC day (its idempotency key)."""
    slug = _slug("target", target)
    day = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%d")
    content = note.strip() if note and note.strip() else f"The guidance marked [mem: {slug}] helped."
    return NewMemory(type=FEEDBACK_CONFIRMED, title=f"confirmed {slug}", content=content,
                     agent_id=agent_id, metadata={"target": slug},
                     idempotency_key=f"confirm:{agent_id}:{slug}:{day}")


def flag(observation: str, targets: list[str] | None, quote: str | None, agent_id: str) -> NewMemory:
    """A `context_flagged` memory: what the agent observed, against which slugs, quoting what."""
    if not observation.strip():
        raise InputError("observation: must describe what was wrong")
    metadata: dict[str, Any] = {}
    if targets:
        metadata["targets"] = [_slug("targets", t) for t in targets]
    if quote and quote.strip():
        metadata["quote"] = quote.strip()
    title = "flagged " + ", ".join(metadata.get("targets", [])) if targets else "flagged context"
    return NewMemory(type=FEEDBACK_FLAGGED, title=title[:120], content=observation.strip(),
                     agent_id=agent_id, metadata=metadata)


def _required_string(record: dict[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str):
        raise InputError(f"{name}: required, a string")
    return value


def from_json(record: Any, config: Config, default_agent: str = "cli") -> NewMemory:
    """One JSONL/MCP record → a prepared memory; every problem names the field."""
    if not isinstance(record, dict):
        raise InputError(f"expected a JSON object, got {type(record).__name__}")
    if not record.keys() <= _KNOWN_FIELDS:
        unknown = sorted(set(record) - _KNOWN_FIELDS)
        raise InputError(f"unknown field(s) {', '.join(unknown)} (known: {_KNOWN_LIST})")
    get = record.get
    type_, title, content = (_required_string(record, name) for name in ("type", "title", "content"))
    tags = get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise InputError("tags: expected a list of strings")
    metadata, extra = get("metadata", {}), get("extra", {})
    for name, value in (("metadata", metadata), ("extra", extra)):
        if not isinstance(value, dict):
            raise InputError(f"{name}: expected a JSON object")
    key = get("idempotency_key")
    if key is not None and not isinstance(key, str):
        raise InputError("idempotency_key: expected a string")
    agent = get("agent_id", default_agent)
    if not isinstance(agent, str):
        raise InputError("agent_id: expected a string")
    # `_prepared` copies extra; metadata is copied here so the record is never shared.
    return _prepared(type_, title, content, agent, tags, dict(metadata), key, extra, config)
