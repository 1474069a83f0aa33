"""The agent's small durable state: one JSON file, rewritten atomically on every change.

- `queue`: work items received and not finished, in arrival order. The head is the item being
  worked on; its `attempts` counts how many times work on it started. An item whose work started
  and never finished (the process died) is retried once on restart; a second interruption turns
  into a reply saying so (see worker.py).
- `done`: ids of finished items (the most recent DONE_LIMIT), so a redelivered item is acked again
  and not redone, across restarts.
- `sessions`: per conversation id, the coding CLI's session (Claude) or thread (Codex) id, so a
  follow-up in the same conversation resumes it.
- `last_event_id`: the id of the last work event stored, sent as Last-Event-ID on reconnect.

Writes go to a temporary file in the same folder, are fsynced, then os.replace()d over the old
file, and the folder is fsynced: a crash leaves either the old or the new state, never half.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
import time
from typing import Any, Dict, List, Optional

log = logging.getLogger("ferry_agent.state")

DONE_LIMIT = 5000
VERSION = 1


def atomic_write(path: str, data: bytes, mode: int = 0o600) -> None:
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


class State:
    def __init__(self, folder: str):
        self.folder = folder
        self.path = os.path.join(folder, "state.json")
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.queue: List[Dict[str, Any]] = []
        self.done: Dict[str, float] = {}
        self.sessions: Dict[str, Dict[str, str]] = {}
        self.last_event_id: Optional[str] = None
        os.makedirs(folder, mode=0o700, exist_ok=True)
        self._load()

    # --- persistence ---------------------------------------------------------------------------

    def _load(self) -> None:
        try:
            with open(self.path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            return
        try:
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not an object")
            queue = data.get("queue") or []
            done = data.get("done") or {}
            sessions = data.get("sessions") or {}
            if not isinstance(queue, list) or not isinstance(done, dict) or not isinstance(
                    sessions, dict):
                raise ValueError("unexpected shape")
            self.queue = [q for q in queue if isinstance(q, dict) and isinstance(q.get("work"), dict)]
            self.done = {str(k): float(v) for k, v in done.items()}
            self.sessions = {str(k): v for k, v in sessions.items() if isinstance(v, dict)}
            lei = data.get("last_event_id")
            self.last_event_id = lei if isinstance(lei, str) else None
        except (ValueError, TypeError) as e:
            aside = "%s.corrupt-%d" % (self.path, int(time.time()))
            os.replace(self.path, aside)
            log.warning("state file %s was unreadable (%s); moved it to %s and started afresh",
                        self.path, e, aside)

    def save(self) -> None:
        with self.lock:
            data = {
                "version": VERSION,
                "queue": self.queue,
                "done": self.done,
                "sessions": self.sessions,
                "last_event_id": self.last_event_id,
            }
            atomic_write(self.path, json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"))

    # --- work items ----------------------------------------------------------------------------

    def known(self, work_id: str) -> bool:
        with self.lock:
            return work_id in self.done or any(q["work"].get("work_id") == work_id
                                               for q in self.queue)

    def receive(self, work: Dict[str, Any], event_id: Optional[str] = None) -> bool:
        """Stores a work item durably unless already known. True when it was new."""
        with self.lock:
            wid = work["work_id"]
            if self.known(wid):
                return False
            self.queue.append({"work": work, "attempts": 0, "received_at": time.time()})
            if event_id:
                self.last_event_id = event_id
            self.save()
            self.changed.notify_all()
            return True

    def head(self) -> Optional[Dict[str, Any]]:
        with self.lock:
            return self.queue[0] if self.queue else None

    def start(self, entry: Dict[str, Any]) -> int:
        """Records that work on the head item starts; returns the new attempt count."""
        with self.lock:
            entry["attempts"] = int(entry.get("attempts") or 0) + 1
            entry["started_at"] = time.time()
            self.save()
            return entry["attempts"]

    def mark(self, entry: Dict[str, Any], **fields: Any) -> None:
        with self.lock:
            entry.update(fields)
            self.save()

    def unstart(self, entry: Dict[str, Any]) -> None:
        """A deliberate stop (SIGTERM) is not an interruption: don't count that attempt."""
        with self.lock:
            entry["attempts"] = max(0, int(entry.get("attempts") or 0) - 1)
            self.save()

    def set_reply(self, entry: Dict[str, Any], text: str) -> None:
        """The finished item's reply, kept until the server has it (never redo the work)."""
        with self.lock:
            entry["reply"] = text
            self.save()

    def finish(self, work_id: str) -> None:
        with self.lock:
            self.queue = [q for q in self.queue if q["work"].get("work_id") != work_id]
            self.done[work_id] = time.time()
            if len(self.done) > DONE_LIMIT:
                for old in sorted(self.done, key=self.done.get)[: len(self.done) - DONE_LIMIT]:
                    del self.done[old]
            self.save()
            self.changed.notify_all()

    def pending(self) -> int:
        with self.lock:
            return len(self.queue)

    # --- CLI sessions per conversation ---------------------------------------------------------

    def session_for(self, conversation_id: Optional[str], cli: str) -> Optional[str]:
        if not conversation_id:
            return None
        with self.lock:
            s = self.sessions.get(conversation_id)
            if s and s.get("cli") == cli and s.get("id"):
                return s["id"]
            return None

    def set_session(self, conversation_id: Optional[str], cli: str, session_id: str) -> None:
        if not conversation_id or not session_id:
            return
        with self.lock:
            self.sessions[conversation_id] = {"cli": cli, "id": session_id,
                                              "updated_at": str(int(time.time()))}
            self.save()

    def forget_session(self, conversation_id: Optional[str]) -> None:
        if not conversation_id:
            return
        with self.lock:
            if self.sessions.pop(conversation_id, None) is not None:
                self.save()
