"""The project's own instruction files as the known corpus (changeset-semantics.md, "The project's docs").

A memory that restates a rule the project already documents (CLAUDE.md, AGENTS.md, GEMINI.md,
Cursor and Copilot rules, DECISIONS.md, `project.known_files`) adds nothing an agent does not
read at start-up: the dream proposes `discard` with the citation (`CLAUDE.md:14`). A memory that
looks like a rule there but states a different fact (pnpm vs Yarn, 80 vs 88 characters, "never"
vs "always") is kept, and its proposals say which rule it contradicts: the person decides which
one is right. This runs before any engine (runner.py), so every engine gets the same answer.

How a memory is read against a rule (KnownIndex.check), with match.py's verdict on the pair:
- a restatement says what one rule says, read in its place in the file (its heading, the line
  leading its list, marked or only indented, and the item a nested item sits under), with the
  same stance on the same thing and no other value: most of what the memory says (by rarity,
  kin words in part, `covered`) is in the rule. What needs no rule: its asides, examples (quoted,
  or a template of placeholders), opening bold label, reasons and what a step is good for, the
  exceptions an instruction makes; the alternatives a pick rejects (`agreed_pick`); the person's word
  ("unless told to"); generic and frame words; a step's tool where the rule names the step and
  no tool (`pytest` / "run the tests"); time words against the rule's condition ("immediately
  after making commits" / "when creating a commit"). A command the rule never names is news, and
  a step done only sometimes or little ("only where needed", "sparingly") is not one done always,
  nor is an instruction the rule does not give beside one it does ("…, and never commit the
  lockfile"); the person's "no" answering the agent ("no, CI uses 5433") negates nothing after it;
- a contradiction is the same thing with the opposite stance or another value: a command, code
  or tool one side does and the other rejects, plain words opposed on more than they agree on,
  "X is not used any more" against a rule doing X, the agent taking a step the rule leaves to the
  person ("only ever started by the user"), match.py's conflicts (said in the rule's words, never a
  stem), and, never a restatement
  whatever else agrees (KnownIndex.turned), the rule's two steps in the other order ("publish,
  then tag" / "tag before publishing"; "never X before Y", "not X until Y", "X once Y" say Y
  first) or the option a rule picks another over ("Prefer to write new helpers", or one rejecting
  the pick, against "Prefer reusing existing helpers over writing new ones"). No stance is read
  from an aside, a reason, a command's arguments, a part of a dotted name, what a negated clause is about
  ("Merged migrations must not be edited" rejects editing, not migrations), or a step forbidden
  only without another ("never merge without a review" requires the review);
- a short form restates a long one and the converse: a rule naming no place holds in the
  memory's ("No emojis in code or docs" / "Do not use emojis"), a word narrowing a noun the rule
  says is said ("inline comments" / "comments"), a long rule saying all of a short memory says it
  (its asides and examples aside), and a line stating several instructions is read one by one
  (`_parts`, citing the line). A short form must still say what makes it a rule: the condition
  the rule holds under ("if tests fail"), the action ("push commits" is no "commit"), in one
  sentence of a long rule, and no word swapped for another ("secrets" for "files");
- which language is used for what (replies, comments, commit messages, docs; naming nothing, for
  all) is read across languages (a Japanese rule and an English memory), clause by clause where
  a line names two ("think in English, but answer in Chinese"): the same language for the same
  thing restates, another contradicts. Other rules in another language are read in match.py's
  English reading of them (lexicon.py);
- lines an agent definition labels as describing ("When to use:", "Context:") are no rules, and a
  one-word instruction opening with its stance ("Be terse.", "Never push") is one;
- anything else is related at most: a partial restatement is noted ("close"), never discarded.

Reading is bounded: at most MAX_FILES files of at most MAX_FILE_BYTES each, a DECISIONS.md
search that skips dependency and hidden folders and stops after MAX_DIRS folders. A file that
cannot be read is one line in `KnownCorpus.problems`, never an exception. Split files are cached
by (path, size, mtime), and matching goes through an inverted index of rare words: a few
candidate rules per memory, so the work grows with the batch, not batch × rules.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import islice, pairwise
from pathlib import Path

from dreamtui.deliver.decisions import HEADER as DECISIONS_HEADER
from dreamtui.deliver.decisions import RECORDED_BY
from dreamtui.dream.guidance import of_the_occasion
from dreamtui.dream.match import (
    ACTIONS,
    DEFAULT_SIMILARITY,
    FRAME,
    KIN,
    KIN_SHARE,
    NEGATIONS,
    STOPWORDS,
    SUBJECT_SLOTS,
    TOOL_SLOTS,
    Conflict,
    Features,
    MatchIndex,
    Verdict,
    Weights,
    compare,
    conflicting,
    conflicts,
    features_of,
    kindred,
    normalise,
    stem,
    variants,
)
from dreamtui.model import Memory
from dreamtui.vocabulary import clip, counted

MAX_FILE_BYTES = 512 * 1024  # instruction files are pages, not data; a bigger one is a mistake
MAX_FILES = 200
MAX_DIRS = 5000  # folders looked at for DECISIONS.md
MAX_GLOBBED = 1000  # paths one project.known_files glob may name
MAX_RULES = 20_000
# Folders that hold other people's code or build output, never the project's own decisions.
SKIPPED_DIRS = frozenset({"node_modules", "vendor", "venv", "env", "build", "dist", "target",
                          "__pycache__", "site-packages", "third_party"})
# The workspace's own delivered block (deliver/): dreamtui's output, not the project's word.
_BLOCK_BEGIN_RE = re.compile(r"<!--\s*dreamtui:begin\b")
_BLOCK_END_RE = re.compile(r"<!--\s*dreamtui:end\b")

MARK_CONTRADICTS = "contradicts-project-docs"  # a person decides which is right
RULE_CHARS = 400  # a rule's text as cited in a rationale and given to a model
MIN_RULE_WORDS = 2  # content words: "## Setup" or "Important:" alone are no rule to match
# ... but an instruction opening with its stance is one with a single word ("Be concise.", "Never
# push."), of at most this many words.
MAX_ONE_WORD_RULE = 4
_STANCE_OPENERS = frozenset("be never always no avoid dont use prefer keep".split())
# Japanese, Chinese and Korean write a sentence without spaces: a line of this many of their
# characters is a rule (read for the language it says is used for what, _languages_said).
MIN_CJK_CHARS = 4
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")

# match.Verdict's scale: a restatement needs this much in common and no fact stated differently ...
KNOWN_SIMILARITY = DEFAULT_SIMILARITY
# ... and the rule must say this share of what the memory says (asides and generic words
# discounted, below). Chosen on the tuning half of the real set (benchmarks/bench_quality.py):
# 0.66 recognises 9 of 12 restatements with none of 15 other memories called known; the closest
# other memory ("Update `.env.example` if new environment variables are added") is at 0.60.
KNOWN_COVERAGE = 0.66
# Below KNOWN_COVERAGE but above this, a restatement is not discarded but noted on the proposals
# resting on it ("may repeat the project's docs, CLAUDE.md:12: …"): the person sees the rule.
CLOSE_COVERAGE = 0.45
# A memory the rule says all of (this share of it, KnownIndex.contained) restates it however
# much more the rule says, from this score up.
CONTAINED_SIMILARITY = 55
CONTAINED_COVERAGE = 0.9
# A verdict this close is the same lesson when the memory and the rule give the same number
# (KnownIndex.same_number); coverage still decides whether it is a restatement.
SAME_NUMBER_SIMILARITY = 80
# A correction verdict this close is shown as a contradiction; below it the two share a subject
# ("run X before committing" and "run Y after editing") more often than they disagree.
CONTRADICTS_SIMILARITY = 90
# Rules compared with each memory: those sharing its rarest words. A rule it restates or
# contradicts shares them (measured: the deciding rule was the first candidate for all 26 such
# memories of the real set and ours); each comparison costs, so a memory's work stays small.
RULE_CANDIDATES = 5
# A word the rule does not say but the heading it sits under does ("## Package Manager" over
# "This project uses pnpm") is covered for this share of its weight. (Counting the words of the
# rules beside it too changed nothing on the tuning half and made "Use Google-style docstrings"
# look close to "Follow PEP8 style guidelines" under "## Coding Standards".)
HEADING_SHARE = 0.5
# Words instructions use for how or where, not what: in measuring coverage they need no rule
# ("Run Black to format code" restates "Format code with `black`"; "`.env` files" is `.env`).
_GENERIC = frozenset(stem(w) for w in """
run execute invoke make keep aim follow file anywhere everywhere yourself operation command
repository repo codebase prefer ai assistant agent agents adhere comply conform obey
""".split())
# Headings that name no subject ("## Conventions", "## Guidelines", "# Claude Code Instructions"):
# their words cover nothing a rule under them leaves out ("conventional" is not "Conventions").
_SUBJECTLESS_HEADING = frozenset(stem(w) for w in """
convention conventions guideline guidelines rule rules instruction instructions note notes general
overview important misc miscellaneous standard standards best practice practices policy policies
basics tip tips principle principles agent agents claude code guide guidance reference md
""".split())
# "Ask before X" is "don't X unless asked" (and "only X when asked", "confirm before X"): when
# the memory and the rule both say a step needs the person's word, the words saying so are
# covered however each says it.
_PERMISSION_RE = re.compile(
    r"\b(?:ask(?:ing)?\s+(?:\w+\s+){0,2}?(?:before|first)|unless\s+(?:\w+\s+){0,3}?(?:asks?|asked|requests?"
    r"|requested|tells?|told|instructs?|instructed|directs?|directed|approves?|approved)"
    r"|without\s+(?:[\w'’]+\s+){0,3}?(?:asking|permission|approval|consent)"
    r"|only\s+(?:\w+\s+){0,4}?(?:when|if)\s+(?:\w+\s+){0,2}?(?:asks?|asked|requests?|requested|tells?|told|instructed)|(?:confirm|permission|approval)\s+(?:\w+\s+){0,2}?before)\b",
    re.IGNORECASE)
_PERMISSION = frozenset(stem(w) for w in """
ask asked asking before first unless explicitly without permission approval confirm only when
request requested told instructed directed approve approves approved consent specifically
user developer human maintainer
""".split())
# A number said in both (80 characters, port 5432) is as telling as a rare word; one the rule
# does not say counts against the restatement. "1,500" is one number.
_POLARITY = {"do", "do not"}  # match.py's values for a step said and its negation
_USE = {"use", "do not use"}  # ... and for a command
# match.py's values for a stance, not a thing named (KnownMatch.differs)
_STANCES = frozenset({*_POLARITY, *_USE, "negated", "affirmed", "only when asked", "unasked"})
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:[,_]\d{3})*(?:\.\d+)?(?![\w])")
# The items of a list a memory gives ("never read: .env, secrets/, private keys, credentials")
# name one thing each: an item of a few words the rule names in part ("API keys" for "private
# keys") is covered whole.
_LIST_SPLIT_RE = re.compile(r",\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+")
MIN_LIST_ITEMS = 3
MIN_CLAUSE_WORDS = 3  # a verb and this many words in all: a clause ("stage the files"), no item
MAX_ITEM_WORDS = 3
# Words that name no particular thing: a one-word swap of one ("anything" for "files") states
# no other fact.
_INDEFINITE = _GENERIC | frozenset(stem(w) for w in """
anything everything something nothing all any stuff thing
""".split())
# Verbs that put a thing where it goes ("Add imports at the top of the file", "Keep imports at
# the top"): one swapped for another states no other fact, the place does.
_PLACING = frozenset(stem(w) for w in "keep put place add locate position".split())
# Words joining a rule's clauses that match.py's stop words leave out: none of them is a noun's.
_LINKING = frozenset("unless except whenever always never ever instead otherwise".split())
# Verbs a rule uses besides match.py's actions and frame: none of them narrows a noun.
_VERBS_KNOWN = frozenset(stem(w) for w in """
use do make keep avoid ensure must should need always never prefer allow update change edit fix
check verify""".split())
# Words that bound where a rule holds: "only allowed in `main.go`" is "none except in `main.go`";
# one swapped for another states no other fact.
_RESTRICTING = frozenset(stem(w) for w in "only allowed permitted except unless outside".split())
# Where a memory says its rule holds: "in code, display names, or documentation", "for all commit
# messages", "on any modified Rust files". A rule saying no place holds everywhere, so it says
# the memory's (a rule saying one shares a word with it: "in commit messages" / "in git commits,
# PRs, or any code"). Only a phrase naming places a project has counts: "in Japanese" and "in
# the imperative mood" name what, not where.
_SCOPE_RE = re.compile(
    r"\b(?:in|across|throughout|within|inside|(?:for|on|to)(?=\s+(?:all|any|every|each)\b))\s+"
    r"((?:(?!\b(?:if|when|unless|so|because|before|after|then|to|instead|rather)\b)[^.;:!?()\n])+)",
    re.IGNORECASE)
_PLACES = frozenset(stem(w) for w in """
code codebase file doc documentation comment commit message pr pull request description readme ui
output log test branch repository project module function class component
response answer conversation chat anywhere everywhere source script notebook page changelog
""".split())
_AND_OR = frozenset({"and", "or"})
_ACRONYM_RE = re.compile(r"\b[A-Z]{2,5}\b")
_SCOPE_QUANTIFIERS = frozenset("all any every each the your our its their".split())
_DETERMINERS = _SCOPE_QUANTIFIERS | frozenset("a an this that these those".split())
SCOPE_SHARE = 0.75  # of a scope word's weight, when the rule says no other place
# Verbs of making or doing anything ("when generating commits", "when writing code"): a condition
# saying only them and a place says where the rule holds, not when.
_MAKING = FRAME | frozenset(stem(w) for w in """
generate produce author make do use work edit change update""".split())
# Which language the agent answers in is a rule instruction files state most in their own
# language: a language's name in English and in itself, and the words for the agent's replies
# in the languages whose files share no word with English ones. A rule saying one language is
# matched across languages; any other rule in another language is not (that needs translation).
_LANGUAGES = {
    "english": ("english", "英語", "영어", "英语", "英文"),
    "japanese": ("japanese", "日本語", "일본어", "日语", "日文"),
    "korean": ("korean", "한국어", "韓国語", "韩语", "韓語"),
    "chinese": ("chinese", "mandarin", "中文", "中国語", "中國語", "汉语", "漢語", "중국어"),
    "german": ("german", "deutsch"), "french": ("french", "français", "francais"),
    "spanish": ("spanish", "español", "espanol"), "portuguese": ("portuguese", "português", "portugues"),
    "italian": ("italian", "italiano"), "russian": ("russian", "русск"), "dutch": ("dutch", "nederlands"),
    "polish": ("polish", "polsk"), "turkish": ("turkish", "türkçe"), "vietnamese": ("vietnamese", "tiếng việt"),
    "ukrainian": ("ukrainian", "українськ"),
}
_VARIANTS = "british|american|uk|us|canadian|australian|simplified|traditional|brazilian|european|swiss"
_VARIANT_ALIASES = {"uk": "british", "us": "american"}
_LANGUAGE_WORDS = frozenset("""
use write always only all spelling spellings terminology language languages conventions style
every everything work task tasks do""".split()) | frozenset(_VARIANTS.split("|"))
MAX_LANGUAGE_STEMS = 6  # a memory saying more than which language to answer in is read as usual
# ... unless all it says besides is in clauses naming a language ("Think in English, but answer in
# Chinese") and at most this many words more ("No exceptions."; a bold label aside).
MAX_BESIDE_LANGUAGE = 2
# Where a sentence's clauses part, in English and in the languages writing "，" and "；".
_LANGUAGE_CLAUSE_RE = re.compile(r"[,;:，；：、]\s*|\s+but\s+")
_LANGUAGE_NAMES = {name: english for english, names in _LANGUAGES.items() for name in names}
_LANGUAGE_RE = re.compile("|".join(re.escape(name) for name in _LANGUAGE_NAMES))
_REPLY_WORDS = ("応答", "回答", "返答", "返信", "会話", "対話", "返事", "コミュニケーション", "レスポンス",
                "説明", "응답", "답변", "대화", "回复", "回覆",
                "答复", "對話", "对话", "回應", "回应", "antwort", "réponse", "respuesta", "resposta",
                "risposta", "ответ")
_REPLY_RE = re.compile(r"\b(?:respond\w*|responses?|repl(?:y|ies|ying)|answer\w*|communicat\w*|conversations?"
                       r"|chat\w*|talk\w*|speak\w*|interact\w*|explanations?)\b")
# What else a rule says a language is for, in English and in the languages writing no spaces.
_LANGUAGE_THINGS = (
    ("replies", _REPLY_RE),
    ("comments", re.compile(r"\bcomments?\b|コメント|注释|注釋|주석")),
    ("commit messages", re.compile(r"\bcommit\s+(?:messages?|titles?|subjects?|logs?)\b|\bcommits\b"
                                   r"|コミット|提交信息|커밋")),
    ("documentation", re.compile(r"\b(?:docs|documentation|readmes?)\b|ドキュメント|文档|문서")),
)
_BEING = frozenset("be is are was were been being get gets got".split())
LONG_RULE_SHARE = 3  # a rule with this many times the memory's words is long beside it (undone)
# "when needed", "if applicable": a hedge, not a condition a restatement must say.
_HEDGES = frozenset(stem(w) for w in """
need needed necessary applicable possible appropriate relevant required useful sensible practical
available feasible unsure unclear doubt whenever well unnecessarily needlessly excessively overly
gracefully properly carefully correctly thoroughly""".split())
# A step done only on some occasions, or little ("Use comments only when necessary", "emojis
# sparingly"): a side saying so and one saying to do it (always, or plainly) state two rules,
# however alike their words. (An "only" after a tool picks it, "only when asked" is the person's
# word: neither says how often.)
_RESTRICTED_RE = re.compile(r"\bonly\s+(?:\w+\s+){0,3}?(?:when|if|where|as\s+needed)\b|\bsparingly\b|\brarely\b"
                            r"|\bas\s+(?:little|few|rarely|seldom)\s+as\b", re.IGNORECASE)
# What a rule says it holds under: "if …", "when …" (to the clause's end).
# ("even if …" concedes: the rule holds whatever follows it, so that is no condition)
# (and through a list of short items: "if information is missing, partial, unclear, or vague")
_CONDITION_RE = re.compile(r"(?<!\beven\s)\b(?:if|when|whenever|once)\s+([^.;:!?,]+"
                           r"(?:(?:,\s*\w+(?:\s\w+)?)*,?\s+(?:or|and)\s+\w+(?:\s\w+)?"
                           r"(?=\s*(?:[.;:!?,)]|$|\s(?:instead|rather)\b)))?)", re.IGNORECASE)
# When a step is done, said as time ("push commits immediately after making them"): where the
# rule ties its step to an event the memory names too ("when creating a commit, push it"), the
# memory's words for the time are the rule's condition said another way.
_TIMING = frozenset(stem(w) for w in "after afterwards once immediately right away soon promptly".split())
# A step a memory says something comes before ("run the tests before committing"): "never commit
# if the tests fail" says the same.
_BEFORE_RE = re.compile(r"\b(?:before|prior\s+to)\s+([^.;:!?,]+)", re.IGNORECASE)
# A tool said to be missing on the machine ("`npm` is not installed here", "sh: 1: npm: not
# found", "zsh: command not found: npm"): an environment fact, which picks no tool.
_ABSENT_RE = re.compile(r"`?([\w.+-]+)`?\s+(?:is|are|was|were)(?:\s+not|n't)\s+(?:installed|available|found|present)"
                        r"|\b([\w.+-]+):\s+(?:command\s+)?not\s+found(?!:)|command\s+not\s+found:\s*([\w.+-]+)",
                        re.IGNORECASE)
# The call a mined correction was typed after (intake/lessons.py: "Do as the person said after it
# tried to run `…`: “…”").
_TRIED_RE = re.compile(r" after it tried to (?:[^`:“]*`[^`]*`)+[^:“`]*(?=:\s*“)")
# The occasion a prohibition is made on ("Do not use --no-verify when committing", "… after it
# tried to run `git commit --no-verify`"): a clause of time, which names the step without telling
# to take it.
_OCCASION_RE = re.compile(r"\b(?:when|whenever|while|during|before|after|once|prior\s+to)\s+([^.;:!?,]+)",
                          re.IGNORECASE)
# The short names of the languages tool roles are named for (match.TOOL_SLOTS).
_ROLE_NAMES = {"JavaScript": "js ts typescript node", "Python": "py"}
_TEMPLATE_RE = re.compile(r"<[\w -]+>")
# Words putting one step ahead of another.
_ORDER = frozenset(stem(w) for w in "before first prior beforehand".split())
# Where a version-control action goes, by the action's stem.
_IMPLIED = {stem(action): frozenset(stem(w) for w in places.split()) for action, places in (
    ("commit", "version control git repository repo vcs history message messages"),
    ("push", "remote origin git repository repo upstream"))}
_PLACED = frozenset().union(*_IMPLIED.values())
# What a verb's object is when the verb alone says it: to ask is to ask a question ("Ask
# clarifying questions" / "Ask for clarification").
# (and a test's outcome is what testing is for: "Ensure the tests pass" / "Test your changes")
_OBJECT_SAID = {stem("ask"): frozenset({stem("question"), stem("questions")}),
                stem("test"): frozenset({stem("pass"), stem("passes"), stem("passing")})}
# Words naming the kind of thing a name is ("the Conventional Commits spec", "… format", "…
# style"): "Use Conventional Commits format" says what "Follow the Conventional Commits spec" does.
_KIND = frozenset(stem(w) for w in "format spec style standard syntax".split())
# A plain word just before a word the rule says, where the rule puts no word of its own
# ("inline comments" against "Do not add comments"), narrows what the rule says: covered for
# this share of its weight. Where the rule has its own ("double quotes"), it is another value.
MODIFIER_SHARE = 0.75
# A memory is read without its places and narrowing words (KnownIndex.narrowed) only when it is
# this close to the rule already: the words it drops weigh less than a third of what it says.
NARROWED_SIMILARITY = 60
# A memory's later steps: "…, then commit it", "…; push the tag".
_STEP_RE = re.compile(r"[;.]\s+|,?\s+(?:and\s+)?then\s+", re.IGNORECASE)
# What a memory says in an aside (in parentheses, after a dash: "never use emojis anywhere —
# not in commits, code, …") are its examples: what the rule must cover is the rest. The verdict
# still reads the asides, so an aside stating a different fact keeps the memory.
_ASIDE_RE = re.compile(r"\([^()\n]*\)|\[[^\[\]\n]*\]|\s[-–—]+\s.*|—.*|\s--\s.*")
# A bold label opening a memory ("**Style:** follow …", "**Testing**: run …") names the section
# it was copied from, as a heading does: what the rule must cover is what follows it.
_LABEL_RE = re.compile(r"^\s*(?:[-*+]\s+)?\*\*(?:[^*\n:]{1,30}:\*\*|[^*\n:]{1,30}\*\*\s*:)", re.MULTILINE)
MAX_LABEL_WORDS = 3
# "**Just fix them** - don't ask, diagnose and solve it": a bold lead and a dash are a label and
# the rule it names (not an aside, which a dash opens elsewhere): what a rule must cover is the
# rule, as after a "**Label:**" (_bold_dash). A lead opening with one of these is the rule.
_IMPERATIVE = frozenset("""
never always dont do no avoid use prefer keep run write add ensure make follow only put place
""".split())
_BOLD_DASH_RE = re.compile(r"^(\s*(?:[-*+]\s+)?\*\*[^*\n]{1,60}\*\*)\s+[-–—]+\s+")
# ... and in parentheses: "(e.g., `feat: …`, `fix: …`)" names no command the rule must name.
_PAREN_EXAMPLES = r"\s*\((?:e\.g\.|eg\b|for\s+example|for\s+instance|such\s+as)(?:`[^`\n]*`|[^()`\n])*\)"
_PAREN_EXAMPLES_RE = re.compile(_PAREN_EXAMPLES, re.IGNORECASE)
# Examples a memory gives of what it means ("legacy modules like `os.path` or `glob`", "such as
# A, B and C") name no rule of their own: the rule need not list them. Only a list or a code span
# is read so ("looks like the old API" is no example).
# (a quoted example is whole, as a code span is: "like 'feat:', 'fix:', etc.")
_EXAMPLES_RE = re.compile(r",?\s+\b(?:such\s+as|like|e\.g\.,?|for\s+(?:example|instance),?|including)\s+"
                          r"(?:`[^`\n]*`|'[^'\n]*'|\"[^\"\n]*\"|“[^”\n]*”|[^.;:!?()`'\"“\n])+(?:\s*\betc\b\.?)?|"
                          + _PAREN_EXAMPLES, re.IGNORECASE)
# An exception a memory makes to its rule ("Use single quotes except in JSX", "… unless
# interpolation is needed"): the rule it restates need not make it (the verdict still reads it:
# an exception naming another value keeps the memory).
_EXCEPTION_RE = re.compile(r",?\s+\b(?:except|excepting|unless|apart\s+from|other\s+than)\b[^.;!?]*", re.IGNORECASE)
_INSTEAD_RE = re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of|over)\s+([^.;:!?()\n]+)", re.IGNORECASE)
_DOTTED_RE = re.compile(r"[\w.-]*\w[./_]\w[\w./-]*")
_HIDDEN_RE = re.compile("\x00(\\d+)\x01")  # a code span hidden (_outside_code)
# Where a memory's statements part: a sentence's end, a semicolon, a colon before what it states.
_PARTS_RE = re.compile(r"(?<=[.!?;:])\s+(?=\S)")
# A reason a memory gives ("…, so runs are reproducible"; "… to make sure nothing breaks") says
# why, not what to do: a restatement may add it.
_REASON_RE = re.compile(r"[,;]?\s+\b(?:so\s+that|so|because|since|even\s+(?:if|when|though))\s[^.;!?]*"
                        r"|[,;]\s*(?:in\s+order\s+to|to\s+(?:make\s+sure|ensure|avoid|prevent))\s[^.;!?]*"
                        # ... and what it is good for, comma or not ("… to reduce nesting and
                        # improve readability")
                        r"|\s+(?:in\s+order\s+to|so\s+as\s+to|to\s+(?:reduce|improve|simplify|increase|minimi[sz]e"
                        r"|maximi[sz]e|help|enable|make\s+sure|ensure|avoid|prevent))\s[^.;!?]*"
                        # ... and so does the one act a step is done in place of ("ask instead of
                        # assuming"): the step rejects it (a tool or thing picked over is news)
                        r"|,?\s+\b(?:instead\s+of|rather\s+than)\s+[a-z]+ing(?=\s*(?:[.;,!?]|$))",
                        re.IGNORECASE)
_DISUSED_RE = re.compile(r"\s(?:is|are|was|were|must|should|can|will|need|needs)?\s*(?:not|no\s+longer|never)\s+"
                         r"(?:be\s+)?(?:used|needed|required|allowed|permitted|supported|wanted)\b", re.IGNORECASE)
_REJECTING_LABELS = frozenset({"dont", "do not", "avoid", "never", "bad", "wrong", "incorrect", "not this",
                               "forbidden", "prohibited", "instead of", "anti pattern", "antipattern"})
_MIXED = frozenset({"dos", "always", "should", "prefer", "instead"})
_REJECTING_FIRST = frozenset({"never", "dont", "donts", "avoid", "forbidden", "prohibited", "banned"})
_REJECTING_LAST = frozenset({"avoid", "donts", "forbidden", "prohibited", "banned", "never"})
_CLAUSE_RE = re.compile(r"[.;:!?,]\s+|\n")
_API_KEY_RE = re.compile(r"\bapi[ -]keys?\b", re.IGNORECASE)
_SPAN_RE = re.compile(r"`([^`\n]+)`")
_LINK_RE = re.compile(r"\[([^\]\n]*)\]\([^)\s]*\)")
_URL_RE = re.compile(r"<?https?://[^\s>)]+>?")
_LIST_RE = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_HEADING_RE = re.compile(r"#{1,6}\s")
# Fence languages whose lines are commands (none given: most often a command too).
SHELL_FENCES = frozenset({"", "bash", "sh", "shell", "console", "zsh", "fish", "terminal",
                          "powershell", "pwsh", "ps1", "cmd", "bat"})
# Where a sentence's instructions part: a semicolon, or a comma or "and" before an imperative.
_SEMICOLON_RE = re.compile(r";\s+")
_INSTRUCTION_RE = re.compile(
    r",\s+(?:and\s+)?(?=(?:always|never|avoid|prefer|use|keep|run|do|dont|don't|make|write|add|ensure|follow"
    r"|update|sort|put|check|mark|commit|push|test|document|pin|leave|let|only)\b)"
    r"|\s+and\s+(?=(?:always|never|avoid|prefer|keep|run|make|ensure|update|add|write|commit|push|document)\b)",
    re.IGNORECASE)
_OPENING_CONDITION = [[w] for w in "if when whenever before after once while unless for in on to where".split()]
# A line of a YAML frontmatter: a key (`globs:`), a continuation or list item, a comment, or blank.
_YAML_LINE_RE = re.compile(r"\s*$|[\w.-]+\s*:|\s+\S|-\s|#")
_BREAK_RE = re.compile(r"(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,}")
_TABLE_RULE_RE = re.compile(r"\|?(\s*:?-+:?\s*\|)+\s*(:?-+:?\s*)?")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(\[])")



@dataclass(frozen=True)
class Rule:
    """One rule of the project's docs: a list item, or one sentence of a paragraph."""

    path: str  # as shown: relative to project.root (`CLAUDE.md`, `../AGENTS.md`)
    line: int  # 1-based, where the rule starts
    text: str
    heading: str = ""  # the one it sits under ("Package Manager"; "" before any): its subject too
    lead: str = ""  # the line introducing the list it is an item of ("Before committing:"; "NEVER:")
    # One instruction of a sentence stating several (_instructions): read alone, it restates;
    # its stance is no contradiction ("never rely on X" after "pass Y instead").
    part: bool = False
    # The item a nested list item sits under ("Avoid deep nesting" over "- Use early returns"):
    # what it is about, as a heading says, though no stance of its own ("avoid" is the parent's).
    parent: str = ""

    @property
    def citation(self) -> str:
        return f"{self.path}:{self.line}"

    def cited(self) -> str:
        """`CLAUDE.md:14: <rule>`, the form rationales carry."""
        return f"{self.citation}: {clip(self.text, RULE_CHARS)}"


@dataclass(frozen=True)
class KnownCorpus:
    root: Path | None
    files: tuple[str, ...] = ()
    rules: tuple[Rule, ...] = ()
    problems: tuple[str, ...] = ()

    def summary(self) -> str:
        """One line for the dream's stats and the review header."""
        if self.root is None:
            return "no project.root: the project's docs were not read"
        text = (f"project docs: {counted(len(self.rules), 'rule')} from "
                f"{counted(len(self.files), 'file')}")
        if self.problems:
            text += "; not read: " + "; ".join(self.problems)
        return text


# --- finding the files -----------------------------------------------------------------------


def _upwards(root: Path) -> list[Path]:
    """root and its parents up to the git root (root alone when it is in no repository)."""
    chain = [root]
    folder = root
    while not (folder / ".git").exists():
        parent = folder.parent
        if parent == folder:
            return [root]
        folder = parent
        chain.append(folder)
    return chain


def _decisions(root: Path, problems: list[str]) -> Iterator[Path]:
    seen = 0
    for folder, dirs, files in os.walk(root, onerror=lambda _exc: None):
        seen += 1
        if seen > MAX_DIRS:
            problems.append(f"DECISIONS.md: stopped looking after {MAX_DIRS:,} folders under {root}")
            return
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        if "DECISIONS.md" in files:
            yield Path(folder) / "DECISIONS.md"


def _globbed(root: Path, patterns: Sequence[str], problems: list[str]) -> Iterator[Path]:
    resolved_root = root.resolve()
    for pattern in patterns:
        try:
            # A glob like "**/*" over a big tree stops early: a bounded read, said so.
            found = sorted(islice(root.glob(pattern), MAX_GLOBBED + 1))
        except (ValueError, OSError) as exc:
            problems.append(f"project.known_files {pattern!r}: {exc}")
            continue
        if len(found) > MAX_GLOBBED:
            problems.append(f"project.known_files {pattern!r}: more than {MAX_GLOBBED:,} paths; "
                            f"the first {MAX_GLOBBED:,} found are read")
            found = found[:MAX_GLOBBED]
        for path in found:
            try:
                inside = path.resolve().is_relative_to(resolved_root)
            except OSError:
                inside = False
            if not inside:
                problems.append(f"project.known_files {pattern!r}: {path} is outside project.root; skipped")
            elif path.is_file():
                yield path


def corpus_files(root: Path, known_files: Sequence[str] = (),
                 problems: list[str] | None = None) -> list[Path]:
    """The instruction files of the project at `root`, in a fixed order, each once."""
    problems = problems if problems is not None else []
    found: list[Path] = []
    for folder in _upwards(root):
        found += [folder / "CLAUDE.md", folder / "AGENTS.md"]
    found += [root / "GEMINI.md", root / ".cursorrules", root / ".github" / "copilot-instructions.md"]
    rules_dir = root / ".cursor" / "rules"
    if rules_dir.is_dir():
        found += sorted(p for p in rules_dir.rglob("*") if p.is_file())
    found += _decisions(root, problems)
    found += _globbed(root, known_files, problems)
    unique: dict[Path, Path] = {}
    for path in found:
        try:
            if path.is_file():
                unique.setdefault(path.resolve(), path)
        except OSError:
            continue
    files = list(unique.values())
    if len(files) > MAX_FILES:
        problems.append(f"{len(files)} instruction files found; read the first {MAX_FILES}")
        files = files[:MAX_FILES]
    return files


# --- splitting a file into rules ---------------------------------------------------------------


def _content_words(text: str) -> list[str]:
    return [w for w in normalise(text).split() if w not in STOPWORDS and not w.isdigit()]


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_RE.split(text) if s.strip()]


def split_rules(text: str, path: str) -> list[Rule]:
    """List items (with their continuation lines) and paragraphs, each whole and each of their
    sentences, with their lines.

    A table's body rows are rules too (their cells joined), and so are the commands of a shell
    block that a comment explains. Headings (each rule records the one it sits under), other
    code, HTML comments, YAML frontmatter and the lines inside the
    workspace's own `<!-- dreamtui:begin … -->` block are not rules.
    """
    rules: list[Rule] = []
    lines = text.splitlines()
    current: list[str] = []
    start = 0
    kind = ""
    heading = lead = ""

    def flush() -> None:
        nonlocal current, kind, lead
        if current:
            joined = " ".join(part.strip() for part in current)
            if kind == "para":  # a paragraph ending in a colon introduces the list under it
                lead = joined if joined.rstrip("*_ ").endswith(":") else ""
            # Each sentence of an item or paragraph is a rule ("Never use emojis in code. Use
            # plain markers instead." states two), and the whole too: "Do not use npm or yarn."
            # says what it means only after "This project uses pnpm as the package manager."
            pieces = _sentences(joined)
            if len(pieces) > 1:
                pieces.append(joined)
            for piece in pieces:
                if _DESCRIBING_RE.match(piece) or _EMPHASIS_RE.fullmatch(piece):
                    continue
                if len(_content_words(piece)) >= MIN_RULE_WORDS or len(_CJK_RE.findall(piece)) >= MIN_CJK_CHARS \
                        or _one_word_rule(piece):
                    rules.append(Rule(path, start + 1 + _line_offset(current, piece), piece.strip(),
                                      heading, lead if kind == "item" else "",
                                      parent=parent if kind == "item" else ""))
        current, kind = [], ""

    fenced = in_block = shell = False
    indented = -1  # the indentation of the marker-less items under a lead line (-1: none)
    items: list[tuple[int, str]] = []  # the list items holding the current one: (indentation, text)
    parent = ""
    comment = ""  # a shell block's comment line, saying what the commands under it are for
    body_from = _frontmatter_end(lines)
    recorded = _recorded_by_dreamtui(lines)
    for number, line in enumerate(lines):
        if number < body_from or number in recorded:
            continue
        stripped = line.strip()
        if in_block:
            in_block = not _BLOCK_END_RE.search(line)
            continue
        if _BLOCK_BEGIN_RE.search(line):
            flush()
            in_block = not _BLOCK_END_RE.search(line)
            continue
        if _FENCE_RE.match(line):
            flush()
            fenced = not fenced
            shell, comment = fenced and stripped.lstrip("`~").strip().lower() in SHELL_FENCES, ""
            continue
        if shell:
            if stripped.startswith("#") and not stripped.startswith("#!"):
                comment = stripped.lstrip("#").strip()
            elif not stripped:
                comment = ""
            else:  # the comment above says what the next command is for, not the ones after
                command, comment = _commented_command(stripped, comment), ""
                if command:
                    current, start, kind = [command], number, "row"
                    flush()
            continue
        if stripped.startswith("|") and not fenced:
            flush()
            row = _table_row(lines, number)
            if row:
                current, start, kind = [row], number, "row"
                flush()
            continue
        if fenced or stripped.startswith(("#", "<!--")) or not stripped:
            flush()
            if not fenced and _HEADING_RE.match(stripped):
                heading, lead, items = stripped.lstrip("#").strip(), "", []
            continue
        if _BREAK_RE.fullmatch(stripped):  # a horizontal rule: no text (or a heading's underline)
            if kind == "para" and len(current) == 1 and stripped.startswith("-"):
                heading, lead, items, current, kind = current[0], "", [], [], ""
            flush()
            continue
        if stripped.startswith(">"):  # a quoted note ("> **Important:** never …") says a rule too
            line = stripped = stripped.lstrip("> ").strip()
            if not stripped:
                flush()
                continue
        item = _LIST_RE.match(line)
        width = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
        if item:
            flush()
            current, start, kind, indented = [item.group(2)], number, "item", -1
            # the items above it with less indentation hold it; the nearest is its parent
            width = len(item.group(1).expandtabs(4))
            while items and items[-1][0] >= width:
                items.pop()
            parent = items[-1][1] if items else ""
            items.append((width, item.group(2).strip()))
        elif width and ((kind == "para" and current[-1].rstrip("*_ ").endswith(":"))
                        or (kind == "item" and width == indented)):
            # Lines indented under a line ending in a colon, without list markers ("commit
            # messages:" over a tab-indented line per instruction) are its list: each line an
            # item that line leads; one indented deeper continues the item above it.
            flush()
            current, start, kind, indented, parent = [stripped], number, "item", width, ""
        elif current and (kind == "para" or line[:1].isspace()):
            current.append(stripped)  # a wrapped line continues the item or paragraph
        else:
            flush()
            current, start, kind, indented, items = [stripped], number, "para", -1, []
    flush()
    return rules


# Lines an agent definition labels as describing, not instructing ("**When to use:** A developer
# has finished a feature, pushed their branch …", "Context: …", "user: …"): no rule, though they
# name every step of one.
_DESCRIBING_RE = re.compile(r"\s*(?:\*\*|__)?(?:description|context|when\s+to\s+use|usage\s+example|examples?"
                            r"|user|assistant|commentary)\s*(?::\s*(?:\*\*|__)|(?:\*\*|__)?\s*:)", re.IGNORECASE)


# The flags instruction files forbid by name, and what they do, in the words others use for it
# ("Never bypass the pre-commit hooks" / "Never use `git commit --no-verify`").
_FLAG_MEANINGS = {"--no-verify": "bypassing the pre-commit hooks"}
_FLAG_STEMS = {flag: features_of(meaning).stems for flag, meaning in _FLAG_MEANINGS.items()}
# "No exceptions." after a rule says it holds always: no stance on exceptions (nor a rule).
_EMPHASIS_RE = re.compile(r"(?:^|(?<=[.!?:]))\s*\**\s*(?:no|without)\s+(?:exceptions?|excuses?)"
                          r"(?:\s*[.!]+|(?=\s*\**\s*$))\s*\**(?=\s|$)", re.IGNORECASE)


def _one_word_rule(piece: str) -> bool:
    """A short instruction saying its stance on one thing ("Be concise.", "Never push.",
    "No emojis."): a rule, though "## Setup" or "Important:" alone is none."""
    words = normalise(piece).split()
    return len(_content_words(piece)) == 1 and len(words) <= MAX_ONE_WORD_RULE and words[0] in _STANCE_OPENERS


def _parts(rules: Sequence[Rule]) -> list[Rule]:
    """Each instruction of a rule stating several ("Use pnpm; never commit `.env` files", "avoid
    global state, and keep functions short"), as a rule of its own on the same line: a memory
    restating one is read against it alone, and cites the line. (Not counted among the docs'
    rules: they are the same lines.)"""
    return [replace(rule, text=part, part=True) for rule in rules if len(_sentences(rule.text)) == 1
            for part in _instructions(rule.text) if len(_content_words(part)) >= MIN_RULE_WORDS]


def _instructions(sentence: str) -> list[str]:
    """The instructions of a sentence stating several (split at a semicolon, or at a comma or
    "and" before an instruction's first word: "Prefer X, avoid Y, and keep Z"), [] for one."""
    # ("When generating commits, use …": a clause opening with a condition is the rule's)
    parts = [part.strip(" ,;") for piece in _outside_code(_SEMICOLON_RE.split, sentence)
             for part in (_outside_code(_INSTRUCTION_RE.split, piece)
                          if normalise(piece).split()[:1] not in _OPENING_CONDITION else [piece])]
    parts = [part for part in parts if part]
    return parts if len(parts) > 1 else []


def _commented_command(line: str, comment: str) -> str:
    """A shell block's command with the comment saying what it is for (on the line above, or
    after it: `pnpm test  # the unit tests`), as one rule: "Install dependencies: `pnpm install`".
    A command without a comment says nothing an agent could restate: not a rule."""
    command, _, after = line.removeprefix("$ ").partition(" # ")
    said = after.strip() or comment
    return f"{said}: `{command.strip()}`" if said and command.strip() else ""


def _table_row(lines: Sequence[str], number: int) -> str:
    """A table's body row as one rule, its cells joined ("`pnpm test`: run the unit tests");
    "" for a header row (the one above the `|---|` line) and for that line itself. A cell under
    a header that rejects ("Don't", "Avoid", "❌") is said rejected: a "Do | Don't" row
    "Use `expo install` | Use `npm install`" says "…; never use `npm install`"."""
    below = lines[number + 1].strip() if number + 1 < len(lines) else ""
    if _TABLE_RULE_RE.fullmatch(lines[number].strip()) or _TABLE_RULE_RE.fullmatch(below):
        return ""
    cells = [cell.strip() for cell in lines[number].strip().strip("|").split("|")]
    header = _table_header(lines, number)
    if len(header) != len(cells) or not any(_rejecting(label) for label in header):
        return ": ".join(cell for cell in cells if cell)
    return "; ".join(f"never {cell[:1].lower()}{cell[1:]}" if _rejecting(label) else cell
                     for label, cell in zip(header, cells, strict=True) if cell)


def _table_header(lines: Sequence[str], number: int) -> list[str]:
    """The header cells of the table whose body row is line `number` ([] if none is found)."""
    above = number
    while above > 0 and lines[above - 1].strip().startswith("|"):
        above -= 1
        if _TABLE_RULE_RE.fullmatch(lines[above].strip()):
            return [cell.strip() for cell in lines[above - 1].strip().strip("|").split("|")] if above else []
    return []


def _rejecting(label: str) -> bool:
    """A table header naming what not to do."""
    return normalise(label) in _REJECTING_LABELS or any(mark in label for mark in "❌✗✘🚫⛔")


def _recorded_by_dreamtui(lines: Sequence[str]) -> set[int]:
    """The lines of DECISIONS.md sections dreamtui appended (deliver/decisions.py), and of the
    header it writes: the memory's own lessons, which the dream matches against LTM instead."""
    skipped: set[int] = set()
    header = set(DECISIONS_HEADER.splitlines()) - {""}
    start = 0
    for number in range(len(lines) + 1):
        if number == len(lines) or lines[number].startswith("## "):
            section = range(start, number)
            if any(lines[i].startswith(RECORDED_BY) for i in section):
                skipped.update(section)
            start = number
    skipped.update(i for i, line in enumerate(lines) if line in header)
    return skipped


def _frontmatter_end(lines: Sequence[str]) -> int:
    """The first body line: after a leading `---` … `---` block of YAML (Cursor's .mdc files).
    A file whose first `---` is a rule above its text, as many end with one too, has none:
    "Guidelines:" and "1. Write clean code" between the two are the file, not metadata."""
    if not lines or lines[0].strip() != "---":
        return 0
    for number in range(1, min(len(lines), 200)):
        if lines[number].strip() == "---":
            return number + 1
        if not _YAML_LINE_RE.match(lines[number]):
            return 0
    return 0


def _line_offset(lines: Sequence[str], piece: str) -> int:
    """Which of a paragraph's lines a sentence starts on."""
    head = " ".join(piece.split()[:3])
    for offset, line in enumerate(lines):
        if head and head in " ".join(line.split()):
            return offset
    return 0


@lru_cache(maxsize=512)
def _rules_of(path: str, shown: str, size: int, mtime_ns: int) -> tuple[Rule, ...] | str:
    """A file's rules, or the one-line reason it was skipped; cached by (path, size, mtime)."""
    if size > MAX_FILE_BYTES:
        return f"{shown}: {size:,} bytes, over the {MAX_FILE_BYTES // 1024} KB limit for an instruction file"
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return f"{shown}: unreadable ({exc.strerror or type(exc).__name__})"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return f"{shown}: not UTF-8 (byte {data[exc.start]:#04x} at offset {exc.start})"
    return tuple(split_rules(text, shown))


def read_corpus(root: Path | None, known_files: Sequence[str] = ()) -> KnownCorpus:
    """Every rule of the project's instruction files; problems as one line each."""
    if root is None:
        return KnownCorpus(None)
    if not root.is_dir():
        return KnownCorpus(root, problems=(f"project.root {root}: not a folder",))
    problems: list[str] = []
    files: list[str] = []
    rules: list[Rule] = []
    for path in corpus_files(root, known_files, problems):
        shown = os.path.relpath(path, root)
        try:
            stat = path.stat()
        except OSError as exc:
            problems.append(f"{shown}: unreadable ({exc.strerror or type(exc).__name__})")
            continue
        found = _rules_of(str(path), shown, stat.st_size, stat.st_mtime_ns)
        if isinstance(found, str):
            problems.append(found)
            continue
        files.append(shown)
        rules += found
    if len(rules) > MAX_RULES:
        problems.append(f"{len(rules):,} rules in the project's docs; the first {MAX_RULES:,} are used")
        rules = rules[:MAX_RULES]
    return KnownCorpus(root, tuple(files), tuple(rules), tuple(problems))


# --- matching a memory against the rules --------------------------------------------------------


@dataclass(frozen=True)
class KnownMatch:
    """`known`: the memory restates `rule`; `contradicts`: same subject, a fact differs."""

    kind: str  # "known" | "contradicts" | "close" (a partial restatement, noted, not discarded)
    rule: Rule
    verdict: Verdict

    def rationale(self) -> str:
        if self.kind == "known":
            return f"already in the project's docs, {self.rule.cited()}"
        if self.kind == "close":
            return f"may repeat the project's docs, {self.rule.cited()}"
        return f"contradicts {self.rule.cited()} ({self.differs}): decide which is right"

    @property
    def differs(self) -> str:
        """The differences, each once: match.py reads one swap in several slots ("JavaScript
        package manager: yarn vs pnpm", "command: yarn test vs pnpm test", "word: yarn vs
        pnpm"); one that the swap before it explains says nothing more, nor the stance on a word
        of a command both take opposite stances on."""
        conflicts = self.verdict.conflicts
        # a command one uses and the other rejects says the stances on its words
        # ("`git commit --no-verify`: use vs do not use" against "git: do vs do not"); a path
        # is no command ("`fixtures/raw/`": the stance is on what is done to it)
        commanded = frozenset().union(*(features_of(c.slot).stems for c in conflicts
                                        if c.slot.startswith("`") and " " in c.slot and {c.a, c.b} == _USE))
        kept: list[Conflict] = []
        for c in conflicts:
            if not any(_explains(k, c) for k in kept) \
                    and not ({c.a, c.b} == _POLARITY and c.slot in commanded):
                kept.append(c)
        # (without the meanings _plain() gave the flags: the rule's command as it is written;
        # a word match.py names by its stem, "postgr", as the rule writes it, "Postgres")
        return _unmeant("; ".join(str(replace(c, slot=_as_written(c.slot, self.rule.text))) for c in kept))

    def to_json(self) -> dict[str, object]:
        """What a proposal's details record: the citation, the rule, what differs."""
        found: dict[str, object] = {"citation": self.rule.citation, "rule": clip(self.rule.text, RULE_CHARS),
                                    "score": self.verdict.score}
        if self.kind == "contradicts":
            found["differs"] = self.differs
        return found


@dataclass
class KnownIndex:
    """The corpus's rules in a match.MatchIndex; `check` answers for one memory."""

    corpus: KnownCorpus
    index: MatchIndex[Rule]
    queries: dict[str, Features]  # the batch's, by memory id: computed once for rarity and check
    headings: list[frozenset[str]]  # by rule: the stems of the heading it sits under
    numbers: list[frozenset[str]] = field(default_factory=list)  # by rule: the numbers it gives
    # By tool slot (ONE_CHOICE_SLOTS): the tools the docs pick there, and the first rule that does.
    choices: dict[str, tuple[frozenset[str], int]] = field(default_factory=dict)
    threshold: float = KNOWN_SIMILARITY
    # number -> the rules giving it: a rule the memory gives a number of is a candidate however
    # common its words are (among many look-alike rules, "port 8085" tells which one is meant).
    by_number: dict[str, list[int]] = field(default_factory=dict)
    # (rule, language) for the rules saying which language the agent answers in; read on the
    # first memory saying one (most batches have none)
    languages: list[tuple[int, frozenset[tuple[str, str]]]] | None = None
    # stem -> the rules saying a step with that stem needs the person's word ("never commit
    # without approval"): in a file saying "commit" in every other rule, the rarest words of
    # "don't commit unless asked" are elsewhere; read on the first memory saying so
    gates: dict[str, list[int]] | None = None
    templates: frozenset[str] | None = None  # read on the first memory giving a template

    def __post_init__(self) -> None:
        for i, found in enumerate(self.numbers):
            for number in found:
                self.by_number.setdefault(number, []).append(i)

    def templated(self) -> frozenset[str]:
        """The headings of the sections whose rules give a template of placeholders."""
        if self.templates is None:
            self.templates = frozenset(rule.heading for rule, found in zip(self.index.items, self.index.features,
                                                                           strict=True)
                                       if any(_TEMPLATE_RE.search(c) for c in found.facts.commands))
        return self.templates

    def gating(self, gated: str) -> list[int]:
        """The rules saying the step `gated` (a stem) needs the person's word, in order."""
        if self.gates is None:
            self.gates = {}
            for i, rule in enumerate(self.index.items):
                if _PERMISSION_RE.search(rule.text):
                    for s in self.index.features[i].stems:
                        self.gates.setdefault(s, []).append(i)
        return self.gates.get(gated, [])

    @classmethod
    def build(cls, corpus: KnownCorpus, batch: Sequence[Memory] = ()) -> KnownIndex:
        """Rarity is counted over the rules and the batch together, as the dream compares them."""
        rules = [*corpus.rules, *_parts(corpus.rules)]
        features = [Features.of(_credential(_plain(_stanced(rule)), rule=True)) for rule in rules]
        queries = {m.id: memory_features(m) for m in batch}
        weights = Weights([*features, *queries.values()])
        headings = [_heading_stems(rule.heading) | _heading_stems(rule.lead) | _heading_stems(rule.parent)
                    for rule in rules]
        numbers = [_numbers(rule.text) for rule in rules]
        return cls(corpus, MatchIndex.build(rules, features, weights), queries, headings,
                   numbers, _choices(features))

    @property
    def rules(self) -> tuple[Rule, ...]:
        return self.corpus.rules

    def related(self, text: str, limit: int = 8) -> list[Rule]:
        """The rules sharing the most rare words with `text` (for a model's prompt)."""
        query = Features.of(_plain(text))
        found = (self.index.items[i] for i in self.index.candidates(query, limit=2 * limit))
        return [rule for rule in found if not rule.part][:limit]

    def check(self, memory: Memory) -> KnownMatch | None:
        """Whether `memory` restates a rule, contradicts one, or neither (None)."""
        if not self.corpus.rules:
            return None
        query = self.queries.get(memory.id) or memory_features(memory)
        # (read without its asides first: "Chinese (Simplified Chinese)" names the language twice)
        languages = (_languages_said(_without_asides(query.text)) or _languages_said(query.text)) \
            if len(query.stems) <= MAX_LANGUAGE_STEMS or _beside_language(query.text) else frozenset()
        if languages:
            said = self.said_language(languages)
            if said is not None:
                return said
        found = self.check_text(query)
        # Only a partial restatement may be several whole ones (and most memories are neither).
        return (self.by_parts(query) or found) if found is not None and found.kind == "close" else found

    def said_language(self, said: frozenset[tuple[str, str]]) -> KnownMatch | None:
        """The docs' rules on which language is used for what (the agent's replies, comments,
        commit messages, docs), against the memory's: the same language for the same thing is
        a restatement in whatever language each is written ("ユーザーへの応答は日本語で行う" and
        "Provide all responses in Japanese"), another language a contradiction ("comments in
        English" against a rule writing comments in Japanese). A rule naming no thing holds for
        all of them. One naming a variant the other leaves out ("British English" / "English")
        says more: close. None when no rule says a language for what the memory names one for
        (comments in English beside a rule on the language of replies is read as usual)."""
        if self.languages is None:
            self.languages = [(i, found) for i, rule in enumerate(self.rules)
                              if (found := _languages_said(rule.text) or _languages_said(self.index.features[i].text))]
        kinds: list[tuple[int, int, str]] = []  # (rank: contradicts 0, close 1, known 2; rule; language)
        for subject, language in sorted(said):
            ruled = [(i, other) for i, pairs in self.languages for thing, other in sorted(pairs)
                     if not subject or not thing or thing == subject]
            if not ruled:  # the docs say nothing of it: news beside a restatement
                kinds.append((1, -1, language))
                continue
            base = language.split()[-1]
            same = next((i for i, other in ruled if other == language), None)
            narrower = next((i for i, other in ruled if base == other or other.split()[-1] == language), None)
            kinds.append((2, same, language) if same is not None
                         else (1, narrower, language) if narrower is not None else (0, ruled[0][0], ruled[0][1]))
        if all(i < 0 for _, i, _ in kinds):
            return None
        rank, i, other = min(kinds, key=lambda kind: (kind[0], kind[1] < 0))
        if rank == 2:
            return KnownMatch("known", self.rules[i], Verdict(100.0, (), self.threshold))
        if rank == 1:
            i = i if i >= 0 else next(i for _, i, _ in kinds if i >= 0)
            return KnownMatch("close", self.rules[i], Verdict(100.0, (), self.threshold))
        mine = next(language for subject, language in sorted(said) if language != other)
        differs = Conflict("language", mine, other)
        return KnownMatch("contradicts", self.rules[i], Verdict(100.0, (differs,), self.threshold))

    def by_parts(self, query: Features) -> KnownMatch | None:
        """A memory of several statements ("Use X for all commit messages: `<type>: <summary>`";
        "A. B.") restates the docs when each one restates a rule there. (A part read alone is no
        contradiction: "write a migration for every schema change" is about "change" only
        beside "never change the database by hand".) Parts of fewer than MIN_RULE_WORDS content
        words ("**Style:**") say nothing."""
        parts = [part for part in _outside_code(_PARTS_RE.split, query.body)
                 if len(_content_words(part)) >= MIN_RULE_WORDS]
        if len(parts) < 2:
            return None
        first: KnownMatch | None = None
        for part in parts:
            found = self.check_text(Features.of(part))
            if found is None or found.kind != "known":
                return None
            first = first or found
        return first

    def check_text(self, query: Features) -> KnownMatch | None:
        """check() for one text."""
        # What it says without its asides (most memories have none: no second reading); a
        # command, path or tool named in an aside is no example but news ("— use `direnv`").
        plain = _without_examples(query.text)
        # Its stance, read without its examples: "(no area like `type(area): …`)" rejects areas.
        # ... and without the reasons it gives: "… to reduce nesting" reduces nothing
        unreasoned = _REASON_RE.sub(" ", plain)
        stance = Features.of(unreasoned) if unreasoned != query.text else query
        bare = _core_text(plain)
        core = Features.of(bare) if bare != query.text else query
        # (the commands of its examples in parentheses are examples too: "(e.g., `feat: …`)")
        unexampled = _PAREN_EXAMPLES_RE.sub(" ", query.text) if "(" in query.text else query.text
        main = core.stems | (Features.of(unexampled).strong if unexampled != query.text else query.strong)
        if main != core.stems:
            # (nor does a name in an exception it makes: "except in JSX")
            main = main - ((_labels(query.text) | _excepted(plain)) - core.stems)
        said = _Said(_numbers(core.text), _gated(core.text), _list_items(core.text), _scope(core.text),
                     tuple(normalise(core.text).split()), _instead(core.text),
                     _aside_items(plain, core))
        found: list[tuple[int, int, float, int, int, KnownMatch]] = []
        for i in self.candidates(query, said.numbers, said.gated):
            verdict = compare(query, self.index.features[i], self.index.weights, threshold=self.threshold)
            # Other readings, while none has found the lesson or a fact differing (each returns
            # a same-lesson verdict or None): without the memory's asides, against the rule's
            # core, without the memory's places and narrowing words.
            if not verdict.same_lesson and not verdict.correction:
                found_by = (main != query.stems and self.without_asides(query, core, i)) \
                    or self.against_core(query, core, i) \
                    or (verdict.score >= NARROWED_SIMILARITY and self.narrowed(query, core, said, i))
                verdict = found_by or verdict
            rule = self.index.items[i]
            shared = len(said.numbers & self.numbers[i])
            verdict = self.telling(query, i, verdict)
            turned = self.turned(core, i)
            if turned is not None:
                # the same steps or options the other way round: never a restatement
                if verdict.score >= CONTRADICTS_SIMILARITY:
                    opposite = Verdict(verdict.score, (turned,), verdict.threshold)
                    found.append((1, shared, verdict.score, 1, -i, KnownMatch("contradicts", rule, opposite)))
                continue
            permitted = bool(said.gated) and (_PERMISSION_RE.search(rule.text) is not None
                                              or said.gated in self.index.features[i].facts.rejected)
            if permitted and verdict.conflicts and all({c.a, c.b} == _POLARITY for c in verdict.conflicts):
                # "ask before deleting" reads as doing it, "don't delete unless asked" as not
                verdict = Verdict(verdict.score, (), verdict.threshold)
            if verdict.correction and verdict.score >= CONTRADICTS_SIMILARITY:
                if not rule.part or not all({c.a, c.b} in (_POLARITY, _USE) for c in verdict.conflicts):
                    found.append((1, shared, verdict.score, 1, -i, KnownMatch("contradicts", rule, verdict)))
                continue
            alike = verdict.same_lesson or self.same_number(verdict, said, i) \
                or self.contained(query, main, said, i, verdict) or self.same_gate(verdict, said, i)
            alternatives = self.agreed_pick(query, i) if alike or not verdict.conflicts else None
            if alike or (alternatives is not None and not verdict.conflicts):
                against = None if permitted else self.opposed(stance, i)
                if against is not None and self.said_alike(stance, i, against):
                    against = None  # "never deploy before the smoke test" holds deploying back
                if against is not None:
                    if not rule.part:
                        opposite = Verdict(verdict.score, (against,), verdict.threshold)
                        found.append((1, shared, verdict.score, 1, -i, KnownMatch("contradicts", rule, opposite)))
                    continue
                # The verdict is symmetric; "already documented" is not: a short rule inside a
                # longer memory ("uses pnpm" in "use `pnpm dlx` instead of `npx`") leaves news.
                coverage = self.covered(query, i, main, said, alternatives or frozenset())
                # Each giving a number the other does not is another value, wherever match.py's
                # slots put them ("port 9190" and a name's "190" against "port 8190").
                other_number = not said.numbers <= self.numbers[i] and not self.numbers[i] <= said.numbers
                # A rule holding only under a condition the memory does not say is another rule.
                condition = _condition(rule.text)
                # (said by a kin: "if anything is unclear" holds "when requirements are ambiguous")
                unconditioned = bool(condition) and condition.isdisjoint(query.stems) \
                    and not any(kindred(mine, ruled) for mine in query.stems for ruled in condition)
                swap = _swapped(core.text, rule.text) if coverage >= KNOWN_COVERAGE else None
                if swap is not None:
                    opposite = Verdict(verdict.score, (swap,), verdict.threshold)
                    found.append((1, shared, verdict.score, 1, -i, KnownMatch("contradicts", rule, opposite)))
                elif coverage >= KNOWN_COVERAGE and not self.new_step(core, i) and not other_number \
                        and not unconditioned and not self.spread(query, main, i) \
                        and not self.undone(stance, i) and not self.acted_on(stance, i) \
                        and _restricted(query.text) == _restricted(rule.text):
                    found.append((1, shared, verdict.score, 0, -i, KnownMatch("known", rule, verdict)))
                elif coverage >= CLOSE_COVERAGE:
                    found.append((0, shared, verdict.score, 0, -i, KnownMatch("close", rule, verdict)))
        # The closest rule decides (a partial restatement only when nothing else holds): the one
        # giving more of the memory's numbers (it is the rule meant among look-alikes whose
        # words, which the score counts, are the same), else the higher score; on a tie a
        # contradiction, which keeps the memory for a person, goes before a restatement.
        return max(found, key=lambda item: item[:5])[5] if found else self.other_choice(query)

    def candidates(self, query: Features, numbers: frozenset[str], gated: str = "") -> list[int]:
        """The rules sharing the memory's rarest words, then those giving its rarest number, then
        those saying the step it says needs the person's word needs it (each at most
        RULE_CANDIDATES)."""
        found = self.index.candidates(query, limit=RULE_CANDIDATES)
        rarest = min(((len(self.by_number[n]), n) for n in numbers if n in self.by_number), default=None)
        if rarest is not None:
            found += [i for i in self.by_number[rarest[1]][:RULE_CANDIDATES] if i not in found]
        if gated:
            found += [i for i in self.gating(gated)[:RULE_CANDIDATES] if i not in found]
        return found

    def telling(self, query: Features, rule: int, verdict: Verdict) -> Verdict:
        """The verdict without the differences that state no fact against the docs: a one-word
        swap of two words naming nothing in particular ("anything" vs "files"); a "not" only in
        the rule's aside ("`yarn lint` (not `npm run lint`)"
        rejects npm, not running)."""
        if not verdict.conflicts:
            return verdict
        text = self.index.items[rule].text
        # (match.py may give one value twice, "negated" against "negated": no difference)
        kept = tuple(c for c in verdict.conflicts if c.a != c.b and _telling_swap(c)
                     and not self.unstated(query, rule, c) and not self.gated_step(query, rule, c)
                     and not (c.slot == "word" and _listed(query.text, c.a) and _listed(text, c.b))
                     # "run `vitest`" runs what "run the test suite" does, where the rule names no tool
                     and not (c.slot == "object" and _stepped(c.a, self.index.features[rule]))
                     # a forbidden flag the other side names by what it does
                     and not (c.slot == "prohibited" and _flag_said(c, query, self.index.features[rule]))
                     and not self.occasion(query, rule, c)
                     and not self.required(query, rule, c) and not self.persons_step(query, rule, c)
                     and not self.said_alike(query, rule, c))
        # Opposite stances on plain words only, where the two agree on more ("Hyperparameters
        # belong in the configs, not hard-coded" / "Don't hard-code hyperparameters"): where a
        # plain word falls is a guess (opposed()), the agreement is not.
        strong = query.strong | self.index.features[rule].strong
        plain = [c for c in kept if {c.a, c.b} == _POLARITY and c.slot not in strong]
        if plain and len(plain) == len(kept) and len(self.agreed(query, rule)) > len(plain):
            kept = ()
        if any({c.a, c.b} == _POLARITY for c in kept) and _ASIDE_RE.search(text):
            core = Features.of(_plain(_ASIDE_RE.sub(" ", text)))
            # ... unless the memory names what the aside rejects (`npm`)
            rejected = self.index.features[rule].stems - core.stems - _GENERIC
            bare = compare(query, core, self.index.weights, threshold=self.threshold)
            if rejected.isdisjoint(query.stems) and not any({c.a, c.b} == _POLARITY for c in bare.conflicts):
                return bare
        return verdict if len(kept) == len(verdict.conflicts) else Verdict(verdict.score, kept, verdict.threshold)

    def said_alike(self, query: Features, rule: int, conflict: Conflict) -> bool:
        """A swap of words saying one thing: two verbs of picking ("favour" / "prefer"), or
        order words, or a step held back, where both put the same two steps in the same order
        ("prior to" / "before"; "publish only after tagging" / "tag before publishing"; "never
        deploy before the smoke test" / "run the smoke test before deploying")."""
        words = {stem(w) for value in (conflict.a, conflict.b) for w in value.split()}
        if len(words) > 1 and words <= _SYNONYM_PICKING:
            return True
        ordering = len(words) > 1 and words <= _SEQUENCE_WORDS | {"befor", "after"}
        held = {conflict.a, conflict.b} == _POLARITY \
            and features_of(conflict.slot).stems <= frozenset().union(*(a | b for a, b in _sequence(query.text)))
        return (ordering or held) and _order_turned(query.text, self.index.items[rule].text) is False

    def turned(self, query: Features, rule: int) -> Conflict | None:
        """What the memory says the other way round from the rule: the order of two steps the
        rule orders ("Deploy, then run the smoke test" / "Run a smoke test before deploying"),
        or the option the rule picks another over ("Use inheritance for designing classes" /
        "Prefer composition over inheritance when designing classes")."""
        text = self.index.items[rule].text
        if _order_turned(query.text, text):
            return Conflict("order", clip(query.text, RULE_CHARS // 4), clip(text, RULE_CHARS // 4))
        if _picks_rejected(query.text, text):
            return Conflict("preference", clip(query.text, RULE_CHARS // 4), clip(text, RULE_CHARS // 4))
        return None

    def gated_step(self, query: Features, rule: int, conflict: Conflict) -> bool:
        """Whether a do-vs-do-not difference is on a step the memory puts after a condition
        ("Ensure all tests pass before committing") and the rule rejects under that condition
        ("NEVER commit changes if tests do not pass"): one gate, said both ways."""
        if {conflict.a, conflict.b} != _POLARITY or conflict.slot not in _before_step(query.text):
            return False
        text = self.index.items[rule].text
        condition = _condition(text)
        return conflict.slot in self.index.features[rule].facts.rejected and bool(condition) \
            and not condition.isdisjoint(query.stems)

    def required(self, query: Features, rule: int, conflict: Conflict) -> bool:
        """Whether a do-vs-do-not difference is on a step the rejecting side forbids only without
        something ("Never merge a branch without a review", "Do not ship code without tests
        first"): that makes the something a step before it, which the other side may say as
        one ("Get a review before merging"); it does not reject the step."""
        if {conflict.a, conflict.b} != _POLARITY:
            return False
        rejecter, doer = (query, self.index.features[rule]) if conflict.a == "do not" \
            else (self.index.features[rule], query)
        if "without" in doer.text.lower():  # "merge without a review" does what the rule forbids
            return False
        for clause in _without_clauses(rejecter.text):
            step, _, needed = clause.rpartition(" without ")
            # the doer says the something the step needs, without rejecting it
            wanted = Features.of(needed).stems - _GENERIC - FRAME
            if conflict.slot in Features.of(clause).stems and not wanted.isdisjoint(doer.facts.done):
                return True
        return False

    def persons_step(self, query: Features, rule: int, conflict: Conflict) -> bool:
        """Whether a difference is on a step the doing side says only the person takes ("The dev
        server must only ever be started by the user", "`make up` - started manually by the
        developers"): the agent does not take it, as the other side says ("Never start the dev
        server"). A command's use is the person's where a line names it and says so of it."""
        doer = query if conflict.a in ("do", "use") else self.index.features[rule]
        if {conflict.a, conflict.b} == _POLARITY:
            return conflict.slot in _persons_steps(doer.text)
        if {conflict.a, conflict.b} == _USE and conflict.slot.startswith("`"):
            named = _NAMED_COMMAND_RE.match(doer.text)
            return named is not None and named.group(1) == conflict.slot.strip("`") \
                and bool(_persons_steps(named.group(2)))
        return False

    def occasion(self, query: Features, rule: int, conflict: Conflict) -> bool:
        """Whether a do-vs-do-not difference is on a step a prohibition names only as its
        occasion, in a clause of time ("Do not use --no-verify when committing", "Do not skip
        the linters when pushing"): it forbids something on that step and takes no stance on
        the step, which the other may forbid ("Never use `git commit --no-verify`")."""
        if {conflict.a, conflict.b} == _USE and conflict.slot.startswith("`"):
            # a command the doing side names only as the call it was made on ("… after it tried
            # to run `git commit --no-verify`")
            doer = query if conflict.a == "use" else self.index.features[rule]
            return doer.facts.rejects_any and _unmeant(conflict.slot) not in _without_occasion(doer.text).lower()
        if {conflict.a, conflict.b} != _POLARITY:
            return False
        doer = query if conflict.a == "do" else self.index.features[rule]
        return doer.facts.rejects_any and conflict.slot not in Features.of(_without_occasion(doer.text)).stems

    def unstated(self, query: Features, rule: int, conflict: Conflict) -> bool:
        """Whether a do-vs-do-not difference is on a word the doing side takes no stance on: one
        said only in an aside, an explanation or an example ("`make serve` - the server is
        already up" does not say to run servers; "Terraform state (`.tfstate`)" names the
        files, it does not use them), only as what a negated clause is about ("Secrets must
        not go into values files" does not say to use secrets, nor reject them: it rejects
        putting them there), or only among a command's arguments (the `warnings` of
        `-D warnings` against "no warnings") where the other side says it outside code."""
        features = self.index.features[rule]
        if {conflict.a, conflict.b} == _USE and conflict.slot.startswith("`"):
            # a command one side uses and the other rejects, named by the user only in an aside
            # or as what a negated clause is about
            user = query if conflict.a == "use" else features
            subjects, rest = _negated_parts(user.text)
            return conflict.slot not in _without_asides(user.text).lower() \
                or (conflict.slot in subjects.lower() and conflict.slot not in rest.lower())
        if {conflict.a, conflict.b} != _POLARITY:
            return False
        doer, other = (query, features) if conflict.a == "do" else (features, query)
        if conflict.slot in _negated_subjects(doer.text, code=True):
            return True
        if conflict.slot in _stated(doer.text):
            return False
        return conflict.slot not in features_of(_without_asides(doer.text)).stems \
            or all(conflict.slot not in features_of(span).stems for span in other.facts.commands)

    def opposed(self, query: Features, rule: int) -> Conflict | None:
        """The same thing with the opposite stance, a contradiction however alike the two read:
        a command, code or tool one does and the other rejects ("`type: summary` (no area)" /
        "`<type>(<area>): <summary>`"; "hand-written validators over `zod`"), or plain words,
        when the two oppose on more of them than they agree on and take no action the same way
        ("Do not use the semantic commit format" / "Follow the semantic commit format").
        Where a plain word falls is a guess: "Merged migrations must not be edited" rejects
        editing them as "Never edit a migration that has been merged" does, though "merged" is
        outside its rejection; "never commit to main or master branches" rejects no branch.
        The frame, generic words, a part of a dotted name and words a side takes no stance on
        (unstated) do not count."""
        features = self.index.features[rule]
        asked, docs = query.facts, features.facts
        # a step one side says only the person takes, which the other has the agent take
        for doer, other, side in ((query, features, 0), (features, query, 1)):
            taken = _persons_verbs(other.text) & doer.facts.done - doer.facts.rejected - _persons_steps(doer.text)
            if taken:
                return Conflict(min(taken), *(("do", "only the person") if side == 0 else ("only the person", "do")))
        # "staging is not used any more" rejects staging, however match.py reads what stands
        # before a negation
        for disused, done, side in ((_disused(query.text), docs.done, 0), (_disused(features.text), asked.done, 1)):
            for s in sorted(disused & done - _GENERIC - FRAME):
                conflict = Conflict(s, *(("do not", "do") if side == 0 else ("do", "do not")))
                if not self.unstated(query, rule, conflict):
                    return conflict
        if not asked.rejected and not docs.rejected:
            return None
        strong = query.strong | features.strong
        unnamed = _unnamed(query.text) & _unnamed(features.text)
        unnamed -= _negated_subjects(query.text) | _negated_subjects(features.text)
        plain: list[Conflict] = []
        for s in sorted((asked.done & docs.rejected) | (asked.rejected & docs.done)):
            # the "path" of `os.path` is a module, not a word
            if s in _GENERIC or s in FRAME or s in _PERMISSION or s not in unnamed:
                continue
            conflict = Conflict(s, "do" if s in asked.done else "do not", "do" if s in docs.done else "do not")
            if self.unstated(query, rule, conflict) or self.gated_step(query, rule, conflict) \
                    or self.occasion(query, rule, conflict) or self.required(query, rule, conflict) \
                    or self.persons_step(query, rule, conflict):
                continue
            if s in strong:
                return conflict
            plain.append(conflict)
        if not plain:
            return None
        agreed = self.agreed(query, rule)
        if _itemised(features.text) or _itemised(query.text):
            return plain[0]
        return plain[0] if len(plain) > len(agreed) and agreed.isdisjoint(ACTIONS) else None

    def agreed(self, query: Features, rule: int) -> frozenset[str]:
        """The words both take the same stance on (both do, or both only reject)."""
        asked, docs = query.facts, self.index.features[rule].facts
        # (not the person's word: "unless explicitly requested" both say takes no stance on the step)
        return frozenset(s for s in (asked.done & docs.done) | (asked.rejected & docs.rejected)
                         if s not in _GENERIC and s not in FRAME and s not in _PERMISSION)

    def agreed_pick(self, query: Features, rule: int) -> frozenset[str] | None:
        """The alternatives a memory rejects, when what it picks (its commands, the tools it
        uses) is what the rule says: a rule picking a tool rejects the others ("Prefer `fd`
        instead of `find`" restates "Prefer `fd` for finding files"; "Yarn is the package
        manager here", "**Use Yarn only.**"), however little else the two share. None when the
        memory picks nothing, something the rule does not say or rejects, rejects what the rule
        does, or rejects a tool of a role it picks nothing for (`bun test` instead of jest is
        about the test runner, not about Bun)."""
        asked = query.facts
        if not asked.used and not asked.picks:
            return None
        picks = {s for span in asked.used for s in features_of(span).stems}
        picks |= {stem(tool) for slot, tools in asked.picks.items() if slot not in SUBJECT_SLOTS for tool in tools}
        if not picks:
            return None
        docs = self.index.features[rule]
        if not picks <= docs.stems | self.headings[rule] or not picks.isdisjoint(docs.facts.rejected):
            return None
        # A command picked is the rule's when the rule names it as code or a tool, not as a plain
        # word, if the rule picks commands of its own: `type` (the TypeScript keyword) is not the
        # "type" of "use `unknown` with type guards"; `pathlib` is "Prefer pathlib over os.path".
        spans = {s for span in asked.used for s in features_of(span).stems}
        if docs.facts.used and not spans <= docs.strong | self.headings[rule]:
            return None
        # What it picks instead of: the tools and commands it rejects, and the words of an
        # "instead of …" ("instead of older libraries"), not a rejection of its own ("no errors").
        commands = set().union(*(features_of(span).stems for span in asked.refused))
        words = (set(asked.rejected) & (query.strong | _ROLE.keys())).union(
            *(features_of(phrase).stems & asked.rejected for phrase in _INSTEAD_RE.findall(query.text)))
        # ... which the rule must not do: a command it runs, a word it uses (the command `find`
        # is not the "finding" of "`fd` for finding files").
        run = set().union(*(features_of(span).stems for span in docs.facts.used))
        roles = {_ROLE[s] for s in picks if s in _ROLE}
        if not commands.isdisjoint(run) or not (words - commands).isdisjoint(docs.facts.done) \
                or any(_ROLE[s] not in roles for s in commands | words if s in _ROLE):
            return None
        return frozenset(commands | words)

    def same_gate(self, verdict: Verdict, said: _Said, rule: int) -> bool:
        """A verdict short of the same lesson that states no fact differently, when the memory and
        the rule say one step needs the person's word ("Do not create commits unless asked" /
        "never commit changes without the user's approval"): match.py weighs the words saying
        so as a stock clause, which is all but the step here. Coverage still decides."""
        return bool(said.gated) and verdict.score >= CONTAINED_SIMILARITY and not verdict.conflicts \
            and not verdict.correction and _gated(_rule_core(self.index.items[rule].text)) == said.gated

    def same_number(self, verdict: Verdict, said: _Said, rule: int) -> bool:
        """A verdict a little short of the same lesson that states no fact differently, when the
        two give the same number ("under 80 characters", "80 chars per line"): match.py's score
        does not count numbers, and a number both say is as telling as a rare word."""
        return (verdict.score >= SAME_NUMBER_SIMILARITY and not verdict.conflicts
                and not verdict.correction and not said.numbers.isdisjoint(self.numbers[rule]))

    def other_choice(self, query: Features) -> KnownMatch | None:
        """A contradiction of the docs' choice of tool, however differently the two read: the
        docs run `poetry install` and `poetry run pytest`, the memory says "always use `uv` for
        package management". Only when the docs never name the memory's tool (a project that
        names both may use both) and only for roles a project fills once (ONE_CHOICE_SLOTS). A
        tool the memory says not to use is none it picks ("Don't use pip here, … poetry")."""
        if not self.choices or query.stems.isdisjoint(_CHOICE_STEMS):
            return None  # no tool named: the facts need not be read
        absent = _absent(query.text)
        refused = _refused(query.text)
        for slot, picked in sorted(query.facts.picks.items()):
            # a tool the memory says is missing here is a fact of the machine, not its choice;
            # one it says not to use is what it rejects wherever else it names it (the record
            # of the call the person turned down: "Don't use pip here … (rejected: run `pip …`)")
            tools = frozenset(tool for tool in picked if tool not in absent and stem(tool) not in refused)
            documented = self.choices.get(slot)
            if not tools or documented is None or not tools.isdisjoint(documented[0]) \
                    or any(stem(tool) in self.index.postings for tool in tools):
                continue
            i = documented[1]
            score = compare(query, self.index.features[i], self.index.weights, threshold=self.threshold).score
            differs = Conflict(slot, "/".join(sorted(tools)), "/".join(sorted(documented[0])))
            return KnownMatch("contradicts", self.index.items[i], Verdict(score, (differs,), self.threshold))
        return None

    def spread(self, query: Features, main: frozenset[str], rule: int) -> bool:
        """Whether a long rule of several sentences says the memory's rarest word and its actions
        only in different ones: "ALWAYS commit after you finish making changes" is not in a
        story of a developer who "has finished a feature" and an agent that "will analyze the
        commits". (A whole item is a rule for what its sentences say together: "Do not use npm
        or yarn." after "This project uses pnpm.")"""
        said = self.index.features[rule].stems
        shared = main & said
        if not shared or len(said) < LONG_RULE_SHARE * len(query.stems):
            return False
        sentences = _sentence_stems(self.index.items[rule].text)
        if len(sentences) < 2:
            return False
        weights = self.index.weights
        needed = {max(sorted(shared), key=lambda s: weights.of(query, s))} | (query.facts.actions & said)
        return not any(needed <= sentence for sentence in sentences)

    def undone(self, query: Features, rule: int) -> bool:
        """Whether the memory's action (match.py's: commit, push, read, …; not the frame's add or
        create, nor a step it puts something before) is one a much longer rule does not do, nor
        says done, nor a kin of one of its actions: "after identifying changes that require
        committing" names committing, it does not say to commit. (A long text names many
        actions in passing; a short rule saying the memory's words says its action.)"""
        wanted = query.facts.actions - FRAME - _before_step(query.text)
        features = self.index.features[rule]
        if not wanted or len(features.stems) < LONG_RULE_SHARE * len(query.stems):
            return False
        facts = features.facts
        acted = facts.actions | facts.objects | _passives(self.index.features[rule].text)
        return any(action not in acted and not any(kindred(action, other) for other in acted)
                   for action in wanted)

    def acted_on(self, query: Features, rule: int) -> bool:
        """Whether the memory's action is what the rule acts on with another action: "never
        commit changes" does not restate "never push commits" (a rule making its object, "create
        commits", says to commit)."""
        wanted = query.facts.actions - FRAME - _before_step(query.text)
        if not wanted:
            return False
        words = [word for word in self.index.features[rule].facts.words if word not in _DETERMINERS]
        mine = [word for word in query.facts.words if word not in _DETERMINERS]
        for action in wanted - _after_action(tuple(mine)):
            # each time the rule says it, right after another action ("push commits", "push the commits")
            at = [k for k, word in enumerate(words) if stem(word) == action]
            if at and all(k and stem(words[k - 1]) in ACTIONS and stem(words[k - 1]) not in FRAME
                          and stem(words[k - 1]) != action for k in at):
                return True
        return False

    def contained(self, query: Features, main: frozenset[str], said: _Said, rule: int, verdict: Verdict) -> bool:
        """Whether a short memory says nothing the rule does not, though the rule says much more
        (a symmetric score counts that against the two): "NEVER commit secrets" in "**NEVER
        commit API keys, passwords, or secrets** to any file in the repo — not in code, …". No
        fact may differ (checked here: match.py skips a pair this far apart)."""
        if verdict.score < CONTAINED_SIMILARITY or verdict.conflicts:
            return False
        features = self.index.features[rule]
        if self.telling(query, rule, Verdict(verdict.score, conflicts(query, features), verdict.threshold)).conflicts:
            return False
        return self.covered(query, rule, main, said) >= CONTAINED_COVERAGE

    def against_core(self, query: Features, core: Features, rule: int) -> Verdict | None:
        """The verdict against what the rule says outside its asides and examples, when that is
        the memory's lesson and states no fact differently: "NEVER commit secrets" restates
        "**NEVER commit API keys, passwords, or secrets** to any file — not in code, not in
        docs, not in markdown examples", whose examples outweigh it in a symmetric score."""
        text = self.index.items[rule].text
        bare = _rule_core(text)
        if bare == text:
            return None
        features = features_of(bare)
        verdict = compare(core, features, self.index.weights, threshold=self.threshold)
        return verdict if verdict.same_lesson and not conflicting(query, features) else None

    def narrowing(self, said: _Said, rule: int) -> tuple[frozenset[str], frozenset[str]]:
        """The memory's places the rule says too (it says none, or one of them) and its words
        narrowing a noun the rule says (_modifiers): what covered() counts in part."""
        features = self.index.features[rule]
        ruled = _scope(features.text)
        scope = said.scope if not ruled or not ruled.isdisjoint(said.scope) else frozenset()
        says = features.stems
        return scope, _modifiers(said.words, features.facts.words, says) if said.words else frozenset()

    def narrowed(self, query: Features, core: Features, said: _Said, rule: int) -> Verdict | None:
        """The verdict on what `query` says without its places and narrowing words, when that is
        the rule's lesson and nothing the memory says states a fact differently: "Avoid inline
        comments in code" says what "Do not add comments" does, for one kind and one place."""
        scope, narrowing = self.narrowing(said, rule)
        if not scope and not narrowing:
            return None
        text = core.text
        if scope:
            text = _SCOPE_RE.sub(lambda found: " " if _scope(found.group(0)) else found.group(0), text)
        if narrowing:
            text = " ".join(word for word in text.split() if stem(normalise(word)) not in narrowing)
        if text == core.text:
            return None
        features = self.index.features[rule]
        verdict = compare(Features.of(text), features, self.index.weights, threshold=self.threshold)
        return verdict if verdict.same_lesson and not conflicting(query, features) else None

    def without_asides(self, query: Features, core: Features, rule: int) -> Verdict | None:
        """The verdict on what `query` says outside its asides, when that is the rule's lesson
        and nothing in the asides states a fact differently: a list of examples the rule does
        not give ("never use emojis anywhere — not in commits, code, …") is no news."""
        features = self.index.features[rule]
        verdict = compare(core, features, self.index.weights, threshold=self.threshold)
        return verdict if verdict.same_lesson and not conflicting(query, features) else None

    def new_step(self, core: Features, rule: int) -> bool:
        """Whether a later step of the memory ("…, then commit it"; "…; push the tag") is an
        action (match.py's reading: commit, push, edit, …) neither the rule nor its heading names:
        a rule about regenerating the client does not say to commit it. The first clause's
        wording is the coverage's business ("store money as `Decimal`" restates "money is
        `Decimal`"). So is a step saying nothing the rule says ("…, then run the formatter").
        A sentence doing nothing, only rejecting ("No shortcuts."), is no step: what it rejects
        weighs in the coverage."""
        said = self.index.features[rule].stems | self.headings[rule]
        # (an instruction after a comma or "and" is a step too: "Use pnpm for installs, and
        # never commit the lockfile" adds a rule on committing no rule on installing holds)
        for step in [*_STEP_RE.split(core.text)[1:], *_instructions(core.text)[1:]]:
            features = Features.of(step)
            if not features.facts.actions and not features.facts.done:
                continue
            # (a kin word says the rule's: "don't ignore them" is "do not discard them")
            kin = frozenset(mine for mine in features.stems - said if any(kindred(mine, ruled) for ruled in said))
            if not features.facts.actions <= said | kin or (features.stems - _GENERIC - FRAME).isdisjoint(said | kin):
                return True
        return False

    def covered(self, query: Features, rule: int, main: frozenset[str], said: _Said,
                alternatives: frozenset[str] = frozenset()) -> float:
        """The share of what `query` says outside its asides (`main`, its stems there, and the
        numbers of `said`; weighted by rarity) that rule number `rule` says too; the
        `alternatives` a pick the rule shares rejects (agreed_pick) are said by the pick."""
        weights = self.index.weights
        features = self.index.features[rule]
        says, numbers, heading = features.stems | alternatives, self.numbers[rule], self.headings[rule]
        for item in said.items:
            if not item.isdisjoint(says):
                says = says | item
        # An aside listing what the memory's action is done to gives examples of its object: a
        # list the rule names most items of names no news in the others (`.env` among "secrets,
        # tokens, keys"); a list of things the rule does not name is news.
        if 2 * sum(not item.isdisjoint(says) for item in said.aside_items) > len(said.aside_items):
            says = says.union(*said.aside_items)
        # A step the memory says needs the person's word is the rule's when the rule says so too,
        # or forbids the step outright: a person's word overrides any rule ("never force-push"
        # is "don't force-push unless told to").
        if said.gated in says and (_PERMISSION_RE.search(self.index.items[rule].text)
                                   or said.gated in features.facts.rejected):
            says = says | _PERMISSION
        # A rule saying a thing is not allowed rejects every action on it: "Don't write snapshot
        # tests" restates "Snapshot tests are not allowed" whatever its verb.
        disused = _disused(features.text)
        if disused and not disused.isdisjoint(query.facts.rejected):
            says = says | query.facts.rejected
        # A command or name the memory uses whose head the rule never names is news, whatever
        # words it shares: `errors.Is` is not the rule's "wrap errors". (One it rejects is an
        # alternative, above.)
        # Nor is one the rule says only as a plain word while it names commands of its own:
        # `type` is not the "type" of "use `unknown` with type guards".
        # A command the rule names spelled apart ("`go fmt`" / "`gofmt`") is the rule's; a step's
        # tool where the rule names the step and no tool for it ("run `pytest` before committing" /
        # "run the tests before committing") says the step (_stepped).
        spelled = {_squashed(command) for command in features.facts.commands}
        for command in query.facts.commands - query.facts.refused:
            head = command.split()[0] if command.split() else ""
            if _squashed(command) in spelled or _stepped(command, features):
                says = says | features_of(command).stems
            elif head and (not _names(features.text.lower(), head)
                           or (features.facts.used and not features_of(head).stems <= features.strong)):
                says = says - features_of(command).stems
        # An acronym one side spells the other's words with ("ESM" / "ES modules", "TDD" /
        # "test-driven development") says them.
        says = says | _spelled(query.text, features.text) | _spelled(features.text, query.text, words_of=True)
        # What a memory picks over another kind of the thing the rule names ("functional React
        # components over class components" against "Use functional components") is rejected by
        # the pick: the rule says it.
        if said.instead:
            says = says | frozenset().union(*(phrase for phrase in said.instead if _head(phrase) in features.stems))
        # A tool both name says its role: "use `pnpm` for package management" is "use `pnpm`".
        for slot, tools in query.facts.picks.items():
            if slot not in SUBJECT_SLOTS and not {stem(tool) for tool in tools}.isdisjoint(features.stems):
                says = says | _role_stems(slot)
        # (a hedge, "when practical", "relevant", and a word naming nothing in particular,
        # "everything", need no rule either)
        # (an indefinite word it names as code is a name: `any` is the TypeScript type)
        words = (main or query.stems) - _GENERIC - _HEDGES - (_INDEFINITE - query.strong)
        # A template of placeholders (`<type>(<scope>): <summary>`) shows the format a memory
        # names: an example, where no rule of the rule's section gives a template (one that does
        # gives the format's value, which the memory's must be).
        if "<" in query.text and self.index.items[rule].heading not in self.templated():
            words = words - _templated(query.text)
        # A memory's time words where the memory names all the rule's condition names, and its
        # verb of making in its condition too ("when creating a commit") where the rule says when
        # in time words and names all the memory's condition names (_TIMING); where the rule's
        # action goes needs naming by neither. (A verb of the memory's condition against a
        # rule's condition is the event itself: "if variables are added" / "when working with
        # variables".)
        implied = frozenset().union(*(_IMPLIED.get(action, ()) for action in features.facts.actions))
        ruled, mine = _condition(features.text) - implied, _condition(query.text) - implied
        if mine and mine <= features.stems and not _TIMING.isdisjoint(features.stems):
            words = words - _TIMING - (_MAKING & _condition(query.text, making=True))
        elif ruled and ruled <= query.stems:
            words = words - _TIMING
        # Where an action the rule takes always goes needs no rule: "commit secrets to version
        # control" is "commit secrets".
        for action in features.facts.actions & _IMPLIED.keys():
            words = words - _IMPLIED[action]
        # "Y before X" and "X … Y first" say one order
        if not _ORDER.isdisjoint(words) and not _ORDER.isdisjoint(says):
            says = says | _ORDER
        for verb in features.stems & _OBJECT_SAID.keys():
            # (when both take one stance on the verb: "never ask questions" is not "always ask")
            if (verb in query.facts.rejected) == (verb in features.facts.rejected):
                words = words - _OBJECT_SAID[verb]
        # A word of the memory whose kin the rule says (match.py's families: commit/push,
        # leak/commit, edit/change, minimal/targeted) is said, in part (match.KIN_SHARE); each
        # one, even beside a word of its family the rule says too ("minimal, targeted" against
        # "minimal and focused"). Not through the rule's asides: its examples ("Added parser")
        # do not say its action.
        families = _kin(features.text).keys() if query.kin and features.kin else frozenset()
        kin = {mine for mine in words if mine in KIN and not KIN[mine].isdisjoint(families)} if families else set()
        # Where the memory says it holds, when the rule says no other place (_SCOPE_RE), and
        # the words narrowing what the rule says (_modifiers), are said in part.
        scope, narrowing = self.narrowing(said, rule)
        # Summed by math.fsum, exactly rounded in any order: `words` is a set, whose order
        # follows PYTHONHASHSEED (match.raw_overlap says why that matters).
        totals: list[float] = []
        shares: list[float] = []
        for s in words - (_KIND - says):
            weight = weights.of(query, s)
            totals.append(weight)
            shares.append(weight if s in says else KIN_SHARE * weight if s in kin
                          else SCOPE_SHARE * weight if s in scope
                          else HEADING_SHARE * weight if s in heading
                          else MODIFIER_SHARE * weight if s in narrowing else 0.0)
        # A number weighs as much as the memory's average word: no document frequency tells
        # how rare "80" is (unseen, it would weigh as the rarest word there is).
        number_weight = math.fsum(totals) / len(words) if words else 1.0
        for number in said.numbers:
            totals.append(number_weight)
            shares.append(number_weight if number in numbers else 0.0)
        total = math.fsum(totals)
        return math.fsum(shares) / total if total else 0.0


# Roles a project fills with one tool (match.TOOL_SLOTS' names): a memory picking another one
# contradicts the docs. Databases, shells and linters are often several at once.
ONE_CHOICE_SLOTS = frozenset(TOOL_SLOTS) - SUBJECT_SLOTS - {"database", "shell", "linter"}
# A tool's role, by stem (agreed_pick: an alternative a pick rejects is a tool of the same role).
_ROLE = {stem(tool): slot for slot, tools in TOOL_SLOTS.items() if slot not in SUBJECT_SLOTS for tool in tools}
_CHOICE_STEMS = frozenset(stem(tool) for slot in ONE_CHOICE_SLOTS for tool in TOOL_SLOTS[slot])


# Roles whose tool an instruction runs as a step ("run the tests", "format the code", "lint"),
# by the stems naming the step (match.TOOL_SLOTS' names, synonyms folded).
_STEP_ROLES = {slot: frozenset(stem(w) for w in words.split()) for slot, words in (
    ("test runner", "test tests testing"), ("formatter", "format formatting formatted"),
    ("linter", "lint linting"), ("type checker", "typecheck typechecking"))}


def _stepped(command: str, rule: Features) -> bool:
    """Whether `command` is a tool of a step the rule names without naming any tool for it:
    "`pytest`" of "Always run the tests before committing", not against "run the tests with
    `npm test`" (the rule's own command is the tool meant) nor a rule naming another tool."""
    words = command.split()
    slot = _ROLE.get(stem(words[0])) if words else None
    steps = _STEP_ROLES.get(slot or "")
    return steps is not None and not steps.isdisjoint(rule.stems) and not rule.facts.commands \
        and not any(_ROLE.get(s) == slot for s in rule.stems)


def _flag_said(conflict: Conflict, query: Features, rule: Features) -> bool:
    """Whether a flag one side forbids and the other does not name (match.py's "prohibited") is
    said by the other in the words for what it does ("bypass the pre-commit hooks")."""
    return any(flag in _FLAG_STEMS and _FLAG_STEMS[flag] <= query.stems & rule.stems
               for flag in (conflict.a, conflict.b))


def _squashed(command: str) -> str:
    """A command's letters and digits, lowercased: `go fmt`, `gofmt` and `go-fmt` are one."""
    return "".join(ch for ch in command.lower() if ch.isalnum())


def _choices(features: Sequence[Features]) -> dict[str, tuple[frozenset[str], int]]:
    """The tools the rules pick in each ONE_CHOICE_SLOTS role, with the first rule picking one;
    only rules naming a tool are read."""
    picked: dict[str, tuple[set[str], int]] = {}
    for i, found in enumerate(features):
        if found.stems.isdisjoint(_CHOICE_STEMS):
            continue
        for slot, tools in found.facts.picks.items():
            if slot in ONE_CHOICE_SLOTS:
                picked.setdefault(slot, (set(), i))[0].update(tools)
    return {slot: (frozenset(tools), i) for slot, (tools, i) in picked.items()}


def memory_features(memory: Memory) -> Features:
    """A memory as compared with the rules: its content, and its title when that says more
    than the content's first words (MCP clients often send those as the title). A mined
    memory's record of its occasion ("The agent had just called: Bash git commit --no-verify …")
    is evidence, no part of what it says: the call it records is no step it tells to take, nor
    is the call a correction was typed after ("Do as the person said after it tried to run
    `git commit --no-verify -am 'wip'`: “…”"), whose words no rule needs to say."""
    body = memory.content
    if "The agent" in body or "Denied calls" in body or "Seen " in body:
        body = "\n".join(line for line in body.splitlines() if not of_the_occasion(line))
    if "after it tried to" in body:
        body = _TRIED_RE.sub("", body)
    title, content = _credential(_plain(_unanswered(memory.title)), False), \
        _credential(_plain(_unanswered(body)), False)
    said = normalise(title)
    text = content if not said or normalise(content).startswith(said) else f"{title}\n{content}"
    return Features.of(text, content)


# A person's "no" answering the agent ("no, CI uses 5433, revert that"; "不，…"; "nein, …"): it
# rejects what the agent did or said, not what the sentence after it says.
_ANSWER_RE = re.compile(r"(^|[“\"「']\s*)(?:no+|nope|nah|nein|non|não|nao|nee|niet|нет|不是|不对|不|いいえ|아니요|아니)"
                        r"\s*[,，、!！.。]+\s*", re.IGNORECASE | re.MULTILINE)


# ... and the person telling it to undo what it did ("…, revert that", "…, put it back"): what
# the agent did is the occasion, the lesson is the rest. (After a comma, as its own clause: in
# "…, never revert that" the undoing is what the memory forbids.)
_UNDO_RE = re.compile(r"[,;]\s*(?:and\s+)?(?:please\s+)?(?:(?:revert|undo|roll\s+back)\s+(?:that|this|it)"
                      r"(?:\s+change)?|(?:put|change|set|switch|move)\s+(?:that|this|it)\s+back)"
                      r"(?:\s+(?:please|now))?\s*(?=[.!]?\s*(?:$|[”\"」']))", re.IGNORECASE | re.MULTILINE)


def _unanswered(text: str) -> str:
    """`text` without the person's "no" answering the agent at its start or a quote's, nor their
    telling it to undo what it did at its end or a quote's."""
    return _UNDO_RE.sub("", _ANSWER_RE.sub(r"\1", text))


@dataclass(frozen=True)
class _Said:
    """What covered() reads of a memory besides its stems, found once per memory."""

    numbers: frozenset[str] = frozenset()
    # What needs the person's word ("ask before deleting …", "don't force-push unless asked"):
    # its first word's stem, "" when the memory says nothing needs it.
    gated: str = ""
    items: tuple[frozenset[str], ...] = ()  # a list's short items, each one thing
    scope: frozenset[str] = frozenset()  # the stems of where it says it holds (_scope)
    words: tuple[str, ...] = ()  # its normalised words outside its asides, in order (_modifiers)
    instead: tuple[tuple[str, ...], ...] = ()  # the stems of what it picks over ("over class components")
    # The items of a list an aside gives, doing what the memory does ("never commit secrets -
    # avoid committing `.env`, tokens, or keys"): what it is done to, each item one thing.
    aside_items: tuple[frozenset[str], ...] = ()


@lru_cache(maxsize=4096)
def _templated(text: str) -> frozenset[str]:
    """The stems `text` says only in its code spans of placeholders (_TEMPLATE_RE)."""
    spans = [span for span in _SPAN_RE.findall(text) if _TEMPLATE_RE.search(span)]
    if not spans:
        return frozenset()
    rest = _SPAN_RE.sub(lambda found: " " if _TEMPLATE_RE.search(found.group(1)) else found.group(0), text)
    return Features.of(" ".join(spans)).stems - Features.of(rest).stems


def _aside_items(text: str, core: Features) -> tuple[frozenset[str], ...]:
    """The stems of each item of a list (_list_items) an aside of `text` gives, when the aside
    does one of the actions of `core` (the memory's outside its asides), without those actions'
    stems."""
    asides = _ASIDE_RE.findall(text) if "," in text else []
    actions = core.facts.actions if asides else frozenset()  # (facts read only for a list aside)
    found: list[frozenset[str]] = []
    for aside in asides if actions else []:
        aside = aside.strip(" -–—()[]")
        if not actions.isdisjoint(Features.of(aside).facts.actions):
            found += [item - actions for item in _list_items(aside) if item - actions]
    return tuple(found)


def _kin(text: str) -> dict[int, frozenset[str]]:
    """match.py's families of kindred words `text` says outside its asides."""
    return features_of(_without_asides(text)).kin


# One capitalised word alone in parentheses: a label of the step ("(Red)", "(Optional)").
_LABEL_ASIDE_RE = re.compile(r"\(\s*([A-Z][a-z]+)\s*\)")


def _labels(text: str) -> frozenset[str]:
    """The stems of the words `text` gives as a label in parentheses ("Write the failing test
    first (Red)"), which read as names but name no tool or command the rule must say (a tool's
    name is one: "(Poetry)" is news)."""
    if "(" not in text:
        return frozenset()
    return frozenset(s for s in (stem(word.lower()) for word in _LABEL_ASIDE_RE.findall(text)) if s not in _ROLE)


def _without_examples(text: str) -> str:
    return _EXAMPLES_RE.sub(_unexampled, text) if _EXAMPLES_RE.search(text) else text


def _core_text(text: str) -> str:
    """What a memory (without its examples) says that a rule must cover: without its asides, its
    opening label, the reasons it gives and the exceptions it makes too."""
    if "**" in text:
        text = _LABEL_RE.sub(_unlabelled, _BOLD_DASH_RE.sub(_bold_dash, text))
    text = _REASON_RE.sub(" ", _without_asides(text))
    return _EXCEPTION_RE.sub(_unexcepted, text) if _EXCEPTION_RE.search(text) else text


def _excepted(text: str) -> frozenset[str]:
    """The stems of the exceptions `text` makes (_EXCEPTION_RE), not the person's word."""
    found = [clause.group(0) for clause in _EXCEPTION_RE.finditer(text) if _unexcepted(clause) == " "]
    return Features.of(" ".join(found)).stems if found else frozenset()


def _unexcepted(found: re.Match[str]) -> str:
    """An exception clause, gone, unless it is the person's word ("unless asked"), which
    _gated reads, or the condition of a prohibition ("A task is not done unless the tests
    pass", "Never add a dependency unless …": what it allows is the rule)."""
    before = re.split(r"[.!?;]\s", found.string[:found.start()])[-1]
    if _PERMISSION_RE.search(found.group(0)) or not NEGATIONS.isdisjoint(normalise(before).split()):
        return found.group(0)
    return " "


def _bold_dash(found: re.Match[str]) -> str:
    """A bold lead and a dash: the lead is the rule when it is an instruction ("**NEVER use
    `rm -rf`** - it's blocked by a hook": the rest is its reason, an aside), else a label for
    the rule after the dash ("**Just fix it** - don't ask …")."""
    lead = normalise(found.group(1)).split()
    return found.group(0) if lead[:1] and (lead[0] in _IMPERATIVE or stem(lead[0]) in ACTIONS) else " "


def _unlabelled(found: re.Match[str]) -> str:
    return " " if len(found.group(0).strip("-*+: \t").split()) <= MAX_LABEL_WORDS else found.group(0)


def _unexampled(found: re.Match[str]) -> str:
    listed = found.group(0)
    return " " if "`" in listed or "," in listed or re.search(r"\s(?:or|and)\s", listed) else listed


@lru_cache(maxsize=4096)
def _stated(text: str) -> frozenset[str]:
    """The stems `text` takes a stance on: not those only in an aside or among a command's
    arguments (each code span read as its first word). Spans first: " -- " inside
    `cargo clippy -- -D warnings` is no dash."""
    spans = _SPAN_RE.sub(lambda found: f" `{(found.group(1).split() or [''])[0]}` ", text)
    return Features.of(_without_asides(spans)).stems


def _without_asides(text: str) -> str:
    """`text` without its asides; a code span is whole, not an aside: the parentheses of
    `type(scope): …` are code."""
    return _outside_code(lambda hidden: [_ASIDE_RE.sub(" ", hidden)], text)[0]


def _outside_code(change: Callable[[str], list[str]], text: str) -> list[str]:
    """`change` (a substitution, a split) applied to `text` with its code spans hidden, so that
    nothing in a span is read as an aside or a statement's end."""
    if "`" not in text:
        return change(text)
    spans: list[str] = []

    def hide(found: re.Match[str]) -> str:
        spans.append(found.group(0))
        return f"\x00{len(spans) - 1}\x01"

    def shown(found: re.Match[str]) -> str:
        return spans[int(found.group(1))]

    return [_HIDDEN_RE.sub(shown, piece) for piece in change(_SPAN_RE.sub(hide, text))]


@lru_cache(maxsize=4096)
def _negated_parts(text: str) -> tuple[str, str]:
    """`text` split in what its negated clauses are about (the words before the negation:
    "Merged migrations" of "Merged migrations must not be edited") and the rest, code spans
    whole."""
    subjects: list[str] = []
    rest: list[str] = []
    for clause in _outside_code(_CLAUSE_RE.split, _without_asides(text)):
        words = clause.split()
        at = next((k for k, word in enumerate(words) if normalise(word) in NEGATIONS), 0)
        subjects += words[:at]
        rest += words[at:]
    return " ".join(subjects), " ".join(rest)


@lru_cache(maxsize=4096)
def _refused(text: str) -> frozenset[str]:
    """The stems of what a clause of `text` says after its negation ("Don't use pip here"):
    what it tells not to do or use."""
    found: set[str] = set()
    for clause in _outside_code(_CLAUSE_RE.split, _without_asides(text)):
        words = clause.split()
        at = next((k for k, word in enumerate(words) if normalise(word) in NEGATIONS), None)
        if at is not None:
            found |= Features.of(" ".join(words[at:])).stems
    return frozenset(found)


@lru_cache(maxsize=4096)
def _disused(text: str) -> frozenset[str]:
    """The stems of what `text` says is not used, needed or allowed ("`staging` is not used any
    more", "Docker is no longer required"): the passive of "don't use X" rejects X."""
    if not _DISUSED_RE.search(text):
        return frozenset()
    found: set[str] = set()
    for clause in _outside_code(_CLAUSE_RE.split, _without_asides(text)):
        match = _DISUSED_RE.search(clause)
        if match is not None:
            found |= Features.of(clause[:match.start()]).stems
    return frozenset(found)


@lru_cache(maxsize=4096)
def _negated_subjects(text: str, code: bool = False) -> frozenset[str]:
    """The stems `text` says only as what a negated clause is about ("Commit messages must not
    exceed 72 characters"), which it neither does nor rejects: the negation is on what follows.
    Without `code`, not the words of code, names and tools ("`dist/` must not …" is read as
    match.py reads it)."""
    subjects, rest = _negated_parts(text)
    if not subjects:
        return frozenset()
    said = Features.of(rest).stems
    found = Features.of(subjects).stems - said
    return found if code else found - Features.of(text).strong


def _names(text: str, head: str) -> bool:
    """Whether lowercased `text` names `head` (a command's first word) whole: `errors.is` is not
    in "wrap errors". A head that is a plain word is named in any of its forms: `export const`
    is in "named exports"."""
    if re.search(rf"(?<![\w.-]){re.escape(head)}(?![\w-])", text) is not None:
        return True
    forms = re.findall(rf"(?<![\w.-]){re.escape(head)}[a-z]{{1,3}}\b", text) if head.isalpha() else []
    return any(stem(form) == stem(head) for form in forms)


@lru_cache(maxsize=4096)
def _unnamed(text: str) -> frozenset[str]:
    """The stems of `text` outside its dotted, slashed or snake_case names (`os.path`, `src/api`)."""
    return Features.of(_DOTTED_RE.sub(" ", text)).stems


def _swapped(text: str, rule: str) -> Conflict | None:
    """The one word the memory says where the rule, word for word otherwise, says another ("Never
    commit secrets under `x/`" / "Never commit files under `x/`"): another fact, unless the two
    are words _telling_swap lets pass, synonyms (one stem), kin or items of a list."""
    words, ruled = normalise(text).split(), normalise(rule).split()
    if len(words) != len(ruled) or len(words) < 3:
        return None
    differ = [(a, b) for a, b in zip(words, ruled, strict=True) if a != b]
    if len(differ) != 1:
        return None
    a, b = differ[0]
    if _listed(text, a) and _listed(rule, b):
        return None
    if stem(a) == stem(b) or kindred(stem(a), stem(b)) or not _plain_word(a) or not _plain_word(b):
        return None
    conflict = Conflict("word", a, b)
    return conflict if _telling_swap(conflict) else None


def _listed(text: str, word: str) -> bool:
    """Whether `word` is an item of a list in `text` ("functions and methods"): a swap of one
    item for another ("functions and variables") is one more or one fewer thing the rule holds
    for, not another value."""
    words = normalise(text).split()
    return any(w == word and {words[k - 1] if k else "", words[k + 1] if k + 1 < len(words) else ""} & _AND_OR
               for k, w in enumerate(words))


def _telling_swap(conflict: Conflict) -> bool:
    """Whether a difference states another fact: not match.py's one-word swap of two words that
    name no particular thing ("anything" vs "files"; one of them alone does not do: "never
    commit secrets under X" says more than "never commit files under X"), nor of two words
    bounding where a rule holds ("allowed" vs "except"), nor two spellings of one name."""
    if conflict.slot == "name":  # "force-push" / "force-pushing", "hard-code" / "hard-coded"
        a, b = conflict.a.split(), conflict.b.split()
        return len(a) != len(b) or not all(variants(x, y) for x, y in zip(a, b, strict=True))
    if conflict.slot != "word":
        return True
    # the person's word said two ways ("ask first" / "explicitly approved")
    if all(stem(word) in _PERMISSION for word in f"{conflict.a} {conflict.b}".split()):
        return False
    swapped = {stem(conflict.a), stem(conflict.b)}
    return not swapped <= _INDEFINITE and not swapped <= _RESTRICTING and not swapped <= _PLACING


def _gated(text: str) -> str:
    """The first word of the step `text` says needs the person's word: after "ask before",
    before "unless asked" (a rule saying the same needs that step, not only the asking)."""
    found = _PERMISSION_RE.search(text)
    if found is None:
        return ""
    said = found.group(0).lower()
    side = (text[found.end():] if said.endswith(("before", "first"))
            else said if said.startswith("only") else text[:found.start()])
    if side is not said and not said.endswith(("before", "first")):
        # "Always force-push unless told otherwise" does it by default: no step waits for a word
        words = set(normalise(side).split())
        if "always" in words and words.isdisjoint(NEGATIONS):
            return ""
    # (the frame's verbs make the step and where a commit goes names it: "create a git commit"
    # gates committing)
    for word in _content_words(side):
        stems = Features.of(word).stems - _GENERIC - _PERMISSION - FRAME - _PLACED  # synonyms folded
        if stems:
            return min(stems)
    return ""


@lru_cache(maxsize=4096)
def _languages_said(text: str) -> frozenset[tuple[str, str]]:
    """Which language `text` says is used for what, as (thing, language) in English: ("replies",
    "japanese") for "Respond in Japanese" and "ユーザーへの応答は日本語で行う", ("comments",
    "english") for "Write comments in English", ("", "british english") for "Use UK English."
    (no thing named: everything). The first sentence saying one decides; empty when none does."""
    lowered = text.lower()
    if not _LANGUAGE_RE.search(lowered):
        return frozenset()
    for whole in re.split(r"[.!?。！？\n]+", lowered):
        # A sentence naming two languages says which is for what clause by clause: "think in
        # English, but answer in Chinese"; "unless asked for English, reply in Chinese".
        named = _languages_named(whole)
        found = frozenset().union(*(_clause_languages(sentence) for sentence in
                                    ([whole] if len(named) < 2 else _LANGUAGE_CLAUSE_RE.split(whole))))
        if found:
            return found
    return frozenset()


def _languages_named(text: str) -> set[str]:
    """The languages `text` names, in English."""
    return {english for name, english in _LANGUAGE_NAMES.items() if name in text}


def _beside_language(text: str) -> bool:
    """Whether `text` says little but which language is for what: its words outside the clauses
    naming a language and its bold label are at most MAX_BESIDE_LANGUAGE."""
    if not _LANGUAGE_RE.search(text.lower()):
        return False  # (most memories: no clause to read)
    unlabelled = _LABEL_RE.sub(" ", text)
    beside = [clause for sentence in re.split(r"[.!?。！？\n]+", unlabelled.lower())
              for clause in _LANGUAGE_CLAUSE_RE.split(sentence) if not _languages_named(clause)]
    return len(Features.of(" ".join(beside)).stems) <= MAX_BESIDE_LANGUAGE


def _clause_languages(sentence: str) -> frozenset[tuple[str, str]]:
    """What one sentence or clause (lowercased) says a language is used for (_languages_said)."""
    names = _languages_named(sentence)
    if len(names) != 1:
        return frozenset()
    name = names.pop()
    # "Never respond in Korean" names the language it rejects ("No exceptions." after it
    # rejects nothing of it)
    at = min(sentence.find(alias) for alias in _LANGUAGES[name] if alias in sentence)
    if not NEGATIONS.isdisjoint(normalise(sentence[:at]).split()):
        return frozenset()
    things = {thing for thing, pattern in _LANGUAGE_THINGS if pattern.search(sentence)}
    if any(word in sentence for word in _REPLY_WORDS):
        things.add("replies")
    if not things:
        # ... or says nothing but the language ("Use UK English.", "do all work in Japanese"; a
        # character of an untranslated ending is no word of its own)
        bare = {word for word in normalise(sentence).split() if len(word) > 1 or not _CJK_RE.match(word)}
        if bare - STOPWORDS - _LANGUAGE_WORDS - {name}:
            return frozenset()
        things.add("")
    # "British English", "Simplified Chinese": a variant is another value
    variant = re.search(rf"\b({_VARIANTS})\s+{name}\b", sentence)
    language = f"{_VARIANT_ALIASES.get(variant.group(1), variant.group(1))} {name}" if variant else name
    return frozenset((thing, language) for thing in things)


def _after_action(words: tuple[str, ...]) -> frozenset[str]:
    """The stems `words` says right after an action ("rebase shared branches": "shared" is
    what is rebased, not an action of its own)."""
    return frozenset(stem(word) for before, word in pairwise(words)
                     if stem(before) in ACTIONS and stem(before) not in FRAME and stem(before) != stem(word))


@lru_cache(maxsize=64)
def _role_stems(slot: str) -> frozenset[str]:
    """The stems of a tool role's name ("package manager": packag, manag), the language's short
    names included ("JS packages")."""
    return Features.of(f"{slot} {_ROLE_NAMES.get(slot.split()[0], '')}").stems


@lru_cache(maxsize=4096)
def _passives(text: str) -> frozenset[str]:
    """The stems of what `text` says is done to something ("must not be committed")."""
    words = normalise(text).split()
    return frozenset(stem(word) for before, word in pairwise(words) if before in _BEING)


@lru_cache(maxsize=4096)
def _acronyms(text: str) -> frozenset[str]:
    return frozenset(_ACRONYM_RE.findall(text)) if _ACRONYM_RE.search(text) else frozenset()


def _spelled(text: str, other: str, words_of: bool = False) -> frozenset[str]:
    """The stems of the acronyms of `text` that spell words of `other` by their initials (a word
    in capitals by itself: "ES modules" is ESM); with `words_of`, the stems of those words of
    `other` instead."""
    acronyms = _acronyms(text)
    if not acronyms:
        return frozenset()
    raw = re.findall(r"[A-Za-z]+", other)
    found: set[str] = set()
    for acronym in acronyms:
        for start in range(len(raw)):
            spelled, end = "", start
            while end < len(raw) and len(spelled) < len(acronym):
                word = raw[end]
                spelled += word.upper() if word.isupper() and len(word) > 1 else word[0].upper()
                end += 1
            if spelled == acronym and end - start > 1:
                found |= {stem(w.lower()) for w in raw[start:end]} if words_of else {stem(acronym.lower())}
                break
    return frozenset(found)


@lru_cache(maxsize=4096)
def _instead(text: str) -> tuple[tuple[str, ...], ...]:
    """The stems of each thing `text` picks something over ("over class components",
    "instead of `npm`"), in order, the head noun last."""
    if not _INSTEAD_RE.search(text):
        return ()
    found = [tuple(stem(word) for word in normalise(phrase).split() if word not in STOPWORDS)
             for phrase in _INSTEAD_RE.findall(text)]
    return tuple(phrase for phrase in found if phrase)


def _head(phrase: tuple[str, ...]) -> str:
    return phrase[-1]


@lru_cache(maxsize=4096)
def _rule_core(text: str) -> str:
    """A rule without its asides and examples (its text when it has none)."""
    if not any(mark in text for mark in "(—–-[") and " like " not in text and "such as" not in text \
            and "e.g" not in text:
        return text
    bare = " ".join(_without_asides(_without_examples(_plain(text))).split())
    return bare if len(_content_words(bare)) >= MIN_RULE_WORDS else text


@lru_cache(maxsize=4096)
def _sentence_stems(text: str) -> tuple[frozenset[str], ...]:
    return tuple(Features.of(sentence).stems for sentence in _sentences(text))


@lru_cache(maxsize=4096)
def _condition(text: str, making: bool = False) -> frozenset[str]:
    """The stems of what a rule says it holds under ("NEVER commit changes if tests do not pass",
    "When generating commits, …"), but for the person's word ("when asked") and generic words:
    a memory leaving the condition out ("Do not commit") states another rule. With `making`,
    all the stems of the condition."""
    found: set[str] = set()
    for phrase in _CONDITION_RE.findall(_without_asides(text)):
        found |= Features.of(phrase).stems
    # "Never merge without a review" holds unless there is a review: its condition too
    for clause in _without_clauses(text):
        found |= Features.of(clause.rpartition(" without ")[2]).stems
    return frozenset(found) if making else frozenset(found - _PERMISSION - _GENERIC - _MAKING - _HEDGES)


@lru_cache(maxsize=4096)
def _restricted(text: str) -> bool:
    """Whether `text` says its step is done only on some occasions or little (_RESTRICTED_RE),
    its permission phrases and asides aside."""
    if not _RESTRICTED_RE.search(text):
        return False
    return _RESTRICTED_RE.search(_PERMISSION_RE.sub(" ", _without_asides(text))) is not None


@lru_cache(maxsize=4096)
def _before_step(text: str) -> frozenset[str]:
    """The stems of the step a memory says something comes before ("… before committing
    changes"): what it gates, not what it does."""
    return frozenset().union(*(Features.of(phrase).stems for phrase in _BEFORE_RE.findall(text)))


# Which of two steps comes first, and which of two options is picked (_sequence, _preference):
# a memory saying the same two steps in the other order, or picking what a rule rejects, states
# the opposite however many words the two share ("Publish the package before tagging the release"
# / "Always tag the release before publishing the package"; "Prefer to write new helpers" /
# "Prefer reusing existing helpers over writing new ones"). Read on words, commas kept: a fronted
# clause ends at one.
_TOKEN_RE = re.compile(r"[a-z0-9][\w'+#./-]*|,")
_CLAUSE_END_RE = re.compile(r"[.;:!?\n]+(?:\s|$)|[()]")
# Order words: each names which side of it comes first ("X before Y": X; "X after Y": Y).
_FIRST_SIDE = {"before": 0, "prior": 0, "then": 0, "after": 1, "once": 1, "until": 1}
_SEQUENCE_WORDS = frozenset(stem(w) for w in "before after first then once until prior later afterwards "
                                             "beforehand only".split())
# Verbs picking one option over another, and the words leading the option rejected.
_PICKING = frozenset(stem(w) for w in "prefer favour favor choose pick opt use".split())
_SYNONYM_PICKING = frozenset(stem(w) for w in "prefer favour favor choose pick opt".split())
_OVER = (("over",), ("rather", "than"), ("instead", "of"), ("in", "place", "of"), ("to",), ("not",))
# Where an option's words end and its condition begins ("… over inheritance when designing classes").
_OPTION_END = frozenset("when whenever if unless for in because so where while during since as on".split())
_ONES = frozenset({"one", "ones"})
_MIN_OPTION_MATCH = 2  # stems an option must share with the rule's (or all of the rule's, fewer)


def _clauses(text: str) -> list[list[str]]:
    """`text`'s sentences as lowercase words, commas kept, code marks dropped."""
    return [words for part in _CLAUSE_END_RE.split(text.replace("`", "").replace("’", "'"))
            if (words := _TOKEN_RE.findall(part.lower()))]


def _negated(words: Sequence[str]) -> bool:
    return any(word.replace("'", "") in NEGATIONS for word in words)


def _step(words: Sequence[str]) -> frozenset[str]:
    """The stems naming a step, without order words and generic ones."""
    return Features.of(" ".join(w for w in words if w != ",")).stems - _SEQUENCE_WORDS - _GENERIC


def _comma(words: Sequence[str], start: int, end: int) -> int:
    """The first comma in words[start:end], else `end`."""
    return next((i for i in range(start, end) if words[i] == ","), end)


@lru_cache(maxsize=4096)
def _sequence(text: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """The (earlier, later) steps `text` orders, by the first order word of each sentence:
    "X before Y", "X prior to Y", "X, then Y", "X after Y", "X once Y", "Before Y, X", "After Y,
    X", "don't X until Y". A step negated ("Never deploy before the smoke test") is held back: the
    order turns."""
    found = []
    for words in _clauses(text):
        at = next((i for i, w in enumerate(words) if w in _FIRST_SIDE
                   and (w != "prior" or words[i + 1:i + 2] == ["to"])), None)
        if at is None:
            continue
        pole = words[at]
        skip = 2 if pole == "prior" else 1
        if at == 0 or (at == 1 and words[0] == "only"):
            if pole == "then":
                continue
            ends = _comma(words, at + skip, len(words))
            other, this = words[at + skip:ends], words[ends + 1:]
        else:
            # (", then Y" and ", and then Y" follow the clause before the comma)
            ends = at - 1 if words[at - 1] == "and" and pole == "then" else at
            ends -= ends > 0 and words[ends - 1] == "," and pole == "then"
            starts = max((i + 1 for i in range(ends) if words[i] == ","), default=0)
            this = words[starts:ends]
            other = words[at + skip:_comma(words, at + skip, len(words))]
        if pole == "until" and not _negated(this):
            continue  # "retry until it passes" orders nothing
        first, then = _step(this), _step(other)
        if not first or not then:
            continue
        if _FIRST_SIDE[pole] == 1:
            first, then = then, first
        if _negated(this) and pole not in ("then", "until"):
            first, then = then, first
        found.append((first, then))
    return tuple(found)


def _meets(a: frozenset[str], b: frozenset[str]) -> int:
    """How many stems of `a` are in `b` or kin of one there."""
    return sum(1 for s in a if s in b or any(kindred(s, t) for t in b))


def _turned(mine: tuple[frozenset[str], frozenset[str]], ruled: tuple[frozenset[str], frozenset[str]]) -> bool | None:
    """Whether `mine` pairs its two sides with `ruled`'s the other way round (True) or the same
    way (False), by the words each side has and the other side lacks; None when neither holds."""
    a1, a2 = mine[0] - mine[1], mine[1] - mine[0]
    b1, b2 = ruled[0] - ruled[1], ruled[1] - ruled[0]
    straight, cross = (_meets(a1, b1), _meets(a2, b2)), (_meets(a1, b2), _meets(a2, b1))
    if min(cross) and sum(cross) > sum(straight):
        return True
    if min(straight) and sum(straight) > sum(cross):
        return False
    return None


def _order_turned(text: str, rule: str) -> bool | None:
    """Whether `text` orders two steps `rule` orders the other way round (True), the same way
    (False), or orders none of the rule's (None)."""
    for mine in _sequence(text):
        for ruled in _sequence(rule):
            turned = _turned(mine, ruled)
            if turned is not None:
                return turned
    return None


@lru_cache(maxsize=4096)
def _preference(text: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """What `text` picks and what it picks it over ("Prefer A over B", "favour A to B", "use A
    rather than / instead of B", "choose A, not B"; the rejected side may be empty: "Prefer to
    write A", "Use A"), each without its condition ("… when designing classes"); "ones" is the
    picked thing's noun. None when it picks nothing or rejects picking."""
    for words in _clauses(text):
        at = next((i for i, w in enumerate(words) if stem(w) in _PICKING), None)
        if at is None or _negated(words[:at]):
            continue
        start = at + 2 if words[at + 1:at + 2] == ["to"] else at + 1
        rest = words[start:]
        over = next(((i, len(o)) for i in range(1, len(rest)) for o in _OVER
                     if tuple(rest[i:i + len(o)]) == o and _connects(o, words[at], rest, i)), None)
        picked, rejected = (rest[:over[0]], rest[over[0] + over[1]:]) if over else (rest, [])
        picked, rejected = _unconditioned(picked), _unconditioned(rejected)
        chosen, other = _step(picked), _step(rejected)
        if picked and any(w in _ONES for w in rejected):
            # "small functions rather than long ones": the ones are functions
            other = (other - _ONES) | _step(picked[-1:])
        if chosen:
            return chosen, other
    return None


def _picks_rejected(text: str, rule: str) -> bool:
    """Whether `text` picks what `rule` picks another option over, or rejects what the rule
    picks. A text picking nothing in words of its own ("Write new helpers") picks what it does;
    one rejecting it ("Never use composition") picks the other option when it says nothing but
    the rule's words."""
    ruled = _preference(rule)
    if ruled is None or not ruled[1]:
        return False
    mine = _preference(text)
    if mine is None:
        clause = next(iter(_clauses(text)), [])
        done = _step(_unconditioned(clause))
        if _negated(clause):
            done -= _PICKING
            return bool(done) and done <= ruled[0] | ruled[1] \
                and _meets(done, ruled[0] - ruled[1]) > _meets(done, ruled[1] - ruled[0])
        mine = (done, frozenset())
    if mine[1]:
        return _turned(mine, ruled) is True
    chosen, rejected = ruled[0] - ruled[1], ruled[1] - ruled[0]
    against = _meets(mine[0], rejected)
    return against >= min(_MIN_OPTION_MATCH, len(rejected)) and against > _meets(mine[0], chosen)


def _connects(over: tuple[str, ...], verb: str, words: Sequence[str], at: int) -> bool:
    """Whether `over` at words[at] leads the option rejected: "to" only after a verb of picking
    and before an option ("prefer A to writing B", not "prefer A to search files"), "not" only
    after a comma ("use A, not B", not "use A if not B")."""
    if over == ("to",):
        return stem(verb) in _SYNONYM_PICKING and _compared(words[at + 1:])
    return over != ("not",) or words[at - 1] == ","


# What a "to" after a preference may open besides the option it is preferred to: what the pick
# is for ("prefer `fd` to find files"), a verb.
_PURPOSE = ACTIONS | frozenset(stem(w) for w in """
find search get make keep check build handle manage format fix avoid reduce improve speed see show
track catch detect ensure achieve run test lint use write do
""".split())


def _compared(after: Sequence[str]) -> bool:
    """Whether the words after a preference's "to" name the option it is preferred to ("prefer
    A to writing B", "… to the old client", "prefer requests to httpx", "… to composition when
    …"), not what the pick is for ("prefer `fd` to find files"): a gerund or an article, or a
    short option (up to its condition) with no verb in it."""
    if not after:
        return False
    if after[0].endswith("ing") or after[0] in ("the", "a", "an"):
        return True
    option = _unconditioned(after)
    return 0 < len(option) <= 2 and all(stem(word) not in _PURPOSE for word in option)


def _unconditioned(words: Sequence[str]) -> list[str]:
    """An option's words up to its condition or the clause's next comma."""
    return list(words[:next((i for i, w in enumerate(words) if i and (w in _OPTION_END or w == ",")), len(words))])


def _explains(first: Conflict, then: Conflict) -> bool:
    """Whether `then` is `first`'s swap again: its values are `first`'s, or `first`'s a turned
    into its b inside them ("yarn" -> "pnpm" makes "yarn test" "pnpm test"). Stances ("do" /
    "do not") are said of each slot's own word: never one swap."""
    if {first.a, first.b} <= _STANCES or {then.a, then.b} <= _STANCES:
        return False
    if (then.a, then.b) == (first.a, first.b):
        return True
    swapped = re.sub(rf"(?<![\w-]){re.escape(first.a)}(?![\w-])", first.b, then.a)
    return swapped != then.a and swapped == then.b


def _absent(text: str) -> frozenset[str]:
    """The tools `text` says are missing on the machine (_ABSENT_RE), lowercased, without the
    full stop of a sentence ending in one."""
    if "not" not in text.lower():
        return frozenset()
    return frozenset(name.lower().rstrip(".") for found in _ABSENT_RE.findall(text) for name in found if name)


def _as_written(slot: str, text: str) -> str:
    """`slot` as `text` writes it where `slot` is the stem of one of its words (a person reads
    "Postgres", never "postgr"); any other slot as it is."""
    if not slot.isalnum() or re.search(rf"\b{re.escape(slot)}\b", text, re.IGNORECASE):
        return slot
    return next((word for word in re.findall(r"\w+", text) if stem(word.lower()) == slot), slot)


def _unmeant(text: str) -> str:
    """`text` without the meanings _plain() gave its flags ("pre-commit" is no commit made)."""
    for meaning in _FLAG_MEANINGS.values():
        text = text.replace(f" ({meaning})", "")
    return text


# A step only the person takes: "… must only ever be started by the user", "… is run manually
# by the developers", "… by the maintainers only".
_PERSONS = r"(?:the\s+)?(?:users?|humans?|developers?|programmers?|maintainers?|persons?|people|owners?|you)\b"
_PERSONS_STEP_RE = re.compile(rf"\bonly\s+(?:ever\s+)?(?:be\s+)?(\w+)\s+by\s+{_PERSONS}"
                              rf"|\b(\w+)\s+(?:manually|only)\s+by\s+{_PERSONS}|\b(\w+)\s+by\s+{_PERSONS}\s+only\b",
                              re.IGNORECASE)
_PERSONS_CLAUSE_RE = re.compile(r"[.;:!?,]\s+|\s+[-–—]+\s+|\n")
# A line naming a command and saying what it is: "`npm run dev` - starts the dev server".
_NAMED_COMMAND_RE = re.compile(r"^\W*`([^`\n]+)`\s*[-–—:]+\s+(.+)$", re.DOTALL)


@lru_cache(maxsize=4096)
def _persons_verbs(text: str) -> frozenset[str]:
    """The stems of the steps themselves that `text` says only the person takes."""
    if " by " not in text:
        return frozenset()
    return frozenset(stem(word.lower()) for found in _PERSONS_STEP_RE.findall(text) for word in found if word)


@lru_cache(maxsize=4096)
def _persons_steps(text: str) -> frozenset[str]:
    """The stems of the clauses of `text` saying a step only the person takes (_PERSONS_STEP_RE):
    the step and what it is done to ("dev server", "start"); and of the command a line names
    when it says so of it ("`npm run dev` - started manually by the developers")."""
    if " by " not in text:
        return frozenset()
    found: set[str] = set()
    for clause in _outside_code(_PERSONS_CLAUSE_RE.split, text):
        if _PERSONS_STEP_RE.search(clause):
            found |= Features.of(clause).stems - _PERMISSION
    named = _NAMED_COMMAND_RE.match(text)
    if found and named is not None and _PERSONS_STEP_RE.search(named.group(2)):
        found |= features_of(named.group(1)).stems
    return frozenset(found)


# A negated step and what it may not be done without: "Do not write code without a test".
_WITHOUT_RE = re.compile(r"\b(?:not|never|no|don'?t|cannot|can't|must\s+not)\b([^.;:!?]*?\s+without\s+"
                         r"(?!asking|permission|approval|consent|being\s+asked)[^.;:!?]*)", re.IGNORECASE)


def _without_clauses(text: str) -> list[str]:
    """What `text` says is not to be done without something, and that something (_WITHOUT_RE):
    neither is rejected. Not the person's word ("without asking" is a permission, read as such)."""
    return _WITHOUT_RE.findall(text) if "without" in text.lower() else []


def _without_occasion(text: str) -> str:
    """`text` without its clauses of time (_OCCASION_RE) and its flags' meanings."""
    return _OCCASION_RE.sub(" ", _unmeant(text))


@lru_cache(maxsize=4096)
def _itemised(text: str) -> bool:
    """A line listing short things without a verb ("Double quotes, 2 spaces indentation,
    semicolons"): each item is a rule of its own, which agreeing on another does not outweigh."""
    items = [normalise(item).split() for item in _LIST_SPLIT_RE.split(text.strip().rstrip("."))]
    return len(items) >= 2 and all(0 < len(item) <= 4 for item in items) \
        and not any(stem(w) in _VERBS_KNOWN or stem(w) in ACTIONS for item in items for w in item)


@lru_cache(maxsize=4096)
def _scope(text: str) -> frozenset[str]:
    """The stems of the places `text` says it holds in (_SCOPE_RE): a phrase whose last item or
    most of whose items end in a place a project has ("display names", "Go and Rust files")."""
    if not _SCOPE_RE.search(text):
        return frozenset()
    found: set[str] = set()
    for phrase in _SCOPE_RE.findall(_without_asides(text)):
        # ("For all code files, aim to …": a comma may end the phrase rather than list places)
        for candidate in (phrase, phrase.partition(",")[0]):
            items = [normalise(item).split() for item in _LIST_SPLIT_RE.split(candidate)]
            items = [[w for w in item if w not in _SCOPE_QUANTIFIERS] for item in items]
            items = [item for item in items if item]
            # ("in all Go and Makefile files": the items before the last may be its modifiers)
            if items and (stem(items[-1][-1]) in _PLACES
                          or 2 * sum(stem(item[-1]) in _PLACES for item in items) > len(items)):
                found |= Features.of(candidate).stems
                break
    return frozenset(found)


def _modifiers(words: Sequence[str], rule_words: Sequence[str], says: frozenset[str]) -> frozenset[str]:
    """The stems of the memory's plain `words` just before a word the rule says (`says`), where
    the rule has no plain word of its own before it: "inline" of "inline comments" against "Do not
    add comments", not "single" of "single quotes" against "double quotes"."""
    found: set[str] = set()
    stems, ruled = _stems_of(tuple(words)), None
    for k in range(1, len(words)):
        head, modifier = stems[k], stems[k - 1]
        if head not in says or modifier in says or not _plain_word(words[k - 1]):
            continue
        # ... each time the rule says it as a noun of its own: after a verb or a stop word and
        # before none ("commit messages" says "commit" as a modifier itself)
        ruled = ruled or _stems_of(tuple(rule_words))
        at = [j for j, s in enumerate(ruled) if s == head]
        if at and all(j and not _plain_word(rule_words[j - 1])
                      and (j + 1 == len(rule_words) or not _plain_word(rule_words[j + 1])) for j in at):
            found.add(modifier)
    return frozenset(found)


@lru_cache(maxsize=8192)
def _stems_of(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(stem(word) for word in words)


def _plain_word(word: str) -> bool:
    """A content word that is no verb, negation or stop word (what may narrow a noun)."""
    if len(word) <= 2 or word in STOPWORDS or word in NEGATIONS or word in _LINKING or word.isdigit():
        return False
    stemmed = stem(word)
    return stemmed not in ACTIONS and stemmed not in FRAME and stemmed not in _VERBS_KNOWN


def _numbers(text: str) -> frozenset[str]:
    return frozenset(n.replace(",", "").replace("_", "") for n in _NUMBER_RE.findall(text))


def _list_items(text: str) -> tuple[frozenset[str], ...]:
    """The stems of each short item of a list of at least MIN_LIST_ITEMS (after a colon when
    there is one: "never read: a, b, c")."""
    if text.count(",") < MIN_LIST_ITEMS - 2:
        return ()
    listed = text.partition(":")[2] or text
    parts = _LIST_SPLIT_RE.split(listed)
    items = [Features.of(part).stems for part in parts]
    items = [item for item in items if item]
    if len(items) < MIN_LIST_ITEMS:
        return ()
    # A part opening with a condition, or after the first with a verb and a few words more, is a
    # clause, no item ("if there are changes, stage the files and create a commit"): it names a
    # step, not one thing. (The first part carries the list's verb: "avoid committing X, Y or Z".)
    return tuple(Features.of(part).stems for k, part in enumerate(parts)
                 if 0 < len(Features.of(part).stems) <= MAX_ITEM_WORDS and not _clause_part(part, k > 0))


def _clause_part(part: str, later: bool) -> bool:
    words = normalise(part).split()
    return bool(words) and ([words[0]] in _OPENING_CONDITION or (
        later and len(words) >= MIN_CLAUSE_WORDS and stem(words[0]) in _VERBS_KNOWN | ACTIONS | FRAME))


def _stanced(rule: Rule) -> str:
    """A rule's text as it reads under its heading or lead: an item of "## Forbidden", "Commands
    to Avoid" or "NEVER:" is rejected ("Never force-push to `main`")."""
    if not (_rejecting_context(rule.heading) or _rejecting_context(rule.lead)) \
            or normalise(rule.text).split()[:1] in (["never"], ["dont"], ["no"], ["avoid"], ["do"]):
        return rule.text
    return f"Never {rule.text[:1].lower()}{rule.text[1:]}"


@lru_cache(maxsize=1024)
def _rejecting_context(label: str) -> bool:
    """A heading or a list's lead saying that what is under it is not to be done."""
    words = normalise(label).split()
    if not words or not _MIXED.isdisjoint(words) or words[:2] == ["dont", "repeat"]:
        return False  # "Do's and Don'ts", "Always / Never": both kinds under it; "Don't Repeat Yourself"
    return (words[0] in _REJECTING_FIRST or words[:2] == ["do", "not"] or words[-1] in _REJECTING_LAST
            or " ".join(words) in _REJECTING_LABELS or "not to do" in " ".join(words)
            or _DISUSED_RE.search(f" {label}") is not None  # "The following are not allowed:"
            or any(mark in label for mark in "❌✗✘🚫⛔"))


@lru_cache(maxsize=1024)
def _heading_stems(heading: str) -> frozenset[str]:
    return Features.of(heading).stems - _SUBJECTLESS_HEADING if heading else frozenset()


# An HTML tag in a Markdown line ('<a href="…">Conventional Commits</a>'): markup, not words.
# (the tags of inline markup only, outside code: `<type>(<area>)` and "<summary>" are placeholders)
_HTML_TAG_RE = re.compile(r"</?(?:a|b|i|u|s|em|strong|br|p|span|div|img|kbd|sup|sub|del|ins|mark|small|font)"
                          r"(?:\s[^<>\n]*)?/?>", re.IGNORECASE)
# "Prefer editing a file to creating one": the "to" of a preference is "over" (match.py reads
# what "over", "instead of" and "rather than" name as the alternative a pick rejects). Not the
# "to" of an infinitive: "prefer to edit".
_PREFER_TO_RE = re.compile(r"(\bprefer(?:s|red|ring)?\s+(?!to\b)[^.;:!?]*?)\s+to\s+([^.;:!?]*)", re.IGNORECASE)


def _preferred_to(found: re.Match[str]) -> str:
    """A preference's "to" as "over" where it names the option preferred to (_compared)."""
    after = found.group(2)
    return f"{found.group(1)} over {after}" if _compared(normalise(after).split()) else found.group(0)


def _plain(text: str) -> str:
    """What a text says, not where it links: "[Poetry](https://python-poetry.org/)" is "Poetry"
    (and so is an HTML link)
    (a URL's host and path words would count as rare words no rule shares); "1,500" is 1500
    (match.py reads the digits either side of a comma as two numbers: "1,600" vs "1,500" would
    differ as 600 vs 500, and "1500" from "1,500"). A flag instruction files forbid by name
    says what it does (_FLAG_MEANINGS)."""
    text = _URL_RE.sub(" ", _LINK_RE.sub(r"\1", text))
    if "<" in text:
        text = _outside_code(lambda hidden: [_HTML_TAG_RE.sub(" ", hidden)], text)[0]
    if "prefer" in text.lower():
        text = _PREFER_TO_RE.sub(_preferred_to, text)
    if "xception" in text or "xcuse" in text:
        text = _EMPHASIS_RE.sub(" ", text)
    for flag, meaning in _FLAG_MEANINGS.items():
        if flag in text:
            text = text.replace(flag, f"{flag} ({meaning})", 1)
    return _THOUSANDS_RE.sub("", text) if "," in text else text


def _credential(text: str, rule: bool) -> str:
    """An "API key" is a credential: a memory's is said by a rule's "secrets" (match.py folds
    "apikey" into "secret"); a rule's still says "keys" ("private keys" among a memory's list)."""
    if "api" not in text and "API" not in text:
        return text
    return _API_KEY_RE.sub(r"\g<0> apikey" if rule else "apikey", text)
