"""What the project's docs cost a dream (dream/known.py): reading them, and checking a batch.

Run: `PYTHONPATH=src python benchmarks/bench_known.py [--quick]`. A generated code project holds
a CLAUDE.md and AGENTS.md of 200 rules each (CLAUDE.md also a table of 50 rows and a shell block
of 50 commented commands), 20 `.cursor/rules` files, DECISIONS.md files in a tree of 2,000
folders (with a node_modules the search must skip) and one file over the size cap; a batch of
memories (a tenth restating a rule, a tenth contradicting one, the rest about other things, a
tenth of all with an aside) is checked against them. Targets: reading the project in at most
1 s, at most 5x the checking time for 4x the memories (2,500 → 10,000), i.e. near-linear growth,
and 10,000 memories checked in at most 5 s of CPU. Generated text: the timings say what the work
costs; the answers (rules restated word for word called known, rules given another port called
known) say whether the rule meant is found among look-alikes differing by names and numbers, not
how well rewordings match (bench_quality.py measures that on real text).
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dreamtui.dream.known import MAX_FILE_BYTES, KnownIndex, KnownMatch, read_corpus
from dreamtui.model import Memory

MEMORIES = (2_500, 10_000)
TARGET_READ_S = 1.0
TARGET_CHECK_S = 5.0
TARGET_RATIO = 5.0
TARGET_COPIES = 0.95
TOOLS = ("pnpm", "yarn", "uv", "poetry", "ruff", "black", "pytest", "vitest", "docker", "alembic")
NOUNS = ("migration", "fixture", "port", "cache", "schema", "branch", "release", "token", "queue",
         "worker", "endpoint", "bundle", "lockfile", "container", "index", "secret", "log", "build")
VERBS = ("run", "use", "never commit", "always check", "keep", "prefer", "avoid", "document", "pin")
# Most memories are about things the docs never mention: their own words.
OTHER = ("invoice", "webhook", "tenant", "upload", "thumbnail", "locale", "coupon", "refund", "avatar",
         "session", "report", "export", "timezone", "quota", "audit", "search", "payment", "email")


def _rule(rng: random.Random, n: int) -> str:
    return (f"{rng.choice(VERBS).capitalize()} `{rng.choice(TOOLS)} {rng.choice(NOUNS)}-{n}` "
            f"for the {rng.choice(NOUNS)} and the {rng.choice(NOUNS)} on port {8000 + n}.")


def _project(root: Path, rng: random.Random, scale: int) -> list[str]:
    """The project's files; returns the rules written, for the memories to restate."""
    (root / ".git").mkdir(parents=True)
    rules: list[str] = []
    for name in ("CLAUDE.md", "AGENTS.md"):
        lines = [_rule(rng, len(rules) + i) for i in range(200 // scale)]
        rules += lines
        (root / name).write_text("# Rules\n\n" + "".join(f"- {line}\n" for line in lines), encoding="utf-8")
    # A table and a commented shell block: rules too, each row and each command with its comment.
    rows = [(f"`{rng.choice(TOOLS)} {rng.choice(NOUNS)}-{n}`", f"checks the {rng.choice(NOUNS)} on port {7000 + n}")
            for n in range(50 // scale)]
    commands = [(f"{rng.choice(TOOLS)} {rng.choice(NOUNS)}-{n} --all", f"Rebuild the {rng.choice(NOUNS)} {n}")
                for n in range(50 // scale)]
    rules += [f"{command}: {what}" for command, what in rows]
    rules += [f"{what}: `{command}`" for command, what in commands]
    with (root / "CLAUDE.md").open("a", encoding="utf-8") as file:
        file.write("\n## Commands\n\n| command | what |\n| --- | --- |\n"
                   + "".join(f"| {command} | {what} |\n" for command, what in rows)
                   + "\n```bash\n" + "".join(f"# {what}\n{command}\n" for command, what in commands) + "```\n")
    (root / ".cursor" / "rules").mkdir(parents=True)
    for number in range(20):
        line = _rule(rng, len(rules))
        rules.append(line)
        (root / ".cursor" / "rules" / f"r{number}.mdc").write_text(f"---\nglobs: ['*']\n---\n- {line}\n",
                                                                  encoding="utf-8")
    for number in range(2_000 // scale):
        folder = root / "src" / f"pkg{number // 50}" / f"mod{number}"
        folder.mkdir(parents=True)
        if number % 100 == 0:
            (folder / "DECISIONS.md").write_text(f"- {_rule(rng, len(rules))}\n", encoding="utf-8")
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "DECISIONS.md").write_text("- not ours\n", encoding="utf-8")
    (root / "GEMINI.md").write_text("x" * (MAX_FILE_BYTES + 1), encoding="utf-8")
    return rules


def _memories(rng: random.Random, rules: list[str], count: int) -> list[Memory]:
    at = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
    out = []
    for i in range(count):
        kind = i % 10
        if kind == 0:
            text = rng.choice(rules)  # a restatement
        elif kind == 1:
            # a contradiction (another port), or a restatement when the rule gives no "port 8…"
            text = rng.choice(rules).replace("port 8", "port 9", 1)
        else:
            text = (f"The {rng.choice(OTHER)} {rng.choice(OTHER)} {i} fails when the "
                    f"{rng.choice(OTHER)} {rng.choice(OTHER)} is empty; check the {rng.choice(OTHER)} first.")
            if kind == 2:  # an aside: read twice, with and without it
                text += f" (see the {rng.choice(OTHER)} runbook — step {i})"
        out.append(Memory(id=f"m-{i}", tenant_id="default", agent_id=f"agent-{i % 7}", type="observation",
                          title=" ".join(text.split()[:6]), content=text, tags=(), metadata={},
                          submitted_at=at))
    return out


def _answers(batch: list[Memory], found: list[KnownMatch | None], rules: set[str]) -> list[dict[str, Any]]:
    """How the generated restatements (a rule word for word) and contradictions (a rule with
    another port) were answered: the rules are look-alikes differing by names and numbers, so
    this says whether the one meant is found among them."""
    copies = [f for m, f in zip(batch, found, strict=True) if m.content in rules]
    changed = [f for i, (m, f) in enumerate(zip(batch, found, strict=True)) if i % 10 == 1 and m.content not in rules]
    recognised = sum(1 for f in copies if f is not None and f.kind == "known")
    wrongly = sum(1 for f in changed if f is not None and f.kind == "known")
    return [{"name": f"known: rules restated word for word called known ({recognised}/{len(copies)})",
             "value": recognised / max(1, len(copies)), "unit": "", "target": f">= {TARGET_COPIES:g}",
             "ok": recognised / max(1, len(copies)) >= TARGET_COPIES},
            {"name": f"known: rules with another port called known ({wrongly}/{len(changed)})",
             "value": float(wrongly), "unit": "", "target": "0", "ok": wrongly == 0}]


def run(quick: bool = False) -> list[dict[str, Any]]:
    scale = 10 if quick else 1
    rng = random.Random(11)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-known-") as folder:
        root = Path(folder) / "project"
        rules = _project(root, rng, scale)
        started = time.perf_counter()
        corpus = read_corpus(root)
        read_s = time.perf_counter() - started
        rows.append({"name": f"known: read {len(corpus.files)} files, {len(corpus.rules):,} rules "
                             f"({len(corpus.problems)} skipped)",
                     "value": read_s, "unit": "s", "target": f"<= {TARGET_READ_S:g} s",
                     "ok": read_s <= TARGET_READ_S})
        timings = []
        for count in (n // scale for n in MEMORIES):
            batch = _memories(rng, rules, count)
            # CPU time: on a shared machine wall time measures the others' load (growth ratios
            # from 1.9 to 5.4x for one build).
            started = time.process_time()
            index = KnownIndex.build(corpus, batch)
            found = [index.check(m) for m in batch]
            seconds = time.process_time() - started
            timings.append(seconds)
            known = sum(1 for f in found if f is not None and f.kind == "known")
            contra = sum(1 for f in found if f is not None and f.kind == "contradicts")
            big = count == MEMORIES[-1] // scale
            rows.append({"name": f"known: check {count:,} memories ({known:,} known, {contra:,} contradicting)",
                         "value": seconds, "unit": "s",
                         "target": f"<= {TARGET_CHECK_S:g} s" if big and not quick else "",
                         "ok": seconds <= TARGET_CHECK_S if big and not quick else None})
            if big:
                rows += _answers(batch, found, set(rules))
    ratio = timings[-1] / timings[0]
    rows.append({"name": f"known: growth {MEMORIES[0] // scale:,} → {MEMORIES[-1] // scale:,} memories",
                 "value": ratio, "unit": "x", "target": f"<= {TARGET_RATIO:g}x", "ok": ratio <= TARGET_RATIO})
    return rows


def main(argv: list[str]) -> int:
    rows = run(quick="--quick" in argv)
    print(f"{'benchmark':64} {'value':>8} {'unit':4} {'target':>9}  ok")
    for row in rows:
        ok = "" if row["ok"] is None else ("yes" if row["ok"] else "NO")
        print(f"{row['name']:64} {row['value']:>8.2f} {row['unit']:4} {row['target']:>9}  {ok}")
    return 0 if all(row["ok"] is not False for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
