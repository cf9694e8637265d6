"""Running the summarizer command: an assistant's own headless CLI, or any script.

The command comes from the user's own config only (never from a committed file). It runs:

- with ``MEM_DISABLE=1`` in its environment, which every mem hook command honours (exit 0,
  nothing done), so the headless session's own hooks never capture it nor start another
  compaction;
- in an empty temporary folder, so it loads no project instructions or project hooks and has
  no repository files at hand;
- with the request on stdin and a timeout, after which it is killed with everything it started.

Its stdout may be the JSON answer itself, or the answer wrapped by the CLI:

- ``claude -p --output-format json``: ``{"type": "result", "result": "<text>", "usage":
  {"input_tokens", "output_tokens", ...}, "total_cost_usd", "is_error"}``;
- ``gemini -p ... --output-format json``: ``{"response": "<text>", "stats": {"models":
  {"<model>": {"tokens": {"prompt", "candidates", ...}}}}}``;
- ``codex exec --json -``: JSON lines; the last ``item.completed`` agent message is the text,
  ``turn.completed`` carries ``usage``;

and the text may sit in a Markdown code fence. :func:`unwrap` returns the text and the usage
the CLI reported. Each call's cost (characters in and out, tokens and money when reported) is
appended to ``local/summarizer.jsonl`` and summed by :func:`cost_totals` for `mem stats`.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from typing import Any

from memcli.paths import StorePaths

DISABLE_ENV = "MEM_DISABLE"  # honoured by every hook command (memcli.__main__)
COST_FILE = "summarizer.jsonl"
MAX_COST_BYTES = 1_000_000  # the ledger keeps its newest half past this


class Failed(ValueError):
    """The command could not be run or did not answer."""


@dataclass
class Usage:
    """What one call cost."""

    chars_in: int = 0
    chars_out: int = 0
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    model: str = ""


def call(command: str, stdin: str, timeout: float) -> str:
    """The command's stdout; :class:`Failed` on a parse error, timeout or non-zero exit."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise Failed(f"cannot parse the command: {exc}") from None
    if not argv:
        raise Failed("empty command")
    env = {**os.environ, DISABLE_ENV: "1"}
    with tempfile.TemporaryDirectory(prefix="mem-summarizer-") as folder:
        try:
            process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, errors="replace", cwd=folder, env=env,
                start_new_session=sys.platform != "win32",
            )  # fmt: skip
        except OSError as exc:
            name = argv[0]
            raise Failed(f"{name}: command not found" if isinstance(exc, FileNotFoundError)
                         else f"{name}: {exc.strerror or exc}") from None  # fmt: skip
        try:
            stdout, stderr = process.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            raise Failed(f"timed out after {timeout:g} s") from None
    if process.returncode != 0:
        reason = " ".join((stderr or "").split())[:200]
        raise Failed(f"exit {process.returncode}" + (f": {reason}" if reason else ""))
    return stdout


def _kill_group(process: subprocess.Popen[str]) -> None:
    """Kill the command and whatever it started (a CLI runs helpers of its own)."""
    try:
        if sys.platform != "win32":
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover
            process.kill()
    except OSError:
        pass
    process.communicate()


def unwrap(stdout: str) -> tuple[str, Usage]:
    """The answer's text inside a headless CLI's envelope, and the usage it reported."""
    usage = Usage(chars_out=len(stdout))
    text = stdout.strip()
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines):
        found = _codex_events(lines, usage)
        if found is not None:
            return _unfenced(found), usage
    try:
        data = json.loads(text)
    except ValueError:
        return _unfenced(text), usage
    if isinstance(data, dict) and isinstance(data.get("result"), str) and "type" in data:
        if data.get("is_error") is True:
            raise Failed(f"the CLI reported an error: {data['result'][:200]}")
        _claude_usage(data, usage)
        return _unfenced(data["result"]), usage
    if isinstance(data, dict) and isinstance(data.get("response"), str):
        _gemini_usage(data.get("stats"), usage)
        return _unfenced(data["response"]), usage
    return text, usage


def _unfenced(text: str) -> str:
    """The JSON inside a Markdown code fence, or the text as it is."""
    stripped = text.strip()
    if stripped.startswith("```"):
        body = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        return body.rsplit("```", 1)[0].strip()
    return stripped


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _claude_usage(data: dict[str, Any], usage: Usage) -> None:
    counts = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    assert isinstance(counts, dict)
    fresh = _number(counts.get("input_tokens"))
    cached = sum(
        _number(counts.get(k)) or 0
        for k in ("cache_creation_input_tokens", "cache_read_input_tokens")
    )
    usage.tokens_in = None if fresh is None else fresh + cached
    usage.tokens_out = _number(counts.get("output_tokens"))
    cost = data.get("total_cost_usd")
    usage.cost_usd = float(cost) if isinstance(cost, int | float) else None
    models = data.get("modelUsage")
    if isinstance(models, dict) and models:
        usage.model = str(next(iter(models)))


def _gemini_usage(stats: object, usage: Usage) -> None:
    models = stats.get("models") if isinstance(stats, dict) else None
    if not isinstance(models, dict):
        return
    prompt = candidates = 0
    for name, entry in models.items():
        tokens = entry.get("tokens") if isinstance(entry, dict) else None
        if isinstance(tokens, dict):
            prompt += _number(tokens.get("prompt")) or 0
            candidates += _number(tokens.get("candidates")) or 0
            usage.model = usage.model or str(name)
    usage.tokens_in, usage.tokens_out = prompt, candidates


def _codex_events(lines: list[str], usage: Usage) -> str | None:
    found: str | None = None
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            return None
        if not isinstance(event, dict):
            return None
        item = event.get("item") if event.get("type") == "item.completed" else None
        if isinstance(item, dict) and item.get("type") == "agent_message":
            found = item["text"] if isinstance(item.get("text"), str) else found
        counts = event.get("usage")
        if event.get("type") == "turn.completed" and isinstance(counts, dict):
            usage.tokens_in = (usage.tokens_in or 0) + (_number(counts.get("input_tokens")) or 0)
            usage.tokens_out = (usage.tokens_out or 0) + (_number(counts.get("output_tokens")) or 0)
    return found


def record_cost(paths: StorePaths, session: str, usage: Usage, outcome: str) -> None:
    """Append one call's cost to ``local/summarizer.jsonl``; a failure to record is ignored."""
    path = paths.local / COST_FILE
    line = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "session": session,
            "outcome": outcome, **asdict(usage)}  # fmt: skip
    from memcli.privacy import owner_only

    try:
        if path.exists() and path.stat().st_size > MAX_COST_BYTES:
            kept = path.read_bytes()[MAX_COST_BYTES // 2 :].split(b"\n", 1)[-1]
            owner_only.write_atomic(str(path), kept)
        owner_only.append_line(str(path), json.dumps(line))
    except OSError:
        pass


def cost_totals(paths: StorePaths) -> dict[str, Any]:
    """Calls, failures, characters and tokens in and out, money: the sums of the ledger."""
    totals: dict[str, Any] = {"calls": 0, "failed": 0, "chars_in": 0, "chars_out": 0,
                              "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0}  # fmt: skip
    try:
        text = (paths.local / COST_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return totals
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        totals["calls"] += 1
        totals["failed"] += entry.get("outcome") != "ok"
        for key in ("chars_in", "chars_out", "tokens_in", "tokens_out"):
            totals[key] += _number(entry.get(key)) or 0
        cost = entry.get("cost_usd")
        totals["cost_usd"] += float(cost) if isinstance(cost, int | float) else 0.0
    totals["cost_usd"] = round(totals["cost_usd"], 6)
    return totals
