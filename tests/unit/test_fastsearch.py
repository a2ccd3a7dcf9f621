"""`intake.fastsearch`: a rule's pattern is run only on texts that could hold a match, and then
finds exactly what the pattern finds."""

from __future__ import annotations

import random
import re

import pytest

from dreamtui.intake import corrections, lessons
from dreamtui.intake.codex import frictions
from dreamtui.intake.fastsearch import _runs, _split, matcher, screen

_RULES = [value for module in (lessons, frictions, corrections) for value in vars(module).values()
          if isinstance(value, re.Pattern) and isinstance(value.pattern, str)]


def test_the_runs_are_what_every_match_holds() -> None:
    assert _runs(re.compile(r"permission denied: \S|\bEPERM\b", re.IGNORECASE)) == [
        "permission denied: ", "eperm"]
    # A group the match cannot skip gives one run per alternative; an optional one gives none.
    assert _runs(re.compile(r"(?:System error|Errore di sistema) 5\b")) == [
        "System error", "Errore di sistema"]
    assert _runs(re.compile(r"x(?:abcd)?y")) is None
    assert _runs(re.compile(r"(?:ab)+cd|wxyz")) is None  # "cd" is too short to test first
    # Under IGNORECASE a run is lower-cased and stops at a non-ASCII letter.
    assert _runs(re.compile(r"Erreur système", re.IGNORECASE)) == ["erreur syst"]
    assert _runs(re.compile(r"(?i:abcd)ef|ghij")) is None  # a group with its own flags: not read


def _variants(rng: random.Random, run: str) -> list[str]:
    """Texts around a run: as it is, case changed, a letter replaced by a character that folds
    to it under IGNORECASE, cut short, inside other words and lines."""
    folds = {"i": "\u0130\u0131", "s": "\u017f", "k": "\u212a"}
    out = [run, run.upper(), run.swapcase(), run[:-1], f"x{run}y", f"line one\n{run}\nline three"]
    for letter, by in folds.items():
        if letter in run.lower():
            for char in by:
                out.append(run.lower().replace(letter, char, 1))
    noise = "".join(rng.choice("ab \n:'`-_.1é错") for _ in range(40))
    out += [noise + run + noise, noise]
    return out


@pytest.mark.parametrize("pattern", _RULES, ids=lambda p: p.pattern[:30])
def test_the_rules_find_the_same_matches_searched_fast(pattern: re.Pattern[str]) -> None:
    rng = random.Random(7)
    runs = _runs(pattern) or []
    texts = [text for run in runs for text in _variants(rng, run)]
    # Texts that do match, built from the pattern's own phrases with the rest of a line.
    texts += [f"{text} denied by the sandbox: /code/app" for text in texts[:20]]
    matches, could = matcher(pattern), screen(pattern)
    for text in texts:
        expected = pattern.search(text) is not None
        assert matches(text) is expected, text
        assert could(text) or not expected, text


def test_the_alternatives_are_split_as_re_reads_them() -> None:
    assert _split(re.compile(r"a[|(]b|c\|d|(?:e|f)g|[]|]h")) == ["a[|(]b", r"c\|d", "(?:e|f)g", "[]|]h"]
    assert _split(re.compile(r"(?:e|f)g")) is None  # one alternative: nothing to split


def test_a_text_without_any_run_never_reaches_the_pattern() -> None:
    calls: list[str] = []

    class Spy:
        pattern, flags = r"(?:bash|zsh): command not found", re.IGNORECASE

        def search(self, text: str) -> None:
            calls.append(text)

    matches = matcher(Spy())  # type: ignore[arg-type]
    matches("ls: src: listing done")
    matches("BASH: NPX: COMMAND NOT FOUND")
    assert calls == ["BASH: NPX: COMMAND NOT FOUND"]


def test_a_run_shared_by_alternatives_is_looked_for_once() -> None:
    scans: list[str] = []

    class Text(str):
        def __contains__(self, run: object) -> bool:
            scans.append(str(run))
            return super().__contains__(str(run))

    matches = matcher(re.compile(r"exit status \d+ from|exit status [a-z]+ in|no such host"))
    assert matches(Text("the build went fine")) is False
    assert sorted(scans) == ["exit status ", "no such host"]  # not "exit status " twice
    assert matches(Text("make: exit status 2 from cc")) is True
