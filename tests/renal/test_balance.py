"""Acid–base balance (SPEC §1.2 step 4) turn by turn: api.series gives the raw count of each sign
after every user turn, from the classifier's own tracker, so its last point is the summary's balance
and the HTML report's chart shows the same thing."""

from __future__ import annotations

import json
from pathlib import Path

from apollo.renal import api, balance, classify
from apollo.renal.html_report import write_report
from apollo.transcript import read
from renal.support_classify import conversation

QUESTIONING = [
    ("user", "迁移脚本为什么报错？"), ("assistant", "连接数据库超时，我重试一下。"),
    ("user", "迁移脚本为什么还在报错？"), ("assistant", "还是超时，换个连接池配置。"),
    ("user", "迁移脚本怎么又报错了？"), ("assistant", "连接池也超时，可能是网络问题。"),
]
NEGATIVE = [
    ("user", "Please fix the login bug in auth.py"), ("assistant", "Fixed: the token check was inverted."),
    ("user", "That's wrong, it still doesn't work"), ("assistant", "Sorry, I changed the expiry check too."),
    ("user", "Still broken. This is useless"), ("assistant", "I reverted my change and looked again."),
    ("user", "Terrible. You keep breaking the tests"), ("assistant", "The tests pass again now."),
]


def test_series_counts_each_sign_after_every_user_turn() -> None:
    points = api.series(conversation(*QUESTIONING))
    assert [p.id for p in points] == ["m1", "m3", "m5"]  # one point per user turn, the agent's turns are not weighed
    assert [p.counts["questioning"] for p in points] == [0, 1, 2]
    assert [p.level for p in points] == ["green", "green", "yellow"]  # two repeats: the threshold
    assert [p.counts["negativity"] for p in points] == [0, 0, 1]  # "怎么又…" is impatient

    points = api.series(conversation(*NEGATIVE))
    assert [p.counts["negativity"] for p in points] == [0, 1, 2, 3]
    assert points[-1].level == "yellow"


def test_the_last_point_is_the_summarys_balance() -> None:
    for turns in (QUESTIONING, NEGATIVE, QUESTIONING + NEGATIVE):
        elements = conversation(*turns)
        summary = classify.run(elements).balance
        last = api.series(elements)[-1]
        assert last.level == summary.level
        assert {s.kind: s.count for s in summary.signs} == {k: n for k, n in last.counts.items()
                                                              if n >= balance.BalanceTracker().limits[k]}


def test_a_threshold_from_the_config_moves_the_level(tmp_path: Path) -> None:
    from apollo import config as config_mod

    (tmp_path / ".apollo").mkdir()
    (tmp_path / ".apollo" / "config.toml").write_text("[renal]\nbalance_negativity_run = 2\n", encoding="utf-8")
    points = api.series(conversation(*NEGATIVE), config_mod.load(tmp_path))
    assert [p.level for p in points] == ["green", "green", "yellow", "yellow"]
    assert points[-1].counts["negativity"] == 3  # raw counts do not depend on the threshold


def test_the_html_report_charts_the_series(tmp_path: Path) -> None:
    source = tmp_path / "angry.jsonl"
    source.write_text("".join(json.dumps({"id": f"m{n}", "role": role, "text": text}, ensure_ascii=False) + "\n"
                              for n, (role, text) in enumerate(QUESTIONING + NEGATIVE, 1)), encoding="utf-8")
    made = write_report(source, tmp_path / "report.html", lang="en", workspace=tmp_path)
    windows = made.data["balance"]["windows"]
    assert [w["id"] for w in windows] == [p.id for p in api.series(read(source).in_context())]
    assert windows[-1]["status"] == made.report["balance"]["status"]
    assert windows[2]["questioning"] == 0.5  # two repeats = the threshold, half-way up the chart
    assert "questioning" not in windows[0]
