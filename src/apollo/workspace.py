"""Where the agent lives: workspace, state dir and agent id, resolved as in SPEC §3.

Workspace: ``--workspace``, else ``$OPENCLAW_WORKSPACE_DIR``, else
``~/.openclaw/workspace`` (``workspace-<profile>`` when ``$OPENCLAW_PROFILE`` is set).
State dir: ``--state-dir``, else ``$OPENCLAW_STATE_DIR``, else ``~/.openclaw``.
"""

from __future__ import annotations

import os
from pathlib import Path

from apollo.config import Config
from apollo.errors import InputError, UsageError
from apollo.records import Record

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_AGENT = "main"


def resolve_workspace(explicit: Path | None = None) -> Path:
    if explicit is not None:
        return explicit.expanduser().absolute()
    env = os.environ.get("OPENCLAW_WORKSPACE_DIR")
    if env:
        return Path(env).expanduser().absolute()
    profile = os.environ.get("OPENCLAW_PROFILE")
    name = f"workspace-{profile}" if profile and profile != "default" else "workspace"
    return (Path.home() / ".openclaw" / name).absolute()


def resolve_state_dir(explicit: Path | None = None) -> Path:
    if explicit is not None:
        return explicit.expanduser().absolute()
    env = os.environ.get("OPENCLAW_STATE_DIR")
    if env:
        return Path(env).expanduser().absolute()
    return (Path.home() / ".openclaw").absolute()


def resolve_lang(explicit: str | None, config: Config) -> str:
    """``--lang``, else the config, else the locale's variables, else Chinese (the seeds' language).

    The variables are read as the C library reads them for messages (``LC_ALL``, ``LC_MESSAGES``,
    ``LANG``), then ``LC_CTYPE`` (which Python itself sets to ``C.UTF-8`` when none is set): the
    C locale's messages are English. Read from the environment, not through :mod:`locale`, whose
    import a heartbeat would pay for one word."""
    for candidate in (explicit, config.get("general.lang")):
        if candidate:
            if candidate not in ("zh", "en"):
                raise UsageError(f"unknown language {candidate!r}", hint="use --lang zh or --lang en")
            return candidate
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LC_CTYPE"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "zh"


class Paths(Record):
    """Every location Apollo reads or writes for one agent, derived in one place."""

    __slots__ = ("workspace", "state_dir", "agent")

    def __init__(self, workspace: Path, state_dir: Path, agent: str = DEFAULT_AGENT):
        self.workspace = workspace
        self.state_dir = state_dir
        self.agent = agent


    @property
    def agent_dir(self) -> Path:
        return self.state_dir / "agents" / self.agent

    @property
    def sessions_dir(self) -> Path:
        """Legacy JSONL store: ``<state>/agents/<agent>/sessions/``."""
        return self.agent_dir / "sessions"

    @property
    def sessions_index(self) -> Path:
        return self.sessions_dir / "sessions.json"

    @property
    def sqlite_store(self) -> Path:
        """OpenClaw 2026.9+ store: ``<state>/agents/<agent>/agent/openclaw-agent.sqlite``."""
        return self.agent_dir / "agent" / "openclaw-agent.sqlite"

    def require(self, *, workspace: bool = True, state_dir: bool = True, otherwise: str = "") -> Paths:
        """Refuse a workspace or state dir that does not exist (one line, exit 1) before anything is
        written: a typo in ``--workspace`` must not create a folder and report a healthy context.
        ``otherwise`` names what else the user may do (an option that needs neither)."""
        wanted = (("workspace", self.workspace, workspace, "--workspace PATH or $OPENCLAW_WORKSPACE_DIR"),
                  ("state dir", self.state_dir, state_dir, "--state-dir PATH or $OPENCLAW_STATE_DIR"))
        for label, folder, needed, how in wanted:
            if needed and not folder.is_dir():
                raise InputError(f"{label} {folder} does not exist; nothing was created",
                                 hint=f"check the path, or name an existing OpenClaw {label} with {how}{otherwise}")
        return self

    @classmethod
    def resolve(cls, workspace: Path | None = None, state_dir: Path | None = None,
                agent: str | None = None) -> Paths:
        name = agent or DEFAULT_AGENT
        if not name or "/" in name or name in (".", ".."):
            raise UsageError(f"invalid agent id {name!r}", hint="an agent id is a plain name such as 'main'")
        return cls(resolve_workspace(workspace), resolve_state_dir(state_dir), name)


#: fields (and lists) of Apollo's results that hold paths, relative to the workspace in the library
PATH_FIELDS = frozenset({"path", "snapshot", "log", "output", "state_file", "workspace"})
PATH_LISTS = frozenset({"deleted", "examples", "purged", "restored", "replaced", "preferences"})


def absolute_paths(data: Any, root: Path) -> Any:
    """``data`` with every path it holds made absolute (relative ones are inside ``root``), so that
    whatever a command prints can be pasted into the next one from any folder."""
    def place(value: Any) -> Any:
        return str(root / value) if isinstance(value, str) and value and not value.startswith(("/", "~")) else value

    if isinstance(data, dict):
        out = {key: place(value) if key in PATH_FIELDS else
               [place(v) for v in value] if key in PATH_LISTS and isinstance(value, list) else absolute_paths(value, root)
               for key, value in data.items()}
        if hasattr(data, "__dict__"):  # a dict subclass with attributes (autophagy's Result and its report)
            out = type(data)(out)
            out.__dict__.update({key: absolute_paths(value, root) for key, value in vars(data).items()})
        return out
    if isinstance(data, list):
        return [absolute_paths(item, root) for item in data]
    return data
