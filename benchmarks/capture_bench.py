"""Capture's whole-process wall time as a ratio to a bare `python -c pass`.

Both are started the same way by the same interpreter, interleaved in one run, so machine
noise hits both alike; the ratio is the number to read, not the milliseconds. Target: 1.5x.

    python benchmarks/capture_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
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


def timed(command: list[str], stdin: bytes, cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=stdin, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    python = sys.executable
    mem = shutil.which("mem", path=str(Path(python).parent)) or "mem"
    # Installed wheels ship compiled bytecode; make the source checkout match.
    subprocess.run([python, "-m", "compileall", "-q", str(ROOT / "memcli")], check=True)
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run(
            ["git", "-C", str(repo), "remote", "add", "origin", "git@github.com:acme/shop.git"],
            check=True,
        )
        subprocess.run([mem, "init"], cwd=repo, check=True, stdout=subprocess.DEVNULL)
        payload = json.dumps({**PAYLOAD, "cwd": str(repo)}).encode()
        contenders = {
            "python -c pass": [python, "-c", "pass"],
            "mem capture": [mem, "capture"],
            "python -m memcli capture": [python, "-m", "memcli", "capture"],
        }
        for command in contenders.values():  # warm-up: caches, regex cache file
            timed(command, payload, repo)
        times: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(args.runs):
            for name, command in contenders.items():
                times[name].append(timed(command, payload, repo))
        buffer = repo / ".memory/local/buffer/bench.jsonl"
        captured = len(buffer.read_text(encoding="utf-8").splitlines())
    base = statistics.median(times["python -c pass"])
    print(f"capture benchmark: {args.runs} interleaved runs each, median wall time")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:28s} {median * 1000:7.1f} ms   {median / base:5.2f}x")
    ratio = statistics.median(times["mem capture"]) / base
    verdict = "within" if ratio <= 1.5 else "OVER"
    print(
        f"capture ratio {ratio:.2f}x ({verdict} the 1.5x budget); {captured} observations written"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
