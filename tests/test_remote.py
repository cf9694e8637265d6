"""The command a remote or container shell runs, as every command comparison reads it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memcli import remote, reruns
from memcli.checkpoint.commands import command_key
from memcli.compact import commands


@pytest.mark.parametrize(
    ("line", "inner"),
    [
        ('ssh root@10.0.0.1 "opkg remove gl-cloud"', "opkg remove gl-cloud"),
        ('ssh -o ConnectTimeout=5 -i ~/.ssh/k root@h "uname -a"', "uname -a"),
        ("ssh -p 2222 u@h ls -la /tmp", "ls -la /tmp"),
        ('ssh h "rm -f a && find /www -name x" | tail -3', "rm -f a && find /www -name x"),
        ("ssh -t h 'sudo systemctl restart nginx'", "sudo systemctl restart nginx"),
        ("docker exec -it -u app web pytest -x tests/", "pytest -x tests/"),
        ("docker compose exec api python manage.py migrate", "python manage.py migrate"),
        ("kubectl exec -n prod web-1 -- env", "env"),
        ("ssh slate", ""),  # an interactive login runs no command
        ("kubectl exec web-1 ls", ""),  # the old form without `--`: not read
        ("docker build .", ""),
        ("git push origin main", ""),
    ],
)
def test_the_remote_command(line: str, inner: str) -> None:
    assert remote.remote_command(line) == inner


def test_every_comparison_reads_the_remote_command() -> None:
    line = 'ssh root@10.0.0.1 "opkg remove gl-sdk4-cloud 2>&1 | tail -3"'
    assert commands.parse(line).program == "opkg"
    assert commands.parse(line).text == line  # shown as typed
    assert command_key(line) == ("opkg remove", False)
    assert reruns.words_of(line) == ["opkg", "remove", "gl-sdk4-cloud"]
    # Two unrelated remote commands are not one command run with other options.
    assert not reruns.same_job('ssh h "rm -f /a/x.lua"', 'ssh h "rm -rf /www/views/y"')


@given(st.text(max_size=200))
def test_any_line_is_read_without_error(line: str) -> None:
    inner = remote.remote_command("ssh " + line)
    assert isinstance(inner, str) and len(inner) <= len(line)


@pytest.mark.parametrize(
    ("line", "inner"),
    [
        ("powershell.exe -Command \"cd 'C:\\Users\\me\\repo'; git commit -m 'x'\"",
         "cd 'C:\\Users\\me\\repo'; git commit -m 'x'"),
        ("powershell -NoProfile -ExecutionPolicy Bypass -Command Get-Process -Name git",
         "Get-Process -Name git"),
        ('powershell.exe -NoProfile -File "C:\\x\\do-commit.ps1"', ""),  # a script
        ('pwsh -c "npm test"', "npm test"),
        ('bash -lc "make test"', "make test"),
        ("sh -c 'cd app && pytest -q'", "cd app && pytest -q"),
        ('cmd /c "npm run build"', "npm run build"),
        ("bash script.sh", ""),
    ],
)  # fmt: skip
def test_a_nested_shell_runs_what_it_is_given(line: str, inner: str) -> None:
    assert remote.remote_command(line) == inner


def test_wrappers_inside_wrappers() -> None:
    line = 'ssh build "bash -lc \\"cd /srv/app && make test\\""'
    assert remote.innermost(line) == "cd /srv/app && make test"
    assert commands.parse(line).key == "make test"
    assert command_key(line) == ("make test", True)
