"""Entry point of `mem` and `python -m memcli`.

Hook commands are dispatched before anything heavy is imported: `mem capture` runs on every
tool call of the assistant and must cost little more than starting Python. With
``MEM_DISABLE=1`` in the environment (set for the summarizer's headless session, so that its
own hooks neither capture it nor start another compaction) they do nothing and exit 0.
"""

import marshal
import os
import sys

HOOK_COMMANDS = ("capture", "index", "recall", "checkpoint")

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import CodeType, ModuleType


class HookModules:
    """Imports mem's own modules for the hook commands from their compiled files, with one
    ``stat`` of the source and one read of the ``.pyc`` each: importlib's general machinery
    (four finders asked in turn, the cache path worked out twice, more system calls) costs
    about twice as many instructions per module, and a Stop checkpoint imports about thirty.

    The compiled file is checked as importlib checks it (magic number, a timestamp-based file
    whose recorded modification time and size are the source's); a missing, stale or
    hash-based ``.pyc``, an optimised interpreter or any error return None, and the standard
    machinery imports the module as before (compiling it when it must). A package (a folder
    with ``__init__.py``) is loaded the same way, with its folder as its ``__path__``.
    """

    tag = sys.implementation.cache_tag
    magic = getattr(sys.modules.get("_frozen_importlib_external"), "MAGIC_NUMBER", None)
    # What :mod:`memcli.hookbundle` needs to write a command's bundle: each module loaded here,
    # in the order its body finished (name, code, where the modules its body imported start
    # in this list, the source's mtime_ns and size as checked, whether it is a package), and
    # whether any of mem's modules went the standard way instead (then nothing is written).
    loaded: "list[tuple[str, CodeType, int, int, int, bool]]" = []
    missed = False

    @classmethod
    def find_spec(
        cls, name: str, path: "Sequence[str] | None" = None, target: "ModuleType | None" = None
    ) -> "ModuleSpec | None":
        if not name.startswith("memcli.") or not isinstance(path, list) or len(path) != 1:
            return None
        missed, cls.missed = cls.missed, True  # until the spec is made
        if cls.magic is None or cls.tag is None or sys.flags.optimize:
            return None
        folder, base = str(path[0]), name.rpartition(".")[2]
        package = None
        source = os.path.join(folder, base + ".py")
        cached = os.path.join(folder, "__pycache__", f"{base}.{cls.tag}.pyc")
        try:
            try:
                info = os.stat(source)
            except FileNotFoundError:  # a package?
                package = os.path.join(folder, base)
                source = os.path.join(package, "__init__.py")
                cached = os.path.join(package, "__pycache__", f"__init__.{cls.tag}.pyc")
                info = os.stat(source)
            data = _read_file(cached)
        except OSError:
            return None  # nothing compiled yet, or no such module
        header = data[:16]
        if (
            len(header) < 16
            or header[:4] != cls.magic
            or header[4:8] != b"\0\0\0\0"
            or int.from_bytes(header[8:12], "little") != int(info.st_mtime) & 0xFFFFFFFF
            or int.from_bytes(header[12:16], "little") != info.st_size & 0xFFFFFFFF
        ):
            return None
        spec_type: type[ModuleSpec] = sys.modules["_frozen_importlib"].ModuleSpec
        state = (data, info.st_mtime_ns, info.st_size)
        spec = spec_type(name, cls, origin=source, loader_state=state)  # type: ignore[arg-type]
        spec.has_location = True
        spec.cached = cached
        if package is not None:
            spec.submodule_search_locations = [package]
        cls.missed = missed
        return spec

    @staticmethod
    def create_module(spec: "ModuleSpec") -> None:
        return None  # the default module

    @classmethod
    def exec_module(cls, module: "ModuleType") -> None:
        spec = module.__spec__
        assert spec is not None
        (data, mtime, size), spec.loader_state = spec.loader_state, None
        code = marshal.loads(memoryview(data)[16:])
        start = len(cls.loaded)
        exec(code, module.__dict__)  # noqa: S102
        package = spec.submodule_search_locations is not None
        cls.loaded.append((spec.name, code, start, mtime, size, package))


BUNDLE_MAGIC = b"memhook1"
_CODE = type(HookModules.find_spec.__code__)


def bundle_path(command: str, folder: str = "") -> str:
    """Where the bundle of ``command``'s modules lives: in the package's own ``__pycache__``
    (as trusted as the ``.pyc`` files beside it), never under a repository's ``.memory/``."""
    folder = folder or os.path.dirname(os.path.abspath(__file__))
    return os.path.join(folder, "__pycache__", f"hook-{command}.{HookModules.tag}.bundle")


def preload(command: str) -> bool:
    """Run the bodies of the modules ``command`` always imports from its bundle (written by
    :mod:`memcli.hookbundle`): one read and one ``marshal.loads`` for all of them, and none of
    importlib's per-module work (a sixth of what importing a module costs), in the order the
    standard imports would finish them, so each ``import`` among them finds its module loaded.

    Only a bundle for this interpreter (magic number, cache tag, no ``-O``) whose every
    source has the size and modification time (in nanoseconds) it had when its code was read
    is used; a missing, stale or damaged bundle, or any error, and nothing is loaded from it
    (False): HookModules and the standard machinery import each module as before. A module
    body that raises undoes the whole preload, and the standard import then meets the same
    error where it always would."""
    folder = os.path.dirname(os.path.abspath(__file__))
    root = sys.modules.get("memcli")
    if (
        HookModules.magic is None
        or sys.flags.optimize
        or getattr(root, "__path__", None) != [folder]
    ):
        return False
    try:
        data = _read_file(bundle_path(command, folder))
        if data[:8] != BUNDLE_MAGIC or data[8:12] != HookModules.magic:
            return False
        view = memoryview(data)
        size = int.from_bytes(data[12:16], "little")
        header = marshal.loads(view[16 : 16 + size])
        prefix = folder + os.sep
        for name, package, mtime, length in header:
            if name[:7] != "memcli." or ".." in name:
                return False
            info = os.stat(prefix + source_of(name, package))
            if info.st_mtime_ns != mtime or info.st_size != length:
                return False  # edited since: rebuilt once the run is over
        codes = marshal.loads(view[16 + size :])
        if len(codes) != len(header):
            return False
        for code in codes:
            if type(code) is not _CODE:
                return False
    except Exception:  # noqa: BLE001 - a bad bundle only means the usual imports
        return False
    return _run_bodies(prefix, header, codes)


def source_of(name: str, package: bool) -> str:
    """The source file of one of mem's modules, relative to the package's folder (string
    operations: ``os.path.join`` is interpreted code, and a bundle names thirty modules)."""
    relative = name[7:].replace(".", os.sep)
    return relative + os.sep + "__init__.py" if package else relative + ".py"


def _run_bodies(
    prefix: str, header: "list[tuple[str, bool, int, int]]", codes: "list[CodeType]"
) -> bool:
    modules = sys.modules
    spec_type: type[ModuleSpec] = modules["_frozen_importlib"].ModuleSpec
    module_type = type(sys)
    sep, pyc = os.sep, f".{HookModules.tag}.pyc"
    added: list[tuple[str, ModuleType]] = []
    try:
        for (name, package, _mtime, _length), code in zip(header, codes, strict=True):
            if name in modules:
                continue
            parent, _dot, child = name.rpartition(".")
            source = prefix + source_of(name, package)
            base, _sep, file = source.rpartition(sep)
            spec = spec_type(name, HookModules, origin=source)  # type: ignore[arg-type]
            spec.has_location = True
            spec.cached = cached = base + sep + "__pycache__" + sep + file[:-3] + pyc
            module = module_type(name)
            module.__spec__ = spec
            module.__loader__ = HookModules  # type: ignore[assignment]
            module.__file__ = source
            module.__cached__ = cached  # type: ignore[attr-defined]
            if package:
                spec.submodule_search_locations = [base]
                module.__path__ = [base]
                module.__package__ = name
            else:
                module.__package__ = parent
            modules[name] = module
            added.append((name, module))
            exec(code, module.__dict__)  # noqa: S102
            setattr(modules[parent], child, module)
    except Exception:  # noqa: BLE001 - undone: the standard imports take over
        for name, module in added:
            if modules.get(name) is module:
                del modules[name]
            parent, _dot, child = name.rpartition(".")
            if getattr(modules.get(parent), child, None) is module:
                delattr(modules[parent], child)
        return False
    return True


def _write_bundle(command: str) -> None:
    """After a run without a usable bundle: write one from the modules this run loaded, as
    Python writes a ``.pyc`` (not with ``PYTHONDONTWRITEBYTECODE``, nor when any of mem's
    modules was not loaded from a current ``.pyc``). Never fails the hook."""
    if sys.dont_write_bytecode or HookModules.missed or not HookModules.loaded:
        return
    try:
        path = bundle_path(command)
        if not os.access(os.path.dirname(path), os.W_OK):
            return  # an installation the user cannot write to: asked once a run, cheaply
        from memcli import hookbundle

        hookbundle.write(command, HookModules, path, BUNDLE_MAGIC, source_of)
    except Exception:  # noqa: BLE001, S110 - no bundle: the next run imports as this one did
        pass


def _read_file(path: str) -> bytes:
    """The file's bytes through the system calls alone (``open()`` builds two stream
    objects: a tenth of what importing a module costs)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def hooks_disabled(argv: list[str]) -> bool:
    """Whether this is a hook command and ``MEM_DISABLE`` switches hooks off."""
    if os.environ.get("MEM_DISABLE", "") in ("", "0") or not argv:
        return False
    return argv[0] in HOOK_COMMANDS or (argv[0] == "compact" and "--detach" in argv)


class SiteOnDemand:
    """Runs :mod:`site` at the first import nothing else can find, in an interpreter started
    without it (the hook launcher's ``-S``, :mod:`memcli.hooklauncher`): the hooks import the
    standard library and mem alone and never pay for it; any other import (Typer, PyYAML:
    another command) finds the installed packages as it would have. Last on ``sys.meta_path``,
    so only what the standard finders miss reaches it."""

    @classmethod
    def find_spec(
        cls, name: str, path: "Sequence[str] | None" = None, target: "ModuleType | None" = None
    ) -> "ModuleSpec | None":
        if path is not None or cls not in sys.meta_path:
            return None  # a submodule: its package was found, so site ran if it had to
        sys.meta_path.remove(cls)
        import importlib.util
        import site

        site.main()  # the installed packages' folders and .pth files, as at a normal start
        return importlib.util.find_spec(name)


def main() -> int:
    argv = sys.argv[1:]
    if sys.flags.no_site and SiteOnDemand not in sys.meta_path:
        sys.meta_path.append(SiteOnDemand)
    if hooks_disabled(argv):
        return 0
    if argv and argv[0] in ("capture", "checkpoint"):
        # Short processes that end with os._exit: the cycle collector only costs them (its
        # passes over a first stop's decoded observations took a tenth of a bare start), and
        # what they allocate is bounded by their input limits.
        import gc

        gc.disable()
        sys.meta_path.insert(0, HookModules)
    if argv and argv[0] == "capture":
        bundled = preload("capture")
        from memcli.capture.command import run

        advances: list[tuple[str, str, str, object]] = []
        code = run(argv[1:], lambda *request: advances.append(request))
        # Every file capture wrote is closed; skip the interpreter's teardown, which costs a
        # measurable share of a process that runs on every tool call.
        sys.stdout.flush()
        sys.stderr.flush()
        if not bundled:
            _write_bundle("capture")
        for request in advances:  # after the bundle: the checkpoint's modules stay out of it
            from memcli.checkpoint.run import advance_quietly

            advance_quietly(*request)
        os._exit(code)
    if argv and argv[0] == "checkpoint":
        bundled = preload("checkpoint")
        from memcli.checkpoint.command import run as run_checkpoint

        code = run_checkpoint(argv[1:])
        sys.stdout.flush()
        sys.stderr.flush()
        if not bundled:
            _write_bundle("checkpoint")
        os._exit(code)
    try:
        code = _dispatch(argv)
        sys.stdout.flush()  # here, so that a closed pipe is seen while it can be handled
        return code
    except BrokenPipeError:
        # The reader went away (`mem search x | head -1`): what it wanted, it has.
        from memcli.errors import silence_closed_stdout

        silence_closed_stdout()
        return 0


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] in ("index", "recall", "search", "reindex"):
        from memcli.cli import fastpath

        fast = fastpath.run(argv[0], argv[1:])
        if fast is not None:
            return fast
        if argv[0] in ("index", "recall") and not {"--help", "-h"} & set(argv):
            return fastpath.refuse(argv[0], argv[1:])
    if argv and argv[0] == "diff" and not {"--help", "-h"} & set(argv):
        # git reads the store while Python imports the command line (a fresh clone: every item)
        from memcli.review.diff import start_reads

        start_reads(os.getcwd())
    if argv and argv[0] in ("lint", "stats", "list"):
        from memcli.cli import store_commands

        fast = store_commands.run(argv[0], argv[1:])
        if fast is not None:
            return fast
    from memcli.cli.app import run as run_cli

    return run_cli(argv)


if __name__ == "__main__":
    sys.exit(main())
