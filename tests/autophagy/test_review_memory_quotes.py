"""Second adversarial pass: a marker inside a quote (someone's words, quoted whole) is not an
entry — the docs promise quotes are never entries — and every byte comes back after a restore."""

from __future__ import annotations

from autophagy.support import Ws

QUOTED = ("# Memory\n\n- keep this\n- [outdated] old fact\n\n"
          "> Alice wrote:\n> - [outdated] her words, quoted\n> - more of them\n>\n> [obsolete] a quoted paragraph\n\n"
          "> > - [过时] nested quote\n")


def test_a_marked_item_inside_a_quote_is_never_cut(ws: Ws) -> None:
    ws.put("MEMORY.md", QUOTED)
    made = ws.plan("medium")
    assert [i.text.strip() for i in made.items] == ["- [outdated] old fact"]
    result = ws.execute(made.plan_id)
    after = (ws.workspace / "MEMORY.md").read_text(encoding="utf-8")
    assert after == QUOTED.replace("- [outdated] old fact\n", "")
    ws.restore(result["snapshot"])
    assert (ws.workspace / "MEMORY.md").read_text(encoding="utf-8") == QUOTED
