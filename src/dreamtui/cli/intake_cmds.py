"""`dreamtui submit`, `confirm`, `flag`, `status` and `purge`: the command-line side of the STM queue.

Every submission passes `dreamtui.intake.validate`, the gate that checks it against the config and
redacts secrets, so nothing typed or piped here reaches the store unchecked.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field, replace
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import click

from dreamtui.cli.main import AppContext, main, pass_app
from dreamtui.errors import EXIT_USAGE, InputError, WorkspaceError
from dreamtui.model import FEEDBACK_CONFIRMED, FEEDBACK_FLAGGED, Changeset, NewMemory, engine_label, iso_z
from dreamtui.store.files import atomic_write_text
from dreamtui.store.leases import GONE, claims, memories_gone, read_records
from dreamtui.store.lock import lock_holder
from dreamtui.store.stm import BULK_CHUNK, RowFields, STMStore, SubmitResult, bulk_rows, new_ids
from dreamtui.vocabulary import counted
from dreamtui.workspace.config import Config
from dreamtui.workspace.layout import Workspace

if TYPE_CHECKING:
    from concurrent.futures import Future

# `dreamtui.intake.validate` (with the safety patterns it compiles, ~30 ms) and the process pool
# (~20 ms) are imported where a submit needs them, so `status` and `purge`, which a hook may run
# at every session start, do not pay for them.

MAX_REPORTED = 50  # bad-line messages printed before the rest are only counted
_BOM = b"\xef\xbb\xbf"
_DECODER = json.JSONDecoder()
_JSON_SPACE = " \t\n\r"  # the whitespace JSON allows around a value
BLOCK_LINES = 1000  # lines validated as one unit, in a worker process when the input is large
MAX_WORKERS = 4  # past this the inserting process, not validation, limits the rate


# -- submit ----------------------------------------------------------------------------------------

@main.command("submit")
@click.option("--type", "type_", metavar="TYPE", help="Memory type (see memory_types in the config).")
@click.option("--title", help="One line, at most stm.max_title_chars characters.")
@click.option("--content", help="The memory itself, at most stm.max_content_bytes bytes.")
@click.option("--tags", multiple=True, metavar="TAG[,TAG...]", help="Comma-separated; repeatable.")
@click.option("--agent", "agent_id", default="cli", show_default=True,
              help="Who submits (with --jsonl: the default for records without agent_id).")
@click.option("--idempotency-key", metavar="KEY", help="A second submit with this key is a no-op.")
@click.option("--metadata", metavar="JSON", help="A JSON object stored with the memory.")
@click.option("--jsonl", type=click.File("rb"), metavar="FILE|-",
              help="Submit one JSON object per line (fields: type, title, content, agent_id, "
                   "tags, metadata, idempotency_key, extra); - reads stdin.")
@pass_app
def submit_cmd(app: AppContext, type_: str | None, title: str | None, content: str | None,
               tags: tuple[str, ...], agent_id: str, idempotency_key: str | None,
               metadata: str | None, jsonl: BinaryIO | None) -> None:
    """Add a memory to the short-term queue (or many, with --jsonl)."""
    if jsonl is not None:
        given = [name for name, value in (("--type", type_), ("--title", title),
                                          ("--content", content), ("--tags", tags),
                                          ("--idempotency-key", idempotency_key),
                                          ("--metadata", metadata)) if value]
        if given:
            raise InputError(f"{', '.join(given)}: not allowed with --jsonl, which reads every "
                             "field from the file")
        _submit_jsonl(app.workspace, jsonl, agent_id)
        return
    for option, value in (("--type", type_), ("--title", title), ("--content", content)):
        if value is None:
            raise InputError(f"{option}: required (or use --jsonl FILE to submit many)")
    assert type_ is not None and title is not None and content is not None  # checked just above
    memory = NewMemory(type=type_, title=title, content=content, agent_id=agent_id,
                       tags=_split_tags(tags), metadata=_parse_metadata(metadata),
                       idempotency_key=idempotency_key)
    result = _store_one(app.workspace, memory)
    if result.created:
        click.echo(f"submitted {result.memory.id}")
    else:
        click.echo(f"already submitted as {result.memory.id} (same idempotency key; nothing added)")


def _split_tags(values: tuple[str, ...]) -> tuple[str, ...]:
    tags = (tag.strip() for value in values for tag in value.split(","))
    return tuple(dict.fromkeys(tag for tag in tags if tag))


def _parse_metadata(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"--metadata: invalid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, dict):
        from dreamtui.intake import validate

        raise InputError(f"--metadata: expected a JSON object, got {validate.json_kind(value)}")
    return value


def _intake_notes(prepared: RowFields, *, title: str, content: str, metadata: Any,
                  tags: Iterable[str], agent_id: str, key: str | None) -> list[str]:
    """What the gate changed or marked, so the submitter knows what was actually stored."""
    notes = []
    # The gate strips the title and tags and deduplicates tags; any other change is a redaction.
    if (prepared.title != title.strip() or prepared.content != content
            or prepared.metadata != metadata or set(prepared.tags) != {t.strip() for t in tags}
            or prepared.agent_id != agent_id or prepared.idempotency_key != key):
        kinds = ", ".join(prepared.extra.get("redacted", ())) or "unknown kind"
        notes.append(f"secret redacted before storing ({kinds}); the stored text says "
                     "[REDACTED:<kind>] in its place")
    if prepared.extra.get("safety"):
        notes.append(f"marked for review: {', '.join(prepared.extra['safety'])}")
    return notes


def _store_one(workspace: Workspace, memory: NewMemory) -> SubmitResult:
    """Validate, redact and store one memory, telling the submitter what the gate changed."""
    from dreamtui.intake import validate

    prepared = validate.prepare(memory, workspace.config)
    for note in _intake_notes(prepared, title=memory.title, content=memory.content,
                              metadata=memory.metadata, tags=memory.tags, agent_id=memory.agent_id,
                              key=memory.idempotency_key):
        click.echo(f"dreamtui: note: {note}", err=True)
    with STMStore.for_workspace(workspace) as store:
        return store.submit(prepared)


# -- submit --jsonl --------------------------------------------------------------------------------

@dataclass
class _Report:
    """Counts bad lines and notes; prints the first MAX_REPORTED so binary junk cannot flood stderr."""

    source: str  # the file as given (`-` is stdin), so each message names where its line is
    bad: int = 0
    noted: int = 0
    printed: int = 0
    redacted_kinds: set[str] = field(default_factory=set)

    def say(self, message: str) -> None:
        if self.printed < MAX_REPORTED:
            click.echo(message, err=True)
        self.printed += 1

    def bad_line(self, number: int, reason: str) -> None:
        self.bad += 1
        self.say(f"{self.source}, line {number}: {reason}")

    def notes(self, number: int, notes: list[str], redacted: Iterable[str]) -> None:
        self.noted += 1
        self.redacted_kinds.update(redacted)
        for note in notes:
            self.say(f"{self.source}, line {number}: note: {note}")

    def block(self, events: list[_Event]) -> None:
        for number, reason, notes, redacted in events:
            if reason is not None:
                self.bad_line(number, reason)
            else:
                self.notes(number, notes, redacted)

    def finish(self) -> None:
        if self.printed > MAX_REPORTED:
            click.echo(f"... {self.printed - MAX_REPORTED} more messages not shown", err=True)


def _max_line_bytes(config: Config) -> int:
    # JSON escapes can grow text up to six-fold; past this a line is junk, and refusing it keeps
    # a newline-free binary file from being read into memory whole.
    return max(1 << 20, 8 * config.stm.max_content_bytes)


def _numbered_lines(stream: BinaryIO, limit: int) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes) for each line; bytes is None for a line longer than `limit`."""
    number = 0
    while line := stream.readline(limit + 1):
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stream.readline(1 << 16)
            yield number, None
        else:
            yield number, line


def _decode(number: int, line: bytes) -> Any:
    """One JSONL line → a parsed value; InputError says why it is not one."""
    if number == 1 and line.startswith(_BOM):
        line = line[len(_BOM):]
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte 0x{line[exc.start]:02x} at column {exc.start + 1}"
                         "); expected one JSON object per line") from None
    try:
        if text.startswith("{"):
            # json.loads(text) minus its per-call checks and leading-whitespace match (a third of
            # a typical line's parse): with no whitespace before the object, raw_decode is the
            # same parse and raises the same errors; data after the object goes to json.loads,
            # which says "Extra data" where it begins.
            value, end = _DECODER.raw_decode(text)
            if not text[end:].strip(_JSON_SPACE):
                return value
        return json.loads(text)
    except json.JSONDecodeError as exc:
        # json says "Invalid control character at" and appends the place: ours comes first
        what = exc.msg.removesuffix(" at")
        # The line's own column: a line cut short fails past its newline, which json counts
        # as column 1 of a second line.
        column = min(exc.pos, len(text.rstrip("\r\n"))) + 1
        raise InputError(f"invalid JSON at column {column}: {what[:1].lower()}{what[1:]}") from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply") from None


# (line number, why the line is bad or None, notes, redacted kinds): what a block reports.
_Event = tuple[int, str | None, list[str], tuple[str, ...]]
_Lines = list[tuple[int, bytes | None]]


@dataclass(frozen=True)
class _Intake:
    """Turns blocks of numbered lines into rows for `STMStore.insert_rows` and what to report.

    Plain data in and out, so a block can be handled in a worker process just as well.
    """

    config: Config
    agent_id: str
    tenant_id: str
    limit: int

    def block(self, lines: _Lines) -> tuple[list[tuple[Any, ...]], list[_Event]]:
        from dreamtui.intake import validate

        good: list[validate.Prepared] = []
        events: list[_Event] = []
        for number, line in lines:
            if line is None:
                reason = f"longer than {self.limit} bytes; expected one JSON object per line"
                events.append((number, reason, [], ()))
                continue
            if not line.strip():
                continue
            try:
                record = _decode(number, line)
                prepared = validate.prepared_from_json(record, self.config, self.agent_id)
            except InputError as exc:
                events.append((number, str(exc), [], ()))
                continue
            notes = _intake_notes(prepared, title=record["title"], content=record["content"],
                                  metadata=record.get("metadata", {}), tags=record.get("tags", ()),
                                  agent_id=record.get("agent_id", self.agent_id),
                                  key=record.get("idempotency_key"))
            if notes:
                events.append((number, None, notes, tuple(prepared.extra.get("redacted", ()))))
            good.append(prepared)
        return bulk_rows(good, self.tenant_id, new_ids(len(good))), events


def _workers() -> int:
    """Worker processes for a large input: none where fork is unavailable or unsafe, or on one
    core. Fork, because workers then start in milliseconds with everything already imported;
    macOS's system libraries are not fork-safe, which is why its default is spawn."""
    if not sys.platform.startswith("linux"):
        return 0
    cores = len(os.sched_getaffinity(0))
    return min(cores, MAX_WORKERS) if cores > 1 else 0


def _blocks(stream: BinaryIO, limit: int) -> Iterator[_Lines]:
    lines = _numbered_lines(stream, limit)
    while block := list(islice(lines, BLOCK_LINES)):
        yield block


def _prepared_blocks(intake: _Intake, blocks: Iterator[_Lines]
                     ) -> Generator[tuple[list[tuple[Any, ...]], list[_Event]], None, None]:
    """Every block's rows and events, in input order.

    The first block is handled here, so a small input never starts a process. After it, blocks
    are validated in worker processes while this process inserts the rows of earlier ones: on
    two cores validation and SQLite then overlap instead of taking turns. A bounded number of
    blocks is in flight, so memory stays flat however long the input is.
    """
    first = next(blocks, None)
    if first is None:
        return
    yield intake.block(first)
    second = next(blocks, None)
    if second is None:
        return
    blocks = chain([second], blocks)
    workers = _workers()
    if workers == 0:
        yield from map(intake.block, blocks)
        return
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    # Blocks in flight: two insert chunks' worth plus two per worker, so the workers keep
    # validating while this process writes a whole chunk (measured: a window of five, one chunk,
    # left them idle a tenth of the time).
    window = 2 * (BULK_CHUNK // BLOCK_LINES) + 2 * workers
    in_flight: deque[Future[tuple[list[tuple[Any, ...]], list[_Event]]]] = deque()
    pool = ProcessPoolExecutor(workers, mp_context=get_context("fork"))
    try:
        for block in blocks:
            in_flight.append(pool.submit(intake.block, block))
            if len(in_flight) >= window:
                yield in_flight.popleft().result()
        while in_flight:
            yield in_flight.popleft().result()
    finally:
        pool.shutdown(cancel_futures=True)


def _reported_rows(blocks: Iterable[tuple[list[tuple[Any, ...]], list[_Event]]],
                   report: _Report) -> Iterator[tuple[Any, ...]]:
    for rows, events in blocks:
        report.block(events)
        yield from rows


def _submit_jsonl(workspace: Workspace, stream: BinaryIO, agent_id: str) -> None:
    name = getattr(stream, "name", "-")
    report = _Report("stdin" if name in {"-", "<stdin>"} or not isinstance(name, str) else name)
    config = workspace.config
    with STMStore.for_workspace(workspace) as store:
        limit = _max_line_bytes(config)
        intake = _Intake(config, agent_id, store.tenant_id, limit)
        blocks = _prepared_blocks(intake, _blocks(stream, limit))
        try:
            result = store.insert_rows(_reported_rows(blocks, report))
        finally:
            blocks.close()  # stops the workers now, also when the insert failed
    report.finish()
    if report.noted:
        kinds = ", ".join(sorted(report.redacted_kinds)) or "none"
        click.echo(f"dreamtui: note: {report.noted} memories were redacted or marked for review "
                   f"(redacted kinds: {kinds})", err=True)
    click.echo(f"{result.inserted} submitted, {counted(result.duplicates, 'duplicate')}, "
               f"{counted(report.bad, 'bad line')}")
    if report.bad:
        click.get_current_context().exit(EXIT_USAGE)


# -- feedback --------------------------------------------------------------------------------------

def _fit_title(memory: NewMemory, config: Config) -> NewMemory:
    # Feedback titles are generated from slugs (up to 200 chars); the target lives in metadata,
    # so shortening the title to the configured limit loses nothing and avoids a false refusal.
    return replace(memory, title=memory.title[:config.stm.max_title_chars])


@main.command("confirm")
@click.argument("slug")
@click.option("--note", metavar="TEXT", help="What the guidance helped with.")
@click.option("--agent", "agent_id", default="cli", show_default=True)
@pass_app
def confirm_cmd(app: AppContext, slug: str, note: str | None, agent_id: str) -> None:
    """Record that the guidance marked [mem: SLUG] helped (once per agent and day)."""
    from dreamtui.intake import validate

    memory = validate.confirmation(slug, agent_id, note)
    target = memory.metadata["target"]
    # As over MCP: a confirmation of nothing would wait for a dream to drop it, while the
    # script that sent it (a typo in its slug) was told it worked.
    from dreamtui.store.search import SearchIndex

    index = SearchIndex.for_workspace(app.workspace)
    try:
        live = index.path_of(target) is not None
    finally:
        index.close()
    if not live:
        raise InputError(f"{target}: no live entry has this slug in {app.workspace.memory_root} "
                         "(INDEX.md lists the live ones); nothing was recorded")
    result = _store_one(app.workspace, _fit_title(memory, app.workspace.config))
    target = result.memory.metadata.get("target", slug)
    if result.created:
        click.echo(f"confirmed {target} ({result.memory.id})")
    else:
        click.echo(f"already confirmed {target} today by {agent_id} ({result.memory.id})")


@main.command("flag")
@click.argument("observation")
@click.option("--target", "targets", multiple=True, metavar="SLUG",
              help="The entry the observation contradicts; repeatable.")
@click.option("--quote", metavar="TEXT", help="The misleading text as the context bundle put it.")
@click.option("--agent", "agent_id", default="cli", show_default=True)
@pass_app
def flag_cmd(app: AppContext, observation: str, targets: tuple[str, ...], quote: str | None,
             agent_id: str) -> None:
    """Record that context guidance proved wrong, with what was observed."""
    from dreamtui.intake import validate

    memory = validate.flag(observation, list(targets), quote, agent_id)
    result = _store_one(app.workspace, _fit_title(memory, app.workspace.config))
    against = ", ".join(result.memory.metadata.get("targets", ())) or "no named entry"
    click.echo(f"flagged {against} ({result.memory.id})")


# -- status ----------------------------------------------------------------------------------------

LTM_COUNTS_CACHE = "ltm-counts.json"  # in .dreamtui/: the last full scan's counts, and for what tree
_LTM_FOLDERS = ("topics", "incidents", "archive")
_COUNT_KEYS = ("topics", "incidents", "archived", "pinned", "flagged", "malformed")


def _stat_line(path: str, st: os.stat_result) -> bytes:
    return f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{st.st_mode}\n".encode(
        errors="surrogateescape")


def _tree_fingerprint(memory_root: Path) -> str:
    """A digest of every file and folder below the entry folders (name, size, mtime, inode,
    type; a symlink's target's too): any edit, addition, removal or rename changes it."""
    digest = hashlib.blake2b(str(memory_root.resolve()).encode(errors="surrogateescape"),
                             digest_size=16)
    stack = [os.path.join(memory_root, top) for top in _LTM_FOLDERS]
    for top in stack:
        try:
            digest.update(_stat_line(top, os.lstat(top)))
        except OSError:
            digest.update(f"{top}\0missing\n".encode(errors="surrogateescape"))
    while stack:
        try:
            with os.scandir(stack.pop()) as listing:
                items = list(listing)
        except OSError:
            continue
        for item in items:
            digest.update(_stat_line(item.path, item.stat(follow_symlinks=False)))
            if item.is_symlink():
                try:
                    digest.update(b"-> " + _stat_line(item.path, os.stat(item.path)))
                except OSError:
                    digest.update(b"-> nothing\n")
            elif item.is_dir(follow_symlinks=False):
                stack.append(item.path)
    return digest.hexdigest()


def _scan_counts(memory_root: Path) -> dict[str, int]:
    # The LTM store's own full parse: the one rule for what a readable entry is (`dreamtui config
    # check` names the same problems). Imported here: a cached status never loads the parser.
    from dreamtui.store.ltm import LTMStore

    snapshot = LTMStore(memory_root).scan()
    live = snapshot.live()
    return {"topics": sum(1 for e in live if e.path.startswith("topics/")),
            "incidents": sum(1 for e in live if e.path.startswith("incidents/")),
            "archived": len(snapshot.archived()), "pinned": sum(1 for e in live if e.pinned),
            "flagged": sum(1 for e in live if e.flags > 0), "malformed": len(snapshot.problems)}


def _cached_counts(cache: Path, fingerprint: str) -> dict[str, int] | None:
    try:
        kept = json.loads(cache.read_text(encoding="utf-8"))
        counts = kept["counts"]
        if kept["fingerprint"] != fingerprint or sorted(counts) != sorted(_COUNT_KEYS):
            return None
        return {key: int(counts[key]) for key in _COUNT_KEYS}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def ltm_counts(memory_root: Path, cache: Path | None = None) -> dict[str, int]:
    """Live entries by folder, archived ones, pinned and flagged live ones, and `malformed`: the
    problems the LTM store's full scan reports (files that do not parse, bad or duplicate slugs,
    symlinks out of the root, …), so the count is the one `dreamtui config check` names.

    That scan takes about half a second on 10,000 entries, more than status may spend each time,
    so its counts are kept in `cache` with a fingerprint of the tree, and the scan repeats only
    after a file changed. The fingerprint is taken first: a change during the scan is seen next time.
    """
    fingerprint = _tree_fingerprint(memory_root)
    if cache is not None and (counts := _cached_counts(cache, fingerprint)) is not None:
        return counts
    counts = _scan_counts(memory_root)
    if cache is not None:
        try:
            atomic_write_text(cache, json.dumps({"fingerprint": fingerprint, "counts": counts}) + "\n")
        except OSError:
            pass  # a read-only workspace: counted afresh next time, nothing lost
    return counts


def claim_status(workspace: Workspace, store: STMStore) -> dict[str, Any]:
    """Whose the claimed memories are (open dreams, nobody, another program), and the open dreams
    whose memories are gone or that never completed (docs/architecture.md §4.3)."""
    records = read_records(workspace.dreams_dir)
    # While a process holds the lock a dream may be starting: its claim has no record yet, and an
    # incomplete record may be the one it is writing.
    busy = lock_holder(workspace) is not None
    found = claims(store, records)
    stranded = [c for c in found if c.stranded and not (busy and c.state == "unnamed")]
    owning = [r for r in records if r.owns and r.changeset is not None]
    return {
        "owned": sum(c.holding.memories for c in found if c.state == "owned"),
        "stranded": sum(c.holding.memories for c in stranded),
        "foreign": sum(c.holding.memories for c in found if c.state == "foreign"),
        "stranded_leases": [{"lease": c.holding.lease_id, "memories": c.holding.memories,
                             "state": c.state, "dream": c.owner.dream_id if c.owner else None}
                            for c in stranded],
        "gone": [r.dream_id for r in owning if r.changeset and memories_gone(store, r.changeset.batch)],
        "interrupted": [] if busy else [r.dream_id for r in owning
                                        if r.changeset and not r.changeset.complete],
    }


def dream_counts(dreams_dir: Path) -> dict[str, Any]:
    """Open dreams and their proposals still waiting for a decision (undecided or deferred), and
    whether the newest dream fell back to another engine."""
    open_ids: list[str] = []
    undecided = 0
    unreadable: list[str] = []
    newest: Any = None
    for path in sorted(dreams_dir.glob("*.json")):  # dream ids sort by their time
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            newest = data
            if data.get("status") != "open":
                continue
            waiting = sum(1 for p in data.get("proposals", ()) if p.get("decision") in (None, "defer"))
        except (OSError, ValueError, AttributeError, TypeError):
            unreadable.append(path.name)
            continue
        open_ids.append(str(data.get("id", path.stem)))
        undecided += waiting
    return {"open": len(open_ids), "ids": open_ids, "undecided_proposals": undecided,
            "unreadable": unreadable, "last_fallback": _fallback(newest)}


def _fallback(data: Any) -> dict[str, str] | None:
    """`{"dream", "engine", "from", "reason"}` when this dream record says another engine stood
    in for the one asked for (Changeset.note_fallback reads it, old files included)."""
    try:
        record = Changeset(id=str(data["id"]), engine=str(data["engine"]), created_at="",
                           stats=dict(data.get("stats") or {}))
        record.note_fallback()
        fallback = record.fallback
        return None if fallback is None else {"dream": record.id, "engine": record.engine,
                                              "from": str(fallback["from"]),
                                              "reason": str(fallback["reason"])}
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # `review list` and `load` report a record that does not read


def _recover(workspace: Workspace) -> None:
    """Finish or discard what a crashed commit left, so the counts shown are those of a workspace
    either before or after that commit (see dreamtui.store.journal)."""
    # A journal is a folder under journal_dir (journal.pending_journals). Usually there is none,
    # and then the dream and commit machinery dreamtui.store.journal imports (~70 ms) is not loaded.
    try:
        with os.scandir(workspace.journal_dir) as items:
            if not any(item.is_dir() for item in items):
                return
    except (FileNotFoundError, NotADirectoryError):
        return
    from dreamtui.store.journal import recover

    note = recover(workspace)
    if note:
        click.echo(f"dreamtui: {note}", err=True)


def collect_status(workspace: Workspace, *, ltm: bool = True) -> dict[str, Any]:
    """What `status` reports; `ltm=False` leaves out the LTM counts (the hook's line needs none)."""
    with STMStore.for_workspace(workspace) as store:
        counts = store.counts()
        by_type = store.pending_by_type()
        last = store.last_lease_at()
        claimed = claim_status(workspace, store)
    feedback = {t: by_type.pop(t) for t in (FEEDBACK_CONFIRMED, FEEDBACK_FLAGGED) if t in by_type}
    return {
        "workspace": str(workspace.root),
        "stm": {**counts, "pending_memories": sum(by_type.values()),
                "pending_feedback": sum(feedback.values()), "pending_by_type": by_type,
                "feedback_by_type": feedback,
                "last_lease_at": iso_z(last) if last else None},
        "claims": claimed,
        **({"ltm": ltm_counts(workspace.memory_root, workspace.state_dir / LTM_COUNTS_CACHE)}
           if ltm else {}),
        "dreams": dream_counts(workspace.dreams_dir),
        # A Dreamer server on this folder claims from the same queue and commits its dreams into
        # the LTM and the context with no review: a person should know before trusting either.
        "dreamer_server": {"reviews_dreams": False} if workspace.is_dreamer else None,
    }


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def hook_line(status: dict[str, Any], command: str = "dreamtui") -> str | None:
    """One line for an agent's session-start hook, or None when nothing waits for a person;
    `command` is what opens the workbench on this workspace from where the hook ran."""
    stm, dreams = status["stm"], status["dreams"]
    parts = []
    if dreams["undecided_proposals"]:
        verb = "awaits" if dreams["undecided_proposals"] == 1 else "await"
        parts.append(f"{_plural(dreams['undecided_proposals'], 'proposal')} {verb} review in "
                     f"{_plural(dreams['open'], 'dream')}")
    elif dreams["open"]:
        verb = "awaits" if dreams["open"] == 1 else "await"
        parts.append(f"{_plural(dreams['open'], 'open dream')} {verb} commit")
    waiting = []
    if stm["pending_memories"]:
        waiting.append(_plural(stm["pending_memories"], "memory", "memories"))
    if stm["pending_feedback"]:
        waiting.append(_plural(stm["pending_feedback"], "feedback report"))
    if waiting:
        parts.append(f"{' and '.join(waiting)} pending")
    if dreams["last_fallback"]:
        parts.append(_fallback_text(dreams["last_fallback"], with_reason=False))
    if not parts:
        return None
    return f"dreamtui: {'; '.join(parts)} — run `{command}`"


def _fallback_text(fallback: dict[str, str], *, with_reason: bool) -> str:
    label = engine_label(fallback["engine"], fallback, with_reason=with_reason)
    return f"the last dream, {fallback['dream']}, was made by {label}"


def _claim_lines(claimed: dict[str, Any]) -> list[str]:
    lines = []
    if claimed["stranded"]:
        lines.append(f"  warning: {claimed['stranded']} claimed by a lease no open dream owns — "
                     "`dreamtui release --stranded`")
    if claimed["foreign"]:
        lines.append(f"  note: {claimed['foreign']} claimed by a lease dreamtui did not take (another "
                     "program sharing stm.db, e.g. a Dreamer server)")
    for dream_id in claimed["gone"]:
        lines.append(f"  warning: dream {dream_id}: {GONE}")
    for dream_id in claimed["interrupted"]:
        lines.append(f"  warning: dream {dream_id} never completed (its process stopped) — "
                     f"`dreamtui abandon {dream_id}` returns its batch, as the next dream does")
    return lines


def _human_status(status: dict[str, Any]) -> list[str]:
    stm, ltm, dreams = status["stm"], status["ltm"], status["dreams"]
    lines = [f"workspace  {status['workspace']}",
             (f"STM        {stm['pending']} pending · {stm['claimed']} claimed · "
              f"{stm['consumed']} consumed")]
    lines += _claim_lines(status["claims"])
    if stm["pending_by_type"]:
        lines.append("  pending  " + " · ".join(f"{t} {n}" for t, n in stm["pending_by_type"].items()))
    if stm["feedback_by_type"]:
        names = {FEEDBACK_CONFIRMED: ("confirmation", None), FEEDBACK_FLAGGED: ("flag", None)}
        lines.append("  feedback " + " · ".join(_plural(n, *names[t])
                                                 for t, n in stm["feedback_by_type"].items()))
    lines.append(f"LTM        {_plural(ltm['topics'], 'topic')} · "
                 f"{_plural(ltm['incidents'], 'incident')} live · {ltm['archived']} archived · "
                 f"{ltm['pinned']} pinned · {ltm['flagged']} flagged")
    if ltm["malformed"]:
        lines.append(f"  warning: {_plural(ltm['malformed'], 'entry file')} cannot be read as "
                     f"{'an entry' if ltm['malformed'] == 1 else 'entries'} — `dreamtui config check` "
                     "names the problems")
    if dreams["open"]:
        waiting = dreams["undecided_proposals"]
        lines.append(f"dreams     {dreams['open']} open ({', '.join(dreams['ids'])}) · "
                     f"{_plural(waiting, 'proposal')} {'awaits' if waiting == 1 else 'await'} review")
    else:
        lines.append("dreams     none open")
    for name in dreams["unreadable"]:
        lines.append(f"  warning: {name} could not be read as a dream record")
    if status["dreamer_server"] is not None:
        lines.append("Dreamer    this is a Dreamer server's folder: its dreams take memories from the same "
                     "queue and commit them into the LTM and the context without review (dreamtui's "
                     "review covers only dreamtui's dreams)")
    if dreams["last_fallback"]:
        lines.append(f"  warning: {_fallback_text(dreams['last_fallback'], with_reason=True)}")
    if stm["last_lease_at"]:
        lines.append(f"last claim {stm['last_lease_at']}")
    return lines


@main.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
@click.option("--hook", is_flag=True,
              help="One line for an agent's session-start hook; nothing when nothing waits "
                   "(and nothing outside a workspace).")
@pass_app
def status_cmd(app: AppContext, as_json: bool, hook: bool) -> None:
    """What waits for review: the STM queue, LTM entries and open dreams."""
    if as_json and hook:
        raise InputError("--json, --hook: choose one")
    if hook:
        try:
            workspace = app.workspace
        except WorkspaceError:
            return  # a hook installed for every session must stay quiet outside workspaces
    else:
        workspace = app.workspace
    _recover(workspace)
    status = collect_status(workspace, ltm=not hook)
    if hook:
        # A project's hook (`dreamtui connect`) runs beside the workspace, not in it: there a
        # bare `dreamtui` finds no workspace, so the line names it.
        inside = Path.cwd().resolve().is_relative_to(workspace.root)
        line = hook_line(status, "dreamtui" if inside else f"dreamtui -w {shlex.quote(str(workspace.root))}")
        if line:
            click.echo(line)
    elif as_json:
        click.echo(json.dumps(status, indent=2, ensure_ascii=False))
    else:
        click.echo("\n".join(_human_status(status)))


# -- purge -----------------------------------------------------------------------------------------

@main.command("purge")
@click.option("--older-than", "days", type=click.FloatRange(min=0), required=True, metavar="DAYS",
              help="Delete memories consumed more than DAYS ago.")
@pass_app
def purge_cmd(app: AppContext, days: float) -> None:
    """Delete consumed memories older than DAYS (pending and claimed ones are never touched)."""
    with STMStore.for_workspace(app.workspace) as store:
        purged = store.purge_consumed(days)
    click.echo(f"purged {_plural(purged, 'consumed memory', 'consumed memories')} "
               f"older than {days:g} days")
