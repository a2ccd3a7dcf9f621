"""A hold-out corpus for secret redaction, written before the patterns of issue 16 were tuned.

It is kept apart from the tuning corpus (`test_safety_corpus.py`) and from the set the patterns
were tuned on (`test_secrets_tuning.py`): a figure measured here says how redaction does on text
it was not fitted to. Recall counts a secret as caught when no 8-character window of it survives
(a partial redaction that leaks half a key is a miss); damage counts look-alikes that changed at
all. Every key below is a random fake; vendor prefixes are split so push protection and secret
scanners do not mistake this file for a leak.
"""

from __future__ import annotations

import base64

import pytest

from dreamtui.safety.secrets import redact

RECALL_TARGET = 0.95
WINDOW = 8  # a surviving run this long of a secret counts as a leak

_GHP = "gh" "p_" "LDYdORbbDryvzOSnwlcxyTLth6reqh6SwJ4m"
_DOCKER_AUTH = base64.b64encode(f"ci-bot:{_GHP}".encode()).decode()
_PYPI = ("py" "pi-" "AgEIcHlwaS5vcmcUrKLuOsPU6Ty6X8uuDmNy1rJqDGN0jeFfiWaQuk3ew-3JDC0SkUaaGv9XVVstRZ4U_"
         "ElkoAlsVeTMR76QyPXkI8gPlBvJqYsedJ1ptdthRADjjRg7Ur9V5UF")
_AKIA = "AK" "IA" "YPEC221911D8LBZ9"
_AWS_SECRET = "862AJlOPgJ3UI6NHbVFz27guJq1H4fC0zDYvXEUh"
_AKIA_2 = "AK" "IA" "E83BUVDN0OMR1F9X"
_AWS_SECRET_2 = "hiWWIzEA7UqgS7av3BROvJQ9Q/2hwL8DQDqxy8yI"
_TWILIO_SID = "AC" "4b07021fecd74c19c81f2b2453ab3ff7"
_TWILIO_TOKEN = "9aa03494b4990e60dc01a9698b9835bc"
_XOXB = "xo" "xb-" "227758347638-5604331096950-6OoboeNvedw4vV4xDzUtjY0E"
_STRIPE = "sk_" "live_" "8IXEKpsoZzvrqNClZuelxsqA"
_GH_PAT = "github" "_pat_" "6o4VKMGrWf1o85uXj996KE_eAOvi6XkeuncExd8nLKwFPoatOjVXfKQYbBRnQMi7Cev4V0vHusI8IpZutS"
_GLPAT = "gl" "pat-" "C939LtheL1TIwA_XYtpq"
_OPENAI = "sk-" "proj-" "qIWCrY0xlo3mKMI058Mf7WSLsWCo5JsFR3a9T7MKtmGPQmEnT3BlbkFJdaKVo1SvEGUzRa-g0werHK1Wc"
_ANTHROPIC = ("sk-" "ant-" "api03-l0VSpf0Z0B9iLj5Jo7pmlMjm6IRkMNXBXS-FouTLjfO2XeZx3qQF6uEo262joKCREFoNZilfuKCh"
              "d3JgQkmbN98nLekOrAA")
_HF = "h" "f_" "9kbmuKxpBzRsCr0aKikCrCCoYrlb0NY135"
_SENDGRID = "S" "G." "xzZgWHSjit3twQVyNN6_Br.3ITmuY1HP-yXzcXpYsepC3U6_P6jHt2Sp0QL0STU5ur"
_DIGITALOCEAN = "do" "p_v1_" "d0ab82a7deafbcd114c9f02c9bc32703821c30a85150718a94c199603b51531f"
_SHOPIFY = "sh" "pat_" "eb923d7c513b631a64dbb15d7338d35d"
_DISCORD = "MT5WkXzNzWl5CcrbynNPhtBleD" ".NHUjQc." "_afQ6fujMVSWrfz6cZmgqCnucX1ZogDnDk_ShJ"
_TELEGRAM = "8687001643:" "AA" "lU6MAufuywRxc3EhhOJ42SOll0araS33h"
_VAULT = "hv" "s." "NBph3cXNg5YHemgknejBCA1S1Fvop7L-NOVkXO5zD_saKZv59Jk2GzdYDiN3mWQCVTi6aL3_ksqa67dv9vPCwuQeQY"
_TFC = "YOsqz2MFy0OJoL" ".atlas" "v1." "sxSBEw5Pk4dNeB0auvcGjJlIzTnxbiDtpMUAQAzdeF9DaDRrRzHAytUrEwTq6eWGYg6"
_GOCSPX = "GOC" "SPX-" "LvJGcdrk6YzJ_gX5SLQ-Nw_bYapM"
_YA29 = "ya" "29." "a0AIKFC1ttFJw52aOh8F3ze3eWZJTaAmnFIHrutMwt7Kz8IQeaR3e4oScnn7vhmLvZ4fIUyivmpYEk6y"
_LINEAR = "lin" "_api_" "7IEjWghQ7cylQj39wCLLb8lfOMoMaadtPwWIEBV0"
_DOCKER_PAT = "dckr" "_pat_" "HolimM06gCm0IH_rbNWy4i6C0ca"
_NPM = "np" "m_" "Y2MhdoMKmcNrxtknHA9ny97yDogT3l3FRNYL"
_GHO = "gh" "o_" "Omn6jOv5tvIcPZn59u1afiET0He7iq1eo6p0"
_GHS = "gh" "s_" "TGU1aoCb3IK2qB8Geb5tCuSzT18LBKMmq45B"
_GOOGLE = "AI" "za" "6n1g9HmaSpZxhU2YYjSsPUDzycaKCSXwK_A"
_WHSEC = "wh" "sec_" "VMwACF2tQxQqokwj4kG6Oz3JRBjPHrsX"
_NPM_LEGACY = "a3690762-1de9-4cbc-af12-9f4b8b769088"
_HEROKU = "8611fcb2-614b-495e-9140-9d1f01ba4bc9"
_JWT = ("eyJhbGciOiJSUzI1NiIsImtpZCI6IjFlOWdkazcifQ.eyJpc3MiOiJodHRwczovL2F1dGguYWNtZS5kZXYiLCJzdWIiOiI0MiJ9"
        ".BqppZx5TBD8ewgJiVDNG3msoprKaAURj-TL8baREM1GTq0")
_PEM = ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7jRSe7JnvFUkiiaB7\n"
        "ZkhCdIlmKFVq0DKPOOtVflmcVszG4QcBE69r5a5jSk312nY88y4jBiuJqtJBhrAvtB\n"
        "BOznCiCaUkzpH5kabbZBVwmOfe0KWrpbRsPlh65COUpvwiJoCiXMS6AWJVy7Q3W7VTPl")
_BEGIN, _END = "-----BEGIN ", "-----END "

# (text, the secrets in it that must not survive). Grouped by where agents meet them.
HOLDOUT_SECRETS: list[tuple[str, tuple[str, ...]]] = [
    # command lines: tokens and passwords as arguments
    (f"twine upload -u __token__ -p {_PYPI} dist/*", (_PYPI,)),
    (f"Upload failed; the token I used was {_PYPI} (scoped to acme-core).", (_PYPI,)),
    ("mysql -u deployer -ppO8BNfShzjFUPHuB app < dump.sql", ("pO8BNfShzjFUPHuB",)),
    ("mysql -h 10.0.3.7 -u root -p'nTYH6f9LDccp' -e 'SHOW DATABASES'", ("nTYH6f9LDccp",)),
    ("mysqldump -uadmin -p\"jRSe7JnvFUkiiaB7ZkhC\" --all-databases > all.sql", ("jRSe7JnvFUkiiaB7ZkhC",)),
    (f"docker login -u acmeci -p {_DOCKER_PAT} docker.io", (_DOCKER_PAT,)),
    ("sshpass -p 'dIlmKFVq0DKP' ssh deploy@10.0.0.12 'systemctl restart app'", ("dIlmKFVq0DKP",)),
    ("wget --http-user=ci --http-password=OOtVflmcVszG4QcBE69r https://nexus.acme.dev/x.jar",
     ("OOtVflmcVszG4QcBE69r",)),
    ("az login --service-principal -u 0b8f846d-8f3f-4e1a-9efe-1da142d6371a -p 5a5jSk3~12nY88y4jBiuJ.q "
     "--tenant acme.onmicrosoft.com", ("5a5jSk3~12nY88y4jBiuJ.q",)),
    (f"gh auth login --with-token <<< {_GHO}", (_GHO,)),
    ("redis-cli -h cache.internal -a qtJBhrAvtBBOznCiCaUk PING", ("qtJBhrAvtBBOznCiCaUk",)),
    # environment assignments
    ("PGPASSWORD=zpH5kabbZBVwmOfe psql -h db.internal -U app -c 'select 1'", ("zpH5kabbZBVwmOfe",)),
    ("MYSQL_PWD=0KWrpbRsPlh6 mysql -u app -h db app", ("0KWrpbRsPlh6",)),
    (f"export AWS_ACCESS_KEY_ID={_AKIA}\nexport AWS_SECRET_ACCESS_KEY={_AWS_SECRET}", (_AKIA, _AWS_SECRET)),
    (f"export GITHUB_TOKEN={_GHS}", (_GHS,)),
    (f"OPENAI_API_KEY={_OPENAI} python eval.py", (_OPENAI,)),
    (f"ANTHROPIC_API_KEY='{_ANTHROPIC}'", (_ANTHROPIC,)),
    (f"HUGGING_FACE_HUB_TOKEN={_HF}", (_HF,)),
    ("export DD_API_KEY=d9ae2124114b54fd006904b4d63af352", ("d9ae2124114b54fd006904b4d63af352",)),
    (f"HEROKU_API_KEY={_HEROKU} heroku apps", (_HEROKU,)),
    (f"DIGITALOCEAN_ACCESS_TOKEN={_DIGITALOCEAN}", (_DIGITALOCEAN,)),
    (f"$env:LINEAR_API_KEY = \"{_LINEAR}\"", (_LINEAR,)),
    ("TWILIO_AUTH_TOKEN=86b6fa03f66d1bc53a8b10ce89a8e528", ("86b6fa03f66d1bc53a8b10ce89a8e528",)),
    # config files
    (f'{{"auths": {{"ghcr.io": {{"auth": "{_DOCKER_AUTH}"}}}}}}', (_DOCKER_AUTH,)),
    (f'~/.docker/config.json:\n{{\n  "auths": {{\n    "https://index.docker.io/v1/": {{\n'
     f'      "auth": "{base64.b64encode(b"acmeci:5COUpvwiJoCiXMS6").decode()}"\n    }}\n  }}\n}}',
     (base64.b64encode(b"acmeci:5COUpvwiJoCiXMS6").decode(),)),
    (f"[default]\naws_access_key_id = {_AKIA_2}\naws_secret_access_key = {_AWS_SECRET_2}\nregion = eu-central-1",
     (_AKIA_2, _AWS_SECRET_2)),
    (f"//registry.npmjs.org/:_authToken={_NPM_LEGACY}", (_NPM_LEGACY,)),
    (f"always-auth=true\n//npm.pkg.github.com/:_authToken={_NPM}", (_NPM,)),
    ("[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\n"
     f"password = {_PYPI}", (_PYPI,)),
    ("database:\n  host: db.prod\n  username: app\n  password: AWJVy7Q3W7VTPl6ceolQtjoF",
     ("AWJVy7Q3W7VTPl6ceolQtjoF",)),
    ('{"type": "service_account", "project_id": "acme-ci", "private_key_id": '
     '"4c05962ab04f28d63832d75683f12168990fdcae", "private_key": '
     f'"{_BEGIN}PRIVATE KEY-----\\n{_PEM.replace(chr(10), "")}\\n{_END}PRIVATE KEY-----\\n"}}',
     # The key's id names it, like a fingerprint; only the key itself is secret.
     (_PEM.replace("\n", ""),)),
    (f"{_BEGIN}OPENSSH PRIVATE KEY-----\n{_PEM}\n{_END}OPENSSH PRIVATE KEY-----", tuple(_PEM.split("\n"))),
    ("DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey="
     "hxkSM05f6gCMdcPtFhyrMtv3v9YAmPOCQRgYiqLWo6ESVQSp46tQ0zAa0Ddr+Q==;EndpointSuffix=core.windows.net",
     ("hxkSM05f6gCMdcPtFhyrMtv3v9YAmPOCQRgYiqLWo6ESVQSp46tQ0zAa0Ddr+Q==",)),
    ("apiVersion: v1\nkind: Secret\ntype: Opaque\ndata:\n  password: ZmN5ck10djN2OVlBbVBPQw==",
     ("ZmN5ck10djN2OVlBbVBPQw==",)),
    ('credentials "app.terraform.io" {\n' f'  token = "{_TFC}"\n}}', (_TFC,)),
    ("SECRET_KEY=django-insecure-7c$w!2kq#x9m@e4r8t^y1u&i5o0p", ("django-insecure-7c$w!2kq#x9m@e4r8t^y1u&i5o0p",)),
    (f"slack:\n  bot_token: {_XOXB}\n  channel: '#deploys'", (_XOXB,)),
    # code
    (f'client = Client("{_TWILIO_SID}", "{_TWILIO_TOKEN}")\nclient.messages.create(to=n, body=b)',
     (_TWILIO_TOKEN,)),
    (f"account_sid = '{_TWILIO_SID}'\nauth_token = 'fcb0c4a48c0d0cc88f2f13f0b8b7b9e1'",
     ("fcb0c4a48c0d0cc88f2f13f0b8b7b9e1",)),
    (f's3 = boto3.client("s3", aws_access_key_id="{_AKIA}", aws_secret_access_key="{_AWS_SECRET}")',
     (_AKIA, _AWS_SECRET)),
    (f'stripe.api_key = "{_STRIPE}"', (_STRIPE,)),
    (f"const octokit = new Octokit({{ auth: '{_GH_PAT}' }});", (_GH_PAT,)),
    ('requests.get(url, auth=("admin", "Pr0d-Adm1n-8842"))', ("Pr0d-Adm1n-8842",)),
    (f"sg = SendGridAPIClient('{_SENDGRID}')", (_SENDGRID,)),
    (f"bot.run('{_DISCORD}')", (_DISCORD,)),
    (f'const map = new google.maps.Map(el, {{ center, zoom: 8 }}); // key={_GOOGLE}', (_GOOGLE,)),
    (f"endpoint_secret = '{_WHSEC}'", (_WHSEC,)),
    # URLs, headers, logs
    ("postgresql://app_rw:ddc1f6783881061c@db-prod.c9x.eu-west-1.rds.amazonaws.com:5432/app",
     ("ddc1f6783881061c",)),
    ("Connecting to mongodb+srv://reporting:Ca6032b43fbc4ad5@cluster1.x7k2p.mongodb.net/?retryWrites=true",
     ("Ca6032b43fbc4ad5",)),
    (f"git clone https://oauth2:{_GLPAT}@gitlab.com/acme/infra.git", (_GLPAT,)),
    (f"remote: https://x-access-token:{_GHS}@github.com/acme/app.git", (_GHS,)),
    (f"curl -H 'Authorization: Bearer {_JWT}' https://api.acme.dev/v2/me", (_JWT,)),
    ("> GET /api/v1/items HTTP/1.1\n> Authorization: Basic Y2ktYm90OjRhOGQxNjkyY2Q5NGJlYzU=\n> Accept: */*",
     ("Y2ktYm90OjRhOGQxNjkyY2Q5NGJlYzU=",)),
    ('curl -H "X-Shopify-Access-Token: ' f'{_SHOPIFY}" https://acme.myshopify.com/admin/api/2024-01/shop.json',
     (_SHOPIFY,)),
    (f"curl https://api.telegram.org/bot{_TELEGRAM}/sendMessage -d chat_id=42", (_TELEGRAM,)),
    ("https://acmelogs.blob.core.windows.net/raw/app.log?sv=2022-11-02&ss=b&srt=o&sp=r"
     "&se=2024-06-01T00:00:00Z&sig=e050b409afdc1a7725224cd20846fc45%2B7ba4f87f%3D",
     ("e050b409afdc1a7725224cd20846fc45%2B7ba4f87f%3D",)),
    (f"VAULT_TOKEN={_VAULT} vault kv get secret/app", (_VAULT,)),
    (f"Got 401 from Google; the access token {_YA29} had expired.", (_YA29,)),
    (f"GOOGLE_CLIENT_SECRET={_GOCSPX}", (_GOCSPX,)),
    (f"curl -X POST https://api.linear.app/graphql -H 'Authorization: {_LINEAR}'", (_LINEAR,)),
    (f"huggingface-cli login --token {_HF}", (_HF,)),
    ("curl -u api:key-239df158d812da3baded577e2b628459 https://api.mailgun.net/v3/acme.dev/messages",
     ("key-239df158d812da3baded577e2b628459",)),
    (f"npm publish failed with NPM_TOKEN={_NPM}", (_NPM,)),
]

# Text that must come out of `redact` byte for byte: ids, hashes, versions, placeholders.
HOLDOUT_LOOKALIKES: list[str] = [
    "git checkout 4c05962ab04f28d63832d75683f12168990fdcae && make",
    "Reverted in ed08f2f (was 451699f8edb7da572a0aa8d654e10cf0eab267a3).",
    "GET /api/v1/projects/e8cb68ef-befc-42af-b52f-28b0567b4ebb/builds/60e1fe71-777e-4a23-a86b-7f5947c87517 200",
    '"resolved": "https://registry.npmjs.org/ms/-/ms-2.1.3.tgz", "integrity": '
    '"sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA=="',
    'ms@^2.1.1:\n  version "2.1.3"\n  resolved "https://registry.yarnpkg.com/ms/-/ms-2.1.3.tgz'
    '#e4f5c4c8185462031efd7293a7215ccc5dfd8b03"',
    'files = [\n    {file = "idna-3.7-py3-none-any.whl", hash = '
    '"sha256:1add4132474bf278637fb4943fcf0d0bc90885b31b72c9aa87732c01cddd6b27"},\n]',
    "FROM python:3.12-slim@sha256:0378f7477375a2f92f9e3b46e8723c2f8ac5b95292b8156baff2da39db530ba0",
    "echo SGVsbG8sIHdvcmxkIQ== | base64 -d   # prints Hello, world!",
    "Bumped pydantic from 2.6.4 to 2.7.0-rc.1+build.20240412",
    "pip install 'requests==2.31.0' 'urllib3<2'",
    "API_KEY=<your-api-key>",
    "export GITHUB_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "password: ${DB_PASSWORD}",
    'token = os.environ["SLACK_BOT_TOKEN"]',
    "d9ae2124114b54fd006904b4d63af352  acme-1.4.2.tar.gz",
    "183db0f65933ebd587c0fb6ffd64b0d2ff737ed771bdccc54487de475402aee4 *acme-1.4.2-linux-amd64.zip",
    "https://github.com/acme/app/actions/runs/8123456789/job/22201234567#step:5:12",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
    "arn:aws:iam::123456789012:role/github-actions-deploy",
    "x-amz-request-id: 6f0ab02df922e695 x-amz-id-2: 7db4f9ea-65a1-43e3-bf81-b921b1b65c7f",
    "mysql -u root -p app   # it prompts for the password",
    "ssh -p 2222 deploy@10.0.0.12",
    "docker run -p 8080:80 -e LOG_LEVEL=debug nginx:1.25",
    "python -m pytest -p no:cacheprovider -k 'not slow'",
    "git log --pretty=format:'%h %an %s' -n 20",
    "tls:\n  - hosts: [app.acme.dev]\n    secretName: app-acme-dev-tls",
    "Invalid token: signature has expired",
    "We moved to passwordless login via WebAuthn last quarter.",
    "id = Column(Integer, primary_key=True)",
    "PROJ-12345: flaky test in test_checkout.py",
    "color: #3f7a9c; border: 1px solid #e4f5c4;",
    "background: url(data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==)",
    "github.com/stretchr/testify v1.9.0 h1:HtqpIVDClZ4nwg75+f6Lvsy/wHu+3BoSGCbBAcpTsTg=",
    "src = fetchurl { url = ...; hash = \"sha256-5e1397405f223b08fb513f80c12e5d6a44f5fb0a49=\"; }",
    "gpg: key 4AEE18F83AFDEB23: public key \"GitHub (web-flow commit signing)\" imported",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKcwggSjAgEAAoIBAQC7jRSe7JnvFUkiiaB7ZkhC deploy@ci",
    'name = "serde"\nversion = "1.0.197"\n'
    'checksum = "9acf46b8e1905452dd12915ecd1e63f2cb55d2341017b2e521d983493e072426"',
    "AWS documents the example key pair AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.",
    "Classic tokens look like ghp_ followed by 36 characters; fine-grained ones start with github_pat_.",
    "Authorization: Bearer <token>",
    'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user',
    "X-Request-Id: 0b8f846d-8f3f-4e1a-9efe-1da142d6371a",
    "kubectl logs web-7d4b9c6f5-x2k8p -c app --since=10m",
    "npm i -D @types/node@20.11.5 typescript@5.4.3",
    "Slack channel C024BE91L, user U04ABCD1234, Discord guild 175928847299117063",
    "password_reset_token_ttl = 3600",
    "model.generate(max_new_tokens=512, temperature=0.7)",
    'helm upgrade app ./chart --set image.tag=1.4.2 --set "ingress.hosts[0]=app.acme.dev"',
    "Cache-Control: public, max-age=31536000, immutable",
    '"integrity": "sha1-79ecf1ad4610aedb613ab13fb6e89fe3xyzw="',
    "SECRET_KEY_FILE=/run/secrets/django_key",
    '{"access_token": "<redacted>", "token_type": "bearer", "expires_in": 3599}',
    "mysql -u app -p -h db.internal",
    "psql -h db -U app -W   # -W forces the password prompt",
    "DATABASE_URL=postgres://app:${PGPASSWORD}@db:5432/app",
    "The webhook id is 533f9de8cecd37edeb279040d7b09492 in the dashboard URL.",
    "curl -u \"$USER:$TOKEN\" https://nexus.acme.dev/service/rest/v1/status",
    "twine upload -u __token__ -p \"$PYPI_TOKEN\" dist/*",
    "docker login -u acmeci --password-stdin < ~/.docker-token",
    "Twilio console: Account SID starts with AC, API keys with SK.",
    'auth: {"type": "oauth2", "flow": "pkce"}',
    "sha256:b719dd37fabe772c49fdcf1813e78fc6563606d9b6ea1a16dbcffbbe13bdf8d5 is the layer digest",
    "export PGPASSWORD=\"$(pass show db/prod)\"",
]


def _leaks(secret: str, text: str) -> bool:
    if len(secret) <= WINDOW:
        return secret in text
    return any(secret[i:i + WINDOW] in text for i in range(len(secret) - WINDOW + 1))


def measure() -> tuple[float, list[str], list[str]]:
    """Recall over HOLDOUT_SECRETS, and the missed secrets and damaged look-alikes."""
    missed = [f"missed: {text!r}\n   got: {redact(text).text!r}" for text, secrets in HOLDOUT_SECRETS
              if any(_leaks(secret, redact(text).text) for secret in secrets)]
    damaged = [f"damaged: {text!r}\n    got: {redact(text).text!r}" for text in HOLDOUT_LOOKALIKES
               if redact(text).text != text]
    return 1 - len(missed) / len(HOLDOUT_SECRETS), missed, damaged


def test_holdout_is_big_enough_and_consistent() -> None:
    assert len(HOLDOUT_SECRETS) >= 40 and len(HOLDOUT_LOOKALIKES) >= 40
    for text, secrets in HOLDOUT_SECRETS:
        assert secrets and all(secret in text for secret in secrets), text


def test_holdout_recall_and_damage(capsys: pytest.CaptureFixture[str]) -> None:
    recall, missed, damaged = measure()
    with capsys.disabled():  # the figures are the point: print them even without -s
        print(f"\nsecret hold-out: {len(HOLDOUT_SECRETS)} secrets, {len(HOLDOUT_LOOKALIKES)} look-alikes; "
              f"recall={recall:.3f} damaged={len(damaged)}")
        for line in missed + damaged:
            print(line)
    assert recall >= RECALL_TARGET
    assert damaged == []
