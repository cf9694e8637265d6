"""`mem capture`: record one hook event, at almost no cost, and never break the session.

Parsed by hand rather than by Typer: importing Typer alone costs several times a bare Python
start, and this runs on every tool call. Whatever happens, the exit code is 0 and stdout stays
empty; the reason for a skipped event goes to ``.memory/local/mem.log``. ``--strict`` (for
tests) reports errors instead: exit 2 for bad input, 3 for an internal error.
"""

from __future__ import annotations

import os
import sys

from memcli.capture import pipeline
from memcli.capture.pipeline import CaptureError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from collections.abc import Callable

USAGE = """usage: mem capture [--agent NAME] [--kind KIND] [--session ID] [--strict]

Read one hook event (JSON) or plain piped text on stdin and append it, filtered and masked,
to the session's buffer under .memory/local/. Exits 0 whatever happens (hooks fail open).

  --agent NAME   claude-code, codex, gemini, cursor or copilot (default: detected)
  --kind KIND    for plain text: test, build, command, note (default: command)
  --session ID   session id for plain text (default: $MEM_SESSION or one per day)
  --strict       report errors on stderr with exit 2 or 3 instead of failing open
"""

AGENTS = ("claude-code", "codex", "gemini", "cursor", "copilot")


def parse_args(argv: list[str]) -> dict[str, str | bool | None]:
    options: dict[str, str | bool | None] = {
        "agent": None,
        "kind": None,
        "session": None,
        "strict": False,
    }
    args = list(argv)
    while args:
        arg = args.pop(0)
        name, eq, value = arg.partition("=")
        if name in ("--agent", "--kind", "--session"):
            if not eq:
                if not args:
                    raise CaptureError(f"{name}: missing value")
                value = args.pop(0)
            options[name[2:]] = value
        elif arg == "--strict":
            options["strict"] = True
        elif arg in ("-h", "--help"):
            options["help"] = True
        else:
            raise CaptureError(f"unknown argument {arg!r}")
    if options["agent"] is not None and options["agent"] not in AGENTS:
        raise CaptureError(f"--agent: {options['agent']!r} is not one of {', '.join(AGENTS)}")
    return options


def run(argv: list[str], advance: Callable[[str, str, str, object], object] | None = None) -> int:
    """``advance``: see :func:`memcli.capture.pipeline.capture`."""
    strict = "--strict" in argv
    log_path: list[str] = []
    try:
        options = parse_args(argv)
        if options.get("help"):
            sys.stdout.write(USAGE)
            return 0
        pipeline.capture(options, log_path, advance)
        return 0
    except CaptureError as exc:
        return _failed(f"skipped: {exc}", 2, strict, log_path)
    except BaseException as exc:  # noqa: BLE001 - a hook must never break the session
        if isinstance(exc, SystemExit | KeyboardInterrupt) and not strict:
            return 0
        if strict and os.environ.get("MEM_DEBUG") == "1":
            raise
        return _failed(f"internal error: {type(exc).__name__}: {exc}", 3, strict, log_path)


def _failed(reason: str, code: int, strict: bool, log_path: list[str]) -> int:
    line = reason.replace("\n", " ")[:500]
    if strict:
        sys.stderr.write(f"mem capture: {line}\n")
        return code
    if log_path:
        from memcli import memlog

        memlog.write(log_path[0], line)
    return 0
