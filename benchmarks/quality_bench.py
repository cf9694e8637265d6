"""Knowledge quality on real sessions: what mem keeps from public agent sessions.

For each session under `benchmarks/sessions/` and each mem version (this checkout's `.venv`,
and the previous compactor, commit --baseline, installed into its own venv under `.bench/`):

1. a fresh git repository, `mem init`, `mem hooks install` (project scope) for the agent whose
   hooks replay the session: Codex for a rollout, Claude Code for everything else;
2. the session replayed through exactly the hook commands that install wrote
   (`.claude/settings.json`, `.codex/hooks.json`), each run as the agent runs it (a shell
   command, the JSON payload on stdin, the repository as cwd, the transcript file growing as the
   session goes); what every `Stop` hook prints is recorded (a checkpoint's
   `{"decision": "block", "reason": ...}`);
3. at the end, `mem compact --all` until nothing is pending;
4. in a second repository, `mem import` of the session file (`--format claude-code`, `codex`,
   `pi`, `swe-agent` or `openhands`: see IMPORT_FORMATS).

Scores against the session's gold lessons (`gold.yaml`, see `quality_score.py`): recall from
items, recall from items plus the Stop hooks' block reasons, import recall, and the share of
items that match no lesson, per session, per set (`sessions/sets.yaml`: "tuned", the sessions
the rules were written against; "fresh", held out; "blind", held out and never looked at, for
measurement only) and over all. Prints a table and writes JSON (default `.bench/quality.json`).

    python benchmarks/quality_bench.py [--baseline 2e98dd6 | --no-baseline]
        [--sessions a,b] [--set tuned|fresh|blind]
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

from quality_replay import (  # noqa: E402
    Step,
    codex_session_id,
    codex_steps,
    hook_steps,
    load_session,
    session_agent,
)
from quality_report import SETS, session_sets, summary, table, totals_by_set  # noqa: E402
from quality_score import (  # noqa: E402
    Score,
    item_text,
    load_gold,
    read_items,
    score,
    unmatched_titles,
)

SESSIONS = HERE / "sessions"
CACHE = ROOT / ".bench"
DEFAULT_BASELINE = "2e98dd6"
HOOK_TIMEOUT = 60  # seconds; Claude Code's own default is 600
SETTINGS = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json"}
# How `mem import` reads each kind of session file (a baseline without the format gets none).
IMPORT_FORMATS = {
    "transcript.jsonl": "claude-code",
    "rollout.jsonl": "codex",
    "pi-session.jsonl": "pi",
    "trajectory.traj": "swe-agent",
    "trajectory.json": "openhands",
}
SESSION_FILES = (
    "transcript.jsonl",
    "trajectory.json",
    "trajectory.traj",
    "pi-session.jsonl",
    "rollout.jsonl",
)


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
    agent = session_agent(session)
    repo = fresh_repo(work / "hooks", env)
    installed = mem(["hooks", "install", "--agent", agent], repo, env)
    if installed.returncode != 0:  # a version without hooks for this agent keeps nothing
        why = (installed.stderr or installed.stdout).strip().splitlines()[-1:]
        return {"items": [], "leaks": [], "reasons": [], "stops": 0, "blocks_when_active": 0,
                "skipped": f"mem hooks install --agent {agent}: {' '.join(why)}"}  # fmt: skip
    settings = json.loads((repo / SETTINGS[agent]).read_text(encoding="utf-8"))
    records = load_session(session)
    home = Path(env["HOME"])
    steps: list[Step]
    if agent == "codex":
        name = f"rollout-2026-01-01T00-00-00-{codex_session_id(records)}.jsonl"
        transcript = home / ".codex" / "sessions" / "2026" / "01" / "01" / name
        steps = codex_steps(records, str(transcript), str(repo))
    else:
        session_id = str(uuid.uuid5(uuid.NAMESPACE_URL, session.parent.name))
        transcript = home / ".claude" / "projects" / "-bench" / f"{session_id}.jsonl"
        steps = hook_steps(records, session_id, str(transcript), str(repo))
    transcript.parent.mkdir(parents=True, exist_ok=True)
    reasons: list[str] = []
    stops = blocks_when_active = 0
    with open(transcript, "w", encoding="utf-8") as live:
        written = 0
        for step in steps:
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
                # The agent would let the model continue, then run Stop again, flagged.
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
        from memcli.privacy.redactor import mask, mask_obj
    except ImportError:  # pragma: no cover - a checkout from before the mask helpers moved
        try:
            from memcli.privacy.masking import mask, mask_obj  # type: ignore[no-redef]
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
    fmt = IMPORT_FORMATS.get(session.name)
    if fmt is None:
        return None  # mem import has no format for this agent's sessions
    repo = fresh_repo(work / "import", env)
    done = mem(["import", "--format", fmt, str(session)], repo, env)
    if done.returncode != 0:
        print(f"  import failed: {(done.stderr or done.stdout).strip()[:200]}")
    return read_items(repo / ".memory")


# --- the benchmark -----------------------------------------------------------------------


def session_file(folder: Path) -> Path:
    for name in SESSION_FILES:
        if (folder / name).exists():
            return folder / name
    raise FileNotFoundError(f"{folder}: none of {', '.join(SESSION_FILES)}")


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
        keep = os.environ.get("QUALITY_KEEP")  # a folder to keep each replay's .memory in
        if keep:
            dest = Path(keep) / folder.name
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(work / "hooks" / ".memory", dest)
            if (work / "import" / ".memory").is_dir():  # to diff against the replay's
                shutil.rmtree(f"{dest}.import", ignore_errors=True)
                shutil.copytree(work / "import" / ".memory", f"{dest}.import")
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
        "item_texts": texts,
        "unmatched_titles": unmatched_titles(lessons, replayed["items"]),
        "reasons": replayed["reasons"],
        "files_with_secrets": replayed["leaks"],
        "imported_titles": [str(i.get("title", "")) for i in imported or []],
        **({"skipped": replayed["skipped"]} if "skipped" in replayed else {}),
    }
    return result, detail


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="commit of the old compactor")
    parser.add_argument("--no-baseline", action="store_true", help="measure this checkout only")
    parser.add_argument("--sessions", default="", help="comma-separated folder names (default all)")
    parser.add_argument("--set", choices=SETS, help="only the sessions of one set")
    parser.add_argument("--out", type=Path, default=CACHE / "quality.json")
    args = parser.parse_args()
    names = sorted(p.name for p in SESSIONS.iterdir() if (p / "gold.yaml").exists())
    if args.sessions:
        names = [n for n in names if n in args.sessions.split(",")]
    sets = session_sets(SESSIONS, names)
    if args.set:
        names = [n for n in names if sets[n] == args.set]
    if not names:
        print("quality bench: no session matches --sessions/--set")
        return 2
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
            details[label][name] = {"set": sets[name], **result.as_json(), **detail}
            note = f" ({detail['skipped']})" if "skipped" in detail else ""
            print(
                f"{name} [{label}]: {result.items} items, recall {result.from_items}/"
                f"{result.lessons}, +checkpoint {result.with_checkpoint}, import "
                f"{result.from_import}, {len(detail['files_with_secrets'])} files with secrets, "
                f"{detail['seconds']} s{note}",
                flush=True,
            )
    kinds = [sets[n] for n in names]
    print()
    print(table(names, kinds, runs))
    summed = {label: totals_by_set(runs[label], kinds) for label in versions}
    for label in versions:
        for name, t in summed[label].items():
            print("\n" + summary(label, name, t))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "versions": {label: str(path) for label, path in versions.items()},
        "totals": summed,
        "sessions": details,
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nJSON: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
