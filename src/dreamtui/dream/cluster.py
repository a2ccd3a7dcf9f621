"""Clustering memories that state one lesson, and finding the live entry a cluster restates.

Whether two texts state one lesson is match.py's verdict (weighted stems, strong features, and
the facts that must agree: numbers in a slot, the tool picked, do vs do not). Here it drives:

- clustering: an inverted index of rare stems picks, for each memory, a few candidates, and
  only those pairs are compared (near-linear); a merge must also leave no conflicting fact
  between members of the two clusters, so chains cannot join "port 5432" and "port 5433";
- entry matching (LTM first): find_entry returns the entry a text restates, or the one it
  corrects (same subject, a different fact), with the verdict saying which.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from operator import itemgetter

from rapidfuzz import fuzz

from dreamtui.dream.match import (
    DEFAULT_SIMILARITY,
    INDEXED_KIN,
    RAW_CUT,
    Features,
    Match,
    MatchIndex,
    Weights,
    bridges,
    calibrated,
    conflicting,
    raw_overlap,
    slot_conflicts,
)
from dreamtui.dream.match import NEGATIONS as NEGATIONS
from dreamtui.dream.match import STOPWORDS as STOPWORDS
from dreamtui.dream.match import identifiers as identifiers
from dreamtui.dream.match import normalise as normalise
from dreamtui.dream.match import numbers as numbers
from dreamtui.dream.match import polarity as polarity
from dreamtui.model import Entry, Memory
from dreamtui.store.ltm import LTMSnapshot

# A token in more than this share of the documents says nothing about which ones are alike ...
COMMON_TOKEN_SHARE = 0.05
# ... but in a small batch every token is "common"; below this many documents nothing is skipped.
COMMON_TOKEN_MIN_DOCS = 64
RARE_TOKENS_PER_DOC = 8  # the rarest tokens of a document are the ones that find its duplicates
# Postings read per query beyond its rarest token: a constant, so the work per document does not
# grow with the batch (a word in 5% of 10,000 documents has 500 postings). Near-duplicates share
# their rarest words, which cost little of it.
POSTINGS_BUDGET = 512
MIN_SHARED_TOKENS = 2
DEFAULT_THRESHOLD = DEFAULT_SIMILARITY  # config.dream.similarity's default
MAX_CANDIDATES = 20  # per document: bounds the fuzzy comparisons on very repetitive batches
# Memories compared with each memory when clustering: a memory's rewordings share its rarest
# stems, so they rank first; every comparison costs the most of a dream.
CLUSTER_CANDIDATES = 10
ENTRY_CANDIDATES = 10  # entries scored per cluster: the ones sharing the most rare words
REPRESENTATIVE_SAMPLE = 10  # members compared when picking a big cluster's representative
GROUP_SAMPLE = 4  # members of each side compared before two clusters merge
# Two clusters merge only if their sampled members overlap, on average, at least this share of
# what one pair needs (match.RAW_CUT): a chain of barely-alike pairs does not make one lesson.
LINK_SHARE = 0.75
# A rule with at most this many stems besides its circumstances may match a rewording through
# one shared stem (_cluster says when). Two (a two-word rule matched through the tool it names:
# "yarn instead of npm" / "Always use yarn for package commands") found more rewordings on the
# sets tuned on, twice; but it lost on held-out data once (five wrong merges, 46719f0), and a
# second reader's own look-alikes merged under it ("Use Bun." with "Use Node, not Bun.", "Prefer
# Vitest." with "Run Vitest only in CI."): one it stays.
SHORT_RULE_STEMS = 1
KIN_TOKEN = "~"  # a family's token in the candidate index: no stem starts with it

@dataclass
class Signature:
    """A text as callers outside the matcher see it: its normalised form and tokens (policy.py
    and the LLM prompt rank with them), and its match.Features, built on first use."""

    text: str
    body: str | None  # the part of `text` that states facts (a memory's content, not its title)
    norm: str
    tokens: frozenset[str]
    numbers: frozenset[int]
    negated: bool
    poles: frozenset[tuple[str, int]]

    @classmethod
    def of(cls, text: str, body: str | None = None, *, facts: str | None = None,
           features: Features | None = None) -> Signature:
        """`text` is what is compared; `facts` (default: `text`) whose numbers are reported;
        `features`: the text's match.Features when the caller has them already."""
        norm = normalise(text)
        tokens = frozenset(norm.split())
        negated, poles = polarity(tokens)
        made = cls(text=text, body=body, norm=norm, tokens=tokens,
                   numbers=numbers(text if facts is None else facts), negated=negated, poles=poles)
        if features is not None:
            made.__dict__["features"] = features  # the cached_property's slot, filled
        return made

    @cached_property
    def features(self) -> Features:
        return Features.of(self.text, self.body)


def mentions(norm: str, words: tuple[str, ...]) -> bool:
    """`words` appear contiguously in normalised text: `requirements.txt` is not in
    "requirements-dev.txt", though every one of its words is."""
    return f" {' '.join(words)} " in f" {norm} "


def similarity(a: str, b: str, cutoff: float = 0) -> float:
    """token_set_ratio on normalised text; 0 below `cutoff` (rapidfuzz then stops early)."""
    return fuzz.token_set_ratio(a, b, processor=None, score_cutoff=cutoff)


# --- clustering memories ---------------------------------------------------------------------


def memory_text(memory: Memory) -> str:
    """What two memories are compared on: the title, then the content as its own sentence."""
    return f"{memory.title}.\n{memory.content}"


@dataclass(frozen=True)
class Cluster:
    members: tuple[Memory, ...]  # in the order they were given (the engine sorts by time)
    representative: Memory
    signature: Signature  # the representative's

    @property
    def agents(self) -> set[str]:
        return {m.agent_id for m in self.members}

    @property
    def sessions(self) -> set[str]:
        return {str(m.metadata["session_id"]) for m in self.members if m.metadata.get("session_id")}


@dataclass
class _Group:
    """A cluster as it grows: its members, and the number slots and tool picks of all of them
    (merged small into big, so keeping them costs O(n log n) over a batch)."""

    members: list[int]
    slots: dict[str, set[str]]
    picks: dict[str, set[str]]

    def absorb(self, other: _Group) -> None:
        self.members.extend(other.members)
        for mine, theirs in ((self.slots, other.slots), (self.picks, other.picks)):
            for key, values in theirs.items():
                mine.setdefault(key, set()).update(values)


def _disjoint_somewhere(a: dict[str, set[str]], b: dict[str, set[str]]) -> bool:
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    return any(key in big and values.isdisjoint(big[key]) for key, values in small.items())


class _UnionFind:
    """Clusters as they grow. A merge is checked against the whole of both clusters, not only
    the pair that matched: otherwise A~B and B~C could chain A and C across a changed fact
    (every member's numbers and tool picks, cheaply), or across two lessons (a sample of members
    must be alike on average, and state no conflicting fact)."""

    def __init__(self, features: Sequence[Features], weights: Weights) -> None:
        self.features = features
        self.weights = weights
        self.parent = list(range(len(features)))
        self.groups: dict[int, _Group] = {}  # built on a root's first merge: most stay alone
        self.apart: set[tuple[int, int]] = set()  # roots found incompatible

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def group(self, root: int) -> _Group:
        found = self.groups.get(root)
        if found is None:
            f = self.features[root]
            found = self.groups[root] = _Group(
                [root], {k: set(v) for k, v in f.facts.slots.items()},
                {k: set(v) for k, v in f.facts.picks.items()})
        return found

    def compatible(self, ra: int, rb: int, i: int, j: int, raw: float) -> bool:
        """`raw`: the overlap of the pair (i, j) that matched, already checked for conflicts.
        Two clusters found apart stay apart (a merge only adds facts to a cluster): batches of
        look-alikes ("port 5432"/"port 5433" said many ways) link the same two clusters many
        times, and each later look costs nothing."""
        a, b = self.group(ra), self.group(rb)
        if len(a.members) == 1 and len(b.members) == 1:
            return True
        key = (ra, rb) if ra < rb else (rb, ra)
        if key in self.apart:
            return False
        if not self._compatible(a, b, i, j, raw):
            self.apart.add(key)
            return False
        return True

    def known_apart(self, ra: int, rb: int) -> bool:
        """Whether the two clusters were already found incompatible (what `compatible` would
        answer first): asked before the pair's own facts are read, which at 10,000 memories
        spares half the links between two clusters a look at their facts."""
        return ((ra, rb) if ra < rb else (rb, ra)) in self.apart

    def _compatible(self, a: _Group, b: _Group, i: int, j: int, raw: float) -> bool:
        if next(slot_conflicts(a.slots, b.slots), None) is not None or _disjoint_somewhere(a.picks, b.picks):
            return False
        total, pairs = raw, 1
        for x in a.members[:GROUP_SAMPLE]:
            for y in b.members[:GROUP_SAMPLE]:
                if {x, y} == {i, j}:
                    continue
                fx, fy = self.features[x], self.features[y]
                if conflicting(fx, fy):
                    return False
                total += raw_overlap(fx, fy, self.weights, linking=True)
                pairs += 1
        return total / pairs >= LINK_SHARE * RAW_CUT

    def union(self, ra: int, rb: int) -> None:
        a, b = self.group(ra), self.group(rb)
        if len(a.members) < len(b.members):
            ra, rb, a, b = rb, ra, b, a
        a.absorb(b)
        del self.groups[rb]
        self.parent[rb] = ra


def informative(sig: Signature) -> list[str]:
    return [t for t in sig.tokens if t not in STOPWORDS and (len(t) > 1 or t.isdigit())]


class TokenIndex:
    """An inverted index of informative tokens: which documents share rare words with a query."""

    def __init__(self, token_lists: Sequence[Iterable[str]]) -> None:
        self.postings: dict[str, list[int]] = {}
        for index, tokens in enumerate(token_lists):
            for token in tokens:
                self.postings.setdefault(token, []).append(index)
        self.sizes = {token: len(found) for token, found in self.postings.items()}
        self.limit = max(COMMON_TOKEN_MIN_DOCS, int(COMMON_TOKEN_SHARE * len(token_lists)))

    def candidates(self, tokens: Iterable[str], *, needed: int = MIN_SHARED_TOKENS,
                   limit: int = MAX_CANDIDATES) -> list[int]:
        """Documents sharing `needed` of the query's rarest tokens, most shared first, at most
        `limit`; ties keep counting order (rarest token's documents first): deterministic."""
        postings, sizes, most = self.postings, self.sizes, self.limit
        ranked = sorted((size, t) for t in set(tokens) if 0 < (size := sizes.get(t, 0)) <= most)
        if not ranked:
            return []
        rare = [ranked[0][1]]
        budget = POSTINGS_BUDGET
        for size, token in ranked[1:RARE_TOKENS_PER_DOC]:
            budget -= size
            if budget < 0:
                break
            rare.append(token)
        needed = min(needed, len(rare))
        # Counter over chained postings counts in C: this is the index's hot spot. The sort (in
        # C too, stable, so ties keep counting order: the rarest token's documents first) ranks
        # every document found; those sharing too few tokens come last and are left out.
        counts = Counter(chain.from_iterable(postings[t] for t in rare))
        best = sorted(counts.items(), key=itemgetter(1), reverse=True)[:limit]
        return [j for j, n in best if n >= needed]


def candidate_pairs(token_lists: Sequence[Sequence[str]], limit: int = MAX_CANDIDATES, *,
                    needed: Sequence[int] | None = None) -> list[tuple[int, int]]:
    """Pairs (i < j) where one is among the other's `limit` best-sharing documents; `needed`:
    for each document, how many of its rarest tokens a candidate shares (MIN_SHARED_TOKENS)."""
    index = TokenIndex(token_lists)
    pairs: set[tuple[int, int]] = set()
    add = pairs.add
    for i, tokens in enumerate(token_lists):
        least = MIN_SHARED_TOKENS if needed is None else needed[i]
        for j in index.candidates(tokens, needed=least, limit=limit + 1):
            if j > i:
                add((i, j))
            elif j < i:
                add((j, i))
    return sorted(pairs)


def cluster_memories(memories: Sequence[Memory], threshold: float, *,
                     index: EntryIndex | None = None) -> list[Cluster]:
    """Group memories stating one lesson (match.compare: alike, no fact differing); clusters
    come in the order of their first member. With `index`, word rarity counts the live entries
    as well as the batch (and the index then weighs with the same rarity)."""
    with _collector_paused():
        return _cluster(memories, threshold, index)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Clustering builds hundreds of thousands of small objects that all live until it ends
    (features, links, groups); Python's cycle collector would walk them again and again, a
    third of the time at 10,000 memories. Reference counting still frees what can be freed."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # What was made meanwhile and still lives (the batch, the snapshot, the proposals,
            # the caches) goes straight to the oldest generation, unscanned (freeze, then
            # unfreeze): else the first collection after the pause walks it all as its youngest,
            # ~0.2 s CPU after a 10,000-memory dream, to free a few hundred objects. A cycle
            # left among them is freed by a later full collection.
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def _cluster(memories: Sequence[Memory], threshold: float, index: EntryIndex | None) -> list[Cluster]:
    # Features for every memory; the Signature (older callers' view) only for representatives.
    # Memories of one text (a tip several agents sent, word for word) share one Features, read
    # once: they are each other's best candidates, and every link between them read the facts
    # of both (a Features is what its text and content give, and nothing changes it once read).
    distinct: dict[tuple[str, str], Features] = {}
    features = []
    for m in memories:
        text = memory_text(m)
        found = distinct.get((text, m.content))
        if found is None:
            found = distinct[(text, m.content)] = Features(text, m.content)
        features.append(found)
    weights = Weights(features)
    if index is not None:
        weights.add(index.features)
        index.weights = weights
    # Strongest links first: two lessons joined by one weak bridge meet as whole clusters,
    # where the average-likeness check sees the bridge for what it is. Kindred words (match.KIN)
    # link here only in the families not holding commit or push (match.LINKING_KIN): links
    # chain, and commit/push, leak/include bridged every rule naming a commit into one cluster
    # ("tests pass before committing" with "use Conventional Commits"), which dropped merge
    # precision on a fresh held-out set of real lines from 0.596 to 0.438. All families count
    # where two texts are weighed alone: the known corpus, a live entry's probe.
    links: list[tuple[float, int, int, float]] = []
    # A rule saying one thing besides its circumstances (match.py: "No emojis in code or
    # documentation") has one word a rewording must share ("Do not use emojis unless asked");
    # a pair found through a kindred family and one shared stem is compared only if that stem is
    # a name or code span on both sides: one plain word shared by two rules is as often two rules.
    cores = [len(f.stems - f.circumstances) for f in features]
    needed = [1 if core <= SHORT_RULE_STEMS else MIN_SHARED_TOKENS for core in cores]
    # A family of kindred words of the change asked for and of the agent's manner
    # (match.INDEXED_KIN) is a token too: "Keep changes minimal" and "Produce minimal diffs"
    # share one stem and say the other by a kin.
    tokens = [sorted(f.stems) + [f"{KIN_TOKEN}{family}" for family in sorted(f.linking_kin) if family in INDEXED_KIN]
              for f in features]
    for i, j in candidate_pairs(tokens, CLUSTER_CANDIDATES, needed=needed):
        fi, fj = features[i], features[j]
        if cores[i] > 1 and cores[j] > 1 and _one_plain_word(fi, fj):
            continue
        raw = raw_overlap(fi, fj, weights, linking=True)
        score = calibrated(raw)
        if score >= threshold:
            links.append((-score, i, j, raw))
    links.sort()
    forest = _UnionFind(features, weights)
    for _score, i, j, raw in links:
        ra, rb = forest.find(i), forest.find(j)
        # The facts only when the link would join two clusters: inside one, nothing to decide.
        if ra != rb and not forest.known_apart(ra, rb) and not conflicting(features[i], features[j]) \
                and forest.compatible(ra, rb, i, j, raw):
            forest.union(ra, rb)
    groups: dict[int, list[int]] = {}
    for i in range(len(memories)):
        groups.setdefault(forest.find(i), []).append(i)
    clusters = []
    for indices in sorted(groups.values(), key=lambda ix: ix[0]):
        members = tuple(memories[i] for i in indices)
        best = _representative(indices, features, weights, memories)
        signature = Signature.of(memory_text(memories[best]), memories[best].content, features=features[best])
        clusters.append(Cluster(members=members, representative=memories[best], signature=signature))
    return clusters


def _one_plain_word(a: Features, b: Features) -> bool:
    """The two texts share one stem and no kindred word, and that stem is no name or code span
    on both sides."""
    shared = a.stems & b.stems
    if len(shared) > 1 or (shared and shared <= (a.strong & b.strong)):
        return False
    kin_a, kin_b = a.linking_kin, b.linking_kin
    return len(shared) + len(bridges(kin_a, kin_b) if kin_a and kin_b else ()) <= 1


def _representative(indices: list[int], features: Sequence[Features], weights: Weights,
                    memories: Sequence[Memory]) -> int:
    """The member most like the others (among the first REPRESENTATIVE_SAMPLE, compared with
    each other: a cluster of thousands costs what one of ten does); ties go to the fuller, then
    the earlier memory."""
    if len(indices) == 1:
        return indices[0]
    sample = indices[:REPRESENTATIVE_SAMPLE]

    def rank(position: int) -> tuple[float, int, int]:
        i = sample[position]
        total = sum(raw_overlap(features[i], features[j], weights, linking=True) for j in sample if j != i)
        return (-round(total, 9), -len(memories[i].content), position)

    return sample[min(range(len(sample)), key=rank)]


# --- matching a cluster to a live entry ------------------------------------------------------


@dataclass
class EntryIndex:
    entries: list[Entry]
    signatures: list[Signature]  # of title + guidance + tags: what the entry is about
    body_norms: BodyNorms  # of the whole entry: what it mentions anywhere
    tokens: TokenIndex
    features: list[Features]  # the signatures' (match.py)
    matcher: MatchIndex[int]  # finds an entry's position by its features
    weights: Weights  # word rarity: the entries' own, or shared with the batch (cluster_memories)


def entry_text(entry: Entry) -> str:
    return f"{entry.title}.\n{entry.guidance}\n{' '.join(entry.tags)}"


class BodyNorms:
    """Each entry's whole text (title, body, tags) normalised, by the entry's position, read on
    first use: only a flag's candidates are ever looked up (policy.match_flag), and normalising
    all 5,000 bodies of a big LTM up front cost a dream more than every lookup of it."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self._entries = entries
        self._norms: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, position: int) -> str:
        found = self._norms.get(position)
        if found is None:
            entry = self._entries[position]
            found = self._norms[position] = normalise(f"{entry.title}\n{entry.body}\n{' '.join(entry.tags)}")
        return found


def build_entry_index(snapshot: LTMSnapshot) -> EntryIndex:
    """An inverted index over the live entries (sorted by path, so matching is deterministic)."""
    entries = sorted(snapshot.live(), key=lambda e: e.path)
    signatures = [Signature.of(entry_text(e), e.guidance) for e in entries]
    tokens = TokenIndex([informative(sig) for sig in signatures])
    features = [sig.features for sig in signatures]
    weights = Weights(features)
    matcher = MatchIndex.build(list(range(len(entries))), features, weights)
    return EntryIndex(entries, signatures, BodyNorms(entries), tokens, features, matcher, weights)


def entry_candidates(sig: Signature, index: EntryIndex, limit: int = ENTRY_CANDIDATES) -> list[int]:
    """Entries sharing rare tokens with `sig`, most shared first."""
    return index.tokens.candidates(informative(sig), limit=limit)


def may_match(sig: Signature, index: EntryIndex) -> bool:
    """A cheap first look: some entry shares rare stems with `sig`. When none does (the usual
    case for a new lesson), no entry can match."""
    return bool(index.matcher.candidates(sig.features, limit=1))


def find_entry(probe: str | Signature, index: EntryIndex,
               threshold: float = DEFAULT_THRESHOLD) -> Match[Entry] | None:
    """The live entry `probe` restates (verdict.same_lesson) or, failing that, the one it
    corrects (verdict.correction: same subject, a fact stated differently, listed in
    verdict.conflicts); None when it is news. Looked up in the LTM before anything else, so a
    restatement reinforces its entry and a correction updates it rather than adding one."""
    sig = probe if isinstance(probe, Signature) else Signature.of(probe)
    index.matcher.weights = index.weights
    found = index.matcher.best(sig.features, threshold=threshold)
    return None if found is None else Match(index.entries[found.item], found.verdict)


def match_entry(cluster_text: str | Signature, index: EntryIndex,
                threshold: float = DEFAULT_THRESHOLD) -> tuple[Entry, float] | None:
    """The live entry a cluster restates, with its score; ties go to the earlier path.
    A correction is not a match here (find_entry tells it apart).

    `cluster_text` may be a ready Signature, for callers that compare one part of a memory
    (what its guidance would say) but report the numbers of another.
    """
    found = find_entry(cluster_text, index, threshold)
    if found is None or not found.verdict.same_lesson:
        return None
    return found.item, found.verdict.score
