"""Candidates no failing exit code marks (the shapes are :mod:`memcli.reruns`'s):

- a reproduction that passed printing one thing, a source file changed (not the reproduction,
  not a file the session wrote), the same reproduction printing something else: a ``fix``
  candidate with the line before and the line after;
- a failing command and the next command doing the same job another way passing: a ``fix``
  candidate "use B, not A" with A's error line.

Hook path: no :mod:`re` (a comparison of two outputs uses a cached pattern only when a
reproduction runs again after an edit), no :mod:`json`.
"""

from memcli import reruns
from memcli.checkpoint.entries import add, holds_all, one_line, strings_of, text_of
from memcli.observed import derived

_RUNS = "reproductions"  # command words -> the last passing run's output and the edits since
_FAILED = "last_failure"  # the last failing command, while nothing else ran or changed
_CREATED = "created"  # files the session wrote whole
_WINDOW = "window"  # the file SWE-agent's window shows
_MAX_RUNS = 4
_MAX_OUTPUT = 1500
_MAX_CREATED = 50


def shell_edit(record: dict[str, object], state: dict[str, object]) -> list[str]:
    """The files a passing shell command changed (SWE-agent's ``edit``, ``sed -i``, ...);
    keeps which file SWE-agent's window shows."""
    command, output = text_of(record, "input"), text_of(record, "excerpt")
    if record.get("ok") is False:
        return []
    window = str(state.get(_WINDOW) or "")
    files, created = reruns.shell_edit(command, output, window)
    shown = reruns.window_file(output) if "[File: " in output else ""
    if command.startswith(("open ", "create ")) and not shown and len(command.split()) > 1:
        shown = command.split()[1]
    if shown:
        state[_WINDOW] = shown
    if created:
        _created(state, files)
    return files


def _created(state: dict[str, object], files: list[str]) -> None:
    known = strings_of(state.get(_CREATED))
    state[_CREATED] = list(dict.fromkeys([*known, *files]))[-_MAX_CREATED:]


def edited(record: dict[str, object], files: list[str], state: dict[str, object]) -> None:
    """An edit: no workaround across it; a reproduction it changes starts afresh, the others
    remember the file."""
    state.pop(_FAILED, None)
    if text_of(record, "summary").startswith("write "):
        known = strings_of(state.get(_CREATED))
        _created(state, [f for f in files if f not in known])
    runs = state.get(_RUNS)
    if not isinstance(runs, dict) or not runs:
        return
    created = state.get(_CREATED)
    created = created if isinstance(created, list) else ()
    fixes = [f for f in files if f not in created and not reruns.test_or_reproduction(f)]
    # Every edit of a session passes here, once per reproduction kept: plain loops, and the
    # stored lists read in place (the usual case: nothing to change).
    edited_files = [reruns.normal_path(f) for f in files]
    for key, run in list(runs.items()):
        if not isinstance(run, dict) or _runs_script(run.get("scripts"), edited_files):
            runs.pop(key, None)
        elif fixes:
            kept = run.get("files")
            kept = kept if isinstance(kept, list) else []
            if len(kept) < 8 and not holds_all(kept, fixes):
                run["files"] = list(dict.fromkeys([*strings_of(kept), *fixes]))[:8]


def _runs_script(scripts: object, edited: list[str]) -> bool:
    """Whether an edited file (``edited``: :func:`memcli.reruns.normal_path` of each) is
    one the reproduction runs (then it starts afresh)."""
    if not isinstance(scripts, list):
        return False
    for script in scripts:
        for file in edited:
            if reruns.same_normal_file(file, reruns.normal_path(str(script))):
                return True
    return False


def ran(record: dict[str, object], state: dict[str, object]) -> None:
    """A command that ran to its end (not a look around)."""
    command = text_of(record, "input")
    ok = record.get("ok")
    if ok is False:
        _failed(record, state, command)
        return
    if ok is not True:
        return
    failed = state.pop(_FAILED, None)
    if isinstance(failed, dict) and reruns.same_job(str(failed.get("cmd") or ""), command):
        _instead(record, state, failed, command)
    if reruns.reproduction(command):
        _reproduced(record, state, command)


def _failed(record: dict[str, object], state: dict[str, object], command: str) -> None:
    runs = state.get(_RUNS)
    if isinstance(runs, dict):  # a failing run: the fail-then-fix candidates take it
        runs.pop(" ".join(reruns.words_of(command)), None)
    # Its signature is read only if the next command turns out to do the same job.
    state[_FAILED] = {"cmd": command, "out": text_of(record, "excerpt")[:_MAX_OUTPUT],
                      "summary": text_of(record, "summary"), "obs": text_of(record, "id"),
                      "ref": text_of(record, "raw")}  # fmt: skip


def _instead(
    record: dict[str, object], state: dict[str, object], failed: dict[str, object], command: str
) -> None:
    """A workaround: ``command`` did the job the failing command tried; a typo is none."""
    kind, line = derived.command_signature(
        str(failed.get("out") or ""), str(failed.get("summary") or "")
    )
    if not line or kind == "shell" or "SyntaxError" in line or "is not defined" in line:
        return  # a typo, or the shell failing before the command ran, is no other way
    add(state, "fix", f"instead\0{failed.get('cmd')}\0{command}",
        [f"`{one_line(str(failed.get('cmd')), 100)}` failed: {one_line(line, 160)}",
         f"`{one_line(command, 100)}` did the same job and passed"],
        record, verified=True,
        obs=[str(failed.get("obs") or ""), text_of(record, "id")],
        refs=[r for r in (str(failed.get("ref") or ""), text_of(record, "raw")) if r],
        )  # fmt: skip


def _reproduced(record: dict[str, object], state: dict[str, object], command: str) -> None:
    runs = state.setdefault(_RUNS, {})
    assert isinstance(runs, dict)
    key = " ".join(reruns.words_of(command))
    output = text_of(record, "excerpt")[:_MAX_OUTPUT]
    earlier = runs.get(key)
    if isinstance(earlier, dict) and strings_of(earlier.get("files")):
        changed = reruns.differing(str(earlier.get("out") or ""), output)
        if changed is not None:
            files = strings_of(earlier.get("files"))
            before, after = changed
            add(state, "fix", f"output\0{key}\0{files[0]}",
                [f"`{one_line(command, 80)}` printed: {one_line(before, 100)}",
                 f"after changing {', '.join(files[:3])}: {one_line(after, 100)}"],
                record, files=files[:5],
                obs=[str(earlier.get("obs") or ""), text_of(record, "id")],
                refs=[r for r in (str(earlier.get("ref") or ""), text_of(record, "raw")) if r],
                )  # fmt: skip
            return  # the first run stays the baseline: a later run may differ again
    if isinstance(earlier, dict):
        return  # the first run of the series is what "before" means
    if len(runs) >= _MAX_RUNS:
        runs.pop(next(iter(runs)))
    runs[key] = {"out": output, "obs": text_of(record, "id"), "ref": text_of(record, "raw"),
                 "scripts": reruns.scripts_of(command), "files": []}  # fmt: skip
