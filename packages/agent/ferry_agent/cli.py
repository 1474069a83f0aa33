"""Runs the coding CLI and reads its JSON-lines stream.

Claude Code (`claude -p PROMPT --output-format stream-json --verbose [--resume SESSION]`):
  {"type":"system","subtype":"init","session_id":...}
  {"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{...}},
                                            {"type":"text","text":...}]}}
  {"type":"user",...tool_result...}
  {"type":"result","subtype":"success"|"error_...","is_error":bool,"result":...,"session_id":...}

Codex (`codex exec --json PROMPT`, follow-up `codex exec resume THREAD --json PROMPT`):
  {"type":"thread.started","thread_id":...} {"type":"turn.started"}
  {"type":"item.started"|"item.updated"|"item.completed","item":{"id":...,"type":
     "command_execution"|"file_change"|"agent_message"|"reasoning"|"mcp_tool_call"|"web_search"|
     "todo_list"|"error", ...}}
  {"type":"turn.completed","usage":{...}} | {"type":"turn.failed","error":{"message":...}}
  {"type":"error","message":...}

Both are mapped to the same progress chips ("Reading src/app.ts", "Editing src/app.ts",
"Running npm test", "Searching for Pay"); the final assistant text is the reply. Success or
failure is read from the stream, never from the exit code.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

log = logging.getLogger("ferry_agent.cli")

CHIP_MAX = 120
PROMPT_LIMIT = 100000  # bytes
SHELLS = ("bash", "sh", "zsh", "dash", "fish")
READERS = ("cat", "head", "tail", "nl", "less", "more", "bat")
SEARCHERS = ("rg", "grep", "egrep", "fgrep", "ag", "ack", "git-grep")
SHELL_OPERATORS = ("|", "||", "&&", ";", ">", ">>", "<", "&")


def _clip(text: str, limit: int = CHIP_MAX) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class _Paths:
    def __init__(self, cwd: str):
        self.cwd = os.path.realpath(cwd) if cwd else ""

    def rel(self, path: Any) -> str:
        p = str(path or "").strip()
        if not p:
            return "a file"
        if self.cwd and os.path.isabs(p):
            real = os.path.realpath(p)
            for base in (self.cwd,):
                if real == base:
                    return "."
                if real.startswith(base + os.sep):
                    return os.path.relpath(real, base)
        return p[2:] if p.startswith("./") else p


def command_chip(command: Any, paths: _Paths) -> str:
    """A shell command as a chip: unwraps `bash -lc '...'`, recognises reads and searches."""
    if isinstance(command, list):
        argv = [str(a) for a in command]
    else:
        try:
            argv = shlex.split(str(command or ""))
        except ValueError:
            argv = str(command or "").split()
    if len(argv) >= 3 and os.path.basename(argv[0]) in SHELLS and argv[1] in ("-c", "-lc", "-ic"):
        inner = argv[2]
        try:
            argv = shlex.split(inner)
        except ValueError:
            return "Running " + _clip(inner, CHIP_MAX - 8)
    if not argv:
        return "Running a command"
    text = " ".join(argv)
    if any(a in SHELL_OPERATORS for a in argv):
        return "Running " + _clip(text, CHIP_MAX - 8)
    prog = os.path.basename(argv[0])
    args = [a for a in argv[1:] if not a.startswith("-")]
    if prog == "git" and len(argv) > 1 and argv[1] == "grep":
        prog, args = "git-grep", [a for a in argv[2:] if not a.startswith("-")]
    if prog in READERS and args:
        return "Reading " + _clip(paths.rel(args[-1]), CHIP_MAX - 8)
    if prog == "sed" and "-n" in argv and len(args) >= 2:
        return "Reading " + _clip(paths.rel(args[-1]), CHIP_MAX - 8)
    if prog in SEARCHERS and args:
        return "Searching for " + _clip(args[0], CHIP_MAX - 14)
    if prog == "ls":
        return "Listing " + _clip(paths.rel(args[-1]) if args else ".", CHIP_MAX - 8)
    return "Running " + _clip(text, CHIP_MAX - 8)


def claude_tool_chip(name: str, inp: Dict[str, Any], paths: _Paths) -> Optional[str]:
    inp = inp if isinstance(inp, dict) else {}
    if name in ("Read", "NotebookRead"):
        return "Reading " + _clip(paths.rel(inp.get("file_path") or inp.get("notebook_path")))
    if name in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
        return "Editing " + _clip(paths.rel(inp.get("file_path") or inp.get("notebook_path")))
    if name == "Bash":
        return command_chip(inp.get("command", ""), paths)
    if name in ("Grep", "Glob"):
        return "Searching for " + _clip(inp.get("pattern") or "files")
    if name == "LS":
        return "Listing " + _clip(paths.rel(inp.get("path") or "."))
    if name == "WebFetch":
        return "Fetching " + _clip(inp.get("url") or "a page")
    if name == "WebSearch":
        return "Searching the web for " + _clip(inp.get("query") or "")
    if name in ("Task", "Agent"):
        return "Delegating: " + _clip(inp.get("description") or inp.get("prompt") or "a subtask")
    if name in ("TodoWrite", "TodoRead", "ExitPlanMode", "exit_plan_mode"):
        return None
    return "Using " + _clip(name or "a tool")


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


class ClaudeMapper:
    def __init__(self, cwd: str = ""):
        self.paths = _Paths(cwd)
        self.session_id: Optional[str] = None
        self.final_text: Optional[str] = None
        self.last_text = ""
        self.error: Optional[str] = None
        self.finished = False

    def feed(self, obj: Dict[str, Any]) -> List[str]:
        chips: List[str] = []
        kind = obj.get("type")
        sid = obj.get("session_id") or obj.get("sessionId")
        if isinstance(sid, str) and sid:
            self.session_id = sid
        if kind == "assistant":
            message = obj.get("message") or {}
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            texts = []
            for block in content or []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use":
                    chip = claude_tool_chip(str(block.get("name") or ""), block.get("input") or {},
                                            self.paths)
                    if chip:
                        chips.append(chip)
                elif block.get("type") == "text" and block.get("text"):
                    texts.append(str(block["text"]))
            if texts and obj.get("parent_tool_use_id") in (None, ""):
                self.last_text = "\n".join(texts).strip()
        elif kind == "result":
            self.finished = True
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
            return CliResult(False, self.last_text, self.session_id, self.error)
        if not self.finished:
            return CliResult(False, self.last_text, self.session_id,
                             "the CLI stopped without a final result", incomplete=True)
        return CliResult(True, (self.final_text or "").strip(), self.session_id)


class CodexMapper:
    def __init__(self, cwd: str = ""):
        self.paths = _Paths(cwd)
        self.session_id: Optional[str] = None
        self.last_text = ""
        self.error: Optional[str] = None
        self.stream_error: Optional[str] = None
        self.finished = False
        self._chipped: set = set()

    def feed(self, obj: Dict[str, Any]) -> List[str]:
        kind = obj.get("type")
        if kind == "thread.started":
            tid = obj.get("thread_id")
            if isinstance(tid, str) and tid:
                self.session_id = tid
        elif kind == "turn.completed":
            self.finished = True
        elif kind == "turn.failed":
            err = obj.get("error") or {}
            self.error = str(err.get("message") if isinstance(err, dict) else err) or "turn failed"
        elif kind == "error":
            # May be followed by a retry that succeeds; fatal only if no turn completes.
            self.stream_error = str(obj.get("message") or "stream error")
        elif kind in ("item.started", "item.updated", "item.completed"):
            item = obj.get("item")
            if isinstance(item, dict):
                return self._item(kind, item)
        return []

    def _item(self, kind: str, item: Dict[str, Any]) -> List[str]:
        itype = item.get("type") or item.get("item_type")
        iid = item.get("id")
        key = (iid, itype) if iid else None
        if itype == "agent_message":
            if kind == "item.completed" and item.get("text"):
                self.last_text = str(item["text"]).strip()
            return []
        chips: List[str] = []
        if itype == "command_execution":
            chips = [command_chip(item.get("command", ""), self.paths)]
        elif itype == "file_change":
            if kind != "item.completed" or item.get("status") == "failed":
                return []
            for change in item.get("changes") or []:
                if isinstance(change, dict):
                    verb = "Deleting " if change.get("kind") == "delete" else "Editing "
                    chips.append(verb + _clip(self.paths.rel(change.get("path"))))
        elif itype == "mcp_tool_call":
            chips = ["Using " + _clip("%s.%s" % (item.get("server") or "mcp", item.get("tool") or "tool"))]
        elif itype == "web_search":
            chips = ["Searching the web for " + _clip(item.get("query") or "")]
        else:  # reasoning, todo_list, plan, error items: no chip
            return []
        if key is not None:
            if key in self._chipped:
                return []
            self._chipped.add(key)
        return chips

    def outcome(self) -> CliResult:
        if self.error:
            return CliResult(False, self.last_text, self.session_id, self.error)
        if not self.finished:
            return CliResult(False, self.last_text, self.session_id,
                             self.stream_error or "the CLI stopped without completing its turn",
                             incomplete=True)
        return CliResult(True, self.last_text, self.session_id)


def mapper_for(cli: str, cwd: str = ""):
    return CodexMapper(cwd) if cli == "codex" else ClaudeMapper(cwd)


def build_command(cli: str, command: List[str], extra: List[str], prompt: str,
                  resume_id: Optional[str]) -> List[str]:
    if cli == "codex":
        argv = list(command) + ["exec"] + list(extra)
        if resume_id:
            argv += ["resume", resume_id]
        return argv + ["--json", prompt]
    argv = list(command) + ["-p", prompt, "--output-format", "stream-json", "--verbose"]
    argv += list(extra)
    if resume_id:
        argv += ["--resume", resume_id]
    return argv


def _kill_group(proc: subprocess.Popen, sig: int) -> None:
    """The CLI runs in its own session; signal its whole process group (tests it started too)."""
    try:
        os.killpg(proc.pid, sig)
    except OSError:
        try:
            proc.send_signal(sig)
        except OSError:
            pass


class _Tail:
    """Keeps the last bytes of a pipe (stderr) for error messages."""

    def __init__(self, pipe, limit: int = 4000):
        self.text = ""
        self._limit = limit
        self._thread = threading.Thread(target=self._run, args=(pipe,), daemon=True)
        self._thread.start()

    def _run(self, pipe) -> None:
        for line in iter(pipe.readline, ""):
            self.text = (self.text + line)[-self._limit:]
        pipe.close()

    def join(self) -> str:
        self._thread.join(timeout=2)
        return self.text.strip()


@dataclass
class Runner:
    cli: str
    command: List[str]
    extra_args: List[str] = field(default_factory=list)
    timeout: float = 3600.0
    env: Optional[Dict[str, str]] = None
    _proc: Optional[subprocess.Popen] = None

    def stop(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            _kill_group(proc, signal.SIGTERM)

    def run(self, prompt: str, cwd: str, resume_id: Optional[str],
            on_chip: Callable[[str], None]) -> CliResult:
        argv = build_command(self.cli, self.command, self.extra_args, prompt, resume_id)
        name = self.command[0] if self.command else self.cli
        log.info("running %s in %s%s", self.cli, cwd,
                 " (resuming %s)" % resume_id if resume_id else "")
        try:
            proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=self.env, text=True, encoding="utf-8", errors="replace",
                                    bufsize=1, start_new_session=True)
        except FileNotFoundError:
            return CliResult(False, error="`%s` was not found on PATH. Install it or set "
                             "SERVICE_CLI_COMMAND." % name, launched=False)
        except PermissionError:
            return CliResult(False, error="`%s` is not executable. Check SERVICE_CLI_COMMAND."
                             % name, launched=False)
        except OSError as e:
            return CliResult(False, error="`%s` could not be started: %s" % (name, e),
                             launched=False)
        self._proc = proc
        timer = None
        timed_out = threading.Event()
        if self.timeout and self.timeout > 0:
            def kill() -> None:
                timed_out.set()
                _kill_group(proc, signal.SIGKILL)
            timer = threading.Timer(self.timeout, kill)
            timer.daemon = True
            timer.start()
        stderr = _Tail(proc.stderr)
        mapper = mapper_for(self.cli, cwd)
        chips = 0
        assert proc.stdout is not None
        for line in iter(proc.stdout.readline, ""):
            line = line.strip()
            if not line or not line.startswith("{"):
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            for chip in mapper.feed(obj):
                chips += 1
                try:
                    on_chip(chip)
                except Exception as e:  # noqa: BLE001 - a chip never stops the run
                    log.warning("progress chip dropped: %s", e)
        proc.stdout.close()
        code = proc.wait()
        if timer is not None:
            timer.cancel()
        err_tail = stderr.join()
        self._proc = None
        result = mapper.outcome()
        result.exit_code = code
        result.chips = chips
        if timed_out.is_set():
            result.ok = False
            result.error = "the CLI ran longer than %d seconds and was stopped" % self.timeout
        elif result.incomplete and err_tail:
            last = err_tail.splitlines()[-1][:500]
            result.error = "%s (exit code %s: %s)" % (result.error, code, last)
        elif result.incomplete:
            result.error = "%s (exit code %s)" % (result.error, code)
        return result


# --- the prompt --------------------------------------------------------------------------------

INSTRUCTIONS = (
    "You are a coding agent working in the git repository in the current directory. "
    "If a code change is warranted, make it in the working tree; do not commit, push or create "
    "branches (that is done for you afterwards). Then reply briefly: start with one line that "
    "summarises what you changed (or your answer, if no change is needed), then any detail."
)


def _line(label: str, value: Any) -> Optional[str]:
    if value is None or value == "" or value == []:
        return None
    return "%s: %s" % (label, value)


def feedback_context(fb: Dict[str, Any]) -> List[str]:
    out: List[str] = []
    if not isinstance(fb, dict):
        return out
    title = fb.get("title")
    if title:
        out.append("Feedback: %s" % title)
    if fb.get("note"):
        out.append("Note from the reporter:\n%s" % fb["note"])
    rep = fb.get("reporter") or {}
    if isinstance(rep, dict) and any(rep.get(k) for k in ("label", "role", "email")):
        who = rep.get("label") or "someone"
        extra = ", ".join(str(rep[k]) for k in ("role", "email") if rep.get(k))
        out.append("Reporter: %s%s" % (who, " (%s)" % extra if extra else ""))
    page = fb.get("page") or {}
    if isinstance(page, dict):
        for label, key in (("Page URL", "url"), ("Path", "path"),
                           ("Controller#action", "controller_action")):
            ln = _line(label, page.get(key))
            if ln:
                out.append(ln)
        vp = page.get("viewport")
        if isinstance(vp, dict) and vp.get("width") and vp.get("height"):
            out.append("Viewport: %sx%s" % (vp["width"], vp["height"]))
        partials = page.get("partials")
        if isinstance(partials, list) and partials:
            out.append("Rendered partials, in order:\n" + "\n".join(
                "  %d. %s" % (i + 1, p) for i, p in enumerate(partials[:40])))
    el = fb.get("element") or {}
    if isinstance(el, dict) and any(el.get(k) for k in ("selector", "tag", "text", "outer_html")):
        parts = []
        if el.get("selector"):
            parts.append("selector %s" % el["selector"])
        if el.get("tag"):
            parts.append("tag <%s>" % el["tag"])
        if el.get("text"):
            parts.append("text %s" % json.dumps(str(el["text"])[:300], ensure_ascii=False))
        out.append("Picked element: " + ", ".join(parts))
        if el.get("outer_html"):
            out.append("Element HTML (first 400 characters):\n%s" % str(el["outer_html"])[:400])
    if fb.get("conversation_title"):
        out.append("Conversation: %s" % fb["conversation_title"])
    return out


def build_prompt(work: Dict[str, Any], resuming: bool) -> str:
    kind = work.get("kind")
    fb = work.get("feedback") if isinstance(work.get("feedback"), dict) else None
    msg = work.get("message") if isinstance(work.get("message"), dict) else None
    parts: List[str] = []
    if not resuming:
        parts.append(INSTRUCTIONS)
    if kind == "message" and msg is not None:
        author = (msg.get("author") or {}).get("name") if isinstance(msg.get("author"), dict) else None
        if fb is not None and not resuming:
            parts.append("This conversation is about a feedback ticket:\n" +
                         "\n".join(feedback_context(fb)))
        parts.append("%s wrote to you:\n%s" % (author or "A team member", msg.get("body") or ""))
    elif fb is not None:
        parts.append("New feedback was filed about the application in this repository.\n" +
                     "\n".join(feedback_context(fb)))
    else:
        parts.append(json.dumps(work, ensure_ascii=False)[:4000])
    prompt = "\n\n".join(parts)
    raw = prompt.encode("utf-8")
    if len(raw) > PROMPT_LIMIT:  # one argv string must stay under the kernel's 128 KB
        prompt = raw[:PROMPT_LIMIT].decode("utf-8", "ignore") + "\n[… shortened]"
    return prompt


def work_title(work: Dict[str, Any]) -> str:
    fb = work.get("feedback") if isinstance(work.get("feedback"), dict) else None
    msg = work.get("message") if isinstance(work.get("message"), dict) else None
    title = ""
    if work.get("kind") == "message" and msg is not None:
        title = str(msg.get("body") or "")
    if not title.strip() and fb is not None:
        title = str(fb.get("title") or fb.get("note") or "")
    first = next((ln.strip() for ln in title.splitlines() if ln.strip()), "") or "a request"
    return _clip(first, 80)

