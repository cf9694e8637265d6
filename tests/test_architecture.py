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


# Which part of mem may import which: a unit (a subpackage, or a module at the top of the
# package) may import units of its own layer or of a lower one, never a higher one. The layers,
# from the bottom:
LAYERS: list[tuple[str, set[str]]] = [
    (
        "foundation: no knowledge of items, no I/O policy",
        {"__init__", "errors", "kinds", "ids", "timeutil", "atomic", "defaults", "untrusted"}
        | {"gitfiles", "gitlayer", "paths", "template", "hooks", "hookspecs", "hookprogram"}
        | {"hooklauncher"}
        | {"progress", "batchwork", "fastparse", "detached", "filestamps"},
    ),
    (
        "the hook path: capture, privacy (the one redactor), what hooks observed, the log, project "
        "identity, lesson signals (pasted failures, re-runs, tool outputs, redirecting prompts, "
        "statements said without a failure, what a sentence's words say, commands run over a "
        "remote shell, programs by name)",
        {"capture", "privacy", "observed", "memlog", "scope", "signals", "pasted", "reruns"}
        | {
            "outputs",
            "redirects",
            "statements",
            "commit_messages",
            "remote",
            "programs",
            "phrasing",
        },
    ),
    (
        "records: the item model, YAML, settings, the item store",
        {"model", "yamlio", "yamlread", "config", "userconfig", "store", "identity", "layout"}
        | {"itemfile", "itemcache", "itemlayout", "itemcheck"},
    ),
    ("engines: the index and search, the user-level store's merge", {"retrieval", "userstore"}),
    (
        "the library: the API and the work behind it",
        {
            "api",
            "reading",
            "maintenance",
            "forgetting",
            "compact",
            "checkpoint",
            "review",
            "evaluation",
        },
    ),
    (
        "front ends: the CLI, the MCP server, the entry point (and the hooks' module bundle)",
        {"cli", "mcpserver", "__main__", "hookbundle"},
    ),
]
# Imports the layers allow but the design does not: front ends do not call each other.
# capture/ holds the hook pipeline alone: what others share with it lives below it
# (fastparse, observed, memlog), and privacy, the one redactor, never depends on capture.
FORBIDDEN = {("mcpserver", "cli"), ("privacy", "capture"), ("observed", "capture")}
FORBIDDEN |= {
    ("memlog", "capture"),
    ("scope", "capture"),
    ("signals", "capture"),
    ("pasted", "capture"),
    ("reruns", "capture"),
    ("outputs", "capture"),
    ("redirects", "capture"),
    ("statements", "capture"),
    ("commit_messages", "capture"),
    ("remote", "capture"),
    ("programs", "capture"),
    ("phrasing", "capture"),
}
# Module imports across layers that are allowed by name: the parse cache writes its sections
# in the index's binary format (retrieval.persisted imports nothing of mem but untrusted).
# Files are written owner-only (privacy.owner_only, which imports nothing) by the atomic writer;
# the secret gate (prune --check's scan) reads committed YAML.
ALLOWED = {
    ("memcli.atomic", "memcli.privacy"),
    ("memcli.atomic", "memcli.privacy.owner_only"),
    ("memcli.privacy.secret_gate", "memcli.yamlio"),
    ("memcli.itemcache", "memcli.retrieval"),
    ("memcli.itemcache", "memcli.retrieval.persisted"),
}


def module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(module: str) -> str:
    """``memcli.retrieval.search`` -> ``retrieval``; ``memcli`` -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under ``if TYPE_CHECKING:`` (imports for the type checker only)."""
    found: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)
            continue
        pending.extend(ast.iter_child_nodes(node))
    return found


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, at the top or inside a function."""
    files = {module_name(p, package): p for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets: set[str] = set()
        for node in runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets.add(node.module)
                targets.update(f"{node.module}.{alias.name}" for alias in node.names)
        graph[name] = {
            t for t in targets if t in files and t != name and not name.startswith(t + ".")
        }
    return graph


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    rank = {unit: n for n, (_why, units) in enumerate(LAYERS) for unit in units}
    found = []
    for module, targets in sorted(graph.items()):
        source = unit_of(module)
        if source not in rank:
            found.append(f"{module}: {source!r} is in no layer of tests/test_architecture.py")
            continue
        for target in sorted(targets):
            unit = unit_of(target)
            if unit == source:
                continue
            if unit not in rank:
                found.append(f"{module} imports {target}: {unit!r} is in no layer")
            elif (module, target) in ALLOWED:
                continue
            elif rank[unit] > rank[source] or (source, unit) in FORBIDDEN:
                found.append(f"{module} imports {target} ({LAYERS[rank[unit]][0]})")
    return found


def import_cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_every_import_goes_down_the_layers() -> None:
    assert layer_violations(import_graph(PACKAGE)) == []


def test_no_import_cycles() -> None:
    """Not even one broken at run time by a lazy import: the graph counts imports inside
    functions too. A piece two modules share moves down into a module both import."""
    assert [sorted(cycle) for cycle in import_cycles(import_graph(PACKAGE))] == []


# Who may import the hook pipeline: its entry points, and the two readers that replay what
# capture records (an import feeds transcripts through it; the session evaluation reads raw
# payloads with its adapters). Everything else shares what capture shares through
# fastparse/, observed/ and memlog.py.
CAPTURE_IMPORTERS = {"memcli.__main__", "memcli.cli.capture_cmd", "memcli.compact.transcripts"}
CAPTURE_IMPORTERS |= {"memcli.evaluation.sessions_data"}


def capture_importers(graph: dict[str, set[str]]) -> set[str]:
    return {
        module
        for module, targets in graph.items()
        if unit_of(module) != "capture" and any(unit_of(t) == "capture" for t in targets)
    }


def test_capture_holds_only_the_hook_pipeline() -> None:
    assert capture_importers(import_graph(PACKAGE)) <= CAPTURE_IMPORTERS


def write_package(root: Path, files: dict[str, str]) -> Path:
    package = root / "memcli"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_the_checks_fail_on_a_synthetic_violation(tmp_path: Path) -> None:
    clean = {
        "__init__.py": "",
        "errors.py": "",
        "api.py": "from memcli import errors\n",
        "capture/__init__.py": "",
        "capture/pipeline.py": "from memcli.errors import MemError\n",
        "cli/__init__.py": "",
        "cli/app.py": "from memcli.api import Memory\n",
    }
    assert layer_violations(import_graph(write_package(tmp_path / "clean", clean))) == []
    dirty = {
        **clean,
        # the hook path reaching up into the library, inside a function as lazy imports are
        "capture/pipeline.py": "def f():\n    from memcli.api import Memory\n",
        "errors.py": "import memcli.cli.app\n",  # the foundation importing a front end
        "newpart.py": "",  # a unit nobody placed
        # an import for the type checker only is no dependency at run time
        "store.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from memcli.api import M\n",
        # same layer, but a forbidden direction: the redactor depending on the hook pipeline
        "privacy/__init__.py": "",
        "privacy/redactor.py": "def f():\n    from memcli.capture import pipeline\n",
    }
    found = layer_violations(import_graph(write_package(tmp_path / "dirty", dirty)))
    assert any(v.startswith("memcli.capture.pipeline imports memcli.api ") for v in found)
    assert any(v.startswith("memcli.errors imports memcli.cli.app ") for v in found)
    assert any("'newpart' is in no layer" in v for v in found)
    assert not any(v.startswith("memcli.store ") for v in found)
    assert any(v.startswith("memcli.privacy.redactor imports memcli.capture") for v in found)
    assert capture_importers(import_graph(write_package(tmp_path / "dirty2", dirty))) == {
        "memcli.privacy.redactor"
    }
    cyclic = {**clean, "api.py": "from memcli.cli import app\n"}
    graph = import_graph(write_package(tmp_path / "cyclic", cyclic))
    assert import_cycles(graph) == [{"memcli.api", "memcli.cli.app"}]
    # a cycle broken at run time by a lazy import is still a cycle
    lazy = {**clean, "api.py": "def f():\n    from memcli.cli import app\n"}
    graph = import_graph(write_package(tmp_path / "lazy", lazy))
    assert import_cycles(graph) == [{"memcli.api", "memcli.cli.app"}]


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
