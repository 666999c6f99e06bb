"""``apollo heartbeat``, ``route``, ``install`` and ``mcp``: Apollo inside the agents people use."""

from __future__ import annotations

import typer

from apollo.cli.common import not_built


def register(app: typer.Typer) -> None:
    @app.command("heartbeat")
    def heartbeat() -> None:
        """Run on every agent heartbeat: renal check, snapshot purge, one status line."""
        not_built("heartbeat", 7)

    @app.command("route")
    def route() -> None:
        """Which system and tier a user's request calls for."""
        not_built("route", 7)

    @app.command("install")
    def install() -> None:
        """Install Apollo's skills into an OpenClaw workspace (or hooks into Claude Code)."""
        not_built("install", 7)
