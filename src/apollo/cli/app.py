"""The root ``apollo`` app: every command family registers here, from its own module."""

from __future__ import annotations

from typing import Annotated

import typer

from apollo import __version__
from apollo.cli import (
    autophagy_cmd,
    config_cmd,
    demo_cmd,
    engine_cmd,
    heartbeat_cmd,
    hook_cmd,
    install_cmd,
    mcp_cmd,
    renal_cmd,
    route_cmd,
    transcript_cmd,
)

app = typer.Typer(
    name="apollo",
    help="Keep an AI agent's working memory healthy: renal filters the context, autophagy cleans up.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"apollo {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Apollo: context hygiene for AI agents (OpenClaw, Claude Code, any OpenAI-style agent)."""


app.add_typer(renal_cmd.app, name="renal")
app.add_typer(autophagy_cmd.app, name="autophagy")
app.add_typer(transcript_cmd.app, name="transcript")
app.add_typer(config_cmd.app, name="config")
heartbeat_cmd.register(app)
route_cmd.register(app)
install_cmd.register(app)
app.add_typer(hook_cmd.app, name="hook")
app.add_typer(engine_cmd.app, name="engine")
mcp_cmd.register(app)
demo_cmd.register(app)
