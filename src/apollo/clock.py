"""One clock for every time-based rule, so tests and users can ask what *would* expire.

``APOLLO_NOW`` (ISO 8601) overrides the system clock when set, for what only reads or shows
(status, plans, dry runs, renal). It never decides a real deletion: a variable in someone's
environment (or one an agent put on its own command line) would otherwise make fresh files
look old. Code that means it — the test suite, the demo on its throwaway copy — pins the clock
with :func:`pin`, which no environment can reach.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from apollo.errors import ConfigError, Refused

#: the clock fixed in code (tests, the demo); None = the system clock (or APOLLO_NOW)
_pinned: datetime | None = None


def parse_iso(text: str) -> datetime:
    """Strict ISO 8601; a naive time is taken as UTC so comparisons never mix naive and aware."""
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def parse_timestamp(text: str | None) -> datetime | None:
    """A transcript's timestamp as a time, else None (absent, or not ISO 8601)."""
    if not text:
        return None
    try:
        return parse_iso(str(text))
    except ValueError:
        return None


def pin(moment: datetime | str | None) -> None:
    """Fix this process's clock (an aware time or ISO text), or release it with None."""
    global _pinned
    _pinned = parse_iso(moment) if isinstance(moment, str) else moment


def overridden() -> bool:
    """True when ``APOLLO_NOW`` would decide the time (no clock pinned in code)."""
    return _pinned is None and bool(os.environ.get("APOLLO_NOW"))


def require_real(what: str) -> None:
    """Refuse ``what`` (a real deletion) while ``APOLLO_NOW`` decides the time."""
    if overridden():
        raise Refused(f"APOLLO_NOW is set: a clock override is for tests and dry runs, never for {what}",
                      hint="unset APOLLO_NOW and run it again (a plan or a --dry-run may use it)")


def now() -> datetime:
    """The current time, aware: the pinned clock, else ``APOLLO_NOW``, else the system's."""
    if _pinned is not None:
        return _pinned
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
