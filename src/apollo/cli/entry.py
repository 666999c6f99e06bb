"""Console-script entry point; imports the CLI lazily so a heartbeat costs little."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["heartbeat"]:
        # Runs every 30 minutes: answered without importing typer/rich when the options are plain.
        from apollo.integration.heartbeat import fast_main

        code = fast_main(sys.argv[2:])
        if code is not None:
            sys.exit(code)
    from apollo.cli.app import app

    app()


def pinned_cli(argv: list[str]) -> None:
    """Run ``apollo argv[1:]`` with the clock pinned to ``argv[0]`` (:data:`apollo.demo.PINNED`)."""
    from apollo import clock

    clock.pin(argv[0])
    sys.argv = ["apollo", *argv[1:]]
    main()
