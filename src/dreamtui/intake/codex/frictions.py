"""A rollout's events → the frictions worth a lesson.

| kind        | fires on                                                                      |
|-------------|-------------------------------------------------------------------------------|
| rejection   | the person declined the approval prompt: Codex's exact "exec command rejected  |
|             | by user" / "patch rejected by user" / "user rejected MCP tool call", or an     |
|             | `exec_command_end` with `status: declined`. The person's next typed turn is    |
|             | the reason. Each declined call is its own memory.                             |
| denial      | a policy or the guardian refused the call ("rejected due to unacceptable       |
|             | risk", "policy forbids commands starting with", "approval required by policy", |
|             | "writing outside of the project").                                            |
| hook_block  | "Command blocked by PreToolUse hook: …".                                      |
| environment | a failure that states a fact of the machine: command not found, network        |
|             | blocked, sandbox or permission denied, read-only file system.                 |
| tool_error  | any other failed command or patch, kept only when the agent never got past it |
|             | (no later success of the same command) and it failed twice or the person      |
|             | spoke right after it — a test run the agent then fixed is routine.            |
| correction  | a typed turn right after the agent acted that contradicts it, reports a       |
|             | problem right after the agent said its work was done, or one the agent's next |
|             | reply concedes as its mistake (`intake.corrections`, shared with the Claude   |
|             | Code importer); an error the person pasted back after following the agent's   |
|             | steps or running its work (`corrections.pasted_failure`), and a turn choosing |
|             | otherwise than the agent proposed (`corrections.overrides`). An amended       |
|             | correction is one correction, in its amended words.                           |
| interruption| the person's stop (`turn_aborted`, "aborted by user") followed by a turn that  |
|             | redirects the agent ("Wait, hold on. I see a console error…"), its reason:    |
|             | one per turn, however many calls were running, quoting the call the agent had |
|             | made in it (polling a command left running, `write_stdin`: that command).     |
|             | A stop followed by nothing, by a template (a slash command or     |
|             | prompt file expanded into the turn: `typed_words`), by a turn that redirects  |
|             | nothing ("Retry", a question, a new request: `corrections.redirects`), by the |
|             | request it cut short sent again, or by the person's own message typed again   |
|             | with more to it that corrects nothing (they stopped the agent to amend what   |
|             | they had asked) is no lesson, and none is kept. A stop at the approval prompt |
|             | (the call declined as the turn stops) is that rejection alone.                |

A typed instruction about a command ("don't bother running mix precommit as it isn't working
yet") is kept in `Detector.instructions`: the import makes it the lesson of that command's
failures (`instruction_for`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from dreamtui.intake import lessons
from dreamtui.intake.codex.reader import Aborted, AgentText, Call, Event, Meta, Result, UserTurn
from dreamtui.intake.corrections import (
    accidental,
    answer_rule,
    claims_done,
    concedes,
    correction_rule,
    game_move,
    overrides,
    pasted_failure,
    pasted_log,
    redirects,
    relayed,
    reports_after_done,
    reports_earlier_work,
    sent_again,
)
from dreamtui.intake.fastsearch import matcher, screen
from dreamtui.vocabulary import clip

QUOTE_CHARS = 600
# How many first lines of a successful call's output may be the shell's start-up notices.
_NOTICE_LINES = 3

_REJECTED = ("exec command rejected by user", "patch rejected by user",
             "user rejected mcp tool call")
_DENIED = re.compile(r"rejected due to unacceptable risk|policy forbids commands starting with|"
                     r"approval required by policy|you should not ask for escalated permissions|"
                     r"writing outside of the project|same tool request was already denied",
                     re.IGNORECASE)
_HOOK = re.compile(r"blocked by (?:a |the )?(?:Pre|Post)ToolUse hook", re.IGNORECASE)
# Codex's own words for what its sandbox and network policy refused; the shell's and the OS's
# words for a missing or forbidden tool are `lessons.environment_fact`'s.
_CODEX_ENVIRONMENT = re.compile(
    r"network access to \S+ is blocked|sandbox denied|command failed inside sandbox|"
    r"execution denied|Could not resolve host|Temporary failure in name resolution",
    re.IGNORECASE)
# Searched in every failed call's output: only where a match could be (`fastsearch`).
_find_hook, _find_denied, _find_codex_environment = map(matcher, (_HOOK, _DENIED, _CODEX_ENVIRONMENT))
_ABORTED = re.compile(r"^aborted by user\b", re.IGNORECASE)
_FRAMING = re.compile(r"^(?:Exit code: -?\d+|Wall time: [\d.]+ \w+|Output:|Process exited with "
                      r"code -?\d+|Chunk ID: \S+|Original token count: \d+)\s*$")



@dataclass(frozen=True)
class Friction:
    kind: str
    session_id: str
    timestamp: str | None
    action: str | None  # what the agent had just done
    tool: str | None
    evidence: str
    reason: str | None  # what the person typed about it
    call_id: str | None
    cwd: str | None
    said: str | None = None  # the agent's words just before
    occurrences: int = 1
    # What tells this event from the session's others, so no two frictions share one (a stored
    # memory is known by it, `lessons.submit_lessons`): the call it is the result of, else the
    # person's turn or stop by its time; a correction is its turn, not the call before it.
    event: str = ""
    stopped: str | None = None  # the event of the stop after which the person amended it


def _unframed(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not _FRAMING.match(line.strip()))


def error_lines(text: str, limit: int = QUOTE_CHARS) -> str:
    """What went wrong (`lessons.error_lines`), once Codex's framing lines are off the output."""
    return lessons.error_lines(_unframed(text), limit)


def classify(result: Result) -> str | None:
    """The friction kind a failed result is, before the order-dependent rules; None for success."""
    lowered = result.text.lstrip().lower()
    if result.declined or lowered.startswith(_REJECTED):
        return "rejection"
    if result.ok:
        return None
    if _ABORTED.match(lowered):
        return "interruption"
    if _find_hook(result.text):
        return "hook_block"
    if _find_denied(result.text):
        return "denial"
    if lessons.tool_guard(result.text):
        return "tool_error"  # a patch's expected lines may hold any words ("unknown command")
    if _find_codex_environment(result.text) or lessons.environment_fact(result.text):
        return "environment"
    return "tool_error"


def _no_match(call: Call | None, result: Result) -> bool:
    # A search the agent gave a short timeout that ran out found nothing yet; no failure either.
    timed_out = "command timed out after" in result.text[:300]
    if call is None or (result.exit_code != 1 and not timed_out) or call.tool != "shell":
        return False
    return lessons.no_match(call.action, result.text)


# A command name typed wrong ("nmp" for npm, "gti" for git) is a slip, not a missing tool.
_MISSING = re.compile(r"\(([\w.+-]+):String\) \[\], CommandNotFoundException"
                      r"|(?:^|[\s:])([\w.+-]+): (?:command )?not found"
                      r"|'([\w.+-]+)' is not recognized as an internal or external command")
_COMMON_COMMANDS = frozenset({"npm", "npx", "pnpm", "yarn", "node", "git", "python", "python3",
                              "pip", "pip3", "uv", "cargo", "make", "docker", "go", "grep", "rg",
                              "cat", "ls", "cd", "curl", "bash", "pytest", "gh", "code",
                              "apply_patch"})  # Codex's own tool: "applypatch" is a slip


def _near(word: str, known: str) -> bool:
    """One letter changed, added, dropped, or two neighbours swapped."""
    if word == known or abs(len(word) - len(known)) > 1:
        return False
    if len(word) == len(known):
        diff = [i for i, (a, b) in enumerate(zip(word, known, strict=True)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and word[diff[0]] == known[diff[1]] and word[diff[1]] == known[diff[0]])
    short, long_ = sorted((word, known), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def typo(text: str) -> bool:
    """Does the failure say a command is missing whose name is a slip of a common one?"""
    found = _MISSING.search(text)
    name = next((g for g in found.groups() if g), "") if found else ""
    return bool(name) and name.lower() not in _COMMON_COMMANDS and any(
        _near(name.lower(), known) for known in _COMMON_COMMANDS)


def _patch_run(call: Call | None) -> bool:
    """Did the agent hand a patch's text to the shell instead of to apply_patch?"""
    return call is not None and call.tool == "shell" and call.action.startswith("*** Begin Patch")


_EDGE = 2000  # a failure says what went wrong at its start or its end


def _bounded(result: Result) -> Result:
    """The result with a long output cut to its head and tail: the rules read no further, and a
    build log of megabytes costs what its ends do."""
    if len(result.text) <= 2 * _EDGE:
        return result
    return replace(result, text=f"{result.text[:_EDGE]}\n…\n{result.text[-_EDGE:]}")


_NOT_WORD = re.compile(r"[^\w]+")
# How an amendment joins what it adds: ", but …", ". Also …".
_JOINER = re.compile(r"^(?:[\s.,;:\-–—]+|(?:but|and|also|though|however|plus)\b)+",
                     re.IGNORECASE)


def _plain_words(text: str) -> str:
    return _NOT_WORD.sub(" ", text.lower()).strip()


_RESTATED = 100  # characters of plain words: a shorter opening found in the last turn may be a new ask


def _restates(text: str, before: str) -> bool:
    """Does the turn open with the words of the turn before it, its Markdown aside (a spec pasted,
    then sent again flattened through a prompt file's "User Input" block)?"""
    opening = _plain_words(text)[:300]
    return len(opening) >= _RESTATED and opening in _plain_words(before)


def _redirects_after_stop(text: str) -> bool:
    """`corrections.redirects` (not "Retry", a question, a new ask), and not one word that no
    correction rule reads ("PING": is the agent still there?)."""
    return redirects(text) and not lessons.mostly_pasted(text) and (
        len(text.split()) > 1 or correction_rule(text) is not None)


# What Codex sends in the person's place: the IDE's context before their words ("# Context from my
# IDE setup: … ## My request for Codex:"), and a prompt file or slash command expanded into the
# turn ("## User Input\n\n```text\n…```\n\nYou **MUST** consider the user input …", "# Implement a
# new requirement …"): a turn that opens with a Markdown heading is a template, not words typed.
_IDE_CONTEXT = re.compile(r"^\s*# (?:Context from my IDE setup|Files mentioned by the user):")
_IDE_REQUEST = "## My request for Codex:"
_TEMPLATE_OPENING = re.compile(r"^\s*#{1,6} \S")
# The block a spec-kit-style template fills in with what the person typed after its command.
_USER_INPUT = re.compile(r"^#{1,6} User Input[ \t]*\n\s*```[^\n]*\n(.*?)^```", re.M | re.S)


def typed_words(text: str) -> str | None:
    """The person's own words in a turn: the request after the IDE's context, or what a
    template's "User Input" block holds; None when there are none (the context alone, an empty
    block) or the turn is a template without that block (`_TEMPLATE_OPENING`)."""
    if _IDE_CONTEXT.match(text):
        text = text.partition(_IDE_REQUEST)[2]
    text = text.strip()
    if _TEMPLATE_OPENING.match(text):
        block = _USER_INPUT.search(text)
        text = block[1].strip() if block else ""
    return text or None


def _corrects(text: str, said: str | None) -> bool:
    """The shared correction rules (`corrections.answer_rule`: a "no" answering the agent's own
    question is an answer), and a turn choosing otherwise than the agent proposed
    (`corrections.overrides`). What the person got running the agent's steps or work, pasted back
    without a word ("git push …\nerror: src refspec main does not match any" after the agent's
    steps), is a correction (`corrections.pasted_failure`); any other pasted log is not."""
    if relayed(text) or game_move(text, said):
        return False
    if pasted_failure(text, said):
        return True
    if pasted_log(text) or lessons.mostly_pasted(text):
        return False
    own = lessons.own_words(text)
    # What the person said decides, not the log they pasted around it.
    words = own if len(own) < len(text) * 4 // 5 else text
    return answer_rule(words, said) is not None or overrides(words, said)


# A shell command that writes a file: a redirection into one, a patch, an in-place edit.
_WRITES = re.compile(r"(?<![0-9&])>>?\s*(?!/dev/null|&)['\"]?[\w./~-]|\bapply_?patch\b|\bsed\s+-i|\btee\b|"
                     r"\bperl\s+-p?i")
# The files a command names ("docs/guide.md", "prototype.html"), which a turn may name back.
_PATHS = re.compile(r"[\w-]*[./][\w./-]*\.\w{1,5}\b|[\w-]+/[\w./-]+")

# Codex's answer to a command still running when its call returns: the session `write_stdin` polls.
_RUNNING = re.compile(r"^Process running with session ID (\d+)\s*$", re.MULTILINE)
# Calls that keep Codex's own books: polling a running command for output, updating the plan.
_BOOKKEEPING = frozenset({"write_stdin", "update_plan"})


@dataclass
class _Failure:
    friction: Friction
    repeats: list[Friction] = field(default_factory=list)  # the later occurrences
    recovered: bool = False
    commented: bool = False


# "don't bother running mix precommit", "do not run `make e2e`", "dont run mix commands".
_INSTRUCTION = re.compile(
    r"(?:^|[.!?;,]\s*|\band\s+)((?:don'?t|do not|never|no need to|stop)\s+(?:bother\s+(?:with\s+)?)?"
    r"(?:run(?:ning)?|us(?:e|ing)|call(?:ing)?|invok(?:e|ing)|try(?:ing)?)\s+`?([\w.:/-]+)"
    r"(?:\s+([\w.:/-]+))?`?[^.!?\n]*)", re.IGNORECASE)
_may_instruct = screen(_INSTRUCTION)  # read on every typed turn
_ANY_SUBCOMMAND = frozenset({"commands", "command", "tasks", "anything", "it", "again", "at",
                             "as", "because", "since", "until", "yet", "for", "now"})


@dataclass(frozen=True)
class Instruction:
    """The person's word about a command: its name and subcommand ("" for any), their sentence."""

    command: str
    subcommand: str
    sentence: str
    session_id: str


def instructions_in(text: str, session_id: str) -> list[Instruction]:
    found: list[Instruction] = []
    text = _plain_quotes(text)
    if not _may_instruct(text):
        return found
    for match in _INSTRUCTION.finditer(text):
        sub = (match.group(3) or "").lower()
        found.append(Instruction(match.group(2).lower(), "" if sub in _ANY_SUBCOMMAND else sub,
                                 match.group(1).strip(), session_id))
    return found


def _plain_quotes(text: str) -> str:
    return text.replace("\u2019", "'")


def instruction_for(action: str | None, instructions: list[Instruction]) -> Instruction | None:
    """The instruction that names the failed command (`mix precommit`), if any."""
    words = lessons.command_head(action or "").lower().split()
    for instruction in instructions:
        if words and words[0].rsplit("/", 1)[-1] == instruction.command and (
                not instruction.subcommand or words[1:2] == [instruction.subcommand]):
            return instruction
    return None


class Detector:
    """Reads one rollout's events in order; `finish` returns its frictions (module docstring)."""

    def __init__(self) -> None:
        self.session_id = "unknown"
        self.cwd: str | None = None
        self.version: str | None = None
        self.frictions: list[Friction] = []
        self._calls: dict[str, Call] = {}
        self._settled: set[str] = set()
        self._last_call: Call | None = None
        self._called = False  # the agent called a tool since the person last typed
        self._acted = False  # the agent acted since the person last typed
        self._said: str | None = None
        self._waiting: list[Friction] = []  # rejections and interruptions awaiting a reason
        self._interrupted = False  # this turn already has its interruption
        # Per command, per error: a command failing another way is the agent getting further.
        self._failures: dict[str, dict[str, _Failure]] = {}
        self._last_failure: _Failure | None = None
        self._turn: tuple[UserTurn, Call | None] | None = None  # the last typed turn, uncounted
        self._answered = True  # the agent has replied since that turn
        self._prompt: UserTurn | None = None  # the person's last typed turn
        self._prompt_correction: int | None = None  # … and the correction it became (its index)
        self._acted_before_prompt = False  # the agent had acted before that turn
        self.instructions: list[Instruction] = []
        # Lines that calls of two different programs printed first and still succeeded:
        # the shell's start-up saying them before every call's output (a sandboxed login shell's
        # profile: "…/shellenv.sh: line 18: /bin/ps: Operation not permitted"). The same line in
        # a failed call is not what failed. One program's success is not enough: `uv run ruff
        # check; gh pr create` succeeds after "error: Failed to spawn: `ruff`", a real fact.
        self._printed_by: dict[str, str] = {}  # a success's first line: the first program printing it
        self._notices: set[str] = set()
        self._running: dict[str, Call] = {}  # by session id: the commands left running, which `write_stdin` polls
        self._succeeded: set[str] = set()  # the calls that went through
        self._reported = False  # the agent's words since its last call report its work done
        self._running_last = False  # the agent polled its last command's output: it runs on

    def feed(self, event: Event) -> None:
        if isinstance(event, Meta):
            self.session_id, self.cwd = event.session_id, event.cwd or self.cwd
            self.version = event.version
        elif isinstance(event, Call):
            self._calls[event.call_id] = event
            self._acted = True
            polled = self._running.get(event.polls) if event.polls else None
            if polled is not None or event.tool not in _BOOKKEEPING:  # not what a person saw the agent do
                # Polling a running command is waiting on it: the command is what the agent does.
                self._last_call = polled or event
                self._called = True
                self._reported = False
            # Polling a command's output: the command is still running (a dev server, a watcher).
            if event.tool == "write_stdin" or event.tool not in _BOOKKEEPING:
                self._running_last = event.tool == "write_stdin"
        elif isinstance(event, Result):
            self._result(event)
        elif isinstance(event, UserTurn):
            self._typed(event)
        elif isinstance(event, AgentText):
            self._agent(event.text)
            self._acted = True  # a reply the person then contradicts is corrected as much as a call
        elif isinstance(event, Aborted) and event.reason == "interrupted":
            self._interruption(None, event.timestamp, "the person stopped the turn")

    def _friction(self, kind: str, call: Call | None, evidence: str, timestamp: str | None,
                  reason: str | None = None, event: str | None = None) -> Friction:
        return Friction(kind=kind, session_id=self.session_id, timestamp=timestamp,
                        action=call.action if call else None, tool=call.tool if call else None,
                        evidence=lessons.quoted_turn(evidence, QUOTE_CHARS) if kind == "correction"
                        else lessons.clip(evidence.strip(), QUOTE_CHARS), reason=reason,
                        call_id=call.call_id if call else None, cwd=self.cwd,
                        said=clip(self._said, 300) if self._said else None,
                        event=event or (call.call_id if call else f"@{timestamp}"))

    def _result(self, result: Result) -> None:
        # Codex reports a call twice (the output item and the *_end event): the first one counts.
        if result.call_id in self._settled:
            return
        self._settled.add(result.call_id)
        call = self._calls.get(result.call_id)
        result = _bounded(result)
        if result.ok:
            self._succeeded.add(result.call_id)
        if result.head:
            self._note_notices(result.head, call.action.split(maxsplit=1)[0] if call and call.action else "")
            running = _RUNNING.search(result.head) if call is not None and call.tool == "shell" and \
                "session ID" in result.head else None
            if running and call is not None:
                self._running[running.group(1)] = call
        elif self._notices and not result.ok:
            result = replace(result, text="\n".join(line for line in result.text.splitlines()
                                                    if line.strip() not in self._notices))
        kind = classify(result)
        key = call.action if call else result.call_id
        if kind == "tool_error" and (lessons.routine_error(_unframed(result.text))
                                     or _no_match(call, result)
                                     or not lessons.states_error(_unframed(result.text))):
            # a miss while exploring, a search that found nothing, output that says nothing went
            # wrong (a listing whose pipe was cut short): not a failure
            kind = None
        if kind in ("tool_error", "environment") and (typo(result.text) or _patch_run(call)):
            # "nmp: command not found": the agent mistyped, nothing is missing; nor when it ran a
            # patch's text as a command ("AGENTS.md: command not found")
            kind = None
        if kind is None:
            for passed in self._failures.get(key, {}).values():
                passed.recovered = True
            return
        evidence = error_lines(result.text) or result.text
        if kind == "rejection":
            self._waiting.append(self._friction(kind, call, evidence, result.timestamp))
        elif kind == "interruption":
            self._interruption(call, result.timestamp, evidence)
        elif kind == "tool_error":
            errors = self._failures.setdefault(key, {})
            signature = lessons.error_signature(call.tool if call else "?", evidence)
            failure = errors.get(signature)
            friction = self._friction(kind, call, evidence, result.timestamp,
                                      event=result.call_id)
            if failure is None or failure.recovered:
                failure = errors[signature] = _Failure(friction)
            else:
                failure.repeats.append(friction)
            self._last_failure = failure
        else:
            self.frictions.append(self._friction(kind, call, evidence, result.timestamp,
                                                 event=result.call_id))

    def _note_notices(self, head: str, program: str) -> None:
        """Read the first lines a successful call of `program` printed (`_notices`); its
        output further down may quote errors it dealt with."""
        # No error rule is run here (successes are most calls): a line two programs print
        # first, error or banner, is the shell's, and never what a failed call failed at.
        for line in _unframed(head).splitlines()[:_NOTICE_LINES]:
            line = line.strip()
            if line and line not in self._notices and \
                    self._printed_by.setdefault(line, program) != program:
                self._notices.add(line)

    def _interruption(self, call: Call | None, timestamp: str | None, evidence: str) -> None:
        if not self._interrupted:
            self._interrupted = True
            self._waiting.append(self._friction("interruption", call or self._just_called(),
                                                evidence, timestamp,
                                                event=call.call_id if call else f"@{timestamp}"))

    def _amends(self, turn: UserTurn) -> bool:
        """Is the turn the person's previous one typed again, with more to it? They stopped the
        agent to amend what they had asked ("separate output port" → "separate output port. Oh,
        here's an idea…")."""
        if self._prompt is None:
            return False
        before, now = _plain_words(self._prompt.text), _plain_words(turn.text)
        # "ok" → "ok, but seed the staging database" redirects: a word or two is no message the
        # person is amending.
        return len(before.split()) >= 3 and now.startswith(before[:80])

    def _typed(self, turn: UserTurn) -> None:
        # Every rule reads the person's own words, and the turn is remembered in them: the IDE's
        # context heads each turn of an IDE session alike (each turn after a stop would "amend"
        # the one before, and no correction would be read), and a template is no one's words.
        words = typed_words(turn.text)
        turn = replace(turn, text=words or "")
        self.instructions.extend(instructions_in(turn.text, self.session_id))
        reason = clip(turn.text, 2 * QUOTE_CHARS)
        stopped = any(f.kind == "interruption" for f in self._waiting)
        if stopped and self._amends(turn):
            self._amended(turn)
            return
        # Esc at the approval prompt declines the call and stops the turn: one event, the refusal.
        refused = any(f.kind == "rejection" for f in self._waiting)
        for friction in self._waiting:
            if friction.kind == "rejection" and accidental(turn.text):
                continue  # "oops, go on": the person's slip at the prompt, no rule
            if friction.kind == "rejection":
                # The refusal, or the stop, and what the person typed after it: their reason (its
                # lines kept: a title reads its first sentence, not a pasted spec run into it).
                self.frictions.append(replace(friction, reason=lessons.clip(words, 2 * QUOTE_CHARS)
                                              if words else None))
            elif not refused and words is not None and _redirects_after_stop(words) and not (
                    self._prompt is not None and (sent_again(words, self._prompt.text)
                                                  or _restates(words, self._prompt.text))):
                self.frictions.append(replace(friction, reason=lessons.clip(words, 2 * QUOTE_CHARS)))
        answered_a_stop = bool(self._waiting)
        self._waiting.clear()
        self._interrupted = False
        self._acted_before_prompt = self._acted
        failure = self._last_failure
        # A turn that names the failed command or its error comments on it; one that corrects
        # without naming it ("seems that --sandbox … still have read-only mode on" after a
        # mistyped search) corrects the work, and is that correction.
        commented = failure is not None and not failure.recovered and lessons.names_failure(
            turn.text, failure.friction.action, failure.friction.evidence)
        if failure is not None and commented:
            failure.commented = True
            failure.friction = replace(failure.friction, reason=reason)
        self._last_failure = None
        answered_a_stop = answered_a_stop or commented  # the turn is that friction's reason
        said = self._said
        first = self._prompt is None and not self._acted  # the session's first turn
        self._prompt, self._prompt_correction = turn, None
        if not answered_a_stop and self._acted and (
                _corrects(turn.text, said) or (reports_after_done(turn.text, said)
                                               and not lessons.mostly_pasted(turn.text))):
            self._prompt_correction = len(self.frictions)
            self.frictions.append(self._friction("correction", self._corrected_call(turn.text), turn.text,
                                                 turn.timestamp, event=turn.event))
            self._turn = None
        elif first and reports_earlier_work(turn.text):
            # The session opens saying the work done before it is still wrong.
            self._prompt_correction = len(self.frictions)
            self.frictions.append(self._friction("correction", None, turn.text, turn.timestamp,
                                                 event=turn.event))
            self._turn = None
        else:
            self._turn = (turn, self._corrected_call(turn.text)) if self._acted and not answered_a_stop \
                and not relayed(turn.text) and not lessons.mostly_pasted(turn.text) \
                and not game_move(turn.text, said) else None
        self._answered = False
        self._acted = False
        self._called = False

    def _just_called(self) -> Call | None:
        """The call a correction quotes as what the agent had just done: its last one since the
        person last typed, none when it only talked since (a call turns back is not what the
        person answers)."""
        return self._last_call if self._called else None

    def _corrected_call(self, text: str) -> Call | None:
        """The call a correction says the agent had just done (`_just_called`), unless the agent
        then reported its work done and the person answers that report: a command that went
        through ("poetry install --sync", then "Done, I changed the port in conftest to 5432." →
        "no, CI uses 5433, revert that") is not what they correct, unless they name it. The
        agent's words are kept with the correction (`said`). A command left running (a dev server
        the agent polls) is where the person tried the work: it stays."""
        call = self._just_called()
        action = (call.action or "") if call is not None else ""
        if call is None or not self._reported or call.tool != "shell" or call.call_id not in self._succeeded \
                or self._running_last or _WRITES.search(action):
            return call  # a command that wrote a file ("cat <<EOF > page.html") made the change
        lowered = text.lower()
        words = lessons.command_head(action).lower().split()
        named = bool(words) and words[0].rsplit("/", 1)[-1] in lowered or any(
            path.lower() in lowered for path in _PATHS.findall(action))
        return call if named else None

    def _amended(self, turn: UserTurn) -> None:
        """The person amended the turn the agent was working on: judged as that turn, in its
        amended words; the correction it was already is that correction, amended. What they
        added may itself correct the work the stop cut short ("fix the parser" → "fix the
        parser, but don't touch the public API"): then the stop and the amendment are one."""
        stopped = next((f for f in self._waiting if f.kind == "interruption"), None)
        self.frictions.extend(f for f in self._waiting if f.kind == "rejection")
        self._waiting.clear()
        self._interrupted = False
        index = self._prompt_correction
        before = self._prompt.text.strip() if self._prompt else ""
        added = turn.text.strip()[len(before):] if turn.text.strip().startswith(before) else ""
        added = _JOINER.sub("", added)
        # The stop is part of the correction: an earlier reading (or version) may have stored it.
        stop = stopped.event if stopped else None
        if index is not None:
            self.frictions[index] = replace(self.frictions[index], stopped=stop,
                                            evidence=lessons.quoted_turn(turn.text, QUOTE_CHARS))
        elif self._acted_before_prompt and _corrects(turn.text, self._said):
            self._prompt_correction = len(self.frictions)
            self.frictions.append(replace(self._friction(
                "correction", self._corrected_call(turn.text), turn.text, turn.timestamp,
                event=turn.event), stopped=stop))
        elif stopped is not None and added and correction_rule(added) is not None:
            self.frictions.append(replace(stopped, reason=lessons.clip(turn.text.strip(), 2 * QUOTE_CHARS)))
        self._prompt = turn
        self._acted = False
        self._called = False

    def _agent(self, text: str) -> None:
        if not self._answered and self._turn is not None and concedes(self._turn[0].text, text, self._said):
            turn, call = self._turn
            self.frictions.append(self._friction("correction", call, turn.text, turn.timestamp,
                                                 event=turn.event))
        self._turn = None
        self._answered = True
        self._said = text
        self._reported = claims_done(text)

    def finish(self) -> list[Friction]:
        """The frictions, once the rollout has ended: reason-less stops kept only as rejections,
        failures only when the agent never got past them (module docstring)."""
        self.frictions.extend(f for f in self._waiting if f.kind == "rejection")
        self._waiting.clear()
        for failure in (f for errors in self._failures.values() for f in errors.values()):
            count = 1 + len(failure.repeats)
            if not failure.recovered and (count > 1 or failure.commented):
                self.frictions.append(replace(failure.friction, occurrences=count))
                self.frictions.extend(failure.repeats)
        self._failures.clear()
        return self.frictions
