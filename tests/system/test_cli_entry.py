"""`dreamtui entry …`: a person's pin / unpin / archive / restore from the shell, by slug or path."""

from __future__ import annotations

import git
import pytest
from click.testing import CliRunner, Result

from dreamtui.cli.main import main
from dreamtui.store.ltm import LTMStore
from dreamtui.workspace.layout import Workspace


def run(sample: Workspace, *args: str) -> Result:
    return CliRunner().invoke(main, ["-w", str(sample.root), "entry", *args])


def last_log(sample: Workspace) -> str:
    return LTMStore(sample.memory_root).log_lines(limit=1)[0]


def test_pin_unpin_archive_and_restore_by_slug(sample: Workspace) -> None:
    root = sample.memory_root
    before = (root / "topics/vite-proxy.md").read_text()
    result = run(sample, "pin", "vite-proxy", "--reason", "the proxy setup is settled")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("pin topics/vite-proxy.md: 1 pinned")
    assert "importance: pinned" in (root / "topics/vite-proxy.md").read_text()
    assert last_log(sample).endswith("pin topics/vite-proxy.md (the proxy setup is settled) [human]")
    assert run(sample, "unpin", "topics/vite-proxy.md").exit_code == 0
    assert (root / "topics/vite-proxy.md").read_text() == before
    assert run(sample, "archive", "vite-proxy").exit_code == 0
    assert not (root / "topics/vite-proxy.md").exists()
    assert "[mem: vite-proxy]" not in sample.agents_md.read_text()
    result = run(sample, "restore", "vite-proxy")
    assert result.exit_code == 0, result.output
    assert (root / "topics/vite-proxy.md").read_text() == before  # the retirement keys are gone
    assert "[mem: vite-proxy]" in sample.agents_md.read_text()
    assert last_log(sample).endswith("(restore from the command line) [human]")
    messages = [c.message for c in git.Repo(sample.root).iter_commits(max_count=4)]
    assert [m.split()[1] for m in messages] == ["restore", "archive", "unpin", "pin"]


@pytest.mark.parametrize(("args", "words"), [
    (("pin", "no-such-entry"), "no-such-entry: no live entry has this slug or path"),
    (("restore", "vite-proxy"), "vite-proxy: no archived entry has this slug or path"),
    (("archive", "use-yarn"), "use-yarn: no live entry has this slug"),
])
def test_a_wrong_reference_is_a_usage_error_and_changes_nothing(sample: Workspace,
                                                                args: tuple[str, ...], words: str) -> None:
    head = git.Repo(sample.root).head.commit.hexsha
    result = run(sample, *args)
    assert result.exit_code == 2 and words in result.output
    assert "Traceback" not in result.output
    assert git.Repo(sample.root).head.commit.hexsha == head


def test_restore_refuses_when_the_live_path_is_taken_again(sample: Workspace) -> None:
    live = sample.memory_root / "topics/use-yarn.md"
    live.write_text("---\ntitle: Yarn again\nslug: yarn-again\n---\nUse yarn.\n")
    result = run(sample, "restore", "archive/topics/use-yarn.md")
    assert result.exit_code == 2 and "exists again" in result.output
    assert (sample.memory_root / "archive/topics/use-yarn.md").exists()
