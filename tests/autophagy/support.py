"""Support for the autophagy tests: real temporary workspaces: files with chosen ages, real symlinks,
an outside folder that must never be touched, and a view of a tree that shows any change."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apollo import config as config_mod
from apollo.autophagy import api
from apollo.clock import parse_iso
from apollo.workspace import Paths

NOW = "2026-11-29T12:00:00+08:00"
NOW_TS = parse_iso(NOW).timestamp()
HOUR = 3600.0
DAY = 86400.0


def tree(base: Path) -> dict[str, tuple]:
    """Every name under ``base`` (links not followed) with its type, content hash, mode and mtime."""
    found: dict[str, tuple] = {}
    if not os.path.lexists(base):
        return found
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, base)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                with open(path, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).hexdigest()
                found[rel] = ("file", digest, stat.S_IMODE(st.st_mode), st.st_mtime_ns)
    return found


def reseal(folder: Path, workspace: Path, name: str = "manifest.json") -> None:
    """Seal an edited record with the user's real key: what a bug in Apollo itself could write,
    so the checks behind the seal are tested too (the agent has no key)."""
    from apollo.autophagy import seal

    secret = seal.key(create=False)
    assert secret is not None
    mac = seal.mac(secret, workspace=str(workspace), snapshot=folder.name, name=name, data=(folder / name).read_bytes())
    target = folder / (name + seal.SUFFIX)
    os.chmod(target, 0o600)
    target.write_text(mac + "\n")


def files_only(view: dict[str, tuple]) -> dict[str, tuple]:
    return {k: v[:2] for k, v in view.items() if v[0] != "dir"}


@dataclass
class Ws:
    """A workspace, a state dir and an outside folder under one temporary root."""

    root: Path

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    def put(self, rel: str, data: bytes | str = b"x", *, age: float = 3 * DAY, base: Path | None = None,
            mode: int | None = None) -> Path:
        path = (base or self.workspace) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        if mode is not None:
            path.chmod(mode)
        os.utime(path, (NOW_TS - age, NOW_TS - age))
        return path

    def link(self, rel: str, target: str | Path, *, age: float = 3 * DAY, base: Path | None = None) -> Path:
        path = (base or self.workspace) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)
        os.utime(path, (NOW_TS - age, NOW_TS - age), follow_symlinks=False)
        return path

    def paths(self, agent: str = "main") -> Paths:
        return Paths.resolve(self.workspace, self.state, agent)

    def config(self):
        return config_mod.load(self.workspace)

    def configure(self, text: str) -> None:
        """The workspace's config (which the agent can write: it may only make Apollo more careful)."""
        (self.workspace / ".apollo").mkdir(parents=True, exist_ok=True)
        (self.workspace / ".apollo" / "config.toml").write_text(text, encoding="utf-8")

    @property
    def user_dir(self) -> Path:
        """The user's own config folder (under the test's private HOME)."""
        return Path(os.environ["XDG_CONFIG_HOME"]) / "apollo"

    def configure_user(self, text: str) -> None:
        """The user's own config: where rule files, retention and Apollo's own paths come from."""
        self.user_dir.mkdir(parents=True, exist_ok=True)
        (self.user_dir / "config.toml").write_text(text, encoding="utf-8")

    # -- runs ---------------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        return api.status(self.paths(), self.config())

    def plan(self, tier: str, **kw: Any):
        return api.plan(self.paths(), self.config(), tier, **kw)

    def execute(self, plan_id: str, **kw: Any):
        return api.execute(self.paths(), self.config(), plan_id, **kw)

    def small(self, **kw: Any):
        return api.run_now(self.paths(), self.config(), "small", **kw)[1]

    def medium(self, include_suggested: bool = True):
        made = self.plan("medium")
        if not made.items:
            return None
        return self.execute(made.plan_id, include_suggested=include_suggested)

    def restore(self, snapshot: str, **kw: Any) -> dict[str, Any]:
        return api.restore(self.paths(), self.config(), snapshot, **kw)

    def snapshots(self) -> list[dict[str, Any]]:
        return api.snapshots(self.paths(), self.config())
