"""How the Stop checkpoint's request starts, known to capture as well (capture may not import
the checkpoint: shared pieces live in observed/).

Gemini CLI and Cursor hand the request back as the agent's next prompt ("mem checkpoint: 3
possible lesson(s) ..."): mem's own text, not the user's, so capture drops that prompt. No
``from __future__`` here: the hook path loads only what it must.
"""

CHECKPOINT_REQUEST = "mem checkpoint: "
CHECKPOINT_MARK = " possible lesson(s) from this session are not in the project's memory yet."


def is_checkpoint_request(text: str) -> bool:
    """Whether ``text`` is the Stop checkpoint's request, handed back as a prompt."""
    head = text[:400].lstrip()[:120]
    if not head.startswith(CHECKPOINT_REQUEST):
        return False
    count, _, rest = head[len(CHECKPOINT_REQUEST) :].partition(" ")
    return count.isdigit() and f" {rest}".startswith(CHECKPOINT_MARK)
