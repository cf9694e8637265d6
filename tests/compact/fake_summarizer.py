"""A stand-in for `claude -p` in the summarizer tests: `fake_summarizer.py MODE [COUNTER]`.

Reads the compactor's request on stdin and answers as MODE says: good, liar (claims verified
without proof), empty, garbage (not JSON), bad-kind, fail (exit 3), slow (sleeps past the
timeout). Each call appends a line to COUNTER when given.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> int:
    mode = sys.argv[1]
    if len(sys.argv) > 2:
        with open(sys.argv[2], "a", encoding="utf-8") as handle:
            handle.write("called\n")
    request = json.load(sys.stdin)
    assert request["prompt_version"].startswith("mem-compact/")
    episodes = [c for c in request["clusters"] if c["type"] == "episode"]
    prompts = [c for c in request["clusters"] if c["type"] == "prompts"]
    if mode == "slow":
        time.sleep(30)
    if mode == "fail":
        sys.stderr.write("model overloaded\n")
        return 3
    if mode == "garbage":
        sys.stdout.write("Sure! Here are your items: ...")
        return 0
    items = []
    if mode in ("good", "bad-kind") and episodes:
        cited = [o["id"] for o in episodes[0]["observations"] if o.get("ok") is not None]
        items.append(
            {
                "kind": "note" if mode == "bad-kind" else "pitfall",
                "title": "Order tests need the DB_PORT from .env, not a hard-coded 5433",
                "body": "conftest hard-coded 5433; Postgres listens on DB_PORT (5432).\n"
                "Read DB_PORT in tests/conftest.py.",
                "tags": ["Postgres", "tests"],
                "anchors": ["tests/conftest.py"],
                "evidence": cited,
                "confidence": "verified",
            }
        )
    if mode == "liar" and prompts:
        items.append(
            {
                "kind": "decision",
                "title": "The order tests are investigated first",
                "body": "Nothing proves this.",
                "evidence": [prompts[0]["observations"][0]["id"]],
                "confidence": "verified",
            }
        )
    json.dump({"model": "fake-model-1", "items": items}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
