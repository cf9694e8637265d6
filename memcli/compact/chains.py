"""Several failures of one command fixed one after the other.

A command that fails, is worked on, and then fails with *another* error signature got past
its first failure: the edits in between fixed it. Each change of signature is an episode of
its own (the error, the edits between, the files), and the final pass closes the last one,
instead of one episode named by the first error whose later errors and fixes are lost.

A change counts only when code was edited between the two runs and the new failure proves
the run got further: a `SyntaxError` or `NameError` (the edit broke the code), an
environment failure (the run never reached the code) or a failure without a signature may
hide the first failure as well as follow its fix, so those runs stay in the first group.
"""

from __future__ import annotations

from memcli import signals
from memcli.compact import commands, tasks
from memcli.compact.observations import Obs


def groups(obs: list[Obs], failures: list[Obs]) -> list[list[Obs]]:
    """The failures of one command split where their signature changed after an edit."""
    out: list[list[Obs]] = [[failures[0]]]
    current = _signature(failures[0])
    for failure in failures[1:]:
        signature = _signature(failure)
        if current and signature and signature != current and _moved_on(obs, out[-1][-1], failure):
            out.append([failure])
            current = signature
        else:
            out[-1].append(failure)
            current = current or signature
    return out


def _signature(o: Obs) -> str:
    return commands.signature(commands.decisive_line(o.excerpt, o.summary))


def _moved_on(obs: list[Obs], before: Obs, after: Obs) -> bool:
    """Code was edited between the runs and the later one failed further on."""
    if not any(tasks.code_edit(o) for o in obs[before.index + 1 : after.index]):
        return False
    if signals.failure(after.excerpt)[0] in signals.ENVIRONMENT:
        return False
    return not any(marker in after.excerpt for marker in commands.SELF_INFLICTED)
