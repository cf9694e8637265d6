"""Candidates from events other than a failing command: a tool's failure (``failed``), a
passing command's warning the next edit acted on (``warning``), and a background job waited
for again and again (``env``, "takes long").

Hook path: no :mod:`re`; each test is a substring check before anything costlier.
"""

from memcli import signals
from memcli.checkpoint.entries import add, count_of, one_line, strings_of, text_of
from memcli.fastparse import fastre

MIN_POLLS = 2  # waits on one background job before it is a candidate
MAX_WARNINGS = 8  # pending warnings kept in the state, the newest
_FILE_VERBS = ("edit ", "write ", "patch")
_WARNING = (
    r"^.*(?:\bwarning\b(?:\[[\w-]+\])?:|\w+Warning: |\bdeprecated\b).*$"  # see compact.events
)


def tool_error_line(excerpt: str, summary: str) -> str:
    """The line a non-shell tool's failure says, or "" when it is none worth a lesson."""
    said = excerpt or summary.partition(" -> failed")[2].strip(" ()")
    said = said.replace("<tool_use_error>", "").replace("</tool_use_error>", "")
    kind, line = signals.failure(said)
    if kind in ("", "other"):
        line = next((x.strip() for x in said.split("\n") if x.strip()), "")
    line = one_line(line, 200)
    if len(line.split()) < 3 or line.lower().startswith("user "):
        return ""  # "User chose to stay in plan mode": a choice, not a failure
    return line


def tool_failed(record: dict[str, object], state: dict[str, object]) -> None:
    """A tool that is neither the shell nor an edit failed: what it said is a candidate (how
    to call it, or that it cannot do that here)."""
    tool, summary = text_of(record, "tool"), text_of(record, "summary")
    excerpt = text_of(record, "excerpt")
    if summary.startswith(_FILE_VERBS) or signals.denied(excerpt, summary):
        return
    line = tool_error_line(excerpt, summary)
    lowered = line.lower()
    if summary.startswith("read ") and ("does not exist" in lowered or "no such file" in lowered):
        return  # a guessed path: the next read finds the right one
    if line:
        call = one_line(summary.split(" -> ", 1)[0], 100)
        add(state, "failed", f"tool\0{tool}\0{line}", [f"`{call}` failed: {line}"], record)


def _jobs(state: dict[str, object]) -> dict[str, dict[str, object]]:
    jobs = state.setdefault("jobs", {})
    assert isinstance(jobs, dict)
    return jobs


def background(record: dict[str, object], state: dict[str, object]) -> None:
    """A command started in the background: its polls are counted from here."""
    excerpt = text_of(record, "excerpt")
    job = excerpt.rsplit("(id ", 1)[-1].rstrip(")") if "(id " in excerpt else ""
    jobs = _jobs(state)
    if len(jobs) >= 20:
        jobs.pop(next(iter(jobs)))
    jobs[job or text_of(record, "id")] = {"cmd": text_of(record, "input"), "polls": 0,
                                          "obs": text_of(record, "id"),
                                          "ref": text_of(record, "raw")}  # fmt: skip
    state["last_job"] = job or text_of(record, "id")


def waited(record: dict[str, object], state: dict[str, object], job: str = "") -> None:
    """A poll of a background job (``job``: its id), or a ``sleep`` (the latest job)."""
    jobs = _jobs(state)
    found = jobs.get(job or str(state.get("last_job") or ""))
    if found is None:
        return
    polls = found["polls"] = count_of(found.get("polls")) + 1
    if polls >= MIN_POLLS:
        command = one_line(str(found.get("cmd") or ""), 100)
        add(state, "env", f"slow\0{command}",
             [f"`{command}` takes long: run in the background, waited for {polls} times "
              "(a build, a compile, a dependency fetch?)"],
             record, env="slow", obs=[str(found.get("obs") or ""), text_of(record, "id")],
             refs=_refs(found, record))  # fmt: skip


def poll(record: dict[str, object], state: dict[str, object]) -> bool:
    """Whether ``record`` is a poll of a background job (and counted as one)."""
    if text_of(record, "tool").lower() not in signals.POLL_TOOLS:
        return False
    waited(record, state, text_of(record, "input"))
    return True


def sleep(command: str) -> bool:
    """`sleep 30`, `sleep 60 && tail out.log`: a wait."""
    words = command.split()
    return len(words) >= 2 and words[0] == "sleep" and words[1].rstrip("smh").isdigit()


def warned(record: dict[str, object], state: dict[str, object], key: str) -> None:
    """A passing command's warning line, kept until the next edit or the next run of it."""
    pending = state.get("warnings")
    if isinstance(pending, dict):
        pending.pop(key, None)  # the command ran again: only its newest warning counts
    excerpt = text_of(record, "excerpt")
    # Substring tests, no lower(): this runs for every passing command of a session.
    if not (
        "arning" in excerpt or "ARNING" in excerpt or "eprecat" in excerpt or "EPRECAT" in excerpt
    ):
        return
    excerpt = excerpt[:20_000]
    found = fastre.cached(_WARNING, fastre.MULTILINE | fastre.IGNORECASE).search(excerpt)
    if found is None:
        return
    around = "\n".join([found.group(0), *excerpt[found.end() : found.end() + 400].split("\n")[1:3]])
    names = [w.strip("`'\"(),:;").rsplit("/", 1)[-1] for w in around.split()]
    names = [_without_position(n) for n in names if "." in n[1:] and len(n) > 3]
    names = [n for n in names if "." in n[1:-1]]
    if not names:
        return
    warnings = state.setdefault("warnings", {})
    assert isinstance(warnings, dict)
    if len(warnings) >= MAX_WARNINGS:
        warnings.pop(next(iter(warnings)))
    warnings[key] = {"cmd": text_of(record, "input"), "line": one_line(found.group(0).strip()),
                     "names": names[:5], "obs": text_of(record, "id"),
                     "ref": text_of(record, "raw")}  # fmt: skip


def _without_position(name: str) -> str:
    """`cart.rs:12:15` -> `cart.rs`."""
    head, _, _rest = name.partition(":")
    return head


def edited(files: list[str], record: dict[str, object], state: dict[str, object]) -> None:
    """An edit of a file a pending warning names: the session acted on the warning."""
    warnings = state.get("warnings")
    if not isinstance(warnings, dict) or not warnings:
        return
    names = {f.replace("\\", "/").rsplit("/", 1)[-1] for f in files}
    for key, warning in list(warnings.items()):
        if not isinstance(warning, dict) or not names & set(strings_of(warning.get("names"))):
            continue
        del warnings[key]
        command = one_line(str(warning.get("cmd") or ""), 100)
        add(state, "warning", f"{key}\0{warning.get('line')}",
             [f"`{command}` passed but warned: {warning.get('line')}",
              f"then {', '.join(files[:3])} was changed"],
             record, files=files[:5], obs=[str(warning.get("obs") or ""), text_of(record, "id")],
             refs=_refs(warning, record))  # fmt: skip


def _refs(earlier: dict[str, object], record: dict[str, object]) -> list[str]:
    return [r for r in (str(earlier.get("ref") or ""), text_of(record, "raw")) if r]
