"""The registry names each format as the format names itself, and loads a format only when needed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from apollo.errors import UsageError
from apollo.transcript import detect, get_format, registry


def test_each_name_is_the_formats_own() -> None:
    assert [registry.load(name).name for name in registry.NAMES] == list(registry.NAMES)
    assert len(set(registry.NAMES)) == len(registry.NAMES)


def test_an_unknown_format_names_the_known_ones() -> None:
    with pytest.raises(UsageError) as raised:
        get_format("yaml")
    assert all(name in raised.value.line() for name in registry.NAMES)


def test_detecting_an_openclaw_session_loads_no_other_format(example: Path) -> None:
    session = next((example / "openclaw-state" / "agents" / "main" / "sessions").glob("*.jsonl"))
    assert detect(session).name == "openclaw"
    probe = ("import sys; from pathlib import Path; from apollo.transcript import detect\n"
             "print(detect(Path(sys.argv[1])).name)\n"
             "print(' '.join(sorted(m for m in sys.modules if m.startswith(('apollo.transcript.', 'sqlite3')))))")
    done = subprocess.run([sys.executable, "-c", probe, str(session)], capture_output=True, text=True, check=True)
    name, modules = done.stdout.splitlines()
    assert name == "openclaw"
    assert {"apollo.transcript.claude_code", "apollo.transcript.openai", "apollo.transcript.markdown",
            "apollo.transcript.jsonl", "sqlite3"} & set(modules.split()) == set()
