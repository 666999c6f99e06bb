"""The check's state file and memo: the last result, reused while nothing it was computed from
has changed; and the heartbeat's line for it.

``apollo heartbeat`` runs every 30 minutes, and an idle agent's session does not change between
two of them. A check is a function of its source (the session file, or today's memory file),
the configuration, the rule files and Apollo's own code and data. :func:`fingerprint` stamps all
of them (path, size, modification time, inode; the configuration by its values) and
``filter-state.json`` keeps the stamp. When the next heartbeat computes the same stamp,
:func:`reusable_state` hands back that state with only the time of the check renewed: the
numbers a full check would compute, without reading the session. Anything else (a session that
grew, another current session, an edited rule file or configuration, another Apollo) means a
full check. Sessions in OpenClaw's SQLite store are always checked again: their writes may wait
in the write-ahead log, which the database file's own stamp does not show.

Kept light on purpose (no classifier, no transcript reader): the heartbeat imports only this
when nothing changed.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import apollo
from apollo import clock
from apollo.atomic import atomic_output, private_dir
from apollo.config import file_stamps
from apollo.errors import InputError
from apollo.rulefile import rule_files

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from apollo.config import Config
    from apollo.workspace import Paths

    #: what a check reads and its stamp, taken before reading: (source, notes on how it was found, fingerprint)
    Found: TypeAlias = tuple[Any, list[str], dict[str, Any] | None]

#: what a check depends on inside Apollo: its code, its rules and its data
_PACKAGE_PARTS = ("", "data", "renal", "renal/rules", "transcript")


def default_source(paths: Paths, session: str | None = None) -> tuple[Any, list[str]]:
    """The agent's current session (or the one ``session`` names: an error if there is none),
    else today's memory file, else nothing (with why)."""
    from apollo.transcript import discovery

    notes: list[str] = []
    if session is not None:
        return discovery.current_session(paths, session), notes
    try:
        return discovery.current_session(paths), notes
    except InputError as exc:
        notes.append(f"no current session ({exc.line()})")
    memory = paths.workspace / "memory" / f"{clock.now():%Y-%m-%d}.md"
    if memory.is_file():
        return memory, notes
    notes.append(f"no memory file {memory}")
    return None, notes


def fingerprint(source: Any, config: Config, *, notes: list[str] | tuple[str, ...] = (),
                fmt: str = "auto") -> dict[str, Any] | None:
    """The stamp of everything a check of ``source`` reads (and of what it was told: the format
    and the notes on how the source was found), or None when it cannot be reused (no source
    file, or a session of the SQLite store). Taken *before* the check reads the source, so a
    write during the check shows as a change next time."""
    if config is None or not isinstance(source, (str, os.PathLike)):
        return None
    try:
        st = os.stat(source)
    except OSError:
        return None
    return {"source": os.path.abspath(source), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "inode": st.st_ino, "device": st.st_dev, "inputs": _inputs_digest(config, [*notes], fmt)}


def _inputs_digest(config: Config, notes: list[str], fmt: str) -> str:
    package = Path(apollo.__file__).parent
    files = [str(package / part / entry.name) for part in _PACKAGE_PARTS
             for entry in os.scandir(package / part) if entry.name.endswith((".py", ".toml"))]
    inputs = {"version": apollo.__version__, "config": config.values, "notes": notes, "format": fmt,
              "files": file_stamps((*rule_files(config, "renal.rule_files"), *sorted(files)))}
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()


def state_path(paths: Paths, config: Config) -> Path:
    return paths.workspace / config.get("renal.state_file")


def reusable_state(paths: Paths, config: Config, session: str | None = None) -> tuple[dict[str, Any] | None, Found]:
    """The last check's state (``checked_at`` renewed) when its fingerprint is still the current
    one, else None: then a full check is due, of what was found (which
    :func:`apollo.renal.check.check` takes rather than looking again)."""
    source, notes = default_source(paths, session)
    current = fingerprint(source, config, notes=notes)
    found = (source, notes, current)
    if current is None:
        return None, found
    try:
        state = json.loads(state_path(paths, config).read_bytes())
    except (OSError, ValueError):
        return None, found
    if not isinstance(state, dict) or state.get("fingerprint") != current:
        return None, found
    return {**state, "checked_at": clock.now().isoformat(timespec="seconds")}, found


def write_state(paths: Paths, result: Any, state_file: str | None = None) -> Path:
    """Write ``<workspace>/<renal.state_file>`` atomically (temp file, rename); returns its path.

    Not synced to disk: it is a measurement the next check makes again, and a file a crash left
    damaged reads as no state (:func:`reusable_state`); the heartbeat writes it every run.

    ``result`` is a check's result, or a reused state (:func:`reusable_state`)
    with the ``state_file`` it goes to."""
    state = _state_of(result)
    target = paths.workspace / (state_file or result.state_file)  # type: ignore[union-attr]
    private_dir(target.parent)
    data = (json.dumps(state, ensure_ascii=False, indent=2) + "\n").encode()
    with atomic_output(target) as out:
        out.write(data)
    return target


_VERDICT: dict[str, dict[str, Any]] = {
    "zh": {"normal": "上下文正常", "watch": "上下文需关注（{why}）", "needs_filter": "上下文需过滤（节省{saving}%；{why}）",
           "exceeded": "超标：", "sep": "、", "and": "；", "red": "失衡",
           "names": {"tokens": "Token", "density": "密度", "confirmations": "重复确认"}},
    "en": {"normal": "context healthy", "watch": "context to watch ({why})",
           "needs_filter": "context needs filtering (saves {saving}%; {why})",
           "exceeded": "exceeded: ", "sep": ", ", "and": "; ", "red": "out of balance",
           "names": {"tokens": "tokens", "density": "density", "confirmations": "confirmations"}},
}


def verdict(result: Any, lang: str = "zh") -> str:
    """The one verdict of a check, for a result or a state (a reused check): ``上下文正常``,
    ``上下文需关注（超标：Token）``, ``上下文需过滤（节省X%；超标：Token、密度）`` (English with
    ``lang="en"``), naming what was exceeded and a red balance. The report's status line and the
    heartbeat line both say this, and ``status`` in filter-state.json is its key."""
    state = _state_of(result)
    words = _VERDICT["en" if lang == "en" else "zh"]
    why = []
    if state.get("exceeded"):
        why.append(words["exceeded"] + words["sep"].join(words["names"].get(n, n) for n in state["exceeded"]))
    if (state.get("balance") or {}).get("status") == "red":
        why.append(words["red"])
    return words[state["status"]].format(saving=state["saving_percent"], why=words["and"].join(why))


def heartbeat_line(result: Any, lang: str = "zh") -> str:
    """``🫘 `` and the verdict: ``🫘 上下文正常`` when nothing is wrong."""
    return f"🫘 {verdict(result, lang)}"


def _state_of(result: Any) -> dict[str, Any]:
    """A check's result as its filter-state.json document; a reused state as it is."""
    return result.to_state() if hasattr(result, "to_state") else result
