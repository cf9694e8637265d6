"""ISO 8601 timestamps in UTC, the one format every stored time uses."""

from __future__ import annotations

import datetime as dt


def now() -> str:
    return format_time(dt.datetime.now(dt.UTC))


def format_time(value: dt.datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> dt.datetime:
    """A timestamp or a date (``2026-12-31`` means its start, UTC); ValueError otherwise."""
    value = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def normalize(value: object) -> object:
    """Timestamps YAML parsed into datetime or date objects become ISO strings again."""
    if isinstance(value, dt.datetime):
        return format_time(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def age_days(stamp: str, reference: dt.datetime | None = None) -> float:
    ref = reference or dt.datetime.now(dt.UTC)
    return (ref - parse_time(stamp)).total_seconds() / 86400.0


def parse_expiry(text: str, reference: dt.datetime | None = None) -> str:
    """An expiry given as an ISO date or time, or as a span from now (``30d``, ``12w``)."""
    spec = text.strip().lower()
    if spec[:-1].isdigit() and spec[-1:] in ("d", "w"):
        days = int(spec[:-1]) * (7 if spec.endswith("w") else 1)
        return format_time((reference or dt.datetime.now(dt.UTC)) + dt.timedelta(days=days))
    return format_time(parse_time(spec.upper() if "t" in spec else spec))
