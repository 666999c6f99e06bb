"""Deterministic generators of the benchmark inputs: OpenClaw sessions and agent workspaces.

Sessions are pi-coding-agent v3 JSONL as OpenClaw writes it (header line, then ``message`` /
``model_change`` / ``thinking_level_change`` / ``custom`` entries on one parent chain), with the
mix a long-running personal agent accumulates: Chinese and English requests, OpenClaw's time
prefix and ``Sender (untrusted metadata)`` wrapper, heartbeat polls answered ``HEARTBEAT_OK``,
acknowledgements, decisions, preferences, open questions, and tool calls whose results are long
(test runs, logs, listings, source files, search results). Workspaces hold the identity files,
memory, skills, projects with a ``.git`` folder, and every kind the autophagy small tier targets.

Everything is derived from a seed, so a cached file is the file a fresh run would write; the
cache key also carries :data:`GENERATOR_VERSION`, bumped whenever the output changes.
"""

from __future__ import annotations

import base64
import os
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

GENERATOR_VERSION = 2
#: the moment the generated data is "now": mtimes and ages are relative to it (APOLLO_NOW)
BENCH_NOW = datetime(2026, 4, 10, 12, 0, 0, tzinfo=UTC)
_SESSION_START = BENCH_NOW - timedelta(days=40)
_TZ_LABEL = "GMT+8"
_LOCAL = timedelta(hours=8)

HEARTBEAT_PROMPT = ("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or "
                    "repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK.")
HEARTBEAT_HINT = ("When reading HEARTBEAT.md, use workspace file /home/user/.openclaw/workspace/HEARTBEAT.md "
                  "(exact case). Do not read docs/heartbeat.md.")

_ACKS_ZH = ["好的", "收到", "明白了", "好的，谢谢", "嗯嗯", "OK", "行", "没问题", "好的👌", "收到，辛苦了"]
_ACKS_EN = ["ok", "OK thanks", "got it", "thanks!", "sounds good", "great, thank you", "👍", "perfect", "cool"]
_ASSISTANT_ACKS_ZH = ["好的，我来处理。", "收到，马上开始。", "明白，我先看一下。", "没问题。"]
_ASSISTANT_ACKS_EN = ["Sure, on it.", "Got it, starting now.", "Okay, let me take a look.", "Will do."]

_PROJECTS = ["billing-api", "family-photos", "blog", "home-automation", "invoice-parser", "travel-planner"]
_TECH = [("PostgreSQL 16", "SQLite"), ("FastAPI", "Flask"), ("pnpm", "npm"), ("Caddy", "nginx"),
         ("uv", "pip-tools"), ("Redis streams", "RabbitMQ"), ("Hugo", "Jekyll"), ("pytest", "unittest")]
_FILES = ["src/app/main.py", "src/app/db.py", "src/app/auth.py", "tests/test_api.py", "config/settings.toml",
          "scripts/deploy.sh", "docs/README.md", "src/app/models/invoice.py", "web/src/App.tsx"]
_PEOPLE = [("李伟", "liwei", "5829174630"), ("Alex Chen", "alexc", "6120044817")]
_CITIES = ["杭州", "成都", "Lisbon", "京都", "Berlin", "厦门"]

_DECISIONS_ZH = [
    "决定了：{project} 的数据库用 {a}，不再考虑 {b}。",
    "就这么定了，{project} 部署改用 {a}，{b} 的配置下周删掉。",
    "最终方案：周五之前把 {project} 迁移到 {a}。",
]
_DECISIONS_EN = [
    "Decision: {project} goes with {a}; we drop {b}.",
    "Let's settle it — {a} for {project}, and {b} is out.",
    "Final call: migrate {project} to {a} before Friday.",
]
_PREFERENCES_ZH = ["以后都用中文回复我。", "我喜欢简短的回答，不要长篇大论。", "提交信息请用英文写，代码注释用中文。",
                   "以后跑测试之前先提醒我一下。", "周末不要给我发通知。"]
_PREFERENCES_EN = ["From now on, always answer in English.", "I prefer short answers with the command first.",
                   "Please never push to main directly; open a PR.", "Use tabs, not spaces, in the Go code.",
                   "Don't message me before 9am."]
_TASKS_ZH = ["帮我把 {project} 的登录模块重构一下，顺便补上单元测试。", "请检查一下 {project} 最近的错误日志，看看为什么超时。",
             "帮我写一个脚本，每天凌晨备份 {project} 的数据库。", "把 {file} 里的配置改成从环境变量读取。",
             "帮我规划一下下个月去{city}的行程，预算一万以内。"]
_TASKS_EN = ["Please refactor the auth flow in {project} and add tests.", "Can you find out why {project} times out on upload?",
             "Write a nightly backup script for {project}.", "Move the settings in {file} to environment variables.",
             "Plan a 4-day trip to {city} for the first week of May."]
_QUESTIONS_ZH = ["{project} 的 API 限流现在是多少？", "我们之前为什么没用 {b}？", "这个 bug 是从哪个版本开始的？",
                 "{city}五月份天气怎么样？"]
_QUESTIONS_EN = ["What's the current rate limit on the {project} API?", "Why didn't we pick {b} back then?",
                 "Which release introduced this bug?", "Is the {project} staging server still on the old kernel?"]
_CHATTER_ZH = ["我先看看目录结构，再决定从哪里下手。", "测试跑完了，有两个失败，我再看看原因。", "看起来是连接池耗尽导致的。",
               "我继续排查一下日志里的超时。", "这部分代码有点乱，我先读一遍。"]
_CHATTER_EN = ["Let me look at the layout first.", "Two tests fail; digging into why.", "Looks like the pool is exhausted.",
               "Checking the timeout in the logs next.", "This module is tangled; reading it through first."]
_TOPICS = ["the upload timeout fixed", "a cleaner auth flow", "a nightly backup", "登录模块重构", "备份脚本"]
_THINKING = ["The user wants {topic}. I should inspect {file} first, then run the tests to see what fails. "
             "If the failure is in the fixture, the fix is local; otherwise I need to look at the migration.",
             "用户要的是{topic}。先看 {file}，再跑一遍测试。如果是连接池的问题，需要调整 pool_size 和超时。"]


_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class _Clock:
    """Monotonic fake time: each call advances by a random gap, as a real session does."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.moment = _SESSION_START

    def tick(self, low: float = 2, high: float = 90) -> datetime:
        self.moment += timedelta(seconds=self.rng.uniform(low, high))
        return self.moment

    def iso(self) -> str:
        return self.moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.moment.microsecond // 1000:03d}Z"

    def ms(self) -> int:
        return int(self.moment.timestamp() * 1000)

    def prefix(self) -> str:
        local = self.moment + _LOCAL
        return f"[{local.strftime('%a %Y-%m-%d %H:%M')} {_TZ_LABEL}]"


def _fill(template: str, rng: random.Random) -> str:
    a, b = rng.choice(_TECH)
    return template.format(project=rng.choice(_PROJECTS), a=a, b=b, file=rng.choice(_FILES),
                           city=rng.choice(_CITIES), topic=rng.choice(_TOPICS))


# -- tool output: long, varied, and shaped like what agents really read ------------------------


def _pytest_output(rng: random.Random) -> str:
    lines = ["============================= test session starts ==============================",
             "platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0", f"rootdir: /home/user/{rng.choice(_PROJECTS)}",
             f"collected {rng.randint(80, 400)} items", ""]
    for module in rng.sample(_FILES, 4):
        marks = "".join(rng.choice("....................F.s") for _ in range(rng.randint(20, 70)))
        lines.append(f"{module.replace('src/', 'tests/test_')} {marks} [{rng.randint(5, 99):3d}%]")
    lines += ["", "=================================== FAILURES ===================================",
              f"___________________________ test_upload_{rng.randint(1, 99)} ___________________________", ""]
    for depth in range(rng.randint(8, 25)):
        lines.append(f"src/app/storage.py:{rng.randint(10, 400)}: in put_object")
        lines.append(f"    response = self.client.request('PUT', url, data=chunk, timeout={depth + 5})")
    lines.append("E   TimeoutError: upload did not finish within 30.0s")
    lines.append(f"========== 1 failed, {rng.randint(80, 399)} passed, 3 skipped in {rng.uniform(3, 90):.2f}s ==========")
    return "\n".join(lines)


def _log_output(rng: random.Random, clock: _Clock) -> str:
    levels = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"]
    start = clock.moment - timedelta(hours=rng.randint(1, 48))
    lines = []
    for _ in range(rng.randint(60, 300)):
        start += timedelta(milliseconds=rng.randint(5, 20000))
        level = rng.choice(levels)
        what = rng.choice(["request completed", "db pool checkout", "cache miss", "retrying upload", "upstream timeout",
                           "worker heartbeat", "GC pause", "连接已关闭", "任务入队", "slow query"])
        lines.append(f"{start.isoformat(timespec='milliseconds')} {level:5s} [{rng.choice(['api', 'worker', 'db'])}] "
                     f"{what} id={rng.getrandbits(40):x} dur={rng.randint(1, 9000)}ms")
    return "\n".join(lines)


def _listing_output(rng: random.Random) -> str:
    lines = [f"total {rng.randint(100, 9000)}"]
    for _ in range(rng.randint(30, 160)):
        name = rng.choice(["main", "db", "auth", "util", "models", "views", "照片", "notes", "backup"]) + \
            rng.choice(["", "_v2", "_old", f"_{rng.randint(1, 99)}"]) + rng.choice([".py", ".md", ".json", ".jpg", ".log", ""])
        lines.append(f"-rw-r--r-- 1 user user {rng.randint(0, 10**7):>9d} Apr {rng.randint(1, 30):2d} "
                     f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {name}")
    return "\n".join(lines)


def _source_output(rng: random.Random) -> str:
    lines = ['"""Storage backend for uploads."""', "", "import asyncio", "import logging", "", "log = logging.getLogger(__name__)", ""]
    for index in range(rng.randint(15, 70)):
        lines += [f"async def handler_{index}(request, retries={rng.randint(1, 5)}):",
                  f'    """Handle step {index}: validate, store, and acknowledge."""',
                  "    payload = await request.json()",
                  f"    if len(payload.get('items', [])) > {rng.randint(10, 1000)}:",
                  "        raise ValueError('too many items')  # 超过上限",
                  f"    await asyncio.sleep({rng.random():.3f})",
                  "    return {'ok': True, 'count': len(payload)}", ""]
    return "\n".join(lines)


def _search_output(rng: random.Random) -> str:
    results = []
    for rank in range(1, rng.randint(6, 12)):
        city = rng.choice(_CITIES)
        results.append({"rank": rank, "title": f"{city} 五月旅行攻略 — 天气、交通与住宿 ({rank})",
                        "url": f"https://example.com/travel/{rng.getrandbits(32):x}",
                        "snippet": f"{city}五月平均气温 {rng.randint(15, 28)}°C，降雨 {rng.randint(3, 15)} 天。"
                                   f"Best areas to stay: old town, riverside. Budget {rng.randint(300, 1500)} CNY/night. " * 3})
    return orjson.dumps({"query": "travel", "results": results}, option=orjson.OPT_INDENT_2).decode()


def _tool_round(rng: random.Random, clock: _Clock) -> tuple[str, dict, str]:
    """(tool name, arguments, result text) for one realistic call."""
    kind = rng.choice(["test", "test", "log", "log", "ls", "read", "read", "search"])
    if kind == "test":
        return "exec", {"command": "uv run pytest -x -q", "workdir": f"/home/user/{rng.choice(_PROJECTS)}"}, _pytest_output(rng)
    if kind == "log":
        return "exec", {"command": f"tail -n 300 /var/log/{rng.choice(_PROJECTS)}/app.log"}, _log_output(rng, clock)
    if kind == "ls":
        return "exec", {"command": "ls -la ~/workspace/projects"}, _listing_output(rng)
    if kind == "read":
        return "read", {"path": f"/home/user/{rng.choice(_PROJECTS)}/{rng.choice(_FILES)}"}, _source_output(rng)
    return "web_search", {"query": f"{rng.choice(_CITIES)} 五月 天气 旅行"}, _search_output(rng)


# -- session entries ---------------------------------------------------------------------------


class _SessionWriter:
    """Builds entries on one parent chain and serialises them as JSON lines."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.clock = _Clock(rng)
        self.parent: str | None = None
        self.used: set[str] = set()
        self.telegram_message = 3000

    def new_id(self) -> str:
        while True:
            candidate = f"{self.rng.getrandbits(32):08x}"
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate

    def entry(self, kind: str, **fields: object) -> bytes:
        entry_id = self.new_id()
        record = {"type": kind, "id": entry_id, "parentId": self.parent, "timestamp": self.clock.iso(), **fields}
        self.parent = entry_id
        return orjson.dumps(record) + b"\n"

    def user(self, text: str, *, wrapped: bool = True) -> bytes:
        """A user message wrapped the way OpenClaw's channels wrap it (or bare, as heartbeats are)."""
        self.clock.tick(10, 600)
        channel = self.rng.choice(["telegram", "telegram", "webchat", "tui"]) if wrapped else None
        if channel == "tui":
            text = f"{self.clock.prefix()} {text}"
        elif channel == "webchat":
            sender = orjson.dumps({"label": "openclaw-control-ui", "id": "openclaw-control-ui"},
                                  option=orjson.OPT_INDENT_2).decode()
            text = f"Sender (untrusted metadata):\n```json\n{sender}\n```\n\n{self.clock.prefix()} {text}"
        elif channel == "telegram":
            name, handle, user_id = self.rng.choice(_PEOPLE)
            self.telegram_message += self.rng.randint(1, 3)
            conversation = orjson.dumps({"message_id": str(self.telegram_message), "sender_id": user_id,
                                         "sender": name, "timestamp": self.clock.prefix()[1:-1]},
                                        option=orjson.OPT_INDENT_2).decode()
            sender = orjson.dumps({"label": f"{name} ({user_id})", "id": user_id, "name": name, "username": handle},
                                  option=orjson.OPT_INDENT_2).decode()
            text = (f"Conversation info (untrusted metadata):\n```json\n{conversation}\n```\n\n"
                    f"Sender (untrusted metadata):\n```json\n{sender}\n```\n\n{text}")
        return self.entry("message", message={"role": "user", "content": [{"type": "text", "text": text}],
                                              "timestamp": self.clock.ms()})

    def heartbeat(self) -> bytes:
        """OpenClaw's heartbeat poll: the configured prompt, the workspace hint and the time line."""
        self.clock.tick(300, 1800)
        local = self.clock.moment + _LOCAL
        text = (f"{HEARTBEAT_PROMPT}\n{HEARTBEAT_HINT}\nCurrent time: {local.strftime('%A, %B %d, %Y - %I:%M %p')} "
                f"(Asia/Shanghai) / {self.clock.moment.strftime('%Y-%m-%d %H:%M')} UTC")
        return self.entry("message", message={"role": "user", "content": [{"type": "text", "text": text}],
                                              "timestamp": self.clock.ms()})

    def assistant(self, blocks: list[dict], stop: str = "stop") -> bytes:
        self.clock.tick(2, 40)
        out_tokens = self.rng.randint(20, 900)
        usage = {"input": self.rng.randint(2000, 120000), "output": out_tokens, "cacheRead": self.rng.randint(0, 90000),
                 "cacheWrite": self.rng.randint(0, 4000), "totalTokens": out_tokens + self.rng.randint(2000, 200000),
                 "cost": {"input": 0.01, "output": 0.002, "cacheRead": 0.001, "cacheWrite": 0.0, "total": 0.013}}
        return self.entry("message", message={"role": "assistant", "content": blocks, "api": "anthropic-messages",
                                              "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage,
                                              "stopReason": stop, "timestamp": self.clock.ms()})

    def tool_result(self, call_id: str, name: str, text: str) -> bytes:
        self.clock.tick(1, 30)
        return self.entry("message", message={"role": "toolResult", "toolCallId": call_id, "toolName": name,
                                              "content": [{"type": "text", "text": text}], "isError": False,
                                              "timestamp": self.clock.ms()})


def _episode(writer: _SessionWriter) -> Iterator[bytes]:
    """One stretch of conversation, chosen with the proportions a long-lived agent shows."""
    rng = writer.rng
    zh = rng.random() < 0.55
    roll = rng.random()
    if roll < 0.28:  # heartbeat poll and its silent reply
        yield writer.heartbeat()
        yield writer.assistant([{"type": "text", "text": "HEARTBEAT_OK"}])
        return
    if roll < 0.36:  # a decision, confirmed
        yield writer.user(_fill(rng.choice(_DECISIONS_ZH if zh else _DECISIONS_EN), rng))
        yield writer.assistant([{"type": "text", "text": "好的，已记下这个决定。" if zh else "Noted — recorded as decided."}])
        yield writer.user(rng.choice(_ACKS_ZH if zh else _ACKS_EN))
        return
    if roll < 0.42:  # a standing preference
        yield writer.user(rng.choice(_PREFERENCES_ZH if zh else _PREFERENCES_EN))
        yield writer.assistant([{"type": "text", "text": "明白，以后照此执行。" if zh else "Understood, I'll stick to that."}])
        return
    if roll < 0.50:  # a question, sometimes answered
        yield writer.user(_fill(rng.choice(_QUESTIONS_ZH if zh else _QUESTIONS_EN), rng))
        if rng.random() < 0.6:
            yield writer.assistant([{"type": "text", "text": _fill(
                "根据 {file} 的配置，目前是每分钟 600 次请求。" if zh else "Per {file}, it is 600 requests per minute.", rng)}])
        return
    if roll < 0.56:  # pure acknowledgement ping-pong
        yield writer.user(rng.choice(_ACKS_ZH if zh else _ACKS_EN))
        yield writer.assistant([{"type": "text", "text": rng.choice(_ASSISTANT_ACKS_ZH if zh else _ASSISTANT_ACKS_EN)}])
        return
    if roll < 0.58:  # settings changes OpenClaw records as their own entries
        writer.clock.tick()
        pick = rng.random()
        if pick < 0.3:
            yield writer.entry("model_change", provider="anthropic", modelId=rng.choice(["claude-sonnet-4-5", "claude-opus-4-1"]))
        elif pick < 0.5:
            yield writer.entry("thinking_level_change", thinkingLevel=rng.choice(["low", "medium", "high"]))
        else:  # OpenClaw's own bookkeeping entries, outside the model's context
            yield writer.entry("custom", customType="openclaw.cache-ttl",
                               data={"timestamp": writer.clock.ms(), "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
        return
    # a task worked through with tools: the bulk of a real session's bytes
    yield writer.user(_fill(rng.choice(_TASKS_ZH if zh else _TASKS_EN), rng))
    for round_index in range(rng.randint(1, 4)):
        name, arguments, output = _tool_round(rng, writer.clock)
        call_id = "toolu_01" + "".join(rng.choices(_BASE62, k=22))
        blocks: list[dict] = []
        if rng.random() < 0.5:
            blocks.append({"type": "thinking", "thinking": _fill(rng.choice(_THINKING), rng),
                           "thinkingSignature": base64.b64encode(rng.randbytes(rng.randint(280, 520))).decode()})
        if round_index == 0 or rng.random() < 0.5:
            blocks.append({"type": "text", "text": rng.choice(_CHATTER_ZH if zh else _CHATTER_EN)})
        blocks.append({"type": "toolCall", "id": call_id, "name": name, "arguments": arguments})
        yield writer.assistant(blocks, stop="toolUse")
        yield writer.tool_result(call_id, name, output)
    done = _fill("已经处理好了：{file} 已更新，测试全部通过。" if zh else "Done: {file} is updated and the tests pass.", rng)
    yield writer.assistant([{"type": "text", "text": done}])
    if rng.random() < 0.5:
        yield writer.user(rng.choice(_ACKS_ZH if zh else _ACKS_EN))


def write_session(path: Path, target_bytes: int, seed: int) -> Path:
    """Write an OpenClaw session of about ``target_bytes`` (whole episodes, so slightly more)."""
    rng = random.Random(seed)
    writer = _SessionWriter(rng)
    session_id = f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}-" \
                 f"{rng.getrandbits(16):04x}-{rng.getrandbits(48):012x}"
    header = {"type": "session", "version": 3, "id": session_id, "timestamp": writer.clock.iso(),
              "cwd": "/home/user/.openclaw/workspace"}
    temp = path.with_name(path.name + ".partial")
    written = 0
    with temp.open("wb") as out:
        line = orjson.dumps(header) + b"\n"
        out.write(line)
        written += len(line)
        writer.clock.tick()
        out.write(line := writer.entry("model_change", provider="anthropic", modelId="claude-sonnet-4-5"))
        written += len(line)
        while written < target_bytes:
            for line in _episode(writer):
                out.write(line)
                written += len(line)
    temp.replace(path)
    return path


# -- workspaces --------------------------------------------------------------------------------

#: (relative path template, share of files, age in days (low, high)): what a busy workspace holds
_SMALL_TIER_KINDS = [
    ("tmp/{n}.tmp", 0.02, (1, 40)),
    ("{project}/src/app/__pycache__/mod_{n}.cpython-312.pyc", 0.05, (1, 60)),
    ("{project}/build/lib/app/mod_{n}.py", 0.02, (3, 90)),
    ("{project}/dist/app-{n}.tar.gz", 0.005, (3, 90)),
    ("{project}/app.egg-info/SOURCES-{n}.txt", 0.005, (3, 90)),
    ("{project}/.pytest_cache/v/cache/nodeids-{n}", 0.01, (1, 30)),
    ("{project}/src/app/mod_{n}.py.bak", 0.01, (2, 200)),
    ("{project}/docs/page_{n}.md~", 0.005, (2, 200)),
    ("{project}/src/app/mod_{n}.py.orig", 0.005, (2, 200)),
    ("{project}/src/app/.mod_{n}.py.swp", 0.002, (2, 60)),
    ("logs/{project}-{n}.log", 0.02, (2, 60)),
]
_KEPT_KINDS = [
    ("{project}/src/app/mod_{n}.py", 0.30, (0, 300)),
    ("{project}/tests/test_mod_{n}.py", 0.10, (0, 300)),
    ("{project}/docs/page_{n}.md", 0.06, (0, 300)),
    ("{project}/data/record_{n}.json", 0.10, (0, 300)),
    ("{project}/.git/objects/{hex2}/{hex38}", 0.20, (0, 300)),
    ("memory/notes-{n}.md", 0.02, (0, 120)),
    ("photos/2026/IMG_{n}.jpg.json", 0.04, (0, 300)),
]
_IDENTITY_FILES = {
    "AGENTS.md": "# AGENTS.md\nThis workspace belongs to the main agent. Read SOUL.md and USER.md first.\n",
    "SOUL.md": "# SOUL.md\n简洁、可靠、先做再说。\n",
    "IDENTITY.md": "# IDENTITY.md\nname: 小助手\n",
    "TOOLS.md": "# TOOLS.md\nexec, read, write, web_search\n",
    "HEARTBEAT.md": "# HEARTBEAT.md\n- run `apollo heartbeat` and report its line\n",
    "USER.md": "# USER.md\n偏好：中文回复；简短回答；周末不打扰。\n",
    "MEMORY.md": "# MEMORY.md\n- 2026-03-02 决定：billing-api 用 PostgreSQL 16\n- [过时] 2026-01-10 用 SQLite 做原型\n",
    "skills/apollo-renal/SKILL.md": "---\nname: apollo-renal\ndescription: context filter\n---\n",
    "skills/weather/SKILL.md": "---\nname: weather\ndescription: forecasts\n---\n",
    ".dream/task-state.json": '{"active": [{"task": "refactor auth", "files": ["billing-api/src/app/auth.py"]}]}\n',
}


def _heartbeat_log(rng: random.Random, entries: int) -> str:
    """A heartbeat log whose entries span 90 days, so the small tier has old entries to prune."""
    moment = BENCH_NOW - timedelta(days=90)
    lines = []
    for _ in range(entries):
        moment += timedelta(minutes=rng.randint(25, 35) * rng.randint(1, 6))
        if moment > BENCH_NOW:
            break
        lines.append(f"{moment.strftime('%Y-%m-%dT%H:%M:%S+00:00')} HEARTBEAT_OK tokens={rng.randint(1000, 90000)}")
    return "\n".join(lines) + "\n"


def _file_body(relative: str, serial: int, rng: random.Random) -> str:
    """Content that fits the name: a real workspace's JSON parses and its text is UTF-8 (a few
    files are damaged on purpose, as in real workspaces, for the medium tier to find)."""
    lines = rng.randint(1, 30)
    if relative.endswith(".json"):
        if rng.random() < 0.002:
            return '{"truncated": [1, 2, '
        return orjson.dumps({"id": serial, "tags": ["备份", "photo"], "values": list(range(lines))}).decode()
    if relative.endswith((".md", ".md~")):
        return f"# 笔记 {serial}\n\n" + "".join(f"- 第 {n} 条：决定继续用 FastAPI\n" for n in range(lines))
    if relative.endswith(".log"):
        return "".join(f"2026-03-{1 + n % 28:02d}T10:00:00Z INFO request {n} done\n" for n in range(lines))
    return f"# generated file {serial}\n" + "".join(f"value_{n} = {n}\n" for n in range(lines))


def write_workspace(root: Path, files: int, seed: int) -> Path:
    """A workspace of exactly ``files`` regular files, spread over projects, with fixed mtimes."""
    rng = random.Random(seed)
    temp = root.with_name(root.name + ".partial")
    if temp.exists():
        raise RuntimeError(f"{temp} is left over from an interrupted run; remove it and run again")
    temp.mkdir(parents=True)
    created = 0

    def put(relative: str, content: str, age_days: float) -> None:
        nonlocal created
        target = temp / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        stamp = (BENCH_NOW - timedelta(days=age_days)).timestamp()
        os.utime(target, (stamp, stamp))
        created += 1

    for relative, content in _IDENTITY_FILES.items():
        put(relative, content, 3)
    put("memory/heartbeat-log.md", _heartbeat_log(rng, 3000), 0.01)
    for day in range(30):
        put(f"memory/{(BENCH_NOW - timedelta(days=day)).strftime('%Y-%m-%d')}.md",
            f"# {day} days ago\n- 决定：继续用 FastAPI\n- TODO: 备份脚本\n", day)
    kinds = _SMALL_TIER_KINDS + _KEPT_KINDS
    weights = [share for _, share, _ in kinds]
    projects = [f"projects/{name}-{index}" for index in range(max(1, files // 2500)) for name in _PROJECTS[:2]]
    serial = 0
    while created < files:
        template, _, (low, high) = rng.choices(kinds, weights)[0]
        serial += 1
        relative = template.format(project=rng.choice(projects), n=serial, hex2=f"{serial % 256:02x}",
                                   hex38=f"{rng.getrandbits(152):038x}")
        body = _file_body(relative, serial, rng)
        put(relative, body, rng.uniform(low, high))
    temp.rename(root)
    return root


# -- cache -------------------------------------------------------------------------------------


def write_long_line_session(path: Path, target_bytes: int, seed: int) -> Path:
    """A 1 MB generated session whose last tool result is one line of ``target_bytes`` with no space
    or break (a base64 blob, a minified dump): what made a budget's token counting quadratic."""
    write_session(path, 1_000_000, seed)
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    rng = random.Random(seed)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    blob = "".join(rng.choice(alphabet) for _ in range(4096)) * (target_bytes // 4096 + 1)
    call = {"type": "message", "id": "b10b0001", "parentId": last["id"], "timestamp": last["timestamp"],
            "message": {"role": "assistant", "stopReason": "toolUse", "content": [
                {"type": "toolCall", "id": "call_blob", "name": "exec", "arguments": {"command": "cat dump.b64"}}]}}
    result = {"type": "message", "id": "b10b0002", "parentId": "b10b0001", "timestamp": last["timestamp"],
              "message": {"role": "toolResult", "toolCallId": "call_blob", "toolName": "exec",
                          "content": [{"type": "text", "text": blob[:target_bytes]}]}}
    with path.open("ab") as out:
        out.write(orjson.dumps(call) + b"\n" + orjson.dumps(result) + b"\n")
    return path


#: messages made of one long run, each of a shape a regular expression once read again from every
#: character of the run (the blank lines before a channel's "[System: …]" line, the colons before
#: 优先, a sentence of interjections, dashes before the end of a shortened text, the words that may open a
#: Chinese order, which once read two ways each, 你自己 as 你 and 自己: role, what comes before the run, its unit,
#: what comes after
RUNS = {"blank lines before a channel notice": ("user", "look at this", "\n", "end\n[System: reply in thread]"),
        "colons before 优先": ("assistant", "我优先", ":", "用 write"),
        "repeated interjections": ("assistant", "", "ok ", ""),
        "a run of dashes": ("assistant", "a", "-", "b"),
        "words before a Chinese order": ("user", "", "你自己", "吗"),
        "a run of 请": ("user", "", "请", "")}


def write_run_session(path: Path, kind: str, chars: int, seed: int) -> Path:
    """A short generated session (one episode), then one message of ``chars`` characters of a :data:`RUNS`
    shape and three short exchanges after it (so that it is no longer in the recent tail, which stays whole)."""
    write_session(path, 1, seed)
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    role, before, unit, after = RUNS[kind]
    texts = [(role, before + unit * (chars // len(unit)) + after)]
    for n in range(3):
        texts += [("user", f"next thing {n}: draft the invoice for client {n}"), ("assistant", f"Drafted invoice {n}.")]
    parent = last["id"]
    with path.open("ab") as out:
        for index, (speaker, text) in enumerate(texts):
            message: dict = {"role": speaker, "content": [{"type": "text", "text": text}]}
            if speaker == "assistant":
                message["stopReason"] = "stop"
            entry_id = f"5e55{index:04x}"
            out.write(orjson.dumps({"type": "message", "id": entry_id, "parentId": parent,
                                    "timestamp": last["timestamp"], "message": message}) + b"\n")
            parent = entry_id
    return path


def cached(out_dir: Path, name: str, build, *args, suffix: str = "") -> Path:
    """``out_dir/<name>-v<version><suffix>``, built by ``build(path, *args)`` only when it is missing."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{name}-v{GENERATOR_VERSION}{suffix}"
    if not target.exists():
        build(target, *args)
    return target


def heartbeat_state(out_dir: Path, session_bytes: int, seed: int) -> tuple[Path, Path]:
    """(workspace, state dir) of an agent whose current session is a generated one of ``session_bytes``."""

    def build(root: Path) -> None:
        temp = root.with_name(root.name + ".partial")
        sessions = temp / "state" / "agents" / "main" / "sessions"
        sessions.mkdir(parents=True)
        (temp / "workspace").mkdir()
        for relative, content in _IDENTITY_FILES.items():
            target = temp / "workspace" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        session_id = "5f0c2a9e-0b1d-4c3e-9a7f-3e2d1c0b9a88"
        write_session(sessions / f"{session_id}.jsonl", session_bytes, seed)
        updated = int(BENCH_NOW.timestamp() * 1000)
        # no sessionFile: OpenClaw then finds the transcript as sessions/<sessionId>.jsonl, and the
        # tree can be copied elsewhere without pointing back here
        index = {"agent:main:main": {"sessionId": session_id, "updatedAt": updated, "chatType": "direct",
                                     "lastChannel": "telegram"}}
        (sessions / "sessions.json").write_bytes(orjson.dumps(index, option=orjson.OPT_INDENT_2))
        temp.rename(root)

    root = cached(out_dir, f"heartbeat-{session_bytes}", build)
    return root / "workspace", root / "state"
