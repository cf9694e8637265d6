"""Retrieval quality and index build times on a real project's memory (bench/pip).

Writes the benchmark's items as a real ``.memory/`` store (one YAML file per item) in a
temporary git repository, builds the index through mem's own code, then measures recall@1/5/10
of ``memcli.retrieval.search.search`` as shipped (default settings, the code path of
`mem search`) beside SQLite FTS5 with bm25 ranking, query terms OR-ed (as
``bench/baselines.py`` measures it), in the same run. Also: cold, no-op and one-change build
times, and in-process query latency.

    python benchmarks/retrieval_bench.py [BENCH_DIR] [--keep DIR]

BENCH_DIR defaults to ``$MEM_BENCH_DIR`` or ``../shared/bench/pip`` relative to the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memcli import api, scope, timeutil  # noqa: E402
from memcli.paths import StorePaths  # noqa: E402
from memcli.retrieval import index_builder, loader  # noqa: E402
from memcli.retrieval.search import search  # noqa: E402

REMOTE = "https://github.com/pypa/pip.git"


def default_bench_dir() -> Path:
    env = os.environ.get("MEM_BENCH_DIR")
    return Path(env) if env else (ROOT / ".." / "shared" / "bench" / "pip").resolve()


def load(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    with open(folder / "items.jsonl", encoding="utf-8") as handle:
        items = [json.loads(line) for line in handle]
    with open(folder / "queries.jsonl", encoding="utf-8") as handle:
        queries = [json.loads(line) for line in handle]
    return items, queries


def _yaml_string(text: str) -> str:
    """A YAML double-quoted scalar: JSON's escaping, plus the characters YAML may not carry raw."""
    out = json.dumps(text, ensure_ascii=False)
    return "".join(
        f"\\u{ord(ch):04x}"
        if 0x7F <= ord(ch) <= 0x9F or 0xD800 <= ord(ch) <= 0xDFFF or ord(ch) in (0xFFFE, 0xFFFF)
        else ch
        for ch in out
    )


def item_yaml(item: dict[str, Any], project: str) -> str:
    """One item file, as mem writes them (the same keys, the same order)."""
    stamp = timeutil.format_time(timeutil.parse_time(item["created"]))
    body = item["body"].strip() or "-"  # mem requires a body; "-" carries no term
    return (
        f"id: {_yaml_string(item['id'])}\n"
        f"kind: {item['kind']}\n"
        f"title: {_yaml_string(item['title'].strip())}\n"
        f"body: {_yaml_string(body)}\n"
        f"scope:\n  project: {_yaml_string(project)}\n"
        "importance: 0.5\nconfidence: assumed\n"
        f"created: '{stamp}'\nupdated: '{stamp}'\n"
        "source:\n  compactor: bench\n  version: 0.1.0\n"
    )


def make_store(folder: Path, items: list[dict[str, Any]]) -> Path:
    root = folder / "pip"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", REMOTE], check=True)
    api.init(root)
    paths = StorePaths(root)
    project = scope.resolve(root, paths.scope_cache)["project"] or ""
    for item in items:
        paths.item_file(item["id"]).write_text(item_yaml(item, project), encoding="utf-8")
    return root


def fts5(items: list[dict[str, Any]], queries: list[dict[str, Any]], k: int) -> list[list[str]]:
    db = sqlite3.connect(":memory:")
    db.execute("create virtual table t using fts5(id unindexed, body)")
    db.executemany(
        "insert into t values (?,?)", [(i["id"], i["title"] + "\n" + i["body"]) for i in items]
    )
    out = []
    for q in queries:
        toks = set(re.findall(r"\w\w+", q["query"].lower()))
        match = " OR ".join(f'"{t}"' for t in toks) or '""'
        rows = db.execute(
            "select id from t where t match ? order by bm25(t) limit ?", (match, k)
        ).fetchall()
        out.append([r[0] for r in rows])
    return out


def recall(ranked: list[list[str]], queries: list[dict[str, Any]], k: int) -> float:
    hits = sum(bool(set(r[:k]) & set(q["relevant"])) for r, q in zip(ranked, queries, strict=True))
    return hits / len(queries)


FTS_SCRIPT = """
import re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
toks = set(re.findall(r"\\w\\w+", sys.argv[2].lower()))
match = " OR ".join(f'"{t}"' for t in toks) or '""'
for row in db.execute("select id from t where t match ? order by bm25(t) limit 10", (match,)):
    print(row[0])
"""
SEARCH_SCRIPT = """
import sys
from memcli.retrieval.search import search
for hit in search(sys.argv[1], sys.argv[2], limit=10):
    print(hit.id, hit.score, hit.title)
"""
INDEX_SCRIPT = """
import sys
from memcli.retrieval.layer1 import layer1_index, render_claude
print(render_claude(layer1_index(sys.argv[1])))
"""


def latency(root: Path, items: list[dict[str, Any]], queries: list[str], runs: int) -> None:
    """Whole-process wall time, interleaved, as ratios to the FTS5 one-shot script."""
    database = root.parent / "fts.db"
    db = sqlite3.connect(database)
    db.execute("create virtual table t using fts5(id unindexed, body)")
    db.executemany(
        "insert into t values (?,?)", [(i["id"], i["title"] + "\n" + i["body"]) for i in items]
    )
    db.commit()
    db.close()
    python = sys.executable
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    contenders = {
        "FTS5 one-shot script": lambda q: [python, "-c", FTS_SCRIPT, str(database), q],
        "search (library, one process)": lambda q: [python, "-c", SEARCH_SCRIPT, str(root), q],
        "layer-1 index (library)": lambda _q: [python, "-c", INDEX_SCRIPT, str(root)],
    }
    mem = Path(python).parent / "mem"
    probe = subprocess.run([str(mem), "search", "--help"], capture_output=True, check=False)
    if mem.exists() and probe.returncode == 0:
        contenders["mem search"] = lambda q: [str(mem), "search", "--json", "--", q]
        contenders["mem index --format claude"] = lambda _q: [
            str(mem),
            "index",
            "--format",
            "claude",
        ]
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for n in range(runs):
        query = queries[n % len(queries)]
        for name, command in contenders.items():
            start = time.perf_counter()
            subprocess.run(command(query), cwd=root, env=env, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["FTS5 one-shot script"])
    print(f"\nwhole-process latency, {runs} interleaved runs each (median; target <= 2x FTS5)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<34} {median * 1000:8.1f} ms  {median / base:5.2f}x")


def timed(action: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bench_dir", nargs="?", type=Path, default=None)
    parser.add_argument("--keep", type=Path, help="build the store here and keep it")
    parser.add_argument("--runs", type=int, default=30, help="latency runs (0: skip)")
    args = parser.parse_args()
    bench = args.bench_dir or default_bench_dir()
    if not (bench / "items.jsonl").is_file():
        print(f"no benchmark at {bench} (give a path or set MEM_BENCH_DIR)", file=sys.stderr)
        return 2
    items, queries = load(bench)
    # Installed wheels ship compiled bytecode; make the source checkout match, so that the
    # whole-process timings do not include compiling mem's own modules.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "memcli")], check=True)
    with tempfile.TemporaryDirectory() as scratch:
        base = args.keep or Path(scratch)
        base.mkdir(parents=True, exist_ok=True)
        write_s, root = timed(lambda: make_store(base, items))
        paths = StorePaths(root)
        time.sleep(loader.RACY_NS / 1e9)  # files older than the racy window, as in real use
        cold_s, cold = timed(lambda: index_builder.build(paths))
        if cold.problems:
            print(f"{len(cold.problems)} unreadable item files, e.g. {cold.problems[0]}")
        noop_s, noop = timed(lambda: index_builder.build(paths))
        check_full_s, _ = timed(lambda: loader.open_index(paths, check="full").close())
        check_quick_s, _ = timed(lambda: loader.open_index(paths).close())
        victim = paths.item_file(items[len(items) // 2]["id"])
        original = victim.read_text(encoding="utf-8")
        victim.write_text(original.replace("\nbody: ", "\nbody: edited ", 1), encoding="utf-8")
        one_s, one = timed(lambda: index_builder.build(paths))
        victim.write_text(original, encoding="utf-8")
        index_builder.build(paths)

        latencies: list[float] = []
        ranked: list[list[str]] = []
        for q in queries:
            seconds, hits = timed(lambda q=q: search(root, q["query"], limit=10))
            latencies.append(seconds)
            ranked.append([h.id for h in hits])
        fts_s, fts_ranked = timed(lambda: fts5(items, queries, 10))
        report(bench, items, queries, ranked, fts_ranked, latencies, fts_s)
        print()
        print(f"store written (YAML files)      {write_s:8.2f} s")
        print(f"index build, cold               {cold_s:8.2f} s  ({cold.parsed} files parsed)")
        counts = f"({noop.parsed} parsed, {noop.hashed} hashed)"
        print(f"index build, no-op              {noop_s:8.3f} s  {counts}")
        print(f"freshness check, full (stat)    {check_full_s * 1000:8.1f} ms")
        print(f"freshness check, quick          {check_quick_s * 1000:8.1f} ms")
        print(f"index build, one item changed   {one_s:8.3f} s  ({one.parsed} parsed)")
        if args.runs > 0:
            latency(root, items, [q["query"] for q in queries], args.runs)
    return 0


def report(
    bench: Path,
    items: list[dict[str, Any]],
    queries: list[dict[str, Any]],
    ranked: list[list[str]],
    fts_ranked: list[list[str]],
    latencies: list[float],
    fts_s: float,
) -> None:

    print(f"retrieval benchmark: {bench} ({len(items)} items, {len(queries)} queries)")
    print(f"{'retriever':<34} {'recall@1':>9} {'recall@5':>9} {'recall@10':>10}")
    rows = (("mem search (defaults)", ranked), ("SQLite FTS5 bm25, terms OR-ed", fts_ranked))
    for name, result in rows:
        print(
            f"{name:<34} {recall(result, queries, 1):>9.3f} {recall(result, queries, 5):>9.3f}"
            f" {recall(result, queries, 10):>10.3f}"
        )
    lat = sorted(latencies)
    print(
        f"\nsearch in-process: median {statistics.median(lat) * 1000:.1f} ms, "
        f"p90 {lat[int(len(lat) * 0.9)] * 1000:.1f} ms (freshness check, index load, "
        f"scoring, snippets, receipt); FTS5 in-process: {fts_s / len(queries) * 1000:.1f} ms "
        "a query including its table load"
    )


if __name__ == "__main__":
    sys.exit(main())
