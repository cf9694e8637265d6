"""Work a command will need, done by a child process started with the command.

The first `mem diff` in a fresh clone reads the ``kind:``, ``title:``, ``body:`` and
``expires:`` lines of every item (:func:`memcli.review.store_words.start_early_read`). None of
it depends on the revisions asked for, so it is forked off at the very start of the command,
before the command line's imports: the child does the work and sends its result back as plain
values (:mod:`marshal`) through a pipe, while the parent imports and resolves the revisions. On
two cores the user waits for the longer of the two, not for both. The parent takes the result
where it needs it (:func:`take`); whatever goes wrong in the child (an exception, a signal, no
``fork`` on this system) leaves the parent to do the work itself, with the same result.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable
from typing import Any

# what the work is for -> (child's pid, read end of its pipe)
_children: dict[tuple[str, ...], tuple[int, int]] = {}


def start(key: tuple[str, ...], work: Callable[[], Any]) -> None:
    """Fork a child that runs ``work`` (its result: plain values :mod:`marshal` writes), for
    :func:`take` with the same ``key``."""
    if key in _children or not hasattr(os, "fork"):
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
        _child(work, write_end)
    os.close(write_end)
    if not _children:
        import atexit

        atexit.register(end)
    _children[key] = (pid, read_end)


def _child(work: Callable[[], Any], write_end: int) -> None:
    import gc

    gc.disable()  # it ends with os._exit: the collector would only walk what it builds
    code = 1
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)  # nothing the child does reaches the parent's output
        os.dup2(null, 2)
        data = marshal.dumps(work())
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
        code = 0
    except BaseException:  # noqa: BLE001 - the parent does the work itself
        pass
    os._exit(code)


def take(key: tuple[str, ...]) -> Any:
    """The result of the work started for ``key``, once the child is done; None when none was
    started or it did not finish well."""
    started = _children.pop(key, None)
    if started is None:
        return None
    pid, read_end = started
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _pid, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return None
    try:
        return marshal.loads(data)
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
