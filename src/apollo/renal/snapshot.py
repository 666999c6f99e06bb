"""The important-content snapshot (Q7): decisions, preferences, task state, open questions only.

Written before the filtered output, to ``<workspace>/.renal/snapshots/<timestamp>.json``, so
that whatever the filter did, what mattered can be found again. Ordinary content is never
snapshotted (the source file is left untouched anyway). A run with nothing important writes
no snapshot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from apollo.atomic import atomic_output, private_dir
from apollo.clock import now, stamp
from apollo.redact import redact

IMPORTANT = ("decision", "preference", "task", "question")


def items(fates: list[Any]) -> list[dict[str, Any]]:
    """The important elements, verbatim but for the secrets pasted into them (:mod:`apollo.redact`),
    with where they came from, what the filter did, and what answered them (a request's outcome,
    a question's answer: the other side's next words)."""
    from apollo.renal.digest import replies

    answers = replies(fates)
    found = []
    for fate in fates:
        if fate.category not in IMPORTANT or not (fate.must_keep or fate.outdated or fate.confirm):
            continue
        element = fate.element
        found.append({
            "id": element.id, "category": fate.category,
            "status": fate.status,
            "role": element.role.value, "text": redact(element.text), "timestamp": element.timestamp,
            "line": element.line, "merged_from": list(fate.merged_from),
            "filter_action": fate.action,
        })
        reply = answers.get(element.id)
        if reply is not None:
            found[-1]["reply"] = {"id": reply.element.id, "role": reply.element.role.value,
                                "text": redact(reply.element.text)}
    return found


def write(fates: list[Any], transcript: Any, folder: Path) -> Path | None:
    """Write the snapshot under ``folder``; None when there is nothing important."""
    found = items(fates)
    if not found:
        return None
    moment = now()
    private_dir(folder)
    path = folder / f"{stamp(moment)}.json"
    number = 2
    while path.exists():
        path = folder / f"{stamp(moment)}-{number}.json"
        number += 1
    document = {
        "created_at": moment.isoformat(),
        "source": transcript.meta.get("session") or (str(transcript.source) if transcript.source else None),
        "format": transcript.format,
        "counts": {c: sum(1 for i in found if i["category"] == c) for c in IMPORTANT},
        "items": found,
    }
    with atomic_output(path) as out:
        out.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    return path
