"""Passwords an agent hands to a prompt on standard input (an expect script answering a password
prompt, `echo … | sudo -S`), and the look-alikes that must stay."""

from __future__ import annotations

import pytest

from dreamtui.safety.secrets import redact


@pytest.mark.parametrize(("text", "secret"), [
    # a here-document flattened into one line, as a memory's "The agent had called:" line shows it
    ("cat << 'EOF' | expect -f - spawn su - builder expect \"Password:\" send \"Qz9!plum\\r\" expect eof",
     "Qz9!plum"),
    ("spawn ssh ops@box\nexpect \"password:\"\nsend \"Tr0ub4dor&3\\r\"\ninteract", "Tr0ub4dor&3"),
    ("expect \"*密码*\" { send \"abc123XYZ\\n\" }", "abc123XYZ"),
    ("expect -exact \"Enter passphrase for key:\" ; send -- \"four plain words\\r\"", "four plain words"),
    ("echo 'Hunter2!' | sudo -S apt-get install -y jq", "Hunter2!"),
    ("echo mypass | sudo -kS systemctl restart nginx", "mypass"),
    ("echo \"newpass99\" | passwd --stdin alice", "newpass99"),
    # the usual glob and regex prompts, and Tcl's block form
    ("expect \"*assword:\"\nsend \"Plum9tree\\r\"", "Plum9tree"),
    ("expect -re \"(P|p)assword:\" { send \"Plum9tree\\r\" }", "Plum9tree"),
    ("expect {\n  \"password:\" { send \"Plum9tree\\r\"; exp_continue }\n}", "Plum9tree"),
    ("expect { \"password:\" { send \"Plum9tree\\r\" } }", "Plum9tree"),
    ("printf '%s\\n' 'Plum9tree' | sudo -S ls", "Plum9tree"),  # the format string is not the value
    ("echo Plum9tree | sudo --stdin ls", "Plum9tree"),
    ("echo Plum9tree | sudo -u deploy -S ls", "Plum9tree"),
])
def test_a_password_sent_to_a_prompt_is_redacted(text: str, secret: str) -> None:
    result = redact(text)
    assert secret not in result.text
    assert "[REDACTED:password]" in result.text
    assert redact(result.text).text == result.text  # idempotent


@pytest.mark.parametrize("text", [
    "expect \"Password:\"\nsend \"$env(PASS)\\r\"",  # read from the environment
    "printf '%s\\n' \"$PW\" | sudo -S true",
    "echo hello | sudo tee /etc/motd",  # sudo prompts on the terminal: stdin is the file's text
    "expect \"login:\"\nsend \"admin\\r\"",  # a user name, not a password prompt
    "echo ok | grep -S x",
    'expect(result).toBe("password")',
    "expect the password prompt, then send the code you were given",
    # prose with a link (the scan runs) and an unquoted word after "send"
    "We expect users to reset their password at https://example.com/reset and then send them a mail.",
])
def test_look_alikes_stay(text: str) -> None:
    assert redact(text).text == text
