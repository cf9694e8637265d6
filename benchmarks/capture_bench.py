"""Capture's whole-process wall time as a ratio to a bare `python -c pass`.

All are started the same way by the same interpreter, interleaved in one run, so machine
noise hits them alike; the ratio is the number to read, not the milliseconds. Measured through
the exact command `mem hooks install` writes for Claude Code. Targets: 1.5x for a small tool
output, 3x for a 1 MB one.

``hook command, advancing``: the one capture in about a hundred whose observation takes its
session's buffer past another 64 KB, so that it also advances the Stop checkpoint's scan over
the observations since the last advance (:func:`memcli.checkpoint.run.advance`; Claude Code
runs capture asynchronously: this holds no session); before each of its runs the buffer is put
back just under 64 KB and the checkpoint's state removed. Its median is what that capture
costs; spread over the hundred captures between two advances it adds about a hundredth of it
to each.

``--baseline-src DIR`` also runs ``mem capture`` (pip's console script: how the versions before
the ``mem-hook`` launcher started the hooks) with ``PYTHONPATH=DIR`` (another version's source,
e.g. ``git archive main memcli | tar -x -C DIR``), interleaved in the same run.

    python benchmarks/capture_bench.py [--runs N] [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAYLOAD = {
    "session_id": "bench",
    "transcript_path": "/tmp/bench.jsonl",
    "cwd": "",
    "hook_event_name": "PostToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "pytest tests/test_orders.py -x", "description": "Run tests"},
    "tool_response": {
        "stdout": "collected 12 items\n\ntests/test_orders.py F\n"
        + "E   psycopg.OperationalError: connection to server port 5433 failed\n"
        + "DATABASE_URL=postgresql://shop:hunter2@localhost:5432/shop\n" * 3
        + "1 failed in 0.41s\n",
        "stderr": "",
        "interrupted": False,
    },
    "tool_use_id": "toolu_01",
}


def timed(command: list[str], stdin: bytes, cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=stdin, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def big_payload(repo: Path) -> bytes:
    """A PostToolUse payload whose command printed 1 MB: build noise, a secret in the middle,
    a failure at the end."""
    noise = "".join(f"compiling module_{n:05d}.c -O2 -Wall ... ok\n" for n in range(22_000))
    middle = len(noise) // 2
    stdout = (
        noise[:middle] + "DATABASE_URL=postgresql://shop:hunter2@db:5432/shop\n" + noise[middle:]
    )
    stdout += "error: linker command failed with exit code 1\n"
    response = {"stdout": stdout[:1_000_000], "stderr": "", "interrupted": False}
    payload = {**PAYLOAD, "cwd": str(repo), "tool_response": response}
    payload["tool_input"] = {"command": "make all", "description": "Build"}
    return json.dumps(payload).encode()


def installed_command(
    repo: Path, mem: str, event: str = "PostToolUse", role: str = "capture"
) -> list[str]:
    """The ``role`` command that `mem hooks install` wrote into .claude/settings.json for
    ``event``, as argv (the same words a shell would run, without the shell's own start-up).
    Installing also makes ``mem-hook`` the launcher started without ``site``
    (memcli.hooklauncher)."""
    subprocess.run([mem, "hooks", "install"], cwd=repo, check=True, capture_output=True)
    settings = json.loads((repo / ".claude/settings.json").read_text(encoding="utf-8"))
    commands = [h["command"] for group in settings["hooks"][event] for h in group["hooks"]]
    words = next(w for w in map(shlex.split, commands) if w[1:2] == [role])
    if os.sep not in words[0]:  # found on PATH by the shell: here, the one beside mem
        words[0] = shutil.which(words[0], path=str(Path(mem).parent)) or words[0]
    return words


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--baseline-src", help="source folder of another version to compare")
    args = parser.parse_args()
    python = sys.executable
    mem = shutil.which("mem", path=str(Path(python).parent)) or "mem"
    # Installed wheels ship compiled bytecode; make the source checkout match.
    # -f: compileall keeps a .pyc whose source changed size within the same second (a
    # formatter's rewrite); the interpreter, which checks the size too, then compiles that
    # module at every start (PYTHONDONTWRITEBYTECODE): 20 ms for the masker.
    subprocess.run([python, "-m", "compileall", "-q", "-f", str(ROOT / "memcli")], check=True)
    # The hook's module bundle (memcli.hookbundle), written like a .pyc by a capture run and so
    # not under PYTHONDONTWRITEBYTECODE: one run without it (no store there: a no-op).
    quiet = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([mem, "capture"], input=b"{}", cwd=tempfile.gettempdir(), env=quiet,
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    baseline = None
    if args.baseline_src:
        subprocess.run([python, "-m", "compileall", "-q", "-f", args.baseline_src], check=True)
        # its own bundle too (a version without bundles ignores this): else it imports slower
        subprocess.run([mem, "capture"], input=b"{}", cwd=tempfile.gettempdir(),
                       env={**quiet, "PYTHONPATH": args.baseline_src}, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        baseline = {**os.environ, "PYTHONPATH": args.baseline_src}
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run(
            ["git", "-C", str(repo), "remote", "add", "origin", "git@github.com:acme/shop.git"],
            check=True,
        )
        subprocess.run([mem, "init"], cwd=repo, check=True, stdout=subprocess.DEVNULL)
        hook = installed_command(repo, mem)
        small = json.dumps({**PAYLOAD, "cwd": str(repo)}).encode()
        big = big_payload(repo)
        contenders: dict[str, tuple[list[str], bytes, dict[str, str] | None]] = {
            "python -c pass": ([python, "-c", "pass"], small, None),
            "hook command, small": (hook, small, None),
            "hook command, 1 MB output": (hook, big, None),
            "mem capture, small": ([mem, "capture"], small, None),
            "python -m memcli capture": ([python, "-m", "memcli", "capture"], small, None),
        }
        if baseline is not None:  # as the versions before the launcher installed it
            contenders["mem capture, small (baseline)"] = ([mem, "capture"], small, baseline)
            contenders["mem capture, 1 MB (baseline)"] = ([mem, "capture"], big, baseline)
        # the advancing capture: a session of its own, its buffer just under 64 KB each run
        advancing = json.dumps({**PAYLOAD, "cwd": str(repo), "session_id": "adv"}).encode()
        subprocess.run(hook, input=advancing, cwd=repo, check=True)
        adv_buffer = repo / ".memory/local/buffer/adv.jsonl"
        adv_state = repo / ".memory/local/checkpoint/adv.json"
        line = adv_buffer.read_text(encoding="utf-8").splitlines()[0]
        kept = "".join(line.replace('"id":"o', f'"id":"o{n:04d}', 1) + "\n"
            for n in range((65_536 - len(line) // 2) // (len(line) + 1)))  # fmt: skip

        def reset_advancing() -> None:
            adv_buffer.write_text(kept, encoding="utf-8")
            adv_state.unlink(missing_ok=True)

        contenders["hook command, advancing"] = (hook, advancing, None)
        prepare = {"hook command, advancing": reset_advancing}
        for name, (command, payload, env) in contenders.items():  # warm-up: caches, regexes
            prepare.get(name, lambda: None)()
            timed(command, payload, repo, env)
        times: dict[str, list[float]] = {name: [] for name in contenders}
        names = list(contenders)
        for number in range(args.runs):
            # The order turns each round: a fixed one favoured the contenders run last by as
            # much as 0.25x (the same source as its own baseline, 30 rounds).
            turn = number % len(names)
            for name in names[turn:] + names[:turn]:
                command, payload, env = contenders[name]
                prepare.get(name, lambda: None)()
                times[name].append(timed(command, payload, repo, env))
        advanced = json.loads(adv_state.read_text(encoding="utf-8"))
        assert advanced.get("offset") == adv_buffer.stat().st_size, "the capture did not advance"
        buffer = repo / ".memory/local/buffer/bench.jsonl"
        captured = len(buffer.read_text(encoding="utf-8").splitlines())
    base = statistics.median(times["python -c pass"])
    print(f"hook command: {' '.join(hook)}")
    print(f"capture benchmark: {args.runs} interleaved runs each, median wall time")
    bare = times["python -c pass"]
    for name, values in times.items():
        median = statistics.median(values)
        paired = statistics.median(v / b for v, b in zip(values, bare, strict=True))
        print(f"  {name:32s} {median * 1000:7.1f} ms   {median / base:5.2f}x   paired "
              f"{paired:4.2f}x   fastest {min(values) / min(bare):4.2f}x")  # fmt: skip
    for name, budget in (("hook command, small", 1.5), ("hook command, 1 MB output", 3.0)):
        ratio = statistics.median(times[name]) / base
        verdict = "within" if ratio <= budget else "OVER"
        print(f"{name}: {ratio:.2f}x ({verdict} the {budget}x budget)")
    print(f"{captured} observations written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
