"""Who may run what (Q15): the main agent runs every tier, a sub-agent only ``status`` and
``small``; ``--as`` and ``$APOLLO_ACTOR`` can only narrow, never widen."""

from __future__ import annotations

import os

from apollo.errors import Refused, UsageError

ACTORS = ("main", "subagent")
SUBAGENT_TIERS = ("small",)


def resolve_actor(explicit: str | None = None) -> str:
    """``--as`` and ``$APOLLO_ACTOR`` (the main agent when neither says): the narrower wins, so a
    sub-agent's environment can never be talked up to the main agent by an option."""
    said = [value.strip().lower() for value in (explicit, os.environ.get("APOLLO_ACTOR")) if value and value.strip()]
    for actor in said:
        if actor not in ACTORS:
            raise UsageError(f"unknown actor {actor!r}", hint="use --as main or --as subagent")
    return "subagent" if "subagent" in said else "main"


def require_main(actor: str | None, what: str) -> None:
    """Refuse (exit 4) anything but status and small to a sub-agent (Q15)."""
    if resolve_actor(actor) != "main":
        raise Refused(f"{what} is for the main agent only; a sub-agent may run `status` and `small` (Q15)",
                      hint="ask the main agent (the user's session) to run it")


def require(actor: str | None, tier: str, what: str) -> None:
    if tier not in SUBAGENT_TIERS:
        require_main(actor, what)
    else:
        resolve_actor(actor)
