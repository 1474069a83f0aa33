"""Reads the two CLIs' JSON-lines streams into progress chips, a reply, a session id and what
was blocked.

Claude Code (`claude -p --output-format stream-json --verbose`, prompt on stdin), typed as
SDKMessage in @anthropic-ai/claude-agent-sdk's sdk.d.ts:
  {"type":"system","subtype":"init","session_id":...,"claude_code_version":...}
  {"type":"assistant","message":{"content":[{"type":"tool_use","id":...,"name":"Read",...},
                                            {"type":"text","text":...}]}}
  {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":...,"is_error":...}]}}
  {"type":"result","subtype":"success"|"error_...","is_error":bool,"result":...,"errors":[...],
   "permission_denials":[{"tool_name","tool_use_id","tool_input"}],"session_id":...}

Codex (`codex exec --json ... -`), ThreadEvent in openai/codex codex-rs/exec/src/exec_events.rs:
  {"type":"thread.started","thread_id":...} {"type":"turn.started"}
  {"type":"item.started"|"item.updated"|"item.completed","item":{"id":...,"type":
     "command_execution"(status in_progress|completed|failed|declined)|"file_change"|
     "agent_message"|"reasoning"|"mcp_tool_call"|"web_search"|"todo_list"|"error", ...}}
  {"type":"turn.completed","usage":{...}} | {"type":"turn.failed","error":{"message":...}}
  {"type":"error","message":...}

A tool's chip is held until its result says whether it ran (at most `hold` seconds), so a tool
the CLI refused is shown as "Blocked: npm test", never as "Running npm test". Success or failure
is read from the stream, never from the exit code.
"""

from __future__ import annotations

import os
import shlex
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

CHIP_MAX = 120
SHELLS = ("bash", "sh", "zsh", "dash", "fish")
READERS = ("cat", "head", "tail", "nl", "less", "more", "bat")
SEARCHERS = ("rg", "grep", "egrep", "fgrep", "ag", "ack", "git-grep")
SHELL_OPERATORS = ("|", "||", "&&", ";", ">", ">>", "<", "&")
# What Claude Code writes in the tool_result of a tool it refused to run in a headless run; the
# result's permission_denials list is the authoritative record and corrects any miss here.
DENIAL_PHRASES = ("requires approval", "haven't granted it yet", "Permission to use",
                  "permission was denied", "was blocked")
OLD_CODEX = "codex 0.45 or later is required (found output of an older version)"


def clip(text: Any, limit: int = CHIP_MAX) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class Paths:
    def __init__(self, cwd: str):
        self.cwd = os.path.realpath(cwd) if cwd else ""

    def rel(self, path: Any) -> str:
        p = str(path or "").strip()
        if not p:
            return "a file"
        if self.cwd and os.path.isabs(p):
            real = os.path.realpath(p)
            if real == self.cwd:
                return "."
            if real.startswith(self.cwd + os.sep):
                return os.path.relpath(real, self.cwd)
        return p[2:] if p.startswith("./") else p


def unwrap_command(command: Any) -> List[str]:
    """argv of a shell command, with `bash -lc '...'` unwrapped."""
    if isinstance(command, list):
        argv = [str(a) for a in command]
    else:
        try:
            argv = shlex.split(str(command or ""))
        except ValueError:
            argv = str(command or "").split()
    if len(argv) >= 3 and os.path.basename(argv[0]) in SHELLS and argv[1] in ("-c", "-lc", "-ic"):
        try:
            return shlex.split(argv[2])
        except ValueError:
            return argv[2].split()
    return argv


def command_text(command: Any) -> str:
    return " ".join(unwrap_command(command)) or "a command"


def command_chip(command: Any, paths: Paths) -> str:
    """A shell command as a chip: recognises reads, searches and listings."""
    argv = unwrap_command(command)
    if not argv:
        return "Running a command"
    text = " ".join(argv)
    if any(a in SHELL_OPERATORS for a in argv):
        return "Running " + clip(text, CHIP_MAX - 8)
    prog = os.path.basename(argv[0])
    args = [a for a in argv[1:] if not a.startswith("-")]
    if prog == "git" and len(argv) > 1 and argv[1] == "grep":
        prog, args = "git-grep", [a for a in argv[2:] if not a.startswith("-")]
    if prog in READERS and args:
        return "Reading " + clip(paths.rel(args[-1]), CHIP_MAX - 8)
    if prog == "sed" and "-n" in argv and len(args) >= 2:
        return "Reading " + clip(paths.rel(args[-1]), CHIP_MAX - 8)
    if prog in SEARCHERS and args:
        return "Searching for " + clip(args[0], CHIP_MAX - 14)
    if prog == "ls":
        return "Listing " + clip(paths.rel(args[-1]) if args else ".", CHIP_MAX - 8)
    return "Running " + clip(text, CHIP_MAX - 8)


def claude_tool_chip(name: str, inp: Dict[str, Any], paths: Paths) -> Optional[str]:
    inp = inp if isinstance(inp, dict) else {}
    if name in ("Read", "NotebookRead"):
        return "Reading " + clip(paths.rel(inp.get("file_path") or inp.get("notebook_path")))
    if name in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
        return "Editing " + clip(paths.rel(inp.get("file_path") or inp.get("notebook_path")))
    if name == "Bash":
        return command_chip(inp.get("command", ""), paths)
    if name in ("Grep", "Glob"):
        return "Searching for " + clip(inp.get("pattern") or "files")
    if name == "LS":
        return "Listing " + clip(paths.rel(inp.get("path") or "."))
    if name == "WebFetch":
        return "Fetching " + clip(inp.get("url") or "a page")
    if name == "WebSearch":
        return "Searching the web for " + clip(inp.get("query") or "")
    if name in ("Task", "Agent"):
        return "Delegating: " + clip(inp.get("description") or inp.get("prompt") or "a subtask")
    if name in ("TodoWrite", "TodoRead", "ExitPlanMode", "exit_plan_mode"):
        return None
    return "Using " + clip(name or "a tool")


def claude_tool_target(name: str, inp: Dict[str, Any], paths: Paths) -> str:
    """What a refused tool would have touched: the command, the file, the URL."""
    inp = inp if isinstance(inp, dict) else {}
    if name == "Bash":
        return command_text(inp.get("command", ""))
    for key in ("file_path", "notebook_path", "path", "url", "pattern", "query"):
        if inp.get(key):
            value = inp[key]
            return paths.rel(value) if key.endswith("path") else str(value)
    return ""


@dataclass
class Blocked:
    """A tool the CLI refused to run: `tool` is its name (Bash, Edit, ...), `target` what it
    would have run or touched."""

    tool: str
    target: str

    @property
    def chip(self) -> str:
        label = self.target if self.tool in ("Bash", "command") else (
            "%s %s" % (self.tool, self.target)).strip()
        return "Blocked: " + clip(label or self.tool, CHIP_MAX - 9)


@dataclass
class CliResult:
    ok: bool
    text: str = ""
    session_id: Optional[str] = None
    error: Optional[str] = None
    chips: int = 0
    exit_code: Optional[int] = None
    incomplete: bool = False
    launched: bool = True
    blocked: List[Blocked] = field(default_factory=list)
    # The agent stopped the CLI itself (no output, too long, too old a version): running it again
    # on a fresh session would only fail the same way, after the same wait.
    stopped: bool = False


class _Mapper:
    """Shared by both CLIs: chips held per tool id until that tool's outcome is known."""

    def __init__(self, cwd: str = "", hold: float = 2.0):
        self.paths = Paths(cwd)
        self.hold = hold
        self.session_id: Optional[str] = None
        self.blocked: List[Blocked] = []
        self.fatal: Optional[str] = None  # the run cannot go on (an unsupported CLI version)
        self._held: "OrderedDict[str, Tuple[str, float]]" = OrderedDict()
        self._released: set = set()
        self._blocked_ids: set = set()

    def _hold(self, key: str, chip: str, now: float) -> List[str]:
        if key in self._held or key in self._released or key in self._blocked_ids:
            return []
        self._held[key] = (chip, now + self.hold)
        return []

    def _release(self, key: str) -> List[str]:
        held = self._held.pop(key, None)
        self._released.add(key)
        return [held[0]] if held else []

    def _block(self, key: Optional[str], blocked: Blocked) -> List[str]:
        if key is not None:
            if key in self._blocked_ids:
                return []
            self._blocked_ids.add(key)
            self._held.pop(key, None)
        self.blocked.append(blocked)
        return [blocked.chip]

    def due(self, now: float) -> List[str]:
        """Chips whose tool is still running after the hold: shown as running."""
        out = []
        for key in [k for k, (_, deadline) in self._held.items() if deadline <= now]:
            out += self._release(key)
        return out

    def next_due(self) -> Optional[float]:
        return min((deadline for _, deadline in self._held.values()), default=None)

    def flush(self) -> List[str]:
        out = []
        for key in list(self._held):
            out += self._release(key)
        return out


class ClaudeMapper(_Mapper):
    def __init__(self, cwd: str = "", hold: float = 2.0):
        super().__init__(cwd, hold)
        self.final_text: Optional[str] = None
        self.last_text = ""
        self.error: Optional[str] = None
        self.finished = False
        self._tools: Dict[str, Tuple[str, Dict[str, Any]]] = {}

    def feed(self, obj: Dict[str, Any], now: Optional[float] = None) -> List[str]:
        now = time.monotonic() if now is None else now
        chips: List[str] = []
        kind = obj.get("type")
        sid = obj.get("session_id")
        if isinstance(sid, str) and sid:
            self.session_id = sid
        message = obj.get("message") if isinstance(obj.get("message"), dict) else {}
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        blocks = [b for b in content or [] if isinstance(b, dict)]
        if kind == "assistant":
            texts = []
            for block in blocks:
                if block.get("type") == "tool_use":
                    name = str(block.get("name") or "")
                    inp = block.get("input") if isinstance(block.get("input"), dict) else {}
                    chip = claude_tool_chip(name, inp, self.paths)
                    tid = block.get("id")
                    if isinstance(tid, str) and tid:
                        self._tools[tid] = (name, inp)
                        if chip:
                            chips += self._hold(tid, chip, now)
                    elif chip:
                        chips.append(chip)
                elif block.get("type") == "text" and block.get("text"):
                    texts.append(str(block["text"]))
            if texts and obj.get("parent_tool_use_id") in (None, ""):
                self.last_text = "\n".join(texts).strip()
        elif kind == "user":
            for block in blocks:
                if block.get("type") != "tool_result":
                    continue
                tid = str(block.get("tool_use_id") or "")
                if block.get("is_error") and _is_denial(block.get("content")):
                    name, inp = self._tools.get(tid, ("a tool", {}))
                    chips += self._block(tid, Blocked(name, claude_tool_target(name, inp,
                                                                               self.paths)))
                else:
                    chips += self._release(tid)
        elif kind == "result":
            self.finished = True
            for denial in obj.get("permission_denials") or []:
                if not isinstance(denial, dict):
                    continue
                name = str(denial.get("tool_name") or "a tool")
                inp = denial.get("tool_input") if isinstance(denial.get("tool_input"), dict) else {}
                tid = denial.get("tool_use_id")
                chips += self._block(str(tid) if tid else None,
                                     Blocked(name, claude_tool_target(name, inp, self.paths)))
            chips += self.flush()
            result = obj.get("result")
            is_error = bool(obj.get("is_error")) or (
                obj.get("subtype") not in (None, "success"))
            if is_error:
                detail = result if isinstance(result, str) and result.strip() else None
                errors = obj.get("errors")
                if not detail and isinstance(errors, list) and errors:
                    detail = "; ".join(str(e) for e in errors[:3])
                self.error = detail or "the run ended with %s" % (obj.get("subtype") or "an error")
            else:
                self.final_text = (result if isinstance(result, str) else "") or self.last_text
        return chips

    def outcome(self) -> CliResult:
        if self.error:
            return CliResult(False, self.last_text, self.session_id, self.error,
                             blocked=self.blocked)
        if not self.finished:
            return CliResult(False, self.last_text, self.session_id,
                             "the CLI stopped without a final result", incomplete=True,
                             blocked=self.blocked)
        return CliResult(True, (self.final_text or "").strip(), self.session_id,
                         blocked=self.blocked)


def _is_denial(content: Any) -> bool:
    if isinstance(content, list):
        content = " ".join(str(c.get("text") or "") for c in content if isinstance(c, dict))
    text = str(content or "")
    return any(phrase in text for phrase in DENIAL_PHRASES)


class CodexMapper(_Mapper):
    def __init__(self, cwd: str = "", hold: float = 2.0):
        super().__init__(cwd, hold)
        self.last_text = ""
        self.error: Optional[str] = None
        self.stream_error: Optional[str] = None
        self.finished = False

    def feed(self, obj: Dict[str, Any], now: Optional[float] = None) -> List[str]:
        now = time.monotonic() if now is None else now
        kind = obj.get("type")
        if kind is None and isinstance(obj.get("msg"), dict):
            # Before 0.44 `codex exec --json` printed {"id": ..., "msg": {...}} event lines.
            self.fatal = OLD_CODEX
        elif kind == "thread.started":
            tid = obj.get("thread_id")
            if isinstance(tid, str) and tid:
                self.session_id = tid
        elif kind == "turn.completed":
            self.finished = True
            return self.flush()
        elif kind == "turn.failed":
            err = obj.get("error") or {}
            self.error = str(err.get("message") if isinstance(err, dict) else err) or "turn failed"
            return self.flush()
        elif kind == "error":
            # May be followed by a retry that succeeds; fatal only if no turn completes.
            self.stream_error = str(obj.get("message") or "stream error")
        elif kind in ("item.started", "item.updated", "item.completed"):
            item = obj.get("item")
            if isinstance(item, dict):
                if "item_type" in item:  # 0.44 named the field item_type (assistant_message...)
                    self.fatal = OLD_CODEX
                    return []
                return self._item(kind, item, now)
        return []

    def _item(self, kind: str, item: Dict[str, Any], now: float) -> List[str]:
        itype = item.get("type")
        iid = item.get("id")
        key = "%s:%s" % (itype, iid) if iid else None
        if itype == "agent_message":
            if kind == "item.completed" and item.get("text"):
                self.last_text = str(item["text"]).strip()
            return []
        if itype == "command_execution":
            command = item.get("command", "")
            if item.get("status") == "declined":
                return self._block(key, Blocked("command", command_text(command)))
            chip = command_chip(command, self.paths)
            if key is None:
                return [chip]
            if kind == "item.completed":
                return self._hold(key, chip, now) + self._release(key)
            return self._hold(key, chip, now)
        chips: List[str] = []
        if itype == "file_change":
            if kind != "item.completed" or item.get("status") == "failed":
                return []
            for change in item.get("changes") or []:
                if isinstance(change, dict):
                    verb = "Deleting " if change.get("kind") == "delete" else "Editing "
                    chips.append(verb + clip(self.paths.rel(change.get("path"))))
        elif itype == "mcp_tool_call":
            chips = ["Using " + clip("%s.%s" % (item.get("server") or "mcp",
                                                item.get("tool") or "tool"))]
        elif itype == "web_search":
            chips = ["Searching the web for " + clip(item.get("query") or "")]
        else:  # reasoning, todo_list, plan, error items: no chip
            return []
        if key is not None:
            if key in self._released:
                return []
            self._released.add(key)
        return chips

    def outcome(self) -> CliResult:
        if self.fatal:
            return CliResult(False, "", self.session_id, self.fatal, blocked=self.blocked)
        if self.error:
            return CliResult(False, self.last_text, self.session_id, self.error,
                             blocked=self.blocked)
        if not self.finished:
            return CliResult(False, self.last_text, self.session_id,
                             self.stream_error or "the CLI stopped without completing its turn",
                             incomplete=True, blocked=self.blocked)
        return CliResult(True, self.last_text, self.session_id, blocked=self.blocked)


def mapper_for(cli: str, cwd: str = "", hold: float = 2.0):
    return CodexMapper(cwd, hold) if cli == "codex" else ClaudeMapper(cwd, hold)
