"""What the Stop checkpoint loads: every module costs a share of a hook that runs at the end of
each turn (the budget is 1.5x a bare Python start, see docs/benchmarks.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# Each costs a share of a bare start: collections (with operator, reprlib, keyword) alone a
# tenth, the price of one runtime `from collections.abc import Callable`.
NEVER_LOADED = {"zlib", "fcntl", "__future__", "json", "re", "typing", "collections"}
PROBE = """
import sys, os
before = set(sys.modules)
sys.argv = ["mem", "checkpoint"]
os._exit = lambda code: None
from memcli.checkpoint.command import run
code = run([])
sys.stdout.flush()
sys.stderr.write("MODULES=" + ",".join(sorted(set(sys.modules) - before)) + "\\n")
"""


def loaded(repo: Path, message: str, transcript: Path | None = None) -> tuple[set[str], str]:
    buffer = repo / ".memory" / "local" / "buffer" / "s1.jsonl"
    buffer.parent.mkdir(parents=True, exist_ok=True)
    failing = {"id": "o1", "session": "s1", "kind": "error", "summary": "$ pytest -> failed",
               "input": "pytest", "ok": False, "excerpt": "E   KeyError: 'price'"}  # fmt: skip
    buffer.write_text(json.dumps(failing) + "\n", encoding="utf-8")
    (repo / ".memory" / "local" / "checkpoint").mkdir(exist_ok=True)
    for old in (repo / ".memory" / "local" / "checkpoint").iterdir():
        old.unlink()
    event = {"hook_event_name": "Stop", "session_id": "s1", "cwd": str(repo),
             "stop_hook_active": False, "last_assistant_message": message}  # fmt: skip
    if transcript is not None:
        event["transcript_path"] = str(transcript)
    payload = json.dumps(event)
    done = subprocess.run([sys.executable, "-c", PROBE], input=payload, capture_output=True,
                          text=True, check=True, cwd=repo)  # fmt: skip
    line = [x for x in done.stderr.splitlines() if x.startswith("MODULES=")][-1]
    return set(line[len("MODULES=") :].split(",")), done.stdout


def test_the_checkpoint_loads_no_extension_or_masking_it_can_do_without(repo: Path) -> None:
    loaded(repo, "Done: the suite passes.")  # the first run compiles its patterns with re
    modules, out = loaded(repo, "Done: the suite passes.")
    assert "KeyError" in out  # the probe ran the checkpoint: it asks about the failure
    assert not modules & NEVER_LOADED, modules
    assert "memcli.privacy.masking" not in modules


def test_a_message_that_may_state_a_lesson_is_masked(repo: Path) -> None:
    loaded(repo, "I chose a list instead of a set because order matters here.")  # compiles
    modules, out = loaded(repo, "I chose a list instead of a set because order matters here.")
    assert "memcli.privacy.masking" in modules
    assert not modules & (NEVER_LOADED - {"__future__"}), modules
    assert "instead of a set" in out


def test_reading_the_transcript_loads_nothing_more(repo: Path, tmp_path: Path) -> None:
    """Mid-turn notes that state no lesson are neither masked nor read (narration, tool
    calls and their outputs), and reading the transcript imports no json or re."""
    transcript = tmp_path / "session.jsonl"

    def line(kind: str, block: dict[str, object]) -> str:
        return json.dumps({"type": kind, "message": {"role": kind, "content": [block]}})

    transcript.write_text("\n".join([
        line("assistant", {"type": "text", "text": "Let me run the tests."}),
        line("assistant", {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}),
        line("user", {"type": "tool_result", "tool_use_id": "t1", "content": "x" * 5000}),
        line("assistant", {"type": "text", "text": "Done: the suite passes."}),
    ]) + "\n", encoding="utf-8")  # fmt: skip
    loaded(repo, "Done: the suite passes.", transcript)
    modules, out = loaded(repo, "Done: the suite passes.", transcript)
    assert "KeyError" in out
    assert not modules & NEVER_LOADED, modules
    assert "memcli.privacy.masking" not in modules


def _note_transcript(path: Path, said: str) -> Path:
    line = {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": said}]}}  # fmt: skip
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


def test_a_shown_note_sentence_loads_masking_only_when_it_may_hold_a_secret(
    repo: Path, tmp_path: Path
) -> None:
    """A note's sentence kept as a candidate is masked before it is kept; masking (a tenth of a
    bare start to load) is loaded only when the built-in rules may change the sentence."""
    clean = "The failure is caused by the fixture: it has no price column since the migration."
    transcript = _note_transcript(tmp_path / "clean.jsonl", clean)
    loaded(repo, "Done.", transcript)  # the first run derives the masker's tables
    transcript = _note_transcript(tmp_path / "clean2.jsonl", clean.replace("price", "cost"))
    modules, out = loaded(repo, "Done.", transcript)
    assert "caused by the fixture: it has no cost column" in out
    assert "memcli.privacy.masking" not in modules and "memcli.privacy.prescreen" in modules
    token = "gh" + "p_" + "Zq7rT2mXk9LwP4sV8nB3cY6dF1gH5jK0aQeR"
    secret = f"The failure is caused by the token {token} that the fixture reads at start."
    modules, out = loaded(repo, "Done.", _note_transcript(tmp_path / "secret.jsonl", secret))
    assert "memcli.privacy.masking" in modules
    assert "caused by the token [REDACTED] that the fixture" in out and token not in out
    state = (repo / ".memory" / "local" / "checkpoint" / "s1.json").read_text("utf-8")
    assert token not in state


def test_the_hook_commands_run_without_the_cycle_collector(repo: Path) -> None:
    """capture and checkpoint end with os._exit: the cycle collector would only cost them."""
    probe = (
        "import gc, os, sys\n"
        "os._exit = lambda code: (sys.stderr.write(f'GC={gc.isenabled()}\\n'), sys.exit(code))\n"
        "sys.argv = ['mem', sys.argv[1]]\n"
        "from memcli.__main__ import main\n"
        "try:\n    main()\nfinally:\n    sys.stderr.write(f'AFTER GC={gc.isenabled()}\\n')\n"
    )
    for command in ("capture", "checkpoint"):
        done = subprocess.run([sys.executable, "-c", probe, command], input="{}", cwd=repo,
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert "GC=False" in done.stderr and "AFTER GC=False" in done.stderr, done.stderr
    done = subprocess.run([sys.executable, "-c", probe, "--version"], cwd=repo,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert "AFTER GC=True" in done.stderr, done.stderr  # other commands keep it
