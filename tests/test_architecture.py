"""Import direction and import cost, held by tests (basic-memory and Typer do the same)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memcli"
HEAVY_OWNERS = {
    "ruamel": {"yamlio.py"},
    "yaml": {"yamlread.py"},
    "git": set(),  # git runs as a subprocess (memcli/gitlayer.py); gitpython is not a dependency
    "sklearn": {"tfidf_baseline.py"},
    "numpy": {"tfidf_baseline.py"},
    "mcp": {"server.py"},
}


def imported_modules(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


def core_files() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if "cli" not in p.relative_to(PACKAGE).parts]


def test_the_core_never_imports_typer_or_rich() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}: {name}"
        for path in core_files()
        for name, line in imported_modules(path)
        if name.split(".")[0] in ("typer", "rich", "click")
    ]
    assert offenders == []


def test_the_core_never_prints_or_exits() -> None:
    offenders = []
    for path in core_files():
        if path.name in ("__main__.py", "command.py"):
            continue  # the entry point and the hook command own their exit codes
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            calls_builtin = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("print", "exit", "quit")
            )
            calls_sys_exit = (
                isinstance(node, ast.Attribute)
                and node.attr == "exit"
                and isinstance(node.value, ast.Name)
                and node.value.id == "sys"
            )
            if calls_builtin or calls_sys_exit:
                offenders.append(f"{path.name}:{getattr(node, 'lineno', 0)}")
    assert offenders == []


@pytest.mark.parametrize("library", sorted(HEAVY_OWNERS))
def test_each_heavy_dependency_has_one_owner_module(library: str) -> None:
    users = {
        path.name
        for path in PACKAGE.rglob("*.py")
        for name, _ in imported_modules(path)
        if name.split(".")[0] == library
    }
    assert users <= HEAVY_OWNERS[library] | {"index_builder.py"}


@pytest.mark.parametrize("owner", ["evaluation/tfidf_baseline.py"])
def test_heavy_imports_are_lazy_in_their_owners(owner: str) -> None:
    tree = ast.parse((PACKAGE / owner).read_text(encoding="utf-8"))
    top_level = {
        name.split(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        )
    }
    assert not top_level & {"sklearn", "numpy", "scipy"}


def modules_loaded_by(args: list[str], stdin: str = "") -> set[str]:
    """Top-level modules a real `python -m memcli ...` process imported."""
    probe = (
        "import sys, runpy, json, atexit, os\n"
        # capture ends with os._exit, which skips atexit: make it an ordinary exit here.
        "os._exit = lambda code: sys.exit(code)\n"
        "atexit.register(lambda: sys.__stderr__.write('MODULES=' + json.dumps("
        "sorted({m.split('.')[0] for m in sys.modules})) + '\\n'))\n"
        f"sys.argv = ['mem', *{args!r}]\n"
        "try:\n    runpy.run_module('memcli', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], input=stdin, capture_output=True, text=True, check=False
    )
    line = [x for x in result.stderr.splitlines() if x.startswith("MODULES=")]
    assert line, result.stderr
    return set(json.loads(line[-1][len("MODULES=") :]))


def test_help_imports_neither_sklearn_nor_gitpython() -> None:
    loaded = modules_loaded_by(["--help"])
    assert "typer" in loaded  # the probe works
    assert not loaded & {"sklearn", "numpy", "git", "ruamel"}


def test_capture_imports_nothing_heavy(repo: Path) -> None:
    payload = json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "session_id": "s1",
            "tool_name": "Bash",
            "tool_input": {"command": "true"},
            "tool_response": {"stdout": "ok"},
        }
    )
    loaded = modules_loaded_by(["capture"], stdin=payload)
    assert "memcli" in loaded
    heavy = {"typer", "rich", "click", "git", "ruamel", "numpy", "sklearn", "scipy"}
    assert not loaded & heavy, loaded & heavy


def test_hook_commands_fail_open_on_arguments_they_cannot_parse(repo: Path) -> None:
    for args in (["index", "--bogus"], ["recall", "--bogus"], ["index", "--format", "bogus"]):
        result = subprocess.run(
            [sys.executable, "-m", "memcli", *args], capture_output=True, text=True, input=""
        )
        assert result.returncode == 0 and result.stdout == "", args
    strict = subprocess.run(
        [sys.executable, "-m", "memcli", "index", "--bogus", "--strict"],
        capture_output=True,
        text=True,
    )
    assert strict.returncode == 2 and "mem index --help" in strict.stderr


def test_checkpoint_imports_nothing_heavy(repo: Path) -> None:
    buffer = repo / ".memory" / "local" / "buffer" / "s1.jsonl"
    buffer.parent.mkdir(parents=True, exist_ok=True)
    failing = {"id": "o1", "session": "s1", "kind": "error", "summary": "$ pytest -> failed",
               "input": "pytest", "ok": False, "excerpt": "E   KeyError: 'price'"}  # fmt: skip
    buffer.write_text(json.dumps(failing) + "\n", encoding="utf-8")
    payload = json.dumps(
        {"hook_event_name": "Stop", "session_id": "s1", "cwd": str(repo),
         "stop_hook_active": False, "last_assistant_message": "I chose X instead of Y because Z."}
    )  # fmt: skip
    loaded = modules_loaded_by(["checkpoint"], stdin=payload)
    assert "memcli" in loaded
    heavy = {"typer", "rich", "click", "git", "ruamel", "numpy", "sklearn", "scipy", "json"}
    assert not loaded & heavy - {"json"}, loaded & heavy
    assert "typing" not in loaded and "dataclasses" not in loaded


def test_checkpoint_fails_open(repo: Path) -> None:
    for stdin in ("{broken", "[1, 2]", "\x00\x01", ""):
        result = subprocess.run(
            [sys.executable, "-m", "memcli", "checkpoint"], capture_output=True, text=True,
            input=stdin, check=False,
        )  # fmt: skip
        assert (result.returncode, result.stdout) == (0, ""), stdin
    strict = subprocess.run(
        [sys.executable, "-m", "memcli", "checkpoint", "--strict"], capture_output=True,
        text=True, input="{broken", check=False,
    )  # fmt: skip
    assert strict.returncode == 2 and "mem checkpoint:" in strict.stderr
