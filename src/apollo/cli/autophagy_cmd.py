"""``apollo autophagy``: tiered destructive cleanup behind plans, confirmation, snapshots and a log.

A thin layer over :mod:`apollo.autophagy.api`. Exit codes: 0 done (or nothing to do), 1 error,
2 usage, 3 confirmation required (nothing was changed), 4 refused (sub-agent, lock held,
OpenClaw running).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from apollo.cli.common import (
    Env,
    Shared,
    with_env,
)
from apollo.errors import ConfirmationRequired
from apollo.workspace import absolute_paths

app = typer.Typer(help="autophagy: tiered cleanup with confirmation, snapshot, restore and log.",
                  no_args_is_help=True)

ActorOpt = Annotated[str | None, typer.Option(
    "--as", help="Who is asking: main or subagent (default: $APOLLO_ACTOR, else main). A sub-agent may run "
                 "only status and small.", show_default=False)]


def _console():
    from rich.console import Console

    return Console(highlight=False)


def _interactive(env: Env) -> bool:
    return not env.json and sys.stdin.isatty() and sys.stdout.isatty()


def _show(env: Env, data: dict[str, Any], text: Callable[..., str], *args: Any) -> None:
    """The JSON document for machines; for people ``text(*args, lang, brief=-q)``; every path in
    either absolute (they paste back from any folder)."""
    data = absolute_paths(data, env.workspace)
    args = tuple(absolute_paths(arg, env.workspace) for arg in args)
    if env.json:
        env.emit(data)
    else:
        env.out(text(*args, env.lang, brief=env.quiet))


def _finish(env: Env, result: dict[str, Any]) -> None:
    from apollo.autophagy.report import report

    _show(env, dict(result), report, result)


def _nothing(env: Env, tier: str, plan: Any) -> None:
    """An empty plan: nothing done, and what was left alone and why."""
    from apollo.autophagy.plan import in_language
    from apollo.autophagy.report import nothing_text

    data = {"tier": tier, "deleted": [], "skipped": [], "snapshot": None, "log": None,
            "kept": plan.to_public(env.lang)["protected"],
            "not_examined": [in_language(note, env.lang) for note in plan.notes]}
    _show(env, data, nothing_text, data)


def _where(env: Env) -> str:
    """The options that name this workspace, state dir and agent again, from any folder (none when
    they are the defaults): a confirmation command must act on the plan's own workspace."""
    import shlex

    from apollo.workspace import resolve_state_dir, resolve_workspace

    words = []
    if env.paths.workspace != resolve_workspace(None):
        words += ["--workspace", str(env.paths.workspace)]
    if env.paths.state_dir != resolve_state_dir(None):
        words += ["--state-dir", str(env.paths.state_dir)]
    if env.paths.agent != "main":
        words += ["--agent", env.paths.agent]
    return "".join(f" {shlex.quote(word)}" for word in words)


def _need_confirmation(env: Env, plan: Any, hint_zh: str, hint_en: str) -> None:
    """Print the plan (JSON for machines) and stop with exit code 3: nothing was changed. The
    plan's last line says how to confirm; said once (with --json, the error line says it)."""
    from apollo.autophagy.report import plan_text

    hint = hint_zh if env.lang == "zh" else hint_en
    if env.json:
        env.emit(absolute_paths(plan.to_public(env.lang), env.workspace))
        raise ConfirmationRequired("nothing was changed: confirmation required", hint=hint)
    env.out(plan_text(plan, env.lang, confirm_hint=hint, root=env.workspace))
    raise typer.Exit(ConfirmationRequired.exit_code)


@app.command("status")
@with_env
def status(
    shared: Shared,
    actor: ActorOpt = None,
) -> None:
    """What each tier would remove, what is kept, snapshots, the last log entry (read-only).

    For each tier: count, size, examples (-q: one line per tier). With --json: {"workspace", "state_dir", "agent", "tiers": {"small"|"medium"|"large":
    {"risk", "count", "bytes", "kinds", "examples", "suggested"}}, "protected", "notes", "tasks",
    "snapshots", "last_log"}.
    """
    from apollo.autophagy import api
    from apollo.autophagy.report import status_text

    api.resolve_actor(actor)
    env = shared.env()
    data = api.status(env.paths, env.config)
    _show(env, data, status_text, data)


@app.command("small")
@with_env
def small(
    shared: Shared,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="The user asked for it: run without asking "
                                                          "(for agents passing the user's request on).")] = False,
    actor: ActorOpt = None,
) -> None:
    """Tier 1 🟢 temp files, caches, build output, backups, old logs and heartbeat-log entries.

    Heartbeat-log entries go when older than 30 days; logs when not written for 24 hours; nothing
    modified in the last hour is touched. On a terminal: shows the plan and asks y/N. --yes: runs at once. Without a terminal and
    without --yes: changes nothing, prints the plan and exits 3. Every run takes a snapshot first.
    -q: the report of a run is one line (a plan waiting for confirmation is always shown in full).
    """
    from apollo.autophagy import api

    who = api.resolve_actor(actor)
    env = shared.env()
    operator = "子代理（转达用户请求）" if who == "subagent" else "用户确认"
    if yes:
        plan, result = api.run_now(env.paths, env.config, "small", actor=who, lang=env.lang,
                                   operator=operator if who == "subagent" else "用户请求（--yes）")
        if result is None:
            _nothing(env, "small", plan)
        else:
            _finish(env, result)
        return
    plan = api.plan(env.paths, env.config, "small", actor=who)
    if not plan.items:
        _nothing(env, "small", plan)
        return
    if not _interactive(env):
        command = f"apollo autophagy small --yes{_where(env)}"
        _need_confirmation(env, plan, f"未确认，没有任何改动。确认后运行：{command}",
                           f"Nothing was changed. To run it: {command}")
    from rich.prompt import Confirm

    from apollo.autophagy.report import plan_text

    console = _console()
    env.out(plan_text(plan, env.lang, root=env.workspace))
    if not Confirm.ask("确认删除以上内容？" if env.lang == "zh" else "Remove these?", default=False,
                       console=console):
        raise ConfirmationRequired("nothing was changed: not confirmed")
    _finish(env, api.execute(env.paths, env.config, plan.plan_id, actor=who, lang=env.lang, operator=operator,
                             tier="small"))


def _ids(values: list[str] | None) -> list[str]:
    return [part.strip() for value in values or [] for part in value.replace(",", " ").split() if part.strip()]


@app.command("medium")
@with_env
def medium(
    shared: Shared,
    select: Annotated[list[str] | None, typer.Option(
        "--select", help="Only these item IDs (repeatable, or comma-separated); suggestions included.",
        show_default=False)] = None,
    include_suggested: Annotated[bool, typer.Option(
        "--include-suggested", help="Also remove the suggested (superseded) memory entries.")] = False,
    confirm: Annotated[str | None, typer.Option(
        "--confirm", metavar="PLAN_ID", help="Execute exactly this plan.", show_default=False)] = None,
    actor: ActorOpt = None,
) -> None:
    """Tier 2 🟡 corrupted files, broken links, outdated memory entries, expired reminders.

    Without --confirm: writes a plan (.autophagy/plans/<id>.json, valid 30 minutes), prints it and
    exits 3 (on a terminal it asks). --confirm PLAN_ID executes exactly that plan; --select limits it.
    Main agent only.
    """
    from apollo.autophagy import api

    who = api.resolve_actor(actor)
    env = shared.env()
    chosen = _ids(select)
    if confirm:
        _finish(env, api.execute(env.paths, env.config, confirm, chosen or None, actor=who,
                                 include_suggested=include_suggested, lang=env.lang, tier="medium"))
        return
    plan = api.plan(env.paths, env.config, "medium", actor=who)
    if not plan.items:
        _nothing(env, "medium", plan)
        return
    extra = "".join(f" --select {i}" for i in chosen) + (" --include-suggested" if include_suggested else "")
    command = f"apollo autophagy medium --confirm {plan.plan_id}{extra}{_where(env)}"
    if not _interactive(env):
        _need_confirmation(env, plan, f"未确认，没有任何改动。确认（30 分钟内）：{command}",
                           f"Nothing was changed. To confirm (within 30 minutes): {command}")
    from rich.prompt import Prompt

    from apollo.autophagy.report import plan_text

    console = _console()
    env.out(plan_text(plan, env.lang, root=env.workspace))
    answer = Prompt.ask("删除哪些？all = 全部（不含建议），或输入 ID，回车 = 不删" if env.lang == "zh" else
                        "Remove which? all = every item (no suggestions), or IDs; Enter = none",
                        default="", console=console).strip()
    if not answer or answer.lower() in ("n", "no", "none"):
        raise ConfirmationRequired("nothing was changed: not confirmed")
    ids = None if answer.lower() in ("all", "y", "yes") else _ids([answer])
    _finish(env, api.execute(env.paths, env.config, plan.plan_id, ids or chosen or None, actor=who,
                             include_suggested=include_suggested, lang=env.lang, tier="medium"))


@app.command("large")
@with_env
def large(
    shared: Shared,
    confirm: Annotated[str | None, typer.Option(
        "--confirm", metavar="PLAN_ID", help="First confirmation: the plan id.", show_default=False)] = None,
    confirm_phrase: Annotated[str | None, typer.Option(
        "--confirm-phrase", help="Second confirmation: type 确认大自噬.", show_default=False)] = None,
    actor: ActorOpt = None,
) -> None:
    """Tier 3 🔴 the agent's whole conversation context (double confirmation).

    Session transcripts, sessions.json (left as an empty {}), the SQLite session store. Needs both
    --confirm PLAN_ID and --confirm-phrase 确认大自噬, and a human behind the phrase: the user's own
    latest message in the current session says "确认大自噬 CODE" (CODE: the plan's four-character
    code), or a person types it at this terminal when asked. Either confirmation alone changes nothing. Refused while
    OpenClaw runs. Never automatic; main agent only.
    """
    from apollo.autophagy import api, human
    from apollo.autophagy.rules import load

    who = api.resolve_actor(actor)
    env = shared.env()
    phrase = load(env.config).data.large.phrase
    if confirm and confirm_phrase:  # a command line proves no human: their message, or typing it here
        at_terminal = False
        if _interactive(env) and not human.user_confirmed(env.paths, phrase, confirm):
            from rich.prompt import Prompt

            said = human.words(phrase, confirm)
            typed = Prompt.ask(f"第二次确认：输入 {said}" if env.lang == "zh" else f"Second confirmation: type {said}",
                               default="", console=_console())
            at_terminal = human.same_words(typed, phrase, confirm)
        _finish(env, api.execute(env.paths, env.config, confirm, phrase=confirm_phrase, actor=who, lang=env.lang,
                                 tier="large", at_terminal=at_terminal))
        return
    if confirm:
        raise ConfirmationRequired("nothing was changed: the second confirmation is missing",
                                   hint=f"add --confirm-phrase {phrase}")
    plan = api.plan(env.paths, env.config, "large", actor=who)
    if not plan.items:
        _nothing(env, "large", plan)
        return
    command = f"apollo autophagy large --confirm {plan.plan_id} --confirm-phrase {phrase}{_where(env)}"
    said = human.words(phrase, plan.plan_id)
    if not _interactive(env) or confirm_phrase:
        _need_confirmation(env, plan, f"未确认，没有任何改动。这会清空全部会话上下文，只有快照可以找回。需要用户本人在对话中输入"
                                      f"「{said}」（或在终端运行），然后：{command}",
                           f"Nothing was changed. This wipes the whole conversation context; only the snapshot "
                           f"can bring it back. The user types \"{said}\" in their own message (or runs this on a "
                           f"terminal); then: {command}")
    from rich.prompt import Prompt

    from apollo.autophagy.report import plan_text

    console = _console()
    env.out(plan_text(plan, env.lang, root=env.workspace))
    first = Prompt.ask("第一次确认：输入计划 ID" if env.lang == "zh" else "First confirmation: type the plan id",
                       default="", console=console).strip()
    if first != plan.plan_id:
        raise ConfirmationRequired("nothing was changed: the plan id was not confirmed")
    second = Prompt.ask(f"第二次确认：输入 {phrase}" if env.lang == "zh" else f"Second confirmation: type {phrase}",
                        default="", console=console).strip()
    _finish(env, api.execute(env.paths, env.config, plan.plan_id, phrase=second, actor=who, lang=env.lang,
                             tier="large", at_terminal=True))


@app.command("restore")
@with_env
def restore(
    shared: Shared,
    snapshot: Annotated[str, typer.Argument(metavar="SNAPSHOT", help="Snapshot name (see `snapshots`) or "
                                                                     "its path.", show_default=False)],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be restored; change nothing.")] = False,
    actor: ActorOpt = None,
) -> None:
    """Put a snapshot's files back, byte for byte.

    Never overwrites a file (except one that still holds exactly the bytes autophagy left there),
    never follows a symlink, refuses absolute or escaping paths. -q prints only the count line."""
    from apollo.autophagy import api
    from apollo.autophagy.report import restore_text

    who = api.resolve_actor(actor)
    env = shared.env()
    data = api.restore(env.paths, env.config, snapshot, dry_run, actor=who, lang=env.lang)
    _show(env, data, restore_text, data)


@app.command("snapshots")
@with_env
def snapshots(
    shared: Shared,
    purge: Annotated[bool, typer.Option("--purge", help="Remove snapshots older than the retention "
                                                  "(7 days, by the manifest's time).")] = False,
    actor: ActorOpt = None,
) -> None:
    """List the snapshots with their expiry; --purge removes the expired ones now (-q: without
    naming each one it removed)."""
    from apollo.autophagy import api
    from apollo.autophagy.report import snapshots_text

    who = api.resolve_actor(actor)
    env = shared.env()
    purged = None
    if purge:
        from apollo import clock

        api.require_main(who, "autophagy snapshots --purge")
        clock.require_real("purging snapshots")
        purged = [str(p) for p in api.purge_expired_snapshots(env.paths, env.config)]
    listing = api.snapshots(env.paths, env.config)
    _show(env, {"snapshots": listing, **({"purged": purged} if purged is not None else {})}, snapshots_text,
          listing, purged)
