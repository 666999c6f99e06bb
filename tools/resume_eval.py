"""The heartbeat after growth on real sessions: a resumed check against a whole one.

Usage: python tools/resume_eval.py SESSIONS_DIR [--appended N]
For each ``*.jsonl`` session: check it without its last ``N`` lines (leaving the streams' state, as
a heartbeat does), put the lines back, then check it resumed and whole. Prints, per session, how
many elements the resumed check classified, the CPU time of both, and whether their states agree
(they must: everything but ``checked_at``); the sessions themselves are not printed.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from apollo import config as config_mod
from apollo.renal.check import check
from apollo.workspace import Paths


def _state(result) -> dict:
    return {key: value for key, value in result.to_state().items() if key != "checked_at"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sessions", type=Path)
    parser.add_argument("--appended", type=int, default=3, help="lines appended since the last heartbeat")
    args = parser.parse_args()
    os.environ.setdefault("APOLLO_NOW", "2026-11-29T12:00:00+00:00")
    totals = {"resumed": 0.0, "whole": 0.0, "agree": 0, "sessions": 0}
    for source in sorted(args.sessions.glob("*.jsonl")):
        lines = source.read_bytes().splitlines(keepends=True)
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch)
            (root / "workspace").mkdir()
            paths = Paths.resolve(root / "workspace", root / "state")
            config = config_mod.load(paths.workspace)
            session = root / "session.jsonl"
            session.write_bytes(b"".join(lines[:-args.appended]))
            check(paths, config, session, resume=True)
            session.write_bytes(b"".join(lines))
            started = time.process_time()
            resumed = check(paths, config, session, resume=True)
            middle = time.process_time()
            whole = check(paths, config, session)
            ended = time.process_time()
        agree = _state(resumed) == _state(whole)
        totals["resumed"] += middle - started
        totals["whole"] += ended - middle
        totals["agree"] += agree
        totals["sessions"] += 1
        print(f"{source.stat().st_size / 1000:7.0f} kB {whole.elements:6d} elements: classified {resumed.classified:5d}; "
              f"resumed {1000 * (middle - started):7.1f} ms, whole {1000 * (ended - middle):7.1f} ms, agree={agree}")
    print(f"{totals['sessions']} sessions, {totals['agree']} agree; resumed {1000 * totals['resumed']:.0f} ms, "
          f"whole {1000 * totals['whole']:.0f} ms (CPU)")
    return 0 if totals["agree"] == totals["sessions"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
