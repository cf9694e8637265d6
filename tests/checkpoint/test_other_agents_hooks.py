"""The checkpoint through the hooks `mem hooks install` writes for Gemini CLI and Cursor, each
installed command run as a subprocess with payloads in each assistant's documented shape:
Gemini CLI's AfterAgent answers ``{"decision": "deny", "reason": ...}`` (the reason becomes
the agent's next prompt), Cursor's stop answers ``{"followup_message": ...}`` (the next user
message) when `checkpoint.mode: ask`; neither loops, and the request handed back as a prompt is
never captured as the user's words."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from memcli.observed.checkpoint_request import is_checkpoint_request

BIN = Path(sys.executable).parent


class Hooks:
    """A repository with mem's hooks for one assistant installed, and a way to fire them."""

    def __init__(self, root: Path, agent: str) -> None:
        self.root = root
        self.env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
        self.env.pop("MEM_DEBUG", None)
        self.mem("hooks", "install", "--agent", agent)
        # Cursor on Windows starts its payloads with a UTF-8 byte-order mark.
        self.prefix = b"\xef\xbb\xbf" if agent == "cursor" else b""
        name = {"gemini": ".gemini/settings.json", "cursor": ".cursor/hooks.json"}[agent]
        settings = json.loads((root / name).read_text(encoding="utf-8"))["hooks"]
        self.handlers: dict[str, list[dict[str, Any]]] = {
            event: [h for entry in entries for h in entry.get("hooks", [entry])]
            for event, entries in settings.items()
        }

    def mem(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "mem"), *args], cwd=self.root, env=self.env, capture_output=True,
            text=True, check=True,
        )  # fmt: skip

    def fire(self, event: str, payload: dict[str, Any]) -> list[str]:
        """Every installed handler of ``event`` (but compaction): their stdout, in order."""
        data = self.prefix + json.dumps(payload).encode()
        outputs = []
        for handler in self.handlers.get(event, []):
            if "compact" in handler["command"]:
                continue
            done = subprocess.run(
                handler["command"], shell=True, cwd=self.root, env=self.env, input=data,
                capture_output=True, check=False, timeout=60,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            outputs.append(done.stdout.decode())
        return outputs

    def prompts(self) -> list[str]:
        """The prompts capture recorded, from every session buffer."""
        found = []
        for path in (self.root / ".memory" / "local" / "buffer").glob("*.jsonl"):
            for line in path.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if record.get("kind") == "prompt":
                    found.append(str(record.get("excerpt")))
        return found


GEMINI = {"session_id": "g-1", "transcript_path": "/tmp/none/.gemini/chat.json"}


def gemini_turn(hooks: Hooks) -> None:
    base = {**GEMINI, "cwd": str(hooks.root)}
    hooks.fire("BeforeAgent", {**base, "hook_event_name": "BeforeAgent", "prompt": "fix it"})
    for exit_code, out in ((1, "E   KeyError: 'price'\n1 failed"), (0, "3 passed")):
        llm = f"Command: pytest -x\nOutput: {out}\nError: (none)\nExit Code: {exit_code}"
        hooks.fire("AfterTool", {
            **base, "hook_event_name": "AfterTool", "tool_name": "run_shell_command",
            "tool_input": {"command": "pytest -x"},
            "tool_response": {"llmContent": llm, "returnDisplay": out, "error": None},
        })  # fmt: skip
        if exit_code:
            hooks.fire("AfterTool", {
                **base, "hook_event_name": "AfterTool", "tool_name": "replace",
                "tool_input": {"file_path": str(hooks.root / "src" / "price.py"),
                               "old_string": "a", "new_string": "b"},
                "tool_response": {"llmContent": "Successfully modified", "error": None},
            })  # fmt: skip


def gemini_end(hooks: Hooks, active: bool) -> str:
    payload = {**GEMINI, "cwd": str(hooks.root), "hook_event_name": "AfterAgent",
               "prompt": "fix it", "prompt_response": "Fixed: the suite passes.",
               "stop_hook_active": active}  # fmt: skip
    capture, checkpoint = hooks.fire("AfterAgent", payload)
    assert capture == ""
    return checkpoint


def test_gemini_after_agent_asks_in_its_own_json_once_and_never_in_a_retry(repo: Path) -> None:
    hooks = Hooks(repo, "gemini")
    gemini_turn(hooks)
    answer = json.loads(gemini_end(hooks, active=False))
    assert answer["decision"] == "deny"
    reason = answer["reason"]
    assert is_checkpoint_request(reason) and "KeyError: 'price'" in reason
    # Gemini CLI sends the reason as the agent's next prompt: it is not the user's.
    base = {**GEMINI, "cwd": str(repo), "hook_event_name": "BeforeAgent", "prompt": reason}
    hooks.fire("BeforeAgent", base)
    assert hooks.prompts() == ["fix it"]
    assert gemini_end(hooks, active=True) == ""  # the retry's own end: no loop
    assert gemini_end(hooks, active=False) == ""  # nothing new


def test_gemini_recall_answers_in_before_agent_json(repo: Path) -> None:
    config = repo / ".memory" / "config.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("  enabled: false", "  enabled: true", 1),
        encoding="utf-8",
    )
    hooks = Hooks(repo, "gemini")
    title, body = "The price cache ignores the currency", "Key the cache by product and currency."
    hooks.mem("add", "--kind", "pitfall", "--title", title, "--body", body)
    capture, recall = hooks.fire("BeforeAgent", {
        **GEMINI, "cwd": str(repo), "hook_event_name": "BeforeAgent",
        "prompt": "why does the price cache ignore the currency?",
    })  # fmt: skip
    assert capture == ""
    out = json.loads(recall)["hookSpecificOutput"]
    assert out["hookEventName"] == "BeforeAgent"
    assert "price cache ignores the currency" in out["additionalContext"]


CURSOR = {"conversation_id": "c-1", "generation_id": "g-1", "cursor_version": "1.7.0"}


def cursor_session(repo: Path, mode: str | None) -> Hooks:
    if mode:
        config = repo / ".memory" / "config.yaml"
        text = config.read_text(encoding="utf-8").replace("  mode: null", f"  mode: {mode}", 1)
        config.write_text(text, encoding="utf-8")
    hooks = Hooks(repo, "cursor")
    base = {**CURSOR, "workspace_roots": [str(repo)]}
    hooks.fire("beforeSubmitPrompt", {**base, "hook_event_name": "beforeSubmitPrompt",
                                      "prompt": "make the build pass"})  # fmt: skip
    failure = "error[E0308]: mismatched types\n --> src/lib.rs:3:5"
    for output in (failure, "Finished dev profile"):
        hooks.fire("afterShellExecution", {**base, "hook_event_name": "afterShellExecution",
                                           "command": "cargo build", "output": output})  # fmt: skip
        if output == failure:
            hooks.fire("afterFileEdit", {
                **base, "hook_event_name": "afterFileEdit", "file_path": str(repo / "src/lib.rs"),
                "edits": [{"old_string": "let x: u32 = -1;", "new_string": "let x: i32 = -1;"}],
            })  # fmt: skip
    return hooks


def cursor_stop(hooks: Hooks, loop_count: int, status: str = "completed") -> str:
    payload = {**CURSOR, "workspace_roots": [str(hooks.root)], "hook_event_name": "stop",
               "status": status, "loop_count": loop_count}  # fmt: skip
    capture, checkpoint = hooks.fire("stop", payload)
    assert capture == ""
    return checkpoint


def test_cursor_stop_asks_with_a_followup_only_when_mode_is_ask(repo: Path) -> None:
    hooks = cursor_session(repo, "ask")
    assert cursor_stop(hooks, loop_count=0, status="aborted") == ""  # the user stopped it
    answer = json.loads(cursor_stop(hooks, loop_count=0))
    assert list(answer) == ["followup_message"]
    assert "mismatched types" in answer["followup_message"]
    base = {**CURSOR, "workspace_roots": [str(repo)], "hook_event_name": "beforeSubmitPrompt"}
    hooks.fire("beforeSubmitPrompt", {**base, "prompt": answer["followup_message"]})
    assert hooks.prompts() == ["make the build pass"]  # the follow-up is mem's, not the user's
    assert cursor_stop(hooks, loop_count=1) == ""  # answering the follow-up: no loop


def test_cursor_stop_is_silent_by_default(repo: Path) -> None:
    hooks = cursor_session(repo, None)
    assert cursor_stop(hooks, loop_count=0) == ""
