"""``apollo heartbeat``, ``route``, ``install``, ``hook`` and ``mcp``: Apollo inside the agents people use."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from apollo.cli.common import (
    AgentOpt,
    JsonOpt,
    LangOpt,
    QuietOpt,
    StateDirOpt,
    VerboseOpt,
    WorkspaceOpt,
    make_env,
    run,
)


def register(app: typer.Typer) -> None:
    @app.command("heartbeat")
    def heartbeat(
        workspace: WorkspaceOpt = None,
        state_dir: StateDirOpt = None,
        agent: AgentOpt = "main",
        session: Annotated[str | None, typer.Option(
            "--session", "-s", help="Which session: an id or unique prefix among the agent's sessions "
                                    "\\[default: the current one, as `renal check` finds it].",
            show_default=False)] = None,
        json_out: JsonOpt = False,
        lang: LangOpt = None,
        quiet: QuietOpt = False,
        verbose: VerboseOpt = False,
    ) -> None:
        """Run on every agent heartbeat: renal check, snapshot purge, one status line.

        Writes .renal/filter-state.json and merges a `renal` section into the heartbeat state
        file (config heartbeat.state_file). Exits 0 whether or not filtering is needed. The one
        line is all it prints, so -q changes nothing (it is accepted as everywhere).
        """
        from apollo.integration.heartbeat import main as heartbeat_main

        raise typer.Exit(heartbeat_main(workspace=workspace, state_dir=state_dir, agent=agent, session=session, json_out=json_out,
                                        lang=lang, verbose=verbose))

    @app.command("route")
    def route(
        text: Annotated[str, typer.Argument(help="What the user said ('-' reads it from stdin).",
                                            show_default=False)] = "",
        token_usage: Annotated[str | None, typer.Option(
            "--token-usage", help="Share of the context window in use: 0.93, 93 or 93%.", show_default=False)] = None,
        workspace: WorkspaceOpt = None,
        json_out: JsonOpt = False,
        lang: LangOpt = None,
        quiet: QuietOpt = False,
        verbose: VerboseOpt = False,
    ) -> None:
        """Which system and tier a user's request calls for, and the confirmation it needs.

        Priority autophagy > renal > dream; token usage above 90%/95% adds warnings and never
        suggests a destructive tier by itself. --json prints
        {"system", "tier", "confirmation", "warnings", "reason"}; -q leaves out the reason.
        """

        def body() -> None:
            from apollo.integration.route import decide_with_config, parse_usage

            env = make_env(workspace=workspace, json_out=json_out, lang=lang, quiet=quiet, verbose=verbose)
            said = sys.stdin.read() if text == "-" else text
            decision = decide_with_config(said, parse_usage(token_usage), env.config, env.lang)
            if json_out:
                env.emit(decision.to_dict())
                return
            zh = env.lang == "zh"
            tier = f" · {decision.tier}" if decision.tier else ""
            env.out(f"{'系统' if zh else 'system'}: {decision.system}{tier} · "
                    f"{'确认' if zh else 'confirmation'}: {decision.confirmation}")
            env.info(f"{'原因' if zh else 'reason'}: {decision.reason}")
            for warning in decision.warnings:
                env.out(f"⚠️  {warning}")

        run(body, verbose=verbose)

    @app.command("install")
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

    hook_app = typer.Typer(help="Entry points that agents' hooks call (installed by `apollo install`).",
                           no_args_is_help=True)
    app.add_typer(hook_app, name="hook")

    @hook_app.command("precompact")
    def precompact(
        workspace: WorkspaceOpt = None,
        verbose: VerboseOpt = False,
    ) -> None:
        """Claude Code PreCompact hook: reads the hook's JSON on stdin and writes renal's snapshot of
        the important content (decisions, preferences, tasks, open questions) before compaction.

        Never blocks the compaction: exits 0 even when the snapshot cannot be written (the reason
        goes to stderr).
        """
        from apollo.integration.claude_code import precompact_main

        hook_json = sys.stdin.buffer.read().decode("utf-8", "replace")  # bad bytes: a clear error, not a traceback
        raise typer.Exit(precompact_main(hook_json, workspace=workspace, verbose=verbose))

    @hook_app.command("sessionstart")
    def sessionstart(
        workspace: WorkspaceOpt = None,
        verbose: VerboseOpt = False,
    ) -> None:
        """Claude Code SessionStart hook (matcher compact): gives Claude back, as additionalContext, the
        decisions, preferences, tasks and open questions the PreCompact hook saved. Always exits 0."""
        from apollo.integration.claude_code import sessionstart_main

        hook_json = sys.stdin.buffer.read().decode("utf-8", "replace")
        raise typer.Exit(sessionstart_main(hook_json, workspace=workspace, verbose=verbose))

    @hook_app.command("session")
    def session(
        project: Annotated[Path | None, typer.Option("--project", help="The project folder [default: here].",
                                                     show_default=False)] = None,
        verbose: VerboseOpt = False,
    ) -> None:
        """Print the transcript path of the Claude Code session running in this folder (for /renal)."""

        def body() -> None:
            from apollo.integration.claude_code import current_transcript

            print(current_transcript(project or Path.cwd()))

        run(body, verbose=verbose)

    engine_app = typer.Typer(help="Apollo's OpenClaw context engine (the plugin starts it; see docs/integration.md).",
                             no_args_is_help=True)
    app.add_typer(engine_app, name="engine")

    @engine_app.command("serve")
    def engine_serve(
        state_dir: StateDirOpt = None,
        workspace: Annotated[Path | None, typer.Option(
            "--workspace", "-w", help="Workspace whose .apollo/config.toml applies [default: none].",
            show_default=False, file_okay=False)] = None,
        verbose: VerboseOpt = False,
    ) -> None:
        """Serve the context-engine plugin over stdio (JSON lines) until stdin closes.

        Keeps each session's fates in <state-dir>/apollo/engine.sqlite. Started by the plugin that
        `apollo install --context-engine` selects; not meant to be run by hand.
        """
        from apollo.integration.engine_serve import serve
        from apollo.workspace import resolve_state_dir

        def body() -> None:
            raise typer.Exit(serve(resolve_state_dir(state_dir), workspace))

        run(body, verbose=verbose)

    @app.command("mcp")
    def mcp(
        workspace: WorkspaceOpt = None,
        state_dir: StateDirOpt = None,
        agent: AgentOpt = "main",
        lang: LangOpt = None,
        verbose: VerboseOpt = False,
    ) -> None:
        """Serve renal and autophagy as Model Context Protocol tools over stdio.

        Tools: renal_check, renal_filter, renal_classify, renal_recall, autophagy_status, autophagy_plan,
        autophagy_execute (a plan id, and for large the phrase 确认大自噬: the user's confirmation
        cannot be skipped). Needs the `mcp` extra: pip install 'apollo-hygiene[mcp]'. --lang sets the
        language of the tools' report lines; stdout is the protocol, so there is no --json or -q.
        """

        def body() -> None:
            from apollo.integration.mcp_server import serve

            env = make_env(workspace=workspace, state_dir=state_dir, agent=agent, lang=lang, verbose=verbose)
            serve(env.paths, env.config, env.lang)

        run(body, verbose=verbose)
