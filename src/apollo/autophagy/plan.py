"""Plans: what a tier would remove, saved so that a later confirmation runs exactly that.

A plan lives in ``.autophagy/plans/<plan_id>.json`` and expires after
``autophagy.plan_ttl_minutes``. It records, for every item, the identity of the file it was
made from (device, inode, size, mtime); execution re-checks each one right before removing it.
Paths are stored as components (undecodable bytes as surrogate escapes, which JSON with
``ensure_ascii`` carries losslessly).
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timedelta
from typing import Any

import msgspec

from apollo import clock
from apollo.autophagy.fs import display
from apollo.autophagy.rules import RISK


class Member(msgspec.Struct, frozen=True):
    """One file, link or folder inside a folder item."""

    parts: list[str]
    fp: list[int]
    is_dir: bool = False


class Item(msgspec.Struct):
    id: str
    kind: str
    category: str
    root: str                 # "workspace" | "sessions" | "agent"
    parts: list[str]
    action: str               # "unlink" | "tree" | "cut" | "index" | "sqlite"
    bytes: int
    reason: str
    reason_zh: str
    fp: list[int] = []
    members: list[Member] = []
    cuts: list[list[int]] = []
    prefix_size: int = 0
    prefix_sha256: str = ""
    text: str = ""
    line: int = 0
    suggested: bool = False
    count: int = 1            # entries it stands for (heartbeat entries, transcript events)
    sessions: list[dict[str, Any]] = []

    @property
    def rel(self) -> str:
        return "/".join(self.parts)


class RootInfo(msgspec.Struct, frozen=True):
    path: str
    dev: int
    ino: int


class Plan(msgspec.Struct):
    plan_id: str
    tier: str
    created_at: str
    expires_at: str
    agent: str
    roots: dict[str, RootInfo]
    items: list[Item]
    protected: list[dict[str, str]] = []
    notes: list[dict[str, str]] = []

    @property
    def risk(self) -> str:
        return RISK[self.tier]

    def expired(self, now: datetime | None = None) -> bool:
        return (now or clock.now()) >= clock.parse_iso(self.expires_at)

    def selected(self, ids: list[str] | None, include_suggested: bool) -> list[Item]:
        """The items a confirmation runs: all non-suggested ones, or exactly ``ids``."""
        if ids:
            wanted = set(ids)
            return [item for item in self.items if item.id in wanted]
        return [item for item in self.items if include_suggested or not item.suggested]

    def display_path(self, item: Item) -> str:
        if item.root == "workspace":
            return display(item.rel)
        return display(f"{self.roots[item.root].path}/{item.rel}" if item.parts else self.roots[item.root].path)

    def public_item(self, item: Item, lang: str) -> dict[str, Any]:
        out: dict[str, Any] = {"id": item.id, "kind": item.kind, "path": self.display_path(item), "bytes": item.bytes,
                               "reason": item.reason_zh if lang == "zh" else item.reason}
        if item.text:
            out["text"] = item.text
            out["line"] = item.line
        return out

    def to_public(self, lang: str = "en") -> dict[str, Any]:
        """The stable JSON shape of issue #6."""
        return {
            "plan_id": self.plan_id,
            "tier": self.tier,
            "risk": self.risk,
            "items": [self.public_item(i, lang) for i in self.items if not i.suggested],
            "protected": [in_language(p, lang) for p in self.protected],
            "suggested": [self.public_item(i, lang) for i in self.items if i.suggested],
        }


def in_language(noted: dict[str, str], lang: str) -> dict[str, str]:
    """A path a plan protects or did not examine, with its reason in ``lang``."""
    return {"path": noted["path"], "reason": noted.get("reason_zh", noted["reason"]) if lang == "zh" else noted["reason"]}


def new_plan_id(tier: str) -> str:
    return f"{tier[0]}-{secrets.token_hex(4)}"


def make_plan(tier: str, agent: str, roots: dict[str, RootInfo], items: list[Item], protected: list[dict[str, str]],
              notes: list[dict[str, str]], ttl_minutes: float) -> Plan:
    now = clock.now()
    prefix = {"small": "S", "medium": "M", "large": "L"}[tier]
    ordered = sorted(items, key=lambda i: (i.suggested, i.root, i.parts, i.line))
    for number, item in enumerate(ordered, 1):
        item.id = f"{prefix}{number}"
    return Plan(new_plan_id(tier), tier, now.isoformat(), (now + timedelta(minutes=ttl_minutes)).isoformat(), agent,
                roots, ordered, protected, notes)


def encode(plan: Plan) -> bytes:
    """JSON with ASCII escapes, so names that are not valid UTF-8 survive the round trip."""
    return (json.dumps(msgspec.to_builtins(plan), ensure_ascii=True, indent=1) + "\n").encode("ascii")


#: a fingerprint is (device, inode, size, mtime_ns, type), see apollo.autophagy.fs.StatFingerprint
FINGERPRINT_FIELDS = 5


def decode(data: bytes) -> Plan:
    """A plan file back into a Plan; anything malformed (the plan folder is in the workspace,
    which the agent can write) is a ValueError, so a damaged plan is refused, never half run."""
    plan = msgspec.convert(json.loads(data.decode("ascii")), Plan)
    for item in plan.items:
        if len(item.fp) not in (0, FINGERPRINT_FIELDS) or \
                any(len(m.fp) != FINGERPRINT_FIELDS for m in item.members):
            raise ValueError(f"item {item.id}: a fingerprint has the wrong number of fields")
    return plan
