"""The recorded Claude Code and Codex transcripts (tests/fixtures) replayed through the real
Runner by the fake CLI, and the fake CLI's own fidelity to the real argument parsers.

Issue #23's numbered problems are named in the tests that cover them."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from ferry_agent import cli, worker
from tests.helpers import FAKE_CLI, make_repo, wait_for

FIX = "src/app.ts:export function pay() {\\n  return true;\\n}\\n"
REPLY = "Fixed the pay button.\n\nThe click handler was missing."
LIED = "Fixed the pay button and the tests pass.\n\nThe click handler was missing."
WORK = ["Reading src/app.ts", "Searching for Pay", "Editing src/app.ts"]
UUID_LEN = 36
OLD_CODEX = "codex 0.45 or later is required (found output of an older version)"


def Blocked(tool, target):  # noqa: N802 - the agent's type, looked up when a test runs
    return cli.Blocked(tool, target)


class ReplayCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ferry-fixtures-")
        self.cwd = make_repo(self.tmp, with_origin=False)["checkout"]
        self.log = os.path.join(self.tmp, "cli.log")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def replay(self, which, fixture=None, resume=None, prompt="Fix the pay button", **env):
        extra = {"FAKE_CLI_LOG": self.log}
        if fixture:
            extra["FAKE_CLI_FIXTURE"] = fixture
        extra.update(env)
        runner = cli.Runner(cli=which, command=[sys.executable, FAKE_CLI], timeout=30,
                            env=dict(os.environ, **extra),
                            extra_args=["--sandbox", "workspace-write"] if which == "codex"
                            else ["--permission-mode", "acceptEdits"])
        runner.chip_hold = 5  # a slow machine never shows a chip before its tool's outcome
        chips = []
        result = runner.run(prompt, self.cwd, resume, chips.append)
        return result, chips

    def runs(self):
        with open(self.log) as f:
            return [json.loads(ln) for ln in f if ln.strip()]


class ClaudeReplayTest(ReplayCase):
    def test_edit_and_test(self):
        r, chips = self.replay("claude", "edit-and-test", FAKE_CLI_EDIT=FIX)
        self.assertTrue(r.ok, r.error)
        self.assertEqual(chips, WORK + ["Running npm test"])
        self.assertEqual(r.text, REPLY)
        self.assertEqual(len(r.session_id), UUID_LEN)
        self.assertEqual(r.blocked, [])
        with open(os.path.join(self.cwd, "src", "app.ts")) as f:
            self.assertIn("return true", f.read())

    def test_denied_bash_is_blocked_not_running(self):
        """#1: acceptEdits refuses `npm test`; the chip says Blocked and the run knows it."""
        r, chips = self.replay("claude", "denied-bash", FAKE_CLI_EDIT=FIX)
        self.assertTrue(r.ok, r.error)
        self.assertEqual(chips, WORK + ["Blocked: npm test"])
        self.assertEqual(r.blocked, [Blocked("Bash", "npm test")])
        self.assertEqual(r.text, LIED)  # the model's claim; the reply adds the truth (worker)

    def test_failed_turn(self):
        r, chips = self.replay("claude", "failed-turn", FAKE_CLI_EDIT=FIX)
        self.assertFalse(r.ok)
        self.assertTrue(r.error.startswith('API Error: 529 {"type":"error"'), r.error)
        self.assertEqual(chips, WORK)
        self.assertEqual(r.exit_code, 1)

    def test_resume_keeps_the_session(self):
        r, chips = self.replay("claude", resume="sess-1")
        self.assertTrue(r.ok, r.error)
        self.assertEqual(r.session_id, "sess-1")
        self.assertEqual(chips, ["Reading src/app.ts"])
        self.assertEqual(r.text, "The button already submits the form; nothing else to change.")
        argv = self.runs()[0]["argv"]
        self.assertEqual(argv[argv.index("--resume") + 1], "sess-1")

    def test_resume_of_an_unknown_session(self):
        """#8 and #6: the real shape (nothing on stdout, stderr, exit 1), and the error quotes
        the CLI's own line."""
        r, chips = self.replay("claude", resume="sess-gone", FAKE_CLI_RESUME_FAIL="1")
        self.assertFalse(r.ok)
        self.assertTrue(r.incomplete)
        self.assertEqual((chips, r.chips, r.exit_code), ([], 0, 1))
        self.assertEqual(r.error, "the CLI stopped without a final result (exit code 1: No "
                                  "conversation found with session ID: sess-gone)")


class CodexReplayTest(ReplayCase):
    def test_edit_and_test(self):
        r, chips = self.replay("codex", FAKE_CLI_EDIT=FIX)
        self.assertTrue(r.ok, r.error)
        self.assertEqual(chips, WORK + ["Running npm test"])
        self.assertEqual(r.text, REPLY)
        self.assertEqual(len(r.session_id), UUID_LEN)

    def test_declined_command_is_blocked_not_running(self):
        """#1: a command_execution with status declined."""
        r, chips = self.replay("codex", "declined-command", FAKE_CLI_EDIT=FIX)
        self.assertTrue(r.ok, r.error)
        self.assertEqual(chips, WORK + ["Blocked: npm test"])
        self.assertEqual(r.blocked, [Blocked("command", "npm test")])

    def test_turn_failed(self):
        r, chips = self.replay("codex", "turn-failed", FAKE_CLI_EDIT=FIX)
        self.assertFalse(r.ok)
        self.assertEqual(r.error, "stream disconnected before completion: error sending request "
                                  "for url (https://api.openai.com/v1/responses)")
        self.assertEqual(chips, WORK)

    def test_resume_of_an_unknown_thread_starts_a_new_one(self):
        """#8: the real shape: codex exec resume with an id it has no rollout for starts a new
        thread, whose id the agent keeps from then on."""
        r, _ = self.replay("codex", resume="thr-gone", FAKE_CLI_RESUME_FAIL="1")
        self.assertTrue(r.ok, r.error)
        self.assertNotEqual(r.session_id, "thr-gone")
        self.assertEqual(len(r.session_id), UUID_LEN)

    def test_resume_keeps_the_thread_and_puts_every_option_before_resume(self):
        """#7: `codex exec --json --sandbox workspace-write resume ID -`."""
        r, chips = self.replay("codex", resume="thr-1")
        self.assertTrue(r.ok, r.error)
        self.assertEqual((r.session_id, chips), ("thr-1", ["Reading src/app.ts"]))
        argv = self.runs()[0]["argv"]
        self.assertEqual(argv[argv.index("exec"):], ["exec", "--json", "--sandbox",
                                                     "workspace-write", "resume", "thr-1", "-"])

    def test_older_versions_are_named(self):
        """#3: before 0.44 ({"id", "msg"} lines) and 0.44 (item_type, assistant_message)."""
        for fixture in ("old-0.43", "old-0.44"):
            with self.subTest(fixture):
                r, chips = self.replay("codex", fixture)
                self.assertFalse(r.ok, fixture)
                self.assertEqual(r.error, OLD_CODEX, fixture)
                self.assertEqual(r.text, "")


class PromptOnStdinTest(ReplayCase):
    def test_a_prompt_beginning_with_a_dash(self):
        """#2: the follow-up prompt starts with the member's name."""
        prompt = "-x wrote to you:\nAlso make it green"
        for which in ("claude", "codex"):
            r, _ = self.replay(which, prompt=prompt, FAKE_CLI_NO_TOOLS="1")
            self.assertTrue(r.ok, "%s: %s" % (which, r.error))
            self.assertEqual(r.text, REPLY)
        self.assertEqual([run["prompt"] for run in self.runs() if run["event"] == "start"],
                         [prompt, prompt])

    def test_a_long_prompt(self):
        prompt = "x" * 300000  # larger than a pipe's buffer: written by its own thread
        r, _ = self.replay("codex", prompt=prompt, FAKE_CLI_NO_TOOLS="1")
        self.assertTrue(r.ok, r.error)
        self.assertEqual(len(self.runs()[0]["prompt"]), 300000)


class StderrTest(ReplayCase):
    def test_the_cli_error_line_not_the_prompt(self):
        """#6: commander echoes the whole prompt in its error; the last stderr line is the
        prompt's tail. The reply quotes the CLI's own error line."""
        script = os.path.join(self.tmp, "cli.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' \"error: unknown option "
                    "'-Grace wrote to you:\" 'Also make it green'\"'\" >&2\nexit 1\n")
        os.chmod(script, 0o755)
        r = cli.Runner(cli="claude", command=[script]).run(
            "-Grace wrote to you:\nAlso make it green", self.cwd, None, lambda c: None)
        self.assertFalse(r.ok)
        self.assertEqual(r.error, "the CLI stopped without a final result (exit code 1: error: "
                                  "unknown option '…)")

    def test_error_lines(self):
        self.assertEqual(cli.error_lines("warming up\nNo conversation found with session ID: "
                                         "s1\n", "p"), "No conversation found with session ID: s1")
        self.assertEqual(cli.error_lines("something odd\n", "p"), "something odd")
        self.assertEqual(cli.error_lines("Fix it\n", "Fix it"), "")


class WatchdogTest(ReplayCase):
    def test_a_silent_cli_is_stopped(self):
        """#4: a CLI that prints nothing (stuck on a login) is stopped after the idle time."""
        started = time.monotonic()
        runner = cli.Runner(cli="claude", command=[sys.executable, FAKE_CLI], timeout=15,
                            env=dict(os.environ, FAKE_CLI_HANG="1"))
        runner.idle_timeout = 0.5
        r = runner.run("Fix it", self.cwd, None, lambda c: None)
        self.assertLess(time.monotonic() - started, 10)
        self.assertFalse(r.ok)
        self.assertTrue(r.error.startswith("the CLI printed nothing for 0.5 seconds and was "
                                           "stopped (SERVICE_CLI_IDLE_SECONDS)"), r.error)

    def test_a_stopped_cli_whose_daemon_keeps_its_output_open(self):
        """#4: the kill reaches the CLI's process group; a child that left it (its own session)
        may keep stdout open, and the agent does not wait for that child."""
        pidfile = os.path.join(self.tmp, "daemon.pid")
        script = os.path.join(self.tmp, "cli.py")
        with open(script, "w") as f:
            f.write("import os, subprocess, sys, time\nsys.stdin.read()\n"
                    "p = subprocess.Popen(['sleep', '60'], start_new_session=True)\n"
                    "open(%r, 'w').write(str(p.pid))\nos.rename(%r, %r)\ntime.sleep(60)\n"
                    % (pidfile + ".tmp", pidfile + ".tmp", pidfile))
        runner = cli.Runner(cli="claude", command=[sys.executable, script], timeout=120)
        # The watchdog is armed only once the daemon exists: on a loaded host the script's own
        # interpreter may take longer than 0.5 s to start, and a CLI stopped before it starts
        # the daemon would not test the daemon at all. The runner reads idle_timeout on every
        # turn of its loop (at least once a second), so lowering it here takes effect.
        runner.idle_timeout = 600

        not_started = []

        def arm_once_the_daemon_runs():
            try:
                wait_for(lambda: os.path.exists(pidfile),
                         message="the CLI to start its daemon and write daemon.pid")
            except AssertionError as e:
                not_started.append(str(e))
                runner.stop()
            runner.idle_timeout = 0.5

        armer = threading.Thread(target=arm_once_the_daemon_runs, daemon=True)
        armer.start()
        started = time.monotonic()
        try:
            r = runner.run("Fix it", self.cwd, None, lambda c: None)
        finally:
            armer.join(timeout=35)
            if os.path.exists(pidfile):
                with open(pidfile) as f:
                    try:
                        os.kill(int(f.read()), 9)
                    except ProcessLookupError:
                        pass  # it had already ended
        self.assertEqual(not_started, [])
        self.assertLess(time.monotonic() - started, 30)  # not the daemon's 60 s
        self.assertTrue(r.stopped)
        self.assertTrue(r.error.startswith("the CLI printed nothing for 0.5 seconds"), r.error)

    def test_a_silent_step_is_named(self):
        """#4: silent after a step (a long test run): the error names that step, not a login."""
        script = os.path.join(self.tmp, "cli.py")
        with open(script, "w") as f:
            f.write("import json, sys, time\nsys.stdin.read()\nfor e in (%r, %r):\n"
                    "    print(json.dumps(e), flush=True)\ntime.sleep(60)\n" % (
                        {"type": "thread.started", "thread_id": "t1"},
                        {"type": "item.started", "item": {
                            "id": "item_0", "type": "command_execution",
                            "command": "/bin/bash -lc 'npm test'", "aggregated_output": "",
                            "exit_code": None, "status": "in_progress"}}))
        runner = cli.Runner(cli="codex", command=[sys.executable, script], timeout=60)
        # Armed by the step's chip: on a loaded host the script's own interpreter start could
        # otherwise look like silence before any step (the runner reads it on every turn).
        runner.idle_timeout, runner.chip_hold = 600, 0.1
        chips = []

        def on_chip(chip):
            chips.append(chip)
            runner.idle_timeout = 3

        r = runner.run("Fix it", self.cwd, None, on_chip)
        self.assertEqual(chips, ["Running npm test"])
        self.assertEqual(r.error, "the CLI printed nothing for 3 seconds and was stopped "
                                  "(SERVICE_CLI_IDLE_SECONDS); its last step was \"Running npm "
                                  "test\" (raise SERVICE_CLI_IDLE_SECONDS if a step may take "
                                  "that long)")

    def test_a_cli_that_prints_is_not_stopped(self):
        runner = cli.Runner(cli="codex", command=[sys.executable, FAKE_CLI], timeout=60,
                            env=dict(os.environ, FAKE_CLI_SLEEP="0.5"))
        # Six times the gap between its lines, so a loaded host's pauses do not stop it.
        runner.idle_timeout = 3
        r = runner.run("Fix it", self.cwd, None, lambda c: None)
        self.assertTrue(r.ok, r.error)


class BlockedNoteTest(unittest.TestCase):
    def test_lists_each_blocked_tool_and_says_the_tests_did_not_run(self):
        note = worker.blocked_note([Blocked("Bash", "npm test"), Blocked("Edit", "db/schema.rb"),
                             Blocked("Bash", "npm test")])
        self.assertEqual(note.splitlines()[:3], [
            "Blocked: the coding CLI's permissions refused these, so they did not run (the "
            "tests did not run, whatever the text above says):",
            "- Bash: `npm test`", "- Edit: `db/schema.rb`"])
        self.assertEqual(worker.blocked_note([]), "")


class FakeCliParsesLikeTheRealOnesTest(unittest.TestCase):
    """#8: unknown dash-arguments are refused as commander (claude) and clap (codex) refuse
    them; a failed resume prints nothing on stdout."""

    def fake(self, *argv, stdin=""):
        return subprocess.run([sys.executable, FAKE_CLI] + list(argv), input=stdin,
                              capture_output=True, text=True, timeout=30)

    def test_claude_unknown_option(self):
        p = self.fake("-p", "-x wrote to you", "--output-format", "stream-json")
        self.assertEqual((p.returncode, p.stdout), (1, ""))
        self.assertEqual(p.stderr, "error: unknown option '-x wrote to you'\n")

    def test_codex_unknown_argument_and_options_after_resume(self):
        p = self.fake("exec", "--json", "-x wrote to you")
        self.assertEqual((p.returncode, p.stdout), (2, ""))
        self.assertTrue(p.stderr.startswith("error: unexpected argument '-x' found\n\n  tip: to "
                                            "pass '-x' as a value, use '-- -x'"), p.stderr)
        p = self.fake("exec", "--no-such=1", "-")
        self.assertIn("error: unexpected argument '--no-such' found", p.stderr)
        p = self.fake("exec", "--json", "-sworkspace-write", "-", stdin="hi")
        self.assertEqual(p.returncode, 0, p.stderr)  # a short option's attached value
        p = self.fake("exec", "resume", "t1", "--json", "hi")
        self.assertEqual(p.returncode, 2)
        self.assertIn("error: unexpected argument '--json' found", p.stderr)
        p = self.fake("exec", "--sandbox", "workspace-writes", "-")
        self.assertEqual(p.returncode, 2)

    def test_claude_failed_resume_shape(self):
        env = dict(os.environ, FAKE_CLI_RESUME_FAIL="1")
        p = subprocess.run([sys.executable, FAKE_CLI, "-p", "--output-format", "stream-json",
                            "--verbose", "--resume", "abc"], input="hi", capture_output=True,
                           text=True, timeout=30, env=env)
        self.assertEqual((p.returncode, p.stdout), (1, ""))
        self.assertEqual(p.stderr, "No conversation found with session ID: abc\n")

    def test_allowed_tools_is_variadic(self):
        p = self.fake("-p", "--allowedTools", "Bash(npm test:*)", "Bash(make check:*)",
                      "--output-format", "stream-json", "--verbose", stdin="hi")
        self.assertEqual(p.returncode, 0, p.stderr)


if __name__ == "__main__":
    unittest.main()
