"""The project's delivery targets (`context.targets`): files dreamtui owns only a marked block of.

A target file (the project's AGENTS.md, CLAUDE.md, …) may hold anything a person wrote; dreamtui
owns exactly the text between its markers

    <!-- dreamtui:begin sha256=<16 hex> … -->
    …
    <!-- dreamtui:end -->

and never touches a byte outside them. The begin marker records the hash of the block's content
as dreamtui wrote it, so a block edited by hand since is recognised and held back (never
overwritten) whatever happened in between — the same rule as an entry's base hash (§4.4). A
target that exists without a block gets one appended (a reviewed bundle proposal does that the
first time); a missing target is created holding only the block. An `import` target's block is one
`@<path>` line, the path relative to that file's folder, which is how Claude Code's CLAUDE.md
imports another file.

Symlinks are resolved deliberately: a target whose real file lies inside the project is written
there (the link stays a link); one that leads to the workspace's own bundle is left alone (the
agents already read the bundle through it); one that leads anywhere else, or nowhere, is held back
with a reason, so dreamtui never writes outside the project.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from dreamtui.workspace.config import DEFAULT_TARGETS, TargetConfig
from dreamtui.workspace.layout import Workspace

BEGIN = "<!-- dreamtui:begin"
END = "<!-- dreamtui:end -->"
_BEGIN_RE = re.compile(r"^<!-- dreamtui:begin(?: sha256=(?P<hash>[0-9a-f]{16}))?[^\n]*-->[ \t]*\r?\n",
                       re.MULTILINE)
_END_RE = re.compile(r"^<!-- dreamtui:end -->[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
_NOTE = "written by dreamtui from the curated memory; edit the memory, not this block"


class BlockError(ValueError):
    """A target whose markers dreamtui cannot read safely (the message says what is wrong)."""


@dataclass(frozen=True)
class Block:
    start: int  # offset of the begin marker
    end: int  # offset just past the end marker's line
    content: str  # the text between the markers
    recorded: str | None  # the content hash the begin marker records

    @property
    def edited(self) -> bool:
        """True when the content is no longer what dreamtui wrote (or the marker lost its hash)."""
        return self.recorded != content_hash(self.content)


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]


def find_block(text: str) -> Block | None:
    """The one dreamtui block in `text`, None when there is none; BlockError when the markers
    are unbalanced or repeated (a hand edit dreamtui will not guess at)."""
    begins = list(_BEGIN_RE.finditer(text))
    ends = list(_END_RE.finditer(text))
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1:
        raise BlockError(f"has {len(begins)} dreamtui:begin and {len(ends)} dreamtui:end markers; "
                         "expected one of each")
    begin, end = begins[0], ends[0]
    if end.start() < begin.end():
        raise BlockError("has its dreamtui:end marker before dreamtui:begin")
    return Block(begin.start(), end.end(), text[begin.end():end.start()], begin.group("hash"))


def block_text(content: str) -> str:
    """The whole block for `content` (which ends with a newline when it is not empty)."""
    if content and not content.endswith("\n"):
        content += "\n"
    return f"{BEGIN} sha256={content_hash(content)} {_NOTE} -->\n{content}{END}\n"


def with_block(current: str | None, content: str) -> str:
    """`current` with its block holding `content`: replaced in place, else appended after a blank
    line; a missing file becomes the block alone. Text outside the block is kept byte for byte."""
    block = block_text(content)
    if current is None or current == "":
        return block
    found = find_block(current)
    if found is not None:
        return current[:found.start] + block + current[found.end:]
    separator = "" if current.endswith("\n\n") else "\n" if current.endswith("\n") else "\n\n"
    return current + separator + block


def without_block(current: str) -> str:
    """`current` with dreamtui's block (and the blank line `with_block` put before it) removed."""
    found = find_block(current)
    if found is None:
        return current
    head, tail = current[:found.start], current[found.end:]
    if not tail and head.endswith("\n\n"):
        head = head[:-1]
    return head + tail


def import_line(target: Path, imported: Path) -> str:
    """`@<path>` for a file at `target` importing `imported`: the path relative to the folder of
    `target`, the way Claude Code resolves an import inside CLAUDE.md."""
    relative = os.path.relpath(imported, start=target.parent)
    return f"@{Path(relative).as_posix()}\n"


# -- the configured targets -------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    name: str  # as configured, relative to project.root
    path: Path  # project.root / name
    mode: str  # block | import
    imports: Path | None  # for an import target: the file it imports


def targets(workspace: Workspace) -> list[Target]:
    """The delivery targets of the workspace's project; none when `project.root` is not set."""
    root = workspace.project_root
    if root is None:
        return []
    configured: list[TargetConfig] = list(
        DEFAULT_TARGETS if workspace.config.context.targets is None else workspace.config.context.targets)
    blocks = [t.path for t in configured if t.mode == "block"]
    out = []
    for t in configured:
        imported = (t.imports or blocks[0]) if t.mode == "import" else None
        out.append(Target(t.path, root / t.path, t.mode, None if imported is None else root / imported))
    return out


def missing_project(workspace: Workspace) -> str | None:
    """Why nothing can be delivered into `project.root` (it is not a folder), or None. Never
    created: a typo in the config must not leave a stray folder holding an AGENTS.md."""
    root = workspace.project_root
    if root is None or root.is_dir():
        return None
    return f"project.root {root} is not a folder; nothing delivered into it"


def delivers_skills(workspace: Workspace) -> bool:
    """Skills go to the project's .claude/skills/ unless delivery is switched off (`targets: []`)."""
    return workspace.project_root is not None and workspace.config.context.targets != [] \
        and missing_project(workspace) is None


# -- what one target becomes ------------------------------------------------------------------


@dataclass(frozen=True)
class Delivery:
    """One project file a commit would write, or the reason it is held back."""

    name: str  # how messages name it: project-relative
    path: Path  # the real file written (a symlink's target inside the project)
    before: str | None  # the file as read (None: absent)
    after: str | None  # its new text; None when held back or already up to date
    base: str | None  # SHA-256 of the bytes read (None: absent), the journal's base (§4.2)
    problem: str | None = None  # why it is held back, never written over
    first: bool = False  # a block appended to a file that had none: a person decides it

    @property
    def diff(self) -> str:
        """The unified diff a person reviews, named by the project-relative path."""
        return "".join(difflib.unified_diff(
            (self.before or "").splitlines(keepends=True), (self.after or "").splitlines(keepends=True),
            fromfile=f"a/{self.name}", tofile=f"b/{self.name}"))


@dataclass(frozen=True)
class _Read:
    path: Path
    text: str | None
    base: str | None


class Skip(Exception):
    """Nothing to write and nothing to report (a link to the workspace's own bundle)."""


class HoldBack(Exception):
    pass


def read_target(project: Path, name: str, own: tuple[Path, ...] = ()) -> _Read:
    """The file `name` of the project as it is now, resolving symlinks as the module doc says.

    `own`: files of the workspace a link may lead to and be left alone (the bundle).
    Raises HoldBack (the reason) or Skip.
    """
    path = project / name
    real = Path(os.path.realpath(path))
    if any(real == Path(os.path.realpath(o)) for o in own):
        raise Skip  # the workspace's own file (through a link, or project.root is that folder)
    if real != path.absolute() or os.path.islink(path):
        if not real.is_relative_to(Path(os.path.realpath(project))):
            raise HoldBack(f"is a symlink to {real}, outside the project; not followed "
                            "(replace the link with a file to let dreamtui keep a block in it)")
        if os.path.islink(path) and not os.path.exists(path):
            raise HoldBack(f"is a symlink to {real}, which does not exist; not followed")
    try:
        data = real.read_bytes()
    except FileNotFoundError:
        return _Read(real, None, None)
    except IsADirectoryError:
        raise HoldBack("is a folder, not a file") from None
    except OSError as exc:
        raise HoldBack(f"cannot be read ({exc.strerror}); not written") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HoldBack(f"is not UTF-8 text (byte {exc.start}); not written") from None
    return _Read(real, text, hashlib.sha256(data).hexdigest())


def deliver_file(project: Path, name: str, content: str, *, append: bool,
                 own: tuple[Path, ...] = ()) -> Delivery | None:
    """What the target `name` becomes with its block holding `content`; None when it already does
    (or is a link to the workspace's own bundle). `append`: whether a block may be appended to a
    file without one (only a reviewed bundle proposal does it the first time)."""
    try:
        read = read_target(project, name, own)
    except Skip:
        return None
    except HoldBack as held:
        return Delivery(name, project / name, None, None, None, f"{name} {held}")
    try:
        block = None if read.text is None else find_block(read.text)
    except BlockError as exc:
        return Delivery(name, read.path, read.text, None, read.base,
                        f"{name} {exc}; fix the markers by hand (or remove the block)")
    if block is not None and block.edited:
        return Delivery(name, read.path, read.text, None, read.base,
                        f"{name}: the dreamtui block was edited by hand since dreamtui wrote it; "
                        "not overwritten (move your lines out of the block, or delete the block "
                        "to get a fresh one)")
    after = with_block(read.text, content)
    if after == read.text:
        return None
    first = bool(read.text) and block is None
    if first and not append:
        return Delivery(name, read.path, read.text, None, read.base,
                        f"{name} has no dreamtui block yet: one is appended to a file you wrote only "
                        "when you accept the bundle proposal yourself (the next dream proposes it)")
    return Delivery(name, read.path, read.text, after, read.base, first=first)


def plan_deliveries(workspace: Workspace, bundle: str, *, append: bool) -> list[Delivery]:
    """Every target of the project that `bundle` (the AGENTS.md text) changes or holds back."""
    problem = missing_project(workspace)
    if problem is not None and targets(workspace):
        assert workspace.project_root is not None
        return [Delivery("project.root", workspace.project_root, None, None, None, problem)]
    out = []
    for target in targets(workspace):
        if target.mode == "import":
            assert target.imports is not None
            content = import_line(target.path, target.imports)
        else:
            content = bundle
        assert workspace.project_root is not None  # targets() is empty without it
        delivery = deliver_file(workspace.project_root, target.name, content, append=append,
                                own=(workspace.agents_md,))
        if delivery is not None:
            out.append(delivery)
    return out
