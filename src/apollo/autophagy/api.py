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
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from apollo import clock
from apollo.autophagy import human, remove
from apollo.autophagy import large as large_tier
from apollo.autophagy import log as cleanup_log
from apollo.autophagy import rules as rules_mod
from apollo.autophagy.entries import cut
from apollo.autophagy.fs import (
    Root,
    StatFingerprint,
    Unsafe,
    display,
    open_file,
    read_fd,
    refuse_open_writers,
    sha256_bytes,
    split_relative,
    valid_parts,
    write_new,
)
from apollo.autophagy.places import Places, drop_plan, load_plan, plan_sealed, seal_plan
from apollo.autophagy.places import places_of as _places
from apollo.autophagy.places import plan_parts as _plan_parts
from apollo.autophagy.places import purge as _purge
from apollo.autophagy.places import purge_expired_snapshots as purge_expired_snapshots  # the library contract
from apollo.autophagy.places import run_lock as _lock
from apollo.autophagy.plan import Item, Plan, RootInfo, encode, make_plan
from apollo.autophagy.rules import RISK, AutophagyRules
from apollo.autophagy.scan import Scanner
from apollo.autophagy.snapshot import (
    NO_SPACE,
    UNSEALED_HINT,
    NoSpace,
    SnapshotWriter,
    list_snapshots,
    locate,
    read_sealed,
    snapshot_space,
)
from apollo.autophagy.snapshot import restore as restore_files
from apollo.autophagy.tasks import Tasks, load_tasks
from apollo.errors import ConfirmationRequired, InputError, Refused, UsageError

ACTORS = ("main", "subagent")
SUBAGENT_TIERS = ("small",)


def resolve_actor(explicit: str | None = None) -> str:
    """``--as`` and ``$APOLLO_ACTOR`` (the main agent when neither says): the narrower wins, so a
    sub-agent's environment can never be talked up to the main agent by an option."""
    said = [value.strip().lower() for value in (explicit, os.environ.get("APOLLO_ACTOR")) if value and value.strip()]
    for actor in said:
        if actor not in ACTORS:
            raise UsageError(f"unknown actor {actor!r}", hint="use --as main or --as subagent")
    return "subagent" if "subagent" in said else "main"


def require_main(actor: str | None, what: str) -> None:
    """Refuse (exit 4) anything but status and small to a sub-agent (Q15)."""
    if resolve_actor(actor) != "main":
        raise Refused(f"{what} is for the main agent only; a sub-agent may run `status` and `small` (Q15)",
                      hint="ask the main agent (the user's session) to run it")


def _require(actor: str | None, tier: str, what: str) -> None:
    if tier not in SUBAGENT_TIERS:
        require_main(actor, what)
    else:
        resolve_actor(actor)


# -- places (apollo.autophagy.places), rules, scanner ------------------------------------------------

def _rules(config: Any) -> AutophagyRules:
    return rules_mod.load(config)


def _scanner(places: Places, rules: AutophagyRules, config: Any, tiers: tuple[str, ...], tasks: Tasks) -> Scanner:
    return Scanner(rules, places.workspace, tiers, clock.now(), float(config.get("autophagy.recent_minutes")), tasks,
                   places.extra_protect)


def _tasks(places: Places, rules: AutophagyRules) -> Tasks:
    return load_tasks(places.workspace, rules)


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


def status(paths: Any, config: Any) -> dict[str, Any]:
    """What each tier would remove, what is kept, snapshots and their expiry, the last log
    entry. Read-only: creates nothing, removes nothing."""
    rules = _rules(config)
    with _places(paths, config) as places:
        tasks = _tasks(places, rules)
        scanned = _scanner(places, rules, config, ("small", "medium"), tasks).scan()
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


def _scan_tier(places: Places, rules: AutophagyRules, config: Any, paths: Any, tier: str,
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
    scanned = _scanner(places, rules, config, (tier,), tasks).scan()
    return scanned.items, roots, scanned.protected, scanned.notes


def plan(paths: Any, config: Any, tier: str, *, actor: str | None = None) -> Plan:
    """Scan one tier and save the plan; an empty plan is returned but not saved."""
    if tier not in rules_mod.TIERS:
        raise UsageError(f"unknown tier {tier!r}", hint="use small, medium or large")
    _require(actor, tier, f"autophagy {tier}")
    rules = _rules(config)
    with _places(paths, config) as places:
        tasks = _tasks(places, rules)  # an unreadable protect list stops everything before anything is written
        with _lock(places):
            return _plan_locked(paths, config, tier, places, rules, tasks)


def _plan_locked(paths: Any, config: Any, tier: str, places: Places, rules: AutophagyRules, tasks: Tasks) -> Plan:
    _purge(places, config)
    items, roots, protected, notes = _scan_tier(places, rules, config, paths, tier, tasks)
    made = make_plan(tier, paths.agent, roots, items, protected, notes, float(config.get("autophagy.plan_ttl_minutes")))
    if made.items:
        _save(places, made)
    return made


# -- execution ------------------------------------------------------------------------------------

class Result(dict):
    """The public result, exactly ``{"tier", "deleted", "skipped", "snapshot", "log"}``;
    :attr:`report` carries what the human report adds (counts by category, what was kept)."""

    report: dict[str, Any]


def kept_summary(places: Places, rules: AutophagyRules, tasks: Tasks) -> dict[str, Any]:
    """What the report lists as kept: core memory (entries), tasks in progress, preferences."""
    from apollo.autophagy.entries import markdown_entries

    memory: list[dict[str, Any]] = []
    preferences: list[str] = []
    with os.scandir(places.workspace.fd) as it:
        listing = sorted(it, key=lambda e: e.name)
    for entry in listing:
        is_dir = entry.is_dir(follow_symlinks=False)
        if not is_dir and rules.report_memory.match(entry.name, entry.name, False):
            try:
                fd = open_file(places.workspace.fd, entry.name)
                try:  # a file over the check limit is not read (a sparse 4 GiB MEMORY.md)
                    big = os.fstat(fd).st_size > rules.data.corrupt.max_check_mb * 1024 * 1024
                    blocks = [] if big else markdown_entries(read_fd(fd))
                finally:
                    os.close(fd)
                memory.append({"path": entry.name,
                               "entries": None if big else sum(1 for b in blocks if b.kind != "section")})
            except (OSError, Unsafe):
                memory.append({"path": entry.name, "entries": None})
        if rules.report_preferences.match(entry.name, entry.name, is_dir):
            preferences.append(entry.name + ("/" if is_dir else ""))
    return {"memory": memory, "tasks": list(tasks.titles), "preferences": preferences}


@dataclass
class Run:
    """Bookkeeping of one execution, for the result, result.json and the log."""

    plan: Plan
    lang: str
    deleted: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    rewritten: list[dict[str, str]] = field(default_factory=list)
    done: list[Item] = field(default_factory=list)
    #: what the (Chinese) cleanup log lists: the same items, named in Chinese
    logged: list[str] = field(default_factory=list)
    logged_skips: list[str] = field(default_factory=list)

    def skip(self, item: Item, reason: str, reason_zh: str, path: str | None = None) -> None:
        self.skipped.append({"path": path or self.name(item, self.lang),
                             "reason": reason_zh if self.lang == "zh" else reason})
        self.logged_skips.append(f"{path or self.name(item, 'zh')}（{reason_zh}）")

    def removed(self, item: Item) -> None:
        self.deleted.append(self.name(item, self.lang))
        self.logged.append(self.name(item, "zh"))
        self.done.append(item)

    def name(self, item: Item, lang: str) -> str:
        shown = self.plan.display_path(item)
        if item.text:
            return f"{shown}:{item.line} {item.text[:60]}"
        if item.action == "tree":
            return shown + "/"
        if item.action == "sqlite":
            return f"{shown}（{len(item.sessions)} 个会话）" if lang == "zh" else f"{shown} ({len(item.sessions)} sessions)"
        if item.action == "cut":
            return f"{shown}（{item.count} 条）" if lang == "zh" else f"{shown} ({item.count} entries)"
        return shown


def _roots(plan: Plan, paths: Any, places: Places) -> dict[str, Root]:
    where = {"workspace": paths.workspace, "sessions": paths.sessions_dir, "agent": paths.agent_dir}
    roots: dict[str, Root] = {}
    try:
        for label, info in plan.roots.items():
            if label == "workspace":
                if (places.workspace.dev, places.workspace.ino) != (info.dev, info.ino):
                    raise Unsafe("the workspace is not the folder the plan was made for",
                                 "工作区不是制定计划时的那个目录")
                roots[label] = places.workspace
            else:
                roots[label] = Root(where[label], expect=(info.dev, info.ino), label=label)
    except Unsafe as exc:
        for label, root in roots.items():
            if label != "workspace":
                root.close()
        raise Refused(exc.reason) from None
    return roots


def _requalify(scanner: Scanner, root: Root, item: Item, tier: str) -> tuple[os.stat_result, list[Item]]:
    """Check one planned item against the file system and today's rules; raise Unsafe if it
    no longer qualifies exactly as shown."""
    parts = valid_parts(item.parts)
    st = root.lstat(parts)
    planned = StatFingerprint.from_list(item.fp)
    if item.action == "cut":
        if not planned.same_file(st) or st.st_size < item.prefix_size:
            raise Unsafe("changed since the plan", "制定计划后已改变", "changed")
    elif item.action == "tree":
        if not planned.same_file(st):
            raise Unsafe("changed since the plan", "制定计划后已改变", "changed")
    elif not planned.unchanged(st):
        raise Unsafe("changed since the plan", "制定计划后已改变", "changed")
    if root.label != "workspace":
        if tier != "large" or not stat.S_ISREG(st.st_mode) or not large_tier.qualifies(scanner.rules, item):
            raise Unsafe("not a file of the agent's context that the large tier removes",
                         "不是大自噬会清理的代理上下文文件", "changed")
        return st, [item]
    rel, name = "/".join(parts), parts[-1]
    is_dir = stat.S_ISDIR(st.st_mode)
    editable = False
    reason = scanner.protected_path(parts, is_dir or stat.S_ISLNK(st.st_mode))
    if reason:
        above = scanner.protected_path(parts[:-1], True) if len(parts) > 1 else None
        if item.action == "cut" and not above and scanner.editable(rel, name):
            editable = True
        else:
            raise Unsafe(reason[0], reason[1], "protected")
    parent = root.open_dir(parts[:-1])
    try:
        fresh = scanner.evaluate(tier, parent, parts, st, editable=editable, record=False)
    finally:
        os.close(parent)
    same = [f for f in fresh if f.kind == item.kind and f.action == item.action]
    if item.action == "cut":
        same = same or [f for f in fresh if f.action == "cut"]
    if not same:
        raise Unsafe("no longer qualifies under the current rules", "按当前规则已不符合清理条件", "changed")
    if item.action == "cut":  # the byte ranges come from the plan file: each must lie inside an entry found now
        found = [c for f in same for c in f.cuts]
        if not item.cuts or not all(0 <= start < end <= item.prefix_size
                                    and any(s <= start and end <= e for s, e in found) for start, end in item.cuts):
            raise Unsafe("its byte ranges are not entries the rules pick now", "其字节范围不是规则当前选中的条目",
                         "changed")
    return st, same


def _members(item: Item, fresh: Item) -> tuple[list[tuple[tuple[str, ...], StatFingerprint, bool]], list[tuple[str, ...]]]:
    """Folder members that the plan showed and that are still exactly the same now, and the
    planned members that are not (changed, replaced, gone, or now protected)."""
    now = {tuple(m.parts): (StatFingerprint.from_list(m.fp), m.is_dir) for m in fresh.members}
    keep = []
    dropped = []
    for member in item.members:
        parts = tuple(member.parts)
        planned = StatFingerprint.from_list(member.fp)
        current = now.get(parts)
        if current is not None and current[1] == member.is_dir and (
                (member.is_dir and (planned.dev, planned.ino) == (current[0].dev, current[0].ino))
                or (not member.is_dir and planned == current[0])):
            keep.append((parts, planned, member.is_dir))
        else:
            dropped.append(parts)
    return keep, dropped


def _copy_into(writer: SnapshotWriter, root: Root, parts: tuple[str, ...], planned: StatFingerprint, *,
               item: Item, exact: bool) -> None:
    parent = root.open_dir(parts[:-1])
    try:
        st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            if not planned.unchanged(st):
                raise Unsafe("changed since the plan", "制定计划后已改变", "changed")
            writer.record({"type": "symlink", "root": root.label, "path": "/".join(parts),
                           "target": os.readlink(parts[-1], dir_fd=parent), "mtime_ns": st.st_mtime_ns,
                           "item": item.id, "kind": item.kind, "action": item.action})
            return
        fd = open_file(parent, parts[-1])
    finally:
        os.close(parent)
    try:
        st = os.fstat(fd)
        if (exact and not planned.unchanged(st)) or (not exact and not planned.same_file(st)):
            raise Unsafe("changed since the plan", "制定计划后已改变", "changed")
        if item.action == "cut":  # a live writer would change the copy under us, and lose lines after the cut
            refuse_open_writers(st)
        writer.copy_file(fd, st, root=root.label, parts=parts, item=item.id, kind=item.kind, action=item.action)
    finally:
        os.close(fd)


def _cut_builder(items: Sequence[Item]):
    first = items[0]

    def build(old: bytes, st: os.stat_result) -> bytes:
        if not StatFingerprint.from_list(first.fp).same_file(st) or len(old) < first.prefix_size \
                or sha256_bytes(old[:first.prefix_size]) != first.prefix_sha256:
            raise Unsafe("changed since the plan", "制定计划后已改变", "changed")
        if len(old) != first.prefix_size and _reaches_end(items):  # what was added may finish the cut part
            raise Unsafe("written to at the end since the plan", "制定计划后末尾有新写入", "changed")
        ranges = sorted({(c[0], c[1]) for item in items for c in item.cuts})
        merged: list[tuple[int, int]] = []
        for start, end in ranges:  # an entry inside another selected one goes with it
            if merged and start < merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return cut(old, merged)

    return build


def _reaches_end(items: Sequence[Item]) -> bool:
    """Whether a cut runs to the end the plan saw (a torn tail, the last heartbeat entry)."""
    return any(c[1] == item.prefix_size for item in items for c in item.cuts)


def _index_builder(item: Item, empty: bytes):
    def build(old: bytes, st: os.stat_result) -> bytes:
        if not StatFingerprint.from_list(item.fp).unchanged(st):
            raise Unsafe("changed since the plan", "制定计划后已改变", "changed")
        return empty

    return build


def execute(paths: Any, config: Any, plan_id: str, selected: Sequence[str] | None = None, phrase: str | None = None,
            actor: str | None = None, *, include_suggested: bool = False, trigger: str = "user",
            operator: str = "用户确认", lang: str = "en", tier: str | None = None, at_terminal: bool = False) -> Result:
    """Run exactly the plan ``plan_id`` (only ``selected`` IDs when given). Returns
    ``{"tier", "deleted", "skipped", "snapshot", "log"}``. ``tier``, when given, must be the plan's.
    A large plan also needs ``phrase`` and a human behind it (:mod:`apollo.autophagy.human`):
    ``at_terminal`` when the caller read it from a person at a terminal, else the user's own
    latest message in the current session must say the phrase and the plan's code."""
    clock.require_real("a real deletion")
    rules = _rules(config)
    with _places(paths, config) as places:
        _tasks(places, rules)  # fail closed before anything is written
        with _lock(places):
            return _execute_locked(paths, config, places, rules, plan_id, selected, phrase, actor,
                                   include_suggested=include_suggested, trigger=trigger, operator=operator, lang=lang,
                                   tier=tier, at_terminal=at_terminal)


def _execute_locked(paths: Any, config: Any, places: Places, rules: AutophagyRules, plan_id: str,
                    selected: Sequence[str] | None, phrase: str | None, actor: str | None, *, include_suggested: bool,
                    trigger: str, operator: str, lang: str, tier: str | None, at_terminal: bool) -> Result:
    loaded = load_plan(places, plan_id)
    if tier is not None and loaded.tier != tier:
        raise UsageError(f"plan {plan_id} is a {loaded.tier} plan, not a {tier} one; nothing was changed",
                         hint=f"confirm it with: apollo autophagy {loaded.tier} ...")
    _require(actor, loaded.tier, f"autophagy {loaded.tier}")
    if loaded.agent != paths.agent:
        raise UsageError(f"plan {plan_id} was made for agent {loaded.agent!r}, not {paths.agent!r}")
    if loaded.expired():
        raise ConfirmationRequired(f"plan {plan_id} expired at {loaded.expires_at}; nothing was changed",
                                   hint=f"make a new plan: apollo autophagy {loaded.tier}")
    if loaded.tier == "large":
        if phrase != rules.data.large.phrase:
            raise ConfirmationRequired(
                "the large tier needs both confirmations; the phrase is missing or wrong, so nothing was changed",
                hint=f"apollo autophagy large --confirm {plan_id} --confirm-phrase {rules.data.large.phrase}")
        if not at_terminal:
            if not plan_sealed(places, plan_id):
                raise ConfirmationRequired(f"plan {plan_id} is not one Apollo made and sealed; nothing was changed",
                                           hint="make a new plan: apollo autophagy large")
            human.require_user_confirmed(paths, rules.data.large.phrase, plan_id, clock.parse_iso(loaded.created_at))
        running = large_tier.gateway_running(paths.state_dir, rules.data.large.gateway)
        if running:
            raise Refused(running.message(rules.data.large.gateway, lang))
    unknown = sorted(set(selected or ()) - {i.id for i in loaded.items})
    if unknown:
        raise UsageError(f"no item {', '.join(unknown)} in plan {plan_id}",
                         hint=f"IDs of this plan: {', '.join(i.id for i in loaded.items)}")
    items = loaded.selected(list(selected or []), include_suggested)
    _purge(places, config)
    tasks = _tasks(places, rules)
    roots = _roots(loaded, paths, places)
    try:
        outcome = _run(loaded, items, roots, places, rules, config, tasks, paths, lang=lang, trigger=trigger,
                       operator=operator)
    finally:
        for label, root in roots.items():
            if label != "workspace":
                root.close()
    drop_plan(places, _plan_parts(places, plan_id)[-1])
    return outcome


def run_now(paths: Any, config: Any, tier: str, *, actor: str | None = None, operator: str = "用户确认",
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


def _run(loaded: Plan, items: Sequence[Item], roots: dict[str, Root], places: Places, rules: AutophagyRules,
         config: Any, tasks: Tasks, paths: Any, *, lang: str, trigger: str, operator: str) -> Result:
    run = Run(loaded, lang)
    log_path = str(places.log[0].path.joinpath(*places.log[1]))  # absolute: usable as printed, from anywhere
    if not items:
        empty = Result(tier=loaded.tier, deleted=[], skipped=[], snapshot=None, log=log_path)
        empty.report = {"counts": {}, "kept": kept_summary(places, rules, tasks), "time": clock.now().isoformat(),
                        "risk": loaded.risk, "expires_at": None}
        return empty
    scanner = _scanner(places, rules, config, (loaded.tier,), tasks)
    if any(item.action == "sqlite" for item in items):  # all of the large tier or none of it
        try:
            large_tier.check_wipeable(paths.agent_dir / rules.data.large.sqlite.store)
        except (Unsafe, OSError) as exc:
            raise Refused(f"{getattr(exc, 'reason', None) or exc}; nothing was changed",
                          hint="stop OpenClaw (and keep backups as copies, not hard links), then run it again") from None
    try:
        snapshot_space(places.snapshots, sum(_copy_size(item, paths, rules) for item in items))
        writer = SnapshotWriter(places.snapshots, tier=loaded.tier, plan_id=loaded.plan_id, trigger=trigger,
                                operator=operator, workspace=str(places.workspace.path))
    except (NoSpace, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno not in NO_SPACE:
            raise
        reason = exc.reason if isinstance(exc, NoSpace) else f"no space for the snapshot ({exc.strerror})"
        raise Refused(f"{reason}; nothing was changed", where=str(places.snapshots.path),
                      hint="free some space (or set autophagy.snapshot_dir to a roomier place), then run it again") from None
    snapshot_rel: str | None = _shown(places, writer.path)
    ready: list[tuple[Item, list[Item]]] = []
    failure: str | None = None
    deleting = False
    try:
        for item in items:  # 1. re-qualify and copy everything into the snapshot
            root = roots[item.root]
            try:
                _st, fresh = _requalify(scanner, root, item, loaded.tier)
                _snapshot_item(writer, root, item, fresh, paths, rules)
                ready.append((item, fresh))
            except Unsafe as exc:
                run.skip(item, exc.reason, exc.reason_zh)
            except OSError as exc:
                if exc.errno in NO_SPACE:
                    raise
                run.skip(item, exc.strerror or str(exc), exc.strerror or str(exc))
        if loaded.tier == "large":
            _summary(writer, ready, paths, config)
        writer.seal()
        deleting = True
        _delete(run, ready, roots, rules, paths)  # 2. remove, each re-checked right before
    except BaseException as exc:
        failure = f"{type(exc).__name__}: {exc}"
        if not deleting:  # nothing was removed: a partial snapshot would only hold the disk
            writer.discard()
            snapshot_rel = None
        if isinstance(exc, OSError) and exc.errno in NO_SPACE and not deleting:
            raise Refused(f"the disk filled while the snapshot was taken ({exc.strerror}); the partial snapshot was "
                          "removed and nothing was changed", where=str(places.snapshots.path),
                          hint="free some space, then run it again") from None
        raise
    finally:
        result = Result(tier=loaded.tier, deleted=run.deleted, skipped=run.skipped, snapshot=str(writer.path),
                        log=log_path)
        try:
            if snapshot_rel is not None:
                writer.write_result({**result, "plan_id": loaded.plan_id, "rewritten": run.rewritten,
                                     "finished_at": clock.now().isoformat(), "failure": failure})
            _log(places, loaded, run, tasks, snapshot_rel or "（无：快照失败，已删除）", trigger, operator, failure)
        except OSError:
            if failure is None:
                raise  # the run itself went well: a missing log entry is an error of its own
    counts: Counter[str] = Counter()
    for item in run.done:
        counts[item.category] += item.count if item.category in ("context", "stale_cache") and item.count else 1
    retention = float(config.get("autophagy.snapshot_retention_days"))
    result.report = {"counts": dict(counts), "kept": kept_summary(places, rules, tasks),
                     "time": clock.now().isoformat(), "risk": loaded.risk,
                     "expires_at": (writer.created + timedelta(days=retention)).isoformat()}
    return result


def _copy_size(item: Item, paths: Any, rules: AutophagyRules) -> int:
    """The bytes the snapshot will copy for one item, as planned (a cut copies the whole file)."""
    if item.action == "cut":
        return item.prefix_size
    if item.action == "sqlite":
        store = paths.agent_dir / rules.data.large.sqlite.store
        return sum(p.stat().st_size for p in (store, store.with_name(store.name + "-wal")) if p.exists())
    return item.bytes


def _shown(places: Places, path: Path) -> str:
    try:
        return str(path.relative_to(places.workspace.path))
    except ValueError:
        return str(path)


def _snapshot_item(writer: SnapshotWriter, root: Root, item: Item, fresh: list[Item], paths: Any,
                   rules: AutophagyRules) -> None:
    parts = tuple(item.parts)
    planned = StatFingerprint.from_list(item.fp)
    if item.action == "tree":
        for member_parts, fp, is_dir in _members(item, fresh[0])[0]:
            if is_dir:
                st = root.lstat(member_parts)
                writer.record({"type": "dir", "root": root.label, "path": "/".join(member_parts),
                               "mode": stat.S_IMODE(st.st_mode), "item": item.id, "kind": item.kind, "action": "tree"})
            else:
                _copy_into(writer, root, member_parts, fp, item=item, exact=True)
        return
    if item.action == "sqlite":
        blob, target = writer.blob_path()
        store = paths.agent_dir / rules.data.large.sqlite.store
        large_tier.backup(store, target)
        data = target.read_bytes()
        st = root.lstat(parts)
        writer.record({"type": "file", "file": blob, "root": root.label, "path": "/".join(parts), "size": len(data),
                       "sha256": sha256_bytes(data), "mode": stat.S_IMODE(st.st_mode),
                       "mtime": clock.now().isoformat(), "mtime_ns": st.st_mtime_ns, "item": item.id,
                       "kind": item.kind, "action": "sqlite", "sessions": item.sessions})
        return
    if any(e.get("path") == "/".join(parts) and e.get("root") == root.label and e.get("action") == "cut"
           for e in writer.entries):
        return  # another entry of the same file: the file is in the snapshot already
    _copy_into(writer, root, parts, planned, item=item, exact=item.action != "cut")


def _summary(writer: SnapshotWriter, ready: list[tuple[Item, list[Item]]], paths: Any, config: Any) -> None:
    from apollo.transcript.openclaw_sqlite import SessionRef

    sources: list[tuple[str, Any]] = []
    for entry in writer.entries:
        if entry.get("action") == "sqlite":
            db = writer.path / entry["file"]
            sources += [(s["session_id"], SessionRef(db, s["session_id"])) for s in entry.get("sessions", [])
                        if s.get("events")]
        elif entry.get("kind") == "session_transcript":
            sources.append((entry["path"], writer.path / entry["file"]))
    digest = large_tier.summarize(sources, config)
    digest.update({"created_at": clock.now().isoformat(), "agent": paths.agent})
    writer.add_file(large_tier.SUMMARY, (json.dumps(digest, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def _delete(run: Run, ready: list[tuple[Item, list[Item]]], roots: dict[str, Root], rules: AutophagyRules,
            paths: Any) -> None:
    cuts: dict[tuple[str, tuple[str, ...]], list[Item]] = {}
    for item, fresh in sorted(ready, key=lambda pair: pair[0].action != "sqlite"):  # the store first: see _wipe
        root = roots[item.root]
        parts = tuple(item.parts)
        try:
            if item.action == "unlink":
                remove.unlink_file(root, parts, StatFingerprint.from_list(item.fp))
                _verify_gone(root, parts)
                run.removed(item)
            elif item.action == "tree":
                members, dropped = _members(item, fresh[0])
                for member in dropped:
                    run.skip(item, "changed, replaced or protected since the plan", "制定计划后已改变、被替换或受保护",
                             path=display("/".join(member)))
                outcome = remove.remove_members(root, members)
                for member, exc in outcome.skipped:
                    run.skip(item, exc.reason, exc.reason_zh, path=display("/".join(member)))
                if outcome.removed:
                    run.removed(item)
            elif item.action == "cut":
                cuts.setdefault((item.root, parts), []).append(item)
            elif item.action == "index":
                done = remove.rewrite(root, parts, _index_builder(item, rules.data.large.legacy.empty_index.encode()),
                                      carry_appends=False)
                run.rewritten.append({"root": item.root, "path": "/".join(parts), "after_sha256": done.after_sha256})
                run.removed(item)
            elif item.action == "sqlite":
                _wipe(run, root, item, rules, paths)
        except Unsafe as exc:
            run.skip(item, exc.reason, exc.reason_zh)
        except OSError as exc:
            run.skip(item, exc.strerror or str(exc), exc.strerror or str(exc))
    for (label, parts), group in cuts.items():
        try:
            done = remove.rewrite(roots[label], parts, _cut_builder(group), grown_aborts=_reaches_end(group),
                                  writers_refuse=True)
            run.rewritten.append({"root": label, "path": "/".join(parts), "after_sha256": done.after_sha256})
            for item in group:
                run.removed(item)
        except Unsafe as exc:
            for item in group:
                run.skip(item, exc.reason, exc.reason_zh)
        except OSError as exc:
            for item in group:
                run.skip(item, exc.strerror or str(exc), exc.strerror or str(exc))


def _verify_gone(root: Root, parts: tuple[str, ...]) -> None:
    try:
        root.lstat(parts)
    except Unsafe:
        return
    raise Unsafe("still there after removal", "删除后仍然存在", "error")


def _wipe(run: Run, root: Root, item: Item, rules: AutophagyRules, paths: Any) -> None:
    spec = rules.data.large.sqlite
    parts = tuple(item.parts)
    parent = root.open_dir(parts[:-1])
    try:
        if os.stat(parts[-1], dir_fd=parent, follow_symlinks=False).st_nlink > 1:
            raise Refused("the store got another hard link since the check; nothing else was removed")
        db = f"/proc/self/fd/{parent}/{parts[-1]}" if Path(f"/proc/self/fd/{parent}").is_dir() \
            else str(root.path.joinpath(*parts))
        try:
            remove.wipe_sessions(db, spec.session_tables, spec.related_tables,
                                 large_tier.verifier(item.sessions, rules, paths.agent))
        except sqlite3.OperationalError as exc:  # locked since the check: stop here, before anything else goes
            raise Refused(f"the store is busy or locked ({exc}); is OpenClaw running? Nothing else was removed",
                          hint="stop OpenClaw, then run it again") from None
        fd = open_file(parent, parts[-1])
        try:
            after = sha256_bytes(read_fd(fd))
        finally:
            os.close(fd)
    finally:
        os.close(parent)
    run.rewritten.append({"root": item.root, "path": "/".join(parts), "after_sha256": after})
    run.removed(item)


def _log(places: Places, loaded: Plan, run: Run, tasks: Tasks, snapshot: str, trigger: str, operator: str,
         failure: str | None) -> None:
    own = places.state.parts[0]
    kept = [p["path"] for p in loaded.protected if "/" not in p["path"].rstrip("/") and p["path"] != own][:20]
    kept += [f"{p['path']}（进行中任务引用）" for p in loaded.protected if p["reason"] == "referenced by an active task"]
    kept += [f"进行中任务：{t}" for t in tasks.titles]
    if failure:
        outcome = f"中途失败：{failure}；已删除 {len(run.deleted)} 项，快照已保存"
    elif run.skipped:
        outcome = f"部分完成：删除 {len(run.deleted)} 项，跳过 {len(run.skipped)} 项"
    else:
        outcome = f"完成：删除 {len(run.deleted)} 项"
    text = cleanup_log.entry(moment=clock.now(), tier=loaded.tier, removed=run.logged, kept=kept, trigger=trigger,
                             snapshot=snapshot, operator=operator, outcome=outcome, skipped=run.logged_skips,
                             lang=run.lang)
    cleanup_log.append(*places.log, text, lang=run.lang)


# -- snapshots and restore ---------------------------------------------------------------------------

def snapshots(paths: Any, config: Any) -> list[dict[str, Any]]:
    """The snapshots on disk with their expiry (read-only)."""
    with _places(paths, config) as places:
        return [s.public() for s in list_snapshots(places.snapshots, float(config.get("autophagy.snapshot_retention_days")))]


def restore(paths: Any, config: Any, snapshot: str, dry_run: bool = False, *, actor: str | None = None,
            lang: str = "en") -> dict[str, Any]:
    """Put a snapshot's files back (see :mod:`apollo.autophagy.snapshot` for what is refused).
    Only a snapshot whose records carry the user's seal is believed, and of it only what its own
    tier could have removed: never a protected file, never outside that tier's folders."""
    _require(actor, "restore", "autophagy restore")
    rules = _rules(config)
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
                    moment=clock.now(), snapshot=_shown(places, info.path), restored=outcome.restored,
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
