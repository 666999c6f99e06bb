"""``apollo heartbeat``: what an agent runs on every heartbeat."""

from __future__ import annotations

from typing import Annotated

import typer

from apollo.cli.common import AgentOpt, JsonOpt, LangOpt, QuietOpt, StateDirOpt, VerboseOpt, WorkspaceOpt


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


def register(app: typer.Typer) -> None:
    app.command("heartbeat")(heartbeat)
