"""What a careful reviewer of a dream would otherwise have edited (issue 11, the demo target), as
classes of wording: a guidance line carrying its story, a correction leaving the caveat it
answers on the bundle line, an incident filed under the day it was told rather than the day it
happened, a discard reason in scores. Fixtures are written for these tests (not the sample's)."""

from __future__ import annotations

from dreamtui.deliver.decisions import decision_section
from dreamtui.deliver.skills import skill_text
from dreamtui.dream.guidance import has_steps, lesson, split_story
from dreamtui.dream.proposals import split_sentences
from dreamtui.dream.routes import lesson_route, no_lesson
from dreamtui.entry.codec import parse_entry
from dreamtui.model import FEEDBACK_FLAGGED, Memory
from dreamtui.review.bundle import guidance_line, render_bundle
from tests.factories import NOW, entry_text, memory, snapshot_of
from tests.unit.test_content import entry_of, only
from tests.unit.test_heuristic import dream_input, proposals


def test_guidance_leaves_a_story_clause_to_the_body() -> None:
    cases = [
        # (content, the guidance, the story moved to the body)
        ("Invoice totals must use integer cents (the ledger stores BIGINT); float sums in refunds made "
         "test_refund_total flaky.",
         "Invoice totals must use integer cents (the ledger stores BIGINT).",
         "Float sums in refunds made test_refund_total flaky."),
        ("The old node:14 image crashed on arm64 runners; always build with `node:20-slim`.",
         "Always build with `node:20-slim`.", "The old node:14 image crashed on arm64 runners."),
        ("Never call `time.sleep` in handlers; I found it blocked the event loop for every request.",
         "Never call `time.sleep` in handlers.", "I found it blocked the event loop for every request."),
    ]
    for content, guidance, story in cases:
        taught = lesson("A lesson", content)
        assert taught.guidance == guidance, content
        assert taught.rest == [story], content


def test_guidance_keeps_standing_facts_and_stories_with_no_rule() -> None:
    # Participles read as adjectives and present facts are no story: the line keeps them.
    for line in (
        "Only variables prefixed APP_ reach the client bundle; others are silently undefined.",
        "Run `make schema` after editing models; autogenerate misses renamed columns.",
        "Keep fixtures in tests/fixtures; files there are ignored by the linter.",
        "Use port 8081 for the mock server; the real API listens on 8080.",
    ):
        assert split_story(line) == (line, ()), line
    # With no rule left, the story is all there is: an incident's line is not emptied.
    told = "The deploy broke checkout for ten minutes; a stale cache served old assets."
    assert split_story(told) == (told, ())


# --- a correction answers the caveat about the value it changes --------------------------------

WEAKENED = ("topics/queue-port.md", entry_text(
    "queue-port", "Queue broker port",
    "The RabbitMQ broker listens on 5672 in dev; point `BROKER_URL` at it.\n\n"
    "> Caveat (flagged 2026-11-20 by agent-b): docker-compose maps the broker to 5673 now; 5672 is "
    'refused. Quoted: "listens on 5672".\n\n'
    "> Caveat (flagged 2026-11-21 by agent-c): the management UI needs a login.",
    tags=("dev",), flags=2, last_flagged="2026-11-21T08:00:00Z", confirmations=2,
    last_confirmed="2026-11-10T08:00:00Z"))
MOVED = memory("q1", "The dev broker is on port 5673",
               "The RabbitMQ broker listens on 5673 in dev (docker-compose maps it); point `BROKER_URL` "
               "at 5673.", tags=("dev",))


def test_proposal_of_a_correction_answers_the_caveat_naming_the_old_value() -> None:
    update = only(proposals(dream_input([MOVED], snapshot_of(WEAKENED))), "update")
    entry = entry_of(update)
    assert entry.guidance.startswith("The RabbitMQ broker listens on 5673 in dev")
    # The caveat about 5672 is answered: its words stay, relabelled, and it counts no more.
    assert "> Answered (flagged 2026-11-20 by agent-b, corrected 2026-11-29): docker-compose maps" in entry.body
    assert [c for c in entry.caveats if "agent-b" in c] == []
    assert entry.flags == 1 and update.details["answered_flags"] == 1
    assert "answers 1 earlier flag" in update.rationale
    # The other caveat is about something else: it stays, and stays on the bundle line.
    line = guidance_line(entry)
    assert "management UI needs a login" in line and "5673 now" not in line


def test_proposal_of_a_correction_answering_every_caveat_clears_the_bundle_line() -> None:
    single = (WEAKENED[0], WEAKENED[1].replace(
        "\n\n> Caveat (flagged 2026-11-21 by agent-c): the management UI needs a login.", "").replace(
        "flags: 2", "flags: 1"))
    entry = entry_of(only(proposals(dream_input([MOVED], snapshot_of(single))), "update"))
    assert entry.flags == 0 and "flags" not in entry.meta
    assert guidance_line(entry) == ("- The RabbitMQ broker listens on 5673 in dev; point `BROKER_URL` at it. "
                                    "[mem: queue-port]")


# --- an incident is filed under the day it happened --------------------------------------------


def test_heuristic_files_an_incident_under_the_day_it_says_it_happened() -> None:
    # Told on 2026-11-28 (T0), about the 25th: the file is the 25th's, not the telling's.
    told_late = memory("i1", "Nightly export filled the disk",
                       "On 2026-11-25 at 02:10 UTC the nightly export filled /var on the worker; exports "
                       "must write to /data/exports.", type="failure", tags=("ops",), severity="high")
    created = only(proposals(dream_input([told_late])), "create")
    assert created.target == "incidents/2026-11/2026-11-25-nightly-export-filled-the-disk.md"
    # A day after the telling (a deadline) or years before it (a release) is not the event's.
    undated = memory("i2", "Checkout 502s during the sale",
                     "2026-11-28 14:00 checkout returned 502s until the freeze on 2026-12-24; the pool has "
                     "been too small since 2019-04-01. Raise `POOL_SIZE` before a sale.", type="failure",
                     tags=("ops",))
    created = only(proposals(dream_input([undated])), "create")
    assert created.target == "incidents/2026-11/2026-11-28-checkout-502s-during-the-sale.md"


# --- a discard says why in words a person checks -----------------------------------------------


def test_policy_discard_of_an_unmatched_flag_names_the_quote_and_the_nearest_entry() -> None:
    lint = ("topics/lint.md", entry_text("lint", "Lint before pushing",
                                         "Run `make lint` before pushing; CI runs the same target.",
                                         tags=("ci",)))
    flagged = memory("f1", "flagged context", "The context told me to run `make lint-fix`, but the "
                     "Makefile has no such target.", type=FEEDBACK_FLAGGED, quote="make lint-fix")
    reason = only(proposals(dream_input([flagged], snapshot_of(lint))), "discard").rationale
    assert reason.startswith("flag matched no live entry: no entry says “make lint-fix” (the nearest, lint, is ")
    assert reason.endswith("% alike; 85% for the quote, 70% for the observation)")
    assert "scored" not in reason and "needs" not in reason


def test_heuristic_reads_yesterday_as_the_day_before_the_telling() -> None:
    flaky = memory("i3", "Smoke suite flaky on CI", "The smoke suite failed twice on CI yesterday because the "
                   "API was not ready. Wait for `/healthz` before starting the suite.", type="failure",
                   tags=("testing",))
    created = only(proposals(dream_input([flaky])), "create")
    assert created.target == "incidents/2026-11/2026-11-27-smoke-suite-flaky-on-ci.md"  # told 2026-11-28


# --- an update and a new entry add facts, not restatements -------------------------------------


def test_proposal_adds_only_the_clause_of_another_phrasing_that_brings_a_fact() -> None:
    first = memory("l1", "Use the structured logger", "Log with `log/slog` and the request-scoped logger; "
                   "`fmt.Println` is rejected in review.", session="s1")
    other = memory("l2", "Prefer slog", "We use log/slog everywhere; get the logger from the context with "
                   "`logging.From(ctx)`.", agent="agent-b", session="s2", minutes=1)
    entry = entry_of(only(proposals(dream_input([first, other])), "create"))
    assert entry.body == ("Log with `log/slog` and the request-scoped logger; `fmt.Println` is rejected in "
                          "review.\n\nGet the logger from the context with `logging.From(ctx)`.\n"), entry.body
    assert entry.tags == ("logging",)  # the subject its words name, not the "log" of a path


def test_guidance_of_a_snippet_names_it_once() -> None:
    for title, expected in (("Table-driven test template", "Use the table-driven test template for new tests."),
                            ("Retry wrapper", "Use the retry wrapper snippet for new tests.")):
        taught = lesson(title, "```go\nfunc X() {}\n```\nUse it for new tests.")
        assert taught.guidance == expected


def test_route_value_gate_reads_a_file_described_by_only_as_trivia() -> None:
    described = memory("t1", "README is short", "The README only has two lines.")
    assert no_lesson(described) is not None
    assert no_lesson(memory("t2", "Only pnpm", "Only use pnpm in this repo.")) is None


def test_guidance_of_a_fix_told_in_the_past_drops_how_it_went() -> None:
    for content, guidance in (
        ("mypy hit its cache limit in CI; we set `cache_fine_grained = True` in setup.cfg and it passed.",
         "mypy hit its cache limit in CI; set `cache_fine_grained = True` in setup.cfg."),
        ("I pinned `grpcio` to 1.62, which fixed it.", "Pin `grpcio` to 1.62."),
    ):
        assert lesson("A fix", content).guidance == guidance, content
    # Said as a rule by its author, the outcome is part of the rule: left as written.
    assert lesson("A rule", "Run `make fmt` so the check passes.").guidance == "Run `make fmt` so the check passes."


def test_proposal_of_a_correction_changes_the_value_in_the_title_too() -> None:
    titled = ("topics/the-api-listens-on-8080.md", entry_text(
        "the-api-listens-on-8080", "The API listens on 8080",
        "`go run ./cmd/api` serves on port 8080; the web dev proxy points there.", tags=("api",)))
    moved = memory("a1", "API port changed to 9090", "`go run ./cmd/api` now serves on port 9090 (it reads PORT, "
                   "default 9090); requests to 8080 are refused.", tags=("api",))
    entry = entry_of(only(proposals(dream_input([moved], snapshot_of(titled))), "update"))
    assert entry.guidance.startswith("`go run ./cmd/api` serves on port 9090")
    assert entry.title == "The API listens on 9090" and entry.slug == "the-api-listens-on-8080"  # the id stays


# --- a list stays a list -------------------------------------------------------------------------

STEPS = ("1. Merge the release branch.\n2. Wait for CI to go green.\n3. Run `bin/release eu` from a clean "
         "checkout.\n4. Watch the error dashboard for ten minutes.")


def test_guidance_of_numbered_steps_says_when_to_follow_them_and_keeps_them_whole() -> None:
    taught = lesson("Releasing to the EU region", STEPS)
    assert taught.guidance == "For releasing to the EU region, follow the steps below."
    assert taught.rest == [STEPS]
    checklist = "Before tagging a release:\n- Bump the version in Cargo.toml.\n- Run `cargo xtask changelog`."
    taught = lesson("Release checklist", checklist)
    assert taught.guidance == "Before tagging a release, follow the steps below."
    assert taught.rest == ["- Bump the version in Cargo.toml.\n- Run `cargo xtask changelog`."]
    # A rule stated beside the steps leads; the steps stay listed under it.
    taught = lesson("Releasing", f"Always release from a clean checkout of main.\n\n{STEPS}")
    assert (taught.guidance, taught.rest) == ("Always release from a clean checkout of main.", [STEPS])


def test_guidance_of_a_bulleted_list_of_rules_is_its_best_item() -> None:
    taught = lesson("Style rules", "- Prefer f-strings.\n- Never use wildcard imports.\n- Lines stay under 100.")
    assert taught.guidance == "Never use wildcard imports."
    assert taught.rest == ["- Prefer f-strings.\n- Lines stay under 100."]


def test_route_and_skill_of_steps_under_an_intro() -> None:
    checklist = memory("k1", "Release checklist", "Before tagging a release:\n- Bump the version in Cargo.toml.\n"
                       "- Run `cargo xtask changelog`.", tags=("release",))
    created = only(proposals(dream_input([checklist])), "create")
    assert created.route == "skill"
    entry = entry_of(created)
    text = skill_text(entry, None)
    assert "description: 'Release checklist: before tagging a release.'" in text
    titled = entry_of(only(proposals(dream_input([memory("k2", "Releasing to the EU region", STEPS)])), "create"))
    assert "description: Releasing to the EU region.\n" in skill_text(titled, None)


# --- a guidance line a reader understands alone ----------------------------------------------------


def test_guidance_opening_with_a_pronoun_keeps_the_sentence_naming_it() -> None:
    taught = lesson("Use the migration linter", "The squawk linter checks every migration in CI. When it "
                    "complains, rewrite the migration the way it suggests instead of silencing the rule.")
    assert taught.guidance == ("The squawk linter checks every migration in CI; when it complains, rewrite the "
                               "migration the way it suggests instead of silencing the rule.")
    # "This service …" names its subject: no sentence is pulled in.
    taught = lesson("Gateway", "The gateway runs on 9000. This service must never call the billing DB directly "
                    "from a request handler or a cron task.")
    assert taught.guidance == ("This service must never call the billing DB directly from a request handler "
                               "or a cron task.")


def test_guidance_body_leaves_out_the_effort_a_session_spent() -> None:
    taught = lesson("Console env", "Start the console with `APP_ENV=staging bin/console` whenever you need to "
                    "look at staging data from a shell. The default env reads the local db. Took me a while to "
                    "notice.")
    assert taught.rest == ["The default env reads the local db."]
    taught = lesson("Smoke", "The smoke suite failed on CI because the API was not ready; it took us an hour to "
                    "debug. Wait for `/healthz` before starting it.")
    assert taught.rest == ["The smoke suite failed on CI because the API was not ready."]


def test_heuristic_files_a_decision_as_a_topic() -> None:
    decided = memory("d1", "Decision: HTMX for new admin pages", "We decided to build new admin pages with HTMX "
                     "instead of adding Vue components, to keep one frontend stack.", tags=("frontend",))
    created = only(proposals(dream_input([decided])), "create")
    assert created.route == "decisions" and created.target.startswith("topics/")


def test_bundle_line_of_a_snippet_or_procedure_points_at_nothing_below() -> None:
    skill = parse_entry("---\nslug: publish-docs\ntitle: Publish the docs\nroute: skill\nimportance: pinned\n---\n"
                        "For publishing the docs by hand, use the snippet below.\n\n```sh\nmake docs-publish\n```\n",
                        "topics/publish-docs.md")
    assert guidance_line(skill) == ("- Publish the docs: for publishing the docs by hand (the code and steps: "
                                    "the skill `publish-docs`). [mem: publish-docs]")
    steps = parse_entry("---\nslug: release-eu\ntitle: Releasing to the EU region\nroute: bundle\n---\n"
                        f"For releasing to the EU region, follow the steps below.\n\n{STEPS}\n", "topics/release-eu.md")
    assert guidance_line(steps) == ("- Releasing to the EU region (the code and steps: its memory entry). "
                                    "[mem: release-eu]")
    assert "below" not in render_bundle([skill, steps]).text


def test_guidance_of_an_incident_leads_with_the_standing_fact_not_the_story() -> None:
    taught = lesson("Worker fails on ARM", "`make worker` crashed on a Graviton host with the old python:3.8 "
                    "image; the Dockerfile now pins python:3.12-slim, which has arm64 builds.")
    assert taught.guidance == "The Dockerfile now pins python:3.12-slim, which has arm64 builds."
    assert taught.rest == ["`make worker` crashed on a Graviton host with the old python:3.8 image."]
    # A bare remark left over is no line of its own.
    told = "The nightly job broke the search index; it is fine now."
    assert split_story(told) == (told, ())


# --- mined memories: their lesson, not the record of the occasion ------------------------------

MINED = ("Do as the person said after it tried to edit `lib/report.rb`: “no, dont write your own formatter, "
         "use Fmt.day from lib/fmt.rb”\nThe agent had just called: Edit lib/report.rb\nThe agent had said: "
         "“I'll add a small date helper.”")


def test_guidance_of_a_mined_memory_is_its_first_line_and_leaves_the_occasion_out() -> None:
    taught = lesson("Do as the person said: use Fmt.day", MINED)
    # The person's words said as the rule, without the frame telling the occasion (issue 11, M2).
    assert taught.guidance == "Dont write your own formatter, use Fmt.day from lib/fmt.rb."
    assert taught.rest == []
    missing = ("`mix` is not available here: `mix test` failed with “sh: mix: not found”; do not count on it.\n"
               "The agent had called: Bash mix test\nError: “sh: mix: not found”\n"
               "Seen 4 times in 2 sessions (last 2026-11-27T10:00:00Z).")
    taught = lesson("`mix` is not available here", missing)
    # "do not count on it" alone would not say what "it" is: the line stays whole.
    assert taught.guidance == ("`mix` is not available here: `mix test` failed with “sh: mix: not found”; do not "
                               "count on it.")
    assert taught.rest == ["Error: “sh: mix: not found”"]


def test_heuristic_tags_of_a_mined_memory_are_subjects_not_its_source() -> None:
    mined = memory("m1", "Do as the person said: use Fmt.day", MINED, type="failure",
                   tags=("claude-code", "correction"), source="claude-code", kind="correction")
    entry = entry_of(only(proposals(dream_input([mined])), "create"))
    assert "claude-code" not in entry.tags and "correction" not in entry.tags
    assert "The agent had" not in entry.body


def test_route_of_an_instruction_to_ask_the_person_is_not_a_question() -> None:
    denied = memory("w1", "Do not count on `WebFetch` here", "Do not count on `WebFetch` here: every call of it "
                    "is denied; use another tool or ask the person.", type="failure")
    assert only(proposals(dream_input([denied])), "create").route == "memory"
    asked = memory("w2", "Refund window", "The refund code has a TODO: ask the product owner whether refunds "
                   "after 30 days are allowed.")
    assert only(proposals(dream_input([asked])), "create").route == "person"


def test_proposal_of_a_checklist_adds_to_an_entry_only_its_own_items() -> None:
    lint = ("topics/lint-before-push.md", entry_text(
        "lint-before-push", "Lint before pushing", "Run `pnpm lint` before pushing; CI fails on any warning.",
        tags=("frontend",)))
    node = ("topics/node-version.md", entry_text(
        "node-version", "Node version for the app", "Use Node 18 for app/ (`nvm use` reads app/.nvmrc); other "
        "majors fail on the lockfile.", tags=("frontend",)))
    checklist = memory("c1", "Frontend checklist", "- Run `pnpm lint` before pushing; CI fails on any warning.\n"
                       "- Also run `pnpm test:types` before pushing.\n"
                       "- Use Node 20 for app/ (`nvm use` reads app/.nvmrc).", tags=("frontend",))
    found = proposals(dream_input([checklist], snapshot_of(lint, node)))
    touched = [p for p in found if p.target == lint[0]]
    assert len(touched) == 1
    body = entry_of(touched[0]).body
    # Its own new item is added, as a list line; the node item is the other entry's lesson.
    assert "\n- Also run `pnpm test:types` before pushing.\n" in body
    assert "Node 20" not in body


def test_route_of_a_mined_lesson_met_in_two_sessions_is_the_bundle() -> None:
    def mined(sessions: str) -> Memory:
        return memory("r1", "`tox` is not available here", "`tox` is not available here: `tox -e py312` failed "
                      f"with “tox: command not found”; do not count on it.\nSeen 3 times {sessions} (last "
                      "2026-11-27T10:00:00Z).", type="failure", session="s1")
    assert lesson_route([mined("in 2 sessions")]) == "bundle"
    assert lesson_route([mined("in this session")]) == "memory"  # met thrice by one agent in one session
    # The rationale counts the sessions the memory says it was met in, as the route does.
    created = only(proposals(dream_input([mined("in 2 sessions")])), "create")
    assert created.rationale.startswith("new topic: 1 memory from 1 agent, 2 sessions; recurs"), created.rationale


def test_guidance_reads_past_markdown_headings_and_never_ends_inside_a_code_span() -> None:
    taught = lesson("Session cookies", "## Context\nWhile testing the admin login.\n\n## Finding\nSession cookies "
                    "expire after 30 minutes; call `POST /session/renew` before retrying a 401.")
    assert taught.guidance == ("Session cookies expire after 30 minutes; call `POST /session/renew` before "
                               "retrying a 401.")
    assert taught.rest == ["While testing the admin login."]
    assert split_sentences("Build the image, then run `COPY . .` last. Next.") == [
        "Build the image, then run `COPY . .` last.", "Next."]


def test_guidance_of_a_short_fix_does_not_lean_on_a_story_told_before_it() -> None:
    taught = lesson("Docker cache", "Our Containerfile copied the whole tree before `npm ci`, so every change "
                    "re-installed packages and builds took 5 minutes. Copy package-lock.json first, run `npm ci`, "
                    "then `COPY . .`.")
    assert taught.guidance == "Copy package-lock.json first, run `npm ci`, then `COPY . .`."
    assert taught.rest == ["Our Containerfile copied the whole tree before `npm ci`, so every change re-installed "
                           "packages and builds took 5 minutes."]


def test_deliver_decision_heading_does_not_repeat_the_files_name() -> None:
    entry = parse_entry("---\nslug: use-htmx\ntitle: \"Decision: use HTMX, not Vue, for admin pages\"\nroute: memory\n"
                        "---\nWe decided to build admin pages with HTMX.\n", "topics/use-htmx.md")
    section = decision_section(entry, NOW, "d-1")
    assert section.startswith("\n## 2026-11-29 — Use HTMX, not Vue, for admin pages\n\n")
    adr = parse_entry("---\nslug: adr\ntitle: \"ADR-7: one queue per tenant\"\n---\nOne queue per tenant.\n",
                      "topics/adr.md")
    assert "— One queue per tenant\n" in decision_section(adr, NOW, None)


# --- lessons not written in English ------------------------------------------------------------


def test_route_value_gate_keeps_a_lesson_it_cannot_read() -> None:
    for title, content in (("不要修改生成的文件", "不要直接修改 gen 目录下的文件，请修改 proto 文件后重新生成。"),
                           ("Migrationen zuerst", "Immer zuerst die Migrationen ausführen, sonst schlägt das "
                            "Seed-Skript fehl.")):
        assert no_lesson(memory("n1", title, content)) is None, content
    # English trivia and status remarks are still discarded.
    assert no_lesson(memory("n2", "Python version", "The scripts folder uses Python 3.12.")) is not None
    assert no_lesson(memory("n3", "Tests passed", "All tests pass now.")) is not None


def test_heuristic_slug_of_a_title_with_no_latin_letter_comes_from_its_guidance() -> None:
    created = only(proposals(dream_input([memory("n4", "不要修改生成的文件", "不要直接修改 gen 目录下的文件，请修改 "
                                                 "proto 文件后重新运行 `buf generate`。", tags=("codegen",))])),
                   "create")
    assert created.slug == "gen-proto-buf-generate"


def test_guidance_of_a_command_that_fixed_it_is_to_run_it() -> None:
    taught = lesson("E2E needs fresh data", "The e2e suite failed on stale fixtures; `make fixtures` before "
                    "`pnpm e2e` fixed it. It took 3 minutes.")
    assert taught.guidance == "Run `make fixtures` before `pnpm e2e`."
    assert taught.rest == ["The e2e suite failed on stale fixtures."]
    assert lesson("Lockfile", "`pnpm install --frozen-lockfile` fixed it.").guidance == \
        "Run `pnpm install --frozen-lockfile`."


def test_policy_a_flag_noted_by_hand_that_a_correction_answered_corroborates_nothing_later() -> None:
    noted = ("topics/cache-ports.md", entry_text(
        "cache-ports", "Cache ports", "The cache listens on 11211 and the queue on 5672.\n\n"
        '> Flagged 2026-11-21 by agent-c: "connection refused on 11211".', tags=("ops",), flags=1,
        last_flagged="2026-11-21T08:00:00Z"))
    moved = memory("m1", "The cache is on 11212", "The cache listens on 11212 now (compose maps it); 11211 is "
                   "refused.", tags=("ops",))
    update = only(proposals(dream_input([moved], snapshot_of(noted))), "update")
    entry = entry_of(update)
    assert entry.flags == 0 and "> Answered (corrected 2026-11-29): Flagged 2026-11-21 by agent-c" in entry.body
    # A later single flag on another fact of the corrected entry, with a confirmation: a weaken,
    # not an archive corroborated by the answered flag.
    later = (noted[0], update.after or "")
    flag = memory("f1", "flagged context", "The queue is not on 5672 any more; it maps 5673.", agent="agent-d",
                  type=FEEDBACK_FLAGGED, quote="the queue on 5672", minutes=60)
    ops = [p.op for p in proposals(dream_input([flag], snapshot_of(later))) if p.op != "context"]
    assert ops == ["weaken"], ops


def test_guidance_of_a_rule_introducing_its_examples_is_the_rule() -> None:
    content = ("This repo uses **pnpm** as its package manager. Always use `pnpm` commands instead of `npm`:\n\n"
               "- `pnpm install` (not `npm install`)\n- `pnpm build` (not `npm run build`)")
    taught = lesson("pnpm", content)
    assert taught.guidance == ("This repo uses **pnpm** as its package manager; always use `pnpm` commands "
                               "instead of `npm`.")
    assert taught.rest == ["- `pnpm install` (not `npm install`)\n- `pnpm build` (not `npm run build`)"]
    assert not has_steps(content)
    assert has_steps("Run these commands in order:\n- `make deps`\n- `make build`")


def test_guidance_reads_past_a_lone_list_marker_and_keeps_a_table_whole() -> None:
    assert lesson("Git", "- You may only run read-only git commands.").guidance == \
        "You may only run read-only git commands."
    table = "| Module | Owns |\n|---|---|\n| `billing/` | invoices |"
    taught = lesson("Layout", f"{table}\n\nPut new billing code under `billing/`, never in `core/`.")
    assert taught.guidance == "Put new billing code under `billing/`, never in `core/`."
    assert taught.rest == [table]
