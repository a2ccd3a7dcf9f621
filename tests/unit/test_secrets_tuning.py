"""The set the redaction patterns of issue 16 were tuned on: the kinds the adversarial run missed
(bare PyPI tokens, attached and command-specific password flags, Docker `auth`, Twilio clients,
basic-auth tuples, scheme-less Authorization headers, signed URLs, a few vendor formats) and the
look-alikes each new rule must leave alone.

Separate from the hold-out (`test_secrets_holdout.py`), which measures text the patterns were not
fitted to, and from the older corpus (`test_safety_corpus.py`). Expected outputs are exact: the
secret becomes `[REDACTED:<kind>]` and nothing around it changes. Every key is a random fake.
"""

from __future__ import annotations

import base64

import pytest

from dreamtui.safety.secrets import Redaction, redact

_PYPI = ("py" "pi-" "AgEIcHlwaS5vcmcD55VIRf5XKpojQnaRKInANq1eSsjJ_m5vb4GBXlWw9iYONymwpea8HIbvp_Xp_Z2Z4RTgg"
         "VK3tK-YbJ-T9urPkKIM2u4vl7jRmXzqnL73WfbzSsv2_UIh18GiQhJdqilw-NyK_hPA6FX")
_TEST_PYPI = ("py" "pi-" "AgENdGVzdC5weXBpLm9yZwBeIWG8XL2BscbFu9ZYi49SbIz0_516fuIKYRSPuwiPSVqx25VKp_h9rP58T"
              "VA7bs_sDEiN-OjJnNzlWac6511eN8woxM-WwMeZ4swstab2_lxwX6mRcVIpwQ")
_GHP = "gh" "p_" "v3AehVXzZ0IowQfFkw0ABwfCzecW8iLNSJNr"
_TWILIO_SID = "AC" "6fec6beaf7367ae2779b93f7d8490cab"
_TWILIO_TOKEN = "ecdcf9314f36c34cb8d287f34acc568a"
_TWILIO_KEY_SID = "SK" "a62ba12e5daeea9213c38f247c45576e"
_TWILIO_KEY_SECRET = "qS2S793lNGA50ImYqeoR86fM7pHe8Hmx"
_DISCORD = "MTcfQBYtfPOIe1I2C9iJSOfwn1" ".ZjY9g6." "YfGKPoQWoW5WjqFFn3SFEZxH7JtwREk3xldBrw"
_DISCORD_2 = "ODvJtJTHzbnPNyjBO7wEW8Bm" ".bHEpyO." "Gl-m0Q3cg3fMr7A8npNh-OMjdPx"
_YA29 = ("ya" "29." "a01UtkmYltULTFZb9Zzsja0sTt5Pz_zzxHlrzRV1BAqvCjIIzGI472imdRslBRIGe3EIjLAM1uyugq94lxm"
         "xjc2p6aBg0HDtqUKS4ZKLFw_jzQ0xmY2ScSy-5EgNg0SMSx-GgoRpSigALH4fNVWQq_yL")
_LINEAR = "lin" "_api_" "skqS6Ye1zpcwKNuzx10bRyQP3M0BdHUPBAuxk4Dh"
_SAS_SIG = "cn2Tt3q9FelDQUeU5ryd0FIy6mt998OIYwmUnZj6c4q%3D"
_AMZ_SIG = "0660b2dd716687440cb663eb985cf9a72b4a4fb54ea7a31ea45751719a061c5a"
_DOCKER_AUTH = base64.b64encode(f"deploy:{_GHP}".encode()).decode()
_DOCKER_AUTH_2 = base64.b64encode(b"robot$ci:B06WiWXeVPoYwT0Yt93n").decode()
_NPM_AUTH = base64.b64encode(b"builder:h5XdGcAULxHHiZbi").decode()

TUNING_SECRETS: list[tuple[str, list[tuple[str, str]]]] = [
    # bare PyPI tokens: the macaroon prefix names them wherever they appear
    (f"python -m twine upload --repository testpypi -u __token__ -p {_TEST_PYPI} dist/*",
     [(_TEST_PYPI, "pypi-token")]),
    (f"The publish job failed because {_PYPI} was revoked.", [(_PYPI, "pypi-token")]),
    (f"uv publish --token {_PYPI}", [(_PYPI, "pypi-token")]),
    # MySQL/MariaDB: the password is glued to -p (a space after -p means "prompt me")
    ("mysql -h db -u app -pB06WiWXeVP shop", [("B06WiWXeVP", "password")]),
    ("mariadb -u root -p'oYwT0Yt93nZIH1' -e 'select 1'", [("oYwT0Yt93nZIH1", "password")]),
    ('mysqladmin -u root -p"h5XdGcAULx" status', [("h5XdGcAULx", "password")]),
    ("mysqldump -uroot -pHHiZbiSeXU5mrbCHLQ2I3S --single-transaction shop > shop.sql",
     [("HHiZbiSeXU5mrbCHLQ2I3S", "password")]),
    # commands whose short flag takes a password
    ("docker login registry.acme.dev -u robot -p pdRJwUoTtR7LOyUvjO", [("pdRJwUoTtR7LOyUvjO", "password")]),
    ("podman login -u robot -p 'x7rBYXKpTLxSJ8DN3PUajk' quay.io", [("x7rBYXKpTLxSJ8DN3PUajk", "password")]),
    ("sshpass -p pTVAxCQ4ga scp build.tar deploy@10.1.2.3:/srv", [("pTVAxCQ4ga", "password")]),
    ("redis-cli -h 127.0.0.1 -p 6380 -a 6SUamxQpBumi2Ye9xT --no-auth-warning info",
     [("6SUamxQpBumi2Ye9xT", "password")]),
    ("az login --service-principal -u $APP_ID -p M6NsQUSbDn~jvhmEZNQVrWyU4 --tenant $TENANT",
     [("M6NsQUSbDn~jvhmEZNQVrWyU4", "password")]),
    ("twine upload -u acme -p lF1ee8wLsWLp58kmjj dist/*", [("lF1ee8wLsWLp58kmjj", "password")]),
    # Docker and npm configs: base64 of user:password
    (f'{{"auths": {{"registry.acme.dev": {{"auth": "{_DOCKER_AUTH}"}}}}}}', [(_DOCKER_AUTH, "basic-auth")]),
    (f'"quay.io": {{\n    "auth": "{_DOCKER_AUTH_2}",\n    "email": ""\n}}', [(_DOCKER_AUTH_2, "basic-auth")]),
    (f"registry=https://npm.acme.dev/\n_auth={_NPM_AUTH}\nalways-auth=true", [(_NPM_AUTH, "basic-auth")]),
    # Twilio: an account or API key SID followed by its secret
    (f'client = Client("{_TWILIO_SID}", "{_TWILIO_TOKEN}")', [(_TWILIO_TOKEN, "twilio-token")]),
    (f"twilio.rest.Client('{_TWILIO_KEY_SID}', '{_TWILIO_KEY_SECRET}', '{_TWILIO_SID}')",
     [(_TWILIO_KEY_SECRET, "twilio-token")]),
    # HTTP basic auth in code
    ('r = requests.post(url, json=body, auth=("svc-ci", "Ntbv86s6kZXSMHyoS6saRb"))',
     [("Ntbv86s6kZXSMHyoS6saRb", "password")]),
    ("session.auth = HTTPBasicAuth('admin', 'xcPLlBl3AF!')", [("xcPLlBl3AF!", "password")]),
    ('async with aiohttp.ClientSession(auth=aiohttp.BasicAuth("bot", "yNKs0AD9d7")) as s:',
     [("yNKs0AD9d7", "password")]),
    # vendor formats
    (f"client.run('{_DISCORD}')", [(_DISCORD, "discord-token")]),
    (f"DISCORD_TOKEN={_DISCORD_2}", [(_DISCORD_2, "token")]),
    (f"-H \"Authorization: Bot {_DISCORD_2}\"", [(_DISCORD_2, "discord-token")]),
    (f"google.auth.exceptions.RefreshError: token {_YA29} is invalid", [(_YA29, "google-oauth-token")]),
    (f"const linear = new LinearClient({{ apiKey: process.env.KEY ?? '{_LINEAR}' }})",
     [(_LINEAR, "linear-key")]),
    ("gcloud says: token ya" "29.c.b0AXv0zTMd5Jq9pL3kW8rT2yV6nB1xF4hG7jK0mN3qS5uZ8aC1eD4gI7 expired",
     [("ya" "29.c.b0AXv0zTMd5Jq9pL3kW8rT2yV6nB1xF4hG7jK0mN3qS5uZ8aC1eD4gI7", "google-oauth-token")]),
    # a key set by subscript, as Python code does
    ("os.environ['DB_PASSWORD'] = 'hunter2x'", [("hunter2x", "password")]),
    ('config["api_key"] = "Zq8rT2mL5pW9xK3v"', [("Zq8rT2mL5pW9xK3v", "api-key")]),
    # a scheme-less Authorization header
    (f'curl https://api.linear.app/graphql -H "Authorization: {_LINEAR}" -d @query.json',
     [(_LINEAR, "linear-key")]),
    ('headers = {"Authorization": "Xq7vR2mK9pL4sT8wZ1bN6cF3"}', [("Xq7vR2mK9pL4sT8wZ1bN6cF3", "token")]),
    # signed URLs: the signature is the credential
    (f"az storage blob download --blob-url 'https://acme.blob.core.windows.net/c/a.zip?sv=2022-11-02"
     f"&sr=b&sp=r&sig={_SAS_SIG}'", [(_SAS_SIG, "url-signature")]),
    ("https://acme-builds.s3.amazonaws.com/app.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600"
     f"&X-Amz-SignedHeaders=host&X-Amz-Signature={_AMZ_SIG}", [(_AMZ_SIG, "url-signature")]),
]

TUNING_LOOKALIKES: list[str] = [
    "mysql -u root -p shop",
    "mysql -h db -P 3306 -u app -p",
    "mysql --protocol=tcp -u app -p --database=shop",
    "mysql -u app -p$MYSQL_PASSWORD shop",
    "mysqldump -u root -p${DB_PASS} shop > shop.sql",
    "ssh -p 2222 deploy@10.1.2.3",
    "scp -P 2222 -p build.tar deploy@10.1.2.3:/srv",
    "docker run -p 5432:5432 -e POSTGRES_DB=app postgres:16",
    "docker compose -p acme up -d",
    "docker login -u robot -p \"$REGISTRY_PASSWORD\" registry.acme.dev",
    "docker login -u robot --password-stdin registry.acme.dev",
    "redis-cli -a \"$REDIS_PASSWORD\" ping",
    "redis-cli --scan --pattern 'user:*' -a",
    "sshpass -p \"$SSH_PASS\" ssh deploy@host",
    "sshpass -f ~/.sshpass ssh deploy@host",
    "az login --service-principal -u $APP_ID -p $CLIENT_SECRET --tenant $TENANT",
    "twine upload -r testpypi dist/*",
    "pip download -p linux_x86_64 numpy",
    "python -m pytest -p xdist -n 4",
    "mkdir -p build/dist && cp -p a b",
    '"auth": "basic"',
    '{"auth": {"type": "oidc", "issuer": "https://auth.acme.dev"}}',
    'auth: "token"',
    "auth: true",
    '"auth": "dGhpcyBpcyBub3QgYSBwYWlyIGF0IGFsbA=="',
    "always-auth=true",
    'client = Client(account_sid, auth_token)',
    'client = Client(os.environ["TWILIO_ACCOUNT_SID"], os.environ["TWILIO_AUTH_TOKEN"])',
    f"Message sent from account {_TWILIO_SID}.",
    'requests.get(url, auth=("user", "<password>"))',
    'requests.get(url, auth=(user, password))',
    "session.auth = HTTPBasicAuth(username, password)",
    'auth=("api", "")',
    "Authorization: Bearer",
    "Authorization: Negotiate",
    '"Authorization": "Bearer ${TOKEN}"',
    "authorization: required for /admin routes",
    "Authorization header missing",
    "https://acme.blob.core.windows.net/c/a.zip?sv=2022-11-02&sig=<sas-signature>",
    "https://example.com/verify?email=a@b.co&signature=valid",
    "the signature=abc check in verify.py",
    "ya29 tokens are short-lived Google OAuth access tokens",
    "lin_api_ prefixes Linear personal API keys",
    "MTIzNDU2Nzg5MDEyMzQ1Njc4.example.signature is the placeholder in their docs",
    "python -m build && twine check dist/*",
    "pypi-simple is a mirror; see https://pypi.org/project/pypi-simple/",
    f"pypi-AgEIcHlwaS5vcmc{'x' * 60} (masked)",
    "use sshpass -p with care",
    "redis-cli -a takes the password as an argument",
    "docker login -p is deprecated, use --password-stdin",
    "twine upload -p my-password dist/*",
    "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/eu-west-1/s3/aws4_request",
    '"auth": "YWRtaW4="',
    "auth: dXNlcjo=",
    'subprocess.run("ls -la", shell=True)',
    'settings["password"]',
    'if data["token"] == "":',
    "os.environ['API_TOKEN'] = token",
    'headers["X-Api-Key"] = api_key',
]


def _expected(text: str, secrets: list[tuple[str, str]]) -> str:
    for secret, kind in secrets:
        assert text.count(secret) == 1, f"secret must occur exactly once: {secret!r}"
        text = text.replace(secret, f"[REDACTED:{kind}]")
    return text


@pytest.mark.parametrize(("text", "secrets"), TUNING_SECRETS, ids=lambda v: str(v)[:40])
def test_tuning_secret_is_redacted_exactly(text: str, secrets: list[tuple[str, str]]) -> None:
    assert redact(text).text == _expected(text, secrets)


@pytest.mark.parametrize("text", TUNING_LOOKALIKES, ids=lambda v: v[:40])
def test_tuning_lookalike_is_untouched(text: str) -> None:
    assert redact(text) == Redaction(text, ())


def test_tuning_redaction_is_idempotent() -> None:
    for text, _ in TUNING_SECRETS:
        once = redact(text).text
        assert redact(once) == Redaction(once, ())
