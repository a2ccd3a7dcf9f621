"""Claude Code's own texts and signals: which failed tool results are rejections, Escs, plan
rejections, clarifications, denials or hook blocks, and which user texts are not the person's.

Every function here is pure, text and record signals in, verdict out; the order-dependent rules
(the person's next typed turn is the reason; an acknowledgement in the agent's next reply) are
`frictions.Detector`'s, the language rules for corrections `dreamtui.intake.corrections`.

| kind           | fires on                                                                   |
|----------------|----------------------------------------------------------------------------|
| rejection      | a tool_result "The user doesn't want to proceed with this tool use. The    |
|                | tool use was rejected…" (or "…take this action right now."), or            |
|                | `toolUseResult: "User rejected tool use"`, or `toolDenialKind` naming the  |
|                | person — at a permission prompt. The reason is the text after "To tell you |
|                | how to proceed, the user said:" (without Claude Code's "Note: The user's   |
|                | next message may contain a correction…" after it), else the person's next  |
|                | typed turn. Claude Code 2.0.x wrote the typed reason as the whole result   |
|                | (`toolUseResult` "Error: <the words>"): an untagged error of a file edit   |
|                | that is none of the edit tools' own errors is that.                        |
| plan_rejection | that rejection of `ExitPlanMode`: the plan refused; its `plan` is quoted;  |
|                | or its result "User chose to stay in plan mode and continue planning" (the |
|                | person's next typed turn is the reason). Not one when the text typed at   |
|                | the prompt is pasted material, not the person's reason (`reason_at_plan`: |
|                | the plan itself pasted back, a pasted review approving it; a question     |
|                | about the plan, another task: `asks_about_plan`, `asks_otherwise`), nor   |
|                | when the next turn is Claude Code's hand-off of an accepted plan to a     |
|                | cleared context ("Implement the following plan:", `is_plan_handoff`).     |
| clarification  | that rejection of `AskUserQuestion`, or a reason opening "The user wants to |
|                | clarify these questions." — questions, not an objection.                  |
| (no reason)    | what is typed at a rejection or an Esc that says no why (`no_reason`): a   |
|                | question only (`asks_about_plan`), the person hurrying the agent           |
|                | (`hurries`: "为什么这么久还没好"; "太慢了" judges the way, a reason),       |
|                | another session pasted (`pasted_transcript`), the next piece of work       |
|                | opened (`opens_next_work`: "next task: …", "接下来…").                     |
| interruption   | the Esc key: `[Request interrupted by user…]` as a tool result or a user   |
|                | text, "Interrupted by user", `toolDenialKind` `interrupted`/`cancelled`,   |
|                | or a reason-less rejection while `permissionMode` is `bypassPermissions`  |
|                | (no prompt is shown in that mode: the call was stopped, not refused).     |
| hook_block     | an error naming a hook that blocked the call ("PreToolUse:Bash hook        |
|                | error", "Blocked by hook"), or an error of a call a PreToolUse hook ran   |
|                | for that is not the tool's own error shape (the hook's stderr; an MCP    |
|                | server's JSON-RPC error and Claude Code's own checks are the tool's), or an |
|                | untagged error that opens with a guard's verdict in capitals ("BLOCKED:  |
|                | Test files protected…", "DENIED -", "🚫"): a hook's message, never words |
|                | the person typed at a prompt, even on a file edit.                       |
| denial         | "Permission to use <Tool> … has been denied", "Permission for this action |
|                | was denied…" (a permission rule or the auto-mode classifier), or another  |
|                | `toolDenialKind`.                                                          |
| tool_error     | any other error result (`dreamtui.intake.lessons` decides if it is worth   |
|                | a lesson).                                                                 |

Not the person's words (never a correction or a reason): compaction summaries, command
wrappers (`<command-name>`, `<local-command-stdout>`, `<bash-input>`, …) and Claude Code's
answer to an unknown slash command ("Unknown skill: btw"), `<system-reminder>`
blocks, the IDE's context (`<ide_opened_file>`, `<ide_selection>`, any `<ide_…>` tag: a
selection is kept after the person's words as what they were looking at), `Caveat:` lines,
"Stop hook feedback:" and other hook output, `<task-notification>`s, skill bodies ("Base
directory for this skill:"), the subagent warm-up ("Warmup", which Claude Code also returns as
each call's failed result: no friction), and every user text of a session the Agent SDK ran
(`entrypoint` `sdk-*`) but the turn after a refusal or an Esc there (a person is at the prompt),
and every turn of such a session once a slash command was typed in it (an IDE's prompt).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dreamtui.intake import corrections
from dreamtui.vocabulary import WIDE_CHAR

_REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected",
             "The user doesn't want to take this action right now.")
_USER_REJECTED = "User rejected tool use"
# Claude Code has written the typed reason after either phrase (2.1.8x+ uses the second).
_REASON_MARKS = ("To tell you how to proceed, the user said:",
                 "The user provided the following reason for the rejection:")
_CLARIFY = "The user wants to clarify these questions."
# Claude Code's instructions to the agent after it (2.1.5x+), then the agent's own questions: not
# the person's words, who types them next.
_CLARIFY_NOTE = re.compile(r"\s*This means they may have additional information.*\Z", re.DOTALL)
# Claude Code's own note to the agent after a typed reason (2.1.2xx), not the person's words.
_NEXT_NOTE = re.compile(r"\s*Note: The user's next message may contain a correction or preference\..*\Z",
                        re.DOTALL)
_INTERRUPTED = "[Request interrupted by user"
# The person chose "No, keep planning" at the plan's prompt (Claude Code 2.1.x): a plan rejection,
# whose reason they type next.
_STAYED = "User chose to stay in plan mode"
# Claude Code's first turn of a cleared context when the person accepts a plan with "Yes, clear
# context and auto-accept edits": it refuses the ExitPlanMode call itself to end the planning
# conversation (the rejection and the interrupt marker are written as for a refusal), and sends the
# plan to the new one in these words. The plan was accepted: no refusal, and no one's correction.
_HANDOFF = "Implement the following plan:"
_INTERRUPTED_RESULT = ("Interrupted by user", "[Request interrupted by user")
_COMPACTION = "This session is being continued from a previous conversation"
_WRAPPERS = ("<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
             "<local-command-stderr>", "<local-command-caveat>", "<bash-input>", "<bash-stdout>",
             "<bash-stderr>", "<user-memory-input>", "<task-notification>",
             "<user-prompt-submit-hook>", "Stop hook feedback:", "Base directory for this skill:",
             "PreToolUse:", "PostToolUse:", "UserPromptSubmit hook", "SessionStart hook",
             "[SUGGESTION MODE", "Unknown skill:", "Unknown slash command:", "Unknown command:")
_PROGRAM_TURNS = frozenset({"Warmup"})
# The IDE's comment on a selection: the quoted lines, then (after any bare "?") the person's words.
_SELECTED = "On selected text:"
_SELECTION = re.compile(r"On selected text:\s*\n((?:>[^\n]*(?:\n|\Z))+)(?:[\s?!.]*\n)?\s*(\S.*)?\Z",
                        re.DOTALL)  # the whole text of turns Claude Code sends itself
_NOT_HUMAN_ANYWHERE = re.compile(r"^\s*(?:<[a-z-]+>\s*)?(?:Stop|SubagentStop|UserPromptSubmit|"
                                 r"PreToolUse|PostToolUse|Notification)(?::\S+)? hook"
                                 # Claude Code's status line pasted or relayed: "Ran 1 stop hook\n⎿ …"
                                 r"|^\s*Ran \d+ (?:stop|subagentstop|pretooluse|posttooluse|sessionstart|"
                                 r"userpromptsubmit|notification)?\s*hooks?\b", re.IGNORECASE)
_ESC_DENIALS = frozenset({"interrupted", "cancelled", "canceled", "interrupt"})
_PERSON_DENIALS = frozenset({"user-rejected", "user_rejected", "rejected", "user", "user-denied"})
_NO_PROMPT_MODES = frozenset({"bypassPermissions"})

_HOOK = re.compile(r"\b(?:Pre|Post)ToolUse(?::\S+)? hook\b|\bblocked by (?:an? |the )?(?:\S+ )?hook\b"
                   r"|\bhook\b[^\n]{0,120}?\b(?:blocked|denied|blocking)\b", re.IGNORECASE)


def _hook_blocks(text: str) -> bool:
    # Every alternative of `_HOOK` says "hook", and what IGNORECASE lets match it (K, U+212A
    # for k) lower-cases to it: without "hook" the slow case-blind search has nothing to find.
    return "hook" in text.lower() and _HOOK.search(text) is not None
_DENIED = re.compile(r"Permission to use (\S+?)\b[^\n]{0,400}?has been denied"
                     r"|Permission for this action (?:was|has been) denied")
_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
# What an IDE extension puts before the person's words: the file open, the lines selected ("The
# user selected the lines 13 to 18 from /…/grid.hbs:\n<lines>\n\nThis may or may not be related
# to the current task."); never the person's words, a selection being what they looked at.
_IDE_TAG = re.compile(r"<(ide_[a-z_]+)>(.*?)(?:</\1>|\Z)\s*", re.DOTALL)
_IDE_SELECTED = re.compile(r"The user selected the lines? (\d+)(?: to (\d+))? from (.+?):\n(.*?)"
                           r"(?:\n\s*This may or may not be related to the current task\.)?\s*\Z",
                           re.DOTALL)
_TOOL_ERROR_TAG = re.compile(r"</?tool_use_error>")
_OWN_ERROR = re.compile(r"^(?:Error: )?(?:Exit code \d+|Command timed out|Command failed|"
                        r"InputValidationError|File does not exist|File has not been read|"
                        r"String to replace not found|Sibling tool call errored|EISDIR|ENOENT|"
                        r"File content \(\d+ tokens\) exceeds maximum allowed tokens|"
                        # an MCP server's error (a JSON-RPC error object, the SDK's "Error executing
                        # tool"), Claude Code's own checks of a call ("Tool permission request failed",
                        # a path or a settings file it validates): a hook that matches every tool ran
                        # before them and let the call through
                        r"[^\n]{0,80}\{\s*\"code\"\s*:\s*-32\d{3}|MCP error -?\d+|Error executing tool|"
                        r"Tool permission request failed|Path \"[^\"\n]*\" does not exist|"
                        r"Claude Code settings\.json validation failed)")

# The edit tools' own errors; Claude Code 2.0.x wrote them untagged, like a reason typed at the
# prompt (every later version wraps them in <tool_use_error>).
_FILE_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
_FILE_OWN_ERROR = re.compile(r"^(?:Error: )?(?:File (?:has|does|is|content)|No changes to make|"
                             r"String to replace not found|Found \d+ matches|Cannot |Notebook |"
                             r"InputValidationError|E[A-Z]{2,}\b|[A-Za-z]*Error\b|"
                             r"User (?:cancelled|canceled|refused|declined)|The user declined|"
                             r"Tool permission request failed)")

# A guard's verdict said first, in capitals or as a stop sign ("BLOCKED: Test files protected
# during implementation.", "[DENIED] rm -rf", "⛔ …"): what a PreToolUse hook prints when it
# exits 2. People type their reasons in their own words; Claude Code's own errors are tagged.
_GUARD_VERDICT = re.compile(r"^\W{0,3}(?:BLOCKED|DENIED|FORBIDDEN|REFUSED|NOT ALLOWED|PROHIBITED|"
                            r"PROTECTED)\b(?!-)|^(?:🚫|⛔|🛑)")


@dataclass(frozen=True)
class Signals:
    """What the record around a failed tool result says, besides its text."""

    tool: str | None = None  # the tool_use's name
    user_rejected: bool = False  # toolUseResult "User rejected tool use"
    denial_kind: str | None = None  # toolDenialKind
    mode: str | None = None  # the session's permissionMode at the time
    hooked: str | None = None  # the PreToolUse hook that ran for this call, if one did
    tagged: bool = False  # the result was wrapped in <tool_use_error>: the tool's own error


def _plain_quotes(text: str) -> str:
    return text.replace("\u2019", "'")


def clean_user_text(text: str) -> str:
    """A typed turn without reminders and caveats; "" when the whole turn is not the person's.
    A comment on text selected in the IDE ("On selected text:\n> Lovely LeCun\n?\nNETWEB forbids
    …") puts the person's words first and the selection after them."""
    text = _REMINDER.sub("", text)
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("Caveat:")]
    text = "\n".join(lines).strip()
    if text.startswith(_COMPACTION) or text.startswith(_WRAPPERS) or text in _PROGRAM_TURNS \
            or _NOT_HUMAN_ANYWHERE.match(text):
        return ""
    return _words_first(text)


def turn_words(text: str) -> str:
    """The words of a typed turn as every copy of it holds them: a resumed session's replay
    splits the IDE's tags into records of their own and drops reminders, so neither counts."""
    return " ".join(_IDE_TAG.sub("", _REMINDER.sub("", text)).split())


def _ide_selection(tag: str, body: str) -> str | None:
    """The lines an `<ide_selection>` quotes, said as where the person was looking."""
    selected = _IDE_SELECTED.match(body.strip()) if tag == "ide_selection" else None
    if not selected:
        return None
    first, last, path, lines = selected.groups()
    where = f"lines {first}–{last}" if last and last != first else f"line {first}"
    quoted = " ".join(lines.split())
    quoted = quoted if len(quoted) <= 200 else quoted[:199] + "…"
    return f"(on {where} of {path.strip()} selected in the IDE: “{quoted}”)"


def _without_ide(text: str) -> str:
    """The person's words without the IDE's tags, a selection after them; "" when only tags."""
    if "<ide_" not in text:
        return text
    context = [c for c in (_ide_selection(m.group(1), m.group(2)) for m in _IDE_TAG.finditer(text))
               if c]
    words = _IDE_TAG.sub("", text).strip()
    return "\n".join([words, *context]) if words else ""


def _words_first(text: str) -> str:
    """A comment on a selection with the person's words first, the selection after them."""
    text = _without_ide(text)
    if text.startswith(_SELECTED):
        selection = _SELECTION.match(text)
        if selection and selection.group(2):
            quoted = " ".join(line.lstrip("> ").strip() for line in selection.group(1).splitlines())
            return f"{selection.group(2).strip()}\n(on the selected text “{quoted.strip()}”)"
    return text


def is_program_result(text: str) -> bool:
    """A failed result that is Claude Code's own turn, not the tool's: the subagent warm-up answers
    each call with "Warmup"."""
    return text.strip() in _PROGRAM_TURNS


def is_interruption(text: str) -> bool:
    """Is this cleaned typed text Claude Code's interrupt marker?"""
    return text.startswith(_INTERRUPTED)


def is_sdk(entrypoint: str | None) -> bool:
    """A session the Agent SDK ran: its "user" turns are a program's (unless `is_slash_command`)."""
    return bool(entrypoint) and str(entrypoint).startswith("sdk")


def is_slash_command(text: str) -> bool:
    """A slash command typed at the prompt ("/model", "/clear"): a program driving the Agent SDK
    sends prompts, not commands, so a session with one has a person at an IDE's prompt."""
    return text.lstrip().startswith("<command-name>/")


_RUNS_COMMAND = ("<command-name>", "<command-message>", "Base directory for this skill:")


def runs_command(text: str) -> bool:
    """Is a user text the person's slash command or the skill it loads ("<command-message>The
    "deploy-check" skill is running…", "Base directory for this skill: …")? The agent's work
    from then on is that command's."""
    return text.lstrip().startswith(_RUNS_COMMAND)


def error_text(content: str) -> str:
    """A failed tool result's text without reminders and Claude Code's error tags; a hook that
    printed its newlines escaped (`failed:\\n\\n[FORMAT]`) gets them back."""
    text = _TOOL_ERROR_TAG.sub("", _REMINDER.sub("", content)).strip()
    if "\\n" in text.split("\n", 1)[0]:
        text = text.replace("\\n", "\n")
    return text


def classify_tool_error(content: str, signals: Signals | None = None) -> tuple[str, str | None]:
    """(kind, the reason the person typed) of a tool_result marked `is_error` (module docstring)."""
    signals = signals or Signals()
    text = _plain_quotes(content).lstrip()
    denial = (signals.denial_kind or "").lower() or None
    rejected = text.startswith(_REJECTED) or signals.user_rejected or denial in _PERSON_DENIALS
    if denial in _ESC_DENIALS:
        return "interruption", None
    if text.startswith(_STAYED) and signals.tool in (None, "ExitPlanMode"):
        return "plan_rejection", None
    if rejected:
        reason = _words_first(next((_NEXT_NOTE.sub("", text.partition(mark)[2]).strip()
                                    for mark in _REASON_MARKS if mark in text), "")) or None
        if (reason is not None and reason.startswith(_CLARIFY)) or signals.tool == "AskUserQuestion":
            if reason is not None and reason.startswith(_CLARIFY):
                reason = _CLARIFY_NOTE.sub("", reason[len(_CLARIFY):]).strip() or None
            return "clarification", reason
        if signals.tool == "ExitPlanMode":
            return "plan_rejection", reason
        if reason is None and signals.mode in _NO_PROMPT_MODES and denial is None:
            return "interruption", None
        return "rejection", reason
    if text.startswith(_INTERRUPTED_RESULT) or (_INTERRUPTED + " for tool use]") in text[:400]:
        return "interruption", None
    if _hook_blocks(text):
        return "hook_block", None
    if _DENIED.search(text) or denial is not None:
        return "denial", None
    if not signals.tagged and (_GUARD_VERDICT.match(text) or (
            signals.hooked and not _OWN_ERROR.match(text))):
        return "hook_block", None
    if signals.tool in _FILE_TOOLS and not signals.tagged and not _FILE_OWN_ERROR.match(text):
        return "rejection", _words_first(text) or None  # 2.0.x: the words typed at the prompt
    return "tool_error", None


def names_a_block(text: str) -> bool:
    """Does a hook's message say it blocked or denied a call?"""
    return _hook_blocks(text)


def denied_tool(text: str) -> str | None:
    """The tool a denial names ("Permission to use <Tool> …"), for a result without its call."""
    denied = _DENIED.search(text)
    return denied.group(1) if denied and denied.group(1) else None


def is_plan_handoff(text: str) -> bool:
    """Is a typed turn Claude Code's hand-off of an accepted plan to a cleared context
    (`_HANDOFF`)? The refusal before it ended the planning conversation; the person refused nothing."""
    return text.lstrip().startswith(_HANDOFF)


_WORD = re.compile(r"\w+")
# Characters of a plan a call keeps (the parser clips it), and so how much of a text typed at a
# plan's prompt is compared with the plan.
PLAN_CHARS = 2000
_PASTED_BACK = 0.8  # share of its words the plan has, that makes a text the plan pasted back
_PASTED_REVIEW = 600  # characters: shorter, a text is typed ("Great plan -- also add …"), not pasted
# Claude Code's plan viewer, copied with the plan: its words, not the person's.
_PLAN_VIEWER = re.compile(r"^\s*(?:Ready for review|Select text to add comments on the plan)\s*$")
# The first sentence of a review that approves the plan: "This version is **solid and ready for v1
# implementation**.", "The implementation plan you've outlined is excellent—…", "LGTM".
_APPROVES = re.compile(
    r"\b(?:is|are|looks?|seems?|reads?)\s+(?:now\s+)?(?:very\s+|really\s+|quite\s+|all\s+)?(?:excellent|solid|"
    r"strong|great|good|sound|correct|ready|approved|production[- ]ready|well[- ](?:designed|structured|"
    r"thought[- ]out))\b|\bapproved\b|\blgtm\b|\bready (?:for|to) (?:implementation|implement|go|ship|coding)\b"
    r"|(?:计划|方案|设计)(?:整体|总体)?上?(?:非常|很|十分|已经|已)?(?:好|不错|可行|合理|完善|成熟|没问题|可以(?:开始)?(?:执行|实施))",
    re.IGNORECASE)
# What keeps a review from approving as it stands: a reservation in the same sentence ("…, with two
# small but mandatory corrections", "very close, but …").
_RESERVED = re.compile(r"\b(?:but|however|though|although|except|unless|before|needs?|must|missing|"
                       r"issues?|problems?|concerns?|bugs?|fix(?:es)?|corrections?|changes|gaps?|not|"
                       r"almost|nearly|close)\b|不过|但|问题|需要|缺", re.IGNORECASE)
_MARKUP = re.compile(r"[*_`#>]+")
_FIRST_SENTENCE = re.compile(r"[.!?。！？](?:\s|$)|\n")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def reason_at_plan(text: str, plan: str | None) -> str | None:
    """The person's reason in the text typed at a rejected plan's prompt, None when it is pasted
    material with nothing of theirs: the plan itself pasted back unchanged (as long as half the
    plan or `_PASTED_REVIEW` characters, `_PASTED_BACK` of its first words the plan's), or a pasted
    review (`_PASTED_REVIEW` characters or more) whose first sentence approves the plan with no
    reservation. A plan pasted back with lines the person changed or added (lines whose words do
    not run in the plan in that order) gives those lines (what is compared is the plan's first
    `PLAN_CHARS` characters, all a call keeps of it). A pasted critique ("This is very close, but
    …", "Strengths … Weaknesses …") is the person's reason, in another's words."""
    lines = [line for line in text[:PLAN_CHARS].splitlines() if not _PLAN_VIEWER.match(line)]
    words = _words("\n".join(lines))
    # A paste is long: a line or two typed in the plan's own terms ("Do not use Redis for the
    # limiter") is the person's reason, however many of its words the plan holds.
    if plan and len(words) >= 12 and len(text) >= min(_PASTED_REVIEW, len(plan) // 2):
        planned = _words(plan[:PLAN_CHARS])
        if len(words & planned) >= _PASTED_BACK * len(words):
            # A line is the plan's when its words run in the plan in that order (Markdown and
            # numbering aside), not when the plan merely holds each of them.
            sequence = f" {' '.join(_WORD.findall(plan[:PLAN_CHARS].lower()))} "

            def pasted(line: str) -> bool:
                return f" {' '.join(_WORD.findall(line.lower()))} " in sequence

            whole = lines if len(text) <= PLAN_CHARS else lines[:-1]  # else the last is cut short
            if len(plan) >= PLAN_CHARS - 1 or plan.endswith("…"):
                # The call kept the plan's head only: past the last line found in it, the paste
                # (shorter without the plan's Markdown) cannot be compared.
                found = [n for n, line in enumerate(whole) if _words(line) and pasted(line)]
                whole = whole[:found[-1] + 1] if found else []
            changed = [line.strip() for line in whole if _words(line) and not pasted(line)]
            return "\n".join(changed) or None
    if asks_about_plan(text) or asks_otherwise(text, plan):
        return None  # a question before deciding, or another task: no reason of the refusal
    if len(text) < _PASTED_REVIEW:
        return text
    plain = _MARKUP.sub("", text).strip()
    end = _FIRST_SENTENCE.search(plain)
    first = plain[:end.start() if end else 400]
    return None if _APPROVES.search(first) and not _RESERVED.search(first) else text


# A sentence that asks: a question mark, a Chinese question particle at its end or a question word
# in it (吗, 呢, 什么, 怎样, 哪些, 是否 …), a plain English question (`corrections.only_asks`), or a
# request to explain ("explain point 1", "解释一下…").
# A 是否 after a verb of deciding or checking ("我再决定是否实施", "先确认是否为这个路径") says what
# will be decided, and asks nothing.
# (How a thing was done, 分析了如何调整, is said, not asked.)
_ASKS_ZH = re.compile(r"(?:吗|呢|么|嘛)\W*$|[?？]\W*$|什么|为什么|为何|怎么|(?<!了)怎样|(?<!了)如何|哪些|哪个|哪里|"
                     r"(?<!决定)(?<!确认)(?<!判断)(?<!检查)(?<!考虑)(?<!评估)(?<!看)是否|有没有|多少"
                     # 大不大, 是不是, 要不要: a question by its shape; not the adverbs 时不时 (now and
                     # then) and 动不动 (at every turn), which say how often
                     r"|(?!时不时|动不动)([\u4e00-\u9fff])[不没]\1")
_EXPLAIN = re.compile(r"^(?:please |can you |could you )?(?:explain|describe|clarify|elaborate|walk me through|"
                      r"tell me (?:what|why|how|which|more)|what|why|how|which)\b"
                      r"|^(?:i (?:want|would like|'d like) to know|i wonder)\b"
                      r"|^请?(?:解释|介绍|说明|讲讲|说说|讲解)|^(?:我想(?:知道|问)|想问一下)", re.IGNORECASE)
# A clause offering the question's other side ("…是否找到了现成的方案，或者稍加修改就能用的"): still
# the question.
_ALTERNATIVE = re.compile(r"^(?:or\b|或者|或是|抑或|还是(?!不|没))", re.IGNORECASE)  # not 还是不行: "still fails"
# A question that proposes ("what if we …", "why not …", "如果我们修改…呢"): an instruction about
# the plan said as a question.
_PROPOSES = re.compile(r"^(?:what if|what about|how about|why not|why don'?t|could we|can we|"
                       r"shouldn'?t (?:we|you|it)|should(?:n'?t)? we|wouldn'?t it|would it be better)\b"
                       r"|^(?:如果|要不|能不能|可不可以|是不是应该|为什么不|何不)", re.IGNORECASE)
# A sentence that tells the agent what to change or avoid, besides the questions.
_INSTRUCTS = re.compile(r"\b(?:don'?t|do not|never|instead|rather|avoid|must|need to|needs to|should|only|"
                        r"keep|remember|make sure|without|you (?:can|could|may))\b|不要|别|不用|不需要|先不|暂不|保持|"
                        r"而不是|只|必须|需要|应该|改成|改为|换成|记住|注意|避免|你可以|您可以"
                        # the way to work, said first ("用计划模式，…"), and an opinion ("我感觉…不…，你觉得呢")
                        r"|^请?(?:先)?(?:用|使用|改用|换用|采用)|^(?:i think|i feel|i believe)\b|^我(?:感觉|觉得|认为)",
                        re.IGNORECASE)
# A question that points at a gap in the plan ("Does this properly handle Microsoft accounts?", "Are
# these actually based on the conventions?", "会不会漏掉…"): a challenge, the person's reason.
_CHALLENGES = re.compile(r"\b(?:actually|really|properly|correctly|handles?|cover(?:s|ed)?|accounts? for|"
                         r"miss(?:es|ed|ing)?|forg[eo]t(?:ten)?|consider(?:s|ed)?|break(?:s)?|safe)\b"
                         r"|真的|确实|考虑|遗漏|漏掉|覆盖|会不会", re.IGNORECASE)
_CLAUSES = re.compile(r"[。！？!?；;\n]+|(?<=[.])\s+")
_COMMA = re.compile(r"[，,]")  # not "、", which lists things in one clause
# Where the person's own words end: a blank line, a drawn box or table pasted after them.
_OWN_END = re.compile(r"\n\s*\n|[╔═║┌─│┏━]")
_OWN_CHARS = 400
_LETTER = re.compile(r"[^\W\d_]")
# A request to look harder before answering ("ultrathink, 深度访谈我", "think hard and interview me"):
# part of the question, no statement against the plan.
_EXAMINE = re.compile(r"(?:please |and )?(?:ultrathink|think (?:hard|harder|deeply)|interview me|ask me|"
                      r"review (?:it|this) (?:deeply|carefully))\b"
                      r"|(?:并|并且|再)?请?(?:深度|仔细|认真)?(?:访谈|采访|思考|review)",
                      re.IGNORECASE)


# A request said politely ("把端口都恢复成默认的可以吗", "…好不好"): it asks for the thing to be done.
_POLITE = re.compile(r"(?:可以|好|行)(?:吗|嘛)\W*$|(?:好不好|可不可以|行不行)\W*$")


# "Not yet" said with 呢 ("还没有深度分析计划呢": you have not analysed the plan yet): a statement.
_NOT_YET = re.compile(r"(?:还没|尚未|还不)[^，,。？?！!]*呢\W*$")


def _asks(clause: str) -> bool:
    if _POLITE.search(clause):
        return False
    if _NOT_YET.search(clause):
        clause = clause.rstrip().rstrip("。！!.").removesuffix("呢")
    return _ASKS_ZH.search(clause) is not None or _EXPLAIN.match(clause) is not None or \
        corrections.only_asks(clause)


def _lead_in(clause: str) -> bool:
    """A clause too short to state anything ("besides that", "除了文件", "另外"): what a question
    that follows it is about."""
    return len(_LETTER.findall(clause)) <= 4 if WIDE_CHAR.search(clause) else len(clause.split()) <= 2


def asks_about_plan(text: str) -> bool:
    """Does the text typed at a stop only ask ("explain point 1 …", "这个文档和当前代码实现符合吗",
    "为什么要生成问答对；这是什么意思", "怎么中断了")? A question before deciding is no reason for
    refusing a plan or a call: it names nothing to change. One that proposes ("what if …",
    "如果…呢"), corrects (`corrections.correction_rule`) or also says what to do ("…, and keep it
    in one file", "…是否只需要说一声，本次不同步，直接分析现有数据就行": a question word in one
    clause does not make the clauses after it ask) is a reason. Only the person's first words are
    read, not what they pasted after them."""
    own = _OWN_END.split(text.strip(), maxsplit=1)[0][:_OWN_CHARS]
    # A list's numbers ("1.", "2.") are no sentences.
    sentences = [c.strip() for c in _CLAUSES.split(own) if _LETTER.search(c)]
    if not sentences or _PROPOSES.match(sentences[0]) or not _asks(sentences[0]) or \
            _CHALLENGES.search(own) or corrections.correction_rule(own) is not None:
        return False
    # Every sentence ends asking, or asks the agent to look harder: a statement after the question
    # ("Why Redis? An in-memory bucket is enough", "…是否只需要说一声，本次不同步，直接分析现有数据
    # 就行") is the objection it was put for. What leads to the question ("根据我们的规范，这个文档
    # 和代码符合吗") is part of it.
    if not all(_EXAMINE.match(s) or _ends_asking(s) for s in sentences):
        return False
    # An instruction run into a question by a comma ("保持极简，不要过度工程化，…哪些合理") is one.
    clauses = [c.strip() for s in sentences for c in _COMMA.split(s) if c.strip()]
    return not any(_INSTRUCTS.search(c) and not _asks(c) for c in clauses)


def _ends_asking(sentence: str) -> bool:
    """Does a sentence ask in its last clause, anything after it only asking the agent to look
    harder or too short to state anything (`_lead_in`)?"""
    clauses = [c.strip() for c in _COMMA.split(sentence) if _LETTER.search(c)]
    asking = [n for n, c in enumerate(clauses) if _asks(c)]
    return bool(asking) and all(_EXAMINE.match(c) or _lead_in(c) or _ALTERNATIVE.match(c)
                                for c in clauses[asking[-1] + 1:])


# The person asking after the agent's pace, not about what it did: "为什么还没好", "怎么这么慢", "怎么卡住
#了", "is it stuck?", "why is this taking so long".
_HURRIES = re.compile(r"慢|太久|这么久|多久|卡住|卡死|还没好|还没完|好了吗|好了没|怎么中断|为什么中断|"
                      r"\bstuck\b|\bslow\b|"
                      r"so long\b|how long\b|still (?:running|working|going|loading)\b|are you done\b|\bfrozen\b",
                      re.IGNORECASE)
_HURRY_CHARS = 40  # a line; a longer text says more than that


# The person judging the way slow ("that's too slow", "太慢了"): the command or the approach is the
# wrong one, a reason, not a question after the pace.
_TOO_SLOW = re.compile(r"太慢|慢死|太久|\btoo slow\b", re.IGNORECASE)


def hurries(text: str) -> bool:
    """Is the text typed at a stop only the person hurrying the agent ("为什么这么久还没好", "is it
    stuck?")? Every clause asks or complains of the pace, none says what to do instead, nor judges
    the way too slow without asking (`_TOO_SLOW`: "that's too slow" after a `find /` says not to
    scan the disk)."""
    own = text.strip()
    if len(own) > _HURRY_CHARS or not _HURRIES.search(own):
        return False
    clauses = [c.strip() for s in _CLAUSES.split(own) for c in _COMMA.split(s) if _LETTER.search(c)]
    return all((_asks(c) or (_HURRIES.search(c) and not _TOO_SLOW.search(c))) and not _INSTRUCTS.search(c)
               for c in clauses)


# Another session pasted at the prompt: Claude Code's tool boxes as its screen shows them ("Bash List
# the folder" / "IN" / "OUT", "Found 101 files", "⏺ …", "⎿ …"), or a long text that opens with an
# agent announcing its next step ("Now I have traced the data flow. Let me write the review.",
# "数据都齐了。让我写出复核报告。"): an agent's words, not the person's why.
# (Blanks, not \s, around a line's marks: \s would run over blank lines, once from each of them.)
_TRANSCRIPT_LINE = re.compile(r"^[ \t]*(?:IN|OUT|[⏺⎿●][ \t].*|Found \d+ (?:files?|lines?|matches)|Read \d+ lines?|"
                              r"Globpattern:.*|Grep(?:pattern)?:.*)[ \t\r]*$", re.MULTILINE)
_AGENT_VOICE = re.compile(r"^(?:(?:now|ok(?:ay)?|great|perfect|good)\W+)?(?:let me (?:now |first )?(?:check|look|read|"
                          r"run|write|update|create|verify|analy[sz]e|fix|start|review|summari[sz]e|explore)|"
                          r"i'll (?:now |first )?(?:check|look|read|run|write|update|create|verify|analy[sz]e|fix|"
                          r"start|review|summari[sz]e|explore)|now i have (?:traced|checked|read|found|verified|"
                          r"reviewed|a (?:full|complete|clear)))\b"
                          r"|^(?:现在|好的?\W*)?让我(?:先|来|再)?(?:写|检查|查看|看看|分析|读|运行|更新|创建|确认|整理|总结|"
                          r"审查|复核|了解)|^现在我(?:对.{1,20}有了|已经?(?:完成|确认|检查|读完|拿到))", re.IGNORECASE)
_PASTED_CHARS = 200  # a line or two is typed, whatever voice it has
# A "● " line with no tool call on it ("● 先备份数据库"): a list as people type it, and a screen's
# prose line; only with another of the screen's marks is it a transcript.
_BULLET = re.compile(r"[ \t]*●[ \t](?![ \t]*[A-Z][\w-]*\()")
# How a pasted report is laid out besides its voice: paragraphs, headings, a list, a table, code.
_LAID_OUT = re.compile(r"\n[ \t]*\n[ \t]*\S"
                       r"|^[ \t]*(?:#{1,6}\s|[-*•●]\s|\d+(?:[.)]\s|、)|[一二三四五六七八九十]+、|```|\|)", re.MULTILINE)


def pasted_transcript(text: str) -> bool:
    """Is the text typed at a stop another session's transcript or an agent's report pasted
    (`_TRANSCRIPT_LINE`, `_AGENT_VOICE` in its first sentences and laid out as a report)? Whatever
    it holds, it says not why the person stopped this agent. "Let me check the folder myself
    first. …" in one paragraph is the person's own plan, and a list of "● " lines their list."""
    boxes = list(_TRANSCRIPT_LINE.finditer(text[:4000]))
    if len(boxes) >= 2 and not all(_BULLET.match(b.group()) for b in boxes):
        # unless the person said what was wrong before pasting it ("No DEBUG these ● …")
        before = text[:boxes[0].start()]
        return corrections.correction_rule(before) is None and not _INSTRUCTS.search(before)
    first = next((c.strip() for c in _CLAUSES.split(text[:400]) if _LETTER.search(c)), "")
    return len(text) >= _PASTED_CHARS and _AGENT_VOICE.match(first) is not None and \
        _LAID_OUT.search(text[:4000]) is not None


# "Go on" itself, in the languages seen: not "yes", "ok" or "对", which open answers ("是claude.md").
_GO_ON = re.compile(r"^(?:(?:continue|go on|proceed|keep going|resume|weiter|continuer|continuar|continua|sigue|siga|"
                    r"prossiga|tiếp tục|продолжа\w*)\b"
                    r"|继续|繼續|接着|続けて|계속)", re.IGNORECASE)


_AFTER_GO_ON = " \t\n,，、:：;；.。!！-"  # what may stand between "continue" and what follows it
# "Continue, but …" in the languages seen: what follows says the agent is to go on otherwise.
_BUT = re.compile(r"(?:but|however|though|pero|mas|porém|nhưng)\b|但是|不过|可是|但|然而|只是|でも|ただし|しかし",
                  re.IGNORECASE)
# "Continue with pnpm", "continue using yarn", "continuar con pnpm": a tool or a way named, not the
# next piece of work ("with the next three endpoints", "with step 2").
_WITH_WAY = re.compile(r"(?:with|using|via|through|con|com|usando|bằng|dùng)\s+(?!(?:the|a|an|this|that|these|"
                       r"those|it|them|what|your|my|our|all|everything|each|both|next|rest|remaining|other|others|"
                       r"same|step|part|phase|task|item|point|work|plan|el|la|los|las|lo|su|sus|o|os|as|um|uma|"
                       r"seu|sua|cái|các)\b)[\w@.+-]+", re.IGNORECASE)


def _after_go_on(text: str) -> str | None:
    """What follows "continue" in the text, the separator after it left out; None when the text
    does not open with "continue"."""
    opening = _GO_ON.match(text.strip())
    if opening is None:
        return None
    rest = text.strip()[opening.end():]
    return rest.lstrip(_AFTER_GO_ON)


def continues_otherwise(text: str) -> bool:
    """Does the text typed after an Esc say to go on another way ("继续，但是用新的数据", "继续，改用
    pnpm", "continue with pnpm", "continue, but skip the tests")? A "but", an instruction or a tool
    or way named in the sentence "continue" opens: a redirect."""
    rest = _after_go_on(text)
    if not rest:
        return False
    first = _CLAUSES.split(rest, maxsplit=1)[0]
    return _BUT.match(first) is not None or _WITH_WAY.match(first) is not None or \
        _INSTRUCTS.search(first) is not None or _CHANGES.search(first) is not None or \
        corrections.correction_rule(rest) is not None


def continues_with(text: str) -> bool:
    """Does the text typed after an Esc open with "continue" and go on to the next piece of work,
    saying nothing against what the agent did ("继续分析。第3批——深度分析以下6人：1. …", "continue
    with the next three endpoints")? An Esc so followed let the agent go on; "continue, but not
    with the old data" (`continues_otherwise`) is a redirect. What goes with "continue" in its
    sentence says how; the brief after it is the next work's own ("先读 STATE.md …")."""
    rest = _after_go_on(text)
    return bool(rest and rest.strip()) and not continues_otherwise(text)


# How the next piece of work is opened, in the languages seen: "now let's move on to the next task:",
# "next step", "moving on", "接下来", "下一个任务", "次のタスク", "siguiente tarea", "próxima tarefa",
# "nhiệm vụ tiếp theo".
_NEXT_WORK = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|good|great|thanks|now|then)\W+)*(?:"
    r"(?:let'?s|let us|we can|we'?ll)\s+(?:now\s+)?(?:move|go) on\b(?:\s+to\b)?|moving on\b(?:\s+to\b)?"
    r"|on(?: |)to the next\b|(?:the )?next (?:task|item|issue|ticket|feature)\s*(?:[:：—-]|$))"
    r"|^(?:好的?\W*|那|现在)?(?:接下来|下一个任务|下一项任务|下个任务)"
    r"|^次の(?:タスク|作業)"
    r"|^(?:(?:bien|ok|vale|ahora|agora|bom|certo)\W+)*(?:(?:pasemos|vamos) a la siguiente\b|(?:la )?siguiente tarea\b"
    r"|(?:vamos|passemos) (?:para|à) (?:a )?próxima\b|(?:a )?próxima tarefa\b)"
    r"|^(?:(?:ok|được rồi|bây giờ)\W+)*(?:chuyển sang|nhiệm vụ tiếp theo|việc tiếp theo)",
    re.IGNORECASE)


def opens_next_work(text: str) -> bool:
    """Does the text typed at a stop open the next piece of work ("now let's move on to the next
    task: add login with GitHub", "接下来做登录页")? It says not why the call was stopped, unless
    its first sentence also says what to do otherwise ("接下来不要再删文件")."""
    opening = _NEXT_WORK.match(text.strip())
    if opening is None:
        return False
    rest = text.strip()[opening.end():]
    first = _CLAUSES.split(rest, maxsplit=1)[0]
    return corrections.correction_rule(text) is None and not _INSTRUCTS.search(first) and \
        not _CHANGES.search(first)


def no_reason(text: str) -> bool:
    """Is the text typed at a rejection or an Esc no reason for it: a question only
    (`asks_about_plan`: "what are the main credentials to login?", "怎么中断了"), the person
    hurrying the agent (`hurries`), another session pasted (`pasted_transcript`) or the next piece
    of work opened (`opens_next_work`)? The stop stands without a reason, if it stands at all."""
    return hurries(text) or pasted_transcript(text) or asks_about_plan(text) or opens_next_work(text)


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]+")
# Words any request may hold, whatever it is about.
_ANY_REQUEST = frozenset("""a an the to of and or in on for with at by from as is are be it its we you i me my our
your please also then now just can could would will add use make run install create do let lets get set put
new one all some here there so what why how about sure want need re""".split())
_OTHER_TASK_WORDS = 12  # a command or a one-line ask; a longer text explains itself, about the plan or not
# A request that points at the plan or the work: "this", "the above", "step 2", "以上", "这个方案".
_POINTS_AT_PLAN = re.compile(r"\b(?:this|that|these|those|it|above|plan|steps?|points?|phases?|sections?|"
                             r"parts?|items?)\b|以上|上面|上述|这个|这些|该|此|计划|方案|文档|步骤", re.IGNORECASE)


# A request that says how the work is done ("switch to vitest", "use bun", "keep it in one file"):
# an instruction about the plan, whatever words it shares with it.
_CHANGES = re.compile(r"(?:please |just |no,? )?(?:use|switch|change|replace|rename|move|remove|drop|skip|"
                      r"split|merge|keep|avoid|prefer|stick|go with|instead|rather|only|don'?t|do not|never)\b",
                      re.IGNORECASE)


# How another task opens: a command line ("mcp add playwright npx @playwright/mcp@latest": a
# program's name, then a flag, a scope or a path) or a verb of work at its head ("add the storybook
# addon"); a statement ("Postgres advisory locks would be simpler") is the person's counter-proposal.
_TASK_OPENING = re.compile(
    r"^(?:[a-z][\w.-]*(?:\s+\S+)*?\s+(?:--?\w|@|\S*/)"
    r"|(?:(?:please|now|also|then|ok|okay)\W+)*(?:add|install|uninstall|create|run|make|set ?up|build|"
    r"write|start|open|fix|update|upgrade|deploy|configure|generate|check|show|list|test|implement|"
    r"remove|delete|init|commit|push|pull|clone|review|read|look|search|find|publish|release)\b)",
    re.IGNORECASE)


def asks_otherwise(text: str, plan: str | None) -> bool:
    """Is the text typed at a plan's prompt another task, no word of which the plan holds ("mcp add
    playwright npx @playwright/mcp@latest" after a plan about the billing page)? The person set the
    plan aside for something else: no reason for refusing it. Read only where its words can be
    compared: a line in Latin script opening as a task (`_TASK_OPENING`), two names or more, none
    pointing at the plan, no instruction (`_INSTRUCTS`, `_CHANGES`) and no correction."""
    if not plan or len(text.split()) > _OTHER_TASK_WORDS or WIDE_CHAR.search(text) or \
            not _TASK_OPENING.match(text.strip()) or \
            _POINTS_AT_PLAN.search(text) or _CHANGES.match(text.strip()) or _INSTRUCTS.search(text):
        return False
    names = {w.lower() for w in _NAME.findall(text)} - _ANY_REQUEST
    if len(names) < 2 or names & _words(plan):
        return False
    return corrections.correction_rule(text) is None
