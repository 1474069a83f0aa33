import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from ferry_agent import cli
from ferry_agent.worker import ProgressSender, coalesce, summary_of
from tests.helpers import FAKE_CLI, evidence_sample, feedback_item, make_repo, message_item

EDIT = "src/app.ts:export const fixed = true;\\n"


class FakeCliFormatsTest(unittest.TestCase):
    """The fake CLI's two real-shaped streams map to the same chips and reply."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ferry-cli-")
        self.repo = make_repo(self.tmp, with_origin=False)
        self.cwd = self.repo["checkout"]

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_cli(self, which, resume=None, **env):
        runner = cli.Runner(cli=which, command=[sys.executable, FAKE_CLI], timeout=30,
                            env=dict(os.environ, **env))
        chips = []
        result = runner.run("Fix it", self.cwd, resume, chips.append)
        return result, chips

    def test_same_chips_and_reply_for_both(self):
        r1, chips1 = self.run_cli("claude", FAKE_CLI_EDIT=EDIT)
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=self.cwd, check=True)
        r2, chips2 = self.run_cli("codex", FAKE_CLI_EDIT=EDIT)
        expected = ["Reading src/app.ts", "Searching for Pay", "Editing src/app.ts",
                    "Running npm test"]
        self.assertEqual(chips1, expected)
        self.assertEqual(chips2, expected)
        for r in (r1, r2):
            self.assertTrue(r.ok, r.error)
            self.assertEqual(r.text, "Fixed the pay button.\n\nThe click handler was missing.")
            self.assertTrue(r.session_id)

    def test_failure_read_from_the_stream_not_exit_code(self):
        r, _ = self.run_cli("claude", FAKE_CLI_FAIL="1", FAKE_CLI_EXIT="0")
        self.assertFalse(r.ok)
        self.assertTrue(r.error.startswith("API Error: 529"), r.error)
        r, _ = self.run_cli("codex", FAKE_CLI_FAIL="1")
        self.assertFalse(r.ok)
        self.assertIn("stream disconnected", r.error)
        r, _ = self.run_cli("claude", FAKE_CLI_EXIT="3", FAKE_CLI_NO_TOOLS="1")
        self.assertTrue(r.ok)  # a non-zero exit with a successful result is a success
        self.assertEqual(r.exit_code, 3)

    def test_resume_keeps_session(self):
        r, _ = self.run_cli("claude", resume="sess-1", FAKE_CLI_NO_TOOLS="1")
        self.assertEqual(r.session_id, "sess-1")
        r, _ = self.run_cli("codex", resume="thr-1", FAKE_CLI_NO_TOOLS="1")
        self.assertEqual(r.session_id, "thr-1")

    def test_missing_cli(self):
        runner = cli.Runner(cli="claude", command=["definitely-not-a-cli-xyz"])
        r = runner.run("x", self.cwd, None, lambda c: None)
        self.assertFalse(r.ok)
        self.assertFalse(r.launched)
        self.assertEqual(r.error, "`definitely-not-a-cli-xyz` was not found on PATH. Install it "
                                  "or set SERVICE_CLI_COMMAND.")

    def test_cli_version(self):
        env_cmd = ["env", "SERVICE_CLI=codex", sys.executable, FAKE_CLI]
        self.assertEqual(cli.cli_version("codex", env_cmd), "codex 0.63.0")
        self.assertEqual(cli.cli_version("claude", ["env", "SERVICE_CLI=claude", sys.executable,
                                                    FAKE_CLI]), "claude 2.1.332")
        self.assertEqual(cli.cli_version("claude", ["no-such-cli-xyz"]), "claude (not found)")
        self.assertEqual(cli.cli_version("claude", ["sh", "-c", "exit 0"]), "claude (version unknown)")

    def test_no_result_is_a_failure_with_stderr(self):
        script = os.path.join(self.tmp, "dies.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\necho '{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}'\n"
                    "echo 'Error: not logged in' >&2\nexit 1\n")
        os.chmod(script, 0o755)
        r = cli.Runner(cli="claude", command=[script]).run("x", self.cwd, None, lambda c: None)
        self.assertFalse(r.ok)
        self.assertIn("without a final result", r.error)
        self.assertIn("not logged in", r.error)


class MappingTest(unittest.TestCase):
    def test_claude_lines(self):
        m = cli.ClaudeMapper("/repo")
        chips = []
        for line in [
            {"type": "system", "subtype": "init", "session_id": "abc", "cwd": "/repo"},
            {"type": "assistant", "message": {"content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "name": "Read", "input": {"file_path": "/repo/src/app.ts"}},
                {"type": "tool_use", "name": "Write", "input": {"file_path": "/elsewhere/x.ts"}},
                {"type": "tool_use", "name": "Glob", "input": {"pattern": "**/*.rb"}},
                {"type": "tool_use", "name": "Bash", "input": {"command": "cat README.md"}},
                {"type": "tool_use", "name": "WebSearch", "input": {"query": "rails csrf"}},
                {"type": "tool_use", "name": "TodoWrite", "input": {}},
                {"type": "tool_use", "name": "mcp__db__query", "input": {}},
            ]}},
            {"type": "result", "subtype": "success", "is_error": False, "result": "Done.",
             "session_id": "abc"},
        ]:
            chips += m.feed(line)
        self.assertEqual(chips, ["Reading src/app.ts", "Editing /elsewhere/x.ts",
                                 "Searching for **/*.rb", "Reading README.md",
                                 "Searching the web for rails csrf", "Using mcp__db__query"])
        out = m.outcome()
        self.assertTrue(out.ok)
        self.assertEqual((out.text, out.session_id), ("Done.", "abc"))

    def test_claude_error_subtype(self):
        m = cli.ClaudeMapper()
        m.feed({"type": "result", "subtype": "error_max_turns", "is_error": True,
                "session_id": "s"})
        out = m.outcome()
        self.assertFalse(out.ok)
        self.assertIn("error_max_turns", out.error)

    def test_codex_items(self):
        m = cli.CodexMapper("/repo")
        chips = []
        for line in [
            {"type": "thread.started", "thread_id": "t1"},
            {"type": "turn.started"},
            {"type": "item.started", "item": {"id": "i1", "type": "command_execution",
                                              "command": "/bin/zsh -lc 'ls src'",
                                              "status": "in_progress"}},
            {"type": "item.completed", "item": {"id": "i1", "type": "command_execution",
                                                "command": "/bin/zsh -lc 'ls src'",
                                                "exit_code": 0, "status": "completed"}},
            {"type": "item.completed", "item": {"id": "i2", "type": "command_execution",
                                                "command": "bash -lc 'npm test && npm run lint'",
                                                "exit_code": 1, "status": "failed"}},
            {"type": "item.completed", "item": {"id": "i3", "type": "file_change", "changes": [
                {"path": "/repo/a.py", "kind": "update"}, {"path": "b.py", "kind": "delete"}],
                "status": "completed"}},
            {"type": "item.started", "item": {"id": "i4", "type": "mcp_tool_call",
                                              "server": "docs", "tool": "search",
                                              "status": "in_progress"}},
            {"type": "item.completed", "item": {"id": "i5", "type": "web_search",
                                                "query": "codex json"}},
            {"type": "item.completed", "item": {"id": "i6", "type": "reasoning", "text": "hm"}},
            {"type": "error", "message": "Reconnecting... 1/5"},
            {"type": "item.completed", "item": {"id": "i7", "type": "agent_message",
                                                "text": "All set."}},
            {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
        ]:
            chips += m.feed(line)
        self.assertEqual(chips, ["Listing src", "Running npm test && npm run lint",
                                 "Editing a.py", "Deleting b.py", "Using docs.search",
                                 "Searching the web for codex json"])
        out = m.outcome()
        self.assertTrue(out.ok, out.error)  # an error followed by a completed turn is fine
        self.assertEqual((out.text, out.session_id), ("All set.", "t1"))

    def test_codex_turn_failed(self):
        m = cli.CodexMapper()
        m.feed({"type": "thread.started", "thread_id": "t"})
        m.feed({"type": "turn.failed", "error": {"message": "usage limit reached"}})
        self.assertEqual(m.outcome().error, "usage limit reached")
        m = cli.CodexMapper()
        m.feed({"type": "error", "message": "unauthorized"})
        self.assertEqual(m.outcome().error, "unauthorized")

    def test_command_chip(self):
        p = cli.Paths("/repo")
        self.assertEqual(cli.command_chip("bash -lc \"sed -n '1,80p' /repo/app/x.rb\"", p),
                         "Reading app/x.rb")
        self.assertEqual(cli.command_chip("git grep -n checkout", p), "Searching for checkout")
        self.assertEqual(cli.command_chip(["bash", "-lc", "bundle exec rspec"], p),
                         "Running bundle exec rspec")
        self.assertTrue(len(cli.command_chip("echo " + "x" * 500, p)) <= cli.CHIP_MAX)

    def test_build_command(self):
        """#2 and #7: the prompt is never an argument (it goes on stdin), and every codex flag
        comes before `resume`, as docs/exec.md and the official SDK write it."""
        self.assertEqual(cli.build_command("claude", ["claude"], [], None),
                         ["claude", "-p", "--output-format", "stream-json", "--verbose"])
        self.assertEqual(cli.build_command("claude", ["claude"], ["--x"], "s1")[-3:],
                         ["--x", "--resume", "s1"])
        self.assertEqual(cli.build_command("codex", ["codex"], [], None),
                         ["codex", "exec", "--json", "-"])
        self.assertEqual(cli.build_command("codex", ["codex"], ["--sandbox", "workspace-write"],
                                           "t1"),
                         ["codex", "exec", "--json", "--sandbox", "workspace-write", "resume",
                          "t1", "-"])


class PromptTest(unittest.TestCase):
    def test_feedback_prompt_has_every_field(self):
        p = cli.build_prompt(feedback_item(), resuming=False)
        for needle in ("Pay button does nothing", "Ada (customer, ada@example.com)",
                       "https://app.example.com/checkout", "Path: /checkout",
                       "checkout#show", "1280x800", "1. checkout/_form", "2. checkout/_pay",
                       "selector button#pay", "tag <button>", '"Pay"',
                       '<button id="pay">Pay</button>', "Conversation: Checkout is broken",
                       "do not commit"):
            self.assertIn(needle, p)

    def test_feedback_prompt_names_the_evidence(self):
        item = feedback_item()
        item["feedback"]["evidence"] = evidence_sample()
        p = cli.build_prompt(item, resuming=False)
        section = p[p.index("What the page was doing before the report"):]
        for needle in (
                "Failed requests, oldest first:\n"
                "  - POST https://app.example.com/api/pay?id=* -> 500 in 31 ms "
                "(4.2 s before the report)\n"
                "  - GET https://cdn.example.com/x.js -> no answer (network error, CORS refusal "
                "or abort) in 3 ms (1.0 s before the report)",
                "  - Uncaught TypeError: price is not a number: abc (2.0 s before the report)\n"
                "      at parsePrice (src/money.ts:4:11)\n"
                "      at checkout (src/checkout.ts:4:17)\n",
                "      (3 more frames)\n      (source-mapped from the uploaded source maps)",
                # Errors and warnings first, then the rest in order.
                "Last console lines (errors and warnings first, then in order):\n"
                "  - [error] pay failed\n  - [warn] slow pay\n  - [log] cart loaded\n"
                "  - [info] clicked",
                "Route changes, oldest first: /cart -> /checkout",
                "(not captured: 12 console; left out here: 3 console, 1 stack lines)"):
            self.assertIn(needle, section)
        self.assertNotIn("at f3 ", section)  # only the top five frames
        # The ticket's own fields come first, the evidence after them.
        self.assertLess(p.index("Conversation: Checkout is broken"), p.index(section))

    def test_no_evidence_no_section(self):
        self.assertNotIn("before the report", cli.build_prompt(feedback_item(), resuming=False))
        self.assertEqual(cli.evidence_context({"console": "nonsense", "errors": [1]}), "")
        self.assertEqual(cli.evidence_context(None), "")

    def test_evidence_stays_within_its_limit(self):
        ev = evidence_sample()
        ev["console"] = [{"t": 1, "level": "log", "text": "x" * 2000} for _ in range(40)]
        text = cli.evidence_context(ev)
        self.assertLessEqual(len(text.encode("utf-8")), cli.EVIDENCE_PROMPT_LIMIT + 40)
        self.assertTrue(text.endswith("[… shortened]"))
        item = feedback_item()
        item["feedback"]["evidence"] = ev
        self.assertLessEqual(len(cli.build_prompt(item, resuming=False).encode("utf-8")),
                             cli.PROMPT_LIMIT + 40)

    def test_message_prompt(self):
        p = cli.build_prompt(message_item("Also make it green", feedback=feedback_item()["feedback"]),
                             resuming=True)
        self.assertIn("Grace wrote to you:\nAlso make it green", p)
        self.assertNotIn("checkout#show", p)  # the resumed session has the context already
        p = cli.build_prompt(message_item("hi"), resuming=False)
        self.assertIn("Grace wrote to you:\nhi", p)
        self.assertEqual(cli.work_title(message_item("first line\nsecond")), "first line")


class ProgressTest(unittest.TestCase):
    def test_coalesce(self):
        self.assertEqual(coalesce(["Reading a.py", "Reading b.py", "Reading a.py",
                                   "Editing a.py", "Running make"]),
                         "Reading a.py, b.py · Editing a.py · Running make")
        self.assertTrue(len(coalesce(["Reading %d" % i for i in range(500)])) <= 300)

    def test_throttled_to_one_per_interval(self):
        sent = []
        times = []

        def send(text):
            sent.append(text)
            times.append(time.monotonic())

        started = time.monotonic()
        p = ProgressSender(send, 0.3)
        for i in range(10):
            p.add("Reading f%d" % i)
            time.sleep(0.05)
        p.close()
        elapsed = time.monotonic() - started
        self.assertGreaterEqual(len(sent), 2)
        # One send per interval over the time the chips took to come (0.5 s when the host keeps
        # up, longer when it is loaded), plus the first and close()'s flush.
        self.assertLessEqual(len(sent), 2 + elapsed / 0.3, (len(sent), elapsed))
        # close() flushes at once; every other send keeps the interval
        self.assertTrue(all(b - a >= 0.29 for a, b in zip(times[:-1], times[1:-1])), times)
        joined = ", ".join(s[len("Reading "):] for s in sent)
        self.assertEqual(joined.split(", "), ["f%d" % i for i in range(10)])

    def test_summary(self):
        self.assertEqual(summary_of("## **Fixed the button**\nmore", "x"), "Fixed the button")
        self.assertEqual(summary_of("", "fallback"), "fallback")
        self.assertEqual(len(summary_of("y" * 500, "")), 200)


if __name__ == "__main__":
    unittest.main()
