"""The new part of an assistant's transcript: the turn's assistant texts, sub-agent reports
and the messages the user typed while the turn ran.

The Stop hook only carries a turn's *last* message; what the assistant said in the middle of
the turn (a root cause found, a decision and its reason, an environment fact) is in the
transcript the assistant writes as the session goes (Claude Code's ``transcript_path``, a
Codex rollout). :func:`read_new` reads what was appended since a stored byte offset:

- bounded: at most :data:`MAX_READ` bytes per call, cut at a line end (the rest next turn);
- only a regular file reached without a symlink at its last component (``O_NOFOLLOW``,
  ``fstat`` on the descriptor, as :mod:`memcli.untrusted` does);
- a file shorter than the offset, or another file at the path (device or inode changed),
  is read again from its start;
- lines are skipped before any JSON parsing unless they hold an ``"assistant"`` token and a
  ``"text"`` key (or are a sub-agent's): tool results are most of a transcript's bytes and
  never hold such a token outside an escaped string; tool calls hold no text;
- Claude Code's ``queue-operation`` lines are read too: a message the user types while the
  assistant works is queued (``enqueue``, its text) and, when the assistant takes it into
  the running turn (``remove``: Claude Code hands it over with the next tool result), no
  ``UserPromptSubmit`` hook fires for it: the transcript is the only place the hooks can
  read it. A queued message submitted as the next prompt (``dequeue``) or taken back into
  the input box (``popAll``, ``popOne``) is not one of the turn's: its prompt, if any, is
  captured as every prompt is.

:class:`TurnTexts` turns parsed records (a Claude Code transcript's or a Codex rollout's)
into the notes of a turn, in transcript order; the importers feed it the same records, so an
import yields the notes the hooks record. Never raises on odd input. Hook path: no :mod:`re`,
no :mod:`json`.
"""

import os
import stat

from memcli.fastparse import fastjson

AGENTS = ("claude-code", "codex")  # whose transcript format this reads
MAX_READ = 4_000_000  # bytes read per call; a larger backlog is read over the next turns
MAX_NOTE = 20_000  # characters of one note
MAX_NOTES = 200  # notes per call: a runaway turn cannot flood the buffer
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW
# A line is parsed only when it holds an assistant's text block ("text", the cheaper test,
# first) or is a sub-agent's (whose tool calls end a report; Claude Code writes that flag
# among a line's first keys).
_MARK = b'"assistant"'
# A "text" key, or the sidechain flag (the tokens whose "i" marks them as the flag).
# A queue line's type, cut short: bytes.find of the whole `"queue-operation"` takes seven
# times as long over a test run's long rows of dots (a longer needle, another algorithm).
_TOKENS = (b'"text"', b'"isSidechain":true', b'"isSidechain": true', b'"queue-op')
_QUEUE = _TOKENS[-1]
# A commit's line too (its message says what changed and why: capture keeps a command as one
# line of 200 characters, a heredoc's subject lost in it), found by a plain search of its own.
_COMMIT = b"git commit"
MAX_COMMITS = 20  # commit commands per call
MAX_QUEUED = 40  # messages typed during a turn, per call
MAX_WAITING = 100  # messages still queued, counted in the mark
# Queued texts that are no message the user typed: a background task's notification, a
# slash command, a structured entry.
_NOT_TYPED = ("<", "/", "{")
_HEAD = 400
_MAIN = ""
NOTE, QUEUED = "note", "queued"  # the kinds of what :meth:`TurnTexts.said` returns


class TurnTexts:
    """Records in order -> the assistant's text blocks (main chain), the final text of each
    sub-agent (sidechain) run and the messages the user typed into the running turn, in the
    order they were said."""

    def __init__(self) -> None:
        self.texts: list[tuple[int, str]] = []  # (position, text) of the main chain
        self.commits: list[str] = []  # the main chain's `git commit` command lines
        self.reports: dict[str, tuple[int, str]] = {}  # sidechain -> its last text so far
        self.queue: list[str] = []  # queued messages not yet handed over ("": not typed)
        self.queued: list[tuple[int, str]] = []  # (position, text) handed over mid-turn
        self.position = 0

    def feed(self, record: object) -> None:
        if not isinstance(record, dict):
            return
        self.position += 1
        if record.get("type") == "assistant":
            self._claude(record)
        elif record.get("type") == "response_item":
            self._codex(record.get("payload"))
        elif record.get("type") == "message":  # an older rollout: the bare item
            self._codex(record)
        elif record.get("type") == "queue-operation":
            self._queue(record.get("operation"), record.get("content"))

    def _queue(self, operation: object, content: object) -> None:
        """Claude Code's input queue: ``enqueue`` adds a message; ``remove`` takes the oldest
        into the running turn; ``dequeue`` submits it as a prompt, ``popOne`` and ``popAll``
        take it back to the input box (neither is said in this turn)."""
        if operation == "enqueue":
            typed = isinstance(content, str) and not content.lstrip().startswith(_NOT_TYPED)
            self.queue.append(str(content).strip() if typed else "")
            del self.queue[:-MAX_WAITING]  # a queue never handed over stays bounded
        elif operation == "popAll":
            self.queue.clear()
        elif operation in ("remove", "dequeue", "popOne") and self.queue:
            text = self.queue.pop(0)
            if operation == "remove" and text and len(self.queued) < MAX_QUEUED:
                self.queued.append((self.position, text[:MAX_NOTE]))

    def _claude(self, record: dict[str, object]) -> None:
        if record.get("isApiErrorMessage"):
            return
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        chain = _MAIN
        if record.get("isSidechain"):
            agent = record.get("agentId")
            chain = f"agent:{agent if isinstance(agent, str) else ''}"
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            text = block.get("text")
            if kind == "text" and isinstance(text, str) and text.strip():
                if chain == _MAIN:
                    self.texts.append((self.position, text))
                else:
                    self.reports[chain] = (self.position, text)
            elif kind == "tool_use" and chain != _MAIN:
                self.reports.pop(chain, None)  # not its final word: it went on working
            elif kind == "tool_use" and len(self.commits) < MAX_COMMITS:
                given = block.get("input")
                command = given.get("command") if isinstance(given, dict) else None
                if isinstance(command, str) and "git commit" in command:
                    self.commits.append(command[:MAX_NOTE])

    def _codex(self, item: object) -> None:
        if not isinstance(item, dict) or item.get("type") != "message":
            return
        if item.get("role") != "assistant":
            return
        content = item.get("content")
        parts = content if isinstance(content, list) else [{"text": content}]
        said = "\n".join(
            p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
        ).strip()
        if said:
            self.texts.append((self.position, said))

    def notes(self, last_message: str = "") -> list[str]:
        """The turn's notes: its texts but the last one when that is ``last_message`` (the
        Stop event's, recorded as the turn's conclusion), and the sub-agents' reports."""
        return [text for kind, text in self.said(last_message) if kind == NOTE]

    def said(self, last_message: str = "") -> list[tuple[str, str]]:
        """The turn's notes (:meth:`notes`) and the messages the user typed into it
        (:data:`QUEUED`), each as ``(kind, text)``, in transcript order."""
        texts = list(self.texts)
        if texts and last_message.strip() and texts[-1][1].strip() == last_message.strip():
            texts.pop()
        notes = sorted([*texts, *self.reports.values()])[-MAX_NOTES:]
        found = sorted([(p, NOTE, t[:MAX_NOTE]) for p, t in notes]
                       + [(p, QUEUED, t) for p, t in self.queued])  # fmt: skip
        return [(kind, text) for _position, kind, text in found]

    def clear(self) -> None:
        self.texts.clear()
        self.reports.clear()
        self.commits.clear()
        self.queued.clear()  # the queue itself goes on into the next turn


def read_new(path: str, mark: object) -> "tuple[list[dict[str, object]], dict[str, object]]":
    """The records appended to ``path`` since ``mark`` (what the last call returned: offset,
    device and inode), holding an assistant token, and the new mark. ``([], mark)`` when the
    file cannot be read; never raises."""
    old = mark if isinstance(mark, dict) else {}
    offset = old.get("offset")
    offset = offset if isinstance(offset, int) and offset >= 0 else 0
    try:
        fd = os.open(path, _FLAGS)
    except (OSError, ValueError, TypeError):
        return [], dict(old)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return [], dict(old)
        same = old.get("dev") == info.st_dev and old.get("ino") == info.st_ino
        if not same or info.st_size < offset:
            offset = 0  # truncated, or another file at the path: read it from its start
        os.lseek(fd, offset, os.SEEK_SET)
        data = _read(fd, min(MAX_READ, max(0, info.st_size - offset)))
    except OSError:
        return [], dict(old)
    finally:
        os.close(fd)
    end = data.rfind(b"\n") + 1
    if end == 0 and len(data) >= MAX_READ:
        end = len(data)  # one line longer than a whole read: skip it rather than stall
    new_mark: dict[str, object] = {"offset": offset + end, "dev": info.st_dev, "ino": info.st_ino}
    return _records(data, end), new_mark  # not data[:end]: a copy of the whole read


def _read(fd: int, size: int) -> bytes:
    chunks, total = [], 0
    while total < size:
        chunk = os.read(fd, min(1 << 20, size - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _records(data: bytes, stop: int = -1) -> list[dict[str, object]]:
    """The records of the lines of ``data`` (up to ``stop``, a line end) worth parsing, in
    order. The tokens are looked for over the whole read (splitting it into lines and
    searching each costs three times as much: a first stop reads the whole transcript), each
    with ``bytes.find`` (a regex alternation tried at every quote of the JSON cost six times
    the instructions), and a plain search the commits; only the lines around them are cut."""
    stop = len(data) if stop < 0 else stop
    lines: dict[int, int] = {}  # start -> end of each line worth parsing
    ahead = [data.find(token, 0, stop) for token in _TOKENS]  # each token's next place
    while True:
        at, which = -1, -1
        for index, place in enumerate(ahead):  # the first token in the data, as a regex would
            if place >= 0 and (at < 0 or place < at):
                at, which = place, index
        if at < 0:
            break
        token_end = at + len(_TOKENS[which])
        start = data.rfind(b"\n", 0, at) + 1
        resume = token_end  # past this token (tokens never overlap)
        if data[at + 1 : at + 2] != b"i" or token_end - start <= _HEAD:  # the flag: a head key
            end = data.find(b"\n", at, stop)
            resume = lines[start] = stop if end < 0 else end  # its other tokens are skipped
        ahead = [
            place if place < 0 or place >= resume else data.find(_TOKENS[index], resume, stop)
            for index, place in enumerate(ahead)
        ]
    at = data.find(_COMMIT, 0, stop)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at, stop)
        end = stop if end < 0 else end
        lines.setdefault(start, end)
        at = data.find(_COMMIT, end, stop)
    found: list[dict[str, object]] = []
    for start in sorted(lines) if len(lines) > 1 else lines:
        record = _record(data[start : lines[start]])
        if record is not None:
            found.append(record)
    return found


def _record(line: bytes) -> "dict[str, object] | None":
    if _MARK not in line and _QUEUE not in line:
        return None
    try:
        value = fastjson.loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def turn_notes(
    path: str, mark: object, last_message: str = ""
) -> "tuple[list[str], dict[str, object]]":
    """The notes appended to the transcript at ``path`` since ``mark``, and the new mark."""
    said, _commits, new_mark = turn_said(path, mark, last_message)
    return [text for kind, text in said if kind == NOTE], new_mark


def turn_said(
    path: str, mark: object, last_message: str = ""
) -> "tuple[list[tuple[str, str]], list[str], dict[str, object]]":
    """What was said in the transcript at ``path`` since ``mark``: the notes and the messages
    the user typed into the turn (:meth:`TurnTexts.said`), the `git commit` commands (whole,
    with their messages' line ends), and the new mark. The mark also counts the messages
    still queued (``queue``: their texts are not kept, only their place in the queue)."""
    records, new_mark = read_new(path, mark)
    texts = TurnTexts()
    old = mark if isinstance(mark, dict) else {}
    waiting = old.get("queue")
    same = all(old.get(key) == new_mark.get(key) for key in ("dev", "ino"))
    if same and isinstance(waiting, int) and 0 < waiting <= MAX_WAITING:
        texts.queue = [""] * waiting  # queued before this read: their texts were not kept
    for record in records:
        texts.feed(record)
    if texts.queue:
        new_mark["queue"] = min(len(texts.queue), MAX_WAITING)
    try:
        return texts.said(last_message), list(texts.commits), new_mark
    except Exception:  # noqa: BLE001 - odd input never breaks a hook
        return [], [], new_mark
