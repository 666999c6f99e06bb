#!/usr/bin/env python3
"""make_examples.py - (re)create Apollo's example data.

Builds two folders under DEST (default: the folder this script lives in):

  workspace/        a realistic OpenClaw agent workspace (~/.openclaw/workspace) belonging to
                    陈宇 (Chen Yu), a Shanghai infra engineer, and his agent 小满: identity
                    files, MEMORY.md with outdated / superseded entries, daily notes, two skills,
                    .dream/task-state.json, a small report project, and every kind of clutter
                    Apollo's autophagy tiers look for (temp files, caches, build output, backups,
                    corrupted JSON/JSONL, an empty data file, a broken symlink, a truncated
                    archive, an expired reminder, a heartbeat log with old and new entries).
  openclaw-state/   a legacy (JSONL-store) OpenClaw state dir: agents/main/sessions/ with
                    sessions.json and two pi-coding-agent v3 session transcripts, one Chinese
                    (webchat, main session), one English (Telegram DM, with a compaction and a
                    side branch).

Everything is deterministic (fixed seed, fixed clock, content written as data below) and the
script is idempotent: it deletes and rebuilds only DEST/workspace and DEST/openclaw-state.
File modification times are set explicitly (git does not keep them): clutter is dated
2026-11-20, long before the demo clock APOLLO_NOW=2026-11-29T12:00:00+08:00.

Formats follow the real sources (see examples/README.md): pi-coding-agent 0.73.1
(packages/coding-agent/src/core/session-manager.ts, packages/ai/src/types.ts) and OpenClaw
(src/auto-reply/heartbeat.ts, tokens.ts, reply/inbound-meta.ts, gateway agent-timestamp,
agents/current-time.ts, config/sessions/types.ts + paths.ts).

Usage:  python3 examples/make_examples.py [--dest DIR]
Stdlib only.
"""
from __future__ import annotations

import argparse
import base64
import csv
import gzip
import hashlib
import io
import json
import marshal
import os
import random
import shutil
import sqlite3
import stat
import sys
import tarfile
import uuid
import zipfile
from datetime import date, datetime, timedelta, timezone

SEED = 20261129
CST = timezone(timedelta(hours=8))           # Asia/Shanghai, what OpenClaw prints as GMT+8
UTC = timezone.utc
HOME = "/home/chenyu"
WS_ABS = f"{HOME}/.openclaw/workspace"        # the workspace path as the agent sees it
STATE_ABS = f"{HOME}/.openclaw"
SESSIONS_ABS = f"{STATE_ABS}/agents/main/sessions"
TG_ID = "5829174630"

# ---------------------------------------------------------------------------------------------
# OpenClaw strings (verbatim from openclaw/openclaw source)
# ---------------------------------------------------------------------------------------------
# src/auto-reply/heartbeat.ts  HEARTBEAT_PROMPT
HEARTBEAT_PROMPT = ("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. "
                    "Do not infer or repeat old tasks from prior chats. "
                    "If nothing needs attention, reply HEARTBEAT_OK.")
# heartbeat runner appendHeartbeatWorkspacePathHint()
HEARTBEAT_HINT = (f"When reading HEARTBEAT.md, use workspace file {WS_ABS}/HEARTBEAT.md (exact case). "
                  "Do not read docs/heartbeat.md.")
HEARTBEAT_OK = "HEARTBEAT_OK"      # src/auto-reply/tokens.ts HEARTBEAT_TOKEN
NO_REPLY = "NO_REPLY"              # src/auto-reply/tokens.ts SILENT_REPLY_TOKEN

# pi-ai model prices (USD per 1M tokens), from @mariozechner/pi-ai 0.73.1 models.generated.js
MODELS = {
    ("anthropic", "claude-opus-4-7"): dict(api="anthropic-messages", input=5, output=25, cacheRead=0.5, cacheWrite=6.25),
    ("anthropic", "claude-sonnet-4-6"): dict(api="anthropic-messages", input=3, output=15, cacheRead=0.3, cacheWrite=3.75),
    ("deepseek", "deepseek-v4-pro"): dict(api="openai-completions", input=0.435, output=0.87, cacheRead=0.003625, cacheWrite=0),
}

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def local(s: str) -> datetime:
    """'2026-11-27 09:31:12' in Asia/Shanghai -> aware datetime."""
    fmt = "%Y-%m-%d %H:%M:%S" if s.count(":") == 2 else "%Y-%m-%d %H:%M"
    return datetime.strptime(s, fmt).replace(tzinfo=CST)


def iso_z(dt: datetime) -> str:
    """JavaScript Date.toISOString(): UTC, milliseconds, 'Z'."""
    dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def ms(dt: datetime) -> int:
    return int(round(dt.timestamp() * 1000))


def envelope_stamp(dt: datetime) -> str:
    """gateway injectTimestamp(): '[Fri 2026-11-27 14:29 GMT+8] '."""
    d = dt.astimezone(CST)
    return f"[{d.strftime('%a')} {d.strftime('%Y-%m-%d %H:%M')} GMT+8] "


def ordinal(n: int) -> str:
    if 11 <= n <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def current_time_line(dt: datetime) -> str:
    """agents/current-time.ts resolveCronStyleNow() with formatUserTime() in 12h format."""
    d = dt.astimezone(CST)
    hour12 = d.hour % 12 or 12
    ampm = "AM" if d.hour < 12 else "PM"
    formatted = f"{d.strftime('%A')}, {d.strftime('%B')} {d.day}{ordinal(d.day)}, {d.year} - {hour12}:{d.minute:02d} {ampm}"
    utc = dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M") + " UTC"
    return f"Current time: {formatted} (Asia/Shanghai) / {utc}"


def est_tokens(s: str) -> int:
    ascii_n = sum(1 for c in s if ord(c) < 128)
    return int(ascii_n / 3.8 + (len(s) - ascii_n) * 0.9) + 1


def js_number(x: float) -> str:
    """Format a float the way JavaScript's JSON.stringify does (ECMAScript Number::toString):
    0.000027 not 2.7e-05, 2.9e-7 not 2.9e-07, 0 not 0.0. Digits: shortest round-trip, as in JS."""
    from decimal import Decimal
    if x == 0:
        return "0"
    if x.is_integer() and abs(x) < 1e21:
        return str(int(x))
    sign, digits, exp = Decimal(repr(x)).as_tuple()
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    exp += len(digits) - len(ds)
    k = len(ds)
    n = k + exp
    if k <= n <= 21:
        out = ds + "0" * (n - k)
    elif 0 < n <= 21:
        out = ds[:n] + "." + ds[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + ds
    else:
        e = n - 1
        out = ds[0] + ("." + ds[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return ("-" if sign else "") + out


def _jsify(o):
    if isinstance(o, float):
        return "\x00" + js_number(o) + "\x00"
    if isinstance(o, dict):
        return {k: _jsify(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_jsify(v) for v in o]
    return o


def dumps_line(obj) -> str:
    """One JSONL line as pi writes it (JSON.stringify: compact, UTF-8, JS number format)."""
    out = json.dumps(_jsify(obj), ensure_ascii=False, separators=(",", ":"))
    return out.replace('"\\u0000', "").replace('\\u0000"', "")


# ---------------------------------------------------------------------------------------------
# Session builder: writes entries exactly as pi-coding-agent's SessionManager + OpenClaw do.
# ---------------------------------------------------------------------------------------------
class Session:
    def __init__(self, rng: random.Random, session_id: str, cwd: str, start: datetime,
                 provider: str, model: str, base_ctx: int):
        self.rng = rng
        self.id = session_id
        self.clock = start
        self.entries: list[dict] = []
        self.header = {"type": "session", "version": 3, "id": session_id,
                       "timestamp": iso_z(start), "cwd": cwd}
        self.leaf: str | None = None
        self.ids: set[str] = set()
        self.provider, self.model = provider, model
        self.ctx = base_ctx            # tokens the model sees (system prompt + history)
        self.cached = 0                # prompt-cache prefix length
        self.last_call: datetime | None = None
        self.msg_seq = 3391            # Telegram message ids
        self.totals = dict(input=0, output=0, cacheRead=0, cacheWrite=0)
        self.last_usage = None

    # -- ids / clock ---------------------------------------------------------------------------
    def new_id(self) -> str:
        while True:
            i = "%08x" % self.rng.getrandbits(32)   # randomUUID().slice(0, 8)
            if i not in self.ids:
                self.ids.add(i)
                return i

    def rand_b62(self, n: int) -> str:
        return "".join(self.rng.choice(B62) for _ in range(n))

    def at(self, s: str):
        t = local(s) + timedelta(milliseconds=self.rng.randint(0, 999))
        assert t >= self.clock, (s, self.clock)
        self.clock = t

    def adv(self, lo: float, hi: float | None = None):
        secs = lo if hi is None else self.rng.uniform(lo, hi)
        self.clock += timedelta(seconds=secs)

    def _append(self, entry: dict, parent: str | None = "LEAF") -> str:
        pid = self.leaf if parent == "LEAF" else parent
        eid = self.new_id()
        ordered = {"type": entry.pop("type"), "id": eid, "parentId": pid, "timestamp": iso_z(self.clock)}
        ordered.update(entry)
        self.entries.append(ordered)
        self.leaf = eid
        return eid

    # -- non-message entries -----------------------------------------------------------------------
    def model_change(self, provider: str, model: str):
        self.provider, self.model = provider, model
        self.cached = 0
        return self._append({"type": "model_change", "provider": provider, "modelId": model})

    def thinking_level(self, level: str):
        return self._append({"type": "thinking_level_change", "thinkingLevel": level})

    def custom(self, custom_type: str, data: dict):
        # OpenClaw's appendCustomEntry writes {type, customType, data, id, parentId, timestamp}
        eid = self.new_id()
        self.entries.append({"type": "custom", "customType": custom_type, "data": data,
                             "id": eid, "parentId": self.leaf, "timestamp": iso_z(self.clock)})
        self.leaf = eid
        return eid

    def model_snapshot(self):
        self.adv(0.001, 0.003)
        return self.custom("model-snapshot", {"timestamp": ms(self.clock), "provider": self.provider,
                                              "modelApi": MODELS[(self.provider, self.model)]["api"],
                                              "modelId": self.model})

    def cache_ttl(self):
        if self.provider != "anthropic":   # OpenClaw records cache TTL only for Anthropic prompt caching
            return None
        self.adv(0.03, 0.08)
        return self.custom("openclaw.cache-ttl", {"timestamp": ms(self.clock), "provider": self.provider,
                                                  "modelId": self.model})

    def compaction(self, summary: str, first_kept: str, read_files: list, modified_files: list,
                   kept_tokens: int):
        tokens_before = self.ctx
        text = summary
        parts = []
        if read_files:
            parts.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
        if modified_files:
            parts.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
        if parts:
            text += "\n\n" + "\n\n".join(parts)
        eid = self._append({"type": "compaction", "summary": text, "firstKeptEntryId": first_kept,
                            "tokensBefore": tokens_before,
                            "details": {"readFiles": read_files, "modifiedFiles": modified_files}})
        self.ctx = 21900 + est_tokens(text) + kept_tokens
        self.cached = 0
        return eid

    # -- messages ---------------------------------------------------------------------------------
    def user(self, text: str, wrapper: str | None = None, parent: str | None = "LEAF") -> str:
        """wrapper: None (plain, e.g. heartbeat), 'webchat' (Sender block + timestamp envelope),
        'stamp' (timestamp envelope only, e.g. TUI), 'telegram' (Conversation info + Sender)."""
        if wrapper == "webchat":
            body = ("Sender (untrusted metadata):\n```json\n"
                    + json.dumps({"label": "openclaw-control-ui", "id": "openclaw-control-ui"}, indent=2)
                    + "\n```\n\n" + envelope_stamp(self.clock) + text)
        elif wrapper == "stamp":
            body = envelope_stamp(self.clock) + text
        elif wrapper == "telegram":
            self.msg_seq += self.rng.randint(1, 3)
            conv = {"message_id": str(self.msg_seq), "sender_id": TG_ID, "sender": "Chen Yu",
                    "timestamp": envelope_stamp(self.clock)[1:-2]}
            sender = {"label": f"Chen Yu ({TG_ID})", "id": TG_ID, "name": "Chen Yu", "username": "chenyu_dev"}
            body = ("Conversation info (untrusted metadata):\n```json\n" + json.dumps(conv, indent=2, ensure_ascii=False)
                    + "\n```\n\nSender (untrusted metadata):\n```json\n" + json.dumps(sender, indent=2, ensure_ascii=False)
                    + "\n```\n\n" + text)
        else:
            body = text
        msg = {"role": "user", "content": [{"type": "text", "text": body}],
               "timestamp": ms(self.clock) - self.rng.randint(15, 60)}
        self.ctx += est_tokens(body) + 4
        return self._append({"type": "message", "message": msg}, parent)

    def heartbeat(self, when: str) -> str:
        self.at(when)
        text = HEARTBEAT_PROMPT + "\n" + HEARTBEAT_HINT + "\n" + current_time_line(self.clock)
        return self.user(text)

    def _usage(self, out_tokens: int) -> dict:
        price = MODELS[(self.provider, self.model)]
        prompt = self.ctx
        warm = self.last_call is not None and (self.clock - self.last_call) < timedelta(minutes=60)
        if price["api"] == "anthropic-messages":
            inp = self.rng.randint(3, 12)
            if warm and self.cached:
                cache_read = self.cached
                cache_write = max(0, prompt - cache_read - inp)
            else:
                cache_read, cache_write = 0, prompt - inp
            self.cached = prompt
        else:  # openai-completions (DeepSeek): automatic prefix cache, 64-token units
            cache_read = (self.cached // 64) * 64 if warm else 0
            cache_write = 0
            inp = prompt - cache_read
            self.cached = prompt
        u = {"input": inp, "output": out_tokens, "cacheRead": cache_read, "cacheWrite": cache_write,
             "totalTokens": inp + out_tokens + cache_read + cache_write}
        cost = {k: price[k] / 1_000_000 * u[k] for k in ("input", "output", "cacheRead", "cacheWrite")}
        cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
        u["cost"] = cost
        for k in self.totals:
            self.totals[k] += u[k]
        self.last_usage = u
        return u

    def _tool_id(self) -> str:
        if self.provider == "anthropic":
            return "toolu_01" + self.rand_b62(22)
        return "call_00_" + self.rand_b62(24)

    def assistant(self, blocks: list, delay: tuple = (0.4, 1.6)) -> tuple[str, list]:
        """blocks: ('think', text) | ('text', text) | ('tool', name, args). Returns (id, call ids)."""
        self.adv(*delay)
        start = self.clock
        content, calls, out_chars = [], [], ""
        for b in blocks:
            if b[0] == "think":
                blk = {"type": "thinking", "thinking": b[1]}
                if self.provider == "anthropic":
                    blk["thinkingSignature"] = base64.b64encode(self.rng.randbytes(self.rng.randint(280, 520))).decode()
                else:
                    blk["thinkingSignature"] = "reasoning_content"
                content.append(blk)
                out_chars += b[1]
            elif b[0] == "text":
                content.append({"type": "text", "text": b[1]})
                out_chars += b[1]
            elif b[0] == "tool":
                cid = self._tool_id()
                content.append({"type": "toolCall", "id": cid, "name": b[1], "arguments": b[2]})
                calls.append((cid, b[1]))
                out_chars += json.dumps(b[2], ensure_ascii=False)
        out_tokens = est_tokens(out_chars) + self.rng.randint(2, 30)
        usage = self._usage(out_tokens)
        price = MODELS[(self.provider, self.model)]
        if self.provider == "anthropic":
            response_id = "msg_01" + self.rand_b62(22)
        else:
            response_id = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        msg = {"role": "assistant", "content": content, "api": price["api"], "provider": self.provider,
               "model": self.model, "usage": usage, "stopReason": "toolUse" if calls else "stop",
               "timestamp": ms(start), "responseId": response_id}
        self.adv(1.2 + out_tokens / self.rng.uniform(55, 90))
        self.last_call = self.clock
        self.ctx += out_tokens
        eid = self._append({"type": "message", "message": msg})
        return eid, calls

    def tool_result(self, call: tuple, text: str, is_error: bool = False, secs: tuple = (0.05, 0.6)):
        self.adv(*secs)
        cid, name = call
        msg = {"role": "toolResult", "toolCallId": cid, "toolName": name,
               "content": [{"type": "text", "text": text}], "isError": is_error,
               "timestamp": ms(self.clock) - self.rng.randint(1, 5)}
        self.ctx += est_tokens(text) + 6
        return self._append({"type": "message", "message": msg})

    # -- conveniences ----------------------------------------------------------------------------
    def say(self, text: str, think: str | None = None, ttl: bool = False):
        blocks = ([("think", think)] if think else []) + [("text", text)]
        eid, _ = self.assistant(blocks)
        if ttl:
            self.cache_ttl()
        return eid

    def tool(self, name: str, args: dict, result: str, think: str | None = None, pre: str | None = None,
             is_error: bool = False, secs: tuple = (0.05, 0.6)):
        blocks = ([("think", think)] if think else []) + ([("text", pre)] if pre else []) + [("tool", name, args)]
        _, calls = self.assistant(blocks)
        return self.tool_result(calls[0], result, is_error, secs)

    def tools(self, calls: list, think: str | None = None, pre: str | None = None):
        """Parallel tool calls: calls = [(name, args, result_text), ...]."""
        blocks = ([("think", think)] if think else []) + ([("text", pre)] if pre else [])
        blocks += [("tool", n, a) for n, a, _ in calls]
        _, ids = self.assistant(blocks)
        for cid, (_, _, res) in zip(ids, calls):
            self.tool_result(cid, res)

    def lines(self) -> list[str]:
        return [dumps_line(self.header)] + [dumps_line(e) for e in self.entries]


# =============================================================================================
# Report project data: October / November cloud bills (generated, then cleaned like the agent did)
# =============================================================================================
USD_RATE_OCT = 7.1250   # 2026-10 average rate used in the report

# (provider, service, project, daily base CNY)
DAILY_ITEMS = [
    ("阿里云", "ECS", "report-api", 1180.0),
    ("阿里云", "ECS", "data-pipeline", 760.0),
    ("阿里云", "OSS", "data-pipeline", 282.0),
    ("阿里云", "CDN", "linkdrop", 415.0),
    ("阿里云", "RDS", "report-api", 648.0),
    ("腾讯云", "CVM", "infra-shared", 805.0),
    ("腾讯云", "COS", "linkdrop", 118.0),
    ("腾讯云", "CLB", "infra-shared", 92.0),
]
# weekly Cloudflare invoices in USD (service, project, base USD)
WEEKLY_USD = [("R2", "linkdrop", 31.0), ("Workers", "linkdrop", 12.5)]


def gen_month(rng: random.Random, year: int, month: int, last_day: int):
    """Return (raw_rows, clean_rows). raw has the dirt a real console export has."""
    clean = []
    for day in range(1, last_day + 1):
        d = date(year, month, day)
        weekend = d.weekday() >= 5
        for prov, svc, proj, base in DAILY_ITEMS:
            f = rng.uniform(0.9, 1.12) * (0.93 if weekend and svc in ("ECS", "CVM") else 1.0)
            if svc == "CDN" and month == 10 and day in (18, 19, 20):
                f *= 3.4          # the 双十一 pre-sale traffic spike the agent finds later
            clean.append([d.isoformat(), prov, svc, proj, round(base * f, 2), "CNY", ""])
        if d.weekday() == 0:     # Cloudflare bills weekly, on Mondays, in USD
            for svc, proj, usd in WEEKLY_USD:
                clean.append([d.isoformat(), "Cloudflare", svc, proj, round(usd * rng.uniform(0.85, 1.2), 2), "USD", "weekly"])
    if month == 10:
        clean.append(["2026-10-15", "阿里云", "ECS", "report-api", -212.40, "CNY", "退款：实例降配差价"])
        clean.append(["2026-10-28", "腾讯云", "CVM", "infra-shared", -96.00, "CNY", "退款：代金券抵扣"])
        clean.append(["2026-10-09", "阿里云", "OSS", "", 57.30, "CNY", "未打标签的 bucket"])
    clean.sort(key=lambda r: (r[0], r[1], r[2], r[3]))
    # --- make it dirty the way console exports are
    raw = []
    for i, r in enumerate(clean):
        amt = r[4]
        if r[5] == "CNY" and rng.random() < 0.18:
            amt_s = f"¥{amt:,.2f}"
        elif r[5] == "CNY" and rng.random() < 0.12:
            amt_s = f"{amt:,.2f}"
        else:
            amt_s = f"{amt:.2f}"
        prov = r[1] + (" " if rng.random() < 0.05 else "")
        raw.append([r[0], prov, r[2], r[3], amt_s, r[5], r[6]])
    if month == 10:
        raw.insert(57, list(raw[56]))            # exact duplicate rows (export overlap)
        raw.insert(140, list(raw[139]))
        raw.insert(150, ["日期", "云厂商", "产品", "项目", "金额", "币种", "备注"])  # second export part header
        raw.insert(151, [])
        raw.insert(210, [])
    return raw, clean


def to_cny(r) -> float:
    return round(r[4] * USD_RATE_OCT, 2) if r[5] == "USD" else r[4]


def csv_text(header, rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(r)
    return buf.getvalue()


class ReportData:
    def __init__(self, rng: random.Random):
        self.oct_raw, oct_clean = gen_month(rng, 2026, 10, 31)
        self.nov_raw, nov_clean = gen_month(rng, 2026, 11, 27)
        hdr = ["日期", "云厂商", "产品", "项目", "金额", "币种", "备注"]
        self.oct_raw_csv = csv_text(hdr, self.oct_raw)
        self.nov_raw_csv = csv_text(hdr, self.nov_raw)
        self.oct_rows = [[r[0], r[1], r[2], r[3] or "unassigned", to_cny(r)] for r in oct_clean]
        self.nov_rows = [[r[0], r[1], r[2], r[3] or "unassigned", to_cny(r)] for r in nov_clean]
        chdr = ["date", "provider", "service", "project", "amount_cny"]
        self.oct_clean_csv = csv_text(chdr, [[*r[:4], f"{r[4]:.2f}"] for r in self.oct_rows])
        self.raw_lines = self.oct_raw_csv.count("\n")
        self.raw_data_lines = self.raw_lines - 1
        self.dupes, self.blank, self.extra_hdr = 2, 2, 1
        self.usd_rows = sum(1 for r in oct_clean if r[5] == "USD")
        self.refunds = sum(1 for r in oct_clean if r[4] < 0)
        self.total = round(sum(r[4] for r in self.oct_rows), 2)
        self.by_provider = self._group(self.oct_rows, 1)
        self.by_project = self._group(self.oct_rows, 3)
        self.by_service = self._group(self.oct_rows, 2, key2=1)
        self.nov_total = round(sum(r[4] for r in self.nov_rows), 2)
        self.nov_until_20 = [r for r in self.nov_rows if r[0] <= "2026-11-20"]
        cdn = [r for r in self.oct_rows if r[2] == "CDN"]
        self.cdn_top = sorted(cdn, key=lambda r: -r[4])[:5]
        self.cdn_total = round(sum(r[4] for r in cdn), 2)

    @staticmethod
    def _group(rows, idx, key2=None):
        acc = {}
        for r in rows:
            k = r[idx] if key2 is None else f"{r[key2]} {r[idx]}"
            acc[k] = round(acc.get(k, 0) + r[4], 2)
        return dict(sorted(acc.items(), key=lambda kv: -kv[1]))

    def share(self, v):
        return v / self.total * 100

    def provider_table(self) -> str:
        lines = ["| 云厂商 | 10 月费用（元） | 占比 |", "| --- | ---: | ---: |"]
        for k, v in self.by_provider.items():
            lines.append(f"| {k} | {v:,.2f} | {self.share(v):.1f}% |")
        lines.append(f"| **合计** | **{self.total:,.2f}** | 100% |")
        return "\n".join(lines)

    def project_table(self) -> str:
        lines = ["| 项目 | 10 月费用（元） | 占比 |", "| --- | ---: | ---: |"]
        for k, v in self.by_project.items():
            lines.append(f"| {k} | {v:,.2f} | {self.share(v):.1f}% |")
        return "\n".join(lines)


def make_report_db(path: str, data: ReportData, upto: str):
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA page_size=4096")
    con.execute("""CREATE TABLE cost_items (
        id INTEGER PRIMARY KEY,
        date TEXT NOT NULL,
        provider TEXT NOT NULL,
        service TEXT NOT NULL,
        project TEXT NOT NULL DEFAULT 'unassigned',
        amount_cny REAL NOT NULL,
        source TEXT NOT NULL
    )""")
    con.execute("CREATE INDEX idx_cost_items_date ON cost_items(date)")
    rows = [(*r, "costs-2026-10.clean.csv") for r in data.oct_rows]
    rows += [(*r, "costs-2026-11-partial.csv") for r in data.nov_rows if r[0] <= upto]
    con.executemany("INSERT INTO cost_items(date, provider, service, project, amount_cny, source) VALUES (?,?,?,?,?,?)", rows)
    con.commit()
    con.execute("VACUUM")
    con.close()


# =============================================================================================
# Workspace text files
# =============================================================================================
AGENTS_MD = """# AGENTS.md - 小满的工作区

This folder is home. 这里是你的家，按下面的规矩来。

## 每次会话开始时

1. 读 `SOUL.md`：你是谁
2. 读 `USER.md`：你在帮谁（陈宇，他的偏好都在里面）
3. 读 `memory/` 里今天和昨天的日记（`memory/YYYY-MM-DD.md`）
4. **只在主会话（和陈宇直接聊天）里** 读 `MEMORY.md`；群聊、共享频道里不要读，里面有私人信息

不用问许可，直接读。

## 记忆 Memory

你每次醒来都是"新的"，文件就是你的连续性：

- **每日笔记**：`memory/YYYY-MM-DD.md` — 当天发生了什么，原始记录
- **长期记忆**：`MEMORY.md` — 提炼过的：决定、偏好、项目状态、经验教训
- 想记住的东西就**写进文件**。"mental notes" 不会在重启后留下来。
- 某条记忆过时了，不要直接删：在行尾标 `[过时]`（或 `（过时）`、`[outdated]`），清理交给 Apollo 的中度自噬，陈宇确认后才删。
- 新决定推翻旧决定时，写新的一条并注明替代了哪条，旧的留着等确认。

## 安全

- 不要外泄私人数据。Never.
- 破坏性命令先问。`trash` > `rm`。
- 不确定就问。
- 工作区清理（临时文件、日志、损坏文件）走 Apollo：先出计划、打快照、再删。

## 对外 vs 对内

可以随便做：读文件、整理、在工作区里干活、查资料。
先问再做：发邮件/发消息给别人、任何会离开这台机器的东西、删除。

## 群聊

你能看到陈宇的东西，不代表要替他说话。在群里：被点名或者真有价值再开口，否则 `NO_REPLY`。

## 心跳 Heartbeats

收到心跳（消息就是配置里的 heartbeat prompt）时，按 `HEARTBEAT.md` 的清单检查；没事就只回 `HEARTBEAT_OK`。
不要在心跳里翻旧账、重复以前的任务。22:00 以后除非紧急不要打扰。
心跳可以顺手做的安静工作：整理 `memory/`、把日记里值得长期保留的东西提炼进 `MEMORY.md`。

## 工具

技能在 `skills/` 下（每个都有 `SKILL.md`）。机器、IP、SSH 别名这些本地信息记在 `TOOLS.md`。

## 格式

- Telegram：不要用 Markdown 表格，用列表
- Webchat：表格可以用
- 金额：人民币、两位小数、千分位（见 USER.md）
"""

SOUL_MD = """# SOUL.md - 你是谁

*你不是客服机器人，你是在帮一个具体的人过日子、干活。*

## 核心

**真的有用，而不是表演有用。** 少说"好问题！""很乐意帮忙！"，直接干活。

**可以有观点。** 觉得方案不好就说，给理由。陈宇喜欢被反驳，不喜欢被糊弄。

**先自己想办法。** 读文件、查上下文、搜一下，实在不行再问。带着答案回来，而不是带着问题。

**靠谱换信任。** 你能碰到他的机器、仓库、账单。对外的动作要谨慎，对内的（读、整理、学习）可以大胆。

## 边界

- 私事就是私事
- 不确定就先问，尤其是对外的动作
- 不要发半成品消息到任何渠道

## 风格

简洁。该详细的时候详细。技术问题上严谨，闲聊的时候可以轻松一点。偶尔用 emoji，别刷屏。

## 连续性

每次会话你都是新的。这些文件就是你的记忆：读它们，更新它们。
如果你改了这个文件，告诉陈宇——这是你的灵魂，他应该知道。
"""

IDENTITY_MD = """# IDENTITY.md - Who Am I?

- **Name:** 小满 (Xiaoman)
- **Creature:** 住在客厅那台 NUC 里的龙虾助手
- **Vibe:** 靠谱、话不多、偶尔冷幽默
- **Emoji:** 🦞
- **Avatar:** avatars/xiaoman.png

---

名字是陈宇起的：「小满」——小得盈满，刚刚好，不贪多。
"""

USER_MD = """# USER.md - About Your Human

- **Name:** 陈宇 (Chen Yu)
- **What to call them:** 陈宇 / 宇哥（他不介意）
- **Pronouns:** 他 / he
- **Timezone:** Asia/Shanghai (GMT+8)
- **Telegram:** @chenyu_dev (id 5829174630)
- **Notes:** 基础设施 / 后端工程师，在上海一家中型公司做运维平台。家里有一台 NUC（跑 OpenClaw、Gitea）和一台树莓派 4。

## 偏好 Preferences

- 以后都用中文回复（2026-11-27 起；Telegram 上他打英文时可以回英文）。代码注释也用中文。
- 金额统一用人民币，保留两位小数，千分位分隔（例：¥136,731.63）。
- Always use metric units (°C, km, km/h, mm). 24-hour time. (2026-11-24)
- 日期格式 YYYY-MM-DD。
- 表格只在 webchat 里用，Telegram 里用列表。
- 不喜欢客套话，结论先行。

## Context

- 周报 / 月报交给李总（lizong@chenyu-lab.cn），抄送 ops 组（ops@chenyu-lab.cn）。
- 财务对接人：王姐（预算相关问题找她）。
- 喜欢周末去杭州九溪、龙井一带徒步。
- 正在把家里的服务从树莓派挪到 NUC。
"""

TOOLS_MD = """# TOOLS.md - Local Notes

技能定义工具怎么用；这个文件记的是**这台机器和这个环境**的具体信息。

## 机器 / Hosts

| 名字 | 地址 | 说明 |
| --- | --- | --- |
| nuc | 192.168.1.10 (nuc.lan) | 主力机，OpenClaw + Gitea（2026-11-25 起） |
| pi4 | 192.168.1.23 (pi4.lan) | 树莓派 4，旧 Gitea，准备退役 |
| nas | 192.168.1.20 (nas.lan) | 群晖，备份盘，SMB 共享 //nas.lan/backup（待确认） |
| staging-1 | 10.0.5.31 | 公司 staging，**2026-12 下线** |
| staging-2 | 10.0.5.32 | 公司 staging（新部署目标） |
| pg-report | 10.0.3.21 | 公司 PostgreSQL，别的组在用 |

## SSH

- `ssh pi4` → chenyu@pi4.lan（key: ~/.ssh/id_ed25519）
- `ssh stg1` / `ssh stg2` → deploy@10.0.5.31 / deploy@10.0.5.32（需要先连公司 VPN）
- `ssh nas` → admin@nas.lan:2222

## 部署

- linkdrop: `cd ~/src/linkdrop && ./deploy.sh <target>`，target 现在是 staging-2
- report-api: 走公司 CI，不要手动部署

## 天气

- 默认城市：上海；徒步查杭州（九溪）
- 一律公制：`?m`

## 报告项目

- 数据：`projects/report/data/report.db`（SQLite，表 cost_items）
- 清洗脚本：`projects/report/scripts/clean_csv.py`
- 汇总脚本：`projects/report/scripts/aggregate.py`
"""

HEARTBEAT_MD = """# HEARTBEAT.md

# 心跳检查清单 - 保持简短，省 token。没事就只回 HEARTBEAT_OK。

- 看 reminders/ 里有没有 24 小时内到期的提醒（看 expires 字段），有就提醒我一次
- Q4 成本报告 2026-12-01（周一）12:00 截止：工作日下午检查一次 projects/report/draft.md，第三节没写完就提醒
- 检查 logs/heartbeat.log 最后一条是不是 error，是的话告诉我
- 22:00 - 08:00 不要打扰，除非是紧急的事，直接 HEARTBEAT_OK
- 不要重复已经提醒过的事
"""

WEATHER_SKILL_MD = """---
name: weather
description: 查询当前天气和未来几天的预报（wttr.in / Open-Meteo，无需 API key）。用户问天气、温度、会不会下雨、周末适不适合出门时使用。
homepage: https://wttr.in/:help
metadata: {"openclaw":{"emoji":"🌤️","requires":{"bins":["curl"]}}}
---

# Weather 天气

两个免费服务，都不需要 API key。**陈宇要求一律公制（°C、km/h、mm），加 `?m`。**

## wttr.in（首选）

一行看现在：
```bash
curl -s "wttr.in/Shanghai?m&format=3"
# Shanghai: ⛅️ +12°C
```

紧凑格式：
```bash
curl -s "wttr.in/Hangzhou?m&format=%l:+%c+%t+%h+%w"
```

JSON（适合按小时挑时间段）：
```bash
curl -s "wttr.in/Hangzhou?format=j1" | jq '.weather[] | {date, maxtempC, mintempC}'
```

小技巧：
- 空格用 `+`：`wttr.in/New+York`
- 只看今天 `?1`，只看当前 `?0`
- 中文地名可以直接用，但拼音更稳：`wttr.in/Hangzhou`

## Open-Meteo（备用，JSON）

```bash
curl -s "https://api.open-meteo.com/v1/forecast?latitude=30.21&longitude=120.12&hourly=temperature_2m,precipitation_probability&timezone=Asia%2FShanghai"
```

九溪大概坐标：30.21, 120.12。

## 回复格式

- Telegram：列表，不要表格
- 给结论：适不适合出门、要不要带伞
"""

REPORT_SKILL_MD = """---
name: cost-report
description: 帮陈宇做云成本月报/季报：清洗各云厂商导出的账单 CSV、导入 SQLite、按厂商/项目/产品汇总、更新 projects/report/draft.md。用户提到成本报告、账单、云费用、预算时使用。
metadata: {"openclaw":{"emoji":"📊","requires":{"bins":["python3","sqlite3"]},"homepage":"https://git.nuc.lan/chenyu/report-tools"}}
---

# Cost report 成本报告

工作目录：`projects/report/`

## 流程

1. 原始导出放 `data/costs-YYYY-MM.csv`（控制台导出，格式很脏：`¥`、千分位、重复表头、空行、重复行、USD 行）
2. 清洗：
   ```bash
   python3 scripts/clean_csv.py data/costs-2026-10.csv -o data/costs-2026-10.clean.csv --usd-rate 7.1250
   ```
3. 导入 SQLite（表 `cost_items`）：
   ```bash
   python3 scripts/clean_csv.py data/costs-2026-10.csv --import data/report.db
   ```
4. 汇总：
   ```bash
   python3 scripts/aggregate.py data/report.db --month 2026-10 --json
   ```
5. 把结果写进 `draft.md` 对应章节。金额：人民币、两位小数、千分位。

## 注意

- 退款（负数）保留，不要过滤
- 没有项目标签的记到 `unassigned`
- 汇率以财务给的月均价为准（10 月：7.1250）
- 报告交付：飞书文档链接发李总，抄送 ops（2026-11-28 起不再导 PDF）
"""

MEMORY_MD = """# MEMORY.md - 长期记忆

> 主会话才读。过时的条目先标记，由 Apollo 中度自噬在陈宇确认后删除。

## 关于陈宇

- 基础设施 / 后端工程师，上海。家里 NUC + 树莓派 4 + 群晖 NAS。
- 以后都用中文回复（2026-11-27 明确要求）；Telegram 上他打英文我可以回英文。
- 金额：人民币、两位小数、千分位。
- Always metric units, 24h time (2026-11-24).
- 不喜欢客套，结论先行。
- 家里 NAS 的地址是 192.168.1.8（过时）
- 周末常去杭州九溪徒步。

## 工作

- 周报每周五 17:00 发给张经理 [过时]
- 2026-08 起周报、月报都交给李总（lizong@chenyu-lab.cn），抄送 ops@chenyu-lab.cn。
- 财务对接人：王姐。预算相关问题找她。
- 2026-11-10：部署目标是 staging-1（linkdrop、report-api 的 staging 都在这台，10.0.5.31）。
- 2026-11-28：部署目标改为 staging-2（10.0.5.32），staging-1 12 月下线。替代 2026-11-10 那条。
- report-api 走公司 CI，不要手动部署。

## 项目：Q4 成本报告

- 截止 2026-12-01（周一）12:00，交给李总。
- 数据放 projects/report/data/report.db（SQLite，表 cost_items）。10 月数据已清洗导入（259 行）。
- 2026-11-27：交付格式定为 PDF（pandoc + 公司模板）。
- 2026-11-28：交付改为飞书文档链接，不再导 PDF（李总要在飞书里批注）。替代 11-27 那条。
- Q4 预算上限还没确认（48 万还是 52 万？），等王姐回复。
- 10 月阿里云 CDN 在 10-18 ~ 10-20 有一波双十一预热流量，费用是平时的 3 倍多。

## 家里的服务 Homelab

- [outdated] Gitea runs on the Raspberry Pi (pi4.lan:3000), SQLite on the SD card.
- 2026-11-24: decided Gitea on the NUC would use PostgreSQL (SD-card SQLite was locking).
- 2026-11-25: switched back to SQLite for Gitea, on the NUC's NVMe — the problem was the SD card, not SQLite. Supersedes the PostgreSQL decision.
- 2026-11-26: Gitea migration to the NUC done. Pi no longer serves Gitea.
- VPN 用 WireGuard，配置在 ~/wg0.conf <!-- outdated -->
- 公司 VPN 现在用 OpenVPN，配置在 ~/vpn/company.ovpn（2026-10 起）。
- 【过时】OpenClaw 默认模型是 claude-sonnet-4-5
- OpenClaw 默认模型 anthropic/claude-sonnet-4-6；省钱时切 deepseek/deepseek-v4-pro。

## 经验教训

- 树莓派 SD 卡上跑有写入压力的 SQLite 会 `database is locked`，换 NVMe 就好。
- 控制台导出的账单 CSV 永远是脏的：先清洗、再核对行数，再导入。
- 批量删除之前一定要有快照。

### 2026-09 搬家清单 [过时]

- 网线、路由器、NUC 装箱
- 群晖先关机再搬
- 新家宽带 9 月 20 日装
"""

DAILY_1127 = """# 2026-11-27 周五

## Q4 成本报告
- 早上先读了 draft.md：只写了第一节和提纲。
- 清洗 10 月账单：`data/costs-2026-10.csv` {raw} 行 → `costs-2026-10.clean.csv` {clean} 行（去掉 2 行重复、1 个重复表头、2 个空行；{usd} 行 USD 按 7.1250 换算；退款 {refunds} 行保留）。
- 导入 `data/report.db`，表 `cost_items`。陈宇确认过两次是 clean 版本 ✅
- 第二节写完：10 月合计 ¥{total}，阿里云占 {ali_share}。CDN 10-18 ~ 10-20 有双十一预热的尖峰。
- 第三节（优化建议）按提纲写完了：CDN 回源 / ECS 规格 / OSS 生命周期 / 闲置资源。用的 deepseek-v4-pro（陈宇下午切的，省钱）。
- 决定：最终交付导出 PDF（pandoc + 公司模板）。

## Open questions
- ❓ Q4 预算上限：48 万还是 52 万？memory 里没有。等王姐回复。

## 偏好
- 陈宇：以后都用中文回复，代码注释也用中文。金额人民币、两位小数、千分位。→ 已写进 USER.md

## Misc
- staging-2 内网 IP：10.0.5.32（陈宇问的，TOOLS.md 里有）
- heartbeat.session 改回 `agent:main:main`（之前指向 Telegram 私聊会话 agent:main:telegram:direct:5829174630）
- 15:05 心跳提醒过一次：报告周一截止，第三节没写。下午已经写完，不用再提醒。
"""

DAILY_1128 = """# 2026-11-28 周六

## Q4 成本报告
- 第四节（预算对比）先放了占位：⚠️ 预算上限待财务确认。王姐还没回。
- **决定变更**：不导 PDF 了，改成飞书文档链接发李总（他要在飞书里批注），抄送 ops。projects/report/README.md 已更新。替代昨天的 PDF 决定。
- 11 月数据：report.db 之前只到 11-20，把 `costs-2026-11-partial.csv` 导到 11-27，11 月 1-27 日合计 ¥{nov_total}。
- 还差：第四节（等预算）、图表（陈宇说周日弄）、飞书排版。
- 陈宇反复确认了几次：交给李总、抄送 ops、周一 12:00 截止。都对。

## 部署
- staging-1 12 月下线，**以后部署目标是 staging-2**（10.0.5.32）。MEMORY.md 已更新（旧条目留着，等 Apollo 清理时确认）。

## Workspace
- 扫了一下临时文件/垃圾：*.tmp、__pycache__、build/、dist/、egg-info、.pytest_cache、*.bak、*~、*.orig、.swp、旧 log，还有几个坏掉的 JSON（data/broken-config.json 解析不了、data/events.jsonl 有一行断了、data/empty.json 是 0 字节）。
- 陈宇说先别删，等 Apollo 装好让它来清（带快照）。

## TODO
- [ ] 图表（周日）
- [ ] 第四节预算对比（等王姐）
- [ ] 飞书排版，周一 12:00 前发
"""

REPORT_README = """# Q4 基础设施成本报告

负责人：陈宇 · 截止：2026-12-01（周一）12:00 · 交付：李总，抄送 ops

## 目录

- `draft.md` — 报告草稿（进行中）
- `outline.md` — 最初的提纲
- `data/` — 原始导出、清洗后的 CSV、`report.db`（SQLite）
- `scripts/` — `clean_csv.py`（清洗 + 导入）、`aggregate.py`（汇总）

## 交付

~~导出 PDF：`pandoc draft.md -o build/q4-report.pdf --template=company.latex`~~（2026-11-28 取消）

2026-11-28 起：把 draft.md 贴进飞书文档「2026 Q4 基础设施成本报告」，链接发李总，抄送 ops@chenyu-lab.cn。
"""

OUTLINE_MD = """# Q4 成本报告提纲（2026-11-20）

1. 概述：Q4 目标、范围（阿里云 / 腾讯云 / Cloudflare）
2. 10 月费用构成：按厂商、按项目、按产品
3. 优化建议
4. Q4 预算对比（预算上限？问王姐）
5. 附录：数据来源、清洗规则、汇率
"""

CLEAN_CSV_PY = '''#!/usr/bin/env python3
"""清洗云厂商控制台导出的账单 CSV，可选导入 SQLite。"""
import argparse
import csv
import sqlite3
import sys

HEADER = ["日期", "云厂商", "产品", "项目", "金额", "币种", "备注"]


def parse_amount(s: str) -> float:
    # 去掉 ¥ 和千分位
    return float(s.replace("¥", "").replace(",", "").strip())


def clean(path: str, usd_rate: float):
    seen, rows, stats = set(), [], {"blank": 0, "header": 0, "dup": 0, "usd": 0}
    with open(path, encoding="utf-8") as f:
        reader = csv.reader(f)
        next(reader)  # 第一行表头
        for r in reader:
            if not r or not any(c.strip() for c in r):
                stats["blank"] += 1
                continue
            if r == HEADER:
                stats["header"] += 1
                continue
            key = tuple(r)
            if key in seen:
                stats["dup"] += 1
                continue
            seen.add(key)
            date, provider, service, project, amount, currency, _note = (c.strip() for c in r)
            value = parse_amount(amount)
            if currency == "USD":
                value = round(value * usd_rate, 2)
                stats["usd"] += 1
            rows.append([date, provider, service, project or "unassigned", value])
    return rows, stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("-o", "--out")
    ap.add_argument("--import", dest="db")
    ap.add_argument("--usd-rate", type=float, default=7.1250)
    a = ap.parse_args()
    rows, stats = clean(a.src, a.usd_rate)
    if a.out:
        with open(a.out, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\\n")
            w.writerow(["date", "provider", "service", "project", "amount_cny"])
            for r in rows:
                w.writerow([*r[:4], f"{r[4]:.2f}"])
    if a.db:
        con = sqlite3.connect(a.db)
        con.executemany(
            "INSERT INTO cost_items(date, provider, service, project, amount_cny, source) VALUES (?,?,?,?,?,?)",
            [(*r, a.src.rsplit("/", 1)[-1]) for r in rows],
        )
        con.commit()
    print(f"rows={len(rows)} blank={stats['blank']} header={stats['header']} dup={stats['dup']} usd={stats['usd']}", file=sys.stderr)


if __name__ == "__main__":
    main()
'''

AGGREGATE_PY = '''#!/usr/bin/env python3
"""按厂商 / 项目 / 产品汇总 cost_items。"""
import argparse
import json
import sqlite3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--month", required=True)  # YYYY-MM
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    con = sqlite3.connect(a.db)
    q = "SELECT {col}, ROUND(SUM(amount_cny), 2) FROM cost_items WHERE substr(date, 1, 7) = ? GROUP BY {col} ORDER BY 2 DESC"
    out = {"month": a.month}
    out["total"] = con.execute("SELECT ROUND(SUM(amount_cny), 2) FROM cost_items WHERE substr(date, 1, 7) = ?", (a.month,)).fetchone()[0]
    for col in ("provider", "project", "service"):
        out["by_" + col] = dict(con.execute(q.format(col=col), (a.month,)).fetchall())
    print(json.dumps(out, ensure_ascii=False, indent=2) if a.json else out)


if __name__ == "__main__":
    main()
'''

AGGREGATE_PY_ORIG = AGGREGATE_PY.replace(' --month", required=True)  # YYYY-MM', ' --month", default="2026-10")').replace(
    '    for col in ("provider", "project", "service"):', '    for col in ("provider", "project"):')


# ---- the report draft, in the versions the Chinese session sees --------------------------------
SEC2_TODO = "## 2. 10 月费用构成\n\n（待补：按厂商、按项目汇总，数据清洗完再写）\n"
SEC3_TODO = "## 3. 优化建议\n\n（待写）\n"
SEC4_TODO = "## 4. Q4 预算对比\n\n（待写：预算上限多少？问王姐）\n"


def draft_v1() -> str:
    return f"""# 2026 Q4 基础设施成本报告（草稿）

> 状态：草稿 v0.1 · 截止 2026-12-01（周一）12:00 · 负责人：陈宇 · 交付：李总（抄送 ops）

## 1. 概述

本报告统计 2026 年第四季度（10-12 月）公司基础设施在阿里云、腾讯云和 Cloudflare 上的费用，
分析费用构成，给出可执行的优化建议，并与 Q4 预算做对比。

范围：
- 阿里云：ECS、OSS、CDN、RDS
- 腾讯云：CVM、COS、CLB
- Cloudflare：R2、Workers（按周美元结算，按月均汇率折算人民币）

不在范围内：办公 SaaS、员工报销类云服务。

数据来源：各厂商控制台导出的账单明细（`data/costs-YYYY-MM.csv`），清洗后导入 `data/report.db`。
10 月数据完整，11 月为部分数据，12 月为预估。

{SEC2_TODO}
{SEC3_TODO}
{SEC4_TODO}
## 5. 附录

- 汇率：10 月月均 1 USD = 7.1250 CNY（财务口径）
- 退款（负数行）保留，计入当月
- 未打项目标签的费用记为 `unassigned`
"""


def sec2(d: ReportData) -> str:
    top_cdn = d.cdn_top[0]
    spike = [r for r in d.oct_rows if r[2] == "CDN" and r[0] in ("2026-10-18", "2026-10-19", "2026-10-20")]
    spike_sum = sum(r[4] for r in spike)
    return f"""## 2. 10 月费用构成

10 月合计 **¥{d.total:,.2f}**（{len(d.oct_rows)} 条明细，含 {d.refunds} 条退款）。

### 2.1 按云厂商

{d.provider_table()}

### 2.2 按项目

{d.project_table()}

### 2.3 值得注意

- 阿里云占 {d.share(d.by_provider['阿里云']):.1f}%，其中 ECS 一项 ¥{d.by_service['阿里云 ECS']:,.2f}，是最大的单项。
- 阿里云 CDN 10-18 ~ 10-20 三天合计 ¥{spike_sum:,.2f}（单日最高 {top_cdn[0]} ¥{top_cdn[4]:,.2f}），是平时的 3 倍多，原因是 linkdrop 的双十一预热活动流量。
- 有一个没打项目标签的 OSS bucket（¥57.30），记在 unassigned，需要找到归属。
"""


def sec3(d: ReportData) -> str:
    ecs = d.by_service["阿里云 ECS"]
    oss = d.by_service["阿里云 OSS"]
    cdn = d.cdn_total
    return f"""## 3. 优化建议

按优先级排列，金额按 10 月实际数据估算（月度）。

1. **ECS 规格调整**（预计 ¥{ecs * 0.12:,.2f}/月）
   report-api 的 4 台 ecs.g7.2xlarge 平均 CPU 利用率 18%，降到 g7.xlarge 并开启弹性伸缩，按 10 月 ECS 费用 ¥{ecs:,.2f} 的约 12% 估算。
2. **CDN 回源与缓存**（预计 ¥{cdn * 0.15:,.2f}/月）
   linkdrop 静态资源缓存 TTL 只有 10 分钟，回源流量偏高；调整到 1 天并开启 Brotli。活动期间提前预热。
3. **OSS 生命周期**（预计 ¥{oss * 0.3:,.2f}/月）
   data-pipeline 的中间结果 30 天后转低频、90 天后转归档；目前全部是标准存储（10 月 ¥{oss:,.2f}）。
4. **闲置资源清理**（预计 ¥57.30/月起）
   未打标签的 OSS bucket、两块未挂载的云盘，找到负责人后释放。

合计预计每月节省约 ¥{ecs * 0.12 + cdn * 0.15 + oss * 0.3 + 57.30:,.2f}。
"""


SEC4_DONE = """## 4. Q4 预算对比

> ⚠️ **预算上限待财务确认**（48 万还是 52 万？已问王姐，尚未回复）。下表先按两种口径并列。

| 口径 | Q4 预算 | 10 月实际 + 11 月（至 27 日）+ 12 月预估 | 结论 |
| --- | ---: | ---: | --- |
| 48 万 | ¥480,000.00 | 待补 | 待补 |
| 52 万 | ¥520,000.00 | 待补 | 待补 |
"""


def draft_final(d: ReportData) -> str:
    return (draft_v1().replace("草稿 v0.1", "草稿 v0.3").replace(SEC2_TODO, sec2(d))
            .replace(SEC3_TODO, sec3(d)).replace(SEC4_TODO, SEC4_DONE))


# =============================================================================================
# Heartbeat log + history (entries older and newer than 30 days before 2026-11-29)
# =============================================================================================
def heartbeat_log(rng: random.Random) -> str:
    """One line per heartbeat run, each starting with an ISO 8601 timestamp; two error entries
    carry indented continuation lines. Entries before 2026-10-30 are older than 30 days
    relative to the demo clock 2026-11-29T12:00+08:00."""
    events = []   # (datetime, [lines])
    day = date(2026, 9, 15)
    end = date(2026, 11, 29)
    while day <= end:
        # the heartbeat target was the Telegram DM session from 11-20 to 11-26 (see memory/2026-11-27.md)
        session = f"agent:main:telegram:direct:{TG_ID}" if date(2026, 11, 20) <= day <= date(2026, 11, 26) else "agent:main:main"
        for hh in (9, 12, 15, 18, 21):
            if day == end and hh > 9:
                break
            if (day, hh) in ((date(2026, 10, 3), 15), (date(2026, 11, 21), 18)):
                continue   # these runs failed, see below
            t = datetime(day.year, day.month, day.day, hh, 0, tzinfo=CST) + timedelta(seconds=rng.randint(1, 9), milliseconds=rng.randint(0, 999))
            stamp = t.isoformat(timespec="milliseconds")
            dur = rng.randint(2100, 9800)
            toks = rng.randint(11800, 26000) + (day - date(2026, 9, 15)).days * 310
            roll = rng.random()
            if roll < 0.04:
                line = f"{stamp} WARN  heartbeat skipped reason=requests-in-flight session={session}"
            elif roll < 0.07:
                line = f"{stamp} INFO  heartbeat alert delivered channel=telegram chars={rng.randint(40, 180)} session={session} durationMs={dur}"
            else:
                line = f"{stamp} INFO  heartbeat ok reply=HEARTBEAT_OK session={session} durationMs={dur} promptTokens={toks}"
            events.append((t, [line]))
        day += timedelta(days=1)
    t = datetime(2026, 10, 3, 15, 0, 5, 212000, tzinfo=CST)
    events.append((t, [f"{t.isoformat(timespec='milliseconds')} ERROR heartbeat run failed session=agent:main:main error=FailoverError: LLM request timed out after 120000ms",
                       "    at runEmbeddedAgent (file:///usr/lib/node_modules/openclaw/dist/reply-BCcP6j4h.js:36702:17)",
                       "    provider=anthropic model=claude-sonnet-4-5 attempt=2/2"]))
    s = f"agent:main:telegram:direct:{TG_ID}"
    t = datetime(2026, 11, 21, 18, 0, 4, 877000, tzinfo=CST)
    events.append((t, [f"{t.isoformat(timespec='milliseconds')} ERROR heartbeat run failed session={s} error=Error: 529 overloaded_error",
                       "    retrying in 30s (attempt 1/2)"]))
    t = datetime(2026, 11, 21, 18, 0, 41, 90000, tzinfo=CST)
    events.append((t, [f"{t.isoformat(timespec='milliseconds')} INFO  heartbeat ok reply=HEARTBEAT_OK session={s} durationMs=6120 promptTokens=39811"]))
    events.sort(key=lambda e: e[0])
    return "\n".join(l for _, ls in events for l in ls) + "\n"


def heartbeat_history() -> str:
    sections = [
        ("2026-09-15 10:00", ["第一次跑心跳，HEARTBEAT.md 只有两条：提醒事项、报告截止。", "结果：HEARTBEAT_OK"]),
        ("2026-09-22 15:00", ["reminders/2026-10-01-renew-domain.json 还有 9 天到期，先不提醒。", "结果：HEARTBEAT_OK"]),
        ("2026-09-30 09:00", ["域名 chenyu-lab.cn 明天到期 → 已在 Telegram 提醒陈宇。", "陈宇回复：已经续了 3 年，提醒文件可以删了（还没删）。"]),
        ("2026-10-03 15:00", ["心跳失败：LLM 请求超时（claude-sonnet-4-5），重试也超时。", "下一次 18:00 正常。"]),
        ("2026-10-12 21:00", ["logs/heartbeat.log 最后一条正常。", "结果：HEARTBEAT_OK"]),
        ("2026-10-20 12:00", ["提醒陈宇：阿里云 CDN 费用告警（日费用超过 1,000 元）。", "他说是双十一预热，正常。"]),
        ("2026-10-27 18:00", ["结果：HEARTBEAT_OK"]),
        ("2026-11-05 09:00", ["整理了 memory/2026-11-0[1-4].md，把 VPN 换 OpenVPN 的事提炼进 MEMORY.md。", "结果：HEARTBEAT_OK"]),
        ("2026-11-16 15:00", ["Q4 报告还没开始写，提醒了一次（截止 12-01）。"]),
        ("2026-11-20 09:00", ["heartbeat.session 按陈宇要求改到 Telegram 私聊会话。", "结果：HEARTBEAT_OK"]),
        ("2026-11-21 18:00", ["529 overloaded，30 秒后重试成功。", "结果：HEARTBEAT_OK"]),
        ("2026-11-25 12:00", ["Gitea 迁移中，NUC 上的 postgres 容器正常。", "结果：HEARTBEAT_OK"]),
        ("2026-11-27 15:00", ["报告周一截止，第三节（优化建议）还没写 → 已提醒。", "heartbeat.session 改回 agent:main:main。"]),
        ("2026-11-28 10:40", ["结果：HEARTBEAT_OK"]),
        ("2026-11-28 22:30", ["安静时段，直接 HEARTBEAT_OK。"]),
        ("2026-11-29 09:00", ["reminders/2026-12-01-report-due.json 还有两天，工作日再提醒。", "结果：HEARTBEAT_OK"]),
    ]
    out = ["# 心跳记录 Heartbeat history", "", "每次心跳里做了什么、提醒了什么。老的记录超过 30 天可以清理。", ""]
    for head, bullets in sections:
        out.append(f"## {head}")
        out.append("")
        out += [f"- {b}" for b in bullets]
        out.append("")
    return "\n".join(out)


# =============================================================================================
# Small binary helpers (deterministic)
# =============================================================================================
def tiny_png(w=16, h=16) -> bytes:
    import struct
    import zlib

    def chunk(t, data):
        c = struct.pack(">I", len(data)) + t + data
        return c + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes((230, 80 + y * 8, 60) * w) for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def pyc_bytes(source: str, name: str, src_mtime: int) -> bytes:
    import importlib.util
    code = compile(source, name, "exec")
    return (importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") + src_mtime.to_bytes(4, "little")
            + (len(source.encode()) & 0xFFFFFFFF).to_bytes(4, "little") + marshal.dumps(code))


def targz_bytes(files: dict, mtime: int) -> bytes:
    tbuf = io.BytesIO()
    with tarfile.open(fileobj=tbuf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for name, data in files.items():
            ti = tarfile.TarInfo(name)
            ti.size, ti.mtime, ti.mode, ti.uname, ti.gname = len(data), mtime, 0o644, "chenyu", "chenyu"
            tf.addfile(ti, io.BytesIO(data))
    gbuf = io.BytesIO()
    with gzip.GzipFile(fileobj=gbuf, mode="wb", mtime=mtime, compresslevel=9) as gz:
        gz.write(tbuf.getvalue())
    return gbuf.getvalue()


def zip_bytes(files: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zi = zipfile.ZipInfo(name, date_time=(2026, 11, 19, 23, 12, 4))
            zi.external_attr = 0o644 << 16
            zf.writestr(zi, data)
    return buf.getvalue()


def vim_swap(path_in_ws: str) -> bytes:
    head = b"b0VIM 9.1" + b"\x00" * 3 + (b"\x00" * 16) + b"chenyu" + b"\x00" * 34 + b"nuc" + b"\x00" * 37
    head += (WS_ABS + "/" + path_in_ws).encode() + b"\x00"
    return head.ljust(4096, b"\x00") + b"tp\x00\x00" + b"\x00" * 2044 + b"ad\x00\x00" + b"## 3. \xe4\xbc\x98\xe5\x8c\x96\xe5\xbb\xba\xe8\xae\xae\n".ljust(2044, b"\x00")


# =============================================================================================
# Build the workspace
# =============================================================================================
class Tree:
    """Collects files with explicit mtimes; writes them and then fixes every mtime."""

    def __init__(self, root: str):
        self.root = root
        self.mtimes: dict[str, datetime] = {}
        self.links: dict[str, datetime] = {}

    def put(self, rel: str, content, when: str):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        with open(path, "wb") as f:
            f.write(data)
        self.mtimes[rel] = local(when)

    def symlink(self, rel: str, target: str, when: str):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(target, path)
        self.links[rel] = local(when)

    def finish(self, dir_default: str):
        for rel, dt in self.mtimes.items():
            ts = dt.timestamp()
            os.utime(os.path.join(self.root, rel), (ts, ts))
        for rel, dt in self.links.items():
            ts = dt.timestamp()
            os.utime(os.path.join(self.root, rel), (ts, ts), follow_symlinks=False)
        # directories: newest mtime of their direct children (bottom-up), else the default
        for dirpath, dirnames, filenames in sorted(os.walk(self.root), key=lambda w: -w[0].count(os.sep)):
            newest = None
            for n in filenames + dirnames:
                st = os.lstat(os.path.join(dirpath, n))
                newest = st.st_mtime if newest is None else max(newest, st.st_mtime)
            ts = newest if newest is not None else local(dir_default).timestamp()
            os.utime(dirpath, (ts, ts))


JUNK_TIME = "2026-11-20 23:14:08"     # clutter: > 24 h (and > 1 h) before the demo clock


def build_workspace(root: str, data: ReportData, rng: random.Random):
    t = Tree(root)
    # identity & memory ---------------------------------------------------------------------------
    t.put("AGENTS.md", AGENTS_MD, "2026-11-02 21:40:11")
    t.put("SOUL.md", SOUL_MD, "2026-09-14 22:03:50")
    t.put("IDENTITY.md", IDENTITY_MD, "2026-09-14 22:05:37")
    t.put("USER.md", USER_MD, "2026-11-27 09:48:02")
    t.put("TOOLS.md", TOOLS_MD, "2026-11-28 10:35:30")
    t.put("HEARTBEAT.md", HEARTBEAT_MD, "2026-11-16 20:31:09")
    t.put("MEMORY.md", MEMORY_MD, "2026-11-28 10:35:27")
    t.put("avatars/xiaoman.png", tiny_png(), "2026-09-14 22:06:02")
    fmt = dict(raw=data.raw_data_lines, clean=len(data.oct_rows), usd=data.usd_rows, refunds=data.refunds,
               total=f"{data.total:,.2f}", ali_share=f"{data.share(data.by_provider['阿里云']):.1f}%",
               nov_total=f"{data.nov_total:,.2f}")
    t.put("memory/2026-11-26.md", DAILY_1126, "2026-11-26 21:44:30")
    t.put("memory/2026-11-27.md", DAILY_1127.format(**fmt), "2026-11-27 20:41:37")
    t.put("memory/2026-11-28.md", DAILY_1128.format(**fmt), "2026-11-28 21:31:05")
    # skills ----------------------------------------------------------------------------------------
    t.put("skills/weather/SKILL.md", WEATHER_SKILL_MD, "2026-11-24 09:12:40")
    t.put("skills/cost-report/SKILL.md", REPORT_SKILL_MD, "2026-11-28 10:17:55")
    # dream task state ------------------------------------------------------------------------------
    t.put(".dream/task-state.json", json.dumps(TASK_STATE, ensure_ascii=False, indent=2) + "\n", "2026-11-28 21:31:40")
    # the report project ----------------------------------------------------------------------------
    t.put("projects/report/README.md", REPORT_README, "2026-11-28 10:16:31")
    t.put("projects/report/outline.md", OUTLINE_MD, "2026-11-20 22:47:15")
    t.put("projects/report/draft.md", draft_final(data), "2026-11-28 10:04:12")
    t.put("projects/report/data/costs-2026-10.csv", data.oct_raw_csv, "2026-11-19 22:58:00")
    t.put("projects/report/data/costs-2026-10.clean.csv", data.oct_clean_csv, "2026-11-27 09:39:26")
    t.put("projects/report/data/costs-2026-11-partial.csv", data.nov_raw_csv, "2026-11-28 08:12:41")
    make_report_db(os.path.join(root, "projects/report/data/report.db"), data, "2026-11-27")
    t.mtimes["projects/report/data/report.db"] = local("2026-11-28 14:10:03")
    t.put("projects/report/scripts/clean_csv.py", CLEAN_CSV_PY, "2026-11-27 09:38:50")
    t.put("projects/report/scripts/aggregate.py", AGGREGATE_PY, "2026-11-27 13:44:19")
    t.put("projects/report/tests/test_clean.py", TEST_CLEAN_PY, "2026-11-19 23:02:33")
    t.put("projects/homelab/gitea/docker-compose.yml", GITEA_COMPOSE_SQLITE, "2026-11-25 14:44:52")
    t.put("projects/homelab/notes.md", HOMELAB_NOTES, "2026-11-26 19:43:10")
    # reminders ---------------------------------------------------------------------------------
    t.put("reminders/2026-10-01-renew-domain.json", json.dumps(REMINDER_DOMAIN, ensure_ascii=False, indent=2) + "\n", "2026-09-12 20:15:33")
    t.put("reminders/2026-12-01-report-due.json", json.dumps(REMINDER_REPORT, ensure_ascii=False, indent=2) + "\n", "2026-11-16 15:00:09")
    t.put("reminders/2027-03-01-passport-renewal.json", json.dumps(REMINDER_PASSPORT, ensure_ascii=False, indent=2) + "\n", "2026-11-26 13:15:52")
    # logs ------------------------------------------------------------------------------------------
    hb = heartbeat_log(rng)
    last = hb.strip().splitlines()[-1][:23]
    t.put("logs/heartbeat.log", hb, last.replace("T", " ")[:19])
    t.put("logs/heartbeat-history.md", heartbeat_history(), "2026-11-29 09:00:12")
    t.put("logs/report-build.log", REPORT_BUILD_LOG, JUNK_TIME)
    # valid data files (so detectors can tell good from bad) -----------------------------------------
    t.put("data/settings.json", json.dumps(SETTINGS, ensure_ascii=False, indent=2) + "\n", "2026-11-21 10:02:17")
    t.put("data/linkdrop-stats.jsonl", "".join(dumps_line(r) + "\n" for r in LINKDROP_STATS), "2026-11-26 09:52:30")
    # corrupted / empty / broken (medium tier) ----------------------------------------------------
    good_cfg = json.dumps(BROKEN_CONFIG_SOURCE, ensure_ascii=False, indent=2)
    t.put("data/broken-config.json", good_cfg[: good_cfg.index('"retry"') + 12], "2026-11-18 02:13:44")
    ev = [dumps_line(e) for e in EVENTS]
    ev[6] = ev[6][:57]          # the process was killed mid-write
    t.put("data/events.jsonl", "\n".join(ev) + "\n", "2026-11-22 16:40:09")
    t.put("data/empty.json", b"", "2026-11-15 08:00:00")
    t.symlink("data/latest-export.csv", "../projects/report/data/costs-2026-09.csv", "2026-10-08 21:33:12")
    full = targz_bytes({"gitea/conf/app.ini": GITEA_APP_INI.encode(), "gitea/conf/README": b"pi4 gitea config backup\n"},
                       int(local("2026-11-24 14:25:00").timestamp()))
    t.put("backups/gitea-config-20261124.tar.gz", full[: len(full) // 2], "2026-11-24 14:25:31")
    # clutter (small tier) ------------------------------------------------------------------------
    t.put("scratch.tmp", "临时：10 月 CDN 尖峰 10-18~10-20，记得写进第二节\n", JUNK_TIME)
    t.put("projects/report/tmp/render-8f3a21.tmp", "<!-- pandoc intermediate -->\n" + "<p>" + "草稿渲染中间文件 " * 40 + "</p>\n", "2026-11-19 23:10:51")
    src_mtime = int(local("2026-11-19 23:01:00").timestamp())
    t.put("projects/report/scripts/__pycache__/clean_csv.cpython-312.pyc", pyc_bytes(CLEAN_CSV_PY, "clean_csv.py", src_mtime), "2026-11-19 23:02:40")
    t.put("projects/report/scripts/__pycache__/aggregate.cpython-312.pyc", pyc_bytes(AGGREGATE_PY_ORIG, "aggregate.py", src_mtime), "2026-11-19 23:02:40")
    t.put("projects/report/tests/__pycache__/test_clean.cpython-312-pytest-8.3.3.pyc", pyc_bytes(TEST_CLEAN_PY, "test_clean.py", src_mtime), "2026-11-19 23:02:41")
    t.put("projects/report/scripts/old_aggregate.pyc", pyc_bytes(AGGREGATE_PY_ORIG, "old_aggregate.py", src_mtime - 86400 * 30), "2026-10-20 22:14:03")
    t.put("projects/report/build/report-draft.html", "<!DOCTYPE html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><title>2026 Q4 基础设施成本报告（草稿）</title></head>\n<body>\n" + "<h1>2026 Q4 基础设施成本报告（草稿）</h1>\n<p>状态：草稿 v0.1</p>\n" * 3 + "</body></html>\n", "2026-11-19 23:12:00")
    t.put("projects/report/build/lib/report_tools/__init__.py", '__version__ = "0.1.0"\n', "2026-11-19 23:12:02")
    t.put("projects/report/build/lib/report_tools/clean_csv.py", CLEAN_CSV_PY, "2026-11-19 23:12:02")
    whl = zip_bytes({"report_tools/__init__.py": b'__version__ = "0.1.0"\n', "report_tools/clean_csv.py": CLEAN_CSV_PY.encode(),
                     "report_tools-0.1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: report-tools\nVersion: 0.1.0\n",
                     "report_tools-0.1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: setuptools (75.1.0)\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
                     "report_tools-0.1.0.dist-info/RECORD": b""})
    t.put("projects/report/dist/report_tools-0.1.0-py3-none-any.whl", whl, "2026-11-19 23:12:04")
    t.put("projects/report/report_tools.egg-info/PKG-INFO", "Metadata-Version: 2.1\nName: report-tools\nVersion: 0.1.0\nSummary: 云账单清洗和汇总小工具\nRequires-Python: >=3.10\n", "2026-11-19 23:11:58")
    t.put("projects/report/report_tools.egg-info/SOURCES.txt", "pyproject.toml\nreport_tools/__init__.py\nreport_tools/clean_csv.py\nreport_tools.egg-info/PKG-INFO\nreport_tools.egg-info/SOURCES.txt\nreport_tools.egg-info/dependency_links.txt\nreport_tools.egg-info/top_level.txt\n", "2026-11-19 23:11:58")
    t.put("projects/report/report_tools.egg-info/dependency_links.txt", "\n", "2026-11-19 23:11:58")
    t.put("projects/report/report_tools.egg-info/top_level.txt", "report_tools\n", "2026-11-19 23:11:58")
    t.put("projects/report/.pytest_cache/README.md", "# pytest cache directory #\n\nThis directory contains data from the pytest's cache plugin,\nwhich provides the `--lf` and `--ff` options, as well as the `cache` fixture.\n\n**Do not** commit this to version control.\n\nSee [the docs](https://docs.pytest.org/en/stable/how-to/cache.html) for more information.\n", "2026-11-19 23:02:42")
    # (pytest also writes .pytest_cache/.gitignore containing "*"; left out so git keeps this folder)
    t.put("projects/report/.pytest_cache/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by pytest.\n# For information about cache directory tags, see:\n#\thttps://bford.info/cachedir/spec.html\n", "2026-11-19 23:02:42")
    t.put("projects/report/.pytest_cache/v/cache/nodeids", json.dumps(["tests/test_clean.py::test_parse_amount", "tests/test_clean.py::test_skips_duplicate_header", "tests/test_clean.py::test_usd_conversion"], indent=2) + "\n", "2026-11-19 23:02:42")
    t.put("projects/report/.pytest_cache/v/cache/lastfailed", json.dumps({"tests/test_clean.py::test_usd_conversion": True}, indent=2) + "\n", "2026-11-19 23:02:42")
    t.put("projects/report/.pytest_cache/v/cache/stepwise", "[]\n", "2026-11-19 23:02:42")
    t.put("MEMORY.md.bak", MEMORY_MD_OLD, "2026-11-10 22:01:19")
    t.put("data/settings.json.bak", json.dumps({**SETTINGS, "heartbeatSession": f"agent:main:telegram:direct:{TG_ID}"}, ensure_ascii=False, indent=2) + "\n", "2026-11-20 08:58:40")
    t.put("notes.md~", "# notes\n\n- 报告：先清洗 10 月\n- 问王姐预算\n- gitea 迁移\n", "2026-11-19 22:40:02")
    t.put("projects/report/scripts/aggregate.py.orig", AGGREGATE_PY_ORIG, "2026-11-19 23:05:10")
    t.put("projects/report/.draft.md.swp", vim_swap("projects/report/draft.md"), "2026-11-20 00:31:47")
    t.finish("2026-11-20 00:00:00")
    return t


DAILY_1126 = """# 2026-11-26 Thu

(mostly Telegram, in English)

- Deployed linkdrop to staging-1 (`./deploy.sh staging-1`), health check OK, 41 s.
- Reminder created: passport renewal, reminders/2027-03-01-passport-renewal.json.
- Gitea on the NUC ran fine all day → **migration done**, MEMORY.md updated. Pi no longer serves Gitea (checked `docker ps` on pi4).
- Open: nightly Gitea backup to the NAS at 03:00 — need the NAS share path, 陈宇 will check (//nas.lan/backup?).
- Open question: is the NUC still under warranty? Bought 2023; need the serial / receipt.
- Switched to claude-sonnet-4-6 in the Telegram session (cost).
"""

TASK_STATE = {
    "version": 1,
    "updatedAt": "2026-11-28T21:31:40+08:00",
    "tasks": [
        {
            "id": "task-20261127-q4-cost-report",
            "title": "2026 Q4 基础设施成本报告",
            "status": "in_progress",
            "owner": "陈宇",
            "createdAt": "2026-11-20T22:47:15+08:00",
            "updatedAt": "2026-11-28T16:22:09+08:00",
            "due": "2026-12-01T12:00:00+08:00",
            "files": [
                "projects/report/draft.md",
                "projects/report/data/report.db",
                "projects/report/data/costs-2026-10.clean.csv",
                "projects/report/data/costs-2026-11-partial.csv",
                "projects/report/scripts/aggregate.py",
            ],
            "progress": [
                {"step": "清洗 10 月账单并导入 report.db", "done": True},
                {"step": "第二节：10 月费用构成", "done": True},
                {"step": "第三节：优化建议", "done": True},
                {"step": "第四节：Q4 预算对比（等王姐确认预算上限）", "done": False},
                {"step": "图表", "done": False},
                {"step": "飞书排版并发给李总，抄送 ops", "done": False},
            ],
            "openQuestions": ["Q4 预算上限是 48 万还是 52 万？"],
            "next": "周日做图表；王姐回复后补第四节",
        },
        {
            "id": "task-20261124-gitea-migration",
            "title": "Migrate Gitea from the Raspberry Pi to the NUC",
            "status": "done",
            "owner": "陈宇",
            "createdAt": "2026-11-24T08:47:31+08:00",
            "updatedAt": "2026-11-26T19:41:58+08:00",
            "completedAt": "2026-11-26T19:41:58+08:00",
            "files": ["projects/homelab/gitea/docker-compose.yml", "projects/homelab/notes.md"],
            "progress": [
                {"step": "dump Gitea on pi4", "done": True},
                {"step": "PostgreSQL on the NUC (abandoned 2026-11-25, back to SQLite)", "done": True},
                {"step": "start Gitea on the NUC with SQLite on NVMe", "done": True},
                {"step": "verify repos, users, LFS", "done": True},
            ],
        },
    ],
}

TEST_CLEAN_PY = '''from scripts.clean_csv import parse_amount


def test_parse_amount():
    assert parse_amount("¥1,234.50") == 1234.5
    assert parse_amount(" 98.76 ") == 98.76


def test_skips_duplicate_header(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("日期,云厂商,产品,项目,金额,币种,备注\\n日期,云厂商,产品,项目,金额,币种,备注\\n", encoding="utf-8")
    from scripts.clean_csv import clean
    rows, stats = clean(str(p), 7.125)
    assert rows == [] and stats["header"] == 1


def test_usd_conversion(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("日期,云厂商,产品,项目,金额,币种,备注\\n2026-10-05,Cloudflare,R2,linkdrop,10.00,USD,weekly\\n", encoding="utf-8")
    from scripts.clean_csv import clean
    rows, _ = clean(str(p), 7.125)
    assert rows[0][4] == 71.25
'''

GITEA_COMPOSE_PG = """services:
  gitea:
    image: gitea/gitea:1.22.3
    container_name: gitea
    restart: unless-stopped
    environment:
      - USER_UID=1000
      - USER_GID=1000
      - GITEA__database__DB_TYPE=postgres
      - GITEA__database__HOST=db:5432
      - GITEA__database__NAME=gitea
      - GITEA__database__USER=gitea
      - GITEA__database__PASSWD__FILE=/run/secrets/gitea_db_password
    secrets:
      - gitea_db_password
    volumes:
      - /srv/gitea:/data
      - /etc/timezone:/etc/timezone:ro
      - /etc/localtime:/etc/localtime:ro
    ports:
      - "3000:3000"
      - "2222:22"
    depends_on:
      - db

  db:
    image: postgres:16-alpine
    container_name: gitea-db
    restart: unless-stopped
    environment:
      - POSTGRES_USER=gitea
      - POSTGRES_DB=gitea
      - POSTGRES_PASSWORD_FILE=/run/secrets/gitea_db_password
    secrets:
      - gitea_db_password
    volumes:
      - gitea-pg:/var/lib/postgresql/data

secrets:
  gitea_db_password:
    file: ./secrets/gitea_db_password

volumes:
  gitea-pg:
"""

GITEA_COMPOSE_SQLITE = """services:
  gitea:
    image: gitea/gitea:1.22.3
    container_name: gitea
    restart: unless-stopped
    environment:
      - USER_UID=1000
      - USER_GID=1000
      # 2026-11-25: back to SQLite, on the NUC's NVMe (/srv is on nvme0n1p2)
      - GITEA__database__DB_TYPE=sqlite3
      - GITEA__database__PATH=/data/gitea/gitea.db
      - GITEA__database__SQLITE_JOURNAL_MODE=WAL
    volumes:
      - /srv/gitea:/data
      - /etc/timezone:/etc/timezone:ro
      - /etc/localtime:/etc/localtime:ro
    ports:
      - "3000:3000"
      - "2222:22"
"""

HOMELAB_NOTES = """# homelab notes

## Gitea (done 2026-11-26)

- Old: pi4.lan:3000, SQLite on the SD card → `database is locked` under pushes.
- 11-24 plan: NUC + PostgreSQL. 11-25: dropped Postgres, SQLite (WAL) on NVMe is plenty for one user.
- Data: /srv/gitea on the NUC. Restored from the 11-24 SQLite dump (gitea-dump-*.zip in /srv/backup).
- 14 repos, 3 users, LFS 212 MB. Counts matched after restore.

## TODO

- [ ] nightly backup of /srv/gitea to the NAS at 03:00 (share path? //nas.lan/backup?)
- [ ] retire the Pi (keep Pi-hole on it?)
"""

REMINDER_DOMAIN = {
    "id": "rem-20260912-renew-domain",
    "title": "续费域名 chenyu-lab.cn",
    "note": "阿里云域名控制台，记得开自动续费",
    "createdAt": "2026-09-12T20:15:33+08:00",
    "remindAt": "2026-09-30T09:00:00+08:00",
    "expires": "2026-10-01T09:00:00+08:00",
    "channel": "telegram",
    "status": "pending",
}
REMINDER_REPORT = {
    "id": "rem-20261116-report-due",
    "title": "Q4 成本报告截止",
    "note": "飞书文档链接发李总，抄送 ops",
    "createdAt": "2026-11-16T15:00:09+08:00",
    "remindAt": "2026-11-30T18:00:00+08:00",
    "expires": "2026-12-01T12:00:00+08:00",
    "channel": "webchat",
    "status": "pending",
}
REMINDER_PASSPORT = {
    "id": "rem-20261126-passport",
    "title": "Renew passport",
    "note": "Passport expires 2027-06; renew at the Shanghai exit-entry office (needs ~3 weeks)",
    "createdAt": "2026-11-26T13:15:09+08:00",
    "remindAt": "2027-02-22T09:00:00+08:00",
    "expires": "2027-03-01T09:00:00+08:00",
    "channel": "telegram",
    "status": "pending",
}

REPORT_BUILD_LOG = """[2026-11-19 23:11:52] pandoc draft.md -o build/report-draft.html --standalone --metadata title=Q4
[2026-11-19 23:11:53] [WARNING] This document format requires a nonempty <title> element.
[2026-11-19 23:11:53] wrote build/report-draft.html (6.1 KB)
[2026-11-19 23:11:58] python -m build --wheel
[2026-11-19 23:11:58] * Building wheel...
[2026-11-19 23:12:03] running bdist_wheel
[2026-11-19 23:12:03] running build_py
[2026-11-19 23:12:03] copying report_tools/clean_csv.py -> build/lib/report_tools
[2026-11-19 23:12:04] Successfully built report_tools-0.1.0-py3-none-any.whl
[2026-11-19 23:12:21] pandoc draft.md -o build/q4-report.pdf --template=company.latex
[2026-11-19 23:12:22] Error producing PDF.
[2026-11-19 23:12:22] ! LaTeX Error: File `ctex.sty' not found.
[2026-11-19 23:12:22] make: *** [Makefile:7: pdf] Error 43
"""

SETTINGS = {
    "timezone": "Asia/Shanghai",
    "language": "zh-CN",
    "units": "metric",
    "currency": "CNY",
    "heartbeatSession": "agent:main:main",
    "report": {"db": "projects/report/data/report.db", "usdRate": 7.125, "due": "2026-12-01T12:00:00+08:00"},
}

LINKDROP_STATS = [
    {"ts": f"2026-11-{d:02d}T23:59:00+08:00", "links": 1180 + d * 7, "clicks": 920 + (d * 37) % 300, "errors": d % 4}
    for d in range(18, 27)
]

BROKEN_CONFIG_SOURCE = {
    "service": "linkdrop-sync",
    "version": 3,
    "source": {"type": "gitea", "url": "http://pi4.lan:3000/chenyu/bookmarks.git", "branch": "main"},
    "target": {"type": "s3", "bucket": "linkdrop-archive", "region": "cn-hangzhou", "retry": {"max": 5, "backoffMs": 2000}},
    "schedule": "*/15 * * * *",
}

EVENTS = [
    {"ts": "2026-11-22T16:02:11+08:00", "event": "sync.start", "job": "linkdrop-sync"},
    {"ts": "2026-11-22T16:02:13+08:00", "event": "fetch", "repo": "chenyu/bookmarks", "commits": 3},
    {"ts": "2026-11-22T16:02:15+08:00", "event": "upload", "objects": 41, "bytes": 183220},
    {"ts": "2026-11-22T16:02:16+08:00", "event": "sync.done", "durationMs": 5120},
    {"ts": "2026-11-22T16:17:10+08:00", "event": "sync.start", "job": "linkdrop-sync"},
    {"ts": "2026-11-22T16:17:12+08:00", "event": "fetch", "repo": "chenyu/bookmarks", "commits": 0},
    {"ts": "2026-11-22T16:17:12+08:00", "event": "sync.error", "error": "database is locked", "retry": 1},
    {"ts": "2026-11-22T16:32:09+08:00", "event": "sync.start", "job": "linkdrop-sync"},
    {"ts": "2026-11-22T16:32:12+08:00", "event": "fetch", "repo": "chenyu/bookmarks", "commits": 1},
    {"ts": "2026-11-22T16:32:13+08:00", "event": "sync.done", "durationMs": 4030},
]

GITEA_APP_INI = """APP_NAME = Gitea: Git with a cup of tea
RUN_MODE = prod
RUN_USER = git

[server]
DOMAIN = pi4.lan
HTTP_PORT = 3000
ROOT_URL = http://pi4.lan:3000/
SSH_PORT = 2222
LFS_START_SERVER = true

[database]
DB_TYPE = sqlite3
PATH = /data/gitea/gitea.db

[service]
DISABLE_REGISTRATION = true
"""

MEMORY_MD_OLD = """# MEMORY.md - 长期记忆

## 关于陈宇

- 基础设施 / 后端工程师，上海。家里 NUC + 树莓派 4 + 群晖 NAS。
- 家里 NAS 的地址是 192.168.1.8
- 周末常去杭州九溪徒步。

## 工作

- 周报每周五 17:00 发给张经理
- 2026-08 起周报、月报都交给李总（lizong@chenyu-lab.cn），抄送 ops@chenyu-lab.cn。
- 财务对接人：王姐。
- 2026-11-10：部署目标是 staging-1（linkdrop、report-api 的 staging 都在这台，10.0.5.31）。

## 家里的服务

- Gitea runs on the Raspberry Pi (pi4.lan:3000), SQLite on the SD card.
- VPN 用 WireGuard，配置在 ~/wg0.conf
- OpenClaw 默认模型是 claude-sonnet-4-5

### 2026-09 搬家清单

- 网线、路由器、NUC 装箱
- 群晖先关机再搬
- 新家宽带 9 月 20 日装
"""

# versions of files as they were before the sessions edited them
TOOLS_MD_1127 = (TOOLS_MD.replace("| staging-1 | 10.0.5.31 | 公司 staging，**2026-12 下线** |", "| staging-1 | 10.0.5.31 | 公司 staging（当前部署目标） |")
                 .replace("| staging-2 | 10.0.5.32 | 公司 staging（新部署目标） |", "| staging-2 | 10.0.5.32 | 公司 staging（新机器，还没迁过去） |")
                 .replace("target 现在是 staging-2", "target 现在是 staging-1"))
README_1127 = REPORT_README.replace(
    "~~导出 PDF：`pandoc draft.md -o build/q4-report.pdf --template=company.latex`~~（2026-11-28 取消）\n\n2026-11-28 起：把 draft.md 贴进飞书文档「2026 Q4 基础设施成本报告」，链接发李总，抄送 ops@chenyu-lab.cn。\n",
    "导出 PDF：`pandoc draft.md -o build/q4-report.pdf --template=company.latex`，发李总，抄送 ops@chenyu-lab.cn。\n")
assert README_1127 != REPORT_README and TOOLS_MD_1127 != TOOLS_MD


def ls_la(entries: list, total: int) -> str:
    """entries: (mode, size, 'Mon DD HH:MM', name)"""
    out = [f"total {total}"]
    for mode, size, when, name in entries:
        links = 2 if mode.startswith("d") else 1
        out.append(f"{mode} {links} chenyu chenyu {size:>6} {when} {name}")
    return "\n".join(out)


def json_error(text: str) -> str:
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        return str(e)
    return "ok"


def junk_listing(root: str) -> str:
    """What the find command in the Chinese session printed on 2026-11-28 11:05 (one line per file)."""
    pats = (".tmp", ".pyc", ".bak", "~", ".orig", ".swp", ".log")
    dirs = ("__pycache__", "build", "dist", ".pytest_cache")
    rows = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        parts = set(rel_dir.split(os.sep))
        in_junk_dir = bool(parts & set(dirs)) or any(p.endswith(".egg-info") for p in parts)
        for f in filenames:
            if in_junk_dir or f.endswith(pats):
                full = os.path.join(dirpath, f)
                st = os.lstat(full)
                rows.append((st.st_mtime, st.st_size, os.path.normpath(os.path.join(rel_dir, f))))
    out = []
    for mt, size, rel in sorted(rows, key=lambda r: r[2]):
        if rel == "logs/heartbeat.log":      # as of 2026-11-28 11:05
            mt = local("2026-11-28 09:10:04").timestamp()
            with open(os.path.join(root, rel), encoding="utf-8") as fh:
                size = sum(len(l.encode()) for l in fh if l[:19] <= "2026-11-28T09:10:04" or not l[:4].isdigit())
        when = datetime.fromtimestamp(mt, CST).strftime("%Y-%m-%d %H:%M")
        out.append(f"{when}  {size:>8}  ./{rel}")
    total = sum(r[1] for r in rows)
    out.append(f"-- {len(rows)} files, {total} bytes")
    return "\n".join(out)


def report_api_log(rng: random.Random) -> str:
    """journalctl of report-api on staging-1 (~5 KB): the slow /export endpoint."""
    lines = []
    t = local("2026-11-26 15:40:02")
    paths = ["/api/v1/costs?month=2026-10&page={p}", "/api/v1/projects", "/healthz", "/api/v1/costs/summary?month=2026-10"]
    pid = 2113
    for i in range(60):
        t += timedelta(seconds=rng.randint(3, 40), milliseconds=rng.randint(0, 999))
        ts = t.strftime("%b %d %H:%M:%S")
        if i in (11, 23, 37, 49):
            dur = rng.randint(11800, 18900)
            lines.append(f"{ts} staging-1 report-api[{pid}]: WARN  slow query {dur}ms: SELECT date, provider, service, project, amount_cny FROM cost_items WHERE to_char(date, 'YYYY-MM') = $1 ORDER BY date")
            t += timedelta(milliseconds=dur)
            ts = t.strftime("%b %d %H:%M:%S")
            lines.append(f"{ts} staging-1 report-api[{pid}]: INFO  GET /api/v1/export?month=2026-10&format=xlsx 200 {dur + rng.randint(300, 900)}ms 612.4KB user=chenyu")
        elif i in (24, 38):
            lines.append(f"{ts} staging-1 report-api[{pid}]: ERROR pg pool exhausted (max=10, waiting=4) acquiring connection for GET /api/v1/costs/summary?month=2026-10")
        elif i == 50:
            lines.append(f"{ts} staging-1 report-api[{pid}]: ERROR GET /api/v1/export?month=2026-09&format=xlsx 504 30001ms upstream timeout")
        else:
            pth = rng.choice(paths).format(p=rng.randint(1, 12))
            ms_ = rng.randint(4, 60) if "healthz" in pth else rng.randint(38, 420)
            lines.append(f"{ts} staging-1 report-api[{pid}]: INFO  GET {pth} 200 {ms_}ms")
    return "\n".join(lines)


# =============================================================================================
# Chinese session: agent:main:main, Control UI webchat (+ one TUI message), 2026-11-27 .. 28
# =============================================================================================
def build_zh(rng: random.Random, d: ReportData, ws_root: str, session_id: str) -> Session:
    s = Session(rng, session_id, WS_ABS, local("2026-11-27 09:30:41") + timedelta(milliseconds=118),
                "anthropic", "claude-sonnet-4-6", base_ctx=21480)
    s.model_change("anthropic", "claude-sonnet-4-6")
    s.adv(0.001)
    s.thinking_level("low")
    s.model_snapshot()

    # --- 09:31 读草稿 ---------------------------------------------------------------------------
    s.at("2026-11-27 09:31:12")
    s.user("早。今天主要搞 Q4 成本报告，草稿在 projects/report/draft.md，你先看一下现在写到哪了", "webchat")
    s.tool("read", {"path": "projects/report/draft.md"}, draft_v1(),
           think="User wants a status check on the Q4 cost report draft. Read the file first.")
    s.say("看完了，现在的进度：\n\n"
          "- ✅ **第 1 节 概述**：写完了（范围：阿里云 / 腾讯云 / Cloudflare，数据来源和口径也交代了）\n"
          "- ⏳ **第 2 节 10 月费用构成**：只有占位，标注「数据清洗完再写」\n"
          "- ⏳ **第 3 节 优化建议**：空\n"
          "- ⏳ **第 4 节 Q4 预算对比**：空，备注里写着「预算上限多少？问王姐」\n"
          "- ✅ 附录：汇率 7.1250、退款和 unassigned 的口径\n\n"
          "卡点在第 2 节：`data/costs-2026-10.csv` 还是控制台导出的原始文件，没清洗过。要我先把 10 月账单清洗一下吗？")

    # --- 09:36 清洗 10 月账单 ------------------------------------------------------------------
    s.at("2026-11-27 09:35:48")
    s.user("好的，先清洗 10 月账单", "webchat")
    raw_size = len(d.oct_raw_csv.encode())
    s.tool("exec", {"command": "ls -la projects/report/data/ && wc -l projects/report/data/costs-2026-10.csv"},
           ls_la([("drwxr-xr-x", 4096, "Nov 19 22:58", "."), ("drwxr-xr-x", 4096, "Nov 20 22:47", ".."),
                  ("-rw-r--r--", raw_size, "Nov 19 22:58", "costs-2026-10.csv")], 20)
           + f"\n{d.raw_lines} projects/report/data/costs-2026-10.csv",
           think="Check what's in the data dir and how big the raw export is.")
    head = "\n".join(d.oct_raw_csv.splitlines()[:40])
    s.tool("exec", {"command": "head -n 40 projects/report/data/costs-2026-10.csv; echo ...; sed -n '148,156p' projects/report/data/costs-2026-10.csv"},
           head + "\n...\n" + "\n".join(d.oct_raw_csv.splitlines()[147:156]))
    s.tool("write", {"path": "projects/report/scripts/clean_csv.py", "content": CLEAN_CSV_PY},
           f"Successfully wrote {len(CLEAN_CSV_PY)} bytes to projects/report/scripts/clean_csv.py",
           think=("The export is dirty: amounts with ¥ prefix and thousands separators (some quoted), trailing spaces in provider, "
                  "a second header row around line 151 (two export parts concatenated), blank lines, and probably duplicated rows at the seam. "
                  "Cloudflare rows are USD weekly. Write a small cleaner: strip ¥/commas, skip blank + repeated header, dedupe exact rows, "
                  "convert USD at 7.1250 (appendix says that's the finance rate), empty project -> unassigned, keep refunds."),
           pre="数据比较脏：金额有 `¥` 前缀和千分位、厂商名后面有空格、中间还夹了第二段导出的表头和空行。我写个清洗脚本。")
    s.tool("exec", {"command": "cd projects/report && python3 scripts/clean_csv.py data/costs-2026-10.csv -o data/costs-2026-10.clean.csv --usd-rate 7.1250 && wc -l data/costs-2026-10.clean.csv && tail -n 3 data/costs-2026-10.clean.csv"},
           f"rows={len(d.oct_rows)} blank={d.blank} header={d.extra_hdr} dup={d.dupes} usd={d.usd_rows}\n"
           f"{len(d.oct_rows) + 1} data/costs-2026-10.clean.csv\n" + "\n".join(d.oct_clean_csv.splitlines()[-3:]),
           secs=(0.3, 0.9))
    s.say(f"清洗完成 ✅ `data/costs-2026-10.clean.csv`\n\n"
          f"- 原始 {d.raw_data_lines} 行 → 清洗后 **{len(d.oct_rows)} 行**\n"
          f"- 去掉：重复行 {d.dupes} 行、第二段导出的重复表头 1 行、空行 {d.blank} 行\n"
          f"- Cloudflare 的 {d.usd_rows} 行 USD 按 7.1250 折成人民币\n"
          f"- 退款 {d.refunds} 行（负数）保留；1 行没有项目标签，记为 `unassigned`\n\n"
          f"10 月合计 **¥{d.total:,.2f}**。脚本在 `scripts/clean_csv.py`，11 月的账单也能直接用。", ttl=True)

    s.at("2026-11-27 09:44:05")
    s.user("收到", "webchat")
    s.say("👌 下一步可以导进 SQLite 再做汇总，你说一声就开始。")

    # --- 09:47 偏好 -------------------------------------------------------------------------------
    s.at("2026-11-27 09:47:21")
    s.user("对了，以后都用中文回复，代码注释也用中文。金额统一用人民币，保留两位小数，加千分位。", "webchat")
    s.tool("edit", {"path": "USER.md", "edits": [{
        "oldText": "## 偏好 Preferences\n\n- Always use metric units",
        "newText": "## 偏好 Preferences\n\n- 以后都用中文回复（2026-11-27 起；Telegram 上他打英文时可以回英文）。代码注释也用中文。\n- 金额统一用人民币，保留两位小数，千分位分隔（例：¥136,731.63）。\n- Always use metric units"}]},
           "Successfully replaced 1 block(s) in USER.md.",
           think="Standing preference. Record it in USER.md so it survives restarts.")
    s.say("明白，已经记进 USER.md：\n\n- 以后都用中文回复，代码注释也用中文\n- 金额：人民币、两位小数、千分位（例：¥136,731.63）", ttl=True)

    # --- 10:02 心跳 -------------------------------------------------------------------------------
    s.heartbeat("2026-11-27 10:02:03")
    s.say(HEARTBEAT_OK, think="Heartbeat. Checklist: reminders within 24h? none new. Report section 3 check is for weekday afternoons. Nothing to report.")

    # --- 10:15 导入 SQLite ----------------------------------------------------------------------
    s.at("2026-11-27 10:15:37")
    s.user("清洗后的数据导进 report.db 吧，表名 cost_items。用 SQLite 就行，文件放 projects/report/data/report.db", "webchat")
    s.tool("exec", {"command": "cd projects/report && sqlite3 data/report.db \"CREATE TABLE IF NOT EXISTS cost_items (id INTEGER PRIMARY KEY, date TEXT NOT NULL, provider TEXT NOT NULL, service TEXT NOT NULL, project TEXT NOT NULL DEFAULT 'unassigned', amount_cny REAL NOT NULL, source TEXT NOT NULL); CREATE INDEX IF NOT EXISTS idx_cost_items_date ON cost_items(date);\" && python3 scripts/clean_csv.py data/costs-2026-10.csv --import data/report.db && sqlite3 data/report.db 'select count(*), round(sum(amount_cny),2) from cost_items'"},
           f"rows={len(d.oct_rows)} blank={d.blank} header={d.extra_hdr} dup={d.dupes} usd={d.usd_rows}\n{len(d.oct_rows)}|{d.total}",
           think="Create the table with a date index, import via the cleaner's --import path, then verify count and sum.")
    s.say(f"导好了：`data/report.db` 里的 `cost_items` 表 {len(d.oct_rows)} 行，合计 ¥{d.total:,.2f}，和 CSV 对得上。加了 `date` 索引，后面按月汇总会快一点。")

    s.at("2026-11-27 10:21:09")
    s.user("确认一下，导入的是清洗后那个 clean 文件对吧？别把原始的导进去了", "webchat")
    s.say(f"对。导入走的是清洗脚本（`--import`），进库的是清洗后的 {len(d.oct_rows)} 行，不是原始的 {d.raw_data_lines} 行；"
          f"表里 `source` 字段记的是来源文件名，合计 ¥{d.total:,.2f} 和 clean.csv 一致。")

    s.at("2026-11-27 10:23:44")
    s.user("行数对得上吗", "webchat")
    s.tool("exec", {"command": "cd projects/report && sqlite3 data/report.db 'select count(*) from cost_items' && tail -n +2 data/costs-2026-10.clean.csv | wc -l"},
           f"{len(d.oct_rows)}\n{len(d.oct_rows)}")
    s.say(f"对得上：库里 {len(d.oct_rows)} 行，clean.csv 去掉表头也是 {len(d.oct_rows)} 行。", ttl=True)

    s.heartbeat("2026-11-27 10:32:06")
    s.tool("exec", {"command": "grep -H '\"expires\"' reminders/*.json"},
           '\n'.join([f'reminders/2026-10-01-renew-domain.json:  "expires": "{REMINDER_DOMAIN["expires"]}",',
                      f'reminders/2026-12-01-report-due.json:  "expires": "{REMINDER_REPORT["expires"]}",']),
           think="Heartbeat: check reminders due within 24h.")
    s.say(HEARTBEAT_OK, think="Domain reminder expired on 2026-10-01 (already handled back in September per heartbeat history; stale file). "
                              "Report due 12-01, not within 24h. Nothing new to tell.")

    # --- 10:48 预算上限（开放问题） ---------------------------------------------------------------
    s.at("2026-11-27 10:48:30")
    s.user("Q4 的预算上限到底是多少？我记得是 48 万还是 52 万，你有印象吗", "webchat")
    s.tool("memory_search", {"query": "Q4 预算 上限 48万 52万"},
           json.dumps({"results": [
               {"path": "MEMORY.md", "startLine": 17, "endLine": 17, "score": 0.41, "snippet": "- 财务对接人：王姐。预算相关问题找她。", "source": "memory"},
               {"path": "projects/report/outline.md", "startLine": 6, "endLine": 6, "score": 0.37, "snippet": "4. Q4 预算对比（预算上限？问王姐）", "source": "memory"}],
               "provider": "none", "citations": "auto", "mode": "fts-only"}, ensure_ascii=False, indent=2),
           think="Search memory for the Q4 budget cap before answering.")
    s.say("没有。记忆里只有两处相关的：MEMORY.md 写着「预算相关问题找王姐」，提纲里也是「预算上限？问王姐」——"
          "48 万还是 52 万从来没有落到文件里，我不乱猜。\n\n"
          "建议直接问王姐。我先把它记成待确认问题，第 4 节写的时候两种口径都算一下。")
    s.at("2026-11-27 10:50:02")
    s.user("好", "webchat")
    s.say("👍")

    # --- 11:05 决定：导出 PDF -----------------------------------------------------------------
    s.at("2026-11-27 11:05:17")
    s.user("最后交付就导出 PDF 吧，用 pandoc，模板用公司那个 company.latex", "webchat")
    s.tool("exec", {"command": "pandoc --version | head -1; ls -la ~/templates/company.latex; fc-list :lang=zh | head -3"},
           "pandoc 3.1.3\n-rw-r--r-- 1 chenyu chenyu 9214 Sep  3 14:20 /home/chenyu/templates/company.latex\n"
           "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc: Noto Sans CJK SC:style=Regular\n"
           "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc: Noto Serif CJK SC:style=Regular\n"
           "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc: WenQuanYi Micro Hei:style=Regular",
           think="Decision: deliver as PDF via pandoc with company.latex. Check pandoc, template, and CJK fonts exist (the 11-19 build log failed on ctex.sty).")
    s.say("好，定了：**最终交付导出 PDF**（pandoc + `~/templates/company.latex`）。\n\n"
          "环境检查：pandoc 3.1.3 在，模板在，中文字体有 Noto CJK。\n"
          "注意 11-19 那次导出失败是缺 `ctex.sty`（见 `logs/report-build.log`），导之前要先 `sudo apt install texlive-lang-chinese`，到时候我提醒你。")

    # --- 11:20 report-api 日志（长输出） -------------------------------------------------------
    s.at("2026-11-27 11:20:40")
    s.user("看下 report-api 在 staging-1 上的日志，昨天下午导出接口很慢，李总说导 10 月的 excel 转了半天", "webchat")
    s.tool("exec", {"command": "ssh stg1 'journalctl -u report-api --since \"2026-11-26 15:40\" --until \"2026-11-26 16:30\" --no-pager -o short | tail -n 70'", "timeout": 60},
           report_api_log(rng), secs=(1.8, 3.2),
           think="Pull yesterday afternoon's report-api journal on staging-1 and look at /export latency.")
    s.say("找到原因了：\n\n"
          "1. **慢查询**：`/api/v1/export?month=2026-10` 每次 12–19 秒，全卡在这条 SQL：\n"
          "   `WHERE to_char(date, 'YYYY-MM') = $1` —— 对 `date` 套了函数，索引用不上，pg-report 上是全表扫。\n"
          "2. 导出慢占着连接，连带 `/costs/summary` 报了两次 `pg pool exhausted (max=10)`。\n"
          "3. 16:2x 还有一次导 9 月的请求 30 秒超时（504）。\n\n"
          "改法：把条件换成范围查询 `date >= '2026-10-01' AND date < '2026-11-01'`，现有的 date 索引就能用上。"
          "report-api 走公司 CI，我不动代码，可以帮你写个 issue 描述给开发？", ttl=True)
    s.at("2026-11-27 11:26:15")
    s.user("嗯嗯 了解，issue 我自己提", "webchat")
    s.say("好的。")

    s.heartbeat("2026-11-27 11:32:04")
    s.say(HEARTBEAT_OK)

    # --- 13:40 第二节（thinking high） -----------------------------------------------------------
    s.at("2026-11-27 13:39:58")
    s.thinking_level("high")
    s.at("2026-11-27 13:40:22")
    s.user("帮我算下 10 月各云厂商费用占比，写进草稿第二节，顺便按项目也分一下", "webchat")
    s.tool("read", {"path": "projects/report/scripts/aggregate.py"}, AGGREGATE_PY_ORIG,
           think=("Section 2 needs provider share and project split for October. There's an aggregate.py from 11-19 — check what it does before reusing it. "
                  "If it only groups provider/project I'll add service, since the CDN spike should show up per service."))
    s.tool("edit", {"path": "projects/report/scripts/aggregate.py", "edits": [
        {"oldText": '    ap.add_argument("--month", default="2026-10")', "newText": '    ap.add_argument("--month", required=True)  # YYYY-MM'},
        {"oldText": '    for col in ("provider", "project"):', "newText": '    for col in ("provider", "project", "service"):'}]},
        "Successfully replaced 2 block(s) in projects/report/scripts/aggregate.py.",
        think="Make --month required (the default silently hid November later) and add the service grouping.")
    agg = {"month": "2026-10", "total": d.total, "by_provider": d.by_provider, "by_project": d.by_project,
           "by_service": {k.split(" ", 1)[1]: v for k, v in d.by_service.items()}}
    svc = {}
    for r in d.oct_rows:
        svc[r[2]] = round(svc.get(r[2], 0) + r[4], 2)
    agg["by_service"] = dict(sorted(svc.items(), key=lambda kv: -kv[1]))
    s.tool("exec", {"command": "cd projects/report && python3 scripts/aggregate.py data/report.db --month 2026-10 --json"},
           json.dumps(agg, ensure_ascii=False, indent=2))
    s.tool("edit", {"path": "projects/report/draft.md", "edits": [
        {"oldText": "草稿 v0.1", "newText": "草稿 v0.2"},
        {"oldText": SEC2_TODO, "newText": sec2(d)}]},
        "Successfully replaced 2 block(s) in projects/report/draft.md.",
        think=(f"Total {d.total:,.2f}. Aliyun {d.share(d.by_provider['阿里云']):.1f}%, Tencent {d.share(d.by_provider['腾讯云']):.1f}%, "
               f"Cloudflare {d.share(d.by_provider['Cloudflare']):.1f}%. CDN total {d.cdn_total:,.2f} looks high relative to the ~415/day base — "
               "the 10-18..10-20 rows are ~3x. Mention it plus the untagged OSS bucket. Tables are fine in webchat; amounts with thousands separators per the new preference."))
    s.say("第二节写好了（草稿升到 v0.2）：\n\n" + d.provider_table() + "\n\n按项目：\n\n" + d.project_table()
          + f"\n\n另外标了两点：阿里云 CDN 10-18 ~ 10-20 有一波尖峰（约平时 3 倍）；有个没打标签的 OSS bucket（¥57.30）记在 unassigned。", ttl=True)

    s.at("2026-11-27 13:52:31")
    s.user("阿里云 CDN 那几天怎么这么高？", "webchat")
    top = "\n".join(f"{r[0]}|{r[4]:.2f}" for r in d.cdn_top)
    s.tool("exec", {"command": "cd projects/report && sqlite3 data/report.db \"select date, round(sum(amount_cny),2) from cost_items where provider='阿里云' and service='CDN' group by date order by 2 desc limit 5\""},
           top, think="Look at the top CDN days.")
    s.say(f"前三高就是 10-18、10-19、10-20，单日最高 ¥{d.cdn_top[0][4]:,.2f}，平时一天 400 出头。"
          "时间点对得上 linkdrop 的双十一预热活动（heartbeat 记录里 10-20 也有一次 CDN 日费用告警，你当时说是活动流量，正常）。"
          "第三节可以建议活动前提前预热缓存、把静态资源 TTL 调长。")

    s.heartbeat("2026-11-27 14:02:05")
    s.say(HEARTBEAT_OK)

    # --- 14:29 staging-2 IP（已回答的问题） -----------------------------------------------------
    s.at("2026-11-27 14:29:17")
    s.user("staging-2 的内网 IP 是多少来着？", "webchat")
    s.tool("read", {"path": "TOOLS.md"}, TOOLS_MD_1127)
    s.say("staging-2 是 **10.0.5.32**（`ssh stg2` → deploy@10.0.5.32，要先连公司 VPN）。\n"
          "顺便：staging-1 是 10.0.5.31，TOOLS.md 里还写着它是当前部署目标。")
    s.at("2026-11-27 14:30:02")
    s.user("谢谢", "webchat")
    s.say("不客气～")

    s.at("2026-11-27 14:50:39")
    s.user("再确认下，报告是周一中午 12 点前交给李总对吧？", "webchat")
    s.say("对：**2026-12-01（周一）12:00 前**，交给李总（lizong@chenyu-lab.cn），抄送 ops@chenyu-lab.cn。", ttl=True)

    # --- 15:05 心跳，需要提醒 ---------------------------------------------------------------------
    s.heartbeat("2026-11-27 15:05:02")
    s.tool("exec", {"command": "grep -n -A2 '^## 3' projects/report/draft.md"},
           "31:## 3. 优化建议\n32-\n33-（待写）",
           think="Weekday afternoon: HEARTBEAT.md says check whether section 3 of the draft is written.")
    s.say("⏰ 提醒：Q4 成本报告 **周一（12-01）12:00** 截止，第三节「优化建议」还是空的。今天下午要不要先把它写了？",
          think="Section 3 is still '（待写）'. This is exactly what the checklist asks to flag. Send a short reminder.")
    s.at("2026-11-27 15:07:40")
    s.user("知道了，下午就写", "webchat")
    s.say("好，写的时候叫我。")

    # --- 15:40 切到 deepseek，第三节提纲 -----------------------------------------------------------
    s.at("2026-11-27 15:39:51")
    s.model_change("deepseek", "deepseek-v4-pro")
    s.model_snapshot()
    s.at("2026-11-27 15:40:26")
    s.user("第三节先列个提纲。思路：CDN 回源、ECS 规格、OSS 生命周期、闲置资源，节省金额按 10 月实际算", "webchat")
    ecs = d.by_service["阿里云 ECS"]
    s.say("提纲如下，按优先级排：\n\n"
          f"1. **ECS 规格调整** — report-api 4 台 g7.2xlarge 平均 CPU 18%，降一档 + 弹性伸缩，约省 ECS 费用（¥{ecs:,.2f}）的 12%\n"
          f"2. **CDN 回源与缓存** — 静态资源 TTL 从 10 分钟调到 1 天、开 Brotli、活动前预热，约省 CDN 费用（¥{d.cdn_total:,.2f}）的 15%\n"
          f"3. **OSS 生命周期** — data-pipeline 中间结果 30 天转低频、90 天转归档，约省 30%\n"
          "4. **闲置资源** — 没打标签的 bucket、两块未挂载云盘，找到负责人后释放\n\n"
          "每条写：现状 → 做法 → 预计月节省。可以吗？",
          think="用户要第三节提纲，四个方向已经给了。节省比例要按 10 月实际数据：ECS 的大头是 report-api，CPU 利用率之前监控里看过 18% 左右；"
                "CDN 尖峰那三天是活动流量，常态部分靠缓存 TTL 和压缩；OSS 全是标准存储；闲置资源金额小但好做。按影响大小排优先级。", ttl=False)
    s.at("2026-11-27 15:46:10")
    s.user("OK，按这个写", "webchat")
    s.tool("edit", {"path": "projects/report/draft.md", "edits": [
        {"oldText": "草稿 v0.2", "newText": "草稿 v0.3"},
        {"oldText": SEC3_TODO, "newText": sec3(d)}]},
        "Successfully replaced 2 block(s) in projects/report/draft.md.",
        think="按提纲展开第三节，金额用千分位、两位小数，合计放最后。版本号升到 v0.3。")
    ecs_s, cdn_s, oss_s = ecs * 0.12, d.cdn_total * 0.15, d.by_service["阿里云 OSS"] * 0.3
    s.say(f"第三节写好了（v0.3），四条建议合计预计每月省 **¥{ecs_s + cdn_s + oss_s + 57.30:,.2f}**：\n\n"
          f"- ECS 规格调整：¥{ecs_s:,.2f}/月\n- CDN 回源与缓存：¥{cdn_s:,.2f}/月\n- OSS 生命周期：¥{oss_s:,.2f}/月\n- 闲置资源：¥57.30/月起")

    s.heartbeat("2026-11-27 16:30:03")
    s.say(HEARTBEAT_OK, think="心跳。第三节下午已经写完，提醒过的事不重复。没有别的。")

    s.at("2026-11-27 16:45:12")
    s.user("确认一下，第三节里的节省金额都是按 10 月实际数算的吧？不是拍脑袋", "webchat")
    s.say(f"是按 10 月实际数算的：基数都来自 report.db 的 10 月汇总（ECS ¥{ecs:,.2f}、CDN ¥{d.cdn_total:,.2f}、OSS ¥{d.by_service['阿里云 OSS']:,.2f}），"
          "比例（12% / 15% / 30%）是估计值，第三节开头写明了「按 10 月实际数据估算」。")

    s.at("2026-11-27 17:10:33")
    s.user("先这样，我去开会了", "webchat")
    s.say(NO_REPLY)

    s.heartbeat("2026-11-27 18:00:04")
    s.say(HEARTBEAT_OK)

    # --- 20:40 写日记（TUI，没有 Sender 块） -----------------------------------------------------
    s.at("2026-11-27 20:40:19")
    s.user("把今天的进展记到 memory 里。另外记一下：heartbeat.session 我改回 agent:main:main 了", "stamp")
    fmt = dict(raw=d.raw_data_lines, clean=len(d.oct_rows), usd=d.usd_rows, refunds=d.refunds,
               total=f"{d.total:,.2f}", ali_share=f"{d.share(d.by_provider['阿里云']):.1f}%", nov_total=f"{d.nov_total:,.2f}")
    note = DAILY_1127.format(**fmt)
    s.tool("write", {"path": "memory/2026-11-27.md", "content": note},
           f"Successfully wrote {len(note)} bytes to memory/2026-11-27.md",
           think="整理今天：清洗+导入、第二三节、PDF 决定、预算上限未决、偏好、心跳会话改回 main。")
    s.say("记好了：`memory/2026-11-27.md`。包括清洗导入、第二三节、PDF 的决定、预算上限这个待确认问题、你的新偏好，还有心跳会话改回 main。")
    s.at("2026-11-27 20:41:52")
    s.user("👍", "stamp")
    s.say(NO_REPLY)

    s.heartbeat("2026-11-27 21:00:05")
    s.say(HEARTBEAT_OK)
    s.heartbeat("2026-11-27 22:30:02")
    s.say(HEARTBEAT_OK, think="22:00 以后安静时段，没有紧急的事。")

    # ============================== 2026-11-28 周六 ==============================================
    s.heartbeat("2026-11-28 09:10:04")
    s.say(HEARTBEAT_OK)

    s.at("2026-11-28 10:02:36")
    s.user("早，继续报告。昨天说的 Q4 预算上限，财务还没回，第四节先放个占位", "webchat")
    s.tool("edit", {"path": "projects/report/draft.md", "edits": [{"oldText": SEC4_TODO, "newText": SEC4_DONE}]},
           "Successfully replaced 1 block(s) in projects/report/draft.md.",
           think="预算上限仍未知。第四节做成两种口径并列的表，醒目标注待确认。")
    s.say("第四节放了占位：顶部一行 ⚠️「预算上限待财务确认（48 万还是 52 万？）」，下面按 48 万、52 万两种口径并列，实际数等 11、12 月数据补齐再填。")

    # --- 10:15 决定变更：PDF → 飞书文档 ------------------------------------------------------------
    s.at("2026-11-28 10:15:08")
    s.user("对了，李总说不要 PDF 了，直接发飞书文档链接，他在飞书里批注方便。导出 PDF 那步去掉", "webchat")
    s.tools([
        ("edit", {"path": "projects/report/README.md", "edits": [{
            "oldText": "导出 PDF：`pandoc draft.md -o build/q4-report.pdf --template=company.latex`，发李总，抄送 ops@chenyu-lab.cn。\n",
            "newText": "~~导出 PDF：`pandoc draft.md -o build/q4-report.pdf --template=company.latex`~~（2026-11-28 取消）\n\n2026-11-28 起：把 draft.md 贴进飞书文档「2026 Q4 基础设施成本报告」，链接发李总，抄送 ops@chenyu-lab.cn。\n"}]},
         "Successfully replaced 1 block(s) in projects/report/README.md."),
        ("edit", {"path": "MEMORY.md", "edits": [{
            "oldText": "- 2026-11-27：交付格式定为 PDF（pandoc + 公司模板）。\n",
            "newText": "- 2026-11-27：交付格式定为 PDF（pandoc + 公司模板）。\n- 2026-11-28：交付改为飞书文档链接，不再导 PDF（李总要在飞书里批注）。替代 11-27 那条。\n"}]},
         "Successfully replaced 1 block(s) in MEMORY.md."),
        ("edit", {"path": "skills/cost-report/SKILL.md", "edits": [{
            "oldText": "- 汇率以财务给的月均价为准（10 月：7.1250）\n",
            "newText": "- 汇率以财务给的月均价为准（10 月：7.1250）\n- 报告交付：飞书文档链接发李总，抄送 ops（2026-11-28 起不再导 PDF）\n"}]},
         "Successfully replaced 1 block(s) in skills/cost-report/SKILL.md."),
    ], think="决定变更：PDF → 飞书文档链接。更新 README 的交付步骤、MEMORY.md（新条目替代 11-27 的，旧的留着等确认）、cost-report 技能说明。")
    s.say("改好了，**交付方式：飞书文档链接**，替代昨天定的 PDF：\n\n"
          "- `projects/report/README.md`：PDF 那步划掉，换成飞书文档\n"
          "- MEMORY.md：加了新决定，注明替代 11-27 那条（旧条目先留着，等清理时你确认）\n"
          "- cost-report 技能里也写上了\n\n"
          "这样 `texlive-lang-chinese` 也不用装了。", ttl=False)
    s.at("2026-11-28 10:20:11")
    s.user("好嘞", "webchat")
    s.say("👌")

    # --- 10:34 部署目标 staging-1 → staging-2 --------------------------------------------------------
    s.at("2026-11-28 10:34:02")
    s.user("还有个事：staging-1 下周下线，以后部署目标改成 staging-2，记到 MEMORY.md", "webchat")
    s.tools([
        ("edit", {"path": "MEMORY.md", "edits": [{
            "oldText": "- 2026-11-10：部署目标是 staging-1（linkdrop、report-api 的 staging 都在这台，10.0.5.31）。\n",
            "newText": "- 2026-11-10：部署目标是 staging-1（linkdrop、report-api 的 staging 都在这台，10.0.5.31）。\n- 2026-11-28：部署目标改为 staging-2（10.0.5.32），staging-1 12 月下线。替代 2026-11-10 那条。\n"}]},
         "Successfully replaced 1 block(s) in MEMORY.md."),
        ("edit", {"path": "TOOLS.md", "edits": [
            {"oldText": "| staging-1 | 10.0.5.31 | 公司 staging（当前部署目标） |", "newText": "| staging-1 | 10.0.5.31 | 公司 staging，**2026-12 下线** |"},
            {"oldText": "| staging-2 | 10.0.5.32 | 公司 staging（新机器，还没迁过去） |", "newText": "| staging-2 | 10.0.5.32 | 公司 staging（新部署目标） |"},
            {"oldText": "target 现在是 staging-1", "newText": "target 现在是 staging-2"}]},
         "Successfully replaced 3 block(s) in TOOLS.md."),
    ], think="部署目标变更。MEMORY.md 加新条目并注明替代 11-10 那条；TOOLS.md 的主机表和 linkdrop 部署命令也要改，不然下次会照旧部署到 staging-1。")
    s.say("记好了：\n\n- MEMORY.md：新增「2026-11-28：部署目标改为 staging-2（10.0.5.32）」，注明替代 11-10 的 staging-1 那条\n"
          "- TOOLS.md：staging-1 标成 12 月下线，linkdrop 的 `./deploy.sh` 目标改成 staging-2\n\n"
          "report-api 走 CI，CI 里的目标要你们那边改。", ttl=True)

    s.heartbeat("2026-11-28 10:40:03")
    s.say(HEARTBEAT_OK)

    # --- 11:05 扫垃圾文件（长输出） -----------------------------------------------------------------
    s.at("2026-11-28 11:05:44")
    s.user("看看 workspace 里现在有哪些临时文件、垃圾文件，占了多少空间", "webchat")
    s.tool("exec", {"command": ("find . -type f \\( -name '*.tmp' -o -name '*.pyc' -o -name '*.bak' -o -name '*~' -o -name '*.orig' -o -name '*.swp' -o -name '*.log' "
                                "-o -path '*/__pycache__/*' -o -path '*/build/*' -o -path '*/dist/*' -o -path '*.egg-info/*' -o -path '*/.pytest_cache/*' \\) "
                                "-printf '%TY-%Tm-%Td %TH:%TM  %8s  %p\\n' | sort -k4 | awk '{print; n++; s+=$3} END {printf \"-- %d files, %d bytes\\n\", n, s}'")},
           junk_listing(ws_root),
           think="List clutter candidates: temp, bytecode, caches, build output, backups, swap files, logs. Include dates and sizes.")
    bad_cfg = open(os.path.join(ws_root, "data/broken-config.json"), encoding="utf-8").read()
    bad_line = open(os.path.join(ws_root, "data/events.jsonl"), encoding="utf-8").read().splitlines()[6]
    s.tool("exec", {"command": ("python3 - <<'EOF'\nimport json, pathlib\nfor p in sorted(pathlib.Path('data').glob('*.json*')):\n"
                                "    if p.stat().st_size == 0:\n        print(f'EMPTY {p}'); continue\n    if p.suffix == '.jsonl':\n"
                                "        for i, line in enumerate(p.read_text().splitlines(), 1):\n            try: json.loads(line)\n"
                                "            except Exception as e: print(f'BAD   {p}:{i}: {e}')\n        continue\n"
                                "    try: json.loads(p.read_text())\n    except Exception as e: print(f'BAD   {p}: {e}')\nEOF\n"
                                "find . -xtype l -printf 'BROKEN-LINK %p -> %l\\n'; gzip -t backups/*.tar.gz 2>&1 | sed 's/^/ARCHIVE /'")},
           f"BAD   data/broken-config.json: {json_error(bad_cfg)}\nEMPTY data/empty.json\nBAD   data/events.jsonl:7: {json_error(bad_line)}\n"
           "BROKEN-LINK ./data/latest-export.csv -> ../projects/report/data/costs-2026-09.csv\n"
           "ARCHIVE gzip: backups/gitea-config-20261124.tar.gz: unexpected end of file",
           think="Also check for corrupted data files: unparseable JSON/JSONL, empty files, dangling symlinks, truncated archives.")
    s.say("扫完了，分两类：\n\n"
          "**可以放心清的（小自噬）**\n"
          "- 临时文件：`scratch.tmp`、`projects/report/tmp/*.tmp`\n"
          "- Python 缓存：两个 `__pycache__/`、一个散落的 `old_aggregate.pyc`\n"
          "- 构建产物：`projects/report/build/`、`dist/`、`report_tools.egg-info/`、`.pytest_cache/`\n"
          "- 备份/残留：`MEMORY.md.bak`、`data/settings.json.bak`、`notes.md~`、`aggregate.py.orig`、vim 的 `.draft.md.swp`\n"
          "- 日志：`logs/report-build.log`（11-19 的，可删）；`logs/heartbeat.log` 别整个删，只清 30 天前的条目\n\n"
          "**坏掉的（中度，要你确认）**\n"
          "- `data/broken-config.json` 解析不了（写到一半断了）\n"
          "- `data/events.jsonl` 第 7 行断了，其他行正常\n"
          "- `data/empty.json` 是 0 字节\n"
          "- `data/latest-export.csv` 是个断掉的软链接（指向不存在的 9 月 CSV）\n"
          "- `backups/gitea-config-20261124.tar.gz` 不完整\n\n"
          "加起来不到 100 KB，不急。要清的话我先出清单、打快照再删。")
    s.at("2026-11-28 11:12:30")
    s.user("先别删，等我把 Apollo 装好让它来清，带快照的那种", "webchat")
    s.say("好，先不动。装好之后跑 `apollo autophagy small` 会先出计划，你确认了才删。")

    s.heartbeat("2026-11-28 11:30:05")
    s.say(HEARTBEAT_OK)

    # --- 14:05 11 月数据 ----------------------------------------------------------------------------
    s.at("2026-11-28 14:05:13")
    s.user("report.db 里 11 月的数据导到哪天了？", "webchat")
    n20 = d.nov_until_20
    s.tool("exec", {"command": "cd projects/report && sqlite3 data/report.db \"select max(date), count(*), round(sum(amount_cny),2) from cost_items where date like '2026-11%'\""},
           f"2026-11-20|{len(n20)}|{round(sum(r[4] for r in n20), 2)}",
           think="Check how far November data goes in report.db.")
    s.say(f"只到 **11-20**（{len(n20)} 行，¥{sum(r[4] for r in n20):,.2f}）。`data/costs-2026-11-partial.csv` 今早更新过，应该有到 27 号的，要导进去吗？")
    s.at("2026-11-28 14:07:02")
    s.user("导，导到 27 号", "webchat")
    nov_usd = sum(1 for r in d.nov_rows if r[1] == "Cloudflare")
    s.tool("exec", {"command": "cd projects/report && sqlite3 data/report.db \"delete from cost_items where date like '2026-11%'\" && python3 scripts/clean_csv.py data/costs-2026-11-partial.csv --import data/report.db && sqlite3 data/report.db \"select max(date), count(*), round(sum(amount_cny),2) from cost_items where date like '2026-11%'\""},
           f"rows={len(d.nov_rows)} blank=0 header=0 dup=0 usd={nov_usd}\n2026-11-27|{len(d.nov_rows)}|{d.nov_total}",
           think="Re-import November cleanly: delete existing November rows, import the partial CSV (cleaner handles dedupe/USD), verify.")
    s.say(f"导好了：11 月现在到 **11-27**，{len(d.nov_rows)} 行，合计 ¥{d.nov_total:,.2f}（先删了旧的 11 月数据再整批导入，不会重复）。", ttl=True)
    s.at("2026-11-28 14:20:40")
    s.user("好的👌", "webchat")
    s.say("👍")

    # --- 反复确认 -----------------------------------------------------------------------------------
    s.at("2026-11-28 14:35:09")
    s.user("确认下，飞书文档是发给李总，抄送 ops 对吧？", "webchat")
    s.say("对：链接发李总，抄送 ops@chenyu-lab.cn。")
    s.at("2026-11-28 14:36:27")
    s.user("再确认一遍，是抄送 ops 组的邮箱，不是 ops 群对吧", "webchat")
    s.say("是邮箱：ops@chenyu-lab.cn（USER.md 和 MEMORY.md 都是这么记的），不是群。")

    s.heartbeat("2026-11-28 15:00:03")
    s.say(HEARTBEAT_OK, think="周六，工作日下午的报告检查不适用；第三节也已经写完。没有要提醒的。")

    s.at("2026-11-28 16:20:55")
    s.user("第三节写完了吧？整体还差啥", "webchat")
    s.tool("read", {"path": "projects/report/draft.md"}, draft_final(d),
           think="Read the whole draft to give an accurate remaining-work list.")
    s.say("第三节写完了。整体还差三件：\n\n"
          "1. **第 4 节预算对比**：等王姐确认上限（48 万 / 52 万），11 月数据到 27 号了，12 月要做预估\n"
          "2. **图表**：第 2 节放个厂商占比饼图、CDN 日费用折线\n"
          "3. **飞书排版**：贴进飞书文档，周一 12:00 前发李总、抄送 ops\n\n"
          "第 1、2、3 节和附录都齐了。")
    s.at("2026-11-28 16:22:09")
    s.user("嗯，图表周日弄", "webchat")
    s.say("好，我记到待办里。")

    s.at("2026-11-28 17:00:31")
    s.user("最后确认一次：截止是周一中午 12 点，对吧", "webchat")
    s.say("对，**2026-12-01（周一）12:00**。")

    s.heartbeat("2026-11-28 18:00:06")
    s.say(HEARTBEAT_OK)

    # --- 21:30 日记 ---------------------------------------------------------------------------------
    s.at("2026-11-28 21:30:02")
    s.user("今天的也记一下 memory", "webchat")
    note = DAILY_1128.format(**fmt)
    s.tool("write", {"path": "memory/2026-11-28.md", "content": note},
           f"Successfully wrote {len(note)} bytes to memory/2026-11-28.md",
           think="今天：第四节占位、PDF→飞书（决定变更）、11 月数据导到 27 号、部署目标 staging-2、垃圾文件扫描（先不删）、几次确认、TODO。")
    s.say("记好了：`memory/2026-11-28.md`（决定变更、部署目标、11 月数据、垃圾文件清单和待办都在里面）。")
    s.at("2026-11-28 21:31:20")
    s.user("晚安", "webchat")
    s.say("晚安 🌙")

    s.heartbeat("2026-11-28 22:30:04")
    s.say(HEARTBEAT_OK)
    return s


# =============================================================================================
# English session tool outputs
# =============================================================================================
DUMP1 = f"gitea-dump-{int(local('2026-11-24 14:24:11').timestamp())}.zip"   # sqlite syntax, 11-24
DUMP2 = f"gitea-dump-{int(local('2026-11-25 09:44:02').timestamp())}.zip"   # postgres syntax, 11-25

PI_DOCKER_PS = """CONTAINER ID   IMAGE                           COMMAND                  CREATED        STATUS                 PORTS                                                                  NAMES
3f9c1e2a7b41   gitea/gitea:1.22.3              "/usr/bin/entrypoint…"   7 months ago   Up 12 days             0.0.0.0:3000->3000/tcp, :::3000->3000/tcp, 0.0.0.0:2222->22/tcp        gitea
8d20ab914c5e   pihole/pihole:2024.07.0         "start.sh"               7 months ago   Up 12 days (healthy)   0.0.0.0:53->53/tcp, 0.0.0.0:53->53/udp, 0.0.0.0:8053->80/tcp           pihole
a71c03fe22d9   linuxserver/syncthing:1.27.10   "/init"                  5 months ago   Up 12 days             0.0.0.0:8384->8384/tcp, 0.0.0.0:22000->22000/tcp, 21027/udp            syncthing
5b6e9d0c1f83   louislam/uptime-kuma:1.23.13    "/usr/bin/dumb-init …"   4 months ago   Up 12 days (healthy)   0.0.0.0:3001->3001/tcp, :::3001->3001/tcp                              uptime-kuma
c4f1e88a90b2   containrrr/watchtower:1.7.1     "/watchtower --sched…"   7 months ago   Up 12 days (healthy)   8080/tcp                                                               watchtower
---
Filesystem      Size  Used Avail Use% Mounted on
/dev/mmcblk0p2   59G   47G  9.6G  84% /
---
 21:14:07 up 12 days,  3:41,  1 user,  load average: 2.91, 2.67, 2.40"""


def gitea_log(rng: random.Random) -> str:
    lines = []
    t = datetime(2026, 11, 23, 21, 2, 11, tzinfo=CST)
    repos = ["chenyu/linkdrop", "chenyu/dotfiles", "chenyu/report-tools", "chenyu/bookmarks", "chenyu/homelab"]
    for i in range(30):
        t += timedelta(seconds=rng.randint(20, 110))
        ts = t.strftime("%Y/%m/%d %H:%M:%S")
        repo = rng.choice(repos)
        k = i % 9
        if k in (3, 7):
            lines.append(f"{ts} ...s/git/repo/githttp.go:532:serviceRPC() [E] Fail to serve RPC(receive-pack) in /data/git/repositories/{repo}.git: exit status 1 - remote: Gitea: Internal Server Error")
            lines.append(f"{ts} ...rvices/repository/push.go:79:PushUpdates() [E] PushUpdate: update repository: database is locked")
        elif k == 5:
            lines.append(f"{ts} ...les/queue/workergroup.go:193:func1() [E] Unable to process items in queue \"push_update\" (handler: 0x1b2f4a0): database is locked (5) (SQLITE_BUSY)")
        elif k == 8:
            lines.append(f"{ts} ...s/process/manager.go:188:Add() [W] [{rng.randint(6000000, 6999999):x}-{rng.randint(1, 9)}] Slow SQL query took {rng.uniform(5.2, 19.8):.2f}s: UPDATE `repository` SET `updated_unix`=? WHERE `id`=?")
        else:
            dur = rng.uniform(3, 90)
            lines.append(f"{ts} ...eb/routing/logger.go:102:func1() [I] router: completed GET /{repo}/info/refs?service=git-upload-pack for 192.168.1.{rng.choice([10, 31, 44])}:{rng.randint(40000, 60000)}, 200 OK in {dur:.1f}ms @ repo/githttp.go:535(repo.GetInfoRefs)")
    return "\n".join(lines)


def gitea_dump_out(ok: bool) -> str:
    head = """2026/11/25 09:41:02 ...les/setting/log.go:40:loadLogGlobalFrom() [I] Starting Gitea dump
2026/11/25 09:41:02 cmd/dump.go:176:runDump() [I] Dumping local repositories... /data/git/repositories
2026/11/25 09:41:09 cmd/dump.go:195:runDump() [I] Packing repositories... 14 repositories
2026/11/25 09:41:41 cmd/dump.go:214:runDump() [I] Dumping database (syntax: postgres)..."""
    if not ok:
        return head + "\n2026/11/25 09:41:47 cmd/dump.go:219:runDump() [F] Failed to dump database: database is locked (5) (SQLITE_BUSY)\n\nCommand exited with code 1"
    return (head.replace("09:41", "09:44") + """
2026/11/25 09:44:52 cmd/dump.go:244:runDump() [I] Adding custom configuration file from /data/gitea/conf/app.ini
2026/11/25 09:44:52 cmd/dump.go:260:runDump() [I] Custom dir: /data/gitea
2026/11/25 09:44:53 cmd/dump.go:290:runDump() [I] Packing data directory.../data/gitea
2026/11/25 09:45:20 cmd/dump.go:317:runDump() [I] Packing lfs files... /data/git/lfs
2026/11/25 09:45:31 cmd/dump.go:389:runDump() [I] Finish dumping in file /tmp/""" + DUMP2 + "\n-rw------- 1 git git 398M Nov 25 09:45 /tmp/" + DUMP2)


WTTR_FIELDS = ["time", "tempC", "FeelsLikeC", "chanceofrain", "precipMM", "windspeedKmph", "humidity", "weatherDesc"]


def wttr_json(rng: random.Random, days: list, hours=(0, 300, 600, 900, 1200, 1500, 1800, 2100)) -> str:
    out = []
    for dname, (lo, hi, rain, desc) in days:
        hourly = []
        for h in hours:
            frac = {0: 0.05, 300: 0.0, 600: 0.1, 900: 0.55, 1200: 0.95, 1500: 1.0, 1800: 0.6, 2100: 0.3}.get(h, 0.5)
            temp = round(lo + (hi - lo) * frac)
            cor = max(0, min(100, rain + rng.randint(-12, 12)))
            hourly.append({"time": str(h), "tempC": str(temp), "FeelsLikeC": str(temp - rng.randint(0, 3)),
                           "chanceofrain": str(cor), "precipMM": f"{(cor / 100) * rng.uniform(0, 2.4):.1f}",
                           "windspeedKmph": str(rng.randint(6, 19)), "humidity": str(rng.randint(55, 92)),
                           "weatherDesc": desc if cor < 50 else "Patchy rain nearby"})
        out.append({"date": dname, "maxtempC": str(hi), "mintempC": str(lo), "sunHour": f"{rng.uniform(2, 8.5):.1f}",
                    "astronomy": {"sunrise": "06:33 AM", "sunset": "05:02 PM"}, "hourly": hourly})
    return json.dumps(out, indent=2)


def pg_restore_out() -> str:
    body = ["SET", "SET", "SET", "SET", "SET", " set_config ", "------------", " ", "(1 row)", "", "SET", "SET", "SET", "SET"]
    tables = ["access", "access_token", "action", "attachment", "branch", "collaboration", "comment", "commit_status", "deploy_key",
              "email_address", "issue", "issue_index", "issue_label", "label", "lfs_meta_object", "milestone", "mirror", "notice",
              "notification", "oauth2_application", "public_key", "pull_request", "push_mirror", "release", "repo_unit", "repository",
              "review", "star", "system_setting", "team", "team_repo", "team_unit", "topic", "upload", "user", "user_open_id",
              "user_setting", "version", "watch", "webhook"]
    for t in tables:
        body.append("CREATE TABLE")
        body.append("ALTER TABLE")
    for t in tables:
        body.append(f"INSERT 0 {({'repository': 14, 'user': 3, 'issue': 61, 'comment': 188, 'action': 2210, 'lfs_meta_object': 97, 'release': 9, 'label': 12, 'public_key': 4}).get(t, 1)}")
    body += ["ALTER TABLE"] * 18 + ["CREATE INDEX"] * 24
    body += ["NOTICE:  relation \"version\" already exists, skipping", " setval ", "--------", "   2211", "(1 row)"]
    return "\n".join(body)


def deploy_log() -> str:
    return """==> linkdrop deploy → staging-1 (deploy@10.0.5.31)
==> git: main @ 4e1c9ab "feat: bulk import from Pocket export" (clean)
==> building frontend
vite v5.4.11 building for production...
✓ 412 modules transformed.
dist/index.html                   0.62 kB │ gzip:  0.38 kB
dist/assets/index-Cq3ZtV1h.css   18.41 kB │ gzip:  4.52 kB
dist/assets/vendor-DPV1n0gS.js  143.88 kB │ gzip: 46.21 kB
dist/assets/index-B7fGx9kQ.js    61.07 kB │ gzip: 20.93 kB
✓ built in 6.84s
==> building backend (go 1.23.3, linux/amd64)
go: downloading github.com/mattn/go-sqlite3 v1.14.24
go build -trimpath -ldflags "-s -w -X main.version=4e1c9ab" -o build/linkdrop ./cmd/linkdrop
==> running migrations (dry run)
  0012_add_import_jobs.sql ........ pending
  0013_index_links_created_at.sql . pending
==> rsync to deploy@10.0.5.31:/srv/linkdrop/releases/20261126-094102
sending incremental file list
./
linkdrop
static/
static/index.html
static/assets/index-B7fGx9kQ.js
static/assets/index-Cq3ZtV1h.css
static/assets/vendor-DPV1n0gS.js
migrations/0012_add_import_jobs.sql
migrations/0013_index_links_created_at.sql

sent 9,871,204 bytes  received 412 bytes  2,820,461.71 bytes/sec
total size is 24,102,881  speedup is 2.44
==> applying migrations on staging-1
  0012_add_import_jobs.sql ........ ok (41ms)
  0013_index_links_created_at.sql . ok (388ms)
==> switching symlink current -> releases/20261126-094102
==> systemctl restart linkdrop
==> health check http://10.0.5.31:8080/healthz
  attempt 1: connection refused
  attempt 2: 200 {"status":"ok","version":"4e1c9ab","db":"ok","uptime_s":2}
==> pruning old releases (keeping 5): removed 20261103-212255
==> done in 41s"""


# =============================================================================================
# English session: Telegram DM (agent:main:telegram:direct:<id>), 2026-11-24 .. 26.
# It was the heartbeat target that week; has a /compact (compaction entry) and a side branch.
# =============================================================================================
SAT_SUN = [("2026-11-28", (9, 17, 10, "Partly cloudy")), ("2026-11-29", (11, 15, 78, "Light rain"))]

COMPACTION_SUMMARY = """## Goal
- Migrate Gitea from the Raspberry Pi (pi4.lan) to the NUC (nuc.lan)
- Pick a day for a hike at Jiuxi, Hangzhou this weekend

## Constraints & Preferences
- Always use metric units and 24-hour time (saved to USER.md on 11-24)
- Telegram: use lists, no tables
- Ask before destructive commands on the Pi or the NUC

## Progress
### Done
- [x] Inventoried the Pi: gitea, pihole, syncthing, uptime-kuma, watchtower; SD card 84% full, load ~2.9
- [x] Diagnosed failing pushes: SQLite `database is locked (5) (SQLITE_BUSY)` on the SD card
- [x] Wrote projects/homelab/gitea/docker-compose.yml for the NUC: gitea 1.22.3 + postgres:16-alpine
- [x] 11-24: `gitea dump` on the Pi -> /srv/backup/{dump1} on the NUC (repos + db + LFS, 14 repos)
- [x] 11-25: postgres container `gitea-db` up on the NUC, empty `gitea` database
- [x] 11-25: second dump with `--database postgres` after stopping gitea on the Pi (first try failed: SQLITE_BUSY) -> /srv/backup/{dump2}

### In Progress
- [ ] Restore gitea-db.sql into gitea-db on the NUC and compare repo/user counts with the Pi

### Blocked
- (none)

## Key Decisions
- **PostgreSQL for Gitea on the NUC**: SQLite on the Pi's SD card kept locking under pushes
- **Stop Gitea on the Pi before dumping**: a live dump fails with SQLITE_BUSY

## Next Steps
1. Restore the SQL dump into gitea-db, start Gitea on the NUC, compare counts
2. Switch remotes/bookmarks from pi4.lan:3000 to nuc.lan:3000
3. Retire Gitea on the Pi

## Critical Context
- Weather (wttr.in, Hangzhou): Sat 11-28 9-17 °C, rain chance ~10%; Sun 11-29 11-15 °C, rain ~78%
- Gitea data: 14 repositories, 3 users, LFS ~212 MB; data dir on the NUC will be /srv/gitea
- Gitea on the Pi is stopped since 09:43 on 11-25 (pushes will fail until the NUC is up)"""


def build_en(rng: random.Random, session_id: str) -> Session:
    s = Session(rng, session_id, WS_ABS, local("2026-11-24 08:46:55") + timedelta(milliseconds=402),
                "anthropic", "claude-opus-4-7", base_ctx=22120)
    s.msg_seq = 3391
    s.model_change("anthropic", "claude-opus-4-7")
    s.adv(0.001)
    s.thinking_level("medium")
    s.model_snapshot()
    tg = "telegram"

    # ---------------------------------------------- Tue 11-24
    s.at("2026-11-24 08:47:31")
    s.user("morning! plan for this week: move gitea off the raspberry pi onto the nuc. can you check what's running on the pi first", tg)
    s.tool("exec", {"command": "ssh pi4 'docker ps; echo ---; df -h /; echo ---; uptime'", "timeout": 30}, PI_DOCKER_PS, secs=(1.1, 2.0),
           think="He wants an inventory of the Pi before migrating Gitea. docker ps + disk + load in one ssh call.")
    s.say("Here's the Pi (pi4.lan):\n\n"
          "- **gitea** 1.22.3 — ports 3000 (web) and 2222 (ssh), up 12 days\n"
          "- **pihole** — DNS on 53, admin on 8053\n"
          "- **syncthing**, **uptime-kuma**, **watchtower**\n\n"
          "The SD card is 84% full (47 of 59 GB) and load is ~2.9 on 4 cores, which is a lot for a Pi that's mostly idle. "
          "Only gitea needs to move; pihole can stay on the Pi. Want me to draft the compose file for the NUC?", ttl=True)
    s.at("2026-11-24 08:52:10")
    s.user("ok", tg)
    s.say("👍 Tell me which database you want for it on the NUC and I'll write the compose file.")

    s.at("2026-11-24 09:03:44")
    s.user("let's use postgresql for gitea on the nuc this time, sqlite was slow on the pi's sd card", tg)
    s.tool("write", {"path": "projects/homelab/gitea/docker-compose.yml", "content": GITEA_COMPOSE_PG},
           f"Successfully wrote {len(GITEA_COMPOSE_PG)} bytes to projects/homelab/gitea/docker-compose.yml",
           think="Decision: PostgreSQL on the NUC. gitea + postgres:16-alpine, password via a docker secret, data in /srv/gitea, keep the same ports so remotes only change host.")
    s.say("Decision noted: **Gitea on the NUC uses PostgreSQL 16**.\n\n"
          "Wrote `projects/homelab/gitea/docker-compose.yml`:\n"
          "- gitea 1.22.3 (same version as the Pi, so the dump restores cleanly)\n"
          "- postgres:16-alpine, password from `./secrets/gitea_db_password`\n"
          "- data in /srv/gitea, same ports 3000/2222\n\n"
          "Nothing started yet.")

    s.at("2026-11-24 09:10:02")
    s.user("always use metric units btw, and 24h time. the weather skill keeps giving me °F", tg)
    s.tool("edit", {"path": "USER.md", "edits": [{
        "oldText": "## 偏好 Preferences\n\n- 日期格式 YYYY-MM-DD。",
        "newText": "## 偏好 Preferences\n\n- Always use metric units (°C, km, km/h, mm). 24-hour time. (2026-11-24)\n- 日期格式 YYYY-MM-DD。"}]},
        "Successfully replaced 1 block(s) in USER.md.",
        think="Standing preference: metric + 24h. Save to USER.md; the weather skill needs ?m on wttr.in.")
    s.say("Done — saved to USER.md: metric units (°C, km/h, mm) and 24-hour time, always. I'll add `?m` to every wttr.in call.", ttl=True)

    s.heartbeat("2026-11-24 09:30:04")
    s.say(HEARTBEAT_OK)

    s.at("2026-11-24 10:12:26")
    s.user("what's the weather for saturday in hangzhou? thinking of hiking jiuxi", tg)
    s.tool("exec", {"command": "curl -s 'wttr.in/Hangzhou?m&format=j1' | jq '[.weather[] | {date, maxtempC, mintempC, sunHour, astronomy: .astronomy[0] | {sunrise, sunset}, hourly: [.hourly[] | {time, tempC, FeelsLikeC, chanceofrain, precipMM, windspeedKmph, humidity, weatherDesc: .weatherDesc[0].value}]}]'"},
           wttr_json(rng, [("2026-11-24", (8, 15, 20, "Sunny")), ("2026-11-25", (9, 16, 30, "Partly cloudy")), ("2026-11-26", (10, 17, 35, "Overcast"))]),
           secs=(0.8, 1.6), think="wttr.in only gives 3 days (today..Thu). Saturday is outside the window; fetch anyway and then check a longer forecast.")
    s.tool("exec", {"command": "curl -s 'https://api.open-meteo.com/v1/forecast?latitude=30.21&longitude=120.12&daily=temperature_2m_max,temperature_2m_min,precipitation_probability_max&timezone=Asia%2FShanghai&start_date=2026-11-28&end_date=2026-11-29'"},
           json.dumps({"latitude": 30.2, "longitude": 120.125, "generationtime_ms": 0.071, "utc_offset_seconds": 28800, "timezone": "Asia/Shanghai",
                       "timezone_abbreviation": "GMT+8", "elevation": 41.0,
                       "daily_units": {"time": "iso8601", "temperature_2m_max": "°C", "temperature_2m_min": "°C", "precipitation_probability_max": "%"},
                       "daily": {"time": ["2026-11-28", "2026-11-29"], "temperature_2m_max": [17.2, 15.1], "temperature_2m_min": [8.9, 11.3],
                                 "precipitation_probability_max": [12, 78]}}),
           think="Open-Meteo for Sat/Sun at Jiuxi coordinates (30.21, 120.12).")
    s.say("Saturday (11-28) at Jiuxi looks good:\n\n"
          "- **Sat**: 9–17 °C, rain chance ~12%\n"
          "- **Sun**: 11–15 °C, rain chance ~78% — skip Sunday\n\n"
          "wttr.in only covers through Thursday, so this is Open-Meteo; I'll re-check hourly on Wednesday or Thursday when it's in range.")
    s.at("2026-11-24 10:14:03")
    s.user("thanks", tg)
    s.say("Anytime.")

    s.at("2026-11-24 11:40:17")
    s.user("check the gitea logs on the pi, pushes were failing last night", tg)
    s.tool("exec", {"command": "ssh pi4 'docker logs --since 2026-11-23T21:00:00 --until 2026-11-23T22:00:00 gitea 2>&1 | tail -n 80'", "timeout": 30},
           gitea_log(rng), secs=(1.4, 2.6), think="Pull last night's gitea logs around the failed pushes.")
    s.say("Found it. Every failed push is the same error:\n\n"
          "`PushUpdate: update repository: database is locked` → `SQLITE_BUSY`\n\n"
          "plus slow SQL warnings (5–20 s for a one-row UPDATE). Gitea's SQLite db is on the SD card, and writes are stalling — "
          "with load ~2.9 and the card 84% full, the card is the bottleneck. Fetches (`git-upload-pack`) are fine; only writes fail.", ttl=True)
    s.at("2026-11-24 11:44:50")
    s.user("makes sense. another reason to get off the pi", tg)
    s.say("Yep. Next step would be a `gitea dump` on the Pi and copying it to the NUC.")

    s.heartbeat("2026-11-24 12:00:05")
    s.say(HEARTBEAT_OK)

    s.at("2026-11-24 14:23:49")
    s.user("can you dump the pi's gitea and copy it to the nuc", tg)
    dump1_out = ("2026/11/24 14:24:11 ...les/setting/log.go:40:loadLogGlobalFrom() [I] Starting Gitea dump\n"
                 "2026/11/24 14:24:11 cmd/dump.go:176:runDump() [I] Dumping local repositories... /data/git/repositories\n"
                 "2026/11/24 14:24:18 cmd/dump.go:195:runDump() [I] Packing repositories... 14 repositories\n"
                 "2026/11/24 14:24:50 cmd/dump.go:214:runDump() [I] Dumping database...\n"
                 "2026/11/24 14:24:53 cmd/dump.go:244:runDump() [I] Adding custom configuration file from /data/gitea/conf/app.ini\n"
                 "2026/11/24 14:24:53 cmd/dump.go:260:runDump() [I] Custom dir: /data/gitea\n"
                 "2026/11/24 14:24:54 cmd/dump.go:290:runDump() [I] Packing data directory.../data/gitea\n"
                 "2026/11/24 14:25:00 cmd/dump.go:317:runDump() [I] Packing lfs files... /data/git/lfs\n"
                 f"2026/11/24 14:25:06 cmd/dump.go:389:runDump() [I] Finish dumping in file /tmp/{DUMP1}\n"
                 f"-rw------- 1 git git 396M Nov 24 14:25 /tmp/{DUMP1}")
    s.tool("exec", {"command": "ssh pi4 'docker exec -u git gitea bash -c \"cd /tmp && gitea dump -c /data/gitea/conf/app.ini --type zip\" && docker exec gitea ls -lh /tmp/ | grep gitea-dump'", "timeout": 600},
           dump1_out, secs=(69, 72), think="gitea dump inside the container as user git, then list the file.")
    s.tool("exec", {"command": f"ssh pi4 'docker cp gitea:/tmp/{DUMP1} /home/chenyu/' && rsync -av --progress pi4:/home/chenyu/{DUMP1} /srv/backup/ && sha256sum /srv/backup/{DUMP1} && ssh pi4 sha256sum /home/chenyu/{DUMP1}", "timeout": 900},
           f"receiving incremental file list\n{DUMP1}\n    415,237,120 100%   10.92MB/s    0:00:36 (xfr#1, to-chk=0/1)\n\n"
           f"sent 43 bytes  received 415,338,551 bytes  11,225,367.41 bytes/sec\ntotal size is 415,237,120  speedup is 1.00\n"
           f"9c4be7f0a51d2c0e6a13b7e2f1d8a6c53e0b9f4d7a2c1e8b5f3d6a9c0e7b4f12  /srv/backup/{DUMP1}\n"
           f"9c4be7f0a51d2c0e6a13b7e2f1d8a6c53e0b9f4d7a2c1e8b5f3d6a9c0e7b4f12  /home/chenyu/{DUMP1}",
           secs=(38, 41))
    s.say(f"Done:\n\n- Dump on the Pi: `{DUMP1}` (396 MB, 14 repos)\n- Copied to the NUC at `/srv/backup/`, sha256 matches on both sides\n\n"
          "Gitea on the Pi is still running, nothing changed there.", ttl=True)
    s.at("2026-11-24 14:31:02")
    s.user("just to confirm — the dump has both the repos and the db?", tg)
    s.say("Yes: repositories (14), the database (`gitea-db.sql`), app.ini, and the data dir are all in the zip — "
          "that's what `Packing repositories` / `Dumping database` in the output were.")
    s.at("2026-11-24 14:33:18")
    s.user("and the lfs objects?", tg)
    s.tool("exec", {"command": f"unzip -l /srv/backup/{DUMP1} | grep -E 'gitea-db.sql|app.ini|^.* data/lfs/' | head -n 8; unzip -l /srv/backup/{DUMP1} | grep -c ' data/lfs/'"},
           f"  1842211  2026-11-24 14:24   gitea-db.sql\n     1204  2026-11-24 14:24   custom/conf/app.ini\n"
           "        0  2026-11-24 14:25   data/lfs/\n  4194304  2026-11-24 14:25   data/lfs/0a/3f/0a3f9c2e81d4b7a6c5e0f1d2b3a4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6\n"
           "  2871034  2026-11-24 14:25   data/lfs/11/b2/11b2d0e9f8a7c6b5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1\n"
           "  9437184  2026-11-24 14:25   data/lfs/1c/77/1c77e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7\n"
           "  1048576  2026-11-24 14:25   data/lfs/2d/05/2d05f1e2d3c4b5a6f7e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0\n"
           "   524288  2026-11-24 14:25   data/lfs/3e/9a/3e9ac8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9\n98")
    s.say("Yes, LFS is in there too: `data/lfs/` with 97 objects (plus the dir entry), about 212 MB.")

    s.heartbeat("2026-11-24 15:00:03")
    s.say(HEARTBEAT_OK)
    s.heartbeat("2026-11-24 18:30:04")
    s.say(HEARTBEAT_OK)
    s.at("2026-11-24 21:02:40")
    s.user("ok calling it a day. tomorrow: postgres on the nuc + restore", tg)
    s.say("Good night! Tomorrow: start the postgres container, restore the dump, then bring Gitea up on the NUC.", ttl=True)

    # ---------------------------------------------- Wed 11-25
    s.heartbeat("2026-11-25 09:00:05")
    s.say(HEARTBEAT_OK)
    s.at("2026-11-25 09:20:12")
    s.user("morning. set up postgres on the nuc", tg)
    s.tool("exec", {"command": "cd ~/.openclaw/workspace/projects/homelab/gitea && mkdir -p secrets && (test -s secrets/gitea_db_password || openssl rand -base64 24 > secrets/gitea_db_password) && chmod 600 secrets/gitea_db_password && docker compose up -d db && sleep 5 && docker compose ps && docker exec gitea-db psql -U gitea -d gitea -c '\\l gitea'"},
           "[+] Running 3/3\n ✔ Network gitea_default     Created                                                   0.1s\n ✔ Volume \"gitea_gitea-pg\"  Created                                                   0.0s\n ✔ Container gitea-db       Started                                                   0.6s\n"
           "NAME       IMAGE                COMMAND                  SERVICE   CREATED         STATUS         PORTS\ngitea-db   postgres:16-alpine   \"docker-entrypoint.s…\"   db        6 seconds ago   Up 5 seconds   5432/tcp\n"
           "                                                  List of databases\n Name  | Owner | Encoding | Locale Provider |  Collate   |   Ctype    | ICU Locale | ICU Rules | Access privileges \n"
           "-------+-------+----------+-----------------+------------+------------+------------+-----------+-------------------\n gitea | gitea | UTF8     | libc            | en_US.utf8 | en_US.utf8 |            |           | \n(1 row)",
           secs=(7, 9), think="Generate the secret if missing, start only the db service, verify the gitea database exists.")
    s.say("Postgres is up on the NUC: container `gitea-db` (postgres:16-alpine), empty `gitea` database, password in `secrets/gitea_db_password` (chmod 600). Gitea itself not started yet.")

    s.at("2026-11-25 09:31:40")
    s.user("can gitea restore a sqlite dump into postgres directly?", tg)
    s.say("Not directly. The `gitea-db.sql` in yesterday's dump is SQLite-dialect SQL; Postgres won't take it as-is.\n\n"
          "The clean way: run the dump again on the Pi with `gitea dump --database postgres` — Gitea then writes the SQL in Postgres syntax, "
          "and you restore it with `psql`. Repos/LFS are the same either way.",
          think="Gitea's `dump --database` (`-d`) flag sets the SQL dialect of gitea-db.sql (sqlite3, mysql, postgres, mssql). "
                "So a fresh dump with --database postgres is the supported path; converting SQLite SQL by hand is fragile (types, quoting, sequences). "
                "Answer: no, but here's the way.")
    s.at("2026-11-25 09:40:52")
    s.user("do that", tg)
    s.tool("exec", {"command": "ssh pi4 'docker exec -u git gitea bash -c \"cd /tmp && gitea dump -c /data/gitea/conf/app.ini --type zip --database postgres\"'", "timeout": 600},
           gitea_dump_out(False), is_error=True, secs=(45, 47), think="Re-dump with Postgres syntax.")
    s.tool("exec", {"command": "ssh pi4 'docker exec gitea gitea manager flush-queues; docker stop gitea && docker run --rm --volumes-from gitea -u git gitea/gitea:1.22.3 bash -c \"cd /tmp && gitea dump -c /data/gitea/conf/app.ini --type zip --database postgres\" '", "timeout": 900},
           gitea_dump_out(True), secs=(205, 212),
           think="SQLITE_BUSY again — gitea itself holds write locks on the SD card. Stop the container (no writes) and dump from a throwaway container using its volumes. He asked for the dump, stopping gitea on the Pi for a few minutes is fine since we're migrating off it anyway; I'll tell him.",
           pre="Same `database is locked` as last night — Gitea is holding the SQLite file. I'll stop Gitea on the Pi and dump from a one-off container with the same volumes.")
    s.tool("exec", {"command": f"ssh pi4 'docker cp gitea:/tmp/{DUMP2} /home/chenyu/' 2>/dev/null || ssh pi4 'docker run --rm --volumes-from gitea alpine cat /tmp/{DUMP2}' > /srv/backup/{DUMP2}; ls -lh /srv/backup/"},
           f"total 794M\n-rw-r--r-- 1 chenyu chenyu 396M Nov 24 14:26 {DUMP1}\n-rw-r--r-- 1 chenyu chenyu 398M Nov 25 09:47 {DUMP2}")
    s.say(f"Got it: `/srv/backup/{DUMP2}` (398 MB) with the database in Postgres syntax.\n\n"
          "⚠️ Gitea on the Pi is **stopped** now (it had to be, for a consistent dump). Pushes will fail until the NUC is up — probably fine for a couple of hours?", ttl=True)
    s.at("2026-11-25 10:05:27")
    s.user("cool, fine", tg)
    s.say("👍")

    s.heartbeat("2026-11-25 10:30:02")
    s.say(HEARTBEAT_OK)

    # restore -- this is where the compaction keeps from
    s.at("2026-11-25 11:10:44")
    ctx_before_kept = s.ctx
    first_kept = s.user("restore it into postgres", tg)
    s.tool("exec", {"command": f"cd /tmp && rm -rf gitea-restore && mkdir gitea-restore && cd gitea-restore && unzip -q /srv/backup/{DUMP2} gitea-db.sql && docker exec -i gitea-db psql -U gitea -d gitea -v ON_ERROR_STOP=1 < gitea-db.sql", "timeout": 600},
           pg_restore_out(), secs=(14, 19), think="Unzip only the SQL and pipe it into psql with ON_ERROR_STOP.")
    s.say("Restored into `gitea-db` — all 40 tables created and loaded, no errors (one harmless NOTICE about `version` already existing). "
          "Row counts look right: 14 repositories, 3 users, 61 issues, 97 LFS objects.")
    s.at("2026-11-25 11:25:31")
    s.user("just to confirm nothing got lost — repo count matches?", tg)
    s.tools([
        ("exec", {"command": "docker exec gitea-db psql -U gitea -d gitea -At -c 'select count(*) from repository; select count(*) from \"user\"; select count(*) from lfs_meta_object'"}, "14\n3\n97"),
        ("exec", {"command": "ssh pi4 'sqlite3 -readonly /srv/gitea-data/gitea/gitea.db \"select count(*) from repository; select count(*) from user; select count(*) from lfs_meta_object\"'"}, "14\n3\n97"),
    ], think="Compare counts on both sides: Postgres on the NUC vs the (stopped) SQLite on the Pi, read-only.")
    s.say("Matches on both sides: 14 repos, 3 users, 97 LFS objects (Pi's SQLite opened read-only).", ttl=True)
    s.heartbeat("2026-11-25 12:00:04")
    s.say(HEARTBEAT_OK)

    # /compact (the command itself is not stored; OpenClaw appends the compaction entry)
    s.at("2026-11-25 13:05:20")
    kept = s.ctx - ctx_before_kept
    s.compaction(COMPACTION_SUMMARY.format(dump1=DUMP1, dump2=DUMP2), first_kept,
                 read_files=[], modified_files=["USER.md", "projects/homelab/gitea/docker-compose.yml"], kept_tokens=kept)
    s.at("2026-11-25 13:06:02")
    s.user("where are we at?", tg)
    s.say("Gitea migration:\n\n"
          "- ✅ Dumped on the Pi (SQLite dump 11-24, Postgres-syntax dump this morning)\n"
          "- ✅ Postgres (`gitea-db`) running on the NUC, dump restored, counts match (14 repos, 3 users, 97 LFS objects)\n"
          "- ⏳ Next: start Gitea on the NUC, then switch remotes from pi4.lan:3000 to nuc.lan:3000\n"
          "- ⚠️ Gitea on the Pi is stopped since 09:43\n\n"
          "Weekend: Saturday looks good for Jiuxi (9–17 °C, ~12% rain), Sunday rainy.")
    s.heartbeat("2026-11-25 13:30:03")
    s.say(HEARTBEAT_OK)

    # decision change: PostgreSQL -> SQLite
    s.at("2026-11-25 14:39:30")
    s.thinking_level("high")
    s.at("2026-11-25 14:40:05")
    s.user("honestly postgres is overkill for a single-user gitea. switch to sqlite on the nuc's nvme instead — the pi problem was the sd card, not sqlite", tg)
    s.tool("exec", {"command": "findmnt -no SOURCE,FSTYPE /srv && lsblk -no NAME,MODEL,SIZE /dev/nvme0n1 | head -2"},
           "/dev/nvme0n1p2 ext4\nnvme0n1     Samsung SSD 980 1TB 931.5G\nnvme0n1p1                512M",
           think=("He's reversing yesterday's decision: back to SQLite, but on NVMe. Reasonable — one user, 14 repos; the locking was SD-card latency. "
                  "Plan: compose with only gitea, DB_TYPE=sqlite3, WAL journal mode, and use the original SQLite dump from 11-24 (gitea.db in the data dir) — "
                  "the Postgres restore becomes unnecessary. Confirm /srv is on the NVMe first."))
    s.tool("write", {"path": "projects/homelab/gitea/docker-compose.yml", "content": GITEA_COMPOSE_SQLITE},
           f"Successfully wrote {len(GITEA_COMPOSE_SQLITE)} bytes to projects/homelab/gitea/docker-compose.yml")
    s.say("Agreed — switched. **New decision: SQLite on the NUC's NVMe** (replaces yesterday's PostgreSQL plan).\n\n"
          "- `/srv` is on the Samsung 980 NVMe, so no SD-card latency\n"
          "- compose now has only `gitea`, `DB_TYPE=sqlite3` with WAL journal mode\n"
          "- I'll restore from the original SQLite dump (11-24), so the Postgres restore isn't needed\n\n"
          "Should I remove the `gitea-db` container and its volume?", ttl=True)
    s.at("2026-11-25 14:48:12")
    s.user("yes, drop the postgres container and volume", tg)
    s.tool("exec", {"command": "cd ~/.openclaw/workspace/projects/homelab/gitea && docker rm -f gitea-db && docker volume rm gitea_gitea-pg && rm -f secrets/gitea_db_password && docker volume ls | grep -c gitea || true"},
           "gitea-db\ngitea_gitea-pg\n0")
    s.say("Removed: `gitea-db` container, `gitea_gitea-pg` volume, and the password file.")
    s.at("2026-11-25 14:55:40")
    s.user("start gitea on the nuc and check it", tg)
    s.tool("exec", {"command": f"sudo mkdir -p /srv/gitea && cd /tmp && rm -rf gd && mkdir gd && cd gd && unzip -q /srv/backup/{DUMP1} && sudo rsync -a data/ /srv/gitea/gitea/ && sudo rsync -a repos/ /srv/gitea/git/repositories/ && sudo cp custom/conf/app.ini /srv/gitea/gitea/conf/app.ini && sudo sed -i 's/^DOMAIN = pi4.lan/DOMAIN = nuc.lan/; s#^ROOT_URL = .*#ROOT_URL = http://nuc.lan:3000/#' /srv/gitea/gitea/conf/app.ini && sudo chown -R 1000:1000 /srv/gitea && cd ~/.openclaw/workspace/projects/homelab/gitea && docker compose up -d && sleep 8 && curl -s -o /dev/null -w '%{{http_code}}\\n' http://nuc.lan:3000/api/healthz && curl -s http://nuc.lan:3000/api/v1/repos/search?limit=50 | jq '.data | length'", "timeout": 300},
           "[+] Running 2/2\n ✔ Network gitea_default  Created                                                      0.1s\n ✔ Container gitea       Started                                                      0.7s\n200\n14",
           secs=(21, 26), think="Restore the SQLite data dir + repos from the 11-24 dump into /srv/gitea, fix DOMAIN/ROOT_URL, start, health check, count repos via API.")
    s.say("Gitea is up on the NUC: http://nuc.lan:3000 — healthz 200, API lists all 14 repos.\n\n"
          "Remotes still point at pi4.lan:3000; switch them with `git remote set-url origin ssh://git@nuc.lan:2222/chenyu/<repo>.git` when you're at the laptop.")
    s.heartbeat("2026-11-25 15:00:05")
    s.say(HEARTBEAT_OK)
    s.at("2026-11-25 15:01:40")
    s.thinking_level("medium")

    # side branch: the user re-asks; the first question/answer stays in the file, off the active path
    s.at("2026-11-25 16:10:14")
    branch_parent = s.leaf
    s.user("what's the forecast for sunday then?", tg)
    s.say("Sunday 11-29 in Hangzhou: 11–15 °C, ~78% chance of rain, mostly in the afternoon. Not a hiking day.")
    s.at("2026-11-25 16:11:30")
    s.user("actually, hourly for saturday morning at jiuxi please, metric", tg, parent=branch_parent)
    s.tool("exec", {"command": "curl -s 'wttr.in/Hangzhou?m&format=j1' | jq '[.weather[] | select(.date == \"2026-11-28\") | {date, maxtempC, mintempC, sunHour, astronomy: .astronomy[0] | {sunrise, sunset}, hourly: [.hourly[] | {time, tempC, FeelsLikeC, chanceofrain, precipMM, windspeedKmph, humidity, weatherDesc: .weatherDesc[0].value}]}]'"},
           "[]", think="wttr.in's j1 covers today + 2 days (Wed-Fri), so Saturday may not be in it yet. Try it; fall back to Open-Meteo hourly if empty.")
    s.tool("exec", {"command": "curl -s 'https://api.open-meteo.com/v1/forecast?latitude=30.21&longitude=120.12&hourly=temperature_2m,precipitation_probability,wind_speed_10m&timezone=Asia%2FShanghai&start_date=2026-11-28&end_date=2026-11-28' | jq -c '.hourly | [.time, .temperature_2m, .precipitation_probability, .wind_speed_10m] | transpose | .[6:13][]'"},
           "\n".join(json.dumps([f"2026-11-28T{h:02d}:00", t, p, w]) for h, t, p, w in
                     [(6, 9.4, 5, 6.1), (7, 10.1, 5, 6.8), (8, 11.6, 4, 7.9), (9, 13.2, 6, 9.0), (10, 14.8, 8, 10.4), (11, 15.9, 10, 11.2), (12, 16.7, 12, 11.9)]))
    s.say("Saturday morning (11-28), Jiuxi:\n\n"
          "- 06:00 — 9.4 °C, rain 5%, wind 6 km/h\n- 08:00 — 11.6 °C, rain 4%\n- 10:00 — 14.8 °C, rain 8%, wind 10 km/h\n- 12:00 — 16.7 °C, rain 12%, wind 12 km/h\n\n"
          "Dry and cool, sunrise 06:33. Starting around 08:00 is ideal; bring a light layer for the first hour.", ttl=True)
    s.at("2026-11-25 16:15:02")
    s.user("perfect, saturday it is", tg)
    s.say("🥾 Saturday it is. I'll re-check Friday evening in case it changes.")
    s.heartbeat("2026-11-25 18:00:06")
    s.say(HEARTBEAT_OK)
    s.heartbeat("2026-11-25 21:30:03")
    s.say(HEARTBEAT_OK)

    # ---------------------------------------------- Thu 11-26
    s.heartbeat("2026-11-26 09:05:04")
    s.say(HEARTBEAT_OK)
    s.at("2026-11-26 09:39:30")
    s.model_change("anthropic", "claude-sonnet-4-6")
    s.model_snapshot()
    s.at("2026-11-26 09:40:11")
    s.user("deploy linkdrop to staging — target is staging-1 as usual", tg)
    s.tool("exec", {"command": "cd ~/src/linkdrop && git status -sb | head -1 && ./deploy.sh staging-1", "timeout": 600},
           "## main...origin/main\n" + deploy_log(), secs=(40, 43), think="Deploy target per TOOLS.md/MEMORY: staging-1. Run the deploy script.")
    s.say("Deployed linkdrop `4e1c9ab` to **staging-1** (10.0.5.31) in 41 s:\n\n"
          "- migrations 0012 and 0013 applied\n- health check OK on the 2nd attempt\n- old release 20261103 pruned (5 kept)", ttl=True)
    s.at("2026-11-26 09:52:44")
    s.user("thanks", tg)
    s.say("👍")

    s.at("2026-11-26 10:30:20")
    s.user("can you set up a nightly backup of gitea to the nas, 3am", tg)
    s.tool("exec", {"command": "ls /mnt; mount | grep -i nas; smbclient -L nas.lan -N 2>&1 | head -n 8"},
           "backup-old\n\nSharename       Type      Comment\n---------       ----      -------\n"
           "homes           Disk      user homes\nmedia           Disk      \ntimemachine     Disk      \nIPC$            IPC       IPC Service (nas)\n"
           "SMB1 disabled -- no workgroup available",
           think="Need a target on the NAS. TOOLS.md says //nas.lan/backup (unconfirmed). Check what's mounted/shared.")
    s.say("I can write the cron job, but I need the target first: TOOLS.md says `//nas.lan/backup`, and that share **doesn't exist** — "
          "the NAS only exposes `homes`, `media` and `timemachine`. Which share (and folder) should the Gitea backups go to?")
    s.at("2026-11-26 10:33:05")
    s.user("not sure, I'll check on the nas tonight", tg)
    s.say("OK, parked until you know the share. The plan stays: `gitea dump` at 03:00 → NAS, keep 14 days.")

    s.heartbeat("2026-11-26 11:00:04")
    s.say(HEARTBEAT_OK)

    s.at("2026-11-26 13:15:09")
    s.user("set a reminder to renew my passport, it expires in june next year. remind me march 1st at the latest", tg)
    s.tool("write", {"path": "reminders/2027-03-01-passport-renewal.json", "content": json.dumps(REMINDER_PASSPORT, ensure_ascii=False, indent=2) + "\n"},
           f"Successfully wrote {len(json.dumps(REMINDER_PASSPORT, ensure_ascii=False, indent=2)) + 1} bytes to reminders/2027-03-01-passport-renewal.json",
           think="Renewal takes ~3 weeks; remind a week before the deadline (2027-02-22), expires 2027-03-01.")
    s.say("Reminder set: **renew passport** — I'll ping you on 2027-02-22 (a week ahead), deadline 2027-03-01. Saved in `reminders/2027-03-01-passport-renewal.json`.")
    s.at("2026-11-26 13:16:22")
    s.user("ok", tg)
    s.say("✅")

    s.at("2026-11-26 15:20:47")
    s.user("do you know if the nuc's warranty is still valid? bought it in 2023 I think", tg)
    s.tool("exec", {"command": "sudo dmidecode -s system-product-name; sudo dmidecode -s system-serial-number; sudo dmidecode -s bios-release-date"},
           "NUC13ANHi5\nG6AN3210017K\n04/12/2023", think="Check model/serial; I don't have a purchase date on record.")
    s.say("I don't know yet. What I can see: it's a **NUC13ANHi5**, serial `G6AN3210017K`, BIOS from 2023-04-12. "
          "NUC 13 Pro kits come with a 3-year warranty (now serviced by ASUS), so if you bought it in 2023 it ends sometime in 2026 — "
          "it may already have lapsed or be about to, depending on the purchase month. I don't have the purchase date anywhere, so I can't say. "
          "The receipt, or ASUS's warranty check with the serial, would settle it.")
    s.at("2026-11-26 15:25:10")
    s.user("I'll dig out the receipt later", tg)
    s.say("Sounds good.")
    s.heartbeat("2026-11-26 16:00:03")
    s.say(HEARTBEAT_OK)

    s.at("2026-11-26 19:40:28")
    s.user("gitea on the nuc has been fine all day. mark the migration done and update MEMORY.md", tg)
    s.tools([
        ("edit", {"path": "MEMORY.md", "edits": [{
            "oldText": "- Gitea runs on the Raspberry Pi (pi4.lan:3000), SQLite on the SD card.\n",
            "newText": ("- [outdated] Gitea runs on the Raspberry Pi (pi4.lan:3000), SQLite on the SD card.\n"
                        "- 2026-11-24: decided Gitea on the NUC would use PostgreSQL (SD-card SQLite was locking).\n"
                        "- 2026-11-25: switched back to SQLite for Gitea, on the NUC's NVMe — the problem was the SD card, not SQLite. Supersedes the PostgreSQL decision.\n"
                        "- 2026-11-26: Gitea migration to the NUC done. Pi no longer serves Gitea.\n")}]},
         "Successfully replaced 1 block(s) in MEMORY.md."),
        ("write", {"path": "projects/homelab/notes.md", "content": HOMELAB_NOTES}, f"Successfully wrote {len(HOMELAB_NOTES)} bytes to projects/homelab/notes.md"),
    ], think="Migration done. MEMORY.md: mark the Pi line [outdated], record both decisions (PG then SQLite, the later supersedes), and completion. Also write homelab notes.")
    s.say("Marked done ✅\n\n- MEMORY.md: Pi entry marked `[outdated]`, added the PostgreSQL → SQLite decisions (the 11-25 one supersedes) and the completion\n"
          "- `projects/homelab/notes.md`: what moved, where the data lives, open TODOs (NAS backup, retire the Pi)")
    s.at("2026-11-26 19:45:03")
    s.user("just to confirm the pi isn't serving gitea anymore?", tg)
    s.tool("exec", {"command": "ssh pi4 'docker ps -a --filter name=gitea --format \"{{.Names}}\\t{{.Status}}\"'; curl -s -m 3 -o /dev/null -w '%{http_code}\\n' http://pi4.lan:3000/ || true"},
           "gitea\tExited (0) 34 hours ago\n000")
    s.say("Confirmed: the Pi's gitea container is stopped (exited 34 h ago) and pi4.lan:3000 doesn't answer.", ttl=True)

    s.at("2026-11-26 21:40:15")
    s.user("ok thanks, night", tg)
    s.tool("write", {"path": "memory/2026-11-26.md", "content": DAILY_1126},
           f"Successfully wrote {len(DAILY_1126)} bytes to memory/2026-11-26.md",
           think="End of day: write today's daily note before signing off.")
    s.say("Good night! (Today's notes are in memory/2026-11-26.md.)")
    s.heartbeat("2026-11-26 22:30:02")
    s.say(HEARTBEAT_OK, think="Quiet hours, nothing urgent.")
    return s


# =============================================================================================
# sessions.json (OpenClaw legacy session store: session key -> SessionEntry)
# =============================================================================================
def skills_snapshot() -> dict:
    def block(name, desc):
        return (f"<skill>\n<name>{name}</name>\n<description>{desc}</description>\n"
                f"<location>{WS_ABS}/skills/{name}/SKILL.md</location>\n</skill>")
    w_desc = WEATHER_SKILL_MD.split("description: ", 1)[1].split("\n", 1)[0]
    r_desc = REPORT_SKILL_MD.split("description: ", 1)[1].split("\n", 1)[0]
    prompt = ("\n\nThe following skills provide specialized instructions for specific tasks.\n"
              "Use the read tool to load a skill's file when the task matches its description.\n\n"
              "<available_skills>\n" + block("weather", w_desc) + "\n" + block("cost-report", r_desc) + "\n</available_skills>")
    return {"prompt": prompt, "skills": [{"name": "weather"}, {"name": "cost-report"}], "version": 1}


def session_store_entry(s: Session, extra: dict) -> dict:
    first = datetime.strptime(s.header["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    last = datetime.strptime(s.entries[-1]["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    last_user = max(datetime.strptime(e["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
                    for e in s.entries if e["type"] == "message" and e["message"]["role"] == "user"
                    and not e["message"]["content"][0]["text"].startswith(HEARTBEAT_PROMPT))
    thinking = [e["thinkingLevel"] for e in s.entries if e["type"] == "thinking_level_change"][-1]
    u = s.last_usage
    entry = {
        "sessionId": s.id,
        "updatedAt": ms(last),
        "sessionFile": f"{SESSIONS_ABS}/{s.id}.jsonl",
        "sessionStartedAt": ms(first),
        "lastInteractionAt": ms(last_user),
        "systemSent": True,
        "abortedLastRun": False,
        "chatType": "direct",
        "thinkingLevel": thinking,
        "modelProvider": s.provider,
        "model": s.model,
        "contextTokens": 1000000,
        "inputTokens": u["input"],
        "outputTokens": u["output"],
        "cacheRead": u["cacheRead"],
        "cacheWrite": u["cacheWrite"],
        "totalTokens": u["input"] + u["cacheRead"] + u["cacheWrite"],
        "totalTokensFresh": True,
        "compactionCount": sum(1 for e in s.entries if e["type"] == "compaction"),
    }
    entry.update(extra)
    entry["skillsSnapshot"] = skills_snapshot()
    return entry


# =============================================================================================
# main
# =============================================================================================
def session_write_times(s: Session) -> dict:
    """path -> time of the last successful write/edit in this session (for file mtimes)."""
    calls = {}
    out = {}
    for e in s.entries:
        if e["type"] != "message":
            continue
        m = e["message"]
        if m["role"] == "assistant":
            for b in m["content"]:
                if b["type"] == "toolCall" and b["name"] in ("write", "edit"):
                    calls[b["id"]] = b["arguments"]["path"]
        elif m["role"] == "toolResult" and m["toolCallId"] in calls and not m["isError"]:
            out[calls[m["toolCallId"]]] = datetime.strptime(e["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return out


def write_state(root: str, sessions: list, store: dict):
    sdir = os.path.join(root, "agents", "main", "sessions")
    os.makedirs(sdir, exist_ok=True)
    newest = 0.0
    for s in sessions:
        path = os.path.join(sdir, f"{s.id}.jsonl")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(s.lines()) + "\n")
        last = datetime.strptime(s.entries[-1]["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()
        os.utime(path, (last, last))
        newest = max(newest, last)
    spath = os.path.join(sdir, "sessions.json")
    with open(spath, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(store, ensure_ascii=False, indent=2) + "\n")
    os.utime(spath, (newest + 0.4, newest + 0.4))
    for d in (sdir, os.path.dirname(sdir), os.path.dirname(os.path.dirname(sdir)), root):
        os.utime(d, (newest + 0.4, newest + 0.4))


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="(Re)create Apollo's example OpenClaw workspace and state dir.")
    ap.add_argument("--dest", default=here, help="folder to build into (default: the examples/ folder)")
    a = ap.parse_args(argv)
    dest = os.path.abspath(a.dest)
    os.makedirs(dest, exist_ok=True)
    ws, st = os.path.join(dest, "workspace"), os.path.join(dest, "openclaw-state")
    for p in (ws, st):                      # only ever our own two output folders
        if os.path.islink(p):
            os.unlink(p)
        elif os.path.isdir(p):
            shutil.rmtree(p)

    data = ReportData(random.Random(SEED))
    tree = build_workspace(ws, data, random.Random(SEED + 1))
    ids = random.Random(SEED + 2)
    zh_id = str(uuid.UUID(int=ids.getrandbits(128), version=4))
    en_id = str(uuid.UUID(int=ids.getrandbits(128), version=4))
    zh = build_zh(random.Random(SEED + 3), data, ws, zh_id)
    en = build_en(random.Random(SEED + 4), en_id)

    # file mtimes follow the transcripts: the last write/edit of each file
    for s in (en, zh):                       # zh is later, so it wins
        for rel, when in session_write_times(s).items():
            if rel in tree.mtimes:
                tree.mtimes[rel] = when
    tree.finish("2026-11-20 00:00:00")

    hb_alert = next(e["message"]["content"][-1]["text"] for e in zh.entries
                    if e["type"] == "message" and e["message"]["role"] == "assistant"
                    and e["message"]["content"][-1].get("text", "").startswith("⏰"))
    store = {
        "agent:main:main": session_store_entry(zh, {
            "lastChannel": "webchat",
            "deliveryContext": {"channel": "webchat"},
            "origin": {"label": "openclaw-control-ui", "provider": "webchat", "surface": "webchat", "chatType": "direct"},
            "lastHeartbeatText": hb_alert,
            "lastHeartbeatSentAt": ms(local("2026-11-27 15:05:19")),
        }),
        f"agent:main:telegram:direct:{TG_ID}": session_store_entry(en, {
            "lastChannel": "telegram",
            "lastTo": f"telegram:{TG_ID}",
            "lastAccountId": "default",
            "deliveryContext": {"channel": "telegram", "to": f"telegram:{TG_ID}", "accountId": "default"},
            "origin": {"label": f"Chen Yu (@chenyu_dev) id:{TG_ID}", "provider": "telegram", "surface": "telegram",
                       "chatType": "direct", "from": f"telegram:{TG_ID}", "to": f"telegram:{TG_ID}"},
        }),
    }
    write_state(st, [zh, en], store)

    def count(s):
        return len(s.entries)
    print(f"workspace:      {ws}")
    print(f"openclaw-state: {st}")
    print(f"  {zh_id}.jsonl  zh  {count(zh)} entries (+header)")
    print(f"  {en_id}.jsonl  en  {count(en)} entries (+header)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
