"""A session's events in, frictions out: the rules that depend on order.

The parser reports events in log order, each with its `Origin` (where in which log) and the
`Agent` context of its thread (the main thread, or a sidechain/subagent): the agent acted or
said something, a tool call failed or succeeded, the person typed (or queued text while the agent
worked), the log ended. The `Detector` classifies them with `rules`, `dreamtui.intake.corrections`
and `dreamtui.intake.lessons`, and keeps the frictions.

Order matters three times:

- **A stop waits for its reason.** A rejection, plan rejection, clarification or Esc without a
  reason in the tool result waits for the person's next typed turn in its thread (and any text
  they queued meanwhile): that is the reason, and that turn is not also a correction. The
  interrupt marker that follows a stop is part of it, and further stops before the person types
  (parallel calls refused or stopped at once) join it: one Esc, one memory. A turn typed while
  the call ran, before the stop, is its reason instead (judged as the stop settles, the turn
  after it added unless it only sends those words again or says "go on"), unless it commented on
  the failed call just before (`_comment_errors`): the words have one owner. An Esc right after
  the person's own slash command, before the agent acted on it, stopped that command, not the
  agent: no stop. The agent acting again first settles a stop with the reason it has, or none;
  an Esc without any reason is no lesson and is dropped,
  and so is one whose turn does not redirect the agent (`corrections.redirects`: not "Retry", a
  plain question, an added feature, a new request, a pasted log, a model switched), and any stop
  whose reason is not the person's lesson (`corrections.disowned`: relayed from another agent,
  their own slip; `corrections.accidental`: "I didn't mean to interrupt you, continue", "je
  voulais dire oui"), and an Esc followed by the request it cut short sent again
  (`corrections.sent_again`: the same words, a typo fixed, a slash command's template around it);
  sent again with a change of its own (`corrections.sent_changed`: a constraint added, another
  file, a detail changed) it is kept, the turn its reason, whatever its words; an Esc followed by
  "continue" in any language (`corrections.just_continues`: "继续", "go on"), alone or before
  text pasted without a word of the person's own (`lessons.mostly_pasted`) or opening the next
  piece of work (`rules.continues_with`), is none; "continue" with a "but", a way or a tool
  named ("继续，但是用新的数据", "continue with pnpm": `rules.continues_otherwise`) is a redirect.
  Text that is no reason at all (`rules.no_reason`: a question only, the person hurrying the
  agent, another session's transcript pasted, the next piece of work opened) leaves a rejection
  or an Esc without one: the Esc is then no lesson, the refusal stands alone or not
  (`_stands_alone`: not a call that only looks, not a subagent's call, whose prompt the person
  answers without a word to it). The same words typed after a second stop are one lesson, its
  records of both (`_keep`), and so are they sent again with words added, if the same call was
  refused or the words added name nothing of the call refused the second time (`_adds_to`).
  A refusal of ExitPlanMode followed by Claude Code's hand-off of the plan to a cleared context
  ("Implement the following plan:", `rules.is_plan_handoff`) is no refusal: the person accepted
  the plan (another stop waiting gets no reason from it). A plan
  rejection whose text is pasted material (`rules.reason_at_plan`: the plan pasted back unchanged,
  a review approving it) is none either; the plan pasted back with lines changed has those lines as
  its reason.
  A refusal with no word of why ("continue", or nothing) whose call the agent then runs as it
  was, and it succeeds, was only "not now": no lesson.
- **A correction follows an action.** Only in the main thread, right after the agent acted,
  never the first turn (unless it says the work before this session is still wrong:
  `corrections.reports_earlier_work`), never in a subagent (its "user" is the parent agent), never in a session
  the Agent SDK ran. A turn whose opening corrects is one at once, and so is one choosing
  otherwise than the agent had just recommended; any other turn waits for the agent's next
  words: a reply that concedes a mistake makes it one (`corrections.concedes`: not to a request
  for advice or a plain question; "No, I skipped …" to "did you …?"), and so does a "why" that
  points at nothing the agent did (`corrections.wonders`). A problem named right after the agent
  said its work was done is one (`corrections.reports_after_done`). Swearing alone is never one;
  a bare "nope" to the agent's words alone waits for its reply too. A typed turn is also known by
  its time and words (`_typed_event`): a copy of the session with fresh ids stores it once.
- **A tool error is worth a lesson** when it reveals an environment fact, when the person typed
  a comment while it was the last thing that happened (not "continue"), or when the same call
  failed twice and never succeeded afterwards; other errors are kept as candidates the importer
  keeps only when the same error recurs in another session (`Friction.extra["signature"]`).
  An output that states no error (compiler warnings, `git status` text, "No changes to make")
  is none of these, unless the person commented on it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Protocol

from dreamtui.intake import corrections, lessons
from dreamtui.intake.claude_code import rules
from dreamtui.intake.lessons import QUOTE_CHARS, Friction, ToolCall, clip, strip_ansi

_STOPS = ("plan_rejection", "rejection", "clarification", "interruption")  # strongest first
# A waiting stop's mark (in `Friction.extra`, taken off when it is judged): its reason was typed
# while its call ran, before it.
_TYPED_FIRST = "typed_first"
# How long the words of an earlier stop's reason are that another reason opening with them repeats:
# a sentence, not "no" or "stop" before another thing said.
_REPEATED_CHARS = 24


@dataclass(frozen=True)
class Origin:
    """Where an event happened: the log, session and record a friction points back to."""

    scope: str  # the session id, or `<session>/<subagent path>` for a subagent
    session_id: str
    record_uuid: str | None
    timestamp: str | None
    cwd: str | None
    log: str
    sidechain: bool  # a sidechain or subagent thread, not the person's own
    # What the event is, whatever record holds it (`tool:<tool_use_id>`, `turn:<digest>`): a
    # resumed session copies records under new uuids, and the importer stores an event once.
    events: tuple[str, ...] = ()


class Agent(Protocol):
    """What the agent did in one thread since the person last typed (the parser keeps it)."""

    acted: bool
    last_tool: ToolCall | None

    def said_text(self) -> str | None:
        """The agent's last words, decoded only when asked for."""
        ...


_TYPED_CHARS = 4000  # what tells a turn from another typed at the same millisecond: its opening


def _typed_event(where: Origin, text: str) -> str | None:
    """A typed turn known by its time and words: a copy of a session into another file may give
    every record and message a fresh id yet keep the time each turn was typed (one log of read 4
    was found in six files so), and a turn typed twice at the same millisecond is the same turn."""
    if not where.timestamp:
        return None
    words = rules.turn_words(text[:_TYPED_CHARS])
    digest = hashlib.sha1(f"{where.timestamp}\0{words}".encode("utf-8", "replace")).hexdigest()[:20]
    return f"typed@{digest}" if words else None


def _friction(kind: str, where: Origin, agent: Agent, calls: list[ToolCall], evidence: str,
              reason: str | None = None) -> Friction:
    return Friction(
        kind=kind, scope=where.scope, session_id=where.session_id,
        record_uuids=[where.record_uuid] if where.record_uuid else [], timestamp=where.timestamp,
        calls=calls, said=agent.said_text(), evidence=clip(strip_ansi(evidence).strip(), QUOTE_CHARS),
        reason=reason, cwd=where.cwd, sidechain=where.sidechain, log=where.log,
        extra={"events": list(where.events)} if where.events else {})


_NUMBERS = re.compile(r"\d+")
# What a failed call prints when it states no error: compiler warnings, `git status` text,
# the Edit tool's "No changes to make" (the call failed for another reason, or for none), a
# tool's notice from the shell's start-up ("zoxide: detected a possible configuration issue …
# Disable this message by setting _ZO_DOCTOR=0").
_STATES_NO_ERROR = re.compile(r"(?im)\bwarning\b|^No changes to make|nothing (?:added )?to commit|^On branch "
                              r"|\bdisable this (?:message|warning|notice)\b")
# A failed call whose whole output is Claude Code's word for it: nothing said, nothing to learn.
_SAID_NOTHING = re.compile(r"\s*(?:Error|Error: Exit code \d+|Exit code \d+)?\s*\Z")


def _continues(reason: str) -> bool:
    """"continue" in any language (`corrections.just_continues`), alone or before what the person
    pasted without a word of their own ("继续" and the diff lines the agent had shown), or opening
    the next piece of work (`rules.continues_with`): they let the agent go on, and named nothing
    it did wrong."""
    if corrections.just_continues(reason):
        return True
    words = reason.split(maxsplit=1)
    if len(words) == 2 and corrections.just_continues(words[0]) and lessons.mostly_pasted(words[1]):
        return True
    return rules.continues_with(reason)


_ENDS_SENTENCE = re.compile(r"[.!?。！？;；:：]\W*$")
_STARTS_SENTENCE = re.compile(r"[^\W\d_a-z]")  # a capital, or a letter of a script without case
_CALL_WORD = re.compile(r"[^\W\d_]{3,}")


def _adds_to(earlier: str, said: str, first: Friction, again: Friction) -> bool:
    """Is `said` the reason `earlier` of the stop `first` sent again after the stop `again`, maybe
    with words added (module docstring: one lesson)? When the refused calls are not the same, the
    added words name nothing of the call refused the second time: "…, and never force push main"
    after a refused `git push --force` is a lesson of its own."""
    if not said.startswith(earlier):
        return False
    if {_signature(c) for c in first.calls} == {_signature(c) for c in again.calls}:
        return True
    named = {w.lower() for c in again.calls for w in _CALL_WORD.findall(c.target or "")}
    return not named & {w.lower() for w in _CALL_WORD.findall(said[len(earlier):])}


_CLOSES = re.compile(r"[.!?。！？;；:：,，、]+")  # what closes the earlier words' sentence or clause


def _joined(reason: str, added: str) -> str:
    """A reason and the words added to it when sent again: a sentence of their own on its own line,
    else the sentence going on ("… run the script if needed", "…, and …"), the mark that closes the
    earlier words kept with them."""
    closes = _CLOSES.match(added)
    reason = reason.rstrip() + (closes.group() if closes else "")
    added = added[closes.end():].strip() if closes else added
    if not added:
        return reason
    if _ENDS_SENTENCE.search(reason) or _STARTS_SENTENCE.match(added):
        return f"{reason}\n{added}"
    return f"{reason} {added}"


def _signature(call: ToolCall | None) -> str:
    """Which calls are 'the same call' for getting past an error: the tool and its whole target
    (the command, the path), numbers made alike — a retry, not the next attempt at something."""
    if call is None:
        return "?"
    return f"{call.name} {_NUMBERS.sub('#', ' '.join((call.target or '').split()))}"


@dataclass
class _Error:
    friction: Friction
    call: str
    resolved: bool = False


@dataclass
class _Thread:
    stop: Friction | None = None  # a stop waiting for the person's reason
    prompt: str | None = None  # the person's last typed turn: the work a stop cut short
    candidate: Friction | None = None  # a typed turn waiting for the agent's reply
    # The person's turn the agent has not acted on yet, and where it was typed: typed while a call
    # ran, the stop of that call that follows is the person making the agent read it.
    unanswered: tuple[str, Origin] | None = None
    open_errors: list[_Error] = field(default_factory=list)  # since the last success
    # The person ran a slash command or a skill the agent has not acted on yet: an Esc now stops
    # their own command, not the call the agent made before it.
    commanded: bool = False


def _banner(errors: list[_Error]) -> frozenset[str]:
    """Lines a shell prints on every call (a profile's banner: "○ Tandem Orchestrator: Not
    found"): two or more lines found in the failed output of three or more different calls. No
    error of its own, they would otherwise read as one, and the same one everywhere."""
    seen: dict[str, set[str]] = {}
    for error in errors:
        for line in set(error.friction.evidence.splitlines()):
            if line.strip():
                seen.setdefault(line, set()).add(error.call)
    common = frozenset(line for line, calls in seen.items() if len(calls) >= 3)
    return common if len(common) >= 2 else frozenset()


class Detector:
    """Classifies one log's events, in order, into frictions (module docstring)."""

    def __init__(self) -> None:
        self.frictions: list[Friction] = []
        self._threads = {False: _Thread(), True: _Thread()}
        self._errors: list[_Error] = []
        self._failures: dict[str, int] = {}
        self._unresolved: dict[str, list[_Error]] = {}  # by call signature
        # Refusals without a word, by the signatures of their calls still to run: a refused call
        # the agent then ran as it was (the person let it through later) taught nothing.
        self._refused: dict[str, list[Friction]] = {}
        self._to_run: dict[int, int] = {}  # by id of such a refusal: how many of its calls have not run
        self._ran_after: set[int] = set()  # ids of those refusals whose every call then ran
        self._reasons: dict[str, Friction] = {}  # stops kept, by their reason's words
        # and those of a sentence or more by its opening: a reason sent again with words added is
        # found in one look-up, not by reading every kept reason
        self._openings: dict[str, list[Friction]] = {}

    # -- the agent ------------------------------------------------------------------------------

    def agent_acted(self, sidechain: bool) -> None:
        """An agent record in a thread: a stop still waiting there gets no reason now."""
        self._threads[sidechain].commanded = False
        self._settle(sidechain)

    def awaits_reply(self, sidechain: bool) -> bool:
        return self._threads[sidechain].candidate is not None

    def agent_replied(self, sidechain: bool, text: str | None) -> None:
        """The agent's first words (None: a tool call first) after a typed turn."""
        thread = self._threads[sidechain]
        candidate, thread.candidate = thread.candidate, None
        rule = corrections.concedes(candidate.evidence, text, candidate.said) \
            if candidate is not None and text else None
        if candidate is not None and text and rule is not None:
            candidate.reply = clip(strip_ansi(text).strip(), 300)
            candidate.extra["rule"] = rule
            self.frictions.append(candidate)

    # -- tools ----------------------------------------------------------------------------------

    @property
    def has_open_errors(self) -> bool:
        """Does a success matter now (an error or a refusal without a word waits for one)?"""
        return bool(self._unresolved) or bool(self._refused) or any(t.open_errors for t in self._threads.values())

    def tool_succeeded(self, sidechain: bool, call: ToolCall | None) -> None:
        """A tool call succeeded: the agent got past the errors of the same call, and a refusal
        without a word of that call was only "not now"."""
        self._threads[sidechain].open_errors.clear()
        if not self._unresolved and not self._refused:
            return  # nearly every success: no error waits, and no signature need be made
        signature = _signature(call)
        for error in self._unresolved.pop(signature, ()):
            error.resolved = True
        for refusal in self._refused.pop(signature, ()):
            self._to_run[id(refusal)] -= 1
            if self._to_run[id(refusal)] <= 0:
                self._ran_after.add(id(refusal))

    def tool_failed(self, where: Origin, agent: Agent, call: ToolCall | None, content: str,
                    signals: rules.Signals) -> None:
        """A tool_result marked `is_error`, `call` the tool_use it answers (None when unknown)."""
        text = rules.error_text(content)
        if rules.is_program_result(text):
            return
        kind, reason = rules.classify_tool_error(text, signals)
        if kind == "denial" and call is None:
            tool = rules.denied_tool(text)
            call = ToolCall(tool, None, None) if tool else None
        calls = [call] if call else []
        if kind in _STOPS:
            self._stopped(_friction(kind, where, agent, calls, text, reason))
            return
        thread = self._threads[where.sidechain]
        if kind != "tool_error":
            self.frictions.append(_friction(kind, where, agent, calls, text))
            return
        if call is not None and call.name == "Bash" and call.target and \
                re.match(r"(?:Error: )?Exit code 1(?:\n|$)", text) and lessons.no_match(call.target, text):
            return  # a search that found nothing, a diff that found differences
        if _SAID_NOTHING.match(text):
            return  # "Error" alone: the command's output was thrown away (`2>/dev/null | grep …`)
        friction = _friction(kind, where, agent, calls, lessons.error_lines(text, QUOTE_CHARS))
        error = _Error(friction, _signature(call))
        self._failures[error.call] = self._failures.get(error.call, 0) + 1
        self._errors.append(error)
        self._unresolved.setdefault(error.call, []).append(error)
        thread.open_errors.append(error)

    def _stopped(self, friction: Friction) -> None:
        thread = self._threads[friction.sidechain]
        if friction.reason is not None:
            if friction.kind == "plan_rejection":
                friction.reason = rules.reason_at_plan(friction.reason, friction.plan)
                if friction.reason is None:
                    return  # the plan pasted back, a review approving it: no reason of the person's
            if friction.kind == "rejection" and rules.no_reason(friction.reason):
                friction.reason = None  # a question typed at the prompt: the refusal says no why
                if self._stands_alone(friction):
                    self._keep(friction)
                return
            if not corrections.disowned(friction.reason) and not corrections.accidental(friction.reason):
                self._keep(friction)  # the reason came with the result
            return
        waiting = thread.stop
        if waiting is None:
            thread.stop = friction
            if thread.unanswered is not None:
                # Typed while the call ran, then the call stopped: the turn is the stop's reason.
                text, where = thread.unanswered
                friction.reason = clip(strip_ansi(text).strip(), 2 * QUOTE_CHARS)
                typed = _typed_event(where, text)
                if typed:
                    friction.extra.setdefault("events", []).append(typed)
                thread.unanswered, thread.candidate = None, None
                friction.extra[_TYPED_FIRST] = True  # the stop itself is marked: an id outlives it
            return
        # Parallel calls stopped at once: one event, the strongest kind names it.
        waiting.calls.extend(c for c in friction.calls if c not in waiting.calls)
        waiting.record_uuids.extend(u for u in friction.record_uuids if u not in waiting.record_uuids)
        if friction.extra.get("events"):
            waiting.extra.setdefault("events", []).extend(friction.extra["events"])
        if _STOPS.index(friction.kind) < _STOPS.index(waiting.kind):
            waiting.kind = friction.kind

    # -- the person -----------------------------------------------------------------------------

    def person_typed(self, where: Origin, agent: Agent, text: str, *, human: bool = True) -> bool:
        """A user text; True when it is a turn, which starts the agent's context anew. `human`
        is False for a session the Agent SDK ran: its turns are a program's."""
        cleaned = rules.clean_user_text(text)
        thread = self._threads[where.sidechain]
        if not cleaned:
            thread.commanded = thread.commanded or rules.runs_command(text)
            return False
        text = cleaned
        if rules.is_interruption(text):
            # else the person stopped their own prompt, or the command they had just run
            if thread.stop is None and agent.acted and not thread.commanded:
                calls = [agent.last_tool] if agent.last_tool else []
                thread.stop = _friction("interruption", where, agent, calls, text)
            return False
        if not where.sidechain and rules.is_plan_handoff(text):
            # The person accepted the plan and cleared the context: the refusal of ExitPlanMode
            # that ended the planning conversation (a call of the earlier log, unknown here, when
            # the new log opens with it) was Claude Code's, and the plan it sends is no
            # correction. Any other stop waiting gets no reason from it (the plan is no one's why).
            if thread.stop is not None and all(c.name == "ExitPlanMode" for c in thread.stop.calls):
                thread.stop = None
            self._settle(False)
            thread.candidate, thread.prompt = None, text
            thread.open_errors.clear()
            return True
        # A refusal or an Esc shows a person at the prompt even where a program (an IDE through
        # the Agent SDK) sends the turns: the turn after it is their reason, not a new task.
        if (not human and thread.stop is None) or where.sidechain:
            self._settle(where.sidechain)
            return True
        thread.candidate = None
        prompt, thread.prompt = thread.prompt, text
        if thread.stop is not None:
            typed = _typed_event(where, text)
            if typed:  # the stop is known by its reason too (a copy with fresh ids: `_typed_event`)
                thread.stop.extra.setdefault("events", []).append(typed)
            self._give_reason(thread, text, prompt)
            return True
        # The words have one owner: the failed call's comment, or else the reason of a stop of
        # the call running while they were typed.
        thread.unanswered = None if self._comment_errors(thread, text) else (text, where)
        if prompt is None and not agent.acted and corrections.reports_earlier_work(text):
            # The session's first turn says what was done before it is still wrong.
            friction = _friction("correction", where, agent, [], text)
            friction.extra["rule"] = "earlier_work"
            typed = _typed_event(where, text)
            if typed:
                friction.extra.setdefault("events", []).append(typed)
            self.frictions.append(friction)
            return True
        # A turn opening with a log is no comment, unless it is an error pasted back after the
        # agent's work or steps (then the paste is what the person says: it still fails).
        if agent.acted and (not corrections.pasted_log(text) or corrections.pasted_failure(text, agent.said_text())) \
                and not corrections.relayed(text) and not corrections.game_move(text, agent.said_text()):
            friction = _friction("correction", where, agent,
                                 [agent.last_tool] if agent.last_tool else [], text)
            typed = _typed_event(where, text)
            if typed:
                friction.extra.setdefault("events", []).append(typed)
            said = agent.said_text()
            rule = corrections.answer_rule(text, said)
            if rule is None and corrections.overrides(text, said):
                rule = "override"
            elif rule == "question" and corrections.wonders(text):
                rule = None  # "why did we need the months field?": a question, unless conceded
            if rule is None and corrections.reports_after_done(text, said) and not lessons.mostly_pasted(text):
                rule = "after_done"  # "Problème dans le nœud …" right after "✅ Terminé"
            if rule is not None and corrections.contentless(text):
                if corrections.insult(text):
                    return True  # "ur stupid": frustration, and no lesson in it
                if agent.last_tool is None and not corrections.reports_failure(text):
                    rule = None  # a bare "nope" to the agent's words: its reply says what it was
            if rule is not None:
                friction.extra["rule"] = rule
                self.frictions.append(friction)
                thread.unanswered = None  # a correction already, whatever stops next
            else:
                thread.candidate = friction  # the agent's reply decides
        return True

    def replayed(self, sidechain: bool, text: str) -> bool:
        """A user text recorded again (a resumed session's copy of its history): the person
        typed nothing now, so it is no reason for a waiting stop and no correction. True when it
        is a turn, as `person_typed` says (an interrupt marker is none)."""
        text = rules.clean_user_text(text)
        if not text or rules.is_interruption(text):
            return False
        self._threads[sidechain].candidate = None
        self._settle(sidechain)
        return True

    def queued(self, where: Origin, agent: Agent, text: str) -> bool:
        """Text the person typed while the agent worked (an `attachment` `queued_command`)."""
        text = rules.clean_user_text(text)
        thread = self._threads[where.sidechain]
        if text and thread.stop is not None and not where.sidechain:
            stop = thread.stop
            stop.reason = f"{stop.reason}\n{text}" if stop.reason else text
            return False
        return self.person_typed(where, agent, text) if text else False

    def hook_said(self, where: Origin, agent: Agent, text: str) -> None:
        """A hook's message outside a tool result (a `system` or `attachment` record)."""
        text = rules.error_text(text)
        if rules.names_a_block(text):
            calls = [agent.last_tool] if agent.last_tool else []
            self.frictions.append(_friction("hook_block", where, agent, calls, text))

    def _give_reason(self, thread: _Thread, text: str, prompt: str | None) -> None:
        stop = thread.stop
        assert stop is not None
        thread.stop = None
        reason = clip(strip_ansi(text).strip(), 2 * QUOTE_CHARS)
        if stop.extra.pop(_TYPED_FIRST, False) and stop.reason:
            # The reason was typed while the call ran; the turn after the stop is often the same
            # words sent again so that the agent reads them, or only "go on".
            said = stop.reason
            if reason != said and not corrections.sent_again(reason, said) and \
                    not corrections.just_continues(reason):
                stop.reason = f"{said}\n{reason}"
            self._judge(stop, said, None)
            return
        if stop.kind == "plan_rejection":
            own = rules.reason_at_plan(reason, stop.plan)
            if own is None:
                return  # the plan pasted back, a review approving it, typed next: no reason either
            reason = own
        stop.reason = f"{stop.reason}\n{reason}" if stop.reason else reason
        self._judge(stop, reason, prompt)

    def _judge(self, stop: Friction, reason: str, prompt: str | None) -> None:
        """Keep a stop given its reason, `prompt` the request it cut short (module docstring)."""
        if corrections.accidental(reason):
            return  # "I didn't mean to interrupt you, continue": the person's slip, no rule
        if stop.kind == "rejection" and lessons.says_nothing(reason) and not self._stands_alone(stop):
            return  # "no" to a call that only looks: no word of why, and nothing changed refused
        if stop.kind in ("rejection", "interruption") and rules.no_reason(reason):
            # "what are the main credentials?", "怎么这么慢": asked, not why the call was stopped
            stop.reason = None
            if self._stands_alone(stop):
                self._keep(stop)
            return
        if stop.kind == "interruption" and prompt is not None and corrections.sent_again(reason, prompt):
            return  # the same request sent again (a typo fixed, or through a slash command): no lesson
        if stop.kind == "interruption" and _continues(reason):
            return  # "继续", "go on": the person let the agent go on, in any language
        # "Retry", a question, one more feature, a new request: not a lesson. Stopping a plan
        # about to be carried out is itself a redirect: what the person types next replaces it.
        stopped_plan = any(c.name == "ExitPlanMode" for c in stop.calls)
        # The request sent again with a change (a constraint added, another file): the change is
        # what the person wanted otherwise, a redirect in any words.
        changed = stop.kind == "interruption" and prompt is not None and corrections.sent_changed(reason, prompt)
        if stop.kind == "interruption" and not stopped_plan and not changed and \
                not corrections.redirects(stop.reason or reason) and not rules.continues_otherwise(reason):
            return
        if corrections.disowned(reason):
            return  # relayed from another agent, or the person's own slip: not the agent's lesson
        self._keep(stop)

    def _comment_errors(self, thread: _Thread, text: str) -> bool:
        """The person typed while an error was the last thing that happened: their comment, if
        it corrects the agent or names what failed (not "continue", not another subject). True
        when the text is that comment."""
        if thread.open_errors:
            last = thread.open_errors[-1]
            call = last.friction.call
            # A routine miss (a file not there) is commented on only by naming what it missed: a
            # correction of other work ("no, it's still slow") is not about it, and the miss's
            # boilerplate ("your current working directory is …") names what any turn says.
            # A premise set right ("the API runs on 8040, not 8080") answers even a routine
            # failure that went by the old value: the value is the lesson (`went_by`).
            routine = lessons.routine_error(last.friction.evidence)
            if (corrections.correction_rule(text) is not None and not routine) or \
                    lessons.names_failure(text, call.target if call else None,
                                          "" if routine else last.friction.evidence,
                                          went_by=last.friction.evidence):
                last.friction.reason = clip(strip_ansi(text).strip(), QUOTE_CHARS)
                last.friction.why = "the person commented on it"
                thread.open_errors.clear()
                return True
        thread.open_errors.clear()
        return False

    # -- the end --------------------------------------------------------------------------------

    def finish(self) -> list[Friction]:
        """The log ended: nothing waits any longer; every friction, in log order."""
        self._settle(False)
        self._settle(True)
        banner = _banner(self._errors)
        for error in self._errors:
            if banner:
                kept = [line for line in error.friction.evidence.splitlines() if line not in banner]
                if not any(line.strip() for line in kept):
                    continue  # the output said nothing but the banner
                error.friction.evidence = "\n".join(kept)
            if not error.friction.why and _STATES_NO_ERROR.search(error.friction.evidence) and \
                    not lessons.states_error(error.friction.evidence) and \
                    not lessons.environment_fact(error.friction.evidence):
                continue  # only warnings, a status, "No changes to make": no error to learn from
            self.frictions.append(self._judged(error))
        self._errors.clear()
        if self._ran_after:
            self.frictions = [f for f in self.frictions if id(f) not in self._ran_after]
        self.frictions.sort(key=lambda f: f.timestamp or "")
        return self.frictions

    def _judged(self, error: _Error) -> Friction:
        friction = error.friction
        evidence = friction.evidence
        tool = friction.call.name if friction.call else "?"
        if friction.why:
            return friction
        if lessons.environment_fact(evidence):
            friction.why = "an environment fact"
        elif not error.resolved and self._failures[error.call] >= 2 and \
                not lessons.routine_error(evidence):
            friction.why = (f"the same call failed {self._failures[error.call]} times "
                            "and the agent did not get past it")
        else:
            friction.extra["signature"] = lessons.error_signature(tool, evidence)
        return friction

    def _settle(self, sidechain: bool) -> None:
        thread = self._threads[sidechain]
        stop, thread.stop = thread.stop, None
        thread.unanswered = None
        typed_first = stop is not None and stop.extra.pop(_TYPED_FIRST, False)
        if stop is not None and stop.reason and typed_first:
            self._judge(stop, stop.reason, None)  # its reason typed before it, none after
        elif stop is not None and self._stands_alone(stop):
            self._keep(stop)  # a change refused with no reason typed: still a rule

    @staticmethod
    def _stands_alone(stop: Friction) -> bool:
        """Is a stop with no reason still a lesson? A change refused at the main thread's prompt
        is (ask first); an Esc is not, nor a refused call that only looks, nor a subagent's call
        refused without a word (the person answers the subagent's prompt, and says why, if at
        all, to the main thread)."""
        if stop.kind == "interruption":
            return False
        return stop.kind != "rejection" or not (stop.sidechain or lessons.only_looks(stop.calls))

    def _keep(self, stop: Friction) -> None:
        """A stop is a friction; a refusal with no word that says why ("continue", nothing) waits
        to see whether the agent then runs the same call (`tool_succeeded`)."""
        if stop.reason:
            said = " ".join(stop.reason.split())
            # The same words sent again after the next stop ("the correct folder was …", typed
            # twice as the agent went wrong twice, the second time with a sentence added): one
            # lesson, its records of both, and what was added.
            earlier = self._reasons.get(said) or next(
                (f for f in self._openings.get(said[:_REPEATED_CHARS], ())
                 if f.reason and _adds_to(" ".join(f.reason.split()), said, f, stop)), None)
            if earlier is not None and earlier.reason:
                added = said[len(" ".join(earlier.reason.split())):].strip()
                if added:
                    earlier.reason = _joined(earlier.reason, added)
                earlier.record_uuids.extend(u for u in stop.record_uuids if u not in earlier.record_uuids)
                if stop.extra.get("events"):
                    earlier.extra.setdefault("events", []).extend(stop.extra["events"])
                return
            self._reasons[said] = stop
            if len(said) >= _REPEATED_CHARS:
                self._openings.setdefault(said[:_REPEATED_CHARS], []).append(stop)
        self.frictions.append(stop)
        if stop.kind == "rejection" and stop.calls and lessons.says_nothing(stop.reason):
            signatures = {_signature(c) for c in stop.calls}
            self._to_run[id(stop)] = len(signatures)
            for signature in signatures:
                self._refused.setdefault(signature, []).append(stop)
