"""Compaction and bulk import speed.

1. A 500-observation session (prompts, look-around commands, reads, 25 fail -> edit -> pass
   episodes, closing messages) compacted against a store already holding --store items.
   Target: a few seconds.
2. `mem import --format jsonl` of --items items. Target: tens of thousands in seconds.

    python benchmarks/compact_bench.py [--observations 500] [--store 2000] [--items 30000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memcli import api  # noqa: E402
from memcli.compact import compact_session, import_jsonl  # noqa: E402

FAIL = (
    "collected 40 items\n\ntests/test_{n}.py F\n\n    def test_{n}():\n>       assert load()\n"
    "E   KeyError: 'SETTING_{n}'\n=========== short test summary info ===========\n"
    "FAILED tests/test_{n}.py::test_{n}\n=========== 1 failed in 0.{n}s ==========="
)
PASS = (
    "collected 40 items\n\ntests/test_{n}.py ........\n=========== 40 passed in 1.02s ==========="
)


def observation(number: int, kind: str, **fields: object) -> dict[str, object]:
    record: dict[str, object] = {
        "id": f"o{number:08x}bench",
        "session": "bench",
        "project": "github.com/acme/bench",
        "branch": "main",
        "ts": f"2026-11-29T{10 + number // 3600:02d}:{number // 60 % 60:02d}:{number % 60:02d}Z",
        "agent": "claude-code",
        "event": "PostToolUse",
        "tool": None,
        "kind": kind,
        "summary": "",
        "ok": None,
        "exit_code": None,
        "files": [],
        "hashes": {},
        "input": "",
        "excerpt": "",
        "raw": f"raw/bench.jsonl#o{number:08x}bench",
    }
    record.update(fields)
    return record


def session(size: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    n = 0
    while len(out) < size:
        k = len(out)
        if n % 20 == 0:
            said = f"Make test_{n} pass again; we use pytest fixtures, never globals."
            out.append(observation(k, "prompt", excerpt=said, summary=said))
        elif n % 20 == 5:
            cmd = f"pytest tests/test_{n}.py -x"
            out.append(
                observation(
                    k,
                    "error",
                    tool="Bash",
                    input=cmd,
                    ok=False,
                    excerpt=FAIL.format(n=n),
                    summary=f"$ {cmd} -> failed",
                )
            )
            out.append(
                observation(
                    k + 1,
                    "edit",
                    tool="Edit",
                    files=[f"src/mod_{n}.py"],
                    ok=True,
                    summary=f"edit src/mod_{n}.py",
                )
            )
            out.append(
                observation(
                    k + 2,
                    "command",
                    tool="Bash",
                    input=cmd,
                    ok=True,
                    excerpt=PASS.format(n=n),
                    summary=f"$ {cmd} -> ok",
                )
            )
            said = (
                f"test_{n} failed because src/mod_{n}.py read SETTING_{n} before it was set. "
                f"mod_{n} now loads it lazily instead of at import time."
            )
            out.append(observation(k + 3, "conclusion", excerpt=said, summary=said))
        elif n % 3 == 0:
            out.append(observation(k, "read", tool="Read", files=[f"src/mod_{n}.py"], ok=True))
        else:
            cmd = ["git status", "ls src", f"cat src/mod_{n}.py", "grep -rn TODO src"][n % 4]
            out.append(
                observation(
                    k,
                    "command",
                    tool="Bash",
                    input=cmd,
                    ok=True,
                    excerpt="output line\n" * 30,
                    summary=f"$ {cmd} -> ok",
                )
            )
        n += 1
    return out[:size]


def fresh_repo(base: Path) -> api.Memory:
    root = base / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    api.init(root)
    return api.Memory.open(root)


def items_file(path: Path, count: int, prefix: str) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for n in range(count):
            row = {
                "id": f"{prefix}{n:06d}",
                "title": f"Commit {n}: fix resolver backtracking for package {n % 97}",
                "body": f"The resolver retried package {n % 97} too often.\n"
                f"Cap retries at {n % 7}.",
                "kind": ["decision", "pitfall", "convention", "env"][n % 4],
                "tags": ["resolver", f"pkg{n % 97}"],
                "created": "2024-01-01T00:00:00Z",
                "project": "github.com/acme/bench",
            }
            handle.write(json.dumps(row) + "\n")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--observations", type=int, default=500)
    parser.add_argument("--store", type=int, default=2000)
    parser.add_argument("--items", type=int, default=30_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        memory = fresh_repo(Path(tmp))
        import_jsonl(memory, items_file(Path(tmp) / "store.jsonl", args.store, "s"))
        for label, name in (("first compaction", "bench"), ("next session", "bench2")):
            buffer = memory.paths.buffers / f"{name}.jsonl"
            buffer.parent.mkdir(parents=True, exist_ok=True)
            lines = [{**o, "session": name} for o in session(args.observations)]
            buffer.write_text("".join(json.dumps(o) + "\n" for o in lines))
            start = time.perf_counter()
            result = compact_session(memory, name)
            elapsed = time.perf_counter() - start
            print(
                f"compact ({label}): {result.consumed} observations against {args.store} "
                f"items in {elapsed:.2f} s ({len(result.added)} added, "
                f"{len(result.updated)} updated)"
            )
        start = time.perf_counter()
        again = compact_session(memory, "bench")
        print(
            f"compact again (nothing pending): {time.perf_counter() - start:.3f} s, "
            f"{len(again.added)} added"
        )
    with tempfile.TemporaryDirectory() as tmp:
        memory = fresh_repo(Path(tmp))
        source = items_file(Path(tmp) / "items.jsonl", args.items, "i")
        start = time.perf_counter()
        imported = import_jsonl(memory, source)
        elapsed = time.perf_counter() - start
        rate = imported.added / elapsed if elapsed else 0.0
        print(f"import jsonl: {imported.added} items in {elapsed:.2f} s ({rate:,.0f} items/s)")
        start = time.perf_counter()
        again_import = import_jsonl(memory, source)
        print(
            f"import again: {again_import.unchanged} unchanged in "
            f"{time.perf_counter() - start:.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
