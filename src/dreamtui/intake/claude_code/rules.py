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
| interruption   | the Esc key: `[Request interrupted by user…]` as a tool result or a user   |
|                | text, "Interrupted by user", `toolDenialKind` `interrupted`/`cancelled`,   |
|                | or a reason-less rejection while `permissionMode` is `bypassPermissions`  |
|                | (no prompt is shown in that mode: the call was stopped, not refused).     |
| hook_block     | an error naming a hook that blocked the call ("PreToolUse:Bash hook        |
|                | error", "Blocked by hook"), or an error of a call a PreToolUse hook ran   |
|                | for that is not the tool's own error shape (the hook's stderr), or an    |
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
                        r"File content \(\d+ tokens\) exceeds maximum allowed tokens)")

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
_ASKS_ZH = re.compile(r"(?:吗|呢|么|嘛)\W*$|[?？]\W*$|什么|为什么|为何|怎么|怎样|如何|哪些|哪个|哪里|是否|有没有|多少")
_EXPLAIN = re.compile(r"^(?:please |can you |could you )?(?:explain|describe|clarify|elaborate|walk me through|"
                      r"tell me (?:what|why|how|which|more)|what|why|how|which)\b"
                      r"|^请?(?:解释|介绍|说明|讲讲|说说|讲解)", re.IGNORECASE)
# A question that proposes ("what if we …", "why not …", "如果我们修改…呢"): an instruction about
# the plan said as a question.
_PROPOSES = re.compile(r"^(?:what if|what about|how about|why not|why don'?t|could we|can we|"
                       r"shouldn'?t (?:we|you|it)|should(?:n'?t)? we|wouldn'?t it|would it be better)\b"
                       r"|^(?:如果|要不|能不能|可不可以|是不是应该|为什么不|何不)", re.IGNORECASE)
# A sentence that tells the agent what to change or avoid, besides the questions.
_INSTRUCTS = re.compile(r"\b(?:don'?t|do not|never|instead|rather|avoid|must|need to|needs to|should|only|"
                        r"keep|remember|make sure|without)\b|不要|别|不用|不需要|保持|而不是|只|必须|需要|应该|改成|"
                        r"改为|换成|记住|注意|避免", re.IGNORECASE)
# A question that points at a gap in the plan ("Does this properly handle Microsoft accounts?", "Are
# these actually based on the conventions?", "会不会漏掉…"): a challenge, the person's reason.
_CHALLENGES = re.compile(r"\b(?:actually|really|properly|correctly|handles?|cover(?:s|ed)?|accounts? for|"
                         r"miss(?:es|ed|ing)?|forg[eo]t(?:ten)?|consider(?:s|ed)?|break(?:s)?|safe)\b"
                         r"|真的|确实|考虑|遗漏|漏掉|覆盖|会不会", re.IGNORECASE)
_CLAUSES = re.compile(r"[。！？!?；;\n]+|(?<=[.])\s+")
_COMMA = re.compile(r"[，,、]")
# Where the person's own words end: a blank line, a drawn box or table pasted after them.
_OWN_END = re.compile(r"\n\s*\n|[╔═║┌─│┏━]")
_OWN_CHARS = 400
_LETTER = re.compile(r"[^\W\d_]")
# A request to look harder before answering ("ultrathink, 深度访谈我", "think hard and interview me"):
# part of the question, no statement against the plan.
_EXAMINE = re.compile(r"(?:please |and )?(?:ultrathink|think (?:hard|harder|deeply)|interview me|ask me|"
                      r"review (?:it|this) (?:deeply|carefully))\b|请?(?:深度|仔细|认真)?(?:访谈|采访|思考|review)",
                      re.IGNORECASE)


def _asks(clause: str) -> bool:
    return _ASKS_ZH.search(clause) is not None or _EXPLAIN.match(clause) is not None or \
        corrections.only_asks(clause)


def asks_about_plan(text: str) -> bool:
    """Does the text typed at a plan's prompt only ask about it ("explain point 1 …", "这个文档和
    当前代码实现符合吗", "为什么要生成问答对；这是什么意思")? A question before deciding is no reason
    for refusing the plan: it names nothing to change. One that proposes ("what if …", "如果…呢"),
    corrects (`corrections.correction_rule`) or also says what to do ("…, and keep it in one file")
    is a reason. Only the person's first words are read, not what they pasted after them."""
    own = _OWN_END.split(text.strip(), maxsplit=1)[0][:_OWN_CHARS]
    # A list's numbers ("1.", "2.") are no sentences.
    sentences = [c.strip() for c in _CLAUSES.split(own) if _LETTER.search(c)]
    if not sentences or _PROPOSES.match(sentences[0]) or not _asks(sentences[0]) or \
            _CHALLENGES.search(own) or corrections.correction_rule(own) is not None:
        return False
    # Every sentence after it asks too, or asks the agent to look harder: a statement after the
    # question ("Why Redis? An in-memory bucket is enough") is the objection it was put for.
    if not all(_asks(s) or _EXAMINE.match(s) for s in sentences[1:]):
        return False
    # An instruction run into a question by a comma ("保持极简，不要过度工程化，…哪些合理") is one.
    clauses = [c.strip() for s in sentences for c in _COMMA.split(s) if c.strip()]
    return not any(_INSTRUCTS.search(c) and not _asks(c) for c in clauses)


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
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
    if not plan or len(text.split()) > _OTHER_TASK_WORDS or _CJK.search(text) or \
            not _TASK_OPENING.match(text.strip()) or \
            _POINTS_AT_PLAN.search(text) or _CHANGES.match(text.strip()) or _INSTRUCTS.search(text):
        return False
    names = {w.lower() for w in _NAME.findall(text)} - _ANY_REQUEST
    if len(names) < 2 or names & _words(plan):
        return False
    return corrections.correction_rule(text) is None
