"""Bounded capture: huge outputs are cut before any other work, and every kept field comes from
masked text (a summary cut before masking once kept half a secret). Real `mem capture`
processes in real repositories."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from memcli.capture import bounds

KEY_LINES = [
    "MIIEowIBAAKCAQEA7bq98vLwmhsXz0ELpOe0KOd9Zq5mXyG1yFqNQz3RzTn0k4vN",
    "Qk2ZrH8nD6p3FSLl0m2xKw9rWdPa7Bv4eYj1MQq6u8dXtG5sRzA3ycVhNf2LkJiO",
    "pT0gWbE7qU4nXsV9aDcF1hK8mZrY2oJ5lBvN6tR3xQwS0eG7iA4uHkP9jMdC2fLz",
]
PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(KEY_LINES)
PRIVATE_KEY += "\n-----END RSA PRIVATE KEY-----"
PASSWORD = "Wq8vTz3kLm9pXr2nB7cDf4Gh"  # the value of a NAME=value secret


def capture(root: Path, payload: dict[str, object]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memcli", "capture", "--strict"],
        input=json.dumps({**payload, "cwd": str(root)}).encode(),
        capture_output=True,
        cwd=root,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def written(root: Path) -> str:
    local = root / ".memory" / "local"
    return "\n".join(
        p.read_text(encoding="utf-8")
        for folder in ("buffer", "raw")
        for p in (local / folder).glob("*")
    )


def observations(root: Path) -> list[dict[str, object]]:
    text = (root / ".memory/local/buffer/s1.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def assert_no_fragment(text: str) -> None:
    assert PASSWORD[:6] not in text
    for line in KEY_LINES:
        assert line[:12] not in text


def test_a_failure_summary_is_cut_after_masking(repo: Path) -> None:
    # The failure detail is cut at 100 characters: cut first, the cut fell inside the value.
    error = "x" * 50 + f" ACME_KEY={PASSWORD} rejected by the server"
    capture(
        repo,
        {
            "session_id": "s1",
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "./deploy.sh"},
            "error": error,
        },
    )
    assert_no_fragment(written(repo))
    assert "failed" in str(observations(repo)[0]["summary"])


def test_a_prompt_summary_never_shows_a_private_key(repo: Path) -> None:
    capture(
        repo,
        {
            "session_id": "s1",
            "hook_event_name": "UserPromptSubmit",
            "prompt": f"{PRIVATE_KEY}\nwhy does ssh reject this key?",
        },
    )
    assert_no_fragment(written(repo))
    assert observations(repo)[0]["kind"] == "prompt"


def test_a_long_prompt_keeps_more_of_its_head_than_a_tools_output(repo: Path) -> None:
    log = "".join(f"step {n:03d}: the deploy script read config {n}\n" for n in range(200))
    capture(repo, {"session_id": "s1", "hook_event_name": "UserPromptSubmit",
                   "prompt": "Here is the log of the earlier session:\n" + log})  # fmt: skip
    response = {"stdout": log, "stderr": "", "interrupted": False}
    tool = {"tool_name": "Bash", "tool_input": {"command": "cat log.txt"}}
    capture(repo, {"session_id": "s1", "hook_event_name": "PostToolUse", **tool,
                   "tool_response": response})  # fmt: skip
    said, printed = (str(o["excerpt"]) for o in observations(repo))
    assert "step 060:" in said and "step 060:" not in printed
    assert "step 199:" in said and "step 199:" in printed  # the tail, both
    assert len(said) <= 4 * 4000


def test_a_command_summary_never_shows_a_private_key(repo: Path) -> None:
    command = f"cat > id_rsa <<'EOF'\n{PRIVATE_KEY}\nEOF"
    capture(
        repo,
        {
            "session_id": "s1",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
        },
    )
    assert_no_fragment(written(repo))
    assert str(observations(repo)[0]["summary"]).startswith("$ cat > id_rsa")


def test_a_huge_output_is_cut_but_keeps_its_head_errors_and_tail(repo: Path) -> None:
    noise = "".join(f"compiling unit_{n:05d}.c ... ok\n" for n in range(40_000))  # 1.2 MB
    half = len(noise) // 2
    stdout = noise[:half] + "src/net.c:88: error: unknown type name 'socklen'\n"
    stdout += f"export API_PASSWORD={PASSWORD}\n" + noise[half:] + "make: *** [all] Error 2\n"
    capture(
        repo,
        {
            "session_id": "s1",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "make all"},
            "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
        },
    )
    text = written(repo)
    assert_no_fragment(text)
    assert len(text) < 200_000  # raw record and observation together, not the megabyte
    excerpt = str(observations(repo)[0]["excerpt"])
    assert "compiling unit_00000.c" in excerpt
    assert "error: unknown type name 'socklen'" in excerpt  # from the middle
    assert "Error 2" in excerpt


def test_bound_cuts_a_key_so_that_its_rest_is_never_kept() -> None:
    head = "".join(f"line {n}\n" for n in range(3000))
    key_start = len(head) - 40
    text = head[:key_start] + "\n" + PRIVATE_KEY + "\n" + head * 20
    bounded = bounds.bound(text, 20_000)
    assert len(bounded) < 21_000
    assert "characters cut" in bounded
    assert KEY_LINES[-1] not in bounded.split("characters cut")[1]
    assert bounds.bound("short") == "short"
