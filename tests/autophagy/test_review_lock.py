"""Adversarial review: an unwritten gateway lock whose mtime lies in the future (a clock set back
after it was made) blocks the large tier until the clock passes it: here for about a year."""

from __future__ import annotations

import os
import time

from test_large_tier import legacy  # noqa: F401 - the fixture


def test_an_unwritten_lock_from_the_future_does_not_block_for_ever(legacy) -> None:  # noqa: F811
    ws = legacy
    folder = ws.state / "tmp" / f"openclaw-{os.getuid()}"
    folder.mkdir(parents=True)
    lock = folder / "gateway.8f1eeb69.lock"
    lock.write_text("")
    future = time.time() + 365 * 24 * 3600
    os.utime(lock, (future, future))
    assert ws.plan("large").items
