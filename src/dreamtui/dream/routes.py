"""What a lesson is, and where it goes: the route rule (issue 13, item 5), written once.

Every lesson proposal a dream makes carries `Proposal.route` (vocabulary.Route). What the lesson
*is* decides first, how often it was seen second:

- `person`: a product question for the human ("Should guests be able to …?"); never agent context;
- `decisions`: a design decision ("We decided to …", "Decision: …"), appended to DECISIONS.md;
- `skill`: a procedure — ordered steps, a recipe of commands, a code snippet for a recurring task;
- `bundle`: a rule seen in two sessions or from two agents, or one a person pinned: AGENTS.md;
- `memory`: a rule seen once, from one agent in one session: kept in LTM (searchable over MCP),
  not in AGENTS.md until it recurs (then the dream proposes `promote`) or a person pins it. Its
  entry records where it was seen (frontmatter `seen_in: [agent @ session]`), so the same
  observation told again is a confirmation, and only a new agent or session promotes it.

The route is persisted on an entry as the frontmatter key `route` (`memory` | `bundle` |
`skill`; a decision or a question is kept in LTM as `memory`, its own delivery is the commit's);
an entry without the key was written before routes existed and counts as `bundle`, where it was.

The delivery (deliver/) reads the entry itself: a skill's SKILL.md `description` is its guidance
line (which says when to use it) and its body the entry's body; a decision's DECISIONS.md section
is its title and body; a question is the proposal's rationale and text.

A lesson that carries nothing to learn (a status remark, trivia, a bare "the tool failed") has no
route: `no_lesson` names why, and the engine proposes a `discard` with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import UTC

from dreamtui.dream.guidance import IMPERATIVES, has_steps
from dreamtui.dream.match import STOPWORDS
from dreamtui.model import ENTRY_ROUTES, Entry, Memory, memory_session
from dreamtui.vocabulary import Route

CODE_SNIPPET = "code_snippet"

_FENCE_RE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
_STEP_RE = re.compile(r"^\s*(?:\d+[.)]|step \d+:?)\s+\S", re.IGNORECASE | re.MULTILINE)
_QUESTION_RE = re.compile(
    r"\b(?:question for (?:the )?(?:human|person|product|owner|team|maintainers?)"
    # "Ask the owner whether …" is a question for them; "use another tool or ask the person" is
    # an instruction to the agent.
    r"|ask (?:the )?(?:human|person|product owner|owner|maintainers?|team) (?:whether|if|about|to decide)"
    r"|product (?:question|decision needed)|needs? a (?:product )?decision from)\b", re.IGNORECASE)
_WANT_RE = re.compile(r"^\s*(?:should (?:we|the product|users|guests|customers)|do we want|"
                      r"is it intended|is .{3,60} intended|are we supposed)\b", re.IGNORECASE)
_DECISION_RE = re.compile(
    r"^\s*(?:decision|adr(?:[- ]\d+)?)\s*:|\b(?:we|the team) (?:decided|chose|agreed|have decided)\b"
    r"|\bdecided (?:to|against|on)\b|\bgoing forward,? we (?:will|use)\b", re.IGNORECASE | re.MULTILINE)

# --- the value gate: memories that carry no lesson --------------------------------------------

# A lesson says what to do, what not to do, or how things are (a fact a later session needs).
_ACTION_RE = re.compile(
    r"\b(?:always|never|must|should|shouldn't|need(?:s|ed)? to|needs?|require[sd]?|use|run|set|"
    r"avoid|don'?t|do not|instead|before|after|unless|otherwise|fix(?:ed|es)?|because|so that|"
    # "Only use X" restricts what to do; "the README only has two lines" describes a file.
    r"only(?!\s+(?:has|have|had|contains?|is|are|was|were|lists?|shows?|mentions?)\b)|"
    r"make sure|ensure|prefer|pin(?:s|ned)?|install|call|add|remove|rewrite|restart|reset|retry|"
    r"expects?|fails?|refuses?|breaks?|mapped|listens?|publishes|backs|reads|keeps?)\b",
    re.IGNORECASE)
_STATUS_RE = re.compile(
    r"^\s*(?:done|finished|completed?|all (?:tests|checks) (?:pass|passed|green)|tests pass(?:ed)?|"
    r"wip|working on|started|starting|progress|status|update|ok|looks good|lgtm|nothing to report|"
    r"(?:i )?(?:have )?(?:implemented|refactored|updated|added|fixed|merged|pushed|opened|created|"
    r"reviewed|ran|looked at|read|explored))\b", re.IGNORECASE)
_BARE_FAILURE_RE = re.compile(
    r"^(?:.*\b(?:the )?(?:agent'?s? )?(?:tool(?: call)?|command|step|request|build|job)\s+"
    r"(?:call )?(?:failed|errored|did not work|didn'?t work|timed out)\b[^.;:]*[.!]?)$", re.IGNORECASE)
_TRIVIA_TITLE_RE = re.compile(
    r"^\s*(?:(?:the )?(?:python|node|java|go|ruby|rust|os|project)(?: version)?|readme(?: is [a-z ]+)?|"
    r"(?:the )?project (?:name|description|uses? [a-z0-9 .]+))\s*$", re.IGNORECASE)
_WORD_RE = re.compile(r"[A-Za-z0-9_`./-]+")
_CODE_RE = re.compile(r"`[^`\n]+`|```")
# A name from the code (test_checkout, app.seed, web/.nvmrc, OrderFactory): a remark about it may
# be short and still be the lesson ("test_checkout depends on the wall clock").
_NAMED_RE = re.compile(r"\b[A-Za-z]\w*_\w+|\b[A-Za-z][\w-]*\.[A-Za-z]\w+|\w*/\w+|\b[a-z]+[A-Z]\w*"
                       r"|\b[A-Z][a-z]+[A-Z]\w*")
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_PLAIN_WORD_RE = re.compile(r"[^\W\d_]+")
# Function words of the languages agents' users most often write in besides English.
_FOREIGN_WORDS = frozenset("""der die das und nicht ist ein eine mit für auf le la les des et est pas une
dans pour avec el los las y es que del por con um uma não com para""".split())
_SEEN_IN_RE = re.compile(r"^Seen \d+ times in (\d+) sessions\b", re.MULTILINE)
SHORT_WORDS = 12  # below this, a remark with nothing to do and no code is not a lesson

# A rule file's lines are often short and carry a label ("**Formatting**: run ruff", "Length:
# …"): the label names the subject, the rest is the rule. Read without it.
_LABEL_RE = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*[^*\n]{1,40}\*\*|__[^_\n]{1,40}__|[A-Z][\w /&-]{0,30})\s*:\s+")
# Verbs a rule line may open with that are nouns too often for guidance.IMPERATIVES to score them
# ("Target Python 3.12 or newer", "Limit PRs to one change"); here they only keep a line.
_GATE_VERBS = IMPERATIVES | frozenset(
    "target limit name list review tag label sort group link log handle raise catch stage generate "
    "document return write".split())
_NOUN_OPENER = frozenset("is are was were passes passed works worked looks looked fails failed went has have "
                         "had done succeeded ran runs".split())
_RULE_RE = re.compile(
    # "No emojis in code", "No `print` for logging": a prohibition (not "No errors", a status).
    r"^no\s+(?!(?:errors?|issues?|problems?|failures?|changes?|warnings?|regressions?|output|results?|"
    r"news|luck|idea|response)\b)[\w`*'-]+(?:\s+[\w`*'-]+){0,3}\s+(?:in|for|on|inside|within|to|from|"
    r"without|unless|outside)\b"
    # A stated limit: "Maximum line length: 88", "at most 100", "under 60 characters".
    r"|\b(?:max(?:imum)?|min(?:imum)?|at (?:most|least)|no (?:more|longer|fewer) than|under|below|"
    r"up to|limit(?:ed)? to|or (?:newer|later|higher|above))\b[^.;]{0,40}?\d"
    r"|\d[^.;]{0,30}?\b(?:at (?:most|least)|max(?:imum)?|or (?:newer|later|higher|above|less|fewer))\b"
    # A contrast: "Yarn is the package manager, not npm", "Use X, not Y".
    r"|,\s+not\s+(?:the\s+)?[\w`*'.-]+", re.IGNORECASE)


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text)


def states_rule(text: str) -> bool:
    """Whether a line reads as a rule: an instruction ("Be concise.", "Summarize changes at the
    end"), a prohibition ("No emojis in commit messages"), a stated limit ("Maximum line length:
    88 characters") or a contrast ("Yarn is the package manager, not npm"), read past a label."""
    body = _LABEL_RE.sub("", text, count=1).lstrip("*_`\"' ")
    words = [w.strip(".,:;!*_`\"'()").lower() for w in body.split(maxsplit=3)[:3]]
    # "Test suite is green", "Build passes now": the opener is a noun, the line a status.
    if len(words) >= 2 and words[0] in _GATE_VERBS and not _NOUN_OPENER.intersection(words[1:3]):
        return True
    return bool(_RULE_RE.search(body) or (body != text and _RULE_RE.search(text)))


def read_in_english(text: str) -> bool:
    """Whether the value gate can read `text`: its words and phrases are English ones. A lesson
    written in Chinese (no spaces, so one "word") or German ("Immer zuerst die Migrationen
    ausführen") names no English action word, yet is a lesson: it goes to a person, not away."""
    if _CJK_RE.search(text):
        return False
    words = [w.lower() for w in _PLAIN_WORD_RE.findall(text)]
    if len(words) < 4 or any(w in STOPWORDS for w in words):
        return True
    # No English function word; "Build passes now" is still English, "Immer die Tests laufen
    # lassen" is not: another language shows in its letters or its own function words.
    return not (any(not w.isascii() for w in words) or any(w in _FOREIGN_WORDS for w in words))


# What intake leaves of a secret (safety.secrets), and a line that only assigns a value:
# "export STRIPE_SECRET=…", "token: …", "aws_secret_access_key = …".
_REDACTED_RE = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
_ASSIGNMENT_RE = re.compile(r"^(?:export\s+|set\s+)?[A-Za-z_][\w.-]*\s*[=:]\s*\S*$", re.IGNORECASE)
_CREDENTIAL_REMARK_WORDS = 5  # content words of "… is the access key id": a label, nothing to do


def only_credentials(content: str) -> bool:
    """Whether `content` is nothing but redacted credentials: each line assigns a value or labels
    a `[REDACTED:…]` placeholder, and no line says what to do with it. Such a memory keeps no
    lesson once the secret is gone, and a secret belongs in no entry nor AGENTS.md."""
    if not _REDACTED_RE.search(content):
        return False
    for line in (line.strip() for line in content.splitlines()):
        if not line or _ASSIGNMENT_RE.match(line):
            continue
        left = _REDACTED_RE.sub(" ", line)
        named = [w for w in _words(left) if w not in STOPWORDS and len(w) > 1]
        if len(named) > _CREDENTIAL_REMARK_WORDS or states_rule(left):
            return False
    return True


def no_lesson(memory: Memory) -> str | None:
    """Why `memory` carries no lesson (a reason a person understands), or None when it does."""
    if only_credentials(memory.content):
        return ("nothing but credentials (redacted values, KEY=value lines): no lesson to keep, "
                "and a secret goes into no entry nor AGENTS.md")
    text = " ".join(memory.content.split())
    if memory.type == CODE_SNIPPET or _CODE_RE.search(memory.content) or _STEP_RE.search(memory.content):
        return None  # code, a command or steps: something to reuse
    words = _words(text)
    if _BARE_FAILURE_RE.match(text) and len(words) <= 2 * SHORT_WORDS:
        return "a failure without its cause or fix: nothing a later session can act on"
    if _STATUS_RE.match(text) and not _ACTION_RE.search(text.split(" ", 2)[-1] if len(words) > 2 else ""):
        return "a status remark about one session's work, not a lesson for the next"
    if len(words) <= SHORT_WORDS and not _ACTION_RE.search(text) and not _NAMED_RE.search(text) \
            and not states_rule(text) and read_in_english(f"{memory.title} {text}"):
        if _TRIVIA_TITLE_RE.match(memory.title) or len(words) <= 6:
            return "trivia the project's own files already show; nothing to do differently"
        return "a remark with nothing to do and no command, fact or fix to reuse"
    return None


# --- what a lesson is --------------------------------------------------------------------------


# A fence a shell reads (or one naming no language): its lines are commands, a recipe.
_SHELL_FENCE_RE = re.compile(r"```(?:sh|bash|shell|console|zsh|fish|powershell|pwsh|ps1|cmd|bat)?[ \t]*\n(.*?)```",
                             re.DOTALL | re.IGNORECASE)
# Fewer lines of code than this make a helper to quote from memory (`return int(s.strip())`),
# not a procedure to deliver into the project's skills.
SKILL_CODE_LINES = 3


def _lines(blocks: Iterable[str]) -> list[str]:
    return [line for block in blocks for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith(("#", "//"))]


def is_procedure(memories: Sequence[Memory]) -> bool:
    """Ordered steps (or a list under an intro line), a recipe of several commands, or a snippet
    (submitted as one, or a fence of code) of at least SKILL_CODE_LINES lines."""
    for memory in memories:
        if len(_STEP_RE.findall(memory.content)) >= 2 or has_steps(memory.content):
            return True
        if len(_lines(_SHELL_FENCE_RE.findall(memory.content))) >= 2:
            return True
        code = _lines(_FENCE_RE.findall(memory.content)) or (
            _lines([memory.content]) if memory.type == CODE_SNIPPET else [])
        if len(code) >= SKILL_CODE_LINES:
            return True
    return False


def is_question(memories: Sequence[Memory]) -> bool:
    """A product question for the human: what the product should do, not how the code works."""
    for memory in memories:
        text = f"{memory.title}\n{memory.content}"
        if _QUESTION_RE.search(text):
            return True
        if memory.title.rstrip().endswith("?") and _WANT_RE.match(memory.title):
            return True
    return False


def is_decision(memories: Sequence[Memory]) -> bool:
    return any(_DECISION_RE.search(f"{m.title}\n{m.content}") for m in memories)


def sighting(memory: Memory) -> str:
    """Where a lesson was seen: the agent and its session (the UTC day when it names none). Two
    memories from one sighting are one observation told twice, not a recurrence."""
    when = memory_session(memory) or f"{memory.submitted_at.astimezone(UTC):%Y-%m-%d}"
    return f"{memory.agent_id} @ {when}"


def recurs(memories: Iterable[Memory], earlier: Iterable[str] = ()) -> bool:
    """Seen in two sightings — from two agents, or in two sessions — counting the `earlier`
    sightings an entry records (frontmatter `seen_in`). A mined memory counts the sessions it
    was met in: the miners gather a lesson met again into one memory, saying "Seen 3 times in 2
    sessions" (intake/lessons.py), which is a recurrence, not one sighting."""
    memories = list(memories)
    if any(counted_sessions(m) >= 2 for m in memories):
        return True
    return len({*earlier, *map(sighting, memories)}) >= 2


def counted_sessions(memory: Memory) -> int:
    """The sessions a mined memory says it was met in ("Seen 3 times in 2 sessions"); 1 when it
    says none (a memory is one session's)."""
    found = _SEEN_IN_RE.search(memory.content)
    return int(found[1]) if found else 1


def seen_in(entry: Entry) -> list[str]:
    """The sightings a once-seen entry records; [] for an entry that records none."""
    value = entry.meta.get("seen_in") or []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def lesson_route(memories: Sequence[Memory], *, pinned: bool = False) -> Route:
    """The route a new lesson made of `memories` is proposed with (the module docstring's order)."""
    if is_question(memories):
        return Route.PERSON
    if is_decision(memories):
        return Route.DECISIONS
    if is_procedure(memories):
        return Route.SKILL
    return Route.BUNDLE if pinned or recurs(memories) else Route.MEMORY


def entry_route(entry: Entry) -> Route:
    """An entry's persisted route (`Entry.route`: absent counts as `bundle`)."""
    return Route(entry.route)


def stored_route(route: Route) -> Route:
    """What an entry's frontmatter keeps for a proposal's route."""
    return route if route in ENTRY_ROUTES else Route.MEMORY


def route_meta(route: Route, memories: Iterable[Memory]) -> dict[str, object]:
    """The frontmatter a new entry on `route` carries: `route`, and for a once-seen lesson where
    it was seen (`seen_in`), so only a new agent or session promotes it."""
    meta: dict[str, object] = {"route": stored_route(route)}
    if route == Route.MEMORY:
        meta["seen_in"] = sorted({sighting(m) for m in memories})
    return meta


def why(route: Route) -> str:
    """The rationale's words for a route, as a reviewer reads them."""
    return {
        Route.MEMORY: "seen once (one agent, one session): kept in memory, not in AGENTS.md until it recurs",
        Route.BUNDLE: "recurs across agents or sessions: into AGENTS.md",
        Route.SKILL: "a procedure: proposed as a skill",
        Route.DECISIONS: "a design decision: proposed for DECISIONS.md",
        Route.PERSON: "a product question for the human: listed for a person, not given to agents",
    }[route]
