"""Git in the checkout: is it clean, what changed, commit to the base branch or push a branch + PR."""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

log = logging.getLogger("ferry_agent.git")

FALLBACK_IDENTITY = ["-c", "user.name=Ferry agent", "-c", "user.email=ferry-agent@localhost"]


class GitError(Exception):
    pass


def _env() -> Dict[str, str]:
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"  # never wait for a password nobody will type
    env.setdefault("GIT_EDITOR", "true")
    env["LC_ALL"] = "C"
    return env


def git(cwd: str, *args: str, check: bool = True, timeout: float = 120,
        input: Optional[str] = None) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(["git"] + list(args), cwd=cwd, capture_output=True, text=True,
                              encoding="utf-8", errors="replace", timeout=timeout, env=_env(),
                              input=input, stdin=None if input is not None else subprocess.DEVNULL)
    except FileNotFoundError:
        raise GitError("git is not installed (not found on PATH)") from None
    except subprocess.TimeoutExpired:
        raise GitError("`git %s` took longer than %d seconds" % (args[0], timeout)) from None
    if check and proc.returncode != 0:
        raise GitError(short_error(proc.stderr or proc.stdout) or
                       "`git %s` failed with exit code %d" % (args[0], proc.returncode))
    return proc


def short_error(text: str) -> str:
    """The most telling line of git's stderr (skips hints and progress)."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(("hint:", "To ", "remote: ", "Enumerating",
                                                      "Counting", "Writing", "Total"))] or lines
    for ln in lines:
        if ln.startswith(("error:", "fatal:", "!")):
            return ln[:400]
    return (lines[-1] if lines else "")[:400]


def is_work_tree(cwd: str) -> bool:
    try:
        return git(cwd, "rev-parse", "--is-inside-work-tree", check=False).stdout.strip() == "true"
    except GitError:
        return False


def current_branch(cwd: str) -> Optional[str]:
    out = git(cwd, "symbolic-ref", "--short", "-q", "HEAD", check=False).stdout.strip()
    return out or None


def has_commits(cwd: str) -> bool:
    return git(cwd, "rev-parse", "-q", "--verify", "HEAD", check=False).returncode == 0


def status_entries(cwd: str) -> List[Tuple[str, str]]:
    """(XY code, path) for every changed or untracked file; renames give the new path."""
    out = git(cwd, "status", "--porcelain=v1", "-z", "--untracked-files=all").stdout
    parts = out.split("\0")
    entries: List[Tuple[str, str]] = []
    i = 0
    while i < len(parts):
        rec = parts[i]
        i += 1
        if len(rec) < 4:
            continue
        code, path = rec[:2], rec[3:]
        if code[0] in "RC":
            i += 1  # the original path follows
        entries.append((code, path))
    return entries


def in_progress_operation(cwd: str) -> Optional[str]:
    gitdir = git(cwd, "rev-parse", "--git-dir").stdout.strip()
    gitdir = gitdir if os.path.isabs(gitdir) else os.path.join(cwd, gitdir)
    for name, what in (("MERGE_HEAD", "a merge"), ("rebase-merge", "a rebase"),
                       ("rebase-apply", "a rebase"), ("CHERRY_PICK_HEAD", "a cherry-pick"),
                       ("REVERT_HEAD", "a revert")):
        if os.path.exists(os.path.join(gitdir, name)):
            return what
    return None


def preflight(cwd: str, base: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """Checks the checkout before the CLI runs. Returns (base branch, problem or None)."""
    if not os.path.isdir(cwd):
        return base, "the checkout %s does not exist" % cwd
    if not is_work_tree(cwd):
        return base, "%s is not a git repository" % cwd
    op = in_progress_operation(cwd)
    if op:
        return base, "the checkout %s is in the middle of %s; finish or abort it first" % (cwd, op)
    entries = status_entries(cwd)
    if any(code in ("DD", "AU", "UD", "UA", "DU", "AA", "UU") for code, _ in entries):
        return base, "the checkout %s has unresolved merge conflicts" % cwd
    if entries:
        names = ", ".join(p for _, p in entries[:5]) + (" and more" if len(entries) > 5 else "")
        return base, ("the checkout %s has uncommitted changes (%d files: %s); I won't work on "
                      "top of them. Commit or stash them, then ask again" % (cwd, len(entries), names))
    branch = current_branch(cwd)
    if base is None:
        if branch is None:
            return None, "the checkout %s is on a detached HEAD; check out a branch or set " \
                         "SERVICE_BASE_BRANCH" % cwd
        base = branch
    if branch != base:
        proc = git(cwd, "checkout", "-q", base, check=False)
        if proc.returncode != 0:
            return base, "could not check out the base branch %s: %s" % (base, short_error(proc.stderr))
    return base, None


def update_base(cwd: str) -> None:
    """Best effort: fast-forward the base branch from its upstream before working."""
    if git(cwd, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}",
           check=False).returncode != 0:
        return
    proc = git(cwd, "pull", "--ff-only", "--quiet", check=False, timeout=60)
    if proc.returncode != 0:
        log.warning("could not fast-forward the base branch: %s", short_error(proc.stderr))


def _count_lines(path: str) -> int:
    try:
        with open(path, "rb") as f:
            data = f.read(8 * 1024 * 1024)
    except OSError:
        return 0
    if b"\0" in data[:8000]:
        return 0  # binary
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


@dataclass
class Changes:
    files: List[str]
    lines: int

    @property
    def any(self) -> bool:
        return bool(self.files)


def changes(cwd: str) -> Changes:
    """Files changed (untracked included) and changed lines (added + deleted)."""
    entries = status_entries(cwd)
    files = [p for _, p in entries]
    lines = 0
    if has_commits(cwd):
        out = git(cwd, "diff", "HEAD", "--numstat", "--no-renames").stdout
        for row in out.splitlines():
            cols = row.split("\t")
            if len(cols) >= 3:
                for n in cols[:2]:
                    if n.isdigit():
                        lines += int(n)
        untracked = [p for code, p in entries if code == "??"]
    else:
        untracked = files
    for p in untracked:
        lines += _count_lines(os.path.join(cwd, p))
    return Changes(files=files, lines=lines)


def _identity(cwd: str) -> List[str]:
    ok = git(cwd, "config", "user.email", check=False).stdout.strip()
    return [] if ok else list(FALLBACK_IDENTITY)


def commit_all(cwd: str, message: str) -> str:
    git(cwd, "add", "-A")
    args = _identity(cwd) + ["commit", "-q", "-F", "-"]
    git(cwd, *args, input=message)
    return git(cwd, "rev-parse", "--short", "HEAD").stdout.strip()


def stash(cwd: str, message: str) -> bool:
    if not status_entries(cwd):
        return False
    args = _identity(cwd) + ["stash", "push", "--include-untracked", "-m", message]
    return git(cwd, *args, check=False).returncode == 0


def remote_for(cwd: str, branch: str) -> Optional[str]:
    configured = git(cwd, "config", "branch.%s.remote" % branch, check=False).stdout.strip()
    remotes = git(cwd, "remote").stdout.split()
    if configured and configured in remotes:
        return configured
    if "origin" in remotes:
        return "origin"
    return remotes[0] if remotes else None


def commit_message(summary: str, work_id: str) -> str:
    first = next((ln.strip() for ln in summary.splitlines() if ln.strip()), "") or "Change"
    return "%s\n\nService-Work-Id: %s\n" % (first[:200], work_id)


def quick_fix(cwd: str, base: str, message: str) -> str:
    """Commits on the base branch and pushes when there is a remote. Returns the reply line."""
    sha = commit_all(cwd, message)
    remote = remote_for(cwd, base)
    if remote is None:
        return "Committed %s to %s (no remote to push to)." % (sha, base)
    proc = git(cwd, "push", "--quiet", remote, "HEAD:refs/heads/%s" % base, check=False, timeout=120)
    if proc.returncode != 0:
        return ("Committed %s to %s, but the push to %s was refused: %s. The commit is only on "
                "this machine." % (sha, base, remote, short_error(proc.stderr)))
    return "Committed %s to %s and pushed it to %s." % (sha, base, remote)


def branch_name(work_id: str, cwd: Optional[str] = None) -> str:
    tail = re.sub(r"[^A-Za-z0-9]", "", work_id.split("_", 1)[-1]).lower()[-8:] or "work"
    name = "service/%s" % tail
    if cwd is None:
        return name
    candidate, n = name, 2
    while git(cwd, "rev-parse", "-q", "--verify", "refs/heads/" + candidate,
              check=False).returncode == 0:
        candidate = "%s-%d" % (name, n)
        n += 1
    return candidate


def pull_request(cwd: str, base: str, work_id: str, message: str,
                 gh: Optional[str] = None) -> str:
    """Commits on service/<id>, pushes it, opens a PR with gh when present. Returns the reply line.

    Always ends back on the base branch with a clean tree.
    """
    branch = branch_name(work_id, cwd)
    git(cwd, "checkout", "-q", "-b", branch)
    try:
        sha = commit_all(cwd, message)
    except GitError:
        stash(cwd, "service: %s (commit failed)" % work_id)
        git(cwd, "checkout", "-q", base, check=False)
        git(cwd, "branch", "-D", branch, check=False)
        raise
    try:
        remote = remote_for(cwd, base)
        if remote is None:
            return ("Committed %s on branch %s (no remote to push to, so no pull request)."
                    % (sha, branch))
        proc = git(cwd, "push", "--quiet", "-u", remote, branch, check=False, timeout=120)
        if proc.returncode != 0:
            return ("Committed %s on branch %s, but the push to %s was refused: %s."
                    % (sha, branch, remote, short_error(proc.stderr)))
        gh = gh if gh is not None else shutil.which("gh")
        if not gh:
            return ("Pushed branch %s to %s; open a pull request from it into %s (the GitHub CLI "
                    "`gh` is not installed here)." % (branch, remote, base))
        url, err = _gh_pr_create(cwd, gh, branch, base)
        if url:
            return "Opened a pull request: %s (branch %s into %s)." % (url, branch, base)
        return ("Pushed branch %s to %s, but `gh pr create` failed: %s. Open the pull request "
                "by hand." % (branch, remote, err))
    finally:
        git(cwd, "checkout", "-q", base, check=False)


def _gh_pr_create(cwd: str, gh: str, branch: str, base: str) -> Tuple[Optional[str], str]:
    try:
        proc = subprocess.run([gh, "pr", "create", "--fill", "--head", branch, "--base", base],
                              cwd=cwd, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL, env=_env())
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    urls = re.findall(r"https?://\S+", proc.stdout or "")
    if proc.returncode == 0 and urls:
        return urls[-1], ""
    return None, short_error(proc.stderr or proc.stdout) or "exit code %d" % proc.returncode


def describe_files(files: Sequence[str]) -> str:
    return ", ".join(files[:5]) + (" and %d more" % (len(files) - 5) if len(files) > 5 else "")
