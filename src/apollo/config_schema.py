"""The shape of Apollo's configuration (``data/defaults.toml``, the user's and the workspace's files).

The values are the shipped ``defaults.toml``'s, never written here: every field is required, the
defaults file has them all (a test decodes it), and a user's file is checked as laid over it.
Kept apart from :mod:`apollo.config` because msgspec costs the heartbeat's start more than the
built-in defaults are worth checking: it is imported only when a file of the user's is read.
"""

from __future__ import annotations

import msgspec


class General(msgspec.Struct, forbid_unknown_fields=True):
    lang: str
    counter: str


class Renal(msgspec.Struct, forbid_unknown_fields=True):
    token_threshold: int
    density_threshold: float
    confirmation_threshold: int
    min_exceeded: int
    state_file: str
    snapshot_dir: str
    keep_patterns: list[str]
    drop_patterns: list[str]
    rule_files: list[str]
    balance_window: int
    balance_questioning_repeats: int
    balance_negativity_run: int
    balance_drift_shifts: int
    balance_drift_minutes: int


class Autophagy(msgspec.Struct, forbid_unknown_fields=True):
    snapshot_dir: str
    snapshot_retention_days: int
    plan_dir: str
    plan_ttl_minutes: int
    log_file: str
    recent_minutes: int
    protect: list[str]
    rule_files: list[str]


class Heartbeat(msgspec.Struct, forbid_unknown_fields=True):
    state_file: str


class Route(msgspec.Struct, forbid_unknown_fields=True):
    medium_warning: float
    large_warning: float
    renal_trigger: float
    rule_files: list[str]


class ConfigFile(msgspec.Struct, forbid_unknown_fields=True):
    """Every table, in the defaults file's order (``apollo config show`` lists them so)."""

    general: General
    renal: Renal
    autophagy: Autophagy
    heartbeat: Heartbeat
    route: Route
