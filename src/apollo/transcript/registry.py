"""Every transcript format Apollo knows, in the order ``--format auto`` tries them.

Binary and most specific first: the SQLite store by its magic bytes, then the JSONL dialects by
their distinctive keys, the JSON message list, the harness JSONL, and Markdown by its suffix.
"""

from __future__ import annotations

from apollo.transcript.base import TranscriptFormat
from apollo.transcript.claude_code import ClaudeCode
from apollo.transcript.jsonl import ConversationJsonl
from apollo.transcript.markdown import DailyMarkdown
from apollo.transcript.openai import OpenAIMessages
from apollo.transcript.openclaw import OpenClawJsonl
from apollo.transcript.openclaw_sqlite import OpenClawSqlite

ALL: list[TranscriptFormat] = [
    OpenClawSqlite(),
    OpenClawJsonl(),
    ClaudeCode(),
    OpenAIMessages(),
    ConversationJsonl(),
    DailyMarkdown(),
]
