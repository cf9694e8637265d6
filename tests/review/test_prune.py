"""`mem prune --check` (the CI gate) and `mem prune` (the fixes), in real git repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from review_helpers import commit, git, item_path, mem, save

from memcli.api import Memory
from memcli.review import prune

TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"  # 36 characters after the prefix


@pytest.fixture
def clean(repo: Path) -> Path:
    (repo / "src").mkdir()
    (repo / "src" / "db.py").write_text("def connect():\n    return 5433\n")
    save(repo, "aaaa000001", "Tests need Postgres on port 5433", anchors=[{"path": "src/db.py"}])
    save(repo, "bbbb000002", "Release builds run on tags only", kind="decision")
    commit(repo, "memory")
    return repo


def findings(out: str) -> list[dict[str, object]]:
    return list(json.loads(out)["findings"])


def test_a_clean_store_passes(clean: Path) -> None:
    code, out, err = mem("prune", "--check")
    assert code == 0, out + err
    assert "memory is clean" in out


def test_an_expired_item_fails_and_is_removed(clean: Path) -> None:
    save(
        clean,
        "cccc000003",
        "The staging host is down this week",
        kind="task",
        expires="2026-01-01T00:00:00Z",
    )
    commit(clean, "expiring")
    code, out, _ = mem("prune", "--check")
    assert code == 1
    assert ".memory/items/cccc000003.yaml:" in out and "expired" in out
    assert item_path(clean, "cccc000003").exists()  # --check changes nothing
    code, out, _ = mem("prune")
    assert code == 0, out
    assert "cccc000003: expired, removed" in out
    assert not item_path(clean, "cccc000003").exists()
    assert mem("prune", "--check")[0] == 0


def test_archive_moves_expired_items(clean: Path) -> None:
    save(clean, "cccc000003", "Old task", kind="task", expires="2026-01-01T00:00:00Z")
    code, _, _ = mem("prune", "--archive")
    assert code == 0
    assert not item_path(clean, "cccc000003").exists()
    assert (clean / ".memory" / "archive" / "cccc000003.yaml").is_file()
    assert len(Memory.open(clean).items()) == 2


def test_an_item_anchored_to_a_deleted_file_fails_and_is_marked_stale(clean: Path) -> None:
    git(clean, "rm", "-q", "src/db.py")
    commit(clean, "drop db.py")
    code, out, _ = mem("prune", "--check", "--json")
    assert code == 1
    [stale] = findings(out)
    assert stale["check"] == "stale" and stale["severity"] == "error"
    assert stale["item_id"] == "aaaa000001" and stale["old"] == "src/db.py"
    code, out, _ = mem("prune")
    assert code == 0, out
    assert "stale" in Memory.open(clean).get("aaaa000001").tags
    code, out, _ = mem("prune", "--check", "--json")
    assert code == 0  # marked: a warning from now on, so the PR that marks it passes
    assert [f["severity"] for f in findings(out)] == ["warning"]


def test_a_renamed_anchor_is_followed_and_updated(clean: Path) -> None:
    (clean / "src" / "store").mkdir()
    git(clean, "mv", "src/db.py", "src/store/database.py")
    commit(clean, "rename")
    code, out, _ = mem("prune", "--check", "--json")
    assert code == 0  # a rename is a warning: the item is still true
    [renamed] = findings(out)
    assert renamed["check"] == "renamed" and renamed["new"] == "src/store/database.py"
    assert mem("prune")[0] == 0
    assert Memory.open(clean).get("aaaa000001").anchors == [{"path": "src/store/database.py"}]
    assert findings(mem("prune", "--check", "--json")[1]) == []


def test_a_rename_followed_by_a_second_rename(clean: Path) -> None:
    git(clean, "mv", "src/db.py", "src/db2.py")
    commit(clean, "first")
    git(clean, "mv", "src/db2.py", "src/db3.py")
    commit(clean, "second")
    report = prune.check(Memory.open(clean))
    assert [(f.check, f.detail.get("new")) for f in report.findings] == [("renamed", "src/db3.py")]


def test_a_planted_secret_fails_without_printing_it(clean: Path) -> None:
    save(clean, "dddd000004", "Deploys use a token", body=f"The deploy token is {TOKEN} for now.")
    commit(clean, "oops")
    code, out, _ = mem("prune", "--check")
    assert code == 1
    assert ".memory/items/dddd000004.yaml:4: error: secret: possible GitHub token" in out
    assert TOKEN not in out and TOKEN[4:] not in out
    code, out, _ = mem("prune")
    assert code == 0, out
    text = item_path(clean, "dddd000004").read_text()
    assert TOKEN not in text and "[REDACTED]" in text
    assert mem("prune", "--check")[0] == 0


def test_secrets_in_sessions_and_config_count_too(clean: Path) -> None:
    sessions = clean / ".memory" / "sessions"
    (sessions / "s1.yaml").write_text(f"id: s1\nsummary: pushed with {TOKEN}\n")
    code, out, _ = mem("prune", "--check", "--json")
    assert code == 1
    [leak] = findings(out)
    assert leak["path"] == ".memory/sessions/s1.yaml" and leak["line"] == 2
    assert leak["kind"] == "GitHub token"
    assert mem("prune")[0] == 0
    assert TOKEN not in (sessions / "s1.yaml").read_text()


def test_ignored_local_state_is_not_scanned(clean: Path) -> None:
    (clean / ".memory" / "local" / "notes.txt").write_text(TOKEN)
    assert mem("prune", "--check")[0] == 0


def test_lint_problems_fail_the_check(clean: Path) -> None:
    item_path(clean, "eeee000005").write_text("id: eeee000005\nkind: [broken\n")
    code, out, _ = mem("prune", "--check")
    assert code == 1
    assert ".memory/items/eeee000005.yaml:" in out and "lint" in out


def test_event_triggered_expiry(clean: Path) -> None:
    (clean / "migrations").mkdir()
    (clean / "migrations" / "001.sql").write_text("create table t();\n")
    save(
        clean,
        "ffff000006",
        "The schema has one table",
        kind="env",
        expires_when={"changed": "migrations/*"},
    )
    commit(clean, "schema note")
    assert mem("prune", "--check")[0] == 0
    (clean / "migrations" / "002.sql").write_text("create table u();\n")
    commit(clean, "second migration")
    code, out, _ = mem("prune", "--check", "--json")
    assert code == 1
    [expired] = findings(out)
    assert expired["check"] == "expired" and expired["changed"] == ["migrations/002.sql"]


def test_near_duplicates_fail_and_are_merged(clean: Path) -> None:
    save(
        clean,
        "gggg000007",
        "Tests need Postgres on port 5433 locally",
        tags=("db",),
        created="2026-01-06T10:00:00Z",
        updated="2026-01-06T10:00:00Z",
    )
    code, out, _ = mem("prune", "--check", "--json")
    assert code == 1
    [dupe] = findings(out)
    assert dupe["check"] == "duplicate" and dupe["item_id"] == "gggg000007"
    assert dupe["into"] == "aaaa000001"
    assert mem("prune")[0] == 0
    items = {i.id: i for i in Memory.open(clean).items()}
    assert "gggg000007" not in items and "db" in items["aaaa000001"].tags


def test_unused_unverified_items_are_a_warning(clean: Path) -> None:
    usage = clean / ".memory" / "local" / "usage.json"
    usage.write_text(json.dumps({"bbbb000002": {"hits": 3, "last": "2099-01-01T00:00:00Z"}}))
    report = prune.check(Memory.open(clean), now="2027-01-01T00:00:00Z")
    assert [(f.check, f.item_id, f.severity) for f in report.findings] == [
        ("unused", "aaaa000001", "warning")
    ]
    usage.unlink()
    report = prune.check(Memory.open(clean), now="2027-01-01T00:00:00Z")
    assert report.findings == [] and "skipped the unused check" in report.notes[0]


def test_a_contradiction_is_only_a_warning_and_never_merged(clean: Path) -> None:
    save(
        clean,
        "iiii000009",
        "Pin Postgres 14 for the job queue",
        kind="decision",
        body="The queue relies on SKIP LOCKED semantics of 14.",
    )
    save(
        clean,
        "jjjj000010",
        "Pin Postgres 16 for the job queue",
        kind="decision",
        body="16 brings the logical replication the queue needs.",
        created="2026-01-07T10:00:00Z",
    )
    save(
        clean,
        "kkkk000011",
        "Cache sessions in Redis",
        kind="decision",
        body="Sessions are read on every request.",
    )
    save(
        clean,
        "llll000012",
        "Do not cache sessions in Redis",
        kind="decision",
        body="Sessions must survive a Redis restart.",
        created="2026-01-07T10:00:00Z",
    )
    code, out, _ = mem("prune", "--check", "--json")
    assert code == 0
    hints = [(f["item_id"], f["check"], f["severity"]) for f in findings(out)]
    assert hints == [
        ("jjjj000010", "contradiction", "warning"),
        ("llll000012", "contradiction", "warning"),
    ]
    assert "may contradict iiii000009" in str(findings(out)[0]["message"])


def test_github_annotations_and_step_summary(clean: Path, tmp_path: Path) -> None:
    save(clean, "cccc000003", "Old task", kind="task", expires="2026-01-01T00:00:00Z")
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    code, out, _ = mem("prune", "--check", env=env)
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith("::error "))
    assert line.startswith("::error file=.memory/items/cccc000003.yaml,line=")
    assert ",title=mem prune%3A expired::expired on 2026-01-01T00:00:00Z" in line
    text = summary.read_text()
    assert text.startswith("# earlier step\n### mem prune --check: 1 error, 0 warnings")
    assert "| error | expired | `.memory/items/cccc000003.yaml:" in text


def test_pair_scores_are_the_compactors_similarity(clean: Path) -> None:
    from memcli.review import similar

    titles = [
        "Tests need Postgres on port 5433",
        "Tests need Postgres 5433 on CI",
        "Postgres tests need the port",
        "Redis cache in tests",
    ]
    items = [
        save(clean, f"zzzz00000{n}", t, body=f"Body {t} here.\nMore.") for n, t in enumerate(titles)
    ]
    found = {(a.id, b.id): s for a, b, s in similar.pairs(items, 0.0)}
    for (a_id, b_id), score in found.items():
        a = next(i for i in items if i.id == a_id)
        b = next(i for i in items if i.id == b_id)
        assert score == similar.similarity(a, b)
    assert len(found) >= 3


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ({"changed": "src/*"}, True),
        ({"changed": ["src/*", "docs/**"]}, True),
        ({"changed": ""}, False),
        ({"changed": []}, False),
        ({"touched": "src/*"}, False),
        ("src/*", False),
    ],
)
def test_expires_when_is_validated(value: object, ok: bool) -> None:
    from memcli import model

    data = {
        "id": "abc",
        "kind": "env",
        "title": "T",
        "body": "b",
        "scope": {"project": "p"},
        "created": "2026-01-01",
        "updated": "2026-01-01",
        "expires_when": value,
    }
    problems = model.validate(data, "x.yaml", lambda _field: 1)
    assert (problems == []) is ok, problems
    if ok:
        assert model.Item.from_dict(data).to_dict()["expires_when"] == value


def many_pinned_versions(root: Path, count: int) -> None:
    """``count`` decisions that pairwise contradict (each pins another version)."""
    for number in range(count):
        save(
            root,
            f"pin{number:07d}",
            f"Pin Postgres {10 + number} for the job queue",
            kind="decision",
            body=f"The queue needs what {10 + number} brings.",
        )


def test_the_report_shows_the_first_findings_of_each_check_and_every_count(
    clean: Path,
) -> None:
    many_pinned_versions(clean, 6)  # 15 contradicting pairs
    code, out, _ = mem("prune", "--check", "--max-findings", "2")
    assert code == 0
    assert out.count(": warning: contradiction:") == 2
    assert "note: 13 more contradiction finding(s) not shown" in out
    assert "(15 contradiction)" in out
    code, out, _ = mem("prune", "--check", "--json", "--max-findings", "2")
    report = json.loads(out)
    assert report["counts"] == {"contradiction": 15}
    assert len(report["findings"]) == 15  # JSON lists them all
    code, out, _ = mem("prune", "--check", "--max-findings", "0")
    assert out.count(": warning: contradiction:") == 15


def test_a_cluster_of_alike_items_is_paired_in_linear_work(
    clean: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memcli.compact import text
    from memcli.review import similar

    many_pinned_versions(clean, 120)  # 7,140 alike pairs
    calls = {"n": 0}
    jaccard = text.jaccard

    def counting(a: set[str], b: set[str]) -> float:
        calls["n"] += 1
        return jaccard(a, b)

    monkeypatch.setattr(text, "jaccard", counting)
    report = prune.check(Memory.open(clean))
    hints = [f for f in report.findings if f.check == "contradiction"]
    assert len({f.item_id for f in hints}) >= 119  # every decision is still flagged
    # Each item meets at most MAX_PARTNERS earlier ones through each of its rarest words,
    # scored twice (title, title and body): nowhere near the 2 * 7,140 of every pair.
    assert calls["n"] <= 2 * 120 * similar.MAX_PARTNERS * 2
