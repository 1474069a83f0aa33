"""HTTP to the agent gateway: the Server-Sent Events stream and the JSON POSTs (PROTOCOL.md)."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple
from urllib.parse import urlsplit

from .config import Config

MAX_BODY = 256 * 1024


class ApiError(Exception):
    """The server answered with a non-2xx status."""

    def __init__(self, status: int, code: str, message: str):
        self.status = status
        self.code = code
        self.message = message
        super().__init__("%s %s: %s" % (status, code, message))

    @property
    def is_auth(self) -> bool:
        return self.status in (401, 403)

    @property
    def is_transient(self) -> bool:
        return self.status >= 500 or self.status in (408, 429)


class TransportError(Exception):
    """Could not reach the server, or the connection broke."""


TRANSPORT_ERRORS = (OSError, http.client.HTTPException, socket.timeout, ssl.SSLError)


@dataclass
class SSEEvent:
    event: str
    data: str
    id: Optional[str]
    retry: Optional[int] = None


class SSEParser:
    """Line-by-line parser following the HTML Living Standard's event-stream rules.

    Feed it decoded lines without their line terminator; it returns an SSEEvent when a blank line
    completes one. Comments (lines starting with ':') are counted in `comments` and otherwise
    ignored. `last_event_id` persists across events as the standard says.
    """

    def __init__(self) -> None:
        self._data: List[str] = []
        self._event = ""
        self._first = True
        self.last_event_id: Optional[str] = None
        self.retry: Optional[int] = None
        self.comments = 0

    def feed_line(self, line: str) -> Optional[SSEEvent]:
        if self._first:
            self._first = False
            if line.startswith("\ufeff"):
                line = line[1:]
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            self.comments += 1
            return None
        if ":" in line:
            name, value = line.split(":", 1)
            if value.startswith(" "):
                value = value[1:]
        else:
            name, value = line, ""
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif name == "retry":
            if value.isdigit():
                self.retry = int(value)
        # any other field name is ignored
        return None

    def _dispatch(self) -> Optional[SSEEvent]:
        if not self._data:
            self._event = ""
            return None
        ev = SSEEvent(event=self._event or "message", data="\n".join(self._data),
                      id=self.last_event_id, retry=self.retry)
        self._data = []
        self._event = ""
        return ev

    def feed_text(self, text: str) -> List[SSEEvent]:
        """Convenience for tests: a whole chunk of text with any line terminators."""
        out = []
        for line in split_lines(text):
            ev = self.feed_line(line)
            if ev is not None:
                out.append(ev)
        return out


def split_lines(text: str) -> List[str]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _error_from(status: int, raw: bytes) -> ApiError:
    code, message = "http_%d" % status, ""
    try:
        body = json.loads(raw.decode("utf-8", "replace"))
        err = body.get("error") if isinstance(body, dict) else None
        if isinstance(err, dict):
            code = str(err.get("code") or code)
            message = str(err.get("message") or "")
            fields = err.get("fields")
            if fields:
                message += " (fields: %s)" % json.dumps(fields)[:300]
    except ValueError:
        message = raw[:200].decode("utf-8", "replace").strip()
    return ApiError(status, code, message or http.client.responses.get(status, "error"))


class Client:
    def __init__(self, config: Config):
        self.config = config
        parts = urlsplit(config.url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout,
                                               context=ssl.create_default_context())
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _host_header(self) -> str:
        host = self._host if ":" not in self._host else "[%s]" % self._host
        return host if self._port is None else "%s:%d" % (host, self._port)

    # --- JSON requests -------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None,
                timeout: Optional[float] = None) -> Dict[str, Any]:
        """One JSON request. Raises ApiError (non-2xx) or TransportError."""
        timeout = self.config.http_timeout_seconds if timeout is None else timeout
        headers = dict(self.config.headers())
        headers["Accept"] = "application/json"
        payload = None
        if body is not None:
            payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
            if len(payload) > MAX_BODY:
                raise ValueError("request body is %d bytes, over the 256 KB limit" % len(payload))
            headers["Content-Type"] = "application/json"
        conn = self._connection(timeout)
        try:
            conn.request(method, self._prefix + path, body=payload, headers=headers)
            resp = conn.getresponse()
            raw = resp.read(4 * 1024 * 1024)
            status = resp.status
        except TRANSPORT_ERRORS as e:
            raise TransportError("%s %s: %s" % (method, path, _describe(e))) from None
        finally:
            conn.close()
        if status < 200 or status >= 300:
            raise _error_from(status, raw)
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
        except ValueError:
            raise ApiError(status, "invalid_response", "the answer is not JSON") from None
        return data if isinstance(data, dict) else {"value": data}

    def post(self, path: str, body: Dict[str, Any], timeout: Optional[float] = None):
        return self.request("POST", path, body, timeout)

    def ack(self, work_id: str) -> Dict[str, Any]:
        return self.post("/agents/v1/ack", {"work_id": work_id})

    def heartbeat(self, activity: str, cli: Optional[str] = None) -> Dict[str, Any]:
        body = {"activity": activity}
        if cli:
            body["cli"] = cli
        return self.post("/agents/v1/heartbeat", body)

    def event(self, body: Dict[str, Any]) -> Dict[str, Any]:
        return self.post("/agents/v1/events", body)

    def whoami(self) -> Dict[str, Any]:
        return self.request("GET", "/agents/v1/whoami")

    # --- the event stream ----------------------------------------------------------------------

    def open_stream(self, last_event_id: Optional[str] = None) -> "Stream":
        headers = dict(self.config.headers())
        headers["Accept"] = "text/event-stream"
        headers["Cache-Control"] = "no-cache"
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        conn = self._connection(self.config.stream_timeout_seconds)
        try:
            conn.request("GET", self._prefix + "/agents/v1/stream", headers=headers)
            resp = conn.getresponse()
        except TRANSPORT_ERRORS as e:
            conn.close()
            raise TransportError("GET /agents/v1/stream: %s" % _describe(e)) from None
        if resp.status != 200:
            try:
                raw = resp.read(64 * 1024)
            except TRANSPORT_ERRORS:
                raw = b""
            conn.close()
            raise _error_from(resp.status, raw)
        ctype = (resp.getheader("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "text/event-stream":
            conn.close()
            raise ApiError(resp.status, "not_event_stream",
                           "expected text/event-stream, got %r" % ctype)
        return Stream(conn, resp)


class Stream:
    """An open SSE response; iterate to get events. close() may be called from another thread."""

    def __init__(self, conn: http.client.HTTPConnection, resp: http.client.HTTPResponse):
        self._conn = conn
        self._resp = resp
        self.parser = SSEParser()
        self.closed = False

    def events(self) -> Iterator[SSEEvent]:
        """Yields events until the server closes the stream; raises TransportError on failure."""
        pending = b""
        try:
            while True:
                raw = self._resp.readline(1024 * 1024)
                if not raw:
                    # EOF: a final event without its blank line is discarded (per the standard)
                    return
                pending += raw
                if not pending.endswith((b"\n", b"\r")):
                    if len(pending) > 1024 * 1024:
                        raise TransportError("stream line over 1 MB")
                    continue
                for line in split_lines(pending.decode("utf-8", "replace")) or [""]:
                    ev = self.parser.feed_line(line)
                    if ev is not None:
                        yield ev
                pending = b""
        except TRANSPORT_ERRORS as e:
            if self.closed:
                return
            raise TransportError("stream: %s" % _describe(e)) from None
        except (ValueError, AttributeError) as e:  # a response closed under the reader
            if self.closed:
                return
            raise TransportError("stream: %s" % (e or e.__class__.__name__)) from None

    def interrupt(self) -> None:
        """Ends a blocked read from another thread or a signal handler: shuts the socket down and
        leaves closing the connection object to the reading side."""
        self.closed = True
        try:
            sock = self._conn.sock
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def close(self) -> None:
        self.closed = True
        try:
            self._conn.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass


def _describe(e: BaseException) -> str:
    if isinstance(e, socket.timeout):
        return "timed out"
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    text = str(e) or e.__class__.__name__
    return text.replace("\n", " ")


def parse_work(data: str) -> Tuple[Optional[Dict[str, Any]], str]:
    """Parses a `work` event's data. Returns (item, "") or (None, reason)."""
    try:
        item = json.loads(data)
    except ValueError:
        return None, "data is not JSON"
    if not isinstance(item, dict):
        return None, "data is not an object"
    wid = item.get("work_id")
    if not isinstance(wid, str) or not wid:
        return None, "no work_id"
    return item, ""
