"""Running exactly a saved plan: the confirmations it needs, then re-qualify and snapshot every
item, seal the snapshot, remove, verify, write ``result.json`` and the cleanup-log entry."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

from apollo import clock
from apollo.autophagy import human
from apollo.autophagy import large as large_tier
from apollo.autophagy import log as cleanup_log
from apollo.autophagy import messages as msg
from apollo.autophagy import rules as rules_mod
from apollo.autophagy.actors import require
from apollo.autophagy.capture import add_summary, copy_size, snapshot_item
from apollo.autophagy.deletion import delete
from apollo.autophagy.fs import (
    Root,
    Unsafe,
)
from apollo.autophagy.outcome import Result, Run, kept_summary
from apollo.autophagy.places import Places, drop_plan, load_plan, plan_sealed
from apollo.autophagy.places import places_of as _places
from apollo.autophagy.places import plan_parts as _plan_parts
from apollo.autophagy.places import purge as _purge
from apollo.autophagy.places import run_lock as _lock
from apollo.autophagy.plan import Item, Plan
from apollo.autophagy.requalify import requalify
from apollo.autophagy.rules import AutophagyRules
from apollo.autophagy.scan import Scanner
from apollo.autophagy.snapshot import (
    NO_SPACE,
    NoSpace,
    SnapshotWriter,
    snapshot_space,
)
from apollo.autophagy.tasks import Tasks, load_tasks
from apollo.errors import ConfirmationRequired, Refused, UsageError

if TYPE_CHECKING:
    from apollo.config import Config
    from apollo.workspace import Paths


def _roots(plan: Plan, paths: Paths, places: Places) -> dict[str, Root]:
    where = {"workspace": paths.workspace, "sessions": paths.sessions_dir, "agent": paths.agent_dir}
    roots: dict[str, Root] = {}
    try:
        for label, info in plan.roots.items():
            if label == "workspace":
                if (places.workspace.dev, places.workspace.ino) != (info.dev, info.ino):
                    raise Unsafe(*msg.OTHER_WORKSPACE)
                roots[label] = places.workspace
            else:
                roots[label] = Root(where[label], expect=(info.dev, info.ino), label=label)
    except Unsafe as exc:
        for label, root in roots.items():
            if label != "workspace":
                root.close()
        raise Refused(exc.reason) from None
    return roots


def execute(paths: Paths, config: Config, plan_id: str, selected: Sequence[str] | None = None, phrase: str | None = None,
            actor: str | None = None, *, include_suggested: bool = False, trigger: str = "user",
            operator: str = "用户确认", lang: str = "en", tier: str | None = None, at_terminal: bool = False) -> Result:
    """Run exactly the plan ``plan_id`` (only ``selected`` IDs when given). Returns
    ``{"tier", "deleted", "skipped", "snapshot", "log"}``. ``tier``, when given, must be the plan's.
    A large plan also needs ``phrase`` and a human behind it (:mod:`apollo.autophagy.human`):
    ``at_terminal`` when the caller read it from a person at a terminal, else the user's own
    latest message in the current session must say the phrase and the plan's code."""
    clock.require_real("a real deletion")
    rules = rules_mod.load(config)
    with _places(paths, config) as places:
        load_tasks(places.workspace, rules)  # fail closed before anything is written
        with _lock(places):
            return _execute_locked(paths, config, places, rules, plan_id, selected, phrase, actor,
                                   include_suggested=include_suggested, trigger=trigger, operator=operator, lang=lang,
                                   tier=tier, at_terminal=at_terminal)


def _execute_locked(paths: Paths, config: Config, places: Places, rules: AutophagyRules, plan_id: str,
                    selected: Sequence[str] | None, phrase: str | None, actor: str | None, *, include_suggested: bool,
                    trigger: str, operator: str, lang: str, tier: str | None, at_terminal: bool) -> Result:
    loaded = load_plan(places, plan_id)
    if tier is not None and loaded.tier != tier:
        raise UsageError(f"plan {plan_id} is a {loaded.tier} plan, not a {tier} one; nothing was changed",
                         hint=f"confirm it with: apollo autophagy {loaded.tier} ...")
    require(actor, loaded.tier, f"autophagy {loaded.tier}")
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
    tasks = load_tasks(places.workspace, rules)
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


def _run(loaded: Plan, items: Sequence[Item], roots: dict[str, Root], places: Places, rules: AutophagyRules,
         config: Config, tasks: Tasks, paths: Paths, *, lang: str, trigger: str, operator: str) -> Result:
    run = Run(loaded, lang)
    log_path = str(places.log[0].path.joinpath(*places.log[1]))  # absolute: usable as printed, from anywhere
    if not items:
        empty = Result(tier=loaded.tier, deleted=[], skipped=[], snapshot=None, log=log_path)
        empty.report = {"counts": {}, "kept": kept_summary(places, rules, tasks), "time": clock.now().isoformat(),
                        "risk": loaded.risk, "expires_at": None}
        return empty
    scanner = Scanner.for_places(places, rules, config, (loaded.tier,), tasks)
    if any(item.action == "sqlite" for item in items):  # all of the large tier or none of it
        try:
            large_tier.check_wipeable(paths.agent_dir / rules.data.large.sqlite.store)
        except (Unsafe, OSError) as exc:
            raise Refused(f"{getattr(exc, 'reason', None) or exc}; nothing was changed",
                          hint="stop OpenClaw (and keep backups as copies, not hard links), then run it again") from None
    try:
        snapshot_space(places.snapshots, sum(copy_size(item, paths, rules) for item in items))
        writer = SnapshotWriter(places.snapshots, tier=loaded.tier, plan_id=loaded.plan_id, trigger=trigger,
                                operator=operator, workspace=str(places.workspace.path))
    except (NoSpace, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno not in NO_SPACE:
            raise
        reason = exc.reason if isinstance(exc, NoSpace) else f"no space for the snapshot ({exc.strerror})"
        raise Refused(f"{reason}; nothing was changed", where=str(places.snapshots.path),
                      hint="free some space (or set autophagy.snapshot_dir to a roomier place), then run it again") from None
    snapshot_rel: str | None = places.shown(writer.path)
    ready: list[tuple[Item, list[Item]]] = []
    failure: str | None = None
    deleting = False
    try:
        for item in items:  # 1. re-qualify and copy everything into the snapshot
            root = roots[item.root]
            try:
                _st, fresh = requalify(scanner, root, item, loaded.tier)
                snapshot_item(writer, root, item, fresh, paths, rules)
                ready.append((item, fresh))
            except Unsafe as exc:
                run.skip(item, exc.reason, exc.reason_zh)
            except OSError as exc:
                if exc.errno in NO_SPACE:
                    raise
                run.skip(item, *msg.os_error(exc))
        if loaded.tier == "large":
            add_summary(writer, ready, paths, config)
        writer.seal()
        deleting = True
        delete(run, ready, roots, rules, paths)  # 2. remove, each re-checked right before
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
