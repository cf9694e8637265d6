"""Pure text filters for captured output: cheap, total (they never raise), stdlib only.

Capture runs on every tool call, so patterns are plain strings compiled on first use by
`compiled`, which prefers `memcli.fastparse.fastre` (precompiled code, no `import re`) when it is
there; nothing is compiled at import time and the `re` module functions are never called.

`clean` runs the whole pipeline in this order: private spans and mem fences first (so nothing
private or re-injected reaches any later stage), then terminal escapes and progress bars, then
tracebacks, then the head/tail trim under a hard character bound.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

FENCE_OPEN = "<mem-context>"
FENCE_CLOSE = "</mem-context>"

TRIM_MARKER = "[... {} lines trimmed ...]"
FRAMES_MARKER = "[... {} frames cut ...]"

# CSI, OSC, DCS/PM/APC strings, two-byte escapes, 8-bit CSI, then any other C0 control except
# tab, newline and carriage return (those are handled below).
_ANSI = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
)
# A progress bar: tqdm (`45%|████▌     |`), block bars between pipes (old pip), bracket bars
# (`[=====>    ]`, apt's `[####....]`, a full bar only with a percentage so googletest's
# `[==========]` survives), and heavy-line bars followed by a ratio, percentage, rate or eta (pip).
_PROGRESS = (
    r"%(?<=\d%)[ \t]*\|"
    r"|\|[█▉▊▋▌▍▎▏]+[█▉▊▋▌▍▎▏ ]*\|"
    r"|\[[=#]+(?:>[ .\-]*|[ .\-]+)\]"
    r"|\[[=#]+\]\s*\d{1,3}(?:\.\d+)?%"
    r"|[━╸╺█▉▊▋▌▍▎▏░▒▓■]{4,}.*?(?:\d(?:\.\d+)?\s*/\s*\d|\d%|\beta\b|it/s|/s\b)"
)
_PRIVATE_TAG = r"(?i)<(/?)private\b[^>\n]{0,200}>"
_FENCE_TAG = r"(?i)<(/?)mem-context\b[^>\n]{0,200}>"
_AT_FRAME = r"^\s+at \S.*(?::\d+\)?|\((?:native|Native Method|Unknown Source)\))\s*$"

# Lines worth keeping from the middle of long output. Warnings are deliberately not included:
# in long logs they are mostly deprecation spam; the ones in the head and tail survive anyway.
_ERROR_LINE = (
    r"(?i:(?:error|exception|fatal|panic|failed|failure|failing)s?\b)"
    r"|^E {2,}|^> |^FAIL|Traceback \(most recent call last\)|^\s*File \"[^\"]*\", line \d+"
    r"|(?i:command not found|no such file or directory|segmentation fault|assert(?:ion)?\b)"
    r"|ERR!|✗|✘"
)
# A cheap test, on the lowered line, that every line _ERROR_LINE matches also passes (together
# with the prefixes in _ERROR_PREFIXES): _ERROR_LINE itself is slow on long output.
_ERROR_HINT = (
    r'error|exception|fatal|panic|fail|traceback|file "|command not found|no such file'
    r"|segmentation fault|assert|err!|✗|✘"
)
_ERROR_PREFIXES = ("E  ", "> ", "FAIL")
# Evidence that a command failed (used by `outcome`): stricter than _ERROR_LINE, since a false
# hit turns a passing run into a failure. Each pattern is anchored at a line start or begins
# with a literal, so that it scans long output at C speed; `N failed` (N > 0) is
# _FAIL_COUNTS after a number.
_FAIL_LINE = (
    r"(?m)^(?:[ \t]*Traceback \(most recent call last\):|(?i:error|fatal)(?:\[[\w-]+\])?:"
    r"|ERROR\b|npm ERR!|FAILED\b|FAILURE:|BUILD FAILED|FAIL\b|--- FAIL:|panic:"
    r"|Segmentation fault|[A-Z]\w*(?:Error|Exception): |E {3}\S"
    r"|\S[^\n]*?:\d+(?::\d+)?: (?:fatal )?error\b)"
)
_FAIL_ANYWHERE = r"error TS\d+:|command not found|: No such file or directory"
_FAIL_COUNTS = (r" failed\b", r" failing\b", r" errors?\b")
_OK_LINE = r"(?m)^(?:BUILD SUCCESSFUL|test result: ok\.|ok\s+\S|PASS\b|All (?:\d+ )?tests? passed)"
_OK_COUNT = r" passed\b"
# `===== 1 failed, 3 passed in 0.41s =====` (pytest), the same bare (pytest -q), or
# `Tests:  1 failed, 2 passed` (jest).
_TEST_SUMMARY = (
    r"(?m)^=+ ((?:\d+ \w+|no tests ran)[^=\n]*?) =+[ \t]*$"
    r"|^Tests:\s+(\d[^\n]*?)[ \t]*$"
    r"|^(\d+ (?:failed|passed|errors?)(?:, \d+ \w+)* in \d[\d.]*s\b[^\n]*?)[ \t]*$"
)
_SUMMARY_FAILED = r"\b[1-9]\d* (?:failed|errors?)\b"
_SUMMARY_PASSED = r"\b\d+ passed\b"
_CONTROL = r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
_BLANK_RUN = r"\n{3,}"


def compiled(pattern: str) -> re.Pattern[str]:
    """`pattern` compiled once per process, from fastre's cached code when it has it."""
    from memcli.fastparse import fastre

    found: re.Pattern[str] = fastre.cached(pattern)
    return found


def strip_ansi(text: str) -> str:
    """Remove terminal escapes, carriage-return redraws (keeping each line's last state) and
    progress-bar lines."""
    if "\x1b" in text or "\x9b" in text or compiled(_CONTROL).search(text):
        text = compiled(_ANSI).sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if "\r" in line:
                parts = [part for part in line.split("\r") if part.strip()]
                lines[i] = parts[-1] if parts else ""
        text = "\n".join(lines)
    progress = compiled(_PROGRESS)
    if progress.search(text):
        text = "\n".join(line for line in text.split("\n") if not progress.search(line))
    return text


def _drop_tagged(text: str, tag: str) -> str:
    """Remove every span between an opening and its matching closing tag (nesting counted),
    an unclosed span to the end of the text, and stray closing tags."""
    out: list[str] = []
    depth = 0
    pos = 0
    for match in compiled(tag).finditer(text):
        if match.group(1):  # a closing tag
            if depth == 0:
                out.append(text[pos : match.start()])
                pos = match.end()
            else:
                depth -= 1
                if depth == 0:
                    pos = match.end()
        else:
            if depth == 0:
                out.append(text[pos : match.start()])
            depth += 1
    if depth == 0:
        out.append(text[pos:])
    return "".join(out)


def drop_private(text: str) -> str:
    """Remove `<private>...</private>` spans (any case, multi-line; unclosed: to the end)."""
    if "<" not in text:
        return text
    return _drop_tagged(text, _PRIVATE_TAG)


def drop_mem_fence(text: str) -> str:
    """Remove context that mem itself injected (`<mem-context>` blocks, unclosed: to the end)
    and any stray fence tag, so recalled memory is never captured again."""
    if "<" not in text:
        return text
    return _drop_tagged(text, _FENCE_TAG)


def cut_tracebacks(text: str, frames: int = 3) -> str:
    """Cut stack traces to their innermost `frames` frames plus the exception.

    Python prints the innermost frame last, so the last `frames` frames before the exception
    line are kept; Node and Java print it first, so the first `frames` `at ...` lines are kept.
    A `[... N frames cut ...]` line stands where frames were removed.
    """
    has_python = "Traceback (most recent call last)" in text
    if not has_python and "at " not in text:
        return text
    keep = max(0, frames)
    at_frame = compiled(_AT_FRAME)
    lines = text.split("\n")
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        stripped = line.lstrip()
        if has_python and stripped.startswith("Traceback (most recent call last)"):
            indent = len(line) - len(stripped)
            out.append(line)
            i += 1
            blocks: list[list[str]] = []
            while i < n:
                cur = lines[i]
                body = cur.lstrip()
                deeper = len(cur) - len(body) > indent
                if deeper and body.startswith('File "'):
                    blocks.append([cur])
                elif deeper and body and blocks:
                    blocks[-1].append(cur)
                else:
                    break
                i += 1
            cut = len(blocks) - keep
            if cut > 0:
                out.append(" " * (indent + 2) + FRAMES_MARKER.format(cut))
                blocks = blocks[cut:]
            for block in blocks:
                out.extend(block)
            continue
        if at_frame.match(line):
            j = i
            while j < n and at_frame.match(lines[j]):
                j += 1
            run = lines[i:j]
            out.extend(run[:keep])
            if len(run) > keep:
                indent_text = line[: len(line) - len(stripped)]
                out.append(indent_text + FRAMES_MARKER.format(len(run) - keep))
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def trim(text: str, head_lines: int = 20, tail_lines: int = 30, max_chars: int = 4000) -> str:
    """Trim long output to its head and tail, keeping every error-like line of the middle.

    Each run of dropped lines becomes one `[... N lines trimmed ...]` line. Under `max_chars`
    the lines are kept in priority order: the first and last line, then error lines (from both
    ends of the output inwards), then head and tail lines nearest the edges. The result is
    never longer than `max_chars`.
    """
    if max_chars <= 0:
        return ""
    head, tail = max(0, head_lines), max(0, tail_lines)
    lines = text.split("\n")
    n = len(lines)
    if n <= head + tail and len(text) <= max_chars:
        return text
    cap = max_chars if n == 1 else max(200, max_chars // 4)
    error_line = compiled(_ERROR_LINE)
    order: list[int] = []
    if tail:
        order.append(n - 1)
    if head:
        order.append(0)
    hint = compiled(_ERROR_HINT)
    errors = [
        i
        for i, line in enumerate(lines)
        if (line.startswith(_ERROR_PREFIXES) or hint.search(line.lower()))
        and error_line.search(line)
    ]
    order.extend(_spread(errors))
    edges = [i for i in range(min(head, n))] + [i for i in range(max(n - tail, 0), n)]
    order.extend(sorted(edges, key=lambda i: min(i, n - 1 - i)))
    # Every kept line and marker costs its length plus a newline, less one newline in all; at
    # first the whole text is one gap, and keeping line i replaces its gap by those either side.
    marker_cost = len(TRIM_MARKER.format(n)) + 1
    selected: set[int] = set()
    used = marker_cost - 1
    for i in order:
        if i in selected:
            continue
        gaps = (i > 0 and i - 1 not in selected) + (i < n - 1 and i + 1 not in selected)
        cost = min(len(lines[i]), cap) + 1 + (gaps - 1) * marker_cost
        if used + cost > max_chars:
            continue
        selected.add(i)
        used += cost
    out: list[str] = []
    prev = -1
    for i in sorted(selected):
        if i - prev > 1:
            out.append(TRIM_MARKER.format(i - prev - 1))
        line = lines[i]
        out.append(line if len(line) <= cap else line[: cap - 1] + "…")
        prev = i
    if prev < n - 1:
        out.append(TRIM_MARKER.format(n - 1 - prev))
    result = "\n".join(out)
    if len(result) > max_chars:
        result = result[: max_chars - 1] + "…"
    return result


def _spread(indices: list[int]) -> list[int]:
    """Order indices from both ends inwards: first, last, second, second to last, ..."""
    out: list[int] = []
    lo, hi = 0, len(indices) - 1
    while lo <= hi:
        out.append(indices[lo])
        if hi != lo:
            out.append(indices[hi])
        lo += 1
        hi -= 1
    return out


def clean(
    text: str,
    *,
    head_lines: int = 20,
    tail_lines: int = 30,
    max_chars: int = 4000,
    frames: int = 3,
) -> str:
    """The whole pipeline: private spans and mem fences, escapes and progress bars, trailing
    blanks, tracebacks, then the trim. The result is never longer than `max_chars`."""
    text = strip_ansi(drop_mem_fence(drop_private(text)))
    text = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
    text = compiled(_BLANK_RUN).sub("\n\n", text).strip("\n")
    text = cut_tracebacks(text, frames)
    return trim(text, head_lines, tail_lines, max_chars)


def one_line(text: str, limit: int = 200) -> str:
    """Collapse all whitespace to single spaces and cut to `limit` characters with '…'."""
    if limit <= 0:
        return ""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _exception_line(lines: list[str], start: int) -> str:
    """The exception line that ends the Python traceback whose header is at `start`."""
    for line in lines[start + 1 :]:
        if line.strip() and not line[:1].isspace():
            return line
    return lines[start]


def _after_number(text: str, pattern: str) -> int:
    """Where the first match of `pattern` preceded by a whole number above zero starts (that
    number's position), or -1."""
    for match in compiled(pattern).finditer(text):
        start = end = match.start()
        while start > 0 and "0" <= text[start - 1] <= "9":
            start -= 1
        if text[start:end].strip("0") and (start == 0 or not text[start - 1].isalnum()):
            return start
    return -1


def outcome(text: str) -> tuple[bool | None, str]:
    """Judge command output: (False, detail) when it shows a failure, (True, detail) when it
    shows success, (None, detail) when it shows neither.

    A test runner's summary line (pytest, jest) decides when present and is the detail;
    otherwise the first failure line (for a Python traceback, its exception line) is the detail.
    """
    summary = ""
    for match in compiled(_TEST_SUMMARY).finditer(text):
        summary = next((group for group in match.groups() if group), "").strip()
    if summary:
        if compiled(_SUMMARY_FAILED).search(summary):
            return False, one_line(summary, 120)
        if compiled(_SUMMARY_PASSED).search(summary):
            return True, one_line(summary, 120)
    found = [compiled(p).search(text) for p in (_FAIL_LINE, _FAIL_ANYWHERE)]
    starts = [m.start() for m in found if m] + [_after_number(text, p) for p in _FAIL_COUNTS]
    fail = min((s for s in starts if s >= 0), default=-1)
    if fail >= 0:
        if summary:
            return False, one_line(summary, 120)
        start = text.rfind("\n", 0, fail) + 1
        end = text.find("\n", fail)
        line = text[start : end if end >= 0 else len(text)]
        if "Traceback (most recent call last)" in line:
            lines = text[start:].split("\n", 400)
            line = _exception_line(lines, 0)
        return False, one_line(line, 120)
    if compiled(_OK_LINE).search(text) or _after_number(text, _OK_COUNT) >= 0:
        return True, one_line(summary, 120)
    return None, one_line(summary, 120)
