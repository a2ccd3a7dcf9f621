"""The context bundle: AGENTS.md rendered from live LTM entries, and its markers.

Only this renderer writes `[mem: <slug>]` markers; marker-like text inside an entry is
neutralised, so every marker in a bundle was put there for an entry that exists.

Layout: the title, the standing feedback instruction, then one `## <first tag>` section per
first tag, headed as INDEX.md heads it (`topic_group`: the tag as written); an entry with no tag
(one a person wrote without, since a dream tags what it creates) goes under "General", not
INDEX.md's "untagged", which is Dreamer's format and no heading for an agent. Entries are
ranked pinned first, then by confirmations, then by recency (the later of updated_at and
last_confirmed), slug last. In a fresh file sections appear in the order of their best-ranked
entry, so the strongest guidance sits at the top of the file, where an agent that reads only
part of it still sees it. Regenerated over the current file, sections and lines already there keep
its order, and a new one goes right after the one that ranks just above it (first when none
does): a reinforcement moves nothing, and the diff a person reviews is what changed, not a
reshuffle. The byte budget takes entries in rank order and stops at the first that does not
fit: the bundle is always the N best entries, and every entry after the cut is reported in
`left_out`.

Which entries it carries (`included`, `context.include`): those whose route (`Entry.route`,
frontmatter `route:`, absent counting as `bundle`) is listed — by default only `bundle`, the
lessons that recurred — and every pinned entry. A weakened entry (flagged after its last
confirmation) carries its newest caveat on its line, so an agent reading "Use Node 18" also reads
that it was flagged and why; a confirmation after the flag reconfirms it and the caveat leaves
the line (it stays in the entry's body).

A line is read alone: a snippet's or a procedure's guidance ("…, use the snippet below.") says
when to use it and where its code is, since nothing is below it in AGENTS.md.

A line is the lesson, not the day it was learnt: a clause or sentence of the first paragraph that
opens with a date or a clock time ("…within 2 seconds; on 2026-11-14 the handler sent …") is the
story, and stays in the entry, as long as something else is left to say.

A line carries no secret's redaction marker (`[REDACTED:stripe-key]`, which means nothing to an
agent): the variable a secret was assigned to says where it lives ("STRIPE_KEY=[…]" →
"STRIPE_KEY"), a marker read in passing goes, a clause whose point was the secret goes; the entry's
evidence keeps the marker.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from dreamtui.deliver.skills import description, points_below
from dreamtui.errors import WorkspaceError
from dreamtui.model import CAVEAT_PREFIX, Entry, frontmatter_time
from dreamtui.safety.paths import SLUG_PATTERN
from dreamtui.store.ltm import topic_group
from dreamtui.vocabulary import clip
from dreamtui.workspace.config import DEFAULT_INCLUDE

DEFAULT_BYTE_BUDGET = 24 * 1024
DEFAULT_TITLE = "Agent context"
CAVEAT_CHARS = 200  # of a caveat on a bundle line: the observation, not the whole quote
GENERAL = "General"  # the section of entries with no tag

# A clause that opens with when it happened: "on 2026-11-14 the handler …", "2026-11-27 14:05
# UTC the API …", "yesterday …" (not "until 2026-12-24" or "since 2026-10-01 …", which state
# what holds, nor "2:00 UTC is the cutoff", a clock time without a day).
_STORY_OPEN_RE = re.compile(
    r"^(?:(?:on|at|around)\s+)?\d{4}-\d{2}-\d{2}\b"
    r"|^(?:yesterday|last (?:night|week|month)|this (?:morning|afternoon))\b", re.IGNORECASE)
# Where a line splits into clauses and sentences: "; " and ". "/"! " before a capital or a digit.
_CLAUSE_END_RE = re.compile(r";\s+|[.!]\s+(?=[A-Z0-9])")

# A secret the redaction replaced ("[REDACTED:stripe-key]"; safety/secrets.py writes them).
REDACTION_RE = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
_NAMED_SECRET_RE = re.compile(r"^(.+?)\s+(?:is|are|was|were)\s+[(\"'`]*\[REDACTED:[a-z0-9-]+\][)\"'`]*\W*$")
_PRONOUN_RE = re.compile(r"\b(?:it|them)\b")
_DETERMINERS = frozenset("the a an our my your its their this that these those".split())
_WRAPPED_REDACTION_RE = re.compile(r"[(\"'`]*\[REDACTED:([a-z0-9-]+)\][)\"'`]*")
# The variable a secret is assigned to says where it lives: "STRIPE_KEY=[REDACTED:…]" → "STRIPE_KEY".
_HELD_IN_RE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_.]*)\s*[=:]\s*([\"']?)\[REDACTED:[a-z0-9-]+\]\2")
# A marker with what wraps it, and the word before it (see `_in_passing`).
_REDACTED_AT_RE = re.compile(r"(\S*?)(\s*)[(\"'`]*\[REDACTED:([a-z0-9-]+)\][)\"'`]*(?=[\s,.;:!?)]|$)")
# After these the secret was the clause's point ("the key is …", "use …", "with …", "= …").
_SECRET_IS_THE_POINT = frozenset("""
is are was were be as of to by for with use uses using set pass export like the a an
""".split())
MARKER_RE = re.compile(rf"\[mem: ({SLUG_PATTERN})\]")
# Looser than MARKER_RE on purpose: "[MEM:x]" or "[ mem : x ]" would fool a reader, if not a regex.
_MARKER_LIKE_RE = re.compile(r"\[(\s*mem\s*:[^\]\n]*)\]", re.IGNORECASE)
_MARKER_OPEN_RE = re.compile(r"\[(\s*mem\s*:)", re.IGNORECASE)

INSTRUCTION = (
    "Lines that end in a [mem: <slug>] marker come from this project's curated memory. "
    "When guidance marked [mem: <slug>] helped you, call `confirm_context` with that slug. "
    "When it was wrong or out of date, call `flag_context` with what you observed, the slug "
    "and the exact text you quoted. Markers are written only by dreamtui; do not add them."
)


@dataclass
class Bundle:
    text: str
    included: list[str]  # slugs, in the order they appear
    left_out: list[str]  # slugs that did not fit the byte budget, best-ranked first
    bytes: int  # UTF-8 size of `text`


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _neutralise(text: str) -> str:
    """Turn marker-looking text into round brackets so only the renderer writes markers."""
    text = _MARKER_LIKE_RE.sub(r"(\1)", text)
    return _MARKER_OPEN_RE.sub(r"(\1", text)


def open_caveat(entry: Entry) -> str | None:
    """The newest caveat of an entry flagged after its last confirmation, as a clause; None when
    it carries none or was confirmed since."""
    caveats = entry.caveats
    if not caveats or entry.flags <= 0:
        return None
    flagged = frontmatter_time(entry.meta.get("last_flagged"))
    if flagged and flagged < frontmatter_time(entry.meta.get("last_confirmed")):
        return None  # confirmed after the flag (a confirmation in the same instant is no answer)
    text = caveats[-1].removeprefix(CAVEAT_PREFIX[2:])  # "Caveat (flagged D by A): …" → "flagged D by A): …"
    when, _, observation = text.partition("): ")
    observation = observation.split(' Quoted: "', 1)[0]
    return f"⚠ {when}: {clip(observation, CAVEAT_CHARS)}" if observation else None


def _clauses(text: str) -> list[tuple[str, str]]:
    """(clause, the separator after it) of a line, never splitting inside a code span."""
    out: list[tuple[str, str]] = []
    start = 0
    for found in _CLAUSE_END_RE.finditer(text):
        if text.count("`", 0, found.start()) % 2 == 0:
            out.append((text[start:found.start()], found.group(0)))
            start = found.end()
    out.append((text[start:], ""))
    return out


def _in_passing(found: re.Match[str]) -> str:
    """A marker after a noun, read in passing ("the Stripe test key [REDACTED:…] for local runs"
    reads whole without it), goes; after a word that makes the secret the point, it stays."""
    before = found.group(1)
    if not before or before.endswith(("=", ":")) or before.lower() in _SECRET_IS_THE_POINT:
        return found.group(0)
    return before


def without_secrets(text: str) -> str:
    """`text` with no `[REDACTED:<kind>]` marker (module docstring): where a variable holds the
    secret the variable says where it lives; a marker read in passing goes; a clause whose point
    was the secret goes; when the secret is all it says, the marker becomes what kind it was."""
    text = _HELD_IN_RE.sub(r"\1", text)
    if not REDACTION_RE.search(text):
        return text
    clauses = _clauses(_REDACTED_AT_RE.sub(_in_passing, text))
    kept: list[tuple[str, str]] = []
    subject = None  # of a dropped "the Stripe test key is [REDACTED:…]", for the "it" after it
    for n, (clause, _) in enumerate(clauses):
        if REDACTION_RE.search(clause):
            named = _NAMED_SECRET_RE.match(clause)
            subject = named.group(1) if named else subject
            continue
        if subject is not None:
            first, _, others = subject.partition(" ")
            named_as = f"{first.lower()} {others}" if first.lower() in _DETERMINERS and others else subject
            clause, found = _PRONOUN_RE.subn(named_as, clause, count=1)
            subject = None if found else subject
        kept.append((clauses[n - 1][1] if n else "", clause))
    if not kept:  # the secret is all it says: name what it is, not the marker
        return _WRAPPED_REDACTION_RE.sub(lambda found: f"the {found.group(1)} (not kept in memory)", text)
    line = "".join(sep + c if n else c for n, (sep, c) in enumerate(kept)).strip()
    line = line[:1].upper() + line[1:]
    return line if line.endswith((".", "!", "?")) else f"{line.rstrip(',;: ')}."


def lesson_of(text: str) -> str:
    """`text` without the clauses that tell when it happened (module docstring); unchanged when
    they are all it says."""
    clauses = _clauses(text)
    # Each kept clause joins the one before it with the separator that stood before it.
    kept = [(clauses[n - 1][1] if n else "", c) for n, (c, _) in enumerate(clauses)
            if not _STORY_OPEN_RE.match(c)]
    if len(kept) == len(clauses) or not kept:
        return text
    line = "".join(sep + c if n else c for n, (sep, c) in enumerate(kept)).strip()
    line = line[:1].upper() + line[1:]
    return line if line.endswith((".", "!", "?")) else f"{line.rstrip(',;: ')}."


def guidance_line(entry: Entry) -> str:
    """The bundle line for one entry: its first paragraph (or title) without its story, its open
    caveat, its marker."""
    guidance = without_secrets(lesson_of(_one_line(entry.guidance or entry.title)))
    if points_below(guidance):
        # "…, use the snippet below." has nothing below it here: say when to use it, and where
        # the code is (a skill is delivered under its slug; otherwise the entry holds it).
        where = f"the skill `{entry.slug}`" if entry.route == "skill" else "its memory entry"
        guidance = f"{description(entry).rstrip('.')} (the code and steps: {where})."
    caveat = open_caveat(entry)
    if caveat:
        guidance = f"{guidance} ({caveat})"
    return f"- {_neutralise(guidance)} [mem: {entry.slug}]"


def carried(entry: Entry, include: Collection[str] = DEFAULT_INCLUDE) -> bool:
    """Whether AGENTS.md carries this live entry: its route is included, or a person pinned it."""
    return entry.pinned or entry.route in include


def _rank(entry: Entry) -> tuple[bool, int, float, str]:
    recency = max(frontmatter_time(entry.meta.get("updated_at")), frontmatter_time(entry.meta.get("last_confirmed")))
    return (not entry.pinned, -entry.confirmations, -recency, entry.slug)


def _header(title: str) -> str:
    return f"# {_one_line(title)}\n\n{INSTRUCTION}\n"


def _layout(text: str) -> dict[str, list[str]]:
    """The sections of a rendered bundle, in order, each with the slugs of its lines in order."""
    sections: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith("## "):
            slugs = sections.setdefault(line[3:].strip(), [])
        elif line.startswith("- ") and sections:
            markers = find_markers(line)
            if markers:
                slugs.append(markers[-1])
    return sections


def _keep_order(ranked: list[str], previous: list[str]) -> list[str]:
    """`ranked` in the order of `previous` for what it already held; each new item right after
    the item ranked just above it (first when it ranks first), so no old item moves."""
    wanted = set(ranked)
    order = list(dict.fromkeys(item for item in previous if item in wanted))
    if len(order) == len(ranked):
        return order
    placed = set(order)
    for n, item in enumerate(ranked):
        if item not in placed:
            order.insert(order.index(ranked[n - 1]) + 1 if n else 0, item)
            placed.add(item)
    return order


def render_bundle(entries: Iterable[Entry], *, byte_budget: int = DEFAULT_BYTE_BUDGET,
                  title: str = DEFAULT_TITLE, include: Collection[str] = DEFAULT_INCLUDE,
                  previous: str = "") -> Bundle:
    """AGENTS.md for the live entries among `entries` that it carries (`carried`), within
    `byte_budget` UTF-8 bytes, keeping the order of sections and lines of `previous` (the file it
    replaces, module docstring)."""
    ranked = sorted((e for e in entries if not e.archived and carried(e, include)), key=_rank)
    header = _header(title)
    size = len(header.encode("utf-8"))
    sections: dict[str, list[tuple[str, str]]] = {}
    left_out: list[str] = []
    for entry in ranked:
        if left_out:
            left_out.append(entry.slug)
            continue
        name, line = topic_group(entry) if entry.tags else GENERAL, guidance_line(entry) + "\n"
        cost = len(line.encode("utf-8"))
        if name not in sections:
            cost += len(f"\n## {name}\n\n".encode())
        if size + cost > byte_budget:
            left_out.append(entry.slug)
            continue
        size += cost
        sections.setdefault(name, []).append((entry.slug, line))
    layout = _layout(previous)
    ordered = []
    for name in _keep_order(list(sections), list(layout)):
        lines = dict(sections[name])
        ordered.append((name, [(slug, lines[slug]) for slug in _keep_order(list(lines), layout.get(name, []))]))
    text = header + "".join(f"\n## {name}\n\n" + "".join(line for _, line in lines)
                            for name, lines in ordered)
    included = [slug for _, lines in ordered for slug, _ in lines]
    return Bundle(text=text, included=included, left_out=left_out, bytes=len(text.encode("utf-8")))


def find_markers(text: str) -> list[str]:
    """Slugs of every `[mem: <slug>]` marker in `text`, in order, repeats included."""
    return MARKER_RE.findall(text)


def dangling_markers(text: str, live_slugs: Iterable[str]) -> list[str]:
    """Marker slugs that name no live entry, each once, in order of first appearance."""
    live = set(live_slugs)
    return list(dict.fromkeys(slug for slug in find_markers(text) if slug not in live))


def read_bundle(path: Path) -> str:
    """The bundle as it is on disk, for every reader (dream, commit plan, workbench).

    Missing is empty. Bytes that are not UTF-8 are shown as U+FFFD rather than refused: the file
    is generated, so the next commit replaces it, and its diff shows a person exactly what goes.
    """
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise WorkspaceError(f"cannot read {path}: {exc.strerror}") from None
