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
            _end(code)
    from apollo.cli.app import app

    app()


def _end(code: int) -> None:
    """End the heartbeat's process without the interpreter's teardown: freeing its objects and
    modules one by one costs a tenth of a heartbeat, and the system takes the memory back at once.
    What a normal exit would still do is done first: the disk caches written, the output flushed."""
    import os

    from apollo.cache import save_all

    save_all()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`apollo heartbeat | head -1`) has what it wanted
            pass
    os._exit(code)


def pinned_cli(argv: list[str]) -> None:
    """Run ``apollo argv[1:]`` with the clock pinned to ``argv[0]`` (:data:`apollo.demo.PINNED`)."""
    from apollo import clock

    clock.pin(argv[0])
    sys.argv = ["apollo", *argv[1:]]
    main()
