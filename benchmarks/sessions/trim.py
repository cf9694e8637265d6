"""Shorten a public session file for the repository: in tool calls and tool results every
string longer than LIMIT keeps its head and tail around a marker (a quarter of that inside
`toolUseResult`, which mostly repeats the tool result); what the user and the assistant wrote is
kept whole (a pi `toolResult` message is a tool result, whatever its blocks are called);
token-usage counts are dropped; lines that are not JSON are left out. Every other line and field
is kept. `--first N` keeps only the first N lines (a long session cut to its first part);
`--drop-type progress,file-history-snapshot` leaves out the lines of those record types (Claude
Code's hook-progress and file-backup records, which neither the hooks nor `mem import` read).

    python benchmarks/sessions/trim.py SOURCE DEST [--limit 3000] [--first N] [--drop-type T,U]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

MARKER = "\n[... {cut} characters cut for the benchmark ...]\n"


def shorten(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        half = limit // 2
        return value[:half] + MARKER.format(cut=len(value) - 2 * half) + value[-half:]
    if isinstance(value, list):
        return [shorten(item, limit) for item in value]
    if isinstance(value, dict):
        return {key: shorten(item, limit) for key, item in value.items()}
    return value


def shorten_record(record: dict[str, Any], limit: int) -> dict[str, Any]:
    """Tool inputs and outputs are shortened; what the user and the assistant said is kept."""
    message = record.get("message")
    if not isinstance(message, dict):
        return {key: shorten(value, limit) for key, value in record.items()}
    message.pop("usage", None)  # token counts: nothing a lesson depends on
    content = message.get("content")
    said = message.get("role") in ("user", "assistant")  # not a pi toolResult or bashExecution
    if isinstance(content, list):
        message["content"] = [
            block
            if said and isinstance(block, dict) and block.get("type") == "text"
            else shorten(block, limit)
            for block in content
        ]
    for key, value in message.items():
        if key != "content":
            message[key] = shorten(value, limit)
    if "toolUseResult" in record:  # mostly repeats the tool result beside it
        record["toolUseResult"] = shorten(record["toolUseResult"], limit // 4)
    return {
        key: value if key in ("message", "toolUseResult") else shorten(value, limit)
        for key, value in record.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("source", type=Path)
    parser.add_argument("dest", type=Path)
    parser.add_argument("--limit", type=int, default=3000)
    parser.add_argument("--first", type=int, default=0, help="keep only the first N lines")
    parser.add_argument("--drop-type", default="", help="comma-separated record types to leave out")
    args = parser.parse_args()
    text = args.source.read_text(encoding="utf-8")
    if args.source.suffix == ".json":
        args.dest.write_text(json.dumps(shorten(json.loads(text), args.limit), indent=1) + "\n")
        return
    skipped = dropped = 0
    drop = {name for name in args.drop_type.split(",") if name}
    lines = [line for line in text.split("\n") if line.strip()]
    with open(args.dest, "w", encoding="utf-8") as out:
        for line in lines[: args.first or None]:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:  # lines the publisher's own redaction cut short
                skipped += 1
                continue
            if record.get("type") in drop:
                dropped += 1
                continue
            out.write(json.dumps(shorten_record(record, args.limit), ensure_ascii=False) + "\n")
    print(f"{args.dest}: {skipped} unparsable lines left out, {dropped} lines of {sorted(drop)}")


if __name__ == "__main__":
    main()
