"""Corrections by class, not by phrase: failure reports without a cue word, reversals, challenge
questions, non-English objections, and the agent's reply conceding in any language — each with
the new-task, wish and plain-question shapes that must stay no correction.

Every text here is written for the test, reproducing the shape of turns seen in public logs (the
projects, files and words are made up)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dreamtui.intake.claude_code.frictions import Detector, Origin
from dreamtui.intake.corrections import answer_rule, concedes, correction_rule
from dreamtui.intake.lessons import ToolCall


@pytest.mark.parametrize(("text", "rule"), [
    # failure reports with no cue word of their own
    ("What happened to my aliases?", "fails"),
    ("where did all the env vars go?", "fails"),
    ("i pasted it into the user config and i still get an error", "fails"),
    ("Getting failure here: FAIL test_totals expected 3 to equal 4", "fails"),
    ("got a weird exception when it starts", "fails"),
    ("I set a breakpoint on line 88 and it's not being hit", "fails"),
    ("the toasts are not going away after the save", "fails"),
    ("the fixtures are gone now", "fails"),
    ("it seems that the hook is not installed in the repo", "fails"),
    ("looks like the cache is still stale", "fails"),
    ("ok it's still slow, think again", "fails"),
    # reversals, said first
    ("Actually remove the retry loop from the client and put it in the worker.", "reverse"),
    ("wait, keep the old name", "reverse"),
    ("But I still want to call the _cached helpers", "reverse"),
    ("no, but actually we could merge the branch into main", "reverse"),
    ("non mais en fait on pourrait garder la branche", "reverse"),
    ("en fait non, garde l'ancien script", "reverse"),
    # challenge questions
    ("did you follow the whole checklist?", "question"),
    ("have you read the contributing guide?", "question"),
    # Chinese objections anywhere in a short turn
    ("现在会不会太多配置文件，导致很混乱？", "zh"),
    ("这次改动有没有污染别的目录", "zh"),
    ("规范里应该写上，这种情况你应该自己能发现", "zh"),
    ("感觉你没按照README执行，每次都应该有依据", "zh"),
    ("但是所有脚本都要保留", "zh"),
    ("用现有的模板，而不是新建一个", "zh"),
    ("改完以后为什么还会出现同样的报错", "zh"),
    ("有问题，这些表格和脚本不是之前就已经有了吗？", "zh"),
    ("发现一个问题，升级以后几秒内查询状态会出错", "zh"),
])
def test_corrections_by_class(text: str, rule: str) -> None:
    assert correction_rule(text) == rule


@pytest.mark.parametrize("text", [
    # a condition, a wish or a spec names a failure it does not report
    "if it gets an error, retry twice",
    "make sure it is not showing the token",
    "handle the case where the config is missing",
    "a worker that is not running should be restarted",
    "return an error when the id is unknown",
    "yes, implement it, and skip the linter as it isn't working yet",  # a reason, not a report
    # the person about themselves, or a view of their own
    "I am not saying it is bad, I am asking why",
    "im not pasting my keys here",
    "i have this warning, it does no harm, maybe fix it later",
    # one more thing, a plain question, a new request
    "actually, also add a test for it",
    "but will it stay under a second?",
    "but how do I run it locally?",
    "en fait j'aimerais un nouveau filtre par date",
    "non-blocking calls please",
    "did you push?",
    "帮我写一个新的导出脚本",
    "我忘了说，目标目录是 out/",  # the person's own slip
])
def test_conditions_wishes_and_new_requests_are_not_corrections(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize(("turn", "reply", "rule"), [
    ("anything else from the release steps?", "You're right, I skipped the tag.", "acknowledged"),
    ("the list is in both prompts", "Good question — you're right that it is duplicated.",
     "acknowledged"),
    ("never hand-edit generated files", "Fair enough. Let me revert the manual change.", "acknowledged"),
    ("the page lost its header", "Tu as raison, je le remets.", "acknowledged"),
    ("the page lost its header", "Tienes razón, lo vuelvo a poner.", "acknowledged"),
    ("the page lost its header", "Du hast recht, ich stelle ihn wieder her.", "acknowledged"),
    ("现在会不会太多配置", "好问题。坦率说，目前确实有配置过多的问题。", "acknowledged"),
    ("规范里要写上", "对，这是规范缺失。让我补上。", "acknowledged"),
    ("did you follow the whole release checklist?", "Non, il manque l'étape 12 — je la fais.",
     "answered_no"),
    ("did you run the integration tests?", "No, I only ran the unit tests. Let me run them.",
     "answered_no"),
    ("数据都写进日志了吗？", "没有，漏了两条，我补上。", "answered_no"),
    ("Doesn't this drop the incremental filtering?", "Yes, it does — the filter is lost.", "agreed"),
    ("Won't this break the cache keys?", "You're right, it would.", "acknowledged"),
])
def test_the_agent_conceding_in_its_reply(turn: str, reply: str, rule: str) -> None:
    assert concedes(turn, reply) == rule


@pytest.mark.parametrize(("turn", "reply"), [
    ("did you find other callers?", "No, there are none."),  # a search that found nothing
    ("did you run the tests?", "Yes, all 42 pass."),
    ("we moved it to 1h, good enough for now", "Fair enough. So the cap stays at 100?"),
    ("i'm wary of adding indexes I don't understand", "Fair. Here is how an index works."),
    ("is a.py redundant to b.py?", "You're absolutely right to ask: they overlap."),
    ("Doesn't this need Python 3.11?", "It needs 3.10 or later."),
    ("这个怎么部署？", "好的，部署步骤如下。"),
])
def test_replies_that_concede_nothing(turn: str, reply: str) -> None:
    assert concedes(turn, reply) is None


@dataclass
class _Agent:
    acted: bool = True
    last_tool: ToolCall | None = None
    said: str | None = None

    def said_text(self) -> str | None:
        return self.said


def _where(n: int) -> Origin:
    return Origin(scope="s1", session_id="s1", record_uuid=f"u{n}", timestamp=f"2026-01-01T00:00:0{n}Z",
                  cwd="/home/u/app", log="s1.jsonl", sidechain=False)


def test_a_question_the_agent_answers_no_is_a_correction_quoting_both() -> None:
    detector = Detector()
    agent = _Agent(last_tool=ToolCall("Bash", "git tag v1.2 && git push --tags", None),
                   said="Released v1.2.")
    assert detector.person_typed(_where(1), agent, "did you update the changelog too?")
    detector.agent_replied(False, "No — I skipped the changelog. Let me do it now.")
    detector.person_typed(_where(2), _Agent(said="Done."), "thanks, what is next on the list?")
    detector.agent_replied(False, "No, nothing else is left.")
    [friction] = detector.finish()
    assert friction.kind == "correction" and friction.extra["rule"] == "answered_no"
    assert friction.evidence == "did you update the changelog too?"
    assert friction.calls[0].target == "git tag v1.2 && git push --tags"
    assert friction.reply is not None and friction.reply.startswith("No — I skipped the changelog")


def test_text_queued_while_the_agent_worked_is_judged_like_a_turn() -> None:
    detector = Detector()
    agent = _Agent(last_tool=ToolCall("Edit", "docs/index.md", "docs/index.md"))
    detector.queued(_where(1), agent, "但是所有文档都要保留入口，而不是删掉")
    detector.queued(_where(2), _Agent(), "顺便看一下新的需求")  # before the agent acted: no correction
    [friction] = detector.finish()
    assert friction.kind == "correction" and friction.extra["rule"] == "zh"
    assert friction.calls[0].file_path == "docs/index.md"


def test_a_new_task_after_the_agents_work_stays_no_correction() -> None:
    detector = Detector()
    agent = _Agent(last_tool=ToolCall("Edit", "src/api.py", "src/api.py"), said="Done.")
    detector.person_typed(_where(1), agent, "now add an endpoint that returns an error if the id is unknown")
    detector.agent_replied(False, "The endpoint is a small change; let me add it.")
    assert detector.finish() == []


@pytest.mark.parametrize(("text", "rule"), [
    ("There are two lint warnings that haven't been addressed. What are they about?", "fails"),
    ("the changelog wasn't updated", "fails"),
    ("the migrations have not been applied yet", "fails"),
    ("How should I wire the plugin? I don't see how the adapter solves this.", "doubt"),
    ("Does this not work on arm64 too?", "question"),
])
def test_more_failure_reports_and_doubts(text: str, rule: str) -> None:
    assert correction_rule(text) == rule


@pytest.mark.parametrize("text", [
    "make sure the file is not updated twice",
    "a job that has not been run yet should be retried",
    "there is a helper that does the parsing",
])
def test_specs_with_a_negation_are_not_failure_reports(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize(("text", "said", "rule"), [
    ("no.. its still slow, think again", "Which extension do you have installed?", "fails"),
    ("no, the other one", "Which file did you mean?", None),  # an answer
    ("no, don't", "Shall I push it?", None),
    ("no, use pnpm", "Done, installed with npm.", "no"),  # no question asked: a correction
])
def test_a_no_answering_the_agents_question_corrects_only_by_what_follows(
        text: str, said: str, rule: str | None) -> None:
    assert answer_rule(text, said) == rule


@pytest.mark.parametrize(("turn", "reply", "rule"), [
    ("looks fine, but one odd thing: the total doubles", "Ah, this is a great catch! The merge runs twice.",
     "acknowledged"),
    ("I checked and both apps show the history", "Good to know — I was wrong about that.", "acknowledged"),
    ("we already pay for a sync service", "Good — that changes things; my earlier plan was overkill.",
     "acknowledged"),
    ("问题在于归档没有成功，新文档也没有登记" * 12, "问题分析得很准。让我梳理一下。", "acknowledged"),
    ("I had an idea: two sync modes instead of three", "Excellent insight! You're absolutely right - "
     "two modes are cleaner.", None),  # agreeing with a new plan, not a mistake conceded
])
def test_concessions_within_the_first_sentences(turn: str, reply: str, rule: str | None) -> None:
    assert concedes(turn, reply) == rule


def test_a_no_that_answers_the_agents_question_about_the_world_is_an_answer() -> None:
    assert answer_rule("nope it never worked", "Has this command ever worked for the team?") is None


@pytest.mark.parametrize(("text", "rule"), [
    ("Tu n'as pas mentionné la fonction de nettoyage dans le résumé.", "imperative"),
    ("vous avez oublié le fichier de config", "imperative"),
    ("olvidaste actualizar el README", "imperative"),
    ("du hast die Tests vergessen", "imperative"),
    ("pourquoi tu as supprimé le cache ?", "question"),
    ("¿por qué hiciste el cambio en main?", "question"),
    ("après ton changement ça ne marche toujours pas", "fails"),
    ("sigue sin funcionar después del cambio", "fails"),
    ("der Build funktioniert immer noch nicht", "fails"),
    ("ça ne marche pas, l'écran reste blanc", "fails"),
])
def test_the_same_shapes_in_other_languages(text: str, rule: str) -> None:
    assert correction_rule(text) == rule


@pytest.mark.parametrize("text", [
    "tu peux ajouter un filtre par date ?",  # a new request
    "pourquoi le ciel est bleu ?",
    "añade una prueba para el parser",
    "kannst du die Tests ausführen?",
    "j'essaie d'exporter depuis le panneau mais ça marche pas",  # their own attempt
])
def test_new_requests_in_other_languages_are_not_corrections(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize(("turn", "reply", "rule"), [
    ("Should go in the migrations folder", "You're right! Let me move it there.", "acknowledged"),
    ("why did you do it like this to begin with?", "Followed the pattern in the module. Should have "
     "questioned it.", "acknowledged"),
    ("pourquoi tu as fait un squash au lieu d'un merge ?", "C'était une erreur de ma part.", "acknowledged"),
    ("et l'historique du produit ?", "Tu as totalement raison sur les deux points.", "acknowledged"),
    ("Is that stored in the proper place?", "No. It is machine-local, the wrong place for it.",
     "answered_no"),
])
def test_more_concessions(turn: str, reply: str, rule: str) -> None:
    assert concedes(turn, reply) == rule


def test_should_with_its_subject_is_still_a_plain_question() -> None:
    assert concedes("should we use uv here", "You're right to ask: uv is faster.") is None


@pytest.mark.parametrize(("text", "rule"), [
    ("now I get:\nTraceback (most recent call last):\n  File \"app.py\", line 3\nValueError: bad", "fails"),
    ("after your change:\nError: ENOENT: no such file", "fails"),
    ("go back to the old layout", "imperative"),
    ("put it back the way it was", "imperative"),
    ("I don't like this approach", "prefer"),
    ("not quite, the header is still there", "wrong"),
    ("hmm, that doesn't look right", "wrong"),
    ("the build fails now", "fails"),
    ("npm run dev crashes on start", "fails"),
    ("it broke my config", "fails"),
    ("it's broken", "fails"),
    ("seems that the sandbox is read-only by default, it should be given write access", "fails"),
])
def test_reversals_and_reports_in_few_words(text: str, rule: str) -> None:
    assert correction_rule(text) == rule


@pytest.mark.parametrize("text", [
    "explain this error:\nTypeError: x is undefined",  # a task about the error
    "add handling for this:\nError: ENOENT",
    "here is the log:\nall 40 tests passed",  # no error in it
    "From github.com:acme/app\n# acme/app/jobs\nerror: y",  # a log's own first line
    "Failures:\n  1) signs up\n     Failure/Error: expected 200",
    "FAILED TESTS: api suite\nFAILED: signs up\nAssertionError: expected 200",  # a runner's heading
    "add retries for failed uploads",
    "fix the failing test",
    "make sure the build fails if lint fails",
    "write a test that fails first",
])
def test_tasks_about_errors_and_logs_alone_are_not_corrections(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize(("text", "rule"), [
    ("oof revert the sidebar to the original, it is getting worse", "imperative"),
    ("It is picking the wrong timezone now", "wrong"),
    ("you edited the wrong file", "wrong"),
    ("why cant it find the printer", "question"),
    ("why does it keep restarting?", "question"),
    ("why cd and not just run it from the root?", "question"),
    ("shouldn't it be in the generated code?", "question"),
    ("now the app does not even open", "fails"),
    ("hmm something is not right", "wrong"),
    ("that is not an option", "wrong"),
    ("the backups are not needed", "wrong"),
    ("I think we should not put my password in the repo", "dont"),
    ("One slight issue: it logs in as the wrong user", "fails"),
    ("im not sure i like this one, what else is there?", "prefer"),
    ("i feel like something might be missing", "fails"),
])
def test_more_shapes_of_the_same_classes(text: str, rule: str) -> None:
    assert correction_rule(text) == rule


@pytest.mark.parametrize("text", [
    "I think I am ready, anything you think I may be missing?",  # asks for a check
    "why do i keep getting asked for a password on every make?",  # a question about the world
    "if the file is not needed, remove it",
    "why do they all begin with t",
])
def test_questions_and_conditions_near_those_shapes_are_not_corrections(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize(("text", "rule"), [
    ("I never asked for a new config file", "imperative"),
    ("i didn't say to delete the fixtures", "imperative"),
    ("who asked you to bump the version?", "imperative"),
    ("leave the README alone", "imperative"),
    ("keep the original names", "imperative"),
    ("that's not how the cache works", "wrong"),
    ("that is not true, the port is 5433", "wrong"),
    ("this is overkill, one function is enough", "prefer"),
    ("keep it simple", "prefer"),
    ("use pnpm not npm", "instead"),
])
def test_what_was_not_asked_for_and_simpler_ways(text: str, rule: str) -> None:
    assert correction_rule(text) == rule


@pytest.mark.parametrize("text", [
    "keep going",
    "use the staging database for this",
    "leave a comment on the PR when done",
    "go back through the git history and find the old GPU settings",  # a task, not a reversal
])
def test_plain_requests_near_those_shapes_are_not_corrections(text: str) -> None:
    assert correction_rule(text) is None
