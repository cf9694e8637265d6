"""The capture pipeline: one hook payload in, one masked observation line out.

read stdin (bounded) -> parse (hook JSON or plain text) -> adapter (neutral event) -> noise
rules -> filters (private spans, mem's own fence, ANSI, stack traces, trimming) -> masking ->
append to ``local/buffer/<session>.jsonl``, with the masked raw payload (file contents
replaced by their hash) in ``local/raw/<session>.jsonl``.

Nothing unmasked reaches the disk: every string is masked before it is serialised.
"""

from __future__ import annotations

import os
import sys
import time

from memcli import untrusted
from memcli.defaults import DEFAULTS
from memcli.fastparse import fastjson, fastre
from memcli.gitfiles import find_repo_root
from memcli.observed import buffer

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from collections.abc import Callable

_CONTENT_KEYS = ("content", "contents", "file_text", "text", "new_content", "originalFile")
_PATH_KEYS = ("file_path", "path", "filePath", "notebook_path", "target_file")
_FILE_TOOLS = ("Read", "Write", "NotebookRead", "NotebookEdit", "read_file", "write_file")


class CaptureError(Exception):
    """Bad input: the event is skipped (exit 2 under --strict)."""


# ``advance``: what a front end does once a tool call's observation took its session's buffer
# past another buffer.ADVANCE_BYTES, called with (local folder, session, agent, transcript
# path): it advances the Stop checkpoint's scan (memcli.checkpoint.run.advance) once capture's
# own work is done. Capture sits below the checkpoint and never imports it.
_TURN_KINDS = ("prompt", "conclusion", "note")


def capture(
    options: dict[str, str | bool | None],
    log_path: list[str],
    advance: Callable[[str, str, str, object], object] | None = None,
) -> None:
    root = find_repo_root(os.getcwd())
    memory = _memory_dir(root)
    settings = load_settings(memory)
    if memory:
        log_path.append(os.path.join(memory, "local", "mem.log"))
    data, total = _read_stdin(_int(settings, "max_input_bytes"))
    if total > len(data):
        raise CaptureError(f"payload of {total} bytes is over capture.max_input_bytes")
    # A byte-order mark before the JSON (Cursor's payloads on Windows start with one).
    text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
    if "\x00" in text:  # looked for first: replace() scans a megabyte forty times as slowly
        text = text.replace("\x00", "")
    payload = _parse(text)
    if memory is None and payload is not None and isinstance(payload.get("cwd"), str):
        root = find_repo_root(str(payload["cwd"]))
        memory = _memory_dir(root)
        settings = load_settings(memory)
        if memory:
            log_path.append(os.path.join(memory, "local", "mem.log"))
    if memory is None or root is None:
        return  # no .memory/ here: capture is a silent no-op
    local = os.path.join(memory, "local")
    fastre.use_cache(os.path.join(local, "regex.cache"))
    if payload is not None and payload.get("transcript_path") and _turn_end(payload):
        from memcli.capture import notes

        notes.write_turn_notes(
            payload, options, local,
            lambda kind, said, agent: observe_said(payload, kind, said, settings, root, agent),
            lambda note, raw: write(local, note, raw, settings),
        )  # fmt: skip
    observation, raw = _observe(payload, text, options, settings, root)
    crossed = observation is not None and write(local, observation, raw, settings)
    fastre.save()
    # A tool call's capture only: the Stop checkpoint reads up to a turn's end itself.
    if crossed and observation and advance and observation.get("kind") not in _TURN_KINDS:
        transcript = payload.get("transcript_path") if payload is not None else None
        advance(local, str(observation["session"]), str(observation.get("agent") or ""),
                transcript)  # fmt: skip


def observe_note(
    payload: dict[str, object],
    text: str,
    settings: dict[str, object],
    root: str,
    agent: str | None = None,
) -> tuple[dict[str, object] | None, dict[str, object] | None]:
    """One mid-turn assistant text as a ``note`` observation: exactly what a turn-end
    (``conclusion``) observation of ``payload`` would be with ``text`` as its message, but of
    kind ``note`` and summary ``note: <first line>``."""
    said = {**payload, "last_assistant_message": text, "stop_hook_active": False}
    if said.get("hook_event_name") == "StopFailure":  # a turn an API error cut short
        said["hook_event_name"] = "Stop"
    observation, raw = _observe(said, "", {"agent": agent}, settings, root)
    if observation is None or observation.get("kind") != "conclusion":
        return None, None
    summary = str(observation.get("summary") or "")
    observation["kind"] = "note"
    observation["summary"] = "note: " + summary.removeprefix("conclusion: ")
    return observation, raw


def observe_queued(
    payload: dict[str, object],
    text: str,
    settings: dict[str, object],
    root: str,
    agent: str | None = None,
) -> tuple[dict[str, object] | None, dict[str, object] | None]:
    """A message the user typed into the turn ``payload`` ends (the assistant took it in
    with a tool result, and no prompt hook fired): the ``prompt`` observation its
    ``UserPromptSubmit`` would have been, recorded at the turn's end (event ``Stop``, so the
    checkpoint, which reads it from the transcript itself, knows it)."""
    keys = ("session_id", "cwd", "transcript_path")
    typed = {key: payload[key] for key in keys if key in payload}
    typed.update(hook_event_name="UserPromptSubmit", prompt=text)
    observation, raw = _observe(typed, "", {"agent": agent}, settings, root)
    if observation is None or observation.get("kind") != "prompt":
        return None, None
    observation["event"] = "Stop"
    return observation, raw


def observe_said(
    payload: dict[str, object],
    kind: str,
    text: str,
    settings: dict[str, object],
    root: str,
    agent: str | None = None,
) -> tuple[dict[str, object] | None, dict[str, object] | None]:
    """A text read from the transcript at a turn's end (:func:`memcli.observed.
    transcript_tail.turn_said`): a note, or a message the user typed into the turn."""
    from memcli.observed.transcript_tail import QUEUED

    observe = observe_queued if kind == QUEUED else observe_note
    return observe(payload, text, settings, root, agent)


def _turn_end(payload: dict[str, object]) -> bool:
    """A cheap first test (capture runs on every tool call): a Stop event's shape."""
    return "last_assistant_message" in payload or payload.get("hook_event_name") in (
        "Stop",
        "StopFailure",
    )


def _memory_dir(root: str | None) -> str | None:
    if root is None:
        return None
    memory = os.path.join(root, ".memory")
    if not os.path.isdir(memory) or untrusted.linked_folder(memory):
        return None  # a committed symlink would send what capture writes anywhere: no store
    return memory


def load_settings(memory: str | None) -> dict[str, object]:
    """capture and redaction settings from the JSON copy of config.yaml, else the defaults."""
    merged: dict[str, object] = dict(DEFAULTS["capture"])
    merged.update(DEFAULTS["redaction"])
    if memory is None:
        return merged
    data = untrusted.read_private(os.path.join(memory, "local", "config.json"))
    try:
        cached = fastjson.loads(data.decode("utf-8")) if data else None
    except ValueError:
        return merged
    if isinstance(cached, dict):
        for section in ("capture", "redaction"):
            if isinstance(cached.get(section), dict):
                merged.update(cached[section])
    return merged


def _read_stdin(limit: int) -> tuple[bytes, int]:
    """At most ``limit`` bytes; the rest is drained so the writer never sees a broken pipe."""
    stream = sys.stdin.buffer if sys.stdin is not None else None
    if stream is None or sys.stdin.isatty():
        return b"", 0
    data = stream.read(limit)
    total = len(data)
    while True:
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        total += len(chunk)
    return data, total


def _parse(text: str) -> dict[str, object] | None:
    """The hook payload, or None for plain text; broken JSON from a hook is an error."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return None
    try:
        value = fastjson.loads(stripped)
    except ValueError as exc:
        if "hook_event_name" in text or "session_id" in text or "hookEventName" in text:
            raise CaptureError(f"invalid hook JSON: {exc}") from None
        return None  # text that merely starts with a brace
    if not isinstance(value, dict):
        return None
    return value


def observe_event(
    payload: dict[str, object],
    settings: dict[str, object],
    root: str,
    agent: str | None = None,
) -> tuple[dict[str, object] | None, dict[str, object] | None]:
    """One hook event -> (observation, raw record), exactly as `mem capture` records it.

    ``payload`` is the JSON an assistant pipes to a hook; ``agent`` names the assistant
    (detected from the payload when None). ``settings`` come from :func:`load_settings`. The
    result is masked and trimmed but not written: (None, None) when capture would drop the
    event. Transcript imports replay their records through this, so an import sees what the
    hooks see.
    """
    return _observe(payload, "", {"agent": agent}, settings, root)


def _observe(
    payload: dict[str, object] | None,
    text: str,
    options: dict[str, str | bool | None],
    settings: dict[str, object],
    root: str,
) -> tuple[dict[str, object] | None, dict[str, object] | None]:
    """The observation and the raw record of one event.

    Order matters: every long string is bounded first (:func:`bounds.bound`), so masking and
    filtering never see more than a few dozen kilobytes; then the payload is masked once, and
    every field that is kept (summary, input, files, excerpt) is derived from the masked
    payload, so that no cut of a field can split a secret before it is masked. Only what is
    not text (kind, outcome, exit code, file hashes) is read from the unmasked payload.
    """
    from memcli.capture import adapters, bounds
    from memcli.observed import filters
    from memcli.privacy.denylist import is_denied_path
    from memcli.privacy.redactor import Redactor
    from memcli.privacy.session_secrets import SessionSecrets

    redactor = Redactor.from_settings(settings)
    if payload is not None:
        bounded = _bounded(payload)
        payload = bounded if isinstance(bounded, dict) else payload
        agent = str(options.get("agent") or adapters.detect(payload))
        event = adapters.to_event(payload, agent)
    else:
        text = bounds.bound(text)
        if not text.strip():
            return None, None
        event = adapters.text_event(text, _opt(options, "kind"))
    if event is None or adapters.is_noise(event, _strings(settings["noise_tools"])):
        return None, None
    deny = _strings(settings["deny_globs"])
    denied = any(is_denied_path(str(f), deny) for f in _list(event.get("files")))
    named = str(event.get("session") or _opt(options, "session") or _default_session())
    named = redactor.mask(named)
    local = os.path.join(root, ".memory", "local")
    redactor.session = SessionSecrets(os.path.join(local, "secrets", _secrets_name(named)))
    source: object = payload if payload is not None else {"text": text}
    masked = redactor.mask_obj(_without_contents(source, denied, event))
    if payload is not None and isinstance(masked, dict):
        shown = adapters.to_event(masked, agent) or event
    else:
        shown = adapters.text_event(_text_of(masked), _opt(options, "kind")) or event
    body = str(shown.get("text") or "")
    if denied and event.get("kind") in ("read", "edit"):
        body = ""
    # A prompt is what the user said: a pasted log or document keeps more of its head, where
    # the checkpoint reads the first facts it states (a tool's output stays short).
    scale = PROMPT_SCALE if shown.get("kind") == "prompt" else 1
    excerpt = filters.clean(
        body,
        head_lines=_int(settings, "head_lines") * scale,
        tail_lines=_int(settings, "tail_lines"),
        max_chars=_int(settings, "max_excerpt_chars") * scale,
        frames=_int(settings, "traceback_frames"),
    )
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    session = str(shown.get("session") or _opt(options, "session") or _default_session())
    session = redactor.mask(session)
    obs_id = f"o{time.time_ns():x}{os.urandom(3).hex()}"
    scope = _scope(root)
    hashes = event.get("hashes") if not denied else {}
    observation: dict[str, object] = {
        "id": obs_id,
        "session": session,
        "project": scope["project"],
        "branch": scope["branch"],
        "ts": stamp,
        "agent": event.get("agent"),
        "event": event.get("event"),
        "tool": shown.get("tool"),
        "kind": event.get("kind"),
        "summary": filters.one_line(str(shown.get("summary") or "")),
        "ok": event.get("ok"),
        "exit_code": event.get("exit_code"),
        "files": [str(f) for f in _list(shown.get("files"))],
        "hashes": {
            redactor.mask(str(path)): digest
            for path, digest in (hashes if isinstance(hashes, dict) else {}).items()
        },
        "input": str(shown.get("input") or "")[:500],
        "excerpt": excerpt,
        "raw": f"raw/{buffer.session_file_name(session)}#{obs_id}",
    }
    if isinstance(event.get("secs"), float):  # how long the command took, when known
        observation["secs"] = event["secs"]
    raw: dict[str, object] = {"id": obs_id, "ts": stamp, "payload": masked}
    seen = redactor.session
    if seen is not None and seen.new:  # first seen in this event: masked in every field
        observation = redactor.mask_seen(observation)  # type: ignore[assignment]
        raw = redactor.mask_seen(raw)  # type: ignore[assignment]
        seen.save()
    if observation["ok"] is False:  # a failure: what the checkpoint derives from it, now
        from memcli.observed import derived

        facts = derived.facts(observation)  # from the observation as written: masked, trimmed
        if facts is not None:
            observation[derived.FIELD] = facts
    for problem in redactor.problems:
        from memcli import memlog

        memlog.write(os.path.join(local, "mem.log"), problem)
    return observation, raw


def _secrets_name(session: str) -> str:
    return buffer.session_file_name(session).removesuffix(".jsonl")


def _bounded(value: object) -> object:
    """The payload with every string bounded (:func:`bounds.bound`); nested JSON strings too,
    since the adapters read some payloads' fields from JSON inside a string."""
    from memcli.capture import bounds

    if isinstance(value, str):
        if len(value) > bounds.BOUND_CHARS and value[:1] in ("{", "["):
            try:
                return fastjson.dumps(_bounded(fastjson.loads(value)))
            except (ValueError, RecursionError):
                pass
        return bounds.bound(value)
    if isinstance(value, dict):
        return {k: _bounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bounded(v) for v in value]
    return value


def _text_of(masked: object) -> str:
    return str(masked.get("text") or "") if isinstance(masked, dict) else ""


def _without_contents(value: object, denied: bool, event: dict[str, object]) -> object:
    """The payload with file contents replaced by their size (the hash is in the observation)."""
    from memcli.observed import filters

    file_tool = event.get("kind") in ("read", "edit") and (
        denied or event.get("tool") in _FILE_TOOLS or event.get("kind") == "read"
    )

    def walk(node: object, key: str = "") -> object:
        if isinstance(node, dict):
            return {k: walk(v, str(k)) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, key) for v in node]
        if isinstance(node, str):
            if file_tool and key in _CONTENT_KEYS:
                return f"[content omitted: {len(node)} characters]"
            return filters.drop_mem_fence(filters.drop_private(node))
        return node

    if denied and isinstance(value, dict):
        kept = {
            k: v for k, v in value.items() if k not in ("tool_response", "toolResult", "output")
        }
        kept["tool_response"] = "[omitted: a file matching capture.deny_globs]"
        for key in ("tool_input", "toolArgs"):  # an edit's old and new text is content too
            if isinstance(value.get(key), dict):
                kept[key] = {
                    k: v for k, v in value[key].items() if k in _PATH_KEYS and isinstance(v, str)
                }
        return walk(kept)
    return walk(value)


def _scope(root: str) -> dict[str, str | None]:
    from memcli import scope

    return scope.resolve(
        root, os.path.join(root, ".memory", "local", "scope.json"), allow_git=False
    )


def write(
    local: str,
    observation: dict[str, object],
    raw: dict[str, object] | None,
    settings: dict[str, object],
) -> bool:
    """Append the observation (and its raw record); True when the session's buffer passed
    another multiple of :data:`buffer.ADVANCE_BYTES`."""
    name = buffer.session_file_name(str(observation["session"]))
    stamp = str(observation["ts"])
    raw_dropped = False
    if raw is not None:
        raw_dropped = buffer.append(
            os.path.join(local, "raw", name),
            fastjson.dumps(raw),
            _int(settings, "raw_max_bytes"),
            stamp,
        )
    buffer_path = os.path.join(local, "buffer", name)
    limit = _int(settings, "buffer_max_bytes")
    if raw_dropped:
        note = {
            "note": "older raw records were dropped to stay under capture.raw_max_bytes",
            "ts": stamp,
            "session": observation["session"],
        }
        buffer.append(buffer_path, fastjson.dumps(note), limit, stamp)
    _dropped, before, after = buffer.append_sized(
        buffer_path, fastjson.dumps(observation), limit, stamp
    )
    return buffer.crossed_advance(before, after)


def _default_session() -> str:
    return os.environ.get("MEM_SESSION") or time.strftime("manual-%Y%m%d", time.gmtime())


PROMPT_SCALE = 4  # a prompt's excerpt keeps this many times the head lines and characters


def _int(settings: dict[str, object], key: str) -> int:
    value = settings.get(key)
    return value if isinstance(value, int) else int(str(DEFAULTS["capture"][key]))


def _opt(options: dict[str, str | bool | None], name: str) -> str | None:
    value = options.get(name)
    return value if isinstance(value, str) else None


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []
