"""Near-duplicate clustering of memories, and matching a cluster to the live entry it repeats.

Cost grows near-linearly: an inverted index of informative tokens picks, for each memory, a few
candidates that share rare tokens with it, and only those pairs are scored with rapidfuzz.

Fuzzy scores cannot tell "CI Postgres uses port 5432" from "... port 5433" (they score ~96), yet
merging them would silently fold a wrong fact into a right one. So every merge and every entry
match also passes guards that compare what the score ignores: the numbers in each text, the
code-shaped identifiers (`PGPORT`, `db_url`, `--no-cache`, `Postgres` vs `MySQL`) and the
polarity words (not/never, before/after, enable/disable). A guard refusal keeps texts apart.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from heapq import nlargest
from itertools import chain
from operator import itemgetter

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

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
DEFAULT_THRESHOLD = 88  # config.dream.similarity's default
MAX_CANDIDATES = 20  # per document: bounds the fuzzy comparisons on very repetitive batches
ENTRY_CANDIDATES = 10  # entries scored per cluster: the ones sharing the most rare words
REPRESENTATIVE_SAMPLE = 25  # members compared when picking a big cluster's representative

_APOSTROPHES_RE = re.compile(r"['’`]")
_WORD_RE = re.compile(r"[^\W_]+")
# ASCII text, nearly all of it, is normalised by one C-level translate; other text by the regex.
_ASCII_FOLD: dict[int, str | None] = {ord(c): " " for c in string.punctuation}
_ASCII_FOLD.update({ord("'"): None, ord("`"): None})
_DIGITS_RE = re.compile(r"\d+")
_WRAPPING = "()[]{}<>,;:!?\"'`*"
_SENTENCE_END = ".!?:#*>|"

STOPWORDS = frozenset("""
a an and are as at be been being but by can could did do does doing for from had has have having
he her here hers him his how i if in into is it its itself just me more most my of on once only or
other our ours out over own same she should so some such than that the their theirs them then
there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours also via per use used using uses
""".split())

# "without" is left out: "without it the suite fails" explains a consequence, it does not
# reverse the advice the way "never run X" reverses "run X".
NEGATIONS = frozenset("""
not no never cannot avoid nor none dont doesnt didnt isnt arent wasnt werent wont cant
couldnt shouldnt mustnt neednt hasnt havent
""".split())

# Words on opposite ends of one axis: a text saying "before" and another saying "after" (and
# neither saying both) state different facts however alike the rest reads.
_ANTONYM_PAIRS = (
    ("before", "after"), ("enable", "disable"), ("enabled", "disabled"), ("enables", "disables"),
    ("true", "false"), ("add", "remove"), ("added", "removed"), ("increase", "decrease"),
    ("min", "max"), ("minimum", "maximum"), ("allow", "deny"), ("allowed", "denied"),
    ("sync", "async"), ("synchronous", "asynchronous"), ("public", "private"),
    ("upper", "lower"), ("uppercase", "lowercase"), ("first", "last"), ("older", "newer"),
    ("oldest", "newest"), ("start", "stop"), ("include", "exclude"), ("included", "excluded"),
    ("pass", "fail"), ("passes", "fails"), ("passed", "failed"), ("passing", "failing"),
    ("success", "failure"), ("succeeds", "fails"), ("required", "optional"),
    ("local", "remote"), ("locally", "remotely"), ("internal", "external"), ("inside", "outside"),
    ("above", "below"), ("higher", "lower"), ("more", "less"), ("earlier", "later"),
    ("ascending", "descending"), ("client", "server"), ("read", "write"), ("import", "export"),
    ("input", "output"), ("fast", "slow"), ("faster", "slower"), ("always", "sometimes"),
    ("debug", "release"), ("dev", "prod"), ("development", "production"), ("staging", "production"),
    ("ipv4", "ipv6"), ("http", "https"), ("tabs", "spaces"), ("lock", "unlock"), ("on", "off"),
)
_POLES: dict[str, tuple[str, int]] = {}
for _low, _high in _ANTONYM_PAIRS:
    _POLES.setdefault(_low, (f"{_low}/{_high}", 0))
    _POLES.setdefault(_high, (f"{_low}/{_high}", 1))


def normalise(text: str) -> str:
    """Lowercase, apostrophes joined ("don't" → "dont"), punctuation → space, whitespace collapsed."""
    text = text.lower()
    if text.isascii():
        return " ".join(text.translate(_ASCII_FOLD).split())
    return " ".join(_WORD_RE.findall(_APOSTROPHES_RE.sub("", text)))


def numbers(text: str) -> frozenset[int]:
    """Every run of digits, as a number: "Node 18", "v18.2.0", "port 5432", "ubuntu-22.04".

    A set, not a multiset: a paraphrase may repeat a number without stating a new fact.
    """
    return frozenset(int(run) for run in _DIGITS_RE.findall(text))


def _is_identifier(token: str, initial: bool) -> bool:
    """Code-shaped or a proper name: things a rewording keeps, and a different fact changes.
    `initial`: the token starts a sentence, where any word is capitalised."""
    if _DIGITS_RE.search(token):
        return False  # numbers() already compares every digit
    if token.startswith("-"):
        return len(token) > 2 or token[1:].isalpha()
    core = token.strip(".:/-@+")
    if "_" in core or "/" in core or "-" in core or "@" in core:
        return True
    if "." in core and all(len(part) >= 2 for part in core.split(".")):
        return True
    if len(core) >= 2 and core[1:] != core[1:].lower():
        return True  # CI, PGPORT, GitHub, MySQL
    return len(core) >= 3 and core[0].isupper() and not initial


def identifiers(text: str) -> frozenset[tuple[str, ...]]:
    """Identifiers of `text`, each as its normalised tokens (so `db-reset` ≈ "db reset")."""
    found = set()
    for line in text.splitlines():
        initial = True
        for raw in line.split():
            # Plain lowercase words are most of any text and never identifiers: skip them first.
            if not (raw.islower() and raw.isalpha()):
                token = raw.strip(_WRAPPING).rstrip(".:/-@+")
                if token and _is_identifier(token, initial):
                    words = tuple(normalise(token).split())
                    if words:
                        found.add(words)
            initial = raw[-1] in _SENTENCE_END or raw in ("-", "*")
    return frozenset(found)


def polarity(tokens: Iterable[str]) -> tuple[bool, frozenset[tuple[str, int]]]:
    """(negated?, the antonym poles present)."""
    tokens = set(tokens)
    return bool(tokens & NEGATIONS), frozenset(_POLES[t] for t in tokens if t in _POLES)


@dataclass
class Signature:
    """What the guards compare, computed once per text; the costlier parts only when a guard
    first asks (most candidate pairs stop at the score or the numbers)."""

    text: str
    body: str | None  # the part of `text` that states facts (a memory's content, not its title)
    norm: str
    tokens: frozenset[str]
    numbers: frozenset[int]
    negated: bool
    poles: frozenset[tuple[str, int]]

    @classmethod
    def of(cls, text: str, body: str | None = None, *, facts: str | None = None) -> Signature:
        """`text` is what is compared; `facts` (default: `text`) whose numbers must agree."""
        norm = normalise(text)
        tokens = frozenset(norm.split())
        negated, poles = polarity(tokens)
        return cls(text=text, body=body, norm=norm, tokens=tokens,
                   numbers=numbers(text if facts is None else facts), negated=negated, poles=poles)

    @cached_property
    def identifiers(self) -> frozenset[tuple[str, ...]]:
        return identifiers(self.text)

    @cached_property
    def words(self) -> list[str]:
        """The body's normalised words in order, for single_swap."""
        return self.norm.split() if self.body is None else normalise(self.body).split()


def mentions(norm: str, words: tuple[str, ...]) -> bool:
    """`words` appear contiguously in normalised text: `requirements.txt` is not in
    "requirements-dev.txt", though every one of its words is."""
    return f" {' '.join(words)} " in f" {norm} "


def identifiers_conflict(ids_a: Iterable[tuple[str, ...]], norm_a: str,
                         ids_b: Iterable[tuple[str, ...]], norm_b: str) -> bool:
    """A substitution: each side names an identifier the other never mentions.

    One-sided absence is fine (a shorter rewording may leave a name out); both sides at once
    means "PGHOST" became "PGPORT", or "Postgres" became "MySQL".
    """
    return any(not mentions(norm_b, w) for w in ids_a) and any(not mentions(norm_a, w) for w in ids_b)


def _variants(a: str, b: str) -> bool:
    """Inflections or spellings of one word: seed/seeding, colour/color."""
    return a.startswith(b) or b.startswith(a) or (len(a) > 4 and len(b) > 4 and a[:4] == b[:4]) \
        or fuzz.ratio(a, b) >= 80


def single_swap(a: Signature, b: Signature) -> bool:
    """The contents differ in one place only, where a word became another word that is not a
    variant of it: "run with vitest" vs "run with jest" names a different tool.

    Compared on the content alone (titles are free summaries, often reworded with synonyms),
    word by word in order, so "npm ci ... install" vs "npm install ... install" counts too.
    """
    edits = [op for op in Levenshtein.opcodes(a.words, b.words) if op.tag != "equal"]
    changed = [(_content(a.words[op.src_start:op.src_end]), _content(b.words[op.dest_start:op.dest_end]))
               for op in edits]
    changed = [(old, new) for old, new in changed if old or new]
    if len(changed) != 1:
        return False
    old, new = changed[0]
    if not old or not new or len(old) > 2 or len(new) > 2:
        return False
    return not any(_variants(x, y) for x in old for y in new)


def _content(words: Sequence[str]) -> list[str]:
    return [w for w in words if w not in STOPWORDS]


def poles_conflict(poles_a: frozenset[tuple[str, int]], poles_b: frozenset[tuple[str, int]]) -> bool:
    """Both sides take a position on one axis, and no position is shared ("before" vs "after")."""
    axes_a: dict[str, set[int]] = {}
    axes_b: dict[str, set[int]] = {}
    for axis, pole in poles_a:
        axes_a.setdefault(axis, set()).add(pole)
    for axis, pole in poles_b:
        axes_b.setdefault(axis, set()).add(pole)
    return any(axes_a[axis].isdisjoint(axes_b[axis]) for axis in axes_a.keys() & axes_b.keys())


def guard_refuses(a: Signature, b: Signature) -> str | None:
    """Why two memories must not merge, or None. Numbers must be equal as sets."""
    if a.numbers != b.numbers:
        return "numbers differ"
    if a.negated != b.negated:
        return "one side is negated"
    if poles_conflict(a.poles, b.poles):
        return "opposite words"
    if identifiers_conflict(a.identifiers, a.norm, b.identifiers, b.norm):
        return "identifiers differ"
    if single_swap(a, b):
        return "one word swapped for another"
    return None


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
    """A union-find root's aggregate, so a merge is checked against the whole cluster, not one
    member: otherwise A~B and B~C could chain A and C across a substitution."""

    numbers: frozenset[int]
    negated: bool
    poles: frozenset[tuple[str, int]]
    identifiers: set[tuple[str, ...]] = field(default_factory=set)
    tokens: set[str] = field(default_factory=set)
    size: int = 1


def _group_identifiers_conflict(a: _Group, b: _Group) -> bool:
    # Token sets, not phrases: exact enough to stop a chain, cheap enough for big clusters.
    return any(not b.tokens.issuperset(w) for w in a.identifiers) \
        and any(not a.tokens.issuperset(w) for w in b.identifiers)


class _UnionFind:
    def __init__(self, signatures: Sequence[Signature]) -> None:
        self.signatures = signatures
        self.parent = list(range(len(signatures)))
        self.groups: dict[int, _Group] = {}  # built on a root's first merge: most stay alone

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def group(self, root: int) -> _Group:
        found = self.groups.get(root)
        if found is None:
            s = self.signatures[root]
            found = self.groups[root] = _Group(s.numbers, s.negated, s.poles, set(s.identifiers),
                                               set(s.tokens))
        return found

    def compatible(self, ra: int, rb: int) -> bool:
        a, b = self.group(ra), self.group(rb)
        return (a.numbers == b.numbers and a.negated == b.negated
                and not poles_conflict(a.poles, b.poles)
                and not _group_identifiers_conflict(a, b))

    def union(self, ra: int, rb: int) -> None:
        # Union by size keeps the set merges O(n log n) overall.
        if self.group(ra).size < self.group(rb).size:
            ra, rb = rb, ra
        big, small = self.groups[ra], self.groups.pop(rb)
        big.identifiers |= small.identifiers
        big.tokens |= small.tokens
        big.poles = big.poles | small.poles
        big.size += small.size
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
        self.limit = max(COMMON_TOKEN_MIN_DOCS, int(COMMON_TOKEN_SHARE * len(token_lists)))

    def candidates(self, tokens: Iterable[str], *, needed: int = MIN_SHARED_TOKENS,
                   limit: int = MAX_CANDIDATES) -> list[int]:
        """Documents sharing `needed` of the query's rarest tokens, most shared first, at most
        `limit`; ties keep counting order (rarest token's documents first): deterministic."""
        postings = self.postings
        ranked = sorted((t for t in set(tokens) if 0 < len(postings.get(t, ())) <= self.limit),
                        key=lambda t: (len(postings[t]), t))[:RARE_TOKENS_PER_DOC]
        if not ranked:
            return []
        rare = ranked[:1]
        budget = POSTINGS_BUDGET
        for token in ranked[1:]:
            budget -= len(postings[token])
            if budget < 0:
                break
            rare.append(token)
        needed = min(needed, len(rare))
        # Counter over chained postings counts in C: this is the index's hot spot. Only documents
        # sharing enough tokens are ranked; the stable sort keeps counting order among ties
        # (the rarest token's documents first).
        counts = Counter(chain.from_iterable(postings[t] for t in rare))
        if needed > 1:
            shared = [(j, n) for j, n in counts.items() if n >= needed]
        else:
            shared = list(counts.items())
        # nlargest is sorted(..., reverse=True)[:limit], ties in counting order, without sorting all.
        return [j for j, _ in nlargest(limit, shared, key=itemgetter(1))]


def candidate_pairs(token_lists: Sequence[Sequence[str]]) -> list[tuple[int, int]]:
    """Pairs (i < j) where one is among the other's MAX_CANDIDATES best-sharing documents."""
    index = TokenIndex(token_lists)
    pairs: set[tuple[int, int]] = set()
    for i, tokens in enumerate(token_lists):
        pairs.update((min(i, j), max(i, j)) for j in index.candidates(tokens, limit=MAX_CANDIDATES + 1)
                     if j != i)
    return sorted(pairs)


def cluster_memories(memories: Sequence[Memory], threshold: float) -> list[Cluster]:
    """Group near-duplicates; clusters come in the order of their first member."""
    signatures = [Signature.of(memory_text(m), m.content) for m in memories]
    forest = _UnionFind(signatures)
    for i, j in candidate_pairs([informative(s) for s in signatures]):
        a, b = signatures[i], signatures[j]
        if a.numbers != b.numbers:
            continue  # the cheapest guard first: most look-alikes stop here
        ra, rb = forest.find(i), forest.find(j)
        if ra == rb or similarity(a.norm, b.norm, threshold) < threshold:
            continue
        if guard_refuses(a, b) is None and forest.compatible(ra, rb):
            forest.union(ra, rb)
    groups: dict[int, list[int]] = {}
    for index in range(len(memories)):
        groups.setdefault(forest.find(index), []).append(index)
    clusters = []
    for indices in sorted(groups.values(), key=lambda ix: ix[0]):
        members = tuple(memories[i] for i in indices)
        best = _representative(indices, signatures, memories)
        clusters.append(Cluster(members=members, representative=memories[best], signature=signatures[best]))
    return clusters


def _representative(indices: list[int], signatures: Sequence[Signature],
                    memories: Sequence[Memory]) -> int:
    """The member most like the others; ties go to the fuller, then the earlier memory."""
    if len(indices) == 1:
        return indices[0]
    sample = indices[:REPRESENTATIVE_SAMPLE]

    def rank(i: int) -> tuple[float, int, int]:
        total = sum(similarity(signatures[i].norm, signatures[j].norm) for j in sample if j != i)
        return (-total, -len(memories[i].content), indices.index(i))

    return min(indices, key=rank)


# --- matching a cluster to a live entry ------------------------------------------------------


@dataclass
class EntryIndex:
    entries: list[Entry]
    signatures: list[Signature]  # of title + guidance + tags: what the entry is about
    body_norms: list[str]  # of the whole entry: what it mentions anywhere
    body_numbers: list[frozenset[int]]
    tokens: TokenIndex


def entry_text(entry: Entry) -> str:
    return f"{entry.title}.\n{entry.guidance}\n{' '.join(entry.tags)}"


def build_entry_index(snapshot: LTMSnapshot) -> EntryIndex:
    """An inverted index over the live entries (sorted by path, so matching is deterministic)."""
    entries = sorted(snapshot.live(), key=lambda e: e.path)
    signatures = [Signature.of(entry_text(e), e.guidance) for e in entries]
    body_norms: list[str] = []
    body_numbers: list[frozenset[int]] = []
    for entry, sig in zip(entries, signatures, strict=True):
        full = f"{entry.title}\n{entry.body}\n{' '.join(entry.tags)}"
        body_norms.append(normalise(full))
        body_numbers.append(numbers(full) | sig.numbers)
    tokens = TokenIndex([informative(sig) for sig in signatures])
    return EntryIndex(entries, signatures, body_norms, body_numbers, tokens)


def entry_guard_refuses(sig: Signature, index: EntryIndex, i: int) -> str | None:
    """Like guard_refuses, but an entry gathers facts over time: the cluster's numbers need only
    appear somewhere in the entry, and its identifiers anywhere in the entry's text."""
    entry_sig = index.signatures[i]
    if not sig.numbers <= index.body_numbers[i]:
        return "numbers differ"
    if sig.negated != entry_sig.negated:
        return "one side is negated"
    if poles_conflict(sig.poles, entry_sig.poles):
        return "opposite words"
    if identifiers_conflict(sig.identifiers, sig.norm, entry_sig.identifiers, index.body_norms[i]):
        return "identifiers differ"
    if single_swap(sig, entry_sig):
        return "one word swapped for another"
    return None


def entry_candidates(sig: Signature, index: EntryIndex, limit: int = ENTRY_CANDIDATES) -> list[int]:
    """Entries sharing rare tokens with `sig`, most shared first."""
    return index.tokens.candidates(informative(sig), limit=limit)


def may_match(sig: Signature, index: EntryIndex) -> bool:
    """A cheap first look: some entry shares rare words with `sig` and holds all its numbers.
    When none does (the usual case for a new lesson), no entry can match."""
    return any(sig.numbers <= index.body_numbers[i] for i in entry_candidates(sig, index))


def match_entry(cluster_text: str | Signature, index: EntryIndex,
                threshold: float = DEFAULT_THRESHOLD) -> tuple[Entry, float] | None:
    """The live entry a cluster repeats or extends, with its score; ties go to the earlier path.

    `cluster_text` may be a ready Signature, for callers that compare one part of a memory
    (what its guidance would say) but guard with another (the numbers of all its content).
    """
    sig = cluster_text if isinstance(cluster_text, Signature) else Signature.of(cluster_text)
    best: tuple[float, int] | None = None
    for i in entry_candidates(sig, index):
        if not sig.numbers <= index.body_numbers[i]:
            continue  # the cheapest guard first
        score = similarity(sig.norm, index.signatures[i].norm, threshold)
        if score < threshold or entry_guard_refuses(sig, index, i) is not None:
            continue
        if best is None or (score, -i) > (best[0], -best[1]):
            best = (score, i)
    return None if best is None else (index.entries[best[1]], best[0])
