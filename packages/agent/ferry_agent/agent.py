"""The agent process: the event stream (main thread), heartbeats, and the worker."""

from __future__ import annotations

import json
import logging
import random
import signal
import sys
import threading
from typing import Any, Optional

from . import __version__
from . import config as config_mod
from .cli import cli_version
from .client import ApiError, Client, Stream, TransportError, parse_work
from .config import Config
from .state import State
from .watchdog import Watchdog
from .worker import Worker

log = logging.getLogger("ferry_agent")


class OneLineFormatter(logging.Formatter):
    """One line per record: newlines escaped, exceptions reduced to their type and message."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s", "%Y-%m-%dT%H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info:
            exc = record.exc_info[1]
            record.msg = "%s (%s: %s)" % (record.getMessage(), exc.__class__.__name__, exc)
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return super().format(record).replace("\r", "").replace("\n", " | ")


def setup_logging(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)

    def thread_hook(args: Any) -> None:  # one line instead of a traceback
        if args.exc_type is SystemExit:
            return
        log.error("thread %s died: %s: %s", getattr(args.thread, "name", "?"),
                  args.exc_type.__name__, args.exc_value)

    threading.excepthook = thread_hook


class Backoff:
    """Capped exponential backoff with +-20 % jitter: 0.5, 1, 2, ... 30 s."""

    def __init__(self, minimum: float, maximum: float):
        self.minimum = minimum
        self.maximum = max(maximum, minimum)
        self.current = minimum

    def reset(self) -> None:
        self.current = self.minimum

    def next(self) -> float:
        value = self.current
        self.current = min(self.current * 2, self.maximum)
        return value * random.uniform(0.8, 1.2)


class RepeatFilter:
    """Logs a repeating failure the first time and then every `every`-th time."""

    def __init__(self, every: int = 15):
        self.every = every
        self.last: Optional[str] = None
        self.count = 0

    def should_log(self, message: str) -> bool:
        if message != self.last:
            self.last, self.count = message, 1
            return True
        self.count += 1
        return self.count % self.every == 0

    def clear(self) -> bool:
        had = self.last is not None
        self.last, self.count = None, 0
        return had


def auth_hint(config: Config, e: ApiError) -> str:
    if e.status == 403:
        what = "the token lacks scope platform:dispatch"
    else:
        what = "the token is missing, unknown or revoked"
    return ("the server refused the token (%d %s: %s): %s. Put a token with scope "
            "platform:dispatch in SERVICE_TOKEN (/etc/service-dispatch/%s.env) and restart"
            % (e.status, e.code, e.message, what, config.install_id))


class Heartbeat(threading.Thread):
    def __init__(self, config: Config, client: Client, worker: Worker, watchdog: Watchdog,
                 stop: threading.Event):
        super().__init__(name="heartbeat", daemon=True)
        self.config = config
        self.client = client
        self.worker = worker
        self.watchdog = watchdog
        self.stop_event = stop
        self.failures = RepeatFilter()
        self.successes = 0
        self.last_unacked: Any = None
        self.cli: Optional[str] = None

    def beat(self) -> bool:
        activity = self.worker.activity
        if self.cli is None:  # asked once, here rather than at start: it may take a moment
            self.cli = cli_version(self.config.cli, self.config.cli_command)
            log.info("coding CLI: %s", self.cli)
        try:
            answer = self.client.heartbeat(activity, self.cli)
        except ApiError as e:
            msg = auth_hint(self.config, e) if e.is_auth else "heartbeat refused: %s" % e
            if self.failures.should_log(msg):
                log.warning("%s", msg)
            return False
        except TransportError as e:
            msg = "heartbeat failed: %s" % e
            if self.failures.should_log(msg):
                log.warning("%s", msg)
            return False
        if self.failures.clear():
            log.info("heartbeats accepted again")
        self.successes += 1
        self.watchdog.ping()
        unacked = answer.get("unacked")
        if isinstance(unacked, int) and unacked != self.last_unacked and unacked > 0:
            log.info("the server holds %d unacked item(s); they come again on the stream", unacked)
        self.last_unacked = unacked
        return True

    def run(self) -> None:
        while not self.stop_event.is_set():
            try:
                self.beat()
            except Exception as e:  # noqa: BLE001 - the heartbeat thread must not die
                log.error("heartbeat: unexpected %s: %s", e.__class__.__name__, e)
            self.stop_event.wait(self.config.heartbeat_seconds)


class Agent:
    def __init__(self, config: Config, watchdog: Optional[Watchdog] = None):
        self.config = config
        self.client = Client(config)
        self.state = State(config.state_dir)
        self.worker = Worker(config, self.state, self.client)
        self.watchdog = watchdog or Watchdog()
        self.stop_event = threading.Event()
        self.heartbeat = Heartbeat(config, self.client, self.worker, self.watchdog,
                                   self.stop_event)
        self._stream: Optional[Stream] = None
        self.connections = 0

    # --- stream --------------------------------------------------------------------------------

    def handle(self, event_name: str, data: str, event_id: Optional[str]) -> None:
        if event_name == "hello":
            try:
                hello = json.loads(data)
                ws = hello.get("workspace") or {}
                ag = hello.get("agent") or {}
                log.info("connected to workspace '%s' (%s) as agent '%s' (%s)", ws.get("name"),
                         ws.get("slug"), ag.get("name"), ag.get("id"))
            except (ValueError, AttributeError):
                log.info("connected (hello not understood)")
            return
        if event_name != "work":
            return
        work, problem = parse_work(data)
        if work is None:
            log.warning("ignored a work event: %s", problem)
            return
        wid = work["work_id"]
        try:
            new = self.state.receive(work, event_id or wid)
        except OSError as e:
            log.error("could not store %s durably (%s); not acking it, the server will resend",
                      wid, e)
            return
        if new:
            log.info("received %s (%s); %d in the local queue", wid, work.get("kind"),
                     self.state.pending())
        else:
            log.info("received %s again; already have it, acking again", wid)
        try:
            self.client.ack(wid)
        except (ApiError, TransportError) as e:
            log.warning("ack of %s failed (%s); the server will resend it", wid, e)

    def stream_once(self) -> None:
        stream = self.client.open_stream(self.state.last_event_id)
        self._stream = stream
        self.connections += 1
        try:
            if self.stop_event.is_set():
                return
            for ev in stream.events():
                if ev.event == "hello":
                    self.backoff.reset()
                self.handle(ev.event, ev.data, ev.id)
                if self.stop_event.is_set():
                    return
        finally:
            self._stream = None
            stream.close()

    def run_stream(self) -> None:
        self.backoff = Backoff(self.config.reconnect_min_seconds,
                               self.config.reconnect_max_seconds)
        failures = RepeatFilter(every=10)
        while not self.stop_event.is_set():
            try:
                self.stream_once()
                if self.stop_event.is_set():
                    break
                delay = self.backoff.next()
                log.info("the server closed the stream; reconnecting in %.1f s", delay)
            except ApiError as e:
                if e.is_auth:
                    delay = self.config.auth_retry_seconds
                    msg = auth_hint(self.config, e)
                    if failures.should_log(msg):
                        log.error("%s; retrying in %.0f s", msg, delay)
                else:
                    delay = self.backoff.next()
                    msg = "the stream was refused: %s" % e
                    if failures.should_log(msg):
                        log.warning("%s; retrying in %.1f s", msg, delay)
            except TransportError as e:
                delay = self.backoff.next()
                msg = "%s" % e
                if failures.should_log(msg):
                    log.warning("stream lost (%s); reconnecting in %.1f s", msg, delay)
            except Exception as e:  # noqa: BLE001 - never a crash loop with a stack trace
                delay = self.backoff.next()
                log.error("stream: unexpected %s: %s; reconnecting in %.1f s",
                          e.__class__.__name__, e, delay)
            else:
                failures.clear()
            self.stop_event.wait(delay)

    # --- lifecycle -----------------------------------------------------------------------------

    def request_stop(self, *_args: Any) -> None:
        if not self.stop_event.is_set():
            log.info("stopping")
        self.stop_event.set()
        stream = self._stream
        if stream is not None:
            stream.interrupt()

    def run(self) -> int:
        cfg = self.config
        log.info("ferry-agent %s: install id %s, project %s, checkout %s, cli %s, state %s",
                 __version__, cfg.install_id, cfg.project, cfg.checkout, cfg.cli, cfg.state_dir)
        if self.state.queue:
            log.info("%d item(s) waiting in the local queue from before", len(self.state.queue))
        self.worker.start()
        self.heartbeat.start()
        self.watchdog.ready("connecting to %s" % cfg.url)
        try:
            self.run_stream()
        finally:
            self.stop_event.set()
            self.watchdog.stopping()
            self.worker.stop()
            self.worker.join(timeout=15)
        log.info("stopped")
        return 0


def main(argv: Optional[list] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print("usage: python3 -m ferry_agent   (settings come from the environment; "
              "see packages/agent/README.md)")
        return 0
    if argv and argv[0] == "--version":
        print("ferry-agent %s" % __version__)
        return 0
    setup_logging()
    try:
        cfg = config_mod.load()
    except config_mod.ConfigError as e:
        sys.stderr.write(str(e) + "\n")
        return 2
    try:
        agent = Agent(cfg)
    except OSError as e:
        sys.stderr.write("ferry-agent: cannot use the state folder %s: %s\n" % (cfg.state_dir, e))
        return 2
    signal.signal(signal.SIGTERM, agent.request_stop)
    signal.signal(signal.SIGINT, agent.request_stop)
    return agent.run()
