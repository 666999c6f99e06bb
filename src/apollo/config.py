"""Layered TOML configuration: built-in defaults, then the user's file, then the workspace's.

Each file is laid over the tables so far and checked against :mod:`apollo.config_schema`: a key
the schema does not have, or a value of another type, is an error that names the file, the line
and the key, because a typo in a cleaner's configuration must never silently fall back to a default.

The workspace's layer is written by whoever writes the workspace — the agent too — so it may
only make Apollo more careful (``data/workspace_limits.toml``): where Apollo writes and what it
may delete come from the user's own file alone.
"""

from __future__ import annotations

import os
from pathlib import Path

from apollo.cache import toml_loads
from apollo.errors import ConfigError
from apollo.records import Record
from apollo.rulefile import overlay, read_toml

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_SOURCE = "default"


def user_config_path() -> Path:
    """``~/.config/apollo/config.toml`` (platformdirs), or ``$APOLLO_CONFIG`` when set."""
    override = os.environ.get("APOLLO_CONFIG")
    if override:
        return Path(override)
    from apollo.userdirs import user_dir

    return user_dir("config") / "config.toml"


def workspace_config_path(workspace: Path) -> Path:
    return workspace / ".apollo" / "config.toml"


class Config(Record):
    """The merged configuration and, for each dotted key, the file it came from."""

    __slots__ = ("values", "sources")

    def __init__(self, values: dict[str, Any], sources: dict[str, str] | None = None):
        self.values = values
        self.sources = sources if sources is not None else {}

    __hash__ = None  # type: ignore[assignment]  # its values change: not a dictionary key

    def get(self, dotted: str) -> Any:
        node: Any = self.values
        for part in dotted.split("."):
            node = node[part]
        return node

    def section(self, name: str) -> dict[str, Any]:
        return self.values[name]

    def source_of(self, dotted: str) -> str:
        return self.sources.get(dotted, DEFAULT_SOURCE)

    def flat(self) -> list[tuple[str, Any, str]]:
        """(dotted key, value, source) for every leaf, in file order."""
        rows: list[tuple[str, Any, str]] = []

        def walk(prefix: str, node: dict[str, Any]) -> None:
            for key, value in node.items():
                dotted = f"{prefix}{key}"
                if isinstance(value, dict):
                    walk(f"{dotted}.", value)
                else:
                    rows.append((dotted, value, self.source_of(dotted)))

        walk("", self.values)
        return rows


def _defaults() -> dict[str, Any]:
    # beside this module, read directly: importlib.resources would cost the heartbeat more than the file
    text = (Path(__file__).parent / "data" / "defaults.toml").read_text(encoding="utf-8")
    return toml_loads(text)


def _workspace_limits() -> dict[str, list[str]]:
    return toml_loads((Path(__file__).parent / "data" / "workspace_limits.toml").read_text(encoding="utf-8"))


def _check_workspace_value(dotted: str, current: Any, value: Any, limits: dict[str, list[str]], where: str) -> None:
    """Refuse a workspace value that would widen what Apollo deletes or move where it writes."""
    hint = f"set it in your own config ({user_config_path()}), which the agent does not write"
    if dotted in limits["user_only"]:
        raise ConfigError(f"'{dotted}' may be set only in your own config, not in the workspace's", where=where,
                          hint=hint)
    if dotted in limits["raise_only"] and value < current:
        raise ConfigError(f"the workspace's config may raise '{dotted}', not lower it below {current}", where=where,
                          hint=hint)


def _merge(values: dict[str, Any], layer: dict[str, Any], *, path: Path, text: str, sources: dict[str, str],
           limits: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """One layer over the values so far; each value taken is recorded as coming from ``path``."""

    def check(dotted: str, current: Any, value: Any, where: str) -> None:
        if limits is not None:
            _check_workspace_value(dotted, current, value, limits, where)
        sources[dotted] = str(path)

    return overlay(values, layer, "apollo.config_schema:ConfigFile", str(path), text=text, what="config file", taken=check)


def _inside(path: Path, folder: Path) -> bool:
    return os.path.realpath(path).startswith(os.path.realpath(folder).rstrip(os.sep) + os.sep)


def load(workspace: Path | None = None, *, extra_layers: list[Path] | None = None) -> Config:
    """Defaults, then the user file, then ``<workspace>/.apollo/config.toml`` (within the limits
    of ``data/workspace_limits.toml``), then ``extra_layers``; later wins."""
    values = _defaults()
    sources: dict[str, str] = {}
    user = user_config_path()
    # a "user's config" inside the workspace (APOLLO_CONFIG pointed there) is the agent's to write
    layers: list[tuple[Path, bool]] = [(user, workspace is not None and _inside(user, workspace))]
    if workspace is not None:
        layers.append((workspace_config_path(workspace), True))
    layers.extend((path, False) for path in extra_layers or [])
    for path, limited in layers:
        if path.is_file():
            layer, text = read_toml(path, what="config file")
            values = _merge(values, layer, path=path, text=text, sources=sources,
                            limits=_workspace_limits() if limited else None)
    return Config(values, sources)


def file_stamps(files: tuple[str, ...]) -> tuple[tuple[str, int, int], ...]:
    """(path, size, modification time) of each file, (path, -1, -1) for one that is missing: a
    key that changes when a rule file is edited, so a long-lived process never keeps stale rules."""
    stamps = []
    for file in files:
        try:
            st = os.stat(file)
            stamps.append((file, st.st_size, st.st_mtime_ns))
        except OSError:
            stamps.append((file, -1, -1))
    return tuple(stamps)
