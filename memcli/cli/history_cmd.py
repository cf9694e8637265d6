"""`mem log ID`: one item's history across commits (`mem log` without an ID shows receipts)."""

from __future__ import annotations

import sys

from memcli.errors import EXIT_OK, MemError


def run_history(item_id: str, as_json: bool) -> int:
    """Print the history of one item, newest first; returns the exit code."""
    from memcli.paths import find_repo_root
    from memcli.review.history import item_history

    root = find_repo_root()
    try:
        if root is None:
            raise MemError("not inside a git repository (run `git init` first)")
        versions = item_history(root, item_id)
    except Exception as exc:
        from memcli.cli import failure

        return failure.report(exc)
    if as_json:
        import json

        data = [v.to_json() for v in versions]
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    out: list[str] = []
    for version in versions:
        sha = version.sha[:10] if version.sha else "(working tree)"
        when = version.date[:10] if version.date else ""
        head = "  ".join(x for x in (sha, when, version.author, version.status) if x)
        out.append(f"{head}  {version.subject}".rstrip())
        if version.status in ("added", "renamed") or not (version.changes or version.body_diff):
            out.append(
                f"    {version.title}"
                + (f"  ({version.path})" if version.status == "renamed" else "")
            )
        for change in version.changes:
            out.append(f"    {change.field}: {change.summary()}")
        if version.body_diff:
            out.append("    body:")
            out += [f"      {line}" for line in version.body_diff]
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK
