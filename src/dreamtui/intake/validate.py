"""The single gate every intake path passes (CLI, JSONL, MCP, session-log import).

It checks a submission against the config and the limits below, then redacts secrets and records
safety marks over every field (`safety.fields.clean_fields`: title and content, tags, metadata,
agent id, idempotency key), so no path can store a raw key or skip the checks another path makes.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from dreamtui.errors import InputError
from dreamtui.model import FEEDBACK_CONFIRMED, FEEDBACK_FLAGGED, FEEDBACK_TYPES, NewMemory
from dreamtui.safety.fields import clean_fields, with_findings
from dreamtui.safety.paths import validate_slug
from dreamtui.store.stm import refuse_colliding_extra
from dreamtui.workspace.config import Config

# Limits of the fields the config does not size. A tag becomes an AGENTS.md heading and a flag
# target a proposal, so thousands of either are a flood, not a memory.
MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_FLAG_TARGETS = 16
MAX_JSON_DEPTH = 32  # nesting of metadata and extra; deeper is no fact worth keeping
# Invisible in a heading though printable by Python's rule: Hangul fillers.
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")

_KNOWN_FIELDS = frozenset({"type", "title", "content", "agent_id", "tags", "metadata",
                           "idempotency_key", "extra"})
_KNOWN_LIST = ", ".join(sorted(_KNOWN_FIELDS))
# Idempotency keys of feedback, which only the builders below make: a caller who could choose
# one could pre-empt, and so suppress, another agent's feedback. A confirmation's key is the one
# Dreamer's confirm_context makes (`context_confirmed:<agent>:<slug>:<day>`), so an agent that
# confirms through both servers counts once; the older `confirm:` form and `flag:` stay held.
CONFIRM_KEY_PREFIX = f"{FEEDBACK_CONFIRMED}:"
FEEDBACK_KEY_PREFIXES = (CONFIRM_KEY_PREFIX, f"{FEEDBACK_FLAGGED}:", "confirm:", "flag:")


class Prepared(NamedTuple):
    """A submission as the gate passes it, fields in NewMemory's order (`NewMemory(*prepared)`).

    What bulk intake reads instead of a NewMemory: building a frozen dataclass, one
    object.__setattr__ a field, costs a tenth of the gate's time on a typical line.
    """

    type: str
    title: str
    content: str
    agent_id: str
    tags: tuple[str, ...]
    metadata: dict[str, Any]
    idempotency_key: str | None
    extra: dict[str, Any]


def prepare(memory: NewMemory, config: Config) -> NewMemory:
    """Validate and clean one submission; raises `InputError` naming the field and the rule."""
    return NewMemory(*_prepared(memory.type, memory.title, memory.content, memory.agent_id,
                                memory.tags, memory.metadata, memory.idempotency_key, memory.extra,
                                config))


def _prepared(type_: str, title: str, content: str, agent_id: str, tags: Sequence[Any],
              metadata: dict[str, Any], idempotency_key: str | None, extra_in: dict[str, Any],
              config: Config) -> Prepared:
    if type_ not in config.memory_types and type_ not in FEEDBACK_TYPES:
        allowed = ", ".join(config.submit_types)
        raise InputError(f"type: {type_!r} is not an allowed memory type (allowed: {allowed})")
    title = title.strip()
    if not title:
        raise InputError("title: must not be empty")
    limit = config.stm.max_title_chars
    if len(title) > limit:
        raise InputError(f"title: {len(title)} characters, at most {limit} allowed")
    if not content.strip() and type_ != FEEDBACK_CONFIRMED:  # a confirmation's note is optional
        raise InputError("content: must not be empty")
    size = len(content.encode("utf-8"))
    if size > config.stm.max_content_bytes:
        raise InputError(f"content: {size} bytes of UTF-8, at most {config.stm.max_content_bytes} "
                         "allowed (stm.max_content_bytes)")
    if not agent_id.strip():
        raise InputError("agent_id: must not be empty")
    _check_tags(tags)
    if idempotency_key is not None and not (0 < len(idempotency_key) <= 200):
        raise InputError("idempotency_key: must be 1 to 200 characters")
    _check_json("metadata", metadata)
    problem = config.metadata_problem(type_, metadata)  # the type's JSON Schema, as Dreamer checks it
    if problem is not None:
        raise InputError(problem)
    if extra_in:  # nearly always empty: bulk intake skips the checks
        _check_json("extra", extra_in)
        refuse_colliding_extra(extra_in)
        for name, holds in (("safety", "safety marks"), ("redacted", "kinds of secret redacted")):
            recorded = extra_in.get(name, [])
            if not isinstance(recorded, list) or not all(isinstance(i, str) for i in recorded):
                raise InputError(f"extra.{name}: expected a list of strings (the {holds} dreamtui "
                                 f"records), got {json_kind(recorded)}")
    if type_ == FEEDBACK_FLAGGED and isinstance(metadata.get("targets"), list):
        _check_targets("metadata.targets", len(metadata["targets"]))

    cleaned = clean_fields(title, content, agent_id, [t.strip() for t in tags], metadata,
                           idempotency_key)
    return Prepared(type_, cleaned.title, cleaned.content, cleaned.agent_id, cleaned.tags,
                    cleaned.metadata, cleaned.idempotency_key,
                    with_findings(extra_in, cleaned.redacted, cleaned.marks))


def _check_tags(tags: Sequence[Any]) -> None:
    if len(tags) > MAX_TAGS:
        raise InputError(f"tags: {len(tags)} tags, at most {MAX_TAGS} allowed")
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip() or len(tag) > MAX_TAG_CHARS:
            raise InputError(f"tags: {tag!r} is not a tag (a non-empty string of at most "
                             f"{MAX_TAG_CHARS} chars)")
        if not tag.isprintable() or (not tag.isascii() and not _INVISIBLE_LETTERS.isdisjoint(tag)):
            # A tag becomes a heading: a line break, a zero-width or a bidi character in it
            # would hide or reorder what a reader sees.
            char = next(c for c in tag if not c.isprintable() or c in _INVISIBLE_LETTERS)
            raise InputError(f"tags: {tag!r} holds U+{ord(char):04X} "
                             f"({unicodedata.name(char, 'a control or unassigned character')}); "
                             "tags may not hold control, invisible, bidi or non-space whitespace "
                             "characters")


def _check_targets(field: str, count: int) -> None:
    if count > MAX_FLAG_TARGETS:
        raise InputError(f"{field}: {count} targets, at most {MAX_FLAG_TARGETS} allowed (name "
                         "the entries the observation contradicts)")


def _check_json(field: str, value: Any, depth: int = 0) -> None:
    """Refuse what JSON cannot hold: NaN and infinities (`json.dumps` writes them, but no other
    reader of stm.db parses them) and nesting past MAX_JSON_DEPTH. `field` names the place."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{field}: {json.dumps(value)} is not a finite number (JSON has no NaN or "
                         "Infinity)")
    if isinstance(value, (dict, list, tuple)):
        if depth >= MAX_JSON_DEPTH:
            raise InputError(f"{field}: nested deeper than {MAX_JSON_DEPTH} levels")
        in_dict = isinstance(value, dict)
        items: Iterable[tuple[Any, Any]] = value.items() if isinstance(value, dict) else enumerate(value)
        for key, sub in items:
            if type(sub) is not str:  # strings, nearly every value, hold nothing to refuse
                _check_json(f"{field}.{key}" if in_dict else f"{field}[{key}]", sub, depth + 1)


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in JSON's words, for messages."""
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


# An agent often passes the marker it read, `[mem: ci-ports]`, where the slug inside is meant.
_MARKER_RE = re.compile(r"\[\s*mem\s*:\s*(.*?)\s*\]", re.IGNORECASE | re.DOTALL)


def target_slug(field: str, value: str) -> str:
    """The slug `value` names, given bare or as its `[mem: <slug>]` marker; InputError naming
    `field` and the slug rule otherwise."""
    text = value.strip()
    marker = _MARKER_RE.fullmatch(text)
    try:
        return validate_slug(marker.group(1) if marker else text)
    except ValueError as exc:
        raise InputError(f"{field}: {exc}") from None


def confirmation(target: str, agent_id: str, note: str | None, now: datetime | None = None) -> NewMemory:
    """A `context_confirmed` memory shaped as Dreamer's confirm_context makes it (title, content:
    the note or nothing, metadata.target); one per agent, target and UTC day (its idempotency
    key, Dreamer's too), so a confirmation sent through both servers counts once."""
    slug = target_slug("target", target)
    day = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%d")
    return NewMemory(type=FEEDBACK_CONFIRMED, title=f"context confirmed: {slug}"[:120],
                     content=note.strip() if note else "", agent_id=agent_id, metadata={"target": slug},
                     idempotency_key=f"{CONFIRM_KEY_PREFIX}{agent_id}:{slug}:{day}")


def flag(observation: str, targets: list[str] | None, quote: str | None, agent_id: str) -> NewMemory:
    """A `context_flagged` memory: what the agent observed, against which slugs, quoting what;
    titled as Dreamer's flag_context titles it."""
    if not observation.strip():
        raise InputError("observation: must describe what was wrong")
    _check_targets("targets", len(targets or ()))
    metadata: dict[str, Any] = {}
    if targets:
        metadata["targets"] = [target_slug("targets", t) for t in targets]
    if quote and quote.strip():
        metadata["quote"] = quote.strip()
    title = ("context flagged: " + ", ".join(metadata["targets"]) if targets
             else "context flagged: unanchored")
    return NewMemory(type=FEEDBACK_FLAGGED, title=title[:120], content=observation.strip(),
                     agent_id=agent_id, metadata=metadata)


def _required_string(record: dict[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str):
        raise InputError(f"{name}: required, a string")
    return value


def from_json(record: Any, config: Config, default_agent: str = "cli") -> NewMemory:
    """One JSONL/MCP record → a prepared memory; every problem names the field."""
    return NewMemory(*prepared_from_json(record, config, default_agent))


def prepared_from_json(record: Any, config: Config, default_agent: str = "cli") -> Prepared:
    """`from_json`'s fields without the NewMemory, for bulk intake."""
    if not isinstance(record, dict):
        raise InputError(f"expected a JSON object, got {type(record).__name__}")
    if not record.keys() <= _KNOWN_FIELDS:
        unknown = sorted(set(record) - _KNOWN_FIELDS)
        raise InputError(f"unknown {'field' if len(unknown) == 1 else 'fields'} {', '.join(unknown)} "
                         f"(known: {_KNOWN_LIST})")
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
