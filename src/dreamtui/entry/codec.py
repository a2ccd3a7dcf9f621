"""The entry file format: YAML frontmatter between `---` lines, then a markdown body.

`parse_entry` reads an entry's exact text into an `Entry`; `render_entry` writes one back so that
a person's formatting survives: every frontmatter key whose value did not change keeps its source
lines byte for byte, comments included. Simple frontmatter is read without the YAML parser (a fast
path that agrees with it exactly), since listing thousands of entries depends on it. Nothing here
reads or writes files or decides what to change.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any, NamedTuple

import yaml

from dreamtui.errors import EntryError
from dreamtui.model import Entry, is_heading, iso_z
from dreamtui.safety.paths import SLUG_MAX_LEN, SLUG_PATTERN, is_slug

# The C loader parses frontmatter several times faster; listing 10,000 entries depends on it.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RESOLVER = yaml.resolver.Resolver()

# The order a fresh entry's keys are written in; unknown keys follow in meta order.
KEY_ORDER = ("title", "slug", "type", "tags", "created_at", "updated_at", "related", "sources",
             "confirmations", "last_confirmed", "flags", "last_flagged", "importance",
             "retired_at", "retired_reason", "superseded_by")

_FENCE = "---"
_PLAIN_FIRST_BAD = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_BAD = frozenset(",[]{}?")
_INLINE_COMMENT_RE = re.compile(r"\s+#")
# One frontmatter line: `key: value` (groups 1, 2), or a blank or comment line (empty groups).
# Greedy and unanchored inside, so matching costs one pass; values are stripped afterwards.
_FAST_LINE_RE = re.compile(r"^(?:([A-Za-z_][A-Za-z0-9_]*):(?:[ ]+(.*))?|[ ]*|#.*)\r?$", re.MULTILINE)
_DOUBLE_QUOTED_RE = re.compile(r'^"([^"\\]*)"(?:\s+#.*)?\s*$')
_SINGLE_QUOTED_RE = re.compile(r"^'((?:[^']|'')*)'(?:\s+#.*)?\s*$")
_DATED_RE = re.compile(r"^\d{4}-\d{2}-\d{2}-")  # an incident file name's date
_ISO_Z_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_STR_TAG = "tag:yaml.org,2002:str"
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_FAST_TAGS = {tag: yaml.constructor.SafeConstructor.yaml_constructors[tag]
              for tag in ("tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                          "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp")}
_NO = object()  # "not in the fast subset", distinct from a parsed None
_NO_KEY = ("", "")  # what _FAST_LINE_RE yields for a blank or comment line
_PLAIN_KEYS: set[str] = set()  # keys known to read back as themselves
# Entry frontmatter nests a few levels; libyaml's composer recurses in C once per level, so a
# deep enough document crashes the process instead of raising.
_MAX_DEPTH = 32
# Parsed values kept between scans: enough for ~10,000 entries (a rescan then skips most parsing)
# while bounding memory to a few tens of MB whatever the workspace holds.
_VALUE_CACHE = 1 << 16


# --- parsing ---------------------------------------------------------------------------------



def _implicit_tag(text: str) -> str:
    """The tag YAML would give this plain scalar (str, int, bool, timestamp …)."""
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag

def check_slug(slug: Any, where: str) -> str:
    """The slug itself, or EntryError naming `where` when it breaks the slug rule (`is_slug`).

    Worded for a file's frontmatter; `validate_slug` words the same rule for an argument.
    """
    if not isinstance(slug, str) or not slug:
        raise EntryError(where, None, "slug: required, lowercase words joined by '-'")
    if not is_slug(slug):
        raise EntryError(where, None, f"slug: {slug[:60]!r} must match {SLUG_PATTERN} "
                                      f"and be at most {SLUG_MAX_LEN} characters")
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
        tag = _implicit_tag(text)
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


def _check_structure(source: str, path: str) -> None:
    """EntryError for what no entry needs and neither the parser nor a reader survives.

    An alias (`*name`) repeats the subtree its anchor names: nine nested ones turn a few hundred
    bytes into ~387 million values for whatever walks the entry next (a "billion laughs"), so
    aliases are refused outright. Nesting deeper than _MAX_DEPTH is refused before the composer
    recurses into it. Read from parser events, which neither build values nor recurse; a syntax
    error is left for the load to report with its line.
    """
    depth = 0
    try:
        for event in yaml.parse(source, Loader=_Loader):
            # +2: marks count from 0, and the frontmatter starts on the file's second line.
            line = event.start_mark.line + 2 if event.start_mark is not None else None
            if isinstance(event, yaml.AliasEvent):
                raise EntryError(path, line, f"YAML alias *{event.anchor} in frontmatter: aliases "
                                             "are not allowed in an entry; write the value out")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > _MAX_DEPTH:
                    raise EntryError(path, line, f"frontmatter nested more than {_MAX_DEPTH} "
                                                 "levels deep")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return


def _load_frontmatter(source: str, path: str) -> dict[str, Any]:
    items = _cached_frontmatter(source)
    if items is not None:
        return _fresh_meta(items)  # the fast subset has neither aliases nor nesting
    _check_structure(source, path)
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


def kebab(value: str) -> str:
    """Dreamer's kebab-casing (its `_kebab`): lowercase, every run of other characters one '-'."""
    out: list[str] = []
    last_dash = True
    for char in value.strip().lower():
        if char.isalnum():
            out.append(char)
            last_dash = False
        elif not last_dash:
            out.append("-")
            last_dash = True
    return "".join(out).rstrip("-")


def file_stem(path: str) -> str:
    """The file name without `.md`: what Dreamer's INDEX.md shows for an entry without a title."""
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def _file_slug(path: str) -> str:
    """The slug a file name gives: topics/<slug>.md, incidents/YYYY-MM/YYYY-MM-DD-<slug>.md."""
    stem = file_stem(path)
    if "incidents/" in path:
        stem = _DATED_RE.sub("", stem)
    return kebab(stem)


def _derived_slug(meta: dict[str, Any], frontmatter: str, path: str) -> str | None:
    """The slug to read when the frontmatter's is missing or not one (Dreamer reads such files
    and lists them in INDEX.md): the file name's, or the slug kebab-cased; None when the
    frontmatter's slug is fine; EntryError when neither gives a slug."""
    if "slug" not in meta or meta["slug"] is None:
        derived = _file_slug(path)
        if is_slug(derived):
            return derived
        raise EntryError(path, 2, "missing slug, and the file name gives none: add "
                                  "`slug: <lowercase-words>` to the frontmatter")
    slug = meta["slug"]
    if is_slug(slug):
        return None
    derived = kebab(slug) if isinstance(slug, str) else ""
    if not is_slug(derived):
        try:
            check_slug(slug, path)  # raises: neither the slug nor its kebab-cased form is one
        except EntryError as exc:
            raise EntryError(path, _key_line(frontmatter, "slug"), exc.reason) from None
    return derived


def _derived_title(meta: dict[str, Any], body: str, path: str) -> str | None:
    """The title to read when the frontmatter has none: the body's leading `# heading`, else
    the file name (as Dreamer's INDEX.md shows it); None when the frontmatter has one."""
    title = meta.get("title")
    if title is not None and (not isinstance(title, str) or title.strip()):
        return None
    for line in body.splitlines():
        if line.strip():
            heading = line.strip().lstrip("#").strip()
            return heading if is_heading(line) and heading else file_stem(path)
    return file_stem(path)


def parse_entry(text: str, path: str) -> Entry:
    """One entry file's text → Entry; EntryError(path, line, reason) when it is malformed.

    A file Dreamer reads is read too: without a slug it takes the file name's, a slug that is
    not lowercase words (`Mixed_Case`) is read kebab-cased, and without a title it takes the
    body's leading `# heading` or the file name. What was derived is in `Entry.derived`
    (reported by the store's scan), never written into the file.
    """
    document = _split_document(text, path)
    meta = _load_frontmatter(document.frontmatter, path)
    derived: dict[str, str] = {}
    slug = _derived_slug(meta, document.frontmatter, path)
    if slug is not None:
        derived["slug"] = slug
    title = _derived_title(meta, document.body, path)
    if title is not None:
        derived["title"] = title
    return Entry(path=path, meta=meta, body=document.body, raw=text, derived=derived)


def index_listing(text: str, path: str) -> Entry | None:
    """A file `parse_entry` refuses, as Dreamer's INDEX.md writer still lists it (frontmatter that
    loads as a mapping, whatever its slug and title), or None when Dreamer skips it too."""
    try:
        document = _split_document(text, path)
        meta = _load_frontmatter(document.frontmatter, path)
    except EntryError:
        return None
    return Entry(path=path, meta=meta, body=document.body, raw=text)


def key_line(entry: Entry, key: str) -> int | None:
    """1-based file line of one of `entry`'s top-level frontmatter keys, for error messages."""
    return _key_line(_split_document(entry.raw, entry.path).frontmatter, key)



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
    return _implicit_tag(text) == _STR_TAG


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


def as_utc(moment: datetime) -> datetime:
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
    """One frontmatter value in the entry style: flow lists, Z timestamps."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, datetime):
        return iso_z(as_utc(value))
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
    """Equality that tells 1 from True and 1 from 1.0, so a changed type counts as a change; a
    `.nan` read twice is the same value (NaN is unequal to itself, which made an untouched entry
    holding one rewritten plainly, its order and comments lost)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
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
        parsed = _block_meta("".join(block.leading + block.lines))
        if parsed is None or list(parsed) != [key] or not _same(parsed[key], value):
            return None
        block.key = key
    return blocks, tail


def _block_meta(source: str) -> dict[str, Any] | None:
    """One block's source read as YAML reads it, or None when it is not a mapping or not YAML.

    Each rewritten entry's every block is read again here: a one-line `key: value` block takes
    the frontmatter fast path (which agrees with the parser exactly), the rest the parser.
    """
    items = _cached_frontmatter(source)
    if items is not None:
        return _fresh_meta(items)
    try:
        parsed = yaml.load(source, Loader=_Loader)
    except yaml.YAMLError:
        return None  # e.g. an alias to an anchor in another block
    return parsed if isinstance(parsed, dict) else None


def _newline(text: str) -> str:
    first = text.split("\n", 1)[0]
    return "\r\n" if first.endswith("\r") else "\n"


def _rewrite_line(block: _Block, key: Any, old: Any, new: Any, newline: str) -> list[str]:
    """A changed key's new line, keeping a trailing `# comment` at its column when there was one."""
    head = f"{_key(key)}: {_value(new)}"
    if len(block.lines) == 1:
        line = block.lines[0].rstrip("\r\n")
        for match in _INLINE_COMMENT_RE.finditer(line):
            before = _block_meta(line[:match.start()])
            if before is not None and list(before) == [key] and _same(before[key], old):
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

    Without `original`, known keys are written in KEY_ORDER, unknown ones after them in
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

