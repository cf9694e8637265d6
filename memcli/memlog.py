"""``.memory/local/mem.log``: why a hook skipped an event or a background job failed.

One line per reason (``<time> <command>: <reason>``), masked, owner-only, rotated past
1 MB. Every part that fails open writes here: capture, the checkpoint, `mem index`,
background compaction and index builds."""

from __future__ import annotations

import os
import time

from memcli import untrusted


def write(path: str, reason: str, command: str = "capture") -> None:
    """Append one line to ``local/mem.log`` (masked, 0600); a failure to log is ignored."""
    from memcli.privacy import owner_only
    from memcli.privacy.redactor import Redactor

    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if untrusted.linked_folder(os.path.dirname(os.path.dirname(path))):
        return  # a committed symlink would send the line anywhere
    line = Redactor.cached().mask(" ".join(reason.split())[:1000])
    try:
        if os.path.exists(path) and os.path.getsize(path) > 1_000_000:
            os.replace(path, path + ".1")
        owner_only.append_line(path, f"{stamp} {command}: {line}")
    except OSError:
        pass
