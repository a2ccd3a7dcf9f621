"""One redaction and one scan over every field of a memory, whichever way it arrived.

A memory is more than its title and content: its tags become AGENTS.md headings, its metadata
and agent id are stored and shown, its idempotency key is stored in clear. `clean_fields` runs
`secrets.redact` over all of them (metadata recursively, keys included) and `marks.scan_many`
over the stored result, with title and content as one text so that splitting a phrase between
them does not hide it. The intake gate (`intake/validate.py`) calls it for every submission and
`STMStore.claim` for every memory a dream reads, so rows another program wrote into `stm_memories`
reach a dream clean too.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from dreamtui.model import Memory, NewMemory
from dreamtui.safety.marks import scan_many
from dreamtui.safety.secrets import may_hold_secret, redact, redact_obj

__all__ = ["Cleaned", "clean_fields", "clean_memory", "with_findings"]

_KEY_DIGEST_CHARS = 16


class Cleaned(NamedTuple):
    """The fields as they may be stored, and what was found: redacted kinds and safety marks."""

    title: str
    content: str
    agent_id: str
    tags: tuple[str, ...]
    metadata: dict[str, Any]
    idempotency_key: str | None
    redacted: tuple[str, ...]
    marks: tuple[str, ...]


def _texts(value: Any, out: list[str]) -> list[str]:
    """`out` with every string in a metadata value added; a dict key comes as `key=`, so the
    pre-check's keyed trigger sees a sensitive key (`{"password": "hunter2"}`) as `redact_obj`
    does."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for key, sub in value.items():
            out.append(f"{key}=")
            if type(sub) is str:  # the usual flat metadata, without a call per value
                out.append(sub)
            else:
                _texts(sub, out)
    elif isinstance(value, (list, tuple)):
        for sub in value:
            _texts(sub, out)
    return out


def _redacted_key(key: str) -> tuple[str, tuple[str, ...]]:
    """A key with its secrets redacted, still telling different keys apart.

    The redacted text alone would make every key that held a secret of one kind the same key, and
    a second memory would be dropped as a duplicate of the first; so a digest of the original key
    follows it. The digest lets a holder of stm.db test a guess of the whole key, never recover it.
    """
    result = redact(key)
    if not result.kinds:
        return key, ()
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:_KEY_DIGEST_CHARS]
    return f"{result.text}#{digest}", result.kinds


def clean_fields(title: str, content: str, agent_id: str, tags: Sequence[str],
                 metadata: dict[str, Any], idempotency_key: str | None) -> Cleaned:
    """Every field with its secrets redacted, and the marks of what will be stored."""
    key = idempotency_key or ""
    meta_texts = _texts(metadata, [])
    redacted: tuple[str, ...] = ()
    # One cheap pre-check over everything (nearly every memory stops here); when it fires, each
    # field is redacted on its own, so no pattern matches across two fields.
    if may_hold_secret("\n".join((title, content, agent_id, key, *tags, *meta_texts))):
        found: list[tuple[str, ...]] = []
        title_r, content_r, agent_r = redact(title), redact(content), redact(agent_id)
        title, content, agent_id = title_r.text, content_r.text, agent_r.text
        found += [title_r.kinds, content_r.kinds, agent_r.kinds]
        tag_results = [redact(tag) for tag in tags]
        tags = [result.text for result in tag_results]
        found += [result.kinds for result in tag_results]
        metadata, metadata_kinds = redact_obj(metadata)
        if idempotency_key is not None:
            idempotency_key, key_kinds = _redacted_key(idempotency_key)
            found.append(key_kinds)
        found.append(metadata_kinds)
        redacted = tuple(dict.fromkeys(kind for kinds in found for kind in kinds))
        if redacted:
            meta_texts = _texts(metadata, [])
    # Marks are computed on what is stored, so a redaction cannot hide a mark and vice versa. The
    # short fields go as one text: one scan instead of one per tag costs a third less.
    marks = scan_many((f"{title}\n{content}",
                       "\n".join((*tags, agent_id, idempotency_key or "", *meta_texts))))
    return Cleaned(title, content, agent_id, tuple(dict.fromkeys(tags)), metadata, idempotency_key,
                   redacted, marks)


def _string_list(value: Any) -> list[str]:
    """Recorded findings as a list; a bare string is one finding, never a list of its letters."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [item for item in value if isinstance(item, str)]
    return []


def with_findings(extra: dict[str, Any], redacted: Sequence[str], marks: Sequence[str]) -> dict[str, Any]:
    """`extra` with the kinds and marks found added to `extra.redacted` and `extra.safety`."""
    out = dict(extra)
    for name, found in (("redacted", redacted), ("safety", marks)):
        if found or name in out:
            out[name] = sorted(set(_string_list(out.get(name))) | set(found))
    return out


M = TypeVar("M", Memory, NewMemory)


def clean_memory(memory: M) -> M:
    """`memory` as the intake gate would have stored it; the same object when nothing changes."""
    cleaned = clean_fields(memory.title, memory.content, memory.agent_id, memory.tags,
                           memory.metadata, memory.idempotency_key)
    extra = with_findings(memory.extra, cleaned.redacted, cleaned.marks)
    if (cleaned.title, cleaned.content, cleaned.agent_id, cleaned.tags, cleaned.metadata,
            cleaned.idempotency_key, extra) == (
            memory.title, memory.content, memory.agent_id, memory.tags, memory.metadata,
            memory.idempotency_key, memory.extra):
        return memory
    return dataclasses.replace(memory, title=cleaned.title, content=cleaned.content,
                               agent_id=cleaned.agent_id, tags=cleaned.tags,
                               metadata=cleaned.metadata, idempotency_key=cleaned.idempotency_key,
                               extra=extra)
