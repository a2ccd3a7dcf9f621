"""Classes of mining mistakes seen in held-out public logs, each with the shapes that must stay as
they were: a guard's message is a hook block, a slip at the prompt or a request sent again after
an Esc is no lesson, a failure report right after the agent said it was done is a correction in
any language, a copy of a session with fresh ids stores nothing twice, a subagent's "don't ask"
denials are one fact about the tool.

Every log and turn here is written for the test, reproducing the shapes of real ones (the
projects, files and words are made up)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.intake.claude_code.rules import Signals, classify_tool_error
from dreamtui.intake.codex.importer import read_rollout
from dreamtui.intake.corrections import (
    accidental,
    answer_rule,
    correction_rule,
    lesson,
    redirects,
    reports_after_done,
    sent_again,
    sent_changed,
)
from dreamtui.intake.lessons import (
    Friction,
    ToolCall,
    command_head,
    environment_subject,
    lesson_title,
    strip_ansi,
)
from dreamtui.workspace.layout import Workspace
from tests.unit.test_claude_code_mining import SLUG, _import, _kinds, _Log, _mined, projects, workspace
from tests.unit.test_codex_import import Rollout

__all__ = ["projects", "workspace"]  # the fixtures, used by name

GUARD = "BLOCKED: Test files are protected while implementing. Change the source instead."


# -- a guard's message -------------------------------------------------------------------------


def test_a_guards_verdict_on_a_file_edit_is_a_hook_block_not_the_persons_words(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("c1c1c1c1-0000-4000-8000-000000000001")
    log.typed("Make the failing totals test pass")
    write = log.calls("Write", file_path="/home/u/shop/tests/test_totals.py", content="x")
    log.result(write, GUARD, True)  # untagged, toolUseResult "Error: BLOCKED: …", no progress record
    log.says("The write guard blocks test files. I will change the source instead.")
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["kind"] == "hook_block"
    assert "BLOCKED: Test files are protected" in memory.title
    assert "rejected" not in memory.content and "the person" not in memory.content


def test_one_hooks_message_is_one_lesson_whatever_file_or_subagent_it_stopped(
        workspace: Workspace, projects: Path) -> None:
    session = "c1c1c1c2-0000-4000-8000-000000000001"
    for n, name in enumerate(("test_totals.py", "test_tax.py")):
        log = _Log(session, sidechain=True, start=100 * n)
        log.typed("Write the failing tests first")
        log.result(log.calls("Write", file_path=f"/home/u/shop/tests/{name}", content="x"), GUARD, True)
        log.write(projects / SLUG / session / "subagents" / f"agent-a{n}.jsonl")
    [memory] = _import(workspace, projects, dry_run=True).memories
    assert memory.metadata["kind"] == "hook_block" and memory.metadata["occurrences"] == 2


@pytest.mark.parametrize("text", [GUARD, "[DENIED] rm -rf is not allowed in this repo", "⛔ writes outside src/"])
def test_guard_verdicts_are_hook_blocks(text: str) -> None:
    assert classify_tool_error(text, Signals(tool="Write"))[0] == "hook_block"
    assert classify_tool_error(text, Signals(tool="Bash"))[0] == "hook_block"


def test_words_typed_at_an_old_prompt_stay_a_rejection_and_a_tagged_error_stays_the_tools() -> None:
    # Claude Code 2.0.x wrote the reason typed at the prompt as an untagged edit error
    assert classify_tool_error("Blocked ports are fine, keep 8080", Signals(tool="Edit")) == \
        ("rejection", "Blocked ports are fine, keep 8080")
    assert classify_tool_error("BLOCKED: x", Signals(tool="Bash", tagged=True))[0] == "tool_error"


# -- slips at the prompt, and requests sent again ------------------------------------------------


@pytest.mark.parametrize("reason", [
    "I didn't mean to interrupt you, continue",
    "oops, go on",
    "sorry, pressed escape by accident",
    "je voulais dire oui",
    "je ne voulais pas t'interrompre, continue",
    "不小心按错了，继续",
    "sorry, continue",
])
def test_a_stop_the_person_calls_their_own_slip_is_no_lesson(
        workspace: Workspace, projects: Path, reason: str) -> None:
    log = _Log("c2c2c2c2-0000-4000-8000-000000000001")
    log.typed("Clean up the build folder")
    log.refused(log.calls("Bash", command="rm -rf build/")).marker()
    log.typed(reason)
    log.says("Continuing.")
    assert accidental(reason)
    assert _mined(workspace, projects, log) == []


@pytest.mark.parametrize("reason", [
    "no, keep build/ — the deploy script reads it",
    "you deleted my notes by mistake last time, leave build/ alone",
    "continue, but never rm -rf without asking",
])
def test_a_real_reason_is_still_a_rejection(workspace: Workspace, projects: Path, reason: str) -> None:
    log = _Log("c3c3c3c3-0000-4000-8000-000000000001")
    log.typed("Clean up the build folder")
    log.refused(log.calls("Bash", command="rm -rf build/")).marker()
    log.typed(reason)
    assert not accidental(reason)
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["kind"] == "rejection" and memory.metadata["reason"] == reason


@pytest.mark.parametrize("worded", [True, False])
@pytest.mark.parametrize("ran_later", [True, False])
def test_a_refusal_without_a_word_of_a_call_that_then_ran_as_it_was_is_no_lesson(
        workspace: Workspace, projects: Path, ran_later: bool, worded: bool) -> None:
    log = _Log("cdcdcdcd-0000-4000-8000-000000000001")
    log.typed("Deploy the preview")
    log.refused(log.calls("Bash", command="npm run deploy -- --preview")).marker()
    if worded:
        log.typed("continue")  # a word that says nothing of why
    else:
        log.says("Understood, I will wait.")  # the agent acts again: settled, no word
        log.typed("ok go")
    if ran_later:  # the person let the same call through later: it was "not now"
        log.result(log.calls("Bash", command="npm run deploy -- --preview"), "deployed")
    else:
        log.result(log.calls("Bash", command="npm run build"), "built")
    assert _kinds(_mined(workspace, projects, log)) == ([] if ran_later else ["rejection"])


def _stopped_then(then: str, before: str = "Add a CSV export to the orders page with the date range filter") -> _Log:
    log = _Log("c4c4c4c4-0000-4000-8000-000000000001")
    log.typed(before)
    read = log.calls("Read", file_path="/home/u/shop/orders.py")
    log.result(read, "1\tdef orders(): ...")
    log.calls("Bash", command="grep -rn export src/")
    log.marker("[Request interrupted by user]")
    log.typed(then)
    log.says("Working on it.")
    return log


@pytest.mark.parametrize("then", [
    "Add a CSV export to the orders page with the date range filter",  # sent again as it was
    "Add a CSV export to the order page with the date-range filter",  # a typo fixed
    "attends, passe sur opus 4.6",  # the model switched
    "wait, switch to sonnet",
])
def test_an_esc_followed_by_the_same_request_or_a_model_switch_is_no_lesson(
        workspace: Workspace, projects: Path, then: str) -> None:
    assert _mined(workspace, projects, _stopped_then(then)) == []


@pytest.mark.parametrize("then", [
    # a constraint added
    "Add a CSV export to the orders page with the date range filter, only for admins, streamed",
    # another file
    "Add a CSV export to the invoices page with the date range filter",
    # a changed detail, in Chinese: the same request naming another project's doc
    "先根据最新要求更新/home/u/vibelife/docs/config.md",
])
def test_an_esc_followed_by_the_request_sent_again_with_a_change_is_kept(
        workspace: Workspace, projects: Path, then: str) -> None:
    before = ("先根据最新要求更新/home/u/mentis/docs/config.md" if then.startswith("先")
              else "Add a CSV export to the orders page with the date range filter")
    mined = _mined(workspace, projects, _stopped_then(then, before))
    assert _kinds(mined) == ["interruption"]
    assert then[-12:] in mined[0].content


def test_a_request_sent_again_is_it_only_without_content_of_its_own() -> None:
    before = "Add a CSV export to the orders page with the date range filter"
    assert sent_again("Add a CSV export to the orders page with the date range filter please", before)
    assert sent_again("add a csv export to teh orders page with the date range filter", before)
    assert not sent_again(before + ", only for admins", before)
    assert sent_changed(before + ", only for admins", before)
    assert not sent_again("Add a CSV export to the orders page with the date range filter for 2024", before)
    assert not sent_again("refactor src/export/csv_v1.py to use the writer",
                          "refactor src/export/csv_v2.py to use the writer")
    # another file made of the earlier turn's parts is named anew
    assert sent_changed("update shop/docs/config.md first",
                        "update web/docs/archive/config.md and shop/docs/plan.md first")
    assert not sent_changed("Deploy the staging stack tonight", before)  # another request: judged on its words


def test_a_request_after_an_esc_in_french_redirects_nothing() -> None:
    assert not redirects("Peux-tu activer la fonctionnalité Agent Teams ? Voici la doc.")
    assert redirects("non, n'utilise pas l'ancienne API, elle est supprimée")


def test_a_slash_commands_template_around_the_same_request_is_it_sent_again() -> None:
    before = 'specify "a FastAPI backend and a React front end for the voice assistant"'
    template = ("\n## User Input\n\n```text\na FastAPI backend and a React front end for the voice "
                "assistant\n```\n\nYou **MUST** consider the user input before proceeding.\n\n## Outline\n"
                "Given that feature description, do this: generate a short name for the branch.")
    assert sent_again(template, before)
    assert not sent_again("fix the parser, but do not touch the public API", "fix the parser")
    assert not sent_again("Do not grep the whole tree, look in src/export", "Add a CSV export to the orders page")
    assert not sent_again("we have the DEBUGGER agent", "we should have 6 parallel debugger agents, one per module")
    assert sent_again("do we wanna hardcode GBP", "do we wanna hardcode GDP")  # the person's typo fixed
    pasted = "● DOCGEN(Generate the docs)\n⎿ Error: Agent type 'DOCGEN' not found. Available agents: general"
    assert not sent_again("not that " + pasted, "the agent registration looks broken " + pasted)


def test_an_esc_followed_by_a_redirect_is_still_one(workspace: Workspace, projects: Path) -> None:
    then = "Do not grep the whole tree, the exporters are all in src/export/"
    [memory] = _mined(workspace, projects, _stopped_then(then))
    assert memory.metadata["kind"] == "interruption" and memory.metadata["reason"] == then
    assert redirects("change the user model to store the email")  # "model" of the code, no switch


# -- failure reports after the agent said it was done -------------------------------------------


def _done_then(then: str, done: str = "✅ Done. The settings page now loads the profile and saves it.") -> _Log:
    log = _Log("c5c5c5c5-0000-4000-8000-000000000001")
    log.typed("Add a settings page")
    edit = log.calls("Edit", file_path="/home/u/shop/settings.tsx", old_string="a", new_string="b")
    log.result(edit, "The file has been updated successfully.")
    log.says(done)
    log.typed(then)
    log.says("Let me look at the profile hook.")
    return log


@pytest.mark.parametrize("then", [
    "Problème dans le nœud 'Checkout' : la méthode save n'est pas définie.",
    "Le problème persiste, la page reste blanche.",
    "la page settings charge mais infiniment",
    "Error in the profile form: the save button does nothing",
    "I click save and I got an error from the API",
    "테스트를 해보니 저장이 가끔 두 번씩 됩니다. 확인해 봐.",
    "# TICKET — Settings page\n## Problem: the profile is saved twice on every click",
])
def test_a_problem_reported_right_after_done_is_a_correction(
        workspace: Workspace, projects: Path, then: str) -> None:
    [memory] = _mined(workspace, projects, _done_then(then))
    assert memory.metadata["kind"] == "correction"
    assert " ".join(then.split())[:30] in memory.content
    assert "settings.tsx" in memory.content  # what the agent had just done


@pytest.mark.parametrize("then", [
    "Add error handling for the case where the profile API fails",  # a new task naming a failure
    "Why is that an issue?",  # a question
    "Great, it works. Now the billing page.",  # pleased
    "If there is an error, show a toast",  # a condition
    "Back to the open issues in the tracker",
])
def test_a_new_task_a_question_or_praise_after_done_is_not(
        workspace: Workspace, projects: Path, then: str) -> None:
    assert _mined(workspace, projects, _done_then(then)) == []


def test_a_problem_talked_about_is_no_problem_met() -> None:
    done = "Analyse rapide : je corrige le point « reporting lourd », puis je valide les éléments."
    assert not reports_after_done("Je n'ai pas d'avis sur la priorité des problèmes.", done)
    assert reports_after_done("Il y a encore un problème sur la page d'accueil.", done)


def test_a_no_choosing_among_the_agents_options_answers_it() -> None:
    said = ('All 6 are 616x616. Quick clarification on "462x462 + 10%" — do you mean:\n\n'
            "**(a)** Scale it to 462x462 on a 508x508 canvas\n**(b)** Keep 462x462 with the image inside")
    assert answer_rule("no padding. the size on the page is 462x462, increase it by 10%", said) is None
    assert answer_rule("no padding. the size on the page is 462x462", "I resized all 6 images.") == "no"
    asking = "J'ai utilisé le terme parce qu'il était dans le plan. Voulez-vous que je le change ?"
    assert answer_rule("Non, il y a une erreur, la référence était ce site-là", asking) == "fails"
    assert answer_rule("nope it never worked", "Has this ever worked for the team?") is None


def test_a_failure_reports_title_keeps_one_stop_and_a_question_gets_no_check_tail() -> None:
    assert lesson("still getting repository not found errors.", "run `git push`", None) == \
        "Still getting repository not found errors: check that it works before saying it is done"
    assert lesson("So I can't have a .claude/ folder for this project? It has to be global?", None, "Hi!") is None


def test_a_word_alone_on_its_line_heads_what_the_next_line_says() -> None:
    stop = "Stop.\nThe ticket is not done: the editable install fails.\nFix only the packaging."
    assert lesson(stop, None, "I stop here.").startswith("The ticket is not done: the editable install fails")
    report = Friction(kind="correction", scope="s", session_id="s", record_uuids=[], timestamp=None, calls=[],
                      said="Voici le récapitulatif des corrections.", reason=None, cwd=None, sidechain=False,
                      log="l", evidence="Diagnostic\n\nL'étape est réussie, mais incohérente par endroits. Autre")
    assert lesson_title(report, 120) == ("Diagnostic: L'étape est réussie, mais incohérente par endroits: check "
                                         "that it works before saying it is done")  # after "done": it was not
    report.evidence = "# TICKET FIX-02 — Keep the context\n## Problem: the context is lost"
    assert lesson_title(report, 120) == "TICKET FIX-02 — Keep the context: check that it works before saying it is done"


def test_a_problem_word_with_no_claim_of_done_before_is_not_read_as_a_report() -> None:
    assert not reports_after_done("the profile save fails on Safari", "I read settings.tsx; which browser?")
    assert not reports_after_done("Gemini's replace failed.", "Hello! Ready when you are.")
    assert reports_after_done("the profile save fails on Safari", "Fixed: the save now works.")


# -- other languages and shapes without a cue word ----------------------------------------------


@pytest.mark.parametrize(("text", "rule"), [
    ("Il y a une erreur. Cela n'est pas du tout adapté à la charte.", "fails"),
    ("Est-ce que tu peux revoir la page ? Elle n'est pas du tout alignée avec la charte.", "fails"),
    ("refais totalement cette page comme dans la charte", "imperative"),
    ("Mais où est-ce que tu as trouvé qu'il fallait un halo orange ?", "question"),
    ("est ce que tu attends vraiment des questions de ma part à cette étape ?", "question"),
    ("Il s'agit plutôt d'un problème de charge", "instead"),
    ("il faudrait lier les preuves à une exécution et non à un cas de test", "instead"),
    ("je ne suis pas sûr de la formulation, lourd oui mais pas incohérent", "doubt"),
    ("I don't understand why there are rounding errors, these are pasted values", "doubt"),
    ("Dans les problèmes je ne suis pas sûr de la formulation « lourd et incohérent »", "doubt"),
    ("je ne comprends pas cette story. Elle me parait confuse", "doubt"),
    ("Dans la méthode, est-ce que c'est ton rôle de définir les user stories ?", None),  # not said first
    ("Est-ce que c'est ton rôle de définir les user stories ?", "question"),
    ("I tested it and the draw still happens twice sometimes", "fails"),
    ("quand je clique sur un lien prototype.html je vois un json", "fails"),
    ("when I click save I get a blank page", "fails"),
    ("cuando abro la página me sale un error 500", "fails"),
    ("아니요, 그 파일은 수정하지 마세요", "script"),
    ("버튼을 눌러도 안 돼요", "script"),
    ("違います、設定ファイルはそこではありません", "script"),
    ("нет, не трогай конфиг", "script"),
    ("после твоих правок сборка всё ещё не работает", "script"),
    ("почему ты удалил тесты?", "question"),
])
def test_corrections_without_english_cue_words(text: str, rule: str | None) -> None:
    assert correction_rule(text) == rule


@pytest.mark.parametrize("text", [
    "THE JANITOR REPORTS: I searched the official docs rather than the forums.",  # relayed from an agent
    "Yes. The file changes my recommendation toward deprecation rather than repair.",
    "peux-tu ajouter un bouton pour exporter ?",
    "c'est plutôt bien, merci",
    "I tested it and it works great",
    "테스트를 해보니 잘 돼요",
    "ajoute une page de paramètres",
    "when the user clicks save, show a toast",  # a spec, not what the person saw
    "when I click save it works great now",
    "when I click save it shows the old page, is that expected?",
    "добавь страницу настроек",  # a plain request in Russian
])
def test_plain_requests_and_praise_in_other_languages_are_not(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize(("answer", "kept"), [
    ("git submodule add https://example.com/tools.git tools", False),  # the next step only
    ("Make the new symlink in ~/code/shop/", False),
    ("we have no Redis in production, use the in-process cache", True),  # a limit of the project
    ("the tests use sqlite, never postgres", True),
    ("输出这个文档", False),  # "write out this document": the next step, in Chinese
    ("中文交互，用中文来问我", True),  # a lasting preference typed as "Other": ask me in Chinese
    ("ask me in English from now on", True),
    ("we don't have a staging server", True),
    ("pnpm, like the rest of the monorepo", False),
    ("use pnpm for every package", True),
])
def test_a_question_answered_with_the_next_step_only_is_no_lesson(
        workspace: Workspace, projects: Path, answer: str, kept: bool) -> None:
    log = _Log("c9c9c9c9-0000-4000-8000-000000000001")
    log.typed("set up the shared tools")
    ask = log.calls("AskUserQuestion", questions=[{"question": "What would you like to set up?",
                                                    "header": "Tools", "options": []}])
    log.refused(ask).marker()
    log.typed(answer)
    assert _kinds(_mined(workspace, projects, log)) == (["clarification"] if kept else [])


def test_a_shell_notice_is_no_error(workspace: Workspace, projects: Path) -> None:
    notice = ("Exit code 1\nzoxide: detected a possible configuration issue.\nPlease ensure that zoxide is "
              "initialized right at the end of your shell configuration file (usually ~/.zshrc).\n"
              "Disable this message by setting _ZO_DOCTOR=0.\n=== arrow-down.webp ===")
    log = _Log("cacacaca-0000-4000-8000-000000000001")
    log.typed("list the icon sizes")
    for _ in range(2):  # the same call failing twice is otherwise worth a lesson
        log.result(log.calls("Bash", command="cd src/icons && for f in *.webp; do echo $f; done"), notice, True)
    assert _mined(workspace, projects, log) == []
    log = _Log("cbcbcbcb-0000-4000-8000-000000000001")
    log.typed("list the icon sizes")  # the notice, and a fact of the shell after it
    log.result(log.calls("Bash", command="ls *.png"), notice + "\n(eval):1: no matches found: *.png", True)
    assert [m.title[:26] for m in _mined(workspace, projects, log)] == ["The shell here is zsh: a g"]


# -- identity, denials, titles -----------------------------------------------------------------


def test_a_session_copied_with_fresh_ids_stores_its_correction_once(
        workspace: Workspace, projects: Path) -> None:
    logs = []
    for n in range(3):  # the same turns at the same times, every uuid and message id new
        log = _Log(f"c7c7c7c{n}-0000-4000-8000-000000000001")
        log.typed("Fix the totals")
        edit = log.calls("Edit", file_path="/home/u/shop/totals.py", old_string="a", new_string="b")
        log.result(edit, "The file has been updated successfully.")
        log.says("Fixed. The totals now add up.")
        log.typed("still wrong, the tax is counted twice")
        parent = None
        for record in log.records:  # one chain, as a real copy is
            record["uuid"], record["parentUuid"] = f"{n}-{record['uuid']}", parent
            parent = record["uuid"]
            if "id" in record["message"]:
                record["message"]["id"] = f"{n}-{record['message']['id']}"
        logs.append(log)
    memories = _mined(workspace, projects, *logs)
    assert _kinds(memories) == ["correction"]


def test_a_subagents_dont_ask_denials_are_one_fact_about_the_tool(
        workspace: Workspace, projects: Path) -> None:
    session = "c8c8c8c8-0000-4000-8000-000000000001"
    log = _Log(session, sidechain=True)
    log.typed("Find the deploy settings")
    for path in ("/home/u/.claude/settings.json", "/home/u/shop/.mcp.json"):
        read = log.calls("Read", file_path=path)
        log.result(read, "Permission to use Read has been denied because Claude Code is running in don't "
                         "ask mode. IMPORTANT: You *may* attempt to accomplish this action using other tools.",
                   True)
    log.write(projects / SLUG / session / "subagents" / "agent-a1.jsonl")
    [memory] = _import(workspace, projects, dry_run=True).memories
    assert memory.title == "`Read` is denied to subagents here"
    assert "settings.json" in memory.content and ".mcp.json" in memory.content  # the calls, as evidence


def test_a_failure_after_a_sourced_virtualenv_is_the_commands_not_the_activates() -> None:
    friction = Friction(kind="tool_error", scope="s", session_id="s", record_uuids=[], timestamp=None,
                        calls=[ToolCall("Bash", ". .venv/bin/activate && alembic upgrade head", None)],
                        said=None, evidence="Traceback (most recent call last):\nValidationError: 2 errors",
                        reason=None, cwd=None, sidechain=False, log="l")
    assert lesson_title(friction, 120).startswith("`alembic upgrade` fails here")


def test_an_option_the_shell_ran_as_a_command_is_no_missing_tool() -> None:
    split = ('{"message":"Dependabot alerts are disabled for this repository.","status":"403"}'
             "/bin/bash: line 1: --jq: command not found")
    assert environment_subject(split) is None
    assert environment_subject("/bin/bash: line 1: jq: command not found") == \
        ("command:jq", "`jq` is not installed here")
    assert environment_subject("zsh:1: command not found: -v") is None


@pytest.mark.parametrize(("command", "head"), [
    ("uv run pytest -q tests", "uv run pytest"),  # the program a runner ran is what failed
    ("npm run build 2>&1", "npm run build"),
    ("pnpm exec tsc --noEmit", "pnpm exec tsc"),
    ("nix run ./tests#run .", "nix run"),  # a path it runs names no program
    ("git push origin main", "git push"),
])
def test_a_runners_program_names_the_command(command: str, head: str) -> None:
    assert command_head(command) == head


def test_zshs_unmatched_glob_is_a_fact_of_the_shell_not_of_the_command_it_stopped() -> None:
    friction = Friction(kind="tool_error", scope="s", session_id="s", record_uuids=[], timestamp=None,
                        calls=[ToolCall("Bash", "ls package.json tsconfig.json .eslintrc* 2>/dev/null", None)],
                        said=None, evidence="Exit code 1\n(eval):1: no matches found: /home/u/shop/.eslintrc*",
                        reason=None, cwd=None, sidechain=False, log="l")
    assert lesson_title(friction, 200) == ("The shell here is zsh: a glob that matches nothing "
                                           "(`/home/u/shop/.eslintrc*`) fails the whole command; quote it, "
                                           "or list the folder first")
    assert environment_subject("zsh:1: no matches found: src/*.jpg") is not None


def test_control_characters_leave_the_text() -> None:
    assert strip_ansi("continue\x1a\tnow\n\x1b[31mred\x1b[0m") == "continue\tnow\nred"


# -- Codex: the same classes ---------------------------------------------------------------------


def test_codex_a_failure_report_after_done_and_a_later_concession_are_corrections(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Make the draw run every 5 seconds")
               .shell("pnpm test", "ok", 0)
               .says("Done: the draw now runs every 5 seconds and the tests pass.")
               .typed("테스트를 해보니, 가끔 두 번씩 뽑히는 일이 있다. 타이밍을 살펴봐.")
               .says("Let me check the timer.")
               .shell("cat src/timer.ts", "setInterval(draw, 5000)", 0)
               .says("The interval is set twice on reload.")
               .typed("Je ne vois pas le lien avec la page d'accueil")
               .says("Bonne remarque. Effectivement, tu as raison : la page d'accueil n'y est pour rien."))
    frictions = read_rollout(rollout.write(tmp_path))[0]
    assert [f.kind for f in frictions] == ["correction", "correction"]
    assert frictions[0].evidence.startswith("테스트를 해보니")


def test_codex_a_stop_then_the_same_request_through_a_template_is_no_lesson(tmp_path: Path) -> None:
    rollout = (Rollout().typed('specify "a FastAPI backend and a React front end for the voice assistant"')
               .shell("ls", "README.md", 0)
               .abort()
               .typed("## User Input\n\n```text\na FastAPI backend and a React front end for the voice "
                      "assistant\n```\n\nYou **MUST** consider the user input before proceeding.\n\n"
                      "## Outline\nGiven that feature description, generate a short name for the branch."))
    assert read_rollout(rollout.write(tmp_path))[0] == []


def test_codex_a_declined_command_the_person_calls_a_slip_is_no_lesson(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Clean the build")
               .shell("rm -rf build", "exec command rejected by user", declined=True)
               .typed("oops, I meant yes, go on"))
    assert read_rollout(rollout.write(tmp_path))[0] == []


def test_codex_a_correction_after_the_agent_only_talked_quotes_no_call_from_turns_before(
        tmp_path: Path) -> None:
    rollout = (Rollout().typed("Set up the build")
               .shell("npm install", "added 20 packages", 0)
               .says("Installed. Which bundler do you want?")
               .typed("vite")
               .says("I would use webpack for this, it is more flexible.")
               .typed("no, use vite as I said"))
    [friction] = read_rollout(rollout.write(tmp_path))[0]
    assert friction.kind == "correction" and friction.action is None
    assert friction.said == "I would use webpack for this, it is more flexible."
