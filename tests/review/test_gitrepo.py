"""Git for review: ``git grep`` prints the same lines with PCRE as with git's own regex engine,
whatever the bytes of a file, and blobs read through one listing of their folder are the blobs
read one by one, under the same size cap."""

from __future__ import annotations

from pathlib import Path

import pytest
from review_helpers import commit, item_path, save

from memcli import gitlayer, untrusted
from memcli.review import gitrepo, item_lines
from memcli.review.gitrepo import GitRepo, grep_args

UNDER = ".memory/items/"

# files whose lines could match differently: non-ASCII (a Kelvin sign and a dotted capital I
# fold to ASCII in Python), bytes that are not UTF-8, CRLF and lone CR, a NUL (binary), a BOM,
# keys indented, upper-cased, without their colon or not at the start, a tab
HOSTILE = {
    "kelvin": "kind: decision\ntitle: \u212aelvin \u0130stanbul caf\u00e9\nbody: |\n  \u00e9\n",
    "latin1": b"kind: decision\ntitle: caf\xe9 \xff\xfe\nbody: ok\nexpires: 2026-01-01\n",
    "crlf": "kind: decision\r\ntitle: CRLF lines\r\nbody: x\r\nexpires: 2026-01-02\r\n",
    "lonecr": "kind: decision\rtitle: lone CR\rbody: x\n",
    "binary": b"kind: decision\ntitle: a NUL \x00 here\nbody: x\n",
    "bom": "\ufeffkind: decision\ntitle: after a BOM\nbody: x\n",
    "keys": " kind: decision\nTitle: upper\ntitle\nbody : spaced\n\tbody: tab\nx kind: mid\n"
    "expires:\nexpires:2026\n",
}


def _write_hostile(repo: Path) -> None:
    for name, text in HOSTILE.items():
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        item_path(repo, f"host{name}").write_bytes(data)


@pytest.mark.parametrize("rev", ["HEAD", None])
def test_perl_and_git_regex_print_the_same_lines(repo: Path, rev: str | None) -> None:
    save(repo, "aaaa000001", "A plain decision", kind="decision", body="One.\nTwo.")
    _write_hostile(repo)
    commit(repo, "hostile")
    printed = {
        perl: gitlayer.run(repo, *grep_args(rev, item_lines.PATTERN, UNDER, 1, perl=perl))
        for perl in (True, False)
    }
    assert printed[True].status == printed[False].status == 0
    assert printed[True].stdout == printed[False].stdout
    assert "CRLF lines" in printed[True].stdout and "\u212aelvin" in printed[True].stdout


def _many(repo: Path, count: int) -> list[str]:
    paths = []
    for number in range(count):
        save(repo, f"many{number:06d}", f"Fact number {number}", body="x" * (number + 1))
        paths.append(f"{UNDER}many{number:06d}.yaml")
    (repo / UNDER / "nested").mkdir()
    (repo / UNDER / "nested" / "inner.yaml").write_text("kind: task\n", encoding="utf-8")
    commit(repo, "many")
    return paths


def test_blobs_through_a_folder_listing_are_the_blobs_read_one_by_one(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _many(repo, gitrepo.LIST_FOLDER_FROM + 4)
    wanted = paths + [f"{UNDER}nested", f"{UNDER}missing.yaml", f"{UNDER}nested/inner.yaml"]
    monkeypatch.setattr(
        untrusted, "MAX_FILE_BYTES", len(item_path(repo, "many000010").read_bytes())
    )
    listed: list[tuple[str, ...]] = []
    run = gitlayer.run

    def recording(root: Path, *args: str) -> gitlayer.GitResult:
        if args[0] == "ls-tree":
            listed.append(args)
        return run(root, *args)

    with GitRepo(repo) as git_repo:
        head = git_repo.resolve("HEAD")
        one_by_one = [git_repo.blobs([(head, path)])[0] for path in wanted]
        assert not listed  # a few files of a folder: no listing
        monkeypatch.setattr(gitlayer, "run", recording)
        together = git_repo.blobs([(head, path) for path in wanted])
        again = git_repo.blobs([(head, path) for path in reversed(wanted)])
    assert together == one_by_one and again == one_by_one[::-1]
    assert len(listed) == 1  # listed once, kept for the next call
    assert one_by_one[10] is not None and one_by_one[11] is None  # over the cap
    assert one_by_one[-3:-1] == [None, None]  # a folder, a missing file
    assert one_by_one[-1] == "kind: task\n"


def test_a_folder_listing_is_sliced_at_once_as_git_writes_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _many(repo, 20)
    (repo / UNDER / "link.yaml").symlink_to("many000001.yaml")
    commit(repo, "link")
    with GitRepo(repo) as git_repo:
        out = git_repo.try_run("ls-tree", "-z", "--full-name", "HEAD", "--", UNDER) or ""
        entries = [entry for entry in out.split("\0") if entry]
        one_by_one = gitrepo._listing_by_entry(entries)
        with monkeypatch.context() as patched:
            patched.setattr(gitrepo, "_listing_by_entry", _not_called)
            listing = git_repo.folder_objects("HEAD", UNDER.rstrip("/"))
    assert listing == one_by_one and len(listing) == len(paths) + 3  # .gitkeep, nested, link
    assert listing[f"{UNDER}nested"].split()[1] == "tree"
    assert listing[paths[0]].split()[:2] == ["100644", "blob"]


def _not_called(entries: list[str]) -> dict[str, str]:
    raise AssertionError("read one entry at a time")


@pytest.mark.parametrize(
    "entries",
    [
        # a tab in a name, a submodule (a longer type), object ids of SHA-256
        [f"100644 blob {'a' * 40}\tx.yaml", f"100644 blob {'b' * 40}\twith\ttab.yaml"],
        [f"100644 blob {'a' * 40}\tx.yaml", f"160000 commit {'c' * 40}\tsub"],
        [f"100644 blob {'d' * 64}\tx.yaml", f"100644 blob {'e' * 64}\ty.yaml"],
        [f"100644 blob {'a' * 40}\tx.yaml", "not an entry"],
    ],
)
def test_a_listing_git_writes_otherwise_is_read_entry_by_entry(entries: list[str]) -> None:
    out = "".join(f"{entry}\0" for entry in entries)
    assert gitrepo._listing(out) == gitrepo._listing_by_entry(entries)
    assert gitrepo._listing(out)["x.yaml"].split()[1] == "blob"
    assert gitrepo._listing("") == {}
