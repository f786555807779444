"""Which code is running: the checkout's commit and whether it has changes, for run records.

Read-only by construction: git is asked with optional locks off, so recording provenance never
writes the repository's index (no ``index.lock`` left behind by a process that dies or meets a full
disk, no clash with the user's own git commands).
"""

from __future__ import annotations

import os
import subprocess

from proagent.paths import PROJECT_ROOT


def _git(*args: str) -> str:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    done = subprocess.run(
        ["git", *args], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=10, check=True
    )
    return done.stdout.strip()


def git_state() -> tuple[str, bool]:
    """(commit, dirty) of the checkout, or ('unknown', False) outside git or without git."""
    try:
        return _git("rev-parse", "HEAD"), bool(_git("status", "--porcelain"))
    except (OSError, subprocess.SubprocessError):
        return "unknown", False


def git_commit() -> str:
    """HEAD of the checkout with '-dirty' when tracked files have changes; '' outside git."""
    try:
        head = _git("rev-parse", "HEAD")
        return f"{head}-dirty" if head and _git("status", "--porcelain", "--untracked-files=no") else head
    except (OSError, subprocess.SubprocessError):
        return ""
