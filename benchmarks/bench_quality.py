"""How well the real dream consolidates: labelled sets through the heuristic engine, end to end.

Run: `PYTHONPATH=src python benchmarks/bench_quality.py [--quick] [--errors] [--realset PATH]` or
`python benchmarks/run.py quality`. For each labelled set, a temporary workspace gets the set's
live entries (if any) and its memories in the queue; a dream runs (`dreamtui.dream.runner.dream`,
as `--headless dream` does), every proposal is accepted and committed, and the result is scored:

- pairwise merge precision and recall: two memories are *merged* when the dream puts them into
  the same lesson (one created or updated entry, an exact-duplicate discard following the memory
  it repeats, a known-corpus discard following the line it cites). Positive pairs are the pairs
  inside a group; negative pairs are look-alike pairs, pairs across groups, and every pair with a
  singleton. Pairs no label covers are not scored. The same figures for the matcher alone
  (cluster_memories, before the dream's value gate and LTM lookups) follow, to tell the two apart.
- look-alike pairs merged (target 0), proposals per distinct lesson (target 1: one proposal per
  lesson), and duplicate lessons left in the committed AGENTS.md (two bundle lines whose entries
  hold memories of one group).
- for sets with live entries: restatements of an entry that matched it (not a new entry), and
  corrections (same subject, different fact) proposed as a change of that entry.
- known corpus (`corpus_dedup`): a temporary code project whose CLAUDE.md is the case's file,
  named by `project.root`; recall = known memories discarded with a `CLAUDE.md:<line>` citation,
  false-known = novel or conflicting memories discarded that way.

Sets: `../shared/eval/realset-public.json` when it is there (real lines from public instruction
files; never copied into the repository), split deterministically into a tuning half and a
held-out half by a hash of each group's, look-alike's, singleton's and case's identity; and the
sets written for this project under tests/data/quality/. `--errors` prints the tuning half's
wrong merges and missed pairs and those of the own sets (never the held-out half's, nor
those of an own set named holdout-*: they are not for tuning).

`--realset PATH` measures another file in realset-public.json's format instead, as a whole (no
tuning split; rows read `quality real <name>:`, the name from the file's stem without `realset-`),
for an independent held-out set that is never tuned on; its `--errors` are for the person who
keeps that set and reports on it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import combinations
from pathlib import Path
from typing import Any

import yaml

from dreamtui.dream.cluster import cluster_memories
from dreamtui.dream.runner import dream
from dreamtui.entry.codec import render_entry
from dreamtui.model import Changeset, Memory, NewMemory
from dreamtui.review.bundle import find_markers, render_bundle
from dreamtui.review.commit import commit
from dreamtui.review.decide import all_matching, decide
from dreamtui.scaffold import init_workspace
from dreamtui.store.ltm import LTMStore
from dreamtui.store.stm import STMStore
from dreamtui.vocabulary import clip
from dreamtui.workspace.config import Config
from dreamtui.workspace.layout import Workspace, open_workspace

REPO = Path(__file__).resolve().parents[1]
REAL_SET = REPO.parent / "shared" / "eval" / "realset-public.json"
OWN_SETS = REPO / "tests" / "data" / "quality"
NOW = datetime(2026, 11, 29, 3, 0, tzinfo=UTC)
T0 = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
TITLE_CHARS = 80
CITATION_RE = re.compile(r"CLAUDE\.md:\d+")
TARGETS = {"real": {"precision": 0.95, "recall": 0.70}, "own": {"precision": 0.95, "recall": 0.90}}


# --- the labelled sets, as one shape ----------------------------------------------------------


@dataclass
class Item:
    """One memory of a set: `key` identifies its text within the set."""

    key: str
    title: str
    content: str
    agent: str
    session: str


@dataclass
class LabelledSet:
    name: str
    items: dict[str, Item] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)  # group id -> item keys
    lookalikes: list[tuple[str, str, str]] = field(default_factory=list)  # (a, b, why)
    singletons: list[str] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)  # live entries before the dream
    restates: dict[str, str] = field(default_factory=dict)  # item key -> slug it restates
    corrects: dict[str, str] = field(default_factory=dict)  # item key -> slug it corrects
    corpus: list[dict[str, Any]] = field(default_factory=list)  # known-corpus cases

    def add(self, title: str, content: str, agent: str, session: str) -> str:
        key = f"{title}\n{content}"
        self.items.setdefault(key, Item(key, title, content, agent, session))
        return key


def half_of(identity: str) -> str:
    """'tune' or 'held-out', from a hash of the identity: stable, and blind to the content."""
    return "tune" if hashlib.sha256(identity.encode()).digest()[0] % 2 == 0 else "held-out"


def _real_item(labelled: LabelledSet, line: dict[str, Any]) -> str:
    text = " ".join(line["text"].split())
    # A line's source is a repository: one agent, one session per source.
    return labelled.add(clip(text, TITLE_CHARS), text, f"agent-{line['source']}", line["source"])


def _fill_real(data: dict[str, Any], place: Callable[[str], LabelledSet]) -> None:
    """Load a real set's parts, each into the set `place` picks from the part's identity."""
    for group in data["groups"]:
        labelled = place(f"group:{group['id']}")
        labelled.groups[group["id"]] = [_real_item(labelled, line) for line in group["lines"]]
    for pair in data["lookalikes"]:
        labelled = place(f"lookalike:{pair['a']['text']}\0{pair['b']['text']}")
        labelled.lookalikes.append((_real_item(labelled, pair["a"]), _real_item(labelled, pair["b"]),
                                    pair.get("why", "")))
    for line in data["singletons"]:
        labelled = place(f"singleton:{line['text']}")
        labelled.singletons.append(_real_item(labelled, line))
    for case in data["corpus_dedup"]:
        place(f"corpus:{case['id']}").corpus.append(case)


def real_halves(path: Path) -> list[LabelledSet]:
    halves = {name: LabelledSet(f"real {name}") for name in ("tune", "held-out")}
    _fill_real(json.loads(path.read_text(encoding="utf-8")), lambda identity: halves[half_of(identity)])
    return list(halves.values())


class SetError(Exception):
    """A --realset file that cannot be read as a real set; the message names file and field."""


def real_whole(path: Path) -> LabelledSet:
    """Another file in realset-public.json's format, measured as one set (no tuning split: a
    fresh held-out set is never tuned on). Named after the file: realset-fresh.json is
    'real fresh'."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SetError(f"{path}: cannot read it ({error.strerror or error})") from error
    except json.JSONDecodeError as error:
        raise SetError(f"{path}: not JSON (line {error.lineno}: {error.msg})") from error
    if not isinstance(data, dict):
        raise SetError(f"{path}: expected a JSON object with groups, lookalikes, singletons, corpus_dedup")
    for part in ("groups", "lookalikes", "singletons", "corpus_dedup"):
        if not isinstance(data.get(part), list):
            raise SetError(f"{path}: '{part}' is missing or not a list")
    labelled = LabelledSet(f"real {path.stem.removeprefix('realset-')}")
    try:
        _fill_real(data, lambda identity: labelled)
    except (KeyError, TypeError, AttributeError) as error:
        raise SetError(f"{path}: an item lacks a field or has the wrong shape ({error}); expected "
                       "the format of realset-public.json") from error
    return labelled


def own_set(path: Path) -> LabelledSet:
    """A set written for this project (tests/data/quality/*.json): memories are objects with a
    title, content, agent and session; see tests/data/quality/README.md."""
    data = json.loads(path.read_text(encoding="utf-8"))
    labelled = LabelledSet(f"own {path.stem}")

    def add(m: dict[str, Any]) -> str:
        return labelled.add(m["title"], m["content"], m.get("agent", "agent-a"), m.get("session", "s-1"))

    for group in data.get("groups", []):
        labelled.groups[group["id"]] = [add(m) for m in group["memories"]]
    for pair in data.get("lookalikes", []):
        labelled.lookalikes.append((add(pair["a"]), add(pair["b"]), pair.get("why", "")))
    labelled.singletons = [add(m) for m in data.get("singletons", [])]
    labelled.entries = data.get("entries", [])
    for case in data.get("restates", []):
        labelled.restates[add(case["memory"])] = case["entry"]
    for case in data.get("corrects", []):
        labelled.corrects[add(case["memory"])] = case["entry"]
    return labelled


# --- one dream over a set --------------------------------------------------------------------


def _workspace(folder: Path, entries: Iterable[dict[str, Any]], project: Path | None = None) -> Workspace:
    workspace = init_workspace(folder / "ws", git=True)
    if project is not None:
        data = yaml.safe_load(workspace.config_path.read_text(encoding="utf-8")) or {}
        data.setdefault("project", {})["root"] = str(project)
        workspace.config_path.write_text(yaml.safe_dump(data), encoding="utf-8")
        workspace = open_workspace(workspace.root)
    entries = list(entries)
    if entries:
        for spec in entries:
            kind = spec.get("type", "topic")
            folder_name = "topics" if kind == "topic" else "incidents/2026-10"
            meta = {"title": spec["title"], "slug": spec["slug"], "type": kind,
                    "tags": spec.get("tags", []), "created_at": NOW - timedelta(days=40),
                    "updated_at": NOW - timedelta(days=40), "sources": []}
            target = workspace.memory_root / folder_name / f"{spec['slug']}.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(render_entry(meta, spec["body"].rstrip("\n") + "\n"), encoding="utf-8")
        store = LTMStore(workspace.memory_root)
        snapshot = store.scan()
        store.write_index(snapshot)
        workspace.agents_md.write_text(render_bundle(snapshot.live()).text, encoding="utf-8")
    return workspace


def _submit(workspace: Workspace, items: Iterable[Item]) -> dict[str, str]:
    """memory id -> item key."""
    ids: dict[str, str] = {}
    with STMStore.for_workspace(workspace) as store:
        for item in items:
            memory = NewMemory(type="observation", title=item.title, content=item.content,
                               agent_id=item.agent, metadata={"session_id": item.session})
            ids[store.submit(memory).memory.id] = item.key
    return ids


@dataclass
class Outcome:
    lesson_of: dict[str, str]  # item key -> the lesson it ended in (an entry path, or itself)
    changes: dict[str, str]  # item key -> op of the entry proposal it is evidence of
    discards: dict[str, str]  # item key -> rationale of its discard
    proposals: int  # entry proposals (not discards, not the bundle)
    bundle_slugs: list[str]  # [mem: slug] markers of the committed AGENTS.md, in order
    sources: dict[str, set[str]]  # slug -> item keys of the memories it holds


_REF_RE = re.compile(r"stm:([0-9a-zA-Z-]+)")


def run_dream(workspace: Workspace, ids: dict[str, str]) -> Outcome:
    changeset = dream(workspace, now=NOW)
    assert changeset is not None and changeset.complete, "the dream did not complete"
    lesson, changes, discards, slug_sources = _read(changeset, ids)
    decide(workspace, changeset.id, all_matching(), "accept", now=NOW)
    commit(workspace, changeset.id, now=NOW + timedelta(minutes=1))
    bundle = workspace.agents_md.read_text(encoding="utf-8") if workspace.agents_md.exists() else ""
    proposals = sum(1 for p in changeset.proposals if p.op not in ("discard", "context"))
    return Outcome(lesson, changes, discards, proposals, find_markers(bundle), slug_sources)


def _read(changeset: Changeset, ids: dict[str, str]) -> tuple[dict[str, str], dict[str, str],
                                                            dict[str, str], dict[str, set[str]]]:
    lesson: dict[str, str] = {}
    changes: dict[str, str] = {}
    discards: dict[str, str] = {}
    follows: dict[str, str] = {}  # item key -> item key whose lesson it shares
    slug_sources: dict[str, set[str]] = {}
    for proposal in changeset.proposals:
        keys = [ids[m] for m in proposal.evidence if m in ids]
        if proposal.op == "context":
            continue
        if proposal.op == "discard":
            for key in keys:
                discards[key] = proposal.rationale
                cited = [ids[m] for m in _REF_RE.findall(proposal.rationale) if m in ids]
                citation = CITATION_RE.search(proposal.rationale)
                if cited:
                    follows[key] = cited[0]
                elif citation:
                    lesson[key] = f"known {citation.group(0)}"
                else:
                    lesson.setdefault(key, f"discarded {key}")
            continue
        for key in keys:
            lesson[key] = proposal.target
            changes[key] = proposal.op
        if proposal.slug:
            slug_sources.setdefault(proposal.slug, set()).update(keys)
    for key, first in follows.items():
        seen = {key}
        while first in follows and first not in seen:
            seen.add(first)
            first = follows[first]
        lesson[key] = lesson.get(first, f"discarded {first}")
    for key in ids.values():
        lesson.setdefault(key, f"unused {key}")
    return lesson, changes, discards, slug_sources


# --- scores ----------------------------------------------------------------------------------


@dataclass
class Scores:
    name: str
    true_merges: int = 0
    positive: int = 0
    false_merges: int = 0
    lookalikes_merged: int = 0
    lookalikes: int = 0
    lessons: int = 0
    proposals: int = 0
    duplicate_lines: int = 0
    restated: int = 0
    restates: int = 0
    corrected: int = 0
    corrects: int = 0
    known_found: int = 0
    known: int = 0
    false_known: int = 0
    not_known: int = 0
    cross_group_merges: int = 0  # false merges of two groups' lines (no look-alike, no singleton)
    cluster_precision: float = 0.0
    cluster_recall: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        merged = self.true_merges + self.false_merges
        return self.true_merges / merged if merged else 1.0

    @property
    def precision_labelled_only(self) -> float:
        """Precision counting as wrong only look-alike and singleton pairs, not two groups'
        lines merged (the shared set's README labels those pairs only)."""
        merged = self.true_merges + self.false_merges - self.cross_group_merges
        return self.true_merges / merged if merged else 1.0

    @property
    def recall(self) -> float:
        return self.true_merges / self.positive if self.positive else 1.0


def _negative_pairs(labelled: LabelledSet) -> Iterator[tuple[str, str, str]]:
    """(a, b, why) for every pair labelled 'must not merge'; each pair once."""
    seen: set[frozenset[str]] = set()
    group_of = {key: gid for gid, keys in labelled.groups.items() for key in keys}

    def pair(a: str, b: str, why: str) -> Iterator[tuple[str, str, str]]:
        both = frozenset((a, b))
        if a != b and both not in seen:
            seen.add(both)
            yield a, b, why

    for a, b, why in labelled.lookalikes:
        yield from pair(a, b, f"look-alike: {why}")
    groups = list(labelled.groups.values())
    for one, other in combinations(groups, 2):
        for a in one:
            for b in other:
                if group_of.get(a) != group_of.get(b):
                    yield from pair(a, b, "different groups")
    for single in labelled.singletons:
        for other in labelled.items:
            yield from pair(single, other, "singleton")


def score(labelled: LabelledSet, outcome: Outcome) -> Scores:
    scores = Scores(labelled.name)
    lesson = outcome.lesson_of
    for gid, keys in labelled.groups.items():
        for a, b in combinations(dict.fromkeys(keys), 2):
            scores.positive += 1
            if lesson[a] == lesson[b]:
                scores.true_merges += 1
            else:
                scores.errors.append(f"missed ({gid}): {_short(a)}  ||  {_short(b)}")
    lookalike_pairs = {frozenset((a, b)) for a, b, _ in labelled.lookalikes}
    scores.lookalikes = len(lookalike_pairs)
    for a, b, why in _negative_pairs(labelled):
        if lesson[a] == lesson[b]:
            scores.false_merges += 1
            scores.cross_group_merges += why == "different groups"
            if frozenset((a, b)) in lookalike_pairs:
                scores.lookalikes_merged += 1
            scores.errors.append(f"wrong merge ({why}): {_short(a)}  ||  {_short(b)}")
    # Distinct lessons: each group is one; every item in no group is its own.
    grouped = {key for keys in labelled.groups.values() for key in keys}
    scores.lessons = len(labelled.groups) + len(set(labelled.items) - grouped)
    scores.proposals = outcome.proposals
    bundle = set(outcome.bundle_slugs)
    for gid, keys in labelled.groups.items():
        lines = [slug for slug in bundle if outcome.sources.get(slug, set()) & set(keys)]
        if len(lines) > 1:
            scores.duplicate_lines += len(lines) - 1
            scores.errors.append(f"AGENTS.md states {gid} {len(lines)} times: {sorted(lines)}")
    for key, slug in labelled.restates.items():
        scores.restates += 1
        if lesson[key].endswith(f"/{slug}.md"):
            scores.restated += 1
        else:
            scores.errors.append(f"restatement of {slug} not matched ({lesson[key]}): {_short(key)}")
    for key, slug in labelled.corrects.items():
        scores.corrects += 1
        if lesson[key].endswith(f"/{slug}.md") and outcome.changes.get(key) == "update":
            scores.corrected += 1
        else:
            scores.errors.append(f"correction of {slug} not an update of it "
                                 f"({outcome.changes.get(key)} {lesson[key]}): {_short(key)}")
    return scores


def _short(key: str) -> str:
    return clip(" ".join(key.split("\n", 1)[-1].split()), 110)


def score_corpus(labelled: LabelledSet, folder: Path, scores: Scores) -> None:
    for number, case in enumerate(labelled.corpus):
        project = folder / f"project-{number}"
        project.mkdir()
        (project / "CLAUDE.md").write_text(case["file"]["text"], encoding="utf-8")
        workspace = _workspace(folder / f"corpus-{number}", (), project)
        sub = LabelledSet("corpus")
        kinds = {}
        for kind in ("known", "novel", "conflicting"):
            for line in case.get(kind, []):
                kinds[_real_item(sub, line)] = kind
        ids = _submit(workspace, sub.items.values())
        outcome = run_dream(workspace, ids)
        for key, kind in kinds.items():
            cited = bool(CITATION_RE.search(outcome.discards.get(key, "")))
            if kind == "known":
                scores.known += 1
                scores.known_found += cited
                if not cited:
                    scores.errors.append(f"known not recognised ({case['id']}): {_short(key)}")
            else:
                scores.not_known += 1
                scores.false_known += cited
                if cited:
                    scores.errors.append(f"{kind} called known ({case['id']}): {_short(key)}")


def evaluate(labelled: LabelledSet) -> Scores:
    with tempfile.TemporaryDirectory(prefix="bench-quality-") as name:
        folder = Path(name)
        workspace = _workspace(folder / "set", labelled.entries)
        ids = _submit(workspace, labelled.items.values())
        scores = score(labelled, run_dream(workspace, ids))
        if labelled.corpus:
            score_corpus(labelled, folder, scores)
    matching = score(labelled, Outcome(clustered(labelled), {}, {}, 0, [], {}))
    scores.cluster_precision, scores.cluster_recall = matching.precision, matching.recall
    return scores


def clustered(labelled: LabelledSet) -> dict[str, str]:
    """item key -> its cluster, from the matcher alone (dream.cluster.cluster_memories, the
    default similarity): what the dream's later steps (value gate, LTM lookups) start from."""
    items = list(labelled.items.values())
    memories = [Memory(id=f"m{n}", tenant_id="default", agent_id=item.agent, type="observation",
                       title=item.title, content=item.content, tags=(),
                       metadata={"session_id": item.session}, submitted_at=T0 + timedelta(minutes=n))
                for n, item in enumerate(items)]
    clusters = cluster_memories(memories, Config().dream.similarity)
    return {items[int(m.id[1:])].key: f"cluster {number}"
            for number, cluster in enumerate(clusters) for m in cluster.members}


# --- the table -------------------------------------------------------------------------------


def _rows(scores: Scores, targets: dict[str, float] | None) -> list[dict[str, Any]]:
    def row(label: str, value: float, unit: str, target: str = "", ok: bool | None = None) -> dict[str, Any]:
        return {"name": f"quality {scores.name}: {label}", "value": value, "unit": unit,
                "target": target, "ok": ok}

    rows = [
        row(f"merge precision ({scores.true_merges}/{scores.true_merges + scores.false_merges})",
            scores.precision, "ratio", f">= {targets['precision']}" if targets else "",
            scores.precision >= targets["precision"] if targets else None),
        row(f"merge recall ({scores.true_merges}/{scores.positive})", scores.recall, "ratio",
            f">= {targets['recall']}" if targets else "",
            scores.recall >= targets["recall"] if targets else None),
        row(f"  precision, look-alike and singleton pairs only ({scores.cross_group_merges} "
            "cross-group merges left out)", scores.precision_labelled_only, "ratio"),
        row("  the matcher alone (cluster_memories): precision", scores.cluster_precision, "ratio"),
        row("  the matcher alone (cluster_memories): recall", scores.cluster_recall, "ratio"),
        row(f"look-alike pairs merged (of {scores.lookalikes})", scores.lookalikes_merged, "pairs",
            "0", scores.lookalikes_merged == 0),
        row(f"proposals per distinct lesson ({scores.proposals}/{scores.lessons})",
            scores.proposals / max(1, scores.lessons), "ratio", "<= 1", None),
        row("duplicate lessons left in AGENTS.md", scores.duplicate_lines, "lines", "0",
            scores.duplicate_lines == 0),
    ]
    if scores.restates:
        rows.append(row(f"restatements matched to their entry ({scores.restated}/{scores.restates})",
                        scores.restated / scores.restates, "ratio", "1", scores.restated == scores.restates))
    if scores.corrects:
        rows.append(row(f"corrections proposed as an update ({scores.corrected}/{scores.corrects})",
                        scores.corrected / scores.corrects, "ratio", "", None))
    if scores.known or scores.not_known:
        rows.append(row(f"known-corpus recall ({scores.known_found}/{scores.known})",
                        scores.known_found / max(1, scores.known), "ratio", ">= 0.8", None))
        rows.append(row(f"false-known rate ({scores.false_known}/{scores.not_known})",
                        scores.false_known / max(1, scores.not_known), "ratio", "<= 0.05", None))
    return rows


def all_sets() -> list[tuple[LabelledSet, dict[str, float]]]:
    sets: list[tuple[LabelledSet, dict[str, float]]] = []
    if REAL_SET.exists():
        sets.extend((half, TARGETS["real"]) for half in real_halves(REAL_SET))
    sets.extend((own_set(path), TARGETS["own"]) for path in sorted(OWN_SETS.glob("*.json")))
    return sets


def held_out(labelled: LabelledSet) -> bool:
    """A set kept for measuring only: the public set's held-out half and the own sets named
    holdout-*. `--errors` never prints their errors, so nobody tunes on them by accident."""
    return labelled.name.endswith("held-out") or labelled.name.startswith("own holdout")


def run(quick: bool = False, show_errors: bool = False,
        sets: list[tuple[LabelledSet, dict[str, float]]] | None = None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for labelled, targets in all_sets() if sets is None else sets:
        scores = evaluate(labelled)
        if show_errors and not held_out(labelled):
            print(f"--- {labelled.name}")
            for line in scores.errors:
                print("   ", line)
        rows.extend(_rows(scores, targets))
    return rows


def _arguments(argv: list[str]) -> argparse.Namespace:
    """The options, or exit 2 with the usage for an unknown one (`--help` prints it, exit 0)."""
    parser = argparse.ArgumentParser(
        prog="bench_quality.py", description="How well the real dream consolidates labelled sets "
        "(the module docstring says what each figure is).")
    parser.add_argument("--quick", action="store_true",
                        help="no effect here: the labelled sets are small and always run whole "
                             "(run.py passes --quick to every benchmark)")
    parser.add_argument("--errors", action="store_true",
                        help="print wrong merges and missed pairs (never a held-out set's)")
    parser.add_argument("--realset", metavar="PATH", type=Path,
                        help="measure this file (realset-public.json's format) as a whole instead")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    options = _arguments(argv)
    try:
        sets = None if options.realset is None else [(real_whole(options.realset), TARGETS["real"])]
    except SetError as error:
        print(f"bench_quality: {error}", file=sys.stderr)
        return 2
    rows = run(quick=options.quick, show_errors=options.errors, sets=sets)
    print(f"{'benchmark':78} {'value':>8} {'unit':6} {'target':>8}  ok")
    for row in rows:
        ok = "" if row["ok"] is None else ("yes" if row["ok"] else "NO")
        print(f"{row['name']:78} {row['value']:>8.3f} {row['unit']:6} {row['target']:>8}  {ok}")
    return 0 if all(row["ok"] is not False for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
