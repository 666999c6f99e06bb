"""``apollo hook``: the entry points that agents' hooks call (installed by ``apollo install``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from apollo.cli.common import VerboseOpt, WorkspaceOpt, run

app = typer.Typer(help="Entry points that agents' hooks call (installed by `apollo install`).",
                  no_args_is_help=True)


@app.command("precompact")
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


@app.command("sessionstart")
def sessionstart(
    workspace: WorkspaceOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Claude Code SessionStart hook (matcher compact): gives Claude back, as additionalContext, the
    decisions, preferences, tasks and open questions the PreCompact hook saved. Always exits 0."""
    from apollo.integration.claude_code import sessionstart_main

    hook_json = sys.stdin.buffer.read().decode("utf-8", "replace")
    raise typer.Exit(sessionstart_main(hook_json, workspace=workspace, verbose=verbose))


@app.command("session")
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
