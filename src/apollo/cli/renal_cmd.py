"""``apollo renal``: classify, check and filter a transcript (non-destructive)."""

from __future__ import annotations

import typer

from apollo.cli.common import not_built

app = typer.Typer(help="renal: classify, check and filter the context without destroying anything.",
                  no_args_is_help=True)


@app.command("classify")
def classify() -> None:
    """Classify every element of a transcript."""
    not_built("renal classify", 4)


@app.command("check")
def check() -> None:
    """Measure the current context (the heartbeat check)."""
    not_built("renal check", 4)


@app.command("filter")
def filter_() -> None:
    """Filter a transcript: keep what matters, concentrate repetition, drop noise."""
    not_built("renal filter", 5)
