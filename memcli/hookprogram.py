"""How the installed hooks start mem: ``mem`` from PATH, or this installation's own script.

The hooks run on every tool call, so the command they run is measured (docs/benchmarks.md):
the console script that pip writes (recent pip: no ``import re``) starts in about 1.3x a bare
``python -c pass``; ``python -m memcli`` pays for runpy (1.6x to 1.9x); an older pip's script
with ``import re`` 1.7x. The console script it is, by name when the ``mem`` on PATH is this
installation (a settings file committed for a team then works on every machine), by absolute
path when it is not (mem installed in a virtual environment that is not on PATH).
"""

from __future__ import annotations

import os
import shutil
import sys


def program() -> str:
    """``mem``, or the absolute path of this installation's ``mem`` when PATH finds another
    one or none."""
    folder = os.path.dirname(sys.executable)
    mine = next(
        (p for p in (os.path.join(folder, n) for n in ("mem", "mem.exe")) if os.path.isfile(p)),
        None,
    )
    if mine is None:
        return "mem"  # not a console-script installation: nothing better to name
    found = shutil.which("mem")
    if found is not None and os.path.realpath(found) == os.path.realpath(mine):
        return "mem"
    if any(ch.isspace() or ch in "'\"$`\\;&|<>()" for ch in mine):
        return "mem"  # a path the hook shells would need quoting for
    return mine
