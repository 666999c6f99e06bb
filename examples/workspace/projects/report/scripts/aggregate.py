#!/usr/bin/env python3
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
