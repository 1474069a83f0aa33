import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from ferry_agent import config
from tests.helpers import PKG_DIR, make_repo


class ConfigTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ferry-config-")
        self.repo = make_repo(self.tmp, with_origin=False)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def env(self, **kw):
        base = {"SERVICE_URL": "https://ferry.example.com/", "SERVICE_TOKEN": "fry_abc",
                "SERVICE_INSTALL_ID": "0123456789abcdef", "CODE_ROOT": self.repo["code_root"],
                "PROJECT": "shop", "SERVICE_CLI": "claude", "HOME": self.tmp}
        base.update(kw)
        return {k: v for k, v in base.items() if v is not None}

    def test_folder_of_repos_plus_project(self):
        c = config.load(self.env())
        self.assertEqual(c.checkout, self.repo["checkout"])
        self.assertEqual(c.code_root, self.repo["code_root"])
        self.assertEqual(c.project, "shop")
        self.assertEqual(c.url, "https://ferry.example.com")
        self.assertEqual(c.cli_command, ["claude"])
        self.assertEqual(c.state_dir, os.path.join(self.tmp, ".local", "state",
                                                   "service-dispatch", "0123456789abcdef"))
        self.assertIsNone(c.base_branch)
        self.assertEqual(c.heartbeat_seconds, 20.0)

    def test_code_root_is_the_repo_project_defaults_to_basename(self):
        c = config.load(self.env(CODE_ROOT=self.repo["checkout"], PROJECT=None))
        self.assertEqual(c.checkout, self.repo["checkout"])
        self.assertEqual(c.project, "shop")

    def test_code_root_is_the_repo_with_project_name(self):
        c = config.load(self.env(CODE_ROOT=self.repo["checkout"], PROJECT="storefront"))
        self.assertEqual(c.checkout, self.repo["checkout"])
        self.assertEqual(c.project, "storefront")

    def test_headers(self):
        c = config.load(self.env(SERVICE_AGENT_NAME="shopbot"))
        h = c.headers()
        self.assertEqual(h["Authorization"], "Bearer fry_abc")
        self.assertEqual(h["X-Service-Install-Id"], "0123456789abcdef")
        self.assertEqual(h["X-Service-Agent-Name"], "shopbot")
        self.assertEqual(h["X-Service-Project"], "shop")
        self.assertNotIn("fry_abc", repr(c))

    def test_overrides(self):
        c = config.load(self.env(SERVICE_CLI="codex", SERVICE_CLI_COMMAND="python3 /x/fake.py",
                                 SERVICE_STATE_DIR=os.path.join(self.tmp, "st"),
                                 SERVICE_BASE_BRANCH="develop", SERVICE_CLI_ARGS=""))
        self.assertEqual(c.cli, "codex")
        self.assertEqual(c.cli_command, ["python3", "/x/fake.py"])
        self.assertEqual(c.cli_args, [])
        self.assertEqual(c.base_branch, "develop")
        self.assertEqual(c.state_dir, os.path.join(self.tmp, "st"))

    def test_permission_defaults_and_the_watchdog(self):
        """#1 and #4: Claude Code may edit and run npm test plus SERVICE_TEST_COMMAND; Codex
        keeps the workspace-write sandbox; SERVICE_CLI_ARGS replaces either; 600 s of silence."""
        c = config.load(self.env())
        self.assertEqual(c.cli_args, ["--permission-mode", "acceptEdits", "--allowedTools",
                                      "Bash(npm test:*)"])
        self.assertEqual((c.cli_idle_seconds, c.cli_timeout_seconds), (600.0, 3600.0))
        c = config.load(self.env(SERVICE_TEST_COMMAND=" bundle exec rspec ",
                                 SERVICE_CLI_IDLE_SECONDS="90"))
        self.assertEqual(c.cli_args[-2:], ["Bash(npm test:*)", "Bash(bundle exec rspec:*)"])
        self.assertEqual(c.cli_idle_seconds, 90.0)
        c = config.load(self.env(SERVICE_TEST_COMMAND="npm test"))
        self.assertEqual(c.cli_args[-1:], ["Bash(npm test:*)"])  # not twice
        c = config.load(self.env(SERVICE_CLI="codex", SERVICE_TEST_COMMAND="make check"))
        self.assertEqual(c.cli_args, ["--sandbox", "workspace-write"])
        c = config.load(self.env(SERVICE_CLI_ARGS="--permission-mode acceptEdits",
                                 SERVICE_TEST_COMMAND="make check"))
        self.assertEqual(c.cli_args, ["--permission-mode", "acceptEdits"])
        with self.assertRaises(config.ConfigError) as cm:
            config.load(self.env(SERVICE_TEST_COMMAND="make check)", SERVICE_CLI_IDLE_SECONDS="x"))
        self.assertEqual(len(cm.exception.problems), 2)
        self.assertIn("SERVICE_TEST_COMMAND cannot hold parentheses", str(cm.exception))

    def test_every_problem_listed(self):
        with self.assertRaises(config.ConfigError) as cm:
            config.load({"SERVICE_URL": "ftp://x", "SERVICE_INSTALL_ID": "short",
                         "SERVICE_CLI": "vim", "SERVICE_HEARTBEAT_SECONDS": "soon"})
        msg = str(cm.exception)
        for needle in ("SERVICE_URL must be", "SERVICE_TOKEN is not set",
                       "SERVICE_INSTALL_ID must be", "CODE_ROOT is not set",
                       "SERVICE_CLI must be", "SERVICE_HEARTBEAT_SECONDS must be"):
            self.assertIn(needle, msg)
        self.assertEqual(len(cm.exception.problems), 6)

    def test_missing_project_and_non_repo(self):
        with self.assertRaises(config.ConfigError) as cm:
            config.load(self.env(PROJECT="nope"))
        self.assertIn("PROJECT 'nope' is not a folder", str(cm.exception))
        with self.assertRaises(config.ConfigError) as cm:
            config.load(self.env(PROJECT=None))
        self.assertIn("PROJECT is not set", str(cm.exception))
        os.makedirs(os.path.join(self.repo["code_root"], "plain"))
        with self.assertRaises(config.ConfigError) as cm:
            config.load(self.env(PROJECT="plain"))
        self.assertIn("is not a git repository", str(cm.exception))

    def test_process_exits_2_with_the_list(self):
        env = {"PATH": os.environ.get("PATH", ""), "HOME": self.tmp}
        proc = subprocess.run([sys.executable, "-m", "ferry_agent"], cwd=PKG_DIR, env=env,
                              capture_output=True, text=True, timeout=20)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("SERVICE_URL is not set", proc.stderr)
        self.assertIn("SERVICE_TOKEN is not set", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)


if __name__ == "__main__":
    unittest.main()
