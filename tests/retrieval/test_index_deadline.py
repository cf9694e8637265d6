"""A session start that runs out of time answers from what is ready, and the index is
finished in the background (a cold clone of a large store)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import AddItem, age_files

from memcli.paths import StorePaths
from memcli.retrieval import layer1, loader, persisted


def test_a_passed_deadline_answers_with_a_note_and_writes_no_index(
    repo: Path, add_item: AddItem
) -> None:
    for n in range(3):
        add_item(f"Pitfall number {n}")
    age_files(repo)
    layer = layer1.layer1_index(repo, 400, deadline=0.0, record=False)
    assert layer.pending == 3
    assert "Still indexing: 3 more item files are being read" in layer.text
    assert not Path(loader.index_dir(StorePaths(repo)), persisted.INDEX_NAME).exists()
    complete = layer1.layer1_index(repo, 400, record=False)
    assert complete.pending == 0 and len(complete.entries) == 3
    assert "Still indexing" not in complete.text


def test_the_hook_prints_an_index_and_finishes_it_in_the_background(
    repo: Path, add_item: AddItem
) -> None:
    items = [add_item(f"Kafka pitfall {n}") for n in range(4)]
    age_files(repo)
    env = {**os.environ, "MEM_INDEX_SECONDS": "0"}
    result = subprocess.run(
        [sys.executable, "-m", "memcli", "index", "--format", "claude"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Still indexing: 4 more item files" in context
    index_file = Path(loader.index_dir(StorePaths(repo)), persisted.INDEX_NAME)
    waited = 0.0
    while not index_file.exists() and waited < 60:  # the detached build, not a timing test
        time.sleep(0.1)
        waited += 0.1
    assert index_file.exists()
    again = subprocess.run(
        [sys.executable, "-m", "memcli", "index", "--format", "text"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Still indexing" not in again.stdout
    assert all(item.id in again.stdout for item in items)
