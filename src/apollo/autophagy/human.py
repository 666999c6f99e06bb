"""The large tier's second confirmation comes from the human, never from the agent.

An agent (or a prompt injection driving it) can call every tool and type every command, so a
phrase passed as an argument proves nothing. The phrase counts when the user typed it: at a
terminal (the CLI with stdin a TTY), or in their own latest message of the agent's current
session — the transcript records what the user wrote, which the agent's tools do not write.
The message must carry the phrase *and* the plan's short code, so an old "确认大自噬" never
confirms a new plan.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import TYPE_CHECKING, Any

from apollo.errors import ApolloError, ConfirmationRequired

if TYPE_CHECKING:
    from apollo.workspace import Paths


def short_code(plan_id: str) -> str:
    """Four characters of the plan id that the user repeats: ``l-3f9a1c2e`` → ``3f9a``."""
    return plan_id.split("-", 1)[-1][:4]


def words(phrase: str, plan_id: str) -> str:
    """What the user types to confirm: ``确认大自噬 3f9a``."""
    return f"{phrase} {short_code(plan_id)}"


def _normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def latest_user_message(paths: Paths) -> tuple[str, datetime | None] | None:
    """The text of the user's latest message in the agent's current session (all its blocks) and
    when OpenClaw recorded it, or None when there is no session or no user message."""
    from apollo import clock
    from apollo.transcript import iter_elements
    from apollo.transcript.discovery import current_session
    from apollo.transcript.model import Role

    try:
        source = current_session(paths)
        last: list[Any] = []
        last_record: object = None
        for element in iter_elements(source):
            if element.role != Role.USER:
                continue
            if element.record_id is None or element.record_id != last_record:
                last, last_record = [], element.record_id
            if _typed_by_the_user(element):
                last.append(element)
    except (ApolloError, OSError, ValueError):
        return None
    if not last:
        return None
    try:
        when = clock.parse_iso(last[0].timestamp) if last[0].timestamp else None
    except ValueError:
        when = None
    return "\n".join(e.text for e in last), when


def _typed_by_the_user(element: Any) -> bool:
    """Text of a user message. OpenClaw records more on the user's side — a ``!command``'s output
    (``bashExecution``), an extension's ``custom_message``, heartbeat polls, tool results —
    which a command, a file or the agent wrote: such a record is the latest one, and says nothing."""
    from apollo.transcript.model import Kind

    return element.kind == Kind.TEXT and "entry_type" not in element.extra and "role" not in element.extra


def same_words(typed: str, phrase: str, plan_id: str) -> bool:
    """Whether ``typed`` (at a terminal prompt) is the confirmation of this plan."""
    return _normal(typed) == _normal(words(phrase, plan_id))


def user_confirmed(paths: Paths, phrase: str, plan_id: str, since: datetime | None = None) -> bool:
    """Whether the user's own latest message carries the phrase and the plan's code — and, with
    ``since`` (the sealed time the plan was made), was written at or after it: a message older than
    the plan confirmed another plan, whose code a new one may share (65,536 codes)."""
    said = latest_user_message(paths)
    if said is None or _normal(words(phrase, plan_id)) not in _normal(said[0]):
        return False
    return since is None or (said[1] is not None and said[1] >= since)


def require_user_confirmed(paths: Paths, phrase: str, plan_id: str, since: datetime) -> None:
    """Refuse (nothing changed) unless the user's own latest message, written since the plan was
    made, carries the phrase and code."""
    if user_confirmed(paths, phrase, plan_id, since):
        return
    expected = words(phrase, plan_id)
    raise ConfirmationRequired(
        "the large tier's second confirmation must come from the user, and the user's latest message since the "
        f"plan was made does not say {expected!r}; nothing was changed",
        hint=f"ask the user to type {expected} themselves (a message of theirs, or this command on a terminal); "
             "an agent cannot confirm it for them")
