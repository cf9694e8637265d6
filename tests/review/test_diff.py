"""`mem diff`: items added, changed and removed between revisions, in all three formats."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from review_helpers import GOLDEN, commit, git, item_path, mem, save

from memcli.review.diff import memory_diff, parse_range


@pytest.fixture
def history(repo: Path) -> Path:
    """v1: three items; v2: one changed, one removed, one added, one untouched."""
    save(repo, "aaaa000001", "Tests need Postgres on port 5433", tags=("db",), importance=0.5)
    save(repo, "bbbb000002", "The cache folder must be cleared after upgrades", kind="env")
    save(repo, "cccc000003", "Use ruff for linting", kind="convention")
    commit(repo, "v1")
    git(repo, "tag", "v1")
    save(
        repo,
        "aaaa000001",
        "Tests need Postgres on port 5433",
        tags=("db", "ci"),
        importance=0.8,
        body="The fact, conclusion first.\nCI sets PGPORT=5433 in the workflow.",
        updated="2026-01-06T09:00:00Z",
    )
    item_path(repo, "bbbb000002").unlink()
    save(repo, "dddd000004", "Release builds run on tags only", kind="decision")
    commit(repo, "v2")
    git(repo, "tag", "v2")
    return repo


def test_json_reports_exactly_what_changed(history: Path) -> None:
    code, out, err = mem("diff", "v1..v2", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert [e["id"] for e in data["added"]] == ["dddd000004"]
    assert [e["id"] for e in data["changed"]] == ["aaaa000001"]
    assert [e["id"] for e in data["removed"]] == ["bbbb000002"]
    changed = data["changed"][0]
    assert [c["field"] for c in changed["changes"]] == ["tags", "importance", "updated"]
    assert changed["changes"][0] == {"field": "tags", "old": ["db"], "new": ["db", "ci"]}
    assert "+CI sets PGPORT=5433 in the workflow." in changed["body_diff"]
    assert data["counts"]["added"] == 1 and data["counts"]["files"] == 0
    assert data["base"]["label"] == "v1" and data["head"]["label"] == "v2"
    assert data["contradictions"] == [] and data["warnings"] == []


def test_markdown_matches_the_golden_file(history: Path) -> None:
    code, out, _ = mem("diff", "v1..v2", "--format", "markdown")
    assert code == 0
    golden = GOLDEN / "diff.md"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8")


def test_text_in_a_pipe_lists_each_item_once(history: Path) -> None:
    code, out, _ = mem("diff", "v1..v2")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "memory: v1 -> v2: 1 added, 1 changed, 1 removed"
    assert any(line.startswith("added") and "dddd000004" in line for line in lines)
    assert any(line.startswith("changed") and "aaaa000001" in line for line in lines)
    assert any(line.startswith("removed") and "bbbb000002" in line for line in lines)
    assert "cccc000003" not in out
    assert any("tags: +ci" in line for line in lines)


def test_default_base_is_the_merge_base_with_main_and_head_the_working_tree(history: Path) -> None:
    git(history, "checkout", "-q", "-b", "feature")
    save(history, "eeee000005", "Feature flags live in flags.toml", kind="convention")
    commit(history, "feature item")
    git(history, "checkout", "-q", "main")
    save(history, "ffff000006", "Only on main", kind="env")
    commit(history, "main moves on")
    git(history, "checkout", "-q", "feature")
    save(history, "gggg000007", "Not committed yet", kind="task")  # untracked
    code, out, _ = mem("diff", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["base"]["label"].startswith("merge-base with main")
    assert data["head"]["label"] == "working tree"
    assert sorted(e["id"] for e in data["added"]) == ["eeee000005", "gggg000007"]
    assert data["removed"] == [] and data["changed"] == []


def test_an_empty_diff_says_so(history: Path) -> None:
    code, out, _ = mem("diff", "v2", "--format", "markdown")
    assert code == 0
    assert "No memory changes." in out


def test_supersede_expire_and_other_files(history: Path) -> None:
    save(history, "hhhh000008", "Tests need Postgres on port 5434", supersedes="aaaa000001")
    item_path(history, "aaaa000001").unlink()
    save(
        history,
        "iiii000009",
        "Temporary: the staging host is down",
        kind="task",
        expires="2026-01-01T00:00:00Z",
    )
    (history / ".memory" / "sessions" / "s1.yaml").write_text("id: s1\nsummary: did things\n")
    result = memory_diff(history, "v2")
    removed = {e.id: e.note for e in result.removed}
    assert removed == {"aaaa000001": "superseded by hhhh000008"}
    assert [(s.id, s.by, s.removed) for s in result.superseded] == [
        ("aaaa000001", "hhhh000008", True)
    ]
    assert [e.id for e in result.expired] == ["iiii000009"]
    assert [(f.path, f.status) for f in result.files] == [(".memory/sessions/s1.yaml", "added")]


def test_a_contradicting_decision_is_a_warning(history: Path) -> None:
    save(history, "jjjj000010", "Pin Postgres 14 for the job queue", kind="decision")
    commit(history, "pin 14")
    save(history, "kkkk000011", "Pin Postgres 16 for the job queue", kind="decision")
    code, out, _ = mem("diff", "HEAD", "--json")
    assert code == 0
    hints = json.loads(out)["contradictions"]
    assert [(h["id"], h["other_id"]) for h in hints] == [("kkkk000011", "jjjj000010")]
    assert "14" in hints[0]["reason"] and "16" in hints[0]["reason"]
    code, out, _ = mem("diff", "HEAD", "--format", "markdown")
    assert "possible contradiction" in out


def test_an_unknown_revision_is_a_usage_error(history: Path) -> None:
    code, out, err = mem("diff", "nope..v2")
    assert code == 2 and out == ""
    assert "unknown revision 'nope'" in err


def test_a_bad_format_is_a_usage_error(history: Path) -> None:
    code, _, err = mem("diff", "--format", "html")
    assert code == 2 and "--format" in err


@pytest.mark.parametrize("branches", ["--no-single-branch", "--single-branch"])
def test_a_shallow_clone_says_how_to_fix_it(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, branches: str
) -> None:
    git(history, "checkout", "-q", "-b", "feature")
    save(history, "llll000012", "Something on the feature", kind="env")
    commit(history, "feature")
    git(history, "checkout", "-q", "main")  # the remote's HEAD, so origin/HEAD is main
    clone = tmp_path / "shallow"
    git(
        tmp_path,
        "clone",
        "-q",
        "--depth",
        "1",
        branches,
        "-b",
        "feature",
        f"file://{history}",
        str(clone),
    )
    monkeypatch.chdir(clone)
    for args in ([], ["main...HEAD"]):
        code, out, err = mem("diff", *args)
        assert code == 2 and out == ""
        assert "shallow clone" in err and "git fetch --unshallow" in err
    git(clone, "fetch", "-q", "--unshallow", "origin", "main:refs/remotes/origin/main")
    code, out, _ = mem("diff", "--json")
    assert code == 0
    assert [e["id"] for e in json.loads(out)["added"]] == ["llll000012"]


def test_parse_range() -> None:
    assert parse_range(None) == (None, None, True)
    assert parse_range("main") == ("main", None, False)
    assert parse_range("a..b") == ("a", "b", False)
    assert parse_range("a...b") == ("a", "b", True)
    assert parse_range("..b") == ("HEAD", "b", False)


def test_rich_output_on_a_terminal_has_the_same_lines(history: Path) -> None:
    from rich.console import Console

    from memcli.cli import diff_cmd

    result = memory_diff(history, "v1..v2")
    console = Console(record=True, width=200, force_terminal=True)
    console.print(diff_cmd.rich_diff(result))
    plain = [line for line, _style in diff_cmd.lines(result)]
    assert console.export_text(clear=False).splitlines() == plain
    assert "\x1b[" in console.export_text(styles=True)


def test_a_diff_parses_only_what_changed_and_the_alike_decisions(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memcli.review import diff as review_diff
    from memcli.review import fields

    for number in range(60):
        save(repo, f"old{number:07d}", f"Unrelated fact number {number} about module m{number}")
    save(repo, "pgpg000001", "Pin Postgres 14 for the job queue", kind="decision")
    save(repo, "rdrd000001", "Use Redis streams for notifications", kind="decision")
    commit(repo, "store")
    save(repo, "pgpg000002", "Pin Postgres 16 for the job queue", kind="decision")
    save(repo, "newf000001", "A brand new fact about the cache folder")
    commit(repo, "two more")
    parsed: list[str] = []
    parse = fields.parse

    def counting(text: str, path: str) -> tuple[dict[str, object] | None, str | None]:
        parsed.append(path)
        return parse(text, path)

    monkeypatch.setattr(fields, "parse", counting)
    result = review_diff.memory_diff(repo, "HEAD~1..HEAD")
    assert [e.id for e in result.added] == ["newf000001", "pgpg000002"]
    assert [(c.item.id, c.other.id) for c in result.contradictions] == [
        ("pgpg000002", "pgpg000001")
    ]
    # the two added items, the new decision as an item, and its one alike decision
    assert sorted(set(parsed)) == [
        f".memory/items/{name}.yaml" for name in ("newf000001", "pgpg000001", "pgpg000002")
    ]


def test_a_decision_written_by_hand_is_still_compared(repo: Path) -> None:
    """A kind or title the grep cannot read (quoted keys) makes the file a candidate."""
    save(repo, "pgpg000001", "Pin Postgres 14 for the job queue", kind="decision")
    path = item_path(repo, "pgpg000001")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("kind: decision", '"kind": decision'), encoding="utf-8")
    commit(repo, "store")
    save(repo, "pgpg000002", "Pin Postgres 16 for the job queue", kind="decision")
    code, out, _ = mem("diff", "HEAD", "--json")
    assert code == 0
    assert [c["other_id"] for c in json.loads(out)["contradictions"]] == ["pgpg000001"]
