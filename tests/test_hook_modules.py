"""The hook commands' own import path (:class:`memcli.__main__.HookModules`): a module whose
compiled file matches its source is loaded from it directly; anything else (a stale, missing or
hash-based ``.pyc``, a package) goes through the standard machinery, which recompiles."""

from __future__ import annotations

import py_compile
import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import memcli.__main__ as entry
assert entry.__file__.startswith(sys.argv[1]), entry.__file__
sys.meta_path.insert(0, entry.HookModules)
from memcli import pasted
from memcli.checkpoint import entries
for module in (pasted, entries, sys.modules["memcli.checkpoint"]):
    loader = module.__spec__.loader
    name = loader.__name__ if isinstance(loader, type) else type(loader).__name__
    print(module.__name__, name, module.__file__, module.__cached__)
print("MARK", getattr(pasted, "MARK", None))
print("ID", entries.candidate_id("s", "fix", "x"))
package = sys.modules["memcli.checkpoint"]
print("PATH", *package.__path__, package.__package__, entries.__package__)
"""


def _probe(root: Path) -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(root)], capture_output=True,
                          text=True, check=True)  # fmt: skip
    return {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()}


def test_a_module_with_a_current_pyc_is_loaded_from_it(package: Path) -> None:
    seen = _probe(package)
    loader, file, cached = seen["memcli.pasted"]
    assert loader == "HookModules"
    assert file == str(package / "memcli" / "pasted.py")
    assert cached == str(
        package / "memcli" / "__pycache__" / f"pasted.{sys.implementation.cache_tag}.pyc"
    )
    assert seen["memcli.checkpoint.entries"][0] == "HookModules"
    loader, file, _cached = seen["memcli.checkpoint"]
    assert loader == "HookModules"
    assert file == str(package / "memcli" / "checkpoint" / "__init__.py")
    # The same code as the standard import gives: ids are what the tests elsewhere expect.
    from memcli.checkpoint import entries

    assert seen["ID"] == [entries.candidate_id("s", "fix", "x")]
    checkpoint = str(package / "memcli" / "checkpoint")
    assert seen["PATH"] == [checkpoint, "memcli.checkpoint", "memcli.checkpoint"]


def test_an_edited_source_is_never_read_from_its_stale_pyc(package: Path) -> None:
    source = package / "memcli" / "pasted.py"
    source.write_text(source.read_text("utf-8") + "\nMARK = 'edited'\n", encoding="utf-8")
    seen = _probe(package)
    assert seen["memcli.pasted"][0] == "SourceFileLoader"
    assert seen["MARK"] == ["edited"]


def test_a_missing_or_hash_based_pyc_falls_back(package: Path) -> None:
    cache = package / "memcli" / "__pycache__" / f"pasted.{sys.implementation.cache_tag}.pyc"
    cache.unlink()
    assert _probe(package)["memcli.pasted"][0] == "SourceFileLoader"
    py_compile.compile(str(package / "memcli" / "pasted.py"), cfile=str(cache),
                       invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)  # fmt: skip
    assert _probe(package)["memcli.pasted"][0] == "SourceFileLoader"
    cache.write_bytes(b"\0" * 8)  # a torn file
    assert _probe(package)["memcli.pasted"][0] == "SourceFileLoader"


def test_the_hook_commands_use_it_and_the_others_do_not(repo: Path) -> None:
    probe = (
        "import os, sys\n"
        "os._exit = lambda code: (sys.stderr.write('HOOKS=%s\\n' % any("
        "getattr(f, '__name__', '') == 'HookModules' for f in sys.meta_path)), sys.exit(code))\n"
        "sys.argv = ['mem', sys.argv[1]]\n"
        "from memcli.__main__ import main\n"
        "try:\n    main()\nfinally:\n"
        "    sys.stderr.write('END=%s\\n' % any("
        "getattr(f, '__name__', '') == 'HookModules' for f in sys.meta_path))\n"
    )
    for command in ("capture", "checkpoint"):
        done = subprocess.run([sys.executable, "-c", probe, command], input="{}", cwd=repo,
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert "HOOKS=True" in done.stderr, done.stderr
    done = subprocess.run([sys.executable, "-c", probe, "--version"], cwd=repo,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert "END=False" in done.stderr, done.stderr
