"""From frictions to lessons: the memory an agent-log importer submits for each friction it found.

Shared by every transcript importer (Claude Code now; a Codex rollout reader builds the same
`Friction`s and calls the same `build_memories`). What is agent-specific — reading the log,
telling a rejection from an Esc — stays in the importer's own package; what a friction *means*
to a person reviewing it is written once, here:

- A memory is a lesson: its title and first line say what to do or avoid, in the person's own
  words when they gave a reason or a correction ("use pnpm, not npm (rejected: run `npm
  install`)"), else what failed and how to avoid it. A call refused with no word says so ("Refused
  without a reason, ask first: run `yarn build`"): no rule in words the person never said. The
  quote follows: what the agent had just done and said, the person's words, the error lines.
- The provenance — session, record uuids, timestamps, log file, cwd — goes into metadata, where
  the TUI shows it and the dream groups by it; none of it is in the title or the first line.
- Terminal colour codes never reach a memory: every quoted text is stripped of ANSI escapes.
- One memory per distinct friction: the idempotency key is `<prefix>:<scope>:<kind>:<hash of
  what makes it the same friction>`, repeats in a session are one memory with
  `metadata.occurrences` (a tool error, a tool denied whole, a hook's message and a call refused
  without a word: in any session of the import), and a later import raises the count of a
  memory still pending.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, AnyStr

from dreamtui.errors import InputError
from dreamtui.intake.corrections import (
    HEADING_MARKS,
    correction_rule,
    corrects_premise,
    instruction,
    just_continues,
    only_asks,
    past_preamble,
    pasted_log,
    spoken,
)
from dreamtui.intake.corrections import lesson as correction_lesson
from dreamtui.intake.fastsearch import matcher, screen
from dreamtui.intake.validate import prepare
from dreamtui.model import Memory, NewMemory, frontmatter_int
from dreamtui.store.stm import STMStore
from dreamtui.vocabulary import WIDE_CHAR
from dreamtui.workspace.config import Config

QUOTE_CHARS = 600  # how much of a tool result, typed turn or agent text a friction quotes

KIND_TYPES: dict[str, str] = {
    "rejection": "failure",
    "plan_rejection": "failure",
    "clarification": "observation",
    "interruption": "observation",
    "hook_block": "failure",
    "denial": "failure",
    "tool_error": "failure",
    "correction": "failure",
    "environment": "observation",  # Codex: a fact of the machine, not a mistake
}

# CSI (colours, cursor moves), OSC (titles, links) and lone two-byte escapes; also the visible
# "␛[" some tools print in their place.
_ANSI = re.compile(r"(?:\x1b|\u241b)(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_SPACES = re.compile(r"\s+")


# Other control characters a terminal or a paste leaves (a Ctrl-Z "\x1a" after the words): never
# read, and a memory is text. Tabs and line breaks stay.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]")


def strip_ansi(text: str) -> str:
    """Without terminal escapes and control characters."""
    text = _ANSI.sub("", text) if ("\x1b" in text or "\u241b" in text) else text
    return _CONTROL.sub("", text) if _CONTROL.search(text) else text


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, line breaks kept, "…" when cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def one_line(text: str, limit: int) -> str:
    # str.split splits on the characters `\s` finds (str.isspace): `_SPACES.sub(" ", …).strip()`,
    # three times faster.
    return clip(" ".join(strip_ansi(text).split()), limit)


# A shell line's step into the folder it runs in, once that folder is written `.`.
_CD_HERE = re.compile(r"^\s*cd\s+(?:\.|\"\.\"|'\.')\s*(?:&&|;)\s*")


@dataclass(frozen=True)
class ToolCall:
    """A tool call, reduced to what a lesson names: the tool, its target (command, path, url,
    …), the file it touches, and for a plan the plan's text."""

    name: str
    target: str | None
    file_path: str | None
    plan: str | None = None

    def describe(self) -> str:
        return f"{self.name} {self.target}" if self.target else self.name

    def doing(self) -> str:
        """What the agent was doing, as a person says it: "run `npm install`"."""
        name, target = self.name, self.target
        if name == "ExitPlanMode":
            return "carry out its plan" + (f" “{one_line(self.plan, 90)}”" if self.plan else "")
        if not target:
            return f"use {name}"
        verbs = {"Bash": "run", "Edit": "edit", "MultiEdit": "edit", "Write": "write",
                 "NotebookEdit": "edit", "Read": "read", "WebFetch": "fetch", "WebSearch": "search for",
                 "Grep": "search for", "Glob": "look for", "Task": "start a subagent to",
                 "Agent": "start a subagent to", "shell": "run", "exec_command": "run",
                 "apply_patch": "patch"}
        verb = verbs.get(name)
        return f"{verb} `{target}`" if verb else f"use {name} on `{target}`"

    def within(self, root: str | None) -> ToolCall:
        """The call as a lesson names it to the team: a path inside the project `root` written
        from it (`src/app.py`), since the machine's own folders mean nothing in a shared file;
        paths elsewhere as they are."""
        if not root or self.target is None:
            return self
        # `cd <project> && git push` is `git push` from it: no `cd . &&` left before it
        target = _CD_HERE.sub("", project_relative(self.target, root))
        return self if target == self.target else replace(self, target=target)

    def to_json(self) -> list[str | None]:
        return [self.name, self.target, self.file_path, self.plan]

    @classmethod
    def from_json(cls, data: Any) -> ToolCall | None:
        if isinstance(data, list) and len(data) in (3, 4) and isinstance(data[0], str):
            parts = [p if isinstance(p, str) else None for p in data[1:]]
            return cls(data[0], *parts)
        return None


@dataclass
class Friction:
    """One detected friction, before merging and turning into a memory."""

    kind: str
    scope: str  # what repeats merge within: a session, or `<session>/<subagent>`
    session_id: str
    record_uuids: list[str]
    timestamp: str | None
    calls: list[ToolCall]  # what the agent had just called (several for one Esc over parallel calls)
    said: str | None  # the agent's last words before it
    evidence: str  # the quoted text: the error lines, the typed turn, the marker
    reason: str | None = None  # the person's words: a typed reason, a comment on an error
    cwd: str | None = None
    sidechain: bool = False
    log: str = ""
    why: str | None = None  # why a tool error is worth a lesson (`worth_reasons`)
    reply: str | None = None  # the agent's acknowledgement of a correction
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def plan(self) -> str | None:
        """The plan a plan rejection refused, as its ExitPlanMode call quoted it."""
        return next((c.plan for c in self.calls if c.plan), None)

    @property
    def call(self) -> ToolCall | None:
        return self.calls[0] if self.calls else None

    @property
    def record_uuid(self) -> str | None:
        return self.record_uuids[0] if self.record_uuids else None

    def doing(self) -> str | None:
        if not self.calls:
            return None
        names = [c.doing() for c in self.calls[:3]]
        more = f" and {len(self.calls) - 3} more" if len(self.calls) > 3 else ""
        return ", ".join(names) + more


# What makes two frictions of a kind "the same friction repeated" within a scope: a correction is
# its words, wherever it came; a rejection is the same call refused for the same reason.
_SAME_FRICTION: dict[str, tuple[str, ...]] = {
    "rejection": ("action", "reason"),
    "plan_rejection": ("reason", "uuid"),  # each plan refused is its own lesson
    "clarification": ("tool", "reason"),
    "interruption": ("action", "reason", "uuid"),  # one Esc, one memory
    # the same hook message, whatever file or command it stopped, in any session of the import
    # ("BLOCKED: Test files protected …" for each test file a subagent tried): one rule
    "hook_block": ("first_line",),
    "denial": ("denied",),  # a rule that denies a call; a tool denied whole: `_tool_denied`
    # one cause, one memory: the fact of the machine it states ("`jq` is not installed here",
    # whichever shell said so), else its error with paths, names and numbers alike
    "tool_error": ("fact",),
    "environment": ("fact",),  # one fact of the machine, one memory, whichever command met it
    "correction": ("evidence",),
}
_DIGITS = re.compile(r"\d+")
# Claude Code's denial of a whole tool ("Permission to use WebSearch has been denied."), as opposed
# to a rule naming one command ("Permission to use Bash with command rm -rf / has been denied."):
# a fact of the environment, the same for every query, URL or command the agent tried. So is a
# subagent's "don't ask" mode denying a tool: the file or query it was called on is no rule.
_TOOL_DENIED = re.compile(r"Permission to use (\S+) has been denied(?:\.| because Claude Code is running in "
                          r"don'?t ask mode\b)")


def _tool_denied(friction: Friction) -> str | None:
    """The tool a denial refuses whatever the call asked, if it is one (`_TOOL_DENIED`)."""
    if friction.kind != "denial":
        return None
    denied = _TOOL_DENIED.match(friction.evidence.lstrip())
    return denied.group(1) if denied else None


_END_MARKS = ".!?…。！？ "


def _normalise(text: str) -> str:
    """What makes two evidences 'the same friction': case, spacing, numbers and the marks that
    end it ("Nope, still cannot drag" typed again with a full stop) do not count."""
    return _DIGITS.sub("#", _SPACES.sub(" ", text.lower())).strip()[:300].rstrip(_END_MARKS)


def _part(friction: Friction, name: str) -> str:
    call = friction.call
    if name == "action":
        return " | ".join(c.describe() for c in friction.calls)
    if name == "tool":
        return call.name if call else ""
    if name == "uuid":
        return friction.record_uuid or ""
    if name == "command":
        return command_head(call.target or "") if call else ""
    if name == "signature":
        return error_signature(call.name if call else "?", friction.evidence)
    if name == "fact":
        fact = environment_subject(friction.evidence)
        return fact[0] if fact else error_signature(call.name if call else "?", friction.evidence)
    if name == "refused":
        return _refused(friction)
    if name == "first_line":
        return friction.evidence.strip().split("\n", 1)[0]
    if name == "denied":  # the tool (and whether to a subagent), else the call and the message
        tool = _tool_denied(friction)
        return f"{tool}\0{friction.sidechain}" if tool else \
            _part(friction, "action") + "\0" + friction.evidence
    value = getattr(friction, name)
    return value if isinstance(value, str) else ""


def _silent_refusal(friction: Friction) -> bool:
    """A call refused at the prompt with no word typed (`worth_storing` has cleared a reason that
    says nothing, "Cancel")."""
    return friction.kind == "rejection" and not friction.reason


def friction_key(friction: Friction, prefix: str) -> str:
    """The idempotency key of the memory a friction becomes (module docstring)."""
    # The same call refused without a word, again and again, in any session: one "ask first".
    names = ("refused",) if _silent_refusal(friction) else _SAME_FRICTION[friction.kind]
    parts = [_part(friction, name) for name in names]
    digest = hashlib.sha256("\0".join(map(_normalise, parts)).encode("utf-8")).hexdigest()
    # A tool error or a fact of the machine is the same in any session or log of the import (30
    # sessions hitting one rewritten path are one lesson); the person's words belong to their session.
    # So is a tool denied whole, in every subagent of the import, a hook's message, and a call
    # refused without a word (nothing of the session is in it).
    scope = "errors" if friction.kind in ("tool_error", "environment") or _tool_denied(friction) \
        else "hooks" if friction.kind == "hook_block" \
        else "refusals" if _silent_refusal(friction) else friction.scope
    scope = scope if len(scope) <= 120 else hashlib.sha256(scope.encode("utf-8")).hexdigest()[:32]
    return f"{prefix}:{scope}:{friction.kind}:{digest[:16]}"


def memory_type(kind: str, config: Config, who: str) -> str:
    """The memory type a friction kind is stored as: its own, else observation."""
    wanted = KIND_TYPES[kind]
    for candidate in (wanted, "observation"):
        if candidate in config.memory_types:
            return candidate
    raise InputError(f"memory_types: the {who} import stores '{wanted}' or 'observation' "
                     f"memories, and the workspace config allows neither "
                     f"(it allows {', '.join(config.memory_types)})")


_MARKUP = re.compile(r"</?(?:command-name|command-message|command-args|local-command-stdout|"
                     r"local-command-stderr|bash-input|bash-stdout|bash-stderr)>")
# What a person types before their point, which says nothing as a title: "ultrathink", "ok so";
# "think" only as the keyword ("think hard", "think:"), not the verb ("Think some more.").
_TITLE_OPENER = re.compile(r"^(?:(?:ultrathink|megathink|think(?: hard| harder| deeply|(?=\s*[,:]))|use ultrathink"
                           r"(?: and)?|ok(?:ay)?(?: so)?|so|hmm+|um+|hey|please|pls|wait|hold on)"
                           r"\b[\s,.:;!-]*)+",
                           re.IGNORECASE)


def person_words(text: str) -> str:
    """A person's words as a title quotes them: no command markup, no opener."""
    return _TITLE_OPENER.sub("", _MARKUP.sub("", strip_ansi(text)).strip())


# What a person pastes rather than types, line by line: a program's "[name] …" lines (and its
# "name! …" lines, when two open so: "Thanks! Since …" is typed)
# lines, JSON (escaped or not), a record with a timestamp or a level, an indented dump, a lone
# bracket; and every line of a fenced block.
_MACHINE_LINE = re.compile(r"^\s*(?:\[[\w.:-]+\]|\d{4}-\d\d-\d\d[T ]\d|(?:DEBUG|INFO|TRACE|WARN(?:ING)?|ERROR)\b"
                           r"|Running `|[{}\[\]()<>,;]+\s*$|\"[\w-]+\":|$"
                           r"|.*[\[{]\s*$)|^\s{4}")  # "Result: [" opens a dump
_SHOUTED = re.compile(r"^\s*([\w.-]+)! ")
_JSON_TAIL = re.compile(r"\{\".*|\\\".*|\"[\w-]+\":.*")  # what follows a JSON object's start
_LETTERS = re.compile(r"[^\W\d_]")
_PASTE_CHARS = 200  # a line or two is typed, whatever it holds
_OWN_LETTERS = 25  # a few words of the person's own ("I see a console error:") say what it shows


def _letters(text: str) -> int:
    """How many letters the text holds, counted up to `_OWN_LETTERS`: the rules ask only whether
    there are that many, and a pasted log holds tens of thousands."""
    return sum(1 for _ in itertools.islice(_LETTERS.finditer(text), _OWN_LETTERS))


@functools.lru_cache(maxsize=64)  # a turn is asked about several times in a row, a long one costly
def own_words(text: str) -> str:
    """The person's own words in a turn, line by line, without what they pasted (`_MACHINE_LINE`,
    fenced blocks, a program's repeated "name! …" lines)."""
    typed: list[str] = []
    fenced = False
    lines = text.splitlines()
    shouts = [m.group(1) for m in map(_SHOUTED.match, lines) if m]
    voices = {name for name in shouts if shouts.count(name) >= 2}
    quoting = False  # a pasted command line's `…` that runs on to the next lines
    for line in lines:
        shout = _SHOUTED.match(line)
        if quoting or (shout and shout.group(1) in voices):
            quoting = quoting != (line.count("`") % 2 == 1)
            continue
        if "```" not in line and _MACHINE_LINE.match(line) and line.count("`") % 2 == 1:
            quoting = True
            continue
        parts = line.split("```")
        # Outside a fence: the even parts when the line starts outside, the odd ones when inside.
        outside = parts[1::2] if fenced else parts[::2]
        fenced = fenced != (len(parts) % 2 == 0)
        if len(parts) == 1 and fenced:
            continue
        cut = (_JSON_TAIL.sub("", part) for part in outside)
        kept = " ".join(part.strip() for part in cut if part.strip() and not _MACHINE_LINE.match(part))
        kept = kept.lstrip("])}>,;: ")  # what closes the paste before the person's words
        if kept:
            typed.append(kept)
    return "\n".join(typed)


def quoted_turn(text: str, limit: int) -> str:
    """A typed turn as a memory quotes it: whole when it fits; else, when it pastes output, the
    person's own words first and the paste after them in a fence, so that the clip cuts the
    paste and not what they said about it."""
    text = text.strip()
    if len(text) <= limit:
        return text
    own = own_words(text)
    if not own or _letters(own) < _OWN_LETTERS or len(own) > limit // 2:
        return clip(text, limit)
    return clip(f"{own}\n```\n{text}", limit)


def mostly_pasted(text: str) -> bool:
    """Is a long turn machine output with hardly a sentence of the person's own (`own_words`)?
    A run's log pasted back to the agent shows what happened; without words to say what was wrong
    about it, it is no correction to learn from."""
    if len(text) < _PASTE_CHARS:
        return False
    own = own_words(text)
    letters = _letters(own)
    return letters < _OWN_LETTERS and letters + 2 * len(WIDE_CHAR.findall(own)) < _OWN_LETTERS


_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")


def _sentence(text: str, limit: int) -> str:
    """The first sentence (or line) of a person's words, capitalised, on one line."""
    text = past_preamble(person_words(text) or text.strip())
    lines = [HEADING_MARKS.sub("", line) for line in text.splitlines() if line.strip()]
    line = lines[0] if lines else ""
    head, *rest = _SENTENCE_END.split(line, maxsplit=1)
    if rest and len(head.split()) < 2:  # "No." names nothing: what follows it does
        head = f"{head} {_SENTENCE_END.split(rest[0], maxsplit=1)[0]}"
    elif not rest and len(head.split()) < 2 and len(lines) > 1:
        # a word alone on its line ("Diagnostic", "Stop.") heads what the next line says
        joiner = " " if head.rstrip()[-1:] in ".!?:。！？：" else ": "
        head = f"{head.rstrip()}{joiner}{_SENTENCE_END.split(lines[1].strip(), maxsplit=1)[0]}"
    if head.rstrip().endswith((":", "：")) and len(lines) > 1:
        head = f"{head.rstrip()} {lines[1].strip()}"  # "I see a console error:" names what follows
    head = one_line(head, limit)
    return head[:1].upper() + head[1:]


def lesson_title(friction: Friction, limit: int) -> str:
    """What to do or avoid, in a line (module docstring)."""
    doing = friction.doing()
    # A reason that is pasted output quotes well in the body but names no lesson in a title.
    reason = _sentence(friction.reason, limit) if friction.reason and not pasted_log(
        friction.reason) else None
    kind = friction.kind
    if kind == "correction":
        # A report that quotes a log leads with the person's words about it, not the log's.
        said = own_words(friction.evidence) if "```" in friction.evidence or mostly_pasted(
            friction.evidence) else friction.evidence
        said = past_preamble(said if _letters(said) >= _OWN_LETTERS else friction.evidence)
        title = correction_lesson(said, doing, friction.said) or _sentence(spoken(said), limit)
    elif kind == "plan_rejection":
        title = f"{reason} (plan rejected)" if reason else "Ask before carrying out a plan: the person rejected it"
    elif kind == "rejection":
        # No reason to quote: say so, rather than a rule in words the person never said.
        title = f"{reason} (rejected: {doing})" if reason else \
            f"Refused {'with a pasted log' if friction.reason else 'without a reason'}, ask first: " \
            f"{doing or 'that tool call'}"
    elif kind == "clarification":
        title = f"Clarify first: {reason}" if reason else f"Clarify with the person before you {doing}"
    elif kind == "interruption":
        title = f"{reason} (interrupted: {doing})" if (reason and doing) else \
            reason or f"Check with the person before you {doing or 'go on'}"
    elif kind == "hook_block":
        call = friction.call
        head = command_head(call.target or "") if call and call.name == "Bash" else None
        what = f"`{head}`" if head else (doing or "this call")
        title = f"A hook blocks {what}: {one_line(friction.evidence, 120)}"
    elif kind == "denial":
        tool = _tool_denied(friction)
        call = friction.call
        head = _command_name(call.target or "") if call and call.name in _SHELL_TOOLS else None
        title = f"`{tool}` is denied {_to_whom(friction)}here" if tool else \
            f"Do not run `{head}` here: a permission rule denies it" if head else \
            f"Not allowed here: {doing or 'that tool call'}"
    else:
        title = _failure_title(friction, reason)
    return one_line(title, limit)


def _fact(friction: Friction, statement: str) -> str:
    """A fact of the machine as a title says it: on its own when it names what is missing
    ("`cargo` is not installed here"), else with the command it stopped."""
    if not statement[:1].islower():  # "`cargo` is …", "The module …", "Shell scripts …"
        return statement
    return f"{_short(friction)} cannot run here: {statement}"


# What loads modules: a module missing is missing for it (not for `which`, run first on the line).
_INTERPRETER = re.compile(r"(?:^|[/\\])(?:python[\d.]*(?:\.exe)?|py|pytest|uv|poetry|pipenv|node|"
                          r"deno|bun|ruby)$")


def _program(friction: Friction) -> str | None:
    """The interpreter a shell call ran (`python3`, `.venv/bin/python`, `pytest`), setup steps
    skipped; None when the line starts with another program."""
    call = friction.call
    if call is None or call.name not in ("Bash", "shell", "exec_command") or not call.target:
        return None
    words = command_head(call.target).split()
    return words[0] if words and _INTERPRETER.search(words[0]) else None


_SETS_PATH = re.compile(r"(?:^|[\s;&(])(?:export\s+)?PATH=")


def _sets_path(friction: Friction) -> bool:
    """Does the shell line of the call set PATH before what it runs?"""
    call = friction.call
    return call is not None and call.name in _SHELL_TOOLS and bool(call.target) and \
        _SETS_PATH.search(call.target or "") is not None


def _machine_fact(friction: Friction) -> str | None:
    """The fact of the machine a failure states, as a title says it; None when it states none.
    A missing module is missing for the interpreter that ran: the project's own environment
    (`uv run`, a venv) may well have it."""
    subject = environment_subject(friction.evidence)
    if subject:
        program = _program(friction) if subject[0].startswith("module:") else None
        if program:
            return subject[1].replace(" is not installed here", f" is not installed for `{program}`")
        if subject[0].startswith("command:") and _sets_path(friction):
            # `export PATH="$HOME/bin:$PATH" && which flow`: the line changed where programs are found
            return subject[1].replace(" is not installed here", " is not found once the line has set PATH")
        return _fact(friction, subject[1])
    limit = _environment_line(friction.evidence) if friction.kind == "environment" else None
    return f"{_short(friction)} cannot run here: {limit}" if limit else None


def _environment_line(evidence: str) -> str | None:
    """The line of an error that states the limit of the machine ("PermissionError: [Errno 13]
    Permission denied: 'C:\\…\\Temp\\tmp2u'"), not the first line of a test report."""
    for line in evidence.splitlines():
        if _find_environment(line):
            return one_line(line, 150)
    return None


def states_error(text: str) -> bool:
    """Does any line of a failed call's output say what went wrong? A listing that exited
    non-zero (a pipe cut short) states nothing to learn."""
    return _ERROR_LINE.search(text) is not None


def _failure_title(friction: Friction, reason: str | None) -> str:
    """A failure's title names the fact: what is missing or broken here ("`cargo` is not
    available here"), else the error's own statement ("pathspec '!C:/…/Git/…' did not match":
    the shell rewrote the path, where "Avoid `git add`" would name the wrong lesson). When the
    person told the agent what to do about it ("don't bother running mix precommit"), that is
    the lesson, and the fact follows."""
    fact = _machine_fact(friction) or f"{_short(friction)} fails here: {_error_head(friction.evidence)}"
    told = _told(friction) if reason else None
    return _instructed(fact, told) if told else fact[:1].upper() + fact[1:]


def _instructed(fact: str, told: str) -> str:
    """A failure's title with what the person said to do about it first. Inside the parentheses
    the fact goes on the person's sentence, so its first word is not capitalised (as a title
    alone it was: "The script …"), an acronym's ("SSH") left as it is."""
    return f"{told.rstrip(' .')} ({fact[:1].lower() + fact[1:] if fact[1:2].islower() else fact})"


def _told(friction: Friction) -> str | None:
    """What the person told the agent to do about a failed call (`_instruction`)."""
    call = friction.call
    return _instruction(friction.reason or "", f"{call.target if call else ''}\n{friction.evidence}")


def _instruction(reason: str, failed: str) -> str | None:
    """The person's words about a failed call as the instruction they give (without a bare "No,"
    before them: "The API tests live in packages/api/tests, not tests/."); None when they say
    nothing to do ("why?") or are a pasted log. A fact set against the one the call went by
    (`failed`, its command and error: "…port 8040, not 8080" after it met 8080) is one."""
    if not reason or pasted_log(reason):
        return None
    if correction_rule(reason) is None and not corrects_premise(reason, failed):
        return None
    return instruction(reason)


# Corrections that tell no way to do it: the work still fails, a question, a doubt, anger.
_NO_WAY_SAID = frozenset({"fails", "question", "doubt", "frustrated"})


def _told_first(told: str, short: str, error_head: str, fact: str | None) -> str:
    """A failure's first line when the person said what to do about it: their correction is the
    lesson, not the failure that called for it (what they said was right often ran next and
    passed), so it leads and the failure is its occasion, with the fact of the machine it
    stated, if any."""
    known = f"; {fact[:1].lower() + fact[1:] if fact[1:2].islower() else fact}" if fact else ""
    return (f"{one_line(told, 2 * QUOTE_CHARS).rstrip(' .')} (the person said so when {short} failed here "
            f"with “{error_head}”{known}).")


# The first line `_first_line` gives a failure nobody spoke about: what `instruct_pending` puts the
# person's words before, once they are found.
_FAILURE_FIRST = re.compile(r"\A(?:Avoid (?P<avoid>.+?) as done here: it fails with"
                            r"|(?P<known>.+): (?P<fact>[^“]+?) failed with) “(?P<head>.*?)”(?: \(.*?\))?"
                            r"(?:; do not count on it)?\.$")


# Steps that prepare a command rather than being it: a comment, `cd`, `export`, `sleep`, and a
# virtualenv or profile sourced (`. .venv/bin/activate && alembic upgrade head` fails in alembic);
# a variable set for the line (`ID="${ID:-x}" && …`), and the `&&` or `;` after any of them.
# (A backslash escapes the character after it: `cd ~/my\ projects/app` enters one folder.)
_ARGUMENT = r"(?:\"[^\"\n]*\"|'[^'\n]*'|\\[^\n]|[^\s'\"&;|\\])+"
_SETUP = re.compile(r"^(?:\s*(?:(?:#[^\n]*|(?:cd|export|sleep|source|\.)\s+" + _ARGUMENT + r")\s*"
                    r"(?:&&|;|\n|$)"
                    r"|[A-Z_][A-Z0-9_]*=(?:" + _ARGUMENT + r")?(?:\s*(?:&&|;))?\s+"
                    # what runs the command, not the command: `timeout 60s nix run …`, `time make`
                    r"|(?:g?timeout|time|nice)\s+(?:-[kns]\s*[^\s-]\S*\s+|-\S+\s+)*(?:\d[\d.]*[smhd]?\s+)?))+")
_OPTION_WITH_VALUE = re.compile(r"^-[A-Za-z]$")
# A shell word: quoted parts kept whole ("import json; print(1)" is one word), to the end of the
# text when a quote is not closed (a command the log cut).
_SHELL_WORD = re.compile(r"(?:[^\s'\"\\]+|\\.?|'[^']*(?:'|$)|\"(?:\\.|[^\"\\])*(?:\"|$))+")
# The programs a comment before a command on one line names first (`# Rebuild npm run build`: the
# log joined the lines): the command starts at the first of them.
# (Only names no comment uses as a word: not `make`, `find`, `go`, `test`, `bundle`, `cat`.)
_COMMON_PROGRAMS = frozenset({
    "npm", "pnpm", "yarn", "npx", "bun", "bunx", "node", "deno", "tsc", "python", "python3", "pip",
    "pip3", "uv", "poetry", "pytest", "git", "gh", "docker", "kubectl", "cargo", "mvn", "gradle",
    "composer", "dotnet", "psql", "mysql", "sqlite3", "curl", "wget", "ls", "grep", "rg", "sed",
    "awk", "jq", "cd", "sudo", "bash", "mkdir", "chmod", "supabase", "vercel", "terraform", "ssh",
    "systemctl", "brew", "apt-get"})


# A runner's word for running another program: `uv run pytest`, `npm run build`, `pnpm exec tsc`,
# `bundle exec rspec`: the program it ran is the one that failed, and names the command.
_RUNS = frozenset({"run", "exec", "x", "dlx"})
_PROGRAM_NAME = re.compile(r"^[A-Za-z@][\w.@:-]*$")
# What no name or path holds: a pattern's escapes and classes, a substitution (`$(cat x)`).
_SHELL_SYNTAX = re.compile(r"[\\$(){}\[\]`]")


def _past_comment(command: str) -> str:
    """A command whose comment the log joined to it on one line (`# Rebuild npm run build`), from
    the first program the words name; as it was when no line was joined or none is named."""
    if not command.lstrip().startswith("#") or "\n" in command.strip():
        return command
    words = command.split()
    start = next((i for i, word in enumerate(words[1:], 1) if word in _COMMON_PROGRAMS), None)
    return " ".join(words[start:]) if start is not None else command


def command_head(command: str) -> str:
    """A command in two words, as a person names it: `adb shell` for `cd x && adb -s emulator-5554
    shell "su -c id"`, `git push` for `git push 2>&1` (setup steps and options skipped); three
    after a runner's `run`/`exec` (`uv run pytest`). A quoted word (a pattern, a message, code) is
    never part of the name, nor one that holds a pattern's or the shell's syntax."""
    command = _past_comment(command)
    rest = _SETUP.sub("", command).strip() or command.strip()
    if rest.startswith("#"):
        return rest  # a comment and nothing after it that names a program
    words = _SHELL_WORD.findall(rest)
    head, skip = words[:1], False
    for word in words[1:]:
        if word[:1] in "<>|&;" or word[:2] == "2>":
            break  # a redirection or the next command: the head is what came before
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = _OPTION_WITH_VALUE.match(word) is not None
        elif word[:1] in "'\"" or _SHELL_SYNTAX.search(word) or (len(head) == 2 and not _PROGRAM_NAME.match(word)):
            break  # `rg ": any"`, `rg [\p{L}]`, `nix run ./tests#run`: a pattern, code or a path
        else:
            head.append(word)
            if len(head) > 2 or head[-1] not in _RUNS:
                break
    return " ".join([_program_word(head[0])] + head[1:]) if head else ""


# A shell word whose every quote is closed on its line: `"/opt/my tools/run.sh"`, `'C:\Program
# Files\x.exe'` (a quote that spans lines is a here-string's body, no program's name). One
# character a step, not a run (`[^…]+` inside `(…)+`): a word left with an open quote would
# otherwise be retried split every way, 2^n (54 s of CPU on a 34-character `python -c "…` word).
_CLOSED_WORD = re.compile(r"(?:[^\s'\"\\]|\\.|'[^'\n]*'|\"(?:\\.|[^\"\\\n])*\")+")
_QUOTED_PART = re.compile(r"'([^'\n]*)'|\"((?:\\.|[^\"\\\n])*)\"")


def _program_word(word: str) -> str:
    """The program a command's first shell word names: a quoted path without its quotes, and of a
    word whose quote is left open (PowerShell's `@'` here-string runs on to the end) its first part."""
    if _CLOSED_WORD.fullmatch(word):
        return _QUOTED_PART.sub(lambda part: part[1] if part[1] is not None else part[2], word)
    return word.split(None, 1)[0]


# Calls that only look (read a file, list a folder, show history): refused without a word, they
# say the person did not want to wait or be asked, not what to do; a change refused is a rule.
_LOOK_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead", "WebSearch", "WebFetch"})
_LOOK_COMMANDS = frozenset({"cd", "ls", "cat", "head", "tail", "less", "grep", "rg", "pwd", "which",
                            "echo", "wc", "file", "stat", "tree", "du", "df", "type", "git log",
                            "git show", "git diff", "git status", "git merge-base", "git rev-parse",
                            "git blame"})
# An MCP server's tool that reads, by its name after the server's (`mcp__serena__list_dir`,
# `mcp__claude_ai_Vercel__list_teams`, `mcp__github__get_issue`, `mcp__acp__Read`).
_MCP_LOOKS = re.compile(r"^mcp__.+__(?:list|get|read|search|find|view|show|describe|fetch|glob|grep)(?:_|$)",
                        re.IGNORECASE)
_COMMAND_JOIN = re.compile(r"&&|\|\||[|;\n]")
_WRITES_TO = re.compile(r"(?<![2&])>(?!&)")  # `> file`, `>> log`; not `2>/dev/null`, `2>&1`


def only_looks(calls: Sequence[ToolCall]) -> bool:
    """Do all these calls only look, changing nothing (`_LOOK_COMMANDS` for each command of a
    shell line, an MCP tool named for reading: `_MCP_LOOKS`)?"""
    def looks(call: ToolCall) -> bool:
        if call.name in _LOOK_TOOLS or _MCP_LOOKS.match(call.name):
            return True
        if call.name not in ("Bash", "shell", "exec_command") or not call.target:
            return False
        parts = [part for part in _COMMAND_JOIN.split(call.target) if part.strip()]
        return bool(parts) and not _WRITES_TO.search(call.target) and all(command_head(part) in _LOOK_COMMANDS or
                                   command_head(part).split(" ", 1)[0] in _LOOK_COMMANDS
                                   for part in parts)
    return bool(calls) and all(looks(call) for call in calls)


_SHELL_TOOLS = frozenset({"Bash", "shell", "exec_command"})
_SUBCOMMAND = re.compile(r"^[a-z][\w-]*$")


def _command_name(command: str) -> str:
    """A command as a rule names it: `git push`, `rm` (its head without a path or a value)."""
    words = command_head(command).split()
    return " ".join(words[:1] + [w for w in words[1:2] if _SUBCOMMAND.match(w)])


# A step that prepares the command (`_SETUP`): a folder entered, a file sourced.
_STEP = re.compile(r"(?:^|&&|;|\n)\s*((?:cd|source|\.)\s+(" + _ARGUMENT + r"))")


def _failed_step(command: str, evidence: str) -> str | None:
    """The part of a command line the error says failed: a step that prepares the command ("cd:
    portal: No such file or directory", ".claude/lib/lock.sh: No such file or directory" after
    `source .claude/lib/lock.sh`: the command after it never ran), or a later command of the line
    that the error's lines name as theirs (`cat a.json | jq …` failing with "jq: error: …", `which
    pnpm || npm install -g pnpm` with "npm error code EACCES")."""
    for step in _STEP.finditer(command):
        target = step.group(2).strip("'\"")
        if f"{target}: No such file" in evidence or f"cd: {target}:" in evidence:
            return step.group(1)
    parts = [part for part in _COMMAND_JOIN.split(command) if part.strip()]
    for part in parts[1:]:
        head = command_head(part)
        program = head.split(" ", 1)[0].rsplit("/", 1)[-1]
        if program and program != command_head(parts[0]).split(" ", 1)[0] and \
                re.search(rf"(?m)^(?:[\w./-]+: (?:line \d+: )?)?{re.escape(program)}(?:: | (?:error|ERR!) )", evidence):
            return head
    return None


# A script written with a here-document, `cat > /tmp/check.ts << 'EOF'` (or `cat << EOF > f`):
# writing it is a step; what runs it after the delimiter is the command.
_HEREDOC_FILE = re.compile(r"^cat\s+(?:>\s*(?P<file>\S+)\s+<<-?\s*(?P<q>['\"]?)(?P<end>\w+)(?P=q)"
                           r"|<<-?\s*(?P<q2>['\"]?)(?P<end2>\w+)(?P=q2)\s*>\s*(?P<file2>\S+))")


# PowerShell's here-string piped to what runs it: `@' … '@ | python -`.
_HERE_STRING = re.compile(r"^@(['\"])\s.*?^\1@\s*\|\s*(\S[^\n]*)", re.DOTALL | re.MULTILINE)


def _heredoc_run(command: str) -> str | None:
    """What a line that writes a script with a here-document runs: the command after the
    delimiter (`npx tsx /tmp/check.ts`), else "the script written to `/tmp/check.ts`" (the log
    cut the line before it); what a PowerShell here-string is piped to (`python -`); None when
    the line writes no script so."""
    rest = _SETUP.sub("", _past_comment(command)).strip()
    piped = _HERE_STRING.match(rest) if rest.startswith("@") else None
    if piped:
        return f"`{command_head(piped.group(2))}` given a script on stdin"
    written = _HEREDOC_FILE.match(rest)
    if written is None:
        return None
    end, file = written.group("end") or written.group("end2"), written.group("file") or written.group("file2")
    # The delimiter alone on its line ends the body: a body line that ends in the word ("# read
    # stdin to EOF") does not. A log that joined the lines into one has only spaces around it.
    body = rest[written.end():]
    alone = rf"^[ \t]*{re.escape(end)}[ \t]*" if "\n" in body else rf"(?:^|\s){re.escape(end)}\s*"
    after = re.search(alone + r"(?:&&|;|\n)\s*(\S.*)", body, re.DOTALL | re.MULTILINE)
    return f"`{command_head(after.group(1))}`" if after else f"the script written to `{file}`"


def _short(friction: Friction) -> str:
    """The failed call in a few words: the step that failed or a command's head, else what it
    did."""
    call = friction.call
    if call is not None and call.name in _SHELL_TOOLS and call.target:
        failed = _failed_step(call.target, friction.evidence)
        return f"`{failed}`" if failed else _heredoc_run(call.target) or f"`{command_head(call.target)}`"
    return friction.doing() or "that tool call"


# What Elixir says before its statement: "** (RuntimeError)"; and what follows it that no
# person reads: an Erlang term, a "reason: {{…}}".
_ERROR_PREFIX = re.compile(r"^\*\*\s*\([\w.]+\)\s*")
_ERROR_TAIL = re.compile(r"(?:,\s*reason:|\s*\{\{).*$")


# A table's or a box's rules a program draws around its output ("+-------+", "╭────╮"): no words.
_RULE_RUN = re.compile(r"[-+=_|─━│┃┌┐└┘├┤┬┴┼╭╮╯╰═║╔╗╚╝]{3,}")


def _error_head(evidence: str) -> str:
    """The error's statement: its lines without the bare "Exit code N" Claude Code puts first,
    the rules of a table or box drawn around it, the first one's "** (RuntimeError)" prefix and
    an unreadable term after it."""
    lines = [line for line in (_RULE_RUN.sub(" ", raw).strip() for raw in evidence.splitlines()) if line]
    rest = [line for line in lines if not re.fullmatch(r"(?:Error: )?Exit code \d+", line)]
    rest = rest or lines
    if rest:
        first = _ERROR_TAIL.sub("", _ERROR_PREFIX.sub("", rest[0])).strip()
        rest = [first or rest[0], *rest[1:]]
    return one_line(" ".join(rest), 150)


def _first_line(friction: Friction) -> str:
    doing = friction.doing() or "go on"
    kind = friction.kind
    said = f"“{one_line(friction.reason, 2 * QUOTE_CHARS)}”" if friction.reason else None
    if kind == "correction":
        after = f" after it tried to {doing}" if friction.calls else \
            " as a session began, of the work before it" if friction.extra.get("rule") == "earlier_work" else ""
        return f"Do as the person said{after}: “{one_line(friction.evidence, 2 * QUOTE_CHARS)}”"
    if kind == "plan_rejection":
        return (f"Revise the plan before going on: the person rejected it and said {said}."
                if said else "Do not carry out this plan: the person rejected it (no reason given).")
    if kind == "rejection" and said and _asked_instead(friction.reason or ""):
        return (f"Before you {doing}, answer the person: they rejected it at the permission prompt "
                f"and asked {said}.")
    if kind == "rejection":
        return (f"Do not {doing}: the person rejected it at the permission prompt and said {said}."
                if said else f"The person refused to let the agent {doing} at the permission prompt "
                             f"and typed no reason: ask before you {doing} again, or say first why "
                             "it is needed.")
    if kind == "clarification":
        return f"Before you {doing}, clarify with the person" + (f": {said}." if said else ".")
    if kind == "interruption":
        # Without a call the agent was only talking (a Codex turn aborted mid-reply).
        when = f"as it was about to {doing}" if friction.doing() else "while it was answering"
        return f"The person stopped the agent {when}" + (f" and said {said}." if said else " (no reason typed).")
    if kind == "hook_block":
        return f"Do not {doing}: a hook blocks it with “{one_line(friction.evidence, QUOTE_CHARS)}”."
    if kind == "denial" and _tool_denied(friction):
        return (f"Do not count on `{_tool_denied(friction)}` {_to_whom(friction)}here: Claude Code "
                f"denies every call of it (“{_sentence_of(friction.evidence)}”); use another tool "
                "or ask the person.")
    if kind == "denial":
        return f"Do not {doing}: it is denied here (“{one_line(friction.evidence, QUOTE_CHARS)}”)."
    because = f" ({friction.why})" if friction.why else ""
    told = _told(friction)
    if told and correction_rule(friction.reason or "") not in _NO_WAY_SAID:
        return _told_first(told, _short(friction), _error_head(friction.evidence), _machine_fact(friction))
    fact = _machine_fact(friction)
    if fact:
        return (f"{fact}: {_short(friction)} failed with “{_error_head(friction.evidence)}”"
                f"{because}; do not count on it.")
    return f"Avoid {_short(friction)} as done here: it fails with “{_error_head(friction.evidence)}”{because}."


# Asked to explain rather than a reason: "Explain what swap priority is?", "How to pause this test".
_EXPLAIN = re.compile(r"^(?:explain|how (?:to|do|does|can|would)|what (?:is|are|does|do)|tell me (?:what|how|why))\b",
                      re.IGNORECASE)


def _asked_instead(reason: str) -> bool:
    """Did the person refuse the call to ask a question ("Should we reuse BudgetSyncType?", "刚刚…
    吗？") rather than say what was wrong with it? Then the lesson is to answer first, not never to."""
    first = person_words(reason).split("\n", 1)[0].strip()
    return only_asks(first) or _EXPLAIN.match(first) is not None or first.endswith("？")


def _to_whom(friction: Friction) -> str:
    return "to subagents " if friction.sidechain else ""


def _sentence_of(evidence: str) -> str:
    return evidence.strip().split(". ", 1)[0].rstrip(".") + "."


def _calls_of(group: list[Friction], label: str) -> str:
    """A few of the distinct calls a group of frictions met, and how many more."""
    calls = list(dict.fromkeys(one_line(c.describe(), 200) for f in group for c in f.calls))
    more = f" and {len(calls) - 5} more" if len(calls) > 5 else ""
    return f"{label}: " + "; ".join(calls[:5]) + more


def _content(group: list[Friction], limit_bytes: int) -> str:
    first = group[0]
    lines = [_first_line(first)]
    if _tool_denied(first):
        lines.append(_calls_of(group, "Denied calls"))
    elif _silent_refusal(first) and len(group) > 1:
        lines.append(_calls_of(group, "Refused calls"))
    elif first.calls and first.kind != "correction":
        lines.append("The agent had called: " + "; ".join(one_line(c.describe(), 200)
                                                         for c in first.calls[:5]))
    elif first.calls:
        lines.append(f"The agent had just called: {one_line(first.calls[0].describe(), 200)}")
    plan = first.plan
    if plan:
        lines.append(f"The plan: “{clip(strip_ansi(plan).strip(), QUOTE_CHARS)}”")
    if first.said:
        lines.append(f"The agent had said: “{one_line(first.said, 300)}”")
    if first.kind in ("tool_error", "environment"):
        lines.append(f"Error: “{first.evidence}”")
        if first.reason:
            lines.append(f"The person then said: “{one_line(first.reason, QUOTE_CHARS)}”")
    elif first.kind in ("hook_block", "denial") and len(first.evidence) > QUOTE_CHARS // 2 \
            and not _tool_denied(first):
        lines.append(f"Message: “{first.evidence}”")
    if first.reply:
        lines.append(f"The agent replied: “{one_line(first.reply, 200)}”")
    if len(group) > 1:
        sessions = len({f.session_id for f in group})
        lines.append(_seen_line(len(group), _last(group), sessions))
    text = "\n".join(lines)
    encoded = text.encode("utf-8")
    if len(encoded) <= limit_bytes:
        return text
    return encoded[: limit_bytes - 3].decode("utf-8", "ignore") + "…"


def _seen_line(occurrences: int, last: str | None, sessions: int = 1) -> str:
    where = "in this session" if sessions <= 1 else f"in {sessions} sessions"
    return f"Seen {occurrences} times {where} (last {last or 'unknown'})."


_SEEN_LINE_RE = re.compile(r"\nSeen \d+ times in (?:this session|(\d+) sessions) \(last [^()\n]*\)\.\Z")


def _recounted(content: str, occurrences: int, last: str | None, limit_bytes: int) -> str:
    """`content` saying the new count (of the sessions it named, at least); as it was when it
    had been clipped or would not fit."""
    if content.endswith("…"):
        return content
    seen = _SEEN_LINE_RE.search(content)
    sessions = int(seen.group(1)) if seen and seen.group(1) else 1
    text = _SEEN_LINE_RE.sub("", content) + "\n" + _seen_line(occurrences, last, sessions)
    return text if len(text.encode("utf-8")) <= limit_bytes else content


@dataclass(frozen=True)
class Source:
    """Who the memories come from: the metadata `source`, the agents, the key prefix, the name
    a person reads in an error."""

    name: str  # metadata.source and the tag, e.g. "claude-code"
    agent_id: str
    subagent_id: str
    key_prefix: str  # e.g. "cc"
    label: str  # e.g. "Claude Code"
    # The records a memory names beyond its `record_uuids`, as `record_ids` reads them: in one
    # stored before they were kept (Codex's before 2026-12 named its call id and time), or that
    # it stands for without counting them (the stop of a message the person amended).
    more_ids: Callable[[Mapping[str, Any]], Iterable[str]] | None = None


def _last(group: list[Friction]) -> str | None:
    """The latest time the friction was met (a group gathers sessions in the order read)."""
    return max((f.timestamp for f in group if f.timestamp), default=None)


def _in_project(friction: Friction) -> Friction:
    """The friction with its calls as a lesson names them (`ToolCall.within` its cwd), for the
    title and the text; the metadata keeps what the log says."""
    calls = [call.within(friction.cwd) for call in friction.calls]
    return friction if calls == friction.calls else replace(friction, calls=calls)


def _memory(key: str, group: list[Friction], config: Config, source: Source) -> NewMemory:
    first = group[0]
    shown = [_in_project(f) for f in group]
    call = first.call
    uuids = [u for f in group for u in f.record_uuids]
    metadata: dict[str, Any] = {
        "source": source.name, "kind": first.kind, "session_id": first.session_id,
        "record_uuid": first.record_uuid, "timestamp": first.timestamp,
        "tool": call.name if call else None, "file_path": call.file_path if call else None,
        "cwd": first.cwd, "log": first.log, "occurrences": len(group),
        "record_uuids": list(dict.fromkeys(uuids)), "last_timestamp": _last(group),
        "reason": first.reason, "sidechain": first.sidechain,
    }
    if first.why:
        metadata["why"] = first.why
    metadata.update(first.extra)
    return NewMemory(type=memory_type(first.kind, config, source.label),
                     title=lesson_title(shown[0], config.stm.max_title_chars),
                     content=_content(shown, config.stm.max_content_bytes),
                     agent_id=source.subagent_id if first.sidechain else source.agent_id,
                     tags=(source.name, first.kind), metadata=metadata, idempotency_key=key)


# The calls whose content the person reads at the prompt: a file's new text, a subagent's brief.
# Refused without a word, they objected to that content, which says nothing of the next one (a
# command refused so is a rule: ask before running it).
_EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit", "apply_patch", "Task",
                         "Agent"})


# A reason that says no more than the refusal: "Cancel", "no", "继续操作" (go on).
_SAYS_NOTHING = re.compile(r"^(?:cancel(?:led)?|skip|stop|no(?:pe)?|n|don'?t|never ?mind|not (?:now|yet)|"
                           r"wait|hold on|one (?:moment|sec(?:ond)?)|i have a question(?: (?:here|first))?|"
                           r"取消|不要|不用|不|继续操作|继续执行)[\s.!。！]*$", re.IGNORECASE)


def says_nothing(reason: str | None) -> bool:
    """Is a typed reason no reason: empty, a bare refusal or "go on" (`_SAYS_NOTHING`)?"""
    text = (reason or "").strip()
    return not text or _SAYS_NOTHING.match(text) is not None or just_continues(text)


def _unexplained(friction: Friction) -> bool:
    """An edit or a plan refused, or a question the person wanted to talk over, with no word
    from them: what they objected to is not said, so no rule can be made of one."""
    if friction.kind == "plan_rejection" and not (friction.reason or "").strip():
        return True
    if not says_nothing(friction.reason):
        return False
    return friction.kind == "clarification" or (friction.kind == "rejection" and bool(
        friction.calls) and all(c.name in _EDIT_TOOLS for c in friction.calls))


def _refused(friction: Friction) -> str:
    """Which calls are 'the same call refused': the tool and a command's head or the target."""
    return " | ".join(f"{c.name} {command_head(c.target or '') if c.name in _SHELL_TOOLS else c.target}"
                      for c in friction.calls)


# A hook script the agent ran itself (`echo '{"tool_input": …}' | python .claude/hooks/guard.py`):
# its "blocked" is the output it was testing, not a hook stopping the agent.
# Either shows on the line, which the log may have cut: the script's path, or the payload a hook
# reads on stdin (`{"tool_name": …, "tool_input": …}`) fed to it.
_HOOK_SCRIPT = re.compile(r"(?:^|[\s/'\"=])\.?(?:claude[/\\]|git[/\\]|codex[/\\])?hooks[/\\][\w.-]+"
                          r"|\{\s*\\?\"tool_(?:name|input)\\?\"\s*:")


def _ran_a_hook(friction: Friction) -> bool:
    return friction.kind == "hook_block" and any(
        c.name in _SHELL_TOOLS and c.target and _HOOK_SCRIPT.search(c.target) for c in friction.calls)


def worth_storing(frictions: Sequence[Friction]) -> list[Friction]:
    """The frictions that make a lesson: an edit or a subagent's brief refused without a word (or
    with one that says nothing: "Cancel") only when the person refused the same again (in the session
    or another one: then not editing it unasked is the rule); a plan refused without a word, a
    question the person wanted to talk over instead with nothing typed or answered with the next
    step only (`_only_answers`), or a hook script's
    "blocked" when the agent ran the script itself, never (the plan or the agent's question is
    all there is; the hook said what it was being tested for)."""
    refusals: dict[str, int] = {}
    for friction in frictions:
        if friction.kind == "rejection" and friction.reason and says_nothing(friction.reason):
            friction.reason = None  # "Cancel" typed: refused, and no word said why
        if friction.kind == "rejection" and _unexplained(friction):
            refusals[_refused(friction)] = refusals.get(_refused(friction), 0) + 1
    return [f for f in frictions if not _ran_a_hook(f) and not _only_answers(f) and (not _unexplained(f) or (
        f.kind == "rejection" and refusals[_refused(f)] >= 2))]


# What makes an answer to the agent's question a rule, not only the next step: a limit or a way
# of the project ("we have no Redis in production", "the tests use sqlite, never postgres").
_CONSTRAINT = re.compile(r"\b(?:no|not|never|always|only|don'?t|do not|doesn'?t|isn'?t|aren'?t|can'?t|cannot|"
                         r"won'?t|shouldn'?t|must|instead|rather|we (?:have|use|keep|run|deploy)|ne|n'|pas|jamais|"
                         r"toujours|seulement|nunca|siempre|nicht|kein\w*|nie)\b|[不别没]"
                         # a way the person wants things ("use pnpm", "ask me in Chinese", "prefer …",
                         # "用中文来问我", "中文交互", "请始终…", "日本語で")
                         r"|\b(?:use|using|prefer\w*|ask me|answer me|talk to me|"
                         r"(?:in|en) (?:english|chinese|french|german|spanish|japanese|korean|russian|"
                         r"portuguese|italian|anglais|français|chinois|español|inglés)|utilise\w*|usa|use[mn]?|"
                         r"benutze\w*|verwende\w*|préfère\w*|prefiero)\b"
                         r"|用(?!户)|中文|英文|汉语|交互|总是|始终|一直|必须|只能|仅|优先|务必|日本語で|常に|必ず|使って|"
                         r"항상|사용|으로 (?:질문|대답)", re.IGNORECASE)


def _only_answers(friction: Friction) -> bool:
    """A question of the agent's the person answered with the next step only ("What would you
    like to install?" → "git submodule add …", "Make the new symlink in ~/code/"): asking was
    right, and the answer is no rule. An answer stating a limit or a way of the project, a way
    the person wants things done ("use pnpm", "中文交互，用中文来问我": ask me in Chinese), asking
    back ("Which database: do we need Postgres at all?") or correcting the agent is one."""
    reason = friction.reason or ""
    return friction.kind == "clarification" and bool(reason.strip()) and "?" not in reason and \
        "？" not in reason and _CONSTRAINT.search(reason) is None and correction_rule(reason) is None


def build_memories(frictions: Iterable[Friction], config: Config, source: Source) -> list[NewMemory]:
    """One validated, redacted memory per distinct friction worth a lesson (`worth_storing`),
    counting its repeats."""
    groups: dict[str, list[Friction]] = {}
    for friction in worth_storing(list(frictions)):
        groups.setdefault(friction_key(friction, source.key_prefix), []).append(friction)
    return [prepare(_memory(key, group, config, source), config) for key, group in groups.items()]


def record_ids(metadata: Mapping[str, Any], source: Source) -> list[str]:
    """The records (calls, turns, log records) a memory was made from, its counted ones first."""
    ids = [u for u in metadata.get("record_uuids") or () if isinstance(u, str)]
    first = metadata.get("record_uuid")
    ids += [first] if isinstance(first, str) else []
    ids += source.more_ids(metadata) if source.more_ids is not None else []
    return list(dict.fromkeys(ids))


@dataclass
class Submitted:
    inserted: int = 0
    duplicates: int = 0  # stored already: under its key, or made of records a stored one names
    recounted: int = 0  # of those, still pending, their occurrence count raised
    met: dict[str, NewMemory] = field(default_factory=dict, repr=False)  # stored id → what met it now


def submit_lessons(store: STMStore, memories: Sequence[NewMemory], limit_bytes: int,
                   source: Source, *, now: datetime) -> Submitted:
    """Store the import's memories, each lesson once; one met again counts its new occurrences.

    Stored already means under its idempotency key, or made of a record (a call, a turn) that a
    stored memory of the source was made of, whatever key an earlier version gave that memory:
    keys change when what makes two frictions one lesson changes (Codex's failures, once one per
    session, are one per import), the records a lesson came from do not. The source's memories
    are read once into an index by key and by record, so this stays linear in what is stored.
    """
    if not memories:
        return Submitted()
    by_key: dict[str, str] = {}
    by_record: dict[str, str] = {}
    pending: set[str] = set()
    for memory_id, key, metadata, waiting in _stored_rows(store, source):
        if key:
            by_key[key] = memory_id
        for record in record_ids(metadata, source):
            by_record.setdefault(record, memory_id)
        if waiting:
            pending.add(memory_id)
    fresh: list[NewMemory] = []
    met: dict[str, NewMemory] = {}
    pairs: list[tuple[str, NewMemory]] = []
    for memory in memories:
        held = by_key.get(memory.idempotency_key or "") or next(
            (by_record[u] for u in record_ids(memory.metadata, source) if u in by_record), None)
        if held is None:
            fresh.append(memory)
        else:
            met.setdefault(held, memory)
            pairs.append((held, memory))
    result = store.submit_many(fresh, now=now) if fresh else None
    # Only the pending memories with an occurrence no stored memory names are read whole.
    counting = [(held, memory) for held, memory in pairs if held in pending and any(
        u not in by_record for u in memory.metadata.get("record_uuids") or ())]
    found = {m.id: m for m in store.get_many(list(dict.fromkeys(h for h, _ in counting)))}
    recounted = _recount(store, [(found[h], m) for h, m in counting if h in found], by_record,
                         limit_bytes, source)
    inserted = result.inserted if result else 0
    return Submitted(inserted, len(memories) - inserted, recounted, met)


def _stored_rows(store: STMStore, source: Source) -> list[tuple[str, str | None, dict[str, Any], bool]]:
    """(id, key, metadata, pending) of every memory the source stored, in any state."""
    agents = list(dict.fromkeys((source.agent_id, source.subagent_id)))
    return [row for row in store.metadata_of_agents(agents) if row[2].get("source") == source.name]


def _recount(store: STMStore, pairs: Sequence[tuple[Memory, NewMemory]], known: dict[str, str],
             limit_bytes: int, source: Source) -> int:
    """Add to each stored pending memory the records of its new one that no stored memory names
    yet (`known`, by record, besides its own): each occurrence is counted once, in one memory."""
    revised: dict[str, tuple[Memory, dict[str, Any]]] = {}
    for stored, new in pairs:
        # One stored before record ids were kept cannot tell which occurrences it counted.
        if stored.metadata.get("source") != source.name or \
                not isinstance(stored.metadata.get("record_uuids"), list):
            continue
        metadata = revised[stored.id][1] if stored.id in revised else dict(stored.metadata)
        counted = list(metadata.get("record_uuids") or ())
        own = set(counted)
        fresh = [u for u in dict.fromkeys(new.metadata.get("record_uuids") or ())
                 if u not in own and u not in known]
        if not fresh:
            continue
        for record in fresh:
            known[record] = stored.id
        metadata.update(occurrences=frontmatter_int(metadata.get("occurrences"), default=1) + len(fresh),
                        record_uuids=counted + fresh,
                        last_timestamp=max(filter(None, (metadata.get("last_timestamp"),
                                                         new.metadata.get("last_timestamp"))),
                                           default=None))
        revised[stored.id] = (stored, metadata)
    revisions = [(stored.id, _recounted(stored.content, frontmatter_int(metadata["occurrences"],
                                                                        default=1),
                                        metadata.get("last_timestamp"), limit_bytes), metadata)
                 for stored, metadata in revised.values()]
    return store.revise_pending(revisions) if revisions else 0


def instruct_pending(store: STMStore, instruction: Callable[[str, Mapping[str, Any]], str | None],
                     config: Config, source: Source) -> int:
    """Give the source's pending failures the person's instruction about them that an import
    found after storing them ("don't bother running mix precommit as it isn't working yet"):
    its words lead the title, as they would have had they come first, and the content quotes
    them; how many were revised. `instruction` gives the person's sentence for a memory (by its
    id and metadata), or None.

    Only a failure stored without a word from the person is revised (a pending memory has no
    other editor: people edit a dream's proposals, not its input); one a dream claimed or
    consumed is left as it is.
    """
    said: dict[str, str] = {}
    for memory_id, _, meta, waiting in _stored_rows(store, source):
        if waiting and not meta.get("reason") and meta.get("kind") in ("tool_error", "environment"):
            words = instruction(memory_id, meta)
            if words and not pasted_log(words):
                said[memory_id] = words
    revisions: list[tuple[str, str, dict[str, Any]]] = []
    titles: dict[str, str] = {}
    for stored in store.get_many(list(said)):
        words = said[stored.id]
        told = _instruction(_sentence(words, config.stm.max_title_chars), "")
        if told is None:
            continue
        title = _instructed(stored.title, told)
        heard = f"The person then said: “{one_line(words, QUOTE_CHARS)}”"
        seen = _SEEN_LINE_RE.search(stored.content)
        content = (stored.content[:seen.start()] + "\n" + heard + stored.content[seen.start():]
                   if seen else f"{stored.content}\n{heard}")
        first, newline, rest = content.partition("\n")
        failure = _FAILURE_FIRST.match(first)
        if failure and correction_rule(words) not in _NO_WAY_SAID:
            full = _instruction(words, "") or told
            content = _told_first(full, failure.group("avoid") or failure.group("fact"), failure.group("head"),
                                  failure.group("known")) + newline + rest
        if stored.content.endswith("…") or len(content.encode("utf-8")) > config.stm.max_content_bytes:
            content = stored.content  # clipped or full: the title says it
        revised = prepare(NewMemory(type=stored.type, title=one_line(title, config.stm.max_title_chars),
                                    content=content, agent_id=stored.agent_id, tags=stored.tags,
                                    metadata={**stored.metadata, "reason": words}), config)
        revisions.append((stored.id, revised.content, revised.metadata))
        titles[stored.id] = revised.title
    return store.revise_pending(revisions, titles=titles) if revisions else 0


# -- which tool errors are worth a lesson (any agent's: the texts are the shell's and the OS's) --

# bash's "command not found" in the languages of its translations (zh_CN, de, fr, es, ru, ja, pt,
# it). Searched on its own, case-sensitive: a letter outside ASCII folds no case for `fastsearch`,
# and `re` skips to the first letters of the phrases by itself.
_NOT_FOUND_LOCALISED = (r"未找到命令|找不到命令|Befehl nicht gefunden|commande introuvable|orden no encontrada|"
                        r"no se encontró la orden|команда не найдена|コマンドが見つかりません|comando não encontrado|"
                        r"comando non trovato")
_LOCALISED_NOT_FOUND = re.compile(_NOT_FOUND_LOCALISED)
# An environment fact: the command or tool is missing or forbidden here, whatever the agent tries.
_ENVIRONMENT = re.compile(
    r"command not found|"
    r"inaccessible or not found|is not recognized as an internal "
    r"or external command|No module named|ModuleNotFoundError|Cannot find module|"
    r"No space left on device|Read-only file system|Operation not permitted|"
    r"must be run as root|requires root|permission denied: \S|EACCES|"
    r"not installed|no such command|unknown command|Unknown command|Failed to spawn: `|"
    r"is beyond a symbolic link|\bEPERM\b|is not recognized as the name of a cmdlet|"
    # The sandbox refusing, not the word itself: a command line often names a sandbox mode
    # (`-c sandbox_mode=workspace-write`), and a time-out inside it is the agent's own limit.
    r"\bsandbox(?:ed)?\b[^\n]{0,60}?\b(?:denie[sd]|deny|block(?:s|ed)|forbid(?:s|den)|not (?:allowed|"
    r"permitted))|(?:denied|blocked|not (?:allowed|permitted)) (?:by|in(?:side)?) (?:the )?sandbox|"
    r"\.git[/\\][^'\"\s]*\.lock'?: Permission denied|"
    r"(?:System error|Error de sistema|Erreur système|Systemfehler|Errore di sistema) 5\b|^Access is denied\.|"
    r"sudo: (?:a terminal is required|a password is required)|Permission denied \(publickey|"
    r"gh auth login|Failed to log in to github\.com|Cannot connect to the Docker daemon|"
    r"externally-managed-environment|no matches found: |\.exe: \*\*\* fatal error",
    re.IGNORECASE | re.MULTILINE)
# Routine exploration and the tools' own guards: the agent learns nothing lasting from them.
_ROUTINE = re.compile(
    r"^(?:Error: )?(?:File does not exist|File has not been read yet|File has been modified since "
    r"read|String to replace not found|(?:apply_patch verification failed: )?Failed to find expected "
    r"lines|[\w-]+ : Cannot find path '[^']*' because\s+it\s+does\s+not\s+exist|"
    r"[\w.-]+: (?:can't read|cannot access|cannot open) [^\n]*: No such file or directory\s*$|"
    r"Found \d+ matches of the string|Sibling tool call errored|File content \(|EISDIR|"
    r"InputValidationError|<tool_use_error>|Interrupted by user|No files found|"
    r"Path does not exist|Directory does not exist|The file .* does not exist|"
    r"Cancelled|Request failed with status code|timeout of \d+ms exceeded|"
    r"\S+ is temporarily unavailable|"
    # a background task's output asked for after it was gone; a browser tool's element reference
    # from a page snapshot the page has since left behind
    r"No task found with ID|Ref \S+ not found in the current page snapshot|"
    # a tool name the agent mistyped ("Gash"); an MCP server's tool missing is a fact of the setup
    r"No such tool available: (?!mcp__)|"
    # Claude Code's own limits, the same in every project: a binary file (.xlsx, .docx, an image)
    # handed to Read, which the agent then opens another way; a read outside the project asked for
    # in a session where no one could grant it (a plugin's observer, `claude -p`)
    r"This tool cannot read binary files|Claude requested permissions to [^\n]*?, but you haven't granted it)",
    re.IGNORECASE)
_EXIT_ONLY = re.compile(r"^(?:Error: )?Exit code \d+\s*$")
_ERROR_LINE = re.compile(r"error|fatal|fail|denied|not found|not recognized|no such|cannot|can't|unable|"
                         r"could(?:n't| not)|invalid|refused|exception|traceback|forbidden|missing|blocked|"
                         r"错误|失败",
                         re.IGNORECASE)


_WORD = re.compile(r"[A-Za-z_][\w.-]{3,}|[\u4e00-\u9fff]{2,}")
_COMMON = frozenset({"that", "this", "with", "from", "have", "file", "error", "does", "what",
                     "please", "there", "then", "when", "should", "would", "could", "just"})


_COMMENT_CHARS = 400  # a comment on what just failed is a line or two


def names_failure(text: str, target: str | None, evidence: str, *, went_by: str | None = None) -> bool:
    """Does a typed turn name something of a failed call or its error (a command, a file)? A
    turn that does not ("continue", "Hello?", the next task) is not a comment on it, and neither
    is a long prompt, which names the project's folders because it sets out the next task.

    `went_by`: the error the call went by, when `evidence` leaves it out (a routine miss, whose
    words name what any turn says): a premise set right against it still answers the call."""
    if len(text) > _COMMENT_CHARS:
        return False
    if tool_guard(evidence):
        # What follows a tool's guard, and a patch's or a script's text on the command line, is
        # the agent's own writing, which shares words with any turn on the subject; the command
        # and what the guard names ("Failed to find expected lines in docs/a.md:") are the call.
        target, evidence = command_head(target or ""), evidence.strip().split("\n", 1)[0]
    if corrects_premise(text, f"{target or ''}\n{evidence if went_by is None else went_by}"):
        return True  # "The API runs on port 8040, not 8080" after a call that went by 8080
    named = f"{target or ''} {evidence}".lower()
    words = {w.lower() for w in _WORD.findall(text)} - _COMMON
    return any(w in named for w in words)


_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def is_windows_path(text: str) -> bool:
    return _WINDOWS.match(text) is not None


@functools.lru_cache(maxsize=1024)  # asked for every log of every import: few distinct cwds
def path_inside(cwd: str, project: str) -> bool:
    """Is a log's `cwd` the project folder or inside it? By path components, so `/code/app`
    never takes `/code/app2`; a Windows path (`C:\\Users\\…`, as the agents write it there)
    compares without case, whichever slashes and drive-letter case each side uses."""
    if is_windows_path(cwd) or is_windows_path(project):
        here, root = PureWindowsPath(cwd.lower()), PureWindowsPath(project.lower())
        return here == root or root in here.parents
    posix_here, posix_root = PurePosixPath(cwd), PurePosixPath(project)
    return posix_here == posix_root or posix_root in posix_here.parents


# What ends a path in a text: a space, a quote, a bracket, punctuation after it.
_PATH_ENDS = " \t\n'\"`):,;"
# The character before a path that starts it: the text's start, a space, a quote, `=`, `(`.
_PATH_START = r"(?:(?<=^)|(?<=[\s'\"`=(:,]))"


@functools.lru_cache(maxsize=1024)  # a session has one cwd: its pattern made once
def _root_pattern(root: str) -> re.Pattern[str] | None:
    """What finds `root` at the start of a path in a text: the folder followed by a separator
    (taken with it) or ending the path (then it is `.`). None for a root that is no project
    (`/`, a drive)."""
    windows = is_windows_path(root)
    parts = [part for part in re.split(r"[\\/]" if windows else "/", root) if part]
    if len(parts) < (2 if windows else 1):
        return None
    sep = r"[\\/]" if windows else "/"
    head = ("" if windows else "/") + sep.join(map(re.escape, parts))
    return re.compile(_PATH_START + head + rf"(?:{sep}+|(?=$|[\s'\"`):,;]))", re.IGNORECASE if windows else 0)


def project_relative(text: str, root: str) -> str:
    """`text` with every path inside the project folder `root` written from it
    (`/home/me/app/src/x.py` → `src/x.py`, the folder itself `.`); other paths as they are."""
    pattern = _root_pattern(root.rstrip("/\\") or root)
    if pattern is None:
        return text
    def written(found: re.Match[str]) -> str:
        # a path under the folder loses it with its separator; the folder itself (`ls -la ~/app/`) is `.`
        rest = found.string[found.end():found.end() + 1]
        return "" if found.group(0)[-1:] in "/\\" and rest and rest not in _PATH_ENDS else "."
    return pattern.sub(written, text)


def resolve_project(text: str) -> str:
    """A project folder as a person names it: `~` expanded and made absolute — except a Windows
    path, which names logs written on Windows and has no meaning as a path on this machine."""
    if is_windows_path(text):
        return text
    return str(Path(os.path.expanduser(text)).resolve())


# "bash: line 1: pnpm: not found", "sh: 1: uv: not found"; not a banner's "Registry: Not found".
# Looked for only when the words are there: anchored at every line it is the costly part.
_SHELL_NOT_FOUND = re.compile(r"(?m)^(?:[\w./-]+: )?(?:line \d+: |\d+: )?[\w./+-]+: not found\s*$")


# (Not an option: "--jq: command not found" is a line the shell split, at an unquoted `&` in a URL,
# never a program missing.)
# The name stands at the line's start or after a space ("bash: line 1: jq: command not found"):
# glued to a colon it is a tag or a port of what was not found ("…/realtime:v2.31.4: not found",
# an image's manifest), never a program.
_MISSING_COMMAND = re.compile(
    r"(?:^|\s)([\w.+][\w.+-]*): (?:command )?not found\s*$"
    r"|(?:^|\s)([\w.+][\w.+-]*) ?: (?:" + _NOT_FOUND_LOCALISED + r")\s*$"  # French: "rg : commande introuvable"
    r"|(?:^|[\s:])command not found: ([\w.+][\w.+-]*)"  # zsh: "zsh:1: …", "(eval):1: …"
    r"|Failed to spawn: `([\w.+-]+)`\s+Caused by: No such file or directory"  # uv run
    r"|\(([\w.+-]+):String\) \[[\w-]*\], CommandNotFoundException"
    r"|'([\w.+-]+)' is not recognized as an internal or external command"
    r"|The term '([\w.+-]+)' is not recognized", re.MULTILINE)
# zsh's `nomatch`: "(eval):1: no matches found: /Users/me/Downloads/*.jpg", "zsh:1: no matches found: …"
_ZSH_NOMATCH = re.compile(r"(?m)^(?:\(eval\)|zsh|[\w./-]*zsh):\d+: no matches found: (\S+)")
_MISSING_MODULE = re.compile(r"No module named '?([\w.]+)'?|Cannot find module '([^']+)'")
_CRLF = "$'\\r': command not found"
_GIT_LOCK_DENIED = re.compile(r"\.git[/\\][^'\"\s]*\.lock'?: Permission denied", re.IGNORECASE)
_NO_NETWORK = re.compile(r"Could not resolve host|Temporary failure in name resolution|"
                         r"getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|Name or service not known", re.IGNORECASE)
# Windows refusing a call that needs an administrator, in any of its languages.
_WINDOWS_DENIED = re.compile(r"(?:System error|Error de sistema|Erreur système|Systemfehler|Errore di sistema) "
                             r"5\b|^Access is denied\.", re.MULTILINE)
_SOCKET_DENIED = re.compile(r"\b(?:socket|listen|bind|connect)\b[^\n]{0,120}\beperm\b", re.IGNORECASE)


# What the machine lacks that the person sets up, not the agent: a password for sudo, a login, a
# key, a running daemon, a Python that pip may install into. The agent cannot get past it alone.
_SETUP_FACTS = (
    (re.compile(r"sudo: (?:a terminal is required to read the password|a password is required)"),
     "sudo-password", "`sudo` asks for a password here, which the agent cannot type: ask the person "
                      "to run it"),
    (re.compile(r"Permission denied \(publickey"),
     "ssh-key", "there is no SSH key for the remote here (Permission denied (publickey))"),
    (re.compile(r"gh auth login|You are not logged into any GitHub hosts|Failed to log in to "
                r"github\.com|token in keyring is invalid"),
     "gh-auth", "`gh` is not logged in here (gh auth login)"),
    (re.compile(r"Cannot connect to the Docker daemon|docker daemon is not running|"
                r"error during connect: [^\n]*docker", re.IGNORECASE),
     "docker-daemon", "the Docker daemon is not running here"),
    (re.compile(r"externally-managed-environment"),
     "pip-managed", "the system Python is externally managed: pip installs only into a virtual "
                    "environment (python -m venv, uv)"),
)


# Lines that hold the words of a fact of the machine but state none (`_of_the_machine`):
# - a compiler's or test runner's diagnostic of the code: "src/a.ts(3,8): error TS2307: Cannot
#   find module './b'" (an import the agent is writing), jest's "Cannot find module '../x' from
#   'y.test.ts'";
# - a module named by its path ("Cannot find module './dist/index.js'", '@/lib/queue', a source
#   file) or a submodule of a package that loaded ("No module named 'app.services'": the code's
#   layout, not an installation), unless the package is a namespace that distributions share
#   (`_NAMESPACE_ROOTS`: 'google.protobuf' is named so when another google-* distribution is
#   installed and protobuf is not, an installation missing);
# - a program the shell did not find whose name is a here-document's delimiter or a variable's
#   ("EOF: command not found": the agent's quoting), or a utility every system has ("ls: command
#   not found" after the line set PATH: the agent's PATH, not a program missing), in any of bash's
#   languages ("ls: 未找到命令"); the name's space is `[ \t]`, never a line break, or a match would
#   start on the line before and the line itself be passed over as already left out; a name that
#   starts with a dot (".Name: command not found": what is left of PowerShell's `$excel.Name` once
#   bash expanded `$excel` to nothing, the agent's quoting);
# - what a shell's start-up script printed before the command ran (Homebrew's "…/shellenv.sh:
#   line 18: /bin/ps: Operation not permitted" in a sandbox, whichever command followed).
_CORE_UTILITIES = r"(?:ls|cat|cp|mv|rm|mkdir|chmod|touch|head|tail|sed|grep|sort|uniq|wc|cut|tr|dirname|basename|env|" \
                  r"sh|sleep|date|pwd|tee|xargs|find|awk|uname|id|test|echo|printf|readlink)"
_NAMESPACE_ROOTS = (r"(?:google|azure|ruamel|backports|jaraco|zope|sphinxcontrib|opentelemetry|mpl_toolkits|"
                    r"llama_index|airflow\.providers)\.")
_NOT_MACHINE = tuple((screen(part), part) for part in map(functools.partial(re.compile, flags=re.MULTILINE), (
    r"\berror TS\d{4}:",
    r"Cannot find (?:module|package) '(?:\.{1,2}/|/|@/|~/|[^'\n]*\.(?:[cm]?[jt]sx?|json|vue|svelte)')",
    r"Cannot find module '[^'\n]+' from '",
    r"No module named '?(?!" + _NAMESPACE_ROOTS + r")\w+\.[\w.]+",
    r"(?:^|[ \t])(?:[A-Z][A-Z\d_]+|" + _CORE_UTILITIES + r") ?: (?:command not found|" + _NOT_FOUND_LOCALISED + r")",
    r"(?:command not found|" + _NOT_FOUND_LOCALISED + r"): (?:[A-Z][A-Z\d_]+|" + _CORE_UTILITIES + r")\s*$",
    r"(?:^|[ \t])\.[A-Za-z][\w.]*: command not found",
    r"[/\\](?:shellenv\.sh|\.?(?:bash_profile|bashrc|zshrc|zshenv|zprofile|profile))(?:: line \d+)?: ")))


def _of_the_machine(text: str) -> str:
    """The text without the lines that state no fact of the machine (`_NOT_MACHINE`; each rule
    searched only where its words are)."""
    spans = sorted((text.rfind("\n", 0, found.start()) + 1, found.end())
                   for could, part in _NOT_MACHINE if could(text) for found in part.finditer(text))
    if not spans:
        return text
    kept, start = [], 0
    for line, found_end in spans:
        if line < start:
            continue  # a second one on a line already left out
        end = text.find("\n", found_end)
        kept.append(text[start:line])
        start = len(text) if end < 0 else end + 1
    return "".join(kept) + text[start:]


# The MSYS or Cygwin runtime of a Windows shell dying as it starts ("0 [main] bash (29268) C:\Program
# Files\Git\usr\bin\bash.exe: *** fatal error - add_item (…) failed, errno 1"): no command ran.
_RUNTIME_CRASH = re.compile(r"(?:^|[\\/\s])([\w.+-]+)\.exe: \*\*\* fatal error\b", re.MULTILINE)


def environment_subject(text: str) -> tuple[str, str] | None:
    """The fact of the machine a failure states, as (what makes two failures the same fact, the
    fact in words): a command or module missing here, scripts with Windows line endings, the
    shell itself crashing; None when the failure states none of these."""
    text = _of_the_machine(text)
    crashed = _RUNTIME_CRASH.search(text) if "fatal error" in text else None
    if crashed:
        return (f"runtime-crash:{crashed.group(1)}",
                f"`{crashed.group(1)}` itself crashes here as it starts (“{crashed.group(1)}.exe: *** fatal "
                "error”, the MSYS runtime), before the command runs: the command is not at fault")
    if _CRLF in text:
        return ("crlf", "Shell scripts here have Windows line endings "
                        "($'\\r': command not found): convert them to LF before running them")
    if _GIT_LOCK_DENIED.search(text):
        return ("git-lock", "git cannot write in .git (permission denied on its lock files)")
    if _NO_NETWORK.search(text):
        return ("network", "there is no network access (host names do not resolve)")
    if _WINDOWS_DENIED.search(text):
        return ("windows-denied", "Windows denies access here (System error 5): it needs an "
                                  "administrator's shell")
    if _SOCKET_DENIED.search(text):
        return ("socket", "the sandbox blocks network sockets (EPERM)")
    for pattern, key, statement in _SETUP_FACTS:
        if pattern.search(text):
            return (key, statement)
    nomatch = _ZSH_NOMATCH.search(text)
    if nomatch:
        return ("zsh-nomatch", f"The shell here is zsh: a glob that matches nothing (`{nomatch.group(1)}`) fails the "
                               "whole command; quote it, or list the folder first")
    missing = _MISSING_COMMAND.search(text)
    if missing:
        name = next(g for g in missing.groups() if g)
        return (f"command:{name}", f"`{name}` is not installed here")
    module = _MISSING_MODULE.search(text)
    if module:
        name = next(g for g in module.groups() if g)
        return (f"module:{name}", f"The module `{name}` is not installed here")
    return None


# "--jq: command not found": the shell ran an option as a command (an unquoted `&` split the line).
_OPTION_NOT_FOUND = re.compile(r"(?m)(?:^|[\s:])-[\w.+-]*: (?:command )?not found\s*$|command not found: -\S*")


def environment_fact(text: str) -> bool:
    if "not found" in text and _OPTION_NOT_FOUND.search(text):
        text = _OPTION_NOT_FOUND.sub("", text)  # a line the shell split states nothing of the machine
    if not _states_fact(text):
        return False  # nearly every failure: the lines are looked at only when it may state one
    kept = _of_the_machine(text)
    return kept is text or _states_fact(kept)


def _states_fact(text: str) -> bool:
    return _find_environment(text) or (
        ": not found" in text and _SHELL_NOT_FOUND.search(text) is not None) or (
        _LOCALISED_NOT_FOUND.search(text) is not None and _MISSING_COMMAND.search(text) is not None)


# The agent's own slip in code it just wrote: a bug of its script or its shell quoting, which it
# fixes by writing it again; nothing lasting about the project or the machine.
_SLIP = re.compile(r"\b(?:AttributeError|NameError|TypeError|KeyError|IndexError|SyntaxError|FileNotFoundError|"
                   r"IndentationError|UnboundLocalError|UndefinedColumnError|UndefinedTableError|JSONDecodeError)\b"
                   r"|has no attribute '|syntax error near unexpected token|is already in use by container|"
                   r"unexpected EOF while looking for matching"
                   # a jq program or a YAML file the agent wrote that does not parse
                   r"|^jq: error: syntax error|^jq: \d+ compile errors?|^yaml: line \d+: "
                   r"|yaml\.(?:scanner|parser)\.\w+Error"
                   # a patch the agent wrote in the wrong format, which it writes again
                   r"|invalid patch: |invalid hunk at line \d+|Invalid patch hunk on line \d+"
                   # a flag the command does not take, which its --help puts right
                   r"|unexpected argument '|unrecognized arguments?: |[Uu]nknown (?:option|flag)[: ]|"
                   r"error: Found argument '"
                   # the compiler or linter on code the agent is writing: its work in progress
                   r"|\berror TS\d{4}:|\berror\[E\d{4}\]|error: could not compile `|"
                   r"\b\d+ problems? \(\d+ errors?|^Found \d+ errors? in \d+ files?|"
                   r"\bis not assignable to (?:type|parameter)\b|cannot find symbol\b"
                   # a linter's finding at a line and column ("81:6  Warning: React Hook …")
                   r"|^\s*\d+:\d+\s+(?:[Ee]rror|[Ww]arning)\b"
                   # an import the agent wrote by a path that is not there (`_NOT_MACHINE`)
                   r"|Cannot find module '(?:\.{1,2}/|/|@/)"
                   # a name imported from the project's own module (not an installed package's,
                   # where it is a version's change): the agent's code
                   r"|cannot import name '[^'\n]+' from '[^'\n]+' \((?![^)\n]*(?:site|dist)-packages)[^)\n]*\)"
                   # SQL the agent wrote: its syntax, or a table or column its schema does not have
                   r"|\bERROR:\s+(?:syntax error at (?:or near|end of input)|(?:column|relation) \"[^\"\n]*\""
                   r"(?: of relation \"[^\"\n]*\")? does not exist)|\bnear \"[^\"\n]*\": syntax error"
                   r"|You have an error in your SQL syntax", re.MULTILINE)


# A compiler's diagnostic that states how the project is set up, not a slip in the code: TypeScript's
# "Relative import paths need explicit file extensions … when '--moduleResolution' is 'node16'"
# (TS2835), a tsconfig error (TS5xxx, TS17004 "Cannot use JSX unless the '--jsx' flag is provided").
# Only when every diagnostic is one: among the code's own errors it is the work in progress too.
_PROJECT_SETTING = re.compile(r"\berror TS(?:2835|2792|5\d{3}|17004|1343|1378):")
_TS_DIAGNOSTIC = re.compile(r"\berror TS\d+:")


def _project_setting(text: str) -> bool:
    if "error TS" not in text:
        return False
    settings = len(_PROJECT_SETTING.findall(text))
    return settings > 0 and settings == len(_TS_DIAGNOSTIC.findall(text))


# Commands whose exit status 1 means "nothing matched" or "they differ", not a failure.
_STATUS_ONE_OK = frozenset({"rg", "grep", "egrep", "fgrep", "ag", "ack", "diff", "cmp", "test", "["})
# Matched lines may hold the word "error" (`CodexConfigError`); only the tool's own complaint
# ("rg: foo: No such file or directory", "grep: invalid option") makes status 1 a failure.
_TOOL_COMPLAINT = re.compile(r"(?m)^(?:rg|grep|egrep|fgrep|ag|ack|diff|cmp|test|git|error)(?:\.exe)?: ")


_PIPED_SEARCH = re.compile(r"\|\s*(?:Select-String|findstr|grep|rg)\b", re.IGNORECASE)  # `… | Select-String x`


def no_match(command: str, text: str) -> bool:
    """A command that exited with status 1: a search that found nothing or a diff that found
    differences, unless the tool complained? (The caller checks the status.)"""
    words = _SETUP.sub("", command).split(None, 1) or [""]
    head = words[0].rsplit("/", 1)[-1]
    search = head in _STATUS_ONE_OK or command.lstrip().startswith("git grep") or \
        _PIPED_SEARCH.search(command) is not None
    return search and _TOOL_COMPLAINT.search(text) is None


# A search or a read that named paths which are not there: "rg: deps/x.ex: No such file or
# directory (os error 2)" among its matches is the agent guessing a layout while exploring.
_MISSING_PATH_LINE = re.compile(r"^(?:rg|grep|ls|cat|sed|head|tail|wc|find|stat)(?:\.exe)?: .*(?:No such "
                                r"file or directory|cannot find the (?:file|path) specified|Not a directory)"
                                r"|^[\w-]+ : Cannot find path '", re.IGNORECASE)
# PowerShell's lines after its message: where it was, the category, the error id.
_POWERSHELL_TRAILER = re.compile(r"^(?:\+ |At line:\d|At [^\n]*:\d+ char:\d)")
_MATCHED_LINE = re.compile(r"^[^\s:]+[:-]\d+[:-]")  # "lib/a.ex:12: …", a search's match, no complaint


# A limit the agent set running out: Claude Code's "Command timed out after 2m", a tool's own
# ("Ripgrep search timed out after 20 seconds"), Codex's "execution error: command timed out", or
# the command killed by `timeout N` ("error: interrupted by the user"). The agent chose the limit;
# the command was neither missing nor refused. (curl's "Connection timed out after 10001 ms" is the
# network's, not the agent's limit.)
_TIMED_OUT = re.compile(r"(?im)(?<!connection )(?<!operation )\btimed out after\b|^(?:Error: )?Command timed "
                        r"out\b|execution error: command timed out|^(?:error: )?interrupted by (?:the )?user\b")
# A test run reporting the tests that fail, or a watcher left running: the work in progress the
# agent is fixing, not a fact of the project or the machine.
_TEST_FAILURES = re.compile(
    r"(?m)^\s*(?:#\s*fail\s+[1-9]|FAILED:? |FAIL\s+\S|--- FAIL: |test result: FAILED|Tests?:\s+\d+ failed|"
    r"=+ (?:\d+ failed|FAILURES) |\d+ (?:tests? )?failed\b|E\s+assert|AssertionError\b|"
    r"assertion `left == right` failed|Error: expect\(|Expected:? .*\s+(?:Received|Actual|but was)\b)"
    r"|Watching for file changes|\bELIFECYCLE\W+Test failed")  # pnpm's line after a failing `test` script
# The working tree's state, which the agent settles (commit, stash) and goes on.
_WORK_TREE = re.compile(r"Your local changes to the following files would be overwritten|"
                        r"Please commit your changes or stash them")
# A log record below warning level (`level=DEBUG`, "[INFO] …", "DEBUG: …"): a program telling what
# it does, whatever words ("error", "failed") its message holds.
_QUIET_LOG = re.compile(r"\blevel=(?:debug|info|trace|warn(?:ing)?)\b|^\W{0,2}(?:DEBUG|INFO|TRACE)\b|"
                        r"^\S*\d\d:\d\d:\d\d\S*\s+(?:DEBUG|INFO|TRACE)\b|"
                        r" - (?:DEBUG|INFO|WARNING) - ", re.IGNORECASE)  # Python's logging format


# What a package manager prints when the script it ran exited non-zero ("ELIFECYCLE  Command failed
# with exit code 1.", "npm ERR! code ELIFECYCLE", yarn's "error Command failed with exit code 2."):
# like a bare "Exit code 1", it says that the script failed, not why.
_RUNNER_EXIT = re.compile(r"\bELIFECYCLE\b|^npm (?:ERR!|error) (?:code (?:ELIFECYCLE|\d+)|errno \d+|Lifecycle script|"
                          r"command failed|A complete log)|^error Command failed with exit code \d+|"
                          r"^ERR_PNPM_RECURSIVE_(?:RUN|EXEC)_FIRST_FAIL\b[^\n]*exit code \d+")


# These run over every failed call's output: searched only where a match could be (`fastsearch`).
_find_environment, _find_slip, _find_timed_out, _find_test_failures, _find_work_tree = map(
    matcher, (_ENVIRONMENT, _SLIP, _TIMED_OUT, _TEST_FAILURES, _WORK_TREE))


def timed_out(text: str) -> bool:
    """Did the call fail because a time limit ran out (`_TIMED_OUT`)?"""
    return _find_timed_out(text)


def tool_guard(text: str) -> bool:
    """Does the output open with a tool's own guard or miss (`_ROUTINE`: "Failed to find expected
    lines […]", "File does not exist")? What follows it quotes the agent's own code or paths, so
    no fact of the machine is read from it."""
    return _ROUTINE.match(text.strip()) is not None


def routine_error(text: str) -> bool:
    """An exploration miss or a tool's guard, a bare exit code, a time limit the agent set, tests
    the agent's work left failing, local changes in a checkout's way, or its own slip (a bug in
    the script it wrote, its quoting): no lesson on its own."""
    stripped = text.strip()
    if not stripped or _ROUTINE.match(stripped) is not None or \
            _EXIT_ONLY.match(stripped) is not None or (_find_slip(stripped) and not _project_setting(stripped)) or \
            timed_out(stripped) or _find_test_failures(stripped) or _find_work_tree(stripped):
        return True
    lines = list(map(str.strip, stripped.splitlines()))
    if len(stripped) < _PASTE_CHARS and not any(_LETTERS.search(line) for line in lines if not _EXIT_ONLY.match(line)):
        return True  # a status printed and nothing else ("000" from `curl -w '%{http_code}'`): no error stated
    trailer = next((i for i, line in enumerate(lines) if _POWERSHELL_TRAILER.match(line)), len(lines))
    worded = [line for line in lines[:trailer] if _ERROR_LINE.search(line)]
    told = [line for line in worded if not _QUIET_LOG.search(line) and not _RUNNER_EXIT.search(line)]
    if worded and not told:
        return True  # only debug and info records or a runner's exit status: no error stated
    complaints = [line for line in told if not _MATCHED_LINE.match(line)]
    return bool(complaints) and all(_MISSING_PATH_LINE.match(line.strip()) for line in complaints)


# `_ERROR_LINE` for the UTF-8 of a text, lower-cased: a search with IGNORECASE is five times
# slower in `re`, and bytes.lower changes only ASCII letters, as UTF-8's other bytes are never
# ASCII. IGNORECASE also lets four other characters match an ASCII letter (U+0130 and U+0131 'i',
# U+017F 's', U+212A 'k'; checked over every code point in the tests): a text holding one is
# searched the slow way.
_ERROR_LINE_UTF8 = re.compile(_ERROR_LINE.pattern.encode())
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")


def _error_line_numbers(joined: str) -> Iterator[int]:
    """The numbers of the lines of `joined` that `_ERROR_LINE` finds something in."""
    if _FOLDS_TO_ASCII.search(joined) is None:
        return _found_lines(joined.encode("utf-8", "surrogatepass").lower(), _ERROR_LINE_UTF8, b"\n")
    return _found_lines(joined, _ERROR_LINE, "\n")


def _found_lines(joined: AnyStr, pattern: re.Pattern[AnyStr], newline: AnyStr) -> Iterator[int]:
    """One search a line found, not one a line: a match holds no line break, so it lies within
    its line."""
    number = start = 0
    found = pattern.search(joined)
    while found is not None:
        number += joined.count(newline, start, found.start())
        yield number
        start = joined.find(newline, found.end())
        if start < 0:
            return
        found = pattern.search(joined, start)


# A test that passed, as runners list them ("✓ should return an error (4 ms)", "PASS src/a.test.ts"):
# its name may hold "error", but it states none.
_PASSED_LINE = re.compile(r"[✓✔√]|PASS\s")


# U+FFFD, what a decoder puts for bytes it could not read: a Windows program's message in the
# console's code page (GBK, cp1252) read as UTF-8 ("����: û���ҵ����� "chrome.exe"��"). The bytes
# are gone; a line that is mostly such marks says nothing anyone can read.
_UNREADABLE = "\ufffd"
_UNREADABLE_SHARE = 0.2


def _readable(line: str) -> bool:
    marks = line.count(_UNREADABLE)
    return marks < 3 or marks < _UNREADABLE_SHARE * len(line.replace(" ", ""))


def error_lines(text: str, limit: int) -> str:
    """The lines that say what went wrong (not progress bars or the first N characters), ANSI
    stripped, lines left unreadable by their decoding dropped (`_readable`); the head of the text
    when no line says so."""
    lines = [line.strip() for line in strip_ansi(text).replace("\r", "\n").splitlines()]
    lines = [line for line in lines if line and (_UNREADABLE not in line or _readable(line))]
    if not lines:
        return ""
    head = lines[0] if re.match(r"^(?:Error: )?Exit code \d+$", lines[0]) else None
    joined = "\n".join(lines)
    numbers = list(_error_line_numbers(joined))
    if "PASS" in joined or "✓" in joined or "✔" in joined or "√" in joined:
        numbers = [i for i in numbers if not _PASSED_LINE.match(lines[i])]
    # A heading of a word or two that ends in ":" and opens a list says what its first item
    # states ("Invalid Options:" then "- Unknown options: …").
    numbers += [i + 1 for i in numbers if lines[i].endswith(":") and len(lines[i].split()) <= 2
                and i + 1 < len(lines) and lines[i + 1][:2] in ("- ", "* ", "• ")]
    wanted = [lines[i] for i in sorted(set(numbers))]
    # A debug record's words ("msg=… error=…") say less than the program's own error after it.
    wanted = [line for line in wanted if not _QUIET_LOG.search(line)] or wanted
    picked = list(dict.fromkeys(([head] if head else []) + (wanted or lines)))
    text = "\n".join(picked)
    if len(text) > limit and _find_test_failures(text[text.rfind("\n", 0, limit) + 1:]):
        # A test run's tally comes last ("Tests: 1 failed, 4 passed"): the clip keeps it, as it
        # says what the lines before it are (looked for only where the clip cuts).
        counts = [line for line in picked[1:] if _find_test_failures(line)]
        tally = "\n".join(counts)[: limit // 3]
        if tally:
            rest = "\n".join(line for line in picked if line not in counts)
            return f"{clip(rest, limit - len(tally) - 1)}\n{tally}"
    return clip(text, limit)


def error_signature(tool: str, text: str) -> str:
    """What makes two tool errors the same error, across sessions: the tool and the error lines
    with numbers, paths and quoted names made alike."""
    # Without the bare "Exit code N" line: present or not, it is the same error.
    lines = "\n".join(line for line in error_lines(text, 300).splitlines()
                      if not _EXIT_ONLY.match(line.strip()))
    lines = re.sub(r"(?:/[^\s/:'\"]+)+", "/…", lines)
    lines = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'…'", lines)
    lines = re.sub(r"\b\w*[-_\d]\w*(?:[-_.]\w+)*", "…", lines)  # names: branch-1, my_app, v2.1
    # The head of the error says its cause; its tail (a mount path, a long id) varies.
    return f"{tool}\0{_normalise(lines)[:160]}"
