"""Runs the coding CLI: argv, the prompt on stdin, its stream read line by line (streams.py),
a wall-clock limit and a no-output watchdog.

  claude -p --output-format stream-json --verbose [SERVICE_CLI_ARGS] [--resume SESSION]
  codex exec --json [SERVICE_CLI_ARGS] [resume THREAD] -

The prompt always goes on stdin (`claude -p` reads it there when no prompt argument is given;
codex reads it for `-`), so a prompt beginning with `-` is never read as an option, and every
flag comes before codex's `resume`, as in codex's docs/exec.md and its official SDK.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

# Re-exported: the worker and the tests take the stream types from here.
from .streams import (CHIP_MAX, Blocked, ClaudeMapper, CliResult, CodexMapper,  # noqa: F401
                      Paths, clip, command_chip, mapper_for)

log = logging.getLogger("ferry_agent.cli")

PROMPT_LIMIT = 100000  # bytes: a feedback context never needs more
DRAIN_SECONDS = 5.0  # after the agent stopped the CLI: how long its output may stay open
EXIT_SECONDS = 60.0  # after the CLI closed its output: how long it may take to exit (it may still
# be saving its session)
# A CLI's own error lines on stderr (commander's "error: unknown option", clap's "error:
# unexpected argument", Claude Code's "No conversation found with session ID").
ERROR_LINE = re.compile(r"^\s*(error|fatal|Error|ERROR|Fatal)\b|No conversation found")


def build_command(cli: str, command: List[str], extra: List[str],
                  resume_id: Optional[str]) -> List[str]:
    if cli == "codex":
        argv = list(command) + ["exec", "--json"] + list(extra)
        if resume_id:
            argv += ["resume", resume_id]
        return argv + ["-"]
    argv = list(command) + ["-p", "--output-format", "stream-json", "--verbose"] + list(extra)
    if resume_id:
        argv += ["--resume", resume_id]
    return argv


VERSION = re.compile(r"\d+\.\d+[0-9A-Za-z.+-]*")


def cli_version(cli: str, command: List[str], timeout: float = 10.0) -> str:
    """"claude 2.1.332" from `claude --version` ("2.1.332 (Claude Code)") or `codex --version`
    ("codex-cli 0.63.0"), for heartbeats and the Dispatch card; says so when it is missing."""
    try:
        out = subprocess.run(list(command) + ["--version"], stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=timeout).stdout
    except FileNotFoundError:
        return "%s (not found)" % cli
    except (OSError, subprocess.SubprocessError):
        return "%s (version unknown)" % cli
    found = VERSION.search(out or "")
    return "%s %s" % (cli, found.group(0)) if found else "%s (version unknown)" % cli


def error_lines(stderr: str, prompt: str, limit: int = 3) -> str:
    """The CLI's own error line(s) from its stderr, never the prompt it may have echoed."""
    prompt_lines = {ln.strip() for ln in prompt.splitlines() if len(ln.strip()) >= 4}
    lines = [ln.rstrip() for ln in stderr.splitlines() if ln.strip()]
    own = [ln for ln in lines if ln.strip() not in prompt_lines]
    picked = [ln for ln in own if ERROR_LINE.search(ln)] or own[-1:]
    out = []
    for ln in picked[:limit]:
        for pl in sorted(prompt_lines, key=len, reverse=True):
            if pl in ln:
                ln = ln.replace(pl, "…")
        out.append(clip(ln, 300))
    return "; ".join(out)


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

    def __init__(self, pipe, limit: int = 8000):
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


def _feed_stdin(pipe, prompt: str) -> None:
    try:
        pipe.write(prompt)
        pipe.close()
    except (BrokenPipeError, OSError, ValueError):
        pass  # the CLI exited without reading it; its own error says why


def _read_lines(pipe, lines: "queue.Queue[Optional[str]]") -> None:
    for line in iter(pipe.readline, ""):
        lines.put(line)
    # Closed here, at its end: after a cut-short drain run() no longer waits for this thread.
    pipe.close()
    lines.put(None)


@dataclass
class Runner:
    cli: str
    command: List[str]
    extra_args: List[str] = field(default_factory=list)
    timeout: float = 3600.0
    env: Optional[Dict[str, str]] = None
    idle_timeout: float = 600.0  # no line on stdout for this long: the CLI is stopped
    chip_hold: float = 2.0  # how long a tool's chip waits for its outcome (ran or blocked)
    _proc: Optional[subprocess.Popen] = None

    def stop(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            _kill_group(proc, signal.SIGTERM)

    def run(self, prompt: str, cwd: str, resume_id: Optional[str],
            on_chip: Callable[[str], None]) -> CliResult:
        argv = build_command(self.cli, self.command, self.extra_args, resume_id)
        name = self.command[0] if self.command else self.cli
        log.info("running %s in %s%s", self.cli, cwd,
                 " (resuming %s)" % resume_id if resume_id else "")
        try:
            proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE,
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
        assert proc.stdin is not None and proc.stdout is not None
        threading.Thread(target=_feed_stdin, args=(proc.stdin, prompt), daemon=True).start()
        stderr = _Tail(proc.stderr)
        lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True).start()
        mapper = mapper_for(self.cli, cwd, self.chip_hold)
        chips = 0
        started = last_line = time.monotonic()
        stopped_because: Optional[str] = None
        killed_at: Optional[float] = None

        last_chip = ""

        def send(new: List[str]) -> None:
            nonlocal chips, last_chip
            for chip in new:
                chips += 1
                last_chip = chip
                try:
                    on_chip(chip)
                except Exception as e:  # noqa: BLE001 - a chip never stops the run
                    log.warning("progress chip dropped: %s", e)

        while True:
            now = time.monotonic()
            waits = [1.0]
            if stopped_because is None and self.timeout and self.timeout > 0:
                waits.append(started + self.timeout - now)
            if stopped_because is None and self.idle_timeout and self.idle_timeout > 0:
                waits.append(last_line + self.idle_timeout - now)
            due = mapper.next_due()
            if due is not None:
                waits.append(due - now)
            try:
                line = lines.get(timeout=max(0.01, min(waits)))
            except queue.Empty:
                line = ""
            now = time.monotonic()
            if line is None:
                break
            send(mapper.due(now))
            if line:
                last_line = now
                send(self._parse(mapper, line, now))
            if stopped_because is not None:
                # Draining what was printed before the kill; a process that left the group (a
                # daemon it started) may hold stdout open, so the drain is bounded.
                if killed_at is not None and now - killed_at >= DRAIN_SECONDS:
                    log.warning("the CLI's output stayed open after it was stopped; not waiting")
                    break
                continue
            if mapper.fatal:
                stopped_because = mapper.fatal
            elif self.timeout and self.timeout > 0 and now - started >= self.timeout:
                stopped_because = ("the CLI ran longer than %d seconds and was stopped"
                                   % self.timeout)
            elif self.idle_timeout and self.idle_timeout > 0 and now - last_line >= self.idle_timeout:
                # Before any step it is most likely stuck on a login or a question; after one,
                # that step (a long test run) may be what kept it silent.
                stopped_because = (
                    "the CLI printed nothing for %g seconds and was stopped "
                    "(SERVICE_CLI_IDLE_SECONDS); %s" % (self.idle_timeout, (
                        "its last step was \"%s\" (raise SERVICE_CLI_IDLE_SECONDS if a step "
                        "may take that long)" % last_chip if last_chip else
                        "it may be waiting for a login or a prompt: run `%s` by hand in %s to see"
                        % (name, cwd))))
            if stopped_because is not None:
                log.warning("stopping the CLI: %s", stopped_because)
                _kill_group(proc, signal.SIGKILL)
                killed_at = now
        send(mapper.flush())
        try:
            code = proc.wait(timeout=EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            # It closed stdout but did not exit: nothing more can come from it.
            log.warning("the CLI closed its output but did not exit; stopping it")
            _kill_group(proc, signal.SIGKILL)
            code = proc.wait()
        err_text = stderr.join()
        self._proc = None
        result = mapper.outcome()
        result.exit_code = code
        result.chips = chips
        if stopped_because is not None:
            result.ok = False
            result.error = stopped_because
            result.stopped = True
        elif result.incomplete:
            own = error_lines(err_text, prompt)
            result.error = "%s (exit code %s%s)" % (result.error, code, ": " + own if own else "")
        return result

    @staticmethod
    def _parse(mapper: Any, line: str, now: float) -> List[str]:
        line = line.strip()
        if not line.startswith("{"):
            return []  # noise: warnings, progress bars, banners
        try:
            obj = json.loads(line)
        except ValueError:
            return []
        if not isinstance(obj, dict):
            return []
        return mapper.feed(obj, now)


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
    ev = evidence_context(fb.get("evidence"))
    if ev:
        out.append(ev)
    return out


# --- the page's evidence (PROTOCOL.md `feedback.evidence`, issue 45) ---------------------------

EVIDENCE_PROMPT_LIMIT = 24000  # bytes: the gateway sends at most 16 KB of JSON; text is close
STACK_LINES_SHOWN = 5  # the top of a stack says where; the rest is in the repository
# Errors and warnings first: they are what a reader of the console looks for.
CONSOLE_ORDER = {"error": 0, "warn": 1}


def _dicts(value: Any) -> List[Dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _ago(ev: Dict[str, Any], entry: Dict[str, Any]) -> str:
    at, t = ev.get("captured_at"), entry.get("t")
    if not isinstance(at, (int, float)) or not isinstance(t, (int, float)):
        return ""
    seconds = (at - t) / 1000.0
    if seconds < 0:
        return " (%.1f s after the report)" % -seconds
    return " (%.1f s before the report)" % seconds


def _counts(value: Any) -> str:
    if not isinstance(value, dict):
        return ""
    parts = ["%s %s" % (n, k.replace("_", " ")) for k, n in sorted(value.items())
             if isinstance(n, int) and n > 0]
    return ", ".join(parts)


def evidence_context(ev: Any) -> str:
    """The 'What the page was doing before the report' section, or '' when there is no evidence:
    failed requests, errors with their top stack lines, the last console lines (errors and
    warnings first) and route changes, as the widget captured them (already scrubbed)."""
    if not isinstance(ev, dict):
        return ""
    out: List[str] = []
    requests = _dicts(ev.get("failed_requests"))
    if requests:
        out.append("Failed requests, oldest first:")
        for r in requests:
            answer = r.get("status") if r.get("status") is not None else (r.get("error") or
                                                                          "no answer")
            ms = " in %s ms" % r["ms"] if isinstance(r.get("ms"), (int, float)) else ""
            out.append("  - %s %s -> %s%s%s" % (r.get("method") or "GET", r.get("url") or "?",
                                                answer, ms, _ago(ev, r)))
    errors = _dicts(ev.get("errors"))
    if errors:
        out.append("Errors on the page, oldest first:")
        for e in errors:
            what = "Unhandled rejection" if e.get("kind") == "rejection" else "Uncaught"
            out.append("  - %s %s: %s%s" % (what, e.get("name") or "Error", e.get("message") or "",
                                            _ago(ev, e)))
            stack = [str(ln) for ln in e.get("stack") or [] if ln] \
                if isinstance(e.get("stack"), list) else []
            for ln in stack[:STACK_LINES_SHOWN]:
                out.append("      %s" % ln)
            if len(stack) > STACK_LINES_SHOWN:
                out.append("      (%d more frames)" % (len(stack) - STACK_LINES_SHOWN))
            if e.get("mapped_frames"):
                out.append("      (source-mapped from the uploaded source maps)")
    lines = _dicts(ev.get("console"))
    if lines:
        ordered = sorted(lines, key=lambda c: CONSOLE_ORDER.get(str(c.get("level")), 2))
        out.append("Last console lines (errors and warnings first, then in order):")
        for c in ordered:
            out.append("  - [%s] %s" % (c.get("level") or "log", c.get("text") or ""))
    routes = _dicts(ev.get("navigation"))
    if routes:
        out.append("Route changes, oldest first: " + " -> ".join(
            str(n.get("url") or "?") for n in routes))
    if not out:
        return ""
    left = "; ".join(x for x in (
        _counts(ev.get("dropped")) and "not captured: " + _counts(ev.get("dropped")),
        _counts(ev.get("omitted")) and "left out here: " + _counts(ev.get("omitted"))) if x)
    if left:
        out.append("(%s)" % left)
    text = "What the page was doing before the report (captured by the widget):\n" + \
        "\n".join(out)
    raw = text.encode("utf-8")
    if len(raw) > EVIDENCE_PROMPT_LIMIT:
        text = raw[:EVIDENCE_PROMPT_LIMIT].decode("utf-8", "ignore") + "\n[… shortened]"
    return text


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
    if len(raw) > PROMPT_LIMIT:
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
    return clip(first, 80)

