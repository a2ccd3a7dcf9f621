"""What typed at a stop is still a reason, and what opens the next piece of work is not:

- the way judged too slow ("this scan is too slow", "扫全盘太慢了") says not to work so; only
  asking after the agent's pace is hurrying;
- the adverbs 时不时 (now and then) and 动不动 (at every turn) are no A-not-A question;
- "Let me …" in one paragraph of the person's is their plan, not an agent's report pasted; a
  list typed with "● " is their list;
- "continue" with a "but", a way or a tool named ("继续，但是换成新的接口", "continue with bun")
  is a redirect; "continue with the remaining pages" lets the agent go on;
- the same opening typed after a refusal of another call, its sentence going on about that call,
  is a second lesson, not words added to the first;
- "now on to the next feature: …", "接下来…" after a refusal opens other work: no reason.

Every log and turn here is written for the test (the projects, paths and words are made up)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.intake.claude_code.rules import continues_otherwise, continues_with, no_reason
from dreamtui.workspace.layout import Workspace
from tests.unit.test_claude_code_mining import MARKER, _Log, _mined, projects, workspace

__all__ = ["projects", "workspace"]  # the fixtures, used by name

_OWN_PLAN = ("Let me look at the backups myself first. Some archives in there are the only copy of last "
             "year's invoices, and I have to move them to the shared drive before anything in that folder "
             "is touched, so wait until I say so.")


def _esc_then(log: _Log, command: str, turn: str) -> None:
    tool = log.calls("Bash", command=command)
    log.result(tool, MARKER, True, toolDenialKind="interrupted").marker()
    log.typed(turn)
    log.says("Understood.")


def _refused_then(log: _Log, command: str, turn: str) -> None:
    log.refused(log.calls("Bash", command=command)).marker()
    log.typed(turn)
    log.says("Understood.")


@pytest.mark.parametrize("text", [
    "scanning the whole disk is too slow",  # the way judged
    "扫全盘太慢了",
    "这个缓存目录时不时会被定时任务读取",  # 时不时: now and then, no question
    "你动不动就重装依赖",  # 动不动: at every turn
    _OWN_PLAN,  # the person's plan, in one paragraph
    "● 先导出配置\n● 再清空缓存目录",  # a list as people type it
])
def test_what_the_person_says_at_a_stop_is_a_reason(text: str) -> None:
    assert not no_reason(text)


@pytest.mark.parametrize("text", [
    "为什么这么久还没好", "怎么这么慢", "is it stuck?", "why is this so slow",  # asking after the pace
    "这个索引大不大",  # A-not-A: a question by its shape
    "Let me write up the findings now.\n\n## Findings\n1. The cron job reads the cache.\n"
    "2. The cleanup script deletes it every night at two.\n3. Nothing locks the folder in between, so both "
    "race and the cron job reads half-deleted files.",  # a report
    "● Bash(ls -la cache/)\n● 先导出配置",  # a screen's tool call: a transcript
])
def test_asking_or_pasting_at_a_stop_is_still_no_reason(text: str) -> None:
    assert no_reason(text)


@pytest.mark.parametrize("text", [
    "继续，但是换成新的接口", "继续，改用yarn", "继续，用测试环境的数据库", "continue with bun",
    "continue using poetry", "continue, but skip the slow tests", "continuar con pnpm",
    "continuar, mas sem os testes de carga", "tiếp tục, nhưng dùng pnpm",
])
def test_continue_another_way_is_a_redirect(text: str) -> None:
    assert continues_otherwise(text) and not continues_with(text)


@pytest.mark.parametrize("text", [
    "continue with the remaining two pages", "continue with step 3", "继续下一批：北区和南区的订单",
])
def test_continue_with_the_next_work_lets_the_agent_go_on(text: str) -> None:
    assert continues_with(text) and not continues_otherwise(text)


def test_a_reason_after_an_esc_is_kept_in_every_shape(workspace: Workspace, projects: Path) -> None:
    log = _Log("f1f1f1f1-0000-4000-8000-000000000001")
    log.typed("find the crash dumps")
    turns = ["scanning the whole disk is too slow", "继续，但是换成新的接口", "continue with bun",
             "为什么这么久还没好", "continue with the remaining two pages"]
    for n, turn in enumerate(turns):
        _esc_then(log, f"find / -name 'core.{n}*'", turn)
    assert [m.metadata["reason"] for m in _mined(workspace, projects, log)] == turns[:3]


def test_a_reason_after_a_refusal_is_kept_in_every_shape(workspace: Workspace, projects: Path) -> None:
    log = _Log("f1f1f1f1-0000-4000-8000-000000000002")
    log.typed("clear the cache")
    turns = ["这个缓存目录时不时会被定时任务读取", "你动不动就重装依赖", _OWN_PLAN, "● 先导出配置\n● 再清空缓存目录"]
    for n, turn in enumerate(turns):
        _refused_then(log, f"rm -rf cache/part{n}", turn)
    assert [m.metadata.get("reason") for m in _mined(workspace, projects, log)] == turns


@pytest.mark.parametrize("turn", [
    "Now on to the next feature: export the report to CSV", "next task: the billing page",
    "接下来我们做导出功能", "下一个任务：导出报表", "次のタスクはログイン画面です",
    "Siguiente tarea: la página de pagos",
    "Próxima tarefa: a página de login", "Nhiệm vụ tiếp theo: trang đăng nhập",
])
def test_the_next_piece_of_work_after_a_refusal_is_no_reason(turn: str, workspace: Workspace,
                                                             projects: Path) -> None:
    log = _Log("f1f1f1f1-0000-4000-8000-000000000003")
    log.typed("tidy the build")
    _refused_then(log, "rm -rf build/ dist/", turn)
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata.get("reason") is None  # the refusal stands alone
    assert memory.title == "Refused without a reason, ask first: run `rm -rf build/ dist/`"


@pytest.mark.parametrize("turn", ["接下来不要再改配置文件了", "the next task is wrong, the report comes first"])
def test_next_said_with_what_to_do_otherwise_is_a_reason(turn: str) -> None:
    assert not no_reason(turn)


def test_the_same_opening_about_another_call_is_its_own_lesson(workspace: Workspace, projects: Path) -> None:
    log = _Log("f1f1f1f1-0000-4000-8000-000000000004")
    log.typed("redeploy the preview")
    first = "never touch the staging cluster from a laptop"
    _refused_then(log, "kubectl delete namespace staging", first)
    second = f"{first}, and never run terraform destroy"
    _refused_then(log, "terraform destroy -auto-approve", second)
    memories = _mined(workspace, projects, log)
    assert [m.metadata["reason"] for m in memories] == [first, second]
    assert "terraform destroy" in memories[1].title and len(memories[0].metadata["record_uuids"]) == 1


@pytest.mark.parametrize(("added", "joined"), [
    (". Use the CI job for it", ".\nUse the CI job for it"),  # a sentence of its own: its own line
    (" unless the CI job is down", " unless the CI job is down"),  # the sentence going on
    (", use the CI job", ", use the CI job"),
])
def test_the_same_call_refused_again_with_words_added_is_one_lesson(added: str, joined: str, workspace: Workspace,
                                                                      projects: Path) -> None:
    log = _Log("f1f1f1f1-0000-4000-8000-000000000005")
    log.typed("redeploy the preview")
    first = "never touch the staging cluster from a laptop"
    _refused_then(log, "kubectl delete namespace staging", first)
    _refused_then(log, "kubectl delete namespace staging", first + added)
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["reason"] == first + joined
    assert len(memory.metadata["record_uuids"]) == 2


# The second reader's rows (review1 M1, M2, M10), kept as guards beside the fixtures above.
@pytest.mark.parametrize("text", [
    "that's too slow", "太慢了", "这个目录时不时会被别的脚本用到", "你动不动就删文件", "● 先备份数据库\n● 再删除旧数据",
    "Let me check the data folder myself first. There are files in it that I still need for the quarterly report "
    "and I do not want them gone before I copy them somewhere safe, so leave it alone for now please.",
])
def test_the_readers_reasons_are_reasons(text: str) -> None:
    assert not no_reason(text)


@pytest.mark.parametrize("text", ["继续，但是用新的数据", "继续，用新的数据", "继续，改用pnpm", "continue with pnpm"])
def test_the_readers_redirects_are_redirects(text: str) -> None:
    assert continues_otherwise(text) and not continues_with(text)


def test_the_readers_next_task_is_no_reason() -> None:
    assert no_reason("Now let's move on to the next task: add login with GitHub")
