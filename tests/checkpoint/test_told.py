"""What a command's output tells in passing: a reset shell directory, a remote's notice, a
branch left ahead of its remote."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from test_candidates import cmd, found

from memcli.checkpoint import candidates

AHEAD = "On branch main\nYour branch is ahead of 'origin/main' by 1 commit.\n"


def test_a_reset_shell_directory_is_an_environment_fact() -> None:
    got = found([
        cmd("cd /work/site && git status", True,
            "nothing to commit, working tree clean\nShell cwd was reset to /work/cli"),
    ])  # fmt: skip
    env = got["env"]
    assert env["env"] == "shell" and env["suggest"] == "env"
    assert "Shell cwd was reset to /work/cli" in env["lines"][0]
    assert "`cd /work/site && git status`" in env["lines"][0]


def test_a_cd_failing_after_an_earlier_cd_there_says_the_directory_persists() -> None:
    gone = "/bin/bash: line 1: cd: build: No such file or directory"
    got = found([
        cmd("rm -rf build && mkdir build && cd build", True),
        cmd("cd build && cmake .. -DVSLA_ENABLE_CUDA=ON", False, gone),
    ])  # fmt: skip
    line = got["env"]["lines"][0]
    assert line.startswith(f"`cd build && cmake .. -DVSLA_ENABLE_CUDA=ON` failed: {gone} (")
    assert "after `rm -rf build && mkdir build && cd build` had gone into `build`" in line
    assert "working directory persists" in line
    # no earlier `cd build`, or an absolute one: a missing folder, no persisting directory
    assert "persists" not in str(found([cmd("cd build && make", False, gone)]))
    absolute = [cmd("cd /src/build", True), cmd("cd build", False, gone)]
    assert "persists" not in str(found(absolute))


def test_a_remotes_vulnerability_notice_on_push_is_a_fact() -> None:
    output = (
        "remote: \nremote: GitHub found 19 vulnerabilities on acme/api's default branch "
        "(2 high, 8 moderate, 9 low). To find out more, visit:\nTo github.com:acme/api.git"
    )
    got = found([cmd("git push origin main", True, output)])
    assert "GitHub found 19 vulnerabilities" in got["env"]["lines"][0]
    assert "remote" not in found([cmd("git push origin main", True, "remote: Resolving deltas")])


def test_a_committer_identity_git_made_up_is_an_environment_fact() -> None:
    output = (
        "[main 2f72d05] Add the trace\n Committer: kairi <kairi@kairis-MacBook-Pro.local>\n"
        "Your name and email address were configured automatically based\non your username "
        "and hostname. Please check that they are accurate.\n 1 file changed"
    )
    env = found([cmd("git add . && git commit -m 'Add the trace'", True, output)])["env"]
    assert env["env"] == "git-identity" and env["suggest"] == "env"
    line = env["lines"][0]
    assert "Committer: kairi <kairi@kairis-MacBook-Pro.local>" in line
    assert "configured automatically" in line and "git config user.name" in line
    assert "env" not in found([cmd("git commit -m x", True, "[main 1a2b3c4] x\n 1 file changed")])


def test_a_passing_run_that_skipped_work_for_want_of_something_is_a_fact() -> None:
    output = (
        "Running convolution benchmarks...\nWarning: /home/k/vsla/bench/build/bench_vector_add "
        "not found, skipping vector addition benchmarks\nResults written to results.json"
    )
    env = found([cmd("python3 run_benchmarks.py --iterations 10", True, output)])["env"]
    assert env["env"] == "skipped"
    assert env["lines"] == [
        '`python3 run_benchmarks.py --iterations 10` passed but skipped: "Warning: '
        "/home/k/vsla/bench/build/bench_vector_add not found, skipping vector addition "
        'benchmarks"'
    ]
    gpu = found([cmd("pytest tests", True, "12 passed\nSkipping GPU tests: CUDA not available")])
    assert "CUDA not available" in gpu["env"]["lines"][0]
    torch = "SKIPPED [2] tests/test_gpu.py:5: could not import 'torch': No module named 'torch'"
    assert "could not import 'torch'" in found([cmd("pytest", True, torch)])["env"]["lines"][0]
    # the same reason for every test a verbose run skips: one candidate
    svg = "".join(
        f"tests/test_text.py::test_font[{n}] SKIPPED (Cannot compare svg files "
        f"because Inkscape is not installed) [{n:3d}%]\n"
        for n in range(3)
    )
    state: dict[str, object] = {}
    candidates.scan([cmd("pytest -v", True, svg), cmd("pytest -v -x", True, svg.split("\n", 1)[1])],
                    state)  # fmt: skip
    assert len(state["candidates"]) == 1  # type: ignore[arg-type]
    # a skip with no reason, a failing run, a search printing the words: none
    for record in (
        cmd("pytest", True, "10 passed, 2 skipped in 0.3s"),
        cmd("make bench", False, "x not found, skipping y"),
        cmd('grep -rn "skipping" src', True, "src/a.py: # not found, skipping"),
    ):
        assert "env" not in found([record]), record  # fmt: skip


def test_a_branch_left_ahead_of_its_remote_is_a_task() -> None:
    got = found([cmd("git commit -m 'fix: x'", True), cmd("git status", True, AHEAD)])
    branch = got["branch"]
    assert branch["suggest"] == "task"
    assert branch["lines"] == [
        "`git status` said \"Your branch is ahead of 'origin/main' by 1 commit.\" and nothing "
        "was pushed or pulled after it"
    ]


def test_a_push_or_a_synced_status_after_it_is_none() -> None:
    pushed = [cmd("git status", True, AHEAD), cmd("git push", True, "main -> main")]
    assert "branch" not in found(pushed)
    synced = "Your branch is up to date with 'origin/main'."
    assert "branch" not in found([cmd("git status", True, AHEAD), cmd("git status", True, synced)])
    failed_push = [cmd("git status", True, AHEAD), cmd("git push", False, "rejected")]
    assert "branch" in found(failed_push)


def test_diverged_is_a_task_too_and_one_lesson_however_far_ahead() -> None:
    diverged = "Your branch and 'origin/main' have diverged,\nand have 1 and 2 different commits"
    assert "have diverged" in found([cmd("git status", True, diverged)])["branch"]["lines"][0]
    state: dict[str, object] = {"session": "s1"}
    candidates.scan([cmd("git status", True, AHEAD)], state)
    candidates.turn_end(state)
    candidates.scan([cmd("git status", True, AHEAD.replace("1 commit", "2 commits"))], state)
    candidates.turn_end(state)
    kinds = [c["kind"] for c in state["candidates"].values()]  # type: ignore[attr-defined]
    assert kinds == ["branch"]


def test_a_passing_commands_unsupported_version_warning_is_an_environment_fact() -> None:
    trl = (
        "/root/.venv/lib/python3.12/site-packages/trl/generation/vllm_client.py:40: UserWarning: "
        "TRL currently supports vLLM versions from 0.12.0 to 0.18.0. You have version 0.21.0 "
        "installed. We recommend installing a supported version.\n  warnings.warn(\nok"
    )
    pip = (
        "Successfully installed numpy-2.1.0\nERROR: pip's dependency resolver does not currently "
        "take into account all the packages that are installed.\nscipy 1.9.0 requires "
        "numpy<1.25, but you have numpy 2.1.0 which is incompatible."
    )
    again = trl.replace("generation/vllm_client.py:40", "experimental/worker.py:161")
    state: dict[str, object] = {"session": "s1"}
    candidates.scan([cmd("python train.py", True, trl), cmd("python train.py --fast", True, again),
                     cmd("pip install numpy==2.1.0", True, pip)], state)  # fmt: skip
    got = state["candidates"].values()  # type: ignore[attr-defined]
    versions = [c for c in got if c.get("env") == "version"]
    assert [c["lines"][0] for c in versions] == [
        '`python train.py` passed but warned: "UserWarning: TRL currently supports vLLM versions '
        "from 0.12.0 to 0.18.0. You have version 0.21.0 installed. We recommend installing a "
        'supported version."',
        '`pip install numpy==2.1.0` passed but warned: "scipy 1.9.0 requires numpy<1.25, but '
        'you have numpy 2.1.0 which is incompatible."',
    ]  # the same warning raised from another module is the same lesson
    assert all(c["suggest"] == "env" for c in versions)
    assert found([cmd("python --version", True, "Python 3.12.1")]) == {}
    failed = found([cmd("python train.py", False, trl)])
    assert not [c for c in failed.values() if c.get("env") == "version"]


def test_a_passing_command_that_printed_a_missing_program_is_an_environment_fact() -> None:
    store = (
        "Running sync...\nPython was not found; run without arguments to install from the "
        "Microsoft Store, or disable this shortcut from Settings.\n[main 5fa2423] Add reports"
    )
    got = found([cmd("git commit -m 'Add reports'", True, store)])
    assert got["env"]["env"] == "missing-tool"
    assert got["env"]["lines"] == [
        "`git commit -m 'Add reports'` passed, but printed: \"Python was not found; run without "
        'arguments to install from the Microsoft Store, or disable this shortcut from Settings."'
    ]
    piped = found(
        [cmd("gcc-12 --version | head -1", True, "bash: line 1: gcc-12: command not found")]
    )
    assert "gcc-12: command not found" in piped["env"]["lines"][0]
    docs = "docs/faq.md:3: bash: rg: command not found"
    assert found([cmd("grep -rn 'command not found' docs", True, docs)]) == {}


def test_output_without_these_lines_tells_nothing() -> None:
    assert found([cmd("ls", True, "README.md\nsrc"), cmd("git log -1", True, "commit abc")]) == {}


@given(st.text(max_size=400), st.text(max_size=80), st.booleans())
def test_any_output_of_any_command_is_read_without_failing(
    output: str, line: str, ok: bool
) -> None:
    state: dict[str, object] = {"session": "s"}
    marked = f"{output}\nShell cwd was reset to {output[:20]}\nYour branch is ahead of '{line}"
    for text in (output, marked):
        candidates.scan([cmd(f"git status {line}", ok, text)], state)
        candidates.turn_end(state)
    for candidate in state.get("candidates", {}).values():  # type: ignore[attr-defined]
        assert 1 <= len(candidate["lines"]) <= 2
        assert all("\n" not in text and len(text) <= 220 for text in candidate["lines"])
