import logging
import os
import shutil
import socket
import tempfile
import unittest

from ferry_agent.agent import Backoff, OneLineFormatter, RepeatFilter
from ferry_agent.watchdog import Watchdog, notify


class BackoffTest(unittest.TestCase):
    def test_doubles_to_the_cap_with_jitter(self):
        b = Backoff(0.5, 30)
        values = [b.next() for _ in range(10)]
        for got, base in zip(values, [0.5, 1, 2, 4, 8, 16, 30, 30, 30, 30]):
            self.assertGreaterEqual(got, base * 0.8 - 1e-9)
            self.assertLessEqual(got, base * 1.2 + 1e-9)
        b.reset()
        self.assertLessEqual(b.next(), 0.6)


class LoggingTest(unittest.TestCase):
    def test_one_line_even_with_an_exception(self):
        try:
            raise ValueError("bad\nthing")
        except ValueError:
            record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed:\n%s", ("why",),
                                       exc_info=__import__("sys").exc_info())
        line = OneLineFormatter().format(record)
        self.assertNotIn("\n", line)
        self.assertIn("failed: | why (ValueError: bad | thing)", line)
        self.assertNotIn("Traceback", line)

    def test_repeat_filter(self):
        f = RepeatFilter(every=3)
        self.assertEqual([f.should_log("a") for _ in range(6)],
                         [True, False, True, False, False, True])
        self.assertTrue(f.should_log("b"))
        self.assertTrue(f.clear())
        self.assertFalse(f.clear())


class NotifyTest(unittest.TestCase):
    def test_datagrams_to_notify_socket(self):
        tmp = tempfile.mkdtemp(prefix="ferry-notify-")
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "n.sock")
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.bind(path)
            s.settimeout(2)
            w = Watchdog({"NOTIFY_SOCKET": path})
            w.ready()
            w.ping()
            w.stopping()
            self.assertEqual([s.recv(100) for _ in range(3)],
                             [b"READY=1", b"WATCHDOG=1", b"STOPPING=1"])

    def test_abstract_socket_and_no_socket(self):
        name = "ferry-test-%d" % os.getpid()
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.bind("\0" + name)
            s.settimeout(2)
            self.assertTrue(notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name}))
            self.assertEqual(s.recv(100), b"WATCHDOG=1")
        self.assertFalse(notify("READY=1", {}))
        self.assertFalse(notify("READY=1", {"NOTIFY_SOCKET": "/nonexistent/sock"}))


if __name__ == "__main__":
    unittest.main()
