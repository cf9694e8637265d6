"""How the installed hooks start mem: ``mem-hook`` from PATH, or this installation's own.

The hooks run on every tool call, so the command they run is measured (docs/benchmarks.md).
``mem-hook`` is a console script of its own (the same entry point as ``mem``) that `mem hooks
install` turns into a launcher started without the site module (:mod:`memcli.hooklauncher`):
about a sixth of a bare ``python -c pass`` less on every call. pip's console script itself
starts in about 1.3x a bare start (recent pip: no ``import re``); ``python -m memcli`` pays
for runpy (1.6x to 1.9x). It is named bare when the one on PATH is this installation's (a
settings file committed for a team then works on every machine), by absolute path when it is
not (mem installed in a virtual environment that is not on PATH). An installation without
``mem-hook`` (one installed before it existed, not yet reinstalled) is started as ``mem``.
"""

from __future__ import annotations

import os
import shutil
import sys

NAMES = ("mem-hook", "mem")  # preferred first


def program() -> str:
    """``mem-hook`` (or ``mem``), or the absolute path of this installation's when PATH finds
    another one or none."""
    folder = os.path.dirname(sys.executable)
    for name in NAMES:
        mine = next(
            (p for p in (os.path.join(folder, n) for n in (name, name + ".exe"))
             if os.path.isfile(p)),
            None,
        )  # fmt: skip
        if mine is None:
            continue
        found = shutil.which(name)
        if found is not None and os.path.realpath(found) == os.path.realpath(mine):
            return name
        if any(ch.isspace() or ch in "'\"$`\\;&|<>()" for ch in mine):
            return name  # a path the hook shells would need quoting for
        return mine
    return "mem"  # not a console-script installation: nothing better to name
