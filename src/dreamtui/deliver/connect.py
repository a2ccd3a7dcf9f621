"""`dreamtui connect` / `disconnect`: wire a code project's agents to the workspace in one step.

For Claude Code: the MCP server in the project's `.mcp.json` (approved in `.claude/settings.json`
`enabledMcpjsonServers`, so the first session does not stop to ask), and a SessionStart hook
running `dreamtui status --hook` there. For Codex: `[mcp_servers.dreamtui]` in
`$CODEX_HOME/config.toml` (default `~/.codex`), edited with tomlkit so comments and layout stay.
For both: `project.root` in dreamtui.yaml, so the commit delivers the bundle into the project
(deliver/targets.py: AGENTS.md, CLAUDE.md importing it, unless `context.targets` says otherwise).
With `--http URL` the agents reach a running `dreamtui mcp --http` with a bearer token instead,
read from $DREAMTUI_TOKEN so no secret lands in a file a project may commit.

A person's files are merged into, never replaced: only dreamtui's own keys and list items are
added (deliver/jsonedit.py keeps every other byte), a second run with the same result changes
nothing, and every change is recorded in `.dreamtui/connections.json`. `disconnect` puts a file
back byte for byte when nobody changed it since (deleting one connect created); a file changed
since loses only dreamtui's entries, and an entry someone changed is left where it is.

These files are outside the workspace, so they are written here (atomically, one by one, the
record first) rather than through the commit's journal.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import tomlkit
import tomlkit.exceptions
import tomlkit.items
import yaml

from dreamtui.deliver.jsonedit import MISSING, JsonText
from dreamtui.deliver.targets import BlockError, HoldBack, Skip, find_block, read_target, targets, without_block
from dreamtui.errors import InputError
from dreamtui.model import iso_z
from dreamtui.store import tokens
from dreamtui.store.files import atomic_write_text
from dreamtui.workspace.layout import Workspace

Agent = Literal["claude-code", "codex"]
AGENTS: tuple[Agent, ...] = ("claude-code", "codex")
SERVER = "dreamtui"
TOKEN_ENV = "DREAMTUI_TOKEN"
STATE_NAME = "connections.json"
HOOK_EVENT = "SessionStart"
Format = Literal["json", "toml", "yaml"]


# -- what connect writes -----------------------------------------------------------------------


def dreamtui_command() -> list[str]:
    """How an agent starts dreamtui: `dreamtui` when it is on PATH, else this interpreter's
    module, so a connect from a virtualenv that is not activated still works."""
    return ["dreamtui"] if shutil.which("dreamtui") else [sys.executable, "-m", "dreamtui"]


def relative_if_sensible(target: Path, start: Path) -> str:
    """`target` relative to `start` when the two share a folder at least two levels below `/`
    (`~/notes/x` and `~/code/x`: `../../code/x`, which holds for a teammate with the same
    layout); absolute otherwise."""
    target, start = target.resolve(), start.resolve()
    common = Path(os.path.commonpath([target, start]))
    return os.path.relpath(target, start) if len(common.parts) >= 3 else str(target)


def _http_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--http {url!r}: expected the server's URL, e.g. http://127.0.0.1:8765/mcp")
    return url if parts.path not in ("", "/") else url.rstrip("/") + "/mcp"


@dataclass(frozen=True)
class Wiring:
    """What one connect puts into the agent's files."""

    agent: Agent
    workspace: Path
    project: Path
    http_url: str | None

    @property
    def stdio_args(self) -> list[str]:
        return ["--workspace", str(self.workspace), "mcp", "--agent", self.agent]

    def claude_server(self) -> dict[str, Any]:
        if self.http_url:
            return {"type": "http", "url": self.http_url,
                    "headers": {"Authorization": f"Bearer ${{{TOKEN_ENV}}}"}}
        command, *prefix = dreamtui_command()
        return {"type": "stdio", "command": command, "args": [*prefix, *self.stdio_args]}

    def codex_server(self) -> dict[str, Any]:
        if self.http_url:
            return {"url": self.http_url, "bearer_token_env_var": TOKEN_ENV}
        command, *prefix = dreamtui_command()
        return {"command": command, "args": [*prefix, *self.stdio_args]}

    def hook(self) -> dict[str, Any]:
        command = " ".join(shlex.quote(part) for part in
                           [*dreamtui_command(), "--workspace", str(self.workspace), "status", "--hook"])
        return {"hooks": [{"type": "command", "command": command}]}


# -- the record ------------------------------------------------------------------------------


@dataclass
class Op:
    """One of connect's entries in a file: a member (`previous`: what it replaced) or a list item."""

    kind: Literal["member", "item"]
    path: list[str]  # a member's, or the list's
    value: Any
    previous: Any = MISSING
    # How many of the path's last parts connect made (a member counts itself): undone, they go
    # again once empty, so `"hooks": {}` is not left behind where there was no "hooks".
    made: int = 0

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "path": self.path, "value": self.value,
                                "made": self.made}
        if self.previous is not MISSING:
            data["previous"] = self.previous
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Op:
        return cls(kind=data["kind"], path=list(data["path"]), value=data["value"],
                   previous=data.get("previous", MISSING), made=int(data.get("made", 0)))


Patch = list[tuple[int, int, str]]


def undo_patch(written: str, original: str) -> Patch:
    """How to turn `written` back into `original`: (start, end, text) spans of `written` to
    replace. Only what connect replaced is kept — for its insertions, nothing of the person's
    file — so the record never holds a copy of their config (which may name secrets)."""
    def offsets(lines: list[str]) -> list[int]:
        out = [0]
        for line in lines:
            out.append(out[-1] + len(line))
        return out

    new, old = written.splitlines(keepends=True), original.splitlines(keepends=True)
    at_new, at_old = offsets(new), offsets(old)
    patch: Patch = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, new, old, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        start, end, old_start, old_end = at_new[i1], at_new[i2], at_old[j1], at_old[j2]
        while start < end and old_start < old_end and written[start] == original[old_start]:
            start, old_start = start + 1, old_start + 1
        while end > start and old_end > old_start and written[end - 1] == original[old_end - 1]:
            end, old_end = end - 1, old_end - 1
        patch.append((start, end, original[old_start:old_end]))
    return patch


def apply_patch(text: str, patch: Patch) -> str:
    for start, end, replacement in reversed(patch):
        text = text[:start] + replacement + text[end:]
    return text


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class FileRecord:
    path: str
    format: Format
    created: bool  # connect made the file: disconnect removes it
    # From the text connect last wrote (`written_sha256`) back to the text before the first
    # connect; None once someone else changed the file between two connects (then disconnect
    # undoes connect's entries one by one instead).
    undo: Patch | None
    written_sha256: str
    ops: list[Op] = field(default_factory=list)
    made_dirs: list[str] = field(default_factory=list)

    def original(self, current: str) -> str | None:
        """The text before connect, from `current` when it is what connect wrote (None: none)."""
        assert self.undo is not None
        return None if self.created else apply_patch(current, self.undo)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "format": self.format, "created": self.created,
                "undo": None if self.undo is None else [list(span) for span in self.undo],
                "written_sha256": self.written_sha256,
                "ops": [op.to_dict() for op in self.ops], "made_dirs": self.made_dirs}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FileRecord:
        undo = data["undo"]
        return cls(path=data["path"], format=data["format"], created=bool(data["created"]),
                   undo=None if undo is None else [(int(a), int(b), str(t)) for a, b, t in undo],
                   written_sha256=str(data["written_sha256"]),
                   ops=[Op.from_dict(op) for op in data["ops"]], made_dirs=list(data.get("made_dirs", [])))


@dataclass
class Connection:
    agent: Agent
    project: str
    connected_at: str
    token: str | None = None  # the token connect created (disconnect revokes it)
    files: list[FileRecord] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "project": self.project, "connected_at": self.connected_at,
                "token": self.token, "files": [f.to_dict() for f in self.files]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Connection:
        return cls(agent=data["agent"], project=data["project"], connected_at=data["connected_at"],
                   token=data.get("token"), files=[FileRecord.from_dict(f) for f in data["files"]])

    def file(self, path: Path) -> FileRecord | None:
        return next((f for f in self.files if f.path == str(path)), None)


def state_path(workspace: Workspace) -> Path:
    return workspace.state_dir / STATE_NAME


def load_connections(workspace: Workspace) -> list[Connection]:
    path = state_path(workspace)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [Connection.from_dict(item) for item in data["connections"]]
    except FileNotFoundError:
        return []
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a record dreamtui can read ({exc}); move it aside to "
                         "start over (disconnect then cannot undo earlier connects)") from None


def save_connections(workspace: Workspace, connections: list[Connection]) -> None:
    path = state_path(workspace)
    if not connections:
        path.unlink(missing_ok=True)
        return
    atomic_write_text(path, json.dumps({"version": 1, "connections": [c.to_dict() for c in connections]},
                                       indent=2, ensure_ascii=False) + "\n")


# -- documents of each format ----------------------------------------------------------------


class _Document:
    """A config file's text with member and list-item edits, whatever its format."""

    def __init__(self, text: str) -> None:
        self.text = text

    def get(self, path: list[str]) -> Any:
        raise NotImplementedError

    def set(self, path: list[str], value: Any) -> None:
        raise NotImplementedError

    def remove(self, path: list[str]) -> None:
        raise NotImplementedError

    def append(self, path: list[str], item: Any) -> None:
        raise NotImplementedError

    def remove_item(self, path: list[str], item: Any) -> bool:
        raise NotImplementedError


class _Json(_Document):
    def __init__(self, text: str, where: str) -> None:
        self._json = JsonText(text, where)
        super().__init__(text)

    def _done(self) -> None:
        self.text = self._json.text

    def get(self, path: list[str]) -> Any:
        return self._json.get(tuple(path))

    def set(self, path: list[str], value: Any) -> None:
        self._json.set(tuple(path), value)
        self._done()

    def remove(self, path: list[str]) -> None:
        self._json.remove(tuple(path))
        self._done()

    def append(self, path: list[str], item: Any) -> None:
        self._json.append(tuple(path), item)
        self._done()

    def remove_item(self, path: list[str], item: Any) -> bool:
        removed = self._json.remove_item(tuple(path), item)
        self._done()
        return removed


class _Toml(_Document):
    def __init__(self, text: str, where: str) -> None:
        try:
            self._doc = tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as exc:
            raise InputError(f"{where}:{exc.line}: not valid TOML ({str(exc).split(' at line')[0]}); "
                             "fix it and run again, nothing was changed") from None
        self._where = where
        super().__init__(text)

    def get(self, path: list[str]) -> Any:
        value: Any = self._doc.unwrap()
        for part in path:
            if not isinstance(value, dict) or part not in value:
                return MISSING
            value = value[part]
        return value

    def set(self, path: list[str], value: Any) -> None:
        try:
            self._set(path, value)
        except (ValueError, TypeError, tomlkit.exceptions.TOMLKitError) as exc:
            raise InputError(f"{self._where}: cannot add {'.'.join(path)} to this file as it is written "
                             f"({exc}); add it by hand, nothing was changed") from None

    def _set(self, path: list[str], value: Any) -> None:
        container: Any = self._doc
        for part in path[:-1]:
            if part not in container:
                container.add(part, tomlkit.table(is_super_table=True))
            container = container[part]
            if not isinstance(container, dict):
                raise InputError(f"{self._where}: {part} is not a TOML table; fix it and run again, "
                                 "nothing was changed")
        if isinstance(container, tomlkit.items.InlineTable):  # `mcp_servers = { … }`: stays inline
            inline = tomlkit.inline_table()
            inline.update(value)
            container[path[-1]] = inline
        else:
            item = tomlkit.table()
            for key, sub in value.items():
                item[key] = sub
            item.add(tomlkit.nl())  # a blank line before whatever table follows, as people write them
            container[path[-1]] = item
        self._dump()

    def _dump(self) -> None:
        text = tomlkit.dumps(self._doc)
        # No blank lines piled up at the end of a file that ended with one newline.
        self.text = text.rstrip("\n") + "\n" if text.endswith("\n\n") and not self.text.endswith("\n\n") \
            else text

    def remove(self, path: list[str]) -> None:
        container: Any = self._doc
        for part in path[:-1]:
            if part not in container:
                return
            container = container[part]
        if path[-1] in container:
            del container[path[-1]]
            parent_path = path[:-1]
            if parent_path and not self.get(parent_path):
                self.remove(parent_path)  # an empty [mcp_servers] says nothing
        self._dump()

    def append(self, path: list[str], item: Any) -> None:
        raise InputError("connect adds no list items to TOML")  # Codex needs none

    def remove_item(self, path: list[str], item: Any) -> bool:
        return False


_PROJECT_LINE = re.compile(r"^project:[ \t]*(#.*)?$", re.MULTILINE)


class _Yaml(_Document):
    """dreamtui.yaml: only `project.root`, edited as a line, so every comment stays."""

    def __init__(self, text: str, where: str) -> None:
        self._where = where
        super().__init__(text)

    def get(self, path: list[str]) -> Any:
        data = yaml.safe_load(self.text) or {}
        section = data.get(path[0]) if isinstance(data, dict) else None
        if not isinstance(section, dict) or path[1] not in section:
            return MISSING
        return section[path[1]]

    def _block(self) -> tuple[int, int, str] | None:
        """(start, end) of the `project:` block's body and its indentation, or None."""
        header = _PROJECT_LINE.search(self.text)
        if header is None:
            return None
        start = header.end() + 1
        body = re.match(r"(?:(?:[ \t]+[^\n]*|[ \t]*)(?:\n|\Z))*", self.text[start:])
        end = start + (body.end() if body else 0)
        indent = re.search(r"^([ \t]+)\S", self.text[start:end], re.MULTILINE)
        return start, end, indent.group(1) if indent else "  "

    def set(self, path: list[str], value: Any) -> None:
        line = f"{path[1]}: {json.dumps(value)}"
        block = self._block()
        if block is None:
            if re.search(r"^project\s*:", self.text, re.MULTILINE):
                raise InputError(f"{self._where}: project is not written as a block of keys; set "
                                 f"project.{path[1]} there by hand, nothing was changed")
            separator = "" if not self.text or self.text.endswith("\n") else "\n"
            self.text += f"{separator}\nproject:\n  {line}\n"
            return
        start, end, indent = block
        key = re.compile(rf"^({re.escape(indent)}{re.escape(path[1])}:[ \t]*)([^#\n]*?)([ \t]+#[^\n]*)?$",
                         re.MULTILINE)
        found = key.search(self.text, start, end)
        if found:
            # Only the value changes: the key's spacing and a comment after it stay, aligned.
            new, comment = json.dumps(value), found.group(3)
            if comment:
                column = len(found.group(2)) + len(comment) - len(comment.lstrip())
                new += " " * max(1, column - len(new)) + comment.lstrip()
            self.text = self.text[:found.start(2)] + new + self.text[found.end():]
        else:
            self.text = self.text[:start] + indent + line + "\n" + self.text[start:]

    def remove(self, path: list[str]) -> None:
        block = self._block()
        if block is None:
            return
        start, end, indent = block
        key = re.compile(rf"^{re.escape(indent)}{re.escape(path[1])}:[^\n]*\n?", re.MULTILINE)
        found = key.search(self.text, start, end)
        if found:
            self.text = self.text[:found.start()] + self.text[found.end():]
        if self.get([path[0], path[1]]) is MISSING and not (yaml.safe_load(self.text) or {}).get(path[0]):
            header = _PROJECT_LINE.search(self.text)
            if header is not None:  # the block connect wrote, now empty: it goes, with its blank line
                cut_from = header.start() - 1 if self.text[:header.start()].endswith("\n\n") else header.start()
                self.text = self.text[:cut_from] + self.text[header.end() + 1:]

    def append(self, path: list[str], item: Any) -> None:
        raise InputError("connect adds no list items to dreamtui.yaml")

    def remove_item(self, path: list[str], item: Any) -> bool:
        return False


def with_project_root(text: str, where: str, root: str) -> str:
    """A dreamtui.yaml's `text` with project.root set to `root`, every other line as it was."""
    document = _Yaml(text, where)
    document.set(["project", "root"], root)
    return document.text


def _document(path: Path, kind: Format, text: str) -> _Document:
    if kind == "json":
        return _Json(text, str(path))
    if kind == "toml":
        return _Toml(text, str(path))
    return _Yaml(text, str(path))


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}); nothing was changed") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, expected a file; nothing was changed") from None


# -- planning --------------------------------------------------------------------------------


@dataclass
class FileChange:
    """One file connect or disconnect changes: its text before and after, and in words what."""

    path: Path
    before: str | None
    after: str | None  # None: the file is removed
    what: list[str]
    record: FileRecord | None = None

    def diff(self) -> str:
        before = [] if self.before is None else self.before.splitlines(keepends=True)
        after = [] if self.after is None else self.after.splitlines(keepends=True)
        lines = difflib.unified_diff(before, after, "/dev/null" if self.before is None else str(self.path),
                                     "/dev/null" if self.after is None else str(self.path))
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)


@dataclass
class Plan:
    agent: Agent
    project: Path
    changes: list[FileChange]
    notes: list[str]
    connection: Connection
    token_name: str | None = None  # a token to create (--http, none live under this name)


def _plan_file(path: Path, kind: Format, wanted: list[Op], earlier: FileRecord | None,
               what: list[str]) -> FileChange | None:
    """The change that puts `wanted` into `path`, or None when it already holds them."""
    before = _read(path)
    document = _document(path, kind, before or "")
    ops: list[Op] = []
    for op in wanted:
        old = next((o for o in earlier.ops if o.kind == op.kind and o.path == op.path), None) if earlier else None
        op.made = old.made if old is not None else _made(document, op.path)
        if op.kind == "member":
            current = document.get(op.path)
            # What the path held before dreamtui first wrote it, kept across connects.
            previous = old.previous if old is not None else current
            if current != op.value:
                if old is None and current is not MISSING:
                    what = [*what, f"replaced the {'.'.join(op.path)} that was there "
                                   "(disconnect puts it back)"]
                document.set(op.path, op.value)
            ops.append(Op("member", op.path, op.value, previous))
        else:
            if old is not None and old.value != op.value:
                document.remove_item(op.path, old.value)  # connect's earlier item, now different
            existing = document.get(op.path)
            if isinstance(existing, list) and op.value in existing and old is None:
                continue  # a person's own equal item: not connect's to add or remove
            if not (isinstance(existing, list) and op.value in existing):
                document.append(op.path, op.value)
            ops.append(op)
    after = document.text
    if after == (before or "") and before is not None:
        if earlier is not None:
            earlier.ops = ops or earlier.ops
        return None
    if earlier is None:
        record = FileRecord(path=str(path), format=kind, created=before is None, undo=[],
                            written_sha256="", made_dirs=[str(p) for p in _missing_dirs(path.parent)])
        original = before
    else:
        record = earlier
        if before is None and earlier.created:
            original = None  # deleted by hand since: connect creates it again
        elif earlier.undo is not None and _sha(before) == earlier.written_sha256:
            original = earlier.original(before or "")
        else:
            original, record.undo = None, None  # changed by someone since: undo entry by entry
    if record.undo is not None:
        record.created = original is None
        record.undo = [] if original is None else undo_patch(after, original)
    record.written_sha256 = _sha(after) or ""
    record.ops = ops
    return FileChange(path, before, after, what, record)


def _made(document: _Document, path: list[str]) -> int:
    """How many of `path`'s last parts are not in `document` yet."""
    existing = len(path)
    while existing and document.get(path[:existing]) is MISSING:
        existing -= 1
    return len(path) - existing


def _prune(document: _Document, op: Op) -> None:
    """Remove the containers connect made for `op` that are empty now that it is undone."""
    first = 0 if op.kind == "item" else 1
    for level in range(first, op.made):
        prefix = op.path[:len(op.path) - level]
        if document.get(prefix) not in ({}, []):
            break
        document.remove(prefix)


def _missing_dirs(folder: Path) -> list[Path]:
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing


def _project(workspace: Workspace, project: Path | None) -> Path:
    if project is None:
        project = workspace.project_root
        if project is None:
            raise InputError("which project? name it with --project PATH (it is kept as project.root "
                             "in dreamtui.yaml for the next time)")
    project = project.expanduser().resolve()
    if not project.is_dir():
        raise InputError(f"--project {project}: not a folder; name the code project's folder")
    return project


def codex_home(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else Path.home() / ".codex"


def token_name(agent: Agent, project: Path) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", project.name).strip("-.") or "project"
    return f"{agent}-{stem}"[:64]


def plan_connect(workspace: Workspace, agent: Agent, *, project: Path | None = None,
                 http_url: str | None = None, token: bool = True,
                 environ: dict[str, str] | None = None) -> Plan:
    """What `connect` changes, computed without writing anything. `token=False`: the server at
    `http_url` serves another machine's workspace, whose owner hands out its tokens."""
    root = _project(workspace, project)
    url = _http_url(http_url) if http_url else None
    wiring = Wiring(agent, workspace.root, root, url)
    connections = load_connections(workspace)
    earlier = next((c for c in connections if c.agent == agent and c.project == str(root)), None)
    connection = earlier or Connection(agent=agent, project=str(root), connected_at=iso_z(workspace.clock()))
    changes: list[FileChange] = []
    notes: list[str] = []

    def add(path: Path, kind: Format, ops: list[Op], what: list[str]) -> None:
        change = _plan_file(path, kind, ops, connection.file(path), what)
        if change is not None:
            changes.append(change)

    transport = f"HTTP {url}, token from ${TOKEN_ENV}" if url else f"stdio, agent id {agent}"
    if agent == "claude-code":
        add(root / ".mcp.json", "json", [Op("member", ["mcpServers", SERVER], wiring.claude_server())],
            [f"MCP server {SERVER!r} ({transport})"])
        add(root / ".claude" / "settings.json", "json",
            [Op("item", ["enabledMcpjsonServers"], SERVER), Op("item", ["hooks", HOOK_EVENT], wiring.hook())],
            [f"{HOOK_EVENT} hook: {wiring.hook()['hooks'][0]['command']}",
             f"{SERVER!r} approved in enabledMcpjsonServers"])
    else:
        add(codex_home(environ) / "config.toml", "toml",
            [Op("member", ["mcp_servers", SERVER], wiring.codex_server())],
            [f"MCP server {SERVER!r} ({transport})"])
        notes.append("Codex has no session-start hook; it reads the project's AGENTS.md, where the "
                     "commit delivers the bundle")
    if workspace.is_dreamer:
        notes.append(f"dreamer.yaml keeps no project.root: delivery into {root} is not set up")
    elif workspace.project_root is None or workspace.project_root.resolve() != root:
        relative = relative_if_sensible(root, workspace.root)
        add(workspace.config_path, "yaml", [Op("member", ["project", "root"], relative)],
            [f"project.root: {relative} (each commit delivers the bundle into the project)"])
    name = token_name(agent, root)
    if url and not token:
        notes.append(f"no token created: ${TOKEN_ENV} must hold the one the server's owner gave you "
                     "(`dreamtui token create NAME` on that workspace)")
        return Plan(agent, root, changes, notes, connection)
    if url and not any(t.name == name and t.live for t in tokens.list_tokens(
            workspace.stm_path, busy_timeout_ms=workspace.config.stm.busy_timeout_ms)):
        return Plan(agent, root, changes, notes, connection, token_name=name)
    if url and connection.token != name:
        notes.append(f"the token {name!r} exists: ${TOKEN_ENV} must hold it (`dreamtui token revoke "
                     f"{name}` and connect again for a new one)")
    return Plan(agent, root, changes, notes, connection)


# -- applying --------------------------------------------------------------------------------


def _write(path: Path, text: str | None) -> None:
    if text is None:
        path.unlink(missing_ok=True)
        return
    new = not path.exists()
    atomic_write_text(path.resolve() if path.is_symlink() else path, text)
    if new:
        # Not a secret (a token is never written): readable like the project's other files.
        os.chmod(path, 0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@dataclass
class Applied:
    changes: list[FileChange]
    notes: list[str]
    token: str | None = None  # the new token's value, to show once


def apply_connect(workspace: Workspace, plan: Plan) -> Applied:
    """Record, then write, each change of `plan`; create its token."""
    connections = [c for c in load_connections(workspace) if c is not plan.connection
                   and not (c.agent == plan.agent and c.project == plan.connection.project)]
    connection = plan.connection
    for change in plan.changes:
        assert change.record is not None
        if connection.file(change.path) is None:
            connection.files.append(change.record)
    token = None
    if plan.token_name:
        token = tokens.create_token(workspace.stm_path, plan.token_name,
                                    busy_timeout_ms=workspace.config.stm.busy_timeout_ms)
        connection.token = plan.token_name
    workspace.ensure_state_dirs()
    # The record first: a write that fails after it leaves a file disconnect checks before touching.
    save_connections(workspace, [*connections, connection])
    for change in plan.changes:
        change.path.parent.mkdir(parents=True, exist_ok=True)
        _write(change.path, change.after)
    return Applied(plan.changes, plan.notes, token)


# -- disconnect ------------------------------------------------------------------------------


@dataclass
class DisconnectPlan:
    changes: list[FileChange]
    notes: list[str]
    removed: list[Connection]
    kept: list[Connection]


def _undo_file(record: FileRecord, others: list[Connection]) -> tuple[FileChange | None, list[str]]:
    path = Path(record.path)
    current = _read(path)
    if current is None:
        return None, []
    if record.undo is not None and _sha(current) == record.written_sha256:
        what = ["removed (connect created it)"] if record.created else ["restored as it was before connect"]
        return FileChange(path, current, record.original(current), what, record), []
    document = _document(path, record.format, current)
    notes = []
    for op in reversed(record.ops):
        shared = any(o == op for c in others for f in c.files if f.path == record.path for o in f.ops)
        if shared:
            continue  # another connection still needs it (dreamtui.yaml's project.root)
        if op.kind == "item":
            if document.remove_item(op.path, op.value):
                _prune(document, op)
        elif document.get(op.path) == op.value:
            if op.previous is MISSING:
                document.remove(op.path)
                _prune(document, op)
            else:
                document.set(op.path, op.previous)
        elif document.get(op.path) is not MISSING:
            notes.append(f"{path}: {'.'.join(op.path)} was changed since connect; left as it is")
    if document.text == current:
        return None, notes
    return FileChange(path, current, document.text, ["dreamtui's entries removed (the file changed "
                                                     "since connect; the rest is as it is)"], record), notes


def plan_disconnect(workspace: Workspace, agent: Agent | None = None,
                    project: Path | None = None) -> DisconnectPlan:
    connections = load_connections(workspace)
    wanted = None if project is None else str(project.expanduser().resolve())
    removed = [c for c in connections if (agent is None or c.agent == agent)
               and (wanted is None or c.project == wanted)]
    kept = [c for c in connections if c not in removed]
    changes: list[FileChange] = []
    notes: list[str] = []
    for connection in removed:
        for record in reversed(connection.files):
            staying = next((c for c in kept if c.project == connection.project), None)
            if record.format == "yaml" and staying is not None:
                # project.root serves the project's other agent too: its connection takes it over.
                staying.files.append(record)
                notes.append(f"project.root kept: {staying.agent} is still connected to {staying.project}")
                continue
            change, said = _undo_file(record, kept)
            notes += said
            if change is not None:
                changes.append(change)
        if connection.token:
            notes.append(f"token {connection.token!r} revoked")
        if not any(c.project == connection.project for c in kept):
            root_undone = any(f.format == "yaml" for f in connection.files)
            _remove_blocks(workspace, Path(connection.project), changes, notes, root_undone)
    return DisconnectPlan(changes, notes, removed, kept)


def _remove_blocks(workspace: Workspace, project: Path, changes: list[FileChange], notes: list[str],
                   root_undone: bool) -> None:
    """With the project's last agent disconnected, the bundle's blocks leave its files too, so the
    project is as it was before dreamtui: a file that held only the block is removed, the rest of
    a file stays byte for byte, and a block edited by hand stays where it is."""
    root = workspace.project_root
    if root is None or root.resolve() != project:
        return
    for target in targets(workspace):
        try:
            read = read_target(project, target.name, (workspace.agents_md,))
            block = None if read.text is None else find_block(read.text)
        except (HoldBack, Skip, BlockError):
            continue
        if read.text is None or block is None:
            continue
        if block.edited:
            notes.append(f"{target.path}: its dreamtui block was edited by hand; left as it is")
            continue
        after = without_block(read.text)
        changes.append(FileChange(read.path, read.text, after if after.strip() else None,
                                  ["the bundle's dreamtui block removed"]))
    if not root_undone:
        notes.append("project.root stays (connect did not set it): the next commit delivers the "
                     "bundle into the project again; remove project.root from dreamtui.yaml to stop that")


def apply_disconnect(workspace: Workspace, plan: DisconnectPlan) -> None:
    for change in plan.changes:
        _write(change.path, change.after)
        if change.after is None and change.record is not None:
            for folder in change.record.made_dirs:  # innermost first, each only if now empty
                try:
                    Path(folder).rmdir()
                except OSError:
                    break
    for connection in plan.removed:
        if connection.token:
            try:
                tokens.revoke_token(workspace.stm_path, connection.token,
                                    busy_timeout_ms=workspace.config.stm.busy_timeout_ms)
            except InputError:
                pass  # revoked by hand already
    save_connections(workspace, plan.kept)
