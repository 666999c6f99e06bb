"""Values several test areas share. ``tests/`` is on sys.path (pytest's rootdir conftest), so
test modules import this as ``from constants import DEMO_NOW``; never import ``conftest``."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
#: the example workspace's clock (examples/make_examples.py dates everything relative to it)
DEMO_NOW = "2026-11-29T12:00:00+08:00"
