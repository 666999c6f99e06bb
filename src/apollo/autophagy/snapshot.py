"""Snapshots: real copies of everything a run removes, taken before anything is removed.

``<snapshot_dir>/autophagy-snapshot-<timestamp>/`` holds ``files/<n>`` (byte copies, never
hard links), ``manifest.json`` (for each copy: root, path, size, sha256, mode, mtime; and the
snapshot's ``created_at``), everything fsynced before the first deletion, and after the run
``result.json`` (what was really removed, and the checksum of each rewritten file as it was
left), each sealed with the user's key (:mod:`apollo.autophagy.seal`). Restore believes only
sealed records: it puts files back byte for byte, refuses absolute or escaping paths, never
follows a symlink at the destination and never overwrites a file, except one that still holds
exactly the bytes autophagy itself left there (a rewritten MEMORY.md, an emptied sessions.json,
the wiped SQLite store), so nothing anyone wrote since can be lost. What the caller's floor
refuses (a protected file, a root the tier never touches) is refused in a dry run too, and no
file comes back with a set-user-ID, set-group-ID or sticky bit.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from apollo import clock
from apollo.autophagy import messages as msg
from apollo.autophagy import remove
from apollo.autophagy import seal as sealing
from apollo.autophagy.fs import (
    O_CREATE,
    Root,
    Unsafe,
    display,
    fsync_dir,
    iter_fd,
    open_file,
    read_fd,
    split_relative,
    write_all,
    write_new,
)
from apollo.dirfd import open_dir

NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})
PREFIX = "autophagy-snapshot-"
MANIFEST = "manifest.json"
RESULT = "result.json"
#: the permission bits a restored file or folder may get back (never set-ID or sticky)
MODE_BITS = 0o777


def _dump(data: Any) -> bytes:
    return (json.dumps(data, ensure_ascii=True, indent=1) + "\n").encode("ascii")


@dataclass
class Place:
    """A folder Apollo keeps its own files in, reached without following links."""

    root: Root
    parts: tuple[str, ...]

    def open(self, create: bool = False) -> int:
        return self.root.open_dir(self.parts, create=create)

    @property
    def path(self) -> Path:
        return self.root.path.joinpath(*self.parts)


class NoSpace(Unsafe):
    """The snapshot would not fit: the run stops before anything is copied."""

    def __init__(self, needed: int, free: int, reserve: int):
        mib = 1 << 20
        super().__init__(f"not enough free space for the snapshot: {needed / mib:.1f} MiB to copy, "
                         f"{free / mib:.1f} MiB free, {reserve / mib:.1f} MiB kept free",
                         f"快照空间不足：需要复制 {needed / mib:.1f} MiB，可用 {free / mib:.1f} MiB，"
                         f"需保留 {reserve / mib:.1f} MiB", "space")


def snapshot_space(place: Place, needed: int) -> None:
    """Raise :class:`NoSpace` unless ``needed`` bytes fit with room to spare (1% of the file
    system, at least 1 MiB): a cleanup must never be what fills the disk."""
    fd = place.open(create=True)
    try:
        st = os.fstatvfs(fd)
    finally:
        os.close(fd)
    free = st.f_bavail * st.f_frsize
    reserve = max(1 << 20, st.f_blocks * st.f_frsize // 100)
    if needed + reserve > free:
        raise NoSpace(needed, free, reserve)


class SnapshotWriter:
    """Copies files in, then writes the manifest; a run deletes only after :meth:`seal`."""

    def __init__(self, place: Place, *, tier: str, plan_id: str, trigger: str, operator: str, workspace: str):
        self.key = sealing.key(create=True)  # before anything is copied: no key, no run
        self.workspace = workspace
        self.created = clock.now()
        self.place = place
        base = place.open(create=True)
        try:
            name = f"{PREFIX}{clock.stamp(self.created)}"
            suffix = 1
            while True:
                candidate = name if suffix == 1 else f"{name}-{suffix}"
                try:
                    os.mkdir(candidate, 0o700, dir_fd=base)
                    break
                except FileExistsError:
                    suffix += 1
            self.name = candidate
            fsync_dir(base)
        finally:
            os.close(base)
        self.parts = (*place.parts, self.name)
        self.entries: list[dict[str, Any]] = []
        self.extra: dict[str, str] = {}
        self.meta = {"created_at": self.created.isoformat(), "tier": tier, "plan_id": plan_id, "trigger": trigger,
                     "operator": operator, "complete": False}
        try:
            with self._dir() as fd:
                os.mkdir("files", 0o700, dir_fd=fd)
                write_new(fd, MANIFEST, _dump({**self.meta, "entries": []}))
                fsync_dir(fd)
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        """Remove this snapshot at once (taking it failed before anything was deleted)."""
        remove.purge_tree(self.place.root, self.parts)

    @property
    def path(self) -> Path:
        return self.place.root.path.joinpath(*self.parts)

    def _dir(self) -> _Fd:
        return _Fd(self.place.root.open_dir(self.parts))

    def _blob_name(self) -> str:
        return f"{len(self.entries) + 1:06d}"

    def copy_file(self, fd: int, st: os.stat_result, *, root: str, parts: tuple[str, ...], item: str, kind: str,
                  action: str) -> dict[str, Any]:
        """Copy an open file (the very inode that will be removed) into the snapshot."""
        blob = self._blob_name()
        digest = hashlib.sha256()
        size = 0
        with self._dir() as snap:
            files = open_dir("files", dir_fd=snap)
            try:
                out = os.open(blob, O_CREATE, 0o600, dir_fd=files)
                try:
                    for chunk in iter_fd(fd):
                        digest.update(chunk)
                        size += len(chunk)
                        write_all(out, chunk)
                    os.fsync(out)
                finally:
                    os.close(out)
                fsync_dir(files)
            finally:
                os.close(files)
        if size != st.st_size:
            raise Unsafe("changed while it was being copied", "复制时发生了变化", "changed")
        entry = {"type": "file", "file": f"files/{blob}", "root": root, "path": "/".join(parts), "size": size,
                 "sha256": digest.hexdigest(), "mode": stat.S_IMODE(st.st_mode),
                 "mtime": datetime.fromtimestamp(st.st_mtime, UTC).isoformat(), "mtime_ns": st.st_mtime_ns,
                 "item": item, "kind": kind, "action": action}
        self.entries.append(entry)
        return entry

    def record(self, entry: dict[str, Any]) -> None:
        """A folder or a symlink (kept as its target text, never followed)."""
        self.entries.append(entry)

    def add_file(self, name: str, data: bytes) -> None:
        """An extra file of the snapshot itself (the large tier's summary)."""
        with self._dir() as fd:
            write_new(fd, name, data)
        self.extra[name] = hashlib.sha256(data).hexdigest()

    def blob_path(self) -> tuple[str, Path]:
        """A fresh blob name and its path, for a copy made by another writer (SQLite's backup)."""
        blob = self._blob_name()
        return f"files/{blob}", self.path / "files" / blob

    def seal(self) -> None:
        """Write the final manifest (fsynced); from here on, deleting is allowed."""
        data = _dump({**self.meta, "complete": True, "extra": self.extra, "entries": self.entries})
        remove.rewrite(self.place.root, (*self.parts, MANIFEST), lambda _old, _st: data, carry_appends=False)
        with self._dir() as fd:
            write_new(fd, MANIFEST + sealing.SUFFIX, self._seal(MANIFEST, data))
            fsync_dir(fd)

    def write_result(self, result: dict[str, Any]) -> None:
        data = _dump(result)
        with self._dir() as fd:
            write_new(fd, RESULT, data)
            write_new(fd, RESULT + sealing.SUFFIX, self._seal(RESULT, data))
            fsync_dir(fd)

    def _seal(self, name: str, data: bytes) -> bytes:
        assert self.key is not None  # made in __init__
        return sealing.mac(self.key, workspace=self.workspace, snapshot=self.name, name=name, data=data).encode() + b"\n"


class _Fd:
    def __init__(self, fd: int):
        self.fd = fd

    def __enter__(self) -> int:
        return self.fd

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


# -- reading snapshots ---------------------------------------------------------------------------

@dataclass
class SnapshotInfo:
    name: str
    path: Path
    created_at: datetime | None
    expires_at: datetime | None
    tier: str = ""
    files: int = 0
    bytes: int = 0
    complete: bool = False
    problem: str = ""
    manifest: dict[str, Any] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        return {"name": self.name, "path": str(self.path), "tier": self.tier,
                "created_at": self.created_at.isoformat() if self.created_at else None,
                "expires_at": self.expires_at.isoformat() if self.expires_at else None,
                "files": self.files, "bytes": self.bytes, "complete": self.complete,
                **({"problem": self.problem} if self.problem else {})}


def _read_json(dir_fd: int, name: str) -> Any:
    fd = open_file(dir_fd, name)
    try:
        return json.loads(read_fd(fd).decode("ascii"))
    finally:
        os.close(fd)


def list_snapshots(place: Place, retention_days: float) -> list[SnapshotInfo]:
    """Every snapshot folder, oldest first, with its expiry judged by the manifest's time."""
    try:
        base = place.open()
    except Unsafe:
        return []
    found: list[SnapshotInfo] = []
    try:
        with os.scandir(base) as it:
            names = sorted(e.name for e in it if e.name.startswith(PREFIX) and e.is_dir(follow_symlinks=False))
        for name in names:
            info = SnapshotInfo(name, place.path / name, None, None)
            try:
                fd = open_dir(name, dir_fd=base)
                try:
                    manifest = _read_json(fd, MANIFEST)
                finally:
                    os.close(fd)
                info.manifest = manifest
                info.created_at = clock.parse_iso(manifest["created_at"])
                info.expires_at = info.created_at + timedelta(days=retention_days)
                info.tier = str(manifest.get("tier", ""))
                entries = manifest.get("entries", [])
                info.files = sum(1 for e in entries if e.get("type") == "file")
                info.bytes = sum(int(e.get("size", 0)) for e in entries if e.get("type") == "file")
                info.complete = bool(manifest.get("complete"))
            except (OSError, Unsafe, ValueError, KeyError, TypeError) as exc:
                info.problem = f"manifest unreadable ({exc}); never purged automatically"
            found.append(info)
    finally:
        os.close(base)
    return found


def purge_expired(place: Place, retention_days: float, now: datetime | None = None) -> list[Path]:
    """Remove snapshots whose manifest time is more than ``retention_days`` ago."""
    moment = now or clock.now()
    purged = []
    for info in list_snapshots(place, retention_days):
        if info.expires_at is not None and info.expires_at <= moment:
            remove.purge_tree(place.root, (*place.parts, info.name))
            purged.append(info.path)
    return purged


def locate(place: Place, snapshot: str, retention_days: float, *, workspace: Path | None = None) -> SnapshotInfo:
    """A snapshot by name, by absolute path, or by a path relative to the workspace (as results
    print it) or to the current folder; anything outside the snapshot folder is refused."""
    wanted = Path(snapshot)
    name = wanted.name
    if wanted.is_absolute() or len(wanted.parts) > 1:
        candidates = [wanted] if wanted.is_absolute() else \
            [*([workspace / wanted] if workspace is not None else []), Path(os.path.abspath(wanted))]
        home = os.path.realpath(place.path)
        if not any(os.path.realpath(candidate.parent) == home for candidate in candidates):
            raise Unsafe(f"{snapshot} is not inside {place.path}", f"{snapshot} 不在 {place.path} 里")
    for info in list_snapshots(place, retention_days):
        if info.name == name:
            return info
    raise Unsafe(f"no snapshot named {name} in {place.path}", f"{place.path} 中没有名为 {name} 的快照", "gone")


# -- restore -------------------------------------------------------------------------------------

@dataclass
class RestoreOutcome:
    restored: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)


def _blob(place: Place, info: SnapshotInfo, entry: dict[str, Any]) -> int:
    relative = split_relative(str(entry["file"]))
    parent = place.root.open_dir((*place.parts, info.name, *relative[:-1]))
    try:
        return open_file(parent, relative[-1])
    finally:
        os.close(parent)


def _verify_blob(fd: int, entry: dict[str, Any]) -> None:
    os.lseek(fd, 0, os.SEEK_SET)
    with open(fd, "rb", buffering=0, closefd=False) as blob:
        digest = hashlib.file_digest(blob, "sha256")
    if digest.hexdigest() != entry["sha256"]:
        raise Unsafe("the snapshot copy does not match its checksum; not restored",
                     "快照副本与校验和不符，未恢复", "changed")


class Sealed:
    """A snapshot's manifest and result exactly as the run that made them wrote them."""

    def __init__(self, manifest: dict[str, Any], result: dict[str, Any]):
        self.manifest = manifest
        self.result = result


UNSEALED_HINT = ("restore by hand if you trust it: each entry of its manifest.json names a copy in files/ "
                 "(\"file\") and where it came from (\"root\", \"path\"); check each, then copy it back yourself")


def read_sealed(place: Place, info: SnapshotInfo, workspace: str) -> Sealed:
    """The manifest and result whose seals hold, or :class:`Unsafe` (code ``unsealed``): a record
    the agent could have edited is never believed."""
    secret = sealing.key(create=False)
    fd = place.root.open_dir((*place.parts, info.name))
    try:
        records: dict[str, Any] = {}
        for name in (MANIFEST, RESULT):
            try:
                data = _read_bytes(fd, name)
            except FileNotFoundError:
                if name == RESULT:  # a run that stopped before its result: nothing was rewritten
                    records[name] = {}
                    continue
                raise
            try:
                seal = _read_bytes(fd, name + sealing.SUFFIX)
            except FileNotFoundError:
                seal = b""
            if not sealing.valid(secret, seal, workspace=workspace, snapshot=info.name, name=name, data=data):
                raise Unsafe(f"{info.name}/{name} carries no valid seal (it was edited, made elsewhere, or by an "
                             "Apollo without seals); nothing is restored from it",
                             f"{info.name}/{name} 没有有效的签名（被修改过、来自别处或来自没有签名的旧版本）；不从它恢复任何内容",
                             "unsealed")
            records[name] = json.loads(data.decode("ascii"))
    finally:
        os.close(fd)
    return Sealed(records[MANIFEST], records[RESULT])


def _read_bytes(dir_fd: int, name: str) -> bytes:
    fd = open_file(dir_fd, name)
    try:
        return read_fd(fd)
    finally:
        os.close(fd)


def restore(place: Place, info: SnapshotInfo, sealed: Sealed, roots: dict[str, Root], *, dry_run: bool, lang: str,
            refuse: Callable[[dict[str, Any], tuple[str, ...]], Unsafe | None]) -> RestoreOutcome:
    """Put the snapshot's files back (see the module docstring for what is refused); ``refuse``
    is the caller's floor: the reason an entry may not come back, or None."""
    outcome = RestoreOutcome()
    left_behind = {(r["root"], r["path"]): r["after_sha256"] for r in sealed.result.get("rewritten", [])}
    entries = sorted(sealed.manifest.get("entries", []), key=lambda e: (e.get("type") != "dir", str(e.get("path"))))
    for entry in entries:
        where = f"{entry.get('root')}:{display(str(entry.get('path')))}"
        try:
            root = roots.get(str(entry.get("root")))
            if root is None:
                raise Unsafe(f"unknown root {entry.get('root')!r}", f"未知的根目录 {entry.get('root')!r}")
            parts = split_relative(str(entry["path"]))
            refused = refuse(entry, parts)
            if refused is not None:
                raise refused
            shown = display("/".join(parts)) if root.label == "workspace" else display(str(root.path / "/".join(parts)))
            done = _restore_one(place, info, root, parts, entry, left_behind.get((entry["root"], entry["path"])),
                                dry_run)
            (outcome.replaced if done == "replaced" else outcome.restored).append(shown)
        except Unsafe as exc:
            outcome.skipped.append({"path": where, "reason": exc.reason_zh if lang == "zh" else exc.reason})
        except OSError as exc:
            outcome.skipped.append({"path": where, "reason": exc.strerror or str(exc)})
    return outcome


def _restore_one(place: Place, info: SnapshotInfo, root: Root, parts: tuple[str, ...], entry: dict[str, Any],
                 left_sha: str | None, dry_run: bool) -> str:
    kind = entry.get("type")
    parent = root.open_dir(parts[:-1], create=not dry_run) if not dry_run else _existing_parent(root, parts)
    try:
        existing = _lstat(parent, parts[-1]) if parent is not None else None
        if kind == "dir":
            if existing is not None:
                if stat.S_ISDIR(existing.st_mode):
                    return "restored"
                raise Unsafe("exists and is not a folder; left alone", "已存在且不是目录，未改动", "exists")
            if not dry_run:
                os.mkdir(parts[-1], int(entry.get("mode", 0o755)) & MODE_BITS, dir_fd=parent)
            return "restored"
        if kind == "symlink":
            if existing is not None:
                raise Unsafe(*msg.EXISTS, "exists")
            if not dry_run:
                os.symlink(str(entry["target"]), parts[-1], dir_fd=parent)
                if entry.get("mtime_ns"):
                    os.utime(parts[-1], ns=(entry["mtime_ns"], entry["mtime_ns"]), dir_fd=parent,
                             follow_symlinks=False)
            return "restored"
        if existing is not None:
            if stat.S_ISLNK(existing.st_mode):
                raise Unsafe("is a symlink now; never followed or overwritten", "现在是符号链接，绝不跟随或覆盖", "link")
            if left_sha is None:
                raise Unsafe(*msg.EXISTS, "exists")
            return _replace_if_untouched(place, info, root, parts, entry, left_sha, dry_run)
        blob = _blob(place, info, entry)
        try:
            _verify_blob(blob, entry)
            if not dry_run:
                assert parent is not None  # created above when it was missing
                _put_new(parent, parts[-1], blob, entry)
        finally:
            os.close(blob)
        return "restored"
    finally:
        if parent is not None:
            os.close(parent)


def _existing_parent(root: Root, parts: tuple[str, ...]) -> int | None:
    try:
        return root.open_dir(parts[:-1])
    except Unsafe as exc:
        if exc.code == "gone":
            return None
        raise


def _lstat(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _put_new(parent: int, name: str, blob: int, entry: dict[str, Any]) -> None:
    """Write under a temporary name, then link it into place: ``link`` fails if the name
    exists, so a file that appeared meanwhile is never overwritten."""
    temp = f".{name[:180]}.apollo-restore-{os.urandom(4).hex()}.tmp"  # never a name an earlier crash left behind
    out = os.open(temp, O_CREATE, 0o600, dir_fd=parent)
    try:
        for chunk in iter_fd(blob):
            write_all(out, chunk)
        os.fchmod(out, int(entry.get("mode", 0o644)) & MODE_BITS)
        mtime_ns = int(entry.get("mtime_ns", 0))
        if mtime_ns:
            os.utime(out, ns=(mtime_ns, mtime_ns))
        os.fsync(out)
    finally:
        os.close(out)
    try:
        os.link(temp, name, src_dir_fd=parent, dst_dir_fd=parent, follow_symlinks=False)
    except FileExistsError:
        raise Unsafe(*msg.EXISTS, "exists") from None
    finally:
        remove.drop_temporary(parent, temp)
    fsync_dir(parent)


def _replace_if_untouched(place: Place, info: SnapshotInfo, root: Root, parts: tuple[str, ...],
                          entry: dict[str, Any], left_sha: str, dry_run: bool) -> str:
    blob = _blob(place, info, entry)
    try:
        _verify_blob(blob, entry)
        original = read_fd(blob)
    finally:
        os.close(blob)

    def build(current: bytes, _st: os.stat_result) -> bytes:
        if hashlib.sha256(current).hexdigest() != left_sha:
            raise Unsafe("changed since autophagy rewrote it; not overwritten (the original is in the snapshot)",
                         "自噬改写后又被修改过，未覆盖（原文件在快照中）", "exists")
        return original

    if dry_run:
        fd = root.open_dir(parts[:-1])
        try:
            current = open_file(fd, parts[-1])
            try:
                build(read_fd(current), os.fstat(current))
            finally:
                os.close(current)
        finally:
            os.close(fd)
        return "replaced"
    remove.rewrite(root, parts, build, carry_appends=False, mtime_ns=int(entry.get("mtime_ns", 0)) or None)
    return "replaced"

