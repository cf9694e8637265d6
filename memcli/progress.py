"""Progress of long work, reported by the core and shown (or not) by whoever installed a
display: the CLI shows a Rich bar on stderr in an interactive terminal (:mod:`memcli.cli.
progress_bar`); hooks, pipes and library callers install nothing, and a report is then one
global lookup. The core never imports rich (DESIGN.md, "Code layout")."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Display = Callable[[str, int, int], None]

_display: Display | None = None


def install(display: Display | None) -> None:
    """Send reports to ``display(label, done, total)``; None: nowhere."""
    global _display
    _display = display


def report(label: str, done: int, total: int) -> None:
    """``done`` of ``total`` steps of the work named ``label`` are finished."""
    if _display is not None:
        _display(label, done, total)
