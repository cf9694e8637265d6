"""`mem merge-driver %O %A %B`: merge two edits of one item file field by field.

Git calls a merge driver with the common ancestor (%O), our version (%A) and theirs (%B); the
driver writes the result over %A and exits 0 when the merge is clean, non-zero when it left
conflicts (gitattributes(5), "Defining a custom merge driver"). Two branches that add
different items never need it: items are separate files with random names.

Field by field, against the ancestor (a field one side changed takes that side's value):

- ``tags``, ``evidence``, ``anchors``: the union of both sides' additions, minus what either
  side removed;
- ``body``: when both sides changed it, the side whose ``updated`` is newer (ours on a tie);
- ``importance``: when both changed it, the higher; ``updated``: the later; ``created``: the
  earlier; ``confidence``: ``verified`` wins;
- any other field both sides changed to different values (title, kind, expires, scope ...) is
  a real contradiction: the file is written with git-style conflict markers around that field
  (ours first) and the driver exits 1, so git reports a conflict for a person to resolve.

A side that is not a readable item (broken YAML, say) falls back to git's own line merge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memcli import model
from memcli.review import fields
from memcli.review.gitrepo import GitRepo, merge_file

DRIVER_NAME = "mem"
ATTRIBUTES_LINE = ".memory/items/*.yaml merge=mem"
DRIVER_COMMAND = "merge-driver %O %A %B"
DESCRIPTION = "mem: merge memory items field by field"
SETS = ("tags", "evidence", "anchors")


def driver_program() -> str:
    """How git starts the driver: this very interpreter with ``-m memcli``, by absolute path,
    so that it works when `mem` is not on ``PATH`` (a virtual environment, pipx), as
    pre-commit's hook scripts do. Git runs it through the shell, hence the quoting."""
    import shlex
    import sys

    return f"{shlex.quote(sys.executable)} -m memcli"


def register_merge_driver(root: Path, command: str | None = None) -> list[str]:
    """Register the driver for this clone: the ``.gitattributes`` line (committed, shared) and
    ``merge.mem.*`` in the local git config (per clone). Idempotent; returns what changed."""
    command = command or driver_program()
    changed: list[str] = []
    attributes = root / ".gitattributes"
    text = attributes.read_text(encoding="utf-8") if attributes.is_file() else ""
    if ATTRIBUTES_LINE not in [" ".join(line.split()) for line in text.splitlines()]:
        from memcli import atomic

        glue = "" if not text or text.endswith("\n") else "\n"
        atomic.write_text(attributes, f"{text}{glue}{ATTRIBUTES_LINE}\n")
        changed.append(".gitattributes")
    with GitRepo(root) as repo:
        for key, value in (
            (f"merge.{DRIVER_NAME}.name", DESCRIPTION),
            (f"merge.{DRIVER_NAME}.driver", f"{command} {DRIVER_COMMAND}"),
        ):
            if repo.config_get(key) != value:
                repo.config_set(key, value)
                changed.append(f"git config {key}")
    return changed


def merge_data(
    base: dict[str, Any] | None, ours: dict[str, Any], theirs: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The merged mapping (ours where a field conflicts) and the conflicting fields."""
    ancestor = base or {}
    keys = [k for k in model.FIELD_ORDER if k in ours or k in theirs]
    keys += [k for k in [*ours, *theirs] if k not in keys]
    merged: dict[str, Any] = {}
    conflicts: list[str] = []
    for key in dict.fromkeys(keys):
        o: Any = ancestor.get(key)
        a: Any = ours.get(key)
        b: Any = theirs.get(key)
        if a == b:
            value = a
        elif key in SETS:
            value = _merge_set(o if base is not None else None, a, b)
        elif o == a and base is not None:
            value = b
        elif o == b and base is not None:
            value = a
        elif key == "body":
            value = b if str(theirs.get("updated") or "") > str(ours.get("updated") or "") else a
        elif key == "importance" and _numbers(a, b):
            value = max(a, b)
        elif key in ("updated", "created") and a and b:
            value = max(str(a), str(b)) if key == "updated" else min(str(a), str(b))
        elif key == "confidence" and "verified" in (a, b):
            value = "verified"
        else:
            value = a if a is not None else b
            conflicts.append(key)
        if value is not None:
            merged[key] = value
    return merged, conflicts


def _numbers(*values: Any) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _key(entry: Any) -> Any:
    return (
        tuple(sorted((str(k), str(v)) for k, v in entry.items()))
        if isinstance(entry, dict)
        else entry
    )


def _merge_set(base: Any, ours: Any, theirs: Any) -> list[Any]:
    ours_list = list(ours or []) if isinstance(ours, list) else []
    theirs_list = list(theirs or []) if isinstance(theirs, list) else []
    base_keys = {_key(e) for e in base or []} if isinstance(base, list) else set()
    ours_keys, theirs_keys = {_key(e) for e in ours_list}, {_key(e) for e in theirs_list}
    removed = (base_keys - ours_keys) | (base_keys - theirs_keys)
    merged: list[Any] = []
    seen: set[Any] = set()
    for entry in ours_list + theirs_list:
        key = _key(entry)
        if key not in seen and key not in removed:
            seen.add(key)
            merged.append(entry)
    return merged


def merge_files(
    base: Path, ours: Path, theirs: Path, path: str = "", marker_size: int = 7
) -> list[str]:
    """The git merge driver: the result is written over ``ours``; the conflicting fields
    (``(text)`` after a line merge), none when the merge is clean."""
    from memcli import atomic, yamlio

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in (base, ours, theirs)]
    parsed = [
        fields.parse(t, path or str(p))[0] for t, p in zip(texts, (base, ours, theirs), strict=True)
    ]
    base_data = parsed[0] if texts[0].strip() else None
    ours_data, theirs_data = parsed[1], parsed[2]
    ours_doc, _problem = yamlio.parse(texts[1], str(ours))
    if (
        ours_data is None
        or theirs_data is None
        or ours_doc is None
        or (texts[0].strip() and base_data is None)
    ):
        result, conflicted = merge_file(ours, base, theirs, _labels(path), marker_size)
        atomic.write_text(ours, result)
        return ["(text)"] if conflicted else []
    merged, conflicts = merge_data(base_data, ours_data, theirs_data)
    text = yamlio.render(merged, ours_doc, model.FIELD_ORDER)
    if conflicts:
        text = _with_markers(text, conflicts, ours_data, theirs_data, path, marker_size)
    atomic.write_text(ours, text)
    return conflicts


def _labels(path: str) -> tuple[str, str, str]:
    suffix = f" ({path})" if path else ""
    return f"ours{suffix}", f"base{suffix}", f"theirs{suffix}"


def _with_markers(
    text: str, keys: list[str], ours: dict[str, Any], theirs: dict[str, Any], path: str, size: int
) -> str:
    """``text`` with each conflicting top-level key replaced by ours/theirs marker blocks."""
    from memcli import yamlio

    doc, _problem = yamlio.parse(text, path)
    if doc is None:
        return text
    present = doc.plain()
    lines = text.split("\n")
    starts = sorted(doc.line_of(k) - 1 for k in present)
    tail = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
    ours_label, _base, theirs_label = _labels(path)
    # Bottom up, so that replacing one block leaves the line numbers above it valid.
    for key in sorted((k for k in keys if k in present), key=doc.line_of, reverse=True):
        start = doc.line_of(key) - 1
        end = next((s for s in starts if s > start), tail)
        mine = lines[start:end] if key in ours else []
        block = [f"{'<' * size} {ours_label}", *mine, "=" * size]
        block += [*_render_key(key, theirs), f"{'>' * size} {theirs_label}"]
        lines[start:end] = block
    return "\n".join(lines)


def _render_key(key: str, data: dict[str, Any]) -> list[str]:
    from memcli import yamlio

    if key not in data:
        return []
    return yamlio.dump(yamlio.to_node({key: data[key]})).rstrip("\n").split("\n")
