"""The pi/OpenClaw writer over session trees: two branches may each call ``call_0`` (a provider
that reuses ids), interleaved in the file
a result answers the nearest call with its id on its own
branch, as pi pairs them along the path (a review found a dropped call on one branch taking the other
branch's result). Property: whatever is dropped, every kept result answers the call it answered, a
kept call keeps a result, and nothing but the dropped entries and their tool partners goes."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo import transcript
from apollo.transcript.model import Edit

IDS = ["c1", "c2"]

@st.composite
def sessions(draw, ancestry_results=True):
    entries = []  # dicts
    n = draw(st.integers(2, 12))
    for i in range(n):
        eid = f"e{i}"
        parent = None if not entries else draw(st.sampled_from([e["id"] for e in entries] + [entries[-1]["id"]] * 3))
        kind = draw(st.sampled_from(["user", "call", "call", "result", "result", "compaction"])) if entries else "user"
        if kind == "user":
            rec = {"type": "message", "id": eid, "parentId": parent, "message": {"role": "user", "content": f"u{i}"}}
        elif kind == "call":
            k = 1
            ids = draw(st.lists(st.sampled_from(IDS), min_size=k, max_size=k, unique=True))
            rec = {"type": "message", "id": eid, "parentId": parent, "message": {"role": "assistant", "content":
                   [{"type": "toolCall", "id": c, "name": "read", "arguments": {"n": i}} for c in ids], "stopReason": "toolUse"}}
        elif kind == "result":
            by = {e["id"]: e for e in entries}
            parent_of = {e["id"]: e["parentId"] for e in entries}
            # a result hangs below a call with its id (on its own branch); branches may interleave in the file
            options = [(e["id"], c) for e in entries for c in IDS
                       if (e["id"] == nearest_call(by, parent_of, "__x", c, start=e["id"]))]
            if not options:
                continue
            parent, cid = draw(st.sampled_from(options))
            rec = {"type": "message", "id": eid, "parentId": parent, "message": {"role": "toolResult",
                   "toolCallId": cid, "toolName": "read", "content": [{"type": "text", "text": f"r{i}"}]}}
        else:
            rec = {"type": "compaction", "id": eid, "parentId": parent, "summary": "s",
                   "firstKeptEntryId": draw(st.sampled_from([e["id"] for e in entries])), "tokensBefore": 10}
        entries.append(rec)
    return entries

def nearest_call(entries_by_id, parent_of, eid, call_id, start=None):
    cur = start if start is not None else parent_of.get(eid)
    seen = set()
    while cur is not None and cur in entries_by_id and cur not in seen:
        seen.add(cur)
        m = entries_by_id[cur].get("message") or {}
        if m.get("role") == "assistant" and any(b.get("id") == call_id for b in m.get("content") or []):
            return cur
        cur = parent_of.get(cur)
    return None

def pairing(entries):
    by = {e["id"]: e for e in entries}
    parent_of = {e["id"]: e["parentId"] for e in entries}
    out = {}
    for e in entries:
        m = e.get("message") or {}
        if m.get("role") == "toolResult":
            out[e["id"]] = nearest_call(by, parent_of, e["id"], m["toolCallId"])
    return out

@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(entries=sessions(), data=st.data())
def test_a_result_answers_the_call_on_its_own_branch_whatever_is_dropped(tmp_path_factory, entries, data) -> None:
    tmp = tmp_path_factory.mktemp("s")
    header = {"type": "session", "version": 3, "id": "11111111-1111-1111-1111-111111111111", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": ""}
    src = tmp / "s.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in [header, *entries]) + "\n")
    droppable = [e["id"] for e in entries if e["type"] == "message"]
    dropped = data.draw(st.sets(st.sampled_from(droppable))) if droppable else set()
    out = tmp / "o.jsonl"
    transcript.write(src, out, {d: Edit("drop") for d in dropped})
    outs = [json.loads(line) for line in out.read_text().splitlines()][1:]
    kept = [e["id"] for e in outs]
    # order kept
    assert kept == [e["id"] for e in entries if e["id"] in set(kept)]
    before = pairing(entries)
    after = pairing(outs)
    kept_set = set(kept)
    for rid, call in before.items():
        if rid in kept_set and call is not None:
            assert after.get(rid) == call, f"result {rid} answered {call}, now {after.get(rid)} (dropped {sorted(dropped)})"
    answered = {}
    for rid, call in before.items():
        if call:
            answered.setdefault(call, []).append(rid)
    for call, rids in answered.items():
        if call in kept_set:
            assert any(r in kept_set for r in rids), f"call {call} kept, its results {rids} all gone (dropped {sorted(dropped)})"
    # nothing but dropped entries, their tool partners and compactions' refs lost
    partners = set(dropped)
    grew = True
    while grew:  # a dropped call takes its results, a dropped result its call (and so on)
        grew = False
        for rid, call in before.items():
            if call and (rid in partners or call in partners) and not {rid, call} <= partners:
                partners |= {rid, call}
                grew = True
    lost = set(e["id"] for e in entries) - kept_set - partners
    assert not lost, f"lost unrelated {lost} (dropped {sorted(dropped)})"
