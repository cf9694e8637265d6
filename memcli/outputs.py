"""What a tool's output says beyond its failure line: a test report's first failing test, an
agent hook's refusal, a poll of a background job. Hook path: no :mod:`re` (patterns come
compiled from :mod:`memcli.fastparse.fastre`); :mod:`memcli.signals` uses these.
"""

from memcli.fastparse import fastre

MULTILINE = fastre.MULTILINE
IGNORECASE = fastre.IGNORECASE

# Tools that read a background job's output (Claude Code's): their result says whether the job
# still runs (capture writes "status: running" first).
POLL_TOOLS = frozenset(("bashoutput", "taskoutput", "bash_output", "task_output"))

_NUMBERED_FAILURE = r"^[ \t]*1\) (.*)$"
_NOT_ASSERTION = r"^(?:[\w./\\-]+:\d+(?::in .*)?|code:.*|stacktrace:|# .*)$"


def first_failing_test(text: str) -> str:
    """The first failing test of a test framework's report (ExUnit, RSpec, minitest, ...) and
    its assertion line ("<test>: <assertion>"), or "" when the report numbers no failing test."""
    found = fastre.cached(_NUMBERED_FAILURE, MULTILINE).search(text)
    if found is None:
        return ""
    name = str(found.group(1)).strip()
    rest = [line.strip() for line in text[found.end() :].split("\n")[1:10] if line.strip()]
    if name.rstrip(":") in ("Failure", "Error", "") and rest:
        name = rest.pop(0)  # minitest: "1) Failure:" then "Test#name [path:line]:"
    name = name.split(" [", 1)[0].rstrip(":")
    for line in rest:
        if fastre.cached(r"^\d+\) ", 0).match(line):
            break
        if not fastre.cached(_NOT_ASSERTION, 0).match(line):
            return f"{name}: {line}"
    return name


_HOOK_REFUSAL = (
    r"(?:\bPreToolUse\b.{0,40}\bhook error\b|\bblocked by (?:a |the )?(?:[\w-]+ )?hook\b"
    r"|\bdenied by (?:a |the )?(?:[\w-]+ )?hook\b)"
)
# The frame around a hook's message: "PreToolUse:Bash hook error: [cmd]: ", "- [cmd]: ".
_HOOK_FRAME = (
    r"^(?:.*?\bhook error:\s*|.*?\b(?:blocked|denied) by (?:a |the )?(?:[\w-]+ )?hook\b:?\s*)?"
    r"(?:-\s*)?(?:\[[^\]\n]*\]:\s*)?"
)


def hook_refusal(text: str) -> str:
    """The message of an agent hook that refused a tool call before it ran ("PreToolUse:Bash
    hook error: [check.sh]: Do not commit to main"), or "" when ``text`` is no such refusal.
    The message is the first line of the hook's own words, its frame dropped."""
    if "hook" not in text.lower() or fastre.cached(_HOOK_REFUSAL, IGNORECASE).search(text) is None:
        return ""
    frame = fastre.cached(_HOOK_FRAME, IGNORECASE)
    for line in text.split("\n"):
        said = str(frame.sub(_nothing, line.strip(), count=1)).strip()
        if said and not said.lower().startswith(("error:", "no stderr output")):
            return said[:300]
    return "refused by a hook"


def _nothing(_match: object) -> str:
    return ""
