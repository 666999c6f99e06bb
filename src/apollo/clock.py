"""One clock for every time-based rule, so tests and users can ask what *would* expire.

``APOLLO_NOW`` (ISO 8601) overrides the system clock when set.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from apollo.errors import ConfigError


def parse_iso(text: str) -> datetime:
    """Strict ISO 8601; a naive time is taken as UTC so comparisons never mix naive and aware."""
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def now() -> datetime:
    """The current time, aware, honouring ``APOLLO_NOW``."""
    override = os.environ.get("APOLLO_NOW")
    if override:
        try:
            return parse_iso(override)
        except ValueError:
            raise ConfigError(
                f"APOLLO_NOW={override!r} is not an ISO 8601 time",
                hint="use e.g. APOLLO_NOW=2026-11-29T12:00:00+08:00 or unset it",
            ) from None
    return datetime.now(UTC).astimezone()


def stamp(moment: datetime | None = None) -> str:
    """A filesystem-safe timestamp for snapshot and plan names."""
    return (moment or now()).strftime("%Y%m%dT%H%M%S%z")
