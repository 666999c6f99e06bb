"""Autophagy as a library: what the CLI, the MCP server and the heartbeat call.

The procedure of SPEC §2.3: scan → plan → confirmation → snapshot → delete → verify → log.

* :func:`status` — read-only: what each tier would remove, what is kept, snapshots, last log entry.
* :func:`plan` — scan one tier and save the plan (``.autophagy/plans/<plan_id>.json``).
* :func:`execute` — run exactly a saved plan (or the selected IDs of it): re-qualify each item
  with today's rules, copy everything into a snapshot and seal it, then remove, each file
  re-checked right before it goes; write ``result.json`` and the cleanup-log entry.
* :func:`restore`, :func:`snapshots`, :func:`purge_expired_snapshots`.

Medium and large are for the main agent only (Q15); large needs the plan id *and* the phrase
(Q12: never automatic). One run at a time: a lock in ``.autophagy/``.

This module holds status and planning; each step of a run has its own module (:mod:`.actors`,
:mod:`.execute`, :mod:`.requalify`, :mod:`.capture`, :mod:`.deletion`, :mod:`.outcome`,
:mod:`.restore`), re-exported here so that a caller needs this one import.
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from apollo.autophagy import large as large_tier
from apollo.autophagy import log as cleanup_log
from apollo.autophagy import rules as rules_mod
from apollo.autophagy.actors import require, require_main, resolve_actor  # noqa: F401 (the library contract)
from apollo.autophagy.execute import Result, execute  # noqa: F401
from apollo.autophagy.fs import Unsafe, display, write_new
from apollo.autophagy.places import (
    Places,
    purge_expired_snapshots,  # noqa: F401
    seal_plan,
)
from apollo.autophagy.places import places_of as _places
from apollo.autophagy.places import purge as _purge
from apollo.autophagy.places import run_lock as _lock
from apollo.autophagy.plan import Item, Plan, RootInfo, encode, make_plan
from apollo.autophagy.restore import restore, snapshots  # noqa: F401
from apollo.autophagy.rules import RISK, AutophagyRules
from apollo.autophagy.scan import Scanner
from apollo.autophagy.snapshot import list_snapshots
from apollo.autophagy.tasks import Tasks, load_tasks
from apollo.errors import Refused, UsageError

if TYPE_CHECKING:
    from apollo.config import Config
    from apollo.workspace import Paths

# -- status ---------------------------------------------------------------------------------------

def _tier_summary(items: Sequence[Item], display_path: Any) -> dict[str, Any]:
    chosen = [i for i in items if not i.suggested]
    return {
        "count": len(chosen),
        "bytes": sum(i.bytes for i in chosen),
        "kinds": dict(Counter(i.kind for i in chosen)),
        "examples": [f"{display_path(i)}:{i.line} {i.text}" if i.text else display_path(i) for i in chosen[:5]],
        "suggested": sum(1 for i in items if i.suggested),
    }


def status(paths: Paths, config: Config) -> dict[str, Any]:
    """What each tier would remove, what is kept, snapshots and their expiry, the last log
    entry. Read-only: creates nothing, removes nothing."""
    rules = rules_mod.load(config)
    with _places(paths, config) as places:
        tasks = load_tasks(places.workspace, rules)
        scanned = Scanner.for_places(places, rules, config, ("small", "medium"), tasks).scan()
        retention = float(config.get("autophagy.snapshot_retention_days"))
        snaps = [s.public() for s in list_snapshots(places.snapshots, retention)]
        last = cleanup_log.last_entry(*places.log)
    by_tier: dict[str, list[Item]] = {"small": [], "medium": []}
    tier_of = {r.kind: t for t in ("small", "medium") for r, _, _ in rules.rules(t)}
    for item in scanned.items:
        by_tier[tier_of.get(item.kind, "medium")].append(item)
    tiers: dict[str, Any] = {t: {"risk": RISK[t], **_tier_summary(v, lambda i: display(i.rel))} for t, v in by_tier.items()}
    large_info: dict[str, Any] = {"risk": RISK["large"]}
    try:
        found = large_tier.scan(paths, rules)
        probe = Plan("", "large", "", "", paths.agent, found.roots, found.items)
        large_info.update(_tier_summary(found.items, probe.display_path))
        large_info["sessions"] = sum(len(i.sessions) for i in found.items if i.action == "sqlite") + \
            sum(1 for i in found.items if i.kind == "session_transcript")
    except (Unsafe, OSError, sqlite3.Error) as exc:
        large_info["error"] = getattr(exc, "reason", None) or str(exc)
    running = large_tier.gateway_running(paths.state_dir, rules.data.large.gateway)
    large_info["gateway"] = {"running": running is not None, **({"evidence": running.evidence} if running else {})}
    tiers["large"] = large_info
    return {
        "workspace": str(paths.workspace),
        "state_dir": str(paths.state_dir),
        "agent": paths.agent,
        "tiers": tiers,
        "protected": scanned.protected,
        "notes": scanned.notes,
        "tasks": list(tasks.titles),
        "snapshots": snaps,
        "last_log": last,
    }


# -- plans ------------------------------------------------------------------------------------------

def _save(places: Places, plan: Plan) -> None:
    data = encode(plan)
    if plan.tier == "large":  # its id's code is what the user's message confirms
        seal_plan(places, plan.plan_id, data)
    fd = places.plans.open(create=True)
    try:
        write_new(fd, f"{plan.plan_id}.json", data)
    finally:
        os.close(fd)


def _scan_tier(places: Places, rules: AutophagyRules, config: Config, paths: Paths, tier: str,
               tasks: Tasks) -> tuple[list[Item], dict[str, RootInfo], list[dict[str, str]], list[dict[str, str]]]:
    ws = places.workspace
    roots = {"workspace": RootInfo(str(ws.path), ws.dev, ws.ino)}
    if tier == "large":
        running = large_tier.gateway_running(paths.state_dir, rules.data.large.gateway)
        if running:
            raise Refused(running.message(rules.data.large.gateway, "en"))
        try:
            found = large_tier.scan(paths, rules)
        except Unsafe as exc:
            raise Refused(exc.reason) from None
        return found.items, {**roots, **found.roots}, [], found.notes
    scanned = Scanner.for_places(places, rules, config, (tier,), tasks).scan()
    return scanned.items, roots, scanned.protected, scanned.notes


def plan(paths: Paths, config: Config, tier: str, *, actor: str | None = None) -> Plan:
    """Scan one tier and save the plan; an empty plan is returned but not saved."""
    if tier not in rules_mod.TIERS:
        raise UsageError(f"unknown tier {tier!r}", hint="use small, medium or large")
    require(actor, tier, f"autophagy {tier}")
    rules = rules_mod.load(config)
    with _places(paths, config) as places:
        tasks = load_tasks(places.workspace, rules)  # an unreadable protect list stops everything before anything is written
        with _lock(places):
            return _plan_locked(paths, config, tier, places, rules, tasks)


def _plan_locked(paths: Paths, config: Config, tier: str, places: Places, rules: AutophagyRules, tasks: Tasks) -> Plan:
    _purge(places, config)
    items, roots, protected, notes = _scan_tier(places, rules, config, paths, tier, tasks)
    made = make_plan(tier, paths.agent, roots, items, protected, notes, float(config.get("autophagy.plan_ttl_minutes")))
    if made.items:
        _save(places, made)
    return made



def run_now(paths: Paths, config: Config, tier: str, *, actor: str | None = None, operator: str = "用户确认",
            lang: str = "en", trigger: str = "user") -> tuple[Plan, Result | None]:
    """Plan and execute at once: the small tier with ``--yes`` (the request itself is the
    confirmation). Returns the plan and the result (None when there was nothing to do)."""
    if tier != "small":
        raise UsageError("only the small tier runs without a separate confirmation")
    made = plan(paths, config, tier, actor=actor)
    if not made.items:
        return made, None
    return made, execute(paths, config, made.plan_id, actor=actor, operator=operator, lang=lang, trigger=trigger,
                         tier=tier)
