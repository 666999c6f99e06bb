#!/usr/bin/env python3
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
            w = csv.writer(f, lineterminator="\n")
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
