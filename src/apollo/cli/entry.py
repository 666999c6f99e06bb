"""Console-script entry point; imports the CLI lazily so a heartbeat costs little."""

from __future__ import annotations


def main() -> None:
    from apollo.cli.app import app

    app()
