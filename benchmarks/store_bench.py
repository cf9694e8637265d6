"""Store commands at scale, as ratios against T0 measured in the same run.

T0 is one Python process that reads and parses every item file of the store with PyYAML's C
loader (``yaml.CSafeLoader``): the floor any command that must look at every item pays.
Every command runs through the installed console script (``.venv/bin/mem``), as a user or a
hook runs it, in a real git repository:

- cold ``mem index --format claude`` in a fresh ``git clone`` (what the SessionStart hook
  meets first), and whether it answered in full or from part of the store;
- cold ``mem lint`` (no parse cache) and cold ``mem reindex`` (fresh clone);
- warm ``mem stats`` and ``mem list --json`` (parse cache in place);
- ``mem search`` on a fresh index, and the first search after one item file was edited;
- ``mem prune --check`` (parse cache in place), with ``--only prune``.

``--only`` measures a subset (``index,reindex,lint,warm,search,prune``). ``--against DIR``
(a folder holding another ``memcli``, e.g. ``git archive main memcli | tar -x -C DIR``) runs
that version too (``PYTHONPATH=DIR``), interleaved with this one in the same runs, so both
meet the same load; CPU seconds (the command's and its children's) are reported beside wall.

Stores are made with ``mem import --format jsonl``: the benchmark items of ``bench/pip``
(``$MEM_BENCH_DIR``), repeated with new ids to reach the size, or synthetic items when that
folder is absent.

    python benchmarks/store_bench.py [--sizes 1000,4000,16000] [--runs 3]
        [--only index,reindex] [--against DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
MEM = str(BIN / "mem")
PROJECT = "github.com/acme/bench"
HOOK_TIMEOUT = 10.0
T0_SCRIPT = """
import os, sys, yaml
folder = sys.argv[1]
for name in sorted(os.listdir(folder)):
    with open(os.path.join(folder, name), "rb") as handle:
        yaml.load(handle.read(), Loader=yaml.CSafeLoader)
"""


def bench_items() -> list[dict[str, object]]:
    candidates = [
        ROOT.parent / "shared" / "bench" / "pip",
        ROOT.parent.parent / "shared" / "bench" / "pip",
    ]
    found = [Path(os.environ["MEM_BENCH_DIR"])] if os.environ.get("MEM_BENCH_DIR") else candidates
    source = next((f / "items.jsonl" for f in found if (f / "items.jsonl").is_file()), None)
    if source is not None:
        with open(source, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]
    return [
        {
            "id": f"synthetic{n:06d}",
            "kind": ["decision", "pitfall", "convention", "env"][n % 4],
            "title": f"Resolver backtracking for package {n % 97} ({n})",
            "body": f"The resolver retried package {n % 97} too often; cap retries at {n % 7}.",
            "created": "2025-01-01T00:00:00Z",
        }
        for n in range(5000)
    ]


GROUPS = ("index", "reindex", "lint", "warm", "search", "prune")
CPU: dict[str, float] = {"last": 0.0}  # CPU seconds of the last command run


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, check=False, env=env or os.environ.copy()
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU["last"] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    checks = args[1:2] in (["lint"], ["prune"])
    if result.returncode not in (0, 1) or (result.returncode == 1 and not checks):
        raise SystemExit(f"{' '.join(args)} failed ({result.returncode}): {result.stderr}")
    return elapsed, result.stdout


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def make_origin(base: Path, size: int, rows: list[dict[str, object]]) -> Path:
    origin = base / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    subprocess.run([MEM, "init"], cwd=origin, check=True, capture_output=True)
    config = origin / ".memory" / "config.yaml"
    # `mem init` writes a generated identity (older versions: null); the items are filed
    # under PROJECT, so the config must name it or every command sees an empty scope.
    text, count = re.subn(
        r"(?m)^  project: .*$", f"  project: {PROJECT}", config.read_text(), count=1
    )
    if count != 1:
        raise SystemExit(f"no project line in {config}")
    config.write_text(text, encoding="utf-8")
    source = base / "items.jsonl"
    with open(source, "w", encoding="utf-8") as handle:
        for n in range(size):
            row = dict(rows[n % len(rows)])
            if n >= len(rows):
                row["id"] = f"{str(row['id'])[:6]}{n:06x}"
            row["project"] = PROJECT
            handle.write(json.dumps(row) + "\n")
    run([MEM, "import", "--format", "jsonl", str(source)], origin)
    git(origin, "add", "-A")
    git(origin, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "store")
    return origin


def clone(origin: Path, base: Path, name: str) -> Path:
    target = base / name
    if target.exists():
        shutil.rmtree(target)
    git(base, "clone", "-q", "--no-local", str(origin), str(target))
    time.sleep(0.2)  # out of the parse cache's racy window, as a clone a moment ago is
    return target


def t0(repo: Path) -> float:
    seconds, _ = run([sys.executable, "-c", T0_SCRIPT, str(repo / ".memory" / "items")], repo)
    return seconds


def edit_one(repo: Path, number: int) -> None:
    """Edit one item file as `mem edit`, git and most editors do: a new file renamed over the
    old one. (An edit in place, which leaves the folder's mtime alone, is seen by the full
    check: at once by `mem reindex`, else within a minute; see docs/benchmarks.md.)"""
    # item files only: `.gitkeep` sorts first, and replacing it changes nothing to index
    items = sorted(p for p in (repo / ".memory" / "items").iterdir() if p.suffix == ".yaml")
    path = items[(number * 7919) % len(items)]
    text = path.read_text(encoding="utf-8")
    temporary = path.with_name(".edit.tmp")
    temporary.write_text(text.replace("title: ", f"title: edited {number} ", 1), encoding="utf-8")
    os.replace(temporary, path)


def measure(
    size: int,
    runs: int,
    rows: list[dict[str, object]],
    groups: set[str],
    codes: dict[str, dict[str, str]],
) -> dict[str, object]:
    """Medians of every figure, per code (this tree, and ``against``'s when given): each run
    measures every code in turn, so both meet the same load."""
    with tempfile.TemporaryDirectory(prefix="mem-scale-") as tmp:
        base = Path(tmp)
        origin = make_origin(base, size, rows)
        figures: dict[str, list[tuple[float, float]]] = {}
        answered: dict[str, list[bool]] = {}

        for _ in range(runs):
            for code, env in codes.items():

                def add(name: str, seconds: float, code: str = code) -> None:
                    figures.setdefault(f"{code}\0{name}", []).append((seconds, CPU["last"]))

                repo = clone(origin, base, "clone")
                add("T0", t0(repo))
                if "index" in groups:
                    seconds, out = run([MEM, "index", "--format", "claude"], repo, env)
                    add("cold index --format claude", seconds)
                    hook = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
                    full = "Still indexing" not in hook and bool(hook)
                    answered.setdefault(code, []).append(full)
                    # the background build (if any) finishes before the next figure
                    _wait_for_index(repo)
                if groups & {"lint", "warm", "prune"}:
                    repo = clone(origin, base, "clone")
                    if "lint" in groups:
                        add("cold lint", run([MEM, "lint"], repo, env)[0])
                    if "warm" in groups:
                        add("warm stats", run([MEM, "stats"], repo, env)[0])
                        add("warm list --json", run([MEM, "list", "--json"], repo, env)[0])
                    if "prune" in groups:
                        run([MEM, "prune", "--check", "--json"], repo, env)  # the local caches
                        add("prune --check", run([MEM, "prune", "--check", "--json"], repo, env)[0])
                    add("T0", t0(repo))
                if "reindex" in groups:
                    repo = clone(origin, base, "clone")
                    add("cold reindex", run([MEM, "reindex"], repo, env)[0])
        if "search" in groups:
            for code, env in codes.items():

                def add_search(name: str, seconds: float, code: str = code) -> None:
                    figures.setdefault(f"{code}\0{name}", []).append((seconds, CPU["last"]))

                repo = clone(origin, base, "clone")
                run([MEM, "search", "resolver"], repo, env)
                for number in range(runs):
                    query = [MEM, "search", "wheel cache"]
                    add_search("search, fresh index", run(query, repo, env)[0])
                    edit_one(repo, number)
                    add_search("search after one edit", run(query, repo, env)[0])
                    add_search("search after that", run(query, repo, env)[0])
        medians = {
            name: (
                statistics.median(w for w, _ in values),
                statistics.median(c for _, c in values),
            )
            for name, values in figures.items()
        }
        return {"size": size, "medians": medians, "answered_in_full": answered}


def _wait_for_index(repo: Path) -> None:
    index = repo / ".memory" / "local" / "index" / "index.bin"
    for _ in range(1200):
        if index.exists():
            return
        time.sleep(0.1)


BUDGETS = {  # ratio to T0 the issue allows (search: to a search on a fresh index)
    "cold index --format claude": 2.0,
    "cold lint": 1.5,
    "warm stats": 1.0,
    "warm list --json": 1.0,
    "cold reindex": 2.0,
    "prune --check": 3.0,
}


def report(result: dict[str, object], codes: list[str]) -> list[str]:
    medians: dict[str, tuple[float, float]] = result["medians"]  # type: ignore[assignment]
    t0_wall, t0_cpu = statistics.median([medians[f"{c}\0T0"][0] for c in codes]), 0.0
    t0_cpu = statistics.median([medians[f"{c}\0T0"][1] for c in codes])
    lines = [f"### {result['size']:,} items (T0 = {t0_wall:.2f} s wall, {t0_cpu:.2f} s CPU)", ""]
    lines.append("| code | command | seconds | ratio | CPU s | CPU ratio | budget |")
    lines.append("|---|---|---|---|---|---|---|")
    for key, (seconds, cpu) in medians.items():
        code, _, name = key.partition("\0")
        if name == "T0":
            continue
        if name.startswith("search"):
            fresh = medians[f"{code}\0search, fresh index"][0]
            ratio, budget = seconds / fresh, "1.5x fresh" if "one edit" in name else ""
            shown, cpu_shown = f"{ratio:.2f}x fresh", ""
        else:
            budget = f"{BUDGETS[name]:.1f}x T0" if name in BUDGETS else ""
            shown, cpu_shown = f"{seconds / t0_wall:.2f}x T0", f"{cpu / t0_cpu:.2f}x"
        lines.append(
            f"| {code} | {name} | {seconds:.2f} | {shown} | {cpu:.2f} | {cpu_shown} | {budget} |"
        )
    lines.append("")
    for code, full in result["answered_in_full"].items():  # type: ignore[attr-defined]
        lines.append(
            f"{code}: cold `mem index` answered in full {sum(full)} of {len(full)} times "
            f"(otherwise from part of the store, finishing in the background); hook timeout "
            f"{HOOK_TIMEOUT:.0f} s"
        )
    lines.append(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,4000,16000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default=",".join(GROUPS), help=f"of {','.join(GROUPS)}")
    parser.add_argument(
        "--against",
        type=Path,
        help="a folder holding another memcli: measured too, interleaved in the same runs",
    )
    args = parser.parse_args()
    groups = set(args.only.split(","))
    if not groups <= set(GROUPS):
        parser.error(f"--only: choose from {','.join(GROUPS)}")
    codes = {"branch": os.environ.copy()}
    folders = [ROOT / "memcli"]
    if args.against is not None:
        codes = {"against": {**os.environ, "PYTHONPATH": str(args.against.resolve())}, **codes}
        folders.append(args.against.resolve() / "memcli")
    for folder in folders:  # as an installed wheel would be (this environment may not write .pyc)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True)
    rows = bench_items()
    for size in (int(s) for s in args.sizes.split(",")):
        result = measure(size, args.runs, rows, groups, codes)
        print("\n".join(report(result, list(codes))) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
