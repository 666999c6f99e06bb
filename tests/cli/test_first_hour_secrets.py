"""Issue 13, secrets: keys users paste never reach, in clear, a file Apollo writes for itself; all of
them are owner-only (0600 files in 0700 folders) and Apollo's folders ignore themselves in git."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from cli.openclaw_home import OpenClawHome, chat
from test_redact import pem_block, real_keys, survives

MAIN = "6fffe193-0000-4000-8000-000000000001"


def _secrets() -> list[str]:
    keys = real_keys(11)
    return [*keys.values(), pem_block(5), "Tr0ub4dor-and-3xyz"]


def _home_with_pasted_keys(tmp_path: Path) -> OpenClawHome:
    """A session whose decisions carry every key format (so the snapshot keeps them), in English
    and Chinese prose, in code and in a URL."""
    keys = real_keys(11)
    home = OpenClawHome(tmp_path / "oc")
    turns = chat(30)
    turns += [
        (f"决定：把所有agent的API key都改成：{keys['hex api key']}", "好的，已记下：所有 agent 使用新的 API key。"),
        (f"We decided: OpenAI keys are {keys['openai legacy']} and {keys['openai project']} from now on.",
         "Noted, decision recorded."),
        (f"Decision: use the Anthropic key {keys['anthropic']} for the summariser.", "Understood."),
        (f"We decided to deploy with GITHUB_TOKEN={keys['github']} and AWS {keys['aws key id']} / "
         f"{keys['aws secret']}", "OK, decided."),
        ("Decision: the database is postgres://admin:Tr0ub4dor-and-3xyz@db.internal:5432/app", "Recorded."),
        (f"We decided to keep this deploy key:\n{pem_block(5)}\nin the vault.", "Decision noted."),
    ]
    turns += chat(5, "let us carry on with the migration")
    home.add(MAIN, turns)
    home.index({"agent:main:main": (MAIN, 1_790_000_000_000)})
    return home


def _apollo_files(root: Path) -> list[Path]:
    """What Apollo wrote for itself under ``root``: its folders, but not the filtered copy of the
    conversation (the user's own output, kept loadable by the agent: private and git-ignored)."""
    found = []
    for folder in (".renal", ".apollo", ".autophagy"):
        found += [p for p in (root / folder).rglob("*") if p.is_file() and "filtered" not in p.relative_to(root).parts]
    return found


def test_no_pasted_secret_survives_in_anything_apollo_writes_for_itself(apollo_cli, tmp_path: Path) -> None:
    home = _home_with_pasted_keys(tmp_path)
    page = tmp_path / "report.html"
    for command in (["renal", "filter"], ["renal", "check"], ["heartbeat"],
                    ["renal", "report", "--html", str(page)]):
        run = apollo_cli(*command, *home.where(), "--lang", "en")
        assert run.returncode == 0, (command, run.stderr)
    written = [*_apollo_files(home.workspace), page]
    snapshots = list((home.workspace / ".renal" / "snapshots").glob("*.json"))
    assert snapshots, "the decisions carrying keys were snapshotted"
    assert "[REDACTED " in snapshots[0].read_text(encoding="utf-8") and "[REDACTED " in page.read_text(encoding="utf-8")
    for path in written:
        text = path.read_text(encoding="utf-8")
        for secret in _secrets():
            assert not survives(secret, text), (path, secret[:12])
    assert "把所有agent的API key都改成" in snapshots[0].read_text(encoding="utf-8")  # the talk is still there


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_everything_apollo_writes_is_private_and_git_ignored(apollo_cli, tmp_path: Path) -> None:
    home = _home_with_pasted_keys(tmp_path)
    old = time.time() - 90 * 86400
    for name in ("notes.tmp", "old.bak"):  # old enough for the small tier
        (home.workspace / name).write_text("scratch", encoding="utf-8")
        os.utime(home.workspace / name, (old, old))
    for command in (["renal", "filter"], ["heartbeat"], ["autophagy", "small", "--yes"]):
        run = apollo_cli(*command, *home.where(), "--lang", "en")
        assert run.returncode == 0, (command, run.stdout, run.stderr)
    for folder in (".renal", ".apollo", ".autophagy"):
        root = home.workspace / folder
        assert root.is_dir(), folder
        assert (root / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
        for path in [root, *root.rglob("*")]:
            if path.is_dir():
                assert _mode(path) == 0o700, path
            elif path.relative_to(root).parts[:2] != ("snapshots",) or folder != ".autophagy":
                assert _mode(path) == 0o600, path
    # autophagy snapshots keep the bytes (and modes) of what they saved, for restore; their folders are private
    manifests = list((home.workspace / ".autophagy").rglob("manifest.json"))
    assert manifests and all(_mode(m) == 0o600 for m in manifests)
