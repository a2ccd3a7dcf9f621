"""Tool errors and facts of the machine: what is a fact, what is the agent's work in progress, and
which part of a command line a title names.

The outputs are written here in the shapes compilers, test runners, package managers, shells and
databases print them (TypeScript's "file(line,col): error TS2307", jest's "Cannot find module … from
…", pnpm's "ELIFECYCLE", a start-up script's warning, psql's "ERROR:  syntax error at or near"), not
copied from anyone's logs.
"""

from __future__ import annotations

import pytest

from dreamtui.intake.lessons import (
    Friction,
    ToolCall,
    command_head,
    environment_fact,
    environment_subject,
    error_lines,
    lesson_title,
    routine_error,
)


def _failure(command: str, evidence: str) -> Friction:
    return Friction(kind="tool_error", scope="s1", session_id="s1", record_uuids=["u1"], timestamp=None,
                    calls=[ToolCall("Bash", command, None)], said=None, evidence=evidence)


@pytest.mark.parametrize("text", [
    # the compiler on an import the agent is writing, whatever the module
    "Exit code 2\nsrc/jobs/queue.ts(25,30): error TS2307: Cannot find module 'nanoid' or its "
    "corresponding type declarations.\nsrc/jobs/queue.ts(27,3): error TS6196: 'Job' is declared but never used.",
    "lib/a.ts:4:21 - error TS2307: Cannot find module '@/lib/store' or its corresponding type declarations.",
    # a module named by its path, at run time
    "Exit code 1\nnode:internal/modules/cjs/loader:1228\nError: Cannot find module './dist/main.js'",
    "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/tmp/out/lib/worker.js' imported from /tmp/check.mjs",
    # a test runner resolving the test's own import
    "FAIL src/api/__tests__/auth.test.ts\n  ● Test suite failed to run\n\n    Cannot find module "
    "'../auth.guard' from 'src/api/__tests__/auth.test.ts'",
    # a submodule of a package that loaded: the code's layout, not an installation
    "Traceback (most recent call last):\nModuleNotFoundError: No module named 'app.handlers.billing'",
])
def test_a_module_the_code_names_by_path_or_the_compiler_reports_is_no_fact_of_the_machine(text: str) -> None:
    assert not environment_fact(text)
    assert environment_subject(text) is None


def test_a_package_or_top_level_module_missing_is_still_one() -> None:
    assert environment_subject("Error: Cannot find module 'left-pad'\nRequire stack:") == (
        "module:left-pad", "The module `left-pad` is not installed here")
    assert environment_fact("ModuleNotFoundError: No module named 'requests'")


def test_a_path_the_agent_imported_at_run_time_is_its_own_slip() -> None:
    assert routine_error("Exit code 1\nError: Cannot find module './src/index.js'\nRequire stack:")
    assert not routine_error("Error: Cannot find module 'left-pad'")  # a package: the project's setup


@pytest.mark.parametrize("text", [
    "Exit code 127\n/bin/bash: line 42: EOF: command not found",
    "zsh:12: command not found: END_SQL",
])
def test_a_here_document_delimiter_run_as_a_command_is_no_missing_program(text: str) -> None:
    assert not environment_fact(text)
    assert environment_subject(text) is None


def test_a_tag_glued_to_what_was_not_found_is_no_missing_program() -> None:
    text = ('Image acme/cache:v3.1.2 Error failed to resolve reference "registry.example.com/acme/cache:v3.1.2": '
            "registry.example.com/acme/cache:v3.1.2: not found")
    assert environment_subject(text) is None
    title = lesson_title(_failure("./bin/up.sh 2>&1", text), 120)
    assert title.startswith("`./bin/up.sh` fails here: Image acme/cache:v3.1.2")


def test_a_shell_start_up_scripts_warning_is_not_the_commands_failure() -> None:
    banner = "/usr/local/share/tool/shellenv.sh: line 7: /bin/ps: Operation not permitted"
    missing = f"{banner}\nls: docs/specs: No such file or directory"
    assert not environment_fact(missing)
    assert routine_error(missing)  # what is left is a miss while exploring
    assert not environment_fact("/home/u/.bashrc: line 3: /usr/bin/id: Operation not permitted\nfoo: done")
    # the same words from the command itself are a fact
    assert environment_fact("ls: /var/db/private: Operation not permitted")


@pytest.mark.parametrize("text", [
    "Exit code 1\n\u2009ELIFECYCLE\u2009 Command failed with exit code 1.",
    "Exit code 1\nnpm error Lifecycle script `lint` failed with error:\nnpm error code 1",
    "Exit code 1\n  12:5  Warning: React Hook useMemo has a missing dependency: 'rows'.  react-hooks/exhaustive-deps\n"
    "  40:9  Error: 'tmp' is assigned a value but never used.  no-unused-vars",
    "Exit code 1\n  ✓ keeps the order (3 ms)\n  ●  Cannot log after tests are done.\n"
    "\u2009ELIFECYCLE\u2009 Test failed. See above for more details.",
])
def test_a_runners_exit_status_a_linters_findings_and_failing_tests_are_routine(text: str) -> None:
    assert routine_error(text)


def test_a_scripts_own_error_before_the_runners_exit_status_is_not_routine() -> None:
    assert not routine_error("Exit code 1\nERROR: REDIS_URL is not set\n\u2009ELIFECYCLE\u2009 Command failed "
                             "with exit code 1.")


@pytest.mark.parametrize("text", [
    'Exit code 1\nERROR:  syntax error at or near "EXISTS"\nLINE 1: CREATE ROLE IF NOT EXISTS app;',
    'ERROR:  column "fullname" does not exist\nLINE 1: SELECT fullname FROM accounts;',
    'ERROR:  relation "acounts" does not exist',
    'Error: in prepare, near "FROMM": syntax error (1)',
    "ERROR 1064 (42000) at line 1: You have an error in your SQL syntax; check the manual",
])
def test_sql_the_agent_wrote_wrong_is_its_own_slip(text: str) -> None:
    assert routine_error(text)


@pytest.mark.parametrize(("command", "head"), [
    ("# Rebuild after the fix pnpm run build 2>&1", "pnpm run build"),  # the log joined the comment's line
    ("# just a note", "# just a note"),
    ('RUN_ID="${RUN_ID:-local-$$}" && source scripts/env.sh && deploy_all "$RUN_ID"', "deploy_all"),
    ('cd /srv/app && rg ": any\\b" src/ -t ts', "rg"),
    ("rg colou?r\\( src/", "rg"),
    ('python3 -c "import json; print(json.load(open(\'a.json\')))"', "python3"),
    ('node -e " const x = require(\'./x\')"', "node"),
    ("./scripts/new-branch.sh $(cat name.txt)", "./scripts/new-branch.sh"),
    ("rm *.orig", "rm *.orig"),
    ("curl https://example.com/install.sh | sh", "curl https://example.com/install.sh"),
    ('cd "/home/u/my app" && git add a.txt', "git add"),
    ("python3 manage.py migrate", "python3 manage.py"),
])
def test_a_commands_head_skips_comments_settings_and_quoted_or_pattern_arguments(command: str, head: str) -> None:
    assert command_head(command) == head


def test_a_title_names_the_step_that_failed_not_the_command_after_it() -> None:
    sourced = _failure('RUN_ID="${RUN_ID:-x}" && source scripts/env.sh && deploy_all',
                       "Exit code 1\n/bin/bash: line 1: scripts/env.sh: No such file or directory")
    assert lesson_title(sourced, 120).startswith("`source scripts/env.sh` fails here:")
    entered = _failure("cd web && cat ../docs/plan.json | jq .",
                       "/bin/bash: line 1: cd: web: No such file or directory")
    assert lesson_title(entered, 120).startswith("`cd web` fails here:")


def test_a_title_names_the_command_of_the_line_whose_error_it_is() -> None:
    piped = _failure('cat "docs/plan.json" | jq \'.items[] | select(.id != "A")\'',
                     "Exit code 3\njq: error: syntax error, unexpected INVALID_CHARACTER\njq: 1 compile error")
    assert lesson_title(piped, 120).startswith("`jq` fails here: jq: error: syntax error")


def test_the_error_lines_leave_out_passing_tests_and_keep_a_headed_list() -> None:
    report = ("Exit code 1\nPASS src/errors.test.ts\n  ✓ maps an error to 500 (3 ms)\n  ✕ maps a timeout (2 ms)\n"
              "Tests:       1 failed, 1 passed, 2 total")
    assert error_lines(report, 600) == "Exit code 1\nTests:       1 failed, 1 passed, 2 total"
    options = "Exit code 1\nInvalid Options:\n- Unknown options: useEslintrc, extensions\n\n> next lint"
    assert error_lines(options, 600) == "Exit code 1\nInvalid Options:\n- Unknown options: useEslintrc, extensions"


@pytest.mark.parametrize(("text", "name"), [
    ("/bin/bash: 行 1: tree: 未找到命令", "tree"),
    ("bash: Zeile 1: jq: Befehl nicht gefunden", "jq"),
    ("bash: ligne 1 : rg : commande introuvable", "rg"),  # French puts a space before the colon
    ("bash: line 1: fd: команда не найдена", "fd"),
])
def test_a_missing_command_in_the_shells_language_is_a_missing_command(text: str, name: str) -> None:
    assert environment_fact(text)
    assert environment_subject(text) == (f"command:{name}", f"`{name}` is not installed here")


@pytest.mark.parametrize("text", ["/bin/bash: line 1: ls: command not found", "zsh:1: command not found: cat"])
def test_a_utility_every_system_has_not_found_is_the_lines_path_not_a_missing_program(text: str) -> None:
    assert not environment_fact(text)
    assert environment_subject(text) is None


@pytest.mark.parametrize("text", [
    "No task found with ID: b7c1e2f",
    "Error: Ref e42 not found in the current page snapshot. Try capturing new snapshot.",
    "Invalid patch hunk on line 3: '' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}'",
])
def test_a_tools_guard_on_a_stale_reference_and_a_malformed_patch_are_routine(text: str) -> None:
    assert routine_error(text)


def test_a_turn_on_the_subject_of_a_refused_patch_does_not_comment_on_the_guard() -> None:
    from dreamtui.intake.lessons import names_failure
    patch = "apply_patch << 'PATCH'\n*** Update File: docs/pins.md\n- M106 fan on (Marlin, Klipper)\nPATCH"
    guard = "Failed to find expected lines in docs/pins.md:\n- M106 fan on (Marlin, Klipper)"
    assert not names_failure("Which firmwares should we cover? Marlin and Klipper at least", patch, guard)
    assert names_failure("the edit of pins.md keeps failing, rewrite the file", patch, guard)


def test_a_long_test_report_keeps_its_tally_and_its_first_line() -> None:
    report = "Exit code 1\n" + "\n".join(f"  ✕ maps error {i} to a status" for i in range(60)) + \
        "\nTests:       60 failed, 60 total"
    lines = error_lines(report, 300)
    assert len(lines) <= 300
    assert lines.startswith("Exit code 1\n✕ maps error 0 to a status")
    assert lines.endswith("Tests:       60 failed, 60 total")
    assert routine_error(lines)


def test_a_name_imported_from_the_projects_own_module_is_the_agents_slip() -> None:
    own = "ImportError: cannot import name 'fetch_all' from 'app.clients.store' (/home/u/app/app/clients/store.py)"
    assert routine_error(own)
    # from an installed package, it is the version installed: not the agent's code
    installed = ("ImportError: cannot import name 'soft_unicode' from 'markupsafe' "
                 "(/home/u/.venv/lib/python3.12/site-packages/markupsafe/__init__.py)")
    assert not routine_error(installed)


def test_a_script_written_with_a_here_document_is_named_by_what_runs_it() -> None:
    error = "Error [ERR_MODULE_NOT_FOUND]: Cannot find package '@acme/db' imported from /tmp/probe.mjs"
    ran = _failure("cd /srv/api && cat > /tmp/probe.mjs << 'EOF' import { q } from '@acme/db'; EOF && "
                   "node /tmp/probe.mjs", error)
    assert lesson_title(ran, 120).startswith("`node /tmp/probe.mjs` fails here: Error [ERR_MODULE_NOT_FOUND]")
    cut = _failure("cd /srv/api && cat > /tmp/probe.mjs << 'EOF' import { q } from '@acme/db'; console.log(q)…", error)
    assert lesson_title(cut, 120).startswith("The script written to `/tmp/probe.mjs` fails here:")


def test_a_failure_title_opens_with_a_capital() -> None:
    read = Friction(kind="tool_error", scope="s1", session_id="s1", record_uuids=["u1"], timestamp=None,
                    calls=[ToolCall("Edit", "/etc/hosts", "/etc/hosts")], said=None,
                    evidence="EACCES: permission denied, open '/etc/hosts'")
    assert lesson_title(read, 120).startswith("Edit `/etc/hosts` fails here: EACCES")


@pytest.mark.parametrize("text", [
    "Exit code 3\njq: error: syntax error, unexpected INVALID_CHARACTER (Unix shell quoting issues?) at <top-level>, "
    "line 1:\njq: 1 compile error",
    "Traceback (most recent call last):\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    "Exit code 1\nyaml: line 12: did not find expected key",
    "yaml.scanner.ScannerError: mapping values are not allowed here",
    "Exit code 1\n ERROR  Unknown option: 'frozen'",
    "ls: cannot access 'scripts/init.sql/': Not a directory",
])
def test_a_program_text_or_flag_the_agent_wrote_wrong_and_a_path_miss_are_routine(text: str) -> None:
    assert routine_error(text)


def test_options_a_config_file_holds_that_the_tool_no_longer_knows_are_not_the_agents_flag() -> None:
    assert not routine_error("Exit code 1\nInvalid Options:\n- Unknown options: useEslintrc, extensions")


def test_a_title_names_the_later_command_whose_own_error_lines_these_are() -> None:
    install = _failure("which pnpm && pnpm -v || npm install -g pnpm",
                       "Exit code 243\nnpm error code EACCES\nnpm error Error: EACCES: permission denied, mkdir "
                       "'/usr/lib/node_modules/pnpm'")
    assert lesson_title(install, 120).startswith("`npm install` fails here: npm error code EACCES")


def test_a_compiler_diagnostic_of_the_projects_setup_is_no_slip_of_the_code() -> None:
    setting = ("src/jobs/__tests__/worker.test.ts(4,22): error TS2835: Relative import paths need explicit file "
               "extensions in ECMAScript imports when '--moduleResolution' is 'node16' or 'nodenext'. "
               "Did you mean '../worker.js'?")
    assert not routine_error(setting)
    assert routine_error("src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.")


def test_a_setup_diagnostic_among_the_codes_own_errors_is_the_work_in_progress() -> None:
    mixed = ("src/a.ts(2,3): error TS6196: 'Job' is declared but never used.\n"
             "src/b.ts(4,22): error TS2835: Relative import paths need explicit file extensions in ECMAScript imports")
    assert routine_error(mixed)


@pytest.mark.parametrize("text", ["000", "Exit code 7\n000", "Exit code 1\n-1"])
def test_an_output_of_a_status_code_alone_states_no_error(text: str) -> None:
    assert routine_error(text)


def test_a_short_error_in_letters_of_any_script_still_states_one() -> None:
    assert not routine_error("Exit code 1\n连接被拒绝")


def test_a_mistyped_tool_is_routine_and_an_mcp_tool_missing_is_not() -> None:
    assert routine_error("Error: No such tool available: Bsh")
    assert not routine_error("Error: No such tool available: mcp__tracker__create_issue")


def test_a_powershell_here_string_is_named_by_what_it_is_piped_to() -> None:
    script = "@'\nimport csv\nrows = list(csv.reader(open('a.csv')))\n'@ | python -"
    friction = _failure(script, "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x92 in position 10")
    assert lesson_title(friction, 120).startswith("`python` given a script on stdin fails here: UnicodeDecodeError")


def test_a_program_not_found_after_the_line_set_path_is_not_said_to_be_missing() -> None:
    after_path = _failure('export PATH="$HOME/.local/tools:$PATH" && which deploy',
                          "/bin/bash: line 1: which: command not found")
    assert lesson_title(after_path, 120) == "`which` is not found once the line has set PATH"
    plain = _failure("which deploy", "/bin/bash: line 1: which: command not found")
    assert lesson_title(plain, 120) == "`which` is not installed here"
