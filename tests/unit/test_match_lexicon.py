"""Rules written in another language are read in English words (dream/lexicon.py), and a rule's
language is a value: another language for one thing is another fact, a language named against
none is another rule."""

from __future__ import annotations

from dreamtui.dream.lexicon import english
from dreamtui.dream.match import Features, compare_texts


def test_an_english_text_is_never_changed() -> None:
    for text in ("Do not add a TODO comment", "Use pnpm, not npm", "Give me no surprises in a sans-serif font",
                 "The API allows 100 requests per minute per key; I retry on 429."):
        assert english(text) == text


def test_a_rule_in_spanish_french_or_portuguese_restates_the_english_one() -> None:
    assert compare_texts("Contesta siempre en español.", "Always answer in Spanish.").same_lesson
    assert compare_texts("Habla siempre en castellano.", "Responde siempre en español.").same_lesson
    assert compare_texts("Toujours répondre en français.", "Reply in French at all times.").same_lesson
    assert compare_texts("Responda sempre em português.", "Always respond in Portuguese.").same_lesson
    assert compare_texts("Rispondi sempre in italiano.", "Always reply in Italian.").same_lesson
    assert compare_texts("Всегда отвечай на русском языке.", "Always respond in Russian.").same_lesson
    assert not compare_texts("Пиши комментарии в коде на английском.", "Всегда отвечай на русском языке.").same_lesson


def test_a_language_s_stop_words_are_no_evidence() -> None:
    # Portuguese articles and prepositions ("o", "de", "em") are no stems; its words are English ones.
    assert Features.of("Use o servidor de desenvolvimento em cada projeto.").stems == {"server", "dev", "projeto"}
    assert not compare_texts("Escreva os testes em inglês.", "Use o servidor de desenvolvimento em casa.").same_lesson


def test_japanese_and_chinese_rules_are_read_between_their_particles() -> None:
    assert compare_texts("常に日本語で回答してください。", "Respond in Japanese.").same_lesson
    assert compare_texts("请始终用中文回复", "Always reply in Chinese.").same_lesson
    # The particles left between the words read ("で", "の") are not shared words.
    assert not compare_texts("テストは日本語で書く", "常に日本語で回答してください。").same_lesson


def test_another_language_for_one_thing_is_another_fact() -> None:
    verdict = compare_texts("Commit messages: 日本語で書く", "Write commit messages in English.")
    assert [c.slot for c in verdict.conflicts] == ["language"]
    assert verdict.correction  # same subject, the value changed: an update, not a new entry
    # Code in English and comments in Korean gives comments another language than English.
    verdict = compare_texts("Code in English, but comments in Korean.", "All code comments are written in English.")
    assert "language" in [c.slot for c in verdict.conflicts]


def test_a_language_named_against_none_is_another_rule_on_that_thing() -> None:
    # The object (commit messages, comments) is all they share.
    for a, b in (("Write commit messages in English.", "Commit messages follow the Conventional Commits format."),
                 ("Code comments are written in Japanese.", "No comments that restate what the code does.")):
        verdict = compare_texts(a, b)
        assert not verdict.same_lesson and not verdict.correction
        assert [c.slot for c in verdict.conflicts][:1] == ["aspect"]


def test_a_language_always_is_not_the_language_on_a_condition() -> None:
    verdict = compare_texts("Reply in Spanish when the question is asked in Spanish.",
                            "Always reply in Spanish, without exception.")
    assert [c.slot for c in verdict.conflicts] == ["scope"]
    assert compare_texts("Always reply in Spanish.", "Reply in Spanish, whatever happens.").same_lesson


def test_a_command_says_what_it_does() -> None:
    # The dev server named by its command on one side and described on the other.
    assert compare_texts("Never start the development server yourself.", "Do not run `pnpm dev`.").same_lesson
    assert compare_texts("Ne jamais lancer `yarn dev`.", "Do not run `yarn dev` yourself.").same_lesson
    # Named only by the command, the dev server weighs as a word quoted: it does not make two
    # rules on the one command line alike.
    assert not compare_texts("Never start the dev server.", "Use `pnpm dev` with the proxy config.").same_lesson


def test_a_language_given_to_a_list_is_given_to_each_thing_in_it() -> None:
    # The list before the language is one clause; a comma after a language ends one.
    assert compare_texts("Mis respuestas, explicaciones y preguntas serán siempre en español.",
                         "Responde siempre en español.").same_lesson
    verdict = compare_texts("Plan in English, reply to the user in German.", "Always reply in German.")
    assert verdict.same_lesson


def test_a_rule_naming_only_a_language_is_the_agent_s_language() -> None:
    # "All work in Korean" says what language the agent replies in.
    assert compare_texts("모든 작업은 한국어로 진행합니다", "Respond in Korean.").same_lesson
    assert not compare_texts("모든 작업은 한국어로 진행합니다", "Write code comments in Korean.").same_lesson


def test_french_and_german_negations_after_the_verb_reject_it() -> None:
    assert english("N'ajoutez jamais de commentaires.").split() == ["never", "add", "comments."]
    assert english("Schreibe nie Kommentare.").split() == ["never", "write", "comments."]
    for text in ("N'ajoutez jamais de commentaires.", "Schreibe nie Kommentare."):
        assert compare_texts(text, "Never add comments.").same_lesson
        assert not compare_texts(text, "Add comments.").same_lesson
    assert compare_texts("Ne lancez jamais `pnpm dev` vous-même.", "Never run `pnpm dev` yourself.").same_lesson


def test_whom_a_language_rule_addresses_is_not_what_it_gives_the_language_to() -> None:
    # The user, the developer, a stock clause's words: replies in Japanese either way.
    assert compare_texts("Korean for the user, always.", "Always reply in Korean.").same_lesson
    assert compare_texts("Use Japanese for conversations with the developer.",
                         "Give every reply in Japanese.").same_lesson
    assert compare_texts("除非用户明确要求，否则所有回复都使用中文",
                         "Reply in Chinese unless the user asks otherwise.").same_lesson


def test_a_command_line_is_what_it_does() -> None:
    assert compare_texts("Never force push.", "Do not run `git push --force origin main`.").same_lesson
    assert compare_texts("Never discard uncommitted changes.", "Never run `git reset --hard`.").same_lesson
    assert compare_texts("Lint before every commit.", "Run `ruff check .` before every commit.").same_lesson
    # a command doing something else is no rewording
    assert not compare_texts("Never force push.", "Do not run `git push origin main`.").same_lesson


def test_including_in_any_language_marks_examples() -> None:
    assert english("Toda la comunicación, incluyendo los resúmenes, en español.").split()[2] == "including"
    assert english("Tout le code, y compris les tests, doit être en anglais.").split()[:4] == [
        "all", "code,", "including", "tests,"]


def test_a_prohibition_in_another_language_is_no_instruction() -> None:
    # One negation word in Portuguese (accented: Portuguese however short the line), Chinese
    # negations, and Japanese and Korean ones at the end of the sentence.
    for forbids, asks in (("Não use npm neste projeto.", "Use npm neste projeto."),
                          ("请勿提交 .env 文件。", "提交 .env 文件前先检查。"),
                          ("npm を使わないでください。", "npm を使ってください。"),
                          ("コードにコメントを書かないでください。", "コードには必ずコメントを書いてください。")):
        assert not compare_texts(forbids, asks).same_lesson, forbids
    assert english("npm を使わないでください。").split()[:2] == ["never", "npm"]


def test_a_word_inside_a_longer_one_is_not_read() -> None:
    # 当 ("when") inside 当前 ("current"), 提交 ("commit") inside 提交表单 ("submit a form").
    assert "when" not in english("当前版本的注释").split()
    assert "commit" not in english("提交表单之前先验证").split()
