"""The README's Python example runs as written, against a copy of the bundled example."""

import re
import subprocess
import sys
from pathlib import Path

from constants import DEMO_NOW, REPO


def python_blocks() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_python_example_runs(example: Path, tmp_path: Path) -> None:
    blocks = python_blocks()
    assert blocks, "the README has a Python example"
    script = tmp_path / "readme_example.py"
    script.write_text(blocks[0], encoding="utf-8")
    env = {"HOME": str(tmp_path), "APOLLO_NOW": DEMO_NOW, "PATH": "/usr/bin:/bin",
           "OPENCLAW_WORKSPACE_DIR": str(example / "workspace"),
           "OPENCLAW_STATE_DIR": str(example / "openclaw-state")}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert any(" decision " in line for line in lines)
    assert (tmp_path / "filtered.jsonl").is_file()
    assert int(lines[-1]) > 0  # the example has small-tier junk
