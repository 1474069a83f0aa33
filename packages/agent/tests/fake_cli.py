#!/usr/bin/env python3
"""A fake coding CLI emitting the real JSON-lines shapes of both supported CLIs.

Claude Code when argv has `-p` (`claude -p PROMPT --output-format stream-json --verbose
[--resume ID]`), Codex when argv has `exec` (`codex exec [--json] [resume ID] --json PROMPT`).

Environment:
  FAKE_CLI_EDIT      "path:content[|path:content...]" files to write in the cwd (each becomes an
                     Edit tool_use / file_change item)
  FAKE_CLI_REPLY     the final assistant text (default "Fixed the pay button.\n\nDetails...")
  FAKE_CLI_FAIL      1: the run fails (Claude: result is_error; Codex: turn.failed)
  FAKE_CLI_RESUME_FAIL 1: fail only when resuming (session not found), before any tool use
  FAKE_CLI_SLEEP     seconds to sleep before the final result
  FAKE_CLI_EXIT      exit code (default 0; also used with FAKE_CLI_FAIL to show it is ignored)
  FAKE_CLI_LOG       file to append JSON lines: {"event": "start", "argv", "cwd", "time", "pid"} when a
                     run starts, {"event": "end", "argv", "start", "time"} when it ends
  FAKE_CLI_NO_TOOLS  1: no tool use at all
"""

import json
import os
import sys
import time
import uuid


def emit(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def edits():
    raw = os.environ.get("FAKE_CLI_EDIT", "")
    out = []
    for part in raw.split("|"):
        if ":" in part:
            path, content = part.split(":", 1)
            out.append((path, content.replace("\\n", "\n")))
    return out


def apply_edit(path, content):
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w") as f:
        f.write(content)


def claude(argv, reply, fail, resume):
    session = resume or str(uuid.uuid4())
    cwd = os.getcwd()
    emit({"type": "system", "subtype": "init", "cwd": cwd, "session_id": session,
          "tools": ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "TodoWrite"],
          "mcp_servers": [], "model": "claude-sonnet-4-5-20250929", "permissionMode": "default",
          "apiKeySource": "none"})
    if resume and os.environ.get("FAKE_CLI_RESUME_FAIL") == "1":
        emit({"type": "result", "subtype": "error_during_execution", "is_error": True,
              "duration_ms": 5, "num_turns": 0, "session_id": session,
              "result": "No conversation found with session ID: %s" % resume})
        return
    n = 0

    def tool(name, inp):
        nonlocal n
        n += 1
        tid = "toolu_%02d" % n
        emit({"type": "assistant", "message": {
            "id": "msg_%02d" % n, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}],
            "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 5}},
            "parent_tool_use_id": None, "session_id": session})
        emit({"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": tid, "type": "tool_result", "content": "ok"}]},
            "parent_tool_use_id": None, "session_id": session})

    if os.environ.get("FAKE_CLI_NO_TOOLS") != "1":
        tool("TodoWrite", {"todos": [{"content": "fix", "status": "in_progress"}]})
        tool("Read", {"file_path": os.path.join(cwd, "src/app.ts")})
        tool("Grep", {"pattern": "Pay", "path": cwd, "output_mode": "content"})
        for path, content in edits():
            tool("Edit", {"file_path": os.path.join(cwd, path), "old_string": "x",
                          "new_string": "y"})
            apply_edit(path, content)
        tool("Bash", {"command": "npm test", "description": "Run the tests"})
    emit({"type": "assistant", "message": {
        "id": "msg_final", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": reply}], "usage": {}},
        "parent_tool_use_id": None, "session_id": session})
    time.sleep(float(os.environ.get("FAKE_CLI_SLEEP") or 0))
    if fail:
        emit({"type": "result", "subtype": "success", "is_error": True, "duration_ms": 1200,
              "num_turns": 3, "result": "API Error: 529 Overloaded", "session_id": session,
              "total_cost_usd": 0.01})
    else:
        emit({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1200,
              "duration_api_ms": 1100, "num_turns": 6, "result": reply, "session_id": session,
              "total_cost_usd": 0.0123,
              "usage": {"input_tokens": 100, "output_tokens": 50}})


def codex(argv, reply, fail, resume):
    thread = resume or str(uuid.uuid4())
    emit({"type": "thread.started", "thread_id": thread})
    emit({"type": "turn.started"})
    if resume and os.environ.get("FAKE_CLI_RESUME_FAIL") == "1":
        emit({"type": "error", "message": "thread %s not found" % resume})
        emit({"type": "turn.failed", "error": {"message": "thread %s not found" % resume}})
        return
    n = 0

    def item(kind, body, started=True):
        nonlocal n
        iid = "item_%d" % n
        n += 1
        if started:
            emit({"type": "item.started", "item": dict(body, id=iid, type=kind)})
        done = dict(body, id=iid, type=kind)
        if kind == "command_execution":
            done.update(aggregated_output="ok\n", exit_code=0, status="completed")
        emit({"type": "item.completed", "item": done})

    if os.environ.get("FAKE_CLI_NO_TOOLS") != "1":
        item("reasoning", {"text": "**Looking at the pay button**"}, started=False)
        item("command_execution", {"command": "bash -lc \"sed -n '1,200p' src/app.ts\"",
                                   "aggregated_output": "", "exit_code": None,
                                   "status": "in_progress"})
        item("command_execution", {"command": "bash -lc 'rg -n Pay'", "aggregated_output": "",
                                   "exit_code": None, "status": "in_progress"})
        changes = []
        for path, content in edits():
            kind = "update" if os.path.exists(path) else "add"
            apply_edit(path, content)
            changes.append({"path": os.path.join(os.getcwd(), path), "kind": kind})
        if changes:
            item("file_change", {"changes": changes, "status": "completed"}, started=False)
        item("command_execution", {"command": "bash -lc 'npm test'", "aggregated_output": "",
                                   "exit_code": None, "status": "in_progress"})
    time.sleep(float(os.environ.get("FAKE_CLI_SLEEP") or 0))
    if fail:
        emit({"type": "error", "message": "stream disconnected before completion"})
        emit({"type": "turn.failed", "error": {"message": "stream disconnected before completion"}})
        return
    item("agent_message", {"text": reply}, started=False)
    emit({"type": "turn.completed",
          "usage": {"input_tokens": 1000, "cached_input_tokens": 200, "output_tokens": 80}})


def record(entry):
    log = os.environ.get("FAKE_CLI_LOG")
    if log:
        with open(log, "a") as f:
            f.write(json.dumps(entry) + "\n")


def main():
    argv = sys.argv[1:]
    start = time.time()
    record({"event": "start", "argv": argv, "cwd": os.getcwd(), "time": start,
            "pid": os.getpid()})
    reply = os.environ.get("FAKE_CLI_REPLY") or "Fixed the pay button.\n\nThe click handler was missing."
    fail = os.environ.get("FAKE_CLI_FAIL") == "1"
    if "exec" in argv:
        rest = argv[argv.index("exec") + 1:]
        resume = rest[rest.index("resume") + 1] if "resume" in rest else None
        codex(argv, reply, fail, resume)
    elif "-p" in argv:
        resume = argv[argv.index("--resume") + 1] if "--resume" in argv else None
        claude(argv, reply, fail, resume)
    else:
        sys.stderr.write("fake_cli: neither -p nor exec in argv\n")
        return 64
    record({"event": "end", "argv": argv, "start": start, "time": time.time()})
    return int(os.environ.get("FAKE_CLI_EXIT") or 0)


if __name__ == "__main__":
    sys.exit(main())
