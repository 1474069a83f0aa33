"""Works the local queue: one item at a time, in arrival order.

For each item: check the checkout is clean, run the coding CLI (resuming the conversation's
session), send its tool use as progress chips, and when the working tree changed send a proposal;
the server's answer picks the route (commit to the base branch, or branch + pull request). Then
one reply with the CLI's final text and a line about what was committed, pushed or opened.
Every failure becomes a reply; an item is finished (never silently dropped) unless the agent is
stopping, in which case it stays queued and is retried on restart (once: see state.py).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from typing import Any, Callable, Dict, List, Optional

from . import git
from .cli import Blocked, Runner, build_prompt, work_title
from .client import ApiError, Client, TransportError
from .config import Config
from .state import State

log = logging.getLogger("ferry_agent.worker")

MAX_ATTEMPTS = 2  # the first run plus one retry after an interrupted run
TEXT_LIMIT = 20000
SUMMARY_LIMIT = 200
PREFIXES = ("Searching the web for ", "Searching for ", "Reading ", "Editing ", "Deleting ",
            "Running ", "Listing ", "Fetching ", "Using ", "Delegating: ")


class Stopping(Exception):
    """The agent is shutting down: leave the item queued."""


class RetryLater(Exception):
    """The reply could not be delivered yet; it is kept with the item and sent again later."""


def coalesce(chips: List[str], limit: int = 300) -> str:
    """Chips that piled up within one throttle window, as one: "Reading a.py, b.py · Editing c"."""
    groups: List[List[str]] = []  # [prefix, obj, obj...]
    for chip in chips:
        prefix = next((p for p in PREFIXES if chip.startswith(p)), None)
        if prefix is None:
            groups.append(["", chip])
            continue
        obj = chip[len(prefix):]
        if groups and groups[-1][0] == prefix:
            if obj not in groups[-1][1:]:
                groups[-1].append(obj)
        else:
            groups.append([prefix, obj])
    text = " · ".join(g[0] + ", ".join(g[1:]) for g in groups)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class ProgressSender:
    """Sends chips as kind `progress`, at most one request per `interval` seconds; chips arriving
    in between are coalesced into the next one. close() flushes what is left."""

    def __init__(self, send: Callable[[str], None], interval: float):
        self._send = send
        self._interval = interval
        self._pending: List[str] = []
        self._cond = threading.Condition()
        self._closed = False
        self._last = 0.0
        self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
        self._thread.start()

    def add(self, chip: str) -> None:
        with self._cond:
            if self._closed:
                return
            self._pending.append(chip)
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                if not self._pending and self._closed:
                    return
                wait = self._last + self._interval - time.monotonic()
                while wait > 0 and not self._closed:
                    self._cond.wait(wait)
                    wait = self._last + self._interval - time.monotonic()
                chips, self._pending = self._pending, []
                self._last = time.monotonic()
            if chips:
                try:
                    self._send(coalesce(chips))
                except Exception as e:  # noqa: BLE001 - progress is best effort
                    log.warning("progress not sent: %s", e)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=30)


TEST_WORDS = re.compile(r"\b(test|tests|spec|rspec|pytest|jest|vitest|mocha|phpunit|check)\b")


def blocked_note(blocked: List[Blocked]) -> str:
    """What the CLI refused to run, for the reply: a model that was refused `npm test` may still
    write that the tests pass, so the reply says plainly what did not run."""
    if not blocked:
        return ""
    lines, seen = [], set()
    for b in blocked:
        line = "- %s: `%s`" % (b.tool, b.target) if b.target else "- %s" % b.tool
        if line not in seen:
            seen.add(line)
            lines.append(line)
    tests = any(TEST_WORDS.search(b.target) for b in blocked if b.tool in ("Bash", "command"))
    head = ("Blocked: the coding CLI's permissions refused %s, so %s did not run%s:"
            % ("this" if len(lines) == 1 else "these", "it" if len(lines) == 1 else "they",
               " (the tests did not run, whatever the text above says)" if tests else ""))
    return "\n".join([head] + lines + [
        "To allow a command, set SERVICE_TEST_COMMAND or SERVICE_CLI_ARGS (see the agent's "
        "README, \"Permissions\")."])


def summary_of(reply: str, fallback: str) -> str:
    for line in reply.splitlines():
        line = re.sub(r"^[#>*\-\s`]+", "", line).strip().rstrip("*`").strip()
        if line:
            return line[:SUMMARY_LIMIT]
    return fallback[:SUMMARY_LIMIT]


def _cap(text: str, tail: str = "") -> str:
    room = TEXT_LIMIT - len(tail)
    if len(text) > room:
        text = text[: room - 40].rstrip() + "\n\n[… reply shortened]"
    return text + tail


class Worker(threading.Thread):
    def __init__(self, config: Config, state: State, client: Client,
                 runner: Optional[Runner] = None):
        super().__init__(name="worker", daemon=True)
        self.config = config
        self.state = state
        self.client = client
        self.runner = runner or Runner(cli=config.cli, command=config.cli_command,
                                       extra_args=config.cli_args,
                                       timeout=config.cli_timeout_seconds,
                                       idle_timeout=config.cli_idle_seconds)
        self._stopping = threading.Event()
        self._activity = "Idle"
        self._lock = threading.Lock()

    # --- status for heartbeats -----------------------------------------------------------------

    @property
    def activity(self) -> str:
        with self._lock:
            return self._activity

    def _set_activity(self, text: str) -> None:
        with self._lock:
            self._activity = text

    # --- lifecycle -----------------------------------------------------------------------------

    def stop(self) -> None:
        self._stopping.set()
        self.runner.stop()
        with self.state.changed:
            self.state.changed.notify_all()

    def run(self) -> None:
        while not self._stopping.is_set():
            with self.state.changed:
                entry = self.state.head()
                if entry is None:
                    self.state.changed.wait(timeout=5)
                    continue
            try:
                self.process(entry)
            except Stopping:
                log.info("stopping; %s stays queued", entry["work"].get("work_id"))
                if entry.get("reply") is None:
                    self.state.unstart(entry)
                return
            except RetryLater:
                log.warning("the reply to %s is kept and will be sent again in 30 s",
                            entry["work"].get("work_id"))
                self._stopping.wait(30)
            except Exception as e:  # noqa: BLE001 - never let the worker thread die
                log.error("unexpected failure on %s: %s: %s", entry["work"].get("work_id"),
                          e.__class__.__name__, e)
                self._stopping.wait(2)
            finally:
                self._set_activity("Idle")

    # --- one item ------------------------------------------------------------------------------

    def process(self, entry: Dict[str, Any]) -> None:
        work = entry["work"]
        wid = str(work["work_id"])
        if entry.get("reply") is None:
            self.state.set_reply(entry, self._outcome(entry, work, wid))
        self._set_activity("Idle")
        try:
            self._post_essential({"work_id": wid, "kind": "reply", "text": _cap(entry["reply"])})
        except TransportError:
            raise RetryLater()
        except ApiError as e:
            if e.is_transient or e.is_auth:
                raise RetryLater()
            log.error("the reply to %s was refused (%s); dropping it", wid, e)
        self.state.finish(wid)
        log.info("finished %s", wid)

    def _outcome(self, entry: Dict[str, Any], work: Dict[str, Any], wid: str) -> str:
        attempts = self.state.start(entry)
        title = work_title(work)
        self._set_activity("Working on: " + title)
        if attempts > MAX_ATTEMPTS:
            log.warning("%s was interrupted %d times; giving up", wid, attempts - 1)
            return ("I was interrupted twice while working on this (the agent stopped before it "
                    "finished), so I have given up on it. Ask again to retry.")
        log.info("working on %s (%s)%s", wid, title,
                 " - retry after an interrupted run" if attempts > 1 else "")
        try:
            return self._work(entry, work, wid, title)
        except Stopping:
            raise
        except Exception as e:  # noqa: BLE001 - every failure becomes a reply
            log.error("%s failed: %s: %s", wid, e.__class__.__name__, e)
            self._set_aside(wid, "agent error")
            return "Something went wrong on the agent while working on this: %s" % e

    def _work(self, entry: Dict[str, Any], work: Dict[str, Any], wid: str, title: str) -> str:
        cfg = self.config
        cwd = cfg.checkout
        if entry.get("clean_start"):
            # An earlier run of this item started on a clean tree and was interrupted: whatever
            # it left is its own. Set it aside (never deleted) and start again.
            self._set_aside(wid, "interrupted run")
        base, problem = git.preflight(cwd, cfg.base_branch)
        if problem:
            return "I could not start on this: %s." % problem
        assert base is not None
        self.state.mark(entry, clean_start=True)
        git.update_base(cwd)
        conv = work.get("conversation_id")
        resume = self.state.session_for(conv, cfg.cli)

        progress = ProgressSender(lambda chip: self._post_progress(wid, chip), cfg.progress_seconds)
        try:
            result = self.runner.run(build_prompt(work, resuming=bool(resume)), cwd, resume,
                                     progress.add)
            if self._stopping.is_set():
                raise Stopping()
            if (not result.ok and resume and result.launched and not result.stopped
                    and result.chips == 0 and not git.status_entries(cwd)):
                log.warning("resuming session %s failed (%s); starting a new one", resume,
                            result.error)
                self.state.forget_session(conv)
                result = self.runner.run(build_prompt(work, resuming=False), cwd, None,
                                         progress.add)
                if self._stopping.is_set():
                    raise Stopping()
        finally:
            progress.close()
        if result.session_id:
            self.state.set_session(conv, cfg.cli, result.session_id)

        blocked = blocked_note(result.blocked)
        if not result.ok:
            if not result.launched:
                return "I could not run the coding CLI: %s" % result.error
            text = "The coding CLI (%s) failed: %s." % (cfg.cli, (result.error or "").rstrip("."))
            if self._set_aside(wid, "CLI failed"):
                text += (" Its partial changes were set aside with `git stash` (\"service: %s\")."
                         % wid)
            return text + ("\n\n" + blocked if blocked else "")

        reply = result.text.strip() or "Done (the coding CLI finished without a message)."
        if blocked:
            reply = _cap(reply, "\n\n" + blocked)
        changed = git.changes(cwd)
        if not changed.any:
            return reply

        summary = summary_of(reply, "Changes for: " + title)
        files = changed.files[:500]
        try:
            answer = self._post_essential({
                "work_id": wid, "kind": "proposal", "text": summary,
                "proposal": {"summary": summary, "files": files, "lines": changed.lines},
            })
        except (ApiError, TransportError) as e:
            aside = self._set_aside(wid, "proposal not accepted")
            return _cap(reply, "\n\nI changed %d file(s) but could not file the proposal (%s), so "
                        "nothing was committed%s." % (len(files), e, "; the changes were set aside "
                        "with `git stash` (\"service: %s\")" % wid if aside else ""))
        route = answer.get("route")
        reason = answer.get("reason")
        log.info("%s: %d files, %d lines -> %s (%s)", wid, len(files), changed.lines, route, reason)
        if self._stopping.is_set():
            raise Stopping()
        message = git.commit_message(summary, wid)
        try:
            if route == "quick_fix":
                outcome = git.quick_fix(cwd, base, message)
            else:
                if route != "pr":
                    log.warning("unknown route %r; opening a pull request", route)
                outcome = git.pull_request(cwd, base, wid, message)
        except git.GitError as e:
            aside = self._set_aside(wid, "commit failed")
            outcome = "I could not commit the change: %s.%s" % (
                str(e).rstrip("."), " The changes were set aside with `git stash` (\"service: %s\")."
                % wid if aside else "")
        return _cap(reply, "\n\n" + outcome)

    def _set_aside(self, wid: str, why: str) -> bool:
        """Stashes whatever the run left so the next item starts clean. True when it stashed."""
        try:
            if git.stash(self.config.checkout, "service: %s (%s)" % (wid, why)):
                log.warning("changes left by %s were stashed (%s)", wid, why)
                return True
        except git.GitError as e:
            log.error("could not stash the changes left by %s: %s", wid, e)
        return False

    # --- events --------------------------------------------------------------------------------

    def _post_progress(self, wid: str, chip: str) -> None:
        try:
            self.client.event({"work_id": wid, "kind": "progress", "text": chip})
        except (ApiError, TransportError) as e:
            log.warning("progress for %s not sent: %s", wid, e)

    def _post_essential(self, body: Dict[str, Any]) -> Dict[str, Any]:
        """POSTs an event, retrying transient failures for up to post_retry_seconds."""
        deadline = time.monotonic() + self.config.post_retry_seconds
        delay = 1.0
        while True:
            try:
                return self.client.event(body)
            except (ApiError, TransportError) as e:
                transient = isinstance(e, TransportError) or e.is_transient or e.is_auth
                if not transient or time.monotonic() + delay > deadline:
                    log.error("%s for %s not sent: %s", body.get("kind"), body.get("work_id"), e)
                    raise
                log.warning("%s for %s not sent yet (%s); retrying in %.0f s", body.get("kind"),
                            body.get("work_id"), e, delay)
                if self._stopping.wait(delay):
                    raise Stopping() from None
                delay = min(delay * 2, 30.0)
