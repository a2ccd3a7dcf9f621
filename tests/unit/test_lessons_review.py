"""Tool errors after the second read of the day's changes: what counts as a fact of the machine,
which program a command line names, and the first line of a stop.

The outputs are written in the shapes shells and Python print them, not copied from anyone's logs.
"""

from __future__ import annotations

import pytest

from dreamtui.intake.lessons import (
    Friction,
    Source,
    ToolCall,
    build_memories,
    command_head,
    environment_fact,
    environment_subject,
    lesson_title,
)
from dreamtui.workspace.config import Config


@pytest.mark.parametrize("text", [
    # the second line would start its match on the first line's newline and be passed over
    "ls: command not found\ncat: command not found",
    "Exit code 127\nEOF: command not found\nEOF: command not found",
    "Exit code 127\nPATH_X: command not found\nmkdir: command not found",
])
def test_every_line_of_a_delimiter_or_utility_run_as_a_command_is_left_out(text: str) -> None:
    assert not environment_fact(text)
    assert environment_subject(text) is None


@pytest.mark.parametrize("text", [
    "bash: line 1: ls: 未找到命令",
    "bash: line 1: EOF: 未找到命令",
    "bash: Zeile 1: END_SQL: Befehl nicht gefunden",
    "bash: ligne 1: cat : commande introuvable",
    "bash: строка 1: EOF: команда не найдена",
])
def test_a_delimiter_or_utility_not_found_in_another_language_is_no_missing_program(text: str) -> None:
    assert not environment_fact(text)
    assert environment_subject(text) is None


def test_a_program_not_found_in_another_language_is_still_one() -> None:
    assert environment_subject("bash: line 1: rg: 未找到命令") == ("command:rg", "`rg` is not installed here")
    assert environment_subject("ls: command not found\nbash: line 2: jq: command not found") == (
        "command:jq", "`jq` is not installed here")


@pytest.mark.parametrize("module", [
    "google.protobuf", "ruamel.yaml", "azure.storage.blob", "backports.zoneinfo", "opentelemetry.sdk.trace"])
def test_a_distribution_missing_from_a_shared_namespace_is_a_fact_of_the_machine(module: str) -> None:
    text = (f'Traceback (most recent call last):\n  File "/srv/api/main.py", line 3, in <module>\n'
            f"    import {module}\nModuleNotFoundError: No module named '{module}'")
    assert environment_fact(text)
    assert environment_subject(text) == (f"module:{module}", f"The module `{module}` is not installed here")


@pytest.mark.parametrize("module", ["api.routes.health", "googleish.client", "azurefs.blob"])
def test_a_submodule_of_the_projects_own_package_is_still_its_layout(module: str) -> None:
    assert environment_subject(f"ModuleNotFoundError: No module named '{module}'") is None


@pytest.mark.parametrize(("command", "head"), [
    ('"/srv/build tools/check.sh" --all 2>&1', "/srv/build tools/check.sh"),
    ("'D:\\Apps\\Java Runtime\\bin\\java.exe' -version", "D:\\Apps\\Java Runtime\\bin\\java.exe"),
    ('"$HOME/.local/bin/deploy" staging', "$HOME/.local/bin/deploy staging"),
    # a quote left open (PowerShell's here-string) still gives its first part only
    ("@'\nprint('hi')\n'@ | python -", "@'"),
])
def test_a_quoted_program_path_is_named_whole_without_its_quotes(command: str, head: str) -> None:
    assert command_head(command) == head


def _failure(command: str, evidence: str, reason: str | None = None) -> Friction:
    return Friction(kind="tool_error", scope="s1", session_id="s1", record_uuids=["u1"], timestamp=None,
                    calls=[ToolCall("Bash", command, None)], said=None, evidence=evidence, reason=reason)


def test_the_fact_after_the_persons_words_goes_on_their_sentence_in_lower_case() -> None:
    script = "cat > /tmp/probe.py << 'EOF'\nimport sys\nEOF"
    failed = "Exit code 1\nTraceback (most recent call last):\nValueError: bad header"
    fact = "script written to `/tmp/probe.py` fails here: Traceback (most recent call last): ValueError: bad header"
    assert lesson_title(_failure(script, failed), 200) == f"The {fact}"
    assert lesson_title(_failure(script, failed, reason="don't bother running it"), 200) == (
        f"Don't bother running it (the {fact})")
    missing = "ModuleNotFoundError: No module named 'httpx'"
    assert lesson_title(_failure("python3 fetch.py", missing, reason="don't install anything"), 200) == (
        "Don't install anything (the module `httpx` is not installed for `python3`)")


_SOURCE = Source(name="test-agent", agent_id="test-agent", subagent_id="test-agent", key_prefix="t", label="Test")


@pytest.mark.parametrize(("calls", "opening"), [
    ([], "The person stopped the agent while it was answering and said “Stop, keep the adapter layer”."),
    ([ToolCall("Bash", "rm -rf clients/", None)],
     "The person stopped the agent as it was about to run `rm -rf clients/` and said “Stop, keep the adapter layer”."),
])
def test_a_stop_with_no_call_says_the_agent_was_answering(calls: list[ToolCall], opening: str) -> None:
    stop = Friction(kind="interruption", scope="s1", session_id="s1", record_uuids=["u1"], timestamp=None,
                    calls=calls, said=None, evidence="", reason="Stop, keep the adapter layer")
    [memory] = build_memories([stop], Config(), _SOURCE)
    assert memory.content.startswith(opening)


@pytest.mark.parametrize(("command", "head"), [
    ("cat > /tmp/probe.py << 'EOF'\n# read stdin to EOF\nimport sys\nprint(sys.stdin.read())\nEOF\n"
     "python3 /tmp/probe.py < rows.json", "`python3 /tmp/probe.py`"),
    ("cat << END > /tmp/q.sql\nselect 1; -- the END\nEND\npsql -f /tmp/q.sql", "`psql`"),
    ("cat > /tmp/probe.py << 'EOF'\n# up to EOF\nimport sys", "the script written to `/tmp/probe.py`"),
])
def test_a_here_document_ends_only_at_its_delimiter_alone_on_a_line(command: str, head: str) -> None:
    failed = "Exit code 1\nTraceback (most recent call last):\nValueError: bad row"
    assert lesson_title(_failure(command, failed), 200).startswith(f"{head[:1].upper()}{head[1:]} fails here")
