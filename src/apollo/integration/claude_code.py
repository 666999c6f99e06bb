"""Claude Code's PreCompact hook: renal's important-content snapshot, written before Claude Code
summarises the session and the details are gone from its context.

Claude Code runs ``apollo hook precompact`` with the hook's JSON on stdin
(``session_id, transcript_path, cwd, hook_event_name: "PreCompact", trigger: "manual" | "auto",
custom_instructions``). Apollo reads the transcript, classifies it as ``renal filter`` would
(dry run: the transcript is Claude Code's and is never touched), and writes the decisions,
preferences, active tasks and open questions to ``<project>/.renal/snapshots/``. The hook never
blocks a compaction: whatever happens it exits 0, and says what it did in ``systemMessage``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apollo.errors import InputError, failure_line


@dataclass
class PrecompactResult:
    snapshot: Path | None
    counts: dict[str, int]
    trigger: str

    def message(self, lang: str) -> str:
        zh = lang == "zh"
        if self.snapshot is None:
            return ("🫘 apollo-renal：压缩前没有需要保存的重要内容" if zh else
                    "🫘 apollo-renal: nothing important to save before compaction")
        c = self.counts
        if zh:
            return (f"🫘 apollo-renal：压缩前已保存 决策{c.get('decision', 0)}项 / 偏好{c.get('preference', 0)}项 / "
                    f"任务{c.get('task', 0)}项 / 未解决问题{c.get('question', 0)}项 → {self.snapshot}")
        return (f"🫘 apollo-renal: saved {c.get('decision', 0)} decision(s), {c.get('preference', 0)} preference(s), "
                f"{c.get('task', 0)} task(s), {c.get('question', 0)} open question(s) before compaction → "
                f"{self.snapshot}")


def project_slug(cwd: Path) -> str:
    """Claude Code's folder name for a project under ``~/.claude/projects/``: every character
    that is not an ASCII letter or digit becomes ``-`` (long names are cut at 200 and hashed,
    so for those only the prefix is compared)."""
    import re

    return re.sub(r"[^a-zA-Z0-9]", "-", str(cwd))


def current_transcript(cwd: Path, config_dir: Path | None = None) -> Path:
    """The transcript of the Claude Code session running in ``cwd``: the most recently written
    ``<session>.jsonl`` of its project folder (sub-agents' ``agent-*.jsonl`` excepted)."""
    from apollo.integration.install import claude_config_dir

    projects = (config_dir or claude_config_dir()) / "projects"
    slug = project_slug(cwd.expanduser().absolute())
    folders = [projects / slug] if len(slug) <= 200 else sorted(projects.glob(f"{slug[:200]}-*"))
    found = [p for folder in folders if folder.is_dir() for p in folder.glob("*.jsonl")
             if not p.name.startswith("agent-")]
    if not found:
        raise InputError("no Claude Code session for this folder", where=str(projects / slug),
                         hint="run it inside a project where Claude Code has been used, or pass the transcript path")
    return max(found, key=lambda p: p.stat().st_mtime_ns)


def parse_hook_input(text: str) -> dict[str, Any]:
    """The hook's stdin: a JSON object with at least ``transcript_path``."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(f"the hook input is not JSON ({exc})", where="stdin",
                         hint="Claude Code passes the PreCompact hook a JSON object on stdin") from None
    if not isinstance(data, dict) or not isinstance(data.get("transcript_path"), str) or not data["transcript_path"]:
        raise InputError("the hook input has no transcript_path", where="stdin")
    return data


def precompact(hook: dict[str, Any], workspace: Path | None = None) -> PrecompactResult:
    """Write the snapshot for the session in ``hook``; the project (``cwd``) is the workspace."""
    from apollo import config as config_mod
    from apollo.renal import snapshot
    from apollo.renal.filter import filter_path

    root = (workspace or Path(hook.get("cwd") or Path.cwd())).expanduser().absolute()
    config = config_mod.load(root)
    transcript = Path(hook["transcript_path"]).expanduser()
    result = filter_path(transcript, "claude-code", config, dry_run=True, workspace=root)
    written = snapshot.write(result.fates, result.transcript, root / config.get("renal.snapshot_dir"))
    counts: dict[str, int] = {}
    for item in snapshot.items(result.fates):
        counts[item["category"]] = counts.get(item["category"], 0) + 1
    return PrecompactResult(written, counts, str(hook.get("trigger") or ""))


def precompact_main(stdin_text: str, *, workspace: Path | None = None, verbose: bool = False) -> int:
    """The hook command: JSON ``{"systemMessage": ...}`` on stdout, always exit 0."""
    from apollo import config as config_mod
    from apollo.workspace import resolve_lang

    try:
        hook = parse_hook_input(stdin_text)
        result = precompact(hook, workspace)
        lang = resolve_lang(None, config_mod.load(workspace or Path(hook.get("cwd") or Path.cwd())))
        message = result.message(lang)
    except Exception as exc:  # noqa: BLE001 - whatever happens, the compaction goes on, without a traceback
        if verbose:
            import traceback

            traceback.print_exc()
        line = failure_line(exc)[0]
        print(line, file=sys.stderr)
        message = f"🫘 apollo-renal: no snapshot before compaction — {line.removeprefix('apollo: ')}"
    print(json.dumps({"systemMessage": message}, ensure_ascii=False))
    return 0


def restored_context(hook: dict[str, Any], workspace: Path | None = None) -> str:
    """The digest of the newest PreCompact snapshot of this session: what Claude gets back right
    after a compaction (decisions, preferences, open tasks and questions, verbatim)."""
    import orjson

    from apollo import config as config_mod

    root = (workspace or Path(hook.get("cwd") or Path.cwd())).expanduser().absolute()
    folder = root / config_mod.load(root).get("renal.snapshot_dir")
    wanted = {str(hook.get("transcript_path") or ""), str(hook.get("session_id") or "")} - {""}
    for path in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True) if folder.is_dir() else []:
        try:
            document = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            continue
        source = str(document.get("source") or "")
        if wanted and not any(source == w or source.endswith(w) or w.endswith(source) for w in wanted if source):
            continue
        return digest_text(document.get("items") or [], path)
    return ""


def digest_text(items: list[dict[str, Any]], snapshot: Path) -> str:
    """Standing items grouped by category, each verbatim on its own lines."""
    headings = (("decision", "Decisions"), ("preference", "Preferences"), ("task", "Open tasks"),
                ("question", "Open questions"))
    lines = ["Apollo renal saved these before the compaction; they still stand (snapshot: " f"{snapshot}):"]
    for category, heading in headings:
        found = [i for i in items if i.get("category") == category and i.get("status", "current") == "current"]
        if found:
            lines.append(f"## {heading}")
            lines.extend("- " + str(i.get("text", "")).strip().replace("\n", "\n  ") for i in found)
    return "\n".join(lines) + "\n" if len(lines) > 1 else ""


def sessionstart_main(stdin_text: str, *, workspace: Path | None = None, verbose: bool = False) -> int:
    """The SessionStart (matcher ``compact``) hook: the saved digest as ``additionalContext``; exit 0 always."""
    try:
        hook = json.loads(stdin_text) if stdin_text.strip() else {}
        context = restored_context(hook if isinstance(hook, dict) else {}, workspace)
    except Exception as exc:  # noqa: BLE001 - a session must start whatever happens here
        if verbose:
            import traceback

            traceback.print_exc()
        print(failure_line(exc)[0], file=sys.stderr)
        context = ""
    if context:
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}},
                         ensure_ascii=False))
    return 0
