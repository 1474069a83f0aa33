"""Reference wake receiver: python3 -m ferry_agent.wake --port 8765 --install-id ID

The server POSTs here when work is queued for an agent that is offline (PROTOCOL.md "Wake
requests"). The token in X-Service-Wake-Token is the only protection, so it is checked first
(constant-time) and nothing runs on a mismatch (403). A body that is not a JSON object, or whose
`agent`/`reason` have the wrong types, gets 400. Otherwise the wake command runs (default
`systemctl start service-dispatch@<install id>`) and the answer is 202; if the command fails the
answer is 500 so the server retries.

Environment: SERVICE_WAKE_TOKEN (required), SERVICE_WAKE_COMMAND (optional; split like a shell
would, no shell involved; `{install_id}` is replaced), SERVICE_INSTALL_ID (default for
--install-id).
"""

from __future__ import annotations

import argparse
import hmac
import json
import logging
import os
import shlex
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import List, Optional, Tuple

from .config import INSTALL_ID_RE

log = logging.getLogger("ferry_agent.wake")

MAX_BODY = 64 * 1024


def validate(raw: bytes) -> Optional[str]:
    """None when the body is an acceptable wake request, else the reason it is not."""
    try:
        body = json.loads(raw.decode("utf-8")) if raw.strip() else None
    except (UnicodeDecodeError, ValueError):
        return "body is not JSON"
    if not isinstance(body, dict):
        return "body must be a JSON object"
    agent = body.get("agent")
    # PROTOCOL.md sends {"id", "name"}; SPEC.md describes the agent's id as a string. Accept both.
    if agent is not None and not isinstance(agent, (str, dict)):
        return "agent must be an object or a string"
    if "reason" in body and not isinstance(body["reason"], str):
        return "reason must be a string"
    return None


class WakeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: Tuple[str, int], token: str, command: List[str],
                 timeout: float = 60.0):
        super().__init__(address, Handler)
        self.token = token.encode("utf-8")
        self.command = command
        self.command_timeout = timeout
        self.lock = threading.Lock()

    def run_command(self) -> Tuple[bool, str]:
        with self.lock:  # one start at a time; systemctl start is idempotent anyway
            try:
                proc = subprocess.run(self.command, capture_output=True, text=True,
                                      timeout=self.command_timeout, stdin=subprocess.DEVNULL)
            except (OSError, subprocess.TimeoutExpired) as e:
                return False, str(e)
        if proc.returncode != 0:
            return False, (proc.stderr or proc.stdout or "exit code %d" % proc.returncode).strip()
        return True, ""


class Handler(BaseHTTPRequestHandler):
    server: WakeServer
    server_version = "ferry-wake/0.1"

    def log_message(self, fmt: str, *args) -> None:  # one line, to our logger
        log.info("%s %s", self.address_string(), fmt % args)

    def _answer(self, status: int, body: dict) -> None:
        raw = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _error(self, status: int, code: str, message: str) -> None:
        self._answer(status, {"error": {"code": code, "message": message}})

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        given = self.headers.get("X-Service-Wake-Token", "").encode("utf-8")
        if not hmac.compare_digest(given, self.server.token):
            self.close_connection = True
            return self._error(403, "forbidden", "wake token mismatch")
        try:
            length = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            return self._error(400, "invalid_request", "bad Content-Length")
        if length < 0 or length > MAX_BODY:
            self.close_connection = True
            return self._error(413, "payload_too_large", "body over 64 KB")
        problem = validate(self.rfile.read(length))
        if problem:
            return self._error(400, "invalid_json", problem)
        ok, detail = self.server.run_command()
        if not ok:
            log.error("wake command failed: %s", detail)
            return self._error(500, "wake_failed", "the wake command failed")
        log.info("wake command ran: %s", " ".join(self.server.command))
        return self._answer(202, {"ok": True})

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/healthz":
            return self._answer(200, {"ok": True})
        return self._error(405, "method_not_allowed", "POST only")


def build_command(raw: str, install_id: str) -> List[str]:
    if raw.strip():
        return [part.replace("{install_id}", install_id) for part in shlex.split(raw)]
    return ["systemctl", "start", "service-dispatch@%s" % install_id]


def main(argv: Optional[List[str]] = None) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    p = argparse.ArgumentParser(prog="python3 -m ferry_agent.wake",
                                description="Starts the agent's unit when the server asks.")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    p.add_argument("--install-id", default=os.environ.get("SERVICE_INSTALL_ID", ""))
    args = p.parse_args(argv)
    problems = []
    token = os.environ.get("SERVICE_WAKE_TOKEN", "")
    if not token:
        problems.append("SERVICE_WAKE_TOKEN is not set (the wake token set on the agent)")
    if not INSTALL_ID_RE.match(args.install_id or ""):
        problems.append("--install-id (or SERVICE_INSTALL_ID) must be 8 to 64 characters of "
                        "A-Z a-z 0-9 _ -")
    command: List[str] = []
    try:
        command = build_command(os.environ.get("SERVICE_WAKE_COMMAND", ""), args.install_id)
    except ValueError as e:
        problems.append("SERVICE_WAKE_COMMAND cannot be parsed (%s)" % e)
    if problems:
        sys.stderr.write("ferry-agent wake: the settings are not usable:\n" +
                         "".join("  - %s\n" % pr for pr in problems))
        return 2
    server = WakeServer((args.host, args.port), token, command)
    log.info("listening on %s:%d; a valid wake runs: %s", args.host, server.server_address[1],
             " ".join(command))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
