"""`-u user:password` is a credential; `-u 'c:\\path'` (cygpath, and other tools' -u) is a Windows
drive's path, and redacting it lost the folder a lesson was about (`c:[REDACTED:password]`)."""

from __future__ import annotations

import pytest

from dreamtui.safety.secrets import redact


@pytest.mark.parametrize("text", [
    "Command failed: cygpath -u 'c:\\users\\administrator'",
    "cygpath -u 'C:\\Users\\ADMINI~1\\AppData\\Local\\Temp\\claude-1234'",
    "cygpath -u C:/Program Files/Git",
])
def test_a_drive_path_after_u_is_no_password(text: str) -> None:
    assert redact(text).kinds == ()


@pytest.mark.parametrize("text", ["curl -u deploy:s3cr3tPassw0rd https://x", "curl --user 'ci:hunter2pass' https://x"])
def test_a_user_and_password_after_u_are_still_redacted(text: str) -> None:
    result = redact(text)
    assert result.kinds == ("password",) and "s3cr3t" not in result.text and "hunter2" not in result.text
