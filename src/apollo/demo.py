"""The demo: Apollo's main job, end to end, on a fresh copy of the bundled example.

It builds the example workspace and state dir into a new temporary folder (never the real
``~/.openclaw``), pins the clock (in code, see :data:`PINNED`) so time-based rules give the same answer every day, and
runs the commands a user would type, showing each command and its real output.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from apollo.errors import InputError

DEMO_NOW = "2026-11-29T12:00:00+08:00"
#: ``python -c PINNED <ISO time> <apollo arguments>``: the CLI with its clock pinned in code (see
#: :mod:`apollo.clock`: APOLLO_NOW never decides a real deletion); for the demo and the tests
PINNED = "import sys; from apollo.cli.entry import pinned_cli; pinned_cli(sys.argv[1:])"


def find_examples() -> Path:
    """The example generator next to the source tree (a checkout or an editable install)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "examples" / "make_examples.py"
        if candidate.is_file():
            return candidate.parent
    raise InputError("the bundled example is not installed here",
                     hint="run the demo from a checkout of Apollo (make demo), or pass --examples DIR")


@dataclass
class DemoStep:
    title: str
    args: list[str]
    #: what the command is expected to exit with (3: a plan that waits for confirmation)
    expected: int = 0
    returncode: int = 0
    output: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == self.expected


@dataclass
class DemoRun:
    root: Path
    steps: list[DemoStep] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(step.ok for step in self.steps)

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def state_dir(self) -> Path:
        return self.root / "openclaw-state"


def build_example(examples: Path, dest: Path) -> None:
    subprocess.run([sys.executable, str(examples / "make_examples.py"), "--dest", str(dest)], check=True,
                   capture_output=True, text=True)


def demo_steps(run: DemoRun, lang: str) -> list[DemoStep]:
    """The commands of the demo, in the order a user would run them."""
    where = ["--workspace", str(run.workspace), "--state-dir", str(run.state_dir), "--lang", lang]
    session = run.state_dir / "agents" / "main" / "sessions"
    filtered = run.root / "filtered-session.jsonl"
    return [
        DemoStep("renal: measure the current session (the heartbeat check)", ["renal", "check", *where]),
        DemoStep("renal: filter the current session (rewrite, next to nothing: a new file)",
                 ["renal", "filter", str(_newest_session(session)), "-o", str(filtered),
                  "--workspace", str(run.workspace), "--lang", lang]),
        DemoStep("autophagy: what each tier would remove (read-only)", ["autophagy", "status", *where]),
        DemoStep("autophagy: small cleanup (tier 1), confirmed with --yes", ["autophagy", "small", "--yes", *where]),
        DemoStep("autophagy: medium cleanup plan (tier 2; needs --confirm PLAN_ID to run)",
                 ["autophagy", "medium", *where], expected=3),
    ]


def _newest_session(sessions: Path) -> Path:
    files = sorted(sessions.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    if not files:
        raise InputError("the example has no session", where=str(sessions))
    return files[-1]


def run_demo(*, examples: Path | None = None, dest: Path | None = None, lang: str = "zh",
             on_step: Callable[[DemoStep], None] | None = None) -> DemoRun:
    """Build the example into ``dest`` (a new temp folder by default) and run every step."""
    root = dest or Path(tempfile.mkdtemp(prefix="apollo-demo-"))
    build_example(examples or find_examples(), root)
    run = DemoRun(root)
    env = dict(os.environ, OPENCLAW_WORKSPACE_DIR=str(run.workspace), OPENCLAW_STATE_DIR=str(run.state_dir),
               HOME=str(root / "home"))
    env.pop("APOLLO_NOW", None)
    for step in demo_steps(run, lang):
        done = subprocess.run([sys.executable, "-c", PINNED, DEMO_NOW, *step.args], capture_output=True, text=True,
                              env=env, stdin=subprocess.DEVNULL)
        step.returncode = done.returncode
        step.output = (done.stdout + done.stderr).rstrip()
        run.steps.append(step)
        if on_step:
            on_step(step)
    return run
