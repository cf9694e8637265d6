from __future__ import annotations

import string
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcli import api, model
from memcli.paths import StorePaths
from memcli.store import ItemStore

texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=300,
)
titles = st.text(
    alphabet=string.ascii_letters + string.digits + " :#'\"-[]{}&*!|>%@`,?",
    min_size=1,
    max_size=120,
).filter(lambda t: t.strip() == t and t)
items = st.builds(
    model.Item,
    id=st.from_regex(r"[a-z0-9][a-z0-9_-]{2,20}", fullmatch=True),
    kind=st.sampled_from(model.KINDS),
    title=titles,
    body=texts.filter(lambda t: t.strip() != ""),
    scope=st.fixed_dictionaries(
        {"project": st.from_regex(r"[a-z.]{1,10}/[a-z]{1,8}", fullmatch=True)}
    ),
    created=st.just("2026-11-29T10:00:00Z"),
    updated=st.just("2026-11-30T08:30:00Z"),
    tags=st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True), max_size=4, unique=True),
    importance=st.floats(min_value=0, max_value=1, allow_nan=False),
    confidence=st.sampled_from(model.CONFIDENCE),
    expires=st.one_of(st.none(), st.just("2027-01-01T00:00:00Z")),
    anchors=st.lists(st.fixed_dictionaries({"path": st.just("src/app.py")}), max_size=1),
    evidence=st.lists(st.fixed_dictionaries({"excerpt": texts.filter(bool)}), max_size=2),
    source=st.just({"compactor": "manual", "version": "0.1.0"}),
)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(item=items)
def test_any_valid_item_round_trips_and_rewriting_is_idempotent(
    repo: Path, item: model.Item
) -> None:
    store = ItemStore(StorePaths(repo))
    path = store.save(item)
    first = path.read_text(encoding="utf-8")
    loaded, problems = store.read(path)
    assert problems == []
    assert loaded == item
    store.save(loaded)
    assert path.read_text(encoding="utf-8") == first
    path.unlink()


def test_comments_and_long_lines_survive_an_edit(memory: api.Memory) -> None:
    long_line = "word " * 40 + "end"
    item = memory.add("decision", "Use psycopg 3", f"{long_line}\nsecond line\n", tags=["db"])
    path = memory.store.path_of(item.id)
    text = path.read_text()
    assert "body: |" in text and long_line in text  # literal block, no re-wrapping
    path.write_text(
        "# reviewed by ana\n" + text.replace("kind: decision", "kind: decision  # sure?")
    )
    memory.edit(item.id, title="Use psycopg 3, not psycopg2")
    after = path.read_text()
    assert after.startswith("# reviewed by ana\n")
    assert "kind: decision  # sure?" in after
    assert "title: Use psycopg 3, not psycopg2" in after
    assert long_line in after
    assert list(memory.get(item.id).to_dict())[:3] == ["id", "kind", "title"]


def test_file_name_is_the_id_and_survives_a_title_edit(memory: api.Memory) -> None:
    item = memory.add("env", "Node 20 is required", "nvm use 20")
    before = sorted(p.name for p in memory.store.files())
    memory.edit(item.id, title="Node 22 is required")
    assert sorted(p.name for p in memory.store.files()) == before == [f"{item.id}.yaml"]


def test_broken_files_are_skipped_with_a_problem_naming_path_and_line(memory: api.Memory) -> None:
    good = memory.add("task", "Port the CLI", "started")
    (memory.paths.items / "broken1234.yaml").write_text("id: broken1234\nkind: [unclosed\n")
    (memory.paths.items / "wrongtype1.yaml").write_text(
        "id: wrongtype1\nkind: pitfall\ntitle: t\nbody: b\nscope:\n  project: p\n"
        "created: '2026-01-01'\nupdated: '2026-01-01'\nimportance: high\n"
    )
    listed = memory.items()
    assert [i.id for i in listed] == [good.id]
    shown = [str(w) for w in memory.warnings]
    assert any(w.startswith(".memory/items/broken1234.yaml:3: (yaml)") for w in shown), shown
    assert ".memory/items/wrongtype1.yaml:9: importance: must be a number from 0 to 1" in shown


def test_lint_finds_id_mismatch_and_unknown_keys(memory: api.Memory) -> None:
    item = memory.add("task", "Port the CLI", "started")
    path = memory.store.path_of(item.id)
    (memory.paths.items / "other12345.yaml").write_text(
        path.read_text().replace(item.id, "someone1234")
    )
    path.write_text(path.read_text() + "colour: red\n")
    problems = [str(p) for p in memory.lint()]
    assert any(p.endswith("colour: unknown key") for p in problems)
    assert any("other12345.yaml:1: id: does not match the file name" in p for p in problems)
