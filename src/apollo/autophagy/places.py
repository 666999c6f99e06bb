"""Where autophagy keeps its plans, snapshots, log and lock for a workspace, and the purge of
what has expired there.

Apart from :mod:`apollo.autophagy.api` on purpose: ``apollo heartbeat`` purges expired
snapshots every 30 minutes and must not load the tiers' rules, the scanner or the large tier's
checks to do it (the plan codec, which needs the rules, loads only when stale plans are there
to read).
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from apollo import clock
from apollo.autophagy import remove
from apollo.autophagy import seal as sealing
from apollo.autophagy.fs import Root, Unsafe, open_file, read_fd, split_relative, write_new
from apollo.autophagy.snapshot import Place, list_snapshots, purge_expired
from apollo.errors import ApolloError, InputError, Refused, UsageError

if TYPE_CHECKING:
    from apollo.autophagy.plan import Plan
    from apollo.autophagy.rules import PatternSet
    from apollo.config import Config
    from apollo.workspace import Paths

LOCK_NAME = "autophagy.lock"
STATE_FOLDER = ".autophagy"
PLAN_ID = re.compile(r"[sml]-[0-9a-f]{8}\Z")


@dataclass
class Places:
    """Where Apollo keeps plans, snapshots and the log for one workspace."""

    workspace: Root
    plans: Place
    snapshots: Place
    log: tuple[Root, tuple[str, ...]]
    state: Place
    #: Apollo's own folders and log inside the workspace (patterns): never cleaned up as waste
    inside: list[str]
    _owned: list[Root] = field(default_factory=list)

    @functools.cached_property
    def extra_protect(self) -> PatternSet:
        from apollo.autophagy.rules import PatternSet

        return PatternSet.compile(self.inside)

    def shown(self, path: Path) -> str:
        """A path of Apollo's as the log names it: relative to the workspace when inside it."""
        try:
            return str(path.relative_to(self.workspace.path))
        except ValueError:
            return str(path)

    def close(self) -> None:
        for root in self._owned:
            root.close()
        self.workspace.close()


def _place(workspace: Root, configured: str, owned: list[Root]) -> tuple[Place, str | None]:
    """A configured folder: inside the workspace (reached without links), or an absolute path."""
    path = Path(configured).expanduser()
    if path.is_absolute():
        if not workspace.leads_inside(path):
            path.mkdir(parents=True, exist_ok=True)
            root = Root(path, label=str(path))
            owned.append(root)
            return Place(root, ()), None
        path = Path(os.path.relpath(os.path.realpath(path), workspace.path))
    parts = split_relative(path.as_posix())
    return Place(workspace, parts), "/".join(parts)


def open_places(paths: Paths, config: Config) -> Places:
    workspace = Root(paths.workspace, label="workspace")
    owned: list[Root] = []
    section = config.section("autophagy")
    inside: list[str] = []
    plans, rel = _place(workspace, section["plan_dir"], owned)
    inside += [rel + "/"] if rel else []
    snaps, rel = _place(workspace, section["snapshot_dir"], owned)
    inside += [rel + "/"] if rel else []
    log_path = Path(section["log_file"]).expanduser()
    log_place, rel = _place(workspace, str(log_path.parent) if str(log_path.parent) != "." else ".autophagy", owned)
    log_parts = (*log_place.parts, log_path.name)
    inside += ["/".join(log_parts)] if rel is not None else []
    state = Place(workspace, (STATE_FOLDER,))
    return Places(workspace, plans, snaps, (log_place.root, log_parts), state, inside, owned)


@contextmanager
def places_of(paths: Paths, config: Config) -> Iterator[Places]:
    try:
        places = open_places(paths, config)
    except Unsafe as exc:
        raise InputError(exc.reason, where=str(paths.workspace)) from None
    try:
        yield places
    except Unsafe as exc:  # Apollo's own folder made a link or a mount (by the agent): refused, said plainly
        raise Refused(f"{exc.reason}; Apollo's own files are not written there", where=str(paths.workspace),
                      hint=f"move it away ({STATE_FOLDER}/ is Apollo's: a real folder of the workspace)") from None
    finally:
        places.close()


@contextmanager
def run_lock(places: Places) -> Iterator[None]:
    """One autophagy run at a time per workspace; a second one is refused (exit 4)."""
    from filelock import FileLock, Timeout

    fd = places.state.open(create=True)
    try:
        try:
            st = os.stat(LOCK_NAME, dir_fd=fd, follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                raise Refused(f"{places.state.path / LOCK_NAME} is not a regular file; refusing to use it as a lock")
        except FileNotFoundError:
            pass
    finally:
        os.close(fd)
    lock = FileLock(str(places.state.path / LOCK_NAME), timeout=0, mode=0o600)
    try:
        lock.acquire()
    except Timeout:
        raise Refused("another autophagy run is in progress (its lock is held)", where=str(places.state.path / LOCK_NAME),
                      hint="wait for it to finish, then run this again") from None
    try:
        yield
    finally:
        lock.release()


# -- plans ------------------------------------------------------------------------------------------

def plan_parts(places: Places, plan_id: str) -> tuple[str, ...]:
    if not PLAN_ID.match(plan_id or ""):
        raise UsageError(f"{plan_id!r} is not a plan id", hint="plan ids look like m-1a2b3c4d; make a plan first")
    return (*places.plans.parts, f"{plan_id}.json")


def _plan_file(places: Places, name: str) -> bytes:
    """The bytes of one file of the plans folder (FileNotFoundError when it or the folder is missing)."""
    try:
        parent = places.plans.root.open_dir(places.plans.parts)
    except Unsafe:
        raise FileNotFoundError(name) from None
    try:
        fd = open_file(parent, name)
    except Unsafe:
        raise FileNotFoundError(name) from None
    finally:
        os.close(parent)
    try:
        return read_fd(fd)
    finally:
        os.close(fd)


def load_plan(places: Places, plan_id: str) -> Plan:
    from apollo.autophagy.plan import decode

    name = plan_parts(places, plan_id)[-1]
    try:
        data = _plan_file(places, name)
    except FileNotFoundError:
        raise UsageError(f"no plan {plan_id}", where=str(places.plans.path),
                         hint="make a new plan; plans are kept for 30 minutes") from None
    try:
        return decode(data)
    except Exception:  # noqa: BLE001 - any damage to a plan means it is not run
        raise InputError(f"plan {plan_id} cannot be read; it will not be run", where=str(places.plans.path),
                         hint="make a new plan") from None


def _plan_seal(places: Places, plan_id: str, secret: bytes, data: bytes) -> str:
    return sealing.mac(secret, workspace=str(places.workspace.path), snapshot=plan_id, name="plan", data=data)


def seal_plan(places: Places, plan_id: str, data: bytes) -> None:
    """Seal a plan whose id is a confirmation (the large tier's code): the workspace is the agent's to
    write, and a plan file it wrote, or renamed, could carry the code of a message the user wrote for
    another plan, and a time before that message."""
    fd = places.plans.open(create=True)
    try:
        write_new(fd, f"{plan_id}.json{sealing.SUFFIX}",
                  _plan_seal(places, plan_id, sealing.key(create=True) or b"", data).encode("ascii"))
    finally:
        os.close(fd)


def plan_sealed(places: Places, plan_id: str) -> bool:
    """Whether the plan file is, byte for byte, the one Apollo made and sealed under this id."""
    name = plan_parts(places, plan_id)[-1]
    try:
        data, seal = _plan_file(places, name), _plan_file(places, name + sealing.SUFFIX)
    except FileNotFoundError:
        return False
    return sealing.valid(sealing.key(create=False), seal, workspace=str(places.workspace.path), snapshot=plan_id,
                         name="plan", data=data)


def drop_plan(places: Places, name: str) -> None:
    """Remove a plan file (``<id>.json``) that ran or expired, and its seal if it has one."""
    remove.unlink_own(places.plans.root, (*places.plans.parts, name))
    with suppress(FileNotFoundError):
        remove.unlink_own(places.plans.root, (*places.plans.parts, name + sealing.SUFFIX))


# -- what has expired -------------------------------------------------------------------------------

def purge(places: Places, config: Config) -> list[Path]:
    """Expired snapshots (by their manifest time) and stale plans: on every run; never while
    ``APOLLO_NOW`` decides the time (a clock in the future would purge a fresh snapshot)."""
    if clock.overridden():
        return []
    retention = float(config.get("autophagy.snapshot_retention_days"))
    purged = purge_expired(places.snapshots, retention)
    ttl = float(config.get("autophagy.plan_ttl_minutes"))
    try:
        fd = places.plans.open()
    except Unsafe:
        return purged
    try:
        with os.scandir(fd) as it:
            names = [e.name for e in it if PLAN_ID.match(e.name.removesuffix(".json")) and e.name.endswith(".json")]
    finally:
        os.close(fd)
    for name in names:
        try:
            plan = load_plan(places, name.removesuffix(".json"))
            stale = clock.parse_iso(plan.expires_at).timestamp() + ttl * 60 < clock.now().timestamp()
        except ApolloError:
            stale = False
        if stale:
            drop_plan(places, name)
    return purged


def purge_expired_snapshots(paths: Paths, config: Config) -> list[Path]:
    """For the heartbeat: purge what has expired; skipped (empty list) while a run holds the lock.
    A workspace without snapshots is not touched at all (no lock file is created)."""
    with places_of(paths, config) as places:
        if not list_snapshots(places.snapshots, float(config.get("autophagy.snapshot_retention_days"))):
            return []
        try:
            with run_lock(places):
                return purge(places, config)
        except Refused:
            return []
