"""`mem prune`: find what is wrong with the store, and (without ``--check``) fix what can be.

Checks, each a :class:`Finding` with a file, a line and a severity (errors fail
``--check``, warnings are reported only):

- **lint** (error): everything `mem lint` finds.
- **expired** (error): ``expires`` has passed, or ``expires_when: {changed: GLOB}`` and a path
  matching GLOB changed in a commit after the one that last wrote the item (or in the working
  tree). Fixed by deleting the item (git history keeps it) or, with ``archive``, moving it to
  ``.memory/archive/``.
- **stale** (error): an anchor is gone from the working tree and git history shows it deleted,
  not renamed. Fixed by adding the tag ``stale``; a stale-tagged item is a warning from then on,
  so the pull request that marks it passes CI, and retrieval can weigh it down.
- **renamed** (warning): an anchor's file was renamed (followed through git history, and
  through a rename staged in the index). Fixed by pointing the anchor at the new path.
- **symbol** (warning): an anchor's symbol no longer occurs in its file.
- **unused** (warning): assumed (not verified), older than ``prune.unused_days`` and not used
  in that time according to ``local/usage.json``. Use counts are local, so this check needs a
  clone that has been used (it is skipped in CI). Fixed by tagging the item ``stale``.
- **duplicate** (error): two items of one kind and scope that say the same thing (the
  compactor's similarity). Fixed by merging the newer into the older, as `mem compact` merges.
- **secret** (error) and **personal-data** (warning): in any file under ``.memory/`` that is or
  will be committed (items, sessions, config). Fixed by masking the file; the secret is still in
  git history and must be rotated.
- **contradiction** (warning): see :mod:`memcli.review.contradiction`.
"""

from __future__ import annotations

import fnmatch
import functools
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli import timeutil, untrusted
from memcli.compact import merge
from memcli.model import Item, Problem
from memcli.review import contradiction, similar
from memcli.review.findings import ERROR, WARNING, Finding, Report
from memcli.review.gitrepo import MEMORY, GitRepo

if TYPE_CHECKING:
    from memcli.api import Memory
    from memcli.store import ItemStore

STALE_TAG = "stale"
DEFAULTS = {"unused_days": 180, "archive": False}
CODE_READ_BYTES = 8_000_000


def settings(memory: Memory) -> dict[str, Any]:
    merged = dict(DEFAULTS)
    merged.update(memory.settings().get("prune") or {})
    return merged


def check(memory: Memory, now: str | None = None) -> Report:
    """Every finding; changes nothing."""
    report = Report()
    _line.cache_clear()  # line numbers are read once per check (fixes move them)
    _where.cache_clear()
    stamp = now or timeutil.now()
    hashes: dict[str, str] = {}  # item file name -> content hash, from the parse cache
    items, problems = _load(memory, hashes)
    from memcli import layout

    problems = memory.config_problems() + layout.problems(memory.paths) + problems
    for problem in problems:
        message = f"{problem.field}: {problem.message}"
        report.findings.append(Finding("lint", ERROR, problem.path, problem.line, message))
    with GitRepo(memory.root) as repo:
        expired = _expired(memory, repo, items, stamp, report)
        live = [i for i in items if i.id not in expired]
        _anchors(memory, repo, live, report)
        _secrets(memory, repo, report, hashes)
    _unused(memory, live, stamp, report)
    # duplicates and contradictions from one pairing (the words two items share counted once)
    near, alike = similar.pairs_at(live, [(merge.NEAR, None), (contradiction.SIMILAR, "decision")])
    statements: dict[int, contradiction.Statement] = {}
    _duplicates(memory, near, report, statements)
    places: dict[str, tuple[str, int]] = {}  # item id -> (file as shown, title's line)
    add = report.findings.append
    for hint in contradiction.among(live, None, None, statements, alike):
        # tens of thousands of hints on a large store: each item's place found once
        item_id = hint.item.id
        place = places.get(item_id)
        if place is None:
            path, shown = _where(memory.store, item_id)
            place = places[item_id] = (shown, _line(path, "title"))
        add(Finding("contradiction", WARNING, place[0], place[1], hint.message(), item_id))
    report.findings.sort(key=lambda f: (f.severity != ERROR, f.path, f.line, f.check))
    return report


def _at(
    memory: Memory,
    item: Item,
    key: str,
    check_name: str,
    severity: str,
    message: str,
    action: str = "",
    **detail: Any,
) -> Finding:
    path, shown = _where(memory.store, item.id)
    return Finding(
        check_name,
        severity,
        shown,
        _line(path, key),
        message,
        item.id,
        action,
        detail,
    )


def _load(memory: Memory, hashes: dict[str, str]) -> tuple[list[Item], list[Problem]]:
    """Items and what `mem lint` reports, from one read of the store (reading is the cost)."""
    store = memory.store
    items, problems = store.load_all(hashes)
    counts = Counter(item.id for item in items)
    for item_id in sorted(k for k, n in counts.items() if n > 1):
        shown = store.display(store.path_of(item_id))
        problems.append(Problem(shown, 1, "id", "used by several files"))
    for path in store.files():
        if path.suffix == ".yml":
            problems.append(Problem(store.display(path), 1, "(file)", "use the .yaml suffix"))
    return items, store.layout_problems() + problems


@functools.lru_cache(maxsize=65536)
def _where(store: ItemStore, item_id: str) -> tuple[Path, str]:
    """An item's file and how messages show it (one item may have thousands of findings)."""
    path = store.path_of(item_id)
    return path, store.display(path)


@functools.lru_cache(maxsize=65536)
def _line(path: Path, key: str) -> int:
    """The line of a top-level key, by a text scan (a YAML parse per finding is too slow)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:  # a parsed item: bounded
            for number, line in enumerate(handle, 1):
                if line.startswith(f"{key}:"):
                    return number
    except OSError:
        pass
    return 1


def _expired(
    memory: Memory, repo: GitRepo, items: list[Item], now: str, report: Report
) -> set[str]:
    archive = bool(settings(memory)["archive"])
    action = "archive" if archive else "delete"
    found: set[str] = set()
    changed_cache: dict[str, list[str]] = {}
    for item in items:
        if item.expires and _passed(item.expires, now):
            found.add(item.id)
            message = f"expired on {item.expires}: {item.title}"
            report.findings.append(_at(memory, item, "expires", "expired", ERROR, message, action))
            continue
        globs = _globs(item)
        if not globs:
            continue
        path = memory.store.display(memory.store.path_of(item.id))
        written = repo.last_commit(path)
        if written is None:
            continue  # not committed yet: written now, so nothing changed after it
        if written not in changed_cache:
            changed_cache[written] = repo.changed_since(written)
        hits = [p for p in changed_cache[written] if p != path and _matches(p, globs)]
        if hits:
            found.add(item.id)
            shown = ", ".join(hits[:3]) + (" ..." if len(hits) > 3 else "")
            message = f"expired: {shown} changed after it was written ({item.title})"
            report.findings.append(
                _at(memory, item, "expires_when", "expired", ERROR, message, action, changed=hits)
            )
    return found


def _passed(stamp: str, now: str) -> bool:
    try:
        return timeutil.parse_time(stamp) <= timeutil.parse_time(now)
    except ValueError:
        return False


def _globs(item: Item) -> list[str]:
    rule = (item.expires_when or {}).get("changed")
    return [rule] if isinstance(rule, str) else [str(g) for g in rule or []]


def _matches(path: str, globs: list[str]) -> bool:
    """fnmatch globs, where ``*`` also crosses ``/`` and a leading ``**/`` may match nothing."""
    return any(
        fnmatch.fnmatchcase(path, g) or (g.startswith("**/") and fnmatch.fnmatchcase(path, g[3:]))
        for g in globs
    )


def _anchors(memory: Memory, repo: GitRepo, items: list[Item], report: Report) -> None:
    renames: dict[str, str | None] = {}
    for item in items:
        marked = STALE_TAG in item.tags
        for anchor in item.anchors:
            path = anchor.get("path", "")
            target = memory.root / path
            if path and target.exists():
                symbol = anchor.get("symbol", "")
                if symbol and target.is_file() and not _has_symbol(target, symbol):
                    message = f"anchor symbol {symbol} is no longer in {path}"
                    report.findings.append(_at(memory, item, "anchors", "symbol", WARNING, message))
                continue
            if path not in renames:
                renames[path] = repo.renamed_to(path)
            new = renames[path]
            if new is not None and (memory.root / new).exists():
                message = f"anchor {path} was renamed to {new}"
                report.findings.append(
                    _at(
                        memory,
                        item,
                        "anchors",
                        "renamed",
                        WARNING,
                        message,
                        "update anchor",
                        old=path,
                        new=new,
                    )
                )
            elif marked:
                message = f"marked stale: anchor {path} is gone; re-anchor or forget the item"
                report.findings.append(_at(memory, item, "anchors", "stale", WARNING, message))
            else:
                message = f"anchor {path} was deleted: {item.title}"
                report.findings.append(
                    _at(
                        memory,
                        item,
                        "anchors",
                        "stale",
                        ERROR,
                        message,
                        f"tag {STALE_TAG}",
                        old=path,
                    )
                )


def _has_symbol(path: Path, symbol: str) -> bool:
    try:
        # An anchored source file may be big or a link; read a bounded prefix of a regular file.
        text = untrusted.read_text(
            path, CODE_READ_BYTES, follow=True, truncate=True, errors="replace"
        )
    except untrusted.Unreadable:
        return True
    return symbol.replace("::", ".").rsplit(".", 1)[-1] in text


def _secrets(memory: Memory, repo: GitRepo, report: Report, hashes: dict[str, str]) -> None:
    from memcli.review import secret_cache

    local = f"{MEMORY}/local/"
    paths = [p for p in repo.files(MEMORY) if not p.startswith(local)]
    for leak in secret_cache.scan(memory, paths, hashes):
        report.findings.append(
            Finding(
                "personal-data" if leak.personal else "secret",
                WARNING if leak.personal else ERROR,
                leak.path,
                leak.line,
                leak.message(),
                Path(leak.path).stem if leak.path.startswith(f"{MEMORY}/items/") else None,
                "mask",
                {"kind": leak.kind},
            )
        )


def _unused(memory: Memory, items: list[Item], now: str, report: Report) -> None:
    from memcli.retrieval import usage

    if not memory.paths.usage.is_file():
        report.notes.append(
            "no use counts in this clone (.memory/local/usage.json): skipped the unused check"
        )
        return
    days = float(settings(memory)["unused_days"])
    used = usage.load_usage(memory.paths)
    for item in items:
        if item.confidence == "verified" or STALE_TAG in item.tags:
            continue
        last = str(used.get(item.id, {}).get("last") or "")
        if _age(item.updated, now) < days or (last and _age(last, now) < days):
            continue
        message = f"unused for {int(days)} days and never verified: {item.title}"
        report.findings.append(
            _at(memory, item, "confidence", "unused", WARNING, message, f"tag {STALE_TAG}")
        )


def _age(stamp: str, now: str) -> float:
    try:
        return timeutil.age_days(stamp, timeutil.parse_time(now))
    except ValueError:
        return 0.0


def _duplicates(
    memory: Memory,
    near: list[similar.Pair],
    report: Report,
    statements: dict[int, contradiction.Statement],
) -> None:
    """Each pair at :data:`merge.NEAR` that says the same thing: the newer is a duplicate."""
    survivor: dict[str, Item] = {}
    for a, b, score in near:
        if similar.linked(a, b):
            continue
        for item in (a, b):
            if id(item) not in statements:
                statements[id(item)] = contradiction.statement(item)
        if contradiction.compare(statements[id(a)], statements[id(b)]) is not None:
            continue  # alike but not the same statement: not for merging
        keep, drop = sorted((a, b), key=lambda i: (i.created, i.id))
        keep = survivor.get(keep.id, keep)
        if drop.id in survivor or drop.id == keep.id:
            continue
        survivor[drop.id] = keep
        message = f"duplicate of {keep.id} ({keep.title!r}), similarity {score:.2f}"
        report.findings.append(
            _at(
                memory,
                drop,
                "title",
                "duplicate",
                ERROR,
                message,
                f"merge into {keep.id}",
                into=keep.id,
            )
        )


def apply(memory: Memory, report: Report, archive: bool | None = None) -> list[str]:
    """Make the changes the findings call for, in the working tree; what was done."""
    from memcli.review import prune_apply

    if archive is None:
        archive = bool(settings(memory)["archive"])
    done = prune_apply.apply(memory, report.findings, archive)
    report.applied = done
    return done


def run(memory: Memory, fix: bool = False, archive: bool | None = None) -> Report:
    """Check, and with ``fix`` apply and check again (the report then holds what is left)."""
    from memcli.batchwork import without_cycle_collector

    with without_cycle_collector():
        return _run(memory, fix, archive)


def _run(memory: Memory, fix: bool, archive: bool | None) -> Report:
    report = check(memory)
    if not fix:
        return report
    done = apply(memory, report, archive)
    after = check(type(memory)(memory.root))  # a fresh view: settings and items re-read
    after.applied = done
    return after
