"""``apollo renal report --html``: the page, loaded in a real headless Chromium.

Every test writes the page with the real CLI (or library), loads it with Chromium and reads the
DOM the page's own script built: it must finish without a console message or an uncaught
error, show exactly the counts of ``apollo renal filter --dry-run --json`` run separately, and
keep dropped elements visible with a reason. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pytest
import zstandard
from chromium_page import Page, find_or_install_chromium, load

from apollo import transcript
from apollo.renal.html_report import PAGE_SIZE, count_paths, count_value, write_report
from bench import generate

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"

pytestmark = pytest.mark.xdist_group("chromium")


@pytest.fixture(scope="session")
def chromium() -> str:
    return find_or_install_chromium()


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    """A fresh Chromium profile per page, so nothing is cached between loads."""
    return tmp_path / "chromium-profile"


def _filter_report(apollo_cli, source: Path, *extra: str) -> dict:
    done = apollo_cli("renal", "filter", str(source), "--dry-run", "--json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _make_report(apollo_cli, source: Path, html: Path, *extra: str) -> None:
    done = apollo_cli("renal", "report", str(source), "--html", str(html), *extra)
    assert done.returncode == 0, done.stderr
    assert html.is_file() and str(html) in done.stdout


def _embedded(page: Page) -> dict:
    """The data the page was built from, as it sits in the page's DOM."""
    script = page.select("script", id="apollo-data")
    assert len(script) == 1
    return json.loads(script[0].text)


def _number(text: str) -> int:
    return int(text.strip().replace(",", ""))


def _assert_page_is_healthy(page: Page) -> None:
    assert page.console == [], page.console
    body = page.select("body")[0]
    assert body.attrs["data-errors"] == "0"
    assert body.attrs["data-state"] == "ready"


def _assert_counts_match(page: Page, report: dict) -> None:
    shown = {node.attrs["data-count"]: _number(node.text) for node in page.select(data_count=None)}
    expected = {path: count_value(report, path) for path in count_paths(report)}
    assert shown == expected
    summary = {node.attrs["data-summary"]: node.text for node in page.select(data_summary=None)}
    assert _number(summary["tokens_before"]) == report["before"]["tokens"]
    assert _number(summary["tokens_after"]) == report["after"]["tokens"]


def _assert_timeline(page: Page, data: dict) -> None:
    elements = data["elements"]
    articles = page.select("article")
    assert len(articles) == min(PAGE_SIZE, len(elements))
    assert [a.attrs["data-id"] for a in articles] == [e["id"] for e in elements[:PAGE_SIZE]]
    pages = {node.attrs["data-pages"] for node in page.select("span", data_pages=None)}
    assert pages == {str(max(1, math.ceil(len(elements) / PAGE_SIZE)))}
    reason_label = data["labels"]["reason"]
    for article in articles:
        outcome = article.attrs["data-outcome"]
        assert f"out-{outcome}" in article.attrs["class"].split()
        if outcome in ("dropped", "merged"):
            why = article.text.split(f"{reason_label}: ", 1)[1]
            assert why.strip() and not why.startswith("—"), article.text
    must = page.select("a", data_target=None)
    ids = {e["id"] for e in elements}
    assert {a.attrs["data-target"] for a in must} <= ids
    assert set(data["must_keep"]) <= {a.attrs["data-target"] for a in must}


def _assert_screenshot(path: Path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 30_000  # a drawn page, not a blank one


@pytest.mark.parametrize("which", [0, 1], ids=["first-session", "second-session"])
def test_example_sessions_render_with_the_json_reports_counts(chromium: str, profile: Path, example: Path,
                                                              apollo_cli, tmp_path: Path, which: int) -> None:
    sessions = sorted((example / "openclaw-state" / "agents" / "main" / "sessions").glob("*.jsonl"))
    assert len(sessions) == 2
    session = sessions[which]
    html = tmp_path / "report.html"
    _make_report(apollo_cli, session, html, "--workspace", str(example / "workspace"))
    report = _filter_report(apollo_cli, session, "--workspace", str(example / "workspace"))
    shot = ARTIFACTS / f"renal-report-example-{which + 1}.png"
    page = load(chromium, html, profile, screenshot=shot)
    _assert_page_is_healthy(page)
    _assert_counts_match(page, report)
    data = _embedded(page)
    assert len(data["elements"]) == len(transcript.read(session).in_context())
    _assert_timeline(page, data)
    dropped = [e for e in data["elements"] if e["out"] == "dropped"]
    merged = [e for e in data["elements"] if e["out"] == "merged"]
    assert len(dropped) + len(merged) == sum(report["removed"].values())
    assert all(e["why"] for e in dropped + merged)
    assert {row.attrs["data-category"] for row in page.select("div", data_category=None)} >= {
        "decision", "preference", "task", "question", "process", "noise"}
    _assert_screenshot(shot)


def _conversation() -> list[tuple[str, str]]:
    return [
        ("user", "我们的数据库用哪个？PostgreSQL 还是 SQLite？"),
        ("assistant", "建议用 PostgreSQL 16，并发写入更稳。"),
        ("user", "好的，决定了：用 PostgreSQL 16。以后都用中文回复我。"),
        ("assistant", "收到。"),
        ("user", "thanks"),
        ("user", "Please write the nightly backup script for the billing database."),
        ("assistant", "On it. I'll put it in scripts/backup.sh and run it at 02:00."),
        ("user", "ok"),
        ("user", "What is the rate limit on the public API right now?"),
    ]


def _openai(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": role, "content": text} for role, text in _conversation()],
                               ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def _jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "conversation.jsonl"
    path.write_text("".join(json.dumps({"id": f"t{n}", "role": role, "text": text}, ensure_ascii=False) + "\n"
                            for n, (role, text) in enumerate(_conversation())), encoding="utf-8")
    return path


def _markdown(tmp_path: Path) -> Path:
    path = tmp_path / "2026-04-07.md"
    path.write_text("# 2026-04-07\n\n## 决定\n\n- 数据库用 PostgreSQL 16\n- 以后都用中文回复\n\n## 待办\n\n"
                    "- TODO: 写每晚备份脚本\n- HEARTBEAT_OK 14:00\n- HEARTBEAT_OK 14:30\n\n"
                    "API 的限流现在是多少？\n", encoding="utf-8")
    return path


def _claude_code(tmp_path: Path) -> Path:
    lines, parent = [], None
    for n, (role, text) in enumerate(_conversation()):
        uid = f"00000000-0000-4000-8000-{n:012d}"
        content = text if role == "user" else [{"type": "text", "text": text}]
        lines.append({"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/u/p",
                      "sessionId": "5e55", "version": "2.1.14", "type": role, "uuid": uid,
                      "timestamp": f"2026-04-07T06:{n:02d}:00.000Z", "message": {"role": role, "content": content}})
        parent = uid
    path = tmp_path / "claude.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def _empty(tmp_path: Path) -> Path:
    path = tmp_path / "empty.json"
    path.write_text("[]\n")
    return path


def _openclaw(tmp_path: Path) -> Path:
    return generate.write_session(tmp_path / "openclaw.jsonl", 120_000, seed=11)


def _openclaw_sqlite(tmp_path: Path) -> Path:
    """OpenClaw 2026.9's store: the session's events as rows, the large ones zstd-compressed."""
    session = generate.write_session(tmp_path / "events.jsonl", 80_000, seed=12)
    db = tmp_path / "openclaw-agent.sqlite"
    connection = sqlite3.connect(db)
    connection.execute("create table transcript_events (session_id text, seq integer, event_json text, "
                       "created_at integer, event_zstd blob, event_utf8_bytes integer, navigation_json text)")
    compressor = zstandard.ZstdCompressor()
    for seq, raw in enumerate(session.read_bytes().splitlines()):
        packed = len(raw) > 2_000
        connection.execute("insert into transcript_events values (?, ?, ?, ?, ?, ?, ?)",
                           ("sess-1", seq, None if packed else raw.decode(), 1_775_000_000_000 + seq,
                            compressor.compress(raw) if packed else None, len(raw), None))
    connection.commit()
    connection.close()
    return db


@pytest.mark.parametrize("build", [_openai, _jsonl, _markdown, _claude_code, _openclaw, _openclaw_sqlite, _empty],
                         ids=["openai", "jsonl", "markdown", "claude-code", "openclaw", "openclaw-sqlite", "empty"])
def test_every_input_format_renders(chromium: str, profile: Path, apollo_cli, tmp_path: Path, build) -> None:
    source = build(tmp_path)
    html = tmp_path / "report.html"
    _make_report(apollo_cli, source, html, "--lang", "en")
    page = load(chromium, html, profile)
    _assert_page_is_healthy(page)
    _assert_counts_match(page, _filter_report(apollo_cli, source, "--lang", "en"))
    data = _embedded(page)
    assert data["lang"] == "en" and data["labels"]["reason"] == "why"
    assert len(data["elements"]) == len(transcript.read(source).in_context())
    assert data["elements"] or build is _empty
    _assert_timeline(page, data)


@pytest.mark.slow
def test_a_10_mb_session_opens_paginated_with_bounded_text(chromium: str, profile: Path, tmp_path: Path) -> None:
    session = generate.write_session(tmp_path / "big.jsonl", 10_000_000, seed=20261129)
    html = tmp_path / "big.html"
    made = write_report(session, html, lang="en")
    assert html.stat().st_size < session.stat().st_size / 2  # texts are capped: the page stays light
    shot = ARTIFACTS / "renal-report-10mb.png"
    page = load(chromium, html, profile, screenshot=shot)
    _assert_page_is_healthy(page)
    data = _embedded(page)
    assert len(data["elements"]) == len(made.data["elements"]) > 20 * PAGE_SIZE
    _assert_timeline(page, data)
    cut = [e for e in data["elements"] if e.get("cut")]
    assert cut and all(len(e["text"]) + e["cut"] > len(e["text"]) for e in cut)
    assert 0 < len(data["balance"]["windows"]) <= 121
    _assert_screenshot(shot)


def test_text_from_the_transcript_is_shown_as_text_never_run(chromium: str, profile: Path, tmp_path: Path) -> None:
    hostile = ['</script><script>document.title="pwned"</script>', '<img src=x onerror="document.title=1">',
               "__DATA__ __TITLE__ <!-- <script>", "正常的一句话：决定用 PostgreSQL。"]
    source = tmp_path / "hostile.jsonl"
    source.write_text("".join(json.dumps({"id": f"h{n}", "role": "user", "text": text}) + "\n"
                              for n, text in enumerate(hostile)), encoding="utf-8")
    html = tmp_path / "hostile.html"
    write_report(source, html, lang="en")
    page = load(chromium, html, profile)
    _assert_page_is_healthy(page)
    assert page.select("img") == [] and len(page.select("script")) == 2
    assert page.select("title")[0].text.startswith("🫘 renal context report")
    texts = [node.text for node in page.nodes if node.tag == "div" and "text" in node.attrs.get("class", "").split()]
    for text in hostile:
        assert any(text in shown for shown in texts), text


def test_the_page_is_self_contained(tmp_path: Path) -> None:
    session = generate.write_session(tmp_path / "s.jsonl", 60_000, seed=4)
    html = tmp_path / "s.html"
    write_report(session, html, lang="zh")
    text = html.read_text(encoding="utf-8")
    head = text.split("<body", 1)[0]
    assert "default-src 'none'" in head  # the browser itself refuses every load
    for marker in ("<link", " src=", "@import", "url(", "http://", "https://"):
        assert marker not in head, marker
    scripts = text.split('<script type="application/json" id="apollo-data">', 1)[1]
    code = scripts.split("</script>", 1)[1].replace('"http://www.w3.org/2000/svg"', "SVG_NAMESPACE")
    assert "fetch(" not in code and "XMLHttpRequest" not in code and "http" not in code


def test_an_earlier_report_is_replaced_but_no_other_file(apollo_cli, tmp_path: Path) -> None:
    source = _jsonl(tmp_path)
    html = tmp_path / "r.html"
    _make_report(apollo_cli, source, html, "--lang", "en")
    assert '<html lang="en">' in html.read_text(encoding="utf-8")
    _make_report(apollo_cli, source, html, "--lang", "zh")
    assert '<html lang="zh-CN">' in html.read_text(encoding="utf-8")
    precious = tmp_path / "notes.html"
    precious.write_text("<html>my notes</html>")
    refused = apollo_cli("renal", "report", str(source), "--html", str(precious))
    assert refused.returncode == 2 and "not an Apollo report" in refused.stderr
    assert precious.read_text() == "<html>my notes</html>"
    over_input = apollo_cli("renal", "report", str(source), "--html", str(source))
    assert over_input.returncode == 2
    assert source.read_text(encoding="utf-8").startswith('{"id": "t0"')


def test_default_path_json_output_and_bad_input(apollo_cli, tmp_path: Path) -> None:
    source = _openai(tmp_path)
    work = tmp_path / "cwd"
    work.mkdir()
    done = apollo_cli("renal", "report", str(source), "--json", cwd=work)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["html"] == str(work / "chat.renal-report.html") and Path(answer["html"]).is_file()
    assert answer["elements"] == len(transcript.read(source).in_context())
    assert answer["report"]["format"] == "openai"
    missing = apollo_cli("renal", "report", str(tmp_path / "nope.jsonl"), "--html", str(tmp_path / "x.html"))
    assert missing.returncode == 1 and "no such file" in missing.stderr and "Traceback" not in missing.stderr
    assert not (tmp_path / "x.html").exists()


def test_the_harness_sees_a_broken_page(chromium: str, profile: Path, tmp_path: Path) -> None:
    """The checks above can fail: an uncaught error and a console message are both caught."""
    broken = tmp_path / "broken.html"
    broken.write_text("<html><body data-state='loading'><script>console.log('hello');"
                      "null.boom;</script></body></html>")
    page = load(chromium, broken, profile)
    assert any("Uncaught TypeError" in line for line in page.console)
    assert any("hello" in line for line in page.console)
    assert page.select("body")[0].attrs["data-state"] == "loading"

