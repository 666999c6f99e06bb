"""``apollo autophagy``: tiered destructive cleanup behind plans, confirmation, snapshots and a log."""

from __future__ import annotations

import typer

from apollo.cli.common import not_built

app = typer.Typer(help="autophagy: tiered cleanup with confirmation, snapshot, restore and log.",
                  no_args_is_help=True)


@app.command("status")
def status() -> None:
    """What each tier would remove (read-only)."""
    not_built("autophagy status", 6)
