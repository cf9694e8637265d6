"""The secret gate: find, name and mask secrets in the committed files of ``.memory/``.

Detection is capture's masker (:func:`memcli.capture.masking.mask`): a file leaks when masking
it would change it. Each leak is reported by file, line and kind (a GitHub token, a password
in a URL ...), never by its value. E-mail addresses are personal data, reported apart (a
warning, when the project masks them at capture).

Masking a YAML file goes through its data, not its text, so that ``token: [REDACTED]`` never
turns a string into a list; comments that held a secret are masked as text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli import untrusted
from memcli.capture import masking

# What a masked span starts with (or what precedes it), and the name it gets in a report.
_PREFIXES = (
    ("github_pat_", "GitHub token"),
    ("ghp_", "GitHub token"),
    ("gho_", "GitHub token"),
    ("ghu_", "GitHub token"),
    ("ghs_", "GitHub token"),
    ("ghr_", "GitHub token"),
    ("glpat-", "GitLab token"),
    ("AKIA", "AWS access key"),
    ("ASIA", "AWS access key"),
    ("AIza", "Google API key"),
    ("xox", "Slack token"),
    ("sk-ant-", "Anthropic API key"),
    ("sk_live_", "Stripe key"),
    ("sk_test_", "Stripe key"),
    ("sk-", "API key"),
    ("npm_", "npm token"),
    ("pypi-", "PyPI token"),
    ("hf_", "Hugging Face token"),
    ("eyJ", "JWT"),
    ("-----BEGIN", "private key"),
)
_KEYWORDS = ("password", "passwd", "secret", "token", "api_key", "apikey", "auth", "key", "pass")


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


def _kind(original: str, before: str) -> str:
    for prefix, name in _PREFIXES:
        if original.startswith(prefix):
            return name
    tail = before.lower()[-40:]
    if "://" in tail and original.count("@") <= 1:
        return "password in a URL"
    if "bearer" in tail or "basic" in tail:
        return "authorization header"
    if any(word in tail for word in _KEYWORDS):
        return "password or secret assignment"
    return "secret"


def _line_leaks(line: str, extra: Sequence[str]) -> list[str]:
    """The kinds of secret in one line, in order."""
    masked = masking.mask(line, extra, mask_emails=False)
    if masked == line:
        return []
    return [_kind(secret, line[:start]) for start, secret in _masked_spans(line, masked)] or [
        "secret"
    ]


def _masked_spans(original: str, masked: str) -> list[tuple[int, str]]:
    """(offset, original text) of each ``[REDACTED]`` in ``masked``: the literal pieces
    between the markers are found in order in ``original``; what lies between them was masked."""
    pieces = masked.split(masking.REDACTED)
    spans: list[tuple[int, str]] = []
    pos = len(pieces[0])
    for number, piece in enumerate(pieces[1:], 1):
        last = number == len(pieces) - 1
        if last:
            end = len(original) - len(piece) if original.endswith(piece) else -1
        else:
            end = original.find(piece, pos + 1) if piece else pos + 1
        if end < pos:
            break
        spans.append((pos, original[pos:end]))
        pos = end + len(piece)
    return spans


def scan_text(text: str, path: str, extra: Sequence[str] = (), emails: bool = True) -> list[Leak]:
    """Every leak in a file's text, one per kind per line."""
    if masking.mask(text, extra, mask_emails=emails) == text:
        return []
    leaks: list[Leak] = []
    for number, line in enumerate(text.split("\n"), 1):
        for kind in dict.fromkeys(_line_leaks(line, extra)):
            leaks.append(Leak(path, number, kind))
        if emails and masking.mask(line, (), mask_emails=True) != masking.mask(
            line, (), mask_emails=False
        ):
            leaks.append(Leak(path, number, "e-mail address", personal=True))
    if not leaks:  # a secret spread over lines, such as a private key block
        at = next((n for n, line in enumerate(text.split("\n"), 1) if "-----BEGIN" in line), 1)
        leaks.append(Leak(path, at, "private key" if at > 1 else "secret"))
    return leaks


def scan_files(
    root: Path, paths: Sequence[str], extra: Sequence[str] = (), emails: bool = True
) -> list[Leak]:
    leaks: list[Leak] = []
    for path in paths:
        try:
            text = untrusted.read_text(root / path)
        except untrusted.Unreadable:
            continue  # not text: nothing mem wrote
        leaks += scan_text(text, path, extra, emails)
    return leaks


def mask_file(
    path: Path, order: Sequence[str] = (), extra: Sequence[str] = (), emails: bool = True
) -> bool:
    """Mask what leaks in one file, in place; True when it changed. YAML keeps its comments
    and its key order (``order`` first, as for items)."""
    from memcli import atomic

    text = path.read_text(encoding="utf-8")
    masked = (
        _mask_yaml(text, path, order, extra, emails) if path.suffix in (".yaml", ".yml") else None
    )
    if masked is None:
        masked = masking.mask(text, extra, mask_emails=emails)
    if masked == text:
        return False
    atomic.write_text(path, masked)
    return True


def _mask_yaml(
    text: str, path: Path, order: Sequence[str], extra: Sequence[str], emails: bool
) -> str | None:
    from memcli import yamlio

    doc, problem = yamlio.parse(text, str(path))
    if problem is not None or doc is None:
        return None
    data = doc.plain()
    if not isinstance(data, dict):
        return None
    clean: Any = masking.mask_obj(data, extra, mask_emails=emails)
    rendered = yamlio.render(clean, doc, tuple(order) or tuple(clean)) if clean != data else text
    lines = rendered.split("\n")
    for number, line in enumerate(lines):
        if line.lstrip().startswith("#") or " #" in line:
            lines[number] = masking.mask(line, extra, mask_emails=emails)
    return "\n".join(lines)
