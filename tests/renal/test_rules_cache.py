"""The layered rule files are kept on disk by their texts (``rules._layered_rules``): rules read
from there are the rules built from the files, and an edited file is read again."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

from apollo.renal import rules


def test_rules_kept_on_disk_are_the_rules_built_from_the_files() -> None:
    built = rules._layered(())
    kept = marshal.loads(marshal.dumps(built))  # what the memo stores and hands back
    assert kept == built
    for name, data in built["signals"].items():
        fresh, stored = rules._signal(dict(data)), rules._signal(dict(kept["signals"][name]))
        assert fresh == stored
        patterns = [fresh.regex.first, fresh.regex.rest] if isinstance(fresh.regex, rules.Branches) else [fresh.regex]
        again = [stored.regex.first, stored.regex.rest] if isinstance(stored.regex, rules.Branches) else [stored.regex]
        assert [p and (p.pattern, p.flags, p.needles) for p in patterns] == [
            p and (p.pattern, p.flags, p.needles) for p in again]


def test_a_rule_file_edited_in_place_is_read_again(tmp_path: Path) -> None:
    """Same size, same modification time, another text: the key is the text itself."""
    extra = tmp_path / "extra.toml"
    extra.write_text('[signal.sticker]\nsocial = true\nzh = ["捂脸"]\n', encoding="utf-8")
    stamp = os.stat(extra)
    first = rules._texts_digest((str(extra),))
    rules._build.cache_clear()
    assert "捂脸" in rules.load_files((str(extra),))["sticker"].phrases
    extra.write_text('[signal.sticker]\nsocial = true\nzh = ["偷笑"]\n', encoding="utf-8")
    os.utime(extra, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert rules._texts_digest((str(extra),)) != first
    rules._build.cache_clear()  # a new process
    assert rules.load_files((str(extra),))["sticker"].phrases == frozenset({"偷笑"})
    assert rules._texts_digest((str(tmp_path / "missing.toml"),)) is None


def test_the_kept_rules_are_keyed_by_the_code_that_layers_them_too(tmp_path: Path, monkeypatch) -> None:
    """Apollo's version (in the memo's file name) names no change made between two releases."""
    code = tmp_path / "rules.py"
    code.write_bytes(Path(rules.__file__).read_bytes())
    monkeypatch.setattr(rules, "__file__", str(code))
    before = rules._texts_digest(())
    code.write_bytes(code.read_bytes() + b"\n# a change\n")
    assert rules._texts_digest(()) != before
