"""Secret redaction for untrusted memory text.

Secrets are replaced by a visible `[REDACTED:<kind>]` before anything is stored or sent to a
model; patterns are tuned for precision, so ordinary identifiers, hashes and git SHAs survive.
Vendor formats come first and name the kind; keyed assignments (`password=…`, `token: …`),
CLI flags, URLs with credentials and Authorization headers catch the rest.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["Redaction", "may_hold_secret", "redact", "redact_obj"]


@dataclass(frozen=True)
class Redaction:
    """Redacted text and the kinds replaced, in order of first appearance, deduplicated."""

    text: str
    kinds: tuple[str, ...]


_TOKEN_RE = re.compile(r"\[REDACTED:[a-z0-9-]+\]")

# Token boundaries: vendor keys use `-` and `_` inside, so a neighbour of those means we are in the
# middle of a longer identifier (`task-key`, `risk-based`) and must not fire.
_B = r"(?<![A-Za-z0-9_-])"
_E = r"(?![A-Za-z0-9_-])"


def _mixed(value: str) -> bool:
    """Random key material mixes letters with digits (or cases); words and slugs do not."""
    has_digit = any(c.isdigit() for c in value)
    has_lower = any(c.islower() for c in value)
    has_upper = any(c.isupper() for c in value)
    return (has_digit and (has_lower or has_upper)) or (has_lower and has_upper)


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _always(_: str) -> bool:
    return True


_MASK_RUN_RE = re.compile(r"([xX*0.•])\1{7,}|(?i:example)")


def _unmasked(value: str) -> bool:
    """`ghp_xxxxxxxx…`, `AKIAXXXXXXXX…` and AWS's `AKIAIOSFODNN7EXAMPLE` are documentation
    masks with a vendor's shape."""
    return _MASK_RUN_RE.search(value) is None


def _mixed_unmasked(value: str) -> bool:
    return _mixed(value) and _unmasked(value)


def _digit_unmasked(value: str) -> bool:
    return _has_digit(value) and _unmasked(value)


@dataclass(frozen=True)
class _Pattern:
    """A vendor format. The named group `secret` is replaced when present, else the whole match;
    `accept` vetoes matches that have the shape but not the randomness of a key."""

    kind: str
    regex: re.Pattern[str]
    accept: Callable[[str], bool] = _unmasked


def _p(
    kind: str, pattern: str, accept: Callable[[str], bool] = _unmasked, flags: int = 0
) -> _Pattern:
    return _Pattern(kind, re.compile(pattern, flags), accept)


# Zhipu / Z.ai (GLM) keys: a 32-hex id, a dot, a 16-character secret; no prefix of their own.
# The pattern starts at the dot, which `re` skips to, instead of trying every hex digit.
_ZHIPU_KEY_RE = re.compile(r"\.(?<=[0-9a-f]{32}\.)[A-Za-z0-9]{16}(?![A-Za-z0-9_-])")


def _zhipu_spans(text: str) -> Iterator[tuple[int, int, str]]:
    for m in _ZHIPU_KEY_RE.finditer(text):
        start = m.start() - 32
        before = text[start - 1 : start] if start else ""
        boundary = not before or not (before.isalnum() or before in "_.-")
        if boundary and _mixed_unmasked(m.group()[1:]):
            yield start, m.end(), "zhipu-key"

# Order is priority: a later pattern only redacts what earlier ones left uncovered, so specific
# vendor formats name the kind before the generic `password=`/`token=` assignment rule sees it.
_VENDOR_PATTERNS: tuple[_Pattern, ...] = (
    _p(
        "private-key",
        # A truncated block (no END line) still loses every base64 line that follows the header.
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:(?:\\n|\r?\n)[ \t]*[A-Za-z0-9+/=]{8,}[ \t]*)*)",
        _always,  # base64 key bodies legitimately contain runs like AAAAAAAA
        flags=re.S,
    ),
    _p("jwt", _B + r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}" + _E),
    _p("anthropic-key", _B + r"sk-ant-[A-Za-z0-9_-]{20,}"),
    _p("openai-key", _B + r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}", _digit_unmasked),
    _p("openai-key", _B + r"sk-[A-Za-z0-9]{20,}" + _E, _mixed_unmasked),
    _p("github-token", _B + r"gh[pousr]_[A-Za-z0-9]{30,}" + _E),
    _p("github-token", _B + r"github_pat_[A-Za-z0-9_]{22,}"),
    _p("gitlab-token", _B + r"glpat-[A-Za-z0-9_-]{20,}"),
    _p("slack-token", _B + r"xox[abposr]-[A-Za-z0-9-]{10,}", _digit_unmasked),
    _p("slack-token", _B + r"xapp-\d-[A-Za-z0-9-]{10,}"),
    _p("slack-webhook", r"(?<=hooks\.slack\.com/services/)(?P<secret>[A-Za-z0-9_/-]{20,})"),
    _p("google-api-key", _B + r"AIza[0-9A-Za-z_-]{35}" + _E),
    _p("stripe-key", _B + r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}" + _E),
    _p("stripe-key", _B + r"whsec_[0-9A-Za-z]{24,}" + _E),
    _p("npm-token", _B + r"npm_[A-Za-z0-9]{36}" + _E),
    _p("huggingface-token", _B + r"hf_[A-Za-z0-9]{34,}" + _E, _mixed_unmasked),
    _p("sendgrid-key", _B + r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{20,}" + _E),
    _p("telegram-token", r"(?<![0-9:])\d{8,10}:AA[A-Za-z0-9_-]{30,}" + _E),
    _p("aws-access-key", r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    # A PyPI token is a macaroon whose base64 starts `AgE`; real ones run past 150 characters,
    # and a short `pypi-AgE…` is only ever a truncated quote, left to the keyed rules.
    _p("pypi-token", _B + r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    # Service-account tokens carry more dots (`ya29.c.b0…`).
    _p("google-oauth-token", _B + r"ya29\.[A-Za-z0-9_.-]{30,}" + _E, _mixed_unmasked),
    _p("linear-key", _B + r"lin_api_[A-Za-z0-9]{32,}" + _E, _mixed_unmasked),
    _p(
        "discord-token",
        # No prefix of its own, so only where a bot uses it: `client.run('…')`, `Authorization: Bot …`.
        r"(?:\.run\([ \t]*[\"']|(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?Bot[ \t]+)"
        r"(?P<secret>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})" + _E,
        _digit_unmasked,
    ),
    _p(
        "twilio-token",
        # An account or API-key SID is an identifier; the secret passed after it is not.
        r"(?i:client)\([ \t]*[\"'](?:AC|SK)[0-9a-f]{32}[\"'][ \t]*,[ \t]*[\"']"
        r"(?P<secret>[A-Za-z0-9]{32})[\"']",
        _mixed_unmasked,
    ),
    _p(
        "aws-secret-key",
        # 40 base64 chars are everywhere (git SHAs, hashes); only trust them next to AWS wording.
        r"(?i:aws[\w .-]{0,24}?secret|secret[_-]?access[_-]?key)[\w\"' .:=-]{0,30}?"
        r"(?<![A-Za-z0-9/+])(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        lambda v: any(c.islower() for c in v) and any(c.isupper() for c in v) and _unmasked(v),
    ),
)

_PLACEHOLDER_WORDS = frozenset(
    """none null nil true false yes no on off undefined password passwd pass pwd secret token
    api_key apikey changeme redacted hidden required optional str string bytes int any secretstr
    await new this self lambda function todo tbd fixme placeholder""".split()
)
_PLACEHOLDER_RE = re.compile(
    r"""\[REDACTED:          # already redacted
    | <[^<>]*>$              # <your-password>
    | \$                     # $PASSWORD, ${env:X}, $(cat file)
    | \{                     # {password}, {{ secrets.TOKEN }}
    | %\(?\w*\)?[sdr]$ | %\w+%$   # printf slots, Windows %VAR%
    | [:@]\w+$               # SQL bind parameters
    | !                      # YAML tags such as !vault
    | \(                     # (empty), (none), (redacted)
    | [*•xX.#_-]+$           # masks: ****, xxxx, ...
    | (?i:your|replace|insert|enter)
    | .*(?i:example|placeholder|changeme)
    """,
    re.X,
)
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Code on the right of `=` (`os.environ[...]`, `self.token`, `get_token()`) names a secret, it
# is not one. Dotted segments must read like words so `ya29.a0AfH6SMBx` still counts as a value.
_CODE_RE = re.compile(
    r"[A-Za-z_$][A-Za-z_$]*\d*(?:\.[A-Za-z_$][A-Za-z_$]*\d*)+"  # dotted path
    r"|[A-Za-z_$][\w$.]*[(\[].*"  # call or subscript
)
_SENSITIVE_WORD_RE = re.compile(r"(?i)pass|pwd|secret|token|key|cred")
_WORDS_RE = re.compile(r"[A-Za-z]+(?:\s+[A-Za-z]+)+")


def _is_placeholder(value: str) -> bool:
    return (
        not value.strip()
        or value.lower() in _PLACEHOLDER_WORDS
        or _PLACEHOLDER_RE.match(value) is not None
    )


def _is_literal_value(value: str, word: str) -> bool:
    """False for placeholders, the key's own name and UI labels (`"password": "Enter password"`)."""
    return not (
        _is_placeholder(value) or value.lower() == word.lower() or _WORDS_RE.fullmatch(value)
    )


def _generated(value: str) -> bool:
    """Machine-made or deliberately strong values, not words (`expired`, `my-db-secret`). Keys and
    tokens are ASCII: "token: 2.你会在…吗？" is a sentence a title joined after the word."""
    return len(value) >= 8 and value.isascii() and _mixed(value)


# The last word of a key that holds a secret (`DB_PASSWORD`, `clientSecret`, `x-api-key`).
_KEY_WORDS = (
    r"client[_-]?secret|secret[_-]?key|private[_-]?key|api[_-]?key|apikey"
    r"|(?:access|account|shared[_-]?access)[_-]?key|password|passwd|passphrase|secret|token"
)
# key, optional closing quote, separator, value: the value alone is redacted.
_ASSIGNMENT_RE = re.compile(
    r"""(?<![A-Za-z0-9_./-])
    (?P<prefix>[A-Za-z0-9_.-]*?)(?P<word>"""
    + _KEY_WORDS
    + r"""|pass|pwd)
    (?![A-Za-z0-9])
    (?P<kq>["']?)\]?[ \t]*(?P<sep>:=|=>|=(?!=)|:(?!:))[ \t]*   # `]`: env['DB_PASSWORD'] = …
    (?P<value>"(?:[^"\\\n]|\\.)*"?|'[^'\n]*'?|[^\s"'`,;&})\]]+)   # a quote cut off ("…") runs to the line's end
    """,
    re.X | re.I,
)
_FLAG_RE = re.compile(
    r"""(?<![\w-])--[a-z0-9-]*?(?P<word>password|passwd|passphrase|secret|token|api-key|apikey)
    [ \t]+(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s"'-][^\s"']*)""",
    re.X | re.I,
)
# .NET appSettings: <add key="ApiKey" value="..." />
_XML_SETTING_RE = re.compile(
    rf"""\bkey\s*=\s*["'][\w.:-]*?(?P<word>{_KEY_WORDS})["']\s+"""
    r"""value\s*=\s*(?P<value>"[^"\n]*"|'[^'\n]*')""",
    re.I,
)
_NETRC_RE = re.compile(r"\blogin\s+\S+\s+password\s+(?P<value>[^\s'\"]+)")
_CURL_USER_RE = re.compile(
    # Not a Windows drive's path: `cygpath -u 'c:\users\…'` names a folder, not a user's password.
    r"""(?<!\S)(?:-u|--user)[ \t]+["']?(?![A-Za-z]:[\\/])[^\s:"']+:(?P<value>[^\s"']+)""",
)
_URL_CREDENTIALS_RE = re.compile(
    # Greedy password so an unencoded `@` inside it still ends at the last `@` before the host.
    r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@?#\[\]]*:(?P<value>[^\s/?#]+)@[A-Za-z0-9.\[\]:%_-]+"
)
_AUTHORIZATION_RE = re.compile(
    r"""(?i:authorization)["']?[ \t]*[:=][ \t]*["']?(?P<scheme>(?i:basic|token))[ \t]+
    (?P<value>[A-Za-z0-9._~+/-]{6,}=*)""",
    re.X,
)
_BEARER_RE = re.compile(
    r"(?i:\bbearer)[ \t]+(?P<value>[A-Za-z0-9._~+/-]{12,}=*)(?![A-Za-z0-9._~+/=-])"
)
# `Authorization: <token>` with no scheme (Linear, some internal APIs): the token is the whole
# value, where a scheme (`AWS4-HMAC-SHA256 Credential=…`) has parameters after it.
_BARE_AUTHORIZATION_RE = re.compile(
    r"""(?i:authorization)["']?[ \t]*[:=][ \t]*["']?(?P<value>[A-Za-z0-9._~+/-]{16,}=*)
    (?=[ \t]*(?:["',;)}\]]|$))""",
    re.X | re.M,
)
_VALUE = r"""(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s"'-][^\s"']*)"""
# MySQL clients take the password glued to `-p` (`-p secret` means: prompt, then use database
# `secret`), so only the glued form is a password.
_MYSQL_FLAG_RE = re.compile(
    r"(?<![\w-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh"
    r"|mariadb(?:-dump|-admin)?)\b[^\n|;&]*?[ \t]-p" + _VALUE
)
# Commands whose short flag takes a password as the next argument (`-p` is a port elsewhere:
# ssh, psql, `docker run`; redis-cli's port is `-p` and its password `-a`).
_COMMAND_FLAG_RE = re.compile(
    r"(?<![\w-])(?:(?:sshpass|twine|az[ \t]+login"
    r"|(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]+registry)[ \t]+login)"
    r"(?:[^\n|;&]*?[ \t])?-p|(?:redis-cli|keydb-cli)(?:[^\n|;&]*?[ \t])?-a)[ \t]+" + _VALUE
)
# Basic auth in code: `auth=("user", "password")`, `HTTPBasicAuth('user', 'password')`.
_AUTH_PAIR_RE = re.compile(
    r"""(?:\bauth[ \t]*=[ \t]*\(|\b(?:HTTPBasicAuth|HTTPDigestAuth|HTTPProxyAuth|BasicAuth)\()
    [ \t]*(?P<q>["'])[^"'\n]*(?P=q)[ \t]*,[ \t]*(?P<value>"[^"\n]*"|'[^'\n]*')""",
    re.X,
)
# Docker's config.json `"auth"` and .npmrc's `_auth` hold base64 of `user:password`.
_BASE64_AUTH_RE = re.compile(
    r"""(?<![\w-])(?P<kq>["']?)_?auth(?P=kq)[ \t]*[:=][ \t]*
    (?P<value>"[A-Za-z0-9+/]{8,}={0,2}"|'[A-Za-z0-9+/]{8,}={0,2}'|[A-Za-z0-9+/]{8,}={0,2})
    (?![A-Za-z0-9+/=])""",
    re.X | re.I,
)
# A signed URL's signature is the credential (Azure SAS, S3 and GCS presigned, CloudFront).
_URL_SIGNATURE_RE = re.compile(
    r"[?&](?i:sig|signature|x-amz-signature|x-goog-signature)=(?P<value>[A-Za-z0-9%+/=~._-]{16,})"
)

# Passwords handed to a prompt on standard input: expect's answer to a password prompt
# (`expect "*assword:"` then `send "S3cret\r"`, `expect -re "(P|p)assword" { send … }`, the block
# form `expect { "password:" { send … } }`), and what is piped to a command that reads its
# password from stdin (`echo 'pw' | sudo -S …`, `printf '%s\n' 'pw' | sudo --stdin …`, `passwd
# --stdin`); agents script both to get past a prompt they cannot type into.
# Only a quoted or braced answer: an unquoted word after "send" is prose as often as Tcl ("we
# expect users to reset their password … and send them a mail").
_SEND_RE = re.compile(r"""\bsend[ \t]+(?:--[ \t]+)?(?P<value>"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|\{[^{}\n]*\})""")
# The prompt an `expect` waits for, in the text before a `send` (globs and regexes cut its head).
_PROMPT_RE = re.compile(r"p?ass(?:word|wd|phrase|code)|密码|口令|пароль|kennwort|mot de passe|contraseña|senha",
                        re.IGNORECASE)
_EXPECT_WINDOW = 200  # characters before a `send`: its `expect` and prompt sit just before it
_STDIN_PASSWORD_RE = re.compile(
    r"""\b(?:echo|printf)[ \t]+(?:-[a-z]+[ \t]+)*(?:(?:"[^"\n]*%[^"\n]*"|'[^'\n]*%[^'\n]*')[ \t]+)?"""
    r"""(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s|;&'"]+)[ \t]*\|[ \t]*"""
    r"""(?:sudo(?:[ \t]+-[a-zA-Z]*[a-zA-RT-Z](?:[ \t]+[^\s-]\S*)?)*[ \t]+(?:-[a-zA-Z]*S\b|--stdin\b)"""
    r"""|passwd[ \t]+(?:[^\s|;&]+[ \t]+)*?--stdin\b)"""
)
# A value's own escapes for the Enter that ends it (`\r`, `\n`) are the keystroke, not the password.
_ENTER_RE = re.compile(r"(?:\\[rn])+$")


def _expect_answers(text: str) -> Iterator[re.Match[str]]:
    """The `send`s answering a password prompt: an `expect` naming one in the few characters
    before (bounded, so a long text costs one scan)."""
    last = 0
    for m in _SEND_RE.finditer(text):
        window = text[max(last, m.start() - _EXPECT_WINDOW):m.start()]
        last = m.end()
        at = window.lower().rfind("expect")
        if at >= 0 and _PROMPT_RE.search(window, at):
            yield m


def _stdin_spans(text: str) -> Iterator[tuple[int, int, str]]:
    found = list(_STDIN_PASSWORD_RE.finditer(text)) if "|" in text else []
    if "send" in text:
        found += _expect_answers(text)
    for m in found:
        raw = m["value"]
        quoted = raw[:1] in "\"'{" and len(raw) > 1  # the stdin rule also takes a bare word
        start, value = (m.start("value") + 1, raw[1:-1]) if quoted else (m.start("value"), raw)
        value = _ENTER_RE.sub("", value)
        if value and value[0] not in "$[" and not _PLACEHOLDER_RE.match(value):
            yield start, start + len(value), "password"


# Shell environment assignments (`PGPASSWORD=… psql`, `export DEPLOY_KEY=…`). The variables the
# clients read a password from hold one whatever it looks like, even a word (`PGPASSWORD=secret`);
# other upper-case `*_KEY`/`*_TOKEN`/`*_SECRET` variables only machine-made values, so
# `SORT_KEY=created_at`, `MAX_TOKENS=4096` and `PUBLIC_KEY=…` stay.
_ENV_PASSWORD_RE = re.compile(
    r"(?<![\w$.-])(?P<word>PGPASSWORD|MYSQL_PWD|REDISCLI_AUTH|SSHPASS|MONGO_PASSWORD"
    r"|SUDO_PASSWORD|ANSIBLE_BECOME_PASS)="
    r"""(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s"'`;&|$][^\s"'`;&|]*)"""
)
_ENV_KEY_RE = re.compile(
    r"(?<![\w$.-])(?P<word>(?!PUBLIC_|NEXT_PUBLIC_)[A-Z][A-Z0-9_]*_(?:KEY|TOKEN|SECRET))="
    r"""(?P<value>"[^"\n]*"?|'[^'\n]*'?|[^\s"'`;&|$/~][^\s"'`;&|]*)"""  # an unclosed quote: to the line's end
)
# `PGPASSWORD= psql`: an empty shell assignment, not `psql` as the password.
_EMPTY_ENV_RE = re.compile(r"(?<![\w$.-])[A-Z][A-Z0-9_]*=(?=[ \t])")


# Credentials typed in prose (`my password is …`, `密码：…`, `here is my key : …`): a password
# word in a common language, a connector (`is`, `:`, `是`, `est`, …) and the value up to the end
# of its token. Sentences that only talk about passwords (`reset the password flow`, `the
# password is encrypted`) are left alone: the value must be shaped like a password or a key.
_PROSE_PASSWORD_WORDS = (
    "password", "passwd", "passphrase", "passcode", "pw", "pwd", "mot de passe",
    "contraseña", "contrasena", "clave", "senha", "passwort", "kennwort", "wachtwoord", "hasło",
    "heslo", "parola", "пароль", "密码", "密碼", "口令", "パスワード", "비밀번호", "şifre",
    "lösenord", "salasana", "jelszó", "mật khẩu",
)
_PROSE_KEY_WORDS = (
    "key", "apikey", "api_key", "api-key", "token", "secret", "密钥", "秘钥", "令牌", "キー", "ключ",
    "clé", "токен",
)
_CONNECTOR = (
    r"(?P<conn>[ \t]*(?:(?:is|was|will[ \t]+be|would[ \t]+be|set[ \t]+to|to|est|es|ist|é|è|это)"
    r"(?![A-Za-z])|[=:：是为為—]|->|=>))?[ \t]*[\"'`“‘]?[ \t]*"
)
# ASCII value characters (CJK and full-width punctuation end it, as do quotes).
_PROSE_VALUE = r"(?P<value>[!#-&(-_a-~]+)"


def _prose_matches(regex: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """Matches whose word starts a word (`key`, not the end of `monkey` or `task-key`).

    A case-insensitive pattern has no fast scan in `re`, so the words are first found in the
    lowercased text by a plain alternation (which skips to its first letters), and the full
    pattern is tried only there.
    """
    low = text.lower()
    if len(low) != len(text):  # a character whose lowercase is longer: positions would shift
        candidates: Iterator[int] = (m.start() for m in regex.finditer(text))
    else:
        candidates = (m.start() for m in _PROSE_FINDERS[regex].finditer(low))
    end = 0
    for start in candidates:
        before = text[start - 1 : start]
        if start < end or (before and before.isascii() and (before.isalnum() or before in "_-")):
            continue
        m = regex.match(text, start)
        if m is not None:
            end = m.end()
            yield m


def _prose_re(words: tuple[str, ...]) -> re.Pattern[str]:
    # The pattern starts with the word itself: `_prose_matches` checks the left boundary.
    alts = "|".join(sorted((re.escape(w).replace(r"\ ", r"[ \t]+") for w in words), key=len,
                           reverse=True))
    return re.compile(
        rf"(?P<word>{alts})" + r"(?![A-Za-z0-9_-])"
        r"(?:[ \t]+(?:for|of|de|für|для)[ \t]+[^\s:：=]{1,40}(?:[ \t]+[^\s:：=]{1,40})?)?"
        + _CONNECTOR + _PROSE_VALUE,
        re.I,
    )


_PROSE_PASSWORD_RE = _prose_re(_PROSE_PASSWORD_WORDS)
_PROSE_KEY_RE = _prose_re(_PROSE_KEY_WORDS)
_PROSE_FINDERS = {
    regex: re.compile("|".join(re.escape(w).replace(r"\ ", r"[ \t]+") for w in words))
    for regex, words in ((_PROSE_PASSWORD_RE, _PROSE_PASSWORD_WORDS), (_PROSE_KEY_RE, _PROSE_KEY_WORDS))
}
# `user / password: admin / S3cret!`, `login admin / Passw0rd`: the second of a pair.
_PROSE_PAIR_RE = re.compile(
    r"(?i:\b(?:user(?:name)?|login|email|account)[ \t]*/[ \t]*(?:password|pass|pwd|pw)\b"
    r"[ \t]*[:=：]?|(?<![/\w.-])login\b[ \t]*[:=：]?)"
    r"[ \t]*[^\s/]{1,80}[ \t]*/[ \t]*" + _PROSE_VALUE
)
_PAIR_WORD_RE = re.compile(r"login|user|email|account")


def _trimmed(m: re.Match[str]) -> tuple[int, str]:
    """Sentence punctuation after a value belongs to the sentence (`… is S3cret9.`); `!` and `?`
    stay, as passwords end with them more often than typed requests do."""
    raw = m["value"]
    # A value starts like a typed word (not `>@host`, `<your-password>`, `$VAR`, `{slot}`) and
    # holds no `=`: `password" name=` is HTML, `key=…==` a config line the keyed rules handle.
    ok = (raw[0].isalnum() or raw[0] in "!#%&*+@^~") and "=" not in raw
    value = raw.rstrip(".,;:)]}>") if ok and not _is_placeholder(raw) else ""
    return m.start("value"), value


def _password_shaped(value: str) -> bool:
    """A typed password mixes classes (`Hunter2`, `s3cret!`, `Abc@123`); a word does not."""
    if len(value) < 5 or _is_placeholder(value) or _CODE_RE.fullmatch(value):
        return False
    if "://" in value or value.count("/") > 1 or value.startswith(("/", "~", "./", "--")):
        return False
    has_digit = _has_digit(value)
    has_alpha = any(c.isalpha() for c in value)
    symbol = any(not c.isalnum() and c not in "-_./" for c in value)
    inner_upper = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    if not has_alpha:
        return has_digit and len(value) >= 6 and value.isdigit()
    return has_digit or symbol or inner_upper


_UPPER_HEX_RE = re.compile(r"[0-9A-F]+")


def _key_shaped(value: str) -> bool:
    """A key typed in prose is long random material, not a word, a path or a version."""
    if len(value) < 20 or _is_placeholder(value) or "/" in value or "\\" in value:
        return False
    if _UPPER_HEX_RE.fullmatch(value):  # GPG key ids and fingerprints (`gpg: key 4AEE…`)
        return False
    return any(len(part) >= 16 and _mixed(part) for part in re.split(r"[.:]", value)) and (
        _unmasked(value)
    )


def _prose_spans(text: str) -> Iterator[tuple[int, int, str]]:
    yield from _prose_word_spans(text)
    # The pair pattern has no fast scan of its own: run it only where a pair can be.
    if "/" not in text or _PAIR_WORD_RE.search(text.lower()) is None:
        return
    for m in _PROSE_PAIR_RE.finditer(text):
        start, value = _trimmed(m)
        if _password_shaped(value):
            yield start, start + len(value), "password"


def _prose_word_spans(text: str) -> Iterator[tuple[int, int, str]]:
    for m in _prose_matches(_PROSE_PASSWORD_RE, text):
        start, value = _trimmed(m)
        word = m["word"].lower()
        # Without a connector (`password Hunter2`) the next word may be prose (`password
        # sign-in/sign-up`): only a value with a digit counts.
        strong = _generated(value) or (bool(m["conn"]) and word not in ("pw", "pwd"))
        if _password_shaped(value) and (strong or _has_digit(value)):
            yield start, start + len(value), "password"
    for m in _prose_matches(_PROSE_KEY_RE, text):
        start, value = _trimmed(m)
        if _key_shaped(value):
            yield start, start + len(value), _word_kind(m["word"]) if m["word"].isascii() else "api-key"


_SEGMENT_SPLIT_RE = re.compile(r"[-_./:]")


def _key_material(value: str) -> bool:
    """A run of at least 8 characters mixing letters with digits or cases: key material, where
    `order-2024-05-01`, `build_lock_v2` or `uploads/2024/img.png` are names made of words."""
    return any(len(part) >= 8 and _mixed(part) for part in _SEGMENT_SPLIT_RE.split(value))


def _env_spans(text: str) -> Iterator[tuple[int, int, str]]:
    for m in _ENV_PASSWORD_RE.finditer(text):
        start, value = _quoted_value(m)
        if value and not _PLACEHOLDER_RE.match(value) and value[0] != "$":
            yield start, start + len(value), "password"
    for m in _ENV_KEY_RE.finditer(text):
        start, value = _quoted_value(m)
        if _key_material(value) and not _is_placeholder(value):
            yield start, start + len(value), _word_kind(m["word"].rsplit("_", 1)[1])


_WORD_KINDS = {
    "password": "password",
    "passwd": "password",
    "passphrase": "password",
    "pass": "password",
    "pwd": "password",
    "token": "token",
}


def _word_kind(word: str) -> str:
    word = word.lower().replace("-", "_")
    if word in _WORD_KINDS:
        return _WORD_KINDS[word]
    if word.endswith("key") and word not in ("secret_key", "private_key"):
        return "api-key"
    return "secret"


def _structured(text: str, m: re.Match[str], quoted_key: bool) -> bool:
    """Whether a `key: value` sits where config/JSON/YAML keys live rather than inside a sentence
    (`Invalid token: expired`, `Token: see the README`)."""
    if quoted_key:
        return True
    line_end = text.find("\n", m.end())
    after = text[m.end() : len(text) if line_end < 0 else line_end].lstrip(" \t")
    if after[:1].isalnum():
        return False
    before = text[text.rfind("\n", 0, m.start()) + 1 : m.start()].rstrip(" \t")
    return before in ("", "-", "#", "//", "export") or before[-1] in "{[(,;\"'?&"


def _plausible_unquoted(text: str, m: re.Match[str], value: str) -> bool:
    if len(value) < 3 or _CODE_RE.fullmatch(value):
        return False
    # `password=db_password`: a variable named after the secret, not its value.
    if _IDENT_RE.fullmatch(value) and _SENSITIVE_WORD_RE.search(value) and not _has_digit(value):
        return False
    # Colon-chained names (`arn:aws:secretsmanager:…:secret:prod/db`) are identifiers, not keys.
    if m["sep"] == ":" and text[m.start() - 1 : m.start()] == ":":
        return False
    quoted_key = m["kq"] != "" or text[m.start() - 1 : m.start()] in ("\"", "'")
    return m["sep"] != ":" or _structured(text, m, quoted_key) or _generated(value)


def _assignment_spans(text: str) -> Iterator[tuple[int, int, str]]:
    for m in _ASSIGNMENT_RE.finditer(text):
        prefix, word = m["prefix"], m["word"].lower()
        # `pass`/`pwd` alone are too common inside words (compass, OLDPWD): need DB_PASS-style keys.
        if word in ("pass", "pwd") and not (
            (prefix == "" and word == "pass") or (prefix != "" and prefix[-1] in "_-.")
        ):
            continue
        start, value = _quoted_value(m)
        quoted = start != m.start("value")
        if _EMPTY_ENV_RE.match(text, m.start("prefix")) and m.start("value") > m.end("sep"):
            continue  # `PGPASSWORD= psql`: empty, the next word is the command
        if _keyed_value_ok(value, word) and (quoted or _plausible_unquoted(text, m, value)):
            yield start, start + len(value), _word_kind(word)


def _keyed_value_ok(value: str, word: str) -> bool:
    if not _is_literal_value(value, word):
        return False
    # Tokens and keys are machine-made; a plain word after `token:` is a status, not a secret.
    return _word_kind(word) == "password" or _generated(value)


def _quoted_value(m: re.Match[str]) -> tuple[int, str]:
    """Start and text of the `value` group without its surrounding quotes."""
    raw = m["value"]
    if len(raw) >= 2 and raw[0] in "\"'" and raw[-1] == raw[0]:
        return m.start("value") + 1, raw[1:-1]
    return m.start("value"), raw


def _simple_spans(regex: re.Pattern[str], kind: str, text: str) -> Iterator[tuple[int, int, str]]:
    for m in regex.finditer(text):
        start, value = _quoted_value(m)
        if not _is_placeholder(value):
            yield start, start + len(value), kind


def _keyed_spans(regex: re.Pattern[str], text: str) -> Iterator[tuple[int, int, str]]:
    """Values whose key word (group `word`) says what they are: CLI flags, XML settings."""
    for m in regex.finditer(text):
        start, value = _quoted_value(m)
        if _keyed_value_ok(value, m["word"]):
            yield start, start + len(value), _word_kind(m["word"])


def _authorization_spans(text: str) -> Iterator[tuple[int, int, str]]:
    for m in _AUTHORIZATION_RE.finditer(text):
        start, value = _quoted_value(m)
        if not _is_placeholder(value):
            kind = "basic-auth" if m["scheme"].lower() == "basic" else "token"
            yield start, start + len(value), kind
    for m in _BEARER_RE.finditer(text):
        if _mixed(m["value"]):
            yield m.start("value"), m.end("value"), "bearer-token"
    yield from _generated_spans(_BARE_AUTHORIZATION_RE, "token", text)


def _generated_spans(regex: re.Pattern[str], kind: str, text: str) -> Iterator[tuple[int, int, str]]:
    """Values a regex finds that are machine-made (`_generated`), not words or placeholders."""
    for m in regex.finditer(text):
        start, value = _quoted_value(m)
        if _generated(value) and not _is_placeholder(value):
            yield start, start + len(value), kind


_PROSE_WORD_RE = re.compile(r"[a-z]+(?:-[a-z]+)*")


def _password_spans(regex: re.Pattern[str], text: str, *, spaced: bool = False
                    ) -> Iterator[tuple[int, int, str]]:
    """Values a regex finds where a password goes: any literal counts, placeholders do not.

    A `spaced` value (`sshpass -p VALUE`) may be the next word of a sentence about the command
    (`sshpass -p with care`), so a plain lowercase word there is prose, not a password.
    """
    for m in regex.finditer(text):
        start, value = _quoted_value(m)
        quoted = start != m.start("value")
        if _is_literal_value(value, "password") and not (
            spaced and not quoted and _PROSE_WORD_RE.fullmatch(value)
        ):
            yield start, start + len(value), "password"


def _basic_pair(value: str) -> bool:
    """Whether `value` is base64 of `user:password`, as Docker and npm store credentials."""
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, colon, password = decoded.partition(":")
    return bool(user and colon and password) and decoded.isprintable() and " " not in decoded


def _base64_auth_spans(text: str) -> Iterator[tuple[int, int, str]]:
    for m in _BASE64_AUTH_RE.finditer(text):
        start, value = _quoted_value(m)
        if _basic_pair(value):
            yield start, start + len(value), "basic-auth"


def _vendor_spans(pattern: _Pattern, text: str) -> Iterator[tuple[int, int, str]]:
    group = "secret" if "secret" in pattern.regex.groupindex else 0
    for m in pattern.regex.finditer(text):
        if pattern.accept(m[group]):
            yield m.start(group), m.end(group), pattern.kind


def _candidate_spans(text: str) -> Iterator[tuple[int, int, str]]:
    for pattern in _VENDOR_PATTERNS:
        yield from _vendor_spans(pattern, text)
    yield from _zhipu_spans(text)
    yield from _simple_spans(_URL_CREDENTIALS_RE, "url-credentials", text)
    yield from _generated_spans(_URL_SIGNATURE_RE, "url-signature", text)
    yield from _authorization_spans(text)
    yield from _base64_auth_spans(text)
    yield from _simple_spans(_CURL_USER_RE, "password", text)
    yield from _simple_spans(_NETRC_RE, "password", text)
    yield from _password_spans(_MYSQL_FLAG_RE, text)
    yield from _password_spans(_COMMAND_FLAG_RE, text, spaced=True)
    yield from _password_spans(_AUTH_PAIR_RE, text)
    yield from _keyed_spans(_FLAG_RE, text)
    yield from _keyed_spans(_XML_SETTING_RE, text)
    yield from _assignment_spans(text)
    yield from _env_spans(text)
    yield from _stdin_spans(text)
    yield from _prose_spans(text)


# Leftovers around an already-redacted secret that carry nothing: punctuation, spaces, `\n` escapes.
_FILLER_RE = re.compile(r"(?:\\[nrt]|[\W_])*")


def _uncovered(start: int, end: int, taken: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The parts of [start, end) not yet claimed: overlaps never leak a secret's remainder.

    `taken` is sorted and its spans never overlap, so a bisect finds the first one that matters.
    """
    cursor = start
    index = max(bisect.bisect_left(taken, (start, start)) - 1, 0)
    for t_start, t_end in taken[index:]:
        if t_start >= end:
            break
        if t_end <= cursor:
            continue
        if t_start > cursor:
            yield cursor, t_start
        cursor = max(cursor, t_end)
    if cursor < end:
        yield cursor, end


# A token in the text: its span and the kind it was redacted as, or None if it was in the input.
_Token = tuple[int, int, str | None]


def _redact_pass(text: str, tokens: list[_Token]) -> tuple[str, list[_Token]] | None:
    """Redact what the patterns find outside `tokens`; None when nothing new was found."""
    taken = sorted((start, end) for start, end, _ in tokens)
    found: list[_Token] = []
    for start, end, kind in _candidate_spans(text):
        # Materialised first: `taken` must not change while `_uncovered` walks it.
        for piece_start, piece_end in list(_uncovered(start, end, taken)):
            if not _FILLER_RE.fullmatch(text[piece_start:piece_end]):
                found.append((piece_start, piece_end, kind))
                bisect.insort(taken, (piece_start, piece_end))
    if not found:
        return None
    kept = set(tokens)
    out: list[str] = []
    moved: list[_Token] = []
    cursor = length = 0
    for start, end, token_kind in sorted(tokens + found):
        out.append(text[cursor:start])
        length += start - cursor
        # Tokens already present stay byte for byte; new spans become visible markers.
        piece = text[start:end] if (start, end, token_kind) in kept else f"[REDACTED:{token_kind}]"
        out.append(piece)
        moved.append((length, length + len(piece), token_kind))
        length += len(piece)
        cursor = end
    out.append(text[cursor:])
    return "".join(out), moved


# Every pattern above needs one of these literals (or a keyed assignment), so a text without any
# cannot hold a secret we would redact. Checking them costs a few microseconds; running the
# patterns costs a millisecond, and every intake path calls `redact` on every memory.
_VENDOR_LITERALS = (
    "-----begin", "eyj", "sk-", "sk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
    "github_pat_", "glpat-", "xox", "xapp-", "hooks.slack", "aiza", "whsec_", "npm_", "hf_",
    "sg.", ":aa", "akia", "asia", "aws", "://", "authorization", "bearer", "-u", "--user",
    "login", "pypi-", "ya29.", "lin_api_", ".run(", "client(", "sig=", "signature=", "mysql",
    "mariadb", "sshpass", "twine", "redis-cli", "keydb-cli", "auth=", "auth =", "auth(", 'auth"',
    "auth'", "_auth", "sudo", "--stdin", 'expect "', "expect '", "expect -",
)
_KEYED_WORDS = ("pass", "pwd", "secret", "token", "key", "cred") + tuple(
    w for w in _PROSE_PASSWORD_WORDS + _PROSE_KEY_WORDS if w.isascii() is False
) + ("pw", "clave", "senha", "kennwort", "wachtwoord", "heslo", "parola", "salasana", "clé")
_KEYED_TRIGGER_RE = re.compile(
    r"(?:pass|pwd|secret|token|key|cred)[\w.-]*[\"']?\]?[ \t]*[:=]|--[\w-]*(?:pass|secret|token|key)",
    re.I,
)


# Lowercase letters from rarest to most common in English, for `_substring_re`.
_LETTERS_BY_RARITY = "qzjxkvbywgpfmucldhrsnioate"


_COMMON_IN_CODE = {" ": 26, '"': 14, "'": 14, "(": 14, "=": 14}  # quotes and calls: as common as c


def _rarity(char: str) -> int:
    if char in _LETTERS_BY_RARITY:
        return _LETTERS_BY_RARITY.index(char)
    if char in _COMMON_IN_CODE:
        return _COMMON_IN_CODE[char]
    return 3 if char == "_" else 12 if char == "." else 6  # as common in technical text


def _substring_re(words: tuple[str, ...]) -> re.Pattern[str]:
    """A regex that finds any of the lowercase `words` as a substring, quickly on ordinary text.

    Each word is matched from its rarest character, a lookbehind checking what precedes it.
    Every alternative then starts with one of a few rare characters, and `re` skips the other
    positions with a table lookup instead of trying each word there: about twice as fast on
    prose. Where a word matches depends only on the word, so two such regexes agree on it.
    """
    by_anchor: dict[str, list[str]] = {}
    for word in sorted(set(words)):
        at = min(range(len(word)), key=lambda i: (_rarity(word[i]), i))
        behind = f"(?<={re.escape(word[:at + 1])})" if at else ""
        by_anchor.setdefault(word[at], []).append(behind + re.escape(word[at + 1:]))
    branches = [re.escape(anchor) + (rests[0] if len(rests) == 1 else f"(?:{'|'.join(rests)})")
                for anchor, rests in sorted(by_anchor.items())]
    return re.compile(f"(?:{'|'.join(branches)})")


_VENDOR_LITERAL_RE = _substring_re(_VENDOR_LITERALS)
# Both lists in one pass: a text that holds neither, nearly every memory, is read once.
_LITERAL_RE = _substring_re(_VENDOR_LITERALS + _KEYED_WORDS)


def may_hold_secret(text: str) -> bool:
    """False when `redact` would certainly find nothing: a pre-check for callers with many texts.

    True when the text holds a vendor literal, or a keyed word and a keyed trigger.
    """
    low = text.lower()
    first = _LITERAL_RE.search(low)
    if first is None:
        return False
    # Nothing is found before `first`, so a vendor literal, if any, is found from there on;
    # and when `first` is not one, it is a keyed word.
    return (_VENDOR_LITERAL_RE.search(low, first.start()) is not None
            or _KEYED_TRIGGER_RE.search(text) is not None
            # Only a value the prose rules would redact counts: the many texts that merely say
            # `password` or `key` do not pay for every pattern.
            or next(_prose_word_spans(text), None) is not None
            or _ZHIPU_KEY_RE.search(text) is not None)


# Short texts are mostly metadata values met in every memory of an import (a log's path, a cwd,
# a session id, a kind): redacted once each, as many times over as memories are made.
_SHORT_CHARS = 256


def redact(text: str) -> Redaction:
    """Replace every secret in `text` by a visible `[REDACTED:<kind>]`; idempotent."""
    return _redact_short(text) if len(text) <= _SHORT_CHARS else _redact(text)


@functools.lru_cache(maxsize=4096)
def _redact_short(text: str) -> Redaction:
    return _redact(text)


def _redact(text: str) -> Redaction:
    if not may_hold_secret(text):
        return Redaction(text, ())
    # Existing markers count as claimed, so patterns can neither re-redact nor split them.
    tokens: list[_Token] = [(*m.span(), None) for m in _TOKEN_RE.finditer(text)]
    # A replacement changes its neighbours' boundaries (`]--password x` now has a flag start), so
    # repeat until stable. Each pass turns at least one word character into a marker, so it ends.
    while (result := _redact_pass(text, tokens)) is not None:
        text, tokens = result
    kinds = dict.fromkeys(kind for _, _, kind in sorted(tokens) if kind is not None)
    return Redaction(text, tuple(kinds))


_SENSITIVE_KEY_RE = re.compile(rf"(?i).*?(?P<word>{_KEY_WORDS})")


def redact_obj(value: Any) -> tuple[Any, tuple[str, ...]]:
    """Redact every string inside nested dicts/lists/tuples (metadata), keys included; returns a
    new value + kinds.

    A string stored under a sensitive key (`{"password": "hunter2"}`) is redacted whole: without
    the key beside it, the bare value matches no pattern.
    """
    kinds: dict[str, None] = {}

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            result = redact(item)
            kinds.update(dict.fromkeys(result.kinds))
            return result.text
        if isinstance(item, dict):
            # A key is text too (`{"ghp_…": "ci"}`); the sensitive-key rule reads the original.
            return {walk(key): field(key, sub) for key, sub in item.items()}
        if isinstance(item, list):
            return [walk(sub) for sub in item]
        if isinstance(item, tuple):
            return tuple(walk(sub) for sub in item)
        return item

    def field(key: Any, sub: Any) -> Any:
        match = _SENSITIVE_KEY_RE.fullmatch(key) if isinstance(key, str) else None
        if match is None or not isinstance(sub, str):
            return walk(sub)
        result = redact(sub)
        if result.kinds or not _is_literal_value(sub, match["word"]):
            kinds.update(dict.fromkeys(result.kinds))
            return result.text
        kind = _word_kind(match["word"])
        kinds.setdefault(kind)
        return f"[REDACTED:{kind}]"

    return walk(value), tuple(kinds)
