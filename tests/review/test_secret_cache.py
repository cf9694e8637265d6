"""The secret gate's kept verdicts: the same findings as a fresh scan, an edit always scanned
again, and nothing kept or trusted when it could be wrong."""

from __future__ import annotations

import json
from pathlib import Path

from review_helpers import commit, item_path, save

from memcli.api import Memory
from memcli.review import prune, secret_cache

TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"


def _leaks(root: Path) -> list[tuple[str, int, str]]:
    report = prune.check(Memory.open(root))
    return [
        (f.path, f.line, f.check) for f in report.findings if f.check in ("secret", "personal-data")
    ]


def _kept(root: Path) -> Path:
    return root / ".memory" / "local" / secret_cache.CACHE


def test_kept_verdicts_give_what_a_fresh_scan_gives(repo: Path) -> None:
    save(repo, "aaaa000001", "Deploys use a token", body=f"The deploy token is {TOKEN} now.")
    save(repo, "bbbb000002", "Ask the release manager", body="Write to ops@example.com first.")
    for number in range(5):
        save(repo, f"cccc00000{number}", f"A harmless fact number {number}")
    commit(repo, "store")
    first = _leaks(repo)
    assert {(p.rsplit("/", 1)[1], c) for p, _l, c in first} == {
        ("aaaa000001.yaml", "secret"),
        ("bbbb000002.yaml", "personal-data"),
    }
    assert _kept(repo).is_file()
    assert _leaks(repo) == first
    # an edit in place (the same size) is scanned again; so is a new file
    path = item_path(repo, "cccc000001")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("harmless", "harmful!"), encoding="utf-8")
    assert _leaks(repo) == first
    path.write_text(text.replace("A harmless fact", f"A {TOKEN} fact"), encoding="utf-8")
    save(repo, "dddd000004", "Another token", body=f"See {TOKEN}.")
    now = _leaks(repo)
    assert {p.rsplit("/", 1)[1] for p, _l, c in now if c == "secret"} == {
        "aaaa000001.yaml",
        "cccc000001.yaml",
        "dddd000004.yaml",
    }
    _kept(repo).unlink()
    assert _leaks(repo) == now  # what a scan of every file finds


def test_a_corrupt_or_foreign_file_is_not_trusted(repo: Path) -> None:
    save(repo, "aaaa000001", "Deploys use a token", body=f"The deploy token is {TOKEN} now.")
    commit(repo, "store")
    expected = _leaks(repo)
    data = json.loads(_kept(repo).read_text(encoding="utf-8"))
    clean = {digest: [] for digest in data["files"]}  # every verdict "clean"
    for written in (
        "{not json",
        json.dumps({"signature": "from another version of the rules", "files": clean}),
        json.dumps({"signature": data["signature"], "files": {"x": [["1", "secret", False]]}}),
    ):
        _kept(repo).write_text(written, encoding="utf-8")
        assert _leaks(repo) == expected


def test_a_store_with_its_own_patterns_keeps_no_verdicts(repo: Path) -> None:
    config = repo / ".memory" / "config.yaml"
    text = config.read_text(encoding="utf-8")
    assert "extra_patterns: []" in text
    text = text.replace("extra_patterns: []", "extra_patterns: ['INTERNAL-[0-9]{4}']")
    config.write_text(text, encoding="utf-8")
    save(repo, "aaaa000001", "Ticket numbers", body="Filed as INTERNAL-1234 today.")
    commit(repo, "store")
    assert {c for _p, _l, c in _leaks(repo)} == {"secret"}
    assert not _kept(repo).exists()


def test_a_file_anyone_could_have_written_is_not_trusted(repo: Path) -> None:
    """A copy committed with ``git add -f`` is checked out readable by all: not mem's own."""
    save(repo, "aaaa000001", "Deploys use a token", body=f"The deploy token is {TOKEN} now.")
    commit(repo, "store")
    expected = _leaks(repo)
    data = json.loads(_kept(repo).read_text(encoding="utf-8"))
    data["files"] = {digest: [] for digest in data["files"]}  # every verdict "clean"
    _kept(repo).write_text(json.dumps(data), encoding="utf-8")
    _kept(repo).chmod(0o644)
    assert _leaks(repo) == expected
