"""The markdown LTM store: the memory root's entry files, INDEX.md and archive/LOG.md.

It lists and reads entries (through the entry codec, `dreamtui.entry.codec`), says where an
entry's file lives, renders INDEX.md and LOG.md lines, and writes only INDEX.md and LOG.md: the
commit writes entries. Nothing here decides what to change.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from dreamtui.entry.codec import as_utc, check_slug, file_stem, index_listing, key_line, parse_entry
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

_LOG_CHUNK = 64 * 1024


# --- paths, index and log lines --------------------------------------------------------------


def entry_path(slug: str, kind: str, when: datetime) -> str:
    """Where a live entry lives: topics/<slug>.md or incidents/YYYY-MM/YYYY-MM-DD-<slug>.md."""
    check_slug(slug, f"new {kind} entry")
    if kind == "topic":
        return f"{TOPICS}/{slug}.md"
    if kind == "incident":
        day = as_utc(when).astimezone(UTC)
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


def topic_group(entry: Entry) -> str:
    """The heading an entry is listed under in AGENTS.md: its first tag as written, "untagged"
    without one (so every heading is a tag's own spelling)."""
    first = _one_line(entry.tags[0]) if entry.tags else ""
    return first or "untagged"


def _index_tag(entry: Entry) -> str:
    """The INDEX.md heading Dreamer's writer gives an entry: `str(tags[0])`, "untagged" without
    tags; for tags Dreamer's writer cannot index (a mapping, a number) the AGENTS.md heading."""
    tags = entry.meta.get("tags") or []
    if isinstance(tags, (list, str)):
        return str(tags[0]) if tags else "untagged"
    return topic_group(entry)


def _index_title(entry: Entry) -> str:
    return str(entry.meta.get("title") or file_stem(entry.path))


def render_index(entries: Iterable[Entry], also: Iterable[Entry] = ()) -> str:
    """INDEX.md for the live entries among `entries` (and `also`: files only listed, see
    `LTMSnapshot.listed`), byte for byte what Dreamer's `MarkdownLTMStore` writes for the same
    tree, so the two writers never rewrite each other's INDEX.md.

    Its rules, kept exactly: titles as written (Dreamer escapes nothing), the file name without
    a title; topics under their first tag, headings and entries in plain code-point order
    ("untagged" sorts among the tags); incidents by month folder ("unknown" outside one), newest
    month first, entries by created_at (else the file name), title and path, descending; a
    section only when it has entries, `_(empty)_` when neither has.
    """
    by_path = {entry.path: entry for entry in also}
    by_path.update((entry.path, entry) for entry in entries)
    by_tag: dict[str, list[tuple[str, str]]] = defaultdict(list)
    by_month: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for entry in by_path.values():
        parts = entry.path.split("/")
        if parts[0] == TOPICS:
            by_tag[_index_tag(entry)].append((_index_title(entry), entry.path))
        elif parts[0] == INCIDENTS:
            month = parts[1] if len(parts) >= 3 else "unknown"
            created = str(entry.meta.get("created_at") or file_stem(entry.path))
            by_month[month].append((created, _index_title(entry), entry.path))
    lines = ["# LTM Index", ""]
    if by_tag:
        lines += ["## Topics", ""]
        for tag in sorted(by_tag):
            lines += [f"### {tag}", "", *(f"- [{t}]({rel})" for t, rel in sorted(by_tag[tag])), ""]
    if by_month:
        lines += ["## Incidents", ""]
        for month in sorted(by_month, reverse=True):
            lines += [f"### {month}", "",
                      *(f"- [{t}]({rel})" for _, t, rel in sorted(by_month[month], reverse=True)), ""]
    if not by_tag and not by_month:
        lines += ["_(empty)_", ""]
    return "\n".join(lines).rstrip() + "\n"


def log_line(moment: datetime, op: str, path: str, detail: str, dream_id: str | None) -> str:
    """One archive/LOG.md line; `dream_id` None marks a human's own decision."""
    who = f"[dream {dream_id}]" if dream_id else "[human]"
    detail = _one_line(detail)
    middle = f" ({detail})" if detail else ""
    return f"- {iso_z(as_utc(moment))} {_one_line(op)} {_one_line(path)}{middle} {who}"


# --- the store -------------------------------------------------------------------------------


@dataclass
class LTMSnapshot:
    """Every entry read by one scan, by path (live and archived), and what could not be read.

    A picture of the store at one moment: to see a change, scan again rather than edit it.
    """

    entries: dict[str, Entry] = field(default_factory=dict)
    problems: list[EntryError] = field(default_factory=list)
    # Files skipped as entries (a problem above) that Dreamer's INDEX.md writer still lists
    # (their frontmatter loads: a duplicate slug, a slug that cannot be read): INDEX.md keeps
    # them, so it stays Dreamer's. Never matched, bundled or changed.
    listed: dict[str, Entry] = field(default_factory=dict)
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

    def notices(self) -> list[EntryError]:
        """Entries read with a slug the frontmatter does not hold as one (from the file name, or
        a `Mixed_Case` slug kebab-cased): read and listed, but worth fixing in the file."""
        found = []
        for entry in self.entries.values():
            derived = entry.derived.get("slug")
            if derived is None:
                continue
            written = entry.meta.get("slug")
            how = ("no slug in the frontmatter" if written is None
                   else f"slug {str(written)[:60]!r} is not lowercase words joined by '-'")
            line = None if written is None else key_line(entry, "slug")
            found.append(EntryError(entry.path, line, f"{how}: read as {derived!r} "
                                    f"([mem: {derived}]); add `slug: {derived}` to keep it"))
        return found


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
    line = key_line(entry, "slug")
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

    def entry_files(self, problems: list[EntryError]) -> list[tuple[str, str]]:
        """(file to read, path relative to the root) of every entry file, archived ones included,
        sorted by path, with links checked as `scan` checks them (what is refused goes to
        `problems`): for the search index, which stats them and reads only changed ones."""
        return self._collect(problems)

    def scan(self) -> LTMSnapshot:
        """Every entry under topics/, incidents/ and archive/; malformed files become problems.

        Paths are visited in sorted order, so when two live entries share a slug the one with
        the smaller path wins, the same way on every machine.
        """
        snapshot = LTMSnapshot()
        owners: dict[str, str] = {}
        for file, rel in self._collect(snapshot.problems):
            try:
                text = self._read_text(file, rel)
            except EntryError as exc:
                snapshot.problems.append(exc)
                continue
            except OSError as exc:
                snapshot.problems.append(EntryError(rel, None, f"cannot read: {exc.strerror}"))
                continue
            try:
                entry = parse_entry(text, rel)
            except EntryError as exc:
                snapshot.problems.append(exc)
                listing = index_listing(text, rel)
                if listing is not None:
                    snapshot.listed[rel] = listing
                continue
            if not entry.archived and entry.slug in owners:
                snapshot.problems.append(_duplicate(entry, owners[entry.slug]))
                snapshot.listed[rel] = entry
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
        text = render_index(snapshot.entries.values(), snapshot.listed.values())
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
