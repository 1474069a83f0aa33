#!/usr/bin/env python3
"""A fake coding CLI that parses its arguments like the real ones and replays a recorded
transcript from tests/fixtures/<claude|codex>/ (each file names the vendor type or source it
follows).

Claude Code when argv has `-p`/`--print`, Codex when it has `exec`. Unknown dash-arguments are
refused the way the real parsers refuse them: Claude Code's (commander) prints
`error: unknown option '-x wrote to you'` (the whole argument) and exits 1; Codex's (clap) prints
`error: unexpected argument '-x' found` (the first unknown short flag, or the long option's name)
and exits 2; so does an option after codex's `resume` (the form docs/exec.md never uses).
The prompt is read from stdin when none is given as an argument (claude) or it is `-` (codex).

Which transcript: FAKE_CLI_FIXTURE when set, else `failed-turn` (claude) / `turn-failed` (codex)
when FAKE_CLI_FAIL=1, `resume-missing` (claude) when resuming with FAKE_CLI_RESUME_FAIL=1,
`resume` when resuming, else `edit-and-test`. The session / thread id is the resumed one or a new
one, the recorded cwd becomes the real one. Fixture directives: `#! stderr TEXT` (a line written
to stderr, `{session}` replaced) and `#! exit N`.

Environment:
  FAKE_CLI_FIXTURE    a transcript name (see above)
  FAKE_CLI_EDIT       "path:content[|path:content...]": the transcript's edits are made to these
                      files (written in the cwd) instead of the recorded ones, which are replayed
                      without touching the disk when this is unset
  FAKE_CLI_REPLY      the final assistant text instead of the recorded one
  FAKE_CLI_FAIL       1: the failed-turn transcript
  FAKE_CLI_RESUME_FAIL 1: resuming behaves as the real CLI does for an unknown session (claude:
                      nothing on stdout, stderr, exit 1; codex: a new thread)
  FAKE_CLI_NO_TOOLS   1: replay without any tool use
  FAKE_CLI_SLEEP      seconds to sleep before the final reply
  FAKE_CLI_HANG       1: print nothing and wait (a CLI stuck on a login prompt)
  FAKE_CLI_EXIT       exit code instead of the transcript's
  FAKE_CLI_LOG        file to append JSON lines: {"event": "start", "argv", "prompt", "cwd",
                      "time", "pid"} when a run starts, {"event": "end", ...} when it ends
"""

import copy
import json
import os
import sys
import time
import uuid

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
CLAUDE_VERSION = "2.1.332 (Claude Code)"
CODEX_VERSION = "codex-cli 0.63.0"

# commander options of `claude` (kind: flag, value, optional value, variadic)
CLAUDE_OPTIONS = {
    "-p": "flag", "--print": "flag", "--verbose": "flag", "-c": "flag", "--continue": "flag",
    "--fork-session": "flag", "--strict-mcp-config": "flag", "--include-partial-messages": "flag",
    "--dangerously-skip-permissions": "flag", "-v": "flag", "--version": "flag", "-h": "flag",
    "--help": "flag",
    "--output-format": "value", "--input-format": "value", "--session-id": "value",
    "--permission-mode": "value", "--model": "value", "--fallback-model": "value",
    "--max-turns": "value", "--max-budget-usd": "value", "--append-system-prompt": "value",
    "--system-prompt": "value", "--settings": "value", "--setting-sources": "value",
    "-r": "optional", "--resume": "optional", "-d": "optional", "--debug": "optional",
    "--allowedTools": "variadic", "--allowed-tools": "variadic", "--disallowedTools": "variadic",
    "--disallowed-tools": "variadic", "--tools": "variadic", "--add-dir": "variadic",
    "--mcp-config": "variadic",
}
# clap options of `codex exec` (flag or value); `resume` takes only --last
CODEX_OPTIONS = {
    "--json": "flag", "--experimental-json": "flag", "--full-auto": "flag",
    "--dangerously-bypass-approvals-and-sandbox": "flag", "--skip-git-repo-check": "flag",
    "--oss": "flag", "-h": "flag", "--help": "flag",
    "-m": "value", "--model": "value", "-s": "value", "--sandbox": "value", "-C": "value",
    "--cd": "value", "-c": "value", "--config": "value", "-p": "value", "--profile": "value",
    "-i": "value", "--image": "value", "--color": "value", "-o": "value",
    "--output-last-message": "value", "--output-schema": "value", "--add-dir": "value",
}
SANDBOXES = ("read-only", "workspace-write", "danger-full-access")


class Usage(Exception):
    def __init__(self, text, code):
        super().__init__(text)
        self.text, self.code = text, code


def parse_claude(argv):
    opts, positional, i = {}, [], 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            positional += argv[i:]
            break
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        name, _, inline = arg.partition("=")
        kind = CLAUDE_OPTIONS.get(name)
        if kind is None:
            raise Usage("error: unknown option '%s'\n" % arg, 1)
        if kind == "flag":
            opts[name] = True
        elif kind == "value":
            if not inline and i >= len(argv):
                raise Usage("error: option '%s <value>' argument missing\n" % name, 1)
            opts[name] = inline or argv[i]
            i += 0 if inline else 1
        elif kind == "optional":
            if inline:
                opts[name] = inline
            elif i < len(argv) and not argv[i].startswith("-"):
                opts[name] = argv[i]
                i += 1
            else:
                opts[name] = True
        else:  # variadic: values up to the next option
            values = [inline] if inline else []
            while i < len(argv) and not argv[i].startswith("-"):
                values.append(argv[i])
                i += 1
            opts.setdefault(name, []).extend(values)
    if len(positional) > 1:
        raise Usage("error: too many arguments. Expected 1 argument but got %d.\n"
                    % len(positional), 1)
    return opts, positional[0] if positional else None


def clap_error(arg, usage):
    return Usage("error: unexpected argument '%s' found\n\n  tip: to pass '%s' as a value, use "
                 "'-- %s'\n\nUsage: %s\n\nFor more information, try '--help'.\n"
                 % (arg, arg, arg, usage), 2)


def parse_codex(argv):
    """`codex exec [OPTIONS] [PROMPT]` or `codex exec [OPTIONS] resume [--last] [ID] [PROMPT]`."""
    opts, positional, resume, i = {}, [], None, 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if resume is not None:
            if arg == "--last":
                resume["last"] = True
            elif arg.startswith("-") and arg != "-":
                raise clap_error(arg.partition("=")[0] if arg.startswith("--") else arg[:2],
                                 "codex exec resume [SESSION_ID] [PROMPT]")
            else:
                resume["args"].append(arg)
            continue
        if arg == "resume" and not positional:
            resume = {"args": [], "last": False}
            continue
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        if arg.startswith("--"):
            name, _, inline = arg.partition("=")
            if name not in CODEX_OPTIONS:  # clap names the option without its value
                raise clap_error(name, "codex exec [OPTIONS] [PROMPT] [COMMAND]")
        else:
            # clap reads `-abc` one short flag at a time and names the first unknown one
            # (`-x wrote to you` is refused as '-x'); a short option takes the rest as its value.
            name, inline = arg[:2], arg[2:]
            while CODEX_OPTIONS.get(name) == "flag" and inline:
                opts[name] = True
                name, inline = "-" + inline[0], inline[1:]
            if name not in CODEX_OPTIONS:
                raise clap_error(name, "codex exec [OPTIONS] [PROMPT] [COMMAND]")
            inline = inline[1:] if inline.startswith("=") else inline
        kind = CODEX_OPTIONS[name]
        if kind == "flag":
            opts[name] = True
            continue
        if not inline and i >= len(argv):
            raise Usage("error: a value is required for '%s <VALUE>' but none was supplied\n"
                        % name, 2)
        opts[name] = inline or argv[i]
        i += 0 if inline else 1
    sandbox = opts.get("--sandbox") or opts.get("-s")
    if sandbox and sandbox not in SANDBOXES:
        raise Usage("error: invalid value '%s' for '--sandbox <SANDBOX_MODE>'\n" % sandbox, 2)
    if len(positional) > 1:
        raise clap_error(positional[1], "codex exec [OPTIONS] [PROMPT] [COMMAND]")
    if resume is not None:
        args = resume["args"]
        if len(args) > 2:
            raise clap_error(args[2], "codex exec resume [SESSION_ID] [PROMPT]")
        return opts, (args[1] if len(args) > 1 else None), (args[0] if args else None)
    return opts, (positional[0] if positional else None), None


# --- transcripts ---------------------------------------------------------------------------------


def load(cli, name):
    lines, directives = [], {"stderr": [], "exit": 0}
    with open(os.path.join(FIXTURES, cli, name + ".jsonl")) as f:
        for raw in f:
            raw = raw.rstrip("\n")
            if raw.startswith("#!"):
                key, _, value = raw[2:].strip().partition(" ")
                if key == "stderr":
                    directives["stderr"].append(value)
                elif key == "exit":
                    directives["exit"] = int(value)
            elif raw.strip() and not raw.startswith("#"):
                lines.append(json.loads(raw))
    return lines, directives


def replace_strings(obj, old, new):
    if isinstance(obj, str):
        return obj.replace(old, new) if old else obj
    if isinstance(obj, list):
        return [replace_strings(v, old, new) for v in obj]
    if isinstance(obj, dict):
        return {k: replace_strings(v, old, new) for k, v in obj.items()}
    return obj


def edits():
    out = []
    for part in os.environ.get("FAKE_CLI_EDIT", "").split("|"):
        if ":" in part:
            path, content = part.split(":", 1)
            out.append((path, content.replace("\\n", "\n")))
    return out


def write(path, content):
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w") as f:
        f.write(content)


def claude_script(lines, cwd):
    """(line, is_final) pairs: edits rewritten per FAKE_CLI_EDIT, tools dropped for NO_TOOLS."""
    no_tools = os.environ.get("FAKE_CLI_NO_TOOLS") == "1"
    specs = edits()
    edit_ids = set()
    out = []
    for line in lines:
        content = (line.get("message") or {}).get("content") if isinstance(
            line.get("message"), dict) else None
        blocks = content if isinstance(content, list) else []
        uses = [b for b in blocks if b.get("type") == "tool_use"]
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if (uses or results) and no_tools:
            continue
        if uses and uses[0].get("name") in ("Edit", "Write", "MultiEdit") and specs:
            edit_ids.add(uses[0].get("id"))
            for n, (path, text) in enumerate(specs):
                copy_line = copy.deepcopy(line)
                block = copy_line["message"]["content"][0]
                block["id"] = "%s_%d" % (block["id"], n)
                block["input"]["file_path"] = os.path.join(cwd, path)
                out.append((copy_line, ("write", path, text)))
            continue
        if results and results[0].get("tool_use_id") in edit_ids:
            for n, _ in enumerate(specs):
                copy_line = copy.deepcopy(line)
                block = copy_line["message"]["content"][0]
                block["tool_use_id"] = "%s_%d" % (block["tool_use_id"], n)
                out.append((copy_line, None))
            continue
        out.append((line, None))
    return out


def codex_script(lines, cwd):
    no_tools = os.environ.get("FAKE_CLI_NO_TOOLS") == "1"
    specs = edits()
    out = []
    for line in lines:
        item = line.get("item") if isinstance(line.get("item"), dict) else None
        kind = item.get("type") if item else None
        if item is not None and kind != "agent_message" and no_tools:
            continue
        if kind == "file_change" and specs:
            line = copy.deepcopy(line)
            line["item"]["changes"] = [
                {"path": os.path.join(cwd, path), "kind": "update" if os.path.exists(path)
                 else "add"} for path, _ in specs]
            out.append((line, ("write-all", specs)))
            continue
        out.append((line, None))
    return out


def final_reply(cli, lines):
    for line in reversed(lines):
        if cli == "claude" and line.get("type") == "result" and not line.get("is_error"):
            return line.get("result")
        item = line.get("item") if isinstance(line.get("item"), dict) else {}
        if cli == "codex" and item.get("type") == "agent_message":
            return item.get("text")
    return None


def is_final_text(cli, line):
    if cli == "codex":
        return (line.get("item") or {}).get("type") == "agent_message" if isinstance(
            line.get("item"), dict) else line.get("type") in ("turn.completed", "turn.failed")
    content = (line.get("message") or {}).get("content") if isinstance(
        line.get("message"), dict) else None
    return line.get("type") == "result" or (
        line.get("type") == "assistant" and isinstance(content, list)
        and all(b.get("type") == "text" for b in content))


def replay(cli, name, session, cwd):
    lines, directives = load(cli, name)
    recorded = next((ln.get("session_id") or ln.get("thread_id") for ln in lines
                     if ln.get("session_id") or ln.get("thread_id")), None)
    recorded_cwd = next((ln.get("cwd") for ln in lines if ln.get("cwd")), "/home/dev/shop")
    reply = os.environ.get("FAKE_CLI_REPLY")
    old_reply = final_reply(cli, lines)
    for k, v in ((recorded, session), (recorded_cwd, cwd)) + (
            ((old_reply, reply),) if reply and old_reply else ()):
        lines = [replace_strings(ln, k, v) for ln in lines]
    script = (codex_script if cli == "codex" else claude_script)(lines, cwd)
    slept = False
    for line, effect in script:
        if not slept and is_final_text(cli, line):
            slept = True
            time.sleep(float(os.environ.get("FAKE_CLI_SLEEP") or 0))
        if effect and effect[0] == "write-all":
            for path, text in effect[1]:
                write(path, text)
        sys.stdout.write(json.dumps(line, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if effect and effect[0] == "write":
            write(effect[1], effect[2])
    for text in directives["stderr"]:
        sys.stderr.write(text.replace("{session}", session) + "\n")
    return directives["exit"]


def record(entry):
    log = os.environ.get("FAKE_CLI_LOG")
    if log:
        with open(log, "a") as f:
            f.write(json.dumps(entry) + "\n")


def main():
    argv = sys.argv[1:]
    start = time.time()
    cwd = os.getcwd()
    try:
        if "exec" in argv:
            cli = "codex"
            opts, prompt, resume = parse_codex(argv[argv.index("exec") + 1:])
            if prompt in (None, "-"):
                prompt = sys.stdin.read()
        elif "--version" in argv or "-v" in argv:
            # one script fakes both: it answers as the CLI the agent runs (SERVICE_CLI)
            codex = os.environ.get("SERVICE_CLI") == "codex"
            sys.stdout.write((CODEX_VERSION if codex else CLAUDE_VERSION) + "\n")
            return 0
        else:
            cli = "claude"
            opts, prompt = parse_claude(argv)
            if not (opts.get("-p") or opts.get("--print")):
                raise Usage("fake_cli: only headless runs (-p) are faked\n", 64)
            resume = opts.get("--resume") or opts.get("-r")
            resume = resume if isinstance(resume, str) else None
            if prompt is None:
                prompt = sys.stdin.read()
    except Usage as e:
        sys.stderr.write(e.text)
        record({"event": "refused", "argv": argv, "cwd": cwd, "time": start, "pid": os.getpid()})
        return e.code
    record({"event": "start", "argv": argv, "prompt": prompt, "cwd": cwd, "time": start,
            "pid": os.getpid()})
    if os.environ.get("FAKE_CLI_HANG") == "1":
        time.sleep(3600)
        return 1
    name = os.environ.get("FAKE_CLI_FIXTURE")
    if not name:
        if os.environ.get("FAKE_CLI_FAIL") == "1":
            name = "turn-failed" if cli == "codex" else "failed-turn"
        elif resume and os.environ.get("FAKE_CLI_RESUME_FAIL") == "1" and cli == "claude":
            name = "resume-missing"
        elif resume:
            name = "resume"
        else:
            name = "edit-and-test"
    session = resume or str(uuid.uuid4())
    if resume and cli == "codex" and os.environ.get("FAKE_CLI_RESUME_FAIL") == "1":
        # codex exec resume with an id it has no rollout for starts a new thread (exec's lib.rs:
        # no resume path found -> a new conversation), with its own thread id.
        session = str(uuid.uuid4())
    code = replay(cli, name, session, cwd)
    record({"event": "end", "argv": argv, "start": start, "time": time.time()})
    override = os.environ.get("FAKE_CLI_EXIT")
    return int(override) if override else code


if __name__ == "__main__":
    sys.exit(main())
