"""The real agent process against a fake gateway: work, acks, order, restarts, failures."""

import json
import os
import shutil
import signal
import socket
import time
import unittest

from tests.helpers import (TOKEN, AgentTestCase, atomic_chips, feedback_item, git,
                           message_item, wait_for)

FIX = "src/app.ts:export function pay() {\\n  return true;\\n}\\n"


def kill_pid(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def state_of(state_dir):
    try:
        with open(os.path.join(state_dir, "state.json")) as f:
            return json.load(f)
    except (FileNotFoundError, ValueError):
        return {}


class AgentFlowTest(AgentTestCase):
    def test_feedback_quick_fix_claude(self):
        durable_at_ack = {}

        def on_ack(wid):
            st = state_of(self.state_dir)
            durable_at_ack[wid] = wid in [q["work"]["work_id"] for q in st.get("queue", [])] \
                or wid in st.get("done", {})

        self.gw.ack_hook = on_ack
        item = feedback_item()
        wid = item["work_id"]
        self.gw.add_work(item)
        agent = self.start_agent(FAKE_CLI_EDIT=FIX, FAKE_CLI_SLEEP="0.8")
        reply = self.wait_reply(wid)

        self.assertTrue(durable_at_ack[wid], "acked before the item was stored durably")
        self.assertIn(wid, self.gw.acks)
        chips = atomic_chips([e["text"] for e in self.gw.events_for(wid, "progress")])
        self.assertEqual(chips, ["Reading src/app.ts", "Searching for Pay", "Editing src/app.ts",
                                 "Running npm test"])
        [proposal] = self.gw.events_for(wid, "proposal")
        self.assertEqual(proposal["proposal"], {"summary": "Fixed the pay button.",
                                                "files": ["src/app.ts"], "lines": 2})
        kinds = [e["kind"] for e in self.gw.events_for(wid)]
        self.assertEqual(kinds[-2:], ["proposal", "reply"])
        self.assertRegex(reply["text"], r"^Fixed the pay button\.\n\nThe click handler was "
                                        r"missing\.\n\nCommitted [0-9a-f]+ to main and pushed it "
                                        r"to origin\.$")
        log = git(self.repo["bare"], "log", "-1", "--format=%B", "main")
        self.assertEqual(log.strip(), "Fixed the pay button.\n\nService-Work-Id: %s" % wid)

        # headers on every request, heartbeats with the activity
        for r in self.gw.requests:
            self.assertEqual(r["headers"].get("Authorization"), "Bearer " + TOKEN)
            self.assertEqual(r["headers"].get("X-Service-Install-Id"), "test0123456789ab")
            self.assertEqual(r["headers"].get("X-Service-Project"), "shop")
        wait_for(lambda: any(h.get("activity") == "Idle" for h in self.gw.heartbeats[-3:]),
                 message="an Idle heartbeat after the work")
        self.assertIn({"activity": "Working on: Pay button does nothing",
                       "cli": "claude 2.1.332"}, self.gw.heartbeats)
        self.assertNotIn(TOKEN, agent.log())
        self.assertEqual(agent.stop(), 0)
        self.assertIn("stopped", agent.log())
        self.assertNotIn("Traceback", agent.log())

    def test_order_and_dedupe_across_restart(self):
        items = [feedback_item(note="Item %d" % i, conversation="room_%d" % i) for i in range(3)]
        for it in items:
            self.gw.add_work(it)
        agent = self.start_agent(FAKE_CLI_SLEEP="0.2", FAKE_CLI_NO_TOOLS="1")
        for it in items:
            self.wait_reply(it["work_id"])
        replies = [e["work_id"] for e in self.gw.replies()]
        self.assertEqual(replies, [it["work_id"] for it in items])
        runs = self.cli_runs("start")
        ends = self.cli_runs("end")
        self.assertEqual(len(runs), 3)
        for prev_end, nxt in zip(ends, runs[1:]):
            self.assertGreaterEqual(nxt["time"], prev_end["time"], "two runs overlapped")
        agent.stop()

        # the server lost the acks: everything is delivered again to a restarted agent
        acks_before = len(self.gw.acks)
        for it in items:
            self.gw.unack(it["work_id"])
        self.start_agent(FAKE_CLI_NO_TOOLS="1")
        wait_for(lambda: len(self.gw.acks) >= acks_before + 3, message="acks again")
        time.sleep(0.5)
        self.assertEqual(len(self.cli_runs("start")), 3, "an item was done twice")
        self.assertEqual(len(self.gw.replies()), 3)

    def test_dedupe_within_a_run(self):
        item = feedback_item()
        self.gw.add_work(item)
        self.start_agent(FAKE_CLI_NO_TOOLS="1")
        self.wait_reply(item["work_id"])
        self.gw.unack(item["work_id"])  # redelivered on the open stream
        wait_for(lambda: self.gw.acks.count(item["work_id"]) >= 2, message="second ack")
        time.sleep(0.3)
        self.assertEqual(len(self.cli_runs()), 1)

    def test_reconnect_after_the_server_drops_the_stream(self):
        first = feedback_item()
        self.gw.add_work(first)
        agent = self.start_agent(FAKE_CLI_NO_TOOLS="1")
        self.wait_reply(first["work_id"])
        opens = len(self.gw.stream_opens)
        self.gw.drop_streams()
        wait_for(lambda: len(self.gw.stream_opens) > opens, message="a reconnect")
        self.assertEqual(self.gw.stream_opens[-1].get("Last-Event-ID"), first["work_id"])
        second = feedback_item()
        self.gw.add_work(second)
        self.wait_reply(second["work_id"])
        self.assertIn("reconnecting", agent.log())

    def test_follow_up_resumes_the_claude_session(self):
        self.gw.route = "pr"
        first = feedback_item(conversation="room_conv")
        self.gw.add_work(first)
        self.start_agent(FAKE_CLI_EDIT=FIX)
        reply = self.wait_reply(first["work_id"])
        if shutil.which("gh") is None:
            self.assertIn("Pushed branch service/", reply["text"])
            self.assertIn("`gh` is not installed", reply["text"])
        branches = git(self.repo["bare"], "branch", "--list", "service/*")
        self.assertTrue(branches.strip().startswith("service/"), branches)
        self.assertEqual(git(self.repo["checkout"], "symbolic-ref", "--short", "HEAD").strip(),
                         "main")
        session = state_of(self.state_dir)["sessions"]["room_conv"]["id"]

        follow = message_item("Also make it green", conversation="room_conv")
        self.gw.add_work(follow)
        self.wait_reply(follow["work_id"])
        argv = self.cli_runs()[-1]["argv"]
        self.assertEqual(argv[argv.index("--resume") + 1], session)
        self.assertNotIn("--resume", self.cli_runs()[0]["argv"])

    def test_failed_resume_starts_a_new_session(self):
        first = feedback_item(conversation="room_r")
        self.gw.add_work(first)
        self.start_agent(FAKE_CLI_NO_TOOLS="1", FAKE_CLI_RESUME_FAIL="1")
        self.wait_reply(first["work_id"])
        follow = message_item("and now?", conversation="room_r")
        self.gw.add_work(follow)
        reply = self.wait_reply(follow["work_id"])
        self.assertEqual(reply["text"], "Fixed the pay button.\n\nThe click handler was missing.")
        runs = self.cli_runs()
        self.assertEqual(len(runs), 3)
        self.assertIn("--resume", runs[1]["argv"])
        self.assertNotIn("--resume", runs[2]["argv"])


    def test_default_argv_and_prompt_on_stdin(self):
        """README's argv: the prompt is not an argument; npm test and SERVICE_TEST_COMMAND are
        allowed."""
        item = feedback_item()
        self.gw.add_work(item)
        self.start_agent(FAKE_CLI_NO_TOOLS="1", SERVICE_TEST_COMMAND="make check")
        self.wait_reply(item["work_id"])
        [run] = self.cli_runs()
        self.assertEqual(run["argv"], ["-p", "--output-format", "stream-json", "--verbose",
                                       "--permission-mode", "acceptEdits", "--allowedTools",
                                       "Bash(npm test:*)", "Bash(make check:*)"])
        self.assertIn("Pay button does nothing", run["prompt"])

    def test_a_follow_up_prompt_beginning_with_a_dash(self):
        """#2: "%s wrote to you" with a member named "-x"."""
        first = feedback_item(conversation="room_dash")
        self.gw.add_work(first)
        self.start_agent(FAKE_CLI_NO_TOOLS="1")
        self.wait_reply(first["work_id"])
        follow = message_item("Also make it green", conversation="room_dash", author="-x")
        self.gw.add_work(follow)
        reply = self.wait_reply(follow["work_id"])
        self.assertEqual(reply["text"], "The button already submits the form; nothing else to "
                                        "change.")
        run = self.cli_runs()[-1]
        self.assertIn("--resume", run["argv"])
        self.assertEqual(run["prompt"], "-x wrote to you:\nAlso make it green")

    def test_a_blocked_command_is_shown_and_named_in_the_reply(self):
        """#1: Claude Code refuses `npm test`; the model still says the tests pass."""
        item = feedback_item()
        wid = item["work_id"]
        self.gw.add_work(item)
        self.start_agent(FAKE_CLI_FIXTURE="denied-bash", FAKE_CLI_EDIT=FIX)
        reply = self.wait_reply(wid)
        chips = atomic_chips([e["text"] for e in self.gw.events_for(wid, "progress")])
        self.assertEqual(chips, ["Reading src/app.ts", "Searching for Pay", "Editing src/app.ts",
                                 "Blocked: npm test"])
        [proposal] = self.gw.events_for(wid, "proposal")  # the badge is unaffected
        self.assertEqual(proposal["proposal"]["files"], ["src/app.ts"])
        self.assertTrue(reply["text"].startswith(
            "Fixed the pay button and the tests pass.\n\nThe click handler was missing.\n\n"
            "Blocked: the coding CLI's permissions refused this, so it did not run (the tests "
            "did not run, whatever the text above says):\n- Bash: `npm test`\n"), reply["text"])
        self.assertRegex(reply["text"], r"\n\nCommitted [0-9a-f]+ to main and pushed it")

    def test_a_silent_cli_is_stopped_with_a_clear_reply(self):
        """#4: no line on stdout for SERVICE_CLI_IDLE_SECONDS."""
        item = feedback_item()
        self.gw.add_work(item)
        self.start_agent(FAKE_CLI_HANG="1", SERVICE_CLI_IDLE_SECONDS="0.5")
        reply = self.wait_reply(item["work_id"])
        self.assertTrue(reply["text"].startswith(
            "The coding CLI (claude) failed: the CLI printed nothing for 0.5 seconds and was "
            "stopped (SERVICE_CLI_IDLE_SECONDS); it may be waiting for a login or a prompt"),
            reply["text"])


    def test_a_silent_resumed_cli_is_not_run_again(self):
        """#4: a resumed run the watchdog stopped is not retried on a new session (which would
        wait as long again before failing the same way)."""
        os.makedirs(self.state_dir)
        with open(os.path.join(self.state_dir, "state.json"), "w") as f:
            json.dump({"version": 1, "queue": [], "done": {}, "sessions": {
                "room_hang": {"cli": "claude", "id": "sess-hang", "updated_at": "0"}}}, f)
        item = message_item("Any news?", conversation="room_hang")
        self.gw.add_work(item)
        self.start_agent(FAKE_CLI_HANG="1", SERVICE_CLI_IDLE_SECONDS="0.5")
        reply = self.wait_reply(item["work_id"])
        self.assertIn("the CLI printed nothing for 0.5 seconds", reply["text"])
        [run] = self.cli_runs()
        self.assertEqual(run["argv"][run["argv"].index("--resume") + 1], "sess-hang")


class CodexFlowTest(AgentTestCase):
    cli = "codex"

    def test_heartbeats_name_the_cli_and_its_version(self):
        self.start_agent()
        wait_for(lambda: self.gw.heartbeats, message="a heartbeat")
        self.assertEqual(self.gw.heartbeats[0], {"activity": "Idle", "cli": "codex 0.63.0"})

    def test_a_declined_command(self):
        """#1: status declined."""
        item = feedback_item()
        self.gw.add_work(item)
        self.start_agent(FAKE_CLI_FIXTURE="declined-command")
        reply = self.wait_reply(item["work_id"])
        chips = atomic_chips([e["text"] for e in self.gw.events_for(item["work_id"], "progress")])
        self.assertEqual(chips[-1], "Blocked: npm test")
        self.assertNotIn("Running npm test", chips)
        self.assertIn("\n- command: `npm test`\n", reply["text"])

    def test_an_older_codex_is_named(self):
        """#3: 0.44's item_type / assistant_message shape."""
        old = feedback_item()
        self.gw.add_work(old)
        self.start_agent(FAKE_CLI_FIXTURE="old-0.44")
        reply = self.wait_reply(old["work_id"])
        self.assertEqual(reply["text"], "The coding CLI (codex) failed: codex 0.45 or later is "
                                        "required (found output of an older version).")

    def test_a_thread_codex_no_longer_has(self):
        """#8: codex starts a new thread for an unknown id; the conversation keeps the new one."""
        os.makedirs(self.state_dir)
        with open(os.path.join(self.state_dir, "state.json"), "w") as f:
            json.dump({"version": 1, "queue": [], "done": {}, "sessions": {
                "room_gone": {"cli": "codex", "id": "thr-gone", "updated_at": "0"}}}, f)
        item = message_item("Any news?", conversation="room_gone")
        self.gw.add_work(item)
        self.start_agent(FAKE_CLI_RESUME_FAIL="1")
        reply = self.wait_reply(item["work_id"])
        self.assertEqual(reply["text"], "The button already submits the form; nothing else to "
                                        "change.")
        [run] = self.cli_runs()
        self.assertEqual(run["argv"][-3:], ["resume", "thr-gone", "-"])
        thread = state_of(self.state_dir)["sessions"]["room_gone"]["id"]
        self.assertNotEqual(thread, "thr-gone")

    def test_a_follow_up_prompt_beginning_with_a_dash(self):
        """#2 and #7: `codex exec --json --sandbox workspace-write resume ID -`."""
        first = feedback_item(conversation="room_cdash")
        self.gw.add_work(first)
        self.start_agent(FAKE_CLI_NO_TOOLS="1")
        self.wait_reply(first["work_id"])
        thread = state_of(self.state_dir)["sessions"]["room_cdash"]["id"]
        follow = message_item("Also make it green", conversation="room_cdash", author="-x")
        self.gw.add_work(follow)
        self.wait_reply(follow["work_id"])
        run = self.cli_runs()[-1]
        self.assertEqual(run["argv"], ["exec", "--json", "--sandbox", "workspace-write",
                                       "resume", thread, "-"])
        self.assertEqual(run["prompt"], "-x wrote to you:\nAlso make it green")

    def test_pr_with_gh_and_resume_thread(self):
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        with open(os.path.join(bindir, "gh"), "w") as f:
            f.write("#!/bin/sh\necho \"$@\" >> %s/gh.log\n"
                    "echo 'Creating pull request for service/x into main'\n"
                    "echo https://github.com/acme/shop/pull/42\n" % self.tmp)
        os.chmod(os.path.join(bindir, "gh"), 0o755)
        self.gw.route = "pr"
        first = feedback_item(conversation="room_cx")
        wid = first["work_id"]
        self.gw.add_work(first)
        self.start_agent(FAKE_CLI_EDIT=FIX, PATH=bindir + os.pathsep + os.environ["PATH"])
        reply = self.wait_reply(wid)
        branch = "service/" + wid.split("_", 1)[1][-8:].lower()
        self.assertTrue(reply["text"].endswith(
            "Opened a pull request: https://github.com/acme/shop/pull/42 (branch %s into main)."
            % branch), reply["text"])
        chips = atomic_chips([e["text"] for e in self.gw.events_for(wid, "progress")])
        self.assertEqual(chips, ["Reading src/app.ts", "Searching for Pay", "Editing src/app.ts",
                                 "Running npm test"])
        self.assertIn(branch, git(self.repo["bare"], "branch", "--list"))
        msg = git(self.repo["bare"], "log", "-1", "--format=%B", branch)
        self.assertIn("Service-Work-Id: %s" % wid, msg)
        with open(os.path.join(self.tmp, "gh.log")) as f:
            self.assertIn("pr create --fill --head %s" % branch, f.read())
        # main is untouched on the server, the checkout is back on main
        self.assertEqual(git(self.repo["bare"], "log", "-1", "--format=%s", "main").strip(),
                         "initial")

        thread = state_of(self.state_dir)["sessions"]["room_cx"]["id"]
        follow = message_item("Thanks, also the button colour", conversation="room_cx")
        self.gw.add_work(follow)
        self.wait_reply(follow["work_id"])
        argv = self.cli_runs()[-1]["argv"]
        i = argv.index("exec")
        self.assertEqual(argv[argv.index("resume") + 1], thread)
        self.assertGreater(argv.index("resume"), i)
        self.assertIn("--json", argv)


class FailureTest(AgentTestCase):
    def test_cli_missing(self):
        item = feedback_item()
        self.gw.add_work(item)
        self.start_agent(SERVICE_CLI_COMMAND="nope-cli-xyz")
        reply = self.wait_reply(item["work_id"])
        self.assertEqual(reply["text"], "I could not run the coding CLI: `nope-cli-xyz` was not "
                                        "found on PATH. Install it or set SERVICE_CLI_COMMAND.")

    def test_cli_error_sets_changes_aside(self):
        item = feedback_item()
        self.gw.add_work(item)
        self.start_agent(FAKE_CLI_FAIL="1", FAKE_CLI_EDIT=FIX)
        reply = self.wait_reply(item["work_id"])
        self.assertIn('The coding CLI (claude) failed: API Error: 529 {"type":"error"', reply["text"])
        self.assertIn("set aside with `git stash`", reply["text"])
        self.assertEqual(git(self.repo["checkout"], "status", "--porcelain"), "")
        self.assertEqual(self.gw.events_for(item["work_id"], "proposal"), [])
        # the next item still runs
        nxt = feedback_item()
        self.gw.add_work(nxt)
        self.wait_reply(nxt["work_id"])

    def test_dirty_tree_refused(self):
        with open(os.path.join(self.repo["checkout"], "wip.txt"), "w") as f:
            f.write("mine\n")
        item = feedback_item()
        self.gw.add_work(item)
        self.start_agent()
        reply = self.wait_reply(item["work_id"])
        self.assertIn("I could not start on this: the checkout", reply["text"])
        self.assertIn("uncommitted changes (1 files: wip.txt)", reply["text"])
        self.assertEqual(self.cli_runs(), [])

    def test_push_refused_is_said(self):
        os.rename(self.repo["bare"], self.repo["bare"] + ".gone")
        item = feedback_item()
        self.gw.add_work(item)
        self.start_agent(FAKE_CLI_EDIT=FIX)
        reply = self.wait_reply(item["work_id"])
        self.assertIn("to main, but the push to origin was refused", reply["text"])

    def test_server_errors_on_events_are_retried(self):
        self.gw.event_status = 503
        item = feedback_item()
        self.gw.add_work(item)
        agent = self.start_agent(FAKE_CLI_EDIT=FIX, SERVICE_POST_RETRY_SECONDS="10")
        wait_for(lambda: "not sent yet" in agent.log(), message="a retried event")
        self.gw.event_status = 200
        reply = self.wait_reply(item["work_id"])
        self.assertIn("Committed", reply["text"])

    def test_interrupted_item_retried_once_then_given_up(self):
        item = feedback_item()
        self.gw.add_work(item)
        for n in (1, 2):
            a = self.start_agent(FAKE_CLI_SLEEP="30", FAKE_CLI_NO_TOOLS="1")
            wait_for(lambda: len(self.cli_runs()) >= n, message="CLI run %d" % n)
            a.stop(signal.SIGKILL)
            # SIGKILL leaves the CLI (its own session) running, as systemd's cgroup would not
            kill_pid(self.cli_runs()[-1]["pid"])
        self.start_agent(FAKE_CLI_NO_TOOLS="1")
        reply = self.wait_reply(item["work_id"])
        self.assertIn("I was interrupted twice", reply["text"])
        self.assertEqual(len(self.cli_runs()), 2)

    def test_interrupted_item_retried_after_restart(self):
        item = feedback_item()
        self.gw.add_work(item)
        a = self.start_agent(FAKE_CLI_SLEEP="30", FAKE_CLI_EDIT="src/half.ts:partial\\n")
        wait_for(lambda: os.path.exists(os.path.join(self.repo["checkout"], "src", "half.ts")),
                 message="the CLI's first edit")
        a.stop(signal.SIGTERM)  # graceful: the CLI is ended, the item stays queued
        self.assertEqual(self.gw.replies(), [])
        self.start_agent(FAKE_CLI_EDIT=FIX)
        reply = self.wait_reply(item["work_id"])
        # the interrupted run's leftovers were set aside, the retry committed its own change
        self.assertRegex(reply["text"], r"Committed [0-9a-f]+ to main and pushed")
        self.assertEqual(len(self.cli_runs()), 2)
        self.assertIn("service: %s (interrupted run)" % item["work_id"],
                      git(self.repo["checkout"], "stash", "list"))
        shown = git(self.repo["bare"], "show", "--stat", "--format=", "main")
        self.assertIn("src/app.ts", shown)
        self.assertNotIn("half.ts", shown)

    def test_token_refused_is_logged_and_retried(self):
        self.gw.refuse_status = 401
        agent = self.start_agent()
        wait_for(lambda: "refused the token (401 invalid_token" in agent.log(),
                 message="the auth message")
        time.sleep(0.8)
        self.assertIsNone(agent.proc.poll())
        self.assertNotIn("Traceback", agent.log())
        self.assertNotIn(TOKEN, agent.log())
        self.gw.refuse_status = None
        item = feedback_item()
        self.gw.add_work(item)
        self.wait_reply(item["work_id"])


class WatchdogTest(AgentTestCase):
    def test_ready_then_watchdog_only_while_heartbeats_succeed(self):
        path = os.path.join(self.tmp, "notify.sock")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(0.2)
        self.addCleanup(sock.close)
        got = []

        def drain(seconds):
            end = time.monotonic() + seconds
            out = []
            while time.monotonic() < end:
                try:
                    out.append(sock.recv(4096).decode())
                except socket.timeout:
                    pass
            got.extend(out)
            return out

        self.start_agent(NOTIFY_SOCKET=path)
        wait_for(lambda: drain(0.3) is not None and any(m == "WATCHDOG=1" for m in got),
                 message="WATCHDOG=1")
        self.assertTrue(got[0].startswith("READY=1"), got)
        self.gw.heartbeat_status = 503
        drain(0.5)  # an in-flight heartbeat may still succeed
        self.assertNotIn("WATCHDOG=1", drain(1.2))
        self.gw.heartbeat_status = 200
        wait_for(lambda: "WATCHDOG=1" in drain(0.3), message="WATCHDOG=1 again")


if __name__ == "__main__":
    unittest.main()
