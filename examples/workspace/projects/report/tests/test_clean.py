from scripts.clean_csv import parse_amount


def test_parse_amount():
    assert parse_amount("¥1,234.50") == 1234.5
    assert parse_amount(" 98.76 ") == 98.76


def test_skips_duplicate_header(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("日期,云厂商,产品,项目,金额,币种,备注\n日期,云厂商,产品,项目,金额,币种,备注\n", encoding="utf-8")
    from scripts.clean_csv import clean
    rows, stats = clean(str(p), 7.125)
    assert rows == [] and stats["header"] == 1


def test_usd_conversion(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("日期,云厂商,产品,项目,金额,币种,备注\n2026-10-05,Cloudflare,R2,linkdrop,10.00,USD,weekly\n", encoding="utf-8")
    from scripts.clean_csv import clean
    rows, _ = clean(str(p), 7.125)
    assert rows[0][4] == 71.25
