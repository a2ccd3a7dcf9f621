"""Whether two texts state the same lesson: offline features, a verdict, and the best match.

Fuzzy string ratios miss paraphrases ("Prefer `uv` over `pip`" and "Use uv for Python packages
(never pip)" score ~50) and cannot see a changed fact ("port 5432" vs "port 5433" scores ~96).
So a text is reduced to what a rewording keeps:

- stems of its content words (Snowball, stop words dropped), each weighted by its rarity across
  the documents compared together (the batch and the live entries: `Weights`); commands, paths,
  flags, code spans and tool names weigh more (`STRONG_WEIGHT`): a rewording keeps them;
- its facts: each number with the words around it (its slot: "port", "characters", "node") and
  the service it is said of (Postgres's port is not Redis's: a different subject); the
  tool it picks in a category (`pnpm` as the JavaScript package manager) and the ones it rejects
  ("instead of npm", "never pip"); the stance (do / do not) it takes on each strong term; the
  poles it takes on antonym axes (before/after).

A rule is read as what it does, to what, with which polarity, whatever the wording: kindred
words (commit/push, leak/commit, write/add, edit/change: `KIN`) are bridged rather than counted
apart, and two actions of one family are one action; what a text names only inside quotes (an
example) or only as rejected alternatives beside its pick ("uv (not pip, poetry)") weighs half;
a statement of how things are ("files in src/gen are generated") is no "do". The stock clauses
of when, where and for whom a rule applies ("unless explicitly asked", "before committing", "in
all Python files", "AI must") and its examples ("(e.g. `feat: ...`)") are circumstances: they
weigh little, and a clause two rules share is no evidence they are one. Two texts are two
rules when their actions, objects, values or choices differ: two prohibitions sharing only
their verb ("never force push" / "never push to main"), picks for different roles (uv for
Python, yarn for JavaScript), two command lines for one program.

`compare` scores the weighted overlap of two texts and lists their *conflicts*: a different
value in a slot both fill. What only one side mentions is not a conflict (a shorter rewording
leaves things out), nor is an incidental number (a duration in a story: "it took 3 minutes", a
date, a clock time). A `Verdict` is "same lesson" (alike, no conflict), a "correction" (same
subject, some fact differs: the caller updates the fact rather than adding an entry), or neither.

`MatchIndex` finds a text's best match among many (the live entries, a project's instruction
lines) through an inverted index of rare stems: near-linear, never all pairs.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from typing import Any, Generic, Self, TypeVar, overload

import snowballstemmer  # type: ignore[import-untyped]  # ships no type information
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from dreamtui.dream.lexicon import command_concepts, english, practices

T = TypeVar("T")
_V = TypeVar("_V")


class _read_once(Generic[_V]):  # noqa: N801  # a decorator, named as functools.cached_property is
    """functools.cached_property without its lock: Python 3.11's takes one lock shared by every
    instance on each first read, and a 10k dream first-reads ~270,000 Features properties, each
    text's in one thread. The value lands in the instance's __dict__, which is read from then on."""

    def __init__(self, func: Callable[[Any], _V]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _V: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> _V | Self:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.func(instance)
        return value

# --- words -------------------------------------------------------------------------------------

_APOSTROPHES_RE = re.compile(r"['’`]")
_QUOTES_RE = re.compile(r"['’]")
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
while who whom why will with without would you your yours also via per use used using uses
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
    ("simplified", "traditional"),  # Chinese script
)
POLES: dict[str, tuple[str, int]] = {}
for _low, _high in _ANTONYM_PAIRS:
    POLES.setdefault(_low, (f"{_low}/{_high}", 0))
    POLES.setdefault(_high, (f"{_low}/{_high}", 1))


# Called ~140,000 times in a 10k-memory dream on ~55,000 distinct texts (the same memory, entry
# and sentence read by the matcher, the guidance rules and the proposals in turn).
@lru_cache(maxsize=32_768)
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
    known = _IDENTIFIERS
    for line in text.splitlines():
        initial = True
        for raw in line.split():
            # Plain lowercase words are most of any text and never identifiers: skip them first.
            if not (raw.islower() and raw.isalpha()):
                key = (raw, initial)
                words = known.get(key, ())
                if words == ():
                    words = _identifier(raw, initial)
                    if len(known) >= _KEPT:
                        known.clear()
                    known[key] = words
                if words:
                    found.add(words)
            initial = raw[-1] in _SENTENCE_END or raw in ("-", "*")
    return frozenset(found)


# (a whitespace-separated token, whether it starts a sentence) -> its identifier words, or None:
# texts compared together share most of their names and paths.
_IDENTIFIERS: dict[tuple[str, bool], tuple[str, ...] | None] = {}


def _identifier(raw: str, initial: bool) -> tuple[str, ...] | None:
    token = raw.strip(_WRAPPING).rstrip(".:/-@+")
    if token and _is_identifier(token, initial):
        return tuple(normalise(token).split()) or None
    return None


def polarity(tokens: Iterable[str]) -> tuple[bool, frozenset[tuple[str, int]]]:
    """(negated?, the antonym poles present)."""
    tokens = set(tokens)
    return bool(tokens & NEGATIONS), frozenset(POLES[t] for t in tokens if t in POLES)



# Words of instructions that say how strongly, not what: they do not make two rules alike.
_EMPHASIS = frozenset("""
always must ensure make sure please important critical mandatory strictly project should need ever
needs required require requires note every all any each
""".split())

# The score is calibrated so that DEFAULT_SIMILARITY (config.dream.similarity's default) falls
# where the raw weighted overlap reaches RAW_CUT, linearly on each side of it: the setting keeps
# its meaning ("how alike two memories must be to merge; lower merges more"), 100 meaning the
# same words.
DEFAULT_SIMILARITY = 88
RAW_CUT = 0.32
# Below this (on the same scale) two texts are about different things; between it and the
# merge threshold they share a subject, so a conflicting fact makes a correction, not news.
SUBJECT_SIMILARITY = 80
SMALLER_SHARE = 0.25  # of the overlap score: overlap-over-the-smaller text, the rest Dice
STRONG_WEIGHT = 2.0  # a command, path, flag, code span or tool name, against a plain word
QUOTED_WEIGHT = 0.5  # a word only inside double quotes: an example or a literal (Features.quoted)
ALTERNATIVE_WEIGHT = 0.5  # a tool named only as rejected beside the one picked (Features.alternatives)
TITLE_WEIGHT = 1.0  # title words count as content words: a title is the lesson in brief
# A corpus this small says little about rarity: smoothing keeps a word seen twice in a batch
# of five from outweighing everything else.
MIN_CORPUS = 50
CANDIDATES = 10  # documents scored per query: the ones sharing the most rare stems
RARE_STEMS = 10  # a query's rarest stems look up its candidates
POSTINGS_BUDGET = 1024  # postings read per query beyond its rarest stem: constant work per query
COMMON_SHARE = 0.05  # a stem in more documents than this share finds nothing (in big corpora)
COMMON_MIN_DOCS = 64

_STEMMER = snowballstemmer.stemmer("english")
_STEMS: dict[str, str] = {}

# Tools that fill one role: a text picking one and another text picking a different one state
# different facts (pnpm vs yarn as the package manager), however alike the rest reads.
TOOL_SLOTS: dict[str, tuple[str, ...]] = {
    "JavaScript package manager": ("npm", "pnpm", "yarn", "bun"),
    "Python package manager": ("pip", "uv", "poetry", "pipenv", "conda", "pdm", "hatch", "rye", "pipx"),
    "test runner": ("pytest", "unittest", "nose", "jest", "vitest", "mocha", "jasmine", "ava"),
    "formatter": ("black", "yapf", "autopep8", "prettier", "biome", "dprint"),
    "linter": ("flake8", "pylint", "eslint", "oxlint"),
    "type checker": ("mypy", "pyright", "pyre", "pytype"),
    "database": ("postgres", "postgresql", "mysql", "mariadb", "sqlite", "mongodb", "mongo",
                 "dynamodb", "cockroachdb", "oracle", "mssql"),
    "bundler": ("vite", "webpack", "rollup", "esbuild", "parcel", "turbopack"),
    "docstring style": ("google", "numpy", "sphinx", "epytext"),
    "container runtime": ("docker", "podman"),
    "shell": ("bash", "zsh", "fish", "powershell"),
    "environment": ("ci", "staging", "production", "prod", "local", "development", "qa", "preview"),
    "merge strategy": ("squash", "rebase", "rebasing", "squashing"),
}
# Slots naming what a text is about rather than a value in it: a different one is a different
# subject (staging's port is not a correction of CI's port), never a correction.
SUBJECT_SLOTS = frozenset({"environment", "action", "subject", "facts", "before", "after", "object",
                           "prohibited", "picks", "aspect", "scope"})
# Services and tools a number is said of ("Redis is on port 6379", "Postgres 16"): two texts
# giving a port each, one for Postgres and one for Redis, state no conflicting port; they are
# about different things. Environments are no such subject (CI's Postgres port is one slot).
SERVICES = frozenset("""
redis valkey memcached nginx apache caddy traefik haproxy envoy kafka rabbitmq zookeeper nats
elasticsearch opensearch solr minio localstack celery flower sidekiq grafana prometheus jaeger
vault consul etcd keycloak mailhog mailpit storybook jupyter uvicorn gunicorn django flask
fastapi rails express nextjs""".split())
# Words after a number's slot word that name one slot: "listens on 5432" is its port.
_SLOT_WORDS = {"listen": "port", "localhost": "port"}
# "development" is "dev" as instruction files write it ("the dev server", "the development
# server"); "developer" (a person) stems apart.
_ALIASES = {"postgresql": "postgres", "mongo": "mongodb", "development": "dev"}
# Words instruction files use for one thing, by stem: a small, general table (not tuned per
# rule). Each maps onto the first.
_SYNONYM_GROUPS = (
    ("secret", "credenti", "password", "token", "apikey", "passphras"),
    ("concis", "brief", "succinct", "ters", "breviti"),
    ("summar", "summari"),
    ("delet", "remov"),
    ("doc", "document", "documentation"),
    ("markdown", "md"),  # a Markdown file is a .md file
    ("repo", "repositori"),
    # "pull request" is read as "PR" before the words are (Features); a bare "pull" is git's.
    ("pr", "prs"),
    ("ask", "request"),
    ("instal", "setup"),
    # Abbreviations instruction files use for the word itself.
    ("environ", "env"),
    ("variabl", "var"),
    ("depend", "dep"),
    ("configur", "config", "conf", "cfg"),
    ("directori", "dir", "folder"),
    ("authent", "auth"),
    ("charact", "char"),
    ("command", "cmd"),
    # Verbs and spellings that say one thing, and inflections the stemmer leaves apart.
    ("run", "execut", "invok"),
    ("behavior", "behaviour"),
    ("format", "formatt"),  # formatter
    ("lint", "linter"),
    ("assum", "assumpt"),  # assumption
    ("british", "uk"),  # "British English" / "UK English" spelling
    ("clarifi", "clarif"),  # clarifying / clarification
    ("small", "smaller", "smallest"),  # the comparative and superlative of the kin word
)
_SYNONYMS = {word: group[0] for group in _SYNONYM_GROUPS for word in group[1:]}
# Verbs that name what a rule is about (stems, synonyms folded): two rules about different
# actions ("never commit .env files" / "never read .env files") differ however alike they read.
# Generic verbs (use, run, make, keep) are not among them.
ACTIONS = frozenset("""
commit push pull merg rebas amend squash revert read edit write modifi delet drop creat add
instal uninstal deploy publish displai output print expos share upload download copi move renam
disclos includ mock hardcod store stage bypass skip ignor disabl enabl leak reveal load log
catch wrap generat
""".split())
# Stems of the words that frame an instruction (how, not what: "never include", "make sure to
# run", "prefer", "keep", "add"): two rules sharing their frame and little else ("Never include
# X in commits" / "Never include Y in code") are two lessons. The stop words, negations and
# emphasis words frame too but are no stems at all.
FRAME = frozenset("includ add creat write run keep prefer make sure follow".split())
# Verbs, instruction verbs and frame: what a rule does, not what it does it to.
_VERBS = ACTIONS | FRAME | frozenset("use run make keep do".split())
# Verbs whose words after them, heading a clause, are what the rule acts on ("Create a branch",
# "Update the README"): the actions, the frame and the kindred verbs.
_HEAD_VERBS = _VERBS | frozenset("""
updat chang alter touch patch fix resolv repair verifi check confirm valid leak reveal load
""".split())
_TOOL_SLOT = {tool: slot for slot, tools in TOOL_SLOTS.items() for tool in tools}
_SUBJECTS = SERVICES | {tool for slot, tools in TOOL_SLOTS.items() if slot not in SUBJECT_SLOTS for tool in tools}
# Words after which the rest of a clause is rejected: "never pip", "instead of npm", "over pip".
_REJECT = NEGATIONS | {"avoid", "forbid", "forbidden", "prohibited", "disallowed", "nor"}
# Words that never make two texts alike, and the words a negation swap may differ by.
_NOT_CONTENT = STOPWORDS | NEGATIONS | _EMPHASIS
_NOT_CORE = _REJECT | _EMPHASIS | STOPWORDS
# These reject only the phrase after them ("pnpm instead of npm for packages": npm, not packages).
# "without" is not among them: "without it the suite fails" explains a consequence.
_REJECT_PHRASE = frozenset({"instead", "rather", "over", "except"})
_PHRASE_END = frozenset("for in to on onto with without when as at by from because so".split())
# A condition or a contrast ends a rejection: "avoid X unless asked", "never X, but Y".
_CONDITION = frozenset("unless if when but because otherwise until so then".split())
# After a comma these words start a new, positive instruction: "never npm, use pnpm".
_RESTART = frozenset("use run prefer always instead but only create call keep write".split())
# Durations in a story are incidental ("it took 3 minutes"); in a setting they are facts.
_TIME_UNITS = frozenset("""
ms millisecond milliseconds s sec secs second seconds min mins minute minutes h hr hrs hour hours
day days week weeks month months year years time times run runs attempt attempts try tries
""".split())
_SETTING_WORDS = frozenset("""
timeout timeouts ttl interval limit limits expire expires expiry every within max maximum min
minimum cache cached sleep retry retries delay deadline wait waits poll backoff cron schedule
""".split())
# A sentence ends at its stop, also where markdown emphasis or a quote closes after it
# ("**Never push to `main`.** Always branch"): the next sentence is another instruction.
_SENTENCE_RE = re.compile(r"[.!?]+[*_\"')\]]*(?:\s|$)|[;\n]")
_ASIDE_RE = re.compile(r"[()\[\]]|\s[-–—]+\s|\s--\s|—")
_COLON_RE = re.compile(r":\s")
_DIGIT_RE = re.compile(r"\d")
_DECIMAL_RE = re.compile(r"(\d)\.(\d)")
_DATE_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b|\b\d{1,2}:\d{2}(?::\d{2})?\b")
_NUMBER_RE = re.compile(r"\d+(?:\.\d+)*")
_CODE_RE = re.compile(r"`([^`\n]+)`")
# A word, a flag or a comma (each starts with its own kind of character, so their order changes
# no match): the word first, since most tokens are words and the flag's look-behind then runs
# only where a word cannot start (a quarter faster on a 10k dream's texts, the same tokens).
_TOKEN_RE = re.compile(r"[^\W_]+|(?<![\w-])--?[^\W_][\w-]*|,")
_CLAUSE_TOKEN_RE = re.compile(r"`[^`\n]+`|(?<![\w-])--?[^\W_][\w-]*|[^\W_]+|,")
_FLAG_RE = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")


def stem(word: str) -> str:
    """The Snowball stem, synonyms folded onto one ("passwords" and "credentials" → "secret")."""
    found = _STEMS.get(word)
    if found is None:
        base = _ALIASES.get(word) or _STEMMER.stemWord(word)
        found = _STEMS[word] = _SYNONYMS.get(base, base)
    return found


# A tool's stem -> the slot it fills (the slots of values, not of subjects).
_STEM_SLOT = {stem(tool): slot for tool, slot in _TOOL_SLOT.items() if slot not in SUBJECT_SLOTS}


# Natural languages, by stem: the value of a rule saying what language something is written or
# said in ("Commit messages in English", "Respond in Japanese"). Two such rules naming different
# languages for one thing state different facts, and a rule naming a language is another rule
# than one on the same thing naming none ("Comments in Japanese" / "No comments explaining what
# the code does": the one object is all they share).
_LANGUAGES = frozenset(stem(w) for w in """
english spanish portuguese french german italian dutch japanese chinese korean russian polish turkish arabic
hindi vietnamese indonesian thai ukrainian swedish czech greek hebrew
""".split())
# What a language is given to is what else its clause names, but the verbs of its frame
# (write, use) and generic words (the work, everything): the agent's replies, however named, are
# one thing. A commit is a thing here ("commits in English"), not the action.
_SPOKEN = frozenset(stem(w) for w in """
respond response reply answer speak talk communicate communication interact converse chat conversation
explanation explain
""".split())
_NOT_LANGUAGE_SUBJECTS = frozenset(stem(w) for w in """
work works everything anything thing things stuff written write use used run do make language languages
only exclusive exclusively proceed done perform carry conduct handle user users person human developer final
""".split())
_LANGUAGE_CLAUSE_RE = re.compile(r",\s|\bbut\b|\bwhile\b")


# Kindred words: instruction files use each family's members for nearly one action or quality,
# though not everywhere for one another, so they are not folded into one stem (as synonyms are:
# the known corpus and the guidance read stems too). "Never commit to main" and "never push to
# main" are one rule, and so are "never leak secrets" and "never commit secrets"; "write tests"
# and "add tests"; "minimal edits" and "focused changes". Two texts saying different members of
# a family are bridged (counted as sharing a stem, at KIN_SHARE of one), two actions of one
# family are no different actions, and a word swapped for a kin is no changed fact. General
# words of instruction files, not tuned on any set's rules; a word may be in several families.
_KIN_GROUPS = (
    ("commit", "push"),  # to a branch
    ("leak", "expose", "reveal", "disclose", "commit", "push", "hardcode", "include", "embed"),
    # putting something where others see it (uploading and publishing are ways of shipping)
    ("write", "create", "add", "author"),  # making something new (tests, docs, a file)
    ("create", "generate", "produce"),  # a file, an artifact
    ("edit", "modify", "change", "alter", "touch", "update", "diff", "patch"),  # of what exists
    ("minimal", "small", "short", "focused", "targeted", "surgical", "narrow"),  # a change's size
    ("hint", "annotation"),  # type hints
    ("dependency", "library", "package"),
    ("verify", "check", "confirm", "validate"),
    ("fix", "resolve", "repair"),
    # a server, a process ("run" is not among them: rules run everything, tests, linters,
    # migrations, and as a kin of "start" it matched the benchmark dream's batches to entries
    # sharing little else)
    ("start", "launch", "boot"),
    ("subject", "summary", "title", "headline"),  # a commit's or a PR's first line
    ("read", "load"),  # a file, the environment
    ("feature", "behavior"),  # what a change adds ("tests for new features / behavior")
    ("function", "method"),
    ("test", "spec"),
    # the agent's replies, and its speaking to the person however named
    ("response", "answer", "reply", "respond", "speak", "talk", "communicate", "communication", "interact",
     "converse", "conversation"),
    ("assume", "guess"),
    ("ambiguous", "unclear", "uncertain", "unsure", "doubt", "vague"),  # when to ask
    ("sycophantic", "sycophancy", "flatter", "flattery", "compliment", "praise"),  # the agent's tone
    ("ignore", "discard", "swallow"),  # errors
)
KIN_SHARE = 0.75
# stem -> the families it is in (by position in _KIN_GROUPS)
KIN: dict[str, frozenset[int]] = {}
for _family, _members in enumerate(_KIN_GROUPS):
    for _kin_word in _members:
        _kin_stem = _SYNONYMS.get(_STEMMER.stemWord(_kin_word), _STEMMER.stemWord(_kin_word))
        KIN[_kin_stem] = KIN.get(_kin_stem, frozenset()) | {_family}
_NO_KIN: dict[int, frozenset[str]] = {}
# The families that may link memories when clustering: not those holding "commit" or "push",
# which rules name as an object as often as an action (commit messages, tests before
# committing, secrets never committed), so that bridging them chains every rule naming a commit.
LINKING_KIN = frozenset(f for f, members in enumerate(_KIN_GROUPS) if not {"commit", "push"} & set(members))
# The families that find candidates for clustering (a pair sharing one stem and saying another
# by kin is compared): those of the change a rule asks for and of the agent's manner, whose
# members instruction files swap freely ("minimal diffs" / "small changes", "when unclear" /
# "when in doubt"); not those naming what rules are about (dependencies, functions, tests,
# features, hints) nor the verbs of checking, fixing and reading, whose rules differ by their
# object: a kin there is weaker evidence than a second shared word.
INDEXED_KIN = frozenset(f for f, members in enumerate(_KIN_GROUPS) if members[0] in {
    "write", "edit", "minimal", "response", "assume", "ambiguous", "sycophantic", "ignore"})


def kin_of(stems: Iterable[str]) -> dict[int, frozenset[str]]:
    """family -> the stems of `stems` in it (empty for the most texts: none in any family)."""
    hits = KIN.keys() & stems
    if not hits:
        return _NO_KIN
    found: dict[int, set[str]] = {}
    for s in hits:
        for family in KIN[s]:
            found.setdefault(family, set()).add(s)
    return {family: frozenset(members) for family, members in found.items()}


def bridges(kin_a: Mapping[int, AbstractSet[str]], kin_b: Mapping[int, AbstractSet[str]]
            ) -> list[tuple[str, str]]:
    """(a's stem, b's stem) for each family both texts say by different members, each stem in
    one bridge at most (commit/push is one bridge, though both words share two families):
    sorted, so the pairs are the same whichever text comes first (swapped)."""
    common = kin_a.keys() & kin_b.keys() if kin_a and kin_b else ()
    if not common:
        return []
    found: list[tuple[str, str]] = []
    used_a: set[str] = set()
    used_b: set[str] = set()
    for family in sorted(common):
        members_a, members_b = kin_a[family], kin_b[family]
        if not members_a.isdisjoint(members_b):
            continue  # the family is said by one word on both sides: that stem is shared already
        x = min(members_a - used_a, default=None)
        y = min(members_b - used_b, default=None)
        if x is not None and y is not None:
            used_a.add(x)
            used_b.add(y)
            found.append((x, y))
    return found


def kindred(a: str, b: str) -> bool:
    """Two stems in one family."""
    return not KIN.get(a, frozenset()).isdisjoint(KIN.get(b, ()))


# Words a rule says negated for the word it means: "no sweeping changes" asks
# for minimal ones, "don't be verbose" for concise answers. A text rejecting one says
# its opposite too (as a stem of its own), so it meets the rewordings stating the positive.
_OPPOSITE_WORDS = {"sweeping": "minimal", "verbose": "concise", "wordy": "concise"}
_OPPOSITES = {_STEMMER.stemWord(word): _SYNONYMS.get(_STEMMER.stemWord(other), _STEMMER.stemWord(other))
              for word, other in _OPPOSITE_WORDS.items()}
_NEGATED_WINDOW = 5  # tokens before the word where its rejection may stand ("no X changes or Y edits")


def _negated_opposites(text: str) -> set[str]:
    """The opposites (as stems) of the words in _OPPOSITES the text says rejected: after a
    negation or "over"/"instead of" within a few words, no comma or stop between."""
    found = set()
    tokens = _CLAUSE_TOKEN_RE.findall(_APOSTROPHES_RE.sub("", text.lower()))
    for position, token in enumerate(tokens):
        opposite = _OPPOSITES.get(stem(token)) if token[0].isalpha() else None
        if opposite is None:
            continue
        for before in reversed(tokens[max(0, position - _NEGATED_WINDOW):position]):
            if before == ",":
                break
            if before in _REJECT or before in _REJECT_PHRASE:
                found.add(opposite)
                break
    return found


_ANY_TYPE_RE = re.compile(
    r"\b(?:no|avoid|never|not|forbid\w*|ban\w*)\s+(?:\w+\s+)?any\s+(?:types?|typings?)\b(?!\s+of\b)", re.IGNORECASE)
_PULL_REQUEST_RE = re.compile(r"\bpull[ -]+request(s?)\b", re.IGNORECASE)


def _pr(found: re.Match[str]) -> str:
    return f"PR{found.group(1)}"


def _content(word: str) -> bool:
    return word not in _NOT_CONTENT and (len(word) > 1 or word.isdigit())


# The caches of words, tokens and identifiers below hold at most this many each (sentences: see
# _SENTENCES_KEPT), then are emptied at once: a bound on memory in a long session, not an
# eviction policy.
_KEPT = 100_000
# Whether a token's stem is one of a text's stems: never, only inside code, or always.
_NEVER, _COUNTS_IN_CODE, _COUNTS = 0, 1, 2
# token -> (whether it counts, its stem, whether it is a tool name), read once per distinct token.
_TOKENS: dict[str, tuple[int, str, bool]] = {}


def _token(token: str) -> tuple[int, str, bool]:
    # A code word counts even when it is an emphasis word (`any`), not a stop word (the "up" of
    # `docker compose up` is no evidence).
    if not token or token[0].isdigit() or token in STOPWORDS:
        found = _NEVER, "", False
    else:
        plain = _content(token) and token not in _REJECT and token not in _REJECT_PHRASE
        found = (_COUNTS if plain else _COUNTS_IN_CODE), stem(token), token in _TOOL_SLOT
    if len(_TOKENS) >= _KEPT:
        _TOKENS.clear()
    _TOKENS[token] = found
    return found


# --- what a text says --------------------------------------------------------------------------


@dataclass(frozen=True)
class Conflict:
    """One fact two texts state differently, readable as "port: 5432 vs 5433"."""

    slot: str
    a: str
    b: str

    def __str__(self) -> str:
        return f"{self.slot}: {self.a} vs {self.b}"


_LINK_RE = re.compile(r"\[([^\]\n]+)\]\([^)\s]*\)")
_QUOTED_RE = re.compile(r'"[^"\n]*"|“[^”\n]*”')


def _quoted_only(text: str, stems: frozenset[str]) -> frozenset[str]:
    """The stems of `stems` the text says only inside double quotes."""
    outside = _QUOTED_RE.sub(" ", text)
    if outside == text:
        return _NO_WORDS
    known = _TOKENS
    said = {(known.get(token) or _token(token))[1]
            for token in _TOKEN_RE.findall(_APOSTROPHES_RE.sub("", outside.lower()))}
    return stems - said


# --- circumstances: when and where a rule applies, not what it says ---------------------------
# Instruction files attach a few stock clauses to many different rules: a permission ("unless
# explicitly asked", "without user approval", "if the user asks"), a step of the workflow
# ("before committing", "after you finish making changes"), a scope ("in all Python files",
# "for every PR", "in code or documentation"), the task it applies during ("when adding new
# dependencies") and the agent it addresses ("AI must"). Two rules sharing only such a clause are two
# rules ("Do not use emojis unless explicitly requested" / "Never push unless the user asks"),
# and links chain: one clause shared pairwise joins every rule carrying it. A rewording of one
# rule keeps its content and may drop or change the clause. So a stem a text says only inside
# such a clause weighs CIRCUMSTANCE_WEIGHT, and shared it counts at the lower of the two weights:
# one rule naming "code" shares no content with another's "in code or documentation", "Use
# Conventional Commits" none with "Run the tests before committing". Two exceptions: a rule
# whose instruction is to ask ("Ask before destructive operations", "Confirm first") says as
# the rule what another says as its condition ("Avoid destructive commands unless asked"):
# there the permission word is shared at the higher weight; and so are an example's words and
# a bold label's, which weigh as little but may be all another text says.
_PERMISSION_STARTS = ("ask", "request", "tell", "told", "instruct", "approv", "permi", "consent", "confirm",
                      "prompt", "authoris", "authoriz", "allow")
_PERMISSION_WORDS = rf"(?:{'|'.join(_PERMISSION_STARTS)})\w*"
_PERMISSION_START_RE = re.compile(rf"\b(?:{'|'.join(_PERMISSION_STARTS)})")
_PERMISSION_CUES = frozenset("unless until without if when whenever except once".split())
_PERMISSION_RE = re.compile(
    rf"\b(?:{'|'.join(sorted(_PERMISSION_CUES))})\b[^.,;:!?()\n]{{0,50}}?\b{_PERMISSION_WORDS}")
_ON_REQUEST_RE = re.compile(r"\b(?:on|upon|by)\s+(?:explicit\s+)?request\b")
# In a permission clause, only its own words are the stock part ("unless the user explicitly
# asks to commit": not "commit").
_PERMISSION_VOCABULARY = re.compile(
    rf"^(?:{_PERMISSION_WORDS}|users?|humans?|developers?|maintainers?|operators?|explicit\w*|specific\w*"
    r"|express\w*|clear\w*|direct\w*|first|prior|written|verbal)$")
# "Ask before ...", "Always confirm first", "Get explicit approval before ...": asking is the rule.
_ASK_CUES = frozenset("ask confirm check get obtain wait seek".split())
_ASK_RULE_RE = re.compile(
    r"(?:^|[.;:!?\n*]\s*)(?:always\s+|please\s+|first\s+)?(?:(?:ask|confirm|check)\b|(?:get|obtain|wait for|seek)"
    rf"\s+(?:\w+\s+){{0,2}}?{_PERMISSION_WORDS})(?:[^.;:!?\n]{{0,40}}?\b(?:before|first)\b)")
_STEP_CUES = frozenset("before after until when while whenever once prior".split())
_STEP_STARTS = ("commit", "push", "merg", "submit", "finish", "complet", "open", "releas", "deploy", "ship",
                "wrap", "mak", "done")
_STEP_START_RE = re.compile(rf"\b(?:{'|'.join(_STEP_STARTS)})")
_STEP_RE = re.compile(
    r"\b(?:before|after|until|when|while|whenever|once|prior to)\s+"
    r"(?:(?:you|we|they|the|a|an|any|your|each|every|all|are|is|have|has|been)\s+){0,2}"
    rf"(?:{'|'.join(_STEP_STARTS)})\w*"
    r"(?:\s+(?:(?:the|a|an|any|your|making|of)\s+){0,2}(?:changes?|code|prs?|pull requests?|work|tasks?"
    r"|commits?|edits?|modifications?|progress))?\b")
# "When adding new dependencies, ...", "If you are editing migrations ...": the task a rule
# applies during, up to its comma or its instruction's verb. Two rules for one task ("No new
# dependencies unless asked" / "When adding dependencies, use the latest stable version") are
# two rules; the task is where they apply, not what they say.
_TASK_CUES = frozenset("when whenever while if".split())
_TASK_RE = re.compile(
    r"\b(?:when|whenever|while|if)\s+(?:(?:you|we|they)\s+(?:are\s+)?)?[a-z]+ing\b"
    r"(?:\s+(?!(?:make|use|run|always|never|do|dont|keep|prefer|ensure|please|must|should|follow|check|add"
    r"|write|create|put|avoid|remember|be|try|only|also|then)\b)[\w./-]+){0,4}")
# What a scope's noun names: where rules apply (files, code, changes, replies), not things a rule
# is about (a service, an endpoint: "In CI the Postgres service listens on 5433").
_SCOPE_NOUNS = frozenset("""
file files code codebase codebases repo repos repository repositories project projects module modules pr prs
pull commit commits change changes response responses replies message messages output outputs doc docs
documentation component components function functions class classes method methods test tests script
scripts text directory directories folder folders package packages notebook notebooks
interaction interactions conversation conversations chat chats
""".split())
_SCOPE_NOUN = rf"(?:{'|'.join(sorted(_SCOPE_NOUNS - {'pull'}, key=len, reverse=True))}|pull requests?)"
_SCOPE_PREPOSITIONS = frozenset("in for across to within throughout on inside".split())
_SCOPE_RE = re.compile(
    rf"\b(?:{'|'.join(sorted(_SCOPE_PREPOSITIONS))})\s+"
    rf"(?:(?!(?:in|for|to|on|with|by|from|at|as|and|or|but|unless|if|when)\b)\w[\w./-]*,?\s+){{0,4}}?{_SCOPE_NOUN}"
    rf"(?:\s+{_SCOPE_NOUN})*\b(?:,?\s+(?:and|or)\s+(?:[\w-]+\s+){{0,2}}?{_SCOPE_NOUN}\b)*")
# The agent named as who the rule is for ("AI must never ...", "Agents should ..."): instruction
# files address it in the third person as often as not, and "you" is a stop word.
_ACTORS = frozenset("ai agent agents assistant assistants llm llms model models claude copilot codex".split())
_ACTOR_RE = re.compile(
    r"(?:^|[.;:!?\n*]\s*)(?:the\s+)?(?:ai|agents?|assistants?|llms?|models?|claude|copilot|codex)"
    r"(?:\s+(?:agents?|assistants?|models?|tools?))?\s+(?:must|should|shall|will|may|can|cannot|never|always"
    r"|needs?|has to|have to|is|are)\b")
# Examples a rule gives ("(e.g. `feat: ...`, `fix: ...`)", "(for example ...)"): illustrations,
# which two rules on one subject share (commit message examples) whatever each says of it.
_EXAMPLE_CUES = frozenset("eg e example instance such like".split())
_EXAMPLE_RE = re.compile(r"\((?:e\.?g\.?|for example|for instance|such as|like)[,:]?\s[^()\n]*\)")
# A bold label heading a rule ("**Test Reporting:** ...", "**Fix the root cause** - ..."): the
# rule in brief or its topic, in words a rewording rarely repeats. Like an example, it weighs
# little and keeps its higher weight shared. Bold words running on into the sentence ("**No
# emojis** in code") are the rule itself.
_LABEL_RE = re.compile(r"^\s*(?:[-*+]\s+)?\*\*[^*\n]{1,60}?(?:\*\*\s*(?::|[-–—]\s)|:\*\*)", re.M)
# Generic words for what a rule covers: the code, the changes, the work.
_GENERIC = frozenset("""
code codebase file files change changes project projects repo repository work functionality
stuff thing things everything anything
""".split())
CIRCUMSTANCE_WEIGHT = 0.25


def _circumstances(text: str, stems: frozenset[str], code: frozenset[str]
                   ) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(the stems of `stems` the text says only inside a stock clause or an example, those in
    an example, the permission words of an instruction to ask). A clause's never holds a stem
    of the text's code (a path or a command in a scope is the rule's own: "tests go in
    `tests/unit`"); a name in a scope is a circumstance like its other words ("in all Python
    files")."""
    # Each pattern runs only on a text holding its words (most texts hold none): the words are
    # looked up in a set, the patterns are slow to scan with.
    norm = normalise(text)
    words = set(norm.split())
    permission = not words.isdisjoint(_PERMISSION_CUES) and _PERMISSION_START_RE.search(norm) is not None
    step = not words.isdisjoint(_STEP_CUES) and _STEP_START_RE.search(norm) is not None
    scope = not words.isdisjoint(_SCOPE_PREPOSITIONS) and not words.isdisjoint(_SCOPE_NOUNS) and _scope_near(norm)
    actor = not words.isdisjoint(_ACTORS)
    ask = not words.isdisjoint(_ASK_CUES) and ("before" in words or "first" in words)
    task = not words.isdisjoint(_TASK_CUES) and "ing" in norm
    example = "(" in text and not words.isdisjoint(_EXAMPLE_CUES)
    label = "**" in text
    if not (permission or step or scope or actor or ask or example or label or task or "request" in words):
        return _NO_WORDS, _NO_WORDS, _NO_WORDS
    lowered = _APOSTROPHES_RE.sub("", _CODE_RE.sub(" ` ", text.lower()))
    spans: list[tuple[int, int]] = []
    for found in _PERMISSION_RE.finditer(lowered) if permission else ():
        # The stock part of a permission clause is its cue ("unless") and its own words only
        # ("unless the user explicitly asks to commit": not "commit").
        for number, word in enumerate(_WORD_RE.finditer(lowered, found.start(), found.end())):
            if number == 0 or _PERMISSION_VOCABULARY.match(word.group()):
                spans.append(word.span())
    for wanted, pattern in ((step, _STEP_RE), (scope, _SCOPE_RE), (actor, _ACTOR_RE), (task, _TASK_RE),
                            ("request" in words, _ON_REQUEST_RE)):
        if wanted:
            spans.extend(found.span() for found in pattern.finditer(lowered)
                         if pattern is not _SCOPE_RE or not _takes_preposition(lowered, found.start()))
    plain = _APOSTROPHES_RE.sub("", text.lower()) if example or label else ""
    examples = [found.span() for wanted, pattern in ((example, _EXAMPLE_RE), (label, _LABEL_RE)) if wanted
                for found in pattern.finditer(plain)]
    asks = {stem(word) for found in _ASK_RULE_RE.finditer(lowered)
            for word in _WORD_RE.findall(found.group()) if _PERMISSION_VOCABULARY.match(word)} if ask else set()
    if not spans and not examples:
        return _NO_WORDS, _NO_WORDS, frozenset(asks & stems)
    marked, said = _inside(lowered, spans)
    clauses = (marked & stems) - said - code
    illustrations = _NO_WORDS
    if examples:
        # An example's code is an example too: the text is read with its code spans.
        marked, said = _inside(plain, examples)
        illustrations = frozenset((marked & stems) - said - clauses)
    return frozenset(clauses) | illustrations, illustrations, frozenset(asks & stems)


# Verbs whose preposition is theirs ("rely on Tailwind classes", "stick to the existing
# components", "switch to ES modules"): what follows is what the rule is about, not a scope.
_PREPOSITION_VERBS = frozenset("""
rely relies depend depends focus focuses stick sticks adhere adheres conform conforms refer refers switch
switches migrate migrates default defaults build builds limit limits restrict restricts standardize
standardise standardizes standardises convert converts
""".split())


def _takes_preposition(lowered: str, start: int) -> bool:
    """The word before `start` is a verb whose preposition this is."""
    before = lowered[max(0, start - 20):start].split()
    return bool(before) and before[-1] in _PREPOSITION_VERBS


def _scope_near(norm: str) -> bool:
    """A scope noun within the five words after a preposition: what _SCOPE_RE needs, looked up
    before that pattern scans (it is slow to, and most texts holding both hold them apart)."""
    tokens = norm.split()
    return any(token in _SCOPE_PREPOSITIONS and not _SCOPE_NOUNS.isdisjoint(tokens[i + 1:i + 6])
               for i, token in enumerate(tokens))


def _inside(text: str, spans: list[tuple[int, int]]) -> tuple[set[str], set[str]]:
    """(the stems inside the spans of `text`, the stems outside them)."""
    outside: list[str] = []
    marked: set[str] = set()
    position = 0
    for start, end in sorted(spans):
        if start > position:
            outside.append(text[position:start])
        marked |= _stems_in(text[start:end])
        position = max(position, end)
    outside.append(text[position:])
    return marked, _stems_in(" ".join(outside))


def _stems_in(text: str) -> set[str]:
    """The stems of `text`'s tokens, read as Features reads them (a flag as one word)."""
    known = _TOKENS
    return {(known.get(token) or _token(token))[1]
            for token in ("".join(_WORD_RE.findall(raw)) if raw[0] == "-" else raw for raw in _TOKEN_RE.findall(text))}


class Features:
    """What `compare` looks at, for one text. The stems (all an index and the rarity weights
    need) are read at once; the rest on first use, since most texts of a big LTM are never
    compared with anything."""

    def __init__(self, text: str, body: str | None = None) -> None:
        if "](" in text:
            # A markdown link is its text: the address's words (https, www, org, v1) are not
            # what the rule says, and rewordings link other pages or none.
            text = _LINK_RE.sub(r"\1", text)
            body = None if body is None else _LINK_RE.sub(r"\1", body)
        if "request" in text.lower() and _PULL_REQUEST_RE.search(text):
            # One thing, a PR: not "pull" and a "request" (which asks for permission).
            text = _PULL_REQUEST_RE.sub(_pr, text)
            body = None if body is None else _PULL_REQUEST_RE.sub(_pr, body)
        # A rule in another language is read in English words (lexicon.py): "Habla siempre en
        # español" says "speak always Spanish", the rewording of "Always reply in Spanish".
        translated = english(text)
        if translated != text:
            text = translated
            body = None if body is None else english(body)
        self.text = text
        self.body = text if body is None else body  # whose word order single_swap compares
        code = {w for span in _CODE_RE.findall(text) for w in _WORD_RE.findall(span.lower())}
        stems: set[str] = set()
        tools: set[str] = set()
        known = _TOKENS
        for token in _TOKEN_RE.findall(_APOSTROPHES_RE.sub("", text.lower())):
            if token[0] == "-":
                token = "".join(_WORD_RE.findall(token))
                code.add(token)
            counts, s, tool = known.get(token) or _token(token)
            if counts == _COUNTS or (counts == _COUNTS_IN_CODE and token in code):
                stems.add(s)
                if tool:
                    tools.add(s)
        if not _OPPOSITES.keys().isdisjoint(stems):
            stems |= _negated_opposites(text)
        implied: set[str] = set()
        if "`" in text:
            # What a command does is said too (lexicon.py): `npm run dev` starts the dev server.
            for span in _CODE_RE.findall(text):
                concepts = command_concepts(span)
                if concepts:
                    implied.update(stem(word) for word in concepts.split())
            implied -= stems
            stems |= implied
        if "type" in stems and "any" not in code and _ANY_TYPE_RE.search(text) is not None:
            # "no any types" names TypeScript's `any` unquoted: a word no English phrase has
            # before "types" but the type's name.
            code.add("any")
            stems.add(stem("any"))
        if "test" in stems or "tdd" in stems or "green" in stems:
            # A practice named in any of its wordings is named (lexicon.py: test-first), as a
            # term of art weighs: like a tool's name.
            named = practices(text.lower())
            stems.update(named)
            tools.update(named)
        if not _LANGUAGES.isdisjoint(stems) and not stems - _LANGUAGES - FRAME - _NOT_LANGUAGE_SUBJECTS:
            # A rule naming a language and nothing it is of ("All work is done in Japanese")
            # gives the agent's language: its replies.
            implied.add("respond")
            stems.add("respond")
        self.stems = frozenset(stems)  # content stems of the whole text (synonyms folded)
        # Stems only inside double quotes: examples and literal text ('"Add feature" not
        # "Added feature"'), which name words rather than use them.
        self.quoted = _quoted_only(text, self.stems) if '"' in text or "“" in text else _NO_WORDS
        if implied:
            # A word only a command implies weighs as a quoted one: named, not said.
            self.quoted = self.quoted | implied
        # Its stems in families of kindred words, by family; a quoted word is its own literal.
        self.kin = kin_of(stems - self.quoted if self.quoted else stems)
        self.kin_stems = frozenset().union(*self.kin.values()) if self.kin else _NO_WORDS
        self._code = code  # words of code spans and flags
        self._tools = tools

    @classmethod
    def of(cls, text: str, body: str | None = None) -> Features:
        """`text` is everything compared (a title and a content); `body` the part stating the
        facts in order (default: all of `text`)."""
        return cls(text, body)

    def __repr__(self) -> str:
        return f"Features({self.text!r})"

    @_read_once
    def names(self) -> frozenset[tuple[str, ...]]:
        """Identifiers (files, variables, proper names), as normalised words."""
        return identifiers(self.text)

    @_read_once
    def strong(self) -> frozenset[str]:
        """The stems that are commands, paths, flags, code spans or tool names (without the
        full reading: the weights need them for every text compared, the facts only for the
        alike ones)."""
        words = self._code.union(*self.names)
        return frozenset(stem(w) for w in words if stem(w) in self.stems) | self._tools

    @_read_once
    def acronyms(self) -> frozenset[str]:
        """Its acronyms, lowercased: "ESM", "TDD", "PRs"."""
        return frozenset(m.lower() for m in _ACRONYM_RE.findall(self.text)) if _ACRONYM_RE.search(self.text) \
            else _NO_WORDS

    @_read_once
    def initials(self) -> tuple[str, list[int], list[str]]:
        """Its words' initials in order (a short acronym's every letter, a stop word a gap),
        the word each letter is of, and the words: where an acronym is spelled out."""
        words = normalise(self.text).split()
        letters = [word if word in _SHORT_ACRONYMS else word[0] if _content(word) else " " for word in words]
        # A letter per word but a short acronym's two: the owners are the word numbers then.
        if len(letters) == len(given := "".join(letters)):
            return given, list(range(len(words))), words
        return given, [number for number, letter in enumerate(letters) for _ in letter], words

    @_read_once
    def linking_kin(self) -> dict[int, frozenset[str]]:
        """Its kindred words in the families that may link a batch's memories (LINKING_KIN)."""
        return {f: m for f, m in self.kin.items() if f in LINKING_KIN} if self.kin else _NO_KIN

    @_read_once
    def linking_stems(self) -> frozenset[str]:
        kin = self.linking_kin
        return frozenset().union(*kin.values()) if kin else _NO_WORDS

    @_read_once
    def _settings(self) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        return _circumstances(self.text, self.stems, frozenset(stem(w) for w in self._code))

    @_read_once
    def circumstances(self) -> frozenset[str]:
        """The stems the text says only in a stock clause of when, where or for whom it
        applies, or in an example it gives."""
        return self._settings[0]

    @_read_once
    def examples(self) -> frozenset[str]:
        """Those of the circumstances said in an example ("(e.g. `feat: ...`)") or a bold
        label ("**Test Reporting:**")."""
        return self._settings[1]

    @_read_once
    def asks(self) -> frozenset[str]:
        """The permission words of an instruction to ask ("Ask before deleting", "Get approval
        first"): the rule another text states as its condition ("unless asked")."""
        return self._settings[2]

    @_read_once
    def alternatives(self) -> frozenset[str]:
        """The tools the text names only to reject them beside the one it picks in their slot
        ("Use uv (not pip, pipx or poetry)"): the rule is the pick, and a rewording that leaves
        the list out ("Use uv for the virtualenv") says all of it. Read (the facts) only for a
        text naming two tools of one slot, which few are."""
        tools = self._tools
        if len(tools) < 2:
            return _NO_WORDS
        slots = Counter(_STEM_SLOT[t] for t in tools if t in _STEM_SLOT)
        if not slots or max(slots.values()) < 2:
            return _NO_WORDS
        facts = self.facts
        picked = {stem(tool) for tools_ in facts.picks.values() for tool in tools_}
        return frozenset(t for t in tools & facts.rejected
                         if t not in picked and _STEM_SLOT.get(t) in facts.picks)

    @_read_once
    def languages(self) -> dict[str, frozenset[str]]:
        """The natural languages it names, by what each clause naming one says it of: the
        clause's other stems but verbs, the agent's replies all "respond", as is a clause naming
        nothing else ("All work is done in Korean" gives the agent's language). "Code in English,
        comments in Korean" gives code English and comments Korean."""
        if self.stems.isdisjoint(_LANGUAGES):
            return {}
        found: dict[str, set[str]] = {}
        for sentence in _SENTENCE_RE.split(self.text.lower()):
            # A clause ends at a comma after its language ("Think in English, reply in
            # Japanese"), not inside a list before it ("replies, explanations and questions in
            # Spanish"): the parts before a language are what it is given to.
            stems: set[str] = set()
            for part in _LANGUAGE_CLAUSE_RE.split(sentence):
                stems |= _stems_in(part) & self.stems
                languages = stems & _LANGUAGES
                if languages:
                    # Not the words of a stock clause ("unless the user explicitly asks"), nor
                    # the person spoken to ("reply to the user in ..."): what is said in it.
                    subjects = {"respond" if s in _SPOKEN else s
                                for s in stems - languages - FRAME - _NOT_LANGUAGE_SUBJECTS
                                - (self.circumstances - _SPOKEN)}
                    subjects = subjects or {"respond"}
                    for subject in subjects:
                        found.setdefault(subject, set()).update(languages)
                    stems = set()
        return {subject: frozenset(languages) for subject, languages in found.items()}

    @_read_once
    def _conditions(self) -> tuple[bool, bool]:
        """(it names a permission as a condition: "unless asked", "without approval", "on
        request"; it allows what it says only on some condition: "only ... when")."""
        if "ask" not in self.stems and "only" not in self.text.lower() and not self.circumstances:
            return False, False  # no permission word, no "only": most texts
        lowered = self.text.lower()
        asked = _PERMISSION_RE.search(lowered) is not None or _ON_REQUEST_RE.search(lowered) is not None
        return asked, _ONLY_ON_RE.search(lowered) is not None

    @property
    def conditional(self) -> bool:
        """It says when what it says is allowed (a permission, an "only when") or is an
        instruction to ask first ("Ask before deleting")."""
        return bool(self.asks) or any(self._conditions)

    @_read_once
    def permission(self) -> bool:
        """It allows what it says only with permission: "Only commit when asked", "Never push
        unless the user asks"."""
        asked, only = self._conditions
        return asked and (only or self.facts.rejects_any)

    @_read_once
    def facts(self) -> _Facts:
        """Everything else, read in one pass on first use."""
        return _Facts.read(self)



@dataclass(slots=True)
class _Facts:
    slots: dict[str, frozenset[str]]  # "after port" / "before charact" -> the numbers filling it
    picks: dict[str, frozenset[str]]  # tool slot -> the tools the text uses
    stance: dict[str, int]  # content stem -> 1 done, 2 rejected, 3 both
    heads: dict[str, int]  # the same for the first content word of a clause or a rejection
    actions: frozenset[str]  # action verbs heading its clauses: what it is about (commit, read)
    objects: frozenset[str]  # the words a verb heading a clause acts on ("create a branch")
    commands: frozenset[str]  # its code spans, lowercased: `bun run test`, `git add -A`
    used: frozenset[str]  # the code spans it only uses
    refused: frozenset[str]  # the code spans it only rejects ("no `uv pip`")
    poles: frozenset[tuple[str, int]]
    axes: dict[str, set[int]]  # antonym axis -> the poles the text takes on it
    done: frozenset[str]  # stems the text only does
    rejected: frozenset[str]  # stems the text only rejects
    rejects_any: bool
    words: list[str]  # the body's normalised words, in order (single_swap)
    norm: str  # the whole text normalised
    padded: str  # the same between spaces: a phrase is in it as " words "
    lowered: str  # the text lowercased, whitespace collapsed, if it names commands (looked up in it)
    content_words: frozenset[str]  # the body's content words, numbers aside
    core: frozenset[str]  # the body's words but negations, emphasis, stop words
    core_all: frozenset[str]  # the same over the whole text
    flags: frozenset[str]
    # Identifiers of several words, sorted, each with its words between spaces (as in `padded`).
    long_names: tuple[tuple[tuple[str, ...], str], ...]
    # "before"/"after" -> the named things (a command, a tool, a name) the text orders a step by
    orders: dict[str, frozenset[str]]
    units: dict[str, dict[str, AbstractSet[str]]]  # the slots by slot, then subject
    slot_words: frozenset[str]  # the words naming the slots ("port" of "after port")
    slot_values: frozenset[str]  # every value in a slot

    @classmethod
    def read(cls, features: Features) -> _Facts:
        text, body = features.text, features.body
        words = normalise(body).split()
        norm = normalise(text) if body is not text else " ".join(words)
        # A title whose words the body says in order adds no fact: only the body is read.
        title = text[:len(text) - len(body)] if body != text and text.endswith(body) else ""
        read = body if title and f" {normalise(title)} " in f" {' '.join(words)} " else text
        reader = _Reader(text, features.names)
        # Lowercased and apostrophes joined once ("don't" -> "dont"), dates and times dropped;
        # backticks stay (a sentence does not end at the dot of "`git add .`"). A date has
        # digits and dashes, a clock time digits and a colon: without them, nothing to find.
        if ("-" in read or ":" in read) and _DIGIT_RE.search(read):
            read = _DATE_RE.sub(" ", read)
        if "'" in read or "’" in read:
            read = _QUOTES_RE.sub("", read)
        for sentence in _SENTENCE_RE.split(read.lower()):
            reader.sentence(sentence)
        said = reader.said
        stance = said.stance
        done: list[str] = []
        rejected: list[str] = []
        both = False
        for s, bits in stance.items():
            if bits == 1:
                done.append(s)
            elif bits == 2:
                rejected.append(s)
            else:
                both = True
        body_words = frozenset(words)
        poles = frozenset(said.poles)
        slots = {k: frozenset(v) for k, v in said.slots.items()}
        units_of = {k.partition(_SUBJECT_MARK)[0] for k in slots} if slots else _NO_WORDS
        commands = frozenset(reader.commands)
        return cls(
            slots=slots,
            picks={k: frozenset(v) for k, v in said.picks.items()},
            stance=stance, heads=said.heads, actions=frozenset(said.actions),
            objects=frozenset(said.objects),
            commands=commands,
            used=frozenset(c for c, bits in said.command_stance.items() if bits == 1),
            refused=frozenset(c for c, bits in said.command_stance.items() if bits == 2),
            poles=poles,
            axes=_axes(poles),
            done=frozenset(done), rejected=frozenset(rejected), rejects_any=both or bool(rejected),
            words=words, norm=norm, padded=f" {norm} ", lowered=" ".join(text.lower().split()) if commands else "",
            content_words=frozenset({w for w in body_words - _NOT_CONTENT
                                     if len(w) > 1 and not w[0].isdigit()}),
            core=body_words - _NOT_CORE,
            core_all=(body_words if body is text else frozenset(norm.split())) - _NOT_CORE,
            flags=frozenset(f.lower() for f in _FLAG_RE.findall(text)) if "-" in text else frozenset(),
            orders=_orders(words, features),
            units=_by_unit(slots) if slots else {},
            slot_words=frozenset(k.split(" ", 1)[-1] for k in units_of) if slots else _NO_WORDS,
            slot_values=frozenset().union(*slots.values()) if slots else _NO_WORDS,
            long_names=tuple((n, f" {' '.join(n)} ") for n in sorted(features.names) if len(n) > 1)
            if features.names else ())


def _orders(words: Sequence[str], features: Features) -> dict[str, frozenset[str]]:
    """What a text orders a step by, when that is something named: "before `pytest`", "before
    Playwright" (the first content word after the pole, if a strong stem)."""
    orders: dict[str, set[str]] = {}
    if "before" not in words and "after" not in words:
        return {}
    strong = features.strong
    for i, word in enumerate(words):
        if word in _ORDER_WORDS:
            following = next((w for w in words[i + 1:i + 4] if _content(w)), None)
            if following is not None and stem(following) in strong:
                orders.setdefault(word, set()).add(stem(following))
    return {k: frozenset(v) for k, v in orders.items()}


_ORDER_WORDS = frozenset({"before", "after"})


# What a word is to the clause reader, as bits, looked up once per distinct word.
_CONDITION_K, _RESTART_K, _PHRASE_END_K, _REJECT_K, _REJECT_PHRASE_K = 1, 2, 4, 8, 16
_DIGIT_K, _POLE_K, _CONTENT_K, _STOP_K, _ACTION_K = 32, 64, 128, 256, 512
_REJECTS_K = _REJECT_K | _REJECT_PHRASE_K
# word -> (its kind bits, its stem, the tool slot it fills and the tool's name, or None)
_WORDS: dict[str, tuple[int, str, tuple[str, str] | None]] = {}


def _word(word: str) -> tuple[int, str, tuple[str, str] | None]:
    s = stem(word)
    slot = _TOOL_SLOT.get(word)
    kind = ((_CONDITION_K if word in _CONDITION else 0) | (_RESTART_K if word in _RESTART else 0)
            | (_PHRASE_END_K if word in _PHRASE_END else 0) | (_REJECT_K if word in _REJECT else 0)
            | (_REJECT_PHRASE_K if word in _REJECT_PHRASE else 0)
            | (_DIGIT_K if word[0].isdigit() else 0) | (_POLE_K if word in POLES else 0)
            | (_CONTENT_K if _content(word) else 0) | (_STOP_K if word in STOPWORDS else 0)
            | (_ACTION_K if s in ACTIONS else 0))
    if len(_WORDS) >= _KEPT:
        _WORDS.clear()
    found = _WORDS[word] = (kind, s, None if slot is None else (slot, _ALIASES.get(word, word)))
    return found


@dataclass(slots=True)
class _Said:
    """What one sentence states, as the reader collects it: bits and sets a text's sentences
    add up (or-ed, united), so a sentence read once stands for every text repeating it."""

    slots: dict[str, set[str]] = field(default_factory=dict)
    picks: dict[str, set[str]] = field(default_factory=dict)
    stance: dict[str, int] = field(default_factory=dict)
    heads: dict[str, int] = field(default_factory=dict)
    actions: set[str] = field(default_factory=set)
    objects: set[str] = field(default_factory=set)  # what the verbs heading its clauses act on
    poles: set[tuple[str, int]] = field(default_factory=set)
    command_stance: dict[str, int] = field(default_factory=dict)  # code span -> 1 used, 2 rejected, 3 both
    flags: set[str] = field(default_factory=set)  # flags it brings, as words

    def add(self, other: _Said) -> None:
        # Most sentences fill few of these: the empty ones are skipped before any loop. (Each
        # field is written out: a text's every sentence is added, ~57,000 in a 10k dream.)
        if other.slots:
            _add_sets(self.slots, other.slots)
        if other.picks:
            _add_sets(self.picks, other.picks)
        if other.stance:
            _add_bits(self.stance, other.stance)
        if other.heads:
            _add_bits(self.heads, other.heads)
        if other.command_stance:
            _add_bits(self.command_stance, other.command_stance)
        if other.actions:
            self.actions |= other.actions
        if other.objects:
            self.objects |= other.objects
        if other.poles:
            self.poles |= other.poles


def _add_sets(mine: dict[str, set[str]], theirs: dict[str, set[str]]) -> None:
    for key, values in theirs.items():
        mine.setdefault(key, set()).update(values)


def _add_bits(mine: dict[str, int], theirs: dict[str, int]) -> None:
    if not mine:
        mine.update(theirs)  # the bits or-ed with none
        return
    get = mine.get
    for key, bits in theirs.items():
        mine[key] = get(key, 0) | bits


# A batch's memories repeat one another's sentences (a title restated as the content's first
# sentence, several agents sending one tip, an entry's line quoted back): each distinct sentence
# is read once, for the code words and flags of the text around it, which change its reading.
_SENTENCES: dict[tuple[str, frozenset[str], frozenset[str]], _Said] = {}
# A sentence's reading holds several small dicts and sets (a kilobyte or so): fewer are kept
# than of the other caches. A dream of 10,000 memories reads about 13,000 distinct sentences.
_SENTENCES_KEPT = 20_000


class _Reader:
    """One pass over a text's sentences and clauses, collecting what Features holds."""

    def __init__(self, text: str, names: frozenset[tuple[str, ...]]) -> None:
        spans = [" ".join(span.lower().split()) for span in _CODE_RE.findall(text)]
        self.commands = {span for span in spans if span}
        self.code_words = {w for span in spans for w in normalise(span).split()}
        self.code_words |= {w for ident in names for w in ident}
        self.flags: set[str] = set()  # flags as one word: the "no" of `--no-cache` rejects nothing
        self.said = _Said()

    def sentence(self, sentence: str) -> None:
        # The text's code words and flags change how a sentence reads only where the sentence
        # has them as words, and then has them as substrings: those are the key's.
        code_words = frozenset(w for w in self.code_words if w in sentence) if self.code_words else _NO_WORDS
        flags = code_words & self.flags if code_words and self.flags else _NO_WORDS
        key = (sentence, code_words, flags)
        said = _SENTENCES.get(key)
        if said is None:
            said = _read_sentence(sentence, code_words, flags)
            if len(_SENTENCES) >= _SENTENCES_KEPT:
                _SENTENCES.clear()
            _SENTENCES[key] = said
        self.said.add(said)
        if said.flags:
            self.flags |= said.flags
            self.code_words |= said.flags


_NO_WORDS: frozenset[str] = frozenset()


def _read_sentence(sentence: str, code_words: frozenset[str], flags: frozenset[str]) -> _Said:
    """What `sentence` states, read with the code words and flags of the text around it."""
    # A rejection carries over a colon when it is all the clause before says ("Never read:
    # .env, keys"), not after a full instruction ("Decimal, never float: float rounding
    # broke totals"), and never past a dash or a parenthesis, which start an aside
    # ("Avoid `any` — use `unknown`", "uv (never pip)"), nor into a statement explaining
    # the rule ("Never hand-edit src/gen: that directory is regenerated by `make codegen`"),
    # which lists nothing rejected.
    said = _Said()
    growing_code, growing_flags = set(code_words), set(flags)
    carried = aside = False
    parts = _split_outside_code(_ASIDE_RE, sentence)
    if len(parts) > 1 and "`" in sentence and _DEFINED_RE.match(sentence) is not None:
        # A command heading a line and the words after its dash say what it is ("`npm run dev`
        # - the development server, started by the user"): a mention, no instruction to run it.
        parts = parts[1:]
    for part in parts:
        # An aside listing only code examples of what the clause before rejects ("Do not add
        # AI credits (`Co-Authored-By: Claude` or similar)") names more of it: rejected too.
        # After such an aside, "or ..." goes on listing what is rejected ("Never create docs
        # (`*.md`) or README files").
        carried = carried and (_examples_only(part) or (aside and _continues(part)))
        aside = carried
        for clause in _split_outside_code(_COLON_RE, part):
            if carried and _explains(clause):
                carried = False
            carried = _clause(clause, carried, said, growing_code, growing_flags)
        if _DIGIT_RE.search(part):
            _read_numbers(part, said.slots)
    said.flags = growing_flags - flags
    return said


_DEFINED_RE = re.compile(r"\s*[-*+]?\s*`[^`\n]+`\s+[-–—]+\s")  # "`cmd` - what it is"
_EXAMPLE_WORDS = frozenset("or and similar etc eg e g like such as any other the a an".split())


def _examples_only(part: str) -> bool:
    """The part is code spans, paths or file patterns, and the words that list examples ("`X`
    or similar", "`X`, `Y`", "*.md")."""
    if "`" not in part:
        tokens = part.replace(",", " ").split()
        return bool(tokens) and all(t in _EXAMPLE_WORDS or _PATH_LIKE_RE.search(t) is not None for t in tokens)
    rest = _WORD_RE.findall(_CODE_RE.sub(" ", part).lower())
    return _EXAMPLE_WORDS.issuperset(rest)


_PATH_LIKE_RE = re.compile(r"[*/]|\w\.\w|^\\?\*?\.\w")


def _continues(part: str) -> bool:
    """The part goes on with the list before an aside: "or README files", "nor tests"."""
    return part.lstrip().startswith(("or ", "nor "))


# A clause starting with one of these, or saying one of these, states something (an
# explanation) rather than listing things: "that directory is regenerated", "it breaks CI".
_STATEMENT_START = frozenset("it this that they these those there".split())
_STATEMENT_VERBS = frozenset("is are was were will would has have had gets get becomes".split())


# Words that make a statement a requirement ("tests must pass", "the lock file needs committing").
_MODALS = frozenset("must should need needs required requires always ensure".split())


def _adverb(word: str) -> bool:
    return len(word) > 4 and word.endswith("ly") and word not in _NOT_ADVERBS


_NOT_ADVERBS = frozenset("apply reply supply assembly family anomaly".split())
_QUALIFIERS = frozenset("""
new old existing extra separate single own proper relevant corresponding additional same other one ones
""".split())


def _has_to(words: Sequence[str]) -> bool:
    """"You have to run it", "tests have to pass": a requirement, though its verb is "have"."""
    return any(word in ("has", "have", "had") and following == "to"
               for word, following in zip(words, words[1:], strict=False))


def _explains(clause: str) -> bool:
    words = _WORD_RE.findall(_CODE_RE.sub(" ", clause))
    return bool(words) and (words[0] in _STATEMENT_START or not _STATEMENT_VERBS.isdisjoint(words))


def _split_outside_code(pattern: re.Pattern[str], text: str) -> list[str]:
    """`pattern.split(text)`, but never inside a code span: the parenthesis of
    `type(scope): ...` and the ` -- ` of `cargo clippy -- -D warnings` are the command's, and
    opening no aside there keeps a rejection before the span over all of it."""
    if "`" not in text:
        return pattern.split(text)
    parts = [""]
    position = 0
    for span in _CODE_RE.finditer(text):
        outside = pattern.split(text[position:span.start()])
        parts[-1] += outside[0]
        parts.extend(outside[1:])
        parts[-1] += span.group(0)
        position = span.end()
    outside = pattern.split(text[position:])
    parts[-1] += outside[0]
    parts.extend(outside[1:])
    return parts


def _clause(clause: str, rejected: bool, said: _Said, code_words: set[str], flags: set[str]) -> bool:
    """Read one clause into `said`; whether it rejects from its start to its end. `code_words`
    and `flags` (the text's, so far) grow with the flags the clause brings."""
    words: list[str] = []
    restarts = {0}  # positions where a comma may start a new instruction (and the start)
    spans: dict[int, str] = {}  # word position -> the code span starting there
    # One regex over the clause (normalise's words, plus commas, flags and code spans).
    for token in _CLAUSE_TOKEN_RE.findall(clause):
        first = token[0]
        if first == ",":
            restarts.add(len(words))
        elif first == "`":
            span = " ".join(token.strip("`").split())
            span_words = _span_words(_TOKEN_RE.findall(span), code_words, flags)
            if span_words:
                spans[len(words)] = span
                words.extend(span_words)
        elif first == "-":
            words.append(_flag(token, code_words, flags))
        else:
            words.append(token)
    # A statement ("files in src/gen are generated by `make codegen`", "the dev server is
    # already running") says how things are, not what to do: its words are no "do" of the
    # rule, so a rule rejecting them ("never hand-edit src/gen") is not its opposite. The tool
    # a statement names is still its pick ("the package manager is pnpm"), but not an
    # environment it mentions ("the development server"), and what it negates is still
    # rejected.
    # An instruction starts with its verb ("Disclose that the PR was authored with Claude" is
    # one, whatever its "was").
    # A leading condition's verbs ("If the branch is pushed, never rebase") are the
    # condition's: what follows its comma says whether the clause instructs.
    said_words = words[min((p for p in restarts if p > 0), default=len(words)):] \
        if words and words[0] in _CONDITION else words
    states = bool(said_words) and not _STATEMENT_VERBS.isdisjoint(said_words) and _MODALS.isdisjoint(said_words) \
        and stem(said_words[0]) not in _VERBS and said_words[0] not in _RESTART and not _has_to(said_words)
    phrase = False  # the rejection is a phrase's ("instead of npm"), not the clause's
    whole = rejected  # rejecting from the clause's start
    acting = False  # after a verb heading the clause, in the words it acts on
    conditional = False  # after "when", "if", "unless": no verb there heads the rule
    since = 0  # content words since the clause began or a rejection did: 0 is its head
    # Locals: this loop runs for every word of every distinct sentence read.
    known, stance, heads = _WORDS, said.stance, said.heads
    for position, word in enumerate(words):
        kind, s, tool = known.get(word) or _word(word)
        if kind & _CONDITION_K or (kind & _RESTART_K and position in restarts) \
                or (phrase and kind & _PHRASE_END_K):
            rejected = phrase = whole = acting = False
            conditional = bool(kind & _CONDITION_K)
            since = 0
        elif acting and (kind & (_PHRASE_END_K | _REJECTS_K) or word in _ORDER_WORDS):
            acting = False  # "for every fix", "before committing", "instead of npm": no object
        if spans and position in spans:
            started = spans[position]
            # A path or a name a statement mentions ("files under `web/api/` are generated")
            # is not used by it; a command line it gives still is.
            if rejected or not states or " " in started:
                said.command_stance[started] = said.command_stance.get(started, 0) | (2 if rejected else 1)
        if kind & _REJECTS_K and word not in flags:
            phrase = bool(kind & _REJECT_PHRASE_K) and not rejected
            whole = whole or (not phrase and _content_before(words, position) == 0)
            rejected = True
            since = 0
            continue
        if kind & _DIGIT_K:
            continue
        if kind & _POLE_K:
            said.poles.add(POLES[word])
        # A code word counts even when it is not a content word (`any`), unless a stop word.
        if not kind & _CONTENT_K and (kind & _STOP_K or word not in code_words):
            continue
        bit = 2 if rejected else 1
        if acting:
            # "locally", "directly": how, not what; "a new branch": which, not what
            if not _adverb(word) and word not in _QUALIFIERS:
                said.objects.add(s)
        elif since == 0 and not conditional and s in _HEAD_VERBS:
            acting = True
        if states and bit == 1 and (tool is None or tool[0] in SUBJECT_SLOTS):
            since += 1
            continue
        stance[s] = stance.get(s, 0) | bit
        if since == 0:
            heads[s] = heads.get(s, 0) | bit
        # A participle names a kind, not the action ("generated code", "committed files").
        if since < 2 and kind & _ACTION_K and not word.endswith("ed"):
            said.actions.add(s)
        since += 1
        if tool is not None and not rejected:
            said.picks.setdefault(tool[0], set()).add(tool[1])
    return rejected and whole


def _flag(token: str, code_words: set[str], flags: set[str]) -> str:
    """A flag as one word: the "no" of `--no-cache` rejects nothing."""
    word = "".join(_WORD_RE.findall(token))
    code_words.add(word)
    flags.add(word)
    return word


def _span_words(tokens: Iterable[str], code_words: set[str], flags: set[str]) -> list[str]:
    return [_flag(token, code_words, flags) if token[0] == "-" else token
            for token in tokens if token != ","]


def _content_before(words: Sequence[str], position: int) -> int:
    return sum(1 for w in words[:position] if _content(w))


def _read_numbers(clause: str, slots: dict[str, set[str]]) -> None:
    """Each number that states a fact, under the words next to it: "port 5432" fills
    "after port"; "88 characters" fills "before charact". Durations in a story are skipped."""
    words = normalise(_DECIMAL_RE.sub(r"\1DOT\2", clause)).split()
    words = [w.replace("dot", ".") if w[0].isdigit() else w for w in words]
    setting = any(w in _SETTING_WORDS for w in words)
    for i, word in enumerate(words):
        if not _NUMBER_RE.fullmatch(word):
            continue
        before = next((w for w in reversed(words[:i]) if _content(w) and not w[0].isdigit()), "")
        after = next((w for w in words[i + 1:i + 2] if _content(w) and not w[0].isdigit()), "")
        if after in _TIME_UNITS and not setting:
            continue  # "took 3 minutes", "failed 1 run in 5": how it went, not what to do
        if i and words[i - 1] in NEGATIONS:
            continue  # "5433, not 5432": the value it is not
        # The service it is said of: the nearest one named before it, unless the number is the
        # service's own ("Redis on 6379": a slot of its own, as "Node 18" is).
        named = next((w for w in reversed(words[:i]) if w in _SUBJECTS), "")
        subject = "" if named == before else _ALIASES.get(named, named)
        unit = _SLOT_WORDS.get(stem(before), stem(before)) if before else ""
        for key in ((f"after {unit}" if unit else ""), (f"before {stem(after)}" if after else "")):
            if key:
                slots.setdefault(f"{key}{_SUBJECT_MARK}{subject}" if subject else key, set()).add(word)


_SUBJECT_MARK = "@"  # a slot key's subject follows it: "after port@postgres"


def slot_conflicts(a: Mapping[str, AbstractSet[str]], b: Mapping[str, AbstractSet[str]]
                   ) -> Iterator[tuple[str, AbstractSet[str], AbstractSet[str]]]:
    """(slot, a's values, b's values) for each slot both fill differently; the slot is
    "subject" (values: the services) when each names its numbers' services, all different.
    A side naming no service for a slot is compared on all its values, as a rewording that
    leaves the service out says the same thing."""
    if a and b:
        yield from _unit_conflicts(_by_unit(a), _by_unit(b))


def _unit_conflicts(units_a: Mapping[str, Mapping[str, AbstractSet[str]]],
                    units_b: Mapping[str, Mapping[str, AbstractSet[str]]]
                    ) -> Iterator[tuple[str, AbstractSet[str], AbstractSet[str]]]:
    """slot_conflicts on slots grouped by _by_unit."""
    for unit in sorted(units_a.keys() & units_b.keys()):
        of_a, of_b = units_a[unit], units_b[unit]
        if "" in of_a or "" in of_b:
            values_a = frozenset().union(*of_a.values())
            values_b = frozenset().union(*of_b.values())
            if values_a.isdisjoint(values_b):
                yield unit, values_a, values_b
            continue
        common = sorted(of_a.keys() & of_b.keys())
        if not common:
            yield "subject", frozenset(of_a), frozenset(of_b)
        for subject in common:
            if of_a[subject].isdisjoint(of_b[subject]):
                yield unit, of_a[subject], of_b[subject]


def _by_unit(slots: Mapping[str, AbstractSet[str]]) -> dict[str, dict[str, AbstractSet[str]]]:
    """slot -> subject ("" for none) -> values."""
    units: dict[str, dict[str, AbstractSet[str]]] = {}
    for key, values in slots.items():
        unit, _, subject = key.partition(_SUBJECT_MARK)
        units.setdefault(unit, {})[subject] = values
    return units


# --- rarity -------------------------------------------------------------------------------------


class Weights:
    """Inverse document frequency of stems over the documents compared together."""

    def __init__(self, documents: Iterable[Features] = ()) -> None:
        self.df: Counter[str] = Counter()
        self.docs = 0
        self.add(documents)

    def add(self, documents: Iterable[Features]) -> None:
        for features in documents:
            self.df.update(features.stems)
            self.docs += 1
        self._cache: dict[str, float] = {}
        # id(features) -> (features, stem weights, their sum): a text is compared many times.
        self._vectors: dict[int, tuple[Features, dict[str, float], float]] = {}

    def vector(self, features: Features) -> tuple[dict[str, float], float]:
        found = self._vectors.get(id(features))
        if found is None or found[0] is not features:
            found = self._vector(features)
        return found[1], found[2]

    def _vector(self, features: Features) -> tuple[Features, dict[str, float], float]:
        strong = features.strong
        weights = {s: self(s) * (STRONG_WEIGHT if s in strong else 1.0) for s in features.stems}
        for s in features.alternatives:
            weights[s] *= ALTERNATIVE_WEIGHT
        for s in features.quoted:
            weights[s] *= QUOTED_WEIGHT
        for s in features.circumstances:
            weights[s] *= CIRCUMSTANCE_WEIGHT
        found = self._vectors[id(features)] = (features, weights, math.fsum(weights.values()))
        return found

    def __call__(self, stem_: str) -> float:
        found = self._cache.get(stem_)
        if found is None:
            n = max(self.docs, MIN_CORPUS)
            found = self._cache[stem_] = math.log(1 + n / max(1, self.df.get(stem_, 0)))
        return found

    def of(self, features: Features, stem_: str) -> float:
        return self(stem_) * (STRONG_WEIGHT if stem_ in features.strong else 1.0)


# --- the verdict --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """`score` 0-100 (config.dream.similarity's scale); `conflicts` the facts stated differently."""

    score: float
    conflicts: tuple[Conflict, ...]
    threshold: float = DEFAULT_SIMILARITY

    @property
    def same_lesson(self) -> bool:
        return self.score >= self.threshold and not self.conflicts

    @property
    def correction(self) -> bool:
        """Same subject, a different fact: update the fact in place, do not add news."""
        return bool(self.conflicts) and self.score >= min(self.threshold, SUBJECT_SIMILARITY) \
            and not any(c.slot in SUBJECT_SLOTS for c in self.conflicts)

    @property
    def kind(self) -> str:
        return "same" if self.same_lesson else "correction" if self.correction else "different"

    def describe(self) -> str:
        """For a rationale: "same lesson (score 91)", "correction: port: 5432 vs 5433"."""
        if self.same_lesson:
            return f"same lesson (score {self.score:.0f})"
        if self.correction:
            return "correction: " + "; ".join(str(c) for c in self.conflicts)
        return f"different (score {self.score:.0f})"


def _lower_shared(a: Features, b: Features) -> frozenset[str]:
    """The stems two texts share at the lower of their weights: each one's circumstances, but
    a permission word one states as its condition and the other as its rule (Features.asks),
    and an example (one text's example may be what the other says: '"Add feature", not
    "Added feature"' restates "imperative subjects (e.g. "Add feature")")."""
    if not a.circumstances and not b.circumstances:
        return _NO_WORDS
    asked = (a.circumstances & b.asks) | (b.circumstances & a.asks) if a.asks or b.asks else _NO_WORDS
    return ((a.circumstances - a.examples) | (b.circumstances - b.examples)) - asked


def raw_overlap(a: Features, b: Features, weights: Weights, *, kin: bool = True, linking: bool = False) -> float:
    """Weighted overlap of the stems: the mean of Dice and overlap-over-the-smaller, so a short
    rewording inside a longer one scores high, and two long texts need much in common. With
    `kin=False` kindred words count only where they are the same word; with `linking` only
    those of the families in LINKING_KIN are bridged (clustering: see cluster._cluster)."""
    shared = a.stems & b.stems
    # A bridge needs a kindred word on each side that the other does not say itself: two
    # subset tests in C spare most pairs (which share their kindred words) the family loop.
    if linking:
        kin_a, kin_b = a.linking_kin, b.linking_kin
        bridged = bridges(kin_a, kin_b) if kin_a and kin_b and not a.linking_stems <= b.linking_stems \
            and not b.linking_stems <= a.linking_stems else ()
    else:
        bridged = bridges(a.kin, b.kin) if kin and a.kin and b.kin and not a.kin_stems <= b.kin_stems \
            and not b.kin_stems <= a.kin_stems else ()
    if not shared and not bridged:
        return 0.0
    # Weights.vector inlined: clustering calls this for every candidate pair.
    vectors = weights._vectors
    found = vectors.get(id(a))
    _, va, wa = found if found is not None and found[0] is a else weights._vector(a)
    found = vectors.get(id(b))
    _, vb, wb = found if found is not None and found[0] is b else weights._vector(b)
    # The terms are summed by math.fsum (exactly rounded, so in any order): the stems are sets,
    # whose order follows PYTHONHASHSEED, and a float sum in that order differs in its last bits
    # from one process to the next; ties between links, entries and thresholds then went one way
    # or the other (one memory of the 500-memory benchmark dream changed entry with the seed).
    # A circumstance on either side counts as shared at its lower weight (see _circumstances).
    lower = _lower_shared(a, b) if a.circumstances or b.circumstances else _NO_WORDS
    terms = [(va[s] if va[s] < vb[s] else vb[s]) if s in lower else (va[s] if va[s] > vb[s] else vb[s])
             for s in shared]
    alternatives = a.alternatives | b.alternatives if a.alternatives or b.alternatives else _NO_WORDS
    if alternatives and not shared.isdisjoint(alternatives):
        more_a, more_b = [wa], [wb]
        for s in shared & alternatives:
            # An alternative both texts reject is a fact they share: at its full weight on each side.
            full_a = va[s] / ALTERNATIVE_WEIGHT if s in a.alternatives else va[s]
            full_b = vb[s] / ALTERNATIVE_WEIGHT if s in b.alternatives else vb[s]
            terms.append(max(full_a, full_b) - max(va[s], vb[s]))
            more_a.append(full_a - va[s])
            more_b.append(full_b - vb[s])
        wa, wb = math.fsum(more_a), math.fsum(more_b)
    # A kin counts as a shared stem of their mean weight, at KIN_SHARE: each side's total
    # already holds its own word.
    for x_, y_ in bridged:
        terms.append(KIN_SHARE * (va[x_] + vb[y_]) / 2)
    if a.acronyms or b.acronyms:
        # An acronym one side spells out ("ESM" / "ES modules", "TDD" / "test-driven
        # development") is shared: at the mean of its weight and its words'.
        for short, long, vs, vl in ((a, b, va, vb), (b, a, vb, va)):
            for acronym, window in _spelled_out(short, long) if short.acronyms else ():
                terms.append((vs[acronym] + math.fsum(vl.get(w, 0.0) for w in window)) / 2)
    return _mix(math.fsum(terms), wa, wb)


# Three letters at least: two spell too many word pairs ("PR" / "please review").
_ACRONYM_RE = re.compile(r"(?<![\w-])([A-Z]{3,5})s?(?![\w-])")


# Two-letter acronyms that give their letters inside a longer one ("ES modules": ESM).
_SHORT_ACRONYMS = frozenset("es js ts ui ux db ci cd io ml ai os".split())


def _spelled_out(short: Features, long: Features) -> list[tuple[str, frozenset[str]]]:
    """(acronym stem, the stems spelling it) for each acronym of `short` that `long` does not
    say itself but spells out in consecutive words, an acronym among them giving its letters
    ("ES modules" spells ESM)."""
    found: list[tuple[str, frozenset[str]]] = []
    for acronym in short.acronyms:
        s = stem(acronym)
        if s in long.stems or s not in short.stems:
            continue
        initials, owner, words = long.initials
        position = initials.find(acronym)
        while position >= 0:
            first, last = owner[position], owner[position + len(acronym) - 1]
            # The letters begin and end with whole words, more than one.
            if last > first and (position == 0 or owner[position - 1] != first) \
                    and (position + len(acronym) == len(owner) or owner[position + len(acronym)] != last):
                found.append((s, frozenset(stem(w) for w in words[first:last + 1]) & long.stems))
                break
            position = initials.find(acronym, position + 1)
    return found


def _mix(shared: float, wa: float, wb: float) -> float:
    dice = 2 * shared / (wa + wb)
    smaller = shared / min(wa, wb)
    return min(1.0, (1 - SMALLER_SHARE) * dice + SMALLER_SHARE * smaller)


# Rarity when two texts are compared alone: a stem in one of them, or in both.
_ALONE_IDF = math.log(1 + MIN_CORPUS), math.log(1 + MIN_CORPUS / 2)


def pair_overlap(a: Features, b: Features) -> float:
    """raw_overlap(a, b, Weights((a, b))) without building the weights: callers compare one
    entry body with many sentences."""
    return _alone_overlap(a.stems, a.strong, b.stems, b.strong, a.kin, b.kin,
                          (a.quoted, a.alternatives, a.circumstances, _lower_shared(a, b)),
                          (b.quoted, b.alternatives, b.circumstances, _NO_WORDS))


_Reduced = tuple[AbstractSet[str], AbstractSet[str], AbstractSet[str], AbstractSet[str]]
_NO_REDUCED: _Reduced = (frozenset(), frozenset(), frozenset(), frozenset())


def _alone_overlap(stems_a: AbstractSet[str], strong_a: AbstractSet[str],
                   stems_b: AbstractSet[str], strong_b: AbstractSet[str],
                   kin_a: Mapping[int, AbstractSet[str]] | None = None,
                   kin_b: Mapping[int, AbstractSet[str]] | None = None,
                   reduced_a: _Reduced = _NO_REDUCED, reduced_b: _Reduced = _NO_REDUCED) -> float:
    """`kin_a`, `kin_b`: kin_of the stems, when the caller has them; `reduced_a`, `reduced_b`:
    each text's quoted stems, alternatives and circumstances (Features.quoted,
    Features.alternatives, Features.circumstances), and the stems shared at the lower weight
    (_lower_shared: in either tuple)."""
    shared = stems_a & stems_b
    bridged = bridges(kin_of(stems_a) if kin_a is None else kin_a, kin_of(stems_b) if kin_b is None else kin_b)
    if not shared and not bridged:
        return 0.0
    once, twice = _ALONE_IDF
    extra = STRONG_WEIGHT - 1
    if bridged or any(reduced_a) or any(reduced_b):
        return _alone_weighted(stems_a, strong_a, stems_b, strong_b, shared, bridged, reduced_a, reduced_b)

    def total(stems: AbstractSet[str], strong: AbstractSet[str]) -> float:
        strong_shared = len(strong & shared)
        return (once * (len(stems) - len(shared)) + twice * len(shared)
                + extra * (once * (len(strong) - strong_shared) + twice * strong_shared))

    ws = twice * (len(shared) + extra * len(shared & (strong_a | strong_b)))
    return _mix(ws, total(stems_a, strong_a), total(stems_b, strong_b))


def _alone_weighted(stems_a: AbstractSet[str], strong_a: AbstractSet[str],
                    stems_b: AbstractSet[str], strong_b: AbstractSet[str], shared: AbstractSet[str],
                    bridged: Sequence[tuple[str, str]],
                    reduced_a: _Reduced, reduced_b: _Reduced) -> float:
    """_alone_overlap stem by stem, as raw_overlap weighs: for texts with kin, quoted words,
    alternatives or circumstances."""
    once, twice = _ALONE_IDF

    def weight(s: str, strong: AbstractSet[str], reduced: _Reduced) -> float:
        quoted, alternatives, circumstances, _ = reduced
        found = (twice if s in shared else once) * (STRONG_WEIGHT if s in strong else 1.0)
        if s in quoted:
            found *= QUOTED_WEIGHT
        if s in circumstances:
            found *= CIRCUMSTANCE_WEIGHT
        if s in alternatives and s not in shared:  # an alternative both reject weighs in full
            found *= ALTERNATIVE_WEIGHT
        return found

    va = {s: weight(s, strong_a, reduced_a) for s in stems_a}
    vb = {s: weight(s, strong_b, reduced_b) for s in stems_b}
    lower = reduced_a[3] | reduced_b[3]
    # math.fsum: exactly rounded whatever the sets' order (raw_overlap says why).
    ws = math.fsum(chain((min(va[s], vb[s]) if s in lower else max(va[s], vb[s]) for s in shared),
                         (KIN_SHARE * (va[x] + vb[y]) / 2 for x, y in bridged)))
    return _mix(ws, math.fsum(va.values()), math.fsum(vb.values()))


def calibrated(raw: float) -> float:
    """The raw overlap (0-1) on config.dream.similarity's scale (RAW_CUT -> DEFAULT_SIMILARITY)."""
    if raw <= RAW_CUT:
        return DEFAULT_SIMILARITY * raw / RAW_CUT
    return DEFAULT_SIMILARITY + (100 - DEFAULT_SIMILARITY) * (raw - RAW_CUT) / (1 - RAW_CUT)


def conflicts(a: Features, b: Features) -> tuple[Conflict, ...]:
    """Facts both texts state, differently. One-sided mentions are never conflicts."""
    return tuple(_conflicts(a, b))


def conflicting(a: Features, b: Features) -> bool:
    """Whether any fact conflicts: `conflicts` stopping at the first (clustering asks this)."""
    return next(_conflicts(a, b), None) is not None


def _conflicts(a: Features, b: Features) -> Iterator[Conflict]:
    """The conflicts one by one, the cheapest checks first."""
    # Test-first is when tests are written; a rule on tests without it says whether or how
    # ("Write tests before the implementation" / "Run the tests before committing").
    if ("testfirst" in a.stems) != ("testfirst" in b.stems) and "test" in a.stems and "test" in b.stems:
        yield Conflict("aspect", "test first" if "testfirst" in a.stems else "tests",
                       "test first" if "testfirst" in b.stems else "tests")
    if (a.languages or b.languages) and not _beside_language(a, b) and not _beside_language(b, a):
        found = _language_conflict(a.languages, b.languages)
        if found is None and a.languages and b.languages:
            found = _language_scope(a, b)
        if found is not None:
            yield found
    fa, fb = a.facts, b.facts
    # Each check looks at what both sides have first: most pairs share no slot, no pick, no pole.
    if fa.slots and fb.slots:
        for slot, values_a, values_b in _unit_conflicts(fa.units, fb.units):
            yield Conflict(slot.split(" ", 1)[1] if " " in slot else slot,
                           "/".join(sorted(values_a)), "/".join(sorted(values_b)))
    # Only two different picks conflict: a text may mention a tool it does not endorse ("black
    # formats differently") while the other rejects it.
    if fa.picks and fb.picks:
        for slot in sorted(fa.picks.keys() & fb.picks.keys()):
            if fa.picks[slot].isdisjoint(fb.picks[slot]):
                yield Conflict(slot, "/".join(sorted(fa.picks[slot])), "/".join(sorted(fb.picks[slot])))
        # Each picking a tool for another role (uv for Python packages, yarn for JavaScript's):
        # two rules, however alike "package manager" reads on both.
        roles_a, roles_b = fa.picks.keys() - SUBJECT_SLOTS, fb.picks.keys() - SUBJECT_SLOTS
        if roles_a and roles_b and roles_a.isdisjoint(roles_b):
            yield Conflict("picks", "/".join(sorted(roles_a)), "/".join(sorted(roles_b)))
    elif fa.picks or fb.picks:
        unpicked = _unpicked(a, b) or _unpicked(b, a)
        if unpicked is not None:
            yield Conflict("picks", *unpicked)
    if fa.rejected and fb.rejected:
        forbidden = _forbids_another_action(a, b) or _forbids_another_action(b, a)
        if forbidden is not None:
            yield Conflict("prohibited", *forbidden)
    axes = fa.axes, fb.axes
    for axis in sorted(axes[0].keys() & axes[1].keys()) if axes[0] and axes[1] else ():
        if axes[0][axis].isdisjoint(axes[1][axis]):
            # "before committing" / "after making changes": two moments of one workflow, each
            # relative to its own step, are no opposite facts ("before" / "after committing" are).
            if axis in _STEP_AXES and _in_steps(a, axis) and _in_steps(b, axis) \
                    and _other_steps(fa.words, fb.words, axis.split("/")):
                continue
            low, high = axis.split("/")
            yield Conflict(axis, low if 0 in axes[0][axis] else high, low if 0 in axes[1][axis] else high)
    # A quoted word is an example, not what the rule does ('"Add parser"' in a rule on
    # commit subjects), so it is no action of it.
    actions_a = fa.actions - a.quoted if a.quoted else fa.actions
    actions_b = fb.actions - b.quoted if b.quoted else fb.actions
    if actions_a and actions_b and actions_a.isdisjoint(actions_b) \
            and actions_a.isdisjoint(b.stems) and actions_b.isdisjoint(a.stems) \
            and not any(kindred(x, y) for x in actions_a for y in actions_b):
        yield Conflict("action", "/".join(sorted(actions_a)), "/".join(sorted(actions_b)))
    # Two prohibitions are one rule when they prohibit one thing, not when they share only the
    # verb: "never force push" and "never push directly to `main`" both forbid pushing, but
    # each forbids its own thing (the force, the branch), which the other never mentions.
    # Sharing no prohibited word at all is no such sign: "use pnpm, not npm" and "use pnpm,
    # never yarn" reject different alternatives to one choice.
    if fa.rejected and fb.rejected:
        common = _mentioned(fa.rejected, b) | _mentioned(fb.rejected, a)
        own_a, own_b = fa.rejected - common, fb.rejected - common
        # A word both name as what their verb acts on is shared as an object, not as a verb:
        # "never create a git commit" / "do not create commits or branches" forbid one thing.
        if own_a and own_b and common and common <= _VERBS and not common & fa.objects & fb.objects:
            yield Conflict("prohibited", "/".join(sorted(own_a)), "/".join(sorted(own_b)))
    # Do vs do not: on a strong term always; on a plain word only where it heads a clause on
    # both sides and the side doing it rejects nothing at all ("always pass X" / "never pass
    # X"): a rejection's scope is a guess ("floats produce rounding errors" does not endorse
    # floats, "never use float" rejects them).
    opposed: AbstractSet[str] = (fa.done & fb.rejected) | (fa.rejected & fb.done) \
        if fa.rejected or fb.rejected else _NO_WORDS
    if opposed:
        # A word only quoted (named, as in "lines like "Generated with Claude"") or only an
        # argument of a command line ("`clippy -- -D warnings`": the command denies warnings)
        # is neither done nor rejected; "X only when asked", "ask before X" and "no X without
        # asking" are one permission, not opposite stances on X.
        opposed = opposed - a.quoted - b.quoted - _arguments(a) - _arguments(b)
        # A word both say only in a stock clause ("without explicit user request" / "unless
        # asked") is where the rules apply, on which neither takes a stance.
        if opposed and a.circumstances and b.circumstances:
            opposed = opposed - (a.circumstances & b.circumstances)
        if opposed and (a.asks or b.asks or _only_when(a, b) or _only_with(a, b) or _only_with(b, a)):
            opposed = _NO_WORDS
    strong = a.strong | b.strong if opposed else frozenset()
    # Two preferences ("prefer X over Y", "X instead of Y") where what one prefers is what the
    # other prefers something over: opposite choices, whatever the word ("arrow functions over
    # function declarations" / "function declarations over function expressions").
    # So are "X, not Y" and "Y, not X": each picks what the other rejects ("Use tabs, not
    # spaces" / "Use spaces, not tabs"), in both directions.
    choices = bool(opposed) and ((_prefers(fa) and _prefers(fb))
                                 or (not opposed.isdisjoint(fa.done & fb.rejected)
                                     and not opposed.isdisjoint(fa.rejected & fb.done)))
    for s in sorted(opposed):
        doer = fa if fa.stance[s] == 1 else fb
        # A tool one side rejects ("`bun test` instead of jest") and the other picks as what a
        # clause is about ("Use Jest") is a conflict; a tool only mentioned in passing ("jest
        # output is noisy") is not a pick of it.
        if s in _TOOL_SLOT and doer.heads.get(s) != 1:
            continue
        # "avoid custom CSS" / "style with Tailwind CSS", "never raw SQL" / "use parameterised
        # SQL": each side qualifies the word by its own word, so each speaks of another kind.
        if _qualified_apart(s, fa, fb):
            continue
        heads = {fa.heads.get(s, 0), fb.heads.get(s, 0)} == {1, 2}
        if s in strong or (heads and not doer.rejects_any) or (choices and s not in _VERBS):
            yield Conflict(s, "do" if fa.stance[s] == 1 else "do not",
                           "do" if fb.stance[s] == 1 else "do not")
    # The same stance swapped with a kindred verb ("Never write comments" / "Add comments"):
    # one side forbids what the other, rejecting nothing, asks.
    if a.kin and b.kin and fa.heads and fb.heads and fa.rejects_any != fb.rejects_any:
        kin_swap = _kin_opposed(fa, fb) if fa.rejects_any else _kin_opposed(fb, fa)
        if kin_swap is not None:
            yield Conflict("polarity", *(kin_swap if fa.rejects_any else kin_swap[::-1]))
    if (fa.core == fb.core and _negation_swap(fa.words, fb.words)) \
            or (fa.core_all == fb.core_all and _negation_swap(fa.norm.split(), fb.norm.split())):
        yield Conflict("polarity", "negated" if fa.rejects_any else "affirmed",
                       "negated" if fb.rejects_any else "affirmed")
    # "Only commit when the user asks" / "Commit and push at the end of each task": one
    # allows the action on request only, the other requires it unasked; opposite rules on one
    # action ("never commit" restates the first, and is left to the stances above).
    if a.permission != b.permission:
        free = b if a.permission else a
        if not free.facts.rejects_any and not free.conditional:
            yield Conflict("permission", "only when asked" if a.permission else "unasked",
                           "only when asked" if b.permission else "unasked")
    # A command run "only when asked" is the one another forbids "without a request".
    stances = (fa.used & fb.refused) | (fa.refused & fb.used) if fa.refused or fb.refused else _NO_WORDS
    if stances and _only_when(a, b):
        stances = _NO_WORDS
    for span in sorted(stances):
        yield Conflict(f"`{span}`", "use" if span in fa.used else "do not use",
                       "use" if span in fb.used else "do not use")
    if fa.commands and fb.commands:
        # The commands each side names and the other never mentions, looked up once for both.
        only_a = [c for c in sorted(fa.commands) if not _mentions(fb.lowered, c)]
        only_b = [c for c in sorted(fb.commands) if not _mentions(fa.lowered, c)]
        command = _command_swap(only_a, only_b)
        if command is not None:
            yield Conflict("command", *command)
        spans = _span_swap(a, b, only_a, only_b)
        if spans is not None:
            yield Conflict("code", *spans)
    # Two texts each giving facts in slots the other never fills, with no value in common, state
    # different facts (a port here, an image version there): about one service, not one lesson.
    # ("Node 18" and "version 18" share the value: one fact worded two ways.)
    if fa.slots and fb.slots and fa.slot_words.isdisjoint(fb.slot_words) \
            and fa.slot_values.isdisjoint(fb.slot_values):
        yield Conflict("facts", "/".join(sorted(fa.slot_words)), "/".join(sorted(fb.slot_words)))
    # A step done before (after) different named things, neither naming the other's, is a rule
    # for another moment ("before Playwright" vs "before `pytest tests/integration`").
    for pole in sorted(fa.orders.keys() & fb.orders.keys()) if fa.orders and fb.orders else ():
        if fa.orders[pole].isdisjoint(b.stems) and fb.orders[pole].isdisjoint(a.stems):
            yield Conflict(pole, "/".join(sorted(fa.orders[pole])), "/".join(sorted(fb.orders[pole])))
    # The things the verbs act on, each unmentioned by the other text: two rules sharing a verb
    # or a circumstance ("Create a branch for every fix" / "Write a test for every fix").
    if fa.objects and fb.objects and not _mentioned(fa.objects, b) and not _mentioned(fb.objects, a):
        yield Conflict("object", "/".join(sorted(fa.objects)), "/".join(sorted(fb.objects)))
    else:
        objects = _objects_apart(a, b)
        if objects is not None:
            yield Conflict("object", *objects)
    name = _name_swap(a, b)
    if name is not None:
        yield Conflict(*name)
    flag = _rejected_flag(a, b) or _rejected_flag(b, a) if fa.flags or fb.flags else None
    if flag is not None:
        # What each forbids differs: another rule (a subject slot), not a fact to correct.
        yield Conflict("prohibited", *flag)
    swap = single_swap(fa.words, fb.words) if _may_swap(a, b) else None
    if swap is not None and not _other_alternative(swap, fa, fb) and not _circumstantial(swap, a, b) \
            and not _opposite_rejected(swap, a, b) and not _alternative_left_out(swap, fa, fb):
        yield Conflict("word", *swap)


def _beside_language(a: Features, b: Features) -> bool:
    """`a` names a language, `b` none, and they share more than what `a` gives the language to:
    `a` states another rule besides its language ("Commit messages in English, in the format
    `<type>: <summary>`" against the format alone), which the score weighs."""
    if not a.languages or b.languages:
        return False
    rest = a.stems - _LANGUAGES - a.languages.keys() - FRAME - _NOT_LANGUAGE_SUBJECTS - a.circumstances
    return not rest.isdisjoint(b.stems)


def _language_conflict(a: Mapping[str, AbstractSet[str]], b: Mapping[str, AbstractSet[str]]) -> Conflict | None:
    """Languages named for one thing differently ("Commit messages in Japanese" / "in English"),
    or all differently; or one text naming a language and the other none: the language of a
    thing is one rule, anything else said of it another (an "aspect", a subject slot)."""
    if not a or not b:
        said = f"language {'/'.join(sorted(set().union(*(a or b).values())))}"
        return Conflict("aspect", said if a else "no language", "no language" if a else said)
    all_a, all_b = frozenset().union(*a.values()), frozenset().union(*b.values())
    if all_a.isdisjoint(all_b) or any(a[s].isdisjoint(b[s]) for s in a.keys() & b.keys()):
        return Conflict("language", "/".join(sorted(all_a)), "/".join(sorted(all_b)))
    # The language of different things ("tests in Japanese" / "replies in Japanese"): each
    # says it of its own.
    if a.keys().isdisjoint(b.keys()):
        return Conflict("subject", "/".join(sorted(a)), "/".join(sorted(b)))
    return None


# A language rule holds always ("always, without exception") or on a condition ("when the
# request is in Portuguese", "if the user writes in Spanish"): two rules, one the default, the
# other mirroring the person.
_ALWAYS = frozenset("always exception exceptions regardless circumstances".split())
_WHEN = frozenset("when whenever if".split())


def _language_scope(a: Features, b: Features) -> Conflict | None:
    """One language rule conditional, the other always."""
    words_a, words_b = set(a.facts.words), set(b.facts.words)
    cond_a = not _WHEN.isdisjoint(words_a) and _ALWAYS.isdisjoint(words_a)
    cond_b = not _WHEN.isdisjoint(words_b) and _ALWAYS.isdisjoint(words_b)
    always_a = not _ALWAYS.isdisjoint(words_a) and _WHEN.isdisjoint(words_a)
    always_b = not _ALWAYS.isdisjoint(words_b) and _WHEN.isdisjoint(words_b)
    if (cond_a and always_b) or (always_a and cond_b):
        return Conflict("scope", "when" if cond_a else "always", "when" if cond_b else "always")
    return None


def _kin_opposed(rejecter: _Facts, doer: _Facts) -> tuple[str, str] | None:
    """A verb heading the rejection of a text that only rejects, a kindred verb heading the
    other's instruction ("never write" / "add"), what each acts on the same: (the rejected verb,
    the done one)."""
    if rejecter.done:
        return None  # it asks something too: which of its clauses is the rule is a guess
    for x, bits in sorted(rejecter.heads.items()):
        if bits != 2 or x not in _HEAD_VERBS:
            continue
        for y, other in sorted(doer.heads.items()):
            if other == 1 and y != x and kindred(x, y) and not rejecter.objects.isdisjoint(doer.objects):
                return f"do not {x}", f"do {y}"
    return None


def _opposite_rejected(swap: tuple[str, str], a: Features, b: Features) -> bool:
    """The swap is a word one text rejects for the opposite the other states ("Do not be
    verbose" / "Be concise"): one rule (_negated_opposites read the rejection)."""
    old, new = (side.split() for side in swap)
    if len(old) != 1 or len(new) != 1:
        return False
    x, y = stem(old[0]), stem(new[0])
    return (_OPPOSITES.get(x) == y and y in a.stems) or (_OPPOSITES.get(y) == x and x in b.stems)


_STEP_AXES = frozenset({"before/after"})


def _in_steps(features: Features, axis: str) -> bool:
    """The text says the axis's poles only in stock clauses of a workflow step."""
    return all(stem(pole) in features.circumstances for pole in axis.split("/") if stem(pole) in features.stems)


def _other_steps(words_a: Sequence[str], words_b: Sequence[str], poles: Sequence[str]) -> bool:
    """Each text orders by its own step: the content words after its pole ("before
    committing", "after making changes") share no stem or kin with the other's."""
    after_a = _after_pole(words_a, poles)
    after_b = _after_pole(words_b, poles)
    return bool(after_a) and bool(after_b) and after_a.isdisjoint(after_b) \
        and not any(kindred(x, y) for x in after_a for y in after_b)


def _after_pole(words: Sequence[str], poles: Sequence[str]) -> set[str]:
    """The stems of the first content word after each pole word."""
    found = set()
    for i, word in enumerate(words):
        if word in poles:
            following = next((w for w in words[i + 1:i + 4] if _content(w) and w not in POLES), None)
            if following is not None:
                found.add(stem(following))
    return found


def _circumstantial(swap: tuple[str, str], a: Features, b: Features) -> bool:
    """Every word of the swap is one its text says only in a stock clause ("before committing"
    / "after making changes"): where a rule applies, not a fact of it."""
    old, new = swap
    return bool(a.circumstances) and bool(b.circumstances) \
        and all(stem(w) in a.circumstances for w in old.split()) \
        and all(stem(w) in b.circumstances for w in new.split())


def _qualified_apart(s: str, fa: _Facts, fb: _Facts) -> bool:
    """Each text says `s` after a content word of its own (its qualifier), and neither says the
    other's qualifier anywhere."""
    qa, qb = _qualifiers(s, fa.words), _qualifiers(s, fb.words)
    if not qa or not qb or not qa.isdisjoint(qb):
        return False
    stems_a, stems_b = {stem(w) for w in fa.words}, {stem(w) for w in fb.words}
    # The other side may say a qualifier elsewhere, doing it: "Tailwind CSS" against "Tailwind
    # classes rather than external CSS" (what it rejects is the external kind).
    return all(q not in stems_b or fb.stance.get(q) == 1 for q in qa) \
        and all(q not in stems_a or fa.stance.get(q) == 1 for q in qb)


def _qualifiers(s: str, words: Sequence[str]) -> set[str]:
    """The stems of the content words right before each occurrence of `s`; empty when one
    occurrence has none (then the text also says `s` unqualified)."""
    found = set()
    for i, word in enumerate(words):
        if stem(word) == s:
            if i == 0 or not _content(words[i - 1]) or words[i - 1] in _REJECT or stem(words[i - 1]) in _VERBS:
                return set()
            found.add(stem(words[i - 1]))
    return found


def _prefers(facts: _Facts) -> bool:
    """The text states a choice of one thing over another: "prefer X over Y", "X rather than
    Y", "X instead of Y"."""
    return bool(facts.done) and bool(facts.rejected) and not _REJECT_PHRASE.isdisjoint(facts.words) \
        and not NEGATIONS.intersection(facts.words)


def _forbids_another_action(a: Features, b: Features) -> tuple[str, str] | None:
    """`a` prefers something over an alternative ("Use master as the branch name, rather than
    main"); `b` forbids an action on that alternative that `a` never names ("Never commit
    directly to main") and never names what `a` picks: one rejects a choice, the other an
    action, two rules."""
    fa, fb = a.facts, b.facts
    if not _prefers(fa) or fa.rejected.isdisjoint(fb.rejected):
        return None
    # What `a` picks heads its clause ("Use `pnpm` instead of npm"); a `b` naming it restates it.
    chosen = {s for s, bits in fa.heads.items() if bits == 1 and s in fa.done and s not in _VERBS}
    if not chosen or _mentioned(chosen, b):
        return None
    actions = {s for s in fb.rejected & ACTIONS if not _mentioned({s}, a)}
    if not actions:
        return None
    return "/".join(sorted(fa.rejected & fb.rejected)), "/".join(sorted(actions))


def _unpicked(a: Features, b: Features) -> tuple[str, str] | None:
    """`a` picks a tool for a role ("Use pnpm, not npm"); `b` names a tool of that role, picks
    none and never names `a`'s pick ("Never run `npm run dev`"): `b` is a rule about that other
    tool, not a rewording of the choice, however much the two say against it."""
    if not a.facts.picks or b.facts.picks:
        return None
    for slot, picked in sorted(a.facts.picks.items()):
        if slot in SUBJECT_SLOTS or not {stem(t) for t in picked}.isdisjoint(b.stems):
            continue
        named = sorted(t for t in b._tools if _STEM_SLOT.get(t) == slot)
        if named:
            return "/".join(sorted(picked)), "/".join(named)
    return None


def _arguments(features: Features) -> frozenset[str]:
    """The stems a text says only as a flag's value in a command line (the "warnings" of
    `cargo clippy -- -D warnings`), never in its prose."""
    if "`" not in features.text or "-" not in features.text:
        return _NO_WORDS
    values: set[str] = set()
    for span in _CODE_RE.findall(features.text.lower()):
        tokens = span.split()
        values.update(stem(word) for flag, value in zip(tokens, tokens[1:], strict=False)
                      if flag.startswith("-") and flag.strip("-") and not value.startswith("-")
                      for word in _WORD_RE.findall(value))
    if not values:
        return _NO_WORDS
    return frozenset(values - _stems_in(_APOSTROPHES_RE.sub("", _CODE_RE.sub(" ", features.text.lower()))))


# "Only commit changes when asked", "ONLY run `git commit` if the message says so".
_ONLY_ON_RE = re.compile(r"\bonly\b[^.;!?\n]{0,60}?\b(?:when|whenever|if|after|once|upon|on)\b")


def _only_when(a: Features, b: Features) -> bool:
    """One text allows an action only on a condition ("Push only when the user asks"), the
    other forbids it without one ("Never push without explicit instructions")."""
    def conditional(features: Features) -> bool:
        return _PERMISSION_RE.search(features.text.lower()) is not None
    return (_ONLY_ON_RE.search(a.text.lower()) is not None and conditional(b)) \
        or (_ONLY_ON_RE.search(b.text.lower()) is not None and conditional(a))


# "Do not write code without a failing test first", "never merge without a review": a
# requirement of the thing after "without", not a stance against the action.
_ONLY_WITH_RE = re.compile(r"\b(?:not|never|no|dont)\b[^.;!?\n]{1,60}?\bwithout\b")


def _only_with(features: Features, other: Features) -> bool:
    """`features` forbids an action only without something (it requires the something), and
    `other` does not do it without anything ("Merge PRs without waiting for review" opposes
    "Never merge a PR without a review")."""
    return "without" in features.facts.words and "without" not in other.facts.words \
        and _ONLY_WITH_RE.search(features.facts.norm) is not None


def _alternative_left_out(swap: tuple[str, str], fa: _Facts, fb: _Facts) -> bool:
    """One side of the swap is only an alternative its text rejects beside a pick both make
    ("pnpm instead of npm" / "pnpm for dependency management"): the other text leaves the
    alternative out and says what the pick is for, no other value."""
    old, new = ({stem(w) for w in side.split() if w not in _NOT_CORE and w not in _REJECT_PHRASE} for side in swap)
    picked = (fa.done & fb.done) - _VERBS
    return bool(picked) and ((bool(old) and old <= fa.rejected) != (bool(new) and new <= fb.rejected))


def _other_alternative(swap: tuple[str, str], fa: _Facts, fb: _Facts) -> bool:
    """The swapped words are alternatives each text rejects to a choice both make ("use pnpm,
    not npm" / "use pnpm, never yarn"): which alternative a rule names is no fact of it. Two
    rules rejecting different things and choosing nothing ("never use npm" / "never use
    yarn") stay apart."""
    old, new = ({stem(w) for w in side.split()} for side in swap)
    return old <= fa.rejected and new <= fb.rejected and bool((fa.done & fb.done) - _VERBS)


def _mentioned(stems: AbstractSet[str], other: Features) -> set[str]:
    """The stems `other` says too, itself or by a kindred word."""
    kin = other.kin
    return {s for s in stems if s in other.stems
            or (kin and not KIN.get(s, frozenset()).isdisjoint(kin))}


def _objects_apart(a: Features, b: Features) -> tuple[str, str] | None:
    """The two texts' objects (their stems but the frame), when they share frame words and
    their objects alone are not alike enough to be one lesson: the frame does not make them one
    rule ("Never include X in commits" / "Never include Y in code")."""
    # The frame is shared in one word or in two kindred ones ("Add a changelog entry" /
    # "Create a branch"). Asked of every pair compared: the family loop only where each side
    # has a kindred frame word, which few texts have.
    if (FRAME & a.stems).isdisjoint(b.stems) \
            and not (a.kin and b.kin and not FRAME.isdisjoint(a.kin_stems) and not FRAME.isdisjoint(b.kin_stems)
                     and any(x in FRAME and y in FRAME for x, y in bridges(a.kin, b.kin))):
        return None
    # A frame word inside a command or a name is an object: the "make" of `make deploy`.
    objects_a, objects_b = a.stems - (FRAME - a.strong), b.stems - (FRAME - b.strong)
    # Objects are stems of their text: a text with no kindred word and nothing quoted (its kin
    # are of all its stems but the quoted) has no kin among them, and most have none.
    kin_a = _NO_KIN if not a.kin and not a.quoted else None
    kin_b = _NO_KIN if not b.kin and not b.quoted else None
    # A text that is all frame ("Run it") says nothing its frame does not: nothing to set apart.
    if not objects_a or not objects_b \
            or _alone_overlap(objects_a, a.strong, objects_b, b.strong, kin_a, kin_b) >= RAW_CUT:
        return None
    return "/".join(sorted(objects_a - objects_b)), "/".join(sorted(objects_b - objects_a))


def _may_swap(a: Features, b: Features) -> bool:
    """Cheap necessary condition for single_swap: at most two content words differ each way."""
    fa, fb = a.facts, b.facts
    return len(fa.content_words - fb.content_words) <= 2 and len(fb.content_words - fa.content_words) <= 2


def _negation_swap(a: Sequence[str], b: Sequence[str]) -> bool:
    """The texts differ only by negation words ("listens on 5433" / "never listens on 5433")."""
    return _only_negations(a, b) or _only_negations(b, a)


def _only_negations(a: Sequence[str], b: Sequence[str]) -> bool:
    edits = [op for op in Levenshtein.opcodes(a, b) if op.tag != "equal"]
    only_a = [w for op in edits for w in a[op.src_start:op.src_end]]
    only_b = [w for op in edits for w in b[op.dest_start:op.dest_end]]
    changed = only_a + only_b
    # The negation on one side only: "Do not use emojis" / "No emojis" negate both.
    return any(w in _REJECT for w in only_a) != any(w in _REJECT for w in only_b) \
        and all(w in _REJECT or w in _EMPHASIS or w in STOPWORDS for w in changed)


def _command_swap(only_a: Sequence[str], only_b: Sequence[str]) -> tuple[str, str] | None:
    """Each side names a command the other never mentions, both starting with one word
    (`bun run test:run` vs `bun run test`, `go test .` vs `go test ./...`) or running one
    program (`uv run pytest` vs `python -m pytest tests`): two ways to run it, two facts."""
    for x in only_a:
        words_x = x.split()
        for y in only_b:
            words_y = y.split()
            if words_x[0] == words_y[0] or not _RUNNERS.issuperset(set(words_x) & set(words_y)):
                return x, y
    return None


# Words of a command line that run another program, not which program: `uv run`, `python -m`.
_RUNNERS = frozenset("run exec -m python python3 node npx bunx pnpx uvx go cargo poetry uv pnpm npm yarn bun".split())


def _span_swap(a: Features, b: Features, only_a: Sequence[str], only_b: Sequence[str]
               ) -> tuple[str, str] | None:
    """The bodies say the same words but for one code span each (`VITE_` vs `NEXT_PUBLIC_`):
    the span is the fact, however many words it has. `only_a`, `only_b`: the commands each
    side names and the other never mentions."""
    if len(only_a) != 1 or len(only_b) != 1:
        return None
    rest_a = normalise(a.body.lower().replace(f"`{only_a[0]}`", " ")).split()
    rest_b = normalise(b.body.lower().replace(f"`{only_b[0]}`", " ")).split()
    return (only_a[0], only_b[0]) if rest_a == rest_b else None


def _name_swap(a: Features, b: Features) -> tuple[str, str, str] | None:
    """A flag, file or name only one side gives, where the other gives a different one of the
    same kind: `-x` vs `-q`, requirements.txt vs requirements-dev.txt."""
    if a.facts.flags and b.facts.flags:  # most texts give none
        flags_a, flags_b = a.facts.flags - b.facts.flags, b.facts.flags - a.facts.flags
        if flags_a and flags_b:
            return "flag", "/".join(sorted(flags_a)), "/".join(sorted(flags_b))
    if not a.facts.long_names or not b.facts.long_names:
        return None
    only_a = [n for n, spaced in a.facts.long_names if spaced not in b.facts.padded]
    only_b = [n for n, spaced in b.facts.long_names if spaced not in a.facts.padded]
    for x in only_a:
        for y in only_b:
            # One name inflected ("Co-Authored-By" / "co-author") is no other name.
            if x[0] == y[0] and not _inflected(x, y):
                return "name", " ".join(x), " ".join(y)
    return None


def _rejected_flag(a: Features, b: Features) -> tuple[str, str] | None:
    """`a` rejects a flag ("never `git commit --no-verify`"), using no command, that `b`, giving
    no flag, never names, not even by its word ("force" for `--force`): the flag is what `a`
    forbids, and `b` forbids something else with the same command ("do not `git commit` unless
    asked")."""
    # A text using a command instead ("`rg` instead of `grep -R`") rejects an alternative, not
    # a flag.
    if not a.facts.flags or b.facts.flags or a.facts.used:
        return None
    for flag in sorted(a.facts.flags):
        word = "".join(_WORD_RE.findall(flag))
        parts = {stem(w) for w in _WORD_RE.findall(flag)} - {"no"}
        # ... nor by what it does (lexicon.py: `--no-verify` bypasses the hooks)
        does = {stem(w) for span in [flag, *(s for s in _CODE_RE.findall(a.text) if flag in s.lower())]
                for w in command_concepts(span).split()}
        if stem(word) in a.facts.rejected and stem(word) not in b.stems and parts.isdisjoint(b.stems) \
                and does.isdisjoint(b.stems):
            return flag, "no flag"
    return None


def _inflected(x: Sequence[str], y: Sequence[str]) -> bool:
    """The two names' words but stop words have one set of stems: `co-authored-by` and
    co-author (requirements.txt and requirements-dev.txt have not)."""
    return {stem(w) for w in x if w not in STOPWORDS} == {stem(w) for w in y if w not in STOPWORDS}


def _mentions(text: str, span: str) -> bool:
    """`span` occurs in `text` as a whole: `bun run test` is not in "bun run test:run"."""
    return re.search(rf"(?<![\w:./-]){re.escape(span)}(?![\w:./-])", text) is not None


def _axes(poles: frozenset[tuple[str, int]]) -> dict[str, set[int]]:
    axes: dict[str, set[int]] = {}
    for axis, pole in poles:
        axes.setdefault(axis, set()).add(pole)
    return axes


def single_swap(a: Sequence[str], b: Sequence[str]) -> tuple[str, str] | None:
    """The texts differ in one place only, where a word became another that is not a variant of
    it ("run with vitest" vs "run with jest"): (old, new), else None. Symmetric: an alignment
    found in either direction counts."""
    found = _one_swap(a, b)
    if found is None:
        back = _one_swap(b, a)
        found = None if back is None else (back[1], back[0])
    return found


def _one_swap(a: Sequence[str], b: Sequence[str]) -> tuple[str, str] | None:
    edits = [op for op in Levenshtein.opcodes(a, b) if op.tag != "equal"]
    # Numbers are compared by their slots (conflicts), not here.
    changed = [([w for w in a[op.src_start:op.src_end] if _content(w) and not w[0].isdigit()],
                [w for w in b[op.dest_start:op.dest_end] if _content(w) and not w[0].isdigit()])
               for op in edits]
    changed = [(old, new) for old, new in changed if old or new]
    if len(changed) != 1:
        return None
    old, new = changed[0]
    if not old or not new or len(old) > 2 or len(new) > 2:
        return None
    # One generic word for what a rule covers for another ("tests for new code" / "for new
    # functionality") names no value a rewording could change; "files" for "secrets" does.
    if _GENERIC.issuperset(old) and _GENERIC.issuperset(new):
        return None
    if any(_spelled_alike(x, y) for x in old for y in new):
        return None
    # A kin across is a rewording of its word, but only of that word: "unit tests" / "e2e
    # specs" still swap unit for e2e.
    if all(any(kindred(stem(x), stem(y)) for y in new) for x in old) \
            or all(any(kindred(stem(x), stem(y)) for x in old) for y in new):
        return None
    return " ".join(old), " ".join(new)


def variants(a: str, b: str) -> bool:
    """Inflections or spellings of one word, or kindred words: seed/seeding, colour/color,
    create/write."""
    return _spelled_alike(a, b) or kindred(stem(a), stem(b))


def _spelled_alike(a: str, b: str) -> bool:
    """Inflections or spellings of one word."""
    return stem(a) == stem(b) or a.startswith(b) or b.startswith(a) \
        or (len(a) > 4 and len(b) > 4 and a[:4] == b[:4]) or fuzz.ratio(a, b) >= 80


def compare(a: Features, b: Features, weights: Weights | None = None, *,
            threshold: float = DEFAULT_SIMILARITY) -> Verdict:
    """The verdict on two texts; symmetric and deterministic."""
    score = calibrated(pair_overlap(a, b) if weights is None else raw_overlap(a, b, weights))
    found = conflicts(a, b) if score >= min(threshold, SUBJECT_SIMILARITY) else ()
    return Verdict(round(score, 3), found, threshold)


def compare_texts(a: str, b: str, *, threshold: float = DEFAULT_SIMILARITY) -> Verdict:
    """`compare` for two plain texts, rarity taken from the two alone."""
    return compare(features_of(a), features_of(b), threshold=threshold)


@lru_cache(maxsize=4096)
def features_of(text: str) -> Features:
    """Features.of(text), remembered: callers compare one text (an entry's body) with many."""
    return Features.of(text)


# --- the best match among many ----------------------------------------------------------------


@dataclass(frozen=True)
class Match(Generic[T]):
    item: T
    verdict: Verdict


@dataclass
class MatchIndex(Generic[T]):
    """Items (live entries, instruction lines, ...) with their features, an inverted index of
    their stems, and the rarity weights of everything compared together."""

    items: list[T]
    features: list[Features]
    weights: Weights
    postings: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def build(cls, items: Sequence[T], features: Sequence[Features],
              weights: Weights | None = None) -> MatchIndex[T]:
        """`weights`: shared with the batch being matched (rarity across batch and items), or
        built from the items alone."""
        index = cls(list(items), list(features), weights if weights is not None else Weights(features))
        for i, f in enumerate(index.features):
            for s in f.stems:
                index.postings.setdefault(s, []).append(i)
        return index

    # The last query's candidates (a prefix of a longer list is the shorter list): a caller
    # first asks whether anything may match (limit 1), then for the match.
    _last: tuple[Features, int, list[int]] | None = field(default=None, repr=False)

    def candidates(self, query: Features, limit: int = CANDIDATES) -> list[int]:
        last = self._last
        if last is not None and last[0] is query and last[1] >= limit:
            return last[2][:limit]
        found = rare_candidates(self.postings, len(self.items), query.stems, max(limit, CANDIDATES))
        self._last = query, max(limit, CANDIDATES), found
        return found[:limit]

    def verdicts(self, query: Features, *, threshold: float = DEFAULT_SIMILARITY) -> list[tuple[int, Verdict]]:
        """(item index, verdict) for the candidates, best first (same lessons, then corrections,
        each by score; ties by position)."""
        scored = [(i, compare(query, self.features[i], self.weights, threshold=threshold))
                  for i in self.candidates(query)]
        return sorted(scored, key=lambda iv: (not iv[1].same_lesson, not iv[1].correction,
                                              -iv[1].score, iv[0]))

    def best(self, query: Features, *, threshold: float = DEFAULT_SIMILARITY) -> Match[T] | None:
        """The item `query` restates (a same-lesson verdict), else the one it corrects (a
        correction verdict), else None: what `verdicts` puts first, with the facts read only
        for candidates scoring high enough, best first, until a restatement is found."""
        scored = sorted((-calibrated(raw_overlap(query, self.features[i], self.weights)), i)
                        for i in self.candidates(query))
        correction: Match[T] | None = None
        for negative, i in scored:
            if -negative < min(threshold, SUBJECT_SIMILARITY):
                break
            # Once a correction is found, a later candidate matters only as a restatement: it
            # has a conflict or none, and the first one found says which.
            if correction is None:
                found = conflicts(query, self.features[i])
            elif conflicting(query, self.features[i]):
                continue
            else:
                found = ()
            verdict = Verdict(round(-negative, 3), found, threshold)
            if verdict.same_lesson:
                return Match(self.items[i], verdict)
            if verdict.correction and correction is None:
                correction = Match(self.items[i], verdict)
        return correction


def rare_candidates(postings: dict[str, list[int]], docs: int, stems: Iterable[str],
                    limit: int) -> list[int]:
    """Documents sharing the query's rarest stems, most shared first, at most `limit`; ties in
    counting order (the rarest stem's documents first): deterministic, and constant work per
    query however big the corpus (a budget of postings read)."""
    common = max(COMMON_MIN_DOCS, int(COMMON_SHARE * docs))
    ranked = sorted((s for s in stems if 0 < len(postings.get(s, ())) <= common),
                    key=lambda s: (len(postings[s]), s))[:RARE_STEMS]
    if not ranked:
        return []
    rare = ranked[:1]
    budget = POSTINGS_BUDGET
    for s in ranked[1:]:
        budget -= len(postings[s])
        if budget < 0:
            break
        rare.append(s)
    # Counted in C, ranked by a stable sort in C: most_common(limit) without its Python-level heap.
    counts = Counter(chain.from_iterable(postings[s] for s in rare))
    return [i for i, _ in sorted(counts.items(), key=itemgetter(1), reverse=True)[:limit]]
