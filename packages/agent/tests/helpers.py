"""Test helpers: a fake agent gateway (PROTOCOL.md), git fixtures, the agent as a subprocess."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional

PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS_DIR = os.path.join(PKG_DIR, "tests")
FAKE_CLI = os.path.join(TESTS_DIR, "fake_cli.py")
INSTALL_ID_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
TOKEN = "fry_testtoken0123456789"


def wait_for(predicate: Callable[[], Any], timeout: float = 30.0, interval: float = 0.05,
             message: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for %s" % message)
        time.sleep(interval)


# --- the fake gateway ------------------------------------------------------------------------------


class _QuietServer(ThreadingHTTPServer):
    """A client hanging up (an agent a test stops) is not the fake's error: no traceback for it."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class FakeGateway:
    """A real HTTP server on 127.0.0.1 speaking PROTOCOL.md, recording every request."""

    def __init__(self, token: str = TOKEN, route: str = "quick_fix"):
        self.token = token
        self.route = route
        self.cond = threading.Condition()
        self.items: List[Dict[str, Any]] = []
        self.acked: set = set()
        self.requests: List[Dict[str, Any]] = []
        self.events: List[Dict[str, Any]] = []
        self.heartbeats: List[Dict[str, Any]] = []
        self.acks: List[str] = []
        self.stream_opens: List[Dict[str, str]] = []
        self.drop_generation = 0
        self.resend_generation = 0
        self.refuse_status: Optional[int] = None  # e.g. 401: every request refused
        self.heartbeat_status = 200
        self.event_status = 200
        self.closing = False
        self.ack_hook: Optional[Callable[[str], None]] = None
        self.agents: List[Dict[str, Any]] = []
        self.workspace = {"id": "wsp_test", "name": "Acme", "slug": "acme"}
        self._msg = 0
        gw = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _json(self, status, body):
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _err(self, status, code, message="", fields=None):
                err = {"code": code, "message": message or code}
                if fields:
                    err["fields"] = fields
                self._json(status, {"error": err})

            def _auth(self, need_install_id=True):
                if gw.refuse_status:
                    code = "invalid_token" if gw.refuse_status == 401 else "insufficient_scope"
                    self._err(gw.refuse_status, code, "refused by the test")
                    return False
                if self.headers.get("Authorization") != "Bearer " + gw.token:
                    self._err(401, "invalid_token", "missing, unknown or revoked token")
                    return False
                if need_install_id and not INSTALL_ID_RE.match(
                        self.headers.get("X-Service-Install-Id") or ""):
                    self._err(422, "validation_failed", "bad install id",
                              {"install_id": "required"})
                    return False
                return True

            def _record(self, body):
                with gw.cond:
                    gw.requests.append({"method": self.command, "path": self.path,
                                        "headers": dict(self.headers.items()), "body": body})

            def do_GET(self):
                self._record(None)
                if self.path == "/agents/v1/whoami":
                    if not self._auth(need_install_id=False):
                        return
                    return self._json(200, {"workspace": gw.workspace, "agents": gw.agents})
                if self.path != "/agents/v1/stream":
                    return self._err(404, "not_found")
                if not self._auth():
                    return
                self._stream()

            def _chunk(self, text):
                raw = text.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(raw), raw))
                self.wfile.flush()

            def _stream(self):
                with gw.cond:
                    gw.stream_opens.append(dict(self.headers.items()))
                    generation = gw.drop_generation
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream; charset=utf-8")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                sent = set()
                resend = None
                try:
                    hello = {"agent": {"id": "agt_test", "name": "shop", "room_id": "room_agent"},
                             "workspace": gw.workspace}
                    self._chunk(": hi\n\nevent: hello\ndata: %s\n\n" % json.dumps(hello))
                    while True:
                        with gw.cond:
                            if gw.closing or gw.drop_generation != generation:
                                break
                            if resend != gw.resend_generation:
                                resend = gw.resend_generation
                                sent = set()
                            todo = [i for i in gw.items
                                    if i["work_id"] not in gw.acked and i["work_id"] not in sent]
                            if not todo:
                                gw.cond.wait(0.3)
                                todo = None
                        if todo is None:
                            self._chunk(": keepalive\n\n")
                            continue
                        for item in todo:
                            sent.add(item["work_id"])
                            # multi-line data: the agent must join the lines with "\n"
                            lines = json.dumps(item, indent=1).split("\n")
                            text = "event: work\nid: %s\n" % item["work_id"]
                            text += "".join("data: %s\n" % ln for ln in lines) + "\n"
                            self._chunk(text)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass
                self.close_connection = True

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    self._record(raw)
                    return self._err(400, "invalid_json")
                self._record(body)
                if not self._auth():
                    return
                if self.path == "/agents/v1/ack":
                    wid = (body or {}).get("work_id")
                    if gw.ack_hook is not None:
                        gw.ack_hook(wid)
                    with gw.cond:
                        if wid not in [i["work_id"] for i in gw.items]:
                            return self._err(404, "not_found")
                        gw.acked.add(wid)
                        gw.acks.append(wid)
                        gw.cond.notify_all()
                    return self._json(200, {"ok": True})
                if self.path == "/agents/v1/heartbeat":
                    with gw.cond:
                        gw.heartbeats.append(body)
                        status = gw.heartbeat_status
                        if status == 200:
                            gw.resend_generation += 1
                            gw.cond.notify_all()
                        unacked = len([i for i in gw.items if i["work_id"] not in gw.acked])
                    if status != 200:
                        return self._err(status, "unavailable")
                    return self._json(200, {"ok": True, "unacked": unacked})
                if self.path == "/agents/v1/events":
                    kind = (body or {}).get("kind")
                    if kind not in ("progress", "reply", "proposal") or not isinstance(
                            body.get("text"), str):
                        return self._err(422, "validation_failed", fields={"kind": "invalid"})
                    with gw.cond:
                        if gw.event_status != 200:
                            return self._err(gw.event_status, "unavailable")
                        gw.events.append(body)
                        gw._msg += 1
                        answer = {"ok": True, "message_id": "msg_%d" % gw._msg}
                        gw.cond.notify_all()
                    if kind == "proposal":
                        p = body.get("proposal") or {}
                        answer["route"] = gw.route
                        answer["reason"] = "%d files, %d lines" % (len(p.get("files") or []),
                                                                     p.get("lines") or 0)
                    return self._json(200, answer)
                return self._err(404, "not_found")

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = "http://127.0.0.1:%d" % self.port
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def start(self) -> "FakeGateway":
        self._thread.start()
        return self

    def stop(self) -> None:
        with self.cond:
            self.closing = True
            self.cond.notify_all()
        self.server.shutdown()
        self.server.server_close()

    def add_work(self, item: Dict[str, Any]) -> None:
        with self.cond:
            self.items.append(item)
            self.cond.notify_all()

    def unack(self, work_id: str) -> None:
        """Forget an ack, as if it never arrived: the item is delivered again."""
        with self.cond:
            self.acked.discard(work_id)
            self.resend_generation += 1
            self.cond.notify_all()

    def drop_streams(self) -> None:
        with self.cond:
            self.drop_generation += 1
            self.cond.notify_all()

    def events_for(self, work_id: str, kind: Optional[str] = None) -> List[Dict[str, Any]]:
        with self.cond:
            return [e for e in self.events if e.get("work_id") == work_id
                    and (kind is None or e.get("kind") == kind)]

    def replies(self) -> List[Dict[str, Any]]:
        with self.cond:
            return [e for e in self.events if e.get("kind") == "reply"]


PREFIXES = ("Searching the web for ", "Searching for ", "Reading ", "Editing ", "Deleting ",
            "Running ", "Listing ", "Fetching ", "Using ", "Delegating: ")


def atomic_chips(texts: List[str]) -> List[str]:
    """Undo the agent's coalescing: "Reading a, b · Editing c" -> three chips."""
    out = []
    for text in texts:
        for group in text.split(" · "):
            prefix = next((p for p in PREFIXES if group.startswith(p)), None)
            if prefix is None:
                out.append(group)
                continue
            for obj in group[len(prefix):].split(", "):
                out.append(prefix + obj)
    return out


# --- work items ------------------------------------------------------------------------------------

_n = [0]


def work_id() -> str:
    _n[0] += 1
    return "wrk_01j%019dxyz%d" % (int(time.time() * 1000) % 10 ** 12, _n[0])


def feedback_item(wid: Optional[str] = None, conversation: str = "room_fb1",
                  note: str = "Pay button does nothing") -> Dict[str, Any]:
    return {
        "work_id": wid or work_id(), "kind": "feedback", "conversation_id": conversation,
        "feedback": {
            "id": "fbk_1", "title": note, "note": note,
            "reporter": {"label": "Ada", "role": "customer", "email": "ada@example.com"},
            "page": {"url": "https://app.example.com/checkout", "path": "/checkout",
                     "controller_action": "checkout#show",
                     "viewport": {"width": 1280, "height": 800},
                     "partials": ["checkout/_form", "checkout/_pay"]},
            "element": {"selector": "button#pay", "tag": "button", "text": "Pay",
                        "outer_html": "<button id=\"pay\">Pay</button>"},
            "conversation_title": "Checkout is broken"},
        "message": None,
    }


def evidence_sample() -> Dict[str, Any]:
    """`feedback.evidence` as the gateway sends it (PROTOCOL.md)."""
    at = 1796567256000
    return {
        "captured_at": at,
        "failed_requests": [
            {"t": at - 4200, "method": "POST", "url": "https://app.example.com/api/pay?id=*",
             "status": 500, "error": None, "ms": 31},
            {"t": at - 1000, "method": "GET", "url": "https://cdn.example.com/x.js",
             "status": None, "error": "no answer (network error, CORS refusal or abort)",
             "ms": 3}],
        "errors": [{"t": at - 2000, "kind": "error", "name": "TypeError",
                    "message": "price is not a number: abc",
                    "stack": ["at parsePrice (src/money.ts:4:11)",
                              "at checkout (src/checkout.ts:4:17)"] +
                             ["at f%d (https://app.example.com/a.js:1:%d)" % (i, i)
                              for i in range(6)],
                    "mapped_frames": 2}],
        "console": [{"t": at - 9000, "level": "log", "text": "cart loaded"},
                    {"t": at - 8000, "level": "warn", "text": "slow pay"},
                    {"t": at - 7000, "level": "info", "text": "clicked"},
                    {"t": at - 6000, "level": "error", "text": "pay failed"}],
        "navigation": [{"t": at - 20000, "kind": "push", "url": "/cart"},
                       {"t": at - 10000, "kind": "push", "url": "/checkout"}],
        "dropped": {"console": 12},
        "omitted": {"console": 3, "stack_lines": 1},
    }


def message_item(body: str, conversation: str = "room_fb1", wid: Optional[str] = None,
                 feedback: Optional[Dict[str, Any]] = None,
                 author: str = "Grace") -> Dict[str, Any]:
    return {"work_id": wid or work_id(), "kind": "message", "conversation_id": conversation,
            "feedback": feedback, "message": {"id": "msg_x", "body": body,
                                              "author": {"name": author}}}


# --- git fixtures ----------------------------------------------------------------------------------


def git(cwd: str, *args: str) -> str:
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=cwd, LC_ALL="C")
    return subprocess.run(["git"] + list(args), cwd=cwd, check=True, capture_output=True,
                          text=True, env=env).stdout


def make_repo(root: str, name: str = "shop", with_origin: bool = True) -> Dict[str, str]:
    """CODE_ROOT/<name> with one commit on main; a bare repo as origin when with_origin."""
    code_root = os.path.join(root, "code")
    checkout = os.path.join(code_root, name)
    os.makedirs(os.path.join(checkout, "src"))
    git(checkout, "init", "-q", "-b", "main")
    git(checkout, "config", "user.name", "Test")
    git(checkout, "config", "user.email", "test@example.com")
    git(checkout, "config", "commit.gpgsign", "false")
    with open(os.path.join(checkout, "src", "app.ts"), "w") as f:
        f.write("export function pay() {\n  return false;\n}\n")
    with open(os.path.join(checkout, "README.md"), "w") as f:
        f.write("# shop\n")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-q", "-m", "initial")
    out = {"code_root": code_root, "checkout": checkout}
    if with_origin:
        bare = os.path.join(root, "origin.git")
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", bare], check=True)
        git(checkout, "remote", "add", "origin", bare)
        git(checkout, "push", "-q", "-u", "origin", "main")
        out["bare"] = bare
    return out


# --- the agent as a subprocess ---------------------------------------------------------------------


class AgentProcess:
    def __init__(self, env: Dict[str, str], log_path: str):
        self.log_path = log_path
        self._log = open(log_path, "ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "ferry_agent"], cwd=PKG_DIR, env=env,
                                     stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=self._log)

    def log(self) -> str:
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()
        return self.proc.returncode


class AgentTestCase(unittest.TestCase):
    """A temp dir, a repo with an origin, a fake gateway; start_agent() runs the real agent."""

    cli = "claude"

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="ferry-agent-test-")
        self.repo = make_repo(self.tmp)
        self.gw = FakeGateway().start()
        self.state_dir = os.path.join(self.tmp, "state")
        self.cli_log = os.path.join(self.tmp, "cli.log")
        self.agents: List[AgentProcess] = []

    def tearDown(self) -> None:
        for a in self.agents:
            a.stop()
        self.gw.stop()
        if os.environ.get("FERRY_KEEP_TMP"):
            print("kept", self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def agent_env(self, **extra: str) -> Dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.tmp,
            "LC_ALL": "C.UTF-8",
            "GIT_CONFIG_NOSYSTEM": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "SERVICE_URL": self.gw.url,
            "SERVICE_TOKEN": TOKEN,
            "SERVICE_INSTALL_ID": "test0123456789ab",
            "CODE_ROOT": self.repo["code_root"],
            "PROJECT": "shop",
            "SERVICE_CLI": self.cli,
            "SERVICE_CLI_COMMAND": "%s %s" % (sys.executable, FAKE_CLI),
            "SERVICE_STATE_DIR": self.state_dir,
            "SERVICE_HEARTBEAT_SECONDS": "0.3",
            "SERVICE_RECONNECT_MIN_SECONDS": "0.05",
            "SERVICE_RECONNECT_MAX_SECONDS": "0.3",
            "SERVICE_AUTH_RETRY_SECONDS": "0.3",
            "SERVICE_PROGRESS_SECONDS": "0",
            "SERVICE_POST_RETRY_SECONDS": "2",
            "SERVICE_STREAM_TIMEOUT_SECONDS": "5",
            "FAKE_CLI_LOG": self.cli_log,
        }
        env.update(extra)
        return env

    def start_agent(self, **extra: str) -> AgentProcess:
        a = AgentProcess(self.agent_env(**extra),
                         os.path.join(self.tmp, "agent-%d.log" % len(self.agents)))
        self.agents.append(a)
        return a

    def cli_runs(self, event: str = "start") -> List[Dict[str, Any]]:
        try:
            with open(self.cli_log) as f:
                return [e for e in (json.loads(ln) for ln in f if ln.strip())
                        if e.get("event") == event]
        except FileNotFoundError:
            return []

    def wait_reply(self, wid: str, timeout: float = 20.0) -> Dict[str, Any]:
        return wait_for(lambda: (self.gw.events_for(wid, "reply") or [None])[0], timeout,
                        message="the reply to %s" % wid)
