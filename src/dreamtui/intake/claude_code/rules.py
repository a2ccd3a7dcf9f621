"""The text rules: which tool errors and typed turns are friction, and of which kind.

Precision first: a rule fires on Claude Code's own fixed texts, or on a typed turn whose *opening*
contradicts what the agent had just done, never on a word anywhere. Every function here is pure
text in, verdict out; the order-dependent rules (an interrupt marker settling a rejection, a
correction only right after the agent acted) are `frictions.Detector`'s.

| kind          | type        | fires on                                                            |
|---------------|-------------|---------------------------------------------------------------------|
| rejection     | failure     | a tool_result with `is_error: true` whose content starts "The user   |
|               |             | doesn't want to proceed with this tool use. The tool use was        |
|               |             | rejected" or "The user doesn't want to take this action right now." |
|               |             | The reason the person typed follows "To tell you how to proceed,    |
|               |             | the user said:".                                                    |
| clarification | observation | a rejection whose reason begins "The user wants to clarify these     |
|               |             | questions." — the person had questions, not an objection.           |
| interruption  | observation | a user text "[Request interrupted by user…]" (or a tool_result with |
|               |             | it). A reason-less rejection followed by that text is the Esc key:  |
|               |             | an interruption, not a rejection.                                   |
| hook_block    | failure     | an error result naming a hook that blocked or denied the call       |
|               |             | ("PreToolUse:Bash hook error", "Blocked by hook").                  |
| denial        | failure     | an error result "Permission to use <Tool> … has been denied" (a      |
|               |             | permission rule or the auto-mode classifier).                       |
| tool_error    | failure     | any other error result; the tool is named by the matching tool_use. |
| correction    | failure     | a typed turn right after the agent acted (never the first turn,     |
|               |             | never in a subagent, whose "user" is the parent agent) opening with |
|               |             | "no"/"nope" + a contradiction cue ("no, use …", "no. revert"), a     |
|               |             | bare "no", "don't …"/"stop …" (not "don't worry/forget"), "that's    |
|               |             | wrong / not what I asked" at a sentence start, "revert that",       |
|               |             | "I said …", "wrong …", or "actually/wait, … instead". Optional       |
|               |             | openers ("actually,", "wait,", "hmm,") are stripped first, so        |
|               |             | "actually, also add …" and "no worries" never fire. "no"/"don't"    |
|               |             | answering a question the agent just asked ("?") is an answer.        |

Skipped text: compaction summaries ("This session is being continued from a previous
conversation"), command wrappers (`<command-name>`, `<command-message>`, `<local-command-stdout>`,
`<bash-input>`, …), `<system-reminder>` blocks and `Caveat:` lines. (Records Claude Code marks
`isMeta` or `isCompactSummary` never reach these rules: the parser drops them.)
"""

from __future__ import annotations

import re
from collections.abc import Callable

KIND_TYPES: dict[str, str] = {
    "rejection": "failure",
    "clarification": "observation",
    "interruption": "observation",
    "hook_block": "failure",
    "denial": "failure",
    "tool_error": "failure",
    "correction": "failure",
}

_REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected",
             "The user doesn't want to take this action right now.")
_REASON_MARK = "To tell you how to proceed, the user said:"
_CLARIFY = "The user wants to clarify these questions."
_INTERRUPTED = "[Request interrupted by user"
_COMPACTION = "This session is being continued from a previous conversation"
_WRAPPERS = ("<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
             "<local-command-stderr>", "<bash-input>", "<bash-stdout>", "<bash-stderr>",
             "<user-memory-input>")

_HOOK = re.compile(r"\b(?:Pre|Post)ToolUse(?::\S+)? hook\b|\bblocked by (?:an? |the )?(?:\S+ )?hook\b"
                   r"|\bhook\b[^\n]{0,120}?\b(?:blocked|denied|blocking)\b", re.IGNORECASE)
_DENIED = re.compile(r"Permission to use (\S+?)\b[^\n]{0,400}?has been denied")
_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
_TOOL_ERROR_TAG = re.compile(r"</?tool_use_error>")

# Corrections (module docstring). Applied to the first sentence-ish of a lowercased typed turn.
_SEP = r"[\s,.!:;\u2013\u2014-]"
_OPENER = re.compile(rf"^(?:(?:actually|wait|hmm+|um+|oh|ugh|sorry|hold on)\b{_SEP}*)+")
_NO_CUE = re.compile(
    rf"^(?:no|nope|nah)(?:{_SEP}+(?:use|using|don'?t|do not|not|never|stop|wrong|revert|undo|"
    r"instead|rather|i said|i meant|i asked|i told|i want|leave|keep|you should|you shouldn'?t|"
    r"you need|we should|we need|we don'?t|it should|that should|this should|that'?s not|"
    r"that is not|it'?s not|it is not|this is not|that'?s wrong|put|call|run|remove|delete|"
    r"go back|the other|change|switch)\b|[\s.!]*$)")
_DONT = re.compile(r"^(?:don'?t|do not|never|stop)\b(?!\s+(?:worry|forget|hesitate|mind)\b)")
_WRONG = re.compile(r"(?:^|[.!?;]\s+)(?:that'?s|that is|this is|it'?s|it is)\s+"
                    r"(?:wrong|incorrect|not (?:right|correct|what i (?:asked|wanted|meant|said)))\b")
_IMPERATIVE = re.compile(r"^(?:wrong\b|(?:revert|undo|roll back)\s+(?:that|this|it|the|your|those|"
                         r"these)\b|i (?:said|told you|meant)\b|i asked (?:you )?(?:to|for|not)\b)")
_INSTEAD = re.compile(r"^(?:(?:actually|wait)\b[^.!?\n]*|(?:please\s+)?use\s[^.!?\n]*)\binstead\b")
_ANSWERABLE = frozenset({"no", "dont"})


def _plain_quotes(text: str) -> str:
    return text.replace("\u2019", "'")


def clean_user_text(text: str) -> str:
    """A typed turn without reminders and caveats; "" when the whole turn is a skip rule."""
    text = _REMINDER.sub("", text)
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("Caveat:")]
    text = "\n".join(lines).strip()
    if text.startswith(_COMPACTION) or text.startswith(_WRAPPERS):
        return ""
    return text


def is_interruption(text: str) -> bool:
    """Is this cleaned typed text Claude Code's interrupt marker?"""
    return text.startswith(_INTERRUPTED)


def error_text(content: str) -> str:
    """A failed tool result's text without reminders and Claude Code's error tags."""
    return _TOOL_ERROR_TAG.sub("", _REMINDER.sub("", content)).strip()


def classify_tool_error(content: str) -> tuple[str, str | None]:
    """(kind, the reason the person typed) of a tool_result marked `is_error`."""
    text = _plain_quotes(content).lstrip()
    if text.startswith(_REJECTED):
        reason = text.partition(_REASON_MARK)[2].strip() or None
        if reason is not None and reason.startswith(_CLARIFY):
            return "clarification", reason
        return "rejection", reason
    if text.startswith(_INTERRUPTED):
        return "interruption", None
    if _HOOK.search(text):
        return "hook_block", None
    if _DENIED.search(text):
        return "denial", None
    return "tool_error", None


def denied_tool(text: str) -> str | None:
    """The tool a denial names ("Permission to use <Tool> …"), for a result without its call."""
    denied = _DENIED.search(text)
    return denied.group(1) if denied else None


def correction_rule(text: str) -> str | None:
    """The correction rule a typed turn's opening matches, or None (module docstring)."""
    lowered = _plain_quotes(text).lower().strip()[:300]
    head = _OPENER.sub("", lowered)
    if _NO_CUE.match(head):
        return "no"
    if _DONT.match(head):
        return "dont"
    if _IMPERATIVE.match(head):
        return "imperative"
    if _WRONG.search(head):
        return "wrong"
    if _INSTEAD.match(lowered):  # needs its opener: "actually, … instead"
        return "instead"
    return None


def is_correction(text: str, agent_said: Callable[[], str | None]) -> bool:
    """Does a typed turn correct the agent? `agent_said` gives the agent's last words, asked
    for only when the verdict depends on them (a "no" answering a question is an answer)."""
    rule = correction_rule(text)
    if rule in _ANSWERABLE:
        said = agent_said()
        return not (said and said.rstrip().endswith("?"))
    return rule is not None
