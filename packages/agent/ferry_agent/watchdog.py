"""systemd notifications (sd_notify) without libsystemd: one datagram to $NOTIFY_SOCKET.

The unit is Type=notify with WatchdogSec=90: READY=1 once the agent has started, WATCHDOG=1 only
after a heartbeat the server accepted. If heartbeats keep failing (server unreachable, token
revoked, a wedged process) the pings stop and systemd restarts the agent.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Mapping, Optional

log = logging.getLogger("ferry_agent.watchdog")


def notify(message: str, env: Optional[Mapping[str, str]] = None) -> bool:
    """Sends one notification; False when not under systemd or the send failed."""
    env = os.environ if env is None else env
    path = env.get("NOTIFY_SOCKET", "")
    if not path:
        return False
    if path.startswith("@"):
        addr = "\0" + path[1:]  # abstract namespace
    elif path.startswith("/"):
        addr = path
    else:
        log.debug("NOTIFY_SOCKET %r is not a unix socket path; not notifying", path)
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(addr)
            sock.sendall(message.encode("utf-8"))
        return True
    except OSError as e:
        log.debug("sd_notify failed: %s", e)
        return False


class Watchdog:
    def __init__(self, env: Optional[Mapping[str, str]] = None):
        self.env = os.environ if env is None else env
        self.enabled = bool(self.env.get("NOTIFY_SOCKET"))

    def ready(self, status: str = "") -> None:
        notify("READY=1" + ("\nSTATUS=" + status if status else ""), self.env)

    def ping(self) -> None:
        notify("WATCHDOG=1", self.env)

    def status(self, text: str) -> None:
        notify("STATUS=" + text.replace("\n", " ")[:200], self.env)

    def stopping(self) -> None:
        notify("STOPPING=1", self.env)
