"""``apollo engine``: Apollo's OpenClaw context engine, served to the plugin that starts it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from apollo.cli.common import StateDirOpt, VerboseOpt, run

app = typer.Typer(help="Apollo's OpenClaw context engine (the plugin starts it; see docs/integration.md).",
                  no_args_is_help=True)


@app.command("serve")
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
