"""Which typed turns correct the agent, in any language, and which agent replies concede a
mistake. Pure text in, verdict out; shared by every transcript importer.

A correction is judged on the turn's *opening* (after openers such as "actually,", "ultrathink",
"hmm"), never on a word anywhere, so precision holds:

| rule        | fires on                                                                     |
|-------------|------------------------------------------------------------------------------|
| no          | "no"/"nope"/"nah" alone or followed by anything but a courtesy ("no worries", |
|             | "no problem", "no rush") — "no verify them 1 by 1", "no, use pnpm"           |
| dont        | "don't …"/"do not …"/"never …"/"stop …" (not "don't worry/forget")          |
| imperative  | "revert that", "undo it", "I said …", "I told you …", "I asked (you) to …",  |
|             | "wrong …", "you forgot …", "you missed …", "you didn't …", "not that …",     |
|             | "you can fix what is there", "fix the script to not overwrite …"            |
| wrong       | "that's wrong / not what I asked / incorrect", "it still fails/doesn't work",|
|             | "line 132 still shows an error"                                              |
| question    | a question challenging what the agent did: "why did you …", "why are you     |
|             | still …", "why not …", "did you (actually/really) …", "didn't I (say/tell)…",|
|             | "have you (even) …", "where did you …", "how come …"                         |
| instead     | "actually/wait, … instead", "use X instead"                                  |
| zh          | 不要/别/不是/不对/错了/为什么/你没有/还是不行/还是有问题/重新… at the start   |
| process     | anywhere in the turn, telling the agent to stop asking or waiting: "stop     |
|             | asking", "no need to ask", "don't ask me", "without asking", 无需询问, 不用问 |

Never a correction: text relayed from another agent ("CODEX SAYS: …"), and a one- or two-word
move in a word game (`game_move`: "WRONG" answering the agent's "RANG").

And the agent's own reply is a strong, cheap signal: a turn the agent answers with "You're
absolutely right", "My mistake", "I apologize", "Good catch", "你说得对", "抱歉", … is a
correction whatever its wording (`acknowledges_mistake`).
"""

from __future__ import annotations

import re

_SEP = r"[\s,.!:;\u2013\u2014\uff0c\u3002\uff01-]"
_OPENER = re.compile(
    rf"^(?:(?:actually|wait|hmm+|um+|oh|ugh|sorry|hold on|ok(?:ay)?|so|well|hey|please|pls|"
    rf"ultrathink|think(?: hard| harder| deeply)?|megathink)\b{_SEP}*)+")
_NO = re.compile(rf"^(?:no+|nope|nah)(?:{_SEP}|$)(?!{_SEP}*(?:worries|problem|rush|need|thanks|"
                 r"thank|idea|prob|biggie|more questions|further|other|changes? needed|one|longer|matter|"
                 r"doubt|problemo)\b)")
_DONT = re.compile(r"^(?:don'?t|do not|dont|never|stop)\b(?!\s+(?:worry|forget|hesitate|mind)\b)")
_IMPERATIVE = re.compile(
    r"^(?:wrong\b|(?:revert|undo|roll back)\s+(?:that|this|it|the|your|those|these|all|everything)\b"
    r"|i (?:said|told you|meant|already (?:said|told))\b|i asked (?:you )?(?:to|for|not)\b"
    r"|you (?:forgot|missed|didn'?t|did not|haven'?t|have not|broke|removed|deleted|changed)\b"
    r"|not that\b|that'?s not (?:it|right|what)\b|that is not (?:it|right|what)\b"
    r"|you can (?:just )?(?:fix|use|edit|keep|reuse|modify|update) (?:what|the existing|it)\b"
    r"|fix (?:the|your|this|that|it)\b[^.!?\n]*\b(?:to not|not to|so (?:that )?it (?:doesn'?t|does not|"
    r"won'?t))\b)")
_WRONG = re.compile(
    r"(?:^|[.!?;]\s+)(?:that'?s|that is|this is|it'?s|it is)\s+(?:wrong|incorrect|not (?:right|"
    r"correct|what i (?:asked|wanted|meant|said)))\b"
    r"|^(?:it|this|that)?\s*(?:still|again)\s+(?:doesn'?t|does not|isn'?t|is not|fails|failing|"
    r"broken|not working|errors?)\b"
    r"|^(?:it|this|that) (?:doesn'?t|does not|didn'?t|did not) work\b"
    # "Line 132 still shows an error" after the agent said it was fixed
    r"|^(?:line \d+|the [\w.-]+(?: [\w.-]+)?|it|this|that|there|i)\s+still\s+(?:shows?|has|have|"
    r"gives?|throws?|returns?|gets?|getting|sees?|seeing|fails?|errors?|is|are)\b")
_QUESTION = re.compile(
    r"^(?:why (?:did|do|are|is|would|were|didn'?t|don'?t|isn'?t|aren'?t|not|does|doesn'?t|"
    r"are you still|is it still|the hell)\b|how come\b"
    r"|did you (?:actually|really|even|just|not|forget|miss|check|test|verify|read|run)\b"
    r"|didn'?t (?:i|you)\b|have you (?:actually|even|really|tested|checked|verified)\b"
    r"|where did you\b|who told you\b|what (?:did you|are you) (?:do|doing)\b"
    r"|are you sure\b|is that (?:right|correct|true)\b)[^\n]*\?")
_INSTEAD = re.compile(r"^(?:(?:actually|wait)\b[^.!?\n]*|(?:please\s+)?use\s[^.!?\n]*)\binstead\b")
_ZH = re.compile(r"^(?:不要|别再?|不是|不对|错了|你错|为什么|为啥|怎么又|你没有|你没|没有按|还是不行|"
                 r"还是有问题|还是没|依然|仍然|重新|我说的?是|我让你|停下|停止|撤销|回退|搞错)")

_PROCESS = re.compile(r"\b(?:stop asking|no need to ask|don'?t (?:keep )?ask(?:ing)? me|"
                      r"(?:do it|continue|proceed) without asking)\b|无需询问|无需再?问|不用再?问|"
                      r"不要再?问|别再?问|不需要询问|不用确认|无需确认")

_ACKNOWLEDGED = re.compile(
    r"^(?:you'?re (?:absolutely |completely |totally |quite )?right|you are (?:absolutely |"
    r"completely )?right|my (?:mistake|bad|apologies)|i apologi[sz]e|apologies|sorry[,!. ]|"
    r"good catch|great catch|fair point|you'?re correct|i was wrong|i made (?:a|an) (?:mistake|"
    r"error)|i misunderstood|i should(?: have|n'?t have)|that was (?:a mistake|wrong)|"
    r"你说得对|您说得对|你是对的|抱歉|对不起|我错了|确实[，,]|是我的(?:错|失误)|我理解错)", re.IGNORECASE)

ANSWERABLE = frozenset({"no", "dont"})  # a "no" answering the agent's question is an answer


def _plain(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


# Text the person relays from another agent or tool ("CODEX SAYS: …"): not their own words.
_RELAYED = re.compile(r"^\s*[A-Za-z][\w -]{1,30} (?:says|said|wrote|replied)\s*:", re.IGNORECASE)


def relayed(text: str) -> bool:
    return _RELAYED.match(text) is not None


def game_move(text: str, said: str | None) -> bool:
    """A one- or two-word turn answering a one- or two-word reply ("RANG" → "WRONG"): a move in
    a word game the person plays with the agent, not a correction of its work."""
    return len(text.split()) <= 2 and said is not None and 0 < len(said.split()) <= 2


def correction_rule(text: str) -> str | None:
    """The correction rule a typed turn's opening matches, or None (module docstring)."""
    if relayed(text):
        return None
    lowered = _plain(text).lower().strip()[:400]
    head = _OPENER.sub("", lowered)
    if _NO.match(head):
        return "no"
    if _DONT.match(head):
        return "dont"
    if _IMPERATIVE.match(head):
        return "imperative"
    if _WRONG.search(head):
        return "wrong"
    first = head.split("\n", 1)[0]
    if _QUESTION.match(first):
        return "question"
    if _INSTEAD.match(lowered) or _INSTEAD.match(head):
        return "instead"
    if _ZH.match(head):
        return "zh"
    if _PROCESS.search(lowered):
        return "process"
    return None


# After an Esc, turns that do not redirect the agent: a retry (an API error, a hung call), a plain
# question, one more feature on top of the same work, a new request. A turn the correction rules
# read as one always redirects.
_RETRY = re.compile(r"^(?:retry|try again|again|resume|continue|go on|go ahead|proceed|keep going)\b")
_PLAIN_QUESTION = re.compile(r"^(?:is|are|was|were|what|how|can|could|will|would|where|when|which|"
                             r"who|does|do you|shall|should i)\b")
_CHALLENGE = re.compile(r"^(?:do|does|did|have|has) (?:we|you|it|this|that) (?:not|never)\b"
                        r"|^(?:don'?t|doesn'?t|didn'?t|haven'?t|isn'?t|aren'?t) (?:we|you|it)\b")
_ADDITION = re.compile(r"^(?:also|and also|plus|additionally|one more thing|do both|do them all)\b"
                       r"|\b(?:add that too|also add|add (?:this|that|it) as well|as well as that|"
                       r"commit (?:it|them) all)\b|\b(?:too|as well)[.!]*$")
_NEW_REQUEST = re.compile(r"^(?:design|research|create|implement|build|develop|write|explain|"
                          r"tell me|show me|give me|let'?s|now|next)\b")
_BARE_URL = re.compile(r"^\s*https?://\S+\s*$", re.IGNORECASE)
# "RESEARCH: OpenAI Swarm protocols", a task heading; an error id or the IDE's file list pasted.
_HEADING = re.compile(r"^[A-Z]{4,}:|^error id:|^# files mentioned by the user", re.IGNORECASE)


def redirects(text: str) -> bool:
    """Does the turn typed right after an Esc redirect or correct what the agent was doing? A
    retry, a plain question, an added feature or a new request does not: no lesson in the stop."""
    if correction_rule(text) is not None:
        return True
    first = _plain(text).strip().split("\n", 1)[0]
    if _HEADING.match(first) or first.strip().isdigit() or _BARE_URL.match(first):
        return False  # a task heading; a bare number or link answers a question
    head = _OPENER.sub("", first.lower())
    if _CHALLENGE.match(head):
        return True
    return not (_RETRY.match(head) or _PLAIN_QUESTION.match(head) or _ADDITION.search(head)
                or _NEW_REQUEST.match(head) or first.rstrip().endswith(("?", "？")))


def acknowledges_mistake(reply: str) -> bool:
    """Does the agent's reply open by conceding it was wrong?"""
    return _ACKNOWLEDGED.match(_plain(reply).strip()[:200]) is not None


_CONTINUE = re.compile(r"^(?:continue|go on|go ahead|proceed|keep going|next|yes|y|ok(?:ay)?|"
                       r"sure|thanks?|thank you|done|[0-9a-e]|继续|可以|好的?|是的?|符合|对)"
                       r"[\s.!。！]*$", re.IGNORECASE)


def just_continues(text: str) -> bool:
    """"continue", "yes", "2", "继续": a turn that carries no comment on what happened."""
    return _CONTINUE.match(text.strip()) is not None


_LOG_LINE = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\[?\d\d:\d\d:\d\d|Traceback \(most recent|"
    r"\s*at [\w$.<>]+\(|File \"|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL|E/|W/|I/|D/)[\s:\[/]|"
    r"\$ |> |[\w.-]+:\d+:\d+)")


def pasted_log(text: str) -> bool:
    """A turn that opens with a pasted log or stack trace, not with the person's own words."""
    first = text.lstrip().split("\n", 1)[0]
    return _LOG_LINE.match(first) is not None
