"""Search: hybrid ranking, scope, expiry, supersession, receipts, and the import budget."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from conftest import AddItem, age_files

from memcli.paths import StorePaths
from memcli.retrieval import index_builder, receipts, usage
from memcli.retrieval.search import search, search_outcome


def ids(results: list) -> list[str]:  # type: ignore[type-arg]
    return [r.id for r in results]


def test_finds_an_item_by_a_paraphrase_and_reports_its_fields(
    repo: Path, add_item: AddItem
) -> None:
    item = add_item(
        "Tests need Postgres on port 5433",
        "The system postgres holds 5432, so the test database listens on 5433.",
        tags=["db", "tests"],
    )
    add_item("Frontend build needs Node 20", "Vite fails on Node 18.")
    [hit] = search(repo, "which port does the testing database listen on", limit=1)
    assert hit.id == item.id
    assert (hit.kind, hit.tags, hit.title) == ("pitfall", ["db", "tests"], item.title)
    assert hit.score > 0 and hit.age
    assert "listens" in hit.snippet
    assert {"database", "listens"} <= set(hit.matched)
    assert set(hit.to_dict()) >= {"id", "title", "kind", "score", "snippet", "tags"}


def test_an_exact_identifier_ranks_its_item_first(repo: Path, add_item: AddItem) -> None:
    for n in range(4):
        add_item(f"Connection pool tuning note {n}", "Pool size and connection timeouts.")
    exact = add_item("Raise the pool limit", "ERR_POOL_EXHAUSTED comes from db_pool.py.")
    assert ids(search(repo, "ERR_POOL_EXHAUSTED"))[:1] == [exact.id]
    assert ids(search(repo, "connection pool db_pool.py"))[:1] == [exact.id]


def test_a_quoted_phrase_prefers_the_item_holding_it(repo: Path, add_item: AddItem) -> None:
    scattered = add_item("Refused retries", "The connection pool was refused a retry.")
    phrase = add_item("Broker restarts", "Clients saw connection refused while it restarted.")
    assert ids(search(repo, '"connection refused"'))[:1] == [phrase.id]
    assert scattered.id in ids(search(repo, '"connection refused"'))


def test_tags_kind_and_anchors_are_searchable(repo: Path, add_item: AddItem) -> None:
    item = add_item(
        "Slow start",
        "Cold caches.",
        kind="env",
        tags=["kubernetes"],
        anchors=[{"path": "deploy/helm/values.yaml", "symbol": "replicaCount"}],
    )
    for query in ("kubernetes", "values.yaml", "replicaCount", "helm"):
        assert ids(search(repo, query)) == [item.id], query
    assert ids(search(repo, "slow", kind="env")) == [item.id]
    assert search(repo, "slow", kind="decision") == []


def test_another_projects_items_never_appear_by_default(repo: Path, add_item: AddItem) -> None:
    mine = add_item("Kafka consumer lag in staging")
    theirs = add_item("Kafka consumer lag in production", project="github.com/other/service")
    assert ids(search(repo, "kafka consumer lag")) == [mine.id]
    assert ids(search(repo, "kafka", project="github.com/other/service")) == [theirs.id]
    assert set(ids(search(repo, "kafka", all_projects=True))) == {mine.id, theirs.id}


def test_the_current_branch_is_preferred(repo: Path, add_item: AddItem) -> None:
    other = add_item("Feature flag cache is stale", branch="feature/other")
    plain = add_item("Feature flag cache is stale")
    here = add_item("Feature flag cache is stale", branch="main")
    assert ids(search(repo, "feature flag cache")) == [here.id, plain.id, other.id]


def test_expired_items_are_left_out(repo: Path, add_item: AddItem) -> None:
    add_item("Temporary mirror outage", expires="2020-01-01T00:00:00Z")
    live = add_item("Mirror moved to a new host", expires="2999-01-01T00:00:00Z")
    assert ids(search(repo, "mirror")) == [live.id]


def test_a_superseded_item_gives_way_to_its_successor(repo: Path, add_item: AddItem) -> None:
    old = add_item("Use Python 3.10 for the docs build", "Sphinx pinned to 3.10.")
    new = add_item("Docs build runs on 3.12", "Moved off the pin.", supersedes=old.id)
    results = search(repo, "Python 3.10 sphinx docs build")
    assert ids(results) == [new.id]
    assert results[0].score > 0


def test_recency_importance_and_confidence_break_ties(repo: Path, add_item: AddItem) -> None:
    old = add_item("Cache warmup is slow", updated="2020-01-01T00:00:00Z")
    new = add_item("Cache warmup is slow", updated=time.strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert ids(search(repo, "cache warmup")) == [new.id, old.id]
    weighty = add_item("Cache warmup is slow", importance=0.9, confidence="verified")
    assert ids(search(repo, "cache warmup"))[0] == weighty.id


def test_use_counts_lift_an_item_and_live_under_local(repo: Path, add_item: AddItem) -> None:
    first = add_item("Flaky test in the payments suite")
    second = add_item("Flaky test in the payments suite")
    favourite = max(first.id, second.id)
    usage.record_use(StorePaths(repo), [favourite] * 1)
    usage.record_use(StorePaths(repo), [favourite])
    assert ids(search(repo, "flaky payments"))[0] == favourite
    data = json.loads(StorePaths(repo).usage.read_text())
    assert data[favourite]["hits"] == 2
    assert StorePaths(repo).usage.parent == StorePaths(repo).local


def test_every_search_leaves_a_receipt(repo: Path, add_item: AddItem) -> None:
    item = add_item("Receipts are written", "For every search.")
    outcome = search_outcome(repo, "receipts written", limit=5)
    search(repo, "nothing matches this", limit=5)
    written = receipts.read(StorePaths(repo))
    assert [r["op"] for r in written] == ["search", "search"]
    assert written[0]["query"] == "receipts written"
    assert written[0]["candidates"] == outcome.candidates == 1
    assert written[0]["returned"][0][0] == item.id
    assert written[1]["returned"] == []
    search(repo, "receipts", record=False)
    assert len(receipts.read(StorePaths(repo))) == 2


def test_searching_leaves_committed_files_untouched(repo: Path, add_item: AddItem) -> None:
    add_item("Nothing committed changes on read")
    items_dir = StorePaths(repo).items
    before = {p.name: p.read_bytes() for p in items_dir.iterdir()}
    search(repo, "committed")
    assert {p.name: p.read_bytes() for p in items_dir.iterdir()} == before


def test_limit_and_stop_word_queries(repo: Path, add_item: AddItem) -> None:
    for n in range(5):
        add_item(f"Gradle daemon note {n}")
    assert len(search(repo, "gradle", limit=3)) == 3
    assert search(repo, "gradle", limit=0) == []
    assert search(repo, "the of and") == []
    assert search(repo, "") == []


PROBE = """
import json, sys
from memcli.retrieval.search import search
from memcli.retrieval.layer1 import layer1_index
hits = search(sys.argv[1], "postgres port")
layer1_index(sys.argv[1])
print(json.dumps({"hits": [h.id for h in hits], "modules": sorted(sys.modules)}))
"""


def test_a_fresh_index_is_queried_without_heavy_imports(repo: Path, add_item: AddItem) -> None:
    item = add_item("Tests need Postgres on port 5433")
    age_files(repo)
    index_builder.build(StorePaths(repo))
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(repo)], capture_output=True, text=True, check=True
    )
    report = json.loads(result.stdout)
    assert report["hits"] == [item.id]
    loaded = {name.split(".")[0] for name in report["modules"]}
    assert not loaded & {"sklearn", "numpy", "scipy", "ruamel", "git", "typer", "rich"}
    assert "memcli.retrieval.index_builder" not in report["modules"]
    assert "memcli.store" not in report["modules"]


def test_items_follow_the_repository_to_its_first_commit_and_its_remote(
    bare_repo_no_commit: Path,
) -> None:
    """Items keep the identity they were written under; the repository keeps finding them."""
    from memcli import api
    from memcli.retrieval.search import search
    from tests.conftest import git

    root = bare_repo_no_commit
    api.init(root)
    memory = api.Memory.open(root)
    memory.add("env", "Written before the first commit", "alpha")
    git(root, "commit", "-q", "--allow-empty", "-m", "first")
    api.Memory.open(root).add("env", "Written after the first commit", "alpha")
    git(root, "remote", "add", "origin", "https://github.com/acme/shop.git")
    api.Memory.open(root).add("env", "Written after the remote", "alpha")
    titles = {hit.title for hit in search(root, "alpha written", limit=10)}
    assert titles == {
        "Written before the first commit",
        "Written after the first commit",
        "Written after the remote",
    }


def test_a_repository_with_a_remote_is_queried_without_git(repo: Path, add_item: AddItem) -> None:
    from tests.conftest import git

    git(repo, "remote", "add", "origin", "git@github.com:acme/shop.git")
    item = add_item("Tests need Postgres on port 5433")
    age_files(repo)
    index_builder.build(StorePaths(repo))
    (repo / ".memory" / "local" / "scope.json").unlink()  # as in a fresh clone
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(repo)], capture_output=True, text=True, check=True
    )
    report = json.loads(result.stdout)
    assert report["hits"] == [item.id]
    assert "git" not in {name.split(".")[0] for name in report["modules"]}
