"""`dreamtui flags …`: the Flags view's triage from the shell, on the seeded sample workspace."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import git
import pytest
from click.testing import CliRunner, Result

from dreamtui.cli.main import main
from dreamtui.scaffold import git_init, seed_stm
from dreamtui.store.ltm import LTMStore
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace, open_workspace

SAMPLE = Path(__file__).parents[2] / "sample_workspace"


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "acme-shop"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("__init__.py", "__pycache__", "*.db*"))
    opened = open_workspace(root)
    seed_stm(opened, root / "stm_seed.jsonl")
    git_init(opened)
    return opened


def run(workspace: Workspace, *args: str) -> Result:
    return CliRunner().invoke(main, ["-w", str(workspace.root), "flags", *args])


def listed(workspace: Workspace) -> dict[str, list[dict[str, object]]]:
    result = run(workspace, "list", "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, list[dict[str, object]]] = json.loads(result.output)
    return data


def flag_ids(workspace: Workspace, slug: str) -> list[str]:
    for group in listed(workspace)["entries"]:
        if group["entry"]["slug"] == slug:  # type: ignore[index]
            return [str(f["id"]) for f in group["flags"]]  # type: ignore[attr-defined]
    return []


def last_log(workspace: Workspace) -> str:
    return LTMStore(workspace.memory_root).log_lines(limit=1)[0]


def test_list_shows_each_flagged_entry_with_its_flags(workspace: Workspace) -> None:
    data = listed(workspace)
    groups = {g["entry"]["slug"]: g for g in data["entries"]}  # type: ignore[index]
    assert list(groups)[0] == "ci-ports" and len(groups["ci-ports"]["flags"]) == 2  # type: ignore[arg-type]
    first = groups["ci-ports"]["flags"][0]  # type: ignore[index]
    assert {"id", "agent", "submitted_at", "observation", "quote", "targets"} <= set(first)
    assert data["unmatched"]  # the sample holds a flag naming no live entry
    text = run(workspace, "list")
    assert text.exit_code == 0
    assert text.output.startswith("topics/ci-ports.md · ")
    assert f"  {first['id'][:8]}  {first['agent']} · " in text.output  # type: ignore[index]
    assert "1 pending flag names no live entry; the next dream discards it" in text.output


def test_archive_by_id_prefix_then_undo_from_another_process(workspace: Workspace) -> None:
    root = workspace.memory_root
    before = (root / "topics/ci-ports.md").read_bytes()
    ids = flag_ids(workspace, "ci-ports")
    result = run(workspace, "archive", ids[0][:8])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f'archived ci-ports (flag {ids[0][:8]}…: "')
    assert '"; 1 more flag on it): 1 archived' in result.output and result.output.count("\n") == 1
    assert not (root / "topics/ci-ports.md").exists()
    assert "archive topics/ci-ports.md (flag triage: the flag is right — " in last_log(workspace)
    assert last_log(workspace).endswith("[human]")
    with STMStore.for_workspace(workspace) as stm:
        assert {m.state for m in stm.get_many(ids)} == {"consumed"}
    assert flag_ids(workspace, "ci-ports") == []

    result = run(workspace, "undo")
    assert result.exit_code == 0, result.output
    assert result.output == ("undone: archive of topics/ci-ports.md; it is as it was, its 2 flags "
                             "pending again\n")
    assert (root / "topics/ci-ports.md").read_bytes() == before
    assert flag_ids(workspace, "ci-ports") == ids


def test_pin_weaken_and_skip_then_undo_newest_first(workspace: Workspace) -> None:
    root = workspace.memory_root
    ci_ports = (root / "topics/ci-ports.md").read_bytes()
    node_path = "topics/frontend-node-version.md"
    node = (root / node_path).read_bytes()
    head = git.Repo(workspace.root).head.commit.hexsha
    skipped = run(workspace, "skip", flag_ids(workspace, "ci-ports")[1])
    assert skipped.exit_code == 0, skipped.output
    assert skipped.output.startswith("skipped ci-ports (flag ")
    assert skipped.output.endswith("2 flags left pending for the next dream\n")
    assert git.Repo(workspace.root).head.commit.hexsha == head  # a skip writes nothing

    assert run(workspace, "pin", flag_ids(workspace, "ci-ports")[0]).output.startswith("pinned ci-ports")
    assert b"importance: pinned" in (root / "topics/ci-ports.md").read_bytes()
    weakened = run(workspace, "weaken", flag_ids(workspace, "frontend-node-version")[0])
    assert weakened.exit_code == 0 and weakened.output.startswith("weakened frontend-node-version")
    assert b"> Caveat (flagged" in (root / node_path).read_bytes()
    assert "flag triage: weakened — " in last_log(workspace)

    assert run(workspace, "undo").output.startswith(f"undone: weaken of {node_path}")
    assert (root / node_path).read_bytes() == node
    assert run(workspace, "undo").output.startswith("undone: pin of topics/ci-ports.md")
    assert (root / "topics/ci-ports.md").read_bytes() == ci_ports
    log = LTMStore(root).log_lines(limit=4)
    assert [" ".join(line.split()[2:4]) for line in log[:2]] == ["undo pin", "undo weaken"]
    assert [line.split()[2] for line in log[2:]] == ["weaken", "pin"]


def test_wrong_references_are_usage_errors_and_change_nothing(workspace: Workspace) -> None:
    head = git.Repo(workspace.root).head.commit.hexsha
    unmatched = str(listed(workspace)["unmatched"][0]["id"])
    for args, words in [(("archive", "zzzz"), "zzzz: no pending flag has this id or id prefix"),
                        (("pin", unmatched), "names no live entry"),
                        (("undo",), "nothing to undo")]:
        result = run(workspace, *args)
        assert result.exit_code == 2 and words in result.output, result.output
        assert "Traceback" not in result.output
    assert git.Repo(workspace.root).head.commit.hexsha == head


def test_undo_is_refused_when_the_entry_was_edited_since(workspace: Workspace) -> None:
    (first,) = flag_ids(workspace, "frontend-node-version")
    path = workspace.memory_root / "topics/frontend-node-version.md"
    assert run(workspace, "weaken", first).exit_code == 0
    path.write_text(path.read_text() + "\nEdited by hand after the triage.\n")
    result = run(workspace, "undo")
    assert result.exit_code == 2 and "has changed since; not overwritten" in result.output
    assert path.read_text().endswith("Edited by hand after the triage.\n")


def test_help_says_what_flag_means(workspace: Workspace) -> None:
    result = run(workspace, "archive", "--help")
    assert result.exit_code == 0
    assert "unique prefix" in result.output and "--entry SLUG|PATH" in result.output
