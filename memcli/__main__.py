"""Entry point of `mem` and `python -m memcli`.

Hook commands are dispatched before anything heavy is imported: `mem capture` runs on every
tool call of the assistant and must cost little more than starting Python.
"""

from __future__ import annotations

import sys


def main() -> int:
    argv = sys.argv[1:]
    if argv and argv[0] == "capture":
        from memcli.capture.command import run

        return run(argv[1:])
    if argv and argv[0] in ("index", "recall", "search"):
        from memcli.cli import fastpath

        code = fastpath.run(argv[0], argv[1:])
        if code is not None:
            return code
    from memcli.cli.app import run as run_cli

    return run_cli(argv)


if __name__ == "__main__":
    sys.exit(main())
