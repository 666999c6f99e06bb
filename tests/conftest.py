"""Fixtures shared by every test area.

Every test runs with HOME, XDG_CONFIG_HOME and the OpenClaw variables pointed into its own
temporary folder, so no test can read or touch the real ~/.openclaw or ~/.config/apollo.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from constants import EXAMPLES

# `pytest -m hypothesis --hypothesis-profile deep`: every property test with twenty times the examples,
# to find before CI does what a lucky random draw there would (a stray “ hiding a question did).
settings.register_profile("deep", max_examples=2000, deadline=None)
# Every run: no deadline. Speed is measured in `make bench`, never in a unit test; a first example that compiles a rule
# set's patterns took 332 ms under a loaded machine and failed a property that holds ("unreliable test timings").
settings.register_profile("untimed", deadline=None)
settings.load_profile("untimed")


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Apollo's cache (compiled rules) for the whole run: every test's processes start warm, as a
    user's do after their first command; tests of the cache itself point elsewhere."""
    return tmp_path_factory.mktemp("apollo-cache")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                  shared_cache: Path) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("APOLLO_CACHE_DIR", str(shared_cache))
    from apollo import clock

    monkeypatch.setattr(clock, "_pinned", None)  # a clock a test pins is released after it
    for var in ("OPENCLAW_WORKSPACE_DIR", "OPENCLAW_STATE_DIR", "OPENCLAW_PROFILE", "APOLLO_CONFIG",
                "APOLLO_NOW", "APOLLO_ACTOR"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(scope="session")
def example_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fresh build of the bundled example (workspace + state dir), shared read-only."""
    dest = tmp_path_factory.mktemp("example")
    subprocess.run([sys.executable, str(EXAMPLES / "make_examples.py"), "--dest", str(dest)], check=True,
                   capture_output=True)
    return dest


@pytest.fixture
def example(example_tree: Path, tmp_path: Path) -> Path:
    """A private, writable copy of the example tree (``workspace/`` and ``openclaw-state/``).

    Copied with symlinks kept as links and mtimes preserved, so time-based rules see the
    example's ages.
    """
    dest = tmp_path / "example"
    shutil.copytree(example_tree, dest, symlinks=True)
    return dest


@pytest.fixture
def apollo_cli(monkeypatch: pytest.MonkeyPatch):
    """Run the real ``apollo`` console script in a subprocess; returns CompletedProcess. ``now``
    pins its clock in code (APOLLO_NOW never decides a real deletion)."""
    from apollo.demo import PINNED

    def call(*args: str, env: dict[str, str] | None = None, input: str | None = None, cwd: Path | None = None,
             now: str | None = None):
        full_env = dict(os.environ)
        full_env.update(env or {})
        program = [sys.executable, "-c", PINNED, now] if now else [str(Path(sys.executable).parent / "apollo")]
        return subprocess.run([*program, *args], capture_output=True, text=True, env=full_env, input=input,
                              cwd=cwd, timeout=300)

    return call


# --- Real agent loaders (issue #3; see tests/realclient/support.py) --------------------------------
# pi_validate / pi_replay run our output through the real pi-coding-agent 0.73.1; openclaw_cli runs
# the real openclaw 2026.9.6 (Node 24) offline. Installed into .cache/node/ on first use.
from realclient.support import openclaw_cli, pi_package, pi_replay, pi_validate  # noqa: E402, F401
