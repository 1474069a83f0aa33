"""install.sh in a temporary root: fake systemctl, a fake whoami server, answers piped in."""

import os
import re
import shutil
import stat
import subprocess
import tempfile
import unittest

from ferry_agent import config
from tests.helpers import PKG_DIR, TOKEN, FakeGateway, git, make_repo

INSTALL_SH = os.path.join(PKG_DIR, "install.sh")

FAKE_SYSTEMCTL = """#!/bin/sh
echo "$@" >> "{log}"
if [ "$1" = is-active ]; then
  if grep -qx "$2" "{active}" 2>/dev/null; then echo active; exit 0; fi
  echo inactive; exit 3
fi
exit 0
"""


def read_env(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            k, v = line.split("=", 1)
            if v.startswith('"') and v.endswith('"'):
                v = v[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            out[k] = v
    return out


class InstallRoot:
    """A temporary root, a fake systemctl and a fake whoami server, for the tests below."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ferry-install-")
        self.repo = make_repo(self.tmp, with_origin=False)
        self.etc = os.path.join(self.tmp, "etc")
        self.units = os.path.join(self.tmp, "units")
        self.prefix = os.path.join(self.tmp, "opt")
        self.state_root = os.path.join(self.tmp, "var")
        self.sys_log = os.path.join(self.tmp, "systemctl.log")
        self.active = os.path.join(self.tmp, "active")
        self.systemctl = os.path.join(self.tmp, "systemctl")
        with open(self.systemctl, "w") as f:
            f.write(FAKE_SYSTEMCTL.format(log=self.sys_log, active=self.active))
        os.chmod(self.systemctl, 0o755)
        self.gw = FakeGateway().start()

    def tearDown(self):
        self.gw.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    path_prefix = ""
    extra_env = {}

    def env(self):
        path = os.environ.get("PATH", "/usr/bin:/bin")
        if self.path_prefix:
            path = self.path_prefix + os.pathsep + path
        return {"PATH": path, "HOME": self.tmp,
                "LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1", "PYTHONDONTWRITEBYTECODE": "1",
                "SERVICE_ETC_DIR": self.etc, "SERVICE_UNIT_DIR": self.units,
                "SERVICE_INSTALL_PREFIX": self.prefix, "SERVICE_STATE_ROOT": self.state_root,
                "SYSTEMCTL": self.systemctl, "SERVICE_RUN_AS": "", **self.extra_env}

    def run_sh(self, *args, answers="", script=INSTALL_SH):
        return subprocess.run(["bash", script] + list(args), input=answers, env=self.env(),
                              capture_output=True, text=True, timeout=30)

    def dispatch(self, checkout=None, confirm="y", another=None, cli="claude", name="",
                 project=None, script=INSTALL_SH):
        lines = [self.gw.url, TOKEN, checkout or self.repo["checkout"]]
        if project is not None:
            lines.append(project)
        lines.append(confirm)
        if another is not None:
            lines.append(another)
        lines += [cli, name]
        return self.run_sh("--dispatch", answers="\n".join(lines) + "\n", script=script)

    def env_files(self):
        if not os.path.isdir(self.etc):
            return []
        return sorted(f for f in os.listdir(self.etc) if f.endswith(".env"))

    def systemctl_calls(self):
        try:
            with open(self.sys_log) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

class InstallTest(InstallRoot, unittest.TestCase):
    def test_dispatch_confirms_by_name_and_wires_one_instance(self):
        r = self.dispatch(name="shopbot")
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertIn("Connect to workspace 'Acme' (acme)? [y/N]", r.stderr)
        [env_file] = self.env_files()
        install_id = env_file[:-4]
        self.assertRegex(install_id, r"^[0-9a-f]{16}$")
        path = os.path.join(self.etc, env_file)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        env = read_env(path)
        # the checkout was the repo itself: rewritten to parent + name
        self.assertEqual(env["CODE_ROOT"], os.path.realpath(self.repo["code_root"]))
        self.assertEqual(env["PROJECT"], "shop")
        self.assertEqual(env["SERVICE_URL"], self.gw.url)
        self.assertEqual(env["SERVICE_TOKEN"], TOKEN)
        self.assertEqual(env["SERVICE_INSTALL_ID"], install_id)
        self.assertEqual(env["SERVICE_CLI"], "claude")
        self.assertEqual(env["SERVICE_AGENT_NAME"], "shopbot")
        self.assertEqual(env["SERVICE_STATE_DIR"], os.path.join(self.state_root, install_id))
        self.assertNotIn(TOKEN, r.stdout + r.stderr)
        # the agent itself accepts this environment
        cfg = config.load(dict(env, HOME=self.tmp))
        self.assertEqual(cfg.checkout, os.path.realpath(self.repo["checkout"]))
        # whoami was asked with the token and no install id (it registers nothing)
        [who] = [q for q in self.gw.requests if q["path"] == "/agents/v1/whoami"]
        self.assertEqual(who["headers"]["Authorization"], "Bearer " + TOKEN)
        self.assertNotIn("X-Service-Install-Id", who["headers"])
        # unit, code, systemctl
        with open(os.path.join(self.units, "service-dispatch@.service")) as f:
            unit = f.read()
        for needle in ("Type=notify", "Restart=always", "WatchdogSec=90",
                       "EnvironmentFile=%s/%%i.env" % self.etc,
                       "Environment=PYTHONPATH=%s" % self.prefix, "python3 -m ferry_agent"):
            self.assertIn(needle, unit)
        self.assertTrue(os.path.isfile(os.path.join(self.prefix, "ferry_agent", "agent.py")))
        self.assertEqual(self.systemctl_calls(),
                         ["daemon-reload", "enable --now service-dispatch@%s" % install_id])

    def test_refusing_the_workspace_changes_nothing(self):
        r = self.dispatch(confirm="n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("Connect to workspace 'Acme' (acme)?", r.stderr)
        self.assertIn("Nothing was changed.", r.stdout)
        self.assertEqual(self.env_files(), [])
        self.assertEqual(self.systemctl_calls(), [])
        self.assertFalse(os.path.exists(os.path.join(self.units, "service-dispatch@.service")))

    def test_refused_token(self):
        self.gw.refuse_status = 401
        r = self.dispatch()
        self.assertEqual(r.returncode, 1)
        self.assertIn("refused the token", r.stderr)
        self.assertEqual(self.env_files(), [])

    def test_another_instance_gets_a_fresh_install_id(self):
        self.assertEqual(self.dispatch().returncode, 0)
        self.gw.agents = [{"id": "agt_1", "name": "shop", "online": True}]
        r = self.dispatch(another="n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("already has agents: shop (online)", r.stderr)
        self.assertEqual(len(self.env_files()), 1)
        r = self.dispatch(another="y", name="shop-2")
        self.assertEqual(r.returncode, 0, r.stderr)
        files = self.env_files()
        self.assertEqual(len(files), 2)
        envs = [read_env(os.path.join(self.etc, f)) for f in files]
        self.assertNotEqual(envs[0]["SERVICE_INSTALL_ID"], envs[1]["SERVICE_INSTALL_ID"])
        for f in files:
            self.assertEqual(stat.S_IMODE(os.stat(os.path.join(self.etc, f)).st_mode), 0o600)
            self.assertEqual(read_env(os.path.join(self.etc, f))["SERVICE_INSTALL_ID"], f[:-4])

    def test_folder_of_repos_asks_for_the_project(self):
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        with open(os.path.join(bindir, "codex"), "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(os.path.join(bindir, "codex"), 0o755)
        self.path_prefix = bindir
        r = self.dispatch(checkout=self.repo["code_root"], project="shop", cli="codex")
        self.assertEqual(r.returncode, 0, r.stderr)
        [f] = self.env_files()
        env = read_env(os.path.join(self.etc, f))
        self.assertEqual((env["CODE_ROOT"], env["PROJECT"], env["SERVICE_CLI"]),
                         (os.path.realpath(self.repo["code_root"]), "shop", "codex"))
        # the CLI's full path is pinned: systemd's PATH is shorter than a login shell's
        self.assertEqual(env["SERVICE_CLI_COMMAND"], os.path.join(bindir, "codex"))
        self.assertNotIn("SERVICE_AGENT_NAME", env)
        # a folder without the named repo is refused
        r = self.dispatch(checkout=self.repo["code_root"], project="nope")
        self.assertEqual(r.returncode, 1)
        self.assertIn("is not a git repository", r.stderr)

    def test_list_and_remove(self):
        self.assertEqual(self.run_sh("--list").stdout.strip(),
                         "No agent instances installed (in %s)." % self.etc)
        self.dispatch()
        self.gw.agents = [{"id": "agt_1", "name": "shop", "online": True}]
        self.dispatch(another="y")
        ids = [f[:-4] for f in self.env_files()]
        with open(self.active, "w") as f:
            f.write("service-dispatch@%s\n" % ids[0])
        out = self.run_sh("--list").stdout
        self.assertRegex(out, r"(?m)^%s\s+up\s+shop\s+claude MISSING \(claude not found\)\s+%s$"
                         % (ids[0], re.escape(self.gw.url)))
        self.assertRegex(out, r"(?m)^%s\s+down \(inactive\)\s+shop" % ids[1])

        self.assertTrue(os.path.isdir(os.path.join(self.state_root, ids[1])))
        r = self.run_sh("--remove", ids[1])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("disable --now service-dispatch@%s" % ids[1], self.systemctl_calls())
        self.assertEqual([f[:-4] for f in self.env_files()], [ids[0]])
        self.assertFalse(os.path.exists(os.path.join(self.state_root, ids[1])))
        r = self.run_sh("--remove", ids[1])
        self.assertEqual(r.returncode, 1)
        self.assertIn("no agent instance %s" % ids[1], r.stderr)
        self.assertEqual(self.run_sh("--remove", "../../etc").returncode, 1)

    def test_the_cli_is_found_as_the_user_the_instance_runs_as(self):
        """#5: root's PATH has no ~/.local/bin; the user's login shell does."""
        home = os.path.join(self.tmp, "home-dev")
        bindir = os.path.join(home, ".local", "bin")
        os.makedirs(bindir)
        claude = os.path.join(bindir, "claude")
        with open(claude, "w") as f:
            f.write("#!/bin/sh\n[ \"$1\" = --version ] && echo '2.1.332 (Claude Code)'\n")
        os.chmod(claude, 0o755)
        with open(os.path.join(home, ".bash_profile"), "w") as f:
            f.write('PATH="$HOME/.local/bin:$PATH"\n')  # what a user's profile does
        runuser = os.path.join(self.tmp, "runuser")
        with open(runuser, "w") as f:  # `runuser -u USER -- CMD...` for a user "dev" with that home
            f.write('#!/bin/sh\necho "$@" >> %s/runuser.log\nshift; [ "$1" = -- ] && shift\n'
                    'HOME=%s PATH=/usr/bin:/bin exec "$@"\n' % (self.tmp, home))
        os.chmod(runuser, 0o755)
        self.extra_env = {"SERVICE_RUN_AS": "dev", "SERVICE_RUNUSER": runuser}
        r = self.dispatch()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Found claude for dev: %s" % claude, r.stderr)
        with open(os.path.join(self.tmp, "runuser.log")) as f:
            self.assertTrue(f.read().startswith("dev -- bash -lic"))
        [f] = self.env_files()
        env = read_env(os.path.join(self.etc, f))
        self.assertEqual(env["SERVICE_CLI_COMMAND"], claude)
        self.assertTrue(env["PATH"].startswith(bindir + ":/usr/local/sbin:"), env["PATH"])
        with open(os.path.join(self.units, "service-dispatch@%s.service.d" % f[:-4],
                               "10-user.conf")) as unit:
            self.assertIn("User=dev", unit.read())
        # --list names the CLI and its version, and says when it is gone
        self.assertRegex(self.run_sh("--list").stdout, r"(?m)^%s\s+down \(inactive\)\s+shop\s+"
                                                      r"claude 2\.1\.332\s" % f[:-4])
        with open(os.path.join(self.tmp, "runuser.log")) as f:  # the version, asked as dev
            self.assertIn("dev -- env PATH=%s:/usr/local/sbin:" % bindir, f.read())
        os.remove(claude)
        self.assertIn("claude MISSING (%s not found for dev)" % claude,
                      self.run_sh("--list").stdout)

    def test_list_looks_for_the_cli_on_the_units_path_not_roots(self):
        """#5: a CLI that only the installer's own PATH has is missing for the unit, whose PATH
        is systemd's when install.sh did not find the CLI."""
        r = self.dispatch()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("warning: claude was not found for", r.stderr)
        [f] = self.env_files()
        self.assertNotIn("SERVICE_CLI_COMMAND", read_env(os.path.join(self.etc, f)))
        bindir = os.path.join(self.tmp, "root-bin")
        os.makedirs(bindir)
        with open(os.path.join(bindir, "claude"), "w") as fh:
            fh.write("#!/bin/sh\necho '2.1.332 (Claude Code)'\n")
        os.chmod(os.path.join(bindir, "claude"), 0o755)
        self.path_prefix = bindir  # on the PATH install.sh runs with, not the unit's
        self.assertRegex(self.run_sh("--list").stdout,
                         r"(?m)^%s\s+down \(inactive\)\s+shop\s+claude MISSING \(claude not "
                         r"found\)\s" % f[:-4])

    def test_update_pulls_reinstalls_and_restarts_all(self):
        # the agent's code as a git checkout with an origin
        origin = os.path.join(self.tmp, "agent-origin.git")
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", origin], check=True)
        work = os.path.join(self.tmp, "agent-work")
        os.makedirs(work)
        for name in ("ferry_agent", "systemd"):
            shutil.copytree(os.path.join(PKG_DIR, name), os.path.join(work, name),
                            ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(INSTALL_SH, work)
        git(work, "init", "-q", "-b", "main")
        git(work, "config", "user.email", "t@example.com")
        git(work, "config", "user.name", "T")
        git(work, "add", "-A")
        git(work, "commit", "-q", "-m", "agent")
        git(work, "remote", "add", "origin", origin)
        git(work, "push", "-q", "-u", "origin", "main")
        source = os.path.join(self.tmp, "agent-src")
        subprocess.run(["git", "clone", "-q", origin, source], check=True)

        self.assertEqual(self.dispatch(script=os.path.join(source, "install.sh")).returncode, 0)
        self.gw.agents = [{"id": "agt_1", "name": "shop", "online": True}]
        self.assertEqual(self.dispatch(another="y",
                                       script=os.path.join(source, "install.sh")).returncode, 0)
        ids = [f[:-4] for f in self.env_files()]

        with open(os.path.join(work, "ferry_agent", "NEW_FILE"), "w") as f:
            f.write("v2\n")
        git(work, "add", "-A")
        git(work, "commit", "-q", "-m", "v2")
        git(work, "push", "-q")

        open(self.sys_log, "w").close()
        r = self.run_sh("--update", script=os.path.join(self.prefix, "install.sh"))
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertTrue(os.path.isfile(os.path.join(self.prefix, "ferry_agent", "NEW_FILE")))
        calls = self.systemctl_calls()
        self.assertIn("daemon-reload", calls)
        for i in ids:
            self.assertIn("restart service-dispatch@%s" % i, calls)
        self.assertIn("restarted 2 instance(s)", r.stdout)


class ServedInstallTest(InstallRoot, unittest.TestCase):
    """install.sh as Ferry serves it (SERVED_* filled in), piped to bash: the tarball it names is
    fetched from a local HTTP server and installed only when its SHA-256 matches."""

    def setUp(self):
        super().setUp()
        import functools
        import hashlib
        import http.server
        import io
        import tarfile
        import threading

        version = "0.1.0-test"
        top = "ferry-agent-%s" % version
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            for name in ("ferry_agent", "systemd", "install.sh"):
                tar.add(os.path.join(PKG_DIR, name), arcname="%s/%s" % (top, name),
                        filter=lambda t: None if "__pycache__" in t.name else t)
        self.tarball = buf.getvalue()
        self.sha = hashlib.sha256(self.tarball).hexdigest()
        served = os.path.join(self.tmp, "served", "agent")
        os.makedirs(served)
        with open(os.path.join(served, top + ".tar.gz"), "wb") as f:
            f.write(self.tarball)
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

        handler = functools.partial(Quiet, directory=os.path.dirname(served))
        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.base = "http://127.0.0.1:%d" % self.http.server_address[1]
        self.version = version

    def tearDown(self):
        self.http.shutdown()
        self.http.server_close()
        super().tearDown()

    def served_script(self, sha):
        with open(INSTALL_SH) as f:
            text = f.read()
        for name, value in (("SERVED_BASE_URL", self.base), ("SERVED_VERSION", self.version),
                            ("SERVED_SHA256", sha)):
            text, n = re.subn(r"(?m)^%s=''$" % name, "%s='%s'" % (name, value), text)
            self.assertEqual(n, 1, name)
        return text

    def pipe(self, script, answers):
        """`curl ... | bash -s -- --dispatch`, the answers following the script on stdin."""
        return subprocess.run(["bash", "-s", "--", "--dispatch"], input=script + answers,
                              env=self.env(), capture_output=True, text=True, timeout=60,
                              start_new_session=True)  # no terminal: answers come from stdin

    def test_piped_installs_from_the_tarball_and_records_the_ferry(self):
        answers = "\n".join([self.gw.url, TOKEN, self.repo["checkout"], "y", "claude", ""]) + "\n"
        r = self.pipe(self.served_script(self.sha), answers)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertIn("SHA-256 %s: matches." % self.sha, r.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.prefix, "ferry_agent", "agent.py")))
        with open(os.path.join(self.prefix, "SOURCE")) as f:
            self.assertEqual(f.read().strip(), self.base)
        [env_file] = self.env_files()
        self.assertEqual(read_env(os.path.join(self.etc, env_file))["SERVICE_URL"], self.gw.url)

    def test_a_tarball_whose_hash_does_not_match_is_refused(self):
        r = self.pipe(self.served_script("0" * 64), "\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("error: refused the agent tarball %s/agent/ferry-agent-%s.tar.gz: its "
                      "SHA-256 is %s, not %s" % (self.base, self.version, self.sha, "0" * 64),
                      r.stderr)
        self.assertIn("Nothing was installed", r.stderr)
        self.assertFalse(os.path.exists(self.prefix))
        self.assertEqual(self.env_files(), [])
        self.assertEqual(self.systemctl_calls(), [])


if __name__ == "__main__":
    unittest.main()
