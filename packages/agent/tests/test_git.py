import os
import shutil
import subprocess
import tempfile
import unittest

from ferry_agent import git as g
from tests.helpers import git, make_repo


class GitTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ferry-git-")
        self.repo = make_repo(self.tmp)
        self.cwd = self.repo["checkout"]
        self.bare = self.repo["bare"]

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, path, text, mode="w"):
        full = os.path.join(self.cwd, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, mode) as f:
            f.write(text)

    def test_changes_count_files_and_lines_untracked_included(self):
        self.write("src/app.ts", "export function pay() {\n  return true;\n}\n")  # 1 -, 1 +
        self.write("src/new.ts", "a\nb\nc")  # untracked, 3 lines
        self.write("img.bin", "\0\1\2", mode="w")  # binary: 0 lines
        ch = g.changes(self.cwd)
        self.assertEqual(sorted(ch.files), ["img.bin", "src/app.ts", "src/new.ts"])
        self.assertEqual(ch.lines, 5)

    def test_preflight(self):
        base, problem = g.preflight(self.cwd, None)
        self.assertEqual((base, problem), ("main", None))
        self.write("dirty.txt", "x\n")
        _, problem = g.preflight(self.cwd, None)
        self.assertIn("uncommitted changes (1 files: dirty.txt)", problem)
        os.remove(os.path.join(self.cwd, "dirty.txt"))
        git(self.cwd, "checkout", "-q", "-b", "other")
        base, problem = g.preflight(self.cwd, "main")
        self.assertIsNone(problem)
        self.assertEqual(g.current_branch(self.cwd), "main")

    def test_quick_fix_commits_and_pushes(self):
        self.write("src/app.ts", "fixed\n")
        line = g.quick_fix(self.cwd, "main", g.commit_message("Fix pay\nmore", "wrk_abc"))
        self.assertRegex(line, r"^Committed [0-9a-f]+ to main and pushed it to origin\.$")
        msg = git(self.bare, "log", "-1", "--format=%B", "main")
        self.assertEqual(msg.strip(), "Fix pay\n\nService-Work-Id: wrk_abc")
        self.assertEqual(g.status_entries(self.cwd), [])

    def test_quick_fix_push_refused(self):
        other = os.path.join(self.tmp, "other")
        subprocess.run(["git", "clone", "-q", self.bare, other], check=True)
        git(other, "config", "user.email", "o@example.com")
        git(other, "config", "user.name", "O")
        with open(os.path.join(other, "x.txt"), "w") as f:
            f.write("x\n")
        git(other, "add", "-A")
        git(other, "commit", "-q", "-m", "ahead")
        git(other, "push", "-q", "origin", "main")
        self.write("src/app.ts", "fixed\n")
        line = g.quick_fix(self.cwd, "main", "Fix\n")
        self.assertIn("but the push to origin was refused", line)

    def test_no_remote(self):
        git(self.cwd, "remote", "remove", "origin")
        self.write("src/app.ts", "fixed\n")
        self.assertIn("(no remote to push to)", g.quick_fix(self.cwd, "main", "Fix\n"))

    def test_pull_request_without_and_with_gh(self):
        self.write("src/app.ts", "fixed\n")
        line = g.pull_request(self.cwd, "main", "wrk_01jabcdefghjkmnpqrstvwxyz0", "Fix\n", gh="")
        self.assertIn("Pushed branch service/stvwxyz0 to origin", line)
        self.assertIn("`gh` is not installed", line)
        self.assertEqual(g.current_branch(self.cwd), "main")
        self.assertIn("service/stvwxyz0", git(self.bare, "branch", "--list"))
        # same work id again: a fresh branch name
        gh = os.path.join(self.tmp, "gh")
        with open(gh, "w") as f:
            f.write("#!/bin/sh\necho \"$@\" > %s/gh.args\necho https://github.com/acme/shop/pull/7\n"
                    % self.tmp)
        os.chmod(gh, 0o755)
        self.write("src/app.ts", "fixed again\n")
        line = g.pull_request(self.cwd, "main", "wrk_01jabcdefghjkmnpqrstvwxyz0", "Fix\n", gh=gh)
        self.assertEqual(line, "Opened a pull request: https://github.com/acme/shop/pull/7 "
                               "(branch service/stvwxyz0-2 into main).")
        with open(os.path.join(self.tmp, "gh.args")) as f:
            self.assertEqual(f.read().split(), ["pr", "create", "--fill", "--head",
                                                "service/stvwxyz0-2", "--base", "main"])

    def test_stash(self):
        self.assertFalse(g.stash(self.cwd, "nothing"))
        self.write("new.txt", "x\n")
        self.assertTrue(g.stash(self.cwd, "service: w (x)"))
        self.assertEqual(g.status_entries(self.cwd), [])
        self.assertIn("service: w (x)", git(self.cwd, "stash", "list"))


if __name__ == "__main__":
    unittest.main()
