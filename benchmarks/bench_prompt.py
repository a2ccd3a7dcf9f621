"""How big the LLM engines' prompt is, against a naive prompt holding the whole batch and the whole LTM.

Run: `PYTHONPATH=src python benchmarks/bench_prompt.py [--quick]`. A batch of 1,000 memories
(generate.py's synthetic mix: near-duplicates from several agents, one-offs, feedback) against
2,000 live entries, built in memory. Target: our prompt within `dream.token_budget` is at most 20%
of the naive prompt (characters; tokens are estimated as characters / 4). Also shown: our prompt
with no budget at all (clustering and top-k relating alone) and what the budget left out.
`--quick` uses a tenth of the sizes and judges nothing.
"""

from __future__ import annotations

import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dreamtui.dream.engines.base import DreamInput  # noqa: E402
from dreamtui.dream.engines.llm.prompt import build_prompt, estimate_tokens, naive_prompt  # noqa: E402
from dreamtui.entry.codec import parse_entry, render_entry  # noqa: E402
from dreamtui.model import Memory  # noqa: E402
from dreamtui.store.ltm import LTMSnapshot, entry_path  # noqa: E402
from dreamtui.workspace.config import Config  # noqa: E402
from generate import FIXES, PLACES, START, SYMPTOMS, SYSTEMS, memory_records  # noqa: E402

MEMORIES = 1_000
ENTRIES = 2_000
TARGET_RATIO = 0.20
UNBOUNDED = 10_000_000  # a token budget nothing reaches
NOW = datetime(2026, 11, 29, 3, 0, tzinfo=UTC)


def synthetic_entries(count: int, seed: int = 8) -> LTMSnapshot:
    """`count` live entries in generate.py's style (title, tags, guidance, a details paragraph)."""
    rng = random.Random(seed)
    snapshot = LTMSnapshot()
    for number in range(count):
        system, place, symptom = rng.choice(SYSTEMS), rng.choice(PLACES), rng.choice(SYMPTOMS)
        word = system.split()[0]
        fix = rng.choice(FIXES).format(n=rng.randint(2, 9999), w=word, W=word.upper())
        slug = f"{'-'.join(f'{system} {symptom}'.split()[:5])}-{number}"
        kind = "topic" if rng.random() < 0.6 else "incident"
        created = START + timedelta(days=rng.randint(0, 320))
        meta = {"title": f"{system.capitalize()} {symptom} {place}", "slug": slug, "type": kind,
                "tags": [word, rng.choice(["ci", "testing", "database", "build", "deploy"])],
                "created_at": created, "updated_at": created, "sources": [f"stm:seed-{number}"]}
        if rng.random() < 0.4:
            meta["confirmations"] = rng.randint(1, 12)
        body = (f"When {system} {symptom} {place}, {fix}.\n\nSeen by {rng.randint(1, 5)} agents. The "
                f"symptom shows up as `{word}: {symptom}` in the logs.\n")
        path = entry_path(slug, kind, created)
        snapshot.entries[path] = parse_entry(render_entry(meta, body), path)
    return snapshot


def synthetic_batch(count: int, slugs: list[str], seed: int = 7) -> list[Memory]:
    """generate.py's memory records as claimed Memory objects."""
    batch = []
    for number, record in enumerate(memory_records(count, seed, slugs)):
        batch.append(Memory(id=f"00000000-0000-4000-8000-{number:012d}", tenant_id="default",
                            agent_id=record["agent_id"], type=record["type"], title=record["title"],
                            content=record["content"], tags=tuple(record.get("tags", ())),
                            metadata=record.get("metadata", {}),
                            submitted_at=NOW - timedelta(minutes=count - number)))
    return batch


def _row(name: str, value: float, unit: str, target: str = "", ok: bool | None = None) -> dict[str, Any]:
    return {"name": name, "value": value, "unit": unit, "target": target, "ok": ok}


def run(quick: bool = False) -> list[dict[str, Any]]:
    memories, entries = (MEMORIES // 10, ENTRIES // 10) if quick else (MEMORIES, ENTRIES)
    snapshot = synthetic_entries(entries)
    batch = synthetic_batch(memories, sorted(snapshot.slugs()))
    config = Config()
    data = DreamInput(batch=batch, snapshot=snapshot, config=config, now=NOW)
    naive = naive_prompt(data, "tool")
    started = time.perf_counter()
    ours = build_prompt(data, "tool")
    seconds = time.perf_counter() - started
    unbounded = build_prompt(data, "tool", budget=UNBOUNDED)
    ratio = ours.chars / len(naive)
    size = f"{memories} memories x {entries} entries"
    # The target is set for the full size; a tenth of it is a smoke run, judged by nothing.
    target, ok = (f"<= {TARGET_RATIO}", ratio <= TARGET_RATIO) if not quick else ("", None)
    return [
        _row(f"prompt: naive ({size})", len(naive), "chars"),
        _row("prompt: naive, estimated", estimate_tokens(naive), "tokens"),
        _row(f"prompt: ours (token_budget {config.dream.token_budget})", ours.chars, "chars"),
        _row("prompt: ours, estimated", ours.tokens, "tokens", f"<= {config.dream.token_budget}",
             ours.tokens <= config.dream.token_budget),
        _row("prompt: ours / naive", ratio, "ratio", target, ok),
        _row("prompt: memories shown to the model", len(ours.aliases), "memories"),
        _row("prompt: memories left out by the budget", len(ours.left_out), "memories"),
        _row("prompt: ours without a budget", unbounded.chars, "chars"),
        _row("prompt: ours without a budget / naive", unbounded.chars / len(naive), "ratio"),
        _row("prompt: clusters shown (no budget)", len(unbounded.clusters), "clusters"),
        _row("prompt: related entries shown (no budget)", len(unbounded.entries), "entries"),
        _row("prompt: build time (clustering + relating)", seconds, "s"),
    ]


def main(argv: list[str]) -> int:
    rows = run(quick="--quick" in argv)
    print(f"{'benchmark':58} {'value':>14} {'unit':9} {'target':>10}  ok")
    for row in rows:
        ok = "" if row["ok"] is None else ("yes" if row["ok"] else "NO")
        print(f"{row['name']:58} {row['value']:>14,.3f} {row['unit']:9} {row['target']:>10}  {ok}")
    return 0 if all(row["ok"] is not False for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
