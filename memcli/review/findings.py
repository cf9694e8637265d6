"""What `mem prune` reports: findings, each with a check, a severity, a file and a line."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

ERROR, WARNING = "error", "warning"


@dataclass
class Finding:
    check: str
    severity: str
    path: str
    line: int
    message: str
    item_id: str | None = None
    action: str = ""  # what applying would do; empty: nothing automatic
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = {
            "check": self.check,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "item_id": self.item_id,
            "action": self.action,
        }
        return {**out, **self.detail} if self.detail else out


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == WARNING]

    def counts(self) -> dict[str, int]:
        """Findings per check, in the order the checks first appear."""
        return dict(Counter(f.check for f in self.findings))

    def shown(self, most: int | None) -> tuple[list[Finding], dict[str, int]]:
        """The first ``most`` findings of each check (all when None), in report order, and
        how many of each check were left out."""
        if most is None:
            return list(self.findings), {}
        taken: Counter[str] = Counter()
        kept: list[Finding] = []
        for finding in self.findings:
            taken[finding.check] += 1
            if taken[finding.check] <= most:
                kept.append(finding)
        return kept, {c: n - most for c, n in taken.items() if n > most}

    def to_json(self) -> dict[str, Any]:
        return {
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "counts": self.counts(),
            "findings": [f.to_json() for f in self.findings],
            "notes": self.notes,
            "applied": self.applied,
        }
