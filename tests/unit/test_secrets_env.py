"""Secrets in shell environment assignments, as agents' commands and logs carry them
(`PGPASSWORD=… psql`, `export DEPLOY_KEY=…`), and the look-alikes that must stay."""

from __future__ import annotations

import pytest

from dreamtui.safety.secrets import redact


@pytest.mark.parametrize(("text", "secret", "kind"), [
    ("PGPASSWORD=secret psql -h db -U app", "secret", "password"),  # a word, still the password
    ("PGPASSWORD=hunter2 pg_dump app > dump.sql", "hunter2", "password"),
    ("export MYSQL_PWD=changeit2024; mysql -u root", "changeit2024", "password"),
    ("MYSQL_PWD=abc mysql -u root", "abc", "password"),
    ('env PGPASSWORD="p@ss w" psql', "p@ss w", "password"),
    ("REDISCLI_AUTH=foobar redis-cli ping", "foobar", "password"),
    ("SSHPASS=letmein sshpass -e ssh deploy@host", "letmein", "password"),
    ("DEPLOY_KEY=3f9a8b7c6d5e4f3a2b1c ./deploy.sh", "3f9a8b7c6d5e4f3a2b1c", "api-key"),
    ("export SENTRY_AUTH_TOKEN=sntrys_abc123XYZ789def", "sntrys_abc123XYZ789def", "token"),
    ("CI_JOB_SECRET=Zx8Qw2Er5Ty7Ui9 make release", "Zx8Qw2Er5Ty7Ui9", "secret"),
])
def test_env_assignments_lose_their_secret(text: str, secret: str, kind: str) -> None:
    result = redact(text)
    assert secret not in result.text
    assert f"[REDACTED:{kind}]" in result.text
    assert result.text.split("=", 1)[0] == text.split("=", 1)[0]  # the variable's name stays


@pytest.mark.parametrize("text", [
    "PGPASSWORD= psql -h db",  # empty: psql is the command
    "PGPASSWORD=$PGPASSWORD psql",
    "PGPASSWORD=*** psql",
    "API_KEY=${API_KEY} node server.js",
    "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "MAX_TOKENS=4096",
    "MAX_OUTPUT_TOKEN=8192",
    "PRIMARY_KEY=id",
    "SORT_KEY=created_at",
    "CACHE_KEY=user_profile",
    "IDEMPOTENCY_KEY=order-2024-05-01",
    "LOCK_KEY=build_lock_v2",
    "PARTITION_KEY=tenant_id_v3",
    "S3_BUCKET_KEY=uploads/2024/img.png",
    "KEY_FILE=/etc/ssl/key.pem",
    "SSH_KEY_PATH=~/.ssh/id_rsa",
    "SIGNING_KEY=/run/secrets/sign_key",
    "PUBLIC_KEY=AAAAC3NzaC1lZDI1NTE5AAAAIG",
    "MIX_ENV=test mix test",
])
def test_env_look_alikes_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(("text", "secret"), [
    # a log or a title cut the value off before its closing quote: the rest of the line is the value
    ('BLOCKED: WEBHOOK_API_KEY="k1Lm9Qz8Rt7Yx6Wv5Us4Tp3.Vn2Bo1Cq0Dr…', "k1Lm9Qz8Rt7Yx6Wv5Us4Tp3"),
    ("export DB_PASSWORD='Zq7Wx2Er9Ty", "Zq7Wx2Er9Ty"),
    ('{"service_token": "Hk3Jd8Lw2Qp9Xz', "Hk3Jd8Lw2Qp9Xz"),
])
def test_a_quoted_secret_cut_before_its_closing_quote_is_still_redacted(text: str, secret: str) -> None:
    assert secret not in redact(text).text
