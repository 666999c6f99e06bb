"""Every transcript format Apollo knows, in the order ``--format auto`` tries them.

Binary and most specific first: the SQLite store by its magic bytes, then the JSONL dialects by
their distinctive keys, the JSON message list, the harness JSONL, and Markdown by its suffix.
A format's module is imported when it is first needed: reading an OpenClaw session (the
heartbeat's every check) loads neither the other formats nor their dependencies.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator

from apollo.transcript.base import TranscriptFormat

#: (name, module, class), in detection order
ORDER: tuple[tuple[str, str, str], ...] = (
    ("openclaw-sqlite", "apollo.transcript.openclaw_sqlite", "OpenClawSqlite"),
    ("openclaw", "apollo.transcript.openclaw", "OpenClawJsonl"),
    ("claude-code", "apollo.transcript.claude_code", "ClaudeCode"),
    ("openai", "apollo.transcript.openai", "OpenAIMessages"),
    ("jsonl", "apollo.transcript.jsonl", "ConversationJsonl"),
    ("markdown", "apollo.transcript.markdown", "DailyMarkdown"),
)
NAMES = tuple(name for name, _, _ in ORDER)
_WHERE = {name: (module, cls) for name, module, cls in ORDER}


@functools.cache
def load(name: str) -> TranscriptFormat:
    """The format called ``name`` (KeyError for an unknown name)."""
    module, cls = _WHERE[name]
    handler: TranscriptFormat = getattr(importlib.import_module(module), cls)()
    return handler


def in_order() -> Iterator[TranscriptFormat]:
    """Every format in detection order, each imported only when reached."""
    for name in NAMES:
        yield load(name)
