"""The hook launcher: ``mem-hook``, the command the installed hooks run, started without the
:mod:`site` module.

pip installs ``mem-hook`` as a console script like ``mem`` (same entry point): it works
everywhere, as fast as ``mem``. `mem hooks install` rewrites that file, on POSIX, into a
launcher whose ``#!`` line runs this installation's interpreter with ``-S`` and which appends
the folder holding :mod:`memcli` to ``sys.path``. ``site`` (the ``.pth`` files of every
installed package, ``sitecustomize``, the user site) is about a sixth of a bare start, and
`mem capture` and `mem checkpoint` need none of it: they import the standard library and mem
alone. Any import only the installed packages can answer (another command's Typer, PyYAML)
runs ``site`` first (:class:`memcli.__main__.SiteOnDemand`), so the launcher runs every command
as ``mem`` does.

The file stays pip's (``pip uninstall`` removes it; a reinstall puts pip's back, and the next
`mem hooks install` upgrades it again). Only a file that is pip's script for mem or an earlier
launcher is rewritten, atomically, keeping its mode; a path a ``#!`` line cannot carry (white
space, over 120 bytes) keeps pip's script.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

NAME = "mem-hook"
MARK = "# mem hook launcher"
# Linux before 5.1 reads 127 bytes of a #! line; a longer one would cut the interpreter's path.
MAX_SHEBANG = 120
_PIP_ENTRY = "from memcli.__main__ import main"


def script_path() -> Path:
    """Where this installation's ``mem-hook`` lives (beside its interpreter, as ``mem``)."""
    return Path(sys.executable).parent / (NAME + (".exe" if os.name == "nt" else ""))


def render(python: str, folder: str) -> str:
    """The launcher's text: ``python`` started with ``-S``, ``folder`` (the one holding the
    ``memcli`` package) appended to the path, after the standard library as ``site`` would."""
    return (
        f"#!{python} -S\n"
        f"{MARK} (written by `mem hooks install`; pip's console script is replaced in place).\n"
        "# -S: the hooks need no site module; mem runs it itself when a command needs it.\n"
        "import sys\n"
        f"sys.path.append({folder!r})\n"
        "from memcli.__main__ import main\n"
        "sys.exit(main())\n"
    )


def upgrade(path: Path | None = None) -> bool:
    """Rewrite ``path`` (default :func:`script_path`) into the launcher when it is pip's
    script for mem or an older launcher and the launcher can run here. True when the file
    changed; False when it is already current or left alone. Never raises."""
    path = path or script_path()
    if os.name != "posix":
        return False  # console scripts are .exe launchers there
    python = sys.executable
    import memcli

    folder = str(Path(memcli.__file__).resolve().parent.parent)
    if not _shebang_safe(python) or "\n" in folder:
        return False
    try:
        current = path.read_text(encoding="utf-8")
        mode = path.stat().st_mode & 0o7777
    except (OSError, UnicodeDecodeError):
        return False
    wanted = render(python, folder)
    if current == wanted or not _replaceable(current):
        return False
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(wanted, encoding="utf-8")
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        return False
    return True


def _shebang_safe(python: str) -> bool:
    line = f"#!{python} -S"
    return (
        os.path.isabs(python)
        and len(line.encode()) <= MAX_SHEBANG
        and not any(ch.isspace() for ch in python)
    )


def _replaceable(text: str) -> bool:
    """pip's console script for mem (``#!`` then the entry point's import) or a launcher."""
    if not text.startswith("#!") or len(text) > 4096:
        return False
    return MARK in text or (_PIP_ENTRY in text and "sys.exit(main())" in text)
