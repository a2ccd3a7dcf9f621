"""The prompt of an LLM dream: its text from `prompts/<version>.md`, and how much of the batch fits.

The prompt is compact: the batch is clustered first (cluster.py, as the heuristic engine does),
each cluster is shown once (its representative in full, the other members by id) with only the
few live entries that fuzzy matching relates to it, and clusters are added oldest first until
`dream.token_budget` is reached. Memories of the clusters that did not fit are reported in
`Done.stats["left_out"]`, and never shown to the model. Feedback memories and content a person
rejected before are split off here too: the model never sees them.

Memory and entry text goes into the prompt inside a data fence, secrets redacted again.
"""

from __future__ import annotations

import hashlib
import math
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Literal

from dreamtui.dream.cluster import (
    Cluster,
    EntryIndex,
    build_entry_index,
    cluster_memories,
    entry_candidates,
    match_entry,
    normalise,
    similarity,
)
from dreamtui.dream.engines.base import DreamInput
from dreamtui.dream.engines.heuristic import cluster_tags, entry_probe
from dreamtui.dream.known import Rule
from dreamtui.dream.proposals import content_fingerprint
from dreamtui.errors import DreamError
from dreamtui.model import Entry, Memory
from dreamtui.safety.secrets import redact
from dreamtui.vocabulary import clip

PROMPTS_PACKAGE = "dreamtui.dream.engines.llm"  # its prompts/ folder holds the prompt and the schema
PROMPT_VERSION = "dream-v3"
CHARS_PER_TOKEN = 4  # the usual estimate for English prose and code; no tokenizer needed
RELATED_PER_CLUSTER = 3  # top-k live entries shown beside each cluster
RULES_PER_CLUSTER = 3  # project rules (dream/known.py) shown beside each cluster, cited path:line
# Below this token_set_ratio an entry shares little more than a tool's name with the cluster
# (measured on the benchmark's synthetic data: unrelated facts about one system score 55-67).
RELATED_MIN_SCORE = 70
MEMORY_CHARS = 1500  # a representative memory's content is cut here in the prompt
ENTRY_CHARS = 160  # an entry's body beyond its guidance is cut here in the prompt
TITLE_CHARS = 120

_SECTION_RE = re.compile(r"^<!-- section: ([a-z-]+) -->\n", re.MULTILINE)
_FENCE_WORD_RE = re.compile(r"untrusted-data", re.IGNORECASE)

AnswerStyle = Literal["tool", "json"]


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def counted(number: int, word: str, plural: str | None = None) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {plural or word + 's'}"


def one_line(text: str, limit: int) -> str:
    """The review's one rule for a text on one line (`vocabulary.clip`), for any value a model sent."""
    return clip(str(text), limit)


# --- prompt files --------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def prompt_sections(version: str = PROMPT_VERSION) -> dict[str, str]:
    """The named sections of prompts/<version>.md (system, user, answer-tool, answer-json)."""
    text = resources.files(PROMPTS_PACKAGE).joinpath(f"prompts/{version}.md").read_text("utf-8")
    parts = _SECTION_RE.split(text)
    # parts = [preamble, name1, body1, name2, body2, ...]; the preamble is the file's comment.
    return {name: body.strip() for name, body in zip(parts[1::2], parts[2::2], strict=False)}



# --- building the prompt -------------------------------------------------------------------------


def _untrusted(text: str) -> str:
    """Memory text as it may appear inside the data fence: secrets redacted, fence word defused."""
    return _FENCE_WORD_RE.sub("untrusted data", redact(text).text)


def _order(memory: Memory) -> tuple[datetime, str]:
    return (memory.submitted_at, memory.id)


@dataclass
class Prompt:
    """One dream's prompt and what it covers."""

    system: str
    user: str
    aliases: dict[str, Memory]  # "m1" → memory, for every memory shown to the model
    clusters: list[list[Memory]]  # the clusters shown, members in order
    entries: list[Entry]  # the related live entries shown
    feedback: list[Memory]  # handled by the policy, never shown
    rejected: list[Memory]  # content a person rejected before: discarded, never shown
    left_out: list[Memory]  # clusters over the token budget: not shown, not proposed on
    budget: int
    citations: frozenset[str] = frozenset()  # the project rules shown ("CLAUDE.md:14"): all a model may cite

    @property
    def chars(self) -> int:
        return len(self.system) + len(self.user)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.system) + estimate_tokens(self.user)


def related_entries(cluster: Cluster, index: EntryIndex, threshold: float) -> list[tuple[Entry, float, bool]]:
    """(entry, score, is the heuristic's match) for the top-k live entries related to `cluster`."""
    tags = cluster_tags(cluster.members, cluster.representative)
    probe = entry_probe(cluster.representative, tags)
    match = match_entry(probe, index, threshold)
    scored: dict[int, float] = {}
    for i in entry_candidates(probe, index):
        score = similarity(probe.norm, index.signatures[i].norm, RELATED_MIN_SCORE)
        if score >= RELATED_MIN_SCORE:
            scored[i] = score
    best = sorted(scored.items(), key=lambda item: (-item[1], index.entries[item[0]].path))
    related = [(index.entries[i], score, False) for i, score in best[:RELATED_PER_CLUSTER]]
    if match is not None:
        related = [(match[0], match[1], True)] + [r for r in related if r[0].path != match[0].path]
        related = related[:RELATED_PER_CLUSTER]
    return related


def related_rules(cluster: Cluster, dream_input: DreamInput) -> list[Rule]:
    """The project rules (dream/known.py) a cluster is most about, for the model to cite."""
    if dream_input.known is None or not dream_input.known.rules:
        return []
    text = f"{cluster.representative.title}\n{cluster.representative.content}"
    return dream_input.known.related(text, limit=RULES_PER_CLUSTER)


def _titled(title: str, text: str, separator: str) -> str:
    """`title` + `text`, or `text` alone when it already says every word of the title."""
    if set(normalise(title).split()) <= set(normalise(text).split()):
        return text
    return f"{one_line(title, TITLE_CHARS)}{separator}{text}"


def render_entry_block(entry: Entry) -> str:
    """`## slug · facts`, then `title: guidance`, then the start of the rest of the body."""
    facts = [entry.kind]
    if entry.pinned:
        facts.append("pinned")
    if entry.confirmations:
        facts.append(counted(entry.confirmations, "confirmation"))
    if entry.flags:
        facts.append(counted(entry.flags, "flag"))
    facts.append(f"tags: {', '.join(entry.tags) or '-'}")
    body = entry.body.strip()
    rest = body[len(entry.guidance):] if body.startswith(entry.guidance) else body
    lines = [_untrusted(f"## {entry.slug} · {' · '.join(facts)}"),
             _untrusted(_titled(entry.title, entry.guidance, ": "))]
    if rest.strip():
        lines.append(_untrusted(f"more: {one_line(rest, ENTRY_CHARS)}"))
    return "\n".join(lines)


def render_cluster_block(number: int, members: Sequence[Memory], representative: Memory,
                         aliases: dict[str, str], related: Sequence[tuple[Entry, float, bool]]) -> str:
    """`## cN: member ids (spread)`, related entry slugs, then the representative memory in full."""
    head = f"## c{number}: {', '.join(aliases[m.id] for m in members)}"
    if len(members) > 1:
        agents = len({m.agent_id for m in members})
        sessions = len({m.metadata.get("session_id") for m in members if m.metadata.get("session_id")})
        spread = [counted(len(members), "memory", "memories"), counted(agents, "agent")]
        if sessions:
            spread.append(counted(sessions, "session"))
        head += f" ({', '.join(spread)})"
    lines = [head]
    if related:
        hints = [f"{entry.slug} ({score:.0f}{', likely repeats' if is_match else ''})"
                 for entry, score, is_match in related]
        lines.append(f"related: {', '.join(hints)}")
    content = representative.content
    if len(content) > MEMORY_CHARS:
        content = content[:MEMORY_CHARS].rstrip() + " …(cut)"
    tags = ", ".join(representative.tags) or "-"
    about = f"{representative.type} · {representative.agent_id} · {representative.submitted_at:%Y-%m-%d}"
    lines += [_untrusted(f"[{aliases[representative.id]}] {about} · tags: {tags}"),
              _untrusted(_titled(representative.title, content.strip(), "\n"))]
    return "\n".join(lines)


def _nonce(*parts: str) -> str:
    """A fence label the data cannot guess without its own hash: deterministic, so the same input
    gives the same prompt (and proposal ids, and prompt-cache hits)."""
    digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()
    return digest[:12]


def _fill(style: AnswerStyle, cluster_blocks: Sequence[str], entry_blocks: Sequence[str], memories: int,
          live: int, left_out: int, rule_lines: Sequence[str] = ()) -> str:
    sections = prompt_sections()
    entries_text = "\n\n".join(entry_blocks) or "(none related)"
    rules_text = "\n".join(rule_lines) or "(none related)"
    clusters_text = "\n\n".join(cluster_blocks)
    note = (f"\n{left_out} more memories did not fit this dream's token budget; they wait for a "
            "later dream.") if left_out else ""
    return string.Template(sections["user"]).substitute(
        answer_format=sections["answer-tool" if style == "tool" else "answer-json"],
        cluster_count=len(cluster_blocks), memory_count=memories, entry_count=len(entry_blocks),
        live_count=live, left_out_note=note, nonce=_nonce(entries_text, rules_text, clusters_text),
        entries=entries_text, rules=rules_text, clusters=clusters_text)


def split_batch(dream_input: DreamInput) -> tuple[list[Memory], list[Memory], list[Memory]]:
    """(new memories for the model, feedback for the policy, memories a person rejected before)."""
    fresh: list[Memory] = []
    feedback: list[Memory] = []
    rejected: list[Memory] = []
    for memory in sorted(dream_input.batch, key=_order):
        if memory.is_feedback:
            feedback.append(memory)
        elif content_fingerprint(memory) in dream_input.rejected:
            rejected.append(memory)
        else:
            fresh.append(memory)
    return fresh, feedback, rejected


def build_prompt(dream_input: DreamInput, style: AnswerStyle, *, budget: int | None = None,
                 index: EntryIndex | None = None) -> Prompt:
    """Cluster the batch, relate each cluster to a few entries, fill the budget oldest first."""
    config = dream_input.config
    budget = budget if budget is not None else config.dream.token_budget
    fresh, feedback, rejected = split_batch(dream_input)
    index = index if index is not None else build_entry_index(dream_input.snapshot)
    system = prompt_sections()["system"]
    # The frame (system prompt, answer format, headings) costs the same whatever is included.
    used = estimate_tokens(system) + estimate_tokens(_fill(style, [], [], 0, 0, 0)) + 16
    aliases: dict[str, str] = {}
    shown_entries: dict[str, str] = {}
    shown_rules: dict[str, str] = {}  # citation → its line, as the model may cite it
    cluster_blocks: list[str] = []
    shown: list[list[Memory]] = []
    left_out: list[Memory] = []
    threshold = config.dream.similarity
    for cluster in cluster_memories(fresh, threshold):
        related = related_entries(cluster, index, threshold)
        trial = dict(aliases)
        for member in cluster.members:
            trial.setdefault(member.id, f"m{len(trial) + 1}")
        block = render_cluster_block(len(cluster_blocks) + 1, cluster.members, cluster.representative,
                                     trial, related)
        new_entries = {e.path: render_entry_block(e) for e, _, _ in related if e.path not in shown_entries}
        new_rules = {r.citation: _untrusted(f"- {r.cited()}") for r in related_rules(cluster, dream_input)
                     if r.citation not in shown_rules}
        cost = estimate_tokens(block) + sum(estimate_tokens(b) for b in new_entries.values()) + 2
        cost += sum(estimate_tokens(line) for line in new_rules.values())
        if used + cost > budget:
            left_out.extend(cluster.members)
            continue
        used += cost
        aliases = trial
        shown_entries.update(new_entries)
        shown_rules.update(new_rules)
        cluster_blocks.append(block)
        shown.append(list(cluster.members))
    if fresh and not shown:
        raise DreamError(f"prompt: not even one cluster fits dream.token_budget ({budget} tokens) — "
                         "raise dream.token_budget")
    by_id = {m.id: m for m in fresh}
    entries = [dream_input.snapshot.entries[path] for path in shown_entries]
    user = _fill(style, cluster_blocks, list(shown_entries.values()), len(aliases),
                 len(index.entries), len(left_out), list(shown_rules.values()))
    return Prompt(system=system, user=user,
                  aliases={alias: by_id[memory_id] for memory_id, alias in aliases.items()},
                  clusters=shown, entries=entries, feedback=feedback, rejected=rejected,
                  left_out=sorted(left_out, key=_order), budget=budget, citations=frozenset(shown_rules))


def naive_prompt(dream_input: DreamInput, style: AnswerStyle) -> str:
    """What a prompt without clustering or relating would hold: the whole batch, the whole LTM.

    Only the benchmark uses it, as the baseline ours is measured against.
    """
    memories = [f"[{m.id}] {m.type} · {m.agent_id} · {m.submitted_at:%Y-%m-%d} · "
                f"tags: {', '.join(m.tags) or '-'}\ntitle: {m.title}\n{m.content}"
                for m in sorted(dream_input.batch, key=_order)]
    entries = [f"## {e.path}\n{e.raw}" for e in sorted(dream_input.snapshot.live(), key=lambda e: e.path)]
    sections = prompt_sections()
    answer = sections["answer-tool" if style == "tool" else "answer-json"]
    return "\n\n".join([sections["system"], answer, "# Long-term entries", *entries,
                        "# New memories", *memories])
