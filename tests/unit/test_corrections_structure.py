"""Corrections read from the conversation's structure: what the agent had just claimed, done or
proposed, what the person typed back (a pasted error, a short "still …", a "no" to the agent's
recommendation, a clarification of what they meant) and what the agent answered (a concession in
any language, not an apology for what it cannot do). Every line here is written for these tests,
in the shapes of real sessions (Traditional Chinese, Vietnamese, Windows shells, git, go).
"""

from __future__ import annotations

import pytest

from dreamtui.intake.corrections import (
    acknowledges_mistake,
    answer_rule,
    concedes,
    correction_rule,
    lesson,
    only_asks,
    overrides,
    pasted_failure,
    reports_after_done,
)

FIXED = "Done! I rewrote `install.ps1` so the braces balance. Run it again:\n```\n.\\install.ps1\n```"
STEPS = "You still need a first commit:\n- `git add .`\n- `git commit -m init`\n- `git push -u origin main`"


@pytest.mark.parametrize("turn", [
    # a shell prompt, the command, what it printed (PowerShell's parser)
    "PS D:\\tools> .\\install.ps1\nAt D:\\tools\\install.ps1:12 char:5\n+     }\n"
    "Missing closing '}' in statement block or type definition.",
    # the command alone on its first line, git's error below it
    "git push -u origin main\nerror: src refspec main does not match any\nerror: failed to push some refs",
    # a virtualenv prompt
    "(venv) dana@box:~$ git status\nfatal: not a git repository (or any of the parent directories): .git",
    # a compiler's errors under the command the agent said to run
    "go run ./cmd/api\n# example.com/api/internal/auth\ninternal/auth/token.go:41:9: undefined: jwt.ParseClaims",
    # the error alone, no word of the person's: a Windows dialog, in Chinese
    "Windows找不到文件'msedge.exe'。请确定文件名是否正确后，再试一次。",
    "'..' 不是内部或外部命令，也不是可运行的程序\n或批处理文件。",
])
def test_an_error_pasted_back_after_the_agents_work_or_steps_is_a_correction(turn: str) -> None:
    for said in (FIXED, STEPS):
        assert pasted_failure(turn, said)
        assert answer_rule(turn, said) == "pasted_error"


@pytest.mark.parametrize("turn, said", [
    # the agent asked for the output: it answers, whatever it shows
    ("npm ls react\nnpm ERR! code ELSPROBLEMS", "Can you run `npm ls react` and paste the output here?"),
    ("把报错贴给我看看\n", "请把报错贴给我"),
    # prose that says "error" or "not found" is no pasted error
    ("still some errors in the layout, items overlap", FIXED),
    ("The wizard has searched the tower -- but he has not found the key.", FIXED),
    ("更新文档，针对这一错误", FIXED),
    # a Markdown document pasted is no shell session
    ("# Notes from yesterday\n## Error handling: retry twice", FIXED),
    # a question about an error asks
    ("git push\nerror: failed to push some refs\nwhy does it say rejected?", FIXED),
])
def test_no_pasted_error_where_the_agent_asked_for_it_or_the_person_wrote_prose(turn: str, said: str) -> None:
    assert not pasted_failure(turn, said)


def test_a_pasted_errors_title_names_the_error_and_whose_it_was() -> None:
    turn = "PS D:\\tools> .\\install.ps1\nAt D:\\tools\\install.ps1:12 char:5\nMissing closing '}' in statement block"
    assert lesson(turn, "edit `install.ps1`", FIXED) == (
        "Missing closing '}' in statement block: check that it works before saying it is done")
    # the agent only told the person what to run: its instructions are what failed
    assert lesson("git push -u origin main\nerror: src refspec main does not match any", None, STEPS) == (
        "error: src refspec main does not match any: check that your instructions work before giving them")


def test_traditional_chinese_reads_as_simplified() -> None:
    # a challenge question ("isn't there a newer way?"), conceded in Traditional characters
    turn = "composable 不是有新的寫法嗎？"
    assert correction_rule(turn) == "zh"
    assert concedes(turn, "你說得對！3.5 之後可以用新的 API。") == "acknowledged"
    assert correction_rule("我的意思是整個倉庫，不是這個資料夾") == "zh"
    # Japanese writes the same characters; its own rules still read it
    assert correction_rule("日本語で答えてください") == "prefer"


def test_vietnamese_misunderstandings_and_concessions() -> None:
    assert correction_rule("ý tôi là thư mục kia, không phải thư mục này") == "script"  # I meant that folder
    assert correction_rule("hình như bạn đọc nhầm file rồi") == "script"  # it seems you read the wrong file
    assert acknowledges_mistake("Bạn nói đúng, để mình mở lại file.")
    assert acknowledges_mistake("\n\nMinh nói đúng, để tôi xem lại.")  # the person named
    assert correction_rule("bây giờ làm sao để lưu cái này") is None  # how do I save this now: a question


def test_a_no_to_the_agents_recommendation_and_a_narrower_ask_override_it() -> None:
    recommended = "导出接口一直超时。**我建议先跳过导出，回到方案设计。** 你觉得可以吗？"
    assert correction_rule("不行，我需要先把导出这一步做完整") == "zh"
    assert overrides("不行，我需要先把导出这一步做完整", recommended)
    assert overrides("no, I need the full export first", "I'd suggest we skip the export for now. OK?")
    plan = "Drafted the migration plan in `docs/plan.md`. Should I proceed to implement it?"
    assert overrides("i just want to document the old services, we won't migrate them", plan)
    assert not overrides("sounds good, go ahead", plan)


def test_a_short_still_after_the_agent_said_it_changed_it_is_a_failure() -> None:
    said = "Moved the header to the left in `layout.css`; it will now line up with the logo."
    assert answer_rule("header still on the right", said) == "fails"
    assert answer_rule("页眉还是在右边", "已经更新了 layout.css，页眉现在靠左。") == "fails"
    # what is still wanted or to do is no failure; "A还是B" asks which
    assert answer_rule("I still want the blue logo though", said) is None
    assert answer_rule("那是用 per-tensor 还是 per-token 的 scale 吗", "已经更新了 layout.css。") is None
    # nothing claimed changed: no claim to contradict
    assert answer_rule("header still on the right", "Which header do you mean?") is None


def test_plain_questions_and_apologies_for_what_it_cannot_do_concede_nothing() -> None:
    assert only_asks("你知道我现在打开的是哪个文件吗？")
    assert concedes("你知道我现在打开的是哪个文件吗？", "抱歉，我无法看到你的编辑器。") is None
    assert not acknowledges_mistake("Sorry, I can't see your screen from here.")
    assert concedes("so the deploy is done now, right?", "Sorry, I don't have access to the server.") is None
    # a challenge asked in Chinese is no plain question: the agent may rightly concede it
    for challenge in ("你在干什么", "你怎么就直接开始改代码了？", "我说了要一比一复制模板，你明白吗"):
        assert not only_asks(challenge)


def test_the_agent_fixing_the_persons_points_concedes_them() -> None:
    turn = "two things: the saved values no longer show in the fields, and each cell needs its own port"
    assert concedes(turn, "Great observations! Let me fix both issues:") == "acknowledged"


def test_what_the_agent_said_to_follow_is_carried_out_not_any_your() -> None:
    # "by your criteria" and "while using you" follow no steps of the agent's
    assert correction_rule("合理。但我补充两点：按你的标准会漏掉没报价的客户") != "fails"
    assert correction_rule("按你说的改了，还是报错") == "fails"


def test_swearing_in_an_answer_to_the_agents_question_is_an_answer() -> None:
    asked = "I kept it high level. Is that detailed enough?"
    assert answer_rule("enough that we won't fuck something up later", asked) is None
    # an insult at the agent is frustration, asked or not
    assert answer_rule("thats a stupid assumption, why would that be bad?", asked) is not None


def test_an_error_after_if_it_still_fails_tell_me_is_the_fix_failing() -> None:
    turn = "PS D:\\tools> .\\install.ps1\nAt D:\\tools\\install.ps1:12 char:5\nMissing closing '}' in statement block"
    assert pasted_failure(turn, FIXED + "\n\nIf you still see errors, paste the output here!")
    assert not pasted_failure(turn, "Run `.\\install.ps1 -Verbose` and paste the output here.")


def test_what_the_person_meant_and_did_not_see_said_later_in_the_turn() -> None:
    assert correction_rule("Put it in the config. I mean the one I already wrote, wire that up") == "imperative"
    assert correction_rule("Looks fine. I mean it works, thanks") is None
    assert correction_rule("1.针对刚才的客户分析，我没有看到回复话术") == "fails"  # I don't see the replies


def test_a_long_turn_ending_in_a_question_states_something_and_an_if_not_asks() -> None:
    # a rule stated, then asked about: the agent conceding it is a correction, not an answer
    long_turn = ("现货按链接来：链接起订量大于100就跟客户说起订量是10，小于100就按链接来。"
                 "你抓取的信息里能看到链接的起订量吗")
    assert not only_asks(long_turn)
    assert correction_rule("如果不是 .env.local 的话是 .env?") is None  # if not …, then …?: it asks
    assert correction_rule("意思是我的 scale 不是真正的量化网格？") is None  # checking it understood


def test_a_mistake_to_keep_as_a_lesson_or_made_again_is_a_correction() -> None:
    assert correction_rule("把这次的错误沉淀为经验，我用你的时候已经遇到几次错了") == "recurrence"
    assert correction_rule("上次也遇到过，你这次又犯了同样的错误") == "recurrence"
    assert correction_rule("save this mistake as a lesson, the deploy broke the same way last week") == "recurrence"
    # an insight kept for later is a request, no mistake
    assert correction_rule("把另一个对话的分析见解沉淀为经验，以后可以借鉴") is None


def test_an_idea_a_check_of_understanding_and_an_error_after_no_work_are_no_corrections() -> None:
    assert correction_rule("我突然想到之前不是有一个写文案的技能，可以用吗？") is None  # a new idea
    assert only_asks("所以插件里的文件等同于外面的")  # so …: checking it understood
    # the agent's last words were an API error, no work or steps of its own
    assert not pasted_failure("/home/u/bin/tool: line 9: /run/x: Permission denied", "API Error: 401 {}")


def test_steps_said_in_prose_are_steps_too() -> None:
    turn = "粘贴脚本全部内容，回车后：VM12:1 Uncaught ReferenceError: scripts is not defined"
    assert pasted_failure(turn, "不用。只需要进入客户列表页，页面加载时会自动触发请求。")


DONE_EDIT = "Added right alignment to all numeric columns. Run `npm run dev` to check."


@pytest.mark.parametrize("turn", [
    # prose opening with an error word, after a Done, is the person's: a wish, praise, a task
    "Invalid logins should turn the field red",
    "Could not be more pleased, thank you",
    "Cannot wait to demo this. Next: a settings page",
    "ValueError handling: catch it around the parser everywhere",
])
def test_prose_that_opens_with_an_error_word_is_no_pasted_error(turn: str) -> None:
    assert not pasted_failure(turn, DONE_EDIT)
    assert answer_rule(turn, DONE_EDIT) is None


@pytest.mark.parametrize("turn", [
    "Great. I mean it, exactly what I needed",
    "Thanks. I mean, this saves me an hour a day",
    "Nice, still two small things to do: the footer",
    "Sigue funcionando bien, gracias",
    "Ainda funciona perfeito, obrigado",
    "Super, ça marche toujours très bien",
    "Chạy ổn, không thấy lỗi gì",
    "我没有看到任何问题，很好",
    "我没看到报错，运行正常",
    "这样不是挺好的吗",
])
def test_praise_and_agreement_after_a_change_are_no_corrections(turn: str) -> None:
    assert answer_rule(turn, DONE_EDIT) is None
    assert not reports_after_done(turn, DONE_EDIT)


def test_an_approval_is_no_override_of_the_plan() -> None:
    plan = "Plan ready in `docs/plan.md`. Should I proceed to implement it?"
    assert not overrides("I just want to say the plan looks great, go ahead", plan)
    assert not overrides("no, I need a minute first, then go ahead", plan)


def test_praise_seeing_no_problem_and_a_spec_of_errors_after_done_are_no_corrections() -> None:
    assert correction_rule("Still looks great on the phone too") is None
    assert correction_rule("No veo ningún problema, perfecto") is None
    assert correction_rule("Não vejo problema nenhum, pode seguir") is None
    assert not reports_after_done("No veo ningún problema, perfecto", DONE_EDIT)
    assert not reports_after_done("Não vejo problema nenhum, pode seguir", DONE_EDIT)
    assert correction_rule("no, still broken") == "no"
    assert not reports_after_done("Error messages should be shown in a banner, not a popup", DONE_EDIT)
    assert reports_after_done("Error in the settings form: the save button does nothing", DONE_EDIT)


def test_an_error_alone_where_it_failed_and_a_failure_beside_no_problem() -> None:
    for turn in ("Error in sub-node 'Fetch prices' {\"errorMessage\": \"bad tool name\"}",
                 "raise ValueError(msg) from None\nValueError: bad config",
                 "\"stderr\": String(\"error: unexpected argument '--fast' found\")"):
        assert pasted_failure(turn, DONE_EDIT)
    # fine elsewhere, and then what is missing: a failure report still
    assert reports_after_done("其他都没问题，但是保存按钮点了没反应", DONE_EDIT)
    assert correction_rule("你不是可以用网页版看吗，我可以登录") == "zh"  # can't you use the web version?
