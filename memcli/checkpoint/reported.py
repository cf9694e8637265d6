"""A failure the user pasted into a prompt (see :mod:`memcli.pasted`): when the turn it opens
changes files, the end of that turn offers it as a ``fix`` candidate, with the signature line
and the cause the closing message gave. A turn with no change offers nothing (the compactor
keeps it as unfinished work). Hook path: no :mod:`re`, no :mod:`json`."""

from memcli import pasted, phrasing
from memcli.checkpoint.entries import add, one_line, strings_of, text_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from collections.abc import Callable  # collections costs a tenth of a bare start

_KEY = "pasted"  # the report of the current turn, while it lasts


def prompt(record: dict[str, object], state: dict[str, object], read: bool = True) -> None:
    """A new prompt opens a new turn: it holds a report, or the turn has none (``read``
    False: a long pasted context, whose error lines belong to another session)."""
    _kind, line = pasted.signature(text_of(record, "excerpt")) if read else ("", "")
    state.pop(_KEY, None)
    if line:
        state[_KEY] = {"line": line, "obs": [text_of(record, "id")], "ref": text_of(record, "raw"),
                       "ts": text_of(record, "ts"), "files": [], "cause": ""}  # fmt: skip


def _report(state: dict[str, object]) -> dict[str, object] | None:
    report = state.get(_KEY)
    return report if isinstance(report, dict) else None


def edited(files: list[str], state: dict[str, object]) -> None:
    report = _report(state)
    if report is not None:
        report["files"] = list(dict.fromkeys([*strings_of(report.get("files")), *files]))[:8]


def said(
    sentences: list[str], state: dict[str, object], mask: "Callable[[str], str] | None" = None
) -> set[str]:
    """Take the closing message's cause of the report (the first sentence naming one);
    the sentences taken this run (as read), which are no candidates of their own."""
    taken = state.setdefault("_pasted_causes", set())  # this run only: never saved
    assert isinstance(taken, set)
    report = _report(state)
    if report is None or report.get("cause"):
        return taken
    for sentence in sentences[:80]:
        words = len(sentence.split())
        if "?" in sentence or not 5 <= words <= 60 or phrasing.narration(sentence):
            continue
        if phrasing.root_cause(sentence):
            report["cause"] = mask(sentence) if mask is not None else sentence
            taken.add(sentence)
            break
    return taken


def turn_end(state: dict[str, object]) -> None:
    report = state.pop(_KEY, None)
    if not isinstance(report, dict):
        return
    files = strings_of(report.get("files"))
    if not files:
        return  # nothing changed: the report is still open
    line, cause = str(report.get("line") or ""), str(report.get("cause") or "")
    changed = f"then changed {', '.join(files[:4])}"
    add(state, "fix", f"{_KEY}\0{line}",
        [f"the user pasted: {one_line(line, 160)}",
         f"{changed}: {cause}" if cause else changed],
        None, obs=strings_of(report.get("obs")), refs=[str(report.get("ref") or "")],
        files=files[:5], ts=str(report.get("ts") or ""), origin="pasted")  # fmt: skip
