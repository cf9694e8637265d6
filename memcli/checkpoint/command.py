"""`mem checkpoint`: the end-of-turn hook. Prints the assistant's own "go on" answer (Claude
Code's and Codex's ``{"decision": "block", "reason": ...}``, Gemini CLI's ``{"decision":
"deny", ...}``, Cursor's ``{"followup_message": ...}``) when the session holds lessons not yet
asked about; prints nothing otherwise.

Parsed by hand like `mem capture` (no Typer on the hook path). Fails open: whatever happens
the exit code is 0, stdout holds either nothing or that one JSON object, and the reason for a
failure goes to ``.memory/local/mem.log``. ``--strict`` (tests) reports errors instead.
"""

import os
import sys

USAGE = """usage: mem checkpoint [--agent NAME] [--strict]

Read an end-of-turn hook event (JSON) on stdin. When the session shows candidate lessons
not yet asked about, print the assistant's answer that keeps it working (Claude Code, Codex:
{"decision": "block", "reason": ...}; Gemini CLI: {"decision": "deny", ...}; Cursor:
{"followup_message": ...}) asking the model to record the true ones (mem add --candidate ID)
and dismiss the rest (mem add --dismiss ID...). Silent when there is nothing new, when the
model is already answering one (stop_hook_active; Cursor's loop_count), or when
checkpoint.mode is off.

  --agent NAME   claude-code, codex, gemini or cursor (default: claude-code)
  --strict       report errors on stderr with exit 2 or 3 instead of failing open
"""
MAX_INPUT = 8_000_000


def run(argv: list[str]) -> int:
    strict = "--strict" in argv
    agent = "claude-code"
    args = list(argv)
    while args:
        arg = args.pop(0)
        name, eq, value = arg.partition("=")
        if arg in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        if name == "--agent":
            agent = value if eq else (args.pop(0) if args else "")
        elif arg != "--strict":
            return _failed(f"unknown argument {arg!r}", 2, strict, None)
    local = None
    try:
        from memcli.checkpoint import run as checkpoint
        from memcli.fastparse import fastjson, fastre
        from memcli.gitfiles import find_repo_root

        data = sys.stdin.buffer.read(MAX_INPUT) if sys.stdin is not None else b""
        data = data.removeprefix(b"\xef\xbb\xbf")  # Cursor's payloads on Windows
        payload = fastjson.loads(data.decode("utf-8", errors="replace")) if data.strip() else {}
        if not isinstance(payload, dict):
            return _failed("the hook event is not a JSON object", 2, strict, None)
        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
        root = find_repo_root(str(cwd)) if cwd else None
        root = root or find_repo_root(os.getcwd())
        from memcli import untrusted

        memory = os.path.join(root, ".memory") if root else ""
        if not memory or not os.path.isdir(memory) or untrusted.linked_folder(memory):
            return 0  # no store, or a committed symlink that would send its writes anywhere
        local = os.path.join(memory, "local")
        # Its own file: the patterns of capture, which runs on every tool call, stay few.
        fastre.use_cache(os.path.join(local, "checkpoint.regex.cache"))
        reason = checkpoint.checkpoint(payload, agent, local)
        fastre.save()
        if reason:
            sys.stdout.write(fastjson.dumps(checkpoint.answer(agent, reason)) + "\n")
        return 0
    except ValueError as exc:
        return _failed(f"skipped: invalid hook JSON: {exc}", 2, strict, local)
    except BaseException as exc:  # noqa: BLE001 - a hook must never break the session
        if isinstance(exc, SystemExit | KeyboardInterrupt) and not strict:
            return 0
        if strict and os.environ.get("MEM_DEBUG") == "1":
            raise
        return _failed(f"internal error: {type(exc).__name__}: {exc}", 3, strict, local)


def _failed(reason: str, code: int, strict: bool, local: str | None) -> int:
    line = reason.replace("\n", " ")[:500]
    if strict:
        sys.stderr.write(f"mem checkpoint: {line}\n")
        return code
    if local:
        from memcli import memlog

        memlog.write(os.path.join(local, "mem.log"), line, command="checkpoint")
    return 0
