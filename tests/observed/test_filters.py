"""Text filters of `mem capture`: escapes, private spans, fences, tracebacks, trimming."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.observed import filters
from memcli.observed.filters import (
    FENCE_CLOSE,
    FENCE_OPEN,
    clean,
    cut_tracebacks,
    drop_mem_fence,
    drop_private,
    one_line,
    outcome,
    strip_ansi,
    trim,
)

PYTEST_FAILURE = """\
============================= test session starts ==============================
collected 12 items

tests/test_orders.py F

=================================== FAILURES ===================================
E   psycopg.OperationalError: connection refused
=========================== short test summary info ============================
FAILED tests/test_orders.py::test_create_order - psycopg.OperationalError
============================== 1 failed in 0.41s ==============================="""


def python_traceback(frames: int) -> str:
    lines = ["Traceback (most recent call last):"]
    for i in range(frames):
        lines += [f'  File "/src/app/mod{i}.py", line {i + 10}, in func{i}', f"    call_{i}()"]
    lines.append("ValueError: bad port 5433")
    return "\n".join(lines)


# strip_ansi


def test_strip_ansi_removes_colour_and_cursor_sequences() -> None:
    text = "\x1b[31mFAILED\x1b[0m test_x \x1b[1;32mok\x1b[0m\x1b[2K\x1b]0;title\x07done"
    assert strip_ansi(text) == "FAILED test_x okdone"


def test_strip_ansi_keeps_last_state_of_carriage_return_redraws() -> None:
    text = "Downloading\rDownloading 10\rDownloading 100 done\nnext line\r\n"
    assert strip_ansi(text) == "Downloading 100 done\nnext line\n"


def test_strip_ansi_drops_progress_bars_but_keeps_test_output() -> None:
    text = "\n".join(
        [
            "start",
            " 45%|████▌     | 45/100 [00:01<00:01, 40.1it/s]",
            "[=====>          ] 35%",
            "[##########..........]",
            "   ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 12.3/12.3 MB 25.1 MB/s eta 0:00:00",
            "     |████████████████████████████████| 1.2 MB 3.4 MB/s",
            "tests/test_orders.py ............                                        [100%]",
            "[==========] 3 tests from 1 test suite ran. (0 ms total)",
            "end",
        ]
    )
    assert strip_ansi(text).split("\n") == [
        "start",
        "tests/test_orders.py ............                                        [100%]",
        "[==========] 3 tests from 1 test suite ran. (0 ms total)",
        "end",
    ]


def test_strip_ansi_tqdm_redraw_leaves_nothing() -> None:
    bar = "\r".join(f"{p}%|{'█' * (p // 10)}{' ' * (10 - p // 10)}| {p}/100" for p in (0, 50, 100))
    assert strip_ansi(f"loading\n{bar}\nloaded") == "loading\nloaded"


# private spans and fences


def test_drop_private_any_case_and_multiline() -> None:
    text = "keep <private>secret\nmore</private> this <PRIVATE note='x'>hidden</Private> end"
    assert drop_private(text) == "keep  this  end"


def test_drop_private_unclosed_drops_to_the_end() -> None:
    assert drop_private("before <private>password: hunter2\nand more") == "before "


def test_drop_private_nested_spans_do_not_leak() -> None:
    text = "a <private>x <private>y</private> z</private> b"
    assert drop_private(text) == "a  b"


def test_drop_private_stray_close_tag_is_removed() -> None:
    assert drop_private("a </private> b") == "a  b"


def test_drop_mem_fence_removes_injected_block() -> None:
    text = f"before\n{FENCE_OPEN}\n- [pitfall] tests use port 5432\n{FENCE_CLOSE}\nafter"
    assert drop_mem_fence(text) == "before\n\nafter"


def test_drop_mem_fence_unclosed_and_stray_tags() -> None:
    assert drop_mem_fence(f"ok\n{FENCE_OPEN}\nrecalled item") == "ok\n"
    assert drop_mem_fence(f"a {FENCE_CLOSE} b") == "a  b"
    assert drop_mem_fence('x <mem-context source="mem">y</mem-context> z') == "x  z"


def test_fence_constants() -> None:
    assert FENCE_OPEN == "<mem-context>"
    assert FENCE_CLOSE == "</mem-context>"


# tracebacks


def test_cut_tracebacks_keeps_innermost_frames_and_exception() -> None:
    out = cut_tracebacks(python_traceback(8), frames=3)
    lines = out.split("\n")
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == "  [... 5 frames cut ...]"
    assert 'File "/src/app/mod5.py"' in lines[2]
    assert 'File "/src/app/mod7.py"' in lines[6]
    assert lines[-1] == "ValueError: bad port 5433"
    assert "mod0.py" not in out


def test_cut_tracebacks_short_traceback_unchanged() -> None:
    text = "before\n" + python_traceback(2) + "\nafter"
    assert cut_tracebacks(text, frames=3) == text


def test_cut_tracebacks_chained_exceptions_each_cut() -> None:
    text = (
        python_traceback(5)
        + "\n\nDuring handling of the above exception, another exception occurred:\n\n"
        + python_traceback(6)
    )
    out = cut_tracebacks(text, frames=2)
    assert "[... 3 frames cut ...]" in out
    assert "[... 4 frames cut ...]" in out
    assert out.count("ValueError: bad port 5433") == 2


def test_cut_tracebacks_zero_frames() -> None:
    out = cut_tracebacks(python_traceback(4), frames=0)
    assert out.split("\n") == [
        "Traceback (most recent call last):",
        "  [... 4 frames cut ...]",
        "ValueError: bad port 5433",
    ]


def test_cut_tracebacks_node_and_java_keep_first_frames() -> None:
    node = "TypeError: x is undefined\n" + "\n".join(
        f"    at fn{i} (/app/src/file{i}.js:{i + 1}:5)" for i in range(6)
    )
    out = cut_tracebacks(node, frames=2).split("\n")
    assert out == [
        "TypeError: x is undefined",
        "    at fn0 (/app/src/file0.js:1:5)",
        "    at fn1 (/app/src/file1.js:2:5)",
        "    [... 4 frames cut ...]",
    ]
    java = "java.lang.NullPointerException\n" + "\n".join(
        f"\tat com.shop.Orders.m{i}(Orders.java:{i + 1})" for i in range(5)
    )
    assert "\t[... 2 frames cut ...]" in cut_tracebacks(java, frames=3)


def test_cut_tracebacks_leaves_prose_alone() -> None:
    text = "look at this\n    at least one test\n    at most two"
    assert cut_tracebacks(text, frames=0) == text


# trim


def test_trim_short_text_unchanged() -> None:
    text = "\n".join(f"line {i}" for i in range(40))
    assert trim(text, head_lines=20, tail_lines=30) == text


def test_trim_keeps_head_tail_and_every_error_line() -> None:
    lines = [f"ok line {i}" for i in range(1000)]
    lines[400] = "E   AssertionError: expected 5432"
    lines[500] = "FAILED tests/test_orders.py::test_create_order"
    lines[600] = "src/app.py:3: error: Incompatible types"
    out = trim("\n".join(lines), head_lines=5, tail_lines=5, max_chars=100_000).split("\n")
    assert out[:5] == lines[:5]
    assert out[-5:] == lines[-5:]
    for kept in (lines[400], lines[500], lines[600]):
        assert kept in out
    assert "[... 395 lines trimmed ...]" in out
    assert "[... 99 lines trimmed ...]" in out
    assert "[... 394 lines trimmed ...]" in out
    assert "ok line 401" not in out


def test_trim_warnings_in_the_middle_are_not_kept() -> None:
    lines = [f"line {i}" for i in range(200)]
    lines[100] = "DeprecationWarning: pkg_resources is deprecated"
    out = trim("\n".join(lines), head_lines=3, tail_lines=3, max_chars=100_000)
    assert "DeprecationWarning" not in out


def test_trim_bounded_by_max_chars_and_prefers_error_lines() -> None:
    lines = [f"{'x' * 70} {i}" for i in range(500)]
    lines[250] = "Traceback (most recent call last):"
    lines[251] = "ValueError: bad port"
    out = trim("\n".join(lines), head_lines=20, tail_lines=30, max_chars=600)
    assert len(out) <= 600
    assert "Traceback (most recent call last):" in out
    assert "ValueError: bad port" in out
    assert lines[0] in out and lines[-1] in out
    assert "lines trimmed ...]" in out


def test_trim_single_long_line() -> None:
    out = trim("y" * 10_000, max_chars=100)
    assert len(out) == 100 and out.endswith("…")


def test_trim_zero_budget() -> None:
    assert trim("abc\n" * 100, max_chars=0) == ""


# clean and one_line


def test_clean_runs_the_pipeline_in_order() -> None:
    noise = "\n".join(f"collecting {i}" for i in range(300))
    text = (
        f"<private>token=abc</private>{FENCE_OPEN}\nrecalled\n{FENCE_CLOSE}\n"
        f"\x1b[31mstart\x1b[0m   \n{noise}\n{python_traceback(10)}\n"
        " 45%|████▌     | 45/100\n\n\n\ndone"
    )
    out = clean(text, head_lines=3, tail_lines=8, max_chars=2000, frames=2)
    assert "token" not in out and "recalled" not in out and "\x1b" not in out
    assert out.startswith("start\n")
    assert "[... 8 frames cut ...]" in out
    assert "ValueError: bad port 5433" in out
    assert "lines trimmed ...]" in out
    assert "45%" not in out
    assert "\n\n\n" not in out


def test_clean_private_span_split_by_escape_codes_is_still_dropped() -> None:
    assert "hunter2" not in clean("a <private>\x1b[1mhunter2\x1b[0m</private> b")


def test_one_line() -> None:
    assert one_line("  a\n\tb   c  ") == "a b c"
    assert one_line("x" * 300, 10) == "x" * 9 + "…"
    assert len(one_line("word " * 100)) == 200
    assert one_line("abc", 0) == ""


# outcome


def test_outcome_pytest_summary_decides() -> None:
    assert outcome(PYTEST_FAILURE) == (False, "1 failed in 0.41s")
    assert outcome("==== 12 passed in 1.02s ====") == (True, "12 passed in 1.02s")
    assert outcome("== 1 failed, 3 passed, 1 error in 2.1s ==")[0] is False
    quiet = "..F.\nE   assert 1 == 2\n1 failed, 3 passed in 0.12s\n"
    assert outcome(quiet) == (False, "1 failed, 3 passed in 0.12s")
    assert outcome("....\n4 passed in 0.05s") == (True, "4 passed in 0.05s")
    assert outcome("Tests:       2 passed, 2 total\n") == (True, "2 passed, 2 total")


def test_outcome_failure_signals() -> None:
    tb = "running\n" + python_traceback(2) + "\n"
    assert outcome(tb) == (False, "ValueError: bad port 5433")
    assert outcome("bash: pytset: command not found") == (False, "bash: pytset: command not found")
    assert outcome("error: could not compile `shop`")[0] is False
    assert outcome("src/a.py:3: error: Incompatible types")[0] is False
    assert outcome("npm ERR! missing script: build")[0] is False
    assert outcome("Found 2 errors in 1 file")[0] is False


def test_outcome_success_and_unknown() -> None:
    assert outcome("BUILD SUCCESSFUL in 3s")[0] is True
    assert outcome("test result: ok. 3 passed; 0 failed")[0] is True
    assert outcome("compiled 3 files") == (None, "")
    assert outcome("no errors found, 0 errors")[0] is None


def test_compiled_patterns_are_cached() -> None:
    assert filters.compiled(r"a+b") is filters.compiled(r"a+b")


# properties

FILTERS = (strip_ansi, drop_private, drop_mem_fence, cut_tracebacks, trim, one_line, outcome)
TOKENS = [
    "\n", "\r", "\t", " ", "\x1b[", "\x1b]", "\x07", "<private>", "</private>", FENCE_OPEN,
    FENCE_CLOSE, "%|█", "|", "[==>  ]", "Traceback (most recent call last):\n",
    '  File "a.py", line 1, in f\n', "    at f (a.js:1:2)\n", "E   boom\n", "1 failed",
    "error: x\n", "===== 1 failed in 1s =====\n", "ValueError: x\n",
]  # fmt: skip
texty = st.lists(st.one_of(st.characters(), st.sampled_from(TOKENS)), max_size=200).map("".join)


@settings(deadline=None)
@given(texty)
def test_filters_never_raise(text: str) -> None:
    results = {function.__name__: function(text) for function in FILTERS}
    verdict, detail = results.pop("outcome")
    assert verdict in (True, False, None) and isinstance(detail, str)
    assert all(isinstance(out, str) for out in results.values())
    assert "<private>" not in results["drop_private"].lower()


@settings(deadline=None)
@given(
    texty,
    st.integers(-5, 60),
    st.integers(-5, 60),
    st.integers(-10, 3000),
    st.integers(-2, 6),
)
def test_clean_output_is_bounded(text: str, head: int, tail: int, limit: int, frames: int) -> None:
    out = clean(text, head_lines=head, tail_lines=tail, max_chars=limit, frames=frames)
    assert len(out) <= max(limit, 0)


@settings(deadline=None)
@given(st.text(max_size=300), st.text(max_size=50))
def test_private_text_never_survives(before: str, secret: str) -> None:
    secret = re.sub(r"(?i)</?private", "", secret)
    out = drop_private(f"{before}<private>{secret}</private>")
    assert out == drop_private(before)


@settings(deadline=None)
@given(texty, st.integers(1, 300))
def test_one_line_is_one_bounded_line(text: str, limit: int) -> None:
    out = one_line(text, limit)
    assert len(out) <= limit
    assert "\n" not in out and "\r" not in out
