"""What an entry says: one actionable guidance sentence, its kind, its tags, and what is new.

An entry's first paragraph is the line AGENTS.md carries, so it must be the lesson itself — the
rule, the command, the fix — in one sentence, taken from the most complete memory of a cluster,
never a concatenation of every phrasing (issue 11, item 3):

- each sentence of a memory's prose is scored by what makes it actionable (an imperative, a
  modal "must/never/only", a fix after a semicolon, a command) against what makes it a story (a
  date or a clock time, "I"/"we" in the past tense); the best one is the guidance and the rest of
  the memory stays in the body, in its order: an incident's story follows its fix;
- a fix told in the past ("Using X made it stable", "I rewrote it with X") is said as the rule
  ("Use X", "rewrite it with X");
- a code snippet keeps its code in the body; its guidance says when to use it (its own "Use it
  …" sentence, named by the title), never just the title;
- other members of the cluster are sources and evidence; from them the body takes only sentences
  stating a fact the entry lacks (a command, identifier, number or enough new words), so an
  update never appends a restatement.

Kind (item 4): a dated event (a date, a clock time, "yesterday", a severity) or a story with no
rule is an incident; a rule or a standing fact is a topic. Tags: the memories', else the closest
live entry's, else the known tags the lesson's words name, else the subject they name (testing,
git, style, …), else its first tool or path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from dreamtui.dream.match import STOPWORDS, normalise, stem
from dreamtui.dream.proposals import is_code, split_paragraphs, split_sentences
from dreamtui.model import Memory
from dreamtui.review.bundle import without_secrets

# First words of an instruction ("Run …", "Never …"): the sentence tells the reader what to do.
IMPERATIVES = frozenset("""
use run mark start stop create set add call avoid never always do dont prefer keep put format
install build open close check make pin reset migrate seed wrap enqueue return read write pass
export import prefix restart retry remove delete rename rewrite configure enable disable point
copy move switch update upgrade downgrade clear invalidate await test lint commit push deploy
only ensure verify wait include exclude define declare register load store cache quote escape
be summarize summarise follow describe explain disclose mention respond reply ask squash rebase
validate annotate bump regenerate favor favour stick treat assume leave skip
""".split())
_MODAL_RE = re.compile(r"\b(?:must|should|shouldn't|needs? to|need|has to|have to|always|never|"
                       r"do not|don't|only|requires?|is required)\b", re.IGNORECASE)
# A sentence whose subject is in the sentence before: "When it complains, follow …", "They are
# regenerated on build", "This breaks CI unless …" (not "This project uses …": a noun follows).
_LEANS_BACK_RE = re.compile(
    r"^(?:(?:when|if|once|after|before|unless|so|then|and|but|because|otherwise)\s+)?"
    r"(?:it|its|they|them|their|(?:this|that|these|those)(?=\s+(?:is|are|was|were|means|makes|needs|breaks|fails|"
    r"happens|works|will|can|must|should|does|do)\b))\b", re.IGNORECASE)
_PRONOUN_RE = re.compile(r"\b(?:it|its|they|them|their)\b", re.IGNORECASE)
# The effort a session spent is no part of the lesson: "Took me a while to notice.", "it took
# us an hour to debug".
_EFFORT_RE = re.compile(r"^(?:it\s+|this\s+|that\s+)?(?:took|spent|wasted|cost)\s+(?:me|us|the agent|an?\s|\d|"
                        r"several|many|a while|ages|hours|minutes)", re.IGNORECASE)
# What a mined memory (intake/lessons.py) records of the one occasion beside its lesson: the
# calls the agent had made, what it had said or replied, the calls denied, how often it was met.
# Evidence of that occasion (the memory stays a source), never part of the entry.
_OCCASION_RE = re.compile(r"^(?:The agent had (?:just )?(?:called|said)|The agent replied|Denied calls|"
                          r"Seen \d+ times? in)\b")
# An intro that says its list is the thing to do: "Run these commands in order:".
_POINTS_AT_LIST_RE = re.compile(r"\b(?:these|the following|following|steps|in order|below)\b", re.IGNORECASE)
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+\S", re.MULTILINE)
_ITEM_RE = re.compile(r"^\s*(?:\d+[.)]|[-*+]|step \d+:?)\s+(?=\S)", re.IGNORECASE)
_STEP_RE = re.compile(r"^\s*(?:\d+[.)]|step \d+:?)\s+\S", re.IGNORECASE)
_CONDITION_WORDS = frozenset("before after when whenever if once to until while".split())
_CLAUSE_FIX_RE = re.compile(r"[;:]\s+(?:so\s+|then\s+)?([A-Za-z`']+)")
_CONDITION_RE = re.compile(r"\b(?:unless|before|instead of|rather than|otherwise|first)\b", re.IGNORECASE)
_CODE_SPAN_RE = re.compile(r"`[^`]+`")
_DIGITS_RE = re.compile(r"\d+")
# db_url, app.seed, tests/integration. Tried only where a run of its characters starts: a match
# from inside a run exists only if one from its start does (and runs to the same end), and
# without the lookbehind every letter of every word started a scan to the word's end (3x slower
# on a 10k dream's memories and entries; the same matches).
_CODE_WORD_RE = re.compile(r"(?<![\w./-])[\w.-]*[_./][\w./-]+")
# How long something took is the story of one session, not a fact about the project: "It took
# 3 minutes" neither corrects an entry nor adds to it (issue 11: incidental numbers).
_DURATION_RE = re.compile(r"\b\d+(?:\.\d+)?\s*(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|"
                          r"hours?|days?|weeks?)\b", re.IGNORECASE)
_INCIDENTAL_RE = re.compile(r"^(?:it\s+|this\s+|that\s+)?(?:took|spent|cost|wasted|lost)\b", re.IGNORECASE)
_NAME_RE = re.compile(r"\b(?:[A-Z][a-z]+[A-Z]\w*|[a-z]+[A-Z]\w*|[A-Z]{2,}[A-Za-z]*)\b")  # CloudFront, PGPORT
# Words rule files write in capitals for emphasis ("**CRITICAL**: do NOT …"): no names, no facts.
_EMPHASIS = frozenset("""always never not no must critical important mandatory required note warning
all any every do dont ever anywhere everything nothing yes""".split())
_DATE_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\b(?:yesterday|today|last night|"
                      r"this morning|this afternoon|tonight)\b", re.IGNORECASE)
_DAY_RE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YESTERDAY_RE = re.compile(r"\b(?:yesterday|last night)\b", re.IGNORECASE)
EVENT_DAYS = timedelta(days=366)  # how long before it was told a day stated can be the event's
_FIRST_PERSON_RE = re.compile(r"(?:^|[;:,]\s*|\.\s+)(?:I|we|We)\s+([a-z]+)\b")
# A verb in the past tense, not a passive present ("is mapped", "are required"): "turned", "dropped".
# The word boundary both alternatives start with comes first: most positions fail there, before
# the five look-behinds (the same matches, twice as fast).
_PAST_RE = re.compile(r"\b(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bget )(?<!\bgets )(?:[a-z]{3,}(?<!e)ed\b"
                      r"|(?:rewrote|wrote|took|went|ran|made|broke|threw|gave|got|saw|found|forgot|did|had)\b)")
_CLAUSE_RE = re.compile(r"[;:]\s+|,\s+(?:so|and then|then|but)\s+")
# A clause telling what happened once: a verb of an event in the past tense with a subject before
# it and an object or place after it ("float arithmetic made test_x flaky", "black produced other
# commas", "the old image crashed on arm64"), a date, "I"/"we". Stricter than _PAST_RE, which
# also reads participles used as adjectives ("misses renamed columns", "ignored by git").
_TOLD_RE = re.compile(r"(?P<prev>[\w`'.)]+)\s+(?:[a-z]+ly\s+)?"
                      r"(?P<verb>caused|crashed|failed|broke|produced|returned|dropped|deleted|blocked|hung|"
                      r"leaked|corrupted|overwrote|turned|triggered|exhausted|killed|froze|stalled|errored|"
                      r"raised|threw|wiped|lost|reverted|flaked|timed|took|made|ran|went|spent|cost|wasted|"
                      r"introduced|rewrote|wrote|found|forgot|did|had)\s+(?P<next>[\w`'(]+)")
_NOT_SUBJECT = frozenset("""is are was were be been being get gets got stay stays remain remains the a an
and or of with for no not any all its their your our this that these those""".split())
_GUIDANCE_CLAUSE_RE = re.compile(r";\s+")
_STORY_RE = re.compile(r"\b(?:crashed|broke|returned|happened|took|went down|was|were|failed)\b",
                       re.IGNORECASE)
# A fix told in the past, said as the rule: "Using X made it stable." → "Use X."
_GERUND_FIX_RE = re.compile(
    r"^(?P<verb>[A-Z][a-z]+ing)\s+(?P<rest>.+?)\s+(?:made it (?:stable|work|pass)|fixed it|fixed this|"
    r"solved it|solved this|worked|helped|did the trick)(?P<end>[.!]?)$")
# A fix told as a command that worked: "`make db-reset` before `go test` fixed it" (a gerund is
# _GERUND_FIX_RE's: "Using X made it stable").
_THING_FIX_RE = re.compile(r"(?P<thing>`[^`]+`[^;]*?)\s+(?:fixed it|fixed this|solved it|solved this|"
                           r"made it (?:pass|work|stable)|did the trick)[.!]?")
# How a fix told in the past turned out, after it: ", and it passed", " which fixed it".
_OUTCOME_RE = re.compile(r",?\s+(?:and|which|so)\s+(?:(?:then\s+)?(?:it|that|this|everything|the (?:build|suite|"
                         r"job|tests?|check|ci|pipeline))\s+)?(?:passed|passes|worked|works|fixed it|fixed this|"
                         r"helped|went green|succeeded|is green|was green|is fixed)(?=[.!]?$)", re.IGNORECASE)
# Verbs a fix is told with, past (or gerund) → base. Irregular and doubled forms are listed.
_BASE_VERBS = {
    "used": "use", "using": "use", "ran": "run", "running": "run", "set": "set", "setting": "set",
    "added": "add", "adding": "add", "rewrote": "rewrite", "rewriting": "rewrite",
    "fixed": "fix", "fixing": "fix", "pinned": "pin", "pinning": "pin", "moved": "move",
    "moving": "move", "switched": "switch", "switching": "switch", "replaced": "replace",
    "replacing": "replace", "called": "call", "calling": "call", "changed": "change",
    "changing": "change", "installed": "install", "installing": "install", "removed": "remove",
    "removing": "remove", "wrapped": "wrap", "wrapping": "wrap", "passed": "pass",
    "passing": "pass", "restarted": "restart", "restarting": "restart", "upgraded": "upgrade",
    "upgrading": "upgrade", "reset": "reset", "resetting": "reset", "opened": "open",
    "opening": "open", "closed": "close", "closing": "close", "marked": "mark", "marking": "mark",
    "cleared": "clear", "clearing": "clear", "started": "start", "starting": "start",
    "put": "put", "putting": "put", "made": "make", "making": "make", "exported": "export",
    "exporting": "export", "configured": "configure", "configuring": "configure",
}
STORY_LIMIT = 0  # a best sentence scoring at most this tells a story, not a rule
RULE_POINTS = 3  # a modal or an imperative: what a sentence that is a rule by itself scores at least
SELF_CONTAINED = 12  # words of a rule sentence that also says when it applies
JOINED_WORDS = 30  # at most, of a short rule and the sentence it leans on said as one
LEANING_WORDS = 45  # at most, of a rule opening with a pronoun and the sentence naming what it is
NEW_WORDS = 2  # content stems a sentence must add (with no new command, number or name) to be a new fact
NEW_SHARE = 0.5  # ... and the share of its content stems they must be


@dataclass(frozen=True)
class Lesson:
    """An entry's text made from memories: the guidance sentence and the paragraphs after it."""

    guidance: str
    rest: list[str]
    actionable: bool  # the guidance states a rule or a fix (not only a story or a title)


def _words(sentence: str) -> list[str]:
    return normalise(_CODE_SPAN_RE.sub(" ", sentence)).split()


# A sentence is scored as a guidance candidate (lesson, most_complete) and each of its clauses
# as a possible story (tells_story), often for several clusters: ~13,000 calls, ~4,500 texts.
@lru_cache(maxsize=20_000)
def score(sentence: str) -> int:
    """How much `sentence` reads as something to do (positive) rather than a story (negative)."""
    words = _words(sentence)
    raw = sentence.split(maxsplit=1)[0].strip("`*\"'(") if sentence.split() else ""
    # "test_checkout_totals failed …" opens with a name, not the verb "test".
    first = words[0] if words and raw.isalpha() else ""
    points = 0
    if first in IMPERATIVES:
        points += 4
    if _MODAL_RE.search(sentence):
        points += 3
    for match in _CLAUSE_FIX_RE.finditer(sentence):
        if normalise(match.group(1)) in IMPERATIVES:
            points += 3
            break
    if _CONDITION_RE.search(sentence):
        points += 1
    if _CODE_SPAN_RE.search(sentence):
        points += 1
    if _DATE_RE.search(sentence):
        points -= 3
    if _FIRST_PERSON_RE.search(sentence):
        points -= 1
    if _STORY_RE.search(sentence) and points < 3:
        points -= 1
    if len(words) < 4:
        points -= 1
    return points


def rank(sentence: str) -> int:
    """How good a guidance `sentence` makes: its score said as a rule, less for a sentence that
    had to be rewritten (it loses its context), more for one that states the trigger and the fix
    together (long enough to stand alone)."""
    rule = as_rule(sentence)
    points = score(rule)
    if rule != sentence:
        points -= 2
    elif points >= 3 and len(_words(sentence)) >= SELF_CONTAINED:
        points += 1
    return points


def as_rule(sentence: str) -> str:
    """A fix told in the past said as the rule; other sentences unchanged."""
    found = _GERUND_FIX_RE.match(sentence)
    if found and found["verb"].lower() in _BASE_VERBS:
        return f"{_BASE_VERBS[found['verb'].lower()].capitalize()} {found['rest']}{found['end'] or '.'}"

    def base(match: re.Match[str]) -> str:
        verb = _BASE_VERBS.get(match.group(1))
        if verb is None:
            return match.group(0)
        lead = match.group(0)[: match.start(1) - match.start(0)]
        lead = re.sub(r"(?:I|we|We)\s+$", "", lead)
        return f"{lead}{verb.capitalize() if not lead.strip() else verb}"

    rule = _FIRST_PERSON_RE.sub(base, sentence)
    if rule == sentence and _THING_FIX_RE.search(sentence):
        # "…; `make db-reset` before `go test` fixed it." → "…; run `make db-reset` before `go test`."
        clauses = _clauses(sentence, _GUIDANCE_CLAUSE_RE)
        fixed = [_thing_fix(c) for c in clauses]
        if fixed != clauses:
            return _sentence_case("; ".join(c.rstrip(" .") for c in fixed) + ".")
    # "we set X and it passed" said as the rule is "set X": how it went was that session's story.
    return _OUTCOME_RE.sub("", rule) if rule != sentence else rule


def _thing_fix(clause: str) -> str:
    """A clause "`<command>` … fixed it" said as the rule, "run `<command>` …"; any other clause
    unchanged."""
    found = _THING_FIX_RE.fullmatch(clause.strip())
    return clause if found is None else f"{clause[: len(clause) - len(clause.lstrip())]}run {found['thing']}"


# Words a snippet's title may end with that already say it is code: "the async client fixture",
# not "the async client fixture snippet".
_CODE_KINDS = frozenset("""snippet template fixture helper function command script config configuration
query decorator hook component class recipe boilerplate example pattern macro alias""".split())


def _use_sentence(sentence: str, title: str) -> str:
    """A snippet's own "Use it …" sentence, naming what "it" is."""
    if title[:1].isupper() and not title[1:2].isupper():
        title = title[0].lower() + title[1:]  # "Async test client fixture" inside a sentence
    named = title if title.split()[-1].lower().rstrip("s") in _CODE_KINDS else f"{title} snippet"
    return re.sub(r"^(Use|Run|Call|Apply|Paste|Copy)\s+(it|this|them)\b",
                  lambda m: f"{m.group(1)} the {named}", sentence, count=1, flags=re.IGNORECASE)


# A lesson mined from a transcript tells the occasion around the person's own words: "The person
# stopped the agent as it was about to run `make test` and said “stop, …”", "Do not run `x`: the
# person rejected it … and said “…”". Those words are the lesson; the frame is provenance (kept in
# the memory's metadata), and a frame that is itself a rule ("Do not run `x`") follows them.
# The first line only: a later one is the occasion's record.
_FRAMED_RE = re.compile(r"^(?P<head>[^“”\n]*?)\b(?:the|a) (?:person|user)\b[^“”\n]*"
                        r"“(?P<said>[^“”\n]+)”[.!]?[ \t]*(?:\n|$)", re.IGNORECASE)
# "no, …", "stop, …": a word that halts the agent, not part of the rule.
_HALT_RE = re.compile(r"^(?:no+|nope|stop|wait|hold on|hey|ugh|please)\b[,.!;:]*\s*", re.IGNORECASE)


def said_words(content: str) -> str:
    """`content` with a mined frame around the person's words (`_FRAMED_RE`) replaced by those
    words said as sentences; any other content unchanged."""
    found = _FRAMED_RE.search(content)
    if found is None:
        return content
    said = _HALT_RE.sub("", found["said"].strip()).strip()
    if not said:
        return content
    clauses = [c.strip() for c in said.rstrip(".!").split("; ")]
    if len(clauses) == 2 and rank(clauses[1]) > rank(clauses[0]) and not clauses[0].endswith("?"):
        # "the full suite takes 20 minutes; run only X": the rule leads, its reason follows.
        said = f"{clauses[1]}: {clauses[0][:1].lower()}{clauses[0][1:]}"
    said = said[:1].upper() + said[1:]
    said = re.sub(r"([?!.]) ([a-z])", lambda m: f"{m[1]} {m[2].upper()}", said)
    if not said.endswith((".", "!", "?")):
        said += "."
    head = found["head"].strip().rstrip(":;,").strip()
    rule = f" {head}." if head.startswith(("Do not ", "Don't ", "Never ")) else ""
    return f"{said}{rule}{found[0][len(found[0].rstrip()):]}{content[found.end():]}"


# A mined memory's title ends with what the agent had been doing: "… (rejected: run `pip install
# x`)", "… (interrupted: run `make test`)". That is provenance (the memory's metadata keeps it),
# not what to do.
_PROVENANCE_TAIL_RE = re.compile(r"\s*\((?:rejected|interrupted|blocked|denied|plan rejected)\b[^\n]*\)\s*$",
                                 re.IGNORECASE)


def title_of(title: str, guidance: str) -> str:
    """An entry's title from its memory's: without a provenance tail (`_PROVENANCE_TAIL_RE`), and,
    when the memory's title was cut ("… it is used by the nigh…"), the guidance instead; a leading
    halt ("No, …", "Stop, …") left out."""
    line = _PROVENANCE_TAIL_RE.sub("", " ".join(title.split()))
    if line.endswith(("…", "...")) and guidance:
        line = guidance
    halted = _HALT_RE.sub("", line)  # "Stop, the full suite…": the person's halt, not the subject
    if halted != line and halted:
        return halted[:1].upper() + halted[1:]
    return line or title


def _paragraphs(content: str) -> list[str]:
    """Paragraphs, with prose written right after a closing fence (no blank line) split off the
    code: "```…```\nUse it instead of TestClient." is a snippet and a sentence about it; a mined
    frame is said as the person's words (`said_words`)."""
    out: list[str] = []
    for paragraph in split_paragraphs(said_words(content)):
        if not is_code(paragraph) and _HEADING_RE.match(paragraph):
            # "## Context" / "## Finding" over a memory's parts label them: no part of the lesson.
            paragraph = "\n".join(line for line in paragraph.split("\n") if not _HEADING_RE.match(line))
            if not paragraph.strip():
                continue
        lines = paragraph.split("\n")
        fences = [n for n, line in enumerate(lines) if line.strip().startswith("```")]
        if len(fences) >= 2 and fences[0] == 0 and fences[-1] < len(lines) - 1:
            out += ["\n".join(lines[: fences[-1] + 1]), " ".join(lines[fences[-1] + 1:]).strip()]
        elif len(lines) > 2 and lines[0].rstrip().endswith(":") and is_list("\n".join(lines[1:])):
            out += [lines[0].strip(), "\n".join(lines[1:])]  # "Before a release:" and its list
        else:
            out.append(paragraph)
    return [p for p in out if p]


def is_list(paragraph: str) -> bool:
    """Whether `paragraph` is a list of at least two items (numbered, bulleted or "Step N:"),
    each line an item or an indented continuation of one: kept whole, never read as sentences."""
    lines = [line for line in paragraph.split("\n") if line.strip()]
    items = sum(1 for line in lines if _ITEM_RE.match(line))
    return items >= 2 and all(_ITEM_RE.match(line) or line[:1].isspace() for line in lines)


def list_items(paragraph: str) -> list[str]:
    """The items of a list paragraph (`is_list`), each with its marker and continuation lines."""
    items: list[str] = []
    for line in paragraph.split("\n"):
        if _ITEM_RE.match(line) or not items:
            items.append(line.rstrip())
        elif line.strip():
            items[-1] += "\n" + line.rstrip()
    return items


def has_steps(content: str) -> bool:
    """Whether `content` holds steps to follow: a numbered list, or a list under an intro line
    ("Before a release:")."""
    paragraphs = _paragraphs(content)
    return any(is_list(p) and (_ordered(p) or _intro(paragraphs, k) is not None)
               for k, p in enumerate(paragraphs) if not is_code(p))


def _intro(paragraphs: Sequence[str], k: int) -> int | None:
    """The paragraph before the list `paragraphs[k]` when it introduces steps ("Before a
    release:"), or None; an intro that is a rule itself ("Always use `yarn` instead of `npm`:")
    leads as a rule, its list its examples."""
    if not k or not paragraphs[k - 1].endswith(":"):
        return None
    last = split_sentences(paragraphs[k - 1])[-1][:-1]
    return k - 1 if score(last) < RULE_POINTS or _POINTS_AT_LIST_RE.search(last) else None


def _is_table(paragraph: str) -> bool:
    """A markdown table: its rows are cells, not sentences."""
    lines = [line for line in paragraph.split("\n") if line.strip()]
    return len(lines) >= 2 and all(line.lstrip().startswith("|") for line in lines)


def _ordered(paragraph: str) -> bool:
    return bool(_STEP_RE.match(paragraph))


def _steps_line(when: str) -> str:
    """The guidance of a procedure: when to follow its steps ("For deploying to production, follow
    the steps below.", "Before a release, follow …", "Rotate the keys: follow …")."""
    when = when.rstrip(" :.")
    first, _, others = when.partition(" ")
    if first.endswith("ing"):
        return f"For {first.lower()} {others}, follow the steps below.".replace(" ,", ",")
    if first.lower() in _CONDITION_WORDS:
        return f"{when}, follow the steps below."
    return f"{when}: follow the steps below."


def of_the_occasion(sentence: str) -> bool:
    """Whether `sentence` tells only the one occasion a lesson was learnt on: the effort spent
    (_EFFORT_RE), or a mined memory's record of the calls and words around it (_OCCASION_RE)."""
    return bool(_EFFORT_RE.match(sentence) or _OCCASION_RE.match(sentence))


def _without_effort(sentences: Sequence[str]) -> str:
    """`sentences` said as one paragraph, without those telling the occasion (`of_the_occasion`)
    and the clauses telling the effort spent."""
    kept: list[str] = []
    for sentence in sentences:
        if _OCCASION_RE.match(sentence):
            continue
        clauses = _clauses(sentence, _GUIDANCE_CLAUSE_RE)
        left = [c for c in clauses if not _EFFORT_RE.match(c.strip())]
        if len(left) == len(clauses):
            kept.append(sentence)
        elif left:
            kept.append("; ".join(c.rstrip(" .") for c in left) + ".")
    return " ".join(kept)


def _list_lesson(title: str, paragraphs: list[str], k: int, intro: int | None) -> Lesson:
    """The lesson of a memory whose prose states no rule but holds the list `paragraphs[k]`:
    numbered steps, or any list under an intro ("Before a release:"), are a procedure whose line
    says when to follow them; a bulleted list of rules gives its best item as the guidance, the
    others staying listed."""
    if intro is not None or _ordered(paragraphs[k]):
        guidance = _steps_line(paragraphs[intro] if intro is not None else title)
        return Lesson(guidance, [p for n, p in enumerate(paragraphs) if n != intro], actionable=True)
    lines = paragraphs[k].split("\n")
    items = [n for n, line in enumerate(lines) if _ITEM_RE.match(line)]
    best = max(items, key=lambda n: (rank(_ITEM_RE.sub("", lines[n]).strip()), -n))
    item = _ITEM_RE.sub("", lines[best]).strip()
    guidance = _sentence_case(item if item.endswith((".", "!", "?")) else f"{item.rstrip(':;,')}.")
    end = next((n for n in items if n > best), len(lines))
    kept = "\n".join(lines[:best] + lines[end:])  # the item and its continuation lines
    rest = [kept if n == k else p for n, p in enumerate(paragraphs)]
    return Lesson(guidance, [p for p in rest if p.strip()], actionable=rank(guidance) > STORY_LIMIT)


def _partner(prose: Sequence[tuple[int, list[str]]], i: int, j: int) -> int | None:
    """The sentence next to a short best sentence that it leans on ("This project uses pnpm as
    the package manager. Do not use npm or yarn.": without the first, "Do not use npm or yarn"
    loses the rule's subject), or None: the best one stands alone, or its neighbour tells a story
    or would make the line too long."""
    sentences = next(found for k, found in prose if k == i)
    if j and _LEANS_BACK_RE.match(sentences[j]) and not _story(sentences[j - 1]) and \
            len(_words(sentences[j])) + len(_words(sentences[j - 1])) <= LEANING_WORDS:
        return j - 1  # "When it complains, follow …": what "it" is, the sentence before says
    if len(_words(sentences[j])) >= SELF_CONTAINED:
        return None
    for n in (j - 1, j + 1):
        if 0 <= n < len(sentences) and not _story(sentences[n]) and \
                len(_words(sentences[j])) + len(_words(sentences[n])) <= JOINED_WORDS:
            return n
    return None


def _story(sentence: str) -> bool:
    """A neighbour no rule leans on: it tells a story, by either reading (`tells_story`, `_told`)."""
    return tells_story(sentence) or _told(sentence)


def _joined(first: int, second: int, sentences: Sequence[str]) -> str:
    """Two sentences said as one: "Use pnpm. Never use npm:" → "Use pnpm; never use npm."."""
    head = sentences[first].rstrip(" .:;")
    tail = sentences[second].rstrip(" :;")
    if head.endswith(("?", "!")):  # "Why did you delete it?; it is used…" is no sentence
        return f"{head} {tail}{'' if tail.endswith(('.', '!', '?')) else '.'}"
    lead = tail[:1].lower() if tail[1:2].islower() or tail[1:2] == " " else tail[:1]
    end = "" if tail.endswith((".", "!", "?")) else "."
    return f"{head}; {lead}{tail[1:]}{end}"


def lesson(title: str, content: str) -> Lesson:
    """The guidance of one memory and the rest of its content (see the module docstring); the
    guidance carries no redaction marker (`without_secrets`), the memory keeps it."""
    guidance, rest, actionable = _taught(title, content)
    return Lesson(guidance, list(rest), actionable)  # a list of its own: callers may change it


# A cluster's first memory is read for its entry probe, then again for the entry or the
# extension made of it, and memories several agents sent word for word are read once each: a
# fifth of a 10k dream's ~2,900 readings repeat one.
@lru_cache(maxsize=4096)
def _taught(title: str, content: str) -> tuple[str, tuple[str, ...], bool]:
    taught = _lesson(title, content)
    return without_secrets(taught.guidance), tuple(taught.rest), taught.actionable


def _lesson(title: str, content: str) -> Lesson:
    paragraphs = _paragraphs(content)
    lists = [k for k, p in enumerate(paragraphs) if not is_code(p) and is_list(p)]
    prose = [(i, split_sentences(p)) for i, p in enumerate(paragraphs)
             if not is_code(p) and i not in lists and not _is_table(p)]
    has_code = any(is_code(p) for p in paragraphs)
    ranked = [(rank(s), -i, -j, i, j, s) for i, sentences in prose for j, s in enumerate(sentences)]
    title_line = " ".join(title.split())
    if lists and not has_code:
        # Prose that states a rule leads ("Always deploy from main." above the steps); else the list.
        heading = _intro(paragraphs, lists[0])
        if not ranked or max(ranked)[0] <= STORY_LIMIT or (heading is not None and max(ranked)[3] == heading):
            return _list_lesson(title_line, paragraphs, lists[0], heading)
    if not ranked:
        guidance = f"{title_line}: use the snippet below." if has_code else title_line
        return Lesson(guidance.replace("..", "."), paragraphs, actionable=has_code)
    best = max(ranked)
    points, _, _, i, j, sentence = best
    intro = next(((k, n, s) for k, sentences in prose for n, s in enumerate(sentences)
                  if s.endswith(":") and k + 1 < len(paragraphs) and is_code(paragraphs[k + 1])), None)
    if has_code and points <= STORY_LIMIT and intro is not None:
        # "Deploying the static bundle by hand:" before the code says when to use it.
        i, j, sentence = intro
        when = sentence[:-1].strip()
        first, _, others = when.partition(" ")
        guidance = (f"For {first.lower()} {others}, use the snippet below." if first.endswith("ing")
                    else f"{when}: use the snippet below.")
    elif has_code and (points <= STORY_LIMIT or re.match(r"^(?:Use|Run|Call|Apply)\s+(?:it|this|them)\b",
                                                         sentence, re.IGNORECASE)):
        use = _use_sentence(sentence, title_line) if points > STORY_LIMIT else (
            f"{title_line}: use the snippet below.")
        guidance = use
    else:
        guidance = as_rule(sentence)
    taken = {j}
    if guidance == sentence and not has_code:
        partner = _partner(prose, i, j)
        if partner is not None:
            guidance = _joined(min(j, partner), max(j, partner), split_sentences(paragraphs[i]))
            taken.add(partner)
    stories: tuple[str, ...] = ()
    if not has_code:
        guidance, stories = split_story(guidance)
    # A list of one item is prose with a marker; a rule introducing its examples ends with ":".
    guidance = _ITEM_RE.sub("", guidance, count=1)
    if guidance.endswith(":") and points > STORY_LIMIT:
        guidance = f"{guidance[:-1].rstrip()}."
    rest: list[str] = []
    for k, paragraph in enumerate(paragraphs):
        if k != i:
            kept = paragraph if is_code(paragraph) or k in lists or _is_table(paragraph) \
                else _without_effort(split_sentences(paragraph))
            if kept:
                rest.append(kept)
            continue
        sentences = split_sentences(paragraph)
        remaining = _without_effort([*stories, *(s for n, s in enumerate(sentences) if n not in taken)])
        if guidance != sentence and guidance.startswith(f"{title_line}:"):
            remaining = " ".join(sentences)  # the snippet line named the title; keep its own words
        if remaining:
            rest.append(remaining)
    return Lesson(guidance, rest, actionable=points > STORY_LIMIT or has_code)


def most_complete(members: Sequence[Memory], first: Memory) -> Memory:
    """The member whose content covers most of what the cluster says (its content words), an
    actionable one first; ties go to `first` (the representative), then the earlier member."""
    if len(members) == 1:
        return members[0]
    vocab = [set(_words(m.content)) for m in members]
    union = set().union(*vocab)

    def order(k: int) -> tuple[int, int, int, int]:
        member = members[k]
        best = max((rank(s) for p in _paragraphs(member.content) if not is_code(p)
                    for s in split_sentences(p)), default=0)
        return (best, len(vocab[k] & union), member.id == first.id, -k)

    return members[max(range(len(members)), key=order)]


# --- what is new ------------------------------------------------------------------------------


# A cluster's memories are read against each Known they may add to (the entry, each growing
# draft), and their sentences again against each clause: the same texts, read once.
@lru_cache(maxsize=20_000)
def _facts(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(strong terms: code spans, numbers, code-shaped words and names; content stems) of `text`;
    durations are no facts."""
    text = _DURATION_RE.sub(" ", text)
    strong = {normalise(span) for span in _CODE_SPAN_RE.findall(text)}
    strong |= set(_DIGITS_RE.findall(text))
    strong |= {normalise(w) for w in _CODE_WORD_RE.findall(text)}
    strong |= {w.lower() for w in _NAME_RE.findall(text)
               if not (w.isupper() and (w.lower() in STOPWORDS or w.lower() in _EMPHASIS))}
    stems = {stem(w) for w in normalise(text).split()
             if len(w) > 2 and w.isalpha() and w not in STOPWORDS}
    return frozenset(s for s in strong if s), frozenset(stems)


class Known:
    """What an entry already states, grown as sentences are added to it."""

    def __init__(self, text: str) -> None:
        self.norm = f" {normalise(text)} "
        strong, stems = _facts(text)
        self.strong, self.stems = set(strong), set(stems)
        self.has_numbers = bool(_DIGITS_RE.search(text))
        self.has_code = bool(_CODE_SPAN_RE.search(text) or _CODE_WORD_RE.search(text))

    def adds(self, piece: str, *, values_only: bool = False) -> bool:
        """Whether `piece` states a fact not known yet: a command, number, identifier or name
        the entry never mentions, or enough new words (a reworded sentence brings few); with
        `values_only`, new words alone are no fact."""
        if f" {normalise(piece)} " in self.norm or _INCIDENTAL_RE.match(piece):
            return False
        strong, stems = _facts(piece)
        if any(f" {s} " not in self.norm and s not in self.strong for s in strong):
            return True
        if values_only:
            return False
        new = stems - self.stems
        return len(new) >= NEW_WORDS and len(new) >= NEW_SHARE * max(1, len(stems))

    def brings_value(self, piece: str) -> bool:
        """Whether `piece` holds a value the entry could state differently — a number where the
        entry has numbers, a code span or code-shaped word where it has some — that the entry
        never mentions; read cheaply (no stems), since most restatements bring none."""
        values: set[str] = set()
        piece = _DURATION_RE.sub(" ", piece)
        if self.has_numbers:
            values |= set(_DIGITS_RE.findall(piece))
        if self.has_code:
            values |= {normalise(span) for span in _CODE_SPAN_RE.findall(piece)}
            values |= {normalise(w) for w in _CODE_WORD_RE.findall(piece)}
        return any(v and f" {v} " not in self.norm and v not in self.strong for v in values)

    def add(self, piece: str) -> None:
        self.norm += f"{normalise(piece)} "
        strong, stems = _facts(piece)
        self.strong |= strong
        self.stems |= stems


def tells_story(clause: str) -> bool:
    """Whether `clause` tells what happened once ("test_x failed 1 run in 5", "Autogenerate
    turned the rename into a drop", "I rewrote it") rather than a rule or a standing fact ("CI
    maps Postgres to 5433", "the service is mapped to 5433")."""
    if score(clause) > STORY_LIMIT:
        return False
    return bool(_STORY_RE.search(clause) or _DATE_RE.search(clause) or _FIRST_PERSON_RE.search(clause)
                or _PAST_RE.search(_CODE_SPAN_RE.sub(" ", clause)))


def _told(clause: str) -> bool:
    """Whether `clause` tells one occurrence (see _TOLD_RE) rather than a rule or a standing fact:
    it says nothing to do (no modal, no imperative) — a "before" or a command in it does not make
    "Our Dockerfile copied the repo before `pip install`, so builds took 6 minutes" a rule."""
    words = _words(clause)
    if _MODAL_RE.search(clause) or (words and words[0] in IMPERATIVES and clause[:1].isupper()):
        return False
    plain = _CODE_SPAN_RE.sub("code", clause)
    if _DATE_RE.search(plain) or _FIRST_PERSON_RE.search(plain):
        return True
    return any(found["prev"].lower() not in _NOT_SUBJECT and found["next"].lower() != "by"
               for found in _TOLD_RE.finditer(plain))


@lru_cache(maxsize=20_000)  # a cluster's lesson is read for its probe and again for its entry
def split_story(guidance: str) -> tuple[str, tuple[str, ...]]:
    """(the guidance without the clauses telling a story, those clauses as sentences): "Money
    must be Decimal end to end; float arithmetic made test_totals flaky." is the rule, and its
    story goes to the body; so is "the old image crashed on arm64; the compose file now pins
    postgres:16" the standing fact. Unchanged when neither would be left (an incident's story
    stays)."""
    clauses = _clauses(guidance, _GUIDANCE_CLAUSE_RE)
    if len(clauses) < 2:
        return guidance, ()
    told = [c for c in clauses if _told(c)]
    kept = [c for c in clauses if c not in told]
    if not told or not kept or _PRONOUN_RE.search(kept[0]):
        return guidance, ()  # "…; do not count on it.": "it" is what the story clause named
    line = "; ".join(c.rstrip(" .") for c in kept) + "."
    # What is left must be a rule, or a standing fact naming a thing ("docker-compose.yml now
    # pins postgres:16"), not a bare remark ("it is fine now").
    standing = bool(_facts(line)[0]) and not any(tells_story(c) for c in kept)
    if score(line) <= STORY_LIMIT and not standing:
        return guidance, ()
    return _sentence_case(line), tuple(_sentence_case(c.rstrip(" .") + ".") for c in told)


def _sentence_case(text: str) -> str:
    """`text` opening with a capital, unless its first word is a name written in lower case on
    purpose (`golangci-lint`, `app.seed`, a code span)."""
    first = text.split(maxsplit=1)[0] if text.split() else ""
    return text[:1].upper() + text[1:] if first.isalpha() else text


def _clauses(sentence: str, where: re.Pattern[str]) -> list[str]:
    """`sentence` split where `where` matches, never inside a code span."""
    clauses: list[str] = []
    start = 0
    for found in where.finditer(sentence):
        if sentence.count("`", 0, found.start()) % 2 == 0:
            clauses.append(sentence[start:found.start()])
            start = found.end()
    clauses.append(sentence[start:])
    return clauses


def _clause_facts(sentence: str) -> list[str]:
    """The clauses of `sentence` that may state a fact: not those telling a story."""
    return [c for c in _clauses(sentence, _CLAUSE_RE) if c.strip() and not tells_story(c)]


def _only_adding(sentence: str, known: Known, values_only: bool) -> str:
    """Of another phrasing's sentence, the clauses that state a fact `known` lacks: "We use
    log/slog everywhere; get the logger with `logging.From(ctx)`" beside an entry saying to log
    with slog adds "Get the logger with `logging.From(ctx)`.", not its restatement."""
    clauses = _clauses(sentence, _GUIDANCE_CLAUSE_RE)
    facts = set(_clause_facts(sentence))
    kept = [c for c in clauses if c in facts and known.adds(c, values_only=values_only)]
    if not kept or len(kept) == len(clauses) or not all(_whole(c) for c in kept):
        return sentence  # a clause cut out of a quotation is no sentence: the whole one is
    return _sentence_case("; ".join(c.rstrip(" .") for c in kept) + ".")


def _whole(sentence: str) -> bool:
    """A sentence with its quotes closed: a piece cut out of a quotation ("cache its output”.")
    is a fragment, never a fact to add."""
    return sentence.count("“") == sentence.count("”")


def fresh_paragraphs(text: str, known: Known, *, other_phrasing: bool = False,
                     values_only: bool = False) -> list[str]:
    """The paragraphs of `text` that state something `known` lacks: whole new code blocks, and
    of prose only the sentences that state a fact `known` lacks (each counted as known once
    taken). The one rule for what an update may add, from memories or from a model's details.

    `other_phrasing`: `text` is another memory's telling of the lesson `known` states (a cluster
    member, a restatement of an entry). Its story is that one occurrence — the test that failed,
    the column that was renamed — not a fact about the project, so only its rule and fact clauses
    count; a fix it tells in the past is added as the rule ("Using X made it stable" → "Use X").
    `values_only`: only a command, number or identifier is new (see `new_facts`)."""
    out: list[str] = []
    for paragraph in _paragraphs(text):
        if is_code(paragraph):
            if normalise(paragraph) not in known.norm:
                out.append(paragraph)
                known.add(paragraph)
            continue
        if is_list(paragraph):
            # Item by item, and what is new stays a list ("- A.\n- C."), never "- A. - C.".
            items = [item for item in list_items(paragraph) if not of_the_occasion(_ITEM_RE.sub("", item))
                     and known.adds(as_rule(_ITEM_RE.sub("", item)), values_only=values_only)]
            for item in items:
                known.add(item)
            if items:
                out.append("\n".join(items))
            continue
        if other_phrasing:
            rules = [as_rule(s) for s in split_sentences(paragraph) if not of_the_occasion(s) and _whole(s)]
            # A clause adds nothing its sentence does not: most restatements stop at the first test.
            fresh = [_only_adding(r, known, values_only) for r in rules if known.adds(r, values_only=values_only)
                     and any(known.adds(c, values_only=values_only) for c in _clause_facts(r))]
        else:
            fresh = [s for s in split_sentences(paragraph)
                     if not of_the_occasion(s) and _whole(s) and known.adds(s, values_only=values_only)]
        for sentence in fresh:
            known.add(sentence)
        if fresh:
            out.append(" ".join(fresh))
    return out


def new_facts(memories: Iterable[Memory], known: Known, *, values_only: bool = False) -> list[str]:
    """The paragraphs `memories` would add to what `known` states of their lesson
    (`fresh_paragraphs` of each, in order, read as other phrasings).

    `values_only` for the other members of a new entry's cluster: they state the lesson its most
    complete member states, so their other words are other phrasings ("Keep responses concise
    and actionable" beside "Be concise and direct in all responses"), and only a command, number
    or identifier it lacks is a fact to add. A memory restating a live entry may still add an
    instruction in plain words ("Use the service name as host")."""
    return [paragraph for memory in memories
            for paragraph in fresh_paragraphs(memory.content, known, other_phrasing=True,
                                              values_only=values_only)]


# --- kind and tags ----------------------------------------------------------------------------


def happened(members: Sequence[Memory]) -> datetime:
    """The day an incident is filed under: the earliest day its memories say it happened ("On
    2026-11-27 14:05 the API returned 500s", told days later; "yesterday": the day before the
    memory was told), else when the first was told. A day after the telling, or more than a year
    before it, is no day of this event (a deadline, a release date)."""
    told = min(m.submitted_at for m in members)
    days = []
    for memory in members:
        if _YESTERDAY_RE.search(memory.content):
            day = (memory.submitted_at - timedelta(days=1)).astimezone(UTC).date()
            days.append(datetime(day.year, day.month, day.day, tzinfo=UTC))
        for found in _DAY_RE.finditer(memory.content):
            try:
                days.append(datetime(int(found[1]), int(found[2]), int(found[3]), tzinfo=UTC))
            except ValueError:
                continue  # "2026-13-45" is no day
    days = [day for day in days if told - EVENT_DAYS <= day <= told]
    return min(days, default=told)


def is_event(members: Sequence[Memory], taught: Lesson) -> bool:
    """A dated event, or a story told in the past with no rule to keep: an incident rather than a
    topic (a standing fact, "CI exposes Postgres on 5433", is a topic)."""
    if any(_DATE_RE.search(m.content) or m.metadata.get("severity") for m in members):
        return True
    return not taught.actionable and bool(_STORY_RE.search(taught.guidance)
                                          or _FIRST_PERSON_RE.search(taught.guidance))


def subject_tags(memory: Memory) -> list[str]:
    """The tags of `memory` that name a subject: not those repeating where it came from (a mined
    memory is tagged with its `metadata.source` and `metadata.kind`, "claude-code", "rejection",
    which would head an AGENTS.md section)."""
    provenance = {str(memory.metadata.get(key) or "") for key in ("source", "kind")}
    return [t for t in memory.tags if t not in provenance]


def tags_for(members: Sequence[Memory], first: Memory, *, nearby: Sequence[str] = (),
             known_tags: Sequence[str] = (), text: str = "") -> list[str]:
    """The memories' tags (the representative's first: the first tag is the bundle section),
    else `nearby` (the closest live entry's), else the known tags the lesson's words name, else
    the subject its words name (SUBJECTS), else its first command or path word; [] only when
    nothing names one (AGENTS.md files it under "General")."""
    tags = list(dict.fromkeys(t for m in (first, *members) for t in subject_tags(m)))
    if tags:
        return tags
    if nearby:
        return list(nearby)
    words = set(normalise(text).split())
    named = [t for t in known_tags if normalise(t) and set(normalise(t).split()) <= words]
    if named:
        return named[:2]
    subject = subjects(text)
    if subject:
        return subject[:1]
    spans = _CODE_SPAN_RE.findall(text)
    for span in spans:
        if "/" in span or _FILE_RE.search(span):
            continue  # `src/app.py`: a folder ("src") or file name is where, not what it is about
        head = [w for w in normalise(span.strip("`")).split() if w not in CODE_KEYWORDS]
        if head and head[0] not in ("make", "npm", "python", "pip", "git") and head[0].isalpha():
            return [head[0]]
        if len(head) > 1 and head[1].isalpha():
            return [head[1]]
    return []


# Words of a programming language, not a subject: a snippet `def parse(s):` is not about "def".
CODE_KEYWORDS = frozenset("def class return import from function const let var fn func pub async await "
                          "export static public private void int str self this new lambda if else for "
                          "while".split())
_FILE_RE = re.compile(r"\w\.[a-z]{1,5}\b")


# What a lesson is about, from its own words, when no memory or entry names a subject: the
# sections a project's agent instructions are usually grouped in (a word counts once it is a
# whole word of the lesson; the first subject the lesson names most often wins).
SUBJECTS = {
    "testing": "test tests testing pytest jest vitest unittest fixture fixtures coverage e2e playwright",
    "git": "git commit commits branch branches rebase merge pr prs push amend squash",
    "style": "format formatting lint linter linting ruff black prettier eslint indentation whitespace line "
             "naming emojis emoji comment comments style",
    "dependencies": "dependency dependencies package packages npm pnpm yarn bun pip uv poetry lockfile install",
    "types": "typescript typing type types typed annotations mypy pyright",
    "docs": "docs documentation readme docstring docstrings changelog",
    "database": "database db sql postgres postgresql mysql sqlite migration migrations schema",
    "security": "secret secrets credential credentials password passwords token tokens",
    "ci": "ci workflow workflows pipeline actions",
    "deploy": "deploy deploys deployment release releases staging production",
    "communication": "reply replies respond response responses concise summary summarize summarise explain",
    "logging": "log logs logging logger loggers slog zap logrus structlog",
}
_SUBJECT_OF = {word: subject for subject, words in SUBJECTS.items() for word in words.split()}


def subjects(text: str) -> list[str]:
    """The SUBJECTS `text` names, most named first (ties in the order first named)."""
    counts: dict[str, int] = {}
    for word in normalise(text).split():
        subject = _SUBJECT_OF.get(word)
        if subject is not None:
            counts[subject] = counts.get(subject, 0) + 1
    return sorted(counts, key=lambda s: -counts[s])
