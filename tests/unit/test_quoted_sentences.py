"""A sentence never ends inside a quotation: a mined memory quotes the person's and the agent's
words whole, and an entry's guidance keeps them whole."""

from __future__ import annotations

from dreamtui.dream.proposals import guidance_and_rest, split_sentences

MINED = ("Do not run `rm -rf vendor && make deps`: the person rejected it at the permission prompt and "
         "said “Keep vendor. This repo pins its deps: run make sync.”.\n"
         "The agent had called: shell rm -rf vendor && make deps\n"
         "The agent had said: “The cache is stale. I'll clear vendor and fetch again.”")


def test_a_quotation_is_one_sentence_with_what_leads_to_it() -> None:
    sentences = split_sentences(MINED)
    assert sentences[0].endswith("“Keep vendor. This repo pins its deps: run make sync.”.")
    assert sentences[2] == "The agent had said: “The cache is stale. I'll clear vendor and fetch again.”"


def test_the_guidance_quotes_the_person_whole() -> None:
    guidance, rest = guidance_and_rest("Keep vendor.", MINED)
    assert guidance.endswith("“Keep vendor. This repo pins its deps: run make sync.”.")
    assert not any(part.startswith("I'll clear") for part in rest)


def test_sentences_outside_quotations_still_split() -> None:
    assert split_sentences("Run “make sync” first. Then build.") == ["Run “make sync” first.", "Then build."]
