import io
import unittest

from ferry_agent.client import SSEParser, Stream


class FakeResp:
    def __init__(self, data: bytes):
        self._buf = io.BytesIO(data)

    def readline(self, limit=-1):
        return self._buf.readline(limit)


class SSEParserTest(unittest.TestCase):
    def test_event_with_id_and_type(self):
        p = SSEParser()
        evs = p.feed_text('event: work\nid: wrk_1\ndata: {"work_id": "wrk_1"}\n\n')
        self.assertEqual(len(evs), 1)
        self.assertEqual(evs[0].event, "work")
        self.assertEqual(evs[0].id, "wrk_1")
        self.assertEqual(evs[0].data, '{"work_id": "wrk_1"}')

    def test_multi_line_data_joined_with_newline(self):
        p = SSEParser()
        evs = p.feed_text("data: {\ndata:  \"a\": 1\ndata: }\n\n")
        self.assertEqual(evs[0].data, '{\n "a": 1\n}')
        self.assertEqual(evs[0].event, "message")

    def test_comments_ignored_and_counted(self):
        p = SSEParser()
        evs = p.feed_text(": keepalive\n\n: another\nevent: hello\ndata: x\n\n")
        self.assertEqual([e.event for e in evs], ["hello"])
        self.assertEqual(p.comments, 2)

    def test_id_persists_and_null_id_ignored(self):
        p = SSEParser()
        evs = p.feed_text("id: a\ndata: 1\n\ndata: 2\n\nid: b\0c\ndata: 3\n\n")
        self.assertEqual([e.id for e in evs], ["a", "a", "a"])

    def test_retry_and_unknown_fields(self):
        p = SSEParser()
        evs = p.feed_text("retry: 1500\nfoo: bar\nretry: soon\ndata\n\n")
        self.assertEqual(p.retry, 1500)
        self.assertEqual(evs[0].data, "")

    def test_crlf_cr_and_no_space_after_colon(self):
        p = SSEParser()
        evs = p.feed_text("event:work\r\ndata:x\r\n\r\nevent: b\rdata: y\r\r")
        self.assertEqual([(e.event, e.data) for e in evs], [("work", "x"), ("b", "y")])

    def test_blank_line_without_data_dispatches_nothing_and_resets_type(self):
        p = SSEParser()
        evs = p.feed_text("event: work\n\ndata: z\n\n")
        self.assertEqual([(e.event, e.data) for e in evs], [("message", "z")])

    def test_bom_stripped(self):
        p = SSEParser()
        evs = p.feed_text("\ufeffdata: q\n\n")
        self.assertEqual(evs[0].data, "q")

    def test_stream_reader_discards_unterminated_last_event(self):
        raw = b": hi\n\nevent: hello\ndata: {}\n\nevent: work\nid: w1\ndata: a\ndata: b\n\nevent: work\ndata: partial\n"
        s = Stream.__new__(Stream)
        s._resp = FakeResp(raw)
        s.parser = SSEParser()
        s.closed = False
        evs = list(s.events())
        self.assertEqual([(e.event, e.data, e.id) for e in evs],
                         [("hello", "{}", None), ("work", "a\nb", "w1")])


if __name__ == "__main__":
    unittest.main()
