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
    from types import ModuleType


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

    @classmethod
    def find_spec(
        cls, name: str, path: "Sequence[str] | None" = None, target: "ModuleType | None" = None
    ) -> "ModuleSpec | None":
        if not name.startswith("memcli.") or not isinstance(path, list) or len(path) != 1:
            return None
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
        spec = spec_type(name, cls, origin=source, loader_state=data)  # type: ignore[arg-type]
        spec.has_location = True
        spec.cached = cached
        if package is not None:
            spec.submodule_search_locations = [package]
        return spec

    @staticmethod
    def create_module(spec: "ModuleSpec") -> None:
        return None  # the default module

    @staticmethod
    def exec_module(module: "ModuleType") -> None:
        spec = module.__spec__
        assert spec is not None
        data, spec.loader_state = spec.loader_state, None
        exec(marshal.loads(memoryview(data)[16:]), module.__dict__)  # noqa: S102


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


def main() -> int:
    argv = sys.argv[1:]
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
        from memcli.capture.command import run

        code = run(argv[1:])
        # Every file capture wrote is closed; skip the interpreter's teardown, which costs a
        # measurable share of a process that runs on every tool call.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    if argv and argv[0] == "checkpoint":
        from memcli.checkpoint.command import run as run_checkpoint

        code = run_checkpoint(argv[1:])
        sys.stdout.flush()
        sys.stderr.flush()
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
