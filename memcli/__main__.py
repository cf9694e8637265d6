"""Entry point of `mem` and `python -m memcli`.

Hook commands are dispatched before anything heavy is imported: `mem capture` runs on every
tool call of the assistant and must cost little more than starting Python. With
``MEM_DISABLE=1`` in the environment (set for the summarizer's headless session, so that its
own hooks neither capture it nor start another compaction) they do nothing and exit 0.
"""

import os
import sys

HOOK_COMMANDS = ("capture", "index", "recall", "checkpoint")


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
