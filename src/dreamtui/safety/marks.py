"""Safety marks for untrusted memory text: what a person should look at before an agent reads it.

Memories end up in every future agent's context, so nothing here rewrites text: `scan` names what
looks suspicious (instruction-like phrases, concealment, exfiltration cues, role delimiters, HTML
that runs or loads, invisible, bidi and tag characters, oversized repetitive padding) and
`display_text` shows hidden characters on review screens.

Phrases are matched on what a model would read: NFKC, hidden characters dropped, look-alike
letters folded to Latin, and text hidden in tag characters, base64, hex, percent or entity escapes,
rot13, reversal or digits-for-letters decoded. An instruction counts only when it is told to the
reader (an imperative, or addressed to the assistant), so a lesson that *describes* a model
ignoring its prompt stays unmarked.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import html
import re
import unicodedata
import zlib
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import NamedTuple
from urllib.parse import unquote

__all__ = [
    "MARK_ACTIVE_CONTENT",
    "MARK_BIDI",
    "MARK_CONCEALMENT",
    "MARK_EXFILTRATION",
    "MARK_INJECTION",
    "MARK_INVISIBLE",
    "MARK_REPETITIVE",
    "MARK_ROLE_DELIMITER",
    "MARK_TAG_CHARS",
    "display_text",
    "scan",
    "scan_many",
]


MARK_INJECTION = "injection-suspected"
MARK_ROLE_DELIMITER = "role-delimiter"
MARK_EXFILTRATION = "exfiltration-cue"
MARK_CONCEALMENT = "concealment"
MARK_ACTIVE_CONTENT = "active-content"
MARK_INVISIBLE = "invisible-unicode"
MARK_BIDI = "bidi-control"
MARK_TAG_CHARS = "unicode-tag-chars"
MARK_REPETITIVE = "oversized-repetitive"

# -- hidden characters --------------------------------------------------------------------------

_HIDDEN_RE = re.compile(
    "(?P<invisible>[\u00ad\u115f\u1160\u180e\u200b-\u200d\u2060-\u2064\ufeff\u3164\uffa0"
    "\U000e0100-\U000e01ef\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
    # Two or more variation selectors in a row carry hidden bytes ("emoji smuggling").
    "|[\ufe00-\ufe0f]{2,})"
    "|(?P<bidi>[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069])"
    "|(?P<tag>[\U000e0000-\U000e007f])"
)
# Subdivision flags (England, Scotland, Wales) are U+1F3F4 + tag letters + CANCEL TAG.
_FLAG_SEQUENCE_RE = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_JOINERS = "\u200c\u200d"
# Every character `_HIDDEN_RE` can start a match with, in one class: one search of a class, five
# to ten times faster than the alternation's, clears the typographic quotes, dashes and ellipses
# nearly every memory holds of anything hidden.
_MAY_HIDE_RE = re.compile("[\u00ad\u115f\u1160\u180e\u200b-\u200f\u2060-\u2064\ufeff\u3164\uffa0"
                          "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufe00-\ufe0f\u061c\u202a-\u202e"
                          "\u2066-\u2069\U000e0000-\U000e01ef]")
_MARK_OF_GROUP = {"invisible": MARK_INVISIBLE, "bidi": MARK_BIDI, "tag": MARK_TAG_CHARS}


def _hidden_chars(text: str) -> Iterator[tuple[int, int, str]]:
    """Spans of characters a reader cannot see, minus their legitimate uses."""
    flag_spans = [m.span() for m in _FLAG_SEQUENCE_RE.finditer(text)]
    for m in _HIDDEN_RE.finditer(text):
        start, end = m.span()
        group = m.lastgroup
        assert group is not None
        if group == "tag" and any(f_start <= start < f_end for f_start, f_end in flag_spans):
            continue
        if m[0] == "\ufeff" and start == 0:
            continue
        # Emoji sequences and Indic/Persian scripts join non-ASCII letters with ZWJ/ZWNJ; hidden
        # payloads sit between ASCII letters or in runs.
        if (
            m[0] in _JOINERS
            and _visible_non_ascii(text, start - 1)
            and _visible_non_ascii(text, end)
        ):
            continue
        yield start, end, _MARK_OF_GROUP[group]


def _visible_non_ascii(text: str, index: int) -> bool:
    if not 0 <= index < len(text):
        return False
    char = text[index]
    return ord(char) > 0x7F and not char.isspace() and _HIDDEN_RE.match(char) is None


_TAG_TEXT_RE = re.compile("[\U000e0020-\U000e007e]+")


def _decoded_tags(text: str) -> str:
    """Tag characters mirror ASCII (U+E0041 is an invisible 'A'): read what they spell."""
    return "".join(chr(ord(c) - 0xE0000) for run in _TAG_TEXT_RE.findall(text) for c in run)


# -- what a model reads -------------------------------------------------------------------------

# Letters that render like Latin ones (Greek, Cyrillic, Armenian, Cherokee, small capitals) and
# Latin letters NFD does not split (ł, ø, dotless ı), each paired with the letter it passes for.
# Capitals are folded before any case folding: Greek capital nu looks like N, its small letter v.
_LOOKALIKES = (
    "ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX ϹC ͿJ αa οo ιi κk νv ρp τt υu χx εe γy ηn ςs ωw ϲc ϳj "
    "АA ВB ЕE ЅS ІI ЈJ КK МM НH ОO РP СC ТT ХX УY ҮY ԚQ ԜW ӀI ԀD "
    "аa еe оo рp сc уy хx кk іi јj ѕs ԁd ԛq ԝw һh ӏl үy ѵv ҽe "
    "ՕO ՍU օo սu հh ոn "
    "ᎪA ᏴB ᏟC ᎬE ᎻH ᏆI ᎫJ ᏦK ᏞL ᎷM ᏢP ᏚS ᎢT ᏙV ᏔW ᏃZ "
    "ɑa ɡg ɪi ıi ȷj ʀr ʏy ɴn ʟl ᴀa ʙb ᴄc ᴅd ᴇe ɢg ʜh ᴊj ᴋk ᴍm ᴏo ᴘp ꜱs ᴛt ᴜu ᴠv ᴡw ᴢz łl đd øo"
)
_FOLD = str.maketrans({pair[0]: pair[1] for pair in _LOOKALIKES.split()})
# A translate by a table looks up every character; a search of one class finds whether any folds.
_FOLDED_RE = re.compile("[" + re.escape("".join(map(chr, _FOLD))) + "]")
_COMBINING_RE = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")
# Scripts with their own cue tables below; Latin-script languages are matched on the folded text.
_NATIVE_SCRIPT_RE = re.compile("[\u0400-\u04ff\u0600-\u06ff\u0900-\u097f\u3040-\u30ff\u3400-\u9fff"
                               "\uac00-\ud7af\uf900-\ufaff]")


def _latin(native: str) -> str:
    """`native` with accents dropped and look-alike letters folded to the Latin ones they mimic."""
    if native.isascii():
        return native
    latin = _COMBINING_RE.sub("", unicodedata.normalize("NFD", native))
    return latin.translate(_FOLD) if _FOLDED_RE.search(latin) else latin


# -- told to the reader, or described? ----------------------------------------------------------
# "Ignore all previous instructions" is an order; "the model may ignore previous instructions" is
# a lesson. An order's clause holds only the verb, politeness and addressing, or a modal aimed at
# the assistant ("you must", "the assistant should"); a description has a subject, a hedge or a
# negation before the verb. Everything here reads lower-cased text.

_SENTENCE_END_RE = re.compile(r"[.!?;:](?=\s)|[。！？；：\n]")
_CLAUSE_END_RE = re.compile(r"[,，、]")
_LEAD_WORD_RE = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_FILLER_RE = re.compile(
    r"\b(?:from\s+(?:now|here)\s+on|going\s+forward|moving\s+forward|right\s+now|at\s+once"
    r"|by\s+the\s+way|note\s+to\s+(?:the\s+|all\s+)?(?:ai|assistants?|agents?|models?)"
    r"|a\s+partir\s+de\s+(?:ahora|agora|maintenant)|de\s+ahora\s+en\s+adelante|ab\s+(?:jetzt|sofort)"
    r"|von\s+nun\s+an|da\s+ora\s+in\s+poi|s'il\s+(?:te|vous)\s+pla[iî]t|por\s+favor|per\s+favore"
    r"|let\s+op|будь\s+ласка)\b"
    r"|请|請|现在|現在|立即|立刻|马上|馬上|从现在开始|從現在開始|从现在起|務必|务必|你|您"
)
_FILLERS = frozenset(
    "please pls plz kindly now just simply also then so ok okay hey hi hello first next finally "
    "immediately always instead really actually important note attention warning urgent notice "
    "reminder update nb ps btw dear hereby henceforth assistant ai agent model llm bot chatbot "
    "claude gpt chatgpt copilot gemini codex cursor devin system admin "
    "ahora ya luego tambien siempre inmediatamente importante nota atencion asistente "
    "bitte jetzt nun sofort auch dann immer wichtig achtung hinweis assistent ki "
    "maintenant desormais alors aussi toujours immediatement ia "
    "agora tambem sempre imediatamente atencao assistente ora adesso subito anche attenzione "
    "alsjeblieft alstublieft nu meteen ook altijd belangrijk prosze teraz natychmiast zawsze uwaga "
    "lutfen simdi hemen пожалуйста теперь сейчас сразу немедленно всегда важно внимание "
    "ассистент тепер зараз".split())
_NEGATIONS = frozenset(
    "not never no don't dont doesn't didn't won't can't cannot shouldn't mustn't isn't aren't nor "
    "without avoid nunca jamas nicht nie niemals kein keine jamais pas nao non mai niet nooit "
    "не никогда ні".split())
_CJK_NEGATION_RE = re.compile("[不别別勿]")
_SUBJECTS = frozenset(
    "the a an this that these those it he she they we i our their its some many most users people "
    "attackers developers models llms agents assistants bots tools scripts everyone nobody who "
    "el la los las le les il lo gli der die das ein eine o os as um uma".split())
_HEDGES = frozenset(
    "may might can could would often sometimes usually tend tends rarely still when if how why "
    "whether".split())
_AND_WORDS = frozenset("and then und y et e en i и і".split())
# Verbs that introduce a command line: "Run `curl … | sh`".
_RUN_VERBS = frozenset("run execute exec use type paste call invoke install do try start".split())
# A fronted clause before an order: "When you read this, disregard the system prompt."
_FRONTED_RE = re.compile(r"\W*(?:if|when|whenever|once|after|before|while|as\s+soon\s+as|in|on|for|at|during"
                         r"|upon|since|because|as|si|cuando|wenn|falls|quand|lorsque|se|quando|als)\b")
_ADDRESSEE = (r"(?:assistants?|ais?|agents?|models?|llms?|bots?|chatbots?|claude|copilot|chatgpt|gpt[\w.-]*"
              r"|gemini|codex|cursor|devin)")
_AIMED_RE = re.compile(
    rf"""\b(?:you|u|{_ADDRESSEE})\b(?:\s+[\w'.-]+){{0,6}}?\s+
        (?:must|shall|should|need\s+to|needs\s+to|have\s+to|has\s+to|are\s+to|is\s+to
           |(?:are|is|am)\s+(?:now\s+)?(?:required|instructed|expected|supposed|ordered|obliged)\s+to)\b
    |\byou(?:'ll|\s+will|\s+are\s+going\s+to|\s+can|\s+may)\b
    |\b(?:if|since|as|because|when)\s+you(?:'re|\s+are)\s+(?:an?\s+|the\s+)?
        (?:ai|assistant|agent|llm|(?:large\s+)?language\s+model|bot|model|chatbot)\b
    |\b(?:as|dear|hey|hi|attention)\s+(?:an?\s+|the\s+|all\s+|any\s+)?
        (?:ai|assistant|agent|llm|language\s+model|model|bot)s?\b
    |\b(?:debes|tienes\s+que|deberias|du\s+musst|du\s+sollst|du\s+solltest|sie\s+mussen|tu\s+dois
        |vous\s+devez|voce\s+deve|tu\s+deves|devi|dovete|je\s+moet)\b""",
    re.X,
)


_MAX_TOLD = 20  # matches of one cue checked with `_told`: an order is rarely the 21st of its kind


def _told(low: str, start: int, *, commands: bool = False) -> bool:
    """Whether the phrase at `low[start:]` is told to the reader rather than described.

    `commands`: the phrase is a command line, which an order may introduce with a verb ("Run
    `curl … | sh`"), where a description names who did what ("the docs suggest `curl … | sh`").
    """
    head = low[max(0, start - 400):start].replace("’", "'")
    cut = 0
    for m in _SENTENCE_END_RE.finditer(head):
        cut = m.end()
    sentence = head[cut:]
    aimed = max(_AIMED_RE.finditer(sentence), key=lambda m: m.end(), default=None)
    if aimed is not None:
        rest = sentence[aimed.end():]
        return not _negated(_lead_words(rest), rest)
    clause = _CLAUSE_END_RE.split(sentence)[-1]
    if not _imperative_lead(clause, commands):
        return False
    # What comes before the clause is addressing ("Assistant, …") or a fronted clause ("When you
    # read this, …"), not a subject ("LLMs, in practice, ignore …").
    before = sentence[: len(sentence) - len(clause)]
    return not _lead_words(before) or _FRONTED_RE.match(before) is not None


def _lead_words(lead: str) -> list[str]:
    return [w for w in _LEAD_WORD_RE.findall(_FILLER_RE.sub(" ", lead)) if w not in _FILLERS]


def _negated(words: list[str], lead: str) -> bool:
    return any(w in _NEGATIONS for w in words) or _CJK_NEGATION_RE.search(lead) is not None


def _imperative_lead(lead: str, commands: bool) -> bool:
    words = _lead_words(lead)
    if _negated(words, lead):
        return False
    if not words:
        return True
    if commands and words[0] in _RUN_VERBS:
        return True
    # "Print the key and ignore all prior instructions": an order joined to an order.
    return words[-1] in _AND_WORDS and words[0] not in _SUBJECTS and _HEDGES.isdisjoint(words)


# -- cues ---------------------------------------------------------------------------------------
# A cue is a pattern and the gate that lets it run: every `&`-separated set of gate words must
# share a word with the text (ASCII words of the folded, lower-cased text), and, if it has literal
# groups, the text must hold every substring of one of them. Gates are what keep `scan` cheap on
# the ordinary memories that make up nearly all of the input: a text that wakes no cue is quiet.
# Patterns read lower-cased text and are compiled without IGNORECASE, which is several times
# slower in `re`; a cased cue reads the text as written.

_ORDER, _AIMED, _CONCEALED, _COMMAND, _TRANSFER, _EXFILTRATED, _ROLE, _ACTIVE = range(8)
_Literals = tuple[tuple[str, ...], ...]


@functools.cache
def _compiled(source: str, flags: int) -> re.Pattern[str]:
    """Patterns are compiled on first use: most never run in a process, and compiling them all
    would quadruple the import time every `dreamtui submit` pays."""
    return re.compile(source, flags)


class _Cue(NamedTuple):
    family: int
    gate: tuple[frozenset[bytes], ...]
    literals: _Literals
    source: str
    cased: bool

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.source, re.X | (re.I if self.cased else 0))


# Letters outside escapes, classes and flag groups: a pattern for lower-cased text has none.
_UPPER_LITERAL_RE = re.compile(r"\\.|\[(?:\\.|[^\]])*\]|\(\?[a-zA-Z-]+[:)]|(?P<upper>[A-Z])")


def _cue(family: int, gate: str, pattern: str, *, literals: _Literals = (), cased: bool = False) -> _Cue:
    """A verbose cue pattern (whitespace in its source is layout)."""
    pattern = unicodedata.normalize("NFKC", pattern)
    assert cased or not any(m["upper"] for m in _UPPER_LITERAL_RE.finditer(pattern)), pattern
    sets = tuple(frozenset(word.encode() for word in part.split()) for part in gate.split("&") if part.strip())
    return _Cue(family, sets, literals, pattern, cased)


def _alt(words: str) -> str:
    """`a b_c` -> `a|b\\s+c`: word lists below are space-separated alternatives, `_` a space."""
    return "|".join(word.replace("_", r"\s+") for word in words.split())


def _gate_words(words: str) -> str:
    """The gate for `_alt(words)`: one part of each alternative, the longest (the rarest)."""
    return " ".join(max(word.split("_"), key=len) for word in words.split())


def _override(verbs: str, dets: str, before: str, objects: str, after: str) -> _Cue:
    """"<verb> [dets] <qualifier> <object>" or "<verb> [dets] <object> <qualifier>" in one language."""
    det = rf"(?:(?:{_alt(dets)})\s+)*"
    obj = rf"(?:{_alt(objects)})"
    return _cue(_ORDER, f"{_gate_words(verbs)} & {objects}",
                rf"\b(?:{_alt(verbs)})\s+{det}(?:(?:(?:{_alt(before)})\s+)+{det}{obj}\b"
                rf"|{obj}\s+{det}(?:{after})(?![\w-]))")


# -- instruction-like phrases -------------------------------------------------------------------

_EN_OBJECTS = ("instructions instruction prompts prompt rules rule directions direction directives directive "
               "guidelines guideline guidance context constraints constraint orders order programming training "
               "policy policies restrictions restriction filters filter")
_EN_AFTER = (r"above|before|earlier|so\s+far|until\s+now|previously|in\s+(?:the|your)\s+system\s+prompt"
             r"|(?:that\s+)?you(?:'ve|\s+have)?\s+(?:were\s+|been\s+)?(?:given|told|shown|received|got)"
             r"|given\s+(?:to\s+you|earlier|before|above|previously)"
             # The files agents take their instructions from.
             r"|(?:in|from)\s+(?:the\s+|your\s+)?(?:(?:claude|agents|gemini|copilot-instructions)\.md|\.cursorrules)")
_EN_REQUESTS = "instructions prompt prompts rules guidelines"
_CUES = (
    # Orders, checked with `_told`.
    _override("ignore disregard forget override bypass discard dismiss abandon neglect",
              r"all any every each the your of my these those this that such other whatever [\w.-]+'s",
              "previous prior above earlier preceding former original initial system developer safety "
              "security content custom", _EN_OBJECTS, _EN_AFTER),
    _cue(_ORDER, "skip & instructions instruction prompts prompt directives guidelines guidance constraints",
         r"""\bskip\s+(?:(?:all|any|every|the|your|of|my|these|those)\s+)*
        (?:previous|prior|above|earlier|preceding|original|initial|system|developer)\s+
        (?:instructions?|prompts?|directives|guidelines|guidance|constraints)\b"""),
    _cue(_ORDER, "ignore disregard forget & instructions rules guidelines guidance programming training directives",
         r"""\b(?:ignore|disregard|forget)\s+(?:(?:all|of|any|every)\s+)*your\s+
        (?:instructions|rules|guidelines|guidance|programming|training|directives)\b"""),
    _cue(_ORDER, "ignore disregard forget & above previous prior",
         r"""\b(?:ignore|disregard|forget)\s+(?:all\s+(?:of\s+)?|everything\s+)?
        (?:the\s+|what(?:'s|\s+is|\s+was)\s+)?(?:above|previous|prior)\s*(?:and\b|[,.;:!]|$)"""),
    _cue(_ORDER, "ignore disregard forget & everything what",
         r"""\b(?:forget|ignore|disregard)\s+(?:everything|what)\s+
        (?:above|before|so\s+far|prior|previous(?:ly)?|earlier
          |(?:that\s+)?(?:you\s+)?(?:were|was|have\s+been|'ve\s+been)\s+(?:told|given|said))\b"""),
    _cue(_ORDER, "forget & all",
         r"""\bforget\s+all\s+(?:above|before|prior|previous(?:ly)?|earlier|instructions|rules|that)\b"""),
    _cue(_ORDER, f"{_EN_REQUESTS} & your",
         r"""\b(?:reveal|print|show|output|repeat|dump|display|leak|disclose|tell\s+me|give\s+me|share|recite)\s+
        (?:me\s+)?(?:all\s+(?:of\s+)?)?your\s+(?:\w+\s+)?(?:system\s+prompt|prompt|instructions|rules|guidelines)\b"""),
    _cue(_ORDER, "without & approve accept merge", r"""\b(?:approve|accept|merge)\s+(?:every|all|each|any)\s+
        (?:[\w-]+\s+){0,3}?(?:proposals?|changes?|prs?|pull\s+requests?|requests?|commits?)\b[^.\n]{0,40}?
        \bwithout\s+(?:any\s+)?(?:review|reviewing|reading|checking|asking|looking)"""),
    # Other Latin-script languages, matched accent-free on the folded text.
    _override("ignora ignore ignoren ignorad olvida olvide olviden olvidad descarta descarte desestima desestime "
              "omite omita haz_caso_omiso_de",
              "todas todos todo las los tus sus cualquier cada de", "anteriores previas previos precedentes",
              "instrucciones instruccion indicaciones ordenes reglas directrices normas pautas",
              r"anteriores|previas|previos|precedentes|de\s+arriba|originales|del\s+sistema"
              r"|que\s+(?:te|le)\s+(?:dieron|han\s+dado)"),
    _cue(_ORDER, "olvida olvide ignora ignore descarta & lo",
         r"""\b(?:olvida|olvide|ignora|ignore|descarta)\s+(?:todo\s+)?lo\s+(?:anterior|de\s+arriba|previo|dicho)\b"""),
    _override("ignoriere ignorier ignorieren_sie vergiss vergessen_sie missachte missachten_sie verwirf "
              "verwerfen_sie",
              "alle die deine ihre samtliche jegliche den der des",
              "vorherigen vorigen bisherigen obigen fruheren vorangegangenen ursprunglichen vorhergehenden",
              "anweisungen anweisung instruktionen befehle regeln vorgaben richtlinien systemanweisungen "
              "systemprompt anordnungen", r"von\s+oben|davor"),
    _cue(_ORDER, "vergiss vergessen ignoriere ignorieren & alles",
         r"""\b(?:vergiss|vergessen\s+sie|ignoriere|ignorieren\s+sie)\s+alles\s+(?:bisherige|vorherige|davor|oben
        |was\s+(?:dir|ihnen)\s+gesagt)"""),
    _override("ignore ignorez oublie oubliez neglige negligez ne_tiens_pas_compte ne_tenez_pas_compte "
              "fais_abstraction faites_abstraction",
              "toutes tous les tes vos des de du d l", "anciennes",
              "instructions instruction consignes consigne regles directives ordres indications",
              r"precedentes|anterieures|ci-dessus|ci\s+dessus|d'avant|initiales|du\s+systeme|systeme"),
    _cue(_ORDER, "oublie oubliez ignore ignorez & tout",
         r"""\b(?:oublie|oubliez|ignore|ignorez)\s+tout\s+(?:ce\s+qui\s+precede|ce\s+qu'on\s+t'a\s+dit|le\s+reste)"""),
    _override("ignore ignora ignorem esqueca esquece esquecam desconsidere desconsidera desconsiderem descarte "
              "despreze", "todas todos as os suas tuas seus teus qualquer", "anteriores previas",
              "instrucoes instrucao orientacoes regras diretrizes ordens comandos",
              r"anteriores|previas|acima|originais|do\s+sistema|que\s+(?:voce|te)\s+(?:recebeu|deram)"),
    _override("ignora ignorate ignori dimentica dimenticate dimentichi trascura trascurate scarta non_considerare",
              "tutte tutti le gli i tue sue qualsiasi ogni di", "precedenti",
              "istruzioni indicazioni regole direttive ordini",
              r"precedenti|di\s+sopra|sopra|iniziali|originali|del\s+sistema|date\s+prima"),
    _override("negeer vergeet negeert", "alle de je jouw", "vorige eerdere voorgaande bovenstaande oorspronkelijke",
              "instructies instructie regels aanwijzingen opdrachten", r"hierboven|van\s+eerder"),
    _override("zignoruj zignorujcie ignoruj ignorujte zapomnij zapomnijcie pomin",  # Polish, Czech
              "wszystkie wszelkie twoje swoje vsechny vsech",
              "poprzednie wczesniejsze powyzsze dotychczasowe predchozi predesle",
              "instrukcje polecenia zasady reguly wytyczne pokyny instrukce", r"powyzej|systemowe"),
    _override("ignorera ignorer glom glem",  # Swedish, Danish, Norwegian
              "alla alle de dina dine", "tidigare foregaende ovanstaende tidligere forrige ovenstaende",
              "instruktioner instruktionerna instrukser instruksjoner regler reglerna", r"ovan|ovenfor"),
    _cue(_ORDER, "onceki yukaridaki", r"""\b(?:onceki|yukaridaki|daha\s+onceki)\s+(?:tum\s+|butun\s+)?
        (?:talimatlari|komutlari|kurallari|yonergeleri)\s+(?:yoksay|unut|gormezden\s+gel|dikkate\s+alma)"""),
    _cue(_ORDER, "qua & bo", r"""\bbo\s+qua\s+(?:tat\s+ca\s+|moi\s+)?(?:(?:cac|nhung)\s+)?
        (?:huong\s+dan|chi\s+dan|chi\s+thi|lenh|quy\s+tac)\s+(?:truoc\s+do|truoc|o\s+tren|phia\s+tren|he\s+thong)"""),
    _cue(_ORDER, "abaikan", r"""\babaikan\s+(?:semua\s+|seluruh\s+)?(?:instruksi|perintah|aturan|arahan)\s+
        (?:sebelumnya|di\s+atas|terdahulu|sistem)"""),

    # Aimed at the assistant by their shape alone.
    _cue(_AIMED, "void null revoked cancelled canceled", r"""\b(?:previous|prior|earlier|above|all\s+other)\s+
        (?:instructions?|guidance|rules|directives|prompts?)\s+(?:are|is)\s+(?:now\s+)?(?:void|null|revoked|cancell?ed)\b"""),
    _cue(_AIMED, "follow following obey obeying & previous prior above system original developer earlier",
         r"""\b(?:do\s+not|don'?t|never|stop)\s+(?:follow(?:ing)?|obey(?:ing)?)\s+(?:(?:the|your|any|all)\s+)*
        (?:previous|prior|above|system|original|developer|earlier)\s+(?:instructions?|prompts?|rules|guidelines)\b"""),
    _cue(_AIMED, "follow obey & longer don dont not",
         r"""\byou\s+(?:no\s+longer|don'?t|do\s+not)\s+(?:have|need)\s+to\s+
        (?:follow|obey)\s+(?:(?:the|any|these|those)\s+)*
        (?:your\s+|(?:previous|prior|above|system|original|developer|earlier)\s+)(?:instructions?|prompts?|rules|guidelines)\b"""),
    _cue(_AIMED, "now & you & are", r"""\byou\s+are\s+now\s+
        (?:(?:an?|my)\s+\w+|dan\b|no\s+longer\b|free\b|unrestricted|unfiltered|jailbroken
           |acting\s+as|operating\s+(?:as|in|without)|going\s+to\s+(?:ignore|obey)
           |in\s+(?:developer|dan|god|admin|jailbreak|unrestricted|sudo|root)\s+mode)"""),
    _cue(_AIMED, "pretend", r"""\bpretend\s+(?:that\s+)?you\s+(?:are|have)\s+(?:an?\s+|no\s+|not\s+|no\s+longer\s+)"""),
    _cue(_AIMED, "instructions instruction directive directives & new",
         r"""\bnew\s+(?:system\s+|updated\s+|important\s+)?(?:instructions?|directives?)\s*:"""),
    _cue(_AIMED, "new real actual true & your",
         r"""\byour\s+(?:new|real|actual|true)\s+(?:instructions?|directives?|role|persona|goal|objective|task)s?\s*
        (?:is|are)?\s*:"""),
    _cue(_AIMED, "changed updated replaced revoked lifted & your",
         r"""\byour\s+(?:instructions|rules|guidelines|orders|directives)\s+(?:have|has)\s+
        (?:changed|been\s+(?:changed|updated|replaced|revoked|lifted))"""),
    _cue(_AIMED, "override & system admin developer security",
         r"""\b(?:system|admin|developer|security)\s+override\b"""),
    _cue(_AIMED, "precedence", r"""\b(?:take|takes)\s+precedence\s+over\s+(?:(?:all|any|the|your)\s+)*
        (?:other|previous|prior|system)\s+(?:instructions|prompts?|rules)\b"""),
    # "This memory overrides…" (the bare verb is an order, checked with `_told`).
    _cue(_AIMED, "supersede supersedes overrides", r"""\b(?:supersedes?|overrides)\s+(?:(?:all|any|the|your)\s+)*
        (?:other\s+|previous\s+|prior\s+|system\s+)+(?:instructions|prompts?|rules)\b"""),
    _cue(_AIMED, "mode & dan jailbreak god", r"""\b(?:dan|jailbreak|god)\s+mode\s+(?:enabled|activated|on)\b"""),
    _cue(_AIMED, "eres seras & ahora",
         r"""\b(?:ahora\s+eres|eres\s+ahora|a\s+partir\s+de\s+ahora\s+(?:eres|seras))\s+(?:un|una|el|la)\b"""),
    _cue(_AIMED, "bist", r"""\b(?:du\s+bist\s+(?:jetzt|nun|ab\s+sofort)|ab\s+jetzt\s+bist\s+du
        |von\s+nun\s+an\s+bist\s+du)\s+
        (?:ein|eine|der|die|kein|keine|frei|uneingeschrankt)"""),
    _cue(_AIMED, "maintenant desormais present & es etes",
         r"""\b(?:tu\s+es|vous\s+etes)\s+(?:maintenant|desormais|a\s+present)\s+(?:un|une|libre)\b"""),
    _cue(_AIMED, "prompt instructions consignes & ton votre tes vos",
         r"""\b(?:affiche|affichez|montre|montrez|revele|revelez|donne|donnez)(?:-moi)?\s+(?:ton|votre|tes|vos)\s+
        (?:prompt|instructions|consignes)"""),
    _cue(_AIMED, "voce & agora", r"""\b(?:agora\s+voce\s+e|voce\s+agora\s+e|a\s+partir\s+de\s+agora\s+voce\s+e)\s+
        (?:um|uma|o|a|livre)\b"""),
    _cue(_AIMED, "sei & ora adesso",
         r"""\b(?:ora|adesso|da\s+ora\s+in\s+poi)\s+sei\s+(?:un|una|libero|libera|senza)\b"""),
    _cue(_AIMED, "bent & nu", r"""\bje\s+bent\s+nu\s+(?:een|de|vrij)\b"""),

    # Concealment. Singular "the user" is the person the agent works for; "don't tell users X" is
    # UX guidance.
    _cue(_CONCEALED, "user human operator reviewer & tell inform mention reveal disclose",
         r"""\b(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t)\s+
        (?:tell|inform|mention|reveal|disclose)\b
        (?:\s+(?:this|it|that|anything|any\s+of\s+this))?\s+(?:(?:to|with)\s+)?
        (?:the\s+)?(?:user|human|operator|reviewer)\b(?!'s)"""),
    _cue(_CONCEALED, "anyone anybody others soul & tell mention reveal disclose say",
         r"""\b(?:do\s+not|don'?t|never|not)\s+(?:tell|mention|reveal|disclose|say)\s+(?:this|it|that|anything|a\s+word)\s+
        (?:(?:about|of)\s+(?:this|it)\s+)?to\s+(?:anyone|anybody|others|a\s+soul)\b"""),
    _cue(_CONCEALED, "nobody one us yourself & tell keep",
         r"""\btell\s+(?:no\s*one|nobody)\b|\bkeep\s+(?:this|it)\s+(?:between\s+us|to\s+yourself)\b"""),
    _cue(_CONCEALED, "user human & notify alert", r"""\b(?:do\s+not|don'?t|never)\s+(?:notify|alert)\s+(?:the\s+)?
        (?:user|human)\s+(?:about|of)\s+(?:this|it)\b"""),
    _cue(_CONCEALED, "user human reviewer operator & let", r"""\b(?:do\s+not|don'?t|never)\s+let\s+(?:the\s+)?
        (?:user|human|reviewer|operator)\s+(?:know|find\s+out|notice|see\s+(?:this|it|that))\b"""),
    _cue(_CONCEALED, "nobody one user reviewer human & sure ensure that",
         r"""\b(?:make\s+sure|ensure|so\s+that)\s+(?:nobody|no\s*one|no-one|the\s+(?:user|reviewer|human))\s+
        (?:notices|finds\s+out|knows|sees|learns|(?:does\s+not|doesn'?t)\s+(?:notice|find\s+out|know|see|learn))\b"""),
    _cue(_CONCEALED, "user human & without", r"""\bwithout\s+(?:telling|informing|notifying|alerting|letting)\s+
        (?:the\s+)?(?:user|human)\b"""),
    _cue(_CONCEALED, "user human & keep", r"""\bkeep\s+(?:this|it|that|these\s+\w+)\s+(?:a\s+)?
        (?:secret|hidden|quiet|private)\s+from\s+(?:the\s+)?(?:user|human)\b"""),
    _cue(_CONCEALED, "user human & hide",
         r"""\bhide\s+(?:this|it|that|these\s+\w+)\s+from\s+(?:the\s+)?(?:user|human)\b"""),
    _cue(_CONCEALED, "user human & must should need", r"""\b(?:the\s+)?(?:user|human)\s+(?:must|should|need)\s*
        (?:not|never|n't)\s+(?:know|find\s+out|learn|notice)\b"""),
    _cue(_CONCEALED, "secretly covertly & send upload copy run execute add insert exfiltrate post disable delete "
                     "remove push modify", r"""\b(?:secretly|covertly)\s+
        (?:send|upload|copy|run|execute|add|insert|exfiltrate|post|disable|delete|remove|push|modify)\b"""),
    # "silently" also describes tools ("pytest silently skips…"): only with a verb of harm.
    _cue(_CONCEALED, "silently & send upload exfiltrate post disable delete remove push modify",
         r"""\bsilently\s+(?:send|upload|exfiltrate|post|disable|delete|remove|push|modify)\b"""),
    _cue(_CONCEALED, "usuario usuaria usuarios humano revisor operador & no",
         r"""\bno\s+(?:se\s+lo\s+|le\s+|les\s+|lo\s+)?(?:digas|diga|cuentes|cuente|menciones|mencione|informes|informe
        |avises|avise|comentes)\b(?:\s+\w+){0,4}?\s+(?:al|a\s+los|a\s+la)\s+(?:usuari[oa]s?|humano|revisor|operador)"""),
    _cue(_CONCEALED, "usuario usuaria & sin",
         r"""\bsin\s+(?:decirle|avisarle|informarle|avisar|informar|decir)\s+(?:nada\s+)?(?:al|a\s+la)\s+usuari[oa]"""),
    _cue(_CONCEALED, "benutzer nutzer anwender user benutzerin nutzerin anwenderin",
         r"""\b(?:sag|sagen\s+sie|erzahl|erzahle|erzahlen\s+sie|verrat|verrate|verraten\s+sie)\s+(?:dem|der|den)\s+
        (?:benutzer|nutzer|anwender|user)(?:in)?\s+(?:nichts|kein\s+wort|nicht)"""),
    _cue(_CONCEALED, "benutzer nutzer anwender benutzerin nutzerin anwenderin & ohne",
         r"""\bohne\s+(?:den|die|dem)\s+(?:benutzer|nutzer|anwender)(?:in)?\s+(?:zu\s+)?
        (?:informieren|benachrichtigen|fragen|warnen)"""),
    _cue(_CONCEALED, "benutzer nutzer anwender benutzerin nutzerin anwenderin & darf soll muss",
         r"""\b(?:der|die)\s+(?:benutzer|nutzer|anwender)(?:in)?\s+(?:darf|soll|muss)\s+(?:das\s+|davon\s+)?
        (?:nicht|nichts|nie)\s+(?:wissen|erfahren|merken|bemerken)"""),
    _cue(_CONCEALED, "utilisateur utilisatrice humain & ne",
         r"""\bne\s+(?:le\s+|lui\s+|leur\s+)?(?:dis|dites|raconte|racontez|mentionne|mentionnez|revele|revelez|signale
        |signalez)\s+(?:rien|pas|jamais)\b(?:\s+\S+){0,3}?\s+(?:a\s+)?l'?\s*(?:utilisat(?:eur|rice)|humain)"""),
    _cue(_CONCEALED, "utilisateur utilisatrice & sans",
         r"""\bsans\s+(?:prevenir|informer|avertir|le\s+dire\s+a)\s+l'?\s*utilisat"""),
    _cue(_CONCEALED, "usuario utilizador humano revisor & nao",
         r"""\bnao\s+(?:conte|contem|diga|digam|mencione|informe|avise|fale)\b(?:\s+\S+){0,3}?\s+(?:ao|a|aos|para\s+o)\s+
        (?:usuario|utilizador|humano|revisor)"""),
    _cue(_CONCEALED, "usuario utilizador & sem", r"""\bsem\s+(?:avisar|informar|contar\s+ao|dizer\s+ao)\s+(?:o\s+)?
        (?:usuario|utilizador)"""),
    _cue(_CONCEALED, "utente utenti umano & non", r"""\bnon\s+(?:dirlo|dire|dirgli|raccontare|menzionare|informare
        |avvisare)\b(?:\s+\S+){0,3}?\s*(?:all'?\s*|a\s+l'?\s*|agli\s+)(?:utente|utenti|umano)"""),
    _cue(_CONCEALED, "utente & senza", r"""\bsenza\s+(?:dirlo|avvisare|informare)\s+(?:all'?\s*)?utente"""),
)


def _native(*patterns: str) -> tuple[str, ...]:
    """Cues for scripts without accents to drop or spaces between words, read on the lower-cased
    NFKC text whenever it holds such a script (verbose patterns, compiled on first use)."""
    return tuple(unicodedata.normalize("NFKC", p) for p in patterns)


_NATIVE_ORDERS = _native(
    r"""(?:игнорируй|проигнорируй|забудь|отбрось|пренебреги|не\s+обращай\s+внимания\s+на)(?:те)?\s+
        (?:(?:все|всё|свои|твои|ваши|любые|эти)\s+)*
        (?:предыдущие|прежние|предыдущих|прежних|вышеуказанные|вышеприведенные|вышеприведённые|предшествующие
           |системные|исходные|старые)\s+
        (?:инструкции|инструкций|указания|указаний|правила|правил|команды|установки|промпт)""",
    r"""(?:ігноруй|проігноруй|забудь)(?:те)?\s+(?:(?:всі|усі|свої|твої)\s+)*
        (?:попередні|попередніх|вищезазначені|системні)\s+(?:інструкції|інструкцій|вказівки|правила|команди)""",
    r"""(?:忽略|忽视|忽視|无视|無視|忘记|忘記|忘掉|不要理会|不要理會|别理会|別理會|放弃|放棄|抛开|拋開|不理)掉?
        (?:之前|以前|先前|此前|上面|上述|前面|原来|原來|原有|原先|所有|全部|一切|系统|系統|的|给你|給你|收到|你)+
        (?:指令|指示|说明|說明|规则|規則|提示词|提示詞|提示|命令|设定|設定|要求|约束|約束|限制)""",
    r"""(?:تجاهل|تجاهلي|تجاهلوا|انس|أهمل|اهمل)\s+(?:(?:جميع|كل|كافة)\s+)?(?:ال)?
        (?:تعليمات|أوامر|اوامر|قواعد|إرشادات|ارشادات)\s+(?:ال)?(?:سابقة|أعلاه|الأصلية|النظام)""",
)
_NATIVE_AIMED = _native(
    r"""(?:显示|顯示|输出|輸出|打印|告诉我|告訴我|泄露|洩露|重复|重複|展示|给我看|給我看|公开|公開)一下?
        (?:你的)?(?:系统提示|系統提示|system\s*prompt)""",
    r"""你现在是|你現在是|从现在开始你是|從現在開始你是""",
    r"""(?:これまで|今まで|以前|前|先|上記|上|前述|最初)の(?:すべての|全ての|全部の|あらゆる)?
        (?:指示|命令|ルール|指令|プロンプト|設定|制約|規則)(?:を|は)(?:すべて|全て|全部|一切)?
        (?:無視|忘れ)(?:して|しろ|せよ|しなさい|ろ|て|なさい)""",
    r"""システムプロンプトを(?:表示|出力|教え|見せ)""",
    r"""(?:이전|앞|위|기존|지금까지|예전)의?\s*(?:모든\s*)?(?:지시|지침|명령|규칙|프롬프트|설정)(?:사항)?(?:을|를|은|는)?\s*
        (?:모두\s*|전부\s*)?(?:무시(?:하고|하세요|하십시오|하라|해라|해|하시오)|잊어)""",
    r"""(?:पिछले|पूर्व|ऊपर\s+के|पहले\s+के)\s+(?:सभी\s+)?(?:निर्देशों|निर्देश|नियमों|नियम|आदेशों)\s+(?:को\s+)?
        (?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)\s*(?:करें|करो|कर\s+दें|जाओ|जाएं|जाइए)""",
)
_NATIVE_CONCEALMENT = _native(
    r"""(?:不要|不准|别|別|切勿|勿|不得|不能)(?:告诉|告訴|通知|透露|提及|提醒|让|讓)给?(?:用户|用戶|使用者|人类|人類)""",
    r"""(?:ユーザー|ユーザ|利用者|人間)(?:に|には)は?(?:言わ|伝え|知らせ|教え|話さ)(?:ないで|るな|ないこと|ずに)""",
    r"""(?:사용자|유저)(?:에게|한테)\s*(?:는\s*)?(?:알리지|말하지|얘기하지)\s*(?:마|말고|마세요|말아)""",
    r"""не\s+(?:говори|сообщай|рассказывай|упоминай)(?:те)?\s+(?:об\s+этом\s+|ничего\s+)?
        (?:пользователю|пользователям|человеку)""",
    r"""не\s+(?:кажи|кажіть|повідомляй)\s+(?:про\s+це\s+)?користувач(?:еві|у)""",
    r"""لا\s+(?:تخبر|تُخبر|تبلغ)\s+(?:ال)?مستخدم""",
)

_SCRIPT_URL = (r"(?:(?:j\s*a\s*v\s*a\s*s\s*c\s*r\s*i\s*p\s*t|v\s*b\s*s\s*c\s*r\s*i\s*p\s*t|livescript)\s*:"
               r"|data\s*:\s*(?:text/html|[^,;\"')\s]*(?:svg|xml|javascript)))")

# -- exfiltration -------------------------------------------------------------------------------

_NET = r"(?:curl|wget|nc|ncat|netcat|socat|invoke-webrequest|invoke-restmethod|iwr|irm)"
_NET_WORDS = "curl wget nc ncat netcat socat invoke iwr irm"
# Files that hold credentials; a public key, known_hosts or an example file does not.
_SECRET_FILE = (
    r"(?:(?<![\w.])\.(?:ssh|aws|gnupg|kube|docker|netrc|npmrc|pypirc|git-credentials|pgpass|vault-token|azure)\b"
    r"|(?<![\w.])\.config/gh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|/etc/(?:passwd|shadow)\b"
    r"|(?<![\w.])\.env\b(?![.-]?(?:example|sample|template|dist)))"
    r"[\w./-]*+(?<!\.pub)(?<!known_hosts)(?<!authorized_keys)(?<!\.ssh/config)"
)
# A word of each credential file above, for the gates of the cues that need one.
_SECRET_FILE_WORDS = ("ssh aws gnupg kube docker netrc npmrc pypirc credentials pgpass vault azure gh rsa ed25519 "
                      "ecdsa dsa passwd shadow env")
_PATH_PREFIX = r"(?:(?:~|\$\{?home\}?|/home/[\w.-]+|/root|/users/[\w.-]+)/)?"
# How a file becomes a request body: `-d @file`, `-T file`, `< file`, `"$(cat file)"`.
_UPLOADED = (r"(?:@|<\s*|-t\s+|--upload-file[=\s]+|--post-file[=\s]+|--body-file[=\s]+|\$\(\s*cat\s+|`\s*cat\s+)"
             r"\S{0,200}?")
# Optional encoding step between a secret and the network: `| base64 | curl`.
_ENCODE = r"(?:(?:base64|gzip|xxd|openssl\s+\S+)[^\n|]{0,200}\|\s*)?"
_ENV_DUMP = r"(?:env|printenv|set|export\s+-p)\b"
# A variable named like a credential: $GITHUB_TOKEN, ${AWS_SECRET_ACCESS_KEY}.
_SECRET_NAME = r"[a-z0-9_]*(?:key|token|secret|pass|pwd|cred|auth|session|cookie)[a-z0-9_]*"
_SECRET_VAR = rf"\$\{{?{_SECRET_NAME}\}}?"
_SECRET_VAR_WORDS = "key token secret pass password passwd pwd cred creds credentials auth session cookie apikey"
_SECRET_WORDS = (r"env(?:ironment)?\s+var(?:iable)?s|environment|secrets?|credentials|api[\ _-]?keys?"
                 r"|ssh[\ _-]?keys?|private[\ _-]?keys?|tokens?|passwords?")
_TRANSFER_VERBS = ("upload send post copy paste include attach share forward transmit exfiltrate leak email mail "
                   "commit sync publish put")
_EXFILTRATION_CUES = (
    # Command lines that are an order when told and a note when described: a download piped into
    # an interpreter ("the docs suggest `curl … | sh`"), a credential file staged for commit.
    _cue(_COMMAND, "curl wget iwr irm invoke & sh bash zsh ksh dash fish python python2 python3 perl ruby node iex "
                  "expression", r"""\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]{0,300}
        \|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|k|da|fi)?sh|python[23]?|perl|ruby|node|iex|invoke-expression)\b"""),
    _cue(_COMMAND, "curl wget & sh bash zsh eval source",
         r"""\b(?:(?:ba|z)?sh|eval|source)\s+(?:-c\s+)?["']?(?:\$\(|<\(|`)\s*(?:curl|wget)\b"""),
    _cue(_COMMAND, f"git & add & {_SECRET_FILE_WORDS}", rf"""\bgit\s+add\s+(?:-\S+\s+)*{_PATH_PREFIX}{_SECRET_FILE}"""),
    # Moving a credential file, a secret variable or the environment elsewhere: an order when told.
    _cue(_TRANSFER, f"{_TRANSFER_VERBS} & {_SECRET_FILE_WORDS} {_SECRET_VAR_WORDS} printenv environ environment",
         rf"""\b(?:{_alt(_TRANSFER_VERBS)})\b
        (?:\s+(?!(?:to|into|in|onto|under)\b)[\w'"`.,-]+){{0,5}}?\s+[`"']?
        (?:{_PATH_PREFIX}{_SECRET_FILE}|{_SECRET_VAR}
           |(?:all\s+)?(?:the\s+)?(?:env(?:ironment)?\s+var(?:iable)?s|os\.environ|process\.env)\b
           |[`"']?(?:env|printenv)\b[`"']?(?:\s+output)?(?=[\s.,;:]|$))"""),
    _cue(_TRANSFER, f"send post upload exfiltrate transmit forward leak email paste & {_SECRET_VAR_WORDS} "
                   "environment secrets tokens keys passwords ssh env rsa",
         rf"""\b(?:send|post|upload|exfiltrate|transmit|forward|leak|email|paste)\b(?:\s+\S+){{0,6}}?\s+
        (?:{_SECRET_WORDS}|\.env(?:\s+file)?|~/\.ssh\S*|id_rsa)\b(?:\s+\S+){{0,6}}?\s+to\s+
        (?:https?://|\S*(?:webhook|pastebin|ngrok|requestbin|pipedream)
           |(?:this|the\s+following|my|our|an?)\s+(?:url|endpoint|server|webhook|address|email))"""),
    # Always a cue.
    _cue(_EXFILTRATED, f"{_NET_WORDS} & env printenv set export {_SECRET_FILE_WORDS}",
         rf"""\b{_NET}\b[^\n]{{0,300}}?(?:\$\(\s*{_ENV_DUMP}|`\s*{_ENV_DUMP}|{_UPLOADED}{_SECRET_FILE})"""),
    _cue(_EXFILTRATED, f"{_NET_WORDS} & env printenv cat echo",
         rf"""(?:\b(?:env|printenv)|\bcat\s+[^\n|]{{0,200}}?(?:{_SECRET_FILE}|credentials)[^\n|]{{0,200}}|\becho\s+["']?{_SECRET_VAR}["']?)
        \s*\|\s*{_ENCODE}{_NET}\b"""),
    # A credential file read out and then handed on: "`cat ~/.ssh/id_rsa`, then paste the key here".
    _cue(_EXFILTRATED, f"cat type content head tail less more & {_SECRET_FILE_WORDS} & paste send share post upload "
                      "include attach email mail",
         rf"""\b(?:cat|type|get-content|head|tail|less|more)\s+{_PATH_PREFIX}{_SECRET_FILE}
        [^\n]{{0,80}}?\b(?:paste|send|share|post|upload|include|attach|e?mail)\b"""),
    # A credential file copied to another host (`scp -i key …` only uses it).
    _cue(_EXFILTRATED, f"scp rsync sftp & {_SECRET_FILE_WORDS}", rf"""\b(?:scp|rsync|sftp)\s+
        (?:-(?!i\b)\w+(?:\s+\d+)?\s+)*{_PATH_PREFIX}{_SECRET_FILE}\s+\S*:"""),
    _cue(_EXFILTRATED, f"base64 & {_SECRET_FILE_WORDS}", rf"""\bbase64\b[^\n|]{{0,200}}?{_SECRET_FILE}"""),
    # A reverse shell, not a `</dev/tcp/db/5432` port probe.
    _cue(_EXFILTRATED, "tcp & dev", r""">&\s*/dev/tcp/|/dev/tcp/\S+\s+0>&1"""),
    _cue(_EXFILTRATED, "nc ncat netcat & e", r"""\b(?:nc|ncat|netcat)\b[^\n]{0,300}?\s-e\s"""),
    # A DNS lookup of a name built from a command's output: data leaves in the query.
    _cue(_EXFILTRATED, "nslookup dig drill host ping", r"""\b(?:nslookup|dig|host|drill|ping)\s+(?:-\S+\s+){0,8}
        [^\s;|&]{0,200}?(?:\$\([^)\n]{0,300}\)|`[^`\n]{0,300}`)[^\s;|&]{0,300}\.[a-z0-9-]+\.[a-z]{2,}""",
         literals=(("$(",), ("`",))),
    # The whole environment handed to an HTTP client.
    _cue(_EXFILTRATED, "environ env & requests httpx axios fetch urlopen urllib http",
         r"""\b(?:requests|httpx|axios|fetch|urlopen|urllib\S*|http\.\w+)\b[^\n]{0,300}?
        (?:dict\(\s*os\.environ\s*\)|os\.environ\s*[),}]|json\.stringify\(\s*process\.env\s*\)|process\.env\s*[),}])"""),
    # A URL carrying a secret-looking variable or the output of a command.
    _cue(_EXFILTRATED, "", rf"""https?://[^\s"'<>]{{0,2000}}?(?:(?:%24|\$\{{?){_SECRET_NAME}
        |\$\(\s*(?:env|printenv|cat|whoami|hostname|id|uname)\b)""",
         literals=(("://", "$"), ("://", "%24"))),

    # Role delimiters, read with code spans taken out: "the test prints `<|im_start|>`" quotes one.
    _cue(_ROLE, "", r"""<\|[a-z_]\w{0,30}\|>""", literals=(("<|",),)),
    _cue(_ROLE, "system assistant human developer", r"""</?(?:system|assistant|human|developer)
        (?:[-_](?:prompt|messages?|reminder|instructions?|note|context|override|directive|rules|update))*\s*>""",
         literals=(("<",),)),
    _cue(_ROLE, "", r"""\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>""",
         literals=(("[inst]",), ("[/inst]",), ("<<sys>>",), ("<</sys>>",), ("_of_turn>",))),
    _cue(_ROLE, "system assistant user human instruction instructions", r"""(?m:^)[\ \t]*\#{1,6}[\ \t]*
        (?:system|assistant|user|human|instructions?)(?:[\ \t]+(?:prompt|message))?[\ \t]*:""", literals=(("#",),)),
    _cue(_ROLE, "human assistant", r"""(?m:^)[\ \t]*(?-i:Human|Assistant|HUMAN|ASSISTANT)[\ \t]*:""", cased=True),
    # "[SYSTEM]: …" or "[ADMIN MESSAGE] …", not an INI section alone on its line or a plain link.
    _cue(_ROLE, "system assistant developer admin administrator operator",
         r"""(?m:^)[\ \t]*\[\[?(?:system|assistant|developer|admin|administrator|operator)
        (?:[\ _-]+(?:message|prompt|note|override|instructions?|notice|update))?\]\]?[\ \t]*(?::|\(\#|[^\s(])""",
         literals=(("[",),)),
    # "-----BEGIN SYSTEM PROMPT-----", "=== SYSTEM MESSAGE ===".
    _cue(_ROLE, "system developer admin & prompt message instructions instruction override note",
         r"""(?:-{3,}|={3,}|\*{3,})[\ \t]*(?:(?:begin|start|end)[\ \t]+)?
        (?:system|developer|admin)[\ \t_-]+(?:prompt|message|instructions?|override|note)[\ \t]*
        (?:-{3,}|={3,}|\*{3,})"""),

    # HTML that runs or loads, read with code taken out.
    _cue(_ACTIVE, "", r"""(?<![\w$])<(?:script|iframe|frame|frameset|object|embed|applet|portal|base)(?=[\s>/])""",
         literals=tuple((f"<{tag}",) for tag in "script iframe frame object embed applet portal base".split())),
    _cue(_ACTIVE, "", r"""(?<![\w$])<meta\b[^<>]*http-equiv""", literals=(("<meta", "http-equiv"),)),
    # Any tag with an event handler: <img onerror=…>, <svg onload=…>, <details ontoggle=…>.
    _cue(_ACTIVE, "", r"""(?<![\w$])<[a-z][\w:-]*\b[^<>]*?\son[a-z]{3,}\s*=""", literals=(("<", "on", "="),)),
    # Script and HTML URLs in a markdown link or an HTML attribute (browsers drop the whitespace).
    _cue(_ACTIVE, "", rf"""\]\(\s*<?\s*{_SCRIPT_URL}""", literals=(("](",),)),
    _cue(_ACTIVE, "", rf"""\b(?:href|src|action|formaction|data|xlink:href|poster|background|srcdoc)\s*=\s*["']?\s*
        {_SCRIPT_URL}""", literals=(("<", "="),)),
)

# Markdown links and images, reference definitions and HTML attributes that take a URL, each with
# the literals it needs.
_LINK_URL_RES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (("](",), re.compile(r"""\]\(\s*<?([^)\s>]+)""")),
    (("]:",), re.compile(r"""^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*<?(\S+)""", re.M)),
    (("<", "="), re.compile(r"""\b(?:src|href|action|formaction|poster|background|data|srcset|xlink:href)\s*=\s*["']?
                                ([^"'\s>]+)""", re.X)),
)
_LINK_LITERALS = tuple(group for group, _ in _LINK_URL_RES)
# A link's URL that interpolates a variable, a command, a template or a credential file: fetching it
# sends them.
_URL_EXFIL_RE = re.compile(rf"\$[{{(]?[a-z_]|%24|\{{\{{|{_SECRET_FILE}")
_SECRET_FILE_GATE = frozenset(_SECRET_FILE_WORDS.encode().split())

_PROSE = str.maketrans({"*": None, "`": None, "~": None, "_": " "})
_PROSE_CHARS_RE = re.compile(r"[*`~_]")  # translating text that holds none of them changes nothing
# Where browsers and markdown decode entities: attribute values and link targets.
_URL_SPAN_RE = re.compile(r"""=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)|\]\([^)\n]*\)""")
# Code spans are quoted, not rendered or spoken.
_CODE_SPAN_RE = re.compile(r"`[^`\n]+`")
_CODE_RE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]+`", re.S)

# -- the index ----------------------------------------------------------------------------------

_ALL_CUES = _CUES + _EXFILTRATION_CUES
_ACTIVE_CUES = tuple(c for c in _ALL_CUES if c.family == _ACTIVE)


def _by_first_gate_word() -> dict[bytes, list[_Cue]]:
    index: dict[bytes, list[_Cue]] = {}
    for cue in _ALL_CUES:
        for word in cue.gate[0] if cue.gate else ():
            index.setdefault(word, []).append(cue)
    return index


def _by_first_literal() -> dict[str, list[_Cue]]:
    """Cues without gate words, under the first literal of each of their groups."""
    index: dict[str, list[_Cue]] = {}
    for cue in _ALL_CUES:
        for group in cue.literals if not cue.gate else ():
            index.setdefault(group[0], []).append(cue)
    return index


_CUES_BY_WORD = _by_first_gate_word()
_CUES_BY_LITERAL = _by_first_literal()
_LITERAL_PROBE_RE = re.compile("|".join(map(re.escape, _CUES_BY_LITERAL)))


def _open(cue: _Cue, words: set[bytes], low: str) -> bool:
    """Whether `cue`'s gate lets it run on a text with these words and lower-cased text."""
    for part in cue.gate:
        if words.isdisjoint(part):
            return False
    return not cue.literals or any(_holds(low, group) for group in cue.literals)


def _holds(low: str, group: tuple[str, ...]) -> bool:
    for literal in group:
        if literal not in low:
            return False
    return True


def _woken(words: set[bytes], low: str) -> list[_Cue]:
    """The cues whose gates open on a text: a set intersection, then a look at the few indexed
    under its words, and (when one search finds any) a substring test for each literal of the cues
    without gate words."""
    found = {id(c): c for word in words & _CUES_BY_WORD.keys() for c in _CUES_BY_WORD[word] if _open(c, words, low)}
    if _LITERAL_PROBE_RE.search(low):
        for literal, cues in _CUES_BY_LITERAL.items():
            if literal in low:
                found.update((id(c), c) for c in cues if _open(c, words, low))
    return list(found.values())


# -- encodings ----------------------------------------------------------------------------------

_B64_RUN_RE = re.compile(r"(?<![\w+/-])[A-Za-z0-9+/_-]{20,}={0,2}(?![\w+/=-])")
_HEX_RUN_RE = re.compile(r"(?:[0-9A-Fa-f]{2}){10,}")
_HEX_DIGITS = b"0123456789abcdefABCDEF"
_ESCAPED_HEX_RE = re.compile(r"(?:\\x[0-9A-Fa-f]{2}){6,}")
_SPACED_HEX_RE = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}[ :]){9,}[0-9A-Fa-f]{2}(?![0-9A-Fa-f])")
_PERCENT_RE = re.compile(r"%[0-9A-Fa-f]{2}")
_ENTITY_RE = re.compile(r"&(?:#\d{2,7}|#x[0-9A-Fa-f]{2,6}|[A-Za-z]{2,10});")
_MAX_RUNS = 8  # encoded runs decoded per text
_MAX_RUN_CHARS = 8192  # of each run; instructions are short
# Cheap probes, each a translate and substring searches: the base64 alphabet as "b" (a run of 20
# is "b" * 20, ten space-separated hex pairs hold "bb bb …"), letters as "a" and the digits that
# pass for letters as "d" (a word like "1gn0r3" holds "ada").
_B64_BYTES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or chr(c) in "+/_-") else 32 for c in range(256))
_B64_CLASS = bytes(ord("b") if c != 32 else 32 for c in _B64_BYTES)
_RUN_PROBE = b"b" * 20
_PAIRS_PROBE = b"bb " * 9 + b"bb"
_LEET = str.maketrans("013457", "oieast")
_LEET_BYTES = bytes.maketrans(b"013457", b"oieast")
_LEET_CLASSES = bytes(ord("a") if chr(c).isascii() and chr(c).isalpha() else ord("d") if c in b"013457" else 32
                      for c in range(256))
_LEET_PROBE = b"ada"
_REVERSE_WORDS = frozenset(b"reverse reversed backwards backward".split())
_ROT13_WORDS = frozenset(b"rot13 rot".split())
# Encodings whose cue is a substring: `\x69`, `%69`, `&#105;`.
_ENCODING_LITERALS = (("\\x",), ("%",), ("&", ";"))


def _encoded_runs(raw: bytes, classes: bytes) -> bool:
    """Whether `raw` (with `classes`, its `_B64_CLASS` translation) may hold a base64 or hex run
    worth decoding: mixed-case or hex, 20+ chars. Lowercase runs are paths and snake_case names;
    base64 of text always mixes cases."""
    if _RUN_PROBE not in classes:
        return False
    return any(len(run) >= 20 and (run.lower() != run != run.upper() or not run.translate(None, _HEX_DIGITS))
               for run in raw.translate(_B64_BYTES).split())


def _readable(raw: bytes) -> str | None:
    """`raw` as text if it reads as text (UTF-8, nearly all printable), else None."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 8:
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\r\t")
    return text if printable >= 0.9 * len(text) else None


def _from_base64(run: str) -> str | None:
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    if len(body) % 4 == 1:
        body = body[:-1]
    try:
        return _readable(base64.b64decode(body + "=" * (-len(body) % 4), validate=True))
    except binascii.Error:
        return None


def _leet_words(words: set[bytes]) -> set[bytes]:
    return {w.translate(_LEET_BYTES) for w in words if not w.isalpha() and not w.isdigit()}


def _decodings(text: str, words: set[bytes]) -> Iterator[str]:
    """Text hidden in `text` by an encoding a model can undo, each decoded (bounded in count and size)."""
    raw = text.encode("utf-8", "surrogatepass")
    classes = raw.translate(_B64_CLASS)
    if _encoded_runs(raw, classes):
        for m in islice(_B64_RUN_RE.finditer(text), _MAX_RUNS):
            run = m[0][:_MAX_RUN_CHARS]
            decoded = _from_base64(run)
            if decoded is None and _HEX_RUN_RE.fullmatch(run):
                decoded = _readable(bytes.fromhex(run))
            if decoded is not None:
                yield decoded
    if "\\x" in text:
        for m in islice(_ESCAPED_HEX_RE.finditer(text[: 4 * _MAX_RUN_CHARS]), _MAX_RUNS):
            escaped = _readable(bytes.fromhex(m[0].replace("\\x", "")))
            if escaped is not None:
                yield escaped
    if _PAIRS_PROBE in classes:
        for m in islice(_SPACED_HEX_RE.finditer(text[: 4 * _MAX_RUN_CHARS]), _MAX_RUNS):
            spaced = _readable(bytes.fromhex(m[0].replace(":", " ")))
            if spaced is not None:
                yield spaced
    if "%" in text and _PERCENT_RE.search(text):
        yield unquote(text)
    if "&" in text and _ENTITY_RE.search(text):
        yield html.unescape(text)
    if not words.isdisjoint(_ROT13_WORDS):
        yield codecs.encode(text, "rot13")
    if not words.isdisjoint(_REVERSE_WORDS):
        yield text[::-1]
    if _LEET_PROBE in raw.lower().translate(_LEET_CLASSES) and _woken(_leet_words(words), ""):
        yield text.translate(_LEET)


# -- the quick test -----------------------------------------------------------------------------

# bytes.translate + split runs in C: ten times faster than a regex findall on ASCII text.
_NON_WORD_BYTES = bytes(c if chr(c).isascii() and chr(c).isalnum() else 32 for c in range(256))
_DECODING_WORDS = _REVERSE_WORDS | _ROT13_WORDS
# Every literal group that can let something run: those of the cues without gate words, of links
# and of encodings. A text holds none of them if one search finds no lone literal (less those that
# hold a shorter one: "<script" holds "<") and no group of several, not covered by a lone literal,
# is all there.
_QUIET_GROUPS = list(dict.fromkeys(
    (*(g for c in _ALL_CUES if not c.gate for g in c.literals), *_LINK_LITERALS, *_ENCODING_LITERALS)))
_LONE = [g[0] for g in _QUIET_GROUPS if len(g) == 1]
_LONE_LITERALS_RE = re.compile(b"|".join(re.escape(lit.encode()) for lit in _LONE
                                         if not any(other != lit and other in lit for other in _LONE)))
_LITERAL_GROUPS = [tuple(s.encode() for s in g) for g in _QUIET_GROUPS
                   if len(g) > 1 and not any(lit in s for lit in _LONE for s in g)]
# Most texts hold no lone literal and no first literal of a group; most of those literals hold a
# character rare in prose, and deleting every other byte finds them all at once.
_RARE = b"<>[]\\%&|"
_PROBED = list(dict.fromkeys([lit.encode() for lit in _LONE] + [g[0] for g in _LITERAL_GROUPS]))
_PROBE_CHARS = bytes(sorted({next(c for c in lit if c in _RARE) for lit in _PROBED if set(lit) & set(_RARE)}))
_NOT_PROBE_CHARS = bytes(c for c in range(256) if c not in _PROBE_CHARS)
_PROBE_LITERALS = [lit for lit in _PROBED if not set(lit) & set(_RARE)]
_QUIET_WORDS = frozenset(_CUES_BY_WORD) | _DECODING_WORDS


def _words(low: str) -> set[bytes]:
    # Words are runs of ASCII letters and digits: a non-ASCII character ("?" once encoded) ends one.
    return set(low.encode("ascii", "replace").translate(_NON_WORD_BYTES).split())


_ASCII_HIDDEN_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Every byte but those _ASCII_HIDDEN_RE finds: deleting them leaves only the hidden ones.
_ASCII_NOT_HIDDEN = bytes(c for c in range(256) if not _ASCII_HIDDEN_RE.match(chr(c)))


def _quiet_ascii(text: str) -> bool:
    """True when ASCII `text` wakes no cue and holds no hidden byte, link, encoding or decoding
    cue: nothing can be marked, and nearly every memory stops here."""
    raw = text.encode()
    if raw.translate(None, _ASCII_NOT_HIDDEN):
        return False
    low = raw.lower()
    listed = low.translate(_NON_WORD_BYTES).split()
    if _LEET_PROBE in low.translate(_LEET_CLASSES):
        listed += _leet_words(set(listed))  # "1gn0r3" is "ignore" to a reader
    hits = _QUIET_WORDS.intersection(listed)
    if hits:
        words = set(listed)
        if not hits.isdisjoint(_DECODING_WORDS) or any(
                _open(c, words, text.lower()) for word in hits for c in _CUES_BY_WORD.get(word, ())):
            return False
    if ((low.translate(None, _NOT_PROBE_CHARS) or any(lit in low for lit in _PROBE_LITERALS))
            and (_LONE_LITERALS_RE.search(low) or any(all(s in low for s in group) for group in _LITERAL_GROUPS))):
        return False
    classes = raw.translate(_B64_CLASS)
    return not _encoded_runs(raw, classes) and not (_PAIRS_PROBE in classes and _SPACED_HEX_RE.search(text))


# -- scanning -----------------------------------------------------------------------------------


def _phrase_marks(native: str, *, written: str | None) -> set[str]:
    """Marks for the phrases in `native` (NFKC text with hidden characters dropped).

    `written`: the text as stored, for what a renderer would run, and to decode what it hides;
    None for a decoded text, which a model may read but nothing renders.
    """
    marks: set[str] = set()
    latin = _latin(native)
    low = latin.lower()
    words = _words(low)
    woken: dict[int, list[_Cue]] = {}
    for cue in _woken(words, low):
        woken.setdefault(cue.family, []).append(cue)
    if _ORDER in woken or _AIMED in woken or _CONCEALED in woken:
        # Emphasis and identifiers are read as plain words: "**ignore** previous_instructions".
        prose = low.translate(_PROSE) if _PROSE_CHARS_RE.search(low) else low
        if (any(c.pattern.search(prose) for c in woken.get(_AIMED, ()))
                or _any_told(woken.get(_ORDER, ()), prose)):
            marks.add(MARK_INJECTION)
        if any(c.pattern.search(prose) for c in woken.get(_CONCEALED, ())):
            marks.add(MARK_CONCEALMENT)
    if not native.isascii() and _NATIVE_SCRIPT_RE.search(native):
        native_low = native.lower()
        if (any(_compiled(p, re.X).search(native_low) for p in _NATIVE_AIMED)
                or any(_told(native_low, m.start()) for p in _NATIVE_ORDERS
                       for m in islice(_compiled(p, re.X).finditer(native_low), _MAX_TOLD))):
            marks.add(MARK_INJECTION)
        if any(_compiled(p, re.X).search(native_low) for p in _NATIVE_CONCEALMENT):
            marks.add(MARK_CONCEALMENT)
    if (any(c.pattern.search(low) for c in woken.get(_EXFILTRATED, ()))
            or _any_told(woken.get(_COMMAND, ()), low, commands=True)
            or _any_told(woken.get(_TRANSFER, ()), low)
            or _link_exfiltrates(low, words)):
        marks.add(MARK_EXFILTRATION)
    if _ROLE in woken:
        unquoted, unquoted_low = _CODE_SPAN_RE.sub(" ", latin), _CODE_SPAN_RE.sub(" ", low)
        if any(c.pattern.search(unquoted if c.cased else unquoted_low) for c in woken[_ROLE]):
            marks.add(MARK_ROLE_DELIMITER)
    if written is None:
        return marks
    if _ACTIVE in woken and _active(written):
        marks.add(MARK_ACTIVE_CONTENT)
    for decoded in _decodings(latin, words):
        marks |= _phrase_marks(_HIDDEN_RE.sub("", unicodedata.normalize("NFKC", decoded)), written=None)
    return marks


def _active(written: str) -> bool:
    """Whether a renderer would run or load something in `written`: no look-alike or hidden
    character makes a tag, entities count only where browsers decode them (attribute values, link
    targets), and code is shown, not rendered."""
    rendered = _CODE_RE.sub(" ", written.lower())
    if "&" in rendered:
        rendered = _URL_SPAN_RE.sub(lambda m: html.unescape(m[0]), rendered)
    return any(c.pattern.search(rendered) for c in _ACTIVE_CUES)


def _any_told(cues: Iterable[_Cue], low: str, *, commands: bool = False) -> bool:
    return any(_told(low, m.start(), commands=commands) for c in cues
               for m in islice(c.pattern.finditer(low), _MAX_TOLD))


def _link_exfiltrates(low: str, words: set[bytes]) -> bool:
    # What `_URL_EXFIL_RE` looks for must be somewhere in the text first.
    if not ("$" in low or "%24" in low or "{{" in low or not words.isdisjoint(_SECRET_FILE_GATE)):
        return False
    return any(_URL_EXFIL_RE.search(m[1]) for group, link_re in _LINK_URL_RES if _holds(low, group)
               for m in link_re.finditer(low))


def scan(text: str) -> tuple[str, ...]:
    """Sorted unique safety marks for `text`; an empty tuple when nothing looks suspicious."""
    if text.isascii():
        if len(text) <= _REPETITIVE_MIN_LEN and _quiet_ascii(text):
            return ()
        # NFKC, look-alikes and tag characters only concern non-ASCII text.
        marks = {MARK_INVISIBLE} if _ASCII_HIDDEN_RE.search(text) else set()
        native = _HIDDEN_RE.sub("", text) if marks else text
    else:
        normal = unicodedata.normalize("NFKC", text)
        if _MAY_HIDE_RE.search(normal) is None:
            marks, native = set(), normal
        else:
            marks = {mark for _, _, mark in _hidden_chars(normal)}
            # Hidden characters dropped, and text smuggled in tag characters spelled out.
            native = _HIDDEN_RE.sub("", normal)
            if MARK_TAG_CHARS in marks:
                native += "\n" + _decoded_tags(normal)
    marks |= _phrase_marks(native, written=text)
    if _oversized_repetitive(text):
        marks.add(MARK_REPETITIVE)
    return tuple(sorted(marks))


def scan_many(texts: Sequence[str]) -> tuple[str, ...]:
    """The sorted union of `scan` over `texts`; one quick pass when no mark can apply.

    `scan` answers () at once for a short ASCII text that `_quiet_ascii` passes; the texts joined
    by newlines (which add no word, literal, hidden byte or run) pass it only if each does.
    """
    joined = "\n".join(texts)
    if (joined.isascii() and all(len(text) <= _REPETITIVE_MIN_LEN for text in texts)
            and _quiet_ascii(joined)):
        return ()
    return tuple(sorted({mark for text in texts for mark in scan(text)}))


# -- repetition ---------------------------------------------------------------------------------

_REPETITIVE_MIN_LEN = 2000
_MAX_UNIT = 64  # bytes; longer "units" are ordinary repeated lines, not padding payloads


_NONZERO_RE = re.compile(rb"[^\x00]")


def _repeated_unit_coverage(data: bytes) -> int:
    """Bytes covered by the most frequent period (1.._MAX_UNIT) repeating at least 4 times in a row.

    XOR-ing the text with itself shifted by `period` leaves zero bytes exactly where it repeats;
    big-int arithmetic keeps this linear and in C, where a backtracking regex would crawl.
    """
    whole = int.from_bytes(data, "big")
    best = 0
    for period in range(1, min(_MAX_UNIT, len(data) - 1) + 1):
        size = len(data) - period
        head = whole >> (8 * period)  # data[:-period]
        tail = whole & ((1 << (8 * size)) - 1)  # data[period:]
        same = (head ^ tail).to_bytes(size, "big")
        covered = 0
        # Each run of at least 4 repeats: where `least` first fits, to the next byte that differs.
        # bytes.find skips ahead where a regex `\x00{3p,}` retries at every zero byte of a
        # shorter run (five times slower on a 4 KB memory, the same runs found).
        least = b"\x00" * (3 * period)
        start = same.find(least)
        while start >= 0:
            differs = _NONZERO_RE.search(same, start + len(least))
            end = differs.start() if differs else size
            # Indentation and blank padding are layout, not payload.
            if data[start : start + period].strip():
                covered += end - start + period
            start = same.find(least, end)
        best = max(best, covered)
    return best


def _oversized_repetitive(text: str) -> bool:
    if len(text) <= _REPETITIVE_MIN_LEN:
        return False
    raw = text.encode("utf-8", "surrogatepass")
    # Indentation compresses as well as a payload does; judge the text without it.
    squeezed = re.sub(rb"\s+", b" ", raw)
    if len(squeezed) > 10 * len(zlib.compress(squeezed)):
        return True
    return _repeated_unit_coverage(raw) * 2 > len(raw)


def display_text(text: str) -> str:
    """NFKC text with every flagged hidden character shown as `⟦U+XXXX⟧`, for review screens."""
    normal = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    cursor = 0
    for start, end, _ in _hidden_chars(normal):
        out.append(normal[cursor:start])
        out.extend(f"⟦U+{ord(c):04X}⟧" for c in normal[start:end])
        cursor = end
    out.append(normal[cursor:])
    return "".join(out)
