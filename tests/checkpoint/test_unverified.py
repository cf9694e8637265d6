"""The ``unverified`` candidate: code changed, then only tried with scripts, no check after."""

from __future__ import annotations

from test_candidates import cmd, edit, found

from memcli.checkpoint import candidates, unverified


def test_a_change_only_tried_with_a_script_is_unverified() -> None:
    got = found([
        cmd("python reproduce_issue.py", True, "dtype('<U3')"),
        edit("/testbed/xarray/core/variable.py"),
        edit("/testbed/reproduce_issue.py"),  # a scratch script: not the project's code
        cmd("cd /testbed && python reproduce_issue.py", True, "dtype('<U3')"),
    ])  # fmt: skip
    candidate = got["unverified"]
    assert candidate["suggest"] == "task"
    assert candidate["files"] == ["/testbed/xarray/core/variable.py"]
    assert candidate["lines"] == [
        "unverified: no test suite, build or lint ran after the last change to "
        "/testbed/xarray/core/variable.py, only ad-hoc scripts (`python reproduce_issue.py`)"
    ]


def test_a_check_after_the_change_verifies_it() -> None:
    for check in ("python -m pytest xarray/tests/test_variable.py", "npm test", "make",
                  "mise run test:ci", "go build ./..."):  # fmt: skip
        got = found([edit("src/cart.py"), cmd("python try_cart.py", True), cmd(check, False)])
        assert "unverified" not in got, check


def test_nothing_run_after_a_change_is_no_candidate() -> None:
    assert "unverified" not in found([edit("src/CartList.jsx"), cmd("git diff", True)])
    assert "unverified" not in found([edit("README.md"), cmd("python build_docs.py", True)])


def test_asked_once_per_session() -> None:
    state: dict[str, object] = {"session": "s1"}
    candidates.scan([edit("src/cart.py"), cmd("python try_cart.py", True)], state)
    candidates.turn_end(state)
    candidates.scan([edit("src/tax.py"), cmd("python try_tax.py", True)], state)
    candidates.turn_end(state)
    found_ = state["candidates"]
    assert isinstance(found_, dict)
    assert [c["kind"] for c in found_.values()].count("unverified") == 1


def test_code_files() -> None:
    assert unverified.code_file("src/app/models.py")
    assert unverified.code_file("C:\\repo\\src\\main.go")
    assert not unverified.code_file("test_edge_cases.py")
    assert not unverified.code_file("/tmp/check.py")
    assert not unverified.code_file("pkg/tests/helpers.py")
    assert not unverified.code_file("docs/index.md")


def test_a_change_tried_with_scripts_then_checked_without_a_new_test_is_untested() -> None:
    got = found([
        edit("/testbed/lib/matplotlib/text.py"),
        cmd("cd /testbed && python test_fix.py", True, "[-4 1]"),
        cmd("python -m pytest lib/matplotlib/tests/test_text.py", True, "103 passed"),
        cmd("cd /testbed && python test_edge_cases.py", True),  # after the check: not shown
    ])  # fmt: skip
    assert got["unverified"]["lines"] == [
        "untested: no test was added or changed for the change to /testbed/lib/matplotlib/text.py;"
        " it was tried only with ad-hoc scripts (`python test_fix.py`), then"
        " `python -m pytest lib/matplotlib/tests/test_text.py` ran"
    ]


def test_the_whole_suite_failing_after_the_targeted_check_passed_leaves_it_untested() -> None:
    got = found([
        edit("/testbed/requests/auth.py"),
        cmd("cd /testbed && python reproduce_issue.py", True, "qop quoted: True"),
        cmd("python -m pytest test_requests.py -k digest", True, "5 passed"),
        cmd("python -m pytest test_requests.py -x", False, "TypeError: must be callable"),
    ])  # fmt: skip
    assert got["unverified"]["lines"][0].startswith("untested: no test was added or changed")
    # a check failing before any passed: the failure is the candidate, not the scripts
    got = found([edit("src/cart.py"), cmd("python try_cart.py", True),
                 cmd("python -m pytest", False, "E   KeyError: 'price'")])  # fmt: skip
    assert "unverified" not in got


def test_a_test_added_in_the_session_or_a_check_before_any_script_is_no_candidate() -> None:
    for test in ("lib/matplotlib/tests/test_text.py", "pkg/cart_test.go", "src/Cart.test.tsx",
                 "src/test/java/CartTest.java"):  # fmt: skip
        got = found([
            edit("src/cart.py"),
            edit(test),
            cmd("python try_cart.py", True),
            cmd("python -m pytest", True),
        ])  # fmt: skip
        assert "unverified" not in got, test
    got = found([edit("src/cart.py"), cmd("python -m pytest", True), cmd("python try.py", True)])
    assert "unverified" not in got


def test_test_files() -> None:
    assert unverified.test_file("pkg/tests/test_cart.py")
    assert unverified.test_file("cart_test.go") and unverified.test_file("web/Cart.spec.ts")
    assert not unverified.test_file("/testbed/test_fix.py")  # a scratch script at the top
    assert not unverified.test_file("src/latest.py") and not unverified.test_file("docs/tests/")
