"""memcli.hooks: merging mem's hooks into assistants' settings files and taking them out."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memcli import hooks
from memcli.errors import EXIT_USAGE, MemError

SUBCOMMANDS = {"capture", "checkpoint", "index", "compact", "recall"}

# A project settings file as a user might have it: other settings, other hooks on the events
# mem uses (in a group of their own, and next to nothing of mem's), an event mem does not use.
CLAUDE_SETTINGS: dict[str, Any] = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]},
        ],
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [{"type": "command", "command": "npx prettier --write", "timeout": 30}],
            },
        ],
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "cat NOTES.md"}]},
        ],
    },
    "env": {"FOO": "1"},
    "model": "opus",
}


def dump(doc: object) -> str:
    return json.dumps(doc, indent=2) + "\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def age(path: Path) -> int:
    """Set the file's mtime well into the past, so that any rewrite shows; return it."""
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    return path.stat().st_mtime_ns


def handlers(agent: str, doc: dict[str, Any]) -> list[tuple[str, object, dict[str, Any]]]:
    """Every (event, matcher, handler) in a settings document."""
    found: list[tuple[str, object, dict[str, Any]]] = []
    for event, entries in doc.get("hooks", {}).items():
        for entry in entries:
            if agent in ("cursor", "copilot"):
                found.append((event, None, entry))
            else:
                found.extend((event, entry.get("matcher"), h) for h in entry["hooks"])
    return found


def commands(handler: dict[str, Any]) -> list[str]:
    return [handler[key] for key in ("command", "bash", "powershell") if key in handler]


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "repo", tmp_path / "home"
    (root / ".git").mkdir(parents=True)
    home.mkdir()
    return root, home


# --- where the settings live ----------------------------------------------------------


def test_agents_are_the_five_assistants() -> None:
    assert hooks.AGENTS == ("claude-code", "codex", "gemini", "cursor", "copilot")


@pytest.mark.parametrize(
    ("agent", "project", "user"),
    [
        ("claude-code", ".claude/settings.json", ".claude/settings.json"),
        ("codex", ".codex/hooks.json", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json", ".gemini/settings.json"),
        ("cursor", ".cursor/hooks.json", ".cursor/hooks.json"),
        ("copilot", ".github/hooks/mem.json", ".copilot/hooks/mem.json"),
    ],
)
def test_settings_path(agent: str, project: str, user: str, tmp_path: Path) -> None:
    root, home = tmp_path / "r", tmp_path / "h"
    assert hooks.settings_path(agent, "project", root, home) == root / project
    assert hooks.settings_path(agent, "user", root, home) == home / user


@pytest.mark.parametrize(("agent", "scope"), [("vim", "project"), ("claude-code", "global")])
def test_unknown_agent_or_scope_is_a_usage_error(agent: str, scope: str, tmp_path: Path) -> None:
    with pytest.raises(MemError) as caught:
        hooks.settings_path(agent, scope, tmp_path, tmp_path)
    assert caught.value.exit_code == EXIT_USAGE


# --- what mem installs ----------------------------------------------------------------


def test_claude_code_hooks() -> None:
    wanted = hooks.mem_hooks("claude-code")["hooks"]
    capture = {"type": "command", "command": "mem capture", "async": True, "timeout": 10}
    assert wanted["PostToolUse"] == [{"matcher": "*", "hooks": [capture]}]
    assert wanted["PostToolUseFailure"] == [{"matcher": "*", "hooks": [capture]}]
    assert wanted["UserPromptSubmit"] == [{"hooks": [capture]}]
    # The checkpoint is synchronous: its output asks the model to go on.
    checkpoint = {"type": "command", "command": "mem checkpoint", "timeout": 10}
    assert wanted["Stop"] == [{"hooks": [capture]}, {"hooks": [checkpoint]}]
    # SessionStart's output is the context, so it is synchronous; SessionEnd only detaches.
    (start,) = wanted["SessionStart"]
    assert start["hooks"][0]["command"] == "mem index --format claude"
    assert "async" not in start["hooks"][0] and "matcher" not in start
    (end,) = wanted["SessionEnd"]
    assert end["hooks"] == [{"type": "command", "command": "mem compact --detach"}]
    assert list(wanted) == [
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "StopFailure",
        "SessionEnd",
    ]
    # A turn an API error cut short ends with StopFailure: captured as its end, never asked.
    assert wanted["StopFailure"] == [{"hooks": [capture]}]


def test_codex_uses_claude_layout_without_async() -> None:
    wanted = hooks.mem_hooks("codex")
    found = handlers("codex", wanted)
    # Only events Codex fires (openai/codex codex-rs/config/src/hook_config.rs): no SessionEnd.
    codex_events = {"PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact"}
    codex_events |= {"PostCompact", "SessionStart", "UserPromptSubmit", "Stop"}
    assert {event for event, _, _ in found} == {
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "Stop",
    }
    assert {event for event, _, _ in found} <= codex_events
    assert all("async" not in h and h["type"] == "command" for _, _, h in found)
    assert wanted["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "mem index --format claude"
    start = [h["command"] for e, _, h in found if e == "SessionStart"]
    assert start == ["mem index --format claude", "mem compact --detach --agent codex"]
    stop = [h["command"] for e, _, h in found if e == "Stop"]
    assert stop == ["mem capture --agent codex", "mem checkpoint --agent codex"]


def test_no_checkpoint_where_the_end_of_turn_hook_cannot_ask() -> None:
    commands = [h.get("bash") for _, _, h in handlers("copilot", hooks.mem_hooks("copilot"))]
    assert not any("checkpoint" in str(c) for c in commands)


def test_gemini_and_cursor_ask_at_their_own_end_of_turn_event() -> None:
    gemini = handlers("gemini", hooks.mem_hooks("gemini"))
    after = [h["command"] for e, _, h in gemini if e == "AfterAgent"]
    assert after == ["mem capture --agent gemini", "mem checkpoint --agent gemini"]
    cursor = hooks.mem_hooks("cursor")["hooks"]["stop"]
    assert cursor == [{"command": "mem capture --agent cursor"},
                      {"command": "mem checkpoint --agent cursor"}]  # fmt: skip


def test_gemini_recall_is_on_before_agent_when_enabled() -> None:
    assert "recall" not in json.dumps(hooks.mem_hooks("gemini"))
    found = handlers("gemini", hooks.mem_hooks("gemini", recall=True))
    before = [h["command"] for e, _, h in found if e == "BeforeAgent"]
    assert before == ["mem capture --agent gemini", "mem recall --agent gemini"]


def test_recall_is_wired_only_when_enabled() -> None:
    assert "recall" not in json.dumps(hooks.mem_hooks("claude-code"))
    prompt = hooks.mem_hooks("claude-code", recall=True)["hooks"]["UserPromptSubmit"]
    assert prompt[-1] == {"hooks": [{"type": "command", "command": "mem recall", "timeout": 10}]}


def test_install_takes_recall_out_when_it_is_turned_off(tmp_path: Path) -> None:
    home = tmp_path / "home"
    hooks.install("claude-code", "project", tmp_path, home, recall=True)
    path = tmp_path / ".claude" / "settings.json"
    assert "mem recall" in path.read_text()
    result = hooks.install("claude-code", "project", tmp_path, home, recall=False)
    assert result.removed == 1 and "mem recall" not in path.read_text()
    assert hooks.status("claude-code", "project", tmp_path, home).installed


def test_gemini_counts_timeouts_in_milliseconds() -> None:
    found = handlers("gemini", hooks.mem_hooks("gemini"))
    assert {event for event, _, _ in found} == {
        "SessionStart",
        "BeforeAgent",
        "AfterTool",
        "AfterAgent",
        "SessionEnd",
    }
    assert all(h["timeout"] >= 1000 for _, _, h in found)
    assert all(h["command"].endswith("--agent gemini") for _, _, h in found)


def test_cursor_and_copilot_use_flat_versioned_layout() -> None:
    cursor = hooks.mem_hooks("cursor")
    assert cursor["version"] == 1
    assert cursor["hooks"]["beforeSubmitPrompt"] == [{"command": "mem capture --agent cursor"}]
    assert cursor["hooks"]["sessionStart"] == [{"command": "mem index --agent cursor"}]
    copilot = hooks.mem_hooks("copilot")
    assert copilot["version"] == 1
    assert set(copilot["hooks"]) == {
        "sessionStart",
        "userPromptSubmitted",
        "postToolUse",
        "errorOccurred",
        "sessionEnd",
    }
    (prompt,) = copilot["hooks"]["userPromptSubmitted"]
    assert prompt == {
        "type": "command",
        "bash": "mem capture --agent copilot",
        "powershell": "mem capture --agent copilot",
        "timeoutSec": 10,
    }


@pytest.mark.parametrize("agent", hooks.AGENTS)
def test_every_installed_command_is_a_mem_subcommand(agent: str, places: tuple[Path, Path]) -> None:
    result = hooks.install(agent, "project", *places)
    doc = json.loads(result.path.read_text(encoding="utf-8"))
    found = handlers(agent, doc)
    assert len(found) == result.added == len(hooks.hook_specs(agent))
    for _, _, handler in found:
        for command in commands(handler):
            words = command.split()
            assert words[0] == "mem"
            assert words[1] in SUBCOMMANDS
            if agent != "claude-code":
                assert words[-2:] == ["--agent", agent] or words[1] == "index"
    # The file as written: valid JSON, two-space indentation, a trailing newline.
    text = result.path.read_text(encoding="utf-8")
    assert text == dump(doc) and text == dump(hooks.mem_hooks(agent))


# --- install --------------------------------------------------------------------------


def test_install_keeps_everything_else(places: tuple[Path, Path]) -> None:
    root, home = places
    path = write(root / ".claude/settings.json", dump(CLAUDE_SETTINGS))
    result = hooks.install("claude-code", "project", root, home)
    assert (result.path, result.added, result.removed, result.changed) == (path, 8, 0, True)
    doc = json.loads(path.read_text(encoding="utf-8"))
    # Other settings: same values, same order.
    assert list(doc) == list(CLAUDE_SETTINGS)
    for key in ("$schema", "permissions", "env", "model"):
        assert doc[key] == CLAUDE_SETTINGS[key]
    # Other hooks: untouched and first; mem's events come after the user's.
    before = CLAUDE_SETTINGS["hooks"]
    assert list(doc["hooks"])[:3] == list(before)
    for event, entries in before.items():
        assert doc["hooks"][event][: len(entries)] == entries
    assert doc["hooks"]["PreToolUse"] == before["PreToolUse"]
    assert doc["hooks"]["PostToolUse"][1] == {
        "matcher": "*",
        "hooks": [{"type": "command", "command": "mem capture", "async": True, "timeout": 10}],
    }
    # Taking mem's handlers out again gives back exactly the original file.
    hooks.uninstall("claude-code", "project", root, home)
    assert path.read_text(encoding="utf-8") == dump(CLAUDE_SETTINGS)


def test_install_twice_changes_nothing(places: tuple[Path, Path]) -> None:
    root, home = places
    path = write(root / ".claude/settings.json", dump(CLAUDE_SETTINGS))
    hooks.install("claude-code", "project", root, home)
    text, mtime = path.read_bytes(), age(path)
    again = hooks.install("claude-code", "project", root, home)
    assert (again.added, again.removed, again.changed) == (0, 0, False)
    assert path.read_bytes() == text
    assert path.stat().st_mtime_ns == mtime


@pytest.mark.parametrize("agent", hooks.AGENTS)
def test_every_agent_installs_idempotently(agent: str, places: tuple[Path, Path]) -> None:
    first = hooks.install(agent, "project", *places)
    mtime = age(first.path)
    assert not hooks.install(agent, "project", *places).changed
    assert first.path.stat().st_mtime_ns == mtime
    assert hooks.status(agent, "project", *places).installed


def test_install_creates_missing_file_and_folders(places: tuple[Path, Path]) -> None:
    root, home = places
    result = hooks.install("copilot", "project", root, home)
    assert result.path == root / ".github/hooks/mem.json"
    assert json.loads(result.path.read_text(encoding="utf-8")) == hooks.mem_hooks("copilot")
    assert stat.S_IMODE(result.path.stat().st_mode) == 0o644
    assert [p.name for p in result.path.parent.iterdir()] == ["mem.json"]  # no temp file left


def test_user_scope_writes_under_home(places: tuple[Path, Path]) -> None:
    root, home = places
    result = hooks.install("gemini", "user", root, home)
    assert result.path == home / ".gemini/settings.json" and result.path.exists()
    assert not (root / ".gemini").exists()


def test_install_adds_version_to_flat_file_without_one(places: tuple[Path, Path]) -> None:
    root, home = places
    mine = {"hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}
    path = write(root / ".cursor/hooks.json", dump(mine))
    hooks.install("cursor", "project", root, home)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert list(doc) == ["version", "hooks"] and doc["version"] == 1
    assert doc["hooks"]["afterFileEdit"] == [
        {"command": "./format.sh"},
        {"command": "mem capture --agent cursor"},
    ]


def test_install_replaces_older_forms_of_its_own_handlers(places: tuple[Path, Path]) -> None:
    root, home = places
    old = {"type": "command", "command": "mem capture", "timeout": 30}
    settings = {
        "hooks": {
            "PostToolUse": [
                {"matcher": "*", "hooks": [old, {"type": "command", "command": "./lint.sh"}]},
                {"matcher": "*", "hooks": [dict(old)]},  # a duplicate: would capture twice
            ],
            "PreCompact": [{"hooks": [{"type": "command", "command": "mem recall"}]}],
        }
    }
    path = write(root / ".claude/settings.json", dump(settings))
    result = hooks.install("claude-code", "project", root, home)
    assert (result.added, result.removed) == (8, 2)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["hooks"]["PostToolUse"] == [
        {"matcher": "*", "hooks": [{"type": "command", "command": "./lint.sh"}]},
        hooks.mem_hooks("claude-code")["hooks"]["PostToolUse"][0],
    ]
    # mem handlers that install does not manage (another event or subcommand) are left.
    assert doc["hooks"]["PreCompact"] == settings["hooks"]["PreCompact"]
    assert hooks.status("claude-code", "project", root, home).other == 1


def test_install_keeps_the_files_indentation(places: tuple[Path, Path]) -> None:
    root, home = places
    path = write(root / ".claude/settings.json", json.dumps({"model": "opus"}, indent=4) + "\n")
    hooks.install("claude-code", "project", root, home)
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n    "model": "opus",\n    "hooks": {\n        "SessionStart"')
    assert text.endswith("}\n") and not text.endswith("\n\n")


def test_install_keeps_non_ascii_text(places: tuple[Path, Path]) -> None:
    root, home = places
    path = write(root / ".claude/settings.json", dump({"statusLine": "Grüße ✓"}))
    hooks.install("claude-code", "project", root, home)
    assert '"Grüße ✓"' in path.read_text(encoding="utf-8")


def test_install_into_empty_file(places: tuple[Path, Path]) -> None:
    root, home = places
    path = write(root / ".codex/hooks.json", "\n")
    assert hooks.install("codex", "project", root, home).added == 6
    assert json.loads(path.read_text(encoding="utf-8")) == hooks.mem_hooks("codex")


def test_install_writes_through_a_symlink_and_keeps_its_mode(places: tuple[Path, Path]) -> None:
    root, home = places
    target = write(home / "dotfiles/claude.json", dump({"model": "opus"}))
    target.chmod(0o600)
    link = home / ".claude/settings.json"
    link.parent.mkdir()
    link.symlink_to(target)
    hooks.install("claude-code", "user", root, home)
    assert link.is_symlink()
    assert "mem capture" in target.read_text(encoding="utf-8")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


# --- bad files are reported and left alone --------------------------------------------


@pytest.mark.parametrize("operation", [hooks.install, hooks.uninstall, hooks.status])
def test_invalid_json_names_file_and_line(operation: Any, places: tuple[Path, Path]) -> None:
    root, home = places
    broken = '{\n  "model": "opus",\n  "hooks": {,\n}\n'
    path = write(root / ".claude/settings.json", broken)
    with pytest.raises(MemError) as caught:
        operation("claude-code", "project", root, home)
    assert caught.value.exit_code == EXIT_USAGE
    assert str(caught.value).startswith(f"{path}:3: invalid JSON: ")
    assert path.read_text(encoding="utf-8") == broken


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]\n", "expected a JSON object"),
        ('{"hooks": []}\n', '"hooks" is not a JSON object'),
        ('{"hooks": {"Stop": {"command": "x"}}}\n', '"hooks.Stop" is not a JSON list'),
    ],
)
def test_unexpected_structure_is_reported(
    text: str, message: str, places: tuple[Path, Path]
) -> None:
    root, home = places
    path = write(root / ".claude/settings.json", text)
    with pytest.raises(MemError, match=message) as caught:
        hooks.install("claude-code", "project", root, home)
    assert str(path) in str(caught.value)
    assert path.read_text(encoding="utf-8") == text


# --- uninstall ------------------------------------------------------------------------


def test_uninstall_removes_only_mems_handlers(places: tuple[Path, Path]) -> None:
    root, home = places
    mine = {"type": "command", "command": "./notify.sh"}
    settings: dict[str, Any] = {
        "hooks": {
            "Stop": [
                {"hooks": [mine, {"type": "command", "command": "mem capture", "async": True}]}
            ],
            "PostToolUse": [
                {"matcher": "*", "hooks": [{"type": "command", "command": "/opt/bin/mem capture"}]},
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "memento log"}]},
            ],
            "Notification": [{"hooks": [{"type": "command", "command": "mem recall x"}]}],
            "PreCompact": [],
        },
        "model": "opus",
    }
    path = write(root / ".claude/settings.json", dump(settings))
    result = hooks.uninstall("claude-code", "project", root, home)
    assert (result.added, result.removed, result.changed, result.deleted) == (0, 3, True, False)
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "hooks": {
            "Stop": [{"hooks": [mine]}],  # the user's handler keeps its group
            "PostToolUse": [settings["hooks"]["PostToolUse"][1]],  # "memento" is not mem
            "PreCompact": [],  # empty before: not mem's doing, left as it was
        },
        "model": "opus",
    }


def test_uninstall_after_install_restores_every_agents_file(places: tuple[Path, Path]) -> None:
    root, home = places
    originals = {
        "codex": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}},
        "gemini": {"general": {"vimMode": True}, "hooksConfig": {"enabled": True}},
        "cursor": {"version": 1, "hooks": {"stop": [{"command": "./after.sh"}]}},
        "copilot": {"version": 1, "hooks": {"sessionEnd": [{"type": "command", "bash": "x"}]}},
    }
    for agent, original in originals.items():
        path = write(hooks.settings_path(agent, "project", root, home), dump(original))
        assert hooks.install(agent, "project", root, home).changed
        assert hooks.uninstall(agent, "project", root, home).changed
        assert path.read_text(encoding="utf-8") == dump(original), agent


@pytest.mark.parametrize("agent", hooks.AGENTS)
def test_uninstall_deletes_a_file_that_held_only_mems_hooks(
    agent: str, places: tuple[Path, Path]
) -> None:
    path = hooks.install(agent, "project", *places).path
    result = hooks.uninstall(agent, "project", *places)
    assert result.deleted and result.removed == len(hooks.hook_specs(agent))
    assert not path.exists()


def test_uninstall_without_mem_hooks_leaves_the_file(places: tuple[Path, Path]) -> None:
    root, home = places
    path = write(root / ".claude/settings.json", dump(CLAUDE_SETTINGS))
    mtime = age(path)
    result = hooks.uninstall("claude-code", "project", root, home)
    assert (result.removed, result.changed) == (0, False)
    assert path.stat().st_mtime_ns == mtime
    assert not hooks.uninstall("cursor", "project", root, home).changed  # no file at all
    assert not (root / ".cursor").exists()


# --- status and the layering rules ----------------------------------------------------


def test_status_counts(places: tuple[Path, Path]) -> None:
    root, home = places
    missing = hooks.status("claude-code", "project", root, home)
    assert (missing.exists, missing.present, missing.wanted, missing.installed) == (
        False,
        0,
        8,
        False,
    )
    path = hooks.install("claude-code", "project", root, home).path
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 99  # edited by hand
    write(path, dump(doc))
    edited = hooks.status("claude-code", "project", root, home)
    assert (edited.present, edited.other, edited.installed) == (7, 1, False)


def test_is_mem_command() -> None:
    assert hooks.is_mem_command("mem capture")
    assert hooks.is_mem_command("/usr/local/bin/mem index --format claude")
    assert hooks.is_mem_command(r"C:\tools\mem.exe capture")
    assert not hooks.is_mem_command("memento capture")
    assert not hooks.is_mem_command("echo mem")
    assert not hooks.is_mem_command("")


def test_core_module_imports_no_cli_libraries() -> None:
    code = "import sys, memcli.hooks; print(sorted({'typer', 'rich'} & set(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("agent", ["codex", "gemini", "cursor", "copilot"])
def test_uninstall_leaves_no_empty_folders_behind(agent: str, tmp_path: Path) -> None:
    root, home = tmp_path / "repo", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    (root / "keep.txt").write_text("x")
    hooks.install(agent, "project", root, home)
    hooks.uninstall(agent, "project", root, home)
    assert sorted(p.name for p in root.iterdir()) == ["keep.txt"]
