"""The Stop checkpoint's whole-process wall time as a ratio to a bare `python -c pass`.

A session of 200 captured observations (commands failing and passing, edits, prompts, a
closing message) and its Claude Code transcript (the tool calls and their outputs, and the
assistant's texts between them: narration, and now and then a cause or a decision, which the
checkpoint reads as mid-turn notes). Two cases, each interleaved with the bare start in one run:

- ``first stop``: the checkpoint's state is removed before each run, so it reads and scans
  all 200 observations (the worst case: the first turn of a long session, or a lost state);
  its buffer stays at 200 observations;
- ``next turn``: 10 new observations since the previous checkpoint (the usual case), in a
  second session whose buffer grows by 10 observations a run;
- ``long turn``: the first stop's session as the hooks leave it: while the turn went, capture
  advanced the checkpoint's scan each time the buffer passed another 64 KB
  (:func:`memcli.checkpoint.run.advance`, run here at the same points, the transcript grown
  alongside), so the Stop reads what came after the last advance; the state those advances
  left is put back before each run (this checkout only: older versions have no advance).

Observations are written as capture writes them, with the facts it derives for the checkpoint
(:mod:`memcli.observed.derived`), each version's sessions by that version's own rules (a
version trusts only facts stamped with its own; before 2026-12-01 09:00 the baseline's sessions
carried this checkout's facts, which the baseline re-derived at every run, a handicap of about
6 % of its instructions); ``--old-buffer`` leaves them out (a buffer an older capture wrote:
the checkpoint derives them itself).

Measured through the exact command `mem hooks install` writes for Claude Code's ``Stop``
(``mem-hook checkpoint``: the launcher started without ``site``, memcli.hooklauncher), and
``mem checkpoint`` (pip's console script) beside it. ``--baseline-src DIR`` also runs ``mem
checkpoint`` (how the versions before the launcher started the hooks) with ``PYTHONPATH=DIR``
(a checkout of another version's source, e.g. ``git archive main memcli | tar -x -C DIR``),
interleaved in the same run, in sessions of its own.

Target: 1.5x. python benchmarks/checkpoint_bench.py [--runs N] [--baseline-src DIR]
[--old-buffer]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION = "bench"
WITH_FACTS = [True]  # --old-buffer: observations as an older capture wrote them


def observation(number: int, session: str = SESSION) -> dict[str, object]:
    kind = number % 10
    base: dict[str, object] = {
        "id": f"o{number:08d}bench", "session": session, "project": "github.com/acme/shop",
        "branch": "main", "ts": f"2026-11-30T10:{number // 60 % 60:02d}:{number % 60:02d}Z",
        "agent": "claude-code", "event": "PostToolUse", "tool": "Bash", "kind": "command",
        "summary": "", "ok": True, "exit_code": 0, "files": [], "hashes": {}, "input": "",
        "excerpt": "", "raw": f"raw/{session}.jsonl#o{number:08d}bench",
    }  # fmt: skip
    if kind in (0, 5):
        test = f"tests/test_mod{number % 7}.py"
        base.update(kind="error", ok=False, exit_code=1, input=f"pytest {test} -x",
                    summary=f"$ pytest {test} -x -> failed (1 failed)",
                    excerpt=("collected 12 items\n" + "x" * 600 +
                             f"\nE   KeyError: 'price{number % 7}'\n1 failed in 0.4s"))  # fmt: skip
    elif kind in (1, 2, 6):
        path = f"src/shop/mod{number % 7}.py"
        base.update(kind="edit", tool="Edit", files=[path], summary=f"edit {path}",
                    excerpt="replaced 1 line with 1 line")  # fmt: skip
    elif kind in (3, 7):
        test = f"tests/test_mod{(number - 3) % 7}.py"
        base.update(input=f"pytest {test} -x", summary=f"$ pytest {test} -x -> ok (12 passed)",
                    excerpt="collected 12 items\n" + "." * 400 + "\n12 passed in 0.5s")  # fmt: skip
    elif kind == 4:
        base.update(kind="prompt", event="UserPromptSubmit", tool=None,
                    summary="prompt: keep going", excerpt="Keep going, and please run the "
                    "whole suite when you are done. We use uv for everything.")  # fmt: skip
    elif kind == 8:
        base.update(input="git status", summary="$ git status -> ok", excerpt="On branch main")
    else:
        base.update(kind="conclusion", event="Stop", tool=None, summary="stop: done",
                    excerpt="I kept the cache in memory instead of Redis because the tests "
                    "run offline. The price lookup now reads the new column.")  # fmt: skip
    return base


_SAID = (
    "Let me run the tests again.",
    "Now I'll check the module that builds the price table.",
    "The failure is caused by the fixture: it has no `price` column since the migration.",
    "I'll read the test file first.",
    "I kept the lookup in SQL instead of pandas because the test image has no pandas.",
)


_FACTS = """
import json, sys
records = json.load(sys.stdin)
try:
    from memcli.observed import derived
except ImportError:  # a version whose capture derives nothing
    print(json.dumps([None] * len(records)))
else:
    print(json.dumps([derived.facts(r) for r in records]))
"""


def captured_facts(records: list[dict[str, object]], src: str | None) -> list[object]:
    """The facts each version's own capture records with each observation (its rules, its
    stamp: a version trusts only facts it derived), computed by that version (``src``: its
    source folder; None: this checkout)."""
    if not WITH_FACTS[0]:
        return [None] * len(records)
    env = {**os.environ, "PYTHONPATH": src or str(ROOT)}
    # Not run from this checkout: `-c` puts the working folder first on the path.
    done = subprocess.run([sys.executable, "-c", _FACTS], input=json.dumps(records), env=env,
                          capture_output=True, text=True, check=True,
                          cwd=tempfile.gettempdir())  # fmt: skip
    return list(json.loads(done.stdout))


def as_captured(record: dict[str, object], facts: object) -> dict[str, object]:
    """The observation as capture writes it: with the facts it derives for the checkpoint."""
    return {**record, "derived": facts} if facts is not None else record


def transcript_lines(number: int, session: str = SESSION) -> list[str]:
    """The transcript lines behind observation ``number``: a tool call and its output (most of
    a transcript's bytes), and every third observation a text of the assistant's."""
    line = {"type": "assistant", "sessionId": session, "uuid": f"u{number}", "message": {
        "role": "assistant", "content": [{"type": "tool_use", "id": f"t{number}", "name": "Bash",
        "input": {"command": f"pytest tests/test_mod{number % 7}.py -x"}}]}}  # fmt: skip
    result = {"type": "user", "sessionId": session, "uuid": f"r{number}", "message": {
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{number}",
        "content": "collected 12 items\n" + "." * 2000 + "\n12 passed"}]}}  # fmt: skip
    lines = [json.dumps(line), json.dumps(result)]
    if number % 3 == 0:
        text = {"type": "assistant", "sessionId": session, "uuid": f"s{number}", "message": {
            "role": "assistant", "content": [{"type": "text",
            "text": f"{_SAID[number // 3 % len(_SAID)]} (step {number})"}]}}  # fmt: skip
        lines.append(json.dumps(text))
    return lines


_ADVANCES = """
import json, sys
from memcli.checkpoint import run
from memcli.observed import buffer
local, session, lines_file, transcript, said_file = sys.argv[1:6]
lines = json.load(open(lines_file))
said = json.load(open(said_file))
path = f"{local}/buffer/{buffer.session_file_name(session)}"
with open(path, "w") as out, open(transcript, "w") as text:
    for line, texts in zip(lines, said):
        before = out.tell()
        out.write(line)
        text.write("".join(t + "\\n" for t in texts))
        out.flush()
        text.flush()
        if buffer.crossed_advance(before, out.tell()):
            run.advance(local, session, "claude-code", transcript)
"""


def advanced_state(session: Session) -> bytes:
    """The checkpoint state capture's advances leave for ``session``'s buffer and transcript,
    written as the session goes (this checkout's rules), and the buffer and transcript as
    they end up (the same bytes as the session's own)."""
    local = session.buffer.parent.parent
    lines = [json.dumps(as_captured(observation(n, session.name), session.facts[n])) + "\n"
             for n in range(200)]  # fmt: skip
    said = [transcript_lines(n, session.name) for n in range(200)]
    with tempfile.TemporaryDirectory() as folder:
        lines_file, said_file = Path(folder) / "lines.json", Path(folder) / "said.json"
        lines_file.write_text(json.dumps(lines))
        said_file.write_text(json.dumps(said))
        session.state.unlink(missing_ok=True)
        subprocess.run([sys.executable, "-c", _ADVANCES, str(local), session.name,
                        str(lines_file), str(session.transcript), str(said_file)],
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
                       cwd=tempfile.gettempdir())  # fmt: skip
    return session.state.read_bytes()


def timed(command: list[str], stdin: bytes, cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=stdin, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


class Session:
    """One session's buffer, checkpoint state and Stop payload in the benchmark repository."""

    def __init__(self, repo: Path, name: str, src: str | None, count: int) -> None:
        self.name = name
        numbers = range(count)
        self.facts = captured_facts([observation(n, name) for n in numbers], src)
        local = repo / ".memory" / "local"
        self.buffer = local / "buffer" / f"{name}.jsonl"
        self.buffer.parent.mkdir(parents=True, exist_ok=True)
        self.buffer.write_text(
            "".join(
                json.dumps(as_captured(observation(n, name), self.facts[n])) + "\n"
                for n in range(200)
            )
        )
        self.transcript = repo.parent / f"{name}.transcript.jsonl"
        self.transcript.write_text(
            "".join(line + "\n" for n in range(200) for line in transcript_lines(n, name))
        )
        self.state = local / "checkpoint" / f"{name}.json"
        self.payload = json.dumps(
            {"session_id": name, "cwd": str(repo), "hook_event_name": "Stop",
             "stop_hook_active": False, "last_assistant_message": "Done: the suite passes.",
             "transcript_path": str(self.transcript)}
        ).encode()  # fmt: skip
        self.added = 200

    def add_turn(self) -> None:
        with open(self.buffer, "a", encoding="utf-8") as handle:
            for number in range(self.added, self.added + 10):
                record = as_captured(observation(number, self.name), self.facts[number])
                handle.write(json.dumps(record) + "\n")
        with open(self.transcript, "a", encoding="utf-8") as handle:
            for number in range(self.added, self.added + 10):
                handle.write("".join(line + "\n" for line in transcript_lines(number, self.name)))
        self.added += 10


def main() -> int:
    from capture_bench import installed_command  # a script: its folder is on the path

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--baseline-src", help="source folder of another version to compare")
    parser.add_argument("--old-buffer", action="store_true", help="observations without facts")
    args = parser.parse_args()
    WITH_FACTS[0] = not args.old_buffer
    python = sys.executable
    mem = shutil.which("mem", path=str(Path(python).parent)) or "mem"
    # -f: compileall keeps a .pyc whose source changed size within the same second (a
    # formatter's rewrite); the interpreter, which checks the size too, then compiles that
    # module at every start (PYTHONDONTWRITEBYTECODE): 20 ms for the masker.
    subprocess.run([python, "-m", "compileall", "-q", "-f", str(ROOT / "memcli")], check=True)
    # The hook's module bundle (memcli.hookbundle), written like a .pyc by a checkpoint run
    # and so not under PYTHONDONTWRITEBYTECODE: one run without it (no store here: it stops
    # once its modules are loaded).
    quiet = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([mem, "checkpoint"], input=b"{}", cwd=tempfile.gettempdir(), env=quiet,
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    # this checkout through the installed hook, and through pip's console script
    versions: dict[str, dict[str, str] | None] = {"": None, " (mem checkpoint)": None}
    if args.baseline_src:
        subprocess.run([python, "-m", "compileall", "-q", "-f", args.baseline_src], check=True)
        # its own bundle too (a version without bundles ignores this): else it imports slower
        subprocess.run([mem, "checkpoint"], input=b"{}", cwd=tempfile.gettempdir(),
                       env={**quiet, "PYTHONPATH": args.baseline_src}, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        versions[" (baseline)"] = {**os.environ, "PYTHONPATH": args.baseline_src}
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run([mem, "init"], cwd=repo, check=True, stdout=subprocess.DEVNULL)
        count = 200 + 10 * (args.runs + 2)  # the observations the next-turn session reaches
        sources = {" (baseline)": args.baseline_src}
        sessions = {
            label: (Session(repo, f"first{n}", sources.get(label), 200),
                    Session(repo, f"next{n}", sources.get(label), count))
            for n, label in enumerate(versions)
        }  # fmt: skip
        # this checkout's long turn: the first stop's session with capture's advances
        long_turn = Session(repo, "long0", None, 200)
        advanced = advanced_state(long_turn)
        bare = [python, "-c", "pass"]
        hook = installed_command(repo, mem, "Stop", "checkpoint")
        print(f"hook command: {' '.join(hook)}")
        # a baseline as the versions before the launcher installed it: pip's console script
        commands = {label: hook if not label else [mem, "checkpoint"] for label in versions}
        for label, env in versions.items():  # warm-up: bytecode, the regex cache file
            first, following = sessions[label]
            for _ in range(2):
                first.state.unlink(missing_ok=True)
                timed(commands[label], first.payload, repo, env)
            timed(commands[label], following.payload, repo, env)
        for _ in range(2):  # warm-up
            long_turn.state.write_bytes(advanced)
            timed(hook, long_turn.payload, repo)
        times: dict[str, list[float]] = {"python -c pass": []}
        for number in range(args.runs):
            times["python -c pass"].append(timed(bare, first.payload, repo))
            # Versions take turns going first: a fixed order favours the one run last.
            for label in list(versions)[:: -1 if number % 2 else 1]:
                env = versions[label]
                first, following = sessions[label]
                first.state.unlink(missing_ok=True)
                times.setdefault(f"first stop{label}", []).append(
                    timed(commands[label], first.payload, repo, env)
                )
                following.add_turn()
                times.setdefault(f"next turn{label}", []).append(
                    timed(commands[label], following.payload, repo, env)
                )
                if not label:
                    long_turn.state.write_bytes(advanced)
                    times.setdefault("long turn", []).append(timed(hook, long_turn.payload, repo))
    bare_times = times["python -c pass"]
    base = statistics.median(bare_times)
    print(f"checkpoint benchmark: {args.runs} interleaved runs each, median wall time")
    print("  (paired: the median of each run's ratio to the bare start of the same round;")
    print("   fastest: the ratio of the fastest runs, the least disturbed by other load)")
    for name, values in times.items():
        median = statistics.median(values)
        paired = statistics.median(v / b for v, b in zip(values, bare_times, strict=True))
        fastest = min(values) / min(bare_times)
        print(f"  {name:24s} {median * 1000:6.1f} ms {median / base:5.2f}x   paired "
              f"{paired:4.2f}x   fastest {fastest:4.2f}x   (range {min(values) * 1000:.1f} "
              f"to {max(values) * 1000:.1f} ms)")  # fmt: skip
    for name in ("first stop", "next turn", "long turn"):
        paired = statistics.median(v / b for v, b in zip(times[name], bare_times, strict=True))
        verdict = "within" if paired <= 1.5 else "OVER"
        print(f"checkpoint {name}: {paired:.2f}x paired ({verdict} the 1.5x budget)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
