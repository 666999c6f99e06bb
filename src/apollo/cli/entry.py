"""Console-script entry point; imports the CLI lazily so a heartbeat costs little."""

from __future__ import annotations

import gc
import sys


def main() -> None:
    if sys.argv[1:2] == ["heartbeat"]:
        # The cycle collector would pass over the ~20,000 objects the imports create some thirty
        # times (~5 ms, a third of the interpreter's start) to free a few hundred: a heartbeat's
        # objects go with their last reference. It still runs, per 50,000 new objects, not 700.
        gc.set_threshold(50_000)
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
