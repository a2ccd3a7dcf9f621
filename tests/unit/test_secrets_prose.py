"""Credentials a person types in prose: a provider key handed over in a prompt (`here is my key :
…`), a password stated in a sentence in any common language (`password is …`, `密码是…`, `mot de
passe : …`), a login pair. Next to them, sentences that only talk about passwords and keys, which
must come out unchanged. Every value is an invented fake.
"""

from __future__ import annotations

import pytest

from dreamtui.safety.secrets import may_hold_secret, redact

_ZHIPU = "5f0c" "9e21ab7d44c3" "8a9b0f6e1d2c7a34" "." "Qm7TzW2kLp9XvR4s"
_TOKEN = "tq8R" "v2LxW9mK" "4pZc7HdN" "3sYb"
_KEY = "aB3dE5gH" "7jK9mN1pQ3" "wX5z"

PROSE_SECRETS: list[tuple[str, str]] = [
    # (a) keys
    (f"in stall these mcps here is my key : {_ZHIPU}",
     "in stall these mcps here is my key : [REDACTED:zhipu-key]"),
    (f"export it, {_ZHIPU} is the GLM key", "export it, [REDACTED:zhipu-key] is the GLM key"),
    (f"use this token {_TOKEN} for the deploy", "use this token [REDACTED:token] for the deploy"),
    (f"my api key is {_TOKEN}.", "my api key is [REDACTED:api-key]."),
    (f"key: {_KEY}", "key: [REDACTED:api-key]"),
    (f"the secret is `{_TOKEN}`", "the secret is `[REDACTED:secret]`"),
    (f"这是我的密钥：{_TOKEN}，请配置", "这是我的密钥：[REDACTED:api-key]，请配置"),
    (f"令牌是{_TOKEN}", "令牌是[REDACTED:api-key]"),
    # (b) passwords
    ("create a new user pat@example.org and password is Quokka@71",
     "create a new user pat@example.org and password is [REDACTED:password]"),
    ("password: Hunter22!", "password: [REDACTED:password]"),
    ("my password is Tr0ub4dor&3.", "my password is [REDACTED:password]."),
    ("the password for root is Abc123!x", "the password for root is [REDACTED:password]"),
    ("pw Xy7#kLp2 then sudo", "pw [REDACTED:password] then sudo"),
    ("密码是Abc12345，请登录", "密码是[REDACTED:password]，请登录"),
    ("密码：Qwe!2345", "密码：[REDACTED:password]"),
    ("mot de passe : Soleil2024", "mot de passe : [REDACTED:password]"),
    ("contraseña: Gato#123", "contraseña: [REDACTED:password]"),
    ("пароль: Zima2025!", "пароль: [REDACTED:password]"),
    ("Passwort ist Bergsee77", "Passwort ist [REDACTED:password]"),
    ("login admin / Passw0rd9", "login admin / [REDACTED:password]"),
    ("username/password: admin / S3cret!x", "username/password: admin / [REDACTED:password]"),
]


@pytest.mark.parametrize(("text", "expected"), PROSE_SECRETS)
def test_prose_credential_is_redacted_to_the_end_of_its_token(text: str, expected: str) -> None:
    assert may_hold_secret(text)
    assert redact(text).text == expected
    assert redact(expected).text == expected  # idempotent


PROSE_LOOKALIKES = [
    "reset the password flow",
    "the password field is required",
    "The user exists but the password is encrypted. Let me check the seed script",
    "password is 8 characters minimum",
    "the password is hashed with bcrypt2",
    "the key is src/components/FooBarBaz1234.tsx",
    "token count 128000",
    "the primary key is user_id",
    "pass the token to the next step",
    "cache key abcdefgh-1234",
    "pass it to v1.2.3",
    "key press handler onKeyDown",
    "密码是必填项",
    "mot de passe : obligatoire",
    "the key is 3f2a1b9c",
    "gpg: key 4AEE18F83AFDEB23B6C1A0F2D9E87C51B0A3D4E6 imported",
    "session key: aB3dE5gH7jK9mN1pQ3",  # 18 characters: too short to be taken for a key
    "pw reset link expires",
    "login with GitHub / Google",
    "then pass to getBudgetAndCalculation2 for each month",
    "Pass `ownerId42` from the JWT to the query",
    "Auth modal with email+password sign-in/sign-up",
    "Tested /auth/login and /register2 pages",
]


@pytest.mark.parametrize("text", PROSE_LOOKALIKES)
def test_sentence_about_passwords_or_keys_is_unchanged(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize("text", ["the password is encrypted", "reset the password flow",
                                  "the primary key is user_id", "密码是必填项"])
def test_prose_that_only_names_a_password_skips_the_patterns(text: str) -> None:
    # The pre-check asks whether a prose rule would redact, not whether the word appears.
    assert not may_hold_secret(text)


def test_a_sentence_after_the_word_token_is_no_token() -> None:
    """Keys and tokens are ASCII: a title that joined two lines after "token" keeps its words."""
    text = "大概需要消耗多少token，初始搭建的token: 2.你会在cc文件夹下自动创建文件夹吗？: check it"
    assert redact(text).text == text
    assert "[REDACTED:token]" in redact("token: ghx_9aK2mQ7zL1pR8sT3vW6y").text
