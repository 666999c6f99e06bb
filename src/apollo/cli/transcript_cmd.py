"""``apollo transcript``: look at a transcript as Apollo reads it."""

from __future__ import annotations

import typer

from apollo.cli.common import not_built

app = typer.Typer(help="Read transcripts in every supported format.", no_args_is_help=True)


@app.command("show")
def show() -> None:
    """The elements of a transcript with kinds, roles and token counts."""
    not_built("transcript show", 3)
