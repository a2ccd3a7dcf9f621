"""The workspace's git history: committing what a commit wrote, and reading it back for History.

Only a workspace whose root is itself a repository is committed to; a workspace that merely sits
inside some larger repository is left alone, so dreamtui never commits into a project it was
not set up in.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dreamtui.workspace.layout import Workspace

TRAILER_DREAM = "Dream-Id"
TRAILER_ENGINE = "Engine"
_CHUNK = 500  # paths per git invocation


@dataclass(frozen=True)
class GitResult:
    sha: str | None  # the new commit, or None when nothing was committed
    note: str  # one line for the report: what happened and why


def _repo(workspace: Workspace) -> Any:
    """The repository at the workspace root, or None (gitpython is imported only when needed:
    importing it costs more than many commands take)."""
    if not (workspace.root / ".git").exists():
        return None
    import git

    try:
        return git.Repo(workspace.root)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None


def is_repository(workspace: Workspace) -> bool:
    return _repo(workspace) is not None


def _identity_env(workspace: Workspace) -> dict[str, str]:
    # Set both identities explicitly: a cron job often runs where no git user is configured.
    name, email = workspace.config.git.author_name, workspace.config.git.author_email
    return {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}


def _relative(workspace: Workspace, paths: Sequence[str | Path]) -> list[str]:
    out = []
    for path in paths:
        full = Path(path) if Path(path).is_absolute() else workspace.root / path
        try:
            out.append(full.relative_to(workspace.root).as_posix())
        except ValueError:
            continue  # outside the repository (an absolute memory root): git cannot track it
    return out


def commit_paths(workspace: Workspace, paths: Sequence[str | Path], message: str) -> GitResult:
    """Commit exactly `paths` (new, changed or removed) on top of HEAD.

    The commit is built on a temporary index (HEAD's tree plus these paths), so other staged or
    unstaged work in the repository is neither committed nor disturbed, and no pathspec matching
    is involved (porcelain `git add -- <1,000 paths>` is quadratic in paths × index entries).
    Idempotent: when the paths already match HEAD — a roll-forward after the commit was made —
    nothing is committed. Hooks do not run: this is dreamtui recording its own decision.
    """
    if not workspace.config.git.commit:
        return GitResult(None, "git commit disabled (git.commit: false in the config)")
    repo = _repo(workspace)
    if repo is None:
        return GitResult(None, f"not a git repository: {workspace.root} (run `git init` there "
                               "to keep a history of every decision)")
    relative = _relative(workspace, paths)
    if not relative:
        return GitResult(None, "nothing inside the repository to commit")
    import git

    try:
        return _commit_tree(repo, workspace, relative, message)
    except git.GitCommandError as exc:
        detail = (exc.stderr or str(exc)).strip().splitlines()
        return GitResult(None, f"git commit failed: {detail[-1] if detail else exc} "
                               "(the files were written; commit them by hand)")


def _update_index(repo: Any, paths: list[str], env: dict[str, str] | None = None) -> None:
    # Literal paths (update-index does no pathspec matching), chunked far below argv limits.
    for start in range(0, len(paths), _CHUNK):
        repo.git.update_index("--add", "--remove", "--", *paths[start:start + _CHUNK], env=env)


def _commit_tree(repo: Any, workspace: Workspace, paths: list[str], message: str) -> GitResult:
    head = repo.head.commit.hexsha if repo.head.is_valid() else None
    index_file = Path(repo.git_dir) / f"dreamtui-index-{os.getpid()}"
    scratch = {"GIT_INDEX_FILE": str(index_file)}
    try:
        repo.git.read_tree(head or "--empty", env=scratch)
        _update_index(repo, paths, scratch)
        tree = repo.git.write_tree(env=scratch)
    finally:
        index_file.unlink(missing_ok=True)
    if head is not None and tree == repo.head.commit.tree.hexsha:
        return GitResult(None, "git: nothing to commit (already committed)")
    parents = ["-p", head] if head else []
    sha = repo.git.commit_tree(tree, *parents, "-m", message, env=_identity_env(workspace))
    # the old value makes the update fail rather than drop a commit someone made meanwhile
    repo.git.update_ref("-m", f"commit: {message.splitlines()[0]}", "HEAD", sha,
                        *([head] if head else []))
    _update_index(repo, paths)  # so `git status` shows these paths as committed
    return GitResult(sha, "committed")


def parse_trailers(message: str) -> dict[str, str]:
    """`Key: value` lines of the message's last paragraph."""
    paragraphs = [p for p in message.strip().split("\n\n") if p.strip()]
    if len(paragraphs) < 2:
        return {}
    trailers = {}
    for line in paragraphs[-1].splitlines():
        key, sep, value = line.partition(": ")
        if sep and key and " " not in key:
            trailers[key] = value.strip()
    return trailers


def recent_commits(workspace: Workspace, limit: int = 50) -> list[dict[str, Any]]:
    """Newest first: sha, short, summary, message, author, date (ISO), dream_id, engine."""
    repo = _repo(workspace)
    if repo is None or not repo.head.is_valid():
        return []
    commits = []
    for commit in repo.iter_commits(max_count=max(limit, 0)):
        message = commit.message if isinstance(commit.message, str) else commit.message.decode()
        trailers = parse_trailers(message)
        commits.append({
            "sha": commit.hexsha,
            "short": commit.hexsha[:10],
            "summary": message.splitlines()[0] if message else "",
            "message": message,
            "author": commit.author.name,
            "date": commit.committed_datetime.isoformat(),
            "dream_id": trailers.get(TRAILER_DREAM),
            "engine": trailers.get(TRAILER_ENGINE),
        })
    return commits

