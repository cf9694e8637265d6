"""A checkpoint candidate as the state file keeps it, and the helpers every finder shares.

A candidate is a dict::

    {"id": "c1a2b3c4d", "kind": "fix", "suggest": "pitfall", "lines": ["..."],
     "obs": ["o..."], "refs": ["raw/<session>.jsonl#o..."], "files": [...],
     "verified": true, "session": "...", "ts": "...", "strength": 2}

Ids come from the session, the kind and what the candidate is about, so the same lesson seen
twice (in the buffer, in the transcript and in the Stop payload) is one candidate. Hook path:
no :mod:`re`, no :mod:`json`, no dataclasses.
"""

SUGGEST = {
    "fix": "pitfall", "env": "env", "correction": "convention", "convention": "convention",
    "decision": "decision", "cause": "pitfall", "unresolved": "task", "denied": "env",
    "interrupted": "env", "subagent": "pitfall", "failed": "pitfall", "warning": "pitfall",
    "fact": "env", "workflow": "convention",
}  # fmt: skip
# Asked first when a turn holds more candidates than one request may name.
PRIORITY = ("fix", "env", "correction", "convention", "cause", "decision", "fact", "unresolved",
            "denied", "failed", "warning", "interrupted", "workflow", "subagent")  # fmt: skip
MAX_LINE = 220
MAX_CANDIDATES = 200  # per session: the state file stays small however long the session


_IDS: dict[str, str] = {}  # a session meets the same lesson again and again (each fix's rerun)


def candidate_id(session: str, kind: str, about: str) -> str:
    key = f"{session}\0{kind}\0{about}"
    found = _IDS.get(key)
    if found is None:
        if len(_IDS) > 1024:
            _IDS.clear()
        found = _IDS[key] = "c" + format(crc32(key.encode()), "08x")
    return found


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


def one_line(text: str, limit: int = MAX_LINE) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def text_of(record: dict[str, object], name: str) -> str:
    value = record.get(name)
    return value if isinstance(value, str) else ""


def add(
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
        "lines": [one_line(line) for line in lines if line.strip()][:2],
        "obs": [],
        "refs": [],
        "files": [],
        "session": session,
        "ts": "",
    }
    if record is not None:
        entry["obs"] = [text_of(record, "id")]
        entry["refs"] = [text_of(record, "raw")] if text_of(record, "raw") else []
        entry["ts"] = text_of(record, "ts")
    entry.update(extra)
    found[cid] = entry


def runs_of(state: dict[str, object]) -> dict[str, dict[str, object]]:
    runs = state.setdefault("runs", {})
    assert isinstance(runs, dict)
    return runs


def count_of(value: object) -> int:
    """A counter kept in the state: a whole number of at least 0, whatever the file holds (a
    damaged state must not stop every later checkpoint of its session)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def strings_of(value: object) -> list[str]:
    return list(map(str, value)) if isinstance(value, list) else []


def holds_all(known: "list[object] | list[str]", wanted: list[str]) -> bool:
    """Whether every one of ``wanted`` is in ``known``: a loop, not ``all()`` over a generator,
    which costs several times as much (every edit of a session asks, once per open run)."""
    for value in wanted:  # noqa: SIM110
        if value not in known:
            return False
    return True
