"""Putting a sealed snapshot back, and listing the snapshots: only what the snapshot's own tier
could have removed, never a protected file, never outside that tier's folders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apollo import clock
from apollo.autophagy import large as large_tier
from apollo.autophagy import log as cleanup_log
from apollo.autophagy import rules as rules_mod
from apollo.autophagy.actors import require
from apollo.autophagy.fs import (
    Root,
    Unsafe,
    split_relative,
)
from apollo.autophagy.places import Places
from apollo.autophagy.places import places_of as _places
from apollo.autophagy.places import run_lock as _lock
from apollo.autophagy.rules import AutophagyRules
from apollo.autophagy.snapshot import (
    UNSEALED_HINT,
    list_snapshots,
    locate,
    read_sealed,
)
from apollo.autophagy.snapshot import restore as restore_files
from apollo.errors import InputError, Refused, UsageError

if TYPE_CHECKING:
    from apollo.config import Config
    from apollo.workspace import Paths


def snapshots(paths: Paths, config: Config) -> list[dict[str, Any]]:
    """The snapshots on disk with their expiry (read-only)."""
    with _places(paths, config) as places:
        return [s.public() for s in list_snapshots(places.snapshots, float(config.get("autophagy.snapshot_retention_days")))]


def restore(paths: Paths, config: Config, snapshot: str, dry_run: bool = False, *, actor: str | None = None,
            lang: str = "en") -> dict[str, Any]:
    """Put a snapshot's files back (see :mod:`apollo.autophagy.snapshot` for what is refused).
    Only a snapshot whose records carry the user's seal is believed, and of it only what its own
    tier could have removed: never a protected file, never outside that tier's folders."""
    require(actor, "restore", "autophagy restore")
    rules = rules_mod.load(config)
    retention = float(config.get("autophagy.snapshot_retention_days"))
    with _places(paths, config) as places, _lock(places):
        try:
            info = locate(places.snapshots, snapshot, retention, workspace=places.workspace.path)
        except Unsafe as exc:
            raise UsageError(exc.reason, hint="list them with: apollo autophagy snapshots") from None
        if info.problem:
            raise InputError(info.problem, where=str(info.path))
        try:
            sealed = read_sealed(places.snapshots, info, str(places.workspace.path))
        except Unsafe as exc:
            raise Refused(exc.reason_zh if lang == "zh" else exc.reason, where=str(info.path),
                          hint=UNSEALED_HINT) from None
        except (OSError, ValueError) as exc:
            raise InputError(f"the snapshot's records cannot be read ({exc})", where=str(info.path)) from None
        entries = sealed.manifest.get("entries", [])
        tier = str(sealed.manifest.get("tier"))
        if any(e.get("action") == "sqlite" for e in entries) and not dry_run:
            running = large_tier.gateway_running(paths.state_dir, rules.data.large.gateway)
            if running:
                raise Refused(running.message(rules.data.large.gateway, lang))
        roots = {"workspace": places.workspace}
        opened: list[Root] = []
        try:
            for label, where in (("sessions", paths.sessions_dir), ("agent", paths.agent_dir)):
                if any(e.get("root") == label for e in entries) and label in TIER_ROOTS.get(tier, ()):
                    where.mkdir(parents=True, exist_ok=True)
                    roots[label] = Root(where, label=label)
                    opened.append(roots[label])
            if not dry_run:
                _check_sqlite_restorable(entries, roots)
            outcome = restore_files(places.snapshots, info, sealed, roots, dry_run=dry_run, lang=lang,
                                    refuse=_restore_floor(tier, rules, places))
            if not dry_run and (outcome.restored or outcome.replaced or outcome.skipped):
                cleanup_log.append(*places.log, cleanup_log.restore_entry(
                    moment=clock.now(), snapshot=places.shown(info.path), restored=outcome.restored,
                    replaced=outcome.replaced, skipped=[f"{s['path']}（{s['reason']}）" for s in outcome.skipped],
                    operator="用户确认", lang=lang), lang=lang)
        finally:
            for root in opened:
                root.close()
    return {"snapshot": str(info.path), "path": str(info.path), "dry_run": dry_run, "restored": outcome.restored,
            "replaced": outcome.replaced, "skipped": outcome.skipped}


#: the folders each tier's run may have changed, so the only ones its restore may write
TIER_ROOTS = {"small": ("workspace",), "medium": ("workspace",), "large": ("sessions", "agent")}


def _restore_floor(tier: str, rules: AutophagyRules, places: Places):
    """What a restore refuses whatever its records say: a folder the tier never touches, a
    protected file (a memory file whose entries the medium tier cut excepted)."""

    def refuse(entry: dict[str, Any], parts: tuple[str, ...]) -> Unsafe | None:
        root = entry.get("root")
        if root not in TIER_ROOTS.get(tier, ()):
            return Unsafe(f"a {tier} cleanup never changes the {root} folder; not restored",
                          f"{tier} 级清理从不改动 {root} 目录；未恢复", "protected")
        if root != "workspace":
            return None
        is_dir = entry.get("type") == "dir"
        if not (rules.protect.match_any_prefix(parts, is_dir) or places.extra_protect.match_any_prefix(parts, is_dir)):
            return None
        above = rules.protect.match_any_prefix(parts[:-1], True) if len(parts) > 1 else None
        if entry.get("action") == "cut" and not above and rules.editable.match("/".join(parts), parts[-1], False):
            return None
        return Unsafe("protected; a restore never writes a protected file", "受保护；恢复从不写入受保护的文件",
                      "protected")

    return refuse


def _check_sqlite_restorable(entries: list[dict[str, Any]], roots: dict[str, Root]) -> None:
    """A wiped SQLite store is put back only if nothing was written to it since (no WAL frames)."""
    for entry in entries:
        if entry.get("action") != "sqlite":
            continue
        parts = split_relative(entry["path"])
        wal = (*parts[:-1], parts[-1] + "-wal")
        try:
            if roots["agent"].lstat(wal).st_size:
                raise Refused("the SQLite store has been written to since the wipe (its WAL is not empty); "
                              "restoring it would lose that", where=str(roots["agent"].path.joinpath(*wal)),
                              hint="the consistent copy is in the snapshot's files/ folder; stop OpenClaw and copy it by hand")
        except Unsafe:
            continue
