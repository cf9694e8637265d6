"""Writes the bundle a hook command's modules are preloaded from (see
:func:`memcli.__main__.preload`): the compiled code of the modules the command always imports,
in one file in the package's ``__pycache__``, in the order their bodies run.

A Stop checkpoint imports about thirty of mem's modules before it reads anything (a capture,
on every tool call, about twenty-five); importlib's
work for each (the import lock, the finders, the spec, the module's attributes) costs about a
sixth of what importing one costs, and one read of one file replaces thirty. The bundle is a
cache like a ``.pyc``: written from the code the run itself loaded from current ``.pyc``
files, keyed by each source's size and modification time in nanoseconds, ignored whenever one
differs, and rewritten by the next run that had to import without it.

Which modules: those loaded by the command's :data:`ROOTS` (imported before the command reads
its input, whatever it reads, and the request's few words) with their packages; the modules a
run imports only for some inputs (the masker, its prescreen) are left to the usual imports, so
a run that does not need them never loads them.

With ``PYTHONDONTWRITEBYTECODE`` set no bundle is written, as no ``.pyc`` is (the benchmarks
run one checkpoint without it after compiling, as they compile).
"""

import marshal
import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import CodeType

    from memcli.__main__ import HookModules

    Loaded = list[tuple[str, CodeType, int, int, int, bool]]

ROOTS = {
    # what `mem capture` imports before it reads its input; the rules for a failure, the
    # scope of a prompt are loaded as they are needed
    "capture": ("memcli.capture.command",),
    "checkpoint": (
        "memcli.checkpoint.command",
        "memcli.checkpoint.run",
        "memcli.fastparse.fastjson",
        "memcli.fastparse.fastre",
        "memcli.gitfiles",
        "memcli.untrusted",
        "memcli.observed.checkpoint_request",  # the request's words: tiny, and most runs ask
    ),
}


def chosen(command: str, loaded: "Loaded") -> "Loaded | None":
    """The modules of ``command``'s bundle, in the order their bodies finished, from
    ``loaded`` (:attr:`memcli.__main__.HookModules.loaded`); None when one of its roots or
    packages was not loaded there. A root's own imports are the modules that finished while
    its body ran: the entries from its recorded start to itself."""
    index = {entry[0]: number for number, entry in enumerate(loaded)}
    picked: set[int] = set()
    for root in ROOTS[command]:
        at = index.get(root)
        if at is None:
            return None
        picked.update(range(loaded[at][2], at + 1))
    for number in list(picked):
        parent = loaded[number][0].rpartition(".")[0]
        while parent != "memcli":
            at = index.get(parent)
            if at is None:
                return None
            picked.add(at)
            parent = parent.rpartition(".")[0]
    return [loaded[number] for number in sorted(picked)]


def write(
    command: str,
    hooks: "type[HookModules]",
    path: str,
    magic: bytes,
    source_of: "Callable[[str, bool], str]",
) -> bool:
    """Write ``command``'s bundle to ``path`` (atomically) from the modules a run loaded
    through ``hooks`` (the loader on ``sys.meta_path``; under ``python -m memcli`` the entry
    module is loaded twice, once as ``__main__``), after ``magic`` and the interpreter's magic
    number, each source named by ``source_of`` (as the reader names it). False when it cannot
    be made whole, a source changed since it was read, or the folder is not writable."""
    for root in ROOTS[command]:  # a root this run had no use for: loaded now, and recorded
        __import__(root)
    if hooks.missed or hooks.magic is None:
        return False
    entries = chosen(command, hooks.loaded)
    folder = os.path.dirname(path)
    if not entries or not os.access(folder, os.W_OK):
        return False
    prefix = os.path.dirname(folder) + os.sep
    header = []
    for name, _code, _start, mtime, size, package in entries:
        try:
            info = os.stat(prefix + source_of(name, package))
        except OSError:
            return False
        if info.st_mtime_ns != mtime or info.st_size != size:
            return False  # edited while this run went on: the next run writes it
        header.append((name, package, mtime, size))
    head = marshal.dumps(header)
    body = marshal.dumps([entry[1] for entry in entries])
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as handle:
            handle.write(magic + hooks.magic + len(head).to_bytes(4, "little") + head + body)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True
