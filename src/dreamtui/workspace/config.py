"""`dreamtui.yaml` (or a Dreamer server's `dreamer.yaml`) → one validated `Config`.

Errors never escape as pydantic or YAML tracebacks: `load_config` raises `ConfigError` whose
problems each name the file, the key path and what was expected.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

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


class ContextConfig(_Section):
    root: str = "workspace/context"
    byte_budget: int = Field(24 * 1024, ge=1024, le=1_048_576)
    # None: DEFAULT_TARGETS when project.root is set; [] delivers nothing into the project.
    targets: list[TargetConfig] | None = None
    # Which entries the bundle carries, by their frontmatter `route` (dream/routes.py): `bundle`
    # (recurring lessons; an entry without a route counts as bundle) by default; add `skill` or
    # `memory` to carry those too. A pinned entry is always carried.
    include: list[Literal["bundle", "skill", "memory"]] = Field(
        default_factory=lambda: ["bundle"], min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _also_claude_md_removed(cls, data: Any) -> Any:
        if isinstance(data, dict) and "also_claude_md" in data:
            raise ValueError("also_claude_md was removed: set project.root, and the project's "
                             "CLAUDE.md receives the bundle through context.targets "
                             "(default: AGENTS.md as a block, CLAUDE.md importing it)")
        return data

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


class DreamConfig(_Section):
    engine: str = "heuristic"
    similarity: int = Field(88, ge=50, le=100)
    token_budget: int = Field(24_000, ge=1_000)
    fallback_to_heuristic: bool = False
    anthropic: AnthropicConfig = Field(default_factory=AnthropicConfig)
    ollama: OllamaConfig = Field(default_factory=OllamaConfig)


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


class Config(_Section):
    version: int = 1
    memory_types: list[str] = Field(default_factory=lambda: list(DEFAULT_MEMORY_TYPES))
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


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, [f"(file): not UTF-8 text ({exc.reason} at byte {exc.start})"]) from None
    except OSError as exc:
        raise ConfigError(path, [f"(file): cannot read: {exc.strerror}"]) from None
    try:
        data = yaml.safe_load(text)
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


def _format_validation(exc: ValidationError) -> list[str]:
    problems = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        kind = error["type"]
        if kind == "extra_forbidden":
            problems.append(f"{key}: unknown key (check its spelling; see `dreamtui config check`)")
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
    data = _interpolated(data, path, environ)
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(path, _format_validation(exc)) from None


def _dreamer_to_dreamtui(data: Any, path: Path) -> dict[str, Any]:
    """Map the parts of a Dreamer server's config that dreamtui needs (docs/architecture.md §3.1)."""
    if not isinstance(data, dict):
        raise ConfigError(path, ["(top level): expected a mapping of keys"])

    def param(slot: str, key: str) -> Any:
        section = data.get(slot)
        if not isinstance(section, dict):
            return None
        params = section.get("params")
        return params.get(key) if isinstance(params, dict) else None

    result: dict[str, Any] = {}
    db_path = param("stm_store", "db_path") or param("stm_store", "path")
    if db_path is not None:
        result["stm"] = {"path": str(db_path)}
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
    types = param("stm_store", "memory_types") or data.get("memory_types")
    if isinstance(types, list):
        result["memory_types"] = [t for t in types if t not in FEEDBACK_TYPES]
    return result


def load_config(path: Path, environ: dict[str, str] | None = None) -> Config:
    """Load `dreamtui.yaml`, or a Dreamer `dreamer.yaml` when that is the file named."""
    data = _read_yaml(path)
    if path.name == DREAMER_CONFIG_NAME:
        data = _dreamer_to_dreamtui(_interpolated(data, path, environ), path)
    return parse_config(data, path, environ)


def render_config(config: Config) -> str:
    """The resolved config as YAML, for `dreamtui config check`."""
    return yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False, allow_unicode=True)
