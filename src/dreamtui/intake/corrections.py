"""Which typed turns correct the agent, in any language, and which agent replies concede a
mistake. Pure text in, verdict out; shared by every transcript importer.

A correction is judged on the turn's *opening* (after openers such as "actually,", "ultrathink",
"hmm", "lah", and Claude Code's "[Image #4]" marker), never on a word anywhere in a long turn, so
precision holds:

| rule        | fires on                                                                     |
|-------------|------------------------------------------------------------------------------|
| no          | "no"/"nope"/"nah" alone or followed by anything but a courtesy ("no worries", |
|             | "no problem", "no rush") — "no verify them 1 by 1", "no, use pnpm"           |
| dont        | "don't …"/"do not …"/"never …"/"stop …" (not "don't worry/forget")          |
| imperative  | "revert that", "undo it", "I said …", "I told you …", "I asked (you) to …",  |
|             | "wrong …", "you forgot …", "you missed …", "you didn't …", "not that …",     |
|             | "you can fix what is there", "fix the script to not overwrite …", "like I   |
|             | said …", "you just left padding it", "u didnt …", "what are you doing"       |
| wrong       | "that's wrong / not what I asked / incorrect", "it still fails/doesn't work",|
|             | "line 132 still shows an error", "lines 133-187 also show errors", "… is    |
|             | just wrong"                                                                  |
| question    | a question challenging what the agent did: "why did you …", "why are you     |
|             | still …", "why not …", "did you (actually/really) …", "didn't I (say/tell)…",|
|             | "have you (even) …", "where did you …", "how come …", "can we not …", "did   |
|             | you not …", a "why" with a negation ("why did none of them go through X?", |
|             | "why doesn't clicking the card open the page?"); within 12 words it needs no |
|             | "?" ("why is it doing this"). Not a question about the world ("why do they  |
|             | all begin with t") or "do we not …?"                                         |
| instead     | "actually/wait, … instead", "use X instead", 'call it "user" not "regular"'  |
| fails       | a report that the agent's work fails, in its own words: "syntax highlighting |
|             | does not quite work", "i dont see it in the repo", "same error", "still      |
|             | laggy", "there is no X"; in a short Chinese turn 没有更新/不生效/还是不行…    |
|             | anywhere. Not a spec or a wish ("a button that does not load", "I want it   |
|             | to not load twice", "make sure it does not show")                           |
|             | Also with no cue word (`_BROKEN`): "… and i still get an error", "Getting    |
|             | failure here: …", "the break point is not being hit", "What happened to my  |
|             | pkgs?", "the tests are gone", "it seems that the hook is not installed";     |
|             | never after "if/when/make sure/a … that/who" (a condition or a spec). And    |
|             | what following the agent's instructions gave ("I tried to run it using your  |
|             | instructions and got: …", "your suggested commands both exit immediately")   |
| reverse     | taking back what the agent just did, said first: "Actually remove …", "wait, |
|             | keep …", "But I still want …", "no, but actually …", "non mais en fait …",   |
|             | "pero …"; not one more thing ("actually, also add …") or a plain question    |
|             | ("but will it …?")                                                           |
| doubt       | "i dont think we saved any data room", "that doesn't make sense?"            |
| habit       | "AGENTS KEEP ASSUMING what a tool is for", "you keep adding …"               |
| frustrated  | swearing at the agent or its work in a short turn ("give me fucking file     |
|             | paths", "ur stupid"), not when pleased ("fuck yeah, it works")               |
| zh          | 不要/别/不是/不对/错了/为什么/你没有/还是不行/还是有问题/重新/但是/其实… at   |
|             | the start; 不(是很)合理/应该避免/搞错/会不会太…/有没有污染/没按照/为什么还/你应该 |
|             | /而不是… anywhere in a short turn; 为什么…没有/不 (why … not), 没有像我们设计 |
|             | 的那样 (not as designed), 只是给你的示例 (only an example), 并没有生效 (did not) |
| prefer      | how to work: "one question at a time", "more concise please", "just tell me |
|             | …", "yes, but I need …", "i dont want a minimal version", "let's stick with"|
|             | and, anywhere in the opening, the language to answer in ("работай на русском",|
|             | "answer in English", "用中文交流"); not a document's or the app's ("the bot |
|             | should reply in Spanish", "translate it to …")                               |
| reminded    | what the agent was told or should know, a few words in: "I'm on Ubuntu 22.04.|
|             | You should know this...", "I told you that before", "我之前说过"             |
| recurrence  | how the mistake came about, that it not come again: "determine how this      |
|             | happened and how to prevent it from happening again", "以后不要再这样"       |
| premise     | a short fact correcting what the agent assumed: "the keybinds were made in   |
|             | hyprland", "teams is installed as a pwa"                                     |
| process     | anywhere in the turn, telling the agent to stop asking or waiting: "stop     |
|             | asking", "no need to ask", "don't ask me", "without asking", 无需询问, 不用问 |
| script      | Korean, Japanese and Russian objections said first ("아니요, …", "違います",  |
|             | "нет, …", "почему ты …"), or a failure anywhere in a short turn ("안 돼요",  |
|             | "エラーが出る", "всё ещё не работает"); Vietnamese, Spanish and Portuguese   |
|             | ones: what the person meant ("ý tôi là …", "me refiero a …", "quis dizer"),  |
|             | "không phải", "no es eso", "te dije …", "eu disse …", "así no", "sigue sin   |
|             | …", "không đúng", "hình như bạn mở nhầm" (you opened the wrong one) anywhere |
|             | in a short turn; read with diacritics folded ("sai roi", "khong phai")       |
| instead     | also choosing otherwise in other words within a short first line: "il       |
| (rather)    | s'agit plutôt d'un …", "… et non à un cas de test", "rather than", "au lieu |
|             | de"; not after agreeing ("Yes. … rather than repair") or in a new task       |

French, Spanish and German shapes sit with the English ones: "il y a une erreur", "le problème
persiste", "Cela n'est pas du tout adapté", "refais cette page" (imperative), "où est-ce que tu
as trouvé …?", "est-ce que tu … vraiment …?" (question), "je ne comprends pas pourquoi …", "je ne
suis pas sûr de …" (doubt). What the person saw trying the work, first person on both sides, is
a failure report ("I tested it and …", "테스트를 해보니 …", "when I click save I get a blank
page", "quand je clique … je vois un json"), not a spec ("when the user clicks, show a toast").

A problem named right after the agent said its work was done (`reports_after_done`: "✅",
"Done", "fully functional", "Terminé", "Voici ce qui a changé", "已修复" in the head or tail of its
report) is a correction with no cue word at all: "Problème dans le nœud …", "Error in the
profile form: …", "la page charge mais infiniment", "Donc en fait j'ai plusieurs problèmes"; not
a problem talked about ("la priorité des problèmes"), a condition ("if there is an error"), a
new task ("add error handling …"), a question about it ("why is that an issue?"), praise first or
a pasted log without a word. The agent asking the person to try its work ("please refresh and try
again", "let me know if it works", "请刷新…告诉我结果") claims it done too, and then a failure the
person names is a report even said as a request ("帮我测试一下（请求失败：…）").

The first turn of a session, before the agent has done anything in it, is a correction when it
says earlier work is still wrong (`reports_earlier_work`: "The config isn't right still", "we
changed sleep to 10 minutes but it doesnt seem to be that anymore", "ça ne marche toujours pas",
"还是不行"); a bug reported in a fresh session ("the extension keeps crashing") is a task.

Never a correction (`disowned`, also never the reason of a stop): text relayed from another
agent ("CODEX SAYS: …", "GROK RESEARCH: …"), the person's own slip ("sorry delete all of that it
was wrong file"), the person saying they now see ("ah i see, …"); nor "no for the storage i mean"
(which item they meant), nor a one- or two-word move in a word game (`game_move`: "WRONG"
answering the agent's "RANG"). Words with no lesson of their own (`contentless`): swearing alone
("ur stupid") is none; a bare "nope" to the agent's words (no tool call) is one only when the
agent concedes.

And the agent's own words are strong, cheap signals (`concedes`): a turn the agent answers with
"You're absolutely right", "My mistake", "I see the issue", "Let me fix that", "Good point",
"Fair enough. Let me revert …", "Thanks for flagging that", "你说得对", "对，", "确实", "抱歉",
"好思路", "Tu as raison", "Tienes razón", "Du hast recht", … (after "Ah,", "Yes —"; `acknowledges_mistake`), or concedes
within its first sentences ("好问题。坦率说，目前确实有…的问题"), is a correction whatever its
wording; so is a question whether the agent did something answered "No" with what it left out
("did you follow the full release prompt?" → "Non, il manque le step 13"; not "did you find
other callers?" → "No, there are none"), and a question saying the work loses something
answered "Yes" ("Doesn't this lose the progressive filtering?"); a turn that opens by choosing
otherwise ("we should …", "我们应该…") right after the agent recommended a way ("I'd recommend",
"我倾向于") overrides it (`overrides`) when it names another way or turns from it ("I prefer Redis too",
"应该可以，就用 Redis", "we should be fine" agree), and so does a "no" saying what the person needs instead
("不行，我需要…" after "我建议先跳过…，你觉得可以吗？") or only part of a plan the agent is about to
carry out ("i just want to document the old services" after "should I proceed to implement it?").

The conversation's structure reads what no cue word says (`answer_rule` knows the agent's last
words): what the person got running the agent's work or its steps, pasted back without a word
(`pasted_failure`: a prompt, a command or a script line then an error it printed, a PowerShell
prompt and its script then "Missing closing '}'", "git push …" then "error: src refspec main does
not match any", or an error alone, "fatal: not a git repository", "Windows找不到文件…"; not when
the agent asked for that output, in any words ("let me know what you see", "tell me what happens",
"然后把结果告诉我"), not prose that says "error" nor a wish about errors ("Permission denied pages need
a link back home"); a traceback is titled by its exception line); and a short "still …" right after
the agent said it changed it ("balance column still in left" after "Added right alignment …";
not "I still want …", not "A还是B吗"). Traditional Chinese is read as simplified (`_plain`):
"你說得對" concedes as "你说得对".

A correction's title is its lesson (`lesson`): a report that the work fails says what fails, then
to check it works before saying it is done ("Syntax highlighting does not quite work: check …"),
unless it is about how the agent works ("You're not following your instructions": its words) or
what its instructions gave (check that they work before giving them);
one with no words of its own ("still broken") names what the agent had just done ("After you edit
`main.go`, check …"); a bare "Nope", "Stop" says not to do what the agent had just done or said,
quoting it; a challenging question that holds its lesson is said as what to do ("can we not just
look up the os?" → "Look up the os: the person asked …", "did you not look in the repo?" →
"Look in the repo first: …", "why did u modify generated files?" → "Do not modify generated
files unasked: …", "why did u do that?" → not to do what the agent had just done, "where did you
get this info from" → say where it comes from, "i dont think it copied to the partition" → check
that it copied before saying it is done); a reminder says to keep in mind what the person told
("I'm on Ubuntu 22.04. You should know this..."); swearing and agreeing first are left out ("Give me
fucking file paths" → "Give me file paths", "yes but ill need …" → "Ill need …"); other words
are the lesson themselves. An opening sentence that only approves, understands or announces
("Ok test is passing, good.", "I understand this.") is left out of the title (`past_preamble`).

An agent answering a request for advice ("what would be the best idea") or a plain question ("is
a.py redundant to b.py?", "what do you mean existing pattern?", "你如何看待以下意见") with "You're
absolutely right" concedes nothing (`only_asks`); nor does one praising as an idea ("Good call.",
"好思路") an answer to its own question, an addition ("还有一个…") or a new request ("I want a
similar list on the other tab") that asks nothing back (`_welcomed`).
A "No, …" answering the agent's own question is an answer, unless what follows says its work
still fails or what should be and is not ("those values should line up, but they show a few
cents difference": `answer_rule`); swearing in an answer is no frustration ("enough that we won't
fuck something up" answering "is that detailed enough?"), an insult at the agent is. A plain
question in Chinese of a clause or two ("Auto mode就是之前的默认模式吗", "…就行了对吗") concedes
nothing when answered "对，…", unless it challenges ("不是…吗", "你在干什么", "你怎么就…"); "sorry, I
cannot see your editor" (抱歉，我无法…) concedes nothing.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from dreamtui.vocabulary import WIDE_CHAR

_SEP = r"[\s,.!:;\u2013\u2014\uff0c\u3002\uff01-]"
# Openers, and what Claude Code puts before the words: "[Image #4] still does not work?".
_OPENER = re.compile(
    rf"^(?:(?:actually|wait|hmm+|hm+|um+|oh+|ah+|ugh|oof|argh|yikes|welp|sorry|hold on|ok(?:ay)?|so|well|hey|please|"
    rf"pls|plz|lah|lol|bro|dude|man|omg|yo|ultrathink|think(?: hard| harder| deeply)?|"
    rf"megathink)\b{_SEP}*|\[(?:image|pasted text) #\d+[^\]]*\]{_SEP}*)+")
_NO = re.compile(rf"^(?:no+|nope|nah|non|nein|n[aã]o)(?:(?!-){_SEP}|$)(?!{_SEP}*(?:worries|problem|rush|need|thanks|"
                 # a verb it negates, seeing no problem: "No veo ningún problema", "Não vejo problema nenhum"
                 r"(?:veo|vejo|hay|há|tengo|tenho) (?:ning[uú]n|nenhum|problema|error|erro)|"
                 r"thank|idea|prob\w*|biggie|more questions|further|other|changes? needed|one|longer|matter|"
                 r"doubt|problemo)\b)")
_DONT = re.compile(r"^(?:don'?t|do not|dont|never|stop)\b(?!\s+(?:worry|forget|hesitate|mind)\b)"
                   r"|^(?:i think |i feel like )?(?:we|you|u) (?:should ?n'?t|should not|must ?n'?t|must not)\b")
_IMPERATIVE = re.compile(
    r"^(?:wrong\b|(?:revert|undo|roll back)\b"
    # putting back what the agent changed: "go back to the old layout", "put it back"
    r"|(?:go back to|switch back|change (?:it|that|them) back|set (?:it|that|them) back|put (?:it|that|them|"
    r"this) back|bring (?:it|that|them) back|restore the (?:old|original|previous))\b"
    r"|(?:like |as )?i (?:said|told you|meant|already (?:said|told))\b|i asked (?:you )?(?:to|for|not)\b"
    # what the person never asked for, and leaving their things as they were
    r"|i (?:never|didn'?t|did not) (?:say|said|ask|asked|tell|told|want|wanted|mean|meant)\b|who asked (?:you|u)\b"
    r"|leave (?:it|that|them|this|those|the \w+) (?:alone|as (?:it|they) (?:was|were|is|are))\b"
    r"|keep (?:it|that|them) (?:as (?:it|they) (?:was|were)|the way (?:it|they) (?:was|were))\b"
    r"|keep the (?:old|original|previous|existing)\b"
    r"|what (?:are|r) (?:you|u) doing\b"
    # doing it over: "redo this page as the brand book says", "refais totalement cette page"
    r"|(?:redo|re-do) (?:it|this|that|the|them|all|everything|your)\b|start (?:it )?over\b"
    r"|(?:refai[st]|recommence|refaites|recommencez|remets|remettez|annule|annulez)\b"
    r"|you (?:just|only) (?!need|have|can|must|should)\w+"
    r"|(?:you|u) (?:forgot|missed|didn'?t|did not|haven'?t|have not|broke|removed|deleted|changed)\b"
    r"|not that\b|that'?s not (?:it|right|what)\b|that is not (?:it|right|what)\b"
    r"|you can (?:just )?(?:fix|use|edit|keep|reuse|modify|update) (?:what|the existing|it)\b"
    r"|fix (?:the|your|this|that|it)\b[^.!?\n]*\b(?:to not|not to|so (?:that )?it (?:doesn'?t|does not|"
    r"won'?t))\b)")
_WRONG = re.compile(
    r"(?:^|[.!?;]\s+)(?:that'?s|that is|this is|it'?s|it is)\s+(?:wrong|incorrect|not (?:right|"
    r"correct|true|how\b|what i (?:asked|wanted|meant|said)))\b"
    r"|^(?:it|this|that)?\s*(?:still|again)\s+(?:doesn'?t|does not|isn'?t|is not|fails|failing|"
    r"broken|not working|errors?)\b"
    r"|^(?:it|this|that) (?:doesn'?t|does not|didn'?t|did not) work\b"
    # "Line 132 still shows an error" after the agent said it was fixed
    r"|^(?:lines? [\d, -]*\d\s+(?:still|also)|(?:the [\w.-]+(?: [\w.-]+)?|it|this|that|there|i)\s+still)"
    r"\s+(?:shows?|has|have|gives?|throws?|returns?|gets?|getting|sees?|seeing|fails?|errors?|is|are)\b"
    # "… [WARNING] Intel Core Ultra processor not detected.\nis just wrong"
    r"|(?:^|\n)(?!(?:make sure|ensure|check|if|when)\b)[^.!?\n]{0,80}?\b(?:is|are|was|looks) (?:just |"
    r"simply |completely |totally |all )?(?:wrong|incorrect)\b")
# The same verdict said first (matched at the start, not searched: `_WRONG`'s searches cost per
# character): "not quite", "close, but …", "that doesn't look right", "something is not right",
# "that is not an option", "it is detecting the wrong city", "you edited the wrong file", and
# what the agent made or kept that is not wanted ("documents are not needed").
_WRONG_FIRST = re.compile(
    r"(?:not quite|not exactly|close,? but|almost,? but)\b"
    r"|(?:some\w*|smth|sth|it|this|that)(?:'s| is) (?:still )?(?:not right|off|not working right)\b"
    r"|(?:that'?s|that is|this is|it'?s|it is) not an? (?:option|solution)\b"
    # (not a request about them: "please remove things that are not necessary", "drop what isn't needed")
    r"|(?!(?:if|when|unless|in case|whether|please|pls|remove|delete|drop|clean|get rid|strip|cut|trim)\b)"
    r"[^.!?\n]{0,60}?\b(?:is|are|'s|'re)(?: not|n'?t) (?:needed|"
    r"necessary|required)\b|[^.!?\n]{0,60}?\b(?:is|are) unnecessary\b"
    r"|[^.!?\n]{0,60}?\b(?:is|are|'s|was|were) (?:\w+ing|using|picking|showing) the wrong\b"
    r"|(?:you|u) (?:\w+ed|picked|read|took|ran|wrote|made|put|got) the wrong\b"
    r"|[^.!?\n]{0,60}?\b(?:doesn'?t|does not|don'?t|do not) (?:look|seem|sound) (?:right|correct)\b")
_WRONG_CUES = ("quite", "exactly", "close", "almost", "right", "off", "option", "solution", "need",
               "necessar", "required", "wrong")
# "why" with a negation or a failure: what did not happen as it should ("why did none of them go
# through the gateway?", "why doesn't clicking the card open the page as we designed?", "why did
# not you tag it?", "why was there an infinite recursion?", "why did this step get stuck"); a
# "why" about what is ("why do they all begin with t", "why is that an issue?") has neither.
_WHY_NEGATED = (r"why (?:(?:did|does|do|is|are|was|were|has|have|would|will|can|could)\s+(?:not\b|[^?\n,.]{0,50}?"
                r"\b(?:none|nothing|never|nobody|no one|not)\b)|(?:didn'?t|doesn'?t|don'?t|isn'?t|aren'?t|wasn'?t|"
                r"weren'?t|hasn'?t|haven'?t|won'?t|can'?t|couldn'?t|wouldn'?t)\b)")
_AMISS_WORDS = (r"\b(?:errors?|fail\w*|crash\w*|broke|broken|exceptions?|recursion|stuck|hangs|hanging|empty|blank|"
                r"missing|wrong|warnings?)\b")
_WHY_AMISS = rf"{_WHY_NEGATED}|why [^?\n]{{0,60}}?{_AMISS_WORDS}"
# A failure asked about is the agent's when the work is the subject ("why did the deploy step get
# stuck", "why was there an infinite recursion?"); "why does python raise an error when you divide
# by zero?" asks about the world.
_WHY_FAILED = (r"why (?:did|does|do|is|are|was|were|has|have) "
               r"(?:it|this|that|there|the|my|our|your|these|those|we|you|u)"
               rf"\b[^?\n]{{0,60}}?{_AMISS_WORDS}")
_QUESTION = re.compile(
    # "why" asks about the agent's work ("why did you …", "why is it doing this", "why does it
    # still …"), not about the world ("why do they all begin with t", "why is he here?")
    rf"^(?:{_WHY_NEGATED}|{_WHY_FAILED}"
    r"|why (?:did|do|are|is|would|were|was|didn'?t|don'?t|isn'?t|aren'?t|wasn'?t|does|doesn'?t)"
    r" (?:you|u|we|it|this|that|there)\b|why (?:not|the hell)\b|why\b[^?\n]{0,60}\b(?:still|again)\b"
    r"|why (?:does|do|did) (?:it|this|that|you|u|they) keep\b"
    r"|why (?:can'?t|won'?t|couldn'?t|cant|wont) (?:you|u|we|it|this|that)\b|why\b[^?\n]{0,40}\band not\b|how come\b"
    r"|shouldn'?t (?:it|this|that|they|we|you)\b|should (?:it|this|that|they) not\b"
    r"|did you (?:actually|really|even|just|not|forget|miss|check|test|verify|read|run|follow|skip|ignore)\b"
    # "can we not filter in the resolver?" proposes otherwise; "do we not currently call …?" asks
    r"|(?:can|could) (?:we|you|u) not\b|(?:do|did) (?:you|u) not\b|did we not\b|can'?t (?:we|you|u) just\b"
    r"|(?:does|did|is|was|will) (?:this|that|it) not\b"
    r"|didn'?t (?:i|you)\b|have you (?:actually|even|really|tested|checked|verified|followed|read|run)\b"
    r"|where did you\b|who told you\b|what (?:did you|are you) (?:do|doing)\b"
    r"|are you sure\b|is that (?:right|correct|true)\b)")
_UNMARKED_QUESTION = 12  # words: a challenge this short needs no "?" ("why is it doing this")
# A report that the agent's work does not do what it said it does, after it said so: "syntax
# highlighting does not quite work", "i dont see it in the repo", "same error", "still laggy",
# "there is no TSModuleInfo diff".
_FAILS = re.compile(
    r"^(?:still|same)\b(?! (?:looks?|works?|working|fine|good|great|perfect|nice)\b)"
    r"|^(?:the )?same (?:error|issue|problem|thing|result|bug)\b"
    r"|^i (?:still )?(?:don'?t|do not|can'?t|cannot|didn'?t|did not) (?:see|find|have)\b"
    r"|^there(?: is|'?s| are) (?:still )?no\b"
    r"|^(?:nothing (?:changed|happens|happened|works)|no (?:change|difference))\b"
    r"|^(?:[^.!?\n]|\.\w){0,80}?\b(?:has|have|had|gives?|shows?|getting|gets?|see|sees|seeing) the same (?:error|issue|"
    r"problem|bug)|^(?:[^.!?\n]|\.\w){0,80}?\b(?:failed|fails|broke|crashed|errored) again\b"

    r"|^[^.!?\n]{0,40}?\b(?:it'?s|it is|that'?s|still) (?:still |exactly )?the same(?:\s*(?:[.!…]|$)"
    r"| (?:error|issue|problem|thing|result|bug|behaviou?r))"
    r"|^there(?:'s| is| are) (?:still )?(?:more|other|new) (?:issues|errors|problems|bugs)\b"
    # the subject, then its failure; not a wish, a spec or a reason ("a button that does not load",
    # "I want it to not load twice", "make sure it does not show", "skip it as it isn't working")
    r"|^(?!(?:make sure|ensure|check|so that|when|if|once)\b)(?:(?!\b(?:that|which|who|to|want|"
    r"wants|should|must|need|needs|make|add|so|as|because|since)\b)[^.!?\n]){0,60}?\b(?:does not|doesn'?t|did not|"
    r"didn'?t|is not|isn'?t|are not|aren'?t|do not|don'?t|won'?t|cannot|can'?t|never)\s+"
    r"(?:quite |really |actually |seem to |seems to |even )?(?:work|working|worked|load|loads|"
    r"loaded|show up|showing up|appear|appears|render|renders|compile|compiles|start|starts|"
    r"change anything|do anything|help|fix (?:it|anything|the)|open|opens|run|runs|build|builds|install|"
    r"installs|connect|connects|boot|boots|launch|launches|save|saves|sync|syncs|update|updates|respond|"
    r"exist|exists|display|displays|print|prints|trigger|triggers|fire|fires|close|closes|scroll|detect|"
    r"detects|pass|passes)\b"
    r"|^[^.!?\n]{0,80}?\bstill (?:broken|the same|happening|failing|not|no|can'?t|cannot|doesn'?t|"
    r"don'?t|isn'?t|won'?t|getting|seeing|same|slow|laggy|empty|blank|wrong|missing|there|stuck|"
    r"hangs|crashing|crashes|fails)\b")
# A failure report with no cue word of `_FAILS`, after the agent's work: what the person gets
# ("i added it to the settings and i still get an error", "Getting failure here: …"), what is
# not happening ("the break point is not being hit", "spinners are not going away"), what went
# missing ("What happened to my pkgs?", "the tests are gone"), what seems off ("it seems that
# the hook is not installed"). Never after a condition, a wish or a reason ("if it gets an
# error", "make sure it is not showing", "a user who is not paying", "handle the case where it
# is missing", "skip the linter as it isn't working yet"): no report of the agent's work.
# Words before a failure that make it a condition, a wish or a reason, not a report.
_UNLESS = re.compile(r"\b(?:if|when|whenever|while|until|unless|whether|where|case|that|which|who|want|"
                     r"wants|should|must|need|needs|make|so|ensure|handle|how|as|because|since)\b|[.!?\n]")
# Reports said first: "Getting failure here", "getting a blank screen: …", "What happened to …",
# "it seems that … is not …", "there are two warnings that haven't been addressed".
_BROKEN_FIRST = re.compile(
    r"^(?:getting|got|seeing|hitting)\s+(?:(?:a|an|the|this|that|these|same|another|new|some|"
    r"more|following|weird|strange)\s+)?(?:\w+\s+)?(?:errors?|failures?|exceptions?|crash(?:es)?|"
    r"tracebacks?|panics?|(?:blank|white|black|empty) (?:screen|page|window))\b"
    r"|^there(?: are| is|'s) (?:still )?[^.!?\n]{0,60}?\b(?:that|which) (?:still )?(?:haven'?t|hasn'?t|"
    r"have not|has not|aren'?t|isn'?t|weren'?t|wasn'?t|don'?t|doesn'?t|didn'?t|fail|break|error)\b"
    r"|^(?:what happened to|where did (?:my|the|all|our)\b[^?\n]{0,60}\bgo\b)"
    r"|^(?:one|a|another|the only|1) (?:slight |small |minor |little |big |major |weird |strange )?(?:issue|problem|"
    r"bug|glitch|hitch)\b|^(?:problem|issue|bug)\s*:"
    # a subject of a few words, then its failure: "the build fails now", "npm run dev crashes", "it
    # broke my config"; not a task ("add retries for failed uploads", "fix the failing test")
    r"|^(?!(?:add|handle|write|make|create|implement|fix|log|retry|catch|test|check|show|print|report|"
    r"ignore|skip|mark|count|list|find|track|remove|delete|drop|rerun|re-run|run|debug)\b)(?:(?:the|my|our|"
    r"your|all|both|now|it|this|that)\s+)?(?:(?!(?:for|on|with|of|to|in|when|if|that|which|who|should|"
    r"must|will|would|can|could|may|might|so|and|or)\b)[\w.@/:-]+\s+){0,3}?(?:now\s+|still\s+|also\s+|just\s+)?"
    r"(?:fails?|failed|failing|crash(?:es|ed)|broke|breaks|errors? out)\b(?!:| tests?\b)"
    r"|^(?:it|this|that|everything|[\w.-]+)(?:'s| is| are) (?:now |totally |completely |all |still )?(?:broken|"
    r"borked|busted|messed up)\b"
    r"|^(?:it |this |that )?(?:seems|looks|appears)(?: like| that| as if| to me)?\b[^.!?\n]{0,80}?"
    r"\b(?:is not|isn'?t|are not|aren'?t|does not|doesn'?t|did not|didn'?t|was not|wasn'?t|"
    r"no longer|still|broken|wrong|missing|failed|failing)\b"
    # what seems so against what should be: "seems that the sandbox is read-only by default, it
    # should be given write access"
    r"|^(?:it )?(?:seems|looks)(?: like| that)\b[^\n]{0,200}?\b(?:should|instead of|rather than)\b")
# Reports within the first 80 characters of the first sentence, with no `_UNLESS` word before
# them: what the person gets, what is not happening, what was not done, what went missing.
_BROKEN_WITHIN = 80
_BROKEN = re.compile(
    r"\b(?:i|we|it|you|u|now|still|and|but|also|i'?m|am)\s+(?:still\s+|now\s+|also\s+|keep\s+)?"
    r"(?:get|got|getting|gets|see|saw|seeing|hit|hitting|(?<=still )hav(?:e|ing))\s+(?:(?:a|an|the|this|"
    r"that|these|same|another|new|some|more|following|weird|strange)\s+)?(?:\w+\s+)?"
    r"(?:errors?|failures?|exceptions?|crash(?:es)?|tracebacks?|panics?)\b"
    r"|\b(?:isn'?t|aren'?t|wasn'?t|weren'?t|(?:is|are|was|were|'s|'re)\s+(?:still\s+)?not)\s+"
    r"(?:being\s+\w+(?:ed|en)\b|(?!(?:going to|sure)\b)\w{2,}ing\b)"
    r"|\b(?:(?:has|have|had)(?:n'?t| not) been|(?:isn'?t|aren'?t|wasn'?t|weren'?t|(?:is|are|was|were) "
    r"not)(?: yet| even| actually)?) (?:fixed|resolved|addressed|handled|updated|applied|saved|removed|"
    r"changed|created|installed|committed|pushed|deleted|shown|displayed|loaded|called|triggered|used|"
    r"added|copied|generated|done)\b"
    r"|\b(?:is|are|got|has been|have been|went)\s+(?:now\s+|all\s+)?(?:gone|missing|lost|disappeared|"
    r"vanished)\b|\b(?:some\w*|smth|sth) (?:might|may|could|seems to) be missing\b")
# An error pasted back under a few words of the person's ("now I get:", "after your change:",
# "same:"): what the agent's work printed. Not a task about it ("explain this error:", "add
# handling for this:"), and not a log alone (`pasted_log`, no words of the person's).
_PASTED_ERROR = re.compile(r"\b(?:errors?|exceptions?|traceback|failed|failures?|fatal|panic|cannot|could not|"
                           r"not found|denied|undefined|refused|segmentation fault|errno)\b", re.IGNORECASE)
_LEAD_IN_WORDS = 8
# Words and a colon: "now I get:", "after your change:"; not a log's own first line ("[2]$ make …",
# "From github.com:…", "# github.com/…/jobs", "Failures:").
_LEAD_IN = re.compile(r"^[^\W\d_][^\W_]*(?:[ ,'-]+[^\W_]+)*\s*[:：]\s*$")


def _pasted_back(head: str) -> bool:
    """A few words of the person's, then an error they pasted (comment above)."""
    first, _, rest = head.partition("\n")
    words = first.split()
    if not rest.strip() or not words or len(words) > _LEAD_IN_WORDS or not _LEAD_IN.match(first):
        return False
    if _PASTED_ERROR.search(first):
        return False  # "FAILED TESTS:", "Failures:": the log's own heading
    if _TASK_VERB.match(first):
        return False
    return _PASTED_ERROR.search(rest[:2000]) is not None


# What the person meant, said after their first sentence ("Encode it into the repo. I mean I already
# built it, wire it properly"): the agent took it otherwise.
# Not emphasis: "Perfect. I mean it, …", "Thanks. I mean, this saves me hours".
_MEANT = re.compile(r"[.!?;]\s+i mean(?:t)?\b(?!\s*[,.!]| (?:it|that|this)\b)")
_MEANT_WITHIN = 200
_TASK_VERB = re.compile(r"^(?:add|handle|support|document|implement|write|create|make|explain|what|how|why|"
                        r"can you|could you|please|translate|summari[sz]e|analy[sz]e|review|look at|read|"
                        r"design|research|build|develop|tell me|show me|give me|let'?s)\b")
# A word one of the reports holds: most turns hold none, and the scans cost more.
_BROKEN_CUE = re.compile(r"error|fail|crash|exception|traceback|panic|n'?t\b|\bnot\b|gone|missing|lost|"
                         r"disappear|vanish|seem|look|appear|happened|where did|broke|borked|busted|messed|"
                         r"issue|problem|bug|glitch|hitch|blank|white|black|empty")


def _broken(first: str) -> bool:
    """Is the first line a failure report of `_BROKEN_FIRST` or `_BROKEN` (comment above)?"""
    if _BROKEN_CUE.search(first) is None:
        return False
    if _BROKEN_FIRST.match(first):
        return True
    found = _BROKEN.search(first, 0, _BROKEN_WITHIN + 120)
    return found is not None and found.start() <= _BROKEN_WITHIN and \
        _UNLESS.search(first, 0, found.start()) is None


# The agent's habit: "AGENTS KEEP ASSUMING THEY KNOW WHAT a tool is for", "you keep adding …".
_HABIT = re.compile(r"^[^.!?\n]{0,60}?\b(?:you|u|agents?|it|they|claude) (?:keeps?|kept) \w+ing\b")
# "并没有跳转" (and it did not navigate): what the agent said it did, not done. "有没有变化" asks
# whether anything changed: a question, no report. 并没有 needs the deed it denies after it:
# "这样并没有什么问题" (that is no problem at all) denies a problem.
_ZH_FAILS = re.compile(r"(?<!有)没有?(?:更新|生效|改|变化|成功|效果|起作用|反应|修复|解决)|不(?:生效|起作用)|"
                       # what the agent said it made, not there: "我没有看到回复话术" (I don't see the replies)
                       r"我(?:还是|仍然|依然)?(?:没有?|并没有?)(?:看到|看见|找到)(?!任何|什么|问题|报错|错误|异常|bug)|我看不到|"
                       r"还是(?:不行|不对|没|报错|一样|失败|有问题)|并(?:没有?|未)(?:被|真正|真的|实际)?(?:生效|跳转|改|变|更新|修复|"
                       r"解决|起作用|反应|效果|成功|显示|执行|运行|保存|删除|移除|添加|加上|创建|调用|完成|用|按|加载|"
                       r"启动|安装|提交|处理|识别|触发|打开|关闭|切换|写)|并不(?:能|行|生效|起作用|对|正确)")
# Doubting what the agent did or assumed: "i dont think we saved any data room", and in Chinese
# "这个方案不是很合理", "我们应该避免…" anywhere in a short turn.
_DOUBT = re.compile(r"^i (?:don'?t|do not) think (?:it|that|this|we|you|they|the|there)\b"
                    r"|^[^.!?\n]{0,80}?\b(?:doesn'?t|does not|don'?t) make (?:any )?sense\b")
# "I don't see how the modules will solve this" anywhere in the first line (searched only when
# it says "see how" or "see why").
_DONT_SEE = re.compile(r"\bi (?:don'?t|do not|can'?t|cannot) see (?:how|why)\b")
# Unsure of the agent's wording or result a few words in: "Dans les problèmes je ne suis pas sûr de
# la formulation …", "the summary is fine but I'm not sure that's right for the tax".
_UNSURE = re.compile(r"\bje ne suis pas s[uû]re? (?:de la|du|de ce|de cette|des|que)\b|"
                     r"\bi'?m not sure (?:that'?s|this is|it'?s|that is|about the)\b")
_UNSURE_WITHIN = 120
# Not following the agent's reasoning or unsure of its wording: "I don't understand why there are
# rounding errors", "je ne comprends pas pourquoi …", "je ne suis pas sûr de la formulation".
_DOUBT_OTHER = re.compile(r"^(?:i (?:don'?t|do not) (?:understand|get) (?:why|how)\b|"
                          r"je ne (?:comprends|vois) pas (?:pourquoi|comment|le rapport|ce que|l'int[eé]r[eê]t|"
                          r"(?:cette|ce|cet|ton|ta|tes|votre|vos) \w+)|"
                          r"je ne suis pas (?:s[uû]r|convaincu|certain)(?: de| que| d'|$)|"
                          r"no entiendo (?:por qu[eé]|c[oó]mo)|ich verstehe nicht,? (?:warum|wie))")
# "不是都量化了吗" (aren't they all …?); not "如果不是…" (if not …), nor "意思是…不是…？" (checking it understood),
# nor a new idea ("我突然想到之前不是有一个…技能，可以用吗？")
# 不是 of degree, "not (very) urgent", negates no deed of the agent's ("不是很急，明天再做可以吗？").
_ZH_NOT_DEGREE = "(?!(?:很|太|特别|那么)?(?:急|着急|紧急|赶|重要|麻烦))"
_ZH_DOUBT = re.compile(r"^(?!意思是|所以|也就是说|我(?:突然)?想到|我有(?:个|一个)(?:新)?想法)"
                       r"(?:[^\n]*?)(?<!是)(?<!如果)(?<!要)(?<!若)"
                       rf"不是{_ZH_NOT_DEGREE}(?![^。！!？?\n]{{0,10}}?(?:挺好|很好|不错|对的|没问题|正确))"
                       r"[^。！!？?\n]{0,30}?(?:吗|么|[？?])|难道|"
                       # doubting it works: "你确定这样改是对的吗？", "这样真的能解决问题吗？"
                       r"(?<![^\s，,。；;！!那但])你确定[^。！!？?\n]{0,30}?(?:吗|么|[？?])|真的(?:能|可以|会)[^。！!？?\n]{0,20}?(?:吗|么|[？?])|"
                       r"不(?:是很|太)?(?:合理|正确)|应该避免|不应该|理解错|搞错|弄错|不是我们?(?:希望|想要|要)的"
                       # a worry about the result ("会不会太多文档", "有没有污染"), a way not
                       # followed ("你没按照规范"), a recurrence ("为什么还会出现"), what the agent
                       # should have done ("你应该可以自己识别"), "rather than" (而不是)
                       r"|会不会(?:太|有|导致|造成)|是不是(?:太|有点|忘|漏)|太(?:多|乱|散|复杂|冗余|啰嗦)了|"
                       r"混乱|散乱|污染|没有?按照?|为什么(?:还|又)|怎么(?:还|又)|(?:又|还会|仍然)出现|"
                       r"你(?:本来|本)?应(?:该|当)|你(?:又|还是)?(?:忘|漏)|重复(?:做|工|劳动)|而不是"
                       # an example taken for the spec ("X只是给你的示例"); why something did not happen
                       # ("为什么都没有走网关", "为什么点击卡片，没有像我们设计的那样跳转"), and not as agreed
                       r"|只是给你的(?:示例|例子|参考)|只是(?:一个|举个)?(?:示例|例子|举例)[^。\n]{0,20}?(?:不要|别|不是|不用)|为什么[^。？！?\n]{0,30}?(?:没|不|未)|没有?像(?:我们|我|之前)(?:设计|说|要求|约定|讨论|计划|规定)")
# Swearing at the agent or its work in a short turn ("give me fucking file paths", "ur stupid"):
# it went wrong, whatever the words; not when the work pleased ("fuck yeah, it works").
_FRUSTRATED = re.compile(r"\b(?:fuck\w*|fu?c?kin[g']?|fkn|ffs|wtf|stupid|dumb|retarded|idiot\w*|useless)\b")
_INSULT = re.compile(r"\b(?:stupid|dumb|retarded|idiot\w*|useless|wtf|ffs)\b")  # at the agent, not a swear word
_PLEASED = re.compile(r"\b(?:works|worked|working|nice|great|perfect|awesome|thanks|thank you|love)\b")
# Swearing at a technology or a vendor, not at the agent ("Definitely not Go, fuck that language").
_SWORE_AT_OTHERS = re.compile(
    r"\b(?:fuck\w*|fu?c?kin[g']?|fkn|stupid|dumb|useless)\s+(?:that |this |the |those |these )?"
    r"(?:language|languages|os|operating system|vendor|company|website|site|windows|microsoft|apple|"
    r"google|oracle)\b")
_ZH_SHORT = 200  # characters: past this a Chinese turn sets out a task, whatever it mentions
# A way of working the person asks for: "one question at a time plz", "More concise please",
# "just tell me what your findings are", "yes but I need actual syntax highlighting too".
_PREFER = re.compile(
    r"^(?:(?:yes|yeah|yep|sure)\b[\s,.!-]*but\b"
    r"|(?:let'?s (?:go through|do|take) (?:them|these|those|it) )?one[- ](?:question|thing|step|at)?[- ]?"
    r"(?:at[- ])?a[- ]time"
    r"|let'?s (?:stick|stay|keep) (?:with|to)"
    r"|(?:be |much |way |a (?:bit|lot) )?(?:more concise|less verbose|shorter|briefer|less wordy)"
    r"|(?:that'?s |it'?s |this is )?too (?:long|verbose|wordy|much text)|just (?:tell|give|show|"
    r"answer) me|(?:please )?(?:reply|answer|respond|write|talk) (?:in|using) (?:english|chinese)"
    r"|keep (?:it|them|answers|replies) (?:short|brief)|keep it simple|(?:make it|much|way) simpler|"
    r"(?:this is |that'?s |it'?s |you'?re )?(?:too complicated|too complex|overkill|over-?engineered|"
    r"over-?complicat\w+)|(?:continue\W+)?i (?:don'?t|do not) "
    r"(?:want|need)|i (?:really )?(?:don'?t|do not) like|(?:i'?m |im )?not sure (?:i |we )?like)\b")
# The language the person wants to be answered in, anywhere in the opening ("да внеси коррективы и
# как требуется работай на русском", "please answer in English from now on", "用中文和我交流",
# "한글로 답변해줘", "日本語で答えて"):
# the agent used another. Not a document's language ("translate the README into English").
# The verb is the agent's when it opens a clause, follows "please"/"you", or is "to me/with me";
# after a noun it is the app's ("the app should respond in English to US users", "can the bot
# reply in Spanish …?", "сайт должен говорить по-русски с клиентами").
_LANGUAGE = re.compile(
    r"(?:(?:^|[.!?,;:\n(]\s*|\b(?:please|pls|and|so|then|now|ok|okay)\s+|\b(?:you|u)(?: (?:should|must|need to|"
    r"have to|to|will|can|could|would|shall))?\s+)(?:(?:always|only|just|also) )?"
    r"(?:reply|answer|respond|talk|speak|communicate|chat)\w*|\b(?:reply|answer|respond|talk|speak|communicate|chat)\w*"
    r" (?:to|with) me|\bwrite to me|\bask me|\bwork with me)"
    r" (?:only |always )?in (?:english|chinese|russian|french|spanish|german|japanese|korean|portuguese|italian)\b"
    # the person telling the agent to, not the app that works in it ("приложение работает на русском",
    # "приложение должно работать на русском"): an imperative, or an infinitive asked of "you"/"me"
    r"|(?:работай|работайте|отвечай|отвечайте|общайся|общайтесь|говори|говорите)"
    r" (?:со мной |мне )?(?:только |всегда )?(?:на русском|по-русски)"
    r"|(?:(?:прошу|пожалуйста|давай|давайте|можешь|можете|будешь|будете|(?:тебе|вам) (?:нужно|надо|следует)|"
    r"ты должен|ты должна|вы должны) )(?:работать|отвечать|общаться|говорить) (?:со мной |мне )?(?:только |всегда )?"
    r"(?:на русском|по-русски)|(?:работать|отвечать|общаться|говорить) (?:со мной|мне) (?:только |всегда )?"
    r"(?:на русском|по-русски)"
    r"|用中文(?:回答|回复|交流|沟通|交互|问我|和我|跟我|说)|中文交互|(?:和|跟)我说中文"
    r"|(?:한국어|한글)로 (?:답변|대답|말|얘기|이야기)|日本語で(?:答え|回答|返答|返事|話し|話して)"
    r"|(?:réponds|répondez|parle|parlez|écris-moi)(?:-moi)? (?:toujours )?en français"
    r"|(?:responde|respóndeme|habla|háblame)\w* en español|(?:antworte|sprich)\w* (?:mit mir )?(?:auf |in )?deutsch")
_LANGUAGE_CUES = ("english", "chinese", "russian", "french", "spanish", "german", "japanese", "korean",
                  "portuguese", "italian", "русск", "中文", "français", "español", "deutsch", "한국어", "한글",
                  "日本語")
_LANGUAGE_WITHIN = 300
# The person reminding the agent of what it was told or should know, a few words in ("I'm on
# Ubuntu 22.04. You should know this...", "I told you that before", "我之前说过"): it went on
# without it. ("like I said" said first is `_IMPERATIVE`'s; a few words in it often only recalls
# the person's own question. "You should know that the deploy takes an hour" tells a fact.)
_REMINDED = re.compile(r"\byou (?:should|ought to|must) (?:have )?(?:already )?(?:know|known|remember|remembered)"
                       r"(?: (?:this|that|it))?(?: (?:by now|already))?(?=\s*(?:[.!…,;]|$))"
                       r"|\bi (?:already |just )?(?:told|said|mentioned|explained)(?: (?:you|u))?"
                       r"(?: (?:that|this|it|so))? (?:already|before|earlier|twice|many times)\b"
                       r"|我(?:已经|之前|刚才|早就)(?:说|讲|告诉你)过")
# Asking how the agent's mistake came about and that it not come again ("examine your instructions,
# determine how this happened and what can be done to prevent it from happening ever again",
# "que ça ne se reproduise plus", "以后不要再这样"): what went before was wrong.
_RECURRENCE = re.compile(r"\b(?:prevent|avoid|stop) (?:this|it|that) (?:from )?happening (?:again|ever again)\b"
                         r"|\b(?:never|not) (?:let )?(?:this|that|it) happen again\b"
                         r"|\bne se reproduise (?:plus|pas)\b|以后(?:不要|别)再|避免再次|怎么会这样"
                         # the mistake to be kept as a lesson, or made again: "把这个错误沉淀为经验，我已经
                         # 翻了几次错误了", "你这次又犯错误"; not any insight kept ("把这个分析沉淀为经验")
                         r"|错(?:误)?[^。！？\n]{0,12}?(?:沉淀|记录|记)(?:下来)?(?:为|成)?(?:经验|教训)|"
                         r"(?:沉淀|记录|记)(?:下来)?(?:为|成)?教训|又犯|(?:几|多)次错|"
                         r"\bsave (?:this|that) (?:mistake|error|failure) as a lesson\b")
_RECURRENCE_CUES = ("happen", "reprodui", "以后", "再次", "怎么会", "经验", "教训", "又犯", "次错", "lesson")
_REMINDED_CUES = ("know", "remember", "told", "said", "mentioned", "explained", "说过", "讲过", "告诉你过")
_REMINDED_WITHIN = 200
# A fact that corrects the agent's premise, said in a few words: "the keybinds were made in
# hyprland" (the agent had read ~/.claude/keybindings.json), "teams is installed as a pwa".
_PREMISE = re.compile(
    r"^(?:(?:the|my|our|your|its|this|that|these|those) )?[\w./~@-]+(?: [\w./~@-]+){0,3} "
    r"(?:is|are|was|were) (?:actually |already |only |just |all )?(?:made|installed|set ?up|"
    r"configured|defined|declared|stored|kept|located|managed|handled|created|written|generated|"
    r"built|hosted|deployed|mounted|served|run|running) (?:in|as|on|by|via|through|from|with|"
    r"under|inside|at)\b[^?\n]{0,80}$")
# Choosing otherwise, in other words, within a short first line: "il s'agit plutôt d'un problème
# de charge", "il faudrait associer les preuves à une exécution et non à un cas de test", "… rather
# than the cache", "… au lieu de …". Not a first line that sets out a task ("add X instead of Y").
_RATHER = re.compile(r"\bplut[oô]t (?:que|qu'|un|une|de|d'|à|a|le|la|les|des|du|par|sur|dans|en)\b|"
                     r"\bet non (?:pas )?(?:à|a|au|aux|le|la|les|un|une|de|du|des|par|sur|dans|en|pas)\b|"
                     r"\bau lieu (?:de|d')|\brather than\b|\bnot (?:the|a|an) \w+ but\b|\ben lugar de\b|"
                     r"\b(?:an)?statt\b|\binvece di\b")
# Agreeing first ("Yes. The file changes my recommendation … rather than repair."): the "rather"
# that follows is the speaker's own view, often another agent's reply relayed, not a choice against
# what the agent did.
_AGREEING = re.compile(r"^(?:yes|yeah|yep|sure|agreed|exactly|right|oui|d'accord|exactement|s[ií]|ja)\b")
_RATHER_CUES = ("plut", "et non", "au lieu", "rather", " but ", "lugar", "statt", "invece")
_INSTEAD = re.compile(r"^(?:(?:actually|wait)\b[^.!?\n]*|(?:please\s+)?use\s[^.!?\n]*)\binstead\b"
                      r"|^(?:please\s+)?use [\w.@/-]+(?: [\w.@/-]+)?,? (?:not|rather than|instead of) [\w.@/-]+"
                      r"|^[^.!?\n]{0,80}[\"'`][^\"'`\n]{1,40}[\"'`],? not [\"'`]")
_ZH = re.compile(rf"^(?:不要|别再?|不是{_ZH_NOT_DEGREE}|不对|错了|你错|为什么|为啥|怎么又|你没有|你没|没有按|"
                 r"还是不行|"
                 r"还是有问题|还是没|依然|仍然|重新|我说的?是|我的意思是|我是说|我指的是|我让你|停下|停止|撤销|回退|搞错|"
                 r"但是|不过|可是|算了|其实|不行(?=[，,。！!\s])|"
                 # a problem found, said first: "有问题，这些表格不是之前就有了吗？", "发现一个问题，…"
                 r"有(?:个|一个)?问题|(?:我)?发现(?:了)?(?:一个|个)?问题|出问题了)")
# Korean and Japanese objections said first ("아니요, …", "왜 이렇게 했어?", "違います", "なんで…"),
# and a failure anywhere in a short turn ("… 안 돼요", "오류가 나요", "まだエラーが出る").
_KO_JA = re.compile(r"^(?:아니(?:요|야|라|에요)?(?:[\s,.!]|$)|왜 (?:이렇게|그렇게|저렇게|했|한|안|또|아직)|그게 아니|"
                    r"틀렸|잘못 |다시 (?:해|하)|되돌려|원래대로|違(?:う|います)|そうじゃな|いや[、,\s]|"
                    r"なんで|なぜ|どうして|やり直|元に戻)")
_KO_JA_FAILS = re.compile(r"안 ?(?:돼|되|됨|됩니다|나와|나오|보여|보이|떠|열려|열리)|오류|에러|작동하지 ?않|"
                          r"동작하지 ?않|실패|버그|문제가|이상해|이상하|두 ?번씩|エラー|動かない|動きません|"
                          r"できない|できません|表示されない|失敗|おかしい|直って(?:い)?ない")
# The same in Russian: said first ("нет, …", "почему ты …", "опять …", "верни как было"), or a
# failure anywhere in a short turn ("… всё ещё не работает", "ошибка при запуске").
_RU = re.compile(r"^(?:нет(?:[\s,.!]|$)|не (?:надо|нужно|то|так|трогай|меняй|удаляй)\b|(?:почему|зачем) (?:ты|вы)\b|"
                 r"(?:ты|вы) (?:не|забыл\w*)\b|опять\b|снова\b|неправильно|не правильно|верни|откати|отмени)")
_RU_FAILS = re.compile(r"не (?:работает|работают|работало|запускается|открывается|отображается|загружается|"
                       r"сохраняется|компилируется)|ошибк|вс[её] ещ[её]|до сих пор|сломал")

# Vietnamese, Spanish and Portuguese objections said first: what the person meant ("ý tôi là cái folder
# này", "me refiero a …", "eu quis dizer …"), that it is not that or wrong ("không phải", "sai rồi",
# "no es eso", "não é isso", "así no"), what they said before ("te dije …", "eu disse …"), that it still
# fails ("vẫn chưa chạy", "sigue sin funcionar", "ainda não funciona"); and a mistake or failure
# anywhere in a short first line ("hình như bạn mở nhầm" — it seems you opened the wrong one, "cái này
# không đúng", "tôi không thấy nút", "no veo el botón", "não aparece", "ya te dije que …"). Written and
# read with the diacritics folded (`_folded`): Vietnamese is often typed without them ("sai roi").
_VI_ES_PT = (
    r"^(?:ý (?:tôi|mình|em|anh|chị) là|không phải|không đúng|sai rồi|nhầm rồi|(?:tôi|mình) đã nói|"
    r"đừng (?:có|làm|xoá|xóa|sửa|đổi|thêm|dùng|chạy|thay|tự|gõ|mở|đóng|để|bỏ|động)\b|"
    r"tại sao (?:bạn|em|anh)|sao (?:bạn|em|anh) (?:lại|không)|vẫn (?:chưa|không|bị|còn|lỗi)|"
    r"me refiero a|quise decir|no es eso|eso no es|no era eso|te equivocaste|(?:ya )?te (?:lo )?dije\b|"
    r"as[ií] no\s*[,.!]|sigue (?:sin|igual|fallando|dando|saliendo)|todav[ií]a (?:no|sale|da|falla|aparece)|"
    r"(?:eu )?quis dizer|n[aã]o [eé] isso|isso n[aã]o [eé]|ainda (?:n[aã]o|d[aá] erro|est[aá] errad)|"
    r"(?:eu |j[aá] |eu j[aá] )(?:te |lhe )?disse\b|(?:te|lhe) disse\b|disse (?:que|para|pra)\b|assim n[aã]o\b|"
    r"continua (?:dando|com erro|sem|igual)|voc[eê] errou|est[aá] errad[oa])")
_VI_ES_PT_ANYWHERE = (
    r"\b(?:bạn|em|anh|chị|mình)\s+(?:đã\s+)?(?:\w+\s+)?(?:nhầm|sai)\b|(?<!không )\bbị lỗi\b|"
    r"\bvẫn (?:chưa|không|bị|còn)\b|\bkhông đúng\b|\b(?:ya )?te (?:lo )?dije\b|\b(?:eu )?j[aá] (?:te )?disse\b|"
    r"\bkhông (?:thấy(?! (?:lỗi|vấn đề|gì|sai))|hoạt động|chạy được|hiện|hiển thị)\b|"
    r"\bno (?:veo|aparece|funciona|se (?:ve|muestra))\b(?! (?:ning[uú]n\w*|nada))|"
    r"\bn[aã]o (?:vejo|aparece|funciona|mostra)\b(?! (?:nenhum\w*|nada|problema nenhum|erro nenhum))")
_VI_ES_PT_CUES = ("nham", "sai", "loi", "van ", "khong", "no ", "nao ", "dije", "disse")


_ACCENTED = re.compile("[\u00c0-\u024f\u0300-\u036f\u1e00-\u1eff]")


def _folded(text: str) -> str:
    """The text without its diacritics ("không đúng" → "khong dung", "não" → "nao")."""
    if text.isascii() or _ACCENTED.search(text) is None:
        return text  # most turns: English or Chinese, nothing to fold
    split = unicodedata.normalize("NFD", text.replace("đ", "d").replace("Đ", "D"))
    return "".join(char for char in split if not unicodedata.combining(char))


_VI_ES_PT_FIRST = re.compile(_folded(_VI_ES_PT))
_VI_ES_PT_FOUND = re.compile(_folded(_VI_ES_PT_ANYWHERE))


# What a person says having tried the agent's work ("I tested it and …", "테스트를 해보니, …",
# "j'ai testé et …", "我试了一下，…"): a report of what it does, kept unless it pleased them.
_TRIED = re.compile(r"^(?:i (?:just )?(?:tested|tried|ran|checked|ran) (?:it|this|that|the \w+|your \w+)"
                    r"(?: out| again)?\W+(?:and|but)\b|"
                    r"j'ai (?:test[eé]|essay[eé]|lanc[eé])\b[^.!?\n]{0,40}?\W(?:et|mais)\b|"
                    r"en (?:testant|essayant)\b|"
                    r"[^.!?\n]{0,20}?(?:해\s?보니|해\s?봤는데|돌려\s?보니|실행해\s?보니|써\s?보니)|"
                    r"我(?:试|测试|运行|跑)了(?:一下|下)?|試し(?:たら|てみたら)|実行したら)")
# What the person got following the agent's own instructions ("I tried to run the gui using your
# instructions and got: …", "Im using your suggested commands and they both exit immediately",
# "I did exactly what you told me", "按你说的改了，还是报错"): the instructions failed them, when
# what follows says so (`_WENT_WRONG`); "I followed your steps and it works" pleased them.
# Only what the person carries out is instructions; "with your fix/script …" reports on the agent's
# code (`_FOLLOWED_WORK`): a failure all the same, but of the work, not of the instructions.
_YOUR = (r"\b(?:using|following|followed|with|per|from) your (?:own )?"
         r"(?:suggested |proposed |recommended |new |updated )?")
_FOLLOWED = re.compile(
    rf"{_YOUR}(?:instructions?|commands?|steps?|suggestions?|advice|guide|directions)\b"
    r"|\byour (?:suggested|proposed|recommended) \w+"
    r"|\b(?:did|ran|tried|followed|typed) (?:exactly |just )?what you (?:said|told me|suggested|wrote)\b"
    r"|\bas you (?:said|suggested|told me|instructed)\b"
    # "按你说的改了", "照你给的命令运行", not "按你的标准" (by your criteria) or "用你的过程中" (using you)
    r"|(?:按照?|照着?|用)你(?:说的|给的|的(?:步骤|方法|命令|指令|指示|说明|脚本|操作|做法))(?:去|来)?(?:做|改|操作|执行|运行|跑|试|装|配置|设置|输入)")
_FOLLOWED_WORK = re.compile(rf"{_YOUR}(?:fix(?:es)?|solution|script)\b|{_FOLLOWED.pattern}")
_FOLLOWED_CUES = ("your", "what you", "as you", "你")
# "got:" counts when an error follows it ("… and got: port already in use"), not any output
# ("with your script I get: 3 files processed").
_WENT_WRONG = re.compile(r"\b(?:got|get|getting)\s*[:：](?=[\s\S]{0,200}?(?:error|exception|traceback|fail|denied|"
                         r"refused|in use|not found|no such|cannot|can'?t|unable|invalid|fatal|panic|abort|killed|"
                         r"timed? ?out|exit (?:code|status) [1-9]|errno|undefined|unknown|missing|报错|错误|失败))"
                         r"|\b(?:errors?|fail\w*|crash\w*|never|nothing|not|still|same|"
                         r"exit\w* (?:immediately|right away|instantly|at once)|broke\w*|wrong|traceback)\b|n'?t\b|"
                         r"报错|失败|不行|错误|还是(?:不|没|报错|一样)|没(?:有)?(?:用|反应|效果|成功|变化|生效)")
_NEGATED = re.compile(r"n'?t\b|\b(?:not|never|no)\b")
_NONE_MET = re.compile(r"\b(?:(?:no|without|zero|0)|not (?:a single|one|any)|without (?:a|any)(?: single)?) "
                       r"(?:errors?|issues?|problems?|warnings?|failures?|hitch(?:es)?|glitch(?:es)?)\b|"
                       r"没有?(?:报错|错误|问题)")
_FOLLOWED_WITHIN = 300


def _followed_in_vain(first: str, followed: re.Pattern[str] = _FOLLOWED_WORK) -> bool:
    """Did the person follow the agent's instructions or use its work (`_FOLLOWED_WORK`), or only
    its instructions (`followed=_FOLLOWED`), and meet a failure?"""
    window = first[:_FOLLOWED_WITHIN]
    if not any(cue in window for cue in _FOLLOWED_CUES):
        return False
    found = followed.search(window)
    if found is None:
        return False
    rest = _NONE_MET.sub("", window[found.end():])  # "… and got a clean build, no errors" met none
    pleased = _TRIED_PLEASED.search(rest) is not None and _NEGATED.search(rest) is None
    return not pleased and _WENT_WRONG.search(rest) is not None


# What the person saw doing something with the agent's work: "when I click save I get a 500",
# "quand je clique sur un lien prototype.html je vois un json", "cuando abro la página me sale …".
# First person on both sides: a report, not a spec ("when the user clicks, show an error").
_ANY = r"(?:[^.!?\n]|\.\w){0,100}?"  # within the sentence ("prototype.html" does not end it)
_WHEN_I = re.compile(
    rf"^(?:when|whenever|if|once) i \w+{_ANY}\b(?:i (?:get|got|see|saw|am getting|'m getting|only see|"
    r"just see)|it (?:shows|says|gives|throws|crashes|fails|breaks|hangs|freezes|opens|returns|displays|"
    r"redirects|goes|does nothing|stays|loads forever))\b"
    rf"|^(?:quand|lorsque|si) (?:je|j'){_ANY}\b(?:je (?:vois|re[çc]ois|obtiens|tombe|n'ai|ne vois)|j'ai|"
    r"[çc]a (?:affiche|donne|plante|me met|ouvre|renvoie|charge|reste)|il (?:affiche|m'affiche|ouvre|renvoie))\b"
    rf"|^(?:cuando|si) (?:hago|pulso|abro|doy|entro|intento|ejecuto){_ANY}\b(?:me sale|aparece|veo|"
    r"obtengo|da error)\b")
_ASKS_IF = re.compile(r"^[^.!\n]*[?？]")  # "if I run it, does it show the old page?": a question
_TRIED_PLEASED = re.compile(r"\b(?:works|worked|working|great|perfect|nice|good|fine)\b|fonctionne bien|marche bien|"
                            r"잘 ?(?:돼|되|됨|작동|동작)|正常|没问题|うまく|問題な")

# Taking back or turning what the agent just did, said first: "Actually remove the command list
# from the prompt", "wait, keep the old name", "but I still want to use the _for_response
# functions", "no, but actually we could merge it into main", and in other languages ("non mais
# en fait …", "pero …", "aber …"). Not one more thing on top ("actually, also add tests"), nor a
# plain question ("but will it stay at 10 minutes?").
_REVERSE = re.compile(
    r"^(?:no+|nope|non|nein)\W+(?:mais\W+)?en fait\b|^(?:mais\W+)?en fait\W+(?:non\b|pas\b|plut[oô]t|"
    r"on (?:pourrait|devrait|va)|il (?:faut|faudrait)|je (?:pr[eé]f[eè]re|voudrais plut)|garde|enl[eè]ve|"
    r"supprime|remets|annule|ne |n')"
    r"|^(?:(?:no+|nope|non|nein)\W+)?(?:actually|wait|in fact|eigentlich|en realidad|de hecho)\b"
    r"[\s,.!:;-]*(?:(?:please|pls|can you|could you|let'?s|just|i think|we should|you should|i'?d "
    r"rather|better to|maybe)\s+)*(?:remove|delete|drop|revert|undo|put (?:it |that |them )?back|go "
    r"back|move|rename|change|keep|leave|use|switch|don'?t|do not|get rid|take out|replace|make "
    r"(?:it|them|that|this)|instead|rather|not\b|no\b)"
    r"|^(?:(?:no+|nope|non|nein)\W+)?(?:but|mais|pero|aber)\b[\s,]+(?!(?:how|what|where|when|which|"
    r"who|can|could|will|would|is|are|do|does|also|and|first|then|now|next|before|after|thanks|"
    r"thank|ok|okay|otherwise|o[uù]|pourquoi|comment|quand|qui|quoi|est-ce|d'o[uù])\b)")

# The same shapes in French, Spanish, German, Italian and Portuguese: what the agent did not do
# ("tu n'as pas mentionné …", "olvidaste …", "du hast … vergessen"), why it did something
# ("pourquoi tu as …", "¿por qué hiciste …?"), that it is wrong ("c'est faux", "está mal"), at the
# start; that it does not work, at the start ("ça ne marche pas", "funktioniert nicht"), or still
# does not, anywhere in the first line ("… ça ne marche toujours pas", "sigue sin funcionar"); not
# the person's own attempt ("j'essaie de … mais ça marche pas").
_FOREIGN_DIDNT = re.compile(
    r"^(?:tu n'?as pas|tu n'?a pas|tu as oubli\w*|vous n'?avez pas|vous avez oubli\w*|c'est faux|"
    r"ce n'?est pas (?:ça|ce que|correct|bon)|c'est pas (?:ça|ce que)|no has|olvidaste|te olvidaste|"
    r"te falt[óo]|no hiciste|eso (?:no es|está mal)|está mal|du hast (?:\w+ ){0,3}(?:nicht|vergessen)|"
    r"sie haben (?:\w+ ){0,3}(?:nicht|vergessen)|das ist (?:falsch|nicht richtig)|hai dimenticato|non hai|"
    r"você esqueceu|você não)\b")
_FOREIGN_WHY = re.compile(r"^(?:(?:mais |et )?pourquoi (?:est-ce que )?"
                          r"(?:tu as|as-tu|vous avez|avez-vous|t'as|tu|vous)|"
                          # where the agent got it, whether it is sure, whether it really means it
                          r"(?:mais |et )?o[uù] (?:est[- ]ce que )?(?:tu as|vous avez|t'as|as-tu|avez-vous) "
                          r"(?:trouv\w*|vu|lu|pris)|d'o[uù] (?:tu|vous|[cç]a) (?:sors|sortez|vient|tiens|tenez)|"
                          r"(?:es-tu|tu es|t'es|êtes-vous|vous êtes) s[uû]rs?|est[- ]ce que (?:tu|vous) (?:\w+ ){0,3}?"
                          r"(?:vraiment|réellement)|(?:tu|vous) (?:as |avez )?(?:vraiment|réellement)|"
                          r"(?:est[- ]ce que )?c'est (?:vraiment )?(?:ton|votre) r[oô]le|"
                          r"¿?por qu[ée] (?:hiciste|has|lo hiciste)|¿?(?:est[aá]s seguro|de d[oó]nde sacaste)|"
                          r"warum hast du|bist du sicher|woher hast du|perch[ée] hai|sei sicuro|"
                          r"por ?qu[eê] (?:você|vc)|почему (?:ты|вы)|зачем (?:ты|вы))\b")
_FOREIGN_FAILS_FIRST = re.compile(
    # said first: "ça ne marche pas", "no funciona", "funktioniert nicht", "il y a une erreur",
    # "le problème persiste", "j'ai toujours la même erreur", "rien ne s'affiche"
    r"^(?:(?:mais|pero|aber|non|no|nein)\W+)?(?:(?:ça|cela|ca|[cç]a) (?:ne )?(?:marche|fonctionne) (?:pas|plus)|"
    r"(?:ya )?no funciona|(?:es |das )?funktioniert nicht|(?:es |das )?geht nicht|non funziona|não funciona|"
    r"il y a (?:encore |toujours |toujours pas |un |une |des |plusieurs |deux |quelques )*(?:erreurs?|probl[eè]mes?|"
    r"bugs?|soucis?|bogues?)|(?:le |ce |un )?probl[eè]me (?:persiste|est toujours|dans|avec|sur|de)|"
    r"j'ai (?:encore |toujours |un |une |la même |le même |des |plusieurs )*(?:erreurs?|probl[eè]mes?|bugs?|soucis?)|"
    r"rien ne (?:marche|fonctionne|s'affiche|se passe|change)|hay (?:un |una |varios |otro )?(?:error|problema)|"
    r"es gibt (?:einen |ein |noch )?(?:fehler|problem))\b")
# Or still failing, anywhere in the first line: "après ton changement ça ne marche toujours pas";
# or not at all what was asked: "Cela n'est pas du tout adapté au …".
_FOREIGN_FAILS_ANYWHERE = re.compile(
    r"\b(?:ça|cela|ca) (?:ne )?(?:marche|fonctionne) toujours pas\b|toujours (?:la même erreur|le même "
    r"problème)|sigue sin funcionar|sigue (?:fallando|igual)|funktioniert (?:immer noch|noch immer) nicht|"
    r"geht (?:immer noch|noch immer) nicht|ancora non funziona|ainda não funciona"
    r"|\bn'est (?:toujours )?pas (?:du tout|vraiment|encore) (?:adapt|align|coh[eé]rent|correct|bon|juste|ce que|"
    r"conforme|respect|logique|clair|lisible|optimal)|\bne (?:\w+ ){1,2}pas du tout\b"
    r"|\bne s'affiche (?:pas|plus|toujours pas)\b|\bcharge (?:mais )?(?:à l')?infini")

# Words every alternative of `_FOREIGN_FAILS_ANYWHERE` holds: a substring test before its search.
_ANYWHERE_CUES = ("toujours", "sigue", "immer", "ancora", "ainda", "pas du tout", "n'est", "s'affiche", "infini")

_PROCESS = re.compile(r"\b(?:stop asking|no need to ask|don'?t (?:keep )?ask(?:ing)? me|"
                      r"(?:do it|continue|proceed) without asking)\b|无需询问|无需再?问|不用再?问|"
                      r"不要再?问|别再?问|不需要询问|不用确认|无需确认|不(?:需要|用)你先问")

# What an agent opens a reply with before it concedes ("Ah, you're right", "Yes — good catch").
_REPLY_OPENER = re.compile(r"^(?:(?:ah+|oh+|hmm+|yes|yeah|right|okay|ok|got it|understood|好的|嗯|啊|à|ồ|ừ|vâng|dạ)"
                           r"\b[\s,.!:;\u2013\u2014\uff0c\u3002\uff01-]*)+", re.IGNORECASE)
_ACKNOWLEDGED = re.compile(
    r"^(?:you'?re (?:absolutely |completely |totally |quite )?(?:right|correct)|you are "
    r"(?:absolutely |completely )?(?:right|correct)|my (?:mistake|bad|apologies)|i apologi[sz]e|"
    r"apologies|sorry[,!. ]|good (?:catch|point|call)|great (?:catch|point)|fair point|"
    r"i was wrong|i was mistaken|i made (?:a|an) (?:mistake|error)|i misunderstood|i misread|"
    r"i (?:missed|overlooked|forgot|broke)\b|i should(?: have|n'?t have)|that was (?:a mistake|wrong)|"
    r"that'?s (?:on me|my (?:mistake|fault|bad))|i see the (?:issue|problem|bug|mistake)|"
    r"i see what(?:'s| is| went) wrong|let me (?:fix|correct|redo|revert|undo) (?:that|this|it|my)\b|"
    r"你说得对|您说得对|你说的对|您说的对|你是对的|说得对|抱歉|对不起|不好意思|我错了|确实[，,]|"
    r"是我的(?:错|失误|疏忽|问题)|我的错|我疏忽|我(?:理解|搞|弄|写)错|我漏|我忽略|好思路|好建议|好的建议|"
    # "Fair enough. Let me revert …", and the same concession in other languages
    r"fair point|fair(?: enough)?\W+(?:let me|i'?ll) (?:revert|undo|fix|remove|redo|restore|put|drop)\b|"
    r"valid point|nice catch|well spotted|i stand corrected|oops|"
    # thanking for the catch: "Thanks for flagging that mispatch", "感谢指正"
    r"thanks? (?:you )?for (?:flagging|catching|spotting|pointing (?:that|this|it) out|the catch)|"
    r"(?:感谢|谢谢)(?:你的)?(?:指正|指出|纠正)|"
    r"对[，,]|没错|有道理|确实|的确|分析得(?:很)?(?:准|对|到位)|"
    r"(?:vous avez|tu as) (?:\w+ )?raison|effectivement|en effet|bonne remarque|"
    r"désolé|pardon|je me suis trompé|j'ai eu tort|(?:c'(?:était|est) )?(?:une )?erreur de ma part|"
    r"mon erreur|(?:fue )?(?:un )?error mío|das war (?:ein|mein) fehler|"
    r"(?:tienes|tiene|tenés) (?:toda la )?razón|lo siento|perdón|"
    r"disculpa|me equivoqué|buena observación|efectivamente|(?:du hast|sie haben) (?:völlig |absolut )?"
    r"recht|stimmt|entschuldigung|tut mir leid|mein fehler|guter punkt|(?:hai|ha) ragione|scusa|"
    r"(?:você tem|tem) razão|desculpe|おっしゃる通り|ご指摘|申し訳|すみません|失礼しました|"
    r"맞습니다|맞아요|죄송|(?:вы|ты) прав[аы]?|извините|прошу прощения|моя ошибка|"
    r"(?:você|vc) tem raz[aã]o|desculpe|tem (?:toda a )?raz[aã]o|me enganei|(?:foi )?(?:um )?erro meu|"
    # Vietnamese: "Kacey nói đúng" (Kacey is right), "bạn nói đúng", "xin lỗi", "mình nhầm"
    r"(?:[\w-]+ )?nói đúng|(?:bạn|anh|chị|em) đúng|xin lỗi|(?:tôi|mình|em) (?:đã )?(?:nhầm|sai)|"
    r"cảm ơn (?:bạn )?đã chỉ ra)",
    re.IGNORECASE)
# Within the reply's first sentences (read lower-cased), not only at its opening: "好问题。坦率说，目前确实有文档过多的
# 问题", "Good question — you're right that the list is in both prompts".
_CONCEDED_LATER = re.compile(
    r"\byou'?re (?:absolutely |completely |totally )?right\b|\bmy (?:mistake|bad)\b|"
    r"\bi (?:missed|forgot|overlooked)\b|\bi should have\b|\b(?:great|good|nice|excellent|sharp) catch\b|"
    r"\bi was (?:wrong|mistaken)\b|\bi stand corrected\b|\bi should(?:'ve| have)\b|(?:^|[.!]\s+)should(?:'ve| "
    r"have)\b|erreur de ma part|j'ai eu tort|\bmy (?:earlier|previous|original) \w+ (?:was|is) "
    r"(?:wrong|incorrect|overkill|over-?engineered|off|mistaken|unnecessary)\b|"
    r"确实(?:有|存在|是|没|漏|不)|的确(?:有|是|存在)|你说得对|说得对|有道理|分析得(?:很|非常)?(?:准|对|到位)|"
    # "Du brand book … Mais vous avez raison de le questionner", "je l'ai retiré à tort"
    r"\b(?:vous avez|tu as) (?:\w+ )?raison\b|\bà tort\b|\btienes (?:toda la )?raz[oó]n\b|\bdu hast recht\b|"
    r"\btem (?:toda a )?raz[aã]o\b|\bnói đúng\b|\bxin lỗi\b")
# "Excellent observations! Let me fix both issues": the person's points are its work's faults, unless
# the turn set out new work (`_NEW_REQUEST`, `_ADDITION`: "Next, the legacy parser has two bugs …"):
# taking a bug ticket is what any agent says so.
_FIXES_POINTS = re.compile(
    r"\blet me (?:fix|address|correct) (?:both|these|those|all|the|this|that|each)(?: \w+)?(?: two| three)? "
    r"(?:issues?|problems?|bugs?|errors?|mistakes?)\b")
# Words one of `_CONCEDED_LATER`'s concessions holds: a substring test is cheaper than its search.
_CONCEDED_CUES = ("right", "catch", "my ", "missed", "forgot", "overlooked", "should", "wrong", "mistaken",
                  "corrected", "erreur", "tort", "raison", "razón", "razon", "recht", "确实", "的确", "说得对",
                  "有道理", "分析得", "razão", "nói đúng", "xin lỗi", "let me ")
# Praise of the person's own idea first ("Excellent insight! You're absolutely right - two sync
# modes are cleaner"): agreeing with a new plan, not conceding a mistake.
_PRAISED = re.compile(r"^\W*(?:excellent|great|good|brilliant|interesting|nice|love|smart|clever) (?:the )?"
                      r"(?:insight|idea|refactor|thinking|thought|suggestion|approach|plan|design)",
                      re.IGNORECASE)
# A question whether the agent did something, answered "No, …" with what it left out ("did you
# follow the full release prompt?" → "Non, il manque le step 13"): the person caught an omission.
# Not "did you find any other callers?" → "No, there are none": a search that found nothing.
_DID_YOU = re.compile(
    r"^(?:so\s+)?(?:did|have|had) (?:you|u|we|it|they)\b(?! (?:find|see|notice|get|know|mean|want|like|"
    r"encounter|come across|hear)\b)|^(?:is|are|was|were|has|have) (?:it|this|that|they|everything|"
    r"all)\b[^?\n]{0,40}\b(?:done|finished|complete|updated|fixed|committed|pushed|saved|tested|stored|"
    r"written|kept|placed|put|added|in the (?:right|proper|correct) place)\b"
    r"|^(?:as-tu|avez-vous|est-ce que (?:tu|vous) (?:as|avez)|hast du|haben sie|has|hiciste)\b"
    r"|有没有|是否(?:已经|有)?|了吗|了没")
_ANSWERED_NO = re.compile(r"^(?:no|nope|not (?:yet|quite|all|fully|really)|i did ?n'?t|i did not|"
                          r"i have ?n'?t|i have not|non|nein|没有|还没|并没有|没|未)\b|^(?:没有|还没|并没|没|未)",
                          re.IGNORECASE)
_ADMITS = re.compile(r"\bi (?:did ?n'?t|did not|have ?n'?t|have not|only|missed|forgot|skipped|"
                     r"overlooked|should)\b|\blet me\b|\bmissing\b|\bmissed\b|\bforgot|\bskipped|"
                     r"\bwrong\b|\bincorrect\b|"
                     r"il manque|j'ai oublié|je n'ai pas|falta|fehlt|vergessen|漏|缺|忘|让我|"
                     r"没有?(?:按|执行|做|跑|运行|更新|写|加|检查)", re.IGNORECASE)
# A question that says the agent's work loses something ("Doesn't this lose the progressive
# filtering?", "Won't this break the cache?"), answered "Yes" or "Good catch".
_NEGATIVE_QUESTION = re.compile(r"^(?:doesn'?t|don'?t|won'?t|wouldn'?t|isn'?t|aren'?t|shouldn'?t|"
                                r"can'?t|couldn'?t|didn'?t|wasn'?t) (?:this|that|it|we|you|u|the|there|"
                                r"these|those|nix|[\w.-]+ (?:have|need|support))\b")
_AGREES = re.compile(r"^(?:yes|yeah|yep|indeed|exactly|correct|right|absolutely|true|good (?:catch|"
                     r"point|call)|great (?:catch|point|question)|that'?s (?:right|true|correct|"
                     r"brilliant|a (?:great|good|fair) (?:point|catch|idea))|oui|sí|ja|确实|对|是的|没错)\b",
                     re.IGNORECASE)

ANSWERABLE = frozenset({"no", "dont"})  # a "no" answering the agent's question is an answer
_ASIDE = re.compile(r"\s*[(\uff08][^()\uff08\uff09]{0,200}[)\uff09][\s.]*\Z")
_SENTENCES = re.compile(r"[^.!?\u3002\uff01\uff1f]+[.!?\u3002\uff01\uff1f]*")


_PERSISTS = re.compile(r"\b(?:still|again|same|anymore)\b|还是|仍然|依然|又")
# What should be, then what is: "those values should line up, but they show a few cents off".
_EXPECTED_BUT = re.compile(r"\b(?:should|supposed to|expected to|ought to)\b(?! be (?:fine|ok|okay|good|enough))"
                           r"[^.!?\n]{0,80}?,?\s+but\s+(?!thanks|thank you|ok|okay)(?:[^\s.!?]+\s+){2,}")
_NO_FIRST = re.compile(rf"^(?:no+|nope|nah|non|nein|n[aã]o)(?:{_SEP})+")


_MISTAKE_MET = re.compile(r"(?:there(?:'s| is| are)|il y a|hay|es gibt)\b[^.!?\n]{0,30}?\b(?:errors?|bugs?|"
                          r"mistakes?|problems?|issues?|erreurs?|probl[eè]mes?|problemas?|fehler)\b")


# What the person got running what the agent made or told them to run, pasted back: a command and
# its error ("git push -u origin main\nerror: src refspec main does not match any", "PS C:\\app>
# .\\setup.ps1\nAt …:138 char:16 … Missing closing '}'"), or the error alone ("fatal: not a git
# repository", "Windows找不到文件'chrome.exe'。…", "'..' 不是内部或外部命令…"). A prompt, a program or a
# script said first, or an error line with no word of the person's (no "I", "you", "我", "你", …).
_PROMPTED = re.compile(
    r"^\s*(?:\([\w.-]+\)\s*)?(?:[\w.-]+@[\w.-]+:[^\n$#]*[$#]\s*|PS [A-Za-z]:\\[^>\n]*>\s*|"
    r"[A-Za-z]:\\[^>\n]*>\s*|\$\s+)\S")
_RUN_FIRST = re.compile(
    r"^\s*(?:sudo\s+)?(?:git|npm|npx|pnpm|yarn|node|python3?|pip3?|uv|go|cargo|make|docker|docker-compose|"
    r"kubectl|bash|sh|zsh|java|mvn|gradle|dotnet|php|composer|ruby|rails|bundle|deno|bun|pytest|curl|"
    r"terraform|flutter|dart|gh|mix|rustc|gcc|g\+\+|cmake|swift|xcodebuild|pod|brew|apt|apt-get|"
    r"\.{1,2}[\\/][\w.\\/-]+|[\w.-]+\.(?:ps1|sh|bat|cmd|py|exe))(?:[ \t]+[^\n]*)?\n")
# What a program prints when it fails, not the word in prose ("still some errors", "针对这一错误"): an
# error's name or label ("ParseError", "Access Error", "error:", "fatal:", "npm ERR!"), the shell's and
# the compiler's phrases, and the same in Chinese ("找不到文件", "无法访问此网站", "不是内部或外部命令").
_ERROR_MARK = re.compile(
    r"(?:Error|Exception)\b|\b(?:error|fatal|panic|FATAL|ERROR|Error)(?:\[\w+\])?:|\bERR!|"
    r"\bTraceback\b|\bFAILED\b|\b(?:Cannot|Could not|Unable to) \w+|\b(?:cannot|could not|unable to) (?:find|open|"
    r"access|read|load|resolve|import|connect|locate|create|write|execute|start)\b|"
    # "command not found", "Base table or view not found: 1146", not "he has not found the PATH"
    r"\b(?i:command|file|module|package|page|directory|path|view|table|key|host|branch) not found\b|:\s*not found\b|"
    r"\bnot found:|"
    r"\b[Nn]o such (?:file|directory|command|host)|\b[Pp]ermission denied\b|\bis not recognized\b|"
    r"\bdoes not match any\b|\b[Ss]egmentation fault\b|\bundefined:|\bMissing (?:closing|opening|expression|"
    r"argument|\w+ in)|\bInvalid\b|\bexit (?:code|status) [1-9]|"
    r"不是内部或外部命令|找不到|无法(?:访问|写入|打开|连接|找到|加载|运行|识别|启动|读取|解析)|(?:错误|失败|异常|报错)\s*[:：]|"
    r"语法不正确|拒绝访问")
# An error alone on the first line, as a program prints it, not prose that opens with an error word
# ("Invalid emails should show a red border", "Could not be happier", "Error messages should be …",
# "TypeError handling: wrap …"): an error's name then its message ("TypeError: …", "Parser Error
# Description: …", "Access Error You are not allowed …"), a program's label ("error: …", "fatal: …",
# "gh: Branch not found"), a name and message further in ("… get error odoo.tools.ParseError: …"), the
# shell's own phrases, and the same in Chinese.
_ERROR_ALONE = re.compile(
    r"^\W{0,2}(?:[\w.-]+:\s+){0,2}(?:(?:[A-Z]\w* ){0,3}(?:Error|Exception)(?:\[\w+\])?(?::|\s*\(|\s*$|\s+[A-Z])|"
    r"(?:error|fatal|panic)(?:\[\w+\])?:|(?:ERROR|FATAL|FAILED)\b|Traceback \(|Uncaught [A-Z]|"
    r"Invalid (?:[A-Z]\w*|[\w ]{1,30}:)|(?:[A-Z]\w* ){0,2}[Nn]ot found\b|"
    # where it failed ("Error in sub-node 'P01'", "Error from npm run build"), a traceback's raise, a
    # program's stderr field
    r"(?:Error|Exception) (?:in|from|while|during) \S|raise [A-Z]\w*(?:Error|Exception)\b|\"?stderr\"?\s*:)"
    r"|[a-z](?:Error|Exception):|\bSQLSTATE\[|\bcommand not found\b|\bNo such file or directory\b|"
    r"\bPermission denied\b|\bis not recognized as\b|\bnot a git repository\b|\bdoes not match any\b|"
    r"不是内部或外部命令|找不到|无法(?:访问|写入|打开|连接|找到|加载|运行|识别|启动|读取|解析)|(?:错误|失败|异常|报错)\s*[:：]|"
    r"语法不正确|拒绝访问")
_SPEAKER = re.compile(r"\b(?:i|i'm|my|me|we|you|your|u)\b|我|你|tôi|mình|bạn", re.IGNORECASE)
# The agent asking for what the person's run printed ("paste the output", "send me the error", "把
# 报错贴给我"): what comes back answers it, whatever it shows. Asked in ordinary words too: a verb of
# reporting back and what the run showed ("let me know what you see", "tell me what happens", "copy
# the output here", "paste what it prints", "然后把结果告诉我"); not "let me know if it works", which
# asks how the agent's fix went.
_ASKS_OUTPUT = re.compile(
    r"\b(?:paste|share|send|show) (?:me )?(?:the |its |your |what |any )?(?:full |whole |complete |exact )?"
    r"(?:output|error|errors|log|logs|result|results|message|traceback|stack)|\bwhat (?:does it|do you|did it) "
    r"(?:print|say|show|output|get|see)|"
    r"\b(?:let (?:me|us) know|tell (?:me|us)|copy|paste|send|share|post|report(?: back)?|give me)\b[^.!?\n]{0,30}?"
    r"\b(?:what (?:you (?:see|get)|happens|it (?:prints|says|shows|outputs|returns|gives you)|(?:comes|gets) "
    r"(?:out|printed)|(?:is )?printed|(?:the )?(?:terminal|console) (?:says|shows))|(?:the |its )?(?:full |whole |"
    r"complete |exact )?(?:output|results?|error messages?|logs?)\b)|"
    r"(?:贴|发|给)(?:给我|一下|出来)[^。\n]{0,10}(?:输出|报错|错误|日志|结果)|"
    r"把[^。\n]{0,20}(?:输出|报错|错误|日志|结果|看到的|显示的)[^。\n]{0,6}(?:贴|发|告诉)|"
    r"告诉我[^。\n]{0,6}(?:结果|输出|看到了?什么|显示了?什么|发生了?什么|报了?什么)",
    re.IGNORECASE)
_PASTED_WITHIN = 3000
# A modal or a request in a line with no "Name: message" in it: how errors should look or behave, said
# by the person ("Error from the payment API should show a friendly message").
_WISHED = re.compile(r"\b(?:should|must|need|needs|ought to|have to|has to|want|wants|would like|please|"
                     r"let'?s|next)\b", re.IGNORECASE)


def pasted_failure(text: str, said: str | None) -> bool:
    """Did the person paste back what failed when they ran the agent's work or steps (comment
    above), the agent not having asked for that output? No words are needed: the agent's claim
    or steps are what the error contradicts."""
    if not said or not text.strip():
        return False
    # The turn first, cheapest test first: most turns are prose of the person's and no paste.
    head = text.lstrip()[:_PASTED_WITHIN]
    first = head.split("\n", 1)[0]
    if "?" in first or "？" in first:
        return False
    logged = pasted_log(head)
    if logged or _PROMPTED.match(head) is not None or _RUN_FIRST.match(head) is not None:
        # the command said first is the person's: what it printed is below it
        found = _ERROR_MARK.search(head, 0 if logged else len(first))
    else:
        # the error alone: said first, within its first line, by no one ("fatal: not a git repository")
        found = _ERROR_ALONE.search(first, 0, 160)
        if found is not None and (_SPEAKER.search(_plain(first)) is not None or (
                ":" not in first[found.start():] and _WISHED.search(first) is not None)):
            return False  # "Permission denied pages need a link back home": the person's wish
    if found is None:
        return False
    last = head.rstrip().rsplit("\n", 1)[-1]
    if last.rstrip().endswith(("?", "？")) and _ERROR_MARK.search(last) is None:
        return False  # the person asks about it: "…\nwhy does it say rejected?"
    claim = _claim(said)
    if not (_done_in(claim) or _ASKED_TO_TRY.search(claim) or _GAVE_STEPS.search(claim)):
        return False  # nothing the agent made or told to run ("API Error: 401 …" was all it said)
    return not _asked_for_output(_plain(said[-600:]))


_IF_BEFORE = re.compile(r"\b(?:if|in case|should)\b|如果|若|万一", re.IGNORECASE)


def _asked_for_output(tail: str) -> bool:
    """Did the agent ask for the output to look at (`_ASKS_OUTPUT`)? Not "if you still see errors,
    paste them": that asks to hear how its fix went."""
    for found in _ASKS_OUTPUT.finditer(tail):
        sentence = re.split(r"[.!?。！？\n]", tail[:found.start()])[-1]
        if _IF_BEFORE.search(sentence) is None:
            return True
    return False


# A Python exception's line, closing its traceback: "NameError: name 'totals' is not defined".
_RAISED = re.compile(r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Interrupt|Exit|Warning)\b(?::|$)")


def _error_line(text: str) -> str:
    """The first line of a pasted failure that names the error (`_ERROR_MARK`), for a title; in a
    traceback, its exception's line (`_RAISED`, the last one), not its "Traceback (most recent call
    last):" header."""
    lines = [line.strip() for line in text.splitlines()[:200] if line.strip()]
    line = next((line for line in lines if _ERROR_MARK.search(line) and not _PROMPTED.match(line)), "")
    if line.startswith("Traceback"):
        line = next((found for found in reversed(lines) if _RAISED.match(found)), line)
    return _quoted(line or (lines[0] if lines else ""), 100)


# What the agent changed still so, in a few words ("balance column still in left" after "Added right
# alignment to all numeric columns"; "按钮还是在左边", "vẫn ở bên trái", "sigue a la izquierda"): its
# change did not take. Not what is still to do or wanted ("still need tests", "I still want the logo").
_STILL = re.compile(r"\bstill\b(?! (?:need|needs|want|wants|have to|has to|got to|gotta|to do|thinking|think|"
                    r"a couple|a few|some|more|one|two|left|looks? (?:great|good|fine)|works|working|"
                    r"working on|deciding|waiting|unsure|like|love|prefer)\b)|还是(?:不|没|一样|报错|会|在)|仍然|依然|"
                    r"\bvẫn\b|\bsigue\b|"
                    r"\btodav[ií]a\b|\bainda\b|\bcontinua\b|\btoujours\b|\bimmer noch\b|\bnoch immer\b")
# Still working or pleasing, in the languages `_STILL` reads, and the negations that turn it.
_WORKS = re.compile(r"\b(?:works?|working|fine|great|good|perfect\w*|thanks?|funciona\w*|perfecto|bien|bem|"
                    r"gracias|obrigad\w*|marche|fonctionne|merci|très bien|tốt|ổn)\b|正常|很好|没问题|不错")
_NOT_WORKING = re.compile(r"n'?t\b|\b(?:not|no|sin|sem|ne|pas|não|nao|chưa|không)\b|不|没")
_STILL_CUES = ("still", "还是", "仍然", "依然", "vẫn", "sigue", "todav", "ainda", "continua", "toujours", "immer",
               "noch", "還是")
_STILL_WORDS = 12
_STILL_CHARS = 40  # a CJK line of that many characters says as much


def _persists_after_change(text: str, said: str | None) -> bool:
    """Does a short first line, no question, say that what the agent just said it changed or did is
    still so (`_STILL`)?"""
    opening = text[:400].lower()
    if not said or not any(cue in opening for cue in _STILL_CUES):
        return False  # most turns say none of its words: a substring test before the searches
    first = _OPENER.sub("", _plain(spoken(text)).lower().strip()[:400]).split("\n", 1)[0].strip()
    if not first or "?" in first or "？" in first or _TASK_VERB.match(first) or _ASKS_TASK.match(first) or \
            _ZH_ASKS.search(first):
        return False  # "A还是B" asks which ("…还是只需要登出再登入就行吗")
    short = len(first) <= _STILL_CHARS if WIDE_CHAR.search(first) else len(first.split()) <= _STILL_WORDS
    if not short or _STILL.search(first) is None:
        return False
    if _WORKS.search(first) and not _NOT_WORKING.search(first):
        return False  # "Sigue funcionando perfecto, gracias", "ça marche toujours très bien": still works
    return claims_done(said)


def claims_done(said: str) -> bool:
    """Do the agent's last words report its work done or working (`_DONE_CLAIM`, `_DONE_MARKS`)?"""
    return _done_in(_claim(said))


def _done_in(claim: str) -> bool:
    return any(mark in claim for mark in _DONE_MARKS) or _DONE_CLAIM.search(claim) is not None


def _claim(said: str) -> str:
    """What of the agent's last words says its work is done: their head and tail, lower-cased (a
    report of pages is not searched whole)."""
    return (said if len(said) <= _DONE_HEAD + _DONE_TAIL else f"{said[:_DONE_HEAD]}\n{said[-_DONE_TAIL:]}").lower()


def answer_rule(text: str, said: str | None) -> str | None:
    """`correction_rule`, but a "no" or "don't" answering the agent's own question is an answer,
    unless the words after the "no" say its work still fails ("no.. its still slow, think again"
    answering "which extension are you using?")."""
    rule = correction_rule(text)
    if rule is None and pasted_failure(text, said):
        return "pasted_error"
    if rule is None and _persists_after_change(text, said):
        return "fails"
    if rule == "frustrated" and asked(said) and _INSULT.search(_plain(text).lower()[:200]) is None:
        return None  # "enough that we won't fuck something up" answers "is that detailed enough?"
    if rule not in ANSWERABLE or not asked(said):
        return rule
    head = _OPENER.sub("", _plain(text).lower().strip()[:400])
    rest = _NO_FIRST.sub("", head, count=1)
    if rest == head or not rest.strip():
        return None
    after = correction_rule(rest)
    # "nope it never worked" answers "Has this ever worked for the team?"; "no, still slow" says
    # the agent's fix did not take, and "non, il y a une erreur, …" that its work holds a mistake
    if after not in ANSWERABLE and (_PERSISTS.search(rest) or _MISTAKE_MET.match(rest)):
        return after
    # "No, in cells AF39 … you will see a subtraction. Those values should line up, but they show
    # a few cents difference" answers "Do you want me to dig deeper?": what the agent missed
    return rule if _EXPECTED_BUT.search(rest[:400]) else None


# The agent offering choices ("do you mean: **(a)** … **(b)** …", "Option 1 … Option 2"): a question
# however its sentences end.
_ASKS_CHOICE = re.compile(r"\?|\b(?:do you mean|would you (?:like|prefer)|which (?:one|option|do you)|should i|"
                          r"do you want|tu veux|vous voulez|pr[eé]f[eè]res-tu)\b|[:：]\s*$",
                          re.IGNORECASE | re.MULTILINE)
_CHOICE = re.compile(r"(?m)(?:^|\s)(?:\*\*)?\(?(?:[a-dA-D]|[1-4])\)(?:\*\*)?\s"
                     r"|^\s*(?:\*\*)?(?:option|choice) [1-4a-d]\b", re.IGNORECASE)


def asked(said: str | None) -> bool:
    """Did the agent's last words ask the person something? A question among its last two
    sentences ("Has this ever worked for the team? Might be worth asking a colleague."), an
    aside in brackets after it left out."""
    if not said:
        return False
    # "Do you remember what the command was? (e.g., flashing firmware, building, etc.)": the
    # aside after a question is not a sentence of its own
    said = _ASIDE.sub("", said.strip())
    tail = [m.group().strip() for m in _SENTENCES.finditer(said[-400:]) if m.group().strip()]
    if any(sentence.endswith(("?", "\uff1f")) for sentence in tail[-2:]):
        return True
    # "Quick clarification — do you mean:\n**(a)** … **(b)** …": choices offered after the ask
    end = said[-800:]
    return _ASKS_CHOICE.search(end) is not None and len(_CHOICE.findall(end)) >= 2


# Traditional Chinese (Taiwan, Hong Kong) read as simplified: every rule is written once, in
# simplified characters, and "你說得對" concedes as "你说得对" does, "不是有新的語法糖？" challenges
# as "不是有新的语法糖？" does. Only characters the rules' words hold, each mapped one to one.
_TRADITIONAL = str.maketrans(
    "說對錯誤為麼還沒這個應該確實題問們會過講訴讓記點顯動變檔樣嗎與較種處時後從裡裏頁開關啟執運邊義體寫將結號"
    "認總發現經導產複雜亂並無謝壞錄機載視滿觸選擇達兩別繼續試測驗刪銷響統設計規範約討論劃預聽釋證據術語層級構"
    "環線連轉換傳遞調卻難嘗簡單參數庫雖優雙擊夠團歡議傾薦採囉餘復決報敗態壓項標準碼譯係絕鍵舊",
    "说对错误为么还没这个应该确实题问们会过讲诉让记点显动变档样吗与较种处时后从里里页开关启执运边义体写将结号"
    "认总发现经导产复杂乱并无谢坏录机载视满触选择达两别继续试测验删销响统设计规范约讨论划预听释证据术语层级构"
    "环线连转换传递调却难尝简单参数库虽优双击够团欢议倾荐采啰余复决报败态压项标准码译系绝键旧")


_KANA = re.compile(r"[\u3040-\u30ff]")
# One of `_TRADITIONAL`'s characters: simplified Chinese, most Chinese turns, has none to translate.
_TRADITIONAL_CHAR = re.compile("[" + "".join(chr(code) for code in _TRADITIONAL) + "]")
_TRANSLATED = 600  # past the opening every rule reads (400 characters, a reply's 300)


def _plain(text: str) -> str:
    """Plain quotes, and traditional Chinese characters as simplified (`_TRADITIONAL`)."""
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    if text.isascii() or _TRADITIONAL_CHAR.search(text, 0, _TRANSLATED) is None or \
            _KANA.search(text, 0, _TRANSLATED):
        return text  # Japanese writes these characters too ("日本語で答えて"), and its rules hold them so
    # The rules read a turn's opening: a pasted log's thousands of lines are left as they are.
    return text[:_TRANSLATED].translate(_TRADITIONAL) + text[_TRANSLATED:]


# Text the person relays from another agent or tool ("CODEX SAYS: …", "GROK RESEARCH: …",
# "Linear chatbot says: …"): not their own words.
_RELAYED = re.compile(r"^\s*(?:[A-Za-z][\w -]{1,30} (?:says|said|wrote|replied|reports|reported|responds|"
                      r"responded|answers|answered|found)\s*:|(?:codex|gemini|grok|"
                      r"chatgpt|gpt-?[\d.o]+\w*|copilot|cursor|perplexity|deepseek|kimi|qwen|dispatch|"
                      r"another agent|the other agent)\b[\w ]{0,20}:)", re.IGNORECASE)
# The person owning a slip of their own ("sorry delete all of that it was wrong file", "my bad"):
# nothing the agent should learn.
_OWN_MISTAKE = re.compile(r"^(?:sorry|oops|whoops)\b[^?\n]{0,80}?\b(?:(?:it|that) was (?:the |a )?wrong|"
                          r"i (?:\w+ )?(?:the |a )?wrong|my (?:mistake|bad|fault))\b"
                          r"|^(?:my bad|my mistake|my fault|oops|whoops)\b|^(?:抱歉|不好意思)[^？?]{0,40}我")
# The person saying the stop was a slip of their own ("I didn't mean to interrupt you, continue",
# "oops, go on", "je voulais dire oui", "pressed Esc by accident", "不小心按错了"): nothing to learn,
# and no rule of the call it stopped.
_ACCIDENTAL = re.compile(
    r"^(?:sorry|oops|whoops|my bad|pardon|désolée?|perd[oó]n|sorry about that)\W+(?:continue|go on|go ahead|"
    r"carry on|proceed|keep going|vas-y|continue[sz]?|poursui[st]|sigue|继续)\W*$"
    r"|^(?:(?:sorry|oops|whoops|my bad|pardon|désolée?|perd[oó]n|sorry about that)\W+)?(?:"
    r"i (?:did ?n'?t|did not|never) (?:mean|want|intend) to (?:interrupt|stop|reject|cancel|press|hit|click|"
    r"deny|decline|refuse|say no|escape|esc)|i (?:accidentally|mistakenly)\b|(?:i )?(?:pressed|hit|clicked|tapped) "
    r"(?:esc|escape|the wrong|no|cancel|reject)\w*|(?:accident(?:ally)?|by accident|by mistake|misclick\w*|"
    r"mis-click\w*|fat[- ]finger\w*|wrong (?:button|key))\b"
    r"|i meant (?:to say )?(?:yes|to (?:accept|approve|allow|say yes))\b"
    r"|je (?:voulais|voulait) dire (?:oui|ok|d'accord)|je (?:ne )?voulais pas (?:t'|vous |l')?(?:interrompre|"
    r"arr[eê]ter|refuser|annuler)|(?:par erreur|sans faire expr[eè]s|pas fait expr[eè]s|mauvais bouton)\b"
    r"|sin querer|por error|quer[ií]a decir (?:que )?s[ií]|"
    r"(?:aus )?versehen|versehentlich|ich meinte ja|不小心|按错|误触|点错|手滑|間違えて|誤って|실수로|잘못 눌)")


_TOKENS = re.compile(r"\w+")
_SENT_AGAIN = 0.6  # share of a turn's words the earlier one had, that makes it that one again
_HALF = 0.5  # … and share of the earlier turn's words it repeats
_WRAPPED = 0.8  # share of the earlier turn's words a template sending it again holds


def sent_again(turn: str, before: str) -> bool:
    """Is the turn typed after a stop the request the stop cut short, sent again? No correction
    rule reads its opening, and it adds no content of its own (`_adds_content`: no new content
    word, identifier, path or number; a typo fixed is none) while its first eight words repeat the
    earlier turn's or most of its words were in it; or it holds nearly all of the earlier turn's
    words inside a slash command's template (a heading, a code fence, `<command-…>`). One that
    adds a constraint ("fix the parser" → "fix the parser, but do not touch the public API"),
    names another file or changes a detail says something new, and is judged on it."""
    now, then = _TOKENS.findall(turn.lower()[:4000]), _TOKENS.findall(before.lower()[:2000])
    if len(then) < 3 or len(now) < 3:
        return False  # "ok" → "ok, but seed the staging db": a word or two is no request repeated
    if correction_rule(turn) is not None:
        return False  # "not that ⎿ Error: …" quoting what the earlier turn quoted: it corrects
    words, earlier = set(now), set(then)
    shared = len(words & earlier)
    if now[:3] != then[:3] and shared >= _WRAPPED * len(earlier) and _TEMPLATE.search(turn) is not None:
        return True
    if _adds_content(turn[:4000], before[:2000]):
        return False
    if len(now) >= 8 and now[:8] == then[:8]:
        return True
    # both ways: "we have the DEBUGGER agent" shares four words with a long turn it is not
    return shared >= _SENT_AGAIN * len(words) and shared >= _HALF * len(earlier)


def sent_changed(turn: str, before: str) -> bool:
    """Is the turn typed after a stop the request the stop cut short, sent again with a change of
    its own (a constraint added, another file named, a detail changed: `_adds_content`)? Its first
    eight words repeat the earlier turn's, or it holds at least half of that turn's words. The
    change is what the person wanted otherwise, so the stop is kept with the turn as its reason."""
    now, then = _TOKENS.findall(turn.lower()[:4000]), _TOKENS.findall(before.lower()[:2000])
    if len(then) < 3 or len(now) < 3 or sent_again(turn, before):
        return False
    shared = len(set(now) & set(then))
    repeats = (len(now) >= 8 and now[:8] == then[:8]) or (shared >= 3 and shared >= _HALF * len(set(then)))
    return repeats and _adds_content(turn[:4000], before[:2000])


# A slash command's template around the request it sends: a Markdown heading, a code fence,
# Claude Code's command tags or the argument placeholder.
_TEMPLATE = re.compile(r"(?m)^\s{0,3}#{1,6} \S|^\s*```|<command-(?:name|message|args)>|\$ARGUMENTS")
# Words and characters that carry no content of their own when a re-sent request adds them
# ("please", "again", "now", "了"): what is left is a constraint, a file, a detail.
_TRIVIAL = frozenset(
    "a an the and or but so to of in on at for with by from as is are be it this that these those "
    "i you we me my your our us please pls plz can could would will just now again still also then "
    "ok okay yes yeah go ahead continue do did does it's its let let's lets try retry one more time "
    "sorry oops hey hi thanks thank here there what how".split()) | frozenset("的了吧呢啊呀嘛吗请再次一下下")
_NEGATING = frozenset("不别没勿非无")


_NAMED_PATH = re.compile(r"[A-Za-z0-9_.~-]*(?:/[A-Za-z0-9_.~-]+)+|[A-Za-z0-9_-]+\.[A-Za-z]{1,5}\b")


def _content_tokens(text: str) -> set[str]:
    """The words of a text, lower-cased, each CJK character a word of its own, and each path or
    file name whole: another file made of the earlier one's parts ("vibelife/docs/config.md"
    after "mentis/docs/config.md and vibelife-plan.md") is named anew."""
    out: set[str] = {path.lower().rstrip(".") for path in _NAMED_PATH.findall(text)}
    for token in _TOKENS.findall(text.lower()):
        if WIDE_CHAR.search(token) is None:
            out.add(token)
            continue
        out.update(ch for ch in WIDE_CHAR.findall(token))
        out.update(t for t in re.split(WIDE_CHAR, token) if t)  # "vibe日记" → "vibe" too
    return out


def _typo_of(token: str, earlier: set[str]) -> bool:
    """Is the token an earlier word mistyped, or fixed ("GDP" → "GBP", "teh" → "the")? Letters
    only: a changed digit ("file1" → "file2") is a changed detail."""
    if len(token) < 3 or not token.isalpha():
        return False
    most = 1 if len(token) < 8 else 2
    return any(_within(token, word, most) or _swapped(token, word) for word in earlier
               if word.isalpha() and abs(len(word) - len(token)) <= most and len(word) >= 3)


def _swapped(a: str, b: str) -> bool:
    """Two neighbouring letters swapped ("teh" → "the")?"""
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
    return len(a) == len(b) and len(diff) == 2 and diff[1] == diff[0] + 1 and \
        a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def _within(a: str, b: str, most: int) -> bool:
    """Are a and b at most `most` edits apart (Levenshtein, cut short once past it)?"""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        if min(row) > most:
            return False
    return row[-1] <= most


def _adds_content(turn: str, before: str) -> bool:
    """Does the turn hold content the earlier one did not: a word (not `_TRIVIAL`, not a typo
    fixed), an identifier, a path's part, a number, a CJK character (one alone, not negating, may
    be a typo fixed)?"""
    earlier = _content_tokens(before)
    new = [t for t in _content_tokens(turn) - earlier if t not in _TRIVIAL]
    cjk = [t for t in new if WIDE_CHAR.fullmatch(t)]
    if len(cjk) > 1 or any(t in _NEGATING for t in cjk):
        return True
    return any(not _typo_of(t, earlier) for t in new if not WIDE_CHAR.fullmatch(t))


def accidental(text: str) -> bool:
    """Did the person say the stop was their own slip (`_ACCIDENTAL`)? The agent was right to go on."""
    return _ACCIDENTAL.match(_plain(text).lower().strip()[:200]) is not None


# The person saying they now understand ("ah i see, thats not a general update status"): the
# agent's explanation stands.
_UNDERSTOOD = re.compile(r"^(?:(?:ah+|oh+|ok(?:ay)?)\W+)?i see(?:[,.!]|\s*$| now\b| so\b)"
                         r"|^(?:got it|makes sense|that makes sense|understood|fair enough)\b")
# "no for the storage i mean": the person says which of the agent's items they meant.
_OWN_CLARIFY = re.compile(r"^no\b[^\n]{0,60}\bi mean[.!]*$")


def relayed(text: str) -> bool:
    return _RELAYED.match(text) is not None


def _read(text: str) -> tuple[str, str, str]:
    """(the text lower-cased with plain quotes, its opening 400 characters, those without the
    opener): what `disowned` and `correction_rule` read, made once for both."""
    low = _plain(text).lower()
    lowered = low.strip()[:400]
    return low, lowered, _OPENER.sub("", lowered)


def disowned(text: str) -> bool:
    """Words that carry no lesson for the agent though they follow a stop or its work: text
    relayed from another agent, the person's own slip, the person saying they now see."""
    low, _, head = _read(text)
    return _disowned(text, low, head)


def _disowned(text: str, low: str, head: str) -> bool:
    head = head if not relayed(text) else ""
    if not head or _OWN_MISTAKE.match(low.lstrip()) is not None:
        return True
    understood = _UNDERSTOOD.match(head)
    if understood is None:
        return False
    rest = head[understood.end():].lstrip(" ,.!-")  # "i see, but you used the wrong file" corrects
    return not rest.startswith("but") and (not rest or correction_rule(rest) is None)


def game_move(text: str, said: str | None) -> bool:
    """A one- or two-word turn answering a one- or two-word reply ("RANG" → "WRONG"): a move in
    a word game the person plays with the agent, not a correction of its work."""
    return len(text.split()) <= 2 and said is not None and 0 < len(said.split()) <= 2


# The names correction_rule gives (stored as a correction's `rule`): mypy checks every return
# against this list, so a new rule is named here or it does not type-check.
TurnRule = Literal["reverse", "no", "dont", "imperative", "wrong", "question", "instead", "fails",
                   "doubt", "habit", "zh", "script", "prefer", "frustrated", "premise", "process", "reminded",
                   "recurrence"]


def correction_rule(text: str) -> TurnRule | None:
    """The correction rule a typed turn's opening matches, or None (module docstring)."""
    low, lowered, head = _read(text)
    if _disowned(text, low, head):
        return None
    if _OWN_CLARIFY.match(head):
        return None
    if _REVERSE.match(lowered):
        return "reverse"
    if _NO.match(head):
        return "no"
    if _DONT.match(head):
        return "dont"
    if _IMPERATIVE.match(head) or _FOREIGN_DIDNT.match(head) or (
            "i mean" in head[:_MEANT_WITHIN] and _MEANT.search(head, 0, _MEANT_WITHIN) and
            not _PLEASED_FIRST.match(head)):
        return "imperative"
    if _WRONG.search(head) or (any(cue in head[:160] for cue in _WRONG_CUES) and _WRONG_FIRST.match(head)):
        return "wrong"
    first = head.split("\n", 1)[0]
    if (_QUESTION.match(first) or _FOREIGN_WHY.match(first)) and (
            "?" in first or len(first.split()) <= _UNMARKED_QUESTION):
        return "question"
    if _INSTEAD.match(lowered) or _INSTEAD.match(head):
        return "instead"
    short_zh = len(head) <= _ZH_SHORT
    # The Chinese and other-language rules only read a turn that has a letter outside ASCII or one
    # of their words: most turns have neither, and the searches cost more than the test.
    wide = not first.isascii()
    if (len(first) <= 300 and (_FAILS.match(first) or _broken(first) or (
            _FOREIGN_FAILS_FIRST.match(first) or (
            any(cue in first for cue in _ANYWHERE_CUES) and _FOREIGN_FAILS_ANYWHERE.search(first))))) or \
            (short_zh and wide and _ZH_FAILS.search(first)):
        return "fails"
    if _pasted_back(head) or ((_TRIED.match(head) or (_WHEN_I.match(first) and not _ASKS_IF.search(first)))
                              and not _TRIED_PLEASED.search(first[:200])) or _followed_in_vain(head):
        return "fails"
    if _DOUBT.match(first) or _DOUBT_OTHER.match(first) or (
            ("pas s" in first or "not sure" in first) and _UNSURE.search(first, 0, _UNSURE_WITHIN)) or (
            ("see how" in first or "see why" in first) and _DONT_SEE.search(first[:240])):
        return "doubt"
    if _HABIT.match(first):
        return "habit"
    if _ZH.match(head) or (short_zh and wide and _ZH_DOUBT.search(first)):
        return "zh"
    if wide and (_KO_JA.match(head) or _RU.match(head) or (
            short_zh and (_KO_JA_FAILS.search(first) or _RU_FAILS.search(first)))):
        return "script"
    folded_head = _folded(head)
    folded = folded_head.split("\n", 1)[0] if len(first) <= _ZH_SHORT else ""
    if _VI_ES_PT_FIRST.match(folded_head) or (any(cue in folded for cue in _VI_ES_PT_CUES)
                                              and _VI_ES_PT_FOUND.search(folded)):
        return "script"
    if _PREFER.match(head) or (any(cue in head[:_LANGUAGE_WITHIN] for cue in _LANGUAGE_CUES) and
                               _LANGUAGE.search(head, 0, _LANGUAGE_WITHIN)):
        return "prefer"
    if any(cue in head[:_REMINDED_WITHIN] for cue in _REMINDED_CUES) and _REMINDED.search(head, 0, _REMINDED_WITHIN):
        return "reminded"
    if any(cue in head[:_REMINDED_WITHIN + 100] for cue in _RECURRENCE_CUES) and \
            _RECURRENCE.search(head, 0, _REMINDED_WITHIN + 100):
        return "recurrence"
    if len(first) <= 200 and _FRUSTRATED.search(first) and not _PLEASED.search(first) and \
            not (_SWORE_AT_OTHERS.search(first) and not _PERSISTS.search(first)):
        return "frustrated"
    if len(first.split()) <= 15 and _PREMISE.match(first):
        return "premise"
    if _PROCESS.search(lowered):
        return "process"
    if len(first) <= 300 and not _TASK_VERB.match(first) and not _AGREEING.match(first) and (
            any(cue in first for cue in _RATHER_CUES)) and _RATHER.search(first):
        return "instead"
    return None


# A fact set against the one a failed call went by: "The API runs on port 8040 locally, not 8080",
# "the tests live in packages/api/tests, not tests/", "pytest, not unittest". The wrong value `Z`
# after the "not" is what `corrects_premise` looks for in the failure; the right one comes first.
_NOT_THAT = re.compile(r"(?:^|(?<=[.!;:]\s))((?:[^.!?;:\n]|[.:](?!\s))*?\w(?:[^.!?;:\n]|[.:](?!\s))*?),\s+not\s+"
                       r"(?:on |in |at |from |under |the )?"
                       r"`?([\w@~][\w./:@~+-]*?)`?(?=[.,;!)]?(?:\s|$))", re.IGNORECASE)
_NOT_THAT_WORDS = 20  # a correction of a premise is said in a short sentence, not a task
# A value no prose word is: it holds a digit, a path's or a flag's mark.
_DISTINCT_VALUE = re.compile(r"\d|[/.@:_~-]")


def corrects_premise(text: str, failed: str) -> bool:
    """Does a typed turn set a fact against one the failed call went by ("X is Y, not Z", "X, not
    Z"), right after the call: `failed` (its command and error) names `Z`? A value is taken from
    the error only when no prose word could be it ("8080", "tests/"), since "use tabs, not
    spaces" is a new preference wherever "spaces" is printed; from the command, where a word is
    what the agent chose (`unittest`), any word. A question ("…, not 8080?") corrects nothing."""
    first = spoken(text).split("\n", 1)[0]
    if "?" in first:
        return False
    command, _, error = failed.partition("\n")
    for match in _NOT_THAT.finditer(first):
        said, value = match.group(1), match.group(2).rstrip("./:")
        if not value or len(said.split()) > _NOT_THAT_WORDS:
            continue
        named = re.compile(rf"(?<![\w/.-]){re.escape(value)}(?![\w])", re.IGNORECASE)
        if named.search(command) or (_DISTINCT_VALUE.search(match.group(2)) and named.search(error)):
            return True
    return False

def instruction(text: str) -> str:
    """A correction's words as the instruction they give: without the openers ("Actually,",
    "Hmm") and the bare "No," before them, the first letter capitalised; as they are when
    nothing would be left."""
    words = spoken(text)
    rest = words
    for opening in (_OPENER, _NO, _OPENER):  # the patterns read lower-cased text
        lowered = rest.lower()
        found = opening.match(lowered) if len(lowered) == len(rest) else None
        rest = rest[found.end():].lstrip(" ,.!:;-") if found else rest
    rest = rest.strip()
    if len(rest.split()) < 2:
        return words
    return rest[:1].upper() + rest[1:]

# The agent reporting its work done or working ("The app is fully functional", "✅" (`_DONE_MARKS`), "TICKET 03 —
# Terminé", "Clean compile. Here's a summary", "La migration a été appliquée avec succès", "Voici ce
# qui a changé", "已修复", "완료했습니다"), in its last words.
_DONE_CLAIM = re.compile(
    r"\b(?:done|fixed|complete[d]?|finished|resolved|implemented|deployed|working|works|functional|"
    r"succeeded|successfully|passes|passing|(?:is|are|now) ready|ready to (?:use|go|test)|all set|should now|"
    r"now (?:works|shows|loads|handles|uses|returns|renders)|here'?s (?:a |the )?summary|"
    r"here'?s what (?:changed|i did|was done)|changes made|"
    r"i(?:'ve| have) (?:updated|changed|added|fixed|removed|implemented|created|rewritten|rewrote|replaced))\b"
    r"|termin[ée]|corrig[ée]|r[ée]solu|fonctionne|fonctionnel|avec succ[eè]s|r[ée]ussi|pr[eê]te?s?\b|"
    r"voici ce qui a chang|ce qui a chang[ée]|mis à jour|impl[ée]ment[ée]|d[ée]ploy[ée]|listo|funciona|"
    r"devraient? maintenant|r[ée]capitulatif|r[ée]sum[ée] des (?:changements|modifications|corrections)|"
    r"deber[ií]a ahora|sollte jetzt|"
    r"erledigt|fertig|完成|已修复|修复了|搞定|已经?(?:更新|实现|添加)|完了しました|修正しました|완료|수정했|해결했|구현했|"
    r"готово|исправ(?:ил|лено)|сделано|теперь работает"
    # a report that opens with the change made: "Added right alignment to all numeric columns …"
    r"|^\W*(?:added|updated|changed|fixed|removed|moved|replaced|implemented|created|refactored|renamed|rewrote|"
    r"rewritten|converted|adjusted|aligned|applied|switched|wired|hooked up)\b")
_DONE_MARKS = ("✅", "✔")
# The report's head and tail say it is done ("Done. …", "… All tests pass."); its middle is the
# detail, and a report of pages is not searched whole. Read lower-cased.
_DONE_HEAD, _DONE_TAIL = 500, 300
# The person's first words reporting a problem with it: "Problème dans le nœud …", "Le problème
# persiste", "la page charge mais infiniment", "Error in sub-node …", "my images aren't loading",
# "still getting …", "테스트해보니 … 두 번씩 …", "还是报错". Read lower-cased.
_PROBLEM = re.compile(
    # a problem named first ("Problem executing workflow", "Error in sub-node …", "Bug critique …")
    r"^(?:problems?|issues?|errors?|bugs?|exceptions?|failures?|probl[eè]mes?|erreurs?)\b"
    # or as a label heading a line of a ticket ("## Problem: the orchestrator plans instead of acting"),
    # and a ticket that says it corrects ("# TICKET CORRECTIF — Fix …")
    r"|\n[#*\s]*(?:problems?|issues?|bugs?|probl[eè]mes?|erreurs?)\**\s*[:：]|\bcorrecti(?:f|ve)\b"
    # one the person meets ("I got …", "there is a bug", "still getting errors", "a new crash")
    r"|\b(?:there(?:'s| is| are)|i (?:get|got|see|saw|have|had|found|hit|am getting|'m getting)|getting|seeing|"
    r"still|same|another|new|big|huge|major|critical)\s+(?:(?:an?|the|some|this|that|one|two|few|several|"
    r"multiple|more|other)\s+)?(?:\w+\s+)?(?:errors?|bugs?|problems?|issues?|exceptions?|crash(?:es)?)\b"
    # what the work does wrong
    r"|\b(?:broken|not working|(?:does|do|is|are)(?:n'?t| not) (?:working|work|load(?:ing)?|show(?:ing)?|save|saving|"
    r"update|updating|open(?:ing)?|start(?:ing)?|run(?:ning)?|appear(?:ing)?|display(?:ing)?|respond(?:ing)?|change)|"
    r"failed|fails|failing|crash(?:es|ed|ing)|stuck|hangs|froze|infinitely|nothing (?:happens|changed|shows)|"
    r"(?:is|are) (?:still )?(?:empty|blank|missing|gone|null|undefined))\b"
    # French, Spanish, German
    # (a problem met, not one talked about: "la priorité des problèmes" is a topic)
    r"|\b(?:il y a|j'ai|on a|encore|toujours|gros|grosse|vrai|m[eê]me|nouveau|nouvelle|autre|plusieurs)\s+"
    r"(?:(?:un|une|des|le|la|les|encore|toujours|plusieurs|deux|gros|grosse|vrai|petit|petite|m[eê]me|nouveau|"
    r"nouvelle|autre)\s+)*(?:probl[eè]mes?|erreurs?|bugs?|soucis?|bogues?)\b"
    r"|\bprobl[eè]me (?:persiste|est toujours|dans|avec|sur|au niveau)\b|\bpersiste\b"
    r"|\bne (?:\w+ )?(?:marche|fonctionne|charge|s'affiche|s'ouvre) "
    r"(?:pas|plus)|pas du tout|infiniment|à l'infini|cass[ée]e?s?\b|bloqu[ée]e?s?\b|incoh[eé]ren|\bproblema\b|"
    r"\bfehler\b|funktioniert nicht"
    # Chinese, Japanese, Korean (问题 alone is also "question": only with what makes it a problem;
    # 错误 names a failure, "页面显示错误", "保存错误", but not as a noun to build or point at:
    # "加上错误处理", "错误码", "看一下这个错误是怎么回事")
    r"|报错|(?<![这那]个)(?<![这那]些)错误(?!处理|码|代码|日志|边界|类型|捕获|上报|监控|检查)|失败|不行|不对|"
    r"(?<!有)没(?:有)?(?:生效|反应|变化|成功)|卡住|有问题(?!\s*(?:问|请|随时|可以|就|再|的话))|出问题|问题(?:还在|依旧|仍然)|"
    r"エラー|動かない|おかしい|오류|에러|문제가|안 ?(?:돼|되|됨|나와|보여)|작동하지|실패|두 ?번씩|이상해|이상하|"
    r"ошибк|не работает|не работают|проблем[аы]")
# Words every English or French alternative of `_PROBLEM` holds (other scripts are searched).
_PROBLEM_CUES = ("problem", "issue", "error", "bug", "exception", "fail", "broken", "not ", "n't", "crash", "correcti",
                 "stuck", "hang", "froze", "infinit", "nothing", "empty", "blank", "missing", "gone", "null",
                 "undefined", "probl", "erreur", "bogue", "persist", "marche", "fonctionne", "charge", "affiche",
                 "ouvre", "pas du tout", "cass", "bloqu", "incoh", "fehler", "funktioniert", "soucis", "isnt", "doesnt",
                 "didnt", "dont", "wont", "cant", "arent", "wasnt")
_SENTENCE_END_AT = re.compile(r"[.!?。！？\n]")
_PROBLEM_WITHIN = 160  # characters: a report says so at once; a new task may mention errors later
# A task said first ("add error handling", "can you add a retry when it fails", "fix the typo in
# the README"): a new request that names a failure to handle, not one the agent's work has.
_ASKS_TASK = re.compile(r"^(?:(?:can|could|would) you (?:please )?|please |let'?s |now |next,? |ok(?:ay)?,? "
                        r"(?:now |next )?|back to |then )?(?:add|handle|implement|create|write|make|build|support|"
                        r"document|explain|log|catch|test|show me|tell me|design|research|update|edit|change|remove|"
                        r"delete|rename|move|refactor|configure|set up|install|run|deploy|commit|push|demo|try|"
                        r"the open|ajoute|cr[ée]e|impl[ée]mente|écris|explique|modifie|mets à jour|"
                        r"peux-tu (?:ajouter|cr[ée]er|expliquer)|演示|帮我|请)", re.IGNORECASE)


def reports_after_done(text: str, said: str | None) -> bool:
    """A failure report right after the agent said its work was done or working: the person's
    first words name a problem (`_PROBLEM`, any language), not as a condition or a new task, and
    not as a question that only asks ("what does the error mean?"). No cue word needed: the
    agent's claim is what the report contradicts."""
    if not said or pasted_log(text):
        return False  # a log pasted back without a word: what it shows is not the person's report
    head = _OPENER.sub("", _plain(spoken(text[:1000])).strip()[:400])  # a pasted log's tail is not read
    first = head[:_PROBLEM_WITHIN]
    lowered = first.lower()
    if first.isascii() and not any(cue in lowered for cue in _PROBLEM_CUES):
        return False  # most turns name no problem: a substring test before the search
    found = _PROBLEM.search(lowered)
    if found is None or _conditional(lowered, found.start()) or only_asks(head) or _HEADING.match(first):
        return False
    end = _SENTENCE_END_AT.search(head, found.end())
    if end is not None and end.group() in "?？":
        return False  # "Why is that an issue?", "…解决我们的问题吗？": a question about it
    if _PLEASED_FIRST.match(first.lower()):
        return False  # "Great, it works. One issue left: …" praises first; judged on its own
    if _SPEC_FIRST.match(lowered):
        return False  # "Error messages should be shown in a toast": how errors are to be handled
    if _harmless(lowered):
        return False  # "i have this error, it does not cause any issues, maybe fix it": no failure of the work
    claim = _claim(said)
    if _ASKS_TASK.match(first):
        # A task said first names a failure to handle ("add error handling"), unless the agent had
        # asked the person to try its work and what they name is that try failing.
        return _ASKED_TO_TRY.search(claim) is not None and _TRY_FAILED.search(found.group()) is not None
    return _done_in(claim) or _ASKED_TO_TRY.search(claim) is not None


# The agent asking the person to try its work ("Please refresh and try again", "let me know if it
# works", "请在 … 尝试发送，告诉我结果", "如果仍有问题"): it holds the work done, and what the person
# names next is what the try gave, even said as a request ("帮我测试一下（请求失败：…）").
_ASKED_TO_TRY = re.compile(
    # (the agent's own next step is no request: "Now let me run the tests again.")
    r"(?<!let me )(?<!let's )(?<!i'll )(?<!i will )(?<!we'll )(?<!going to )(?<!i need to )(?<!i can )(?<!i'd )"
    r"\b(?:try|test|refresh|reload|retry|rerun|re-run|run) (?:it |this |that |the \w+ )?(?:again|now)\b"
    r"|\bplease (?:try|test|refresh|reload|retry|restart)\b|\bgive it a (?:try|go|shot)\b"
    r"|\blet me know (?:if|whether) (?:it|that|this|everything|the \w+) (?:works|worked|helps|fixes|still|now)\b"
    r"|\blet me know (?:how it goes|what you see|the result)|\bif (?:it|the \w+|you) still (?:fails|see|get|does)"
    r"|请(?:在[^。\n]{0,80}?)?(?:刷新|重试|再试|尝试|测试|验证)|再(?:试|测)一下|告诉我结果|如果(?:仍|还|依然)有问题"
    r"|r[ée]essa(?:ie|yez)|(?:essaie|essayez|teste[sz]?) (?:maintenant|à nouveau|de nouveau)"
    r"|prueba (?:de nuevo|ahora|otra vez)|versuch(?:e|en sie)? es (?:noch einmal|erneut|jetzt)")
# A problem that is a try failing, not one to handle ("error handling", "错误处理").
_TRY_FAILED = re.compile(r"fail|报错|失败|不行|crash|broken|not working|没(?:有)?(?:生效|反应|变化|成功)|"
                         r"エラー|오류|ошибк")


# Condition and wish words before a problem word ("if there is an error", "make sure no errors",
# "quand il y a une erreur", "如果报错"): not a report.
_UNLESS_BEFORE = re.compile(r"\b(?:if|when|whenever|unless|in case|make sure|ensure|so that|avoid|prevent|"
                            r"handle|without|si|quand|lorsque|au cas o[uù]|pour [eé]viter|sans|cuando|wenn|falls)\b"
                            r"|如果|假如|避免|防止|만약|경우|場合", re.IGNORECASE)
# What the person did, then what it gave ("if I go to the dashboard, it shows …", "当我点击登录，
# 页面报错"): a report of their try, not a condition a task is to handle, once a comma ends it.
_PERSON_TRIED = re.compile(r"(?:if|when|whenever|si|quand|cuando|wenn)\s+(?:i|we)\b[^,，\n]*[,，]"
                           r"|(?:如果|当)我[^,，\n]*[,，]", re.IGNORECASE)


def _conditional(lowered: str, problem_at: int) -> bool:
    """Whether the problem named at `problem_at` is a case to handle ("if it fails, retry"):
    a condition said before it that is not the person telling what they did."""
    for m in _UNLESS_BEFORE.finditer(lowered, 0, problem_at):
        tried = _PERSON_TRIED.match(lowered, m.start())
        if tried is None or tried.end() > problem_at:
            return True
    return False


# A problem the person calls harmless ("it does not cause any issues", "no harm", "不影响"): a
# wish to tidy it, not a report that the work fails.
_HARMLESS = re.compile(r"\b(?:does ?n'?t|does not|do not|don'?t|won'?t) (?:cause|make|do) (?:any |much )?"
                       r"(?:issues?|problems?|harm|difference)\b|\bno (?:harm|big deal)\b|\bharmless\b|"
                       r"\bnot (?:a )?(?:big deal|problem)\b|不影响|没有?影响|"
                       # none met: "我没看到报错，运行正常", "no errors this time", "不再报错了"
                       # (not 没问题 alone: "其他都没问题，但是边框没有" names a failure beside it)
                       r"没有?(?:看到|发现|遇到|出现)(?:任何)?(?:报错|错误|问题|异常)|没有任何(?:报错|错误|问题|异常)|"
                       r"不再(?:报错|出错)|"
                       r"\b(?:no|without|zero) (?:more )?(?:errors?|issues?|problems?|warnings?)\b|"
                       r"\bning[uú]n (?:problema|error)|\b(?:problema|erro) nenhum|\bnenhum (?:problema|erro)|"
                       r"\bsin (?:problemas?|errores?)|\bsem (?:problemas?|erros?)|"
                       r"\baucun (?:problème|souci|bug|erreur)|\bpas de (?:problème|souci|bug)")
# A harmless side of a failure names what it spares ("it doesn't cause any issues for login",
# "对登录没有影响", "not a big deal for the demo, but it has to work"): the failure stands.
_SPARES_AFTER = re.compile(r"\s+(?:for|to|on|with) (?!(?:me|us|now|anyone|anything|the moment)\b)\w")
_SPARES_BEFORE = re.compile(r"对(?!我)[^，。,.!?！？\n]{1,12}$")


def _harmless(lowered: str) -> bool:
    """Does the person call the problem itself harmless (`_HARMLESS`), not a side it spares?"""
    for found in _HARMLESS.finditer(lowered):
        spared = _SPARES_AFTER.match(lowered, found.end()) or \
            _SPARES_BEFORE.search(lowered[max(0, found.start() - 13):found.start()])
        if not spared:
            return True
    return False


# A problem word as the subject of what should be: a spec of how errors are handled, no failure met.
_SPEC_FIRST = re.compile(r"^\W*(?:the )?(?:errors?|error messages?|exceptions?|failures?|issues?|bugs?|warnings?|"
                         r"permission denied|not found)"
                         r"(?: \w+){0,5} (?:should|must|need|needs|need to|needs to|have to|has to|ought to)\b")
_PLEASED_FIRST = re.compile(r"^(?:great|perfect|nice|awesome|excellent|good|super|parfait|génial|très bien|top)\b")


# The agent recommended one way; the person opens by choosing another ("I'd lean towards
# counting per pod" → "we should count per claim, so cache the claims"): a preference, the lesson.
_RECOMMENDS = re.compile(r"\bi(?:'d| would)? (?:recommend|suggest|propose|lean|prefer|go with)\b"
                         r"|\bmy recommendation\b|我倾向|我建议|我推荐|建议(?:采用|使用|用|选)"
                         # a plan it is about to carry out: "should I proceed to implement it?"
                         r"|\b(?:should|shall) i (?:proceed|go ahead|start|continue|implement)\b|"
                         r"\bwant me to (?:proceed|go ahead|start|implement)\b|先(?:跳过|回到|搁置)|我们不需要卡在")
_APPROVES = re.compile(r"\b(?:go ahead|go for it|proceed|sounds good|looks (?:great|good)|lgtm|ship it)\b|"
                       r"继续吧|可以了|没问题|就这么办")
# Said first against it: another way ("we should …", "我们应该…"), or "no" and what the person needs
# instead ("不行，我需要把抓取数据这一关搞定", "no, I need the full export"), or only part of it ("i just
# want to document the systems …" after "should I proceed to implement it?").
_CHOOSES = re.compile(r"^(?:we should|i'?d rather|i prefer|rather\b|我们应该|应该|我建议|建议|我觉得应该|"
                      r"还是用|改成|换成|"
                      r"(?:i|we) (?:just|only) (?:want|need)\b(?! to (?:say|thank|tell|let you know|add that))|"
                      r"(?:no|nope|nah|不行|不要|不)\W+(?:i|we) (?:need|want|have to|must)\b|"
                      r"(?:不行|不要|不)\W*我(?:需要|要|想要|必须|得))")


# Earlier work still wrong, in a session's first turn: a failure with "still"/"anymore" next to it,
# or what was changed "but" not holding; French and Chinese "still not".
_EARLIER_WORK = re.compile(
    r"\b(?:isn'?t|is not|aren'?t|are not|doesn'?t|does not|don'?t|do not|didn'?t|did not|won'?t|can'?t|"
    r"cannot|not|no)\b[^.!?\n]{0,40}?\b(?:still|anymore|any more)\b"
    r"|\bstill (?:isn'?t|is not|aren'?t|are not|doesn'?t|does not|don'?t|do not|not|broken|fails?|failing|"
    r"wrong|the same|shows?|showing|has|have|get|getting|gives?)\b"
    r"|\b(?:no longer|stopped) (?:works?|working|shows?|loads?|runs?|builds?)\b"
    r"|\b(?:we|you|u) (?:just )?(?:changed|fixed|added|set|made|updated|removed|moved|renamed|implemented|"
    r"wrote|built|refactored)\b[^.!?\n]{0,80}?\bbut\b[^.!?\n]{0,40}?(?:\bnot\b|n'?t\b|\bno longer\b|"
    r"\bstill\b|\banymore\b|\bwrong\b|\bbroke)"
    r"|\btoujours pas\b|\bne (?:marche|fonctionne) (?:toujours|plus)\b|还是(?:不|没)|仍然(?:不|没)|依然(?:不|没)",
    re.IGNORECASE)
_EARLIER_WITHIN = 300  # the opening sentences: a long brief's later "still" is part of the task


def reports_earlier_work(text: str) -> bool:
    """Does a session's first turn say the work done before it is still wrong (`_EARLIER_WORK`),
    in the person's own words (not a pasted log, relayed text or their own slip)?"""
    if pasted_log(text) or disowned(text):
        return False
    return _EARLIER_WORK.search(_plain(spoken(text)).strip()[:_EARLIER_WITHIN]) is not None


def overrides(text: str, said: str | None) -> bool:
    """Does the turn choose otherwise than the way the agent's last words recommended?"""
    if not said:
        return False
    # The person's opener first: it is short, and the agent's words searched may be pages.
    head = _OPENER.sub("", _plain(text).lower().strip()[:400])
    chosen = _CHOOSES.match(head)
    if chosen is None or _APPROVES.search(head) is not None:
        return False  # "no, I need a coffee first, then go ahead" lets the plan go on
    plain = _plain(said).lower()
    if _RECOMMENDS.search(plain) is None:
        return False
    rest = head[chosen.end():]
    if _OTHERWISE.search(rest) is None and (_SIDES_WITH.search(head) is not None or _names_only(rest, plain)):
        return False  # "I prefer Redis too", "应该可以，就用 Redis": the agent's way, agreed to
    return True


# Siding with the way proposed: "too", "as well", "agreed", "should be fine", 应该可以/没问题 (probably fine).
_SIDES_WITH = re.compile(r"\b(?:too|as well|also|agreed?|same here|(?:should|would|will) be (?:fine|ok|okay|good|"
                         r"enough))\b|应该(?:可以|没问题|行|没事|不错)|同意|也(?:觉得|倾向|选|用|是)")
# Turning from it: a negation, "instead", "rather than", 而不是/不用/别/换.
_OTHERWISE = re.compile(r"\b(?:not|no|never|instead|rather|than|n't|don'?t|other|another|different)\b|n't\b|"
                        r"而不是|不用|不要|别|换|改|其他|另")
_FILLER = frozenset({"go", "with", "it", "that", "this", "the", "a", "an", "and", "then", "so", "let", "let's",
                     "lets", "use", "using", "do", "just", "please", "ok", "okay", "yes", "sure", "one", "way",
                     "plan", "we", "i", "you", "for", "to", "be", "is", "its", "it's"})


def _names_only(rest: str, said: str) -> bool:
    """Does the rest of the person's choice name nothing the agent's words did not ("Redis, go with
    it", "就用 Redis" after recommending Redis)? Latin words, by their stem; at least one named."""
    words = [w for w in re.findall(r"[a-z][\w.+-]*", rest) if w not in _FILLER]
    if not words or len(words) > 4:
        return False
    return all(w[:5] in said for w in words)


# After an Esc, turns that do not redirect the agent: a retry (an API error, a hung call), a plain
# question, one more feature on top of the same work, a new request. A turn the correction rules
# read as one always redirects.
_RETRY = re.compile(r"^(?:retry|try again|again|resume|continue|go on|go ahead|proceed|keep going)\b")
_PLAIN_QUESTION = re.compile(r"^(?:is|are|was|were|what|how|can|could|will|would|where|when|which|"
                             r"who|does|do you|shall|should i|peux-tu|pouvez-vous|pourrais-tu|pourriez-vous|"
                             r"tu peux|est-ce que|qu'est-ce|comment|quel(?:le)?s?|puedes|podr[ií]as|kannst du|"
                             r"k[öo]nntest du)\b")
_CHALLENGE = re.compile(r"^(?:do|does|did|have|has) (?:we|you|it|this|that) (?:not|never)\b"
                        r"|^(?:don'?t|doesn'?t|didn'?t|haven'?t|isn'?t|aren'?t) (?:we|you|it)\b")
_ADDITION = re.compile(r"^(?:also|and also|plus|additionally|one more thing|do both|do them all)\b"
                       r"|\b(?:add that too|also add|add (?:this|that|it) as well|as well as that|"
                       r"commit (?:it|them) all)\b|\b(?:too|as well)[.!]*$")
_NEW_REQUEST = re.compile(r"^(?:(?:design|research|create|implement|build|develop|write|explain|"
                          r"tell me|show me|give me|let'?s|now|next)\b|给我|帮我|请(?:你)?(?:帮|给|写|生成)|"
                          r"(?:写|生成|实现|创建)一个|(?:解释|介绍)一下)")
_BARE_URL = re.compile(r"^\s*https?://\S+\s*$", re.IGNORECASE)
# Operating the session, not the work: "attends change le model passe sur opus 4.6", "switch to
# sonnet", "/model", "use plan mode": the stop was to change how the agent runs.
_SESSION_SWITCH = re.compile(r"\b(?:opus|sonnet|haiku|gpt-?\d[\w.]*|plan mode|mode plan)\b", re.IGNORECASE)
_SWITCH_VERB = re.compile(r"\b(?:switch|change|use|passe|passer|utilise|bascule|cambia|wechsle|切换|换成|换到)",
                          re.IGNORECASE)
# "RESEARCH: OpenAI Swarm protocols", a task heading; an error id or the IDE's file list pasted.
_HEADING = re.compile(r"^[A-Z]{4,}:|^error id:|^# files mentioned by the user", re.IGNORECASE)


def redirects(text: str) -> bool:
    """Does the turn typed right after an Esc redirect or correct what the agent was doing? A
    retry, a plain question, an added feature or a new request does not: no lesson in the stop."""
    first = _plain(text).strip().split("\n", 1)[0]
    if len(first) <= 120 and _SESSION_SWITCH.search(first) and _SWITCH_VERB.search(first):
        return False  # a model or mode switched: how the agent runs, not what it did
    if correction_rule(text) is not None:
        return True
    if just_continues(text):
        return False  # "继续", "weiter": a retry in any language, not only the English _RETRY
    if disowned(text) or pasted_log(text):
        return False  # not the person's lesson; a build log they pasted says what they saw
    if _HEADING.match(first) or first.strip().isdigit() or _BARE_URL.match(first):
        return False  # a task heading; a bare number or link answers a question
    head = _OPENER.sub("", first.lower())
    if _CHALLENGE.match(head):
        return True
    return not (_RETRY.match(head) or _PLAIN_QUESTION.match(head) or _ADDITION.search(head)
                or _NEW_REQUEST.match(head) or first.rstrip().endswith(("?", "？")))


# Sorry for what it cannot do ("抱歉，我无法看到你在编辑器中选择了哪一行", "Sorry, I don't have access to
# your screen"): no mistake conceded.
_UNABLE = re.compile(r"^(?:sorry|i apologi[sz]e|apologies|抱歉|对不起|不好意思|désolée?|lo siento|desculpe|xin lỗi)"
                     r"\W*(?:but\s+)?(?:i|我|je|yo|eu|tôi|mình)?\s*(?:can'?t|cannot|am (?:not able|unable)|"
                     r"don'?t have (?:access|the ability|a way)|have no (?:access|way)|无法|不能|没(?:有)?办法|看不到|"
                     r"ne (?:peux|vois) pas|no puedo|n[aã]o (?:consigo|posso)|không thể)", re.IGNORECASE)


def acknowledges_mistake(reply: str) -> bool:
    """Does the agent's reply open by conceding it was wrong (not sorry for what it cannot do)?"""
    opening = _REPLY_OPENER.sub("", _plain(reply).strip()[:200])
    return _ACKNOWLEDGED.match(opening) is not None and _UNABLE.match(opening) is None


# A reply praising the person's idea ("Good call.", "Good points!", "好思路。"): it welcomes a
# suggestion; it concedes a mistake only if the turn itself objected.
_IDEA_PRAISED = re.compile(r"^(?:good|great|nice|excellent) (?:call|points?|idea|suggestion|thinking)\b"
                           r"|^(?:好思路|好建议|好的建议|好主意)", re.IGNORECASE)
_ADDS_ON = re.compile(r"^(?:还有|另外|并且|而且|此外|也)")


def _welcomed(turn: str, reply: str, before: str | None) -> bool:
    """An answer to the agent's own question, an addition ("还有一个…", "also …") or a new request
    said as a want ("I want …"), with no cue of a correction and asking nothing back, that the agent
    only praised as an idea (`_IDEA_PRAISED`)."""
    if not _IDEA_PRAISED.match(_REPLY_OPENER.sub("", reply)) or correction_rule(turn) is not None or \
            "?" in turn or "？" in turn:
        return False  # "should we call it resourceClaimKeys?" asks back: it challenges a choice
    head = _OPENER.sub("", _plain(spoken(turn)).lower().strip()[:400])
    first = head.split("\n", 1)[0]
    return asked(before) or _ADDITION.search(first) is not None or _ADDS_ON.match(head) is not None or \
        _WANTS.match(first) is not None


# A new request said as a want ("I want a similar list with add/remove buttons on the other tab"):
# an agent praising it as a good call welcomes it, and concedes nothing. ("please use the existing
# helper" answered "Good call" may turn the agent from its way: not read as a want.)
_WANTS = re.compile(r"^(?:i|we) (?:really |also |just |now )?(?:want|would like|'d like|wish|need)\b")


def concedes(turn: str, reply: str, before: str | None = None) -> str | None:
    """The rule by which the agent's first words after a typed turn concede that the turn
    corrected it, or None: a reply opening with a concession ("acknowledged", not to a request
    for advice or a plain question, nor praise of an answer to its question, `before` its last
    words, or of an addition: `_welcomed`), one conceding in its first sentences, a question
    whether it did something answered "No" with what it left out, a question saying its work
    loses something answered "Yes"."""
    said = _plain(reply).strip()[:300]
    if acknowledges_mistake(said):
        return None if only_asks(turn) or _welcomed(turn, said, before) else "acknowledged"
    head = _OPENER.sub("", _plain(spoken(turn)).lower().strip()[:400])
    first = head.split("\n", 1)[0]
    opening = said[:150].lower()
    if any(cue in opening for cue in _CONCEDED_CUES) and not only_asks(turn) and not _PRAISED.match(said) and (
            _CONCEDED_LATER.search(opening) or _FIXES_POINTS.search(opening) and
            _NEW_REQUEST.match(first) is None and _ADDITION.match(first) is None):
        return "acknowledged"
    if _DID_YOU.search(first[:120]) and ("?" in first or "？" in first) and \
            _ANSWERED_NO.match(said) and _ADMITS.search(said[:150]):
        return "answered_no"
    if _NEGATIVE_QUESTION.match(first) and _AGREES.match(said):
        return "agreed"
    return None


# A Chinese "go on" is as often said with a softening particle (继续吧) or after an "OK" (好的，继续),
# and in traditional characters (繼續).
_CONTINUE = re.compile(r"^(?:(?:好的?|嗯|ok(?:ay)?)[\s,，、]*)?"
                       r"(?:continue|go on|go ahead|proceed|keep going|next|yes|y|ok(?:ay)?|"
                       r"sure|thanks?|thank you|done|[0-9a-e]|继续|繼續|可以|好的?|是的?|符合|对|對|"
                       r"weiter|mach weiter|continuer|continue[sz]|continuar|contin[uú]a|"
                       r"продолжай(?:те)?|дальше|続けて|계속(?:해)?)"
                       r"(?:吧|啊|呀)?[\s.!。！]*$", re.IGNORECASE)


def just_continues(text: str) -> bool:
    """"continue", "yes", "2", "继续": a turn that carries no comment on what happened."""
    return _CONTINUE.match(text.strip()) is not None


# Text copied from a terminal, a log or the agent's own screen: a record's time or level, a stack
# frame, a compiler's "file:line:col", a step counter, a TUI bullet or tree glyph, a shell prompt.
_LOG_LINE = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[ T]\d|\[?\d\d:\d\d:\d\d|Traceback \(most recent|"
    r"\s*at [\w$.<>]+\(|File \"|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL|E/|W/|I/|D/)[\s:\[/]|"
    r"\$ |> |[\w.-]+:\d+:\d+|\[(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL)\]|\[\d+/\d+\]|[✓✔✗⚠❌○⎿]"
    # Claude Code's screen: a tool call "● Bash(npm test)"; "● 先导出配置" is a list the person typed
    r"|●[ \t]*[A-Z][\w-]*\("
    r"|[\w.-]+@[\w.-]+:[^\n$#]*[$#] "  # "ubuntu@ubuntu:~/app(main)$ make"
    # a script's progress line, then the shell's complaint: "Creating hook..../x.sh: line 429: …"
    r"|[^\n]{0,120}?\.(?:sh|bash): line \d+: )")


def pasted_log(text: str) -> bool:
    """Does a turn (or a reason typed at a prompt) open with a pasted log, stack trace or terminal
    output rather than the person's own words? Both the corrections and the titles ask it."""
    first = text.lstrip().split("\n", 1)[0]
    # Claude Code's words on its screen ("● I'll run the tests") pasted with a call's result under it
    return _LOG_LINE.match(first) is not None or first.startswith("●") and "⎿" in text[:_PASTED_WITHIN]


# What a title keeps of a typed turn: not Claude Code's attachment markers ("[Image #4] …").
_MARKERS = re.compile(r"^(?:\s*\[(?:Image|Pasted text) #\d+[^\]]*\])+\s*", re.IGNORECASE)
# Words that carry no lesson of their own: "Nope", "Stop", "No same issue", "still does not work?".
_BARE = frozenset("""no nope nah stop wrong again same issue error problem thing result still it this
that is isn't isnt does doesn't doesnt not work works working worked never broken fails failing
quite the yet sorry im i'm really seriously what wtf why huh ugh lol bro dude omg ffs come on
u ur you you're youre are so stupid dumb retarded idiot useless fucking fuck fkn look
还是 不行 不对 错了 停 啊 哥们""".split())
_WORDS = re.compile(r"[\w']+", re.UNICODE)
_FAILURE = re.compile(r"\b(?:work|works|working|same|still|broken|fails?|failing)\b|还是|不行")


def contentless(text: str) -> bool:
    """A turn of words that carry no lesson of their own ("Nope", "still does not work?", "ur
    stupid"): what it objects to is only what the agent had just done."""
    plain = _plain(spoken(text)).lower()
    return len(plain.split()) <= 6 and all(w in _BARE for w in _WORDS.findall(plain))


def insult(text: str) -> bool:
    """Only swearing at the agent ("ur stupid", "fucking look"): frustration, no lesson."""
    plain = _plain(spoken(text)).lower()
    return contentless(text) and _FRUSTRATED.search(plain) is not None and not _FAILURE.search(plain)


def reports_failure(text: str) -> bool:
    """Does a contentless turn say the work still fails ("no same issue", "still broken")?"""
    return _FAILURE.search(_plain(spoken(text)).lower()) is not None


# Asking the agent's advice ("what would be the best idea", "what do you think"): an agent that
# answers "You're absolutely right" to it concedes nothing.
_ADVICE = re.compile(r"^(?:what(?:'s| is| would be| will be)? (?:the )?best|what do you (?:think|suggest|"
                     r"recommend|make of)|which (?:one|is better|would you)|what (?:should|would) (?:we|i|you))\b"
                     # "你如何看待以下修改意见。…" (what do you make of this review): a pasted text to weigh
                     # (not "你怎么看不出来…" how could you not see, "你怎么看都没看" you did not even look)
                     r"|^(?:你(?:如何|怎么)看待|你(?:如何|怎么)看(?=[这那以此上下]|[?？。!！]|$)"
                     r"|qu'en (?:penses-tu|pensez-vous)|¿?qu[ée] (?:opinas|piensas) "
                     r"(?:de|sobre)|was (?:hältst|denkst) du (?:von|über))")


# A "why" that points at something: a proposal ("why not …"), what the agent did not do ("why
# didn't you …"), a failure that persists ("why … still …"), or an action of the agent's ("why
# did you delete …"). Any other "why" ("why did we need the months field?", "why is that an
# issue?") may be a plain question: the agent's reply says which.
_WHY_POINTED = re.compile(
    rf"{_WHY_AMISS}|"
    r"why (?:not\b|don'?t (?:we|you|u)\b|(?:didn'?t|don'?t|aren'?t|isn'?t|wasn'?t|haven'?t|doesn'?t|"
    r"won'?t|can'?t)\b|[^?\n]{0,60}\b(?:still|again|keeps?|kept)\b|(?:did|would|are|were|do|have) "
    r"(?:you|u|we) (?:just |even |go and |keep )?(?:remove|delete|add|change|modify|rename|move|create|"
    r"write|use|install|hard-?code|revert|drop|edit|skip|commit|push|disable|ignore|overwrite|replace|"
    r"regenerate|downgrade|miss|forget|forgot|break|broke|touch|assume|guess|invent|make up|suggest|"
    r"recommend|propose)\w*\b)")
_WHY = re.compile(r"why\b")


def wonders(text: str) -> bool:
    """A "why" question that points at nothing the agent did (`_WHY_POINTED`)."""
    head = _OPENER.sub("", _plain(text).lower().strip()[:400])
    return _WHY.match(head) is not None and _WHY_POINTED.match(head) is None


def only_asks(text: str) -> bool:
    """A request for advice, or a plain question ("is agent_learning_system.py redundant to …?",
    "what do you mean existing pattern?", "we have an array for each colour …?"): an agent that
    opens its answer with "You're right" concedes nothing by it."""
    head = _OPENER.sub("", _plain(text).lower().strip()[:200])
    if _ADVICE.match(head):
        return True
    first = head.split("\n", 1)[0].rstrip()
    if not first.isascii() and len(first) <= _ZH_ASKS_WITHIN and (
            _ZH_ASKS.search(first) or _ZH_CHECKS.match(first)) and not _ZH_CHALLENGE.search(first):
        return True  # "Auto mode就是之前的默认模式吗", "你知道我 focus 哪个档案吗？": it asks, an answer follows
    asking = first.split("?", 1)[0] if "?" in first else (first if _INVERTED.match(first) else "")
    return 0 < len(asking.split()) <= 25 and (
        _ASKING.match(asking) is not None or _WE_HAVE.match(asking) is not None)


# A plain question in Chinese: it ends asking (吗, 呢, "？"), and says nothing is wrong (不是…吗 "isn't
# it …?", 为什么, 怎么又, 没…吗 challenge: "我现在qkvo不是都量化了吗").
_ZH_ASKS = re.compile(r"(?:吗|么|呢)\s*[？?]?\s*$|[\u3400-\u9fff][^\n]*[？?]\s*$")
# Nor what the agent did, asked ("你在干什么", "全部清理干什么", "你怎么就直接开始了？", "我说了…你明白吗",
# "你只加了一部分…对吗", "要这么复杂吗"): a challenge, which the agent may rightly concede.
_ZH_CHALLENGE = re.compile(r"(?<!是)不是|难道|为什么|为啥|怎么|干什么|干嘛|没有?|你确定|真的(?:能|可以|会)|"
                           r"不(?:对|行|应该|该|一样|用|需要|讨论)|"
                           r"错|而不是|忘|漏|明白吗|懂吗|我(?:已经|之前)?说(?:了|过)|你只|只(?:加|改|做|写|讨论|有)|"
                           r"这么(?:复杂|麻烦|多|久|慢)|还要你|"
                           # another way proposed as a question: "cityFile 是否叫 city_override 更符合语义？"
                           r"是否(?:叫|用|改|应该)|要不要|更(?:符合|合适|合理|好)|会不会更")
# Checking it understood, said as a statement: "所以在 plugin 所有档案等同于在外面的" (so the plugin's files are
# the same as the ones outside).
_ZH_CHECKS = re.compile(r"^(?:所以|也就是说|意思是|那就是|就是说)")
_ZH_ASKS_WITHIN = 45  # a question of a clause or two; a longer turn states something too
# Not "what about the tests?" or "where is the test?": a reminder the agent may rightly concede.
_ASKING = re.compile(r"^(?:is|are|was|were|does|do you|should|would|could|can|how|which|"
                     r"what(?! about| if| else))\b")
_WE_HAVE = re.compile(r"^(?:so )?(?:we|you|it|they) (?:have|has|use|uses|need|needs)\b")
# A question without its "?"; "should" only with its subject ("should I use uv"), since "Should go
# in document_schema" tells the agent where a thing goes.
_INVERTED = re.compile(r"^(?:(?:is|are|was|were|does) \S+|should (?:i|we|you|it|this|that|there|the|a|an|"
                       r"my|our|your|these|those)\b) ")


def spoken(text: str) -> str:
    """The person's words without the markers Claude Code puts before them."""
    return _MARKERS.sub("", text).strip()


# A first sentence that only clears the way for the point ("Ok test is passing, good.", "Looking
# good.", "I like option 2.", "I understand this.", "I want your opinion on something."): what
# the person objects to comes after it ("I don't like the polling wait"), often after a "but".
_PREAMBLE = re.compile(
    # a negation is the point ("nothing is working", "the build isnt passing"), no preamble
    r"(?!.*\b(?:not|no|nothing|none|never|still|yet|cannot|(?:do|does|did|is|are|was|were|can|won|have|"
    r"has)n'?t)\b)"
    r"(?:ok(?:ay)?|alright|right|yes|yeah|yep|sure|good|great|nice|perfect|cool|excellent|awesome|"
    r"thanks?(?: you)?|understood|got it|makes sense|i see|noted|d'accord|parfait|très bien|"
    r"(?:it|this|that|everything|all) (?:looks?|seems?) (?:good|great|fine|ok(?:ay)?)|looks? (?:good|great|fine)|"
    r"looking (?:good|great|better)|(?:it|that|this) works|"
    r"(?:the )?[\w.-]+(?: [\w.-]+)? (?:is |are |'s )?(?:passing|pass(?:es)?|green|working|fixed)(?: now)?|"
    r"i (?:like|love|prefer) [^.!?\n]{1,60}|i understand(?: (?:this|that|it|now))?|"
    r"i (?:want|need|would like) your (?:opinion|thoughts|view) on (?:something|this)|"
    r"(?:one more thing|quick question|a few things|some feedback))"
    r"(?:\s*,?\s*(?:good|great|nice|thanks?|perfect))*",
    re.IGNORECASE)
_OPENING_SENTENCE = re.compile(r"\s*([^\n.!?。！？]{1,100}?)[.!?。！？]+\s+(?=\S)")
_CONTRAST = re.compile(r"^(?:but|however|though|although|yet|mais|pero|aber)\b[\s,:;-]*", re.IGNORECASE)


def past_preamble(text: str) -> str:
    """The person's words from their point on: without an opening sentence that only approves,
    understands or announces (`_PREAMBLE`), and the "but" after it."""
    first = _OPENING_SENTENCE.match(text)
    if first is None or not _PREAMBLE.fullmatch(_OPENER.sub("", _plain(first.group(1)).strip().lower()).strip(" ,")):
        return text
    rest = _CONTRAST.sub("", text[first.end():])
    return rest[:1].upper() + rest[1:] if rest.strip() else text


def _quoted(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


# A path in what the agent was doing, as a title names it: its file name.
_PATH = re.compile(r"`(?:[^`\s]*[/\\])([^`/\\\s]+)`")


def _briefly(doing: str) -> str:
    """What the agent was doing in a few words: "edit `telescope.lua`", not its whole path."""
    return _quoted(_PATH.sub(r"`\1`", doing), 60)


# A challenge whose question holds its lesson, said as what to do: "can we not just look up the
# os?" proposes it; "did you not look in the repo?" says to look there first; "why did u modify
# generated files?" says not to do it unasked.
_PROPOSED = re.compile(r"(?:why (?:not|don'?t (?:we|you|u))|(?:can(?:'?t)?|could(?:n'?t)?) (?:we|you|u)(?: not)? just|"
                       r"(?:can|could) we not|shouldn'?t (?:we|you|u))\s+(?:just\s+)?"
                       r"(?P<what>[^?\n]{3,120}?)\s*\?", re.IGNORECASE)
_NOT_DONE = re.compile(r"(?:did|have) (?:you|u) (?:not|actually|really|even|ever)\s+(?:even\s+)?"
                       r"(?P<what>[a-z]+\b[^?\n]{0,100}?)\s*\?", re.IGNORECASE)
_UNASKED = re.compile(r"why (?:did|would) (?:you|u|we) (?:just |even |go and )?(?P<what>(?:remove|delete|add|"
                      r"change|modify|rename|move|create|write|use|install|hard-?code|revert|drop|edit|"
                      r"skip|commit|push|disable|ignore|overwrite|replace|regenerate|downgrade)\b"
                      r"[^?\n]{0,100}?)\s*(?:\?|$)", re.IGNORECASE)
# "why did u do that?": what it names is what the agent had just done; "where did you get this
# info from": say where it comes from.
_DID_THAT = re.compile(r"(?:(?:that'?s|this is)(?: \w+){1,3}\W+)?why (?:did|would) (?:you|u) (?:just |even )?"
                       r"do (?:it|that|this)\b(?! like)", re.IGNORECASE)
_SOURCE = re.compile(r"where did (?:you|u) (?:get|find|read|see) (?P<what>[^?\n]{2,80}?) from\b",
                     re.IGNORECASE)
# Swearing a title leaves out: "Give me fucking file paths" says "Give me file paths".
_SWEARING = re.compile(r"^(?:fuck me|ffs|wtf)\W+|\b(?:fucking|fuckin'?|fkn|fking|fricking|freaking|bloody)\s+",
                       re.IGNORECASE)
# "i dont think it copied to ventoy partition": a doubt that done work took effect (a verb in the
# past); "i dont think we care about the bill migration" is a view, and keeps its words.
_DOUBTED = re.compile(r"i (?:don'?t|do not) think (?P<what>(?:it|that|this|we|you|they|the \w+) "
                      r"(?:\w+ed|did|made|went|ran|got|took|wrote|built|saw|found|kept|set|put)\b[^.?!\n]{0,80})",
                      re.IGNORECASE)
# Agreeing before the point: "yes but ill need actual syntax highlighting too", "continue, i …".
_AGREED = re.compile(r"^(?:(?:yes|yeah|yep|sure|ok(?:ay)?)\W+but\W+|continue\W+)", re.IGNORECASE)
_FIRST_SENTENCE = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s")
_TO_YOU = {"i": "the person", "me": "the person", "my": "the person's", "i'm": "the person is"}


def _rephrased(words: str, doing: str | None) -> str | None:
    """A challenging question turned into what to do or avoid, quoting the question; None when
    its opening holds none (module docstring)."""
    first = _plain(words.split("\n", 1)[0])
    opener = _OPENER.match(first.lower())
    first = first[opener.end():] if opener else first
    quote = f"the person asked “{_quoted(words, 70)}”"
    if doing and _DID_THAT.match(first):
        return f"Do not {_briefly(doing)} unasked: {quote}"
    doubted = _DOUBTED.match(first)
    if doubted:
        return f"Check that {doubted.group('what')} before saying it is done: the person said “{_quoted(words, 70)}”"
    source = _SOURCE.match(first)
    if source:
        return f"Say where {source.group('what')} comes from before stating it: {quote}"
    # "can you not use my config?" asks the agent to stop: not a proposal
    for pattern, shape in ((_PROPOSED, "{}: {}"),
                           (_NOT_DONE, "{} first: {}"), (_UNASKED, "Do not {} unasked: {}")):
        found = pattern.match(first)
        if found:
            what = " ".join(_TO_YOU.get(w.lower(), w) for w in found.group("what").split())
            if shape.startswith("Do not"):
                return shape.format(what, quote)
            return shape.format(what[:1].upper() + what[1:], quote)
    return None


# A report about how the agent works, not about what its work does ("You're not following your
# BMAD instructions", "you didn't add the tests"): checking that the work runs is not its lesson.
_ABOUT_YOU = re.compile(r"^(?:you|u)(?:'re| are| r|'ve| have| were)? (?:still )?(?:not|never)\b"
                        r"|^(?:you|u) (?:aren'?t|haven'?t|didn'?t|don'?t|weren'?t)\b")
HEADING_MARKS = re.compile(r"^\s*#{1,6}\s+")  # a Markdown heading's marks: "# TICKET …" says "TICKET …"


# The agent telling the person what to run or do: a command quoted, steps, "请双击这个文件".
# Spaces within a line only ([^\S\n]), and one optional marker between them: `\s*` around an optional
# group crossed line ends and split a run of blank lines every way (about n^3 steps).
_GAVE_STEPS = re.compile(r"`[^`\n]+`|```|(?im:^[^\S\n]*(?:(?:[-*]|\d+[.)])[^\S\n]*)?"
                         r"(?:run|type|open|double-click|click|execute|"
                         r"enter|paste|go to|cd)\b)|请(?:现在)?(?:操作|双击|运行|执行|输入|打开)|双击|在终端|"
                         # "只需要进入客户列表页", "你需要先登录再刷新": where to go and what to do, in prose
                         r"(?:只需要|你需要|你只要|请先|先)(?:进入|打开|点击|运行|执行|输入|粘贴|复制|刷新|登录|重启)")


def lesson(text: str, doing: str | None, said: str | None) -> str | None:
    """The title of a correction whose words alone are no lesson, naming what to do or avoid:
    a report that the agent's work fails says so first, then to verify before saying it is done
    ("Syntax highlighting does not quite work: check that it works before saying it is done");
    without words of its own ("still does not work?") it names what the agent had just done; a
    bare "Nope" or "Stop" says not to do what the agent had just done or said. None when the
    words are the lesson themselves."""
    if correction_rule(text) is None and pasted_failure(text, said):
        # What the person got running it: the error names what failed, and whose it was.
        # The error first: a title is cut short, and what failed is its lesson (what the agent had
        # done is in the memory's first line).
        error = _error_line(text).rstrip(" .:：。")
        assert said is not None  # pasted_failure needs the agent's words
        if doing is None and _GAVE_STEPS.search(said) and not claims_done(said):
            return f"{error}: check that your instructions work before giving them"
        return f"{error}: check that it works before saying it is done"
    words = spoken(text)
    line, _, below = words.partition("\n")
    first, _, rest = line.partition(". ")
    if not rest.strip() and below.strip():
        first, rest = line, below  # "Stop.\nLe ticket n'est pas validable : …": the next line says it
    opened = bool(rest.strip()) and all(w in _BARE for w in _WORDS.findall(_plain(first).lower()))
    if opened:
        words = rest.strip()  # "Im sorry.... did u just modify generated files?": the second says it
    plain = _plain(words).lower()
    bare = contentless(words)
    quote = f"“{_quoted(words, 80)}”"
    check = "check that it works before saying it is done"
    rule = None if bare else correction_rule(words)
    # a report that the work fails, in words or right after the agent said it was done
    if rule == "fails" and _followed_in_vain(_plain(words).lower(), _FOLLOWED):
        # "I tried to run it using your instructions and got: …": the instructions are what failed
        return f"Check that your instructions work before giving them: the person said {quote}"
    if not bare and (rule == "fails" or (rule is None and reports_after_done(words, said))):
        line, _, after = words.partition("\n")
        if line.rstrip().endswith((":", "：")) and after.strip():
            return None  # "I see a console error:" then the error: the error names it
        if line.rstrip().endswith(("?", "？")):
            return None  # "So I can't have a .claude/ folder per project?": a question, not a report
        if _ABOUT_YOU.match(_plain(line).lower()):
            return None  # "You're not following your instructions": how it works, said in its words
        line = HEADING_MARKS.sub("", line)
        below = after.strip().split("\n", 1)[0]
        if len(line.split()) < 2 and below:  # "Diagnostic" alone heads what the next line says
            line = f"{line.strip()}: {_FIRST_SENTENCE.split(below, maxsplit=1)[0]}"
        said_first = _quoted(line, 90).rstrip(" .!。！")
        return f"{said_first[:1].upper()}{said_first[1:]}: {check}"
    if bare and _FAILURE.search(plain):
        where = f"After you {_briefly(doing)}, {check}" if doing else check[:1].upper() + check[1:]
        return f"{where}: the person said {quote}"
    if not bare:
        rephrased = _rephrased(words, doing)
        if rephrased:
            return rephrased
        if rule == "reminded":
            # "I'm on Ubuntu 22.04. You should know this...": the fact is in the sentences around it
            return f"Keep in mind what the person told you: “{_quoted(words, 100)}”"
        said_first = _FIRST_SENTENCE.split(words.split("\n", 1)[0], maxsplit=1)[0]
        # "Give me fucking file paths" says "Give me file paths"; "yes but ill need …", "ill need …"
        calm = " ".join(_AGREED.sub("", _SWEARING.sub("", said_first)).split()).strip(" ,.!")
        if calm and calm != " ".join(said_first.split()).strip(" ,.!"):
            return calm[:1].upper() + calm[1:]
        return words[:1].upper() + words[1:] if opened else None
    if doing:
        return f"Do not {doing} unasked: the person said {quote}"
    if said:
        return f"Do not answer “{_quoted(said, 70)}”: the person said {quote}"
    return None
