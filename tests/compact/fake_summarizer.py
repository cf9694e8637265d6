"""A stand-in for `claude -p` in the summarizer tests: `fake_summarizer.py MODE [COUNTER]`.

Reads the compactor's request on stdin and answers as MODE says: good, liar (claims verified
without proof), empty, garbage (not JSON), bad-kind, fail (exit 3), slow (sleeps past the
timeout), spawner (starts a helper, then sleeps), gated
(answers once COUNTER.go exists), hooked (runs what its own hooks would, then
answers well), and claude-json, gemini-json, codex-jsonl (a good answer inside the envelope of
`claude -p --output-format json`, `gemini -p --output-format json`, `codex exec --json`).
Each call appends a line to COUNTER when given: its MEM_DISABLE, its working folder and the
size of its input, as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

ENVELOPES = ("claude-json", "gemini-json", "codex-jsonl")


def run_own_hooks(repo: str) -> None:
    """What a headless assistant's own (user-level) hooks do: capture its prompt into the
    repository it was asked about, and compact at its session's end."""
    payload = {"session_id": "headless-1", "hook_event_name": "UserPromptSubmit",
               "prompt": "summarize these observations", "cwd": repo}  # fmt: skip
    for command in (["capture"], ["compact", "--detach"]):
        subprocess.run([sys.executable, "-m", "memcli", *command], input=json.dumps(payload),
                       text=True, check=True, cwd=repo)  # fmt: skip


def main() -> int:
    mode = sys.argv[1]
    stdin = sys.stdin.read()
    if len(sys.argv) > 2:
        seen = {"disable": os.environ.get("MEM_DISABLE"), "cwd": os.getcwd(), "size": len(stdin)}
        with open(sys.argv[2], "a", encoding="utf-8") as handle:
            handle.write(json.dumps(seen) + "\n")
    request = json.loads(stdin)
    if mode == "hooked":
        run_own_hooks(sys.argv[3])
    assert request["prompt_version"].startswith("mem-compact/")
    episodes = [c for c in request["clusters"] if c["type"] == "episode"]
    prompts = [c for c in request["clusters"] if c["type"] == "prompts"]
    if mode == "spawner":  # starts a helper of its own, then hangs
        helper = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(60)"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with open(sys.argv[2] + ".helper", "w", encoding="utf-8") as handle:
            handle.write(str(helper.pid))
        time.sleep(30)
    if mode == "gated":  # answers (well, in Claude's envelope) once COUNTER.go exists
        for _ in range(600):
            if os.path.exists(sys.argv[2] + ".go"):
                break
            time.sleep(0.1)
    if mode == "slow":
        time.sleep(30)
    if mode == "fail":
        sys.stderr.write("model overloaded\n")
        return 3
    if mode == "garbage":
        sys.stdout.write("Sure! Here are your items: ...")
        return 0
    items = []
    if mode in ("good", "bad-kind", "hooked", "gated", *ENVELOPES) and episodes:
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
    answer = json.dumps({"model": "fake-model-1", "items": items})
    if mode in ("claude-json", "gated"):
        answer = json.dumps({"type": "result", "subtype": "success", "is_error": False,
                             "result": f"```json\n{answer}\n```", "total_cost_usd": 0.0125,
                             "usage": {"input_tokens": 1200, "cache_read_input_tokens": 300,
                                       "output_tokens": 150}})  # fmt: skip
    elif mode == "gemini-json":
        answer = json.dumps({"response": answer, "stats": {"models": {"gemini-2.5-pro": {
            "tokens": {"prompt": 1400, "candidates": 160, "total": 1560}}}}})  # fmt: skip
    elif mode == "codex-jsonl":
        events = [{"type": "thread.started", "thread_id": "t1"}, {"type": "turn.started"},
                  {"type": "item.completed", "item": {"id": "i0", "type": "reasoning",
                                                      "text": "thinking"}},
                  {"type": "item.completed", "item": {"id": "i1", "type": "agent_message",
                                                      "text": answer}},
                  {"type": "turn.completed", "usage": {"input_tokens": 1300,
                                                       "cached_input_tokens": 0,
                                                       "output_tokens": 170}}]  # fmt: skip
        answer = "\n".join(json.dumps(e) for e in events)
    sys.stdout.write(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
