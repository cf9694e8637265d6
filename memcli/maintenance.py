"""The upkeep half of :class:`memcli.api.Memory`: compact, import, prune, diff.

Each does what the command of the same name does (`mem compact`, `mem import`, `mem prune`,
`mem diff`); the CLI parses its arguments, calls one of these and renders the result
(tests/integration/test_one_way_in_parity.py holds them to it). A bad argument is a
:class:`~memcli.errors.MemError` naming its field (``format``); each front end shows the field
in its own words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

from memcli.errors import MemError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memcli.api import Memory
    from memcli.compact.importer import ImportResult
    from memcli.compact.run import CompactResult
    from memcli.paths import StorePaths
    from memcli.review.diff import MemoryDiff
    from memcli.review.findings import Report

IMPORT_FORMATS = ("claude-code", "codex", "pi", "swe-agent", "openhands", "jsonl")


def import_sources(paths: Sequence[str | Path], fmt: str) -> list[Path]:
    """The files or folders to import, checked: a MemError naming the field otherwise (the CLI
    checks its arguments with this before it opens the store)."""
    if fmt not in IMPORT_FORMATS:
        raise MemError(f"{fmt!r} is not one of {', '.join(IMPORT_FORMATS)}", field="format")
    if not paths:
        raise MemError("give at least one file or folder", field="paths")
    found = [Path(path).expanduser() for path in paths]
    for path in found:
        if not path.exists():
            raise MemError(f"{path}: no such file or folder")
    return found


class Maintenance:
    """Mixed into :class:`memcli.api.Memory`, which provides what is declared here."""

    root: Path
    paths: StorePaths

    def _as_memory(self) -> Memory:
        """This store as the :class:`memcli.api.Memory` it is mixed into."""
        return cast("Memory", self)

    def compact(self, session: str | None = None) -> list[CompactResult]:
        """Compact one session's pending observations, or (``None``) every pending buffer."""
        from memcli import compact

        if session is not None:
            return [compact.compact_session(self._as_memory(), session)]
        return compact.compact_all(self._as_memory())

    def compact_in_background(self, sessions: Sequence[str] | None = None) -> int:
        """Compact ``sessions`` (every pending buffer when None) in a detached process that
        outlives the caller; returns its pid. Its failures go to ``local/mem.log``."""
        from memcli import compact

        return compact.spawn_detached(self._as_memory(), sessions)

    def import_items(
        self,
        paths: Sequence[str | Path],
        fmt: str,
        progress: Callable[[int, int], None] | None = None,
    ) -> ImportResult:
        """Items from Claude Code or Codex transcripts (files or folders of ``*.jsonl``), or
        from JSONL files of items (``fmt``: claude-code, codex or jsonl); one result for all."""
        from memcli import compact

        found = import_sources(paths, fmt)
        if fmt != "jsonl":
            return compact.import_transcripts(self._as_memory(), found, fmt, progress)
        result = compact.import_jsonl(self._as_memory(), found[0])
        for path in found[1:]:
            more = compact.import_jsonl(self._as_memory(), path)
            for name in ("added", "updated", "unchanged", "renamed", "lines", "skipped_lines"):
                setattr(result, name, getattr(result, name) + getattr(more, name))
            result.ids += more.ids
            result.sessions += more.sessions
        return result

    def prune_check(self) -> Report:
        """What `mem prune --check` reports: expired and stale items, duplicates, secrets,
        lint problems; nothing is changed."""
        from memcli.review import prune

        return prune.run(self._as_memory())

    def prune_apply(self, archive: bool | None = None) -> Report:
        """Fix what the checks found in the working tree (remove or archive expired items, tag
        stale ones, update renamed anchors, merge duplicates, mask secrets); the report holds
        what is left, and ``applied`` what was done. ``archive`` None: ``prune.archive`` in
        config.yaml decides."""
        from memcli.review import prune

        return prune.run(self._as_memory(), fix=True, archive=archive)

    def diff(self, revisions: str | None = None) -> MemoryDiff:
        """The semantic diff of ``.memory/``: ``BASE`` (to the working tree), ``BASE..HEAD``,
        ``BASE...HEAD`` (from their merge-base); None: from the merge-base with the default
        branch to the working tree."""
        from memcli.review import diff

        return diff.memory_diff(self.root, revisions)
