"""``apollo mcp``: renal and autophagy as Model Context Protocol tools."""

from __future__ import annotations

import typer

from apollo.cli.common import AgentOpt, LangOpt, StateDirOpt, VerboseOpt, WorkspaceOpt, make_env, run


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


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
