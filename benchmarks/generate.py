"""Synthetic workspaces for benchmarks: LTM entries written as text, STM filled through STMStore.

Memories and entries are built from word lists around a fixed set of "facts", each said in several
ways by several agents, so a dream meets both near-duplicates and distinct items, as in real use.

    python benchmarks/generate.py DIR --memories 100000 --entries 10000
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
if str(SRC) not in sys.path:  # runnable from a checkout without installing the package
    sys.path.insert(0, str(SRC))

from dreamtui.model import FEEDBACK_CONFIRMED, FEEDBACK_FLAGGED, NewMemory  # noqa: E402
from dreamtui.store.stm import STMStore  # noqa: E402

SYSTEMS = ["postgres", "redis", "pytest", "docker", "alembic", "webpack", "node", "nginx", "celery",
           "kafka", "terraform", "github actions", "poetry", "mypy", "eslint", "s3", "grpc",
           "sqlite", "kubernetes", "vite", "django", "fastapi", "react", "rust toolchain"]
PLACES = ["in CI", "on the staging cluster", "in the dev container", "on macOS laptops",
          "in the nightly job", "during integration tests", "behind the VPN", "in the monorepo root",
          "after a fresh clone", "in the release pipeline"]
SYMPTOMS = ["fails with a timeout", "refuses connections", "reports a schema mismatch",
            "hangs without output", "uses the wrong port", "picks up a stale cache",
            "runs out of memory", "rejects the lockfile", "loses environment variables",
            "prints a permission error", "silently skips tests", "resolves the wrong version"]
FIXES = ["set the port explicitly to {n}", "run `make reset-{w}` first", "pin the version to 3.{n}",
         "export {W}_HOST before starting", "clear ~/.cache/{w} and retry",
         "add --no-cache to the build step", "raise the limit to {n} MB",
         "use the service name instead of localhost", "run the migration before seeding",
         "restart the {w} container after config changes"]
OPENERS = ["Noticed that", "Turns out", "Heads up:", "Confirmed again that", "FYI", "Observed:",
           "It looks like", "Learned today that"]
AGENTS = ["claude-code-alice", "claude-code-bob", "codex-ci", "cursor-dana", "custom-bot",
          "claude-code-erin"]
TYPES = ["observation", "failure", "code_snippet"]
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
# When the memories reach the queue: the day before the benchmarks' dreams (2026-11-29 03:00).
SUBMITTED = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)


class SeededIds:
    """Memory and lease ids drawn from the seed: the same workspace on every run, so two versions
    of the code dream on identical input and their proposals can be compared line for line."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def uuid4(self) -> str:
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    def token_hex(self, nbytes: int) -> str:
        return self._rng.getrandbits(8 * nbytes).to_bytes(nbytes, "big").hex()


@dataclass(frozen=True)
class Fact:
    system: str
    place: str
    symptom: str
    fix: str
    tags: tuple[str, ...]

    @property
    def title(self) -> str:
        return f"{self.system.capitalize()} {self.symptom} {self.place}"


def _facts(rng: random.Random, count: int) -> list[Fact]:
    facts = []
    for _ in range(count):
        system = rng.choice(SYSTEMS)
        word = system.split()[0]
        fix = rng.choice(FIXES).format(n=rng.randint(2, 9999), w=word, W=word.upper())
        tags = tuple(dict.fromkeys([word, rng.choice(["ci", "testing", "database", "build",
                                                      "deploy", "tooling", "infra"])]))
        facts.append(Fact(system, rng.choice(PLACES), rng.choice(SYMPTOMS), fix, tags))
    return facts


def _say(rng: random.Random, fact: Fact) -> tuple[str, str]:
    """One agent's wording of a fact: same substance, varied phrasing (near-duplicates)."""
    title = fact.title if rng.random() < 0.5 else f"{fact.system} {fact.symptom}"
    content = (f"{rng.choice(OPENERS)} {fact.system} {fact.symptom} {fact.place}. "
               f"Fix: {fact.fix}.")
    if rng.random() < 0.3:
        content += f" Took {rng.randint(2, 90)} minutes to find."
    return title[:120], content


def memory_records(count: int, seed: int = 7,
                   slugs: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """JSON-ready memory records; with `slugs`, some are confirmations and flags against them."""
    rng = random.Random(seed)
    facts = _facts(rng, max(1, count // 8))
    for i in range(count):
        roll = rng.random()
        if slugs and roll < 0.04:
            target = rng.choice(slugs)
            yield {"type": FEEDBACK_CONFIRMED, "title": f"confirmed {target}",
                   "content": f"The guidance marked [mem: {target}] helped.",
                   "agent_id": rng.choice(AGENTS), "metadata": {"target": target}}
            continue
        if slugs and roll < 0.06:
            target = rng.choice(slugs)
            yield {"type": FEEDBACK_FLAGGED, "title": f"flagged {target}",
                   "content": f"The context for {target} was wrong {rng.choice(PLACES)}.",
                   "agent_id": rng.choice(AGENTS), "metadata": {"targets": [target]}}
            continue
        # Most memories repeat a known fact; a fifth are one-offs that belong to no cluster.
        fact = rng.choice(facts) if rng.random() < 0.8 else _facts(rng, 1)[0]
        title, content = _say(rng, fact)
        yield {"type": rng.choice(TYPES), "title": title, "content": content,
               "agent_id": rng.choice(AGENTS), "tags": list(fact.tags),
               "metadata": {"session": f"s-{rng.randint(1, count // 20 + 1)}"},
               "idempotency_key": f"gen:{seed}:{i}"}


def write_jsonl(path: Path, n: int, seed: int = 7) -> Path:
    """n memory records, one JSON object a line, for `dreamtui submit --jsonl`."""
    with path.open("w", encoding="utf-8") as out:
        for record in memory_records(n, seed):
            out.write(json.dumps(record) + "\n")
    return path


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _flow(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


def _entry_text(rng: random.Random, fact: Fact, slug: str, kind: str, created: datetime,
                related: list[str]) -> str:
    updated = created + timedelta(days=rng.randint(0, 60), minutes=rng.randint(0, 600))
    sources = [f"stm:{uuid.UUID(int=rng.getrandbits(128), version=4)}"
               for _ in range(rng.randint(1, 4))]
    lines = ["---", f"title: {fact.title}", f"slug: {slug}", f"type: {kind}",
             f"tags: {_flow(list(fact.tags))}", f"created_at: {_iso(created)}",
             f"updated_at: {_iso(updated)}", f"related: {_flow(related)}",
             f"sources: {_flow(sources)}"]
    if rng.random() < 0.4:
        lines += [f"confirmations: {rng.randint(1, 12)}", f"last_confirmed: {_iso(updated)}"]
    if rng.random() < 0.05:
        lines += [f"flags: {rng.randint(1, 3)}", f"last_flagged: {_iso(updated)}"]
    if rng.random() < 0.03:
        lines.append("importance: pinned")
    lines.append("---")
    guidance = f"When {fact.system} {fact.symptom} {fact.place}, {fact.fix}."
    details = (f"Seen by {rng.randint(1, 5)} agents. The symptom shows up as "
               f"`{fact.system.split()[0]}: {fact.symptom}` in the logs.")
    return "\n".join(lines) + f"\n{guidance}\n\n{details}\n"


def write_entries(memory_root: Path, count: int, seed: int = 7) -> list[str]:
    """`count` LTM entries (about 60% topics, 40% incidents); returns their slugs."""
    rng = random.Random(seed + 1)
    facts = _facts(rng, count)
    slugs: list[str] = []
    taken: set[str] = set()
    for i, fact in enumerate(facts):
        base = "-".join(f"{fact.system} {fact.symptom}".replace("-", " ").split()[:6])
        slug = base if base not in taken else f"{base}-{i}"
        taken.add(slug)
        created = START + timedelta(days=rng.randint(0, 320), minutes=rng.randint(0, 1440))
        kind = "topic" if rng.random() < 0.6 else "incident"
        if kind == "topic":
            path = memory_root / "topics" / f"{slug}.md"
        else:
            path = (memory_root / "incidents" / created.strftime("%Y-%m")
                    / f"{created.strftime('%Y-%m-%d')}-{slug}.md")
        path.parent.mkdir(parents=True, exist_ok=True)
        related = rng.sample(slugs, k=min(len(slugs), rng.randint(0, 2)))
        path.write_text(_entry_text(rng, fact, slug, kind, created, related), encoding="utf-8")
        slugs.append(slug)
    return slugs


def generate(root: Path, memories: int, entries: int, seed: int = 7) -> Path:
    """A workspace at `root` with `entries` LTM files and `memories` STM rows (a fifth consumed);
    the same seed gives the same files and rows, ids and times included."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "dreamtui.yaml").write_text("version: 1\n", encoding="utf-8")
    memory_root = root / "workspace" / "memory"
    memory_root.mkdir(parents=True, exist_ok=True)
    (root / "workspace" / "context").mkdir(parents=True, exist_ok=True)
    slugs = write_entries(memory_root, entries, seed)
    records = memory_records(memories, seed, slugs)
    with STMStore(root / "stm.db", clock=lambda: SUBMITTED, ids=SeededIds(seed)) as store:
        store.submit_many(
            NewMemory(type=r["type"], title=r["title"], content=r["content"],
                      agent_id=r["agent_id"], tags=tuple(r.get("tags", ())),
                      metadata=r.get("metadata", {}), idempotency_key=r.get("idempotency_key"))
            for r in records)
        # The oldest fifth has been through a dream already, as in a workspace in use.
        lease = store.claim(limit=max(1, memories // 5), lease_minutes=60)
        if lease is not None:
            store.consume(lease.id, [m.id for m in lease.memories])
            store.end_lease(lease.id)
    return root


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path, help="where to create the workspace")
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--entries", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    root = generate(args.dir, args.memories, args.entries, args.seed)
    print(f"generated {root}: {args.memories} memories, {args.entries} entries")


if __name__ == "__main__":
    _main()
