"""Settings from the environment, parsed once; every problem is reported together.

SPEC.md names SERVICE_URL, SERVICE_TOKEN, SERVICE_INSTALL_ID, CODE_ROOT, PROJECT, SERVICE_CLI and
SERVICE_AGENT_NAME. The rest are operator and test overrides (README.md lists them all).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional
from urllib.parse import urlsplit

INSTALL_ID_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
CLIS = ("claude", "codex")

# Extra CLI flags used when SERVICE_CLI_ARGS is not set: without them neither CLI may edit files
# when run headless (Claude Code refuses what needs approval, Codex exec defaults to a read-only
# sandbox). Claude Code may also run the project's tests: `npm test` and SERVICE_TEST_COMMAND;
# any other command it tries is refused and reported as blocked. Codex's workspace-write sandbox
# runs any command in the checkout, without network access.
DEFAULT_TEST_COMMAND = "npm test"


def default_cli_args(cli: str, test_command: str = "") -> List[str]:
    if cli == "codex":
        return ["--sandbox", "workspace-write"]
    allowed = []
    for command in (DEFAULT_TEST_COMMAND, test_command.strip()):
        rule = "Bash(%s:*)" % command
        if command and rule not in allowed:
            allowed.append(rule)
    return ["--permission-mode", "acceptEdits", "--allowedTools"] + allowed


class ConfigError(Exception):
    """Raised with every problem found; str() is the message printed before exit code 2."""

    def __init__(self, problems: List[str]):
        self.problems = problems
        lines = ["ferry-agent: the environment is not usable:"]
        lines += ["  - " + p for p in problems]
        lines.append("See packages/agent/README.md for every variable.")
        super().__init__("\n".join(lines))


@dataclass
class Config:
    url: str
    token: str = field(repr=False)
    install_id: str
    code_root: str
    project: str
    checkout: str
    cli: str
    cli_command: List[str]
    cli_args: List[str]
    agent_name: Optional[str]
    state_dir: str
    base_branch: Optional[str]
    heartbeat_seconds: float = 20.0
    reconnect_min_seconds: float = 0.5
    reconnect_max_seconds: float = 30.0
    auth_retry_seconds: float = 60.0
    progress_seconds: float = 1.0
    stream_timeout_seconds: float = 45.0
    http_timeout_seconds: float = 15.0
    cli_timeout_seconds: float = 3600.0
    cli_idle_seconds: float = 600.0
    post_retry_seconds: float = 300.0

    def headers(self) -> Dict[str, str]:
        """Headers every request carries (PROTOCOL.md "Every request")."""
        h = {
            "Authorization": "Bearer " + self.token,
            "X-Service-Install-Id": self.install_id,
            "X-Service-Project": self.project,
            "User-Agent": "ferry-agent/0.1.0",
        }
        if self.agent_name:
            h["X-Service-Agent-Name"] = self.agent_name
        return h


def _is_repo(path: str) -> bool:
    return os.path.exists(os.path.join(path, ".git"))


def _number(env: Mapping[str, str], name: str, default: float, problems: List[str],
            minimum: float = 0.0) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        problems.append("%s must be a number of seconds (got %r)" % (name, raw))
        return default
    if value < minimum:
        problems.append("%s must be at least %s (got %r)" % (name, minimum, raw))
        return default
    return value


def resolve_checkout(code_root: str, project: str, problems: List[str]):
    """Both CODE_ROOT shapes: a folder of repos plus PROJECT, or CODE_ROOT is the repo itself.

    Returns (code_root, project, checkout) or None after appending to problems.
    """
    root = os.path.abspath(os.path.expanduser(code_root))
    if not os.path.isdir(root):
        problems.append("CODE_ROOT %r is not a directory" % code_root)
        return None
    if project:
        if "/" in project or project in (".", ".."):
            problems.append("PROJECT must be a folder name inside CODE_ROOT, not a path (got %r)"
                            % project)
            return None
        candidate = os.path.join(root, project)
        if os.path.isdir(candidate):
            if not _is_repo(candidate):
                problems.append("%s (CODE_ROOT/PROJECT) is not a git repository" % candidate)
                return None
            return root, project, candidate
        if _is_repo(root):
            # CODE_ROOT is the repo itself; PROJECT is only the name.
            return root, project, root
        problems.append("PROJECT %r is not a folder in CODE_ROOT %s" % (project, root))
        return None
    if _is_repo(root):
        return root, os.path.basename(root.rstrip("/")) or "project", root
    problems.append("PROJECT is not set and CODE_ROOT %s is not a git repository "
                    "(set PROJECT to the repository's folder name inside CODE_ROOT)" % root)
    return None


def load(env: Optional[Mapping[str, str]] = None) -> Config:
    env = os.environ if env is None else env
    problems: List[str] = []

    def get(name: str) -> str:
        return env.get(name, "").strip()

    url = get("SERVICE_URL").rstrip("/")
    if not url:
        problems.append("SERVICE_URL is not set (the workspace host, e.g. https://ferry.example.com)")
    else:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            problems.append("SERVICE_URL must be an http:// or https:// address (got %r)" % url)

    token = get("SERVICE_TOKEN")
    if not token:
        problems.append("SERVICE_TOKEN is not set (an API token with scope platform:dispatch)")
    elif any(c.isspace() for c in token):
        problems.append("SERVICE_TOKEN contains whitespace")

    install_id = get("SERVICE_INSTALL_ID")
    if not install_id:
        problems.append("SERVICE_INSTALL_ID is not set (install.sh writes a random one)")
    elif not INSTALL_ID_RE.match(install_id):
        problems.append("SERVICE_INSTALL_ID must be 8 to 64 characters of A-Z a-z 0-9 _ - (got %r)"
                        % install_id)

    code_root = get("CODE_ROOT")
    project = get("PROJECT")
    resolved = None
    if not code_root:
        problems.append("CODE_ROOT is not set (a folder of repositories, or the repository itself)")
    else:
        resolved = resolve_checkout(code_root, project, problems)

    cli = get("SERVICE_CLI").lower() or "claude"
    if cli not in CLIS:
        problems.append("SERVICE_CLI must be 'claude' or 'codex' (got %r)" % get("SERVICE_CLI"))
        cli = "claude"

    cli_command: List[str] = [cli]
    raw_cmd = get("SERVICE_CLI_COMMAND")
    if raw_cmd:
        try:
            cli_command = shlex.split(raw_cmd)
        except ValueError as e:
            problems.append("SERVICE_CLI_COMMAND cannot be parsed (%s)" % e)
        if not cli_command:
            cli_command = [cli]

    test_command = get("SERVICE_TEST_COMMAND")
    if test_command and any(c in test_command for c in "()\n"):
        problems.append("SERVICE_TEST_COMMAND cannot hold parentheses or line breaks (got %r)"
                        % test_command)
    cli_args = default_cli_args(cli, test_command)
    if "SERVICE_CLI_ARGS" in env:
        try:
            cli_args = shlex.split(env.get("SERVICE_CLI_ARGS", ""))
        except ValueError as e:
            problems.append("SERVICE_CLI_ARGS cannot be parsed (%s)" % e)

    agent_name = get("SERVICE_AGENT_NAME") or None
    if agent_name and len(agent_name) > 80:
        problems.append("SERVICE_AGENT_NAME is longer than 80 characters")

    state_dir = get("SERVICE_STATE_DIR")
    if not state_dir:
        home = env.get("HOME") or os.path.expanduser("~")
        state_dir = os.path.join(home, ".local", "state", "service-dispatch",
                                 install_id or "default")
    state_dir = os.path.abspath(os.path.expanduser(state_dir))

    base_branch = get("SERVICE_BASE_BRANCH") or None

    numbers = dict(
        heartbeat_seconds=_number(env, "SERVICE_HEARTBEAT_SECONDS", 20.0, problems, 0.05),
        reconnect_min_seconds=_number(env, "SERVICE_RECONNECT_MIN_SECONDS", 0.5, problems, 0.01),
        reconnect_max_seconds=_number(env, "SERVICE_RECONNECT_MAX_SECONDS", 30.0, problems, 0.01),
        auth_retry_seconds=_number(env, "SERVICE_AUTH_RETRY_SECONDS", 60.0, problems, 0.01),
        progress_seconds=_number(env, "SERVICE_PROGRESS_SECONDS", 1.0, problems),
        stream_timeout_seconds=_number(env, "SERVICE_STREAM_TIMEOUT_SECONDS", 45.0, problems, 0.1),
        http_timeout_seconds=_number(env, "SERVICE_HTTP_TIMEOUT_SECONDS", 15.0, problems, 0.1),
        cli_timeout_seconds=_number(env, "SERVICE_CLI_TIMEOUT_SECONDS", 3600.0, problems),
        cli_idle_seconds=_number(env, "SERVICE_CLI_IDLE_SECONDS", 600.0, problems),
        post_retry_seconds=_number(env, "SERVICE_POST_RETRY_SECONDS", 300.0, problems),
    )

    if problems:
        raise ConfigError(problems)
    assert resolved is not None
    root, project_name, checkout = resolved
    return Config(url=url, token=token, install_id=install_id, code_root=root,
                  project=project_name, checkout=checkout, cli=cli, cli_command=cli_command,
                  cli_args=cli_args, agent_name=agent_name, state_dir=state_dir,
                  base_branch=base_branch, **numbers)
