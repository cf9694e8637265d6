"""Candidate lessons: where in a session the rules see something worth remembering.

Read incrementally: :func:`scan` takes the observations captured since the last checkpoint
and a running state (failing commands not yet passed, files changed since), and adds
candidates to ``state["candidates"]``. A candidate is a dict::

    {"id": "c1a2b3c4d", "kind": "fix", "suggest": "pitfall", "lines": ["..."],
     "obs": ["o..."], "refs": ["raw/<session>.jsonl#o..."], "files": [...],
     "verified": true, "session": "...", "ts": "..."}

Kinds: ``fix`` (a failing command passing again after changes), ``env`` (a missing tool or
package, a wrong version, a busy port, a permission, an interactive prompt, shell state),
``correction`` and ``convention`` (the user's), ``decision`` and ``cause`` (sentences of the
assistant's messages), ``unresolved`` (a check still failing when the turn ends), ``denied``
(a tool call the user refused), ``interrupted`` (a command stopped before it ended) and
``subagent`` (a sub-agent's report naming a cause or a decision) and ``failed`` (a command,
not a check, still failing with a telling line when the turn ends).

Ids come from the session, the kind and what the candidate is about, so the same lesson seen
twice (in the buffer and in the Stop payload) is one candidate. Hook path: no :mod:`re`, no
:mod:`json`, no dataclasses.
"""

import os

from memcli import signals

SUGGEST = {
    "fix": "pitfall", "env": "env", "correction": "convention", "convention": "convention",
    "decision": "decision", "cause": "pitfall", "unresolved": "task", "denied": "env",
    "interrupted": "env", "subagent": "pitfall", "failed": "pitfall",
}  # fmt: skip
# Asked first when a turn holds more candidates than one request may name.
PRIORITY = ("fix", "env", "correction", "convention", "cause", "decision", "unresolved",
            "denied", "failed", "interrupted", "subagent")  # fmt: skip
_WRAPPERS = ("uv", "poetry", "pipenv", "pdm", "hatch", "npx", "bunx", "time", "sudo", "env",
             "nohup", "exec")  # fmt: skip


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_MULTI = _set(
    """npm pnpm yarn bun cargo go make dotnet mvn gradle gradlew docker kubectl git just deno
    rake mix swift bazel tox nox uv pip pip3 composer"""
)
_LOOKING = _set(
    """cat less more head tail grep egrep rg ag find fd ls tree pwd echo printf which type
    whereis printenv wc stat file du df ps id whoami date uname sed awk jq sort uniq cut diff
    cd true false sleep history man mem"""
)
_CHECK_PROGRAMS = _set(
    """pytest tox nox jest vitest mocha tsc mypy ruff eslint flake8 pylint phpunit rspec
    playwright cypress ctest pyright"""
)
_CHECK_VERBS = ("test", "build", "check", "lint", "typecheck", "compile", "verify", "ci")
_SUBAGENT_TOOLS = frozenset(("task", "agent", "spawn_agent", "subagent", "dispatch_agent"))
MAX_LINE = 220
MAX_CANDIDATES = 200  # per session: the state file stays small however long the session


def candidate_id(session: str, kind: str, about: str) -> str:
    return "c" + format(crc32(f"{session}\0{kind}\0{about}".encode()), "08x")


_CRC_TABLE: list[int] = []


def crc32(data: bytes) -> int:
    """zlib.crc32, in Python: loading zlib costs more than the few ids one checkpoint makes."""
    table = _CRC_TABLE or _crc_table()
    crc = 0xFFFFFFFF
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _crc_table() -> list[int]:
    # The table is linear over XOR: each entry is the XOR of the entries of its bits.
    bits = []
    for bit in range(8):
        value = 1 << bit
        for _ in range(8):
            value = (value >> 1) ^ (0xEDB88320 if value & 1 else 0)
        bits.append(value)
    table = [0] * 256
    for index in range(1, 256):
        low = index & -index
        table[index] = table[index ^ low] ^ bits[low.bit_length() - 1]
    _CRC_TABLE[:] = table
    return _CRC_TABLE


_KEYS: dict[str, tuple[str, bool]] = {}  # a session runs the same commands again and again


def command_key(command: str) -> tuple[str, bool]:
    """(program and verb, is it a check) of the part of a shell line that decides it."""
    known = _KEYS.get(command)
    if known is None:
        known = _KEYS[command] = _command_key(command)
    return known


def _command_key(command: str) -> tuple[str, bool]:
    parts = [command]
    for separator in ("&&", "||", ";"):
        parts = [p for part in parts for p in part.split(separator) if p.strip()]
    segment = parts[-1] if parts else command
    for part in reversed(parts):  # `git add -f x && git status`: the add decides
        words = part.split("|", 1)[0].split()
        if words and not looking(_bare_key(words)):
            segment = part
            break
    words = segment.split("|", 1)[0].split()
    while words and "=" in words[0] and not words[0].startswith("-"):
        words.pop(0)
    changed = True
    while changed and words:
        changed = False
        first = os.path.basename(words[0])
        if first in _WRAPPERS:
            words = words[2:] if len(words) > 1 and words[1] in ("run", "exec") else words[1:]
            changed = True
        elif first.startswith("python") and len(words) > 2 and words[1] == "-m":
            words = words[2:]
            changed = True
    if not words:
        return "", False
    program = os.path.basename(words[0])
    verbs = [w for w in words[1:] if not w.startswith("-")]
    key = f"{program} {verbs[0]}" if program in _MULTI and verbs else program
    if key.endswith(" run") and len(verbs) > 1:
        key += f" {verbs[1]}"
    check = program in _CHECK_PROGRAMS or (
        program in _MULTI | {"make", "go"} and any(v in key for v in _CHECK_VERBS)
    )
    return key, check


def _bare_key(words: list[str]) -> str:
    program = os.path.basename(words[0])
    return f"{program} {words[1]}" if program == "git" and len(words) > 1 else program


def looking(key: str) -> bool:
    program = key.split(" ", 1)[0]
    if program == "git":
        return key.split(" ", 1)[-1] in ("status", "diff", "log", "show", "blame", "branch")
    return program in _LOOKING


def _line(text: str, limit: int = MAX_LINE) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def sentences(text: str) -> list[str]:
    """Prose sentences, cheaply: code blocks dropped, split at line ends and full stops."""
    out: list[str] = []
    in_code = False
    for raw in text.split("\n"):
        if raw.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        line = raw.strip().lstrip("-*#>0123456789. ").strip().strip("*").strip()
        for part in line.replace("? ", "?\n").replace("! ", "!\n").replace(". ", ".\n").split("\n"):
            part = part.strip()
            if len(part) >= 3:
                out.append(part)
    return out


def _instructions(prompt: str) -> bool:
    lowered = prompt.lower()
    markers = ("<system-reminder>", "<command-name>", "<command-message>", "claude.md", "agents.md")
    return any(m in lowered for m in markers) or prompt.count("\n") > 25


def scan(records: list[dict[str, object]], state: dict[str, object]) -> None:
    """Add the candidates ``records`` (newly captured observations, in order) show."""
    for record in records:
        if not isinstance(record, dict) or "note" in record or not record.get("id"):
            continue
        kind = _text(record, "kind")
        state.setdefault("session", _text(record, "session"))
        if not state.get("agent") and _text(record, "agent"):
            state["agent"] = _text(record, "agent")
        summary = _text(record, "summary")
        if summary.startswith("$ ") and _text(record, "input"):
            _command(record, state)
        elif kind == "edit" or (kind == "error" and record.get("files")):
            _edit(record, state)
        elif kind == "prompt":
            _prompt(record, state)
        elif kind == "conclusion":
            message(_text(record, "excerpt"), state, record)
        elif kind == "other" and _text(record, "tool").lower() in _SUBAGENT_TOOLS:
            _subagent(record, state)
        elif record.get("ok") is False and _text(record, "tool"):
            _refused_tool(record, state)


def _text(record: dict[str, object], name: str) -> str:
    value = record.get(name)
    return value if isinstance(value, str) else ""


def _add(
    state: dict[str, object],
    kind: str,
    about: str,
    lines: list[str],
    record: dict[str, object] | None,
    **extra: object,
) -> None:
    session = str(state.get("session") or "")
    found = state.setdefault("candidates", {})
    assert isinstance(found, dict)
    cid = candidate_id(session, kind, about)
    if cid in found or len(found) >= MAX_CANDIDATES:
        return
    entry: dict[str, object] = {
        "id": cid,
        "kind": kind,
        "suggest": SUGGEST[kind],
        "lines": [_line(line) for line in lines if line.strip()][:2],
        "obs": [],
        "refs": [],
        "files": [],
        "session": session,
        "ts": "",
    }
    if record is not None:
        entry["obs"] = [_text(record, "id")]
        entry["refs"] = [_text(record, "raw")] if _text(record, "raw") else []
        entry["ts"] = _text(record, "ts")
    entry.update(extra)
    found[cid] = entry


def _runs(state: dict[str, object]) -> dict[str, dict[str, object]]:
    runs = state.setdefault("runs", {})
    assert isinstance(runs, dict)
    return runs


def _command(record: dict[str, object], state: dict[str, object]) -> None:
    command = _text(record, "input")
    key, check = command_key(command)
    if not key:
        return
    excerpt, summary = _text(record, "excerpt"), _text(record, "summary")
    if signals.denied(excerpt) or signals.denied(summary):  # even a look around: the mode
        _add(state, "denied", key, [f"`{_line(command, 120)}` was refused: "
             f"{_line(excerpt or summary, 120)}"], record)  # fmt: skip
        return
    if looking(key):
        return
    runs = _runs(state)
    ok = record.get("ok")
    if ok is None and "-> interrupted" in summary:
        _add(state, "interrupted", key, [f"`{_line(command, 120)}` was interrupted before it "
             "ended (a watch mode, a server, a prompt waiting for input?)"], record)  # fmt: skip
        return
    if ok is True and runs:  # a different command succeeding may be the fix
        ran = f"ran `{_line(command, 80)}`"
        for other_key, run in runs.items():
            if other_key != key:
                run["work"] = [*_strings(run.get("work")), ran][-3:]
    if ok is False:
        earlier = runs.get(key)
        if earlier is not None:  # the same command failing again: read its output at turn end
            pending = state.setdefault("_last_output", {})
            assert isinstance(pending, dict)
            pending[key] = record
            return
        sig_kind, line = _signature(excerpt, summary)
        runs[key] = {"cmd": command, "line": line, "check": check, "work": [], "files": [],
                     "obs": [_text(record, "id")], "ref": _text(record, "raw"),
                     "ts": _text(record, "ts"), "last": line, "kind": sig_kind}  # fmt: skip
        if sig_kind in signals.ENVIRONMENT:
            _add(state, "env", f"{sig_kind}\0{line}", [f"`{_line(command, 100)}` failed: {line}"],
                 record, env=sig_kind)  # fmt: skip
        return
    _pending(state).pop(key, None)
    passed = runs.pop(key) if key in runs else None
    if ok is True and passed is not None:
        run = passed
        work = _strings(run.get("files")) and [f"changed {', '.join(_strings(run['files'])[:4])}"]
        work = [*(work or []), *_strings(run.get("work"))]
        if not work:
            added = added_flags(str(run["cmd"]), command)
            if added:  # the same command passing with other flags: the flags are the remedy
                work = [f"ran it with `{' '.join(added)}`"]
            else:
                return  # passed with nothing done in between: flaky, not a fix
        first = str(run.get("line") or "an error")
        _add(state, "fix", f"{key}\0{first}",
             [f"`{_line(str(run['cmd']), 100)}` failed: {first}",
              f"then passed after: {'; '.join(work)[:150]}"],
             record, files=_strings(run.get("files"))[:5], verified=True,
             obs=[*_strings(run.get("obs")), _text(record, "id")],
             refs=[r for r in (str(run.get("ref") or ""), _text(record, "raw")) if r])  # fmt: skip


_NOT_REMEDIES = frozenset(("-h", "--help", "-V", "--version", "-v", "--verbose", "-n",
                           "--dry-run"))  # fmt: skip


def added_flags(failed: str, passed: str) -> list[str]:
    """Options the passing command line has and the failing one had not (``--no-verify``),
    in the part before any pipe; asking for help or a dry run is no remedy."""
    before = set(failed.split("|", 1)[0].split())
    added = [w for w in dict.fromkeys(passed.split("|", 1)[0].split())
             if w.startswith("-") and len(w) > 1 and w not in before]  # fmt: skip
    if any(w in _NOT_REMEDIES for w in added):
        return []
    return added[:3]


def _refused_tool(record: dict[str, object], state: dict[str, object]) -> None:
    """A tool other than the shell or an edit (a web fetch, a sub-agent) the user or the
    permission mode refused."""
    said = _text(record, "excerpt") or _text(record, "summary")
    if signals.denied(said):
        tool = _text(record, "tool")
        _add(state, "denied", f"tool\0{tool}", [f"{tool} was refused: {_line(said, 120)}"],
             record)  # fmt: skip


def _signature(excerpt: str, summary: str) -> tuple[str, str]:
    kind, line = signals.failure(excerpt)
    if not line:
        detail = summary.rsplit("(", 1)[-1].rstrip(")") if summary.endswith(")") else ""
        line = "" if signals.is_generic(detail) else detail
    return kind, line


def _pending(state: dict[str, object]) -> dict[str, dict[str, object]]:
    """Outputs of repeated failures not yet read (this run only: never saved)."""
    pending = state.get("_last_output")
    return pending if isinstance(pending, dict) else {}


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _edit(record: dict[str, object], state: dict[str, object]) -> None:
    files = _strings(record.get("files"))
    summary, excerpt = _text(record, "summary"), _text(record, "excerpt")
    if record.get("ok") is False:
        if signals.denied(excerpt) or signals.denied(summary):
            what = ", ".join(files[:2]) or "a file"
            refused = f"a change to {what} was refused: {_line(excerpt or summary, 120)}"
            _add(state, "denied", f"write\0{what}", [refused], record)
        return
    for run in _runs(state).values():
        known = run.get("files")
        if isinstance(known, list) and (len(known) >= 8 or all(f in known for f in files)):
            continue  # nothing to add (the usual case: the same files edited again and again)
        run["files"] = list(dict.fromkeys([*_strings(known), *files]))[:8]


def _prompt(record: dict[str, object], state: dict[str, object]) -> None:
    prompt = _text(record, "excerpt")
    if not prompt or _instructions(prompt) or prompt.startswith("/"):
        return
    seen = state.setdefault("_seen", set())
    assert isinstance(seen, set)
    for sentence in sentences(prompt)[:40]:
        if sentence in seen:
            continue
        seen.add(sentence)
        words = len(sentence.split())
        if "?" in sentence or not 3 <= words <= 40:
            continue
        if signals.correction(sentence):
            _add(state, "correction", sentence.lower(), [f'the user said: "{sentence}"'], record)
        elif signals.convention(sentence):
            _add(state, "convention", sentence.lower(), [f'the user said: "{sentence}"'], record)


def message(text: str, state: dict[str, object], record: dict[str, object] | None) -> None:
    """Decisions and root causes in an assistant message (captured, or from the Stop event)."""
    seen = state.setdefault("_seen", set())  # this run's sentences: a repeat costs nothing
    assert isinstance(seen, set)
    for sentence in sentences(text)[:80]:
        if sentence in seen:
            continue
        seen.add(sentence)
        words = len(sentence.split())
        if "?" in sentence or not 6 <= words <= 60 or signals.narration(sentence):
            continue
        if signals.root_cause(sentence):
            _add(state, "cause", sentence.lower(), [f'you said: "{sentence}"'], record)
        elif signals.decision(sentence):
            _add(state, "decision", sentence.lower(), [f'you said: "{sentence}"'], record)


def _subagent(record: dict[str, object], state: dict[str, object]) -> None:
    report = _text(record, "excerpt")
    found = next(
        (
            s
            for s in sentences(report)[:120]
            if 6 <= len(s.split()) <= 60
            and not signals.narration(s)
            and (signals.root_cause(s) or signals.decision(s))
        ),
        "",
    )
    if not found:
        _kind, found = signals.failure(report)
    if found:
        _add(state, "subagent", found.lower(), [f'a sub-agent reported: "{found}"'], record)


def turn_end(state: dict[str, object]) -> None:
    """At the end of a turn: checks still failing become ``unresolved`` candidates."""
    pending = _pending(state)
    for key, run in _runs(state).items():
        if key in pending:  # the last failure of this command: what it says now
            record = pending[key]
            kind, line = _signature(_text(record, "excerpt"), _text(record, "summary"))
            if line:
                run["last"], run["kind"] = line, kind
            if kind in signals.ENVIRONMENT:
                command = _line(str(run["cmd"]), 100)
                _add(state, "env", f"{kind}\0{line}", [f"`{command}` failed: {line}"], record,
                     env=kind)  # fmt: skip
        if not run.get("check"):
            _still_failing(state, key, run)
            continue
        line = str(run.get("last") or run.get("line") or "")
        files = _strings(run.get("files"))
        lines = [f"`{_line(str(run['cmd']), 100)}` still fails at the end of the turn"
                 + (f": {line}" if line else ""),
                 f"after changing {', '.join(files[:4])}" if files else ""]  # fmt: skip
        _add(state, "unresolved", f"{key}\0{line}", lines, None,
             obs=_strings(run.get("obs")), refs=[str(run.get("ref") or "")],
             files=_strings(run.get("files"))[:5], ts=str(run.get("ts") or ""))  # fmt: skip


def _still_failing(state: dict[str, object], key: str, run: dict[str, object]) -> None:
    """A command (not a check) still failing with a telling line: what the model learned
    about it (a wrong flag, a script's own message, a tool that does not do that) is a
    lesson; environment failures are already ``env`` candidates."""
    line = str(run.get("last") or run.get("line") or "")
    if len(line.split()) < 3 or run.get("kind") in signals.ENVIRONMENT:
        return  # signature lines are never generic; environment ones are `env` already
    _add(state, "failed", f"{key}\0{line}",
         [f"`{_line(str(run['cmd']), 100)}` failed and was not made to pass: {line}"], None,
         obs=_strings(run.get("obs")), refs=[str(run.get("ref") or "")],
         ts=str(run.get("ts") or ""))  # fmt: skip
