"""Shared helpers of the review tests: a Typer app with the review commands, git, items."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.testing import CliRunner

from memcli.cli import diff_cmd, history_cmd, merge_driver_cmd, prune_cmd
from memcli.model import Item
from memcli.paths import StorePaths
from memcli.store import ItemStore
from tests.conftest import git as git  # noqa: F401 - shared with the review tests

GOLDEN = Path(__file__).resolve().parent / "golden"
MEM = Path(sys.executable).parent / "mem"
STAMP = "2026-01-05T10:00:00Z"
PROJECT = "example.invalid/team/project"

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command("diff")(diff_cmd.diff)
app.command("prune")(prune_cmd.prune)
app.command("merge-driver")(merge_driver_cmd.merge_driver)


@app.command("log")
def log(
    item_id: Annotated[str, typer.Argument()],
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    raise typer.Exit(history_cmd.run_history(item_id, as_json))


runner = CliRunner()


def mem(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env=env)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def save(
    root: Path,
    item_id: str,
    title: str,
    *,
    kind: str = "pitfall",
    body: str = "The fact, conclusion first.",
    tags: tuple[str, ...] = (),
    **fields: Any,
) -> Item:
    data: dict[str, Any] = {
        "id": item_id,
        "kind": kind,
        "title": title,
        "body": body,
        "scope": {"project": PROJECT},
        "created": STAMP,
        "updated": STAMP,
        "tags": list(tags),
        "source": {"compactor": "manual", "version": "0.1.0"},
        **fields,
    }
    item = Item.from_dict(data)
    ItemStore(StorePaths(root)).save(item)
    return item


def alike_decisions(root: Path, facts: int, *older: tuple[str, str]) -> None:
    """Two commits: ``facts`` unrelated items, two decisions (Postgres 14, Redis streams) and
    ``older`` decisions (id, title), an item expired before either commit; then two alike
    decisions that contradict them (Postgres 16, not Redis streams) and an item whose expiry
    falls between the two commits."""
    for number in range(facts):
        save(root, f"mmmm{number:06d}", f"Unrelated fact number {number} about module m{number}")
    save(root, "aaaa000001", "Pin Postgres 14 for the job queue", kind="decision")
    save(root, "zzzz000001", "Use Redis streams for the notifications", kind="decision")
    for item_id, title in older:
        save(root, item_id, title, kind="decision")
    save(root, "gone000001", "Gone: the staging host", kind="task", expires="2026-01-01T00:00:00Z")
    commit(root, "store")
    save(root, "nnnn000001", "Pin Postgres 16 for the job queue", kind="decision")
    save(root, "nnnn000002", "Do not use Redis streams for the notifications", kind="decision")
    save(root, "late000001", "Late: the build cache", kind="task", expires="2026-01-02T00:00:00Z")
    commit(root, "new decisions")


def driver_command() -> str:
    """The venv's own `mem`; a shim with the same command while `mem` lacks merge-driver."""
    probe = subprocess.run([str(MEM), "merge-driver", "--help"], capture_output=True, check=False)
    if probe.returncode == 0:
        return str(MEM)
    shim = Path(__file__).resolve().parent / "driver_shim.py"
    return f"'{sys.executable}' '{shim}'"


def item_path(root: Path, item_id: str) -> Path:
    return root / ".memory" / "items" / f"{item_id}.yaml"
