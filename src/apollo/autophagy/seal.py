"""Seals on what a run records about itself, with a key the workspace never holds.

A snapshot's ``manifest.json`` (what was copied, from where, with which mode) and
``result.json`` (the checksum each rewritten file was left with) decide what ``restore``
writes. Both sit in the workspace, which the agent can write; so each carries an HMAC-SHA256
(``manifest.mac``, ``result.mac``) keyed by a secret in the user's own private folder
(``~/.config/apollo/private/snapshot-seal.key``: a 0600 file in a 0700 folder, created on first
use). The message binds the file to its workspace and its snapshot's name, so a record can be
neither edited, nor forged, nor carried to another workspace or snapshot.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

from apollo.errors import Refused

KEY_FOLDER = "private"
KEY_NAME = "snapshot-seal.key"
SUFFIX = ".mac"
_CONTEXT = b"apollo-autophagy-seal-v1"


def key_path() -> Path:
    from apollo.userdirs import user_dir

    return user_dir("config") / KEY_FOLDER / KEY_NAME


def _private_folder(folder: Path, create: bool) -> bool:
    """The key's folder, owned by this user and closed to everyone else (tightened if it was not)."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        if not create:
            return False
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        raise Refused(f"{folder} is not a private folder of this user; the snapshot key is not kept there",
                      hint="move it away; Apollo recreates it (0700) on the next cleanup")
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(folder, 0o700)
    return True


def _read_key(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise Refused(f"{path} is not a private file of this user; it is not used as the snapshot key")
        if stat.S_IMODE(st.st_mode) & 0o077:
            os.fchmod(fd, 0o600)
        key = os.read(fd, 4096).strip()
    finally:
        os.close(fd)
    if len(key) < 32:
        raise Refused(f"{path} is too short to be the snapshot key", hint="move it away; a new one is made")
    return key


def key(*, create: bool) -> bytes | None:
    """The user's key (made on first use when ``create``), or None when there is none yet."""
    path = key_path()
    if not _private_folder(path.parent, create):
        return None
    try:
        return _read_key(path)
    except FileNotFoundError:
        if not create:
            return None
    import secrets  # only the first run ever makes a key: the heartbeat's purge never pays for it

    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except FileExistsError:  # another run made it meanwhile
        return _read_key(path)
    try:
        os.write(fd, secrets.token_hex(32).encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    return _read_key(path)


def mac(secret: bytes, *, workspace: str, snapshot: str, name: str, data: bytes) -> str:
    message = b"\0".join((_CONTEXT, os.fsencode(workspace), os.fsencode(snapshot), name.encode("ascii"), data))
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def valid(secret: bytes | None, seal: bytes, *, workspace: str, snapshot: str, name: str, data: bytes) -> bool:
    if secret is None:
        return False
    expected = mac(secret, workspace=workspace, snapshot=snapshot, name=name, data=data)
    return hmac.compare_digest(seal.strip(), expected.encode("ascii"))
