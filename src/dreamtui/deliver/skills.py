"""Skills: a live entry routed `skill` (frontmatter `route: skill`) as a Claude Code skill.

The workspace keeps `context/skills/<slug>/SKILL.md` beside AGENTS.md, as a Dreamer server does;
its frontmatter is what Claude Code reads (`name`, `description`) plus `version`, which goes up by
one whenever the skill's text changes materially (the Dreamer context schema asks the same, so
agents know to read it again). The body is the entry's, followed by the `[mem: <slug>]` marker
and the standing instruction, so an agent confirms or flags a skill like any bundle line.

A skill never carries credentials, not even a vendor's documentation examples (AWS's
`AKIAIOSFODNN7EXAMPLE`): an agent runs what a skill says, and a key written into a command
teaches it to write keys into commands. `without_credentials` keeps the command and drops the
inline assignments (`AWS_SECRET_ACCESS_KEY=… aws s3 sync …` → `aws s3 sync …`), so the tool reads
its credentials from the environment as it would anyway; the dream applies it to the entry it
proposes (its rationale names what was left out), and SKILL.md applies it again to whatever an
entry says.

Like the bundle, skills are regenerated from the live entries at every commit: a skill whose entry
is archived or routed elsewhere is removed. The project copy, `.claude/skills/<slug>/SKILL.md`, is
delivered only over what dreamtui delivered before (the workspace copy as it stands before the
commit): a project file edited by hand, or one dreamtui never wrote, is held back, never replaced.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from dreamtui.deliver.targets import HoldBack, Skip, read_target
from dreamtui.entry.codec import parse_entry
from dreamtui.errors import EntryError
from dreamtui.model import Entry, Proposal, frontmatter_int
from dreamtui.vocabulary import Route
from dreamtui.workspace.layout import Workspace

SKILLS_DIR = "skills"
PROJECT_SKILLS = ".claude/skills"
SKILL_FILE = "SKILL.md"
DESCRIPTION_LIMIT = 1024  # Claude Code's limit on a skill's description
NAME_LIMIT = 64  # Claude Code's limit on a skill's name (lowercase letters, digits, hyphens)

MARKER_NOTE = ("This skill comes from this project's curated memory [mem: {slug}]. When it helped, "
               "call `confirm_context` with the slug `{slug}`; when it was wrong or out of date, call "
               "`flag_context` with what you observed, the slug and the text you quoted.")


# `NAME=value` in a shell line whose NAME says it holds a credential (AWS_ACCESS_KEY_ID,
# GITHUB_TOKEN, PGPASSWORD, STRIPE_SECRET_KEY), optionally after `export`; a value that is a
# reference (`$X`, `${X}`, `<your key>`) holds none.
_CREDENTIAL_RE = re.compile(
    r"(?P<export>\bexport\s+)?(?<![\w$.-])(?P<name>[A-Z][A-Z0-9_]*?(?:(?:_|API)KEY(?:_ID)?|SECRET|TOKEN|PASSWORD|"
    r"PASSWD|_PASS|_PWD|CREDENTIALS?))=(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'`;&|]+)[ \t]*")
LITERAL_CHARS = 6  # shorter values are switches (`REQUIRE_TOKEN=1`), not key material


def _literal(value: str) -> bool:
    bare = value.strip("\"'")
    return len(bare) >= LITERAL_CHARS and not bare.startswith(("$", "<", "[REDACTED"))


def without_credentials(text: str) -> tuple[str, list[str]]:
    """`text` with every credential assignment left out (see the module docstring), and the names
    of those it left out, in order. A line left holding only its `\\` continuation goes too."""
    names: list[str] = []

    def drop(found: re.Match[str]) -> str:
        if not _literal(found["value"]):
            return found.group(0)
        names.append(found["name"])
        return ""

    lines: list[str] = []
    joined = False  # the previous line was only a continuation: this one starts the command
    for line in text.split("\n"):
        cleaned = _CREDENTIAL_RE.sub(drop, line)
        if cleaned != line and cleaned.strip() in ("", "\\"):
            joined = cleaned.strip() == "\\"
            continue
        lines.append(cleaned.lstrip() if joined else cleaned)
        joined = False
    return "\n".join(lines), list(dict.fromkeys(names))


def is_skill(entry: Entry) -> bool:
    return not entry.archived and entry.route == Route.SKILL


def skill_name(slug: str) -> str:
    """The skill's name and folder: the slug (the slug rule is Claude Code's name rule), cut at
    a hyphen to NAME_LIMIT characters."""
    if len(slug) <= NAME_LIMIT:
        return slug
    head = slug[:NAME_LIMIT]
    return head.rsplit("-", 1)[0] if slug[NAME_LIMIT] != "-" and "-" in head else head.rstrip("-")


def written_by_dreamtui(text: str) -> bool:
    """Whether a SKILL.md is one dreamtui wrote (its closing marker line), so only those are
    replaced or removed: a Dreamer server or a person may keep skills of their own beside them."""
    return MARKER_NOTE.split("[mem:")[0] in text


def _split(text: str) -> tuple[dict[str, object], str]:
    if not text.startswith("---\n"):
        return {}, text
    head, sep, body = text[4:].partition("\n---\n")
    if not sep:
        return {}, text
    try:
        meta = yaml.safe_load(head)
    except yaml.YAMLError:
        return {}, text
    return (meta if isinstance(meta, dict) else {}), body


# A snippet's guidance points at the code below it ("For deploying by hand, use the snippet
# below."), true in the body; the description is read in a list of skills, with nothing below.
_BELOW_RE = re.compile(r"^(?:(?P<when>(?:for|before|after|when|whenever|if|once|to|until|while) .+?),\s*|"
                       r"(?P<what>.+?):\s*)?(?:use the snippet|follow the steps) below\.?$", re.IGNORECASE)


def points_below(guidance: str) -> bool:
    """Whether a guidance line points at the code or steps under it ("…, use the snippet below."):
    true in the entry's body, pointing at nothing where the line is read alone."""
    return bool(_BELOW_RE.match(" ".join(guidance.split())))


def description(entry: Entry) -> str:
    """When to use the skill: its guidance line, said without pointing at the body."""
    words = " ".join((entry.guidance or entry.title).split())
    below = _BELOW_RE.match(words)
    if below:
        title = " ".join(entry.title.split())
        when = below["when"]
        said = when.split(" ", 1)[-1].lower() if when else ""
        # "Deploying to production: for deploying to production." says the title twice.
        words = f"{title}: {when[0].lower()}{when[1:]}." if when and said != title.lower() else \
            f"{below['what'] or title}."
    return words if len(words) <= DESCRIPTION_LIMIT else words[:DESCRIPTION_LIMIT - 1] + "…"


def skill_text(entry: Entry, previous: str | None) -> str:
    """SKILL.md for `entry`; `previous` (the workspace copy now) gives the version to keep or bump."""
    body = f"# {entry.title}\n\n{without_credentials(entry.body.strip())[0]}\n\n{MARKER_NOTE.format(slug=entry.slug)}\n"
    description_text = description(entry)
    old_meta, old_body = _split(previous) if previous is not None else ({}, None)
    version = frontmatter_int(old_meta.get("version"), 0)
    if old_body != body or old_meta.get("description") != description_text or version < 1:
        version += 1
    meta = {"name": entry.slug, "description": description_text, "version": version}
    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{head}---\n{body}"


@dataclass(frozen=True)
class SkillPlan:
    writes: dict[Path, str]
    removals: list[Path]
    bases: dict[Path, str | None]
    held: list[tuple[str, str]]  # (slug, reason) for each project copy held back


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def _workspace_copies(folder: Path) -> dict[str, str]:
    copies: dict[str, str] = {}
    if not folder.is_dir():
        return copies
    for child in sorted(folder.iterdir()):
        path = child / SKILL_FILE
        if child.is_dir() and not child.is_symlink() and path.is_file() and not path.is_symlink():
            try:
                copies[child.name] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # not one dreamtui wrote: left alone
    return copies


def plan_skills(workspace: Workspace, entries: Iterable[Entry], *, to_project: bool) -> SkillPlan:
    """The SKILL.md files the live entries give, against what the workspace holds now."""
    folder = workspace.context_root / SKILLS_DIR
    current = _workspace_copies(folder)
    wanted = {e.slug: e for e in entries if is_skill(e)}
    plan = SkillPlan({}, [], {}, [])
    project = workspace.project_root if to_project else None
    named: dict[str, str] = {}  # skill name → the slug that has it
    for slug, entry in sorted(wanted.items()):
        name = skill_name(slug)
        if name in named:
            plan.held.append((slug, f"skill name {name} is already {named[name]}'s; shorten the slug"))
            continue
        named[name] = slug
        path = folder / name / SKILL_FILE
        previous = current.get(name)
        if previous is not None and not written_by_dreamtui(previous):
            plan.held.append((slug, f"context/{SKILLS_DIR}/{name}/{SKILL_FILE} was not written by "
                                    "dreamtui; not replaced"))
            continue
        text = skill_text(entry, previous)
        if text != previous:
            plan.writes[path] = text
            plan.bases[path] = _sha(previous)
        if project is not None:
            _deliver(plan, project, name, previous, text)
    for name, text in current.items():
        if name in named or not written_by_dreamtui(text):
            continue  # still wanted, or not dreamtui's to remove
        path = folder / name / SKILL_FILE
        plan.removals.append(path)
        plan.bases[path] = _sha(text)
        if project is not None:
            _deliver(plan, project, name, text, None)
    return plan


def _deliver(plan: SkillPlan, project: Path, name: str, delivered: str | None,
             text: str | None) -> None:
    """The project copy: written (or removed, `text` None) only over what dreamtui delivered."""
    where = f"{PROJECT_SKILLS}/{name}/{SKILL_FILE}"
    try:
        read = read_target(project, where)
    except Skip:
        return
    except HoldBack as held:
        plan.held.append((name, f"{where} {held}"))
        return
    if read.text == text:
        return
    if read.text is not None and read.text != delivered:
        what = "was edited by hand" if delivered is not None else "was not written by dreamtui"
        plan.held.append((name, f"{where} {what}; not overwritten"))
        return
    if text is None:
        if read.text is not None:
            plan.removals.append(read.path)
            plan.bases[read.path] = read.base
        return
    plan.writes[read.path] = text
    plan.bases[read.path] = read.base



def skill_preview(workspace: Workspace, proposal: Proposal) -> tuple[str | None, str] | None:
    """(the SKILL.md now, the SKILL.md accepting `proposal` writes) for a lesson routed `skill`, so
    a person reviews the skill itself; None for any other proposal."""
    if proposal.route != Route.SKILL or proposal.after is None:
        return None
    try:
        entry = parse_entry(proposal.after, proposal.target)
    except EntryError:
        return None  # the commit holds it back, saying why
    path = workspace.context_root / SKILLS_DIR / skill_name(entry.slug) / SKILL_FILE
    try:
        previous: str | None = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        previous = None
    return previous, skill_text(entry, previous)
