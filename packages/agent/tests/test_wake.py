import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.error
import urllib.request

from ferry_agent.wake import WakeServer, validate
from tests.helpers import PKG_DIR, wait_for


def post(url, body, token=None, raw=None):
    data = raw if raw is not None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["X-Service-Wake-Token"] = token
    req = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


BODY = {"agent": {"id": "agt_1", "name": "shop"}, "reason": "queued_work"}


class WakeServerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ferry-wake-")
        self.marker = os.path.join(self.tmp, "ran")
        cmd = [sys.executable, "-c", "import sys; open(sys.argv[1], 'a').write('x')", self.marker]
        self.server = WakeServer(("127.0.0.1", 0), "s3cret-token", cmd)
        self.url = "http://127.0.0.1:%d/" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def runs(self):
        try:
            with open(self.marker) as f:
                return len(f.read())
        except FileNotFoundError:
            return 0

    def test_wrong_or_missing_token_is_403_and_runs_nothing(self):
        self.assertEqual(post(self.url, BODY, "wrong")[0], 403)
        self.assertEqual(post(self.url, BODY)[0], 403)
        self.assertEqual(post(self.url, BODY, "s3cret-token-longer")[0], 403)
        self.assertEqual(self.runs(), 0)

    def test_right_token_runs_the_command_and_answers_202(self):
        status, body = post(self.url, BODY, "s3cret-token")
        self.assertEqual((status, body), (202, {"ok": True}))
        self.assertEqual(self.runs(), 1)
        # SPEC.md's shape (agent as a string) is accepted too
        self.assertEqual(post(self.url, {"agent": "agt_1", "reason": "queued_work"},
                              "s3cret-token")[0], 202)
        self.assertEqual(self.runs(), 2)

    def test_malformed_body_is_400(self):
        self.assertEqual(post(self.url, None, "s3cret-token", raw=b"{nope")[0], 400)
        self.assertEqual(post(self.url, [1, 2], "s3cret-token")[0], 400)
        self.assertEqual(post(self.url, {"agent": 5}, "s3cret-token")[0], 400)
        self.assertEqual(self.runs(), 0)

    def test_failing_command_is_500(self):
        self.server.command = [sys.executable, "-c", "raise SystemExit(3)"]
        with self.assertLogs("ferry_agent.wake", "ERROR"):
            self.assertEqual(post(self.url, BODY, "s3cret-token")[0], 500)

    def test_validate(self):
        self.assertIsNone(validate(b'{"agent": {"id": "a"}, "reason": "queued_work"}'))
        self.assertIsNotNone(validate(b'{"reason": 3}'))
        self.assertIsNotNone(validate(b""))


class WakeProcessTest(unittest.TestCase):
    def test_needs_a_token(self):
        env = {"PATH": os.environ.get("PATH", "")}
        proc = subprocess.run([sys.executable, "-m", "ferry_agent.wake", "--port", "0",
                               "--install-id", "abcdef0123456789"], cwd=PKG_DIR, env=env,
                              capture_output=True, text=True, timeout=20)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("SERVICE_WAKE_TOKEN is not set", proc.stderr)

    def test_runs_the_wake_command_with_the_install_id(self):
        tmp = tempfile.mkdtemp(prefix="ferry-wake-")
        self.addCleanup(shutil.rmtree, tmp, True)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        marker = os.path.join(tmp, "started")
        fake = os.path.join(tmp, "systemctl")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho \"$@\" >> %s\n" % marker)
        os.chmod(fake, 0o755)
        env = {"PATH": os.environ.get("PATH", ""), "SERVICE_WAKE_TOKEN": "tok",
               "SERVICE_WAKE_COMMAND": "%s start service-dispatch@{install_id}" % fake}
        proc = subprocess.Popen([sys.executable, "-m", "ferry_agent.wake", "--host", "127.0.0.1",
                                 "--port", str(port), "--install-id", "abcdef0123456789"],
                                cwd=PKG_DIR, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.terminate)
        url = "http://127.0.0.1:%d/" % port

        def up():
            try:
                return post(url, BODY, "tok")
            except OSError:
                return None

        status, _ = wait_for(up, 10, message="the wake receiver")
        self.assertEqual(status, 202)
        with open(marker) as f:
            self.assertEqual(f.read().strip(), "start service-dispatch@abcdef0123456789")


if __name__ == "__main__":
    unittest.main()
