"""``apollo demo``: Apollo's main job on a fresh copy of the bundled example workspace."""

from __future__ import annotations

import typer

from apollo.cli.common import not_built


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo() -> None:
        """Copy the example workspace to a temporary folder and run renal and autophagy on it."""
        not_built("demo", 2)
