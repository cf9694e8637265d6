"""Knowledge quality on real sessions: what mem keeps from eight public agent sessions.

For each session under `benchmarks/sessions/` and each mem version (this checkout's `.venv`,
and the previous compactor, commit --baseline, installed into its own venv under `.bench/`):

1. a fresh git repository, `mem init`, `mem hooks install` (Claude Code, project scope);
2. the session replayed through exactly the hook commands that install wrote in
   `.claude/settings.json`, each run as Claude Code runs it (a shell command, the JSON payload
   on stdin, the repository as cwd, the transcript file growing as the session goes); what
   every `Stop` hook prints is recorded (a checkpoint's `{"decision": "block", "reason": ...}`);
3. once `SessionEnd` has run, `mem compact --all` until nothing is pending;
4. in a second repository, `mem import --format claude-code` of the transcript.

Scores against the session's gold lessons (`gold.yaml`, see `quality_score.py`): recall from
items, recall from items plus the Stop hooks' block reasons, import recall, and the share of
items that match no lesson. Prints a table and writes JSON (default `.bench/quality.json`).

    python benchmarks/quality_bench.py [--baseline 2e98dd6 | --no-baseline] [--sessions a,b]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from quality_replay import hook_steps, load_session  # noqa: E402
from quality_score import Score, item_text, load_gold, read_items, score  # noqa: E402

SESSIONS = HERE / "sessions"
CACHE = ROOT / ".bench"
DEFAULT_BASELINE = "2e98dd6"
HOOK_TIMEOUT = 60  # seconds; Claude Code's own default is 600


def current_bin() -> Path:
    venv = ROOT / ".venv" / "bin"
    return venv if (venv / "mem").exists() else Path(sys.executable).parent


def baseline_bin(commit: str) -> Path | None:
    """The bin folder of a venv holding mem at `commit` (built once, kept under .bench/)."""
    found = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if found.returncode != 0:
        print(f"baseline skipped: commit {commit} is not in this clone")
        return None
    full = found.stdout.strip()
    dest = CACHE / f"baseline-{full[:12]}"
    stamp, venv = dest / ".installed", dest / "venv"
    if stamp.exists():
        return venv / "bin"
    shutil.rmtree(dest, ignore_errors=True)
    source = dest / "src"
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", full], cwd=ROOT, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(source, filter="data")
    print(f"building the baseline venv ({full[:12]}) under {dest.relative_to(ROOT)} ...")
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "-e", str(source)],
        [str(venv / "bin" / "python"), "-m", "compileall", "-q", str(source / "memcli")],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"baseline skipped: {' '.join(step[:4])} failed: {done.stderr.strip()[-500:]}")
            return None
    stamp.touch()
    return venv / "bin"


# --- running mem as the hooks do -------------------------------------------------------


def environment(bin_dir: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", HOME=str(home))
    return env


def mem(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["mem", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip


def fresh_repo(path: Path, env: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=path, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "start"], cwd=path, check=True)
    done = mem(["init"], path, env)
    if done.returncode != 0:
        raise RuntimeError(f"mem init failed: {done.stderr.strip()}")
    return path


def handlers(settings: dict[str, Any], event: str, tool: str | None) -> Iterator[dict[str, Any]]:
    """The command handlers Claude Code would run for this event (and tool)."""
    for group in (settings.get("hooks") or {}).get(event, []):
        matcher = group.get("matcher") or "*"
        if matcher != "*" and not re.fullmatch(matcher, tool or ""):
            continue
        for handler in group.get("hooks", []):
            if handler.get("type") == "command":
                yield handler


def run_hook(
    handler: dict[str, Any], payload: dict[str, Any], cwd: Path, env: dict[str, str]
) -> str:
    try:
        done = subprocess.run(
            handler["command"], shell=True, input=json.dumps(payload), cwd=cwd, env=env,
            capture_output=True, text=True, check=False,
            timeout=min(float(handler.get("timeout") or HOOK_TIMEOUT), HOOK_TIMEOUT),
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return ""
    return done.stdout


def block_reason(stdout: str) -> str | None:
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    if isinstance(data, dict) and data.get("decision") == "block":
        return str(data.get("reason", ""))
    return None


def compact_until_done(repo: Path, env: dict[str, str]) -> None:
    """Wait out the detached session-end compaction, then compact whatever is left."""
    for _ in range(600):
        done = mem(["compact", "--all", "--json"], repo, env)
        try:
            results = json.loads(done.stdout or "[]")
        except ValueError:
            return
        if done.returncode != 0 or not any(r.get("skipped") for r in results):
            return
        time.sleep(0.2)


def replay(session: Path, work: Path, env: dict[str, str]) -> dict[str, Any]:
    """Replay one session through the installed hooks; the items and what Stop showed."""
    repo = fresh_repo(work / "hooks", env)
    installed = mem(["hooks", "install", "--agent", "claude-code"], repo, env)
    if installed.returncode != 0:
        raise RuntimeError(f"mem hooks install failed: {installed.stderr.strip()}")
    settings = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    records = load_session(session)
    session_id = str(uuid.uuid5(uuid.NAMESPACE_URL, session.parent.name))
    transcript = Path(env["HOME"]) / ".claude" / "projects" / "-bench" / f"{session_id}.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    reasons: list[str] = []
    stops = blocks_when_active = 0
    with open(transcript, "w", encoding="utf-8") as live:
        written = 0
        for step in hook_steps(records, session_id, str(transcript), str(repo)):
            for record in records[written : step.lines]:
                live.write(json.dumps(record) + "\n")
            written = max(written, step.lines)
            live.flush()
            for handler in handlers(settings, step.event, step.payload.get("tool_name")):
                stdout = run_hook(handler, step.payload, repo, env)
                reason = block_reason(stdout) if step.event == "Stop" else None
                if reason is None:
                    continue
                reasons.append(reason)
                # Claude Code would let the model continue, then run Stop again, flagged.
                again = {**step.payload, "stop_hook_active": True}
                blocks_when_active += block_reason(run_hook(handler, again, repo, env)) is not None
            stops += step.event == "Stop"
    compact_until_done(repo, env)
    return {
        "items": read_items(repo / ".memory"),
        "leaks": leaked_files(repo / ".memory"),
        "reasons": reasons,
        "stops": stops,
        "blocks_when_active": blocks_when_active,
    }


def _record(line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def leaked_files(store: Path) -> list[str]:
    """Files under `.memory/` holding a value this checkout's masking would still mask (JSON
    lines are masked value by value, as capture writes them; other files as text)."""
    try:
        from memcli.privacy.masking import mask, mask_obj
    except ImportError:  # pragma: no cover - a checkout from before memcli/privacy/
        try:
            from memcli.capture.masking import mask, mask_obj  # type: ignore[no-redef]
        except ImportError:  # pragma: no cover - the bench runs in the project's venv
            return []
    leaks = []
    for path in sorted(p for p in store.rglob("*") if p.is_file()):
        if path.name == "regex.cache" or "index" in path.relative_to(store).parts:
            continue  # compiled masking rules and the search index, not captured text
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".jsonl":
            values = [_record(line) for line in text.splitlines()]
            leaked = any(mask_obj(v, mask_emails=False) != v for v in values if v is not None)
        else:
            leaked = mask(text, mask_emails=False) != text
        if leaked:
            leaks.append(str(path.relative_to(store)))
    return leaks


def import_items(session: Path, work: Path, env: dict[str, str]) -> list[dict[str, Any]] | None:
    if session.suffix != ".jsonl":
        return None  # mem import has no format for this agent's trajectories
    repo = fresh_repo(work / "import", env)
    done = mem(["import", "--format", "claude-code", str(session)], repo, env)
    if done.returncode != 0:
        print(f"  import failed: {(done.stderr or done.stdout).strip()[:200]}")
    return read_items(repo / ".memory")


# --- the benchmark -----------------------------------------------------------------------


def session_file(folder: Path) -> Path:
    for name in ("transcript.jsonl", "trajectory.json"):
        if (folder / name).exists():
            return folder / name
    raise FileNotFoundError(f"{folder}: no transcript.jsonl or trajectory.json")


def measure(folder: Path, bin_dir: Path) -> tuple[Score, dict[str, Any]]:
    lessons = load_gold(folder / "gold.yaml")
    session = session_file(folder)
    with tempfile.TemporaryDirectory(prefix="mem-quality-") as tmp:
        work = Path(tmp)
        (work / "home").mkdir()
        env = environment(bin_dir, work / "home")
        started = time.perf_counter()
        replayed = replay(session, work, env)
        imported = import_items(session, work, env)
        seconds = time.perf_counter() - started
    texts = [item_text(item) for item in replayed["items"]]
    result = score(lessons, texts, replayed["reasons"])
    if imported is not None:
        result.imported_items = len(imported)
        result.from_import = score(lessons, [item_text(i) for i in imported], []).from_items
    detail = {
        "seconds": round(seconds, 1),
        "stops": replayed["stops"],
        "checkpoint_blocks": len(replayed["reasons"]),
        "blocks_when_stop_hook_active": replayed["blocks_when_active"],
        "titles": [str(item.get("title", "")) for item in replayed["items"]],
        "reasons": replayed["reasons"],
        "files_with_secrets": replayed["leaks"],
        "imported_titles": [str(i.get("title", "")) for i in imported or []],
    }
    return result, detail


def by_kind(scores: list[Score]) -> dict[str, list[int]]:
    """Per lesson kind: [lessons, matched by items, matched with the checkpoint]."""
    counts: dict[str, list[int]] = {}
    for s in scores:
        for lesson, kind in s.kinds:
            row = counts.setdefault(kind, [0, 0, 0])
            row[0] += 1
            row[1] += lesson in s.matched
            row[2] += lesson in s.matched_with_checkpoint
    return dict(sorted(counts.items()))


def totals(scores: list[Score]) -> dict[str, Any]:
    items = sum(s.items for s in scores)
    unmatched = sum(s.unmatched_items for s in scores)
    importable = [s for s in scores if s.from_import is not None]
    return {
        "lessons": sum(s.lessons for s in scores),
        "from_items": sum(s.from_items for s in scores),
        "with_checkpoint": sum(s.with_checkpoint for s in scores),
        "items": items,
        "unmatched_items": unmatched,
        "unmatched_share": round(unmatched / items, 3) if items else None,
        "import_lessons": sum(s.lessons for s in importable),
        "from_import": sum(s.from_import or 0 for s in importable),
        "imported_items": sum(s.imported_items for s in importable),
        "by_kind": by_kind(scores),
    }


def table(names: list[str], runs: dict[str, list[Score]]) -> str:
    labels = list(runs)
    head = "| session | lessons | " + " | ".join(
        f"{label}: items / recall / +checkpoint / unmatched / import" for label in labels
    )
    lines = [head + " |", "|---|---|" + "---|" * len(labels)]

    def cells(s: Score | dict[str, Any]) -> str:
        get = s.get if isinstance(s, dict) else lambda key: getattr(s, key)
        imported = "n/a" if get("from_import") is None else f"{get('from_import')}"
        return (
            f"{get('items')} / {get('from_items')} / {get('with_checkpoint')} / "
            f"{get('unmatched_items')} / {imported}"
        )

    for index, name in enumerate(names):
        row = [name, str(runs[labels[0]][index].lessons)]
        lines.append("| " + " | ".join(row + [cells(runs[lb][index]) for lb in labels]) + " |")
    summed = {label: totals(runs[label]) for label in labels}
    first = summed[labels[0]]
    row = ["**all**", str(first["lessons"])]
    lines.append("| " + " | ".join(row + [cells(summed[lb]) for lb in labels]) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="commit of the old compactor")
    parser.add_argument("--no-baseline", action="store_true", help="measure this checkout only")
    parser.add_argument("--sessions", default="", help="comma-separated folder names (default all)")
    parser.add_argument("--out", type=Path, default=CACHE / "quality.json")
    args = parser.parse_args()
    names = sorted(p.name for p in SESSIONS.iterdir() if (p / "gold.yaml").exists())
    if args.sessions:
        names = [n for n in names if n in args.sessions.split(",")]
    if not (current_bin() / "mem").exists():
        print(
            "quality bench skipped: no `mem` console script (run `make bench`, which installs it)"
        )
        return 0
    versions = {"current": current_bin()}
    if not args.no_baseline:
        old = baseline_bin(args.baseline)
        if old is not None:
            versions = {f"old ({args.baseline})": old, **versions}
    runs: dict[str, list[Score]] = {label: [] for label in versions}
    details: dict[str, dict[str, Any]] = {label: {} for label in versions}
    for name in names:
        for label, bin_dir in versions.items():
            result, detail = measure(SESSIONS / name, bin_dir)
            runs[label].append(result)
            details[label][name] = {**result.as_json(), **detail}
            print(
                f"{name} [{label}]: {result.items} items, recall {result.from_items}/"
                f"{result.lessons}, +checkpoint {result.with_checkpoint}, import "
                f"{result.from_import}, {len(detail['files_with_secrets'])} files with secrets, "
                f"{detail['seconds']} s",
                flush=True,
            )
    print()
    print(table(names, runs))
    for label in versions:
        t = totals(runs[label])
        share = "n/a" if t["unmatched_share"] is None else f"{t['unmatched_share']:.0%}"
        print(
            f"\n{label}: recall from items {t['from_items']}/{t['lessons']}, with checkpoint "
            f"{t['with_checkpoint']}/{t['lessons']}, items matching no lesson "
            f"{t['unmatched_items']}/{t['items']} ({share}), import "
            f"{t['from_import']}/{t['import_lessons']} ({t['imported_items']} items)"
        )
        kinds = ", ".join(f"{k} {r[1]}/{r[0]} ({r[2]})" for k, r in t["by_kind"].items())
        print(f"  by kind, items (with checkpoint): {kinds}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "versions": {label: str(path) for label, path in versions.items()},
        "totals": {label: totals(runs[label]) for label in versions},
        "sessions": details,
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nJSON: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
