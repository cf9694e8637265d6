"""Observations read back from a session buffer, typed for the rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from memcli import reruns
from memcli.observed import buffer, filters

# A command the user stopped: its whole output says so ("Command aborted", "[Request
# interrupted by user]"). It did not fail: nothing about the code or the environment is in it.
_ABORTED = re.compile(
    r"(?:Error:\s*)?\[?(?:(?:command|operation|request|execution|process|tool call)\s+)?"
    r"(?:was\s+)?(?:aborted|cancell?ed|interrupted)(?:\s+by\s+(?:the\s+)?user)?[.!\]]*",
    re.I,
)


def aborted(output: str) -> bool:
    """An output that only says the command was stopped by the user."""
    return _ABORTED.fullmatch(output.strip()) is not None


@dataclass
class Obs:
    """One captured observation (see `memcli.capture.pipeline` for the line format)."""

    index: int
    id: str
    session: str
    ts: str
    kind: str
    event: str = ""
    tool: str = ""
    agent: str = ""
    summary: str = ""
    ok: bool | None = None
    exit_code: int | None = None
    files: list[str] = field(default_factory=list)
    input: str = ""
    excerpt: str = ""
    raw: str = ""
    project: str = ""
    branch: str = ""
    secs: float | None = None  # how long a command took, when the hook payload said
    # Seen by an earlier compaction batch of the session, carried for its open episodes only:
    # never counted again and never a source of prose facts.
    carried: bool = False

    @classmethod
    def from_record(cls, index: int, record: dict[str, Any]) -> Obs | None:
        obs_id = record.get("id")
        if not isinstance(obs_id, str) or not obs_id or "note" in record:
            return None

        def text(name: str) -> str:
            value = record.get(name)
            if not isinstance(value, str):
                return ""
            # Capture drops these already; a buffer written by anything else must not leak
            # injected memory or private spans into items either.
            return filters.drop_mem_fence(filters.drop_private(value)).strip("\n")

        ok = record.get("ok")
        code = record.get("exit_code")
        files = record.get("files")
        return cls(
            index=index,
            id=obs_id,
            session=text("session"),
            ts=text("ts"),
            kind=text("kind") or "other",
            event=text("event"),
            tool=text("tool"),
            agent=text("agent"),
            summary=text("summary"),
            ok=ok if isinstance(ok, bool) else None,
            exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
            files=[f for f in files if isinstance(f, str)] if isinstance(files, list) else [],
            input=text("input"),
            excerpt=text("excerpt"),
            raw=text("raw"),
            project=text("project"),
            branch=text("branch"),
            secs=buffer.seconds(record.get("secs")),
        )

    @property
    def is_command(self) -> bool:
        # Shell commands only: a failed edit is also kind "error", with the file as input.
        shell = self.summary.startswith("$ ")
        return (
            shell and bool(self.input) and self.kind in ("command", "error") and self.ok is not None
        )

    @property
    def failed(self) -> bool:
        """A command that failed; one the user aborted did not."""
        return self.is_command and self.ok is False and not aborted(self.excerpt)

    @property
    def passed(self) -> bool:
        return self.is_command and self.ok is True

    @property
    def is_edit(self) -> bool:
        return self.kind == "edit" and self.ok is not False and bool(self.files)

    @property
    def is_end(self) -> bool:
        return self.kind == "session" and self.summary.startswith("session end")

    def brief(self, excerpt_chars: int = 1500) -> dict[str, Any]:
        """The observation as the summarizer sees it."""
        out: dict[str, Any] = {"id": self.id, "ts": self.ts, "kind": self.kind}
        for name in ("tool", "summary", "input"):
            value = getattr(self, name)
            if value:
                out[name] = value
        if self.ok is not None:
            out["ok"] = self.ok
        if self.files:
            out["files"] = self.files
        if self.excerpt:
            out["excerpt"] = self.excerpt[-excerpt_chars:]
        return out


def from_records(records: list[dict[str, Any]]) -> list[Obs]:
    out: list[Obs] = []
    window = ""  # the file SWE-agent's window shows: what its `edit` changes
    for record in records:
        obs = Obs.from_record(len(out), record)
        if obs is not None:
            window = _shell_edit(obs, window)
            out.append(obs)
    return out


def _shell_edit(o: Obs, window: str) -> str:
    """Make a passing shell command that changed a file (SWE-agent's ``edit``, ``create``
    and ``str_replace_editor``, ``sed -i``, ``cat > file``) an edit, as an editing tool's
    call is; returns the file SWE-agent's window shows now."""
    if not o.is_command or o.ok is False:
        return window
    files, created = reruns.shell_edit(o.input, o.excerpt, window)
    if files:
        o.kind, o.files = "edit", files
        o.summary = ("write " if created else "edit ") + files[0]
    if o.input.startswith(("open ", "create ")) and len(o.input.split()) > 1:
        return reruns.window_file(o.excerpt) or o.input.split()[1]
    return reruns.window_file(o.excerpt) or window
