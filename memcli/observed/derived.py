"""Facts derived from an observation when capture writes it, so the Stop checkpoint reads them
instead of deriving them again for every observation of the session.

Finding a failure's *error signature* (:func:`memcli.signals.failure`: each shape's hint words
searched in the output, then its pattern) is most of what a checkpoint spends per
observation. Capture already holds the output when it writes the observation, and a failing
command is rare among tool calls, so it derives the signature there, from the observation as
written (masked, trimmed), and records it under ``derived``::

    "derived": {"rules": "<stamp>", "command": ["pytest", "KeyError: 'price'"]}

``command`` is :func:`command_signature` of a failing command. (A prompt's pasted failure is
not recorded: prompts are short, so deriving it at Stop costs less than importing the rules
in every prompt's capture.) The checkpoint trusts a recorded fact only when it is well formed
and its ``rules`` stamp is this installation's (:func:`rules_stamp`: mem's version and the
size and modification time of the modules whose rules derive it); otherwise (an older
buffer, another version's capture, a damaged line, an excerpt emptied to keep the buffer
under its bound) it derives the fact itself, exactly as before. Hook path: no :mod:`re`, no
:mod:`json`.
"""

import os

from memcli import __version__

FIELD = "derived"
COMMAND = "command"  # a failing command's signature
MAX_LINE = 4_000  # a signature line is one line of an output: longer is not one we wrote

_stamp: list[str] = []


def rules_stamp() -> str:
    """What the derived facts depend on: mem's version and the modules holding the rules (a
    changed rule, an upgrade, another checkout changes their size or time)."""
    if not _stamp:
        from memcli import outputs, signals

        parts = [__version__]
        for path in (signals.__file__, outputs.__file__, __file__):
            try:
                info = os.stat(str(path))
                parts.append(f"{info.st_size}.{info.st_mtime_ns}")
            except (OSError, TypeError, AttributeError):
                parts.append(f"none.{os.getpid()}")  # unknowable: never matches another run
        _stamp.append(" ".join(parts))
    return _stamp[0]


def command_signature(excerpt: str, summary: str) -> tuple[str, str]:
    """(kind, line) of a failing command: its output's error signature, else the detail its
    summary ends with (``... -> failed (1 failed)``) unless that is a generic line."""
    from memcli import signals

    kind, line = signals.failure(excerpt)
    if not line:
        detail = summary.rsplit("(", 1)[-1].rstrip(")") if summary.endswith(")") else ""
        line = "" if signals.is_generic(detail) else detail
    return kind, line


def facts(observation: "dict[str, object]") -> "dict[str, object] | None":
    """The facts to record with ``observation`` (as it is written), or None when the
    checkpoint derives nothing costly from it. Imports the rules only when there is one."""
    if observation.get("ok") is not False or not _is_command(observation):
        return None
    kind, line = command_signature(_text(observation, "excerpt"), _text(observation, "summary"))
    return {"rules": rules_stamp(), COMMAND: [kind, line]}


def _is_command(observation: "dict[str, object]") -> bool:
    """The observations the checkpoint reads as commands (see ``candidates.scan``)."""
    return _text(observation, "summary").startswith("$ ") and bool(_text(observation, "input"))


def recorded_signature(record: "dict[str, object]", what: str) -> "tuple[str, str] | None":
    """The signature (``what``: :data:`COMMAND`) recorded with ``record`` when it can be
    trusted, else None."""
    found = record.get(FIELD)
    if not isinstance(found, dict):
        return None
    sig = found.get(what)
    if not isinstance(sig, list) or len(sig) != 2:
        return None
    kind, line = sig
    if not isinstance(kind, str) or not isinstance(line, str) or len(line) > MAX_LINE:
        return None
    from memcli import signals

    if kind and kind not in signals.KINDS:
        return None
    if found.get("rules") != rules_stamp():
        return None  # another version's rules, or not ours: derive it again
    return kind, line


def _text(record: "dict[str, object]", name: str) -> str:
    value = record.get(name)
    return value if isinstance(value, str) else ""
