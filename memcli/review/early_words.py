"""The first `mem diff` in a fresh clone: its read of every item, started with the command.

With nothing kept (:mod:`memcli.review.store_words`), a diff reads the ``kind:``, ``title:``,
``body:`` and ``expires:`` lines of every item of ``HEAD`` as checked out (``git grep``, then
one pass in Python). None of it depends on the revisions asked for, so :func:`start` forks a
child process at the very start of the command, before the command line's imports: the child
runs :func:`store_words.read_checkout` (its git reads at once) and sends back what it read,
as plain values through a pipe, while the parent imports and resolves the revisions. On two
cores the user waits for the longer of the two, not for both. The parent takes the result
where it would have read it (:func:`take`); whatever goes wrong in the child (an exception,
a signal, no ``fork`` on this system) leaves the parent to read the items itself, with the
same result.
"""

from __future__ import annotations

import marshal
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memcli.review.store_words import Checkout

# (root, items folder) -> (child's pid, read end of its pipe)
_children: dict[tuple[str, str], tuple[int, int]] = {}


def start(root: str, under: str) -> None:
    """Fork a child that reads the items under ``under`` of ``root`` as checked out, when
    nothing is kept there (a fresh clone)."""
    from memcli.review import store_words

    key = (root, under)
    if key in _children or not hasattr(os, "fork") or not store_words.nothing_kept(root, under):
        return
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(root, under, write_end)
    os.close(write_end)
    if not _children:
        import atexit

        atexit.register(end)
    _children[key] = (pid, read_end)


def _child(root: str, under: str, write_end: int) -> None:
    code = 1
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)  # nothing the child does reaches the parent's output
        os.dup2(null, 2)
        data = _read(root, under)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(marshal.dumps(data))
        code = 0
    except BaseException:  # noqa: BLE001 - the parent reads the items itself
        pass
    os._exit(code)


def _read(root: str, under: str) -> tuple[Any, ...] | None:
    from pathlib import Path

    from memcli import gitlayer
    from memcli.review import store_words
    from memcli.review.gitrepo import GitRepo

    for args in store_words.checkout_reads(under):
        gitlayer.start_early(root, *args)  # at once: git's reads overlap each other
    repo = GitRepo(Path(root))
    folder = under.rstrip("/")
    found = (repo.try_run("rev-parse", "HEAD", f"HEAD:{folder}") or "").split()
    if len(found) != 2:
        return None
    checkout = store_words.read_checkout(repo, under, found[0], found[1])
    return None if checkout is None else checkout.to_plain()


def take(root: str, under: str) -> Checkout | None:
    """What the child started for ``root`` and ``under`` read, once it is done; None when none
    was started or it did not finish well."""
    started = _children.pop((root, under), None)
    if started is None:
        return None
    pid, read_end = started
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _pid, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return None
    from memcli.review.store_words import Checkout

    try:
        plain = marshal.loads(data)
        return None if plain is None else Checkout.from_plain(plain)
    except (ValueError, TypeError, EOFError):
        return None


def end() -> None:
    """End the children nobody took a result from (the command stopped before it needed it)."""
    import signal

    while _children:
        _key, (pid, read_end) = _children.popitem()
        os.close(read_end)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
