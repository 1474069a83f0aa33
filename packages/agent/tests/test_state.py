import json
import os
import shutil
import stat
import tempfile
import unittest

from ferry_agent.state import State


class StateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ferry-state-")
        self.dir = os.path.join(self.tmp, "st")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_receive_dedupe_and_persist(self):
        s = State(self.dir)
        self.assertTrue(s.receive({"work_id": "w1"}, "w1"))
        self.assertTrue(s.receive({"work_id": "w2"}, "w2"))
        self.assertFalse(s.receive({"work_id": "w1"}))
        s2 = State(self.dir)  # a restart
        self.assertEqual([q["work"]["work_id"] for q in s2.queue], ["w1", "w2"])
        self.assertEqual(s2.last_event_id, "w2")
        s2.finish("w1")
        s3 = State(self.dir)
        self.assertFalse(s3.receive({"work_id": "w1"}))
        self.assertTrue(s3.known("w1"))
        self.assertEqual([q["work"]["work_id"] for q in s3.queue], ["w2"])

    def test_file_mode_and_no_temp_left(self):
        s = State(self.dir)
        s.receive({"work_id": "w1"})
        self.assertEqual(stat.S_IMODE(os.stat(s.path).st_mode), 0o600)
        self.assertEqual(os.listdir(self.dir), ["state.json"])
        with open(s.path) as f:
            self.assertEqual(json.load(f)["queue"][0]["work"]["work_id"], "w1")

    def test_attempts_and_sessions(self):
        s = State(self.dir)
        s.receive({"work_id": "w1"})
        self.assertEqual(s.start(s.head()), 1)
        s2 = State(self.dir)
        self.assertEqual(s2.start(s2.head()), 2)
        s2.set_session("room_1", "claude", "sess")
        s3 = State(self.dir)
        self.assertEqual(s3.session_for("room_1", "claude"), "sess")
        self.assertIsNone(s3.session_for("room_1", "codex"))
        self.assertIsNone(s3.session_for(None, "claude"))

    def test_corrupt_file_moved_aside(self):
        os.makedirs(self.dir)
        with open(os.path.join(self.dir, "state.json"), "w") as f:
            f.write("{not json")
        with self.assertLogs("ferry_agent.state", "WARNING"):
            s = State(self.dir)
        self.assertEqual(s.queue, [])
        self.assertTrue(any(n.startswith("state.json.corrupt-") for n in os.listdir(self.dir)))


if __name__ == "__main__":
    unittest.main()
