"""Docs that are generated must be current; docs that are promised must exist."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "scripts/gen_cli_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_cli_docs"] = module
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_current() -> None:
    expected = load_generator().render()
    actual = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert actual == expected, "docs/cli.md is stale: run `make docs`"


def test_every_command_is_documented() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for command in (
        "init",
        "add",
        "show",
        "list",
        "edit",
        "forget",
        "lint",
        "stats",
        "capture",
        "hooks install",
        "hooks uninstall",
        "search",
        "index",
        "recall",
        "reindex",
        "log",
        "compact",
        "import",
        "mcp",
        "eval",
        "diff",
        "prune",
        "merge-driver",
    ):
        assert f"## `mem {command}`" in text, command


def test_promised_docs_exist() -> None:
    for name in (
        "quickstart.md",
        "item-format.md",
        "configuration.md",
        "cli.md",
        "hooks.md",
        "masking.md",
    ):
        assert (ROOT / "docs" / name).is_file(), name
