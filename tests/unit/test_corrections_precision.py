"""Precision of stored corrections (issue 12 item 2): output the agent asked for is no failure of
its work, agreeing with its recommendation overrides nothing, taking a new bug ticket concedes no
mistake, a pasted traceback is titled by its exception; true corrections beside them stay stored.

Every text is written for the test (projects, files and words made up)."""

from __future__ import annotations

import pytest

from dreamtui.intake.corrections import (
    answer_rule,
    concedes,
    correction_rule,
    lesson,
    overrides,
    pasted_failure,
    pasted_log,
    reports_after_done,
)

_PASTE = "yarn ERR! code E_PEER\nyarn ERR! could not resolve peer dependency react@17"


@pytest.mark.parametrize("said", [
    "I cannot tell from the diff why it breaks. Run `yarn add chart-lib` and let me know what you see.",
    "Could you run `yarn add chart-lib` and tell me what happens?",
    "Please run `yarn add chart-lib` again and copy the output here.",
    "Run `yarn add chart-lib` once more and paste what it prints.",
    "Run `yarn add chart-lib` and report back what the terminal says.",
    "请再运行一次 `yarn add chart-lib`，然后把结果告诉我。",
    "请运行 `yarn add chart-lib`，告诉我看到了什么。",
])
def test_output_asked_for_in_ordinary_words_is_no_failure(said: str) -> None:
    assert not pasted_failure(_PASTE, said)
    assert answer_rule(_PASTE, said) is None


@pytest.mark.parametrize("said", [
    "Done! The chart is added; run `yarn dev` to see it.",
    "Fixed the peer dependency. Try `yarn add chart-lib` again and let me know if it works.",
    "Fixed! Now try again. If you still see errors, tell me what it says.",
])
def test_the_same_paste_after_a_claim_or_a_fix_to_try_is_its_failure(said: str) -> None:
    assert pasted_failure(_PASTE, said)


def test_a_pasted_traceback_is_titled_by_its_exception() -> None:
    trace = ('Traceback (most recent call last):\n  File "stats.py", line 7, in <module>\n'
             '    print(average)\nNameError: name \'average\' is not defined')
    title = lesson(trace, None, "Done! Run it with `python stats.py`.")
    assert title is not None
    assert title.startswith("NameError: name 'average' is not defined")


@pytest.mark.parametrize(("said", "turn", "overridden"), [
    ("I'd recommend Postgres for the event store.", "I prefer Postgres too, go with it", False),
    ("I'd recommend Postgres for the event store.", "we should use Postgres, then", False),
    ("我建议用 Postgres 做事件存储。", "应该可以，就用 Postgres", False),
    ("Plan: split the module, then add tests. Should I proceed?", "we should be fine, go", False),
    # choosing another way stays an override
    ("I'd recommend Postgres for the event store.", "I prefer SQLite, it is one file", True),
    ("I'd recommend Postgres for the event store.", "rather not, keep the flat files", True),
    ("I'd lean towards one queue per tenant.", "we should have one queue per region, so shard by region",
     True),
    ("我建议用 Postgres 做事件存储。", "我们应该用 SQLite，不用 Postgres", True),
])
def test_an_override_names_another_way_than_the_agents(said: str, turn: str, overridden: bool) -> None:
    assert overrides(turn, said) is overridden


def test_taking_a_new_bug_ticket_concedes_nothing() -> None:
    before = "Done: the import button is wired up in `importer.py`."
    ticket = ("Next, the old XML exporter (from last year) has two bugs: it drops empty tags and "
              "writes the wrong encoding. Please fix them.")
    assert concedes(ticket, "Let me fix both issues in the exporter.", before) is None
    also = "Also the changelog has two typos from the last release; fix these too."
    assert concedes(also, "Let me fix these two errors.", before) is None
    # points about the agent's own work, fixed: conceded
    points = "two things: the imported rows lose their dates, and the button stays disabled"
    assert concedes(points, "Good observations! Let me fix both issues:", before) == "acknowledged"


@pytest.mark.parametrize("turn", [
    "KeyError: 'price'",
    "Error: connect ECONNREFUSED 127.0.0.1:5432",
    "ImportError: cannot import name 'Chart' from 'charts'",
    "Uncaught TypeError: rows.map is not a function\n    at Table (Table.jsx:9:3)",
    "still the same error",
    "It still shows the old chart",
    "我没看到图表",
    "không thấy biểu đồ",
    "no veo la gráfica",
    "Sigue sin funcionar",
    "Ainda não funciona",
])
def test_true_corrections_after_done_stay(turn: str) -> None:
    said = "Done! I added the chart page; run `yarn dev` and open /charts."
    assert answer_rule(turn, said) is not None or reports_after_done(turn, said)


@pytest.mark.parametrize(("text", "corrects"), [
    # Vietnamese, Spanish and Portuguese corrections beyond a phrase at the line's start
    ("Cái menu này không đúng, tôi cần nó ở trên cùng", True),
    ("sai roi, menu phai o tren cung", True),  # Vietnamese typed without its diacritics
    ("khong phai, y toi la file settings", True),
    ("dung xoa file do", True),
    ("Te dije que no cambiaras el esquema", True),
    ("Ya te dije que el menú va arriba", True),
    ("Así no, el menú va arriba", True),
    ("Eu disse para não mudar o esquema", True),
    ("Já disse que o menu fica em cima", True),
    # look-alikes in other languages, and a folded word that is no correction
    ("as no one reads the old flag, drop it", False),
    ("Dung heaps are a good example for the docs", False),
    ("disse is the next word in the glossary", False),
    ("Cái menu này đẹp quá, cảm ơn", False),
])
def test_corrections_in_vietnamese_spanish_portuguese_anywhere_in_a_short_line(text: str, corrects: bool) -> None:
    assert (correction_rule(text) is not None) is corrects


@pytest.mark.parametrize(("text", "corrects"), [
    ("你确定这样改是对的吗？", True),  # "are you sure this change is right?"
    ("这样真的能解决问题吗？", True),  # "will this really solve it?"
    ("不是很急，明天再做导出功能可以吗？", False),  # "not urgent, can it wait until tomorrow?"
    ("不是太重要，先做列表页吧", False),
    ("这不是我要的页面，能改回去吗？", True),
    ("这类需求是不是要我给你确定的规则你才能做好？", False),  # 给你确定的规则: definite rules, no doubt
])
def test_chinese_doubt_and_a_not_of_degree(text: str, corrects: bool) -> None:
    assert (correction_rule(text) is not None) is corrects


@pytest.mark.parametrize(("text", "pasted"), [
    # how errors should look or behave, said by the person: no program's output
    ("Error from the billing API should show a friendly message", False),
    ("Errors in the signup form should appear under each field", False),
    ("Permission denied pages need a link back to the dashboard", False),
    # a program's message holds a modal too, after its name and a colon
    ("Error: Node.js version must be 18 or newer", True),
    ("TypeError: value should be a string", True),
])
def test_a_wish_about_errors_is_no_pasted_error(text: str, pasted: bool) -> None:
    said = "Done! The billing page is added in `billing.py`; run `npm run dev` to try it."
    assert pasted_failure(text, said) is pasted
    if not pasted:
        assert answer_rule(text, said) is None and not reports_after_done(text, said)


@pytest.mark.parametrize(("text", "pasted"), [
    ("● 先备份数据库\n● 再删除旧的表", False),  # a list the person typed
    ("● Bash(npm test)\n  ⎿  Error: 2 tests failed", True),  # Claude Code's screen
    ("● I will run the tests now.\n  ⎿  3 passed", True),
])
def test_a_typed_bullet_list_is_no_pasted_log(text: str, pasted: bool) -> None:
    assert pasted_log(text) is pasted
