"""``apollo install``: Apollo's skills into an OpenClaw workspace, hooks into Claude Code, or the
context engine into OpenClaw's config."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from apollo.cli.common import JsonOpt, LangOpt, QuietOpt, StateDirOpt, VerboseOpt, WorkspaceOpt, make_env, run


def install(
    workspace: WorkspaceOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Refresh the files Apollo installed (never others).")]
    = False,
    uninstall: Annotated[bool, typer.Option("--uninstall", help="Remove exactly what the install added.")]
    = False,
    claude_code: Annotated[bool, typer.Option(
        "--claude-code", help="Install into Claude Code instead: PreCompact and SessionStart hooks, the /renal command.")]
    = False,
    project: Annotated[Path | None, typer.Option(
        "--project", help="With --claude-code: this project's .claude/ [default: your ~/.claude/].",
        show_default=False)] = None,
    context_engine: Annotated[bool, typer.Option(
        "--context-engine", help="Select Apollo's context engine in OpenClaw's openclaw.json (state dir).")]
    = False,
    state_dir: StateDirOpt = None,
    json_out: JsonOpt = False,
    lang: LangOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Install Apollo's skills into an OpenClaw workspace (or hooks into Claude Code, or the context engine).

    OpenClaw: skills/apollo-renal, skills/apollo-autophagy, scripts/renal/renal-check.sh,
    scripts/autophagy/autophagy.sh and a marked block in HEARTBEAT.md. Idempotent; never
    overwrites a file it did not write; a manifest in .apollo/ lets --uninstall remove
    exactly what was added. --context-engine: loads Apollo's plugin and selects it in
    <state-dir>/openclaw.json (its original bytes are kept; --uninstall puts them back). -q
    prints only the first line (what was installed where).
    """

    def body() -> None:
        from apollo.errors import UsageError
        from apollo.integration import install as install_mod

        if project is not None and not claude_code:
            raise UsageError("--project goes with --claude-code", hint="apollo install --claude-code --project DIR")
        if claude_code and workspace is not None:
            raise UsageError("--workspace is for OpenClaw; Claude Code takes --project",
                             hint="apollo install --claude-code [--project DIR]")
        env = make_env(workspace=workspace, json_out=json_out, lang=lang, quiet=quiet, verbose=verbose)
        if context_engine and (claude_code or workspace is not None):
            raise UsageError("--context-engine goes with --state-dir only",
                             hint="apollo install --context-engine [--state-dir DIR]")
        if state_dir is not None and not context_engine:
            raise UsageError("--state-dir goes with --context-engine", hint="apollo install --context-engine "
                             "--state-dir DIR")
        if context_engine:
            from apollo.workspace import resolve_state_dir

            target = install_mod.context_engine_target(resolve_state_dir(state_dir))
        else:
            target = install_mod.claude_code_target(project) if claude_code else \
                install_mod.openclaw_target(env.workspace)
        report = install_mod.uninstall(target) if uninstall else install_mod.install(target, force=force)
        if json_out:
            env.emit(report.to_dict())
        else:
            headline, *steps = report.lines(env.lang)
            env.out(headline)
            for line in steps:
                env.info(line)
        report.raise_for_problems()

    run(body, verbose=verbose)


def register(app: typer.Typer) -> None:
    app.command("install")(install)
