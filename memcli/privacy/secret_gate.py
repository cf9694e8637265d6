"""The secret gate: find, name and mask secrets in the committed files of ``.memory/``.

Detection is the redactor capture uses (:class:`memcli.privacy.redactor.Redactor`): a file
leaks when masking it would change it. Each leak is reported by file, line and the rule that
fired (a GitHub token, a password in a URL ...), never by its value. E-mail addresses are
personal data, reported apart (a warning, when the project masks them at capture).

Masking a YAML file goes through its data, not its text, so that ``token: [REDACTED]`` never
turns a string into a list; comments that held a secret are masked as text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli import untrusted
from memcli.privacy.redactor import Redactor
from memcli.privacy.secret_handlers import ADDRESS


@dataclass(frozen=True)
class Leak:
    path: str  # relative to the repository root
    line: int
    kind: str
    personal: bool = False  # an e-mail address rather than a secret

    def message(self) -> str:
        if self.personal:
            return f"{self.kind} (personal data) in a committed memory file"
        return f"possible {self.kind} in a committed memory file: mask it and rotate it"


def scan_text(text: str, path: str, redactor: Redactor) -> list[Leak]:
    """Every leak in a file's text, one per kind per line, named by the rule that fired."""
    if redactor.mask(text) == text:
        return []
    leaks: list[Leak] = []
    for number, line in enumerate(text.split("\n"), 1):
        for kind in dict.fromkeys(f.rule for f in redactor.findings(line)):
            leaks.append(Leak(path, number, kind, personal=kind == ADDRESS))
    if not leaks:  # a secret spread over lines, such as a private key block
        at = next((n for n, line in enumerate(text.split("\n"), 1) if "-----BEGIN" in line), 1)
        leaks.append(Leak(path, at, "private key" if at > 1 else "secret"))
    return leaks


def scan_files(root: Path, paths: Sequence[str], redactor: Redactor) -> list[Leak]:
    leaks: list[Leak] = []
    for path in paths:
        try:
            text = untrusted.read_text(root / path)
        except untrusted.Unreadable:
            continue  # not text: nothing mem wrote
        leaks += scan_text(text, path, redactor)
    return leaks


def mask_file(path: Path, redactor: Redactor, order: Sequence[str] = ()) -> bool:
    """Mask what leaks in one file, in place; True when it changed. YAML keeps its comments
    and its key order (``order`` first, as for items)."""
    from memcli import atomic

    text = path.read_text(encoding="utf-8")
    masked = _mask_yaml(text, path, order, redactor) if path.suffix in (".yaml", ".yml") else None
    if masked is None:
        masked = redactor.mask(text)
    if masked == text:
        return False
    atomic.write_text(path, masked)
    return True


def _mask_yaml(text: str, path: Path, order: Sequence[str], redactor: Redactor) -> str | None:
    from memcli import yamlio

    doc, problem = yamlio.parse(text, str(path))
    if problem is not None or doc is None:
        return None
    data = doc.plain()
    if not isinstance(data, dict):
        return None
    clean: Any = redactor.mask_obj(data)
    rendered = yamlio.render(clean, doc, tuple(order) or tuple(clean)) if clean != data else text
    lines = rendered.split("\n")
    for number, line in enumerate(lines):
        if line.lstrip().startswith("#") or " #" in line:
            lines[number] = redactor.mask(line)
    return "\n".join(lines)
