"""Safety marks for untrusted memory text: what a person should look at before an agent reads it.

Memories end up in every future agent's context, so nothing here rewrites text: `scan` names what
looks suspicious (instruction-like phrases, concealment, exfiltration cues, role delimiters,
invisible, bidi and tag characters, oversized repetitive padding) and `display_text` shows hidden
characters on review screens.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Iterator, Sequence

__all__ = [
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
MARK_INVISIBLE = "invisible-unicode"
MARK_BIDI = "bidi-control"
MARK_TAG_CHARS = "unicode-tag-chars"
MARK_REPETITIVE = "oversized-repetitive"

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


# Cyrillic and Greek letters that render like Latin ones, so "іgnоre" still reads as "ignore".
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁɡοανικτАЕОРСХІЈЅВНКМТ",
    "aeopcyxijsdgoavikt" + "AEOPCXIJSBHKMT",
)


def _phrases(*patterns: str) -> tuple[re.Pattern[str], ...]:
    """Compile phrase patterns: case-insensitive, verbose (whitespace in the source is layout)."""
    return tuple(re.compile(p, re.I | re.X) for p in patterns)


_INJECTION_RES = _phrases(
    r"""\b(?:ignore|disregard|forget)\s+(?:(?:all|any|every|the|your|of|my|these|those)\s+)*
        (?:previous|prior|above|earlier|preceding|former|original|initial|system|developer)\s+
        (?:instructions?|prompts?|rules|directions|directives|guidelines|context|guidance
           |constraints|orders)\b""",
    # "override" and "skip" also describe CSS cascades and CI steps, so only with instructions.
    r"""\b(?:override|bypass|skip|discard)\s+(?:(?:all|any|every|the|your|of|my|these|those)\s+)*
        (?:previous|prior|above|earlier|preceding|original|initial|system|developer)\s+
        (?:instructions?|prompts?|directives|guidelines|guidance|constraints)\b""",
    r"""\b(?:ignore|disregard|forget)\s+(?:all\s+(?:of\s+)?)?your\s+
        (?:instructions|rules|guidelines|programming|training)\b""",
    r"""\b(?:previous|prior|earlier|above|all\s+other)\s+
        (?:instructions?|guidance|rules|directives|prompts?)\s+
        (?:are|is)\s+(?:now\s+)?(?:void|null|revoked|cancell?ed)\b""",
    r"""\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|the|your|any)\s+)*
        (?:safety|content|security)\s+(?:guidelines|filters|policies|restrictions|rules)\b""",
    r"""\b(?:ignore|disregard|forget)\s+(?:all\s+(?:of\s+)?|everything\s+)?
        (?:the\s+|what(?:'s|\s+is|\s+was)\s+)?(?:above|previous|prior)\s*(?:and\b|[,.;:!]|$)""",
    r"""\b(?:ignore|disregard|override|bypass|forget)\s+(?:(?:the|your|any|all)\s+)*
        system\s+prompt\b""",
    r"""\bdo\s+not\s+(?:follow|obey)\s+(?:(?:the|your|any|all)\s+)*
        (?:previous|prior|above|system|original)\s+(?:instructions?|prompts?|rules)\b""",
    r"""\byou\s+are\s+now\s+
        (?:(?:an?|my)\s+\w+|dan\b|no\s+longer\b|free\b|unrestricted|unfiltered|jailbroken
           |acting\s+as|operating\s+(?:as|in|without)|going\s+to\s+(?:ignore|obey)
           |in\s+(?:developer|dan|god|admin|jailbreak|unrestricted|sudo|root)\s+mode)""",
    r"""\bpretend\s+(?:that\s+)?you\s+(?:are|have)\s+(?:an?\s+|no\s+|not\s+|no\s+longer\s+)""",
    r"""\bnew\s+(?:system\s+|updated\s+|important\s+)?(?:instructions?|directives?)\s*:""",
    r"""\bforget\s+(?:everything\b
        |all\s+(?:previous|prior|your|the\s+(?:previous|prior|above)|instructions|rules|that)\b)""",
    r"""\b(?:system|admin|developer|security)\s+override\b""",
    r"""\b(?:take|takes)\s+precedence\s+over\s+(?:(?:all|any|the|your)\s+)*
        (?:other|previous|prior|system)\s+(?:instructions|prompts?|rules)\b""",
    r"""\b(?:supersedes?|overrides?)\s+(?:(?:all|any|the|your)\s+)*
        (?:other\s+|previous\s+|prior\s+|system\s+)+(?:instructions|prompts?|rules)\b""",
    r"""\b(?:dan|jailbreak|god)\s+mode\s+(?:enabled|activated|on)\b""",
)
# Singular "the user" is the person the agent works for; "don't tell users X" is UX guidance.
_CONCEALMENT_RES = _phrases(
    r"""\b(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t)\s+
        (?:tell|inform|mention|reveal|disclose)\b
        (?:\s+(?:this|it|that|anything|any\s+of\s+this))?\s+(?:(?:to|with)\s+)?
        (?:the\s+)?(?:user|human|operator|reviewer)\b(?!['’]s)""",
    r"""\b(?:do\s+not|don'?t|never)\s+(?:notify|alert)\s+(?:the\s+)?(?:user|human)\s+
        (?:about|of)\s+(?:this|it)\b""",
    r"""\b(?:do\s+not|don'?t|never)\s+let\s+(?:the\s+)?(?:user|human)\s+
        (?:know|find\s+out|notice|see\s+this)\b""",
    r"""\bwithout\s+(?:telling|informing|notifying|alerting|letting)\s+
        (?:the\s+)?(?:user|human)\b""",
    r"""\bkeep\s+(?:this|it|that|these\s+\w+)\s+(?:a\s+)?(?:secret|hidden|quiet|private)\s+
        from\s+(?:the\s+)?(?:user|human)\b""",
    r"""\bhide\s+(?:this|it|that|these\s+\w+)\s+from\s+(?:the\s+)?(?:user|human)\b""",
    r"""\b(?:the\s+)?(?:user|human)\s+(?:must|should|need)\s*(?:not|never|n't)\s+
        (?:know|find\s+out|learn|notice)\b""",
    r"""\b(?:secretly|covertly)\s+(?:send|upload|copy|run|execute|add|insert|exfiltrate|post)\b""",
)
_NET = r"(?:curl|wget|nc|ncat|netcat|socat|invoke-webrequest|invoke-restmethod|iwr|irm)"
_SECRET_FILE = (
    r"(?:~?/?\.ssh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws/credentials|\.netrc\b"
    r"|\.git-credentials\b|/etc/(?:passwd|shadow)\b)"
)
# How a file becomes a request body: `-d @file`, `-T file`, `< file`, `"$(cat file)"`.
_UPLOADED = r"(?:@|<\s*|-T\s+|--upload-file\s+|\$\(\s*cat\s+|`\s*cat\s+)\S*?"
# Optional encoding step between a secret and the network: `| base64 | curl`.
_ENCODE = r"(?:(?:base64|gzip|xxd|openssl\s+\S+)[^\n|]*\|\s*)?"
_EXFILTRATION_RES = _phrases(
    r"""\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|;]*
        \|\s*(?:sudo\s+(?:-\S+\s+)*)?
        (?:(?:ba|z|k|da|fi)?sh|python[23]?|perl|ruby|node|iex|invoke-expression)\b""",
    r"""\b(?:(?:ba|z)?sh|eval|source)\s+(?:-c\s+)?["']?(?:\$\(|<\(|`)\s*(?:curl|wget)\b""",
    rf"""\b{_NET}\b[^\n]*?
        (?:\$\((?:env|printenv)\)|`(?:env|printenv)`|{_UPLOADED}(?:{_SECRET_FILE}|\.env\b))""",
    rf"""(?:\b(?:env|printenv)|\bcat\s+[^\n|]*(?:{_SECRET_FILE}|\.env\b|credentials)[^\n|]*)
        \s*\|\s*{_ENCODE}{_NET}\b""",
    rf"""\bbase64\b[^\n|]*{_SECRET_FILE}""",
    # A reverse shell, not a `</dev/tcp/db/5432` port probe.
    r""">&\s*/dev/tcp/|/dev/tcp/\S+\s+0>&1""",
    r"""\b(?:nc|ncat|netcat)\b[^\n]*\s-e\s""",
    r"""\b(?:send|post|upload|exfiltrate|transmit|forward|leak|email|paste)\b(?:\s+\S+){0,6}?\s+
        (?:env(?:ironment)?\s+var(?:iable)?s|environment|secrets?|credentials|api[\ _-]?keys?
           |ssh[\ _-]?keys?|private[\ _-]?keys?|tokens?|passwords?|\.env(?:\s+file)?
           |~/\.ssh\S*|id_rsa)
        \b(?:\s+\S+){0,6}?\s+to\s+
        (?:https?://|\S*(?:webhook|pastebin|ngrok|requestbin|pipedream)
           |(?:this|the\s+following|my|our|an?)\s+(?:url|endpoint|server|webhook|address|email))""",
)
_ROLE_RES = (
    re.compile(r"<\|[A-Za-z_]\w{0,30}\|>"),
    re.compile(r"</?(?:system|assistant|human)(?:[-_](?:prompt|message))?>", re.I),
    re.compile(r"\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>"),
    re.compile(
        r"^[ \t]*\#{1,6}[ \t]*(?:system|assistant|user|human|instructions?)"
        r"(?:[ \t]+(?:prompt|message))?[ \t]*:",
        re.I | re.M,
    ),
    re.compile(r"^[ \t]*(?:Human|Assistant|HUMAN|ASSISTANT)[ \t]*:", re.M),
)

_REPETITIVE_MIN_LEN = 2000
_MAX_UNIT = 64  # bytes; longer "units" are ordinary repeated lines, not padding payloads


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
        for m in re.finditer(rb"\x00{%d,}" % (3 * period), same):
            # Indentation and blank padding are layout, not payload.
            if data[m.start() : m.start() + period].strip():
                covered += len(m[0]) + period
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


def _decoded_tags(text: str) -> str:
    """Tag characters mirror ASCII (U+E0041 is an invisible 'A'): read what they spell."""
    return "".join(chr(ord(c) - 0xE0000) for c in text if 0xE0020 <= ord(c) <= 0xE007E)


# Each phrase family needs one of its trigger words to match at all; looking words up in a set
# is what keeps `scan` cheap on the ordinary memories that make up nearly all of the input.
_INJECTION_WORDS = frozenset({
    b"ignore", b"disregard", b"forget", b"override", b"overrides", b"bypass", b"skip", b"discard",
    b"void", b"null", b"revoked", b"cancelled", b"canceled", b"follow", b"obey", b"now", b"pretend",
    b"instruction", b"instructions", b"directive", b"directives", b"precedence", b"supersede",
    b"supersedes", b"mode",
})
_CONCEALMENT_WORDS = frozenset({b"user", b"human", b"operator", b"reviewer", b"secretly", b"covertly"})
_EXFILTRATION_WORDS = frozenset({
    b"curl", b"wget", b"iwr", b"irm", b"invoke", b"nc", b"ncat", b"netcat", b"socat", b"base64", b"tcp",
    b"send", b"post", b"upload", b"exfiltrate", b"transmit", b"forward", b"leak", b"email", b"paste",
})
_ROLE_WORDS = frozenset({b"system", b"assistant", b"human", b"user", b"instruction", b"instructions"})
_TRIGGER_WORDS = _INJECTION_WORDS | _CONCEALMENT_WORDS | _EXFILTRATION_WORDS | _ROLE_WORDS
_ROLE_LITERAL_RE = re.compile(r"<\||\[/?inst|<<|_of_turn")
_ROLE_LITERAL_BYTES_RE = re.compile(_ROLE_LITERAL_RE.pattern.encode())
_WORD_RE = re.compile(r"[a-z0-9]+")
# bytes.translate + split runs in C: ten times faster than a regex findall on ASCII text.
_NON_WORD_BYTES = bytes(c if chr(c).isascii() and chr(c).isalnum() else 32 for c in range(256))


def _words(low: str) -> set[bytes]:
    if low.isascii():
        return set(low.encode().translate(_NON_WORD_BYTES).split())
    return {w.encode() for w in _WORD_RE.findall(low)}


_ASCII_HIDDEN_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Every byte but those _ASCII_HIDDEN_RE finds: deleting them leaves only the hidden ones.
_ASCII_NOT_HIDDEN = bytes(c for c in range(256) if not _ASCII_HIDDEN_RE.match(chr(c)))


def scan(text: str) -> tuple[str, ...]:
    """Sorted unique safety marks for `text`; an empty tuple when nothing looks suspicious."""
    if text.isascii():
        # NFKC, confusables and tag characters only concern non-ASCII text.
        normal = clean = text
        marks = {MARK_INVISIBLE} if _ASCII_HIDDEN_RE.search(text) else set()
        if marks:
            clean = _HIDDEN_RE.sub("", text)
    else:
        normal = unicodedata.normalize("NFKC", text)
        marks = {mark for _, _, mark in _hidden_chars(normal)}
        # Match phrases on what a model would read: hidden characters dropped, look-alikes
        # folded, and text smuggled in tag characters spelled out.
        clean = _HIDDEN_RE.sub("", normal).translate(_CONFUSABLES) + "\n" + _decoded_tags(normal)
    low = clean.lower()
    words = _words(low)
    if words & (_INJECTION_WORDS | _CONCEALMENT_WORDS):
        prose = re.sub(r"\s+", " ", re.sub(r"[*`~]", "", clean).replace("_", " "))
        if words & _INJECTION_WORDS and any(r.search(prose) for r in _INJECTION_RES):
            marks.add(MARK_INJECTION)
        if words & _CONCEALMENT_WORDS and any(r.search(prose) for r in _CONCEALMENT_RES):
            marks.add(MARK_CONCEALMENT)
    if words & _EXFILTRATION_WORDS and any(r.search(clean) for r in _EXFILTRATION_RES):
        marks.add(MARK_EXFILTRATION)
    role_hint = words & _ROLE_WORDS or _ROLE_LITERAL_RE.search(low)
    if role_hint and any(r.search(clean) for r in _ROLE_RES):
        marks.add(MARK_ROLE_DELIMITER)
    if _oversized_repetitive(text):
        marks.add(MARK_REPETITIVE)
    return tuple(sorted(marks))


def scan_many(texts: Sequence[str]) -> tuple[str, ...]:
    """The sorted union of `scan` over `texts`; one quick pass when no mark can apply.

    For ASCII texts `scan` can only mark hidden characters, trigger words, role literals or
    length; when the texts joined by newlines (which are none of these) have none, no text
    does. Checked on bytes, where each test is one C call: the answer for nearly every memory.
    """
    joined = "\n".join(texts)
    if joined.isascii():
        raw = joined.encode()
        low = raw.lower()
        if (not raw.translate(None, _ASCII_NOT_HIDDEN)
                and _TRIGGER_WORDS.isdisjoint(low.translate(_NON_WORD_BYTES).split())
                and _ROLE_LITERAL_BYTES_RE.search(low) is None
                and all(len(text) <= _REPETITIVE_MIN_LEN for text in texts)):
            return ()
    return tuple(sorted({mark for text in texts for mark in scan(text)}))


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
