"""The markdown LTM store (DESIGN 3.2): entries with YAML frontmatter, INDEX.md and archive/LOG.md.

Entries are read as exact text and rewritten so that a person's formatting survives: every
frontmatter key whose value did not change keeps its source lines byte for byte, comments
included. Nothing here decides what to change; the commit does, through `render_entry`.
"""

from __future__ import annotations

import math
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from dreamtui.errors import EntryError
from dreamtui.model import Entry, iso_z
from dreamtui.store.files import atomic_write_text

TOPICS = "topics"
INCIDENTS = "incidents"
ARCHIVE = "archive"
INDEX_NAME = "INDEX.md"
LOG_NAME = "LOG.md"
LOG_PATH = f"{ARCHIVE}/{LOG_NAME}"
ENTRY_KINDS = ("topic", "incident")

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SLUG_MAX = 200

# The C loader parses frontmatter several times faster; listing 10,000 entries depends on it.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RESOLVER = yaml.resolver.Resolver()

# The order a fresh entry's keys are written in (DESIGN 3.2); unknown keys follow in meta order.
KEY_ORDER = ("title", "slug", "type", "tags", "created_at", "updated_at", "related", "sources",
             "confirmations", "last_confirmed", "flags", "last_flagged", "importance",
             "retired_at", "retired_reason", "superseded_by")

_FENCE = "---"
_PLAIN_FIRST_BAD = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_BAD = frozenset(",[]{}?")
_INLINE_COMMENT_RE = re.compile(r"\s+#")
_MONTH_RE = re.compile(r"^\d{4}-\d{2}$")
# One frontmatter line: `key: value` (groups 1, 2), or a blank or comment line (empty groups).
# Greedy and unanchored inside, so matching costs one pass; values are stripped afterwards.
_FAST_LINE_RE = re.compile(r"^(?:([A-Za-z_][A-Za-z0-9_]*):(?:[ ]+(.*))?|[ ]*|#.*)\r?$", re.MULTILINE)
_DOUBLE_QUOTED_RE = re.compile(r'^"([^"\\]*)"(?:\s+#.*)?\s*$')
_SINGLE_QUOTED_RE = re.compile(r"^'((?:[^']|'')*)'(?:\s+#.*)?\s*$")
_ISO_Z_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_STR_TAG = "tag:yaml.org,2002:str"
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_FAST_TAGS = {tag: yaml.constructor.SafeConstructor.yaml_constructors[tag]
              for tag in ("tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                          "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp")}
_NO = object()  # "not in the fast subset", distinct from a parsed None
_NO_KEY = ("", "")  # what _FAST_LINE_RE yields for a blank or comment line
_PLAIN_KEYS: set[str] = set()  # keys known to read back as themselves
_LOG_CHUNK = 64 * 1024
# Parsed values kept between scans: enough for ~10,000 entries (a rescan then skips most parsing)
# while bounding memory to a few tens of MB whatever the workspace holds.
_VALUE_CACHE = 1 << 16


# --- parsing ---------------------------------------------------------------------------------


def validate_slug(slug: Any, where: str) -> str:
    """The slug itself, or EntryError naming `where` when it breaks DESIGN's slug rule."""
    if not isinstance(slug, str) or not slug:
        raise EntryError(where, None, "slug: required, lowercase words joined by '-'")
    if len(slug) > SLUG_MAX or not SLUG_RE.match(slug):
        raise EntryError(where, None, f"slug: {slug[:60]!r} must match {SLUG_RE.pattern} "
                                      f"and be at most {SLUG_MAX} characters")
    return slug


class _Document(NamedTuple):
    """An entry's text in four exact pieces: joined again they give the file back."""

    opening: str  # the first '---' line, newline included
    frontmatter: str
    closing: str  # the closing '---' line, newline included
    body: str


def _split_document(text: str, path: str) -> _Document:
    first_end = text.find("\n") + 1 or len(text)
    if text[:first_end].rstrip() != _FENCE:
        reason = "missing opening '---' line: an entry starts with YAML frontmatter between '---' lines"
        if text.startswith("\ufeff"):
            reason = "starts with a byte-order mark; save the file as UTF-8 without BOM"
        raise EntryError(path, 1, reason)
    closing = _closing_fence(text, first_end)
    if closing is None:
        lines = text.count("\n") + (not text.endswith("\n"))
        raise EntryError(path, lines, "missing closing '---' line after the frontmatter")
    start, end = closing
    return _Document(text[:first_end], text[first_end:start], text[start:end], text[end:])


def _closing_fence(text: str, start: int) -> tuple[int, int] | None:
    """(start, end) of the first '---' line at or after `start`, its newline included."""
    position = start - 1  # the opening line's newline, so an empty frontmatter is found too
    while (position := text.find("\n---", position)) != -1:
        line_end = text.find("\n", position + 4)
        line_end = len(text) if line_end == -1 else line_end + 1
        if text[position + 1:line_end].rstrip() == _FENCE:
            return position + 1, line_end
        position += 4
    return None


def _key_line(frontmatter: str, key: str) -> int | None:
    """1-based file line of a top-level key, for error messages."""
    pattern = re.compile(rf"^['\"]?{re.escape(key)}['\"]?\s*:")
    for number, line in enumerate(frontmatter.splitlines(), start=2):
        if pattern.match(line):
            return number
    return None


def _scalar(text: str, flow: bool) -> Any:
    """A plain scalar exactly as YAML reads it, or _NO when it is not plainly simple."""
    if not text or text[0] in _PLAIN_FIRST_BAD or text[-1] == ":" or ": " in text:
        return _NO
    if flow and not _FLOW_BAD.isdisjoint(text):
        return _NO
    try:
        if _ISO_Z_RE.match(text):
            return datetime.fromisoformat(text)  # what YAML's timestamp constructor makes, faster
        tag = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))
        if tag == _STR_TAG:
            return text
        construct = _FAST_TAGS.get(tag)
        return _NO if construct is None else construct(_CONSTRUCTOR, yaml.ScalarNode(tag, text))
    except ValueError:
        return _NO  # e.g. 2026-02-30: the YAML parser reports it


# Keys, types and tags repeat in every entry; the results are immutable, so sharing them is safe.
_fast_scalar = lru_cache(maxsize=_VALUE_CACHE)(_scalar)


@lru_cache(maxsize=_VALUE_CACHE)
def _fast_value(raw: str) -> Any:
    """One line's value (after `key: `) as YAML reads it, lists as tuples; or _NO."""
    first = raw[:1]
    if first == '"':
        match = _DOUBLE_QUOTED_RE.match(raw)
        return _NO if match is None else match.group(1)
    if first == "'":
        match = _SINGLE_QUOTED_RE.match(raw)
        return _NO if match is None else match.group(1).replace("''", "'")
    if "#" in raw:
        comment = _INLINE_COMMENT_RE.search(raw)
        raw = raw[:comment.start()] if comment else raw
    text = raw.strip()
    if not text:
        return None
    if first != "[":
        return _scalar(text, False)  # this function's own cache already covers it
    if text[-1] != "]":
        return _NO
    inner = text[1:-1].strip()
    items = tuple(_fast_scalar(item.strip(), True) for item in inner.split(",")) if inner else ()
    return _NO if _NO in items else items


def _fast_frontmatter(source: str) -> tuple[tuple[str, Any], ...] | None:
    """Frontmatter of one `key: value` per line as (key, value) pairs, lists as tuples, read
    without the YAML parser; or None.

    Listing 10,000 entries in under a second needs this: PyYAML's Python-side constructor costs
    ~200 µs an entry even with the C loader. It accepts only a subset whose meaning is certain
    (plain or escape-free quoted scalars, flat flow lists, comments) and resolves every scalar
    with YAML's own resolver and constructors; anything else returns None and goes through the
    real parser, which also reports the errors.
    """
    # Tabs, control characters and the line breaks YAML knows beyond \n are not printable:
    # such text takes the slow path, so the split into lines below is YAML's split too.
    if not source.replace("\r\n", "").replace("\n", "").isprintable():
        return None
    lines = _FAST_LINE_RE.findall(source)
    # One match per line, plus an empty one at the very end: fewer means a line did not match.
    if len(lines) != source.count("\n") + 1:
        return None
    meta = {key: _fast_value(raw) for key, raw in lines if key}
    if not meta or len(meta) != len(lines) - lines.count(_NO_KEY) or _NO in meta.values():
        return None  # empty, a repeated key, or a value outside the subset
    if not _is_plain_keys(meta.keys() - _PLAIN_KEYS):
        return None  # a key YAML reads as true/null/…
    return tuple(meta.items())


# A dream parses each text it writes several times (the guard, the bundle preview, the commit
# plan): a frontmatter already read is not read again. Values are immutable (lists are kept as
# tuples), so the cached form is shared and each caller gets its own dict and lists.
_cached_frontmatter = lru_cache(maxsize=1 << 15)(_fast_frontmatter)


def _fresh_meta(items: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    return {key: list(value) if type(value) is tuple else value for key, value in items}


def _is_plain_keys(keys: set[str]) -> bool:
    for key in keys:
        if _fast_scalar(key, True) != key:
            return False
        _PLAIN_KEYS.add(key)
    return True


def _load_frontmatter(source: str, path: str) -> dict[str, Any]:
    items = _cached_frontmatter(source)
    if items is not None:
        return _fresh_meta(items)
    try:
        meta = yaml.load(source, Loader=_Loader)
    except ValueError as exc:  # YAML's constructors raise it for values like 2026-02-30
        raise EntryError(path, None, f"invalid value in frontmatter: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # +2: marks count from 0, and the frontmatter starts on the file's second line.
        line = mark.line + 2 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise EntryError(path, line, f"invalid YAML in frontmatter: {problem}") from None
    if not isinstance(meta, dict):
        got = "nothing" if meta is None else type(meta).__name__
        raise EntryError(path, 2, f"frontmatter must be a mapping of keys (title, slug, …), got {got}")
    return meta


def parse_entry(text: str, path: str) -> Entry:
    """One entry file's text → Entry; EntryError(path, line, reason) when it is malformed."""
    document = _split_document(text, path)
    meta = _load_frontmatter(document.frontmatter, path)
    if "slug" not in meta:
        raise EntryError(path, 2, "missing slug: add `slug: <lowercase-words>` to the frontmatter")
    try:
        validate_slug(meta["slug"], path)
    except EntryError as exc:
        raise EntryError(path, _key_line(document.frontmatter, "slug"), exc.reason) from None
    title = meta.get("title")
    if not isinstance(title, str) or not title.strip():
        line = _key_line(document.frontmatter, "title") or 2
        raise EntryError(path, line, "missing title: add `title: <one line of text>` to the frontmatter")
    return Entry(path=path, meta=meta, body=document.body, raw=text)


# --- rendering -------------------------------------------------------------------------------


@lru_cache(maxsize=_VALUE_CACHE)  # tags, types and keys repeat in every entry a dream writes
def _plain_ok(text: str, *, flow: bool, key: bool = False) -> bool:
    """True when `text` can be written unquoted and reads back as the same string."""
    if not text or text != text.strip() or not text.isprintable():
        return False
    if text[0] in _PLAIN_FIRST_BAD or ": " in text or " #" in text or text.endswith(":"):
        return False
    if (flow and not _FLOW_BAD.isdisjoint(text)) or (key and ":" in text):
        return False
    return _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG


def _quote(text: str) -> str:
    """A YAML double-quoted scalar; anything unprintable is escaped so it reads back exactly."""
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char.isprintable():
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else
                       f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _utc(moment: datetime) -> datetime:
    # Naive datetimes in memory files mean UTC; astimezone() alone would read them as local time.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    # YAML 1.1 floats need a dot: 1e+20 would read back as a string.
    return text.replace("e", ".0e") if "." not in text and "e" in text else text


def _value(value: Any, *, flow: bool = False) -> str:
    """One frontmatter value in the style of DESIGN 3.2: flow lists, Z timestamps."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, datetime):
        return iso_z(_utc(value))
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        return value if _plain_ok(value, flow=flow) else _quote(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(item, flow=True) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {_value(v, flow=True)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write a {type(value).__name__} into entry frontmatter")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key if _plain_ok(key, flow=True, key=True) else _quote(key)
    return _value(key, flow=True)


def _same(a: Any, b: Any) -> bool:
    """Equality that tells 1 from True and 1 from 1.0, so a changed type counts as a change."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@dataclass
class _Block:
    """One top-level key's source: comment/blank lines above it, then its own lines."""

    key: Any
    leading: list[str]
    lines: list[str]


def _is_key_start(line: str) -> bool:
    return bool(line.strip()) and line[0] not in " \t#-"


def _segment(frontmatter: list[str]) -> tuple[list[_Block], list[str]] | None:
    """Split frontmatter source into per-key blocks, or None when it cannot be split safely."""
    blocks: list[_Block] = []
    pending: list[str] = []
    for line in frontmatter:
        if not line.strip() or line.startswith("#"):
            pending.append(line)
        elif _is_key_start(line):
            blocks.append(_Block(key=None, leading=pending, lines=[line]))
            pending = []
        elif blocks:  # an indented or '- ' continuation: comments between belong to the value
            blocks[-1].lines.extend(pending)
            blocks[-1].lines.append(line)
            pending = []
        else:
            return None
    return blocks, pending


def _source_layout(original: Entry) -> tuple[list[_Block], list[str]] | None:
    """Blocks whose parsed key and value match the original meta exactly, else None."""
    frontmatter = _split_document(original.raw, original.path).frontmatter
    segmented = _segment(frontmatter.splitlines(keepends=True))
    if segmented is None:
        return None
    blocks, tail = segmented
    if len(blocks) != len(original.meta):
        return None  # duplicate keys or a split we misread: do not guess
    for block, (key, value) in zip(blocks, original.meta.items(), strict=False):
        try:
            parsed = yaml.load("".join(block.leading + block.lines), Loader=_Loader)
        except yaml.YAMLError:
            return None  # e.g. an alias to an anchor in another block
        if not isinstance(parsed, dict) or list(parsed) != [key] or not _same(parsed[key], value):
            return None
        block.key = key
    return blocks, tail


def _newline(text: str) -> str:
    first = text.split("\n", 1)[0]
    return "\r\n" if first.endswith("\r") else "\n"


def _rewrite_line(block: _Block, key: Any, old: Any, new: Any, newline: str) -> list[str]:
    """A changed key's new line, keeping a trailing `# comment` at its column when there was one."""
    head = f"{_key(key)}: {_value(new)}"
    if len(block.lines) == 1:
        line = block.lines[0].rstrip("\r\n")
        for match in _INLINE_COMMENT_RE.finditer(line):
            try:
                before = yaml.load(line[:match.start()], Loader=_Loader)
            except yaml.YAMLError:
                continue
            if isinstance(before, dict) and list(before) == [key] and _same(before[key], old):
                column = match.end() - 1
                pad = max(1, column - len(head))
                return [head + " " * pad + line[column:] + newline]
    return [head + newline]


def _ordered_keys(meta: dict[str, Any]) -> list[Any]:
    known = [key for key in KEY_ORDER if key in meta]
    return known + [key for key in meta if key not in KEY_ORDER]


def _fresh_frontmatter(meta: dict[str, Any], newline: str) -> list[str]:
    return [f"{_key(key)}: {_value(meta[key])}{newline}" for key in _ordered_keys(meta)]


def _preserving_frontmatter(meta: dict[str, Any], original: Entry,
                            layout: tuple[list[_Block], list[str]], newline: str) -> list[str]:
    blocks, tail = layout
    out: list[str] = []
    for block in blocks:
        if block.key not in meta:
            continue  # a removed key takes its own comments with it
        old, new = original.meta[block.key], meta[block.key]
        out.extend(block.leading)
        out.extend(block.lines if _same(old, new) else _rewrite_line(block, block.key, old, new, newline))
    out.extend(tail)
    out.extend(f"{_key(k)}: {_value(v)}{newline}" for k, v in meta.items() if k not in original.meta)
    return out


def render_entry(meta: dict[str, Any], body: str, original: Entry | None = None) -> str:
    """Frontmatter + body. With `original`, unchanged keys keep their exact source lines.

    Without `original`, known keys are written in DESIGN order, unknown ones after them in
    `meta` order, and the body gets a final newline if it lacks one.
    """
    if original is not None and body == original.body and _same(meta, original.meta):
        return original.raw
    if original is None:
        if body and not body.endswith("\n"):
            body += "\n"
        return _FENCE + "\n" + "".join(_fresh_frontmatter(meta, "\n")) + _FENCE + "\n" + body
    newline = _newline(original.raw)
    layout = _source_layout(original)
    if layout is None:  # a layout we cannot split safely: rewrite it plainly rather than guess
        return _FENCE + newline + "".join(_fresh_frontmatter(meta, newline)) + _FENCE + newline + body
    document = _split_document(original.raw, original.path)
    closing = document.closing if document.closing.endswith("\n") else document.closing + newline
    frontmatter = "".join(_preserving_frontmatter(meta, original, layout, newline))
    return document.opening + frontmatter + closing + body


# --- paths, index and log lines --------------------------------------------------------------


def entry_path(slug: str, kind: str, when: datetime) -> str:
    """Where a live entry lives: topics/<slug>.md or incidents/YYYY-MM/YYYY-MM-DD-<slug>.md."""
    validate_slug(slug, f"new {kind} entry")
    if kind == "topic":
        return f"{TOPICS}/{slug}.md"
    if kind == "incident":
        day = _utc(when).astimezone(UTC)
        return f"{INCIDENTS}/{day:%Y-%m}/{day:%Y-%m-%d}-{slug}.md"
    raise EntryError(slug, None, f"type: {kind!r} must be one of {', '.join(ENTRY_KINDS)}")


def _check_relative(path: str) -> str:
    parts = path.split("/")
    if not path or path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts):
        raise EntryError(path, None, "expected a plain relative path inside the memory root")
    return path


def archive_path(path: str) -> str:
    """Where a retired entry goes: the same relative path under archive/."""
    _check_relative(path)
    if path.startswith(ARCHIVE + "/"):
        raise EntryError(path, None, "already archived")
    return f"{ARCHIVE}/{path}"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _link(entry: Entry) -> str:
    title = _one_line(entry.title).replace("[", "\\[").replace("]", "\\]")
    return f"- [{title}]({entry.path})"


def _sections(groups: dict[str, list[Entry]], order: list[str]) -> list[str]:
    out: list[str] = []
    for name in order:
        out += ["", f"### {name}", "", *(_link(entry) for entry in groups[name])]
    return out


def _topic_group(entry: Entry) -> str:
    first = _one_line(entry.tags[0]) if entry.tags else ""
    return first or "untagged"


def _topic_lines(topics: list[Entry]) -> list[str]:
    groups: dict[str, list[Entry]] = defaultdict(list)
    for entry in sorted(topics, key=lambda e: (e.title.casefold(), e.title, e.path)):
        groups[_topic_group(entry)].append(entry)
    # "untagged" goes last: it is the leftover group, not a tag.
    return _sections(groups, sorted(groups, key=lambda name: (name == "untagged", name.casefold(), name)))


def _incident_month(entry: Entry) -> str:
    parts = entry.path.split("/")
    return parts[1] if len(parts) == 3 and _MONTH_RE.match(parts[1]) else "undated"


def _incident_lines(incidents: list[Entry]) -> list[str]:
    groups: dict[str, list[Entry]] = defaultdict(list)
    # File names start with the date, so reverse name order is newest first.
    for entry in sorted(incidents, key=lambda e: (e.path.rsplit("/", 1)[-1], e.path), reverse=True):
        groups[_incident_month(entry)].append(entry)
    return _sections(groups, sorted(groups, key=lambda name: (name != "undated", name), reverse=True))


def render_index(entries: Iterable[Entry]) -> str:
    """INDEX.md (DESIGN 3.2) for the live entries among `entries`, deterministically."""
    live = [e for e in entries if not e.archived]
    topics = [e for e in live if e.path.startswith(TOPICS + "/")]
    incidents = [e for e in live if e.path.startswith(INCIDENTS + "/")]
    lines = ["# LTM Index", "", "## Topics"]
    lines += _topic_lines(topics) if topics else ["", "_(empty)_"]
    lines += ["", "## Incidents"]
    lines += _incident_lines(incidents) if incidents else ["", "_(empty)_"]
    return "\n".join(lines) + "\n"


def log_line(moment: datetime, op: str, path: str, detail: str, dream_id: str | None) -> str:
    """One archive/LOG.md line; `dream_id` None marks a human's own decision."""
    who = f"[dream {dream_id}]" if dream_id else "[human]"
    detail = _one_line(detail)
    middle = f" ({detail})" if detail else ""
    return f"- {iso_z(_utc(moment))} {_one_line(op)} {_one_line(path)}{middle} {who}"


# --- the store -------------------------------------------------------------------------------


@dataclass
class LTMSnapshot:
    """Every entry read by one scan, by path (live and archived), and what could not be read.

    A picture of the store at one moment: to see a change, scan again rather than edit it.
    """

    entries: dict[str, Entry] = field(default_factory=dict)
    problems: list[EntryError] = field(default_factory=list)
    # Slug → live entry, built on first use: engines look slugs up once per memory in a batch.
    _by_slug: dict[str, Entry] = field(default_factory=dict, init=False, repr=False, compare=False)
    _indexed: int = field(default=-1, init=False, repr=False, compare=False)

    def live(self) -> list[Entry]:
        return [e for e in self.entries.values() if not e.archived]

    def archived(self) -> list[Entry]:
        return [e for e in self.entries.values() if e.archived]

    def _slug_index(self) -> dict[str, Entry]:
        if self._indexed != len(self.entries):  # rebuilt if entries were added or removed
            self._by_slug = {}
            for entry in self.live():
                self._by_slug.setdefault(entry.slug, entry)
            self._indexed = len(self.entries)
        return self._by_slug

    def by_slug(self, slug: str) -> Entry | None:
        """The live entry with this slug."""
        entry = self._slug_index().get(slug)
        if entry is not None and self.entries.get(entry.path) is not entry:
            self._indexed = -1  # an entry was replaced since the index was built
            entry = self._slug_index().get(slug)
        return entry

    def slugs(self) -> set[str]:
        """Slugs of live entries."""
        return {entry.slug for entry in self.live()}


def _read_bytes(file: str) -> bytes:
    # os.read without a buffered file object: a third of the cost of listing 10,000 entries.
    # O_NOFOLLOW: paths were checked for links already; one swapped in since then is not read.
    descriptor = os.open(file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        chunks = []
        while chunk := os.read(descriptor, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _duplicate(entry: Entry, owner: str) -> EntryError:
    line = _key_line(_split_document(entry.raw, entry.path).frontmatter, "slug")
    return EntryError(entry.path, line, f"duplicate slug {entry.slug!r}: already used by {owner}; "
                                        "this file is skipped until one of them is renamed")


class LTMStore:
    """The memory root: reads entries and writes only INDEX.md and LOG.md (the commit writes entries)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._real_root = self.root.resolve()

    @property
    def index_path(self) -> Path:
        return self.root / INDEX_NAME

    @property
    def log_path(self) -> Path:
        return self.root / ARCHIVE / LOG_NAME

    def _inside(self, real: Path) -> bool:
        return real.is_relative_to(self._real_root)

    def _read_text(self, file: str, rel: str) -> str:
        data = _read_bytes(file)
        try:
            # Decoded as-is (no newline translation) so `raw` is the file's exact text.
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EntryError(rel, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None

    def _walk(self, folder: str, rel: str, found: list[tuple[str, str]], problems: list[EntryError]) -> None:
        """Collect (file, relative path) of every .md entry below `folder`; symlinks are checked."""
        try:
            with os.scandir(folder) as listing:
                items = list(listing)
        except OSError as exc:
            problems.append(EntryError(rel, None, f"cannot list folder: {exc.strerror}"))
            return
        for item in items:
            if item.name.startswith("."):
                continue
            child = f"{rel}/{item.name}"
            if item.is_symlink():
                self._check_link(item.path, child, found, problems)
            elif item.is_dir(follow_symlinks=False):
                self._walk(item.path, child, found, problems)
            elif item.name.endswith(".md") and child != LOG_PATH:
                found.append((item.path, child))

    def _check_link(self, link: str, rel: str, found: list[tuple[str, str]],
                    problems: list[EntryError]) -> None:
        real = Path(link).resolve()
        if not self._inside(real):
            problems.append(EntryError(rel, None, "symlink points outside the memory root; not read"))
        elif real.is_dir():
            # Not followed: a link to a parent folder would list entries twice or loop forever.
            problems.append(EntryError(rel, None, "symlinked folder is not followed; move its files here"))
        elif rel.endswith(".md") and rel != LOG_PATH:
            found.append((str(real), rel))  # the checked target, read without following links

    def _collect(self, problems: list[EntryError]) -> list[tuple[str, str]]:
        """(file, relative path) of every entry file, sorted by relative path."""
        found: list[tuple[str, str]] = []
        for top in (TOPICS, INCIDENTS, ARCHIVE):
            folder = self.root / top
            if folder.is_symlink():
                self._check_link(str(folder), top, found, problems)
            elif folder.is_dir():
                self._walk(str(folder), top, found, problems)
        return sorted(found, key=lambda pair: pair[1])

    def scan(self) -> LTMSnapshot:
        """Every entry under topics/, incidents/ and archive/; malformed files become problems.

        Paths are visited in sorted order, so when two live entries share a slug the one with
        the smaller path wins, the same way on every machine.
        """
        snapshot = LTMSnapshot()
        owners: dict[str, str] = {}
        for file, rel in self._collect(snapshot.problems):
            try:
                entry = parse_entry(self._read_text(file, rel), rel)
            except EntryError as exc:
                snapshot.problems.append(exc)
                continue
            except OSError as exc:
                snapshot.problems.append(EntryError(rel, None, f"cannot read: {exc.strerror}"))
                continue
            if not entry.archived and entry.slug in owners:
                snapshot.problems.append(_duplicate(entry, owners[entry.slug]))
                continue
            if not entry.archived:
                owners[entry.slug] = rel
            snapshot.entries[rel] = entry
        return snapshot

    def _resolve(self, path: str) -> Path:
        """The real file for a path relative to the root; EntryError when it would leave the root."""
        _check_relative(path)
        real = (self.root / path).resolve()
        if not self._inside(real):
            raise EntryError(path, None, "resolves outside the memory root (symlink?); refused")
        return real

    def read(self, path: str) -> Entry:
        target = self._resolve(path)
        try:
            text = self._read_text(str(target), path)
        except FileNotFoundError:
            raise EntryError(path, None, "no such entry") from None
        except OSError as exc:
            raise EntryError(path, None, f"cannot read: {exc.strerror}") from None
        return parse_entry(text, path)

    def append_log(self, lines: Sequence[str]) -> None:
        """Append decision lines to archive/LOG.md and fsync: the log must survive a crash."""
        for line in lines:
            if "\n" in line or "\r" in line:
                raise ValueError(f"a LOG.md line must be one line: {line!r}")
        if not lines:
            return
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "a+b") as handle:
            handle.seek(0, os.SEEK_END)
            prefix = b""
            if handle.tell() > 0:
                handle.seek(-1, os.SEEK_END)
                # A hand edit may have left no final newline; never glue onto its last line.
                prefix = b"" if handle.read(1) == b"\n" else b"\n"
            handle.write(prefix + "".join(f"{line}\n" for line in lines).encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())

    def log_lines(self, *, newest_first: bool = True, limit: int | None = None) -> list[str]:
        """Non-blank LOG.md lines; with `limit`, only the last ones, read from the end of the file."""
        if limit is not None and limit <= 0:
            return []
        try:
            lines = self._all_log_lines() if limit is None else self._last_log_lines(limit)
        except FileNotFoundError:
            return []
        return lines[::-1] if newest_first else lines

    def _all_log_lines(self) -> list[str]:
        # errors="replace": a hand edit in another encoding must not hide the whole history.
        text = self.log_path.read_bytes().decode("utf-8", errors="replace")
        return [line for line in text.splitlines() if line.strip()]

    def _last_log_lines(self, limit: int) -> list[str]:
        blocks: list[list[bytes]] = []  # complete lines, last block read first
        found = 0
        with open(self.log_path, "rb") as handle:
            position = handle.seek(0, os.SEEK_END)
            partial = b""  # the start of a line whose beginning lies in the next block back
            while position > 0 and found < limit:
                step = min(_LOG_CHUNK, position)
                position -= step
                handle.seek(position)
                lines = (handle.read(step) + partial).split(b"\n")
                partial = lines.pop(0) if position > 0 else b""
                complete = [line for line in lines if line.strip()]
                blocks.append(complete)
                found += len(complete)
        ordered = [line for block in reversed(blocks) for line in block]
        return [line.decode("utf-8", errors="replace").rstrip("\r") for line in ordered[-limit:]]

    def write_index(self, snapshot: LTMSnapshot) -> None:
        text = render_index(snapshot.entries.values())
        try:
            if self.index_path.read_bytes() == text.encode("utf-8"):
                return  # unchanged: keep its mtime and spare git a no-op
        except FileNotFoundError:
            pass
        atomic_write_text(self.index_path, text)

    def ensure_layout(self) -> None:
        for name in (TOPICS, INCIDENTS, ARCHIVE):
            (self.root / name).mkdir(parents=True, exist_ok=True)
        self.log_path.touch(exist_ok=True)
        if not self.index_path.exists():
            self.write_index(self.scan())
