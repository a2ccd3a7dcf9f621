"""`dreamtui.yaml` (or a Dreamer server's `dreamer.yaml`) → one validated `Config`.

Errors never escape as pydantic or YAML tracebacks: `load_config` raises `ConfigError` whose
problems each name the file, the key path and what was expected.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from dreamtui.errors import ConfigError
from dreamtui.model import DEFAULT_MEMORY_TYPES, FEEDBACK_TYPES

CONFIG_NAME = "dreamtui.yaml"
DREAMER_CONFIG_NAME = "dreamer.yaml"

_TOO_DEEP = "(file): nested too deeply, or a YAML alias refers to itself"
# Far beyond any real config: a YAML alias bomb expands to hundreds of millions of values as
# interpolation and validation walk the document.
_MAX_VALUES = 100_000

_ENV_RE = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class _Section(BaseModel):
    # Unknown keys are errors: a typo in a guard-rail key must not silently disable the guard.
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class STMConfig(_Section):
    path: str = "stm.db"
    tenant_id: str = "default"
    max_content_bytes: int = Field(8192, ge=256, le=1_048_576)
    max_title_chars: int = Field(120, ge=8, le=120)
    lease_minutes: int = Field(30, ge=1, le=24 * 60)
    batch_size: int = Field(10_000, ge=1, le=1_000_000)
    busy_timeout_ms: int = Field(5000, ge=0, le=600_000)


class LTMConfig(_Section):
    root: str = "workspace/memory"
    max_autonomous_removals: int = Field(5, ge=0)
    enforce_pinned: bool = True
    on_guard_violation: Literal["fail", "warn"] = "fail"


class TargetConfig(_Section):
    """One file of the project (`project.root`) that receives the bundle (deliver/targets.py):
    dreamtui owns only its marked block and never touches text outside it."""

    path: str  # relative to project.root, inside it
    # block: the bundle itself in the block; import: an `@<path>` line importing `imports`
    mode: Literal["block", "import"] = "block"
    imports: str | None = None  # for mode import: the block target it imports (default: the first)

    @field_validator("path", "imports")
    @classmethod
    def _inside_project(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = value.replace("\\", "/").split("/")
        if not value.strip() or value.startswith(("/", "~")) or "\\" in value or ".." in parts \
                or re.match(r"[A-Za-z]:", value) or not value.isprintable():
            raise ValueError(f"{value!r} must be a path relative to project.root, inside it "
                             "(not absolute, no ~, .. or backslash)")
        return value


# The project files delivery writes when `project.root` is set and `context.targets` is not.
DEFAULT_TARGETS = (TargetConfig(path="AGENTS.md"), TargetConfig(path="CLAUDE.md", mode="import"))


IncludedRoute = Literal["bundle", "skill", "memory"]  # entry routes the bundle may carry
DEFAULT_INCLUDE: tuple[IncludedRoute, ...] = ("bundle",)


class ContextConfig(_Section):
    root: str = "workspace/context"
    byte_budget: int = Field(24 * 1024, ge=1024, le=1_048_576)
    # None: DEFAULT_TARGETS when project.root is set; [] delivers nothing into the project.
    targets: list[TargetConfig] | None = None
    # Which entries the bundle carries, by their frontmatter `route` (dream/routes.py): `bundle`
    # (recurring lessons; an entry without a route counts as bundle) by default; add `skill` or
    # `memory` to carry those too. A pinned entry is always carried.
    include: list[IncludedRoute] = Field(default_factory=lambda: list(DEFAULT_INCLUDE))

    @model_validator(mode="before")
    @classmethod
    def _also_claude_md_removed(cls, data: Any) -> Any:
        if isinstance(data, dict) and "also_claude_md" in data:
            raise ValueError("also_claude_md was removed: set project.root, and the project's "
                             "CLAUDE.md receives the bundle through context.targets "
                             "(default: AGENTS.md as a block, CLAUDE.md importing it)")
        return data

    @field_validator("include")
    @classmethod
    def _include_something(cls, value: list[IncludedRoute]) -> list[IncludedRoute]:
        if not value:
            raise ValueError("name at least one entry route: bundle, skill or memory (pinned entries "
                             "are always carried)")
        return value

    @field_validator("targets")
    @classmethod
    def _targets_consistent(cls, value: list[TargetConfig] | None) -> list[TargetConfig] | None:
        if not value:
            return value
        paths = [t.path for t in value]
        twice = sorted({p for p in paths if paths.count(p) > 1})
        if twice:
            raise ValueError(f"{', '.join(twice)} named twice")
        blocks = [t.path for t in value if t.mode == "block"]
        for target in value:
            if target.mode == "import" and not blocks:
                raise ValueError(f"{target.path} imports a block target, but none is listed")
            if target.imports is not None and target.imports not in blocks:
                raise ValueError(f"{target.path}: imports {target.imports!r}, which is not a "
                                 f"block target ({', '.join(blocks) or 'none listed'})")
        return value


class AnthropicConfig(_Section):
    model: str = "claude-sonnet-5-5"
    api_key_env: str = "ANTHROPIC_API_KEY"
    base_url: str | None = None
    max_tokens: int = Field(8192, ge=256, le=128_000)
    timeout_s: float = Field(120.0, gt=0)
    max_retries: int = Field(3, ge=0, le=10)


class OllamaConfig(_Section):
    model: str = "qwen2.5:7b"
    host: str | None = None
    timeout_s: float = Field(300.0, gt=0)
    max_retries: int = Field(2, ge=0, le=10)


# The engines dreamtui ships (dream.engines.base maps each to its class); any other engine is a
# `package.module:ClassName` reference, imported when a dream starts.
BUILTIN_ENGINE_NAMES = ("heuristic", "anthropic", "ollama")


def engine_problem(name: str) -> str | None:
    """Why `name` names no engine, or None (a reference is checked when it is imported)."""
    if name in BUILTIN_ENGINE_NAMES or ":" in name:
        return None
    return (f"{name!r} is not a built-in engine ({', '.join(BUILTIN_ENGINE_NAMES)}) "
            "nor a `package.module:ClassName` reference")


class DreamConfig(_Section):
    engine: str = "heuristic"
    similarity: int = Field(88, ge=50, le=100)
    token_budget: int = Field(24_000, ge=1_000)
    fallback_to_heuristic: bool = False
    anthropic: AnthropicConfig = Field(default_factory=AnthropicConfig)
    ollama: OllamaConfig = Field(default_factory=OllamaConfig)

    @field_validator("engine")
    @classmethod
    def _engine_named(cls, value: str) -> str:
        # A misspelt name is found here, by `config check`, not at the next cron dream.
        problem = engine_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class HeadlessConfig(_Section):
    enabled: bool = True
    min_hours: float = Field(6.0, ge=0)
    min_pending: int = Field(5, ge=0)
    # Flags against live entries dream on their own: wrong guidance must not wait for new lessons.
    # 0 turns this off (flags then only ride along with min_pending memories).
    min_flags: int = Field(1, ge=0)
    auto_apply: Literal["none", "safe"] = "none"


class GitConfig(_Section):
    commit: bool = True
    author_name: str = "dreamtui"
    author_email: str = "dreamtui@localhost"


class UIConfig(_Section):
    theme: str = "dreamtui-dark"
    keymap: dict[str, str] = Field(default_factory=dict)


class ClaudeCodeIntakeConfig(_Section):
    projects_dir: str = "~/.claude/projects"
    project: str | None = None
    live_minutes: int = Field(10, ge=0)


class CodexIntakeConfig(_Section):
    # None: $CODEX_HOME/sessions, else ~/.codex/sessions (where Codex CLI writes its rollouts).
    sessions_dir: str | None = None
    # None: project.root, else the workspace folder.
    project: str | None = None
    live_minutes: int = Field(10, ge=0)


class ProjectConfig(_Section):
    # The code project this workspace serves (relative paths resolve from the workspace folder).
    # The dream reads its instruction files as the known corpus; delivery writes into it.
    root: str | None = None
    # Extra files (globs relative to root) whose rules count as already documented.
    known_files: list[str] = Field(default_factory=list)


class MCPConfig(_Section):
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=1, le=65535)
    # Host names clients may use besides the bind address and localhost; binding beyond
    # loopback requires at least one (intake/mcp_server.py checks every Host header exactly).
    allowed_hosts: list[str] = Field(default_factory=list)
    # One token cannot take every HTTP session from the other agents.
    max_sessions_per_token: int = Field(16, ge=1, le=1000)
    session_idle_seconds: int = Field(300, ge=1, le=24 * 3600)


def _schema_problem(schema: dict[str, Any]) -> str | None:
    """Why `schema` is not a JSON Schema (2020-12, what Dreamer declares), or None."""
    # jsonschema comes with mcp (its tools validate arguments); only configs with schemas pay for it.
    from jsonschema import Draft202012Validator, SchemaError  # type: ignore[import-untyped]

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return f"is not a JSON Schema: {exc.message}"
    return None


class Config(_Section):
    _validators: dict[str, Any] = PrivateAttr(default_factory=dict)  # compiled metadata_schemas
    version: Literal[1] = 1  # the only layout this dreamtui reads; a newer file is named, not guessed at
    memory_types: list[str] = Field(default_factory=lambda: list(DEFAULT_MEMORY_TYPES))
    # A JSON Schema (2020-12) per memory type, feedback types included, that a submission's
    # metadata must satisfy: what a Dreamer server's `memory_types[].metadata_schema` declares.
    metadata_schemas: dict[str, dict[str, Any]] = Field(default_factory=dict)
    stm: STMConfig = Field(default_factory=STMConfig)
    ltm: LTMConfig = Field(default_factory=LTMConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    dream: DreamConfig = Field(default_factory=DreamConfig)
    headless: HeadlessConfig = Field(default_factory=HeadlessConfig)
    git: GitConfig = Field(default_factory=GitConfig)
    ui: UIConfig = Field(default_factory=UIConfig)
    claude_code: ClaudeCodeIntakeConfig = Field(default_factory=ClaudeCodeIntakeConfig)
    codex: CodexIntakeConfig = Field(default_factory=CodexIntakeConfig)
    mcp: MCPConfig = Field(default_factory=MCPConfig)
    project: ProjectConfig = Field(default_factory=ProjectConfig)

    @field_validator("memory_types")
    @classmethod
    def _types_are_plain(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("at least one memory type")
        for name in value:
            if not re.fullmatch(r"[a-z][a-z0-9_]{0,39}", name):
                raise ValueError(f"memory type {name!r} must be lowercase letters, digits and _")
            if name in FEEDBACK_TYPES:
                raise ValueError(f"{name!r} is a feedback type, always allowed; do not list it")
        return value

    @field_validator("metadata_schemas")
    @classmethod
    def _schemas_are_schemas(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for name, schema in value.items():
            problem = _schema_problem(schema)
            if problem is not None:
                raise ValueError(f"the schema of {name!r} {problem}")
        return value

    def metadata_problem(self, memory_type: str, metadata: dict[str, Any]) -> str | None:
        """Why `metadata` does not satisfy its type's schema (as Dreamer's submit checks it), or None."""
        schema = self.metadata_schemas.get(memory_type)
        if schema is None:
            return None
        validator = self._validators.get(memory_type)
        if validator is None:
            from jsonschema import Draft202012Validator

            validator = self._validators[memory_type] = Draft202012Validator(schema)
        error = next(iter(validator.iter_errors(metadata)), None)
        if error is None:
            return None
        where = "".join(f"[{part!r}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path)
        return f"metadata{where}: {error.message} (the {memory_type} schema in the config)"

    @property
    def submit_types(self) -> tuple[str, ...]:
        """Every type the store accepts: the configured ones plus the feedback types."""
        return (*self.memory_types, *FEEDBACK_TYPES)


def interpolate_env(value: Any, where: str, problems: list[str], environ: dict[str, str]) -> Any:
    """Replace `${env:NAME}` (or `${env:NAME:-default}`) in every string of a parsed YAML tree."""
    if isinstance(value, dict):
        return {k: interpolate_env(v, f"{where}.{k}" if where else str(k), problems, environ)
                for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate_env(v, f"{where}[{i}]", problems, environ) for i, v in enumerate(value)]
    if isinstance(value, str):
        def substitute(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in environ:
                return environ[name]
            if default is not None:
                return default
            problems.append(f"{where}: environment variable {name} is not set "
                            f"(write ${{env:{name}:-default}} to give a default)")
            return ""
        return _ENV_RE.sub(substitute, value)
    return value


class _UniqueKeys(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping: PyYAML keeps the later value
    without a word, so a setting a person appended above the template's own is silently lost."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *defaults` merges keys that the mapping's own may override
            line = key_node.start_mark.line + 1
            if key_node.value in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"{key_node.value!r} is given twice in one mapping (lines "
                    f"{seen[key_node.value]} and {line}); keep one", key_node.start_mark)
            seen[key_node.value] = line
        return super().construct_mapping(node, deep)


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, [f"(file): not UTF-8 text ({exc.reason} at byte {exc.start})"]) from None
    except OSError as exc:
        raise ConfigError(path, [f"(file): cannot read: {exc.strerror}"]) from None
    try:
        data = yaml.load(text, Loader=_UniqueKeys)  # noqa: S506 (a SafeLoader: see _UniqueKeys)
        _check_expanded_size(data, path)
        return data
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(file)"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(path, [f"{where}: invalid YAML: {problem}"]) from None
    except ValueError as exc:  # YAML's constructors raise it for values such as 2026-02-30
        raise ConfigError(path, [f"(file): invalid YAML value: {exc}"]) from None
    except RecursionError:
        raise ConfigError(path, [_TOO_DEEP]) from None


def _check_expanded_size(data: Any, path: Path) -> None:
    """ConfigError when the document, its aliases expanded, holds more than _MAX_VALUES values or
    contains itself. Each shared subtree is sized once, so a bomb costs what its text does;
    RecursionError (nesting too deep) is the caller's to report."""
    sizes: dict[int, int] = {}
    walking: set[int] = set()

    def size(node: Any) -> int:
        if not isinstance(node, (dict, list)):
            return 1
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in walking:
            raise ConfigError(path, [_TOO_DEEP])
        walking.add(key)
        total = 1 + sum(map(size, node.values() if isinstance(node, dict) else node))
        walking.discard(key)
        if total > _MAX_VALUES:
            raise ConfigError(path, [f"(file): more than {_MAX_VALUES:,} values once YAML aliases "
                                     "are expanded; write the values out instead of aliasing them"])
        sizes[key] = total
        return total

    size(data)


def _interpolated(data: Any, path: Path, environ: dict[str, str] | None) -> Any:
    """`interpolate_env` over a whole document; a ConfigError for unset variables or a cyclic tree."""
    problems: list[str] = []
    try:
        data = interpolate_env(data, "", problems, dict(os.environ if environ is None else environ))
    except RecursionError:  # `a: &x [*x]` loads as a list that contains itself
        raise ConfigError(path, [_TOO_DEEP]) from None
    if problems:
        raise ConfigError(path, problems)
    return data


def _known_keys(loc: tuple[int | str, ...]) -> str:
    """The keys the section holding `loc`'s last key accepts, to set a misspelling beside."""
    model: type[BaseModel] = Config
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        inner = field.annotation if field is not None else None
        if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
            return "see README's configuration"  # a mapping of names (keymap, schemas)
        model = inner
    return ", ".join(model.model_fields)


def _format_validation(exc: ValidationError) -> list[str]:
    problems = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        kind = error["type"]
        if kind == "extra_forbidden":
            problems.append(f"{key}: unknown key (check its spelling; known here: {_known_keys(error['loc'])})")
        elif kind == "missing":
            problems.append(f"{key}: required key is missing")
        elif kind == "value_error":  # our validators' messages already say what is wrong
            problems.append(f"{key}: {error['msg'].removeprefix('Value error, ')}")
        else:
            got = error.get("input")
            shown = repr(got) if not isinstance(got, (dict, list)) else type(got).__name__
            # pydantic says "Input should be a valid integer, …": we say what is expected
            expected = error["msg"].removeprefix("Input should be ")
            problems.append(f"{key}: expected {expected}, got {shown}")
    return problems


def parse_config(data: Any, path: Path, environ: dict[str, str] | None = None) -> Config:
    """Validate an already-parsed dreamtui.yaml document."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(path, [f"(top level): expected a mapping of keys, got {type(data).__name__}"])
    return _validated(_interpolated(data, path, environ), path)


# --- a Dreamer server's dreamer.yaml (dreamer-server 0.2.0, `dreamer.api.config`) ---------------

# Dreamer's interpolation pattern: `${VAR}` is `${env:VAR}`, `:-` gives a default.
_DREAMER_REF = re.compile(r"\$\{([^}]+)\}")
_DREAMER_UNWIRED = ("tenant", "file", "vault", "component")  # reserved, unimplemented in 0.2.0
DREAMER_STM_CLASS = "dreamer.contrib.stm.sqlite.SQLiteSTMStore"
# Dreamer's defaults where its config leaves a value out (SQLiteSTMStore, SQLiteDreamLeaseStore,
# ServerSection): a folder it serves behaves the same for dreamtui.
DREAMER_DB = "./dreamer.db"
DREAMER_BATCH = 200
DREAMER_LEASE_SECONDS = 1800
_SCHEMA_KIND = "json-schema-2020-12"


def _dreamer_interpolate(value: Any, where: str, problems: list[str], environ: dict[str, str]) -> Any:
    """A value dreamtui reads from dreamer.yaml, with `${…}` resolved as Dreamer resolves it.

    Only the values dreamtui uses are resolved: a `${secret:…}` in the dream engine's params is
    Dreamer's business. One that dreamtui would have to read is reported, never taken literally.
    """
    if not isinstance(value, str) or "${" not in value:
        return value

    def substitute(match: re.Match[str]) -> str:
        body = match.group(1)
        name_part, has_default, default = body.partition(":-")
        namespace, _, name = name_part.partition(":") if ":" in name_part else ("env", "", name_part)
        if not name.strip() or name.startswith("$"):
            problems.append(f"{where}: ${{{body}}} names no variable")
        elif namespace == "env":
            if name in environ:
                return environ[name]
            if has_default:
                return default
            problems.append(f"{where}: environment variable {name} is not set and ${{{body}}} has no "
                            f"default (set it, or write ${{{name}:-value}})")
        elif namespace == "secret":
            problems.append(f"{where}: ${{{body}}} is resolved by Dreamer's secret resolver for its own "
                            f"components; dreamtui reads this value itself and cannot resolve secrets "
                            f"(write the value, or ${{env:{name}}})")
        elif namespace in _DREAMER_UNWIRED:
            problems.append(f"{where}: ${{{body}}}: Dreamer reserves the {namespace}: namespace but does not "
                            "implement it")
        else:
            problems.append(f"{where}: ${{{body}}}: unknown interpolation namespace {namespace!r} "
                            "(Dreamer knows env and secret)")
        return ""

    return _DREAMER_REF.sub(substitute, value)


def _sqlite_file(value: Any, where: str, problems: list[str]) -> str | None:
    """The file a Dreamer `db_path` names: a path, or an SQLAlchemy `sqlite://` URL."""
    text = str(value)
    if text.startswith("sqlite"):
        # sqlite:///relative.db, sqlite:////absolute.db, sqlite+aiosqlite:///…, ?options dropped
        _, _, rest = text.partition("://")
        text = rest[1:].partition("?")[0] if rest.startswith("/") else ""
    if not text or text == ":memory:":
        problems.append(f"{where}: {value!r} is an in-memory database, which no other process can "
                        "share; give Dreamer a file")
        return None
    return text


def _dreamer_types(declared: Any, where: str, problems: list[str]) -> tuple[list[str], dict[str, Any]]:
    """Memory type names (feedback types left out: dreamtui always allows them) and schemas from
    Dreamer's `memory_types`: mappings as `dreamer init` writes them, or plain names."""
    names: list[str] = []
    schemas: dict[str, Any] = {}
    if not isinstance(declared, list):
        problems.append(f"{where}: expected a list of memory types, got {type(declared).__name__}")
        return names, schemas
    for index, item in enumerate(declared):
        at = f"{where}[{index}]"
        if isinstance(item, str):
            name, schema = item, None
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            name, schema = item["name"], item.get("metadata_schema")
            kind = item.get("metadata_schema_kind", _SCHEMA_KIND)
            if kind != _SCHEMA_KIND:
                problems.append(f"{at}.metadata_schema_kind: expected {_SCHEMA_KIND!r}, got {kind!r}")
            if schema is not None and not isinstance(schema, dict):
                problems.append(f"{at}.metadata_schema: expected a mapping (a JSON Schema), "
                                f"got {type(schema).__name__}")
                schema = None
            elif schema is not None and (problem := _schema_problem(schema)) is not None:
                problems.append(f"{at}.metadata_schema: {problem}")
                schema = None
        else:
            problems.append(f"{at}: expected a mapping with a name (name, description, metadata_schema) "
                            "or a type name")
            continue
        if name not in FEEDBACK_TYPES and name not in names:
            names.append(name)
        if schema is not None:
            schemas[name] = schema
    return names, schemas


def _dreamer_to_dreamtui(data: Any, path: Path, environ: dict[str, str] | None = None) -> dict[str, Any]:
    """Map what dreamtui needs from a Dreamer server's config (docs/architecture.md §3.1): the
    shared STM database (leases included), LTM and context roots and guard rails, memory types
    and their metadata schemas, the batch, content and lease limits, the MCP address."""
    if not isinstance(data, dict):
        raise ConfigError(path, ["(top level): expected a mapping of keys"])
    env = dict(os.environ if environ is None else environ)
    problems: list[str] = []

    def block(slot: str) -> dict[str, Any] | None:
        section = data.get(slot)
        return section if isinstance(section, dict) else None

    def param(slot: str, key: str, default: Any = None) -> Any:
        section = block(slot)
        params = section.get("params") if section else None
        if not isinstance(params, dict) or key not in params:
            return default
        return _dreamer_interpolate(params[key], f"{slot}.params.{key}", problems, env)

    result: dict[str, Any] = {}
    stm: dict[str, Any] = {}
    stm_block = block("stm_store")
    if stm_block is not None and stm_block.get("class") not in (None, DREAMER_STM_CLASS):
        problems.append(f"stm_store.class: dreamtui shares only Dreamer's SQLite STM store "
                        f"({DREAMER_STM_CLASS}), got {stm_block.get('class')!r}")
    db_path = param("stm_store", "db_path") or param("stm_store", "path")
    if stm_block is not None or db_path is not None:
        stm["path"] = _sqlite_file(db_path or DREAMER_DB, "stm_store.params.db_path", problems)
    lease_db = param("dream_lease_store", "db_path")
    if lease_db is not None and "path" in stm:
        lease_file = _sqlite_file(lease_db, "dream_lease_store.params.db_path", problems)
        if lease_file and stm["path"] and os.path.normpath(lease_file) != os.path.normpath(stm["path"]):
            problems.append(f"dream_lease_store.params.db_path: {lease_db!r} is not the STM database "
                            f"({stm['path']!r}); dreamtui takes part in Dreamer's dream leases only "
                            "when both stores share one file")
    if stm_block is not None:
        stm["batch_size"] = param("stm_store", "max_batch_size", DREAMER_BATCH)
        stm["max_content_bytes"] = param("stm_store", "max_content_bytes", 8192)
    ttl = param("dream_lease_store", "default_ttl_seconds", DREAMER_LEASE_SECONDS if block("dream_lease_store")
                else None)
    if ttl is not None:
        if isinstance(ttl, (int, float)) and not isinstance(ttl, bool) and ttl > 0:
            stm["lease_minutes"] = max(1, math.ceil(ttl / 60))
        else:
            problems.append(f"dream_lease_store.params.default_ttl_seconds: expected a number of seconds "
                            f"above 0, got {ttl!r}")
    if stm:
        result["stm"] = stm

    ltm_root = param("ltm_store", "root")
    if ltm_root is not None:
        result["ltm"] = {"root": str(ltm_root)}
        for key in ("max_autonomous_removals", "enforce_pinned", "on_guard_violation"):
            value = param("ltm_store", key)
            if value is not None:
                result["ltm"][key] = value
    context_root = param("context_store", "root")
    if context_root is not None:
        result["context"] = {"root": str(context_root)}

    # Dreamer reads the top-level list first, then the STM store's (dreamer.server.app).
    if data.get("memory_types"):
        types, where = data["memory_types"], "memory_types"
    else:
        types, where = param("stm_store", "memory_types"), "stm_store.params.memory_types"
    if types:
        names, schemas = _dreamer_types(types, where, problems)
        if names:
            result["memory_types"] = names
        if schemas:
            result["metadata_schemas"] = schemas

    server = data.get("server")
    if isinstance(server, dict):
        mcp = {key: _dreamer_interpolate(server[key], f"server.{key}", problems, env)
               for key in ("host", "port") if key in server}
        if mcp:
            result["mcp"] = mcp
    if problems:
        raise ConfigError(path, problems)
    return result


def _validated(data: dict[str, Any], path: Path) -> Config:
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(path, _format_validation(exc)) from None


def load_config(path: Path, environ: dict[str, str] | None = None) -> Config:
    """Load `dreamtui.yaml`, or a Dreamer `dreamer.yaml` when that is the file named."""
    data = _read_yaml(path)
    if path.name == DREAMER_CONFIG_NAME:
        try:
            return _validated(_dreamer_to_dreamtui(data, path, environ), path)
        except RecursionError:
            raise ConfigError(path, [_TOO_DEEP]) from None
    return parse_config(data, path, environ)


def render_config(config: Config) -> str:
    """The resolved config as YAML, for `dreamtui config check`."""
    return yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False, allow_unicode=True)
