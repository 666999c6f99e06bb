"""One measured operation, run in its own process by the bench runner.

``python -m bench.child TASK ARGS...`` imports what the task needs, then times only the
operation and prints ``{"seconds": s}``; the parent reads the process's peak memory from
``wait4``. A component that has not landed yet exits with :data:`NOT_BUILT` and names the
missing piece, so the table says "n/a (not built)" instead of a made-up figure.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

NOT_BUILT = 10


def _contract(module: str, name: str) -> Callable:
    """``module.name`` from the architecture contract, or exit NOT_BUILT saying which is missing."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        print(json.dumps({"not_built": f"{module}.{name}", "detail": str(exc)}))
        raise SystemExit(NOT_BUILT) from None


def _parse(source: str) -> Callable[[], object]:
    """The reference: read the file line by line and parse every line with orjson, nothing else."""
    import orjson

    def run() -> int:
        lines = 0
        with open(source, "rb") as handle:
            for raw in handle:
                if raw.strip():
                    orjson.loads(raw)
                    lines += 1
        return lines

    return run


def _paths_and_config(workspace: str, state_dir: str):
    from apollo import config
    from apollo.workspace import Paths

    paths = Paths.resolve(Path(workspace), Path(state_dir))
    return paths, config.load(paths.workspace)


def _check(source: str, workspace: str, state_dir: str) -> Callable[[], object]:
    check = _contract("apollo.renal.check", "check")
    # what check() imports on its first call (so that a heartbeat answered from its memo needs
    # none of it) is start-up, not the check: imported here, untimed, like the filter's modules
    for module in ("apollo.renal.classify", "apollo.renal.fates", "apollo.transcript.openclaw"):
        importlib.import_module(module)
    paths, config = _paths_and_config(workspace, state_dir)
    return lambda: check(paths, config, source=Path(source))


def _filter(source: str, workspace: str, output: str) -> Callable[[], object]:
    filter_path = _contract("apollo.renal.filter", "filter_path")
    from apollo import config

    loaded = config.load(Path(workspace))
    # the bench rewrites its own scratch output on every repeat
    return lambda: filter_path(Path(source), "auto", loaded, output=Path(output), overwrite=True)


def _filter_budget(source: str, workspace: str, output: str, ratio: str) -> Callable[[], object]:
    filter_path = _contract("apollo.renal.filter", "filter_path")
    from apollo import config

    loaded = config.load(Path(workspace))
    return lambda: filter_path(Path(source), "auto", loaded, keep_ratio=float(ratio), output=Path(output),
                               overwrite=True)


def _status(workspace: str, state_dir: str) -> Callable[[], object]:
    status = _contract("apollo.autophagy.api", "status")
    paths, config = _paths_and_config(workspace, state_dir)
    return lambda: status(paths, config)


TASKS: dict[str, Callable[..., Callable[[], object]]] = {
    "parse": _parse, "check": _check, "filter": _filter, "filter-budget": _filter_budget, "status": _status,
}


def main(argv: list[str]) -> None:
    task, *args = argv
    operation = TASKS[task](*args)
    start = time.perf_counter()
    operation()
    print(json.dumps({"seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    main(sys.argv[1:])
