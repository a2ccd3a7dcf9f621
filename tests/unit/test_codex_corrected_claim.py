"""A Codex correction says what the person corrected: the agent's report of its work, not a command
that went through before it (new-user walkthrough M1). Texts written for the test."""

from __future__ import annotations

from pathlib import Path

from dreamtui.intake.codex.importer import read_rollout
from tests.unit.test_codex_import import Rollout


def _corrections(rollout: Rollout, tmp_path: Path) -> list[tuple[str, str | None, str | None]]:
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    return [(f.evidence, f.action, f.said) for f in frictions if f.kind == "correction"]


def test_a_correction_of_the_agents_report_names_no_earlier_command(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Make the cache tests pass")
               .shell("uv sync --frozen", "Resolved 12 packages", 0)
               .says("Done, I set the Redis port in settings.py to 6380.")
               .typed("no, the test Redis listens on 6379, put it back")
               .says("You're right, putting it back."))
    assert _corrections(rollout, tmp_path) == [
        ("no, the test Redis listens on 6379, put it back", None,
         "Done, I set the Redis port in settings.py to 6380.")]


def test_the_command_stays_when_the_person_names_it_or_it_failed_or_is_the_change(tmp_path: Path) -> None:
    named = (Rollout(session="019f-0001").typed("Make the cache tests pass")
             .shell("uv sync --frozen", "Resolved 12 packages", 0)
             .says("Done, the environment is set up.")
             .typed("no, don't run uv sync, we use pip-tools here"))
    assert [a for _, a, _ in _corrections(named, tmp_path / "a")] == ["uv sync --frozen"]
    failed = (Rollout(session="019f-0002").typed("Make the cache tests pass")
              .shell("pytest tests/cache", "1 failed", 1)
              .says("Done, the cache tests are updated.")
              .typed("no, the test Redis listens on 6379, put it back"))
    assert [a for _, a, _ in _corrections(failed, tmp_path / "b")] == ["pytest tests/cache"]
    patched = (Rollout(session="019f-0003").typed("Make the cache tests pass")
               .patch("settings.py", "Success. Updated the following files:\nM settings.py")
               .says("Done, I set the Redis port in settings.py to 6380.")
               .typed("no, the test Redis listens on 6379, put it back"))
    assert [a for _, a, _ in _corrections(patched, tmp_path / "c")] == ["apply_patch settings.py"]
